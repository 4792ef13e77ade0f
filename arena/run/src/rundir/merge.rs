//! `arena merge OUT DIR...`: shards back into one run, byte-identical to the unsharded
//! run. Every shard is checked (same config hash, seed, schema and shard count; each
//! index once; complete and untorn); rows are merged in game order, streaming, into the
//! caller's summary (the CLI's: the run directory knows no report). An SPRT is applied
//! here, cutting at its decision point in game order.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::results::{ResultsWriter, RowReader, Torn};
use super::{RunDir, SCHEMA};
use crate::engine::{Flow, Observer, Shard, SprtMonitor};
use crate::plan::Plan;

/// What `merge` did: games written and whether the SPRT cut the run.
pub struct Merged {
    pub run: RunDir,
    pub games: u64,
    pub stopped_early: bool,
}

/// The shards of one run, checked and in shard order (`Shards::open`).
pub struct Shards {
    shards: Vec<RunDir>,
}

impl Shards {
    /// Opens `dirs` and checks that they are every shard of one run, each once.
    pub fn open(dirs: &[PathBuf]) -> Result<Shards> {
        if dirs.is_empty() {
            bail!("arena merge needs at least one shard directory");
        }
        refuse_repeats(dirs)?;
        let mut shards: Vec<RunDir> = Vec::with_capacity(dirs.len());
        for dir in dirs {
            shards.push(RunDir::open(dir, super::Access::Read)?);
        }
        for s in &shards[1..] {
            check_same_run(&shards[0], s)?;
        }
        Ok(Shards {
            shards: in_shard_order(shards)?,
        })
    }

    /// The run's plan (every shard has the same).
    pub fn plan(&self) -> &Plan {
        &self.shards[0].plan
    }

    /// Writes the run into `out` in game order, handing each record to `summary`.
    pub fn merge(self, out: &Path, summary: &mut dyn Observer) -> Result<Merged> {
        let plan = self.plan().clone();
        let mut readers = Vec::with_capacity(self.shards.len());
        for s in &self.shards {
            readers.push(RowReader::open(
                &s.games_csv(),
                &plan,
                s.shard(),
                Torn::Refuse,
            )?);
        }
        let run = RunDir::create(out, &plan, Shard::WHOLE)?;
        let mut writer = ResultsWriter::append(&run.games_csv(), &plan, Default::default())?;
        let mut sprt = match &plan.sprt {
            Some(s) => Some(SprtMonitor::new(s)?),
            None => None,
        };
        let schedule = plan.schedule;
        let count = self.shards.len() as u64;
        let mut games = 0u64;
        let mut stopped_early = false;
        for index in 0..schedule.len() {
            let k = schedule.shard_of(schedule.global_pair(index), count) as usize;
            let Some(record) = readers[k].next_record()? else {
                let s = &self.shards[k];
                bail!(
                    "missing games: shard {} in {} ends after {} of its {} games (game {index} is not there); finish it with `arena run --resume {}`",
                    s.shard(),
                    s.dir.display(),
                    readers[k].rows,
                    s.manifest.shard_games,
                    s.dir.display()
                );
            };
            writer.record(&record)?;
            summary.record(&record)?;
            games += 1;
            if let Some(s) = &mut sprt
                && s.record(&record)? == Flow::Stop
            {
                stopped_early = true;
                break;
            }
        }
        writer.flush()?;
        if !stopped_early {
            for (reader, s) in readers.iter_mut().zip(&self.shards) {
                if reader.next_record()?.is_some() {
                    bail!(
                        "{} holds more games than its shard",
                        s.games_csv().display()
                    );
                }
            }
        }
        Ok(Merged {
            run,
            games,
            stopped_early,
        })
    }
}

/// The same directory named twice is caught before it is opened (its lock would refuse
/// the second opening as if another process held it).
fn refuse_repeats(dirs: &[PathBuf]) -> Result<()> {
    let real = |d: &Path| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_owned());
    for (i, a) in dirs.iter().enumerate() {
        if let Some(b) = dirs[..i].iter().find(|b| real(b) == real(a)) {
            bail!(
                "overlapping shards: {} is given twice (as {} too)",
                a.display(),
                b.display()
            );
        }
    }
    Ok(())
}

/// Refuses shard `s` unless it splits the same run as `first`, the same way.
fn check_same_run(first: &RunDir, s: &RunDir) -> Result<()> {
    let (m, f) = (&s.manifest, &first.manifest);
    if m.config_hash != f.config_hash || m.seed != f.seed || m.game != f.game {
        bail!(
            "foreign shard: {} is from another run than {} (config hash {} vs {}, seed {} vs {})",
            s.dir.display(),
            first.dir.display(),
            m.config_hash,
            f.config_hash,
            m.seed,
            f.seed
        );
    }
    if m.schema != SCHEMA {
        bail!(
            "{} has schema {}, expected {SCHEMA}",
            s.dir.display(),
            m.schema
        );
    }
    if m.shard_count != f.shard_count {
        bail!(
            "foreign shard: {} is shard {} but {} is shard {}: both must split the run the same way",
            s.dir.display(),
            s.shard(),
            first.dir.display(),
            first.shard()
        );
    }
    Ok(())
}

/// The shards by index, refusing one given twice or missing.
fn in_shard_order(shards: Vec<RunDir>) -> Result<Vec<RunDir>> {
    let count = shards[0].manifest.shard_count;
    let mut by_index: Vec<Option<RunDir>> = (0..count).map(|_| None).collect();
    for s in shards {
        let slot = &mut by_index[s.manifest.shard_index as usize];
        if let Some(other) = slot {
            bail!(
                "overlapping shards: {} and {} are both shard {}",
                other.dir.display(),
                s.dir.display(),
                s.shard()
            );
        }
        *slot = Some(s);
    }
    let missing: Vec<String> = by_index
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        bail!("missing shards: {} (of {count})", missing.join(", "));
    }
    Ok(by_index.into_iter().flatten().collect())
}
