//! `arena verify DIR`: replays a run's games from its seed and compares every column of
//! every replayed row with `games.csv`, so whoever receives a results directory can
//! check it without trusting whoever made it. Built-in agents are deterministic, so an
//! honest run agrees row for row; an external agent is replayed only when asked
//! (`--external`), since a stranger's bot need not play the same game twice.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use crate::external::ExternalRuntime;
use crate::plan::Plan;
use crate::rundir::results::{Codec, RowReader, Torn, csv_cell};
use crate::rundir::{Access, RunDir};
use crate::task::Prepared;

/// What to check.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Check about this many rows, evenly spread (all when `None`).
    pub sample: Option<u64>,
    /// Start at this game number (`game`, or `attempt` in a puzzle run).
    pub from: u64,
    /// Replay games of `exec:` agents too (started afresh).
    pub external: bool,
    /// Worker threads (0: one per core).
    pub concurrency: usize,
}

/// The replayed games differ from the file (exit 1).
#[derive(Debug, thiserror::Error)]
#[error("{0} replayed games differ from games.csv")]
pub struct Mismatches(pub u64);

/// How many mismatches are listed in full.
const LISTED: usize = 10;

/// Rows replayed at a time (memory stays constant whatever the run's size).
const CHUNK: usize = 4096;

/// The outcome of a verification.
pub struct Verified {
    /// Rows on disk, rows replayed and compared, rows skipped (external agents).
    pub rows: u64,
    pub checked: u64,
    pub skipped: u64,
    pub mismatches: u64,
    /// The summary and the first mismatches, for the console.
    pub text: String,
}

/// One row to replay: its game number and its content on disk.
struct Row {
    index: u64,
    content: Vec<u8>,
}

pub fn verify(dir: &Path, options: &Options) -> Result<Verified> {
    let began = Instant::now();
    let run = RunDir::open(dir, Access::Read)?;
    let plan = &run.plan;
    let games_csv = run.games_csv();
    if !games_csv.exists() {
        bail!("{} has no games to verify", games_csv.display());
    }
    let exec: Vec<bool> = plan
        .agents
        .iter()
        .map(|a| matches!(a.spec, agents::Spec::Exec { .. }))
        .collect();
    let matchups = plan.matchups();
    let external = match options.external {
        true => crate::tournament::external_runtime(&run, 0)?,
        false => None,
    };
    let prepared = crate::task::of(plan).prepare(plan)?;
    let codec = Codec::new(plan);
    let columns: Vec<String> = codec
        .header()
        .trim_end()
        .split(',')
        .map(str::to_owned)
        .collect();

    // First pass: how many rows, so that a sample can be spread evenly. The reader checks
    // every row's chain and columns on the way, so a damaged file is refused here.
    let mut reader = RowReader::open(&games_csv, plan, run.shard(), Torn::Skip)?;
    reader.tolerate_breaks();
    while reader.next_record()?.is_some() {}
    let rows = reader.rows;
    let breaks = reader.breaks.take().unwrap_or_default();
    let step = match options.sample {
        Some(0) => bail!("--sample 0 checks nothing; give at least 1"),
        Some(k) => rows.div_ceil(k).max(1),
        None => 1,
    };

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.concurrency)
        .build()
        .context("starting the verification threads")?;
    let mut reader = RowReader::open(&games_csv, plan, run.shard(), Torn::Skip)?;
    reader.tolerate_breaks();
    let (mut checked, mut skipped, mut mismatches) = (0u64, 0u64, 0u64);
    let mut listed = String::new();
    let mut position = 0u64;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        while chunk.len() < CHUNK {
            let Some(record) = reader.next_record()? else {
                break;
            };
            let at = position;
            position += 1;
            if record.key.index < options.from || !at.is_multiple_of(step) {
                continue;
            }
            let (a, b) = matchups[usize::from(record.key.matchup)];
            if !options.external && (exec[a] || exec[b]) {
                skipped += 1;
                continue;
            }
            chunk.push(Row {
                index: record.key.index,
                content: reader.last_content().to_vec(),
            });
        }
        if chunk.is_empty() {
            break;
        }
        let replayed: Vec<Result<Vec<u8>>> = pool.install(|| {
            chunk
                .par_iter()
                .map(|row| {
                    replay(
                        plan,
                        prepared.as_ref(),
                        &codec,
                        external.as_ref(),
                        row.index,
                    )
                })
                .collect()
        });
        for (row, again) in chunk.iter().zip(replayed) {
            checked += 1;
            let again = again?;
            if again != row.content {
                mismatches += 1;
                if mismatches as usize <= LISTED {
                    let _ = writeln!(
                        listed,
                        "  game {}: {}\n    see it: arena replay {} -n {}",
                        row.index,
                        differences(&columns, &row.content, &again),
                        dir.display(),
                        row.index
                    );
                }
            }
        }
    }
    if let Some(rt) = &external {
        rt.shutdown();
    }
    let seconds = began.elapsed().as_secs_f64();
    let mut text = format!(
        "{}: {rows} rows on disk, {checked} replayed and compared{}{}, {mismatches} {} in {seconds:.1} s\n",
        games_csv.display(),
        if options.from > 0 {
            format!(" from game {}", options.from)
        } else {
            String::new()
        },
        if skipped > 0 {
            format!(", {skipped} skipped (an exec: agent plays in them; --external replays them)")
        } else {
            String::new()
        },
        if mismatches == 1 {
            "mismatch"
        } else {
            "mismatches"
        }
    );
    if !breaks.is_empty() {
        let shown: Vec<String> = breaks.iter().take(LISTED).map(u64::to_string).collect();
        let _ = writeln!(
            text,
            "  {} {} fail their check (edited, damaged, or rows deleted, added or moved before them): line {}{}",
            breaks.len(),
            if breaks.len() == 1 { "row" } else { "rows" },
            shown.join(", "),
            if breaks.len() > LISTED { ", …" } else { "" }
        );
    }
    text.push_str(&listed);
    if mismatches as usize > LISTED {
        let _ = writeln!(text, "  … and {} more", mismatches as usize - LISTED);
    }
    // A broken chain is a finding like a mismatch: the file is not what was written.
    let mismatches = mismatches + breaks.len() as u64;
    Ok(Verified {
        rows,
        checked,
        skipped,
        mismatches,
        text,
    })
}

/// Game `index` played again, as its row's content.
fn replay(
    plan: &Plan,
    prepared: &dyn Prepared,
    codec: &Codec,
    external: Option<&Arc<ExternalRuntime>>,
    index: u64,
) -> Result<Vec<u8>> {
    let record = prepared
        .play(&crate::engine::Schedule::of(plan).job(index), external)
        .with_context(|| format!("replaying game {index}"))?;
    let mut content = Vec::new();
    codec.write(&record, &mut content);
    content.pop(); // its line break: the file's content is compared without it
    Ok(content)
}

/// The columns where two rows differ: `score_a 1 (on disk) vs 0 (replayed), …`.
fn differences(columns: &[String], disk: &[u8], again: &[u8]) -> String {
    let cells = |bytes: &[u8]| -> Vec<String> {
        let mut row = csv::StringRecord::new();
        match crate::rundir::results::split_fields(bytes, &mut row) {
            Ok(()) => row.iter().map(str::to_owned).collect(),
            Err(_) => vec![String::from_utf8_lossy(bytes).into_owned()],
        }
    };
    let (disk, again) = (cells(disk), cells(again));
    let said: Vec<String> = (0..disk.len().max(again.len()))
        .filter(|&i| disk.get(i) != again.get(i))
        .map(|i| {
            format!(
                "{} {} (on disk) vs {} (replayed)",
                columns.get(i).map_or("?", String::as_str),
                csv_cell(disk.get(i).map_or("", String::as_str)),
                csv_cell(again.get(i).map_or("", String::as_str))
            )
        })
        .collect();
    said.join(", ")
}
