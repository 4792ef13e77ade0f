//! `arena merge OUT DIR...`: shards back into one run, byte-identical to the unsharded
//! run. Every shard is checked (same config hash, seed, schema and shard count; each
//! index once; complete and untorn); rows are merged in game order, streaming, and every
//! summary is recomputed from the records. An SPRT is applied here, cutting at its
//! decision point in game order.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::results::{ResultsWriter, RowReader, Torn};
use super::{RunDir, SCHEMA};
use crate::engine::{Flow, Observer, Shard, SprtMonitor};
use crate::report::Summarizer;

/// What `merge` did: games written and whether the SPRT cut the run.
pub struct Merged {
    pub run: RunDir,
    pub games: u64,
    pub tally: Summarizer,
    pub stopped_early: bool,
}

pub fn merge(out: &Path, dirs: &[PathBuf]) -> Result<Merged> {
    if dirs.is_empty() {
        bail!("arena merge needs at least one shard directory");
    }
    // The same directory named twice is caught before it is opened (its lock would
    // refuse the second opening as if another process held it).
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
    let mut shards: Vec<RunDir> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        shards.push(RunDir::open(dir, super::Access::Read)?);
    }
    let first = &shards[0];
    let count = first.manifest.shard_count;
    for s in &shards[1..] {
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
        if m.shard_count != count {
            bail!(
                "foreign shard: {} is shard {} but {} is shard {}: both must split the run the same way",
                s.dir.display(),
                s.shard(),
                first.dir.display(),
                first.shard()
            );
        }
    }
    let mut by_index: Vec<Option<usize>> = vec![None; count as usize];
    for (i, s) in shards.iter().enumerate() {
        let slot = &mut by_index[s.manifest.shard_index as usize];
        if let Some(j) = *slot {
            bail!(
                "overlapping shards: {} and {} are both shard {}",
                shards[j].dir.display(),
                s.dir.display(),
                s.shard()
            );
        }
        *slot = Some(i);
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
    let order: Vec<usize> = by_index.into_iter().flatten().collect();

    let plan = first.plan.clone();
    let schedule = plan.schedule;
    let mut readers = Vec::with_capacity(order.len());
    for &i in &order {
        let s = &shards[i];
        readers.push(RowReader::open(
            &s.games_csv(),
            &plan,
            s.shard(),
            Torn::Refuse,
        )?);
    }
    let run = RunDir::create(out, &plan, Shard::WHOLE)?;
    let mut writer = ResultsWriter::append(&run.games_csv(), &plan, Default::default())?;
    let mut tally = Summarizer::new(&plan)?;
    let mut sprt = match &plan.sprt {
        Some(s) => Some(SprtMonitor::new(s)?),
        None => None,
    };
    let mut games = 0u64;
    let mut stopped_early = false;
    for index in 0..schedule.len() {
        let k = schedule.shard_of(schedule.global_pair(index), count) as usize;
        let Some(record) = readers[k].next_record()? else {
            let s = &shards[order[k]];
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
        tally.record(&record)?;
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
        for (k, reader) in readers.iter_mut().enumerate() {
            if reader.next_record()?.is_some() {
                bail!(
                    "{} holds more games than its shard",
                    shards[order[k]].games_csv().display()
                );
            }
        }
    }
    Ok(Merged {
        run,
        games,
        tally,
        stopped_early,
    })
}
