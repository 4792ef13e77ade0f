//! Plays a shard of a run: workers claim games in order, play them, and send records in
//! small batches; the calling thread puts them back in game order and hands each to the
//! observers. Memory is bounded by the concurrency (a window of games in flight), never
//! by the length of the run.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::observer::{Flow, Observer};
use super::schedule::{Schedule, Shard};
use crate::external::ExternalRuntime;
use crate::record::{JobKey, Record};
use crate::task::Prepared;

/// How a run is carried out; none of it changes results.
#[derive(Clone, Copy, Debug)]
pub struct Execution {
    pub concurrency: usize,
    pub progress: bool,
    /// Measure every decision's wall time (`timings.csv`, `think.csv`). Runs with an
    /// external agent are timed whatever this says.
    pub timings: bool,
}

/// Why the engine returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every game of the shard was played.
    Completed,
    /// An observer (the SPRT) stopped the run.
    Stopped,
    /// Ctrl-C or SIGTERM: the games before `next` are with the observers.
    Interrupted,
}

/// Records a worker holds before sending them: few enough that progress stays lively,
/// enough that the channel costs nothing per game.
const BATCH: usize = 256;
/// Games a worker may run ahead of the first one not yet handed on, per worker.
const WINDOW_PER_WORKER: u64 = 1024;

/// Hands over a worker's full batch, leaving it an empty one of full capacity (an empty
/// `Vec` would grow again, copying, for every batch).
fn fresh(batch: &mut Vec<(u64, Record)>) -> Vec<(u64, Record)> {
    std::mem::replace(batch, Vec::with_capacity(BATCH))
}

/// The games to play: those of `shard` from its `start`-th game on (earlier ones are
/// already on disk).
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub schedule: Schedule,
    pub shard: Shard,
    pub start: u64,
}

/// Plays the games of `span` and hands every record to `observers`, in game order.
pub fn play_all(
    task: &dyn Prepared,
    span: Span,
    exec: &Execution,
    external: Option<&Arc<ExternalRuntime>>,
    interrupt: &AtomicBool,
    observers: &mut [&mut dyn Observer],
) -> Result<RunEnd> {
    let Span {
        schedule,
        shard,
        start,
    } = span;
    let end = schedule.shard_len(shard);
    if start >= end {
        return Ok(RunEnd::Completed);
    }
    // The shard's `p`-th game, by arithmetic.
    let index_of = |p: u64| schedule.shard_game(shard, p);
    let workers = exec.concurrency.max(1);
    let window = WINDOW_PER_WORKER * workers as u64;
    let claimed = AtomicU64::new(start);
    let handed_on = AtomicU64::new(start);
    let stop = AtomicBool::new(false);

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .context("starting the worker pool")?;
    let (sender, receiver) = mpsc::channel::<Result<Vec<(u64, Record)>>>();
    let mut outcome = RunEnd::Completed;
    std::thread::scope(|scope| -> Result<()> {
        let (claimed, handed_on, stop) = (&claimed, &handed_on, &stop);
        let pool = &pool;
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let sender = sender.clone();
                    s.spawn(move |_| {
                        let mut batch = Vec::with_capacity(BATCH);
                        let mut last_send = Instant::now();
                        loop {
                            if stop.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed) {
                                break;
                            }
                            let p = claimed.fetch_add(1, Ordering::Relaxed);
                            if p >= end {
                                break;
                            }
                            // Backpressure: never run further ahead of the writer than
                            // the window. Whoever holds the oldest game is never held.
                            while p >= handed_on.load(Ordering::Relaxed) + window
                                && !stop.load(Ordering::Relaxed)
                            {
                                if !batch.is_empty() {
                                    let _ = sender.send(Ok(fresh(&mut batch)));
                                }
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            let job: JobKey = schedule.job(index_of(p));
                            match task.play(&job, external) {
                                Ok(record) => batch.push((p, record)),
                                Err(e) => {
                                    let _ = sender.send(Err(e.context(format!(
                                        "playing game {} of the schedule",
                                        job.index
                                    ))));
                                    break;
                                }
                            }
                            // The clock is read every 8 games: slow games are still sent
                            // promptly, fast ones do not pay for it.
                            if batch.len() >= BATCH
                                || (batch.len() % 8 == 1
                                    && last_send.elapsed() >= Duration::from_millis(20))
                            {
                                if sender.send(Ok(fresh(&mut batch))).is_err() {
                                    return;
                                }
                                last_send = Instant::now();
                            }
                        }
                        if !batch.is_empty() {
                            let _ = sender.send(Ok(batch));
                        }
                    });
                }
            });
            drop(sender);
        });

        let mut next = start;
        let mut pending: BTreeMap<u64, Record> = BTreeMap::new();
        let result = (|| -> Result<()> {
            // Hands one record to every observer; `false` when one of them says stop.
            let mut hand_on = |record: &Record| -> Result<bool> {
                let mut go_on = true;
                for o in observers.iter_mut() {
                    match o.record(record)? {
                        Flow::Continue => {}
                        Flow::Stop => go_on = false,
                        Flow::StopBefore => return Ok(false),
                    }
                }
                Ok(go_on)
            };
            for batch in &receiver {
                for (p, record) in batch? {
                    // In order and nothing waiting (always so with one worker): no detour
                    // through the reorder map.
                    if p == next && pending.is_empty() {
                        next += 1;
                        if !hand_on(&record)? {
                            outcome = RunEnd::Stopped;
                            stop.store(true, Ordering::Relaxed);
                            return Ok(());
                        }
                    } else {
                        pending.insert(p, record);
                    }
                }
                while let Some(record) = pending.remove(&next) {
                    next += 1;
                    if !hand_on(&record)? {
                        outcome = RunEnd::Stopped;
                        stop.store(true, Ordering::Relaxed);
                        return Ok(());
                    }
                }
                handed_on.store(next, Ordering::Relaxed);
            }
            Ok(())
        })();
        // Whatever happened, let the workers finish their current game and leave.
        stop.store(true, Ordering::Relaxed);
        for _ in receiver.iter() {}
        result?;
        if outcome == RunEnd::Completed && next < end {
            outcome = RunEnd::Interrupted;
        }
        Ok(())
    })?;
    Ok(outcome)
}
