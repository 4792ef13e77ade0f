//! Puzzle runs' reports (P3): raw scores as the referee gave them, relative scores
//! computed here, at report time, over the solvers of the run: per seed `score / best`
//! for a maximised score, `best / score` for a minimised one, 0 for an invalid answer
//! (`arena_core::puzzle::relative_scores`). A solver's total is the sum of its relative
//! scores over the seeds, TopCoder Marathon style.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::Result;
use arena_core::puzzle::{Objective, PuzzleKind, relative_scores};
use serde::Serialize;

use super::export::{Exporter, RunFacts, json_summary};
use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::{Extra, Outcome, Record, Termination};

/// One attempt as the report keeps it.
#[derive(Clone, Copy, Debug)]
struct Entry {
    score: Option<i64>,
    optimal: bool,
    forfeit: Option<Termination>,
}

/// Collects attempts per (puzzle, seed) until every solver has answered, then scores
/// them relative to each other. Held in memory: the per-seed table (a few bytes per
/// attempt; puzzle runs have thousands of attempts, not millions).
pub struct PuzzleTally {
    solvers: Vec<String>,
    puzzles: Vec<(String, Objective)>,
    first_seed: u64,
    /// (puzzle, pair) -> each solver's entry.
    seeds: BTreeMap<(u16, u32), Vec<Option<Entry>>>,
    /// The answers of the first [`GALLERY_SEEDS`] seeds of each puzzle, for the page.
    gallery: BTreeMap<(u16, u32, u16), (String, bool)>,
}

/// Seeds per puzzle whose answers `report.html` draws.
pub const GALLERY_SEEDS: u32 = 3;

/// One drawn answer of `report.html`.
#[derive(Clone, Debug)]
pub struct GalleryItem {
    pub puzzle: String,
    pub seed: u64,
    pub solver: String,
    pub answer: String,
    pub valid: bool,
}

/// One row of `scores.csv`: one solver on one seed.
#[derive(Clone, Debug, Serialize)]
pub struct SeedRow {
    pub puzzle: String,
    pub seed: u64,
    pub solver: String,
    pub valid: bool,
    /// The referee's raw score; empty when invalid.
    pub score: Option<i64>,
    /// Relative to the best valid score of the run's solvers on this seed.
    pub relative: f64,
    pub optimal: bool,
}

/// One row of `summary.csv`: one solver on one puzzle, or on `all` of them.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SolverRow {
    pub puzzle: String,
    pub solver: String,
    pub attempts: u64,
    pub valid: u64,
    /// Mean raw score over the valid answers (empty when there are none).
    pub mean_score: Option<f64>,
    /// Sum of relative scores (0 per invalid answer): the TopCoder total.
    pub relative_total: f64,
    /// Per 100 attempts: `100 * relative_total / attempts`.
    pub relative_per_100: f64,
    /// Seeds where this solver's answer scored the best of the run (ties count for each).
    pub best: u64,
    /// Answers the solver proved optimal.
    pub proven: u64,
    pub invalid: u64,
    pub timeout: u64,
    pub crash: u64,
    pub memory: u64,
}

/// What the exporters read.
#[derive(Clone, Debug)]
pub struct PuzzleReport {
    /// Per puzzle, one row per solver; then the `all` rows.
    pub rows: Vec<SolverRow>,
    pub seeds: Vec<SeedRow>,
    pub gallery: Vec<GalleryItem>,
}

impl PuzzleTally {
    pub fn new(plan: &Plan) -> Result<PuzzleTally> {
        let puzzles = plan
            .cases
            .iter()
            .map(|c| {
                let kind: PuzzleKind = c.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
                Ok((c.clone(), kind.objective()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PuzzleTally {
            solvers: plan.agents.iter().map(|a| a.name.clone()).collect(),
            puzzles,
            first_seed: plan.seed,
            seeds: BTreeMap::new(),
            gallery: BTreeMap::new(),
        })
    }

    pub fn report(&self) -> PuzzleReport {
        let n = self.solvers.len();
        let mut seeds = Vec::new();
        // Per puzzle (and `all`, last), per solver.
        let blank = |puzzle: &str, solver: &str| SolverRow {
            puzzle: puzzle.to_owned(),
            solver: solver.to_owned(),
            attempts: 0,
            valid: 0,
            mean_score: None,
            relative_total: 0.0,
            relative_per_100: 0.0,
            best: 0,
            proven: 0,
            invalid: 0,
            timeout: 0,
            crash: 0,
            memory: 0,
        };
        let mut rows: Vec<Vec<SolverRow>> = self
            .puzzles
            .iter()
            .map(|(p, _)| p.as_str())
            .chain(std::iter::once("all"))
            .map(|p| self.solvers.iter().map(|s| blank(p, s)).collect())
            .collect();
        let mut sums = vec![vec![0i64; n]; self.puzzles.len() + 1];
        for (&(puzzle, pair), entries) in &self.seeds {
            let p = usize::from(puzzle);
            let (name, objective) = &self.puzzles[p];
            let scores: Vec<Option<i64>> =
                entries.iter().map(|e| e.and_then(|e| e.score)).collect();
            let relative = relative_scores(*objective, &scores);
            for (s, entry) in entries.iter().enumerate() {
                let Some(e) = entry else { continue };
                seeds.push(SeedRow {
                    puzzle: name.clone(),
                    seed: self.first_seed + u64::from(pair),
                    solver: self.solvers[s].clone(),
                    valid: e.score.is_some(),
                    score: e.score,
                    relative: round(relative[s], 6),
                    optimal: e.optimal,
                });
                for slot in [p, self.puzzles.len()] {
                    let row = &mut rows[slot][s];
                    row.attempts += 1;
                    row.relative_total += relative[s];
                    row.best += u64::from(e.score.is_some() && relative[s] >= 1.0);
                    row.proven += u64::from(e.optimal);
                    match (e.score, e.forfeit) {
                        (Some(score), _) => {
                            row.valid += 1;
                            sums[slot][s] += score;
                        }
                        (None, Some(Termination::Timeout)) => row.timeout += 1,
                        (
                            None,
                            Some(Termination::Crash | Termination::Startup | Termination::Limit),
                        ) => row.crash += 1,
                        (None, Some(Termination::Memory)) => row.memory += 1,
                        (None, _) => row.invalid += 1,
                    }
                }
            }
        }
        for (slot, solver_rows) in rows.iter_mut().enumerate() {
            for (s, row) in solver_rows.iter_mut().enumerate() {
                // Raw scores of different puzzles do not add up: `all` has no mean.
                if row.valid > 0 && slot < self.puzzles.len() {
                    row.mean_score = Some(round(sums[slot][s] as f64 / row.valid as f64, 3));
                }
                if row.attempts > 0 {
                    row.relative_per_100 =
                        round(100.0 * row.relative_total / row.attempts as f64, 2);
                }
                row.relative_total = round(row.relative_total, 4);
            }
        }
        let gallery = self
            .gallery
            .iter()
            .map(|(&(p, pair, s), (answer, valid))| GalleryItem {
                puzzle: self.puzzles[usize::from(p)].0.clone(),
                seed: self.first_seed + u64::from(pair),
                solver: self.solvers[usize::from(s)].clone(),
                answer: answer.clone(),
                valid: *valid,
            })
            .collect();
        PuzzleReport {
            rows: rows.into_iter().flatten().collect(),
            seeds,
            gallery,
        }
    }
}

impl Observer for PuzzleTally {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        let Outcome::Solo(attempt) = record.outcome else {
            anyhow::bail!("a two-seat game in a puzzle run");
        };
        let k = record.key;
        let optimal = matches!(record.extras.iter().next(), Some(Extra::Int(1)));
        if k.pair < GALLERY_SEEDS {
            let answer = record
                .extras
                .iter()
                .nth(2)
                .map_or(String::new(), ToString::to_string);
            self.gallery.insert(
                (k.case, k.pair, k.matchup),
                (answer, attempt.score.is_some()),
            );
        }
        let n = self.solvers.len();
        self.seeds
            .entry((k.case, k.pair))
            .or_insert_with(|| vec![None; n])[usize::from(k.matchup)] = Some(Entry {
            score: attempt.score,
            optimal,
            forfeit: record
                .termination
                .is_forfeit()
                .then_some(record.termination),
        });
        Ok(Flow::Continue)
    }
}

fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

/// `summary.json` of a puzzle run: the summary rows with the run's first seed.
pub fn summary_json(report: &PuzzleReport, facts: &RunFacts<'_>) -> Result<String> {
    #[derive(Serialize)]
    struct Fields<'a> {
        first_seed: u64,
        solvers: &'a [SolverRow],
    }
    json_summary(
        facts,
        Fields {
            first_seed: facts.plan.seed,
            solvers: &report.rows,
        },
    )
}

/// The console: per puzzle, each solver's valid answers, mean raw score, relative total
/// and how often it found the best answer.
pub struct PuzzleConsole;

impl Exporter<PuzzleReport, RunFacts<'_>> for PuzzleConsole {
    fn export(&self, report: &PuzzleReport, _facts: &RunFacts<'_>) -> Result<String> {
        let width = report
            .rows
            .iter()
            .map(|r| r.solver.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut out = String::new();
        let mut puzzle = "";
        for r in &report.rows {
            if r.puzzle != puzzle {
                puzzle = &r.puzzle;
                let _ = writeln!(
                    out,
                    "{}\n  {:<width$} {:>8} {:>7} {:>10} {:>10} {:>9} {:>6} {:>7}",
                    if puzzle == "all" {
                        "all puzzles"
                    } else {
                        puzzle
                    },
                    "solver",
                    "attempts",
                    "valid",
                    "mean raw",
                    "relative",
                    "per 100",
                    "best",
                    "proven"
                );
            }
            let mean = r.mean_score.map_or("-".to_owned(), |m| format!("{m:.2}"));
            let _ = writeln!(
                out,
                "  {:<width$} {:>8} {:>7} {:>10} {:>10.2} {:>9.2} {:>6} {:>7}",
                r.solver,
                r.attempts,
                r.valid,
                mean,
                r.relative_total,
                r.relative_per_100,
                r.best,
                r.proven
            );
        }
        out.push_str(
            "  relative: per seed score/best (maximised) or best/score (minimised) over these solvers, 0 if invalid; summed\n",
        );
        Ok(out)
    }
}
