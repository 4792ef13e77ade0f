//! The record: one finished game, the hinge between the engine and everything after it.
//! It names no game: a task's own endings are its words (`Termination::Rules`).
//! The writer, progress, statistics, reports, resume, replay and merge read records,
//! never strings or engine state. `games.csv` is records in game order (`docs/csv.md`).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use arena_core::AgentError;

/// Where a game sits in the schedule. Everything here follows from `index` and the plan
/// (`engine::Schedule::job`); a record read back is checked against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JobKey {
    /// The game's number: its row in `games.csv`, counting from 0.
    pub index: u64,
    /// Index into the plan's matchups (`Plan::matchups`).
    pub matchup: u16,
    /// Index into the plan's cases.
    pub case: u16,
    /// The pair's number within its case and matchup; both games of a pair share the
    /// deal or opening (D5, Q8).
    pub pair: u32,
    /// 0 or 1: which game of the pair (the second exchanges the seats).
    pub game: u8,
}

/// One of a matchup's two agents, as the row names them (`agent_a`, `agent_b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }
}

impl FromStr for Side {
    type Err = String;
    fn from_str(s: &str) -> Result<Side, String> {
        named(s, &[Side::A, Side::B], Side::as_str)
            .ok_or_else(|| format!("expected `a` or `b`, got {s:?}"))
    }
}

/// The one of `all` whose name is `s`.
fn named<T: Copy>(s: &str, all: &[T], name: fn(T) -> &'static str) -> Option<T> {
    all.iter().copied().find(|&t| name(t) == s)
}

/// How a game ended: by its rules, in its task's words, or by one side's forfeit (D14,
/// Q7). The forfeits are common to every task; the endings by the rules are each task's
/// own (`Task::endings`: Dominoes' `domino` and `blocked`, Quarto's `line` and `full`,
/// a puzzle's `answer`), so a new game brings its endings without editing this file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The game ended by its rules: the ending as its task names it (one of its
    /// `Task::endings`), which is also how `games.csv` writes it.
    Rules(&'static str),
    Timeout,
    Crash,
    Malformed,
    Illegal,
    Memory,
    Startup,
    /// An external agent over a sandbox limit other than memory (CPU time, processes).
    Limit,
}

impl Termination {
    /// The forfeit kinds, in a fixed order (for per-kind counts).
    pub const FORFEITS: [Termination; 7] = [
        Termination::Timeout,
        Termination::Crash,
        Termination::Malformed,
        Termination::Illegal,
        Termination::Memory,
        Termination::Startup,
        Termination::Limit,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Rules(ending) => ending,
            Termination::Timeout => "timeout",
            Termination::Crash => "crash",
            Termination::Malformed => "malformed",
            Termination::Illegal => "illegal",
            Termination::Memory => "memory",
            Termination::Startup => "startup",
            Termination::Limit => "limit",
        }
    }

    /// Whether this ends a game by forfeit rather than by the rules.
    pub fn is_forfeit(self) -> bool {
        !matches!(self, Termination::Rules(_))
    }

    /// Every way a game of a task whose endings are `endings` can end: those, then the
    /// forfeits (the order of per-kind counts).
    pub fn all(endings: &[&'static str]) -> Vec<Termination> {
        let rules = endings.iter().map(|&e| Termination::Rules(e));
        rules.chain(Termination::FORFEITS).collect()
    }

    /// A termination as `games.csv` writes it, in a run of a task whose endings are
    /// `endings`.
    pub fn parse(s: &str, endings: &[&'static str]) -> Result<Termination, String> {
        let rules = endings.iter().map(|&e| Termination::Rules(e));
        rules
            .chain(Termination::FORFEITS)
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("unknown termination {s:?}"))
    }
}

impl From<&AgentError> for Termination {
    fn from(e: &AgentError) -> Termination {
        match e {
            AgentError::Timeout(_) => Termination::Timeout,
            AgentError::Crash(_) => Termination::Crash,
            AgentError::Malformed(_) => Termination::Malformed,
            AgentError::Illegal(_) => Termination::Illegal,
            AgentError::Memory(_) => Termination::Memory,
            AgentError::Startup(_) => Termination::Startup,
            AgentError::Limit(_) => Termination::Limit,
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Agent A's result in one game. Scores are exact halves, so they are kept as an enum
/// rather than a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    Loss,
    Draw,
    Win,
}

impl Score {
    pub fn from_f64(x: f64) -> Option<Score> {
        if x == 0.0 {
            Some(Score::Loss)
        } else if x == 0.5 {
            Some(Score::Draw)
        } else if x == 1.0 {
            Some(Score::Win)
        } else {
            None
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Score::Loss => 0.0,
            Score::Draw => 0.5,
            Score::Win => 1.0,
        }
    }

    /// The other side's score.
    pub fn flipped(self) -> Score {
        match self {
            Score::Loss => Score::Win,
            Score::Draw => Score::Draw,
            Score::Win => Score::Loss,
        }
    }

    /// As written in `games.csv`: `1`, `0.5`, `0`.
    pub fn as_str(self) -> &'static str {
        match self {
            Score::Loss => "0",
            Score::Draw => "0.5",
            Score::Win => "1",
        }
    }
}

impl FromStr for Score {
    type Err = String;
    fn from_str(s: &str) -> Result<Score, String> {
        named(s, &[Score::Loss, Score::Draw, Score::Win], Score::as_str)
            .ok_or_else(|| format!("a score is 0, 0.5 or 1, got {s:?}"))
    }
}

/// The outcome of a two-seat game, from the matchup's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Duel {
    pub score_a: Score,
    /// The agent whose side opened the game (Dominoes: the starting tile's owner, D6;
    /// Quarto: the side to move after the seeded opening).
    pub first: Side,
    /// Who forfeited, when `termination` is a forfeit.
    pub forfeit: Option<Side>,
}

/// The outcome of a puzzle attempt (one seat): the referee's raw score, or `None` when
/// the answer was invalid or never came (the record's termination and reason say which).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Attempt {
    pub score: Option<i64>,
}

/// A record's outcome: a two-seat game's, or a one-seat puzzle attempt's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Duel(Duel),
    Solo(Attempt),
}

/// One extra column value a task declares (`Task::extra_columns`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Extra {
    Int(i64),
    /// Borrowed when a task can name the value without formatting it (a tile).
    Text(Cow<'static, str>),
}

impl fmt::Display for Extra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Extra::Int(n) => write!(f, "{n}"),
            Extra::Text(s) => f.write_str(s),
        }
    }
}

impl Default for Extra {
    fn default() -> Extra {
        Extra::Int(0)
    }
}

impl Extra {
    /// Reads a cell back: integers stay integers, anything else is text.
    pub fn parse(cell: &str) -> Extra {
        match cell.parse::<i64>() {
            Ok(n) if n.to_string() == cell => Extra::Int(n),
            _ => Extra::Text(Cow::Owned(cell.to_owned())),
        }
    }
}

/// The longest `reason` kept, in characters.
pub const REASON_MAX: usize = 160;

/// A forfeit's explanation, on one line and cut to [`REASON_MAX`] characters.
pub fn reason(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let one_line = one_line.trim();
    if one_line.chars().count() <= REASON_MAX {
        one_line.to_owned()
    } else {
        let cut: String = one_line.chars().take(REASON_MAX - 1).collect();
        format!("{cut}…")
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    pub key: JobKey,
    pub outcome: Outcome,
    pub termination: Termination,
    /// Why a forfeit happened (the offending reply, the timeout, the refused move), cut to
    /// [`REASON_MAX`] characters; empty when the game ended by the rules.
    pub reason: String,
    /// Decisions the agents made (automatic first tile and opening plies excluded).
    pub plies: u32,
    /// The task's extra columns, in `Task::extra_columns` order.
    pub extras: Extras,
    /// Wall time of a puzzle attempt, measured by the arena. Never in `games.csv` (it is
    /// not reproducible): `times.csv` holds it. `None` for games and for records read back.
    pub elapsed: Option<std::time::Duration>,
    /// A timed game's think time per decision (`--timings`): never in `games.csv`;
    /// `timings.csv` holds it. `None` when untimed and for records read back.
    pub think: Option<Box<ThinkTimes>>,
}

/// Each agent's decisions in one game, in microseconds of wall time as the arena
/// measured them (from the call to its answer; for an external bot, the pipe included).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ThinkTimes {
    /// Agent A's, then agent B's.
    pub micros: [Vec<u32>; 2],
}

impl Record {
    /// The two-seat outcome, when this is a game.
    pub fn duel(&self) -> Option<&Duel> {
        match &self.outcome {
            Outcome::Duel(d) => Some(d),
            Outcome::Solo(_) => None,
        }
    }

    /// Who forfeited: a game's forfeiting side; a puzzle attempt's only seat (A) when it
    /// ended by a forfeit.
    pub fn forfeiter(&self) -> Option<Side> {
        match &self.outcome {
            Outcome::Duel(d) => d.forfeit,
            Outcome::Solo(_) => self.termination.is_forfeit().then_some(Side::A),
        }
    }

    /// Agent A's points: its game score, or 1 for a valid puzzle answer (progress bars).
    pub fn points_a(&self) -> f64 {
        match &self.outcome {
            Outcome::Duel(d) => d.score_a.as_f64(),
            Outcome::Solo(a) => f64::from(u8::from(a.score.is_some())),
        }
    }
}

/// A record's extra column values: the first [`Extras::INLINE`] inside the record, any
/// more on the heap. A record is made on a worker and dropped on the writer's thread;
/// a game's few values then cost no allocation (and no free across threads).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Extras {
    inline: [Extra; Extras::INLINE],
    len: u8,
    spill: Vec<Extra>,
}

impl Extras {
    const INLINE: usize = 4;

    pub fn new() -> Extras {
        Extras::default()
    }

    pub fn push(&mut self, value: Extra) {
        match self.inline.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = value;
                self.len += 1;
            }
            None => self.spill.push(value),
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.len) + self.spill.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> ExtrasIter<'_> {
        self.inline[..usize::from(self.len)]
            .iter()
            .chain(self.spill.iter())
    }
}

impl Extend<Extra> for Extras {
    fn extend<I: IntoIterator<Item = Extra>>(&mut self, values: I) {
        for v in values {
            self.push(v);
        }
    }
}

impl FromIterator<Extra> for Extras {
    fn from_iter<I: IntoIterator<Item = Extra>>(values: I) -> Extras {
        let mut extras = Extras::new();
        extras.extend(values);
        extras
    }
}

/// The values of an [`Extras`], in column order.
pub type ExtrasIter<'a> =
    std::iter::Chain<std::slice::Iter<'a, Extra>, std::slice::Iter<'a, Extra>>;

impl<'a> IntoIterator for &'a Extras {
    type Item = &'a Extra;
    type IntoIter = ExtrasIter<'a>;
    fn into_iter(self) -> ExtrasIter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminations_round_trip_through_their_names() {
        let endings = ["domino", "blocked"];
        let all = Termination::all(&endings);
        for &t in &all {
            assert_eq!(Termination::parse(&t.to_string(), &endings), Ok(t));
        }
        assert!(Termination::parse("resign", &endings).is_err());
        // Another task's ending is no ending of this one.
        assert!(Termination::parse("line", &endings).is_err());
        assert_eq!(
            all.iter().filter(|t| t.is_forfeit()).count(),
            Termination::FORFEITS.len()
        );
        assert_eq!(all.len(), endings.len() + Termination::FORFEITS.len());
    }

    #[test]
    fn sides_read_back_as_written() {
        for side in [Side::A, Side::B] {
            assert_eq!(side.as_str().parse::<Side>(), Ok(side));
        }
        assert!("A".parse::<Side>().is_err());
    }

    #[test]
    fn scores_round_trip_and_flip() {
        for s in [Score::Loss, Score::Draw, Score::Win] {
            assert_eq!(s.as_str().parse::<Score>(), Ok(s));
            assert_eq!(Score::from_f64(s.as_f64()), Some(s));
            assert_eq!(s.flipped().as_f64(), 1.0 - s.as_f64());
        }
        assert!("0.25".parse::<Score>().is_err());
        assert!("1.0".parse::<Score>().is_err());
    }

    #[test]
    fn reasons_are_one_line_and_bounded() {
        assert_eq!(reason("no reply\nin 10 s\r"), "no reply in 10 s");
        let long = reason(&"x".repeat(1000));
        assert_eq!(long.chars().count(), REASON_MAX);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn extras_keep_their_order_past_the_inline_ones() {
        let values: Vec<Extra> = (0..7).map(Extra::Int).collect();
        let extras: Extras = values.iter().cloned().collect();
        assert_eq!(extras.len(), 7);
        assert_eq!(extras.iter().cloned().collect::<Vec<_>>(), values);
        let mut two = Extras::new();
        two.extend([Extra::Int(1), Extra::Text("a".into())]);
        assert_eq!((&two).into_iter().count(), 2);
        assert_ne!(two, extras);
    }

    #[test]
    fn extras_read_back_as_written() {
        for e in [
            Extra::Int(0),
            Extra::Int(-3),
            Extra::Text("6-6".into()),
            Extra::Text("007".into()),
        ] {
            assert_eq!(Extra::parse(&e.to_string()), e);
        }
    }
}
