//! `times.csv`: the wall time of each puzzle attempt, with the concurrency it was measured
//! under. Kept apart from `games.csv` because it is not reproducible: a resumed run
//! appends the attempts it plays, and merging shards does not carry it over.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::Record;

pub const TIMES_CSV: &str = "times.csv";

pub struct TimesWriter {
    path: PathBuf,
    out: BufWriter<File>,
    puzzles: Vec<String>,
    solvers: Vec<String>,
    first_seed: u64,
    concurrency: usize,
}

impl TimesWriter {
    pub fn append(path: &Path, plan: &Plan, concurrency: usize) -> Result<TimesWriter> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let fresh = file.metadata().map(|m| m.len() == 0).unwrap_or(true);
        let mut out = BufWriter::new(file);
        if fresh {
            writeln!(out, "attempt,puzzle,seed,solver,ms,concurrency")
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(TimesWriter {
            path: path.to_owned(),
            out,
            puzzles: plan.cases.clone(),
            solvers: plan
                .agents
                .iter()
                .map(|a| crate::runfile::csv_cell(&a.name))
                .collect(),
            first_seed: plan.seed,
            concurrency,
        })
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))
    }
}

impl Observer for TimesWriter {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        let Some(elapsed) = record.elapsed else {
            return Ok(Flow::Continue);
        };
        let k = &record.key;
        writeln!(
            self.out,
            "{},{},{},{},{:.3},{}",
            k.index,
            self.puzzles[usize::from(k.case)],
            self.first_seed + u64::from(k.pair),
            self.solvers[usize::from(k.matchup)],
            elapsed.as_secs_f64() * 1000.0,
            self.concurrency
        )
        .with_context(|| format!("writing {}", self.path.display()))?;
        Ok(Flow::Continue)
    }
}
