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
pub use export::{ConsoleTable, Exporter, RunFacts};
pub use forfeits::Forfeits;
pub use progress::Progress;
pub use summary::Report;

use anyhow::Result;

use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::Record;

/// What a run's summaries are built from: a games run's tally, or a puzzle run's.
pub enum Summarizer {
    Games(Tally),
    Puzzles(puzzles::PuzzleTally),
}

impl Summarizer {
    pub fn new(plan: &Plan) -> Result<Summarizer> {
        Ok(if plan.is_solo() {
            Summarizer::Puzzles(puzzles::PuzzleTally::new(plan)?)
        } else {
            Summarizer::Games(Tally::new(plan)?)
        })
    }
}

impl Observer for Summarizer {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        match self {
            Summarizer::Games(t) => t.record(record),
            Summarizer::Puzzles(t) => t.record(record),
        }
    }
}

/// The exporters of a puzzle run, files first.
pub fn puzzle_summaries() -> Vec<Box<dyn Exporter<puzzles::PuzzleReport>>> {
    vec![
        Box::new(puzzles::PuzzleCsv),
        Box::new(puzzles::SeedCsv),
        Box::new(puzzles::PuzzleJson),
        Box::new(puzzle_html::PuzzlePage),
    ]
}
