//! Aggregates result rows into per-matchup, per-case statistics, and writes them:
//! `summary.csv`, `summary.json`, and the console table.

use std::fmt::Write as _;

use serde::Serialize;

use crate::config::Plan;
use crate::runner::{Forfeit, GameRow};
use crate::stats::{EloEstimate, Pentanomial, Sprt, SprtDecision, Wdl, Wilson, Z_95};

/// Running counts for one cell (a matchup, over one case or over all).
#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub wdl: Wdl,
    pub pairs: Pentanomial,
    /// Forfeits by agent A and by agent B, per kind (in `Forfeit::ALL` order).
    pub forfeits: [[u64; 6]; 2],
    open_pair: Option<f64>,
}

impl Cell {
    fn add(&mut self, row: &GameRow) {
        self.wdl
            .push_game_score(row.score_a)
            .expect("scores are 0, 0.5 or 1");
        match self.open_pair.take() {
            None => self.open_pair = Some(row.score_a),
            Some(first) => self
                .pairs
                .push_pair(first, row.score_a)
                .expect("scores are 0, 0.5 or 1"),
        }
        if let Some(kind) = Forfeit::ALL
            .iter()
            .position(|f| f.as_str() == row.termination)
        {
            let who = usize::from(row.forfeit == "b");
            self.forfeits[who][kind] += 1;
        }
    }

    pub fn games(&self) -> u64 {
        self.wdl.wins + self.wdl.draws + self.wdl.losses
    }
}

/// Everything the reports need, built row by row in game order.
pub struct Tally {
    names: Vec<(String, String)>,
    cases: Vec<String>,
    /// `cells[matchup][case]`; the overall cell is kept separately.
    cells: Vec<Vec<Cell>>,
    overall: Vec<Cell>,
    sprt: Option<Sprt>,
}

impl Tally {
    pub fn new(plan: &Plan) -> Tally {
        let names: Vec<(String, String)> = plan
            .matchups()
            .iter()
            .map(|&(a, b)| (plan.agents[a].name.clone(), plan.agents[b].name.clone()))
            .collect();
        Tally {
            cells: vec![vec![Cell::default(); plan.cases.len()]; names.len()],
            overall: vec![Cell::default(); names.len()],
            names,
            cases: plan.cases.clone(),
            sprt: plan
                .sprt
                .map(|s| Sprt::new(s.elo0, s.elo1, s.alpha, s.beta).expect("checked on resolve")),
        }
    }

    fn matchup_of(&self, row: &GameRow) -> usize {
        self.names
            .iter()
            .position(|(a, b)| *a == row.agent_a && *b == row.agent_b)
            .expect("rows come from the plan")
    }

    pub fn add(&mut self, row: &GameRow) {
        let m = self.matchup_of(row);
        let c = self
            .cases
            .iter()
            .position(|c| *c == row.case)
            .expect("rows come from the plan");
        self.cells[m][c].add(row);
        self.overall[m].add(row);
    }

    /// The points agent A of `row`'s matchup has in `row`'s case so far, and games.
    pub fn case_points(&self, row: &GameRow) -> (f64, u64) {
        let m = self.matchup_of(row);
        let c = self.cases.iter().position(|c| *c == row.case).unwrap_or(0);
        let cell = &self.cells[m][c];
        (cell.wdl.points(), cell.games())
    }

    pub fn overall_points(&self) -> (f64, u64) {
        self.overall
            .first()
            .map_or((0.0, 0), |c| (c.wdl.points(), c.games()))
    }

    pub fn sprt_llr(&self) -> Option<(f64, Sprt)> {
        let sprt = self.sprt?;
        Some((sprt.llr_pentanomial(&self.overall[0].pairs), sprt))
    }

    /// Whether the SPRT of a two-agent match has reached a decision.
    pub fn sprt_decided(&self) -> bool {
        self.sprt_llr()
            .is_some_and(|(llr, sprt)| sprt.decision(llr).is_some())
    }

    pub fn report(&self) -> Report {
        let matchups = self
            .names
            .iter()
            .enumerate()
            .map(|(m, (a, b))| {
                let mut cases: Vec<CellReport> = self.cells[m]
                    .iter()
                    .zip(&self.cases)
                    .filter(|(cell, _)| cell.games() > 0)
                    .map(|(cell, case)| CellReport::new(a, b, case, cell))
                    .collect();
                let overall = CellReport::new(a, b, "all", &self.overall[m]);
                let sprt = (m == 0)
                    .then(|| self.sprt_llr())
                    .flatten()
                    .map(|(llr, sprt)| {
                        let (lower, upper) = sprt.bounds();
                        SprtReport {
                            elo0: sprt.elo0,
                            elo1: sprt.elo1,
                            alpha: sprt.alpha,
                            beta: sprt.beta,
                            llr,
                            lower,
                            upper,
                            decision: match sprt.decision(llr) {
                                Some(SprtDecision::AcceptH1) => "H1",
                                Some(SprtDecision::AcceptH0) => "H0",
                                None => "none",
                            },
                        }
                    });
                cases.shrink_to_fit();
                MatchupReport {
                    agent_a: a.clone(),
                    agent_b: b.clone(),
                    overall,
                    cases,
                    sprt,
                }
            })
            .collect();
        Report { matchups }
    }
}

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
    fn new(a: &str, b: &str, case: &str, cell: &Cell) -> CellReport {
        let wilson = Wilson::from_wdl(&cell.wdl, Z_95);
        let elo = EloEstimate::from_pentanomial(&cell.pairs, Z_95);
        let p = cell.pairs.0;
        CellReport {
            agent_a: a.to_owned(),
            agent_b: b.to_owned(),
            case: case.to_owned(),
            games: cell.games(),
            wins: cell.wdl.wins,
            draws: cell.wdl.draws,
            losses: cell.wdl.losses,
            points: cell.wdl.points(),
            score: round(100.0 * cell.wdl.score(), 2),
            ci_low: round(100.0 * wilson.lower, 2),
            ci_high: round(100.0 * wilson.upper, 2),
            ptnml_0: p[0],
            ptnml_1: p[1],
            ptnml_2: p[2],
            ptnml_3: p[3],
            ptnml_4: p[4],
            elo: round(elo.elo, 2),
            elo_low: round(elo.lower, 2),
            elo_high: round(elo.upper, 2),
            los: round(elo.los, 4),
            forfeits_a: cell.forfeits[0].iter().sum(),
            forfeits_b: cell.forfeits[1].iter().sum(),
        }
    }

    /// Whether the 95% interval excludes an even score.
    pub fn significant(&self) -> bool {
        self.games > 0 && (self.ci_low > 50.0 || self.ci_high < 50.0)
    }
}

/// Rounded for stable, readable reports (the raw counts are in the same row).
fn round(x: f64, digits: i32) -> f64 {
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
    pub agent_a: String,
    pub agent_b: String,
    pub overall: CellReport,
    pub cases: Vec<CellReport>,
    pub sprt: Option<SprtReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub matchups: Vec<MatchupReport>,
}

impl Report {
    /// `summary.csv`: per matchup, one row per case, then the `all` row.
    pub fn to_csv(&self) -> anyhow::Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for m in &self.matchups {
            for c in m.cases.iter().chain(std::iter::once(&m.overall)) {
                w.serialize(c)?;
            }
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }

    pub fn to_json(&self, game: &str, seed: u64, stopped_early: bool) -> anyhow::Result<String> {
        #[derive(Serialize)]
        struct Doc<'a> {
            schema: u32,
            game: &'a str,
            seed: u64,
            stopped_early: bool,
            matchups: &'a [MatchupReport],
        }
        Ok(serde_json::to_string_pretty(&Doc {
            schema: 1,
            game,
            seed,
            stopped_early,
            matchups: &self.matchups,
        })? + "\n")
    }

    /// The console table: per case and overall, `*` where the interval excludes 50.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        for m in &self.matchups {
            let o = &m.overall;
            writeln!(out, "{} vs {}", m.agent_a, m.agent_b).unwrap();
            writeln!(
                out,
                "  {:<10} {:>6} {:>16} {:>9}   {:<16}",
                "case", "games", "W-D-L", "score", "95% CI"
            )
            .unwrap();
            for c in m.cases.iter().chain(std::iter::once(o)) {
                let wdl = format!("{}-{}-{}", c.wins, c.draws, c.losses);
                writeln!(
                    out,
                    "  {:<10} {:>6} {:>16} {:>9.1}   [{:>5.1}, {:>5.1}] {}",
                    c.case,
                    c.games,
                    wdl,
                    c.score,
                    c.ci_low,
                    c.ci_high,
                    if c.significant() { "*" } else { "" }
                )
                .unwrap();
            }
            writeln!(
                out,
                "  total {} of {} ({:.1} per 100)   pairs [{} {} {} {} {}]   Elo {:+.1} [{:+.1}, {:+.1}]   LOS {:.1}%",
                o.points,
                o.games,
                o.score,
                o.ptnml_0,
                o.ptnml_1,
                o.ptnml_2,
                o.ptnml_3,
                o.ptnml_4,
                o.elo,
                o.elo_low,
                o.elo_high,
                100.0 * o.los
            )
            .unwrap();
            if o.forfeits_a + o.forfeits_b > 0 {
                writeln!(
                    out,
                    "  forfeits: {} by {}, {} by {}",
                    o.forfeits_a, m.agent_a, o.forfeits_b, m.agent_b
                )
                .unwrap();
            }
            if let Some(s) = &m.sprt {
                writeln!(
                    out,
                    "  SPRT [{}, {}] LLR {:.2} ({:.2}, {:.2}): {}",
                    s.elo0, s.elo1, s.llr, s.lower, s.upper, s.decision
                )
                .unwrap();
            }
            out.push('\n');
        }
        out.push_str("  * the 95% interval excludes 50 per 100\n");
        out
    }
}
