//! Reports: the aggregate built from records, the report it yields, and the exporters
//! that write it (CSV, JSON, console, HTML), the game viewer's replays, plus the
//! progress bars.

pub mod aggregate;
pub mod export;
pub mod forfeits;
pub mod html;
pub mod progress;
pub mod puzzle_html;
pub mod puzzle_svg;
pub mod puzzles;
pub mod summary;
pub mod svg;
pub mod think;
pub mod viewer;

pub use aggregate::Tally;
pub use export::{ConsoleTable, Exporter, Exporters, Outputs, RunFacts};
pub use forfeits::Forfeits;
pub use progress::Progress;
pub use summary::Report;

use std::path::Path;

use anyhow::Result;

use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::Record;
use puzzles::{PuzzleReport, PuzzleTally};

/// What a run's summaries are built from: the tally of its kind, a games run's
/// [`Tally`] or a puzzle run's [`PuzzleTally`], each writing its report through the one
/// pipeline ([`Exporters`]) with its own exporters.
pub struct Summarizer(Box<dyn Summary>);

/// A kind of run's tally: the records in, its report out through its exporters.
trait Summary: Observer + Send {
    fn write(&self, dir: &Path, facts: &RunFacts<'_>, outputs: Outputs) -> Result<String>;
}

impl Summarizer {
    pub fn new(plan: &Plan) -> Result<Summarizer> {
        Ok(Summarizer(if plan.is_solo() {
            Box::new(PuzzleTally::new(plan)?)
        } else {
            Box::new(Tally::new(plan)?)
        }))
    }

    /// Writes every summary file into the run directory `dir`; returns the console
    /// table.
    pub fn write_summaries(&self, dir: &Path, facts: &RunFacts<'_>) -> Result<String> {
        self.0.write(dir, facts, Outputs::All)
    }

    /// Writes `report.html` again (`arena report`).
    pub fn write_page(&self, dir: &Path, facts: &RunFacts<'_>) -> Result<()> {
        self.0.write(dir, facts, Outputs::Page).map(drop)
    }
}

impl Observer for Summarizer {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        self.0.record(record)
    }
}

impl Summary for Tally {
    fn write(&self, dir: &Path, facts: &RunFacts<'_>, outputs: Outputs) -> Result<String> {
        game_exporters().write(&self.report(), dir, facts, outputs)
    }
}

impl Summary for PuzzleTally {
    fn write(&self, dir: &Path, facts: &RunFacts<'_>, outputs: Outputs) -> Result<String> {
        puzzle_exporters().write(&self.report(), dir, facts, outputs)
    }
}

/// The exporters of a games run, files in the order written.
fn game_exporters<'a>() -> Exporters<'a, Report> {
    Exporters {
        files: vec![
            ("summary.csv", Box::new(export::summary_csv)),
            ("summary.json", Box::new(export::summary_json)),
        ],
        page: Box::new(html::HtmlReport),
        console: Box::new(ConsoleTable),
    }
}

/// The exporters of a puzzle run: `summary.csv` (per puzzle and `all`, one row per
/// solver), `scores.csv` (every attempt's raw and relative score, by puzzle and seed),
/// `summary.json`, the page and the console.
fn puzzle_exporters<'a>() -> Exporters<'a, PuzzleReport> {
    Exporters {
        files: vec![
            (
                "summary.csv",
                Box::new(|r: &PuzzleReport, _: &RunFacts<'_>| export::csv_rows(&r.rows)),
            ),
            (
                "scores.csv",
                Box::new(|r: &PuzzleReport, _: &RunFacts<'_>| export::csv_rows(&r.seeds)),
            ),
            ("summary.json", Box::new(puzzles::summary_json)),
        ],
        page: Box::new(puzzle_html::PuzzlePage),
        console: Box::new(puzzles::PuzzleConsole),
    }
}
