//! The report every exporter reads: per matchup, one row per case and one overall.

use serde::Serialize;

use crate::record::{Side, Termination};

/// Kinds of forfeit, in `Termination::FORFEITS` order.
const FORFEIT_KINDS: usize = Termination::FORFEITS.len();
use crate::stats::{EloEstimate, PairInterval, Pentanomial, Wdl, Wilson, Z_95};

/// One row of `summary.csv`: agent A's results against agent B in one case or `all`.
#[derive(Clone, Debug, Serialize)]
pub struct CellReport {
    pub agent_a: String,
    pub agent_b: String,
    pub case: String,
    pub games: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Wins + ties/2: the TCO09 score of agent A (out of `games`).
    pub points: f64,
    /// Points per 100 games.
    pub score: f64,
    /// Wilson 95% interval of the score, per 100 games.
    pub ci_low: f64,
    pub ci_high: f64,
    /// The pairs' 95% score interval ([`PairInterval`]), per 100 games: it always holds
    /// the pairs' score, and the star (`significant`) follows it.
    pub pair_low: f64,
    pub pair_high: f64,
    /// Pair counts by agent A's pair score 0, 1/4, 1/2, 3/4, 1.
    pub ptnml_0: u64,
    pub ptnml_1: u64,
    pub ptnml_2: u64,
    pub ptnml_3: u64,
    pub ptnml_4: u64,
    /// Elo of A over B from the pairs, with its 95% interval, and the LOS.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    pub los: f64,
    pub forfeits_a: u64,
    pub forfeits_b: u64,
}

impl CellReport {
    /// A row from a cell's counts: single games, pairs, and forfeits by agent A and B
    /// per kind.
    pub(super) fn new(
        (a, b, case): (&str, &str, &str),
        wdl: &Wdl,
        pentanomial: &Pentanomial,
        forfeits: &[[u64; FORFEIT_KINDS]; 2],
    ) -> CellReport {
        let wilson = Wilson::from_wdl(wdl, Z_95);
        let pairs = PairInterval::from_pentanomial(pentanomial, Z_95);
        let elo = EloEstimate::from_pair_interval(pentanomial, &pairs);
        let p = pentanomial.0;
        CellReport {
            agent_a: a.to_owned(),
            agent_b: b.to_owned(),
            case: case.to_owned(),
            games: wdl.games(),
            wins: wdl.wins,
            draws: wdl.draws,
            losses: wdl.losses,
            points: wdl.points(),
            score: round(100.0 * wdl.score(), 2),
            ci_low: round(100.0 * wilson.lower, 2),
            ci_high: round(100.0 * wilson.upper, 2),
            pair_low: round(100.0 * pairs.lower, 2),
            pair_high: round(100.0 * pairs.upper, 2),
            ptnml_0: p[0],
            ptnml_1: p[1],
            ptnml_2: p[2],
            ptnml_3: p[3],
            ptnml_4: p[4],
            elo: round(elo.elo, 2),
            elo_low: round(elo.lower, 2),
            elo_high: round(elo.upper, 2),
            los: round(elo.los, 4),
            forfeits_a: forfeits[0].iter().sum(),
            forfeits_b: forfeits[1].iter().sum(),
        }
    }

    /// Whether the pair-based 95% interval excludes an even score (the same test as the
    /// LOS, so a row marked equal never has an LOS past 97.5%). Read from the rounded
    /// columns, as the page does, so the console, `summary.csv` and the page agree.
    pub fn significant(&self) -> bool {
        self.games > 0 && (self.pair_low > 50.0 || self.pair_high < 50.0)
    }

    /// The pair-based 95% interval as a score per 100.
    pub fn pair_interval(&self) -> (f64, f64) {
        (self.pair_low, self.pair_high)
    }
}

/// Rounded for stable, readable reports (the raw counts are in the same row).
pub(super) fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

#[derive(Clone, Debug, Serialize)]
pub struct SprtReport {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// `H1`, `H0` or `none`.
    pub decision: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct MatchupReport {
    /// Plan indices of agents A and B.
    #[serde(skip)]
    pub a: usize,
    #[serde(skip)]
    pub b: usize,
    pub agent_a: String,
    pub agent_b: String,
    pub overall: CellReport,
    pub cases: Vec<CellReport>,
    pub sprt: Option<SprtReport>,
}

impl MatchupReport {
    /// Its rows as `summary.csv` lists them: one per case, then `all`.
    pub fn rows(&self) -> impl Iterator<Item = &CellReport> {
        self.cases.iter().chain(std::iter::once(&self.overall))
    }
}

/// One agent of a field (round robin or gauntlet) in the standings.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    /// The agent's index in the plan (its row and column in the cross table).
    pub agent: usize,
    pub name: String,
    pub games: u64,
    pub points: f64,
    /// Points per 100 games.
    pub score: f64,
    /// Bradley–Terry Elo over the whole field (mean 0), with its bootstrap 95% interval.
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
}

impl Standing {
    /// The Elo's 95% interval as the console and the page show it: `[-12.3, +45.6]`.
    pub fn interval(&self) -> String {
        format!("[{:+.1}, {:+.1}]", self.elo_low, self.elo_high)
    }
}

/// A field of more than two agents: standings from one Bradley–Terry fit, best first.
#[derive(Clone, Debug, Serialize)]
pub struct FieldReport {
    /// Agent names in plan order.
    pub agents: Vec<String>,
    pub gauntlet: bool,
    pub standings: Vec<Standing>,
}

impl FieldReport {
    /// The overall row of the pairing of agents `row` and `col` (plan indices), from
    /// `row`'s point of view: (wins, draws, losses, score per 100).
    pub fn cell(report: &Report, row: usize, col: usize) -> Option<(u64, u64, u64, f64)> {
        report.matchups.iter().find_map(|m| {
            let o = &m.overall;
            if (m.a, m.b) == (row, col) {
                Some((o.wins, o.draws, o.losses, o.score))
            } else if (m.a, m.b) == (col, row) {
                Some((o.losses, o.draws, o.wins, round(100.0 - o.score, 2)))
            } else {
                None
            }
        })
    }
}

/// How one agent's games ended, and the forfeits it caused.
#[derive(Clone, Debug, Default)]
pub struct AgentOutcomes {
    pub name: String,
    /// Its games by termination, in its task's order (`Termination::all`).
    pub ended: Vec<(Termination, u64)>,
    /// Games it forfeited.
    pub forfeited: u64,
    /// Its first few forfeits.
    pub first_forfeits: Vec<ForfeitNote>,
}

#[derive(Clone, Debug)]
pub struct ForfeitNote {
    pub game: u64,
    pub kind: Termination,
    pub reason: String,
}

/// One game in the report's list.
#[derive(Clone, Copy, Debug)]
pub struct GameNote {
    pub index: u64,
    pub matchup: u16,
    pub case: u16,
    pub score_a: f64,
    pub termination: Termination,
    pub forfeit: Option<Side>,
    pub plies: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub matchups: Vec<MatchupReport>,
    /// With more than two agents.
    pub field: Option<FieldReport>,
    /// The plan's cases, in order.
    #[serde(skip)]
    pub cases: Vec<String>,
    /// Per agent, in plan order.
    #[serde(skip)]
    pub agents: Vec<AgentOutcomes>,
    /// The first games (up to `aggregate::GAMES_LISTED`), in game order.
    #[serde(skip)]
    pub games: Vec<GameNote>,
    pub games_total: u64,
}

impl Report {
    /// `summary.csv`'s rows: per matchup, its cases, then `all`.
    pub fn rows(&self) -> impl Iterator<Item = &CellReport> {
        self.matchups.iter().flat_map(MatchupReport::rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_star_follows_the_pairs_where_games_alone_see_no_difference() {
        // 80 pairs won and lost, 20 won and drawn: 55 per 100. Over 200 single games the
        // Wilson interval holds 50; over the pairs, whose luck cancels, it does not.
        let none = [[0; FORFEIT_KINDS]; 2];
        let row = CellReport::new(
            ("a", "b", "all"),
            &Wdl::new(100, 20, 80),
            &Pentanomial([0, 0, 80, 20, 0]),
            &none,
        );
        assert!(row.ci_low < 50.0 && row.ci_high > 50.0, "{row:?}");
        assert!(row.los > 0.99, "{row:?}");
        assert!(row.significant());
        let (low, high) = row.pair_interval();
        assert!(low > 50.0 && high < 60.0 && low < row.score && row.score < high);
        // An even pair record is not marked.
        let even = CellReport::new(
            ("a", "b", "all"),
            &Wdl::new(50, 0, 50),
            &Pentanomial([10, 0, 30, 0, 10]),
            &none,
        );
        assert!(!even.significant());
    }
}
