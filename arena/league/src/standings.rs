//! `arena league show` and the page's numbers: Bradley–Terry standings with bootstrap
//! intervals (`stats::bradley_terry::rate`, as a round robin's report), each test with
//! its LLR, Elo interval, speed and ETA, and the cross table. Read from the aggregates only, so the cost
//! does not grow with the games stored.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use anyhow::Result;
use serde::Serialize;

use super::League;
use super::store::{Bot, BotId, PairStats, PathPoint, Role, State, Test, TestId, TestState};
use super::verdict::{Table, base_name, pentanomial, strongest_benchmark};
use arena_run::report::Exporter;
use arena_run::report::export::csv_table;
use arena_stats::bradley_terry::{self, Encounter};
use arena_stats::{EloEstimate, Z_95};

mod stderr;
pub use stderr::Stderr;

#[derive(Clone, Debug, Serialize)]
pub struct Standings {
    pub game: String,
    pub cases: Vec<String>,
    /// A string in JSON: a seed above 2^53 is no exact JSON number for a browser (the
    /// page showed 15182222548295963000 for 15182222548295961748).
    #[serde(serialize_with = "as_text")]
    pub seed: u64,
    pub games: u64,
    pub sprt: SprtFacts,
    pub rows: Vec<Row>,
    /// Every test, oldest first.
    pub tests: Vec<TestRow>,
    pub cross: Cross,
    /// Bots that play no more (archived) or never played (failed builds).
    pub retired: Vec<Retired>,
}

fn as_text<S: serde::Serializer>(n: &u64, out: S) -> Result<S::Ok, S::Error> {
    out.collect_str(n)
}

/// A GSPRT's bounds: logistic Elo, error rates, and the LLR's bounds they give.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Bounds {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Bounds {
    fn of(s: &arena_run::plan::SprtConfig) -> Bounds {
        let (lower, upper) = s.sprt().map_or((f64::NAN, f64::NAN), |t| t.bounds());
        Bounds {
            elo0: s.elo0,
            elo1: s.elo1,
            alpha: s.alpha,
            beta: s.beta,
            lower,
            upper,
        }
    }
}

/// The league's own bounds, and the strongest benchmark of now.
#[derive(Clone, Debug, Serialize)]
pub struct SprtFacts {
    #[serde(flatten)]
    pub bounds: Bounds,
    /// The benchmark tests against the strongest benchmark are against now.
    pub against: Option<String>,
}

/// One bot of the standings.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub rank: usize,
    pub bot: String,
    pub role: Role,
    pub state: State,
    pub games: u64,
    /// Points per 100 games against the field.
    pub score: f64,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// Games it lost by forfeit, by kind (`timeout`, `crash`, `startup`, ...).
    pub forfeits: BTreeMap<String, u64>,
    /// An external bot's newest stderr log and its last lines (`null`: none).
    pub stderr: Option<Stderr>,
}

/// One test: a bot against its base, at its bounds.
#[derive(Clone, Debug, Serialize)]
pub struct TestRow {
    pub id: TestId,
    pub bot: String,
    /// The base it names (`None`: the strongest benchmark, `against` says which).
    pub base: Option<String>,
    /// The base in words (`"v1"`, `the strongest benchmark ("random")`).
    pub base_said: String,
    pub against: Option<String>,
    #[serde(flatten)]
    pub bounds: Bounds,
    pub state: TestState,
    pub llr: Option<f64>,
    /// Game pairs the LLR was computed on.
    pub pairs: u64,
    /// The bot's Elo over what it was last against, with its 95 % interval (the pairs').
    pub elo: Option<EloEstimate>,
    /// Games per second of its pair lately (over the last minute of its path).
    pub games_per_s: Option<f64>,
    /// Seconds to a bound at the LLR's drift so far and that speed (a running test).
    pub eta_s: Option<f64>,
    /// Why a stopped test stopped.
    pub why: String,
    /// The LLR after each batch: pairs, LLR and unix time.
    pub path: Vec<PathPoint>,
}

/// The window over which a test's speed is measured.
const SPEED_WINDOW_S: f64 = 60.0;

/// Game pairs per second over the path's last [`SPEED_WINDOW_S`].
fn pairs_per_s(path: &[PathPoint]) -> Option<f64> {
    let last = path.last()?;
    let at = last.at?;
    let first = path
        .iter()
        .find(|p| p.at.is_some_and(|t| t >= at - SPEED_WINDOW_S))?;
    let dt = at - first.at?;
    (dt > 0.5 && last.pairs > first.pairs).then(|| (last.pairs - first.pairs) as f64 / dt)
}

/// Seconds to a bound: the pairs the LLR needs at its mean drift per pair so far, at
/// `per_s` pairs a second. `None` without a drift toward a bound.
fn eta(llr: f64, pairs: u64, (lower, upper): (f64, f64), per_s: Option<f64>) -> Option<f64> {
    let drift = llr / pairs.max(1) as f64;
    let left = if drift > 1e-9 {
        (upper - llr) / drift
    } else if drift < -1e-9 {
        (lower - llr) / drift
    } else {
        return None;
    };
    Some(left.max(0.0) / per_s?)
}

fn test_row(
    test: &Test,
    path: Vec<PathPoint>,
    league: &arena_run::plan::SprtConfig,
    pairs: &[PairStats],
    name: &HashMap<BotId, &str>,
) -> TestRow {
    let bounds = Bounds::of(&test.sprt(league));
    let (lower, upper) = (bounds.lower, bounds.upper);
    let named = |id: BotId| name.get(&id).map(|s| (*s).to_owned());
    let per_s = pairs_per_s(&path);
    let elo = test
        .against
        .map(|a| EloEstimate::from_pentanomial(&pentanomial(test.subject, a, pairs), Z_95));
    TestRow {
        id: test.id,
        bot: named(test.subject).unwrap_or_default(),
        base: test.base.and_then(named),
        base_said: base_name(test, named),
        against: test.against.and_then(named),
        bounds,
        state: test.state,
        llr: test.llr,
        pairs: test.pairs,
        elo,
        games_per_s: per_s.map(|p| 2.0 * p),
        eta_s: match (test.state, test.llr) {
            (TestState::Running, Some(llr)) => eta(llr, test.pairs, (lower, upper), per_s),
            _ => None,
        },
        why: test.why.clone(),
        path,
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Retired {
    pub bot: String,
    pub state: State,
    pub archived: bool,
    pub log: String,
    pub forfeits: BTreeMap<String, u64>,
}

/// Points per 100 of the row's bot against the column's, and the games.
#[derive(Clone, Debug, Serialize)]
pub struct Cross {
    pub bots: Vec<String>,
    pub cells: Vec<Vec<Option<CrossCell>>>,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct CrossCell {
    pub score: f64,
    pub games: u64,
}

/// The standings now.
pub fn standings(league: &League) -> Result<Standings> {
    let bots = league.store.bots()?;
    let pairs = league.store.pairs()?;
    let forfeits = league.store.forfeits()?;
    // A league.toml with bounds that make no test is refused here, as by `run`.
    league.config.sprt.sprt()?;
    let name: HashMap<BotId, &str> = bots.iter().map(|b| (b.id, b.name.as_str())).collect();
    let strongest = strongest_benchmark(&bots, &pairs, None);
    let table = Table::of(&bots, &pairs, |b| b.plays());
    let ratings = ratings(table.ids.len(), &table.encounters, league.config.seed);
    let by_id: HashMap<BotId, &Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let mut stderr = stderr::latest(&league.dir.join(super::LOGS), &bots);
    let mut rows: Vec<Row> = table
        .ids
        .iter()
        .zip(&ratings)
        .map(|(id, r)| {
            let (points, games) = points_of(*id, &pairs, |b| by_id[&b].plays());
            let bot = by_id[id];
            Row {
                rank: 0,
                bot: bot.name.clone(),
                role: bot.role(),
                state: bot.state(),
                games,
                score: if games == 0 {
                    0.0
                } else {
                    100.0 * points / games as f64
                },
                elo: r.elo,
                elo_low: r.low,
                elo_high: r.high,
                forfeits: forfeits.get(id).cloned().unwrap_or_default(),
                stderr: stderr.remove(id),
            }
        })
        .collect();
    rows.sort_by(|x, y| y.elo.total_cmp(&x.elo));
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    let tests = league
        .store
        .tests()?
        .iter()
        .filter(|t| by_id.get(&t.subject).is_some_and(|b| !b.archived))
        .map(|t| {
            let path = league.store.test_path(t.id)?;
            Ok(test_row(t, path, &league.config.sprt, &pairs, &name))
        })
        .collect::<Result<Vec<_>>>()?;
    let order: Vec<BotId> = rows
        .iter()
        .map(|r| bots.iter().find(|b| b.name == r.bot).map_or(0, |b| b.id))
        .collect();
    let cross = cross_table(&order, &name, &pairs);
    let retired = bots
        .iter()
        .filter(|b| !b.plays())
        .map(|b| Retired {
            bot: b.name.clone(),
            state: b.state(),
            archived: b.archived,
            log: arena_run::shown::escape_controls(&b.build_log).into_owned(),
            forfeits: forfeits.get(&b.id).cloned().unwrap_or_default(),
        })
        .collect();
    Ok(Standings {
        game: league.config.game.name().to_owned(),
        cases: league.config.cases.clone(),
        seed: league.config.seed,
        games: pairs.iter().map(|p| p.games.games()).sum(),
        sprt: SprtFacts {
            bounds: Bounds::of(&league.config.sprt),
            against: strongest
                .and_then(|id| name.get(&id))
                .map(|s| (*s).to_owned()),
        },
        rows,
        tests,
        cross,
        retired,
    })
}

/// Up to this many game pairs in the table, the intervals are the reports' exact
/// bootstrap (`bradley_terry::rate`, which redraws every pair: its cost grows with the
/// games); beyond, each replicate draws each pairing's score from the normal law of
/// its pentanomial mean and variance, which those pair counts make indistinguishable
/// from the redraw, at a cost that does not grow with the games.
const EXACT_BOOTSTRAP_PAIRS: u64 = 50_000;

/// Bradley–Terry ratings with 95 % bootstrap intervals, deterministic for `seed`: the
/// exact bootstrap up to [`EXACT_BOOTSTRAP_PAIRS`], the normal-law one beyond.
pub fn ratings(agents: usize, encounters: &[Encounter], seed: u64) -> Vec<bradley_terry::Rating> {
    let pairs: u64 = encounters.iter().map(|e| e.pairs.pairs()).sum();
    if pairs <= EXACT_BOOTSTRAP_PAIRS {
        bradley_terry::rate(agents, encounters, seed)
    } else {
        bradley_terry::rate_normal(agents, encounters, seed)
    }
}

/// A bot's points and games against the bots `keep` selects.
fn points_of(id: BotId, pairs: &[PairStats], keep: impl Fn(BotId) -> bool) -> (f64, u64) {
    let mut points = 0.0;
    let mut games = 0;
    for p in pairs.iter().filter(|p| keep(p.a) && keep(p.b)) {
        if p.a == id {
            points += p.games.points();
            games += p.games.games();
        } else if p.b == id {
            points += p.games.games() as f64 - p.games.points();
            games += p.games.games();
        }
    }
    (points, games)
}

fn cross_table(order: &[BotId], name: &HashMap<BotId, &str>, pairs: &[PairStats]) -> Cross {
    let find = |x: BotId, y: BotId| -> Option<CrossCell> {
        let p = pairs.iter().find(|p| p.a == x.min(y) && p.b == x.max(y))?;
        let games = p.games.games();
        if games == 0 {
            return None;
        }
        let points = if x == p.a {
            p.games.points()
        } else {
            games as f64 - p.games.points()
        };
        Some(CrossCell {
            score: 100.0 * points / games as f64,
            games,
        })
    };
    Cross {
        bots: order.iter().map(|id| name[id].to_owned()).collect(),
        cells: order
            .iter()
            .map(|&x| {
                order
                    .iter()
                    .map(|&y| if x == y { None } else { find(x, y) })
                    .collect()
            })
            .collect(),
    }
}

fn signed(x: f64) -> String {
    format!("{x:+.1}")
}

/// `show`'s console table.
pub struct StandingsTable;

impl Exporter<Standings> for StandingsTable {
    fn export(&self, s: &Standings, _: &()) -> Result<String> {
        Ok(table(s))
    }
}

fn table(s: &Standings) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} league, {} case{}, seed {}: {} games",
        s.game,
        s.cases.len(),
        if s.cases.len() == 1 { "" } else { "s" },
        s.seed,
        s.games
    );
    let width = s
        .rows
        .iter()
        .map(|r| r.bot.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:<9}  {:<8}  {:>8}  {:>6}  {:>7}  95% interval",
        "rank", "bot", "role", "state", "games", "score", "Elo"
    );
    for r in &s.rows {
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:<9}  {:<8}  {:>8}  {:>6.1}  {:>7}  [{}, {}]",
            r.rank,
            r.bot,
            r.role,
            r.state,
            r.games,
            r.score,
            signed(r.elo),
            signed(r.elo_low),
            signed(r.elo_high)
        );
    }
    if !s.tests.is_empty() {
        out.push_str(&tests_table(s));
    }
    if s.cross.bots.len() > 1 {
        let _ = writeln!(
            out,
            "\ncross table (points per 100 of the row against the column; games)"
        );
        let cell = 14;
        let _ = write!(out, "{:<width$}", "", width = width + 4);
        for (i, _) in s.cross.bots.iter().enumerate() {
            let _ = write!(out, "  {:>cell$}", format!("#{}", i + 1));
        }
        out.push('\n');
        for (i, row) in s.cross.cells.iter().enumerate() {
            let _ = write!(
                out,
                "{:<width$}",
                format!("#{} {}", i + 1, s.cross.bots[i]),
                width = width + 4
            );
            for c in row {
                let text = c.map_or("-".to_owned(), |c| format!("{:.1} ({})", c.score, c.games));
                let _ = write!(out, "  {text:>cell$}");
            }
            out.push('\n');
        }
    }
    let forfeited: Vec<(&str, &BTreeMap<String, u64>)> = s
        .rows
        .iter()
        .map(|r| (r.bot.as_str(), &r.forfeits))
        .chain(s.retired.iter().map(|r| (r.bot.as_str(), &r.forfeits)))
        .filter(|(_, f)| !f.is_empty())
        .collect();
    if !forfeited.is_empty() {
        out.push_str("\nforfeits (games lost without finishing, by kind):\n");
        for (bot, kinds) in forfeited {
            let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(out, "  {bot}: {}", kinds.join(", "));
        }
    }
    let with_stderr: Vec<(&str, &Stderr)> = s
        .rows
        .iter()
        .filter_map(|r| Some((r.bot.as_str(), r.stderr.as_ref()?)))
        .collect();
    if !with_stderr.is_empty() {
        out.push_str("\nlatest stderr (each external bot's newest log, its last lines):\n");
        for (bot, e) in with_stderr {
            let _ = writeln!(out, "  {bot}: {}", e.log);
            for line in &e.lines {
                let _ = writeln!(out, "  | {line}");
            }
        }
    }
    for r in &s.retired {
        let why = if r.archived {
            "archived".to_owned()
        } else {
            r.state.to_string()
        };
        let _ = writeln!(out, "{}: {why}", r.bot);
        if r.state == State::Failed && !r.log.is_empty() {
            for line in r.log.lines().take(20) {
                let _ = writeln!(out, "  | {line}");
            }
        }
    }
    out
}

/// The columns of [`csv`].
const CSV_HEADER: [&str; 12] = [
    "rank",
    "bot",
    "role",
    "state",
    "games",
    "score",
    "elo",
    "elo_low",
    "elo_high",
    "llr",
    "verdict_pairs",
    "against",
];

/// A row of [`csv`]: a bot, its numbers as the table rounds them, and its latest test.
#[derive(Serialize)]
struct CsvRow<'a> {
    rank: usize,
    bot: &'a str,
    role: String,
    state: String,
    games: u64,
    score: String,
    elo: String,
    elo_low: String,
    elo_high: String,
    llr: Option<String>,
    verdict_pairs: Option<u64>,
    against: Option<&'a str>,
}

/// One row per bot of the standings: `show --format csv`, and an export's
/// `standings.csv`.
pub fn csv(s: &Standings, _: &()) -> Result<String> {
    let rows = s.rows.iter().map(|r| {
        // The bot's latest test.
        let c = s.tests.iter().rev().find(|t| t.bot == r.bot);
        CsvRow {
            rank: r.rank,
            bot: &r.bot,
            role: r.role.to_string(),
            state: r.state.to_string(),
            games: r.games,
            score: format!("{:.2}", r.score),
            elo: format!("{:.2}", r.elo),
            elo_low: format!("{:.2}", r.elo_low),
            elo_high: format!("{:.2}", r.elo_high),
            llr: c.and_then(|c| c.llr).map(|l| format!("{l:.4}")),
            verdict_pairs: c.map(|c| c.pairs),
            against: c.and_then(|c| c.against.as_deref()),
        }
    });
    csv_table(&CSV_HEADER, rows)
}

/// `show --format json`.
pub fn json(s: &Standings, _: &()) -> Result<String> {
    arena_run::report::export::json(s)
}

/// Seconds in words: `45 s`, `12 min`, `3.5 h`.
fn duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else if secs < 5400.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}

/// The tests' section of the console table.
fn tests_table(s: &Standings) -> String {
    let mut out = String::from(
        "\ntests (GSPRT on game pairs, pentanomial, logistic Elo; the bot's Elo over what it was last against, 95% interval)\n",
    );
    let cells: Vec<[String; 8]> = s
        .tests
        .iter()
        .map(|t| {
            let speed = match (t.games_per_s, t.eta_s) {
                (Some(g), Some(e)) => format!("{g:.0} games/s, ETA {}", duration(e)),
                (Some(g), None) => format!("{g:.0} games/s"),
                _ => String::new(),
            };
            [
                format!("{}", t.id),
                t.bot.clone(),
                format!("against {}", t.base_said),
                format!("Elo {} vs {}", t.bounds.elo0, t.bounds.elo1),
                t.state.to_string(),
                t.llr.map_or("LLR -".to_owned(), |l| {
                    format!(
                        "LLR {l:+.2} [{:+.2}, {:+.2}]",
                        t.bounds.lower, t.bounds.upper
                    )
                }),
                format!("{} pairs", t.pairs),
                match &t.elo {
                    Some(e) if t.pairs > 0 => {
                        format!(
                            "Elo {} [{}, {}]",
                            signed(e.elo),
                            signed(e.lower),
                            signed(e.upper)
                        )
                    }
                    _ => String::new(),
                } + &if speed.is_empty() {
                    String::new()
                } else {
                    format!("  {speed}")
                } + &if t.why.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", t.why)
                },
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..8)
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for c in &cells {
        let line: Vec<String> = c
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (text, &w))| match i {
                0 | 6 => format!("{text:>w$}"),
                7 => text.clone(),
                _ => format!("{text:<w$}"),
            })
            .collect();
        let _ = writeln!(out, "  {}", line.join("  ").trim_end());
    }
    out
}
