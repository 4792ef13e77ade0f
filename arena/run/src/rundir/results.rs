//! `games.csv`: records in game order, one line each (`docs/csv.md`). Written in batches
//! (a kill -9 loses at most the last second of games, which `--resume` replays
//! identically from the seed); read back with every row checked against the schedule and
//! against its `check` column, a running CRC-32 of the rows so far, so an edited,
//! deleted, moved or damaged row is named, never trusted.
//!
//! This module is the codec (a record to its line and back, the cells, the check); the
//! writer and the reader are its submodules.

mod reader;
mod writer;

pub use reader::{RowReader, Tail, Torn, read_rows};
pub use writer::ResultsWriter;

pub use crate::runfile::csv_cell;

use std::ops::Range;

use crate::engine::{RowEncoder, Schedule};
use crate::plan::Plan;
use crate::record::{Attempt, Duel, Extra, JobKey, Outcome, Record, Score, Side, Termination};
use crate::task::Task;

/// The columns every game has, before the task's own.
const COMMON_COLUMNS: [&str; 12] = [
    "game",
    "case",
    "pair",
    "first",
    "agent_a",
    "agent_b",
    "score_a",
    "score_b",
    "termination",
    "forfeit",
    "reason",
    "plies",
];

/// The columns every puzzle attempt has, before the task's own (`docs/csv.md`).
const SOLO_COLUMNS: [&str; 8] = [
    "attempt",
    "puzzle",
    "seed",
    "solver",
    "valid",
    "score",
    "termination",
    "reason",
];

/// `00` to `99`, two bytes each.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends `n` in decimal, two digits at a time (a row has three or more numbers, and
/// fast games are written at millions a second).
fn decimal(out: &mut Vec<u8>, mut n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        i -= 1;
        digits[i] = b'0' + n as u8;
    }
    out.extend_from_slice(&digits[i..]);
}

/// Appends a cell as [`csv_cell`] writes it, without allocating when it needs no quotes.
fn write_cell(out: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.extend_from_slice(csv_cell(text).as_bytes());
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

/// Turns records into lines and back, for one plan.
pub struct Codec {
    schedule: Schedule,
    /// One-seat (puzzle) rows: `SOLO_COLUMNS`; the instance seed of pair `p` is
    /// `first_seed + p`.
    solo: bool,
    first_seed: u64,
    /// A game's own cells (and the task's endings and extra columns).
    game: GameCells,
    /// Names and cases as written (CSV-quoted where needed), rendered once.
    cases: Vec<String>,
    case_names: Vec<String>,
    matchups: Vec<(String, String)>,
    matchup_names: Vec<(String, String)>,
    /// Per case, its cell and the comma after it.
    case_cells: Vec<String>,
    /// Per matchup, the cells from `first` to `agent_b` and the commas around them, when
    /// A moves first and when B does: `,a,greedy,random,`.
    seat_cells: Vec<[String; 2]>,
}

impl Codec {
    pub fn new(plan: &Plan) -> Codec {
        let names: Vec<(String, String)> = plan
            .matchups()
            .iter()
            .map(|&(a, b)| (plan.agents[a].name.clone(), plan.agents[b].name.clone()))
            .collect();
        Codec {
            schedule: plan.schedule,
            solo: plan.is_solo(),
            first_seed: plan.seed,
            game: GameCells::new(plan.task),
            cases: plan.cases.iter().map(|c| csv_cell(c)).collect(),
            case_names: plan.cases.clone(),
            matchups: names
                .iter()
                .map(|(a, b)| (csv_cell(a), csv_cell(b)))
                .collect(),
            case_cells: plan.cases.iter().map(|c| csv_cell(c) + ",").collect(),
            seat_cells: names
                .iter()
                .map(|(a, b)| {
                    let (a, b) = (csv_cell(a), csv_cell(b));
                    [Side::A, Side::B].map(|first| format!(",{},{a},{b},", first.as_str()))
                })
                .collect(),
            matchup_names: names,
        }
    }

    fn columns(&self) -> &'static [&'static str] {
        if self.solo {
            &SOLO_COLUMNS
        } else {
            &COMMON_COLUMNS
        }
    }

    pub fn header(&self) -> String {
        let mut line = self.columns().join(",");
        for c in self.game.extra_columns {
            line.push(',');
            line.push_str(c);
        }
        line.push_str(",check\n");
        line
    }

    /// Appends `record`'s line to `out`, without its `check` column: the row's content,
    /// ending in a line break.
    pub fn write(&self, record: &Record, out: &mut Vec<u8>) {
        let d = match &record.outcome {
            Outcome::Duel(d) => d,
            Outcome::Solo(attempt) => return self.write_solo(record, attempt, out),
        };
        let k = &record.key;
        // Whole runs of cells rendered once per plan, and bytes pushed: per-cell `write!`
        // (or a copy per comma) would cost as much as a fast game.
        decimal(out, k.index);
        out.push(b',');
        out.extend_from_slice(self.case_cells[usize::from(k.case)].as_bytes());
        decimal(out, u64::from(k.pair));
        out.extend_from_slice(
            self.seat_cells[usize::from(k.matchup)][usize::from(d.first == Side::B)].as_bytes(),
        );
        write_outcome(record, d, out);
        out.push(b'\n');
    }

    fn write_solo(&self, record: &Record, attempt: &Attempt, out: &mut Vec<u8>) {
        let k = &record.key;
        decimal(out, k.index);
        for cell in [",", &self.cases[usize::from(k.case)], ","] {
            out.extend_from_slice(cell.as_bytes());
        }
        decimal(out, self.first_seed + u64::from(k.pair));
        out.push(b',');
        out.extend_from_slice(self.matchups[usize::from(k.matchup)].0.as_bytes());
        match attempt.score {
            Some(score) => {
                out.extend_from_slice(b",1,");
                out.extend_from_slice(score.to_string().as_bytes());
            }
            None => out.extend_from_slice(b",0,"),
        }
        out.push(b',');
        out.extend_from_slice(record.termination.as_str().as_bytes());
        out.push(b',');
        out.extend_from_slice(csv_cell(&record.reason).as_bytes());
        write_extras(record, out);
        out.push(b'\n');
    }

    /// Reads one row back; `expected` is the game number it must hold. Errors say what
    /// is wrong, without the file (the caller names it).
    pub fn read(&self, row: &csv::StringRecord, expected: u64) -> Result<Record, String> {
        let width = self.columns().len() + self.game.extra_columns.len();
        if row.len() != width {
            return Err(format!("{} columns, expected {width}", row.len()));
        }
        let cell = |i: usize| row.get(i).unwrap_or_default();
        let index: u64 = cell(0)
            .parse()
            .map_err(|_| format!("{} {:?} is not a number", self.columns()[0], cell(0)))?;
        if index != expected {
            return Err(format!("game {index} where game {expected} belongs"));
        }
        if index >= self.schedule.len() {
            return Err(format!(
                "game {index} is past the end of the schedule ({} games)",
                self.schedule.len()
            ));
        }
        let key = self.schedule.job(index);
        let ending = if self.solo {
            self.read_solo(&cell, &key)?
        } else {
            self.read_duel(&cell, &key)?
        };
        Ok(record(key, ending, self.columns().len()..width, &cell))
    }

    fn read_solo(&self, cell: Cells<'_>, key: &JobKey) -> Result<Ending, String> {
        let index = key.index;
        let solver = &self.matchup_names[usize::from(key.matchup)].0;
        let puzzle = &self.case_names[usize::from(key.case)];
        let seed = self.first_seed + u64::from(key.pair);
        if cell(1) != puzzle || cell(2) != seed.to_string() || cell(3) != solver {
            return Err(format!(
                "attempt {index} is {:?} seed {} by {:?}, but this run's attempt {index} is {puzzle} seed {seed} by {solver:?}: the row is not from this run",
                cell(1),
                cell(2),
                cell(3)
            ));
        }
        let termination = Termination::parse(cell(6), self.game.endings)?;
        let reason = cell(7).to_owned();
        let score = match (cell(4), cell(5)) {
            ("1", s) => Some(
                s.parse::<i64>()
                    .map_err(|_| format!("score {s:?} is not a number"))?,
            ),
            ("0", "") => None,
            (v, s) => return Err(format!("valid {v:?} with score {s:?}")),
        };
        let answered = termination == Termination::Rules(crate::task::puzzles::ANSWER);
        if score.is_some() != answered {
            return Err(format!(
                "termination {termination} with valid {:?}",
                cell(4)
            ));
        }
        if !termination.is_forfeit() && !answered {
            return Err(format!("termination {termination} in a puzzle attempt"));
        }
        if reason.is_empty() == termination.is_forfeit() {
            return Err(format!("termination {termination} with reason {reason:?}"));
        }
        Ok((Outcome::Solo(Attempt { score }), termination, reason, 0))
    }

    fn read_duel(&self, cell: Cells<'_>, key: &JobKey) -> Result<Ending, String> {
        let index = key.index;
        let (a, b) = &self.matchup_names[usize::from(key.matchup)];
        let case = &self.case_names[usize::from(key.case)];
        if cell(1) != case || cell(4) != a || cell(5) != b || cell(2) != key.pair.to_string() {
            return Err(format!(
                "game {index} is case {:?} pair {} of {:?} vs {:?}, but this run's game {index} is case {case} pair {} of {a:?} vs {b:?}: the row is not from this run",
                cell(1),
                cell(2),
                cell(4),
                cell(5),
                key.pair
            ));
        }
        self.game.read_ending(cell)
    }
}

/// Where a two-seat game's own cells sit in its row: `first`, then `score_a` on.
const FIRST: usize = 3;
const OUTCOME: usize = 6;

/// A two-seat game's own cells: its row less what its key and its agents' names give
/// (`first`, then `score_a` to the task's extra columns, without the check). What a
/// league keeps of each game (so renaming a bot changes no stored game), read back into
/// the very record written.
#[derive(Clone, Copy, Debug)]
pub struct GameCells {
    endings: &'static [&'static str],
    extra_columns: &'static [&'static str],
}

impl GameCells {
    pub fn new(task: &'static dyn Task) -> GameCells {
        GameCells {
            endings: task.endings(),
            extra_columns: task.extra_columns(),
        }
    }

    /// Appends `record`'s own cells to `out`, without a line break.
    pub fn write(&self, record: &Record, out: &mut Vec<u8>) -> Result<(), String> {
        let Outcome::Duel(d) = &record.outcome else {
            return Err("a puzzle attempt is no two-seat game".into());
        };
        out.extend_from_slice(d.first.as_str().as_bytes());
        out.push(b',');
        write_outcome(record, d, out);
        Ok(())
    }

    /// Reads own cells back into the record of the game `key`.
    pub fn read(&self, key: JobKey, cells: &[u8]) -> Result<Record, String> {
        let mut row = csv::StringRecord::new();
        split_fields(cells, &mut row)?;
        let width = 1 + COMMON_COLUMNS.len() - OUTCOME + self.extra_columns.len();
        if row.len() != width {
            return Err(format!("{} cells, expected {width}", row.len()));
        }
        // Each cell by its column in a row.
        let cell = |i: usize| {
            match i {
                FIRST => row.get(0),
                i if i >= OUTCOME => row.get(i + 1 - OUTCOME),
                _ => None,
            }
            .unwrap_or_default()
        };
        let ending = self.read_ending(&cell)?;
        let extras = COMMON_COLUMNS.len()..COMMON_COLUMNS.len() + self.extra_columns.len();
        Ok(record(key, ending, extras, &cell))
    }

    /// A two-seat row's outcome, from `first` on (`cell` by column).
    fn read_ending(&self, cell: Cells<'_>) -> Result<Ending, String> {
        let first: Side = cell(FIRST).parse().map_err(|e| format!("first: {e}"))?;
        let score_a: Score = cell(6).parse().map_err(|e| format!("score_a: {e}"))?;
        let score_b: Score = cell(7).parse().map_err(|e| format!("score_b: {e}"))?;
        if score_b != score_a.flipped() {
            return Err(format!(
                "score_a {} and score_b {} do not sum to 1",
                cell(6),
                cell(7)
            ));
        }
        let termination = Termination::parse(cell(8), self.endings)?;
        let forfeit = match cell(9) {
            "" => None,
            s => Some(s.parse::<Side>().map_err(|e| format!("forfeit: {e}"))?),
        };
        if forfeit.is_some() != termination.is_forfeit() {
            return Err(format!(
                "termination {termination} with forfeit {:?}",
                cell(9)
            ));
        }
        let reason = cell(10).to_owned();
        if reason.is_empty() == forfeit.is_some() {
            return Err(format!("termination {termination} with reason {reason:?}"));
        }
        let plies: u32 = cell(11)
            .parse()
            .map_err(|_| format!("plies {:?} is not a number", cell(11)))?;
        let outcome = Outcome::Duel(Duel {
            first,
            score_a,
            forfeit,
        });
        Ok((outcome, termination, reason, plies))
    }
}

/// A row's cells by column (empty past its end).
type Cells<'r> = &'r dyn Fn(usize) -> &'r str;

/// What a row says of its game besides the job and the extras: its outcome,
/// termination, reason and plies.
type Ending = (Outcome, Termination, String, u32);

/// The record of the game `key` that a row says ended so, its extras in `extras`.
fn record(key: JobKey, ending: Ending, extras: Range<usize>, cell: Cells<'_>) -> Record {
    let (outcome, termination, reason, plies) = ending;
    Record {
        key,
        outcome,
        termination,
        reason,
        plies,
        extras: extras.map(|i| Extra::parse(cell(i))).collect(),
        elapsed: None,
        think: None,
    }
}

/// Appends a two-seat row from `score_a` to its extra columns, without a line break.
fn write_outcome(record: &Record, d: &Duel, out: &mut Vec<u8>) {
    out.extend_from_slice(match d.score_a {
        Score::Win => b"1,0,",
        Score::Draw => b"0.5,0.5,",
        Score::Loss => b"0,1,",
    });
    out.extend_from_slice(record.termination.as_str().as_bytes());
    out.push(b',');
    if let Some(side) = d.forfeit {
        out.extend_from_slice(side.as_str().as_bytes());
    }
    out.push(b',');
    if !record.reason.is_empty() {
        write_cell(out, &record.reason);
    }
    out.push(b',');
    decimal(out, u64::from(record.plies));
    write_extras(record, out);
}

/// Appends the record's extra columns, each after a comma.
#[inline(always)]
fn write_extras(record: &Record, out: &mut Vec<u8>) {
    for e in &record.extras {
        out.push(b',');
        match e {
            Extra::Int(n) => {
                if *n < 0 {
                    out.push(b'-');
                }
                decimal(out, n.unsigned_abs());
            }
            Extra::Text(t) => write_cell(out, t),
        }
    }
}

/// The `check` of a row: the running CRC-32 (zlib's `crc32(data, value)`) of every row's
/// content so far, each with its line break, starting from 0. So an edited row breaks
/// its own check, and a deleted, added or moved one the check of the row after it.
pub fn chain(previous: u32, content: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new_with_initial(previous);
    crc.update(content);
    crc.finalize()
}

/// Appends `content` (a row's content, ending in a line break) to `out` with its `check`
/// column after `previous`; returns the new check.
pub fn append_checked(out: &mut Vec<u8>, content: &[u8], previous: u32) -> u32 {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let check = chain(previous, content);
    out.extend_from_slice(&content[..content.len() - 1]);
    out.push(b',');
    out.extend((0..8).rev().map(|i| HEX[(check >> (4 * i)) as usize & 15]));
    out.push(b'\n');
    check
}

impl RowEncoder for Codec {
    fn encode(&self, record: &Record, out: &mut Vec<u8>) {
        self.write(record, out);
    }
}

/// Splits a row as `csv_cell` writes it: cells between commas, a quoted one with `""`
/// for a quote.
pub fn split_fields(line: &[u8], row: &mut csv::StringRecord) -> Result<(), String> {
    row.clear();
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_owned())?;
    let mut rest = text;
    loop {
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut cell = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next() {
                    Some((i, '"')) => {
                        if quoted[i + 1..].starts_with('"') {
                            cell.push('"');
                            chars.next();
                        } else {
                            break i + 1;
                        }
                    }
                    Some((_, c)) => cell.push(c),
                    None => return Err("a quoted cell is not closed".into()),
                }
            };
            row.push_field(&cell);
            rest = &quoted[end..];
            match rest.strip_prefix(',') {
                Some(r) => rest = r,
                None if rest.is_empty() => return Ok(()),
                None => return Err("text after a quoted cell".into()),
            }
        } else {
            match rest.split_once(',') {
                Some((cell, r)) => {
                    row.push_field(cell);
                    rest = r;
                }
                None => {
                    row.push_field(rest);
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals_are_written_like_display() {
        for n in [0u64, 7, 10, 99, 100, 12_345, u64::MAX] {
            let mut out = Vec::new();
            super::decimal(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
