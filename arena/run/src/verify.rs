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

/// Whether `dir` is the root of `arena league export` (it lists its pairs in
/// `pairs.csv`; a run directory never holds one).
pub fn is_export_root(dir: &Path) -> bool {
    dir.join("pairs.csv").is_file()
}

/// Verifies every pair's run directory of a league export, in the order of
/// `pairs.csv`: each pair's result, then the total. A pair whose directory cannot be
/// read is bad input (an error naming the pair); mismatches are summed, so one
/// tampered pair makes the whole export fail.
pub fn verify_export(root: &Path, options: &Options) -> Result<Verified> {
    let index = root.join("pairs.csv");
    let mut reader =
        csv::Reader::from_path(&index).with_context(|| format!("reading {}", index.display()))?;
    let header = reader.headers()?.clone();
    if header.iter().take(3).ne(["dir", "agent_a", "agent_b"]) {
        bail!(
            "{} is not the pairs.csv of a league export (its header is {:?})",
            index.display(),
            header.iter().collect::<Vec<_>>().join(",")
        );
    }
    let mut total = Verified {
        rows: 0,
        checked: 0,
        skipped: 0,
        mismatches: 0,
        text: String::new(),
    };
    let (mut pairs, mut failed) = (0, Vec::new());
    for record in reader.records() {
        let record = record.with_context(|| format!("reading {}", index.display()))?;
        let (name, a, b) = (&record[0], &record[1], &record[2]);
        // The folder is a name inside the export, never a path elsewhere: pairs.csv came
        // with the export, and is no more trusted than its games.
        if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
            bail!("{}: {name:?} is not a pair's folder", index.display());
        }
        let v = verify(&root.join(name), options)
            .with_context(|| format!("pair {name} ({a} vs {b})"))?;
        let _ = writeln!(
            total.text,
            "pair {name} ({a} vs {b}): {}",
            match v.mismatches {
                0 => "ok".to_owned(),
                1 => "1 mismatch".to_owned(),
                m => format!("{m} mismatches"),
            }
        );
        for line in v.text.lines() {
            let _ = writeln!(total.text, "  {line}");
        }
        if v.mismatches > 0 {
            failed.push(name.to_owned());
        }
        pairs += 1;
        total.rows += v.rows;
        total.checked += v.checked;
        total.skipped += v.skipped;
        total.mismatches += v.mismatches;
    }
    if pairs == 0 {
        bail!("{} lists no pair to verify", index.display());
    }
    let _ = writeln!(
        total.text,
        "total: {pairs} pairs, {} rows on disk, {} replayed and compared{}, {} {}{}",
        total.rows,
        total.checked,
        if total.skipped > 0 {
            format!(", {} skipped", total.skipped)
        } else {
            String::new()
        },
        total.mismatches,
        if total.mismatches == 1 {
            "mismatch"
        } else {
            "mismatches"
        },
        if failed.is_empty() {
            String::new()
        } else {
            format!(" (in pair {})", failed.join(", "))
        }
    );
    Ok(total)
}

pub fn verify(dir: &Path, options: &Options) -> Result<Verified> {
    let began = Instant::now();
    let run = RunDir::open(dir, Access::Read)?;
    let games_csv = run.games_csv();
    if !games_csv.exists() {
        bail!("{} has no games to verify", games_csv.display());
    }
    let external = match options.external {
        true => crate::tournament::external_runtime(&run, 0)?,
        false => None,
    };
    // First pass: how many rows, so that a sample can be spread evenly. The reader checks
    // every row's chain and columns on the way, so a damaged file is refused here.
    let mut reader = RowReader::open(&games_csv, &run.plan, run.shard(), Torn::Skip)?;
    reader.tolerate_breaks();
    while reader.next_record()?.is_some() {}
    let rows = reader.rows;
    let breaks = reader.breaks.take().unwrap_or_default();
    let step = match options.sample {
        Some(0) => bail!("--sample 0 checks nothing; give at least 1"),
        Some(k) => rows.div_ceil(k).max(1),
        None => 1,
    };
    let mut replayer = Replayer::new(dir, &run, options, external.as_ref())?;
    replayer.compare_all(step)?;
    if let Some(rt) = &external {
        rt.shutdown();
    }
    let Replayer {
        checked,
        skipped,
        mismatches,
        listed,
        ..
    } = replayer;
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
    describe_breaks(&mut text, &breaks);
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

/// The rows whose running check fails, listed (the first few).
fn describe_breaks(text: &mut String, breaks: &[u64]) {
    if breaks.is_empty() {
        return;
    }
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

/// The second pass: reads the rows again, replays the chosen ones in chunks on a pool
/// and compares each with its row on disk.
struct Replayer<'a> {
    run: &'a RunDir,
    options: &'a Options,
    external: Option<&'a Arc<ExternalRuntime>>,
    /// The run directory as the command line names it.
    dir: &'a Path,
    /// Which plan agents are `exec:` ones (their games are replayed only when asked).
    exec: Vec<bool>,
    matchups: Vec<(usize, usize)>,
    codec: Codec,
    columns: Vec<String>,
    pool: rayon::ThreadPool,
    checked: u64,
    skipped: u64,
    mismatches: u64,
    /// The first mismatches, in full.
    listed: String,
}

impl<'a> Replayer<'a> {
    fn new(
        dir: &'a Path,
        run: &'a RunDir,
        options: &'a Options,
        external: Option<&'a Arc<ExternalRuntime>>,
    ) -> Result<Replayer<'a>> {
        let plan = &run.plan;
        let codec = Codec::new(plan);
        let columns: Vec<String> = codec
            .header()
            .trim_end()
            .split(',')
            .map(str::to_owned)
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(options.concurrency)
            .build()
            .context("starting the verification threads")?;
        Ok(Replayer {
            run,
            options,
            external,
            dir,
            matchups: plan.matchups(),
            exec: plan
                .agents
                .iter()
                .map(|a| matches!(a.spec, agents::Spec::Exec { .. }))
                .collect(),
            codec,
            columns,
            pool,
            checked: 0,
            skipped: 0,
            mismatches: 0,
            listed: String::new(),
        })
    }

    /// Compares every `step`-th row from `options.from` on.
    fn compare_all(&mut self, step: u64) -> Result<()> {
        let plan = &self.run.plan;
        let mut reader =
            RowReader::open(&self.run.games_csv(), plan, self.run.shard(), Torn::Skip)?;
        reader.tolerate_breaks();
        let mut position = 0u64;
        loop {
            let mut chunk = Vec::with_capacity(CHUNK);
            while chunk.len() < CHUNK {
                let Some(record) = reader.next_record()? else {
                    break;
                };
                let at = position;
                position += 1;
                if record.key.index < self.options.from || !at.is_multiple_of(step) {
                    continue;
                }
                let (a, b) = self.matchups[usize::from(record.key.matchup)];
                if !self.options.external && (self.exec[a] || self.exec[b]) {
                    self.skipped += 1;
                    continue;
                }
                chunk.push(Row {
                    index: record.key.index,
                    content: reader.last_content().to_vec(),
                });
            }
            if chunk.is_empty() {
                return Ok(());
            }
            self.compare(&chunk)?;
        }
    }

    /// Replays a chunk of rows in parallel and compares each with the disk.
    fn compare(&mut self, chunk: &[Row]) -> Result<()> {
        let plan = &self.run.plan;
        let (codec, external) = (&self.codec, self.external);
        let replayed: Vec<Result<Vec<u8>>> = self.pool.install(|| {
            chunk
                .par_iter()
                .map(|row| replay(plan, codec, external, row.index))
                .collect()
        });
        for (row, again) in chunk.iter().zip(replayed) {
            self.checked += 1;
            let again = again?;
            if again != row.content {
                self.mismatches += 1;
                if self.mismatches as usize <= LISTED {
                    let _ = writeln!(
                        self.listed,
                        "  game {}: {}\n    see it: arena replay {} -n {}",
                        row.index,
                        differences(&self.columns, &row.content, &again),
                        self.dir.display(),
                        row.index
                    );
                }
            }
        }
        Ok(())
    }
}

/// Game `index` played again, as its row's content.
fn replay(
    plan: &Plan,
    codec: &Codec,
    external: Option<&Arc<ExternalRuntime>>,
    index: u64,
) -> Result<Vec<u8>> {
    let record = plan
        .prepared
        .play(&plan.schedule.job(index), external, false)
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
