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
/// The most games a worker claims at once. Workers claim consecutive games, as many as
/// take about [`CLAIM_TIME`], so that records come back in runs: the thread that puts
/// them in order then moves whole runs, not single records through a map (which was the
/// serial stage of fast games). Slow games are claimed one at a time, so the last games
/// of a run are still shared out.
const CLAIM_MAX: u64 = 64;
const CLAIM_TIME: Duration = Duration::from_micros(200);

/// Consecutive records of one worker: games `start`, `start + 1`, ….
struct Run {
    start: u64,
    records: Vec<Record>,
}

/// A worker's records since its last send, as runs.
#[derive(Default)]
struct Batch {
    runs: Vec<Run>,
    len: usize,
}

impl Batch {
    fn push(&mut self, p: u64, record: Record) {
        match self.runs.last_mut() {
            Some(run) if run.start + run.records.len() as u64 == p => run.records.push(record),
            _ => self.runs.push(Run {
                start: p,
                records: vec![record],
            }),
        }
        self.len += 1;
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn take(&mut self) -> Batch {
        std::mem::take(self)
    }
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
    let (sender, receiver) = mpsc::channel::<Result<Batch>>();
    let mut outcome = RunEnd::Completed;
    std::thread::scope(|scope| -> Result<()> {
        let (claimed, handed_on, stop) = (&claimed, &handed_on, &stop);
        let pool = &pool;
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let sender = sender.clone();
                    s.spawn(move |_| {
                        let mut batch = Batch::default();
                        let mut last_send = Instant::now();
                        // Games to claim at once, grown while games are fast.
                        let mut claim = 1u64;
                        'claims: loop {
                            if stop.load(Ordering::Relaxed) || interrupt.load(Ordering::Relaxed) {
                                break;
                            }
                            let first = claimed.fetch_add(claim, Ordering::Relaxed);
                            if first >= end {
                                break;
                            }
                            let began = Instant::now();
                            let last = (first + claim).min(end);
                            for p in first..last {
                                if p > first
                                    && (stop.load(Ordering::Relaxed)
                                        || interrupt.load(Ordering::Relaxed))
                                {
                                    // Claimed but not played: the run ends before them.
                                    break 'claims;
                                }
                                // Backpressure: never run further ahead of the writer
                                // than the window. Whoever holds the oldest game is never
                                // held.
                                while p >= handed_on.load(Ordering::Relaxed) + window
                                    && !stop.load(Ordering::Relaxed)
                                {
                                    if !batch.is_empty() {
                                        let _ = sender.send(Ok(batch.take()));
                                    }
                                    std::thread::sleep(Duration::from_millis(1));
                                }
                                let job: JobKey = schedule.job(index_of(p));
                                match task.play(&job, external) {
                                    Ok(record) => batch.push(p, record),
                                    Err(e) => {
                                        let _ = sender.send(Err(e.context(format!(
                                            "playing game {} of the schedule",
                                            job.index
                                        ))));
                                        break 'claims;
                                    }
                                }
                            }
                            // Claim what takes about CLAIM_TIME next (the clock is read
                            // once per claim, not per game).
                            let took = began.elapsed();
                            claim = if took * 2 < CLAIM_TIME {
                                (claim * 2).min(CLAIM_MAX)
                            } else if took > CLAIM_TIME * 2 {
                                (claim / 2).max(1)
                            } else {
                                claim
                            };
                            // Slow games are still sent promptly, fast ones in batches.
                            if batch.len >= BATCH
                                || last_send.elapsed() >= Duration::from_millis(20)
                            {
                                if sender.send(Ok(batch.take())).is_err() {
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
        // Runs that came before their turn, by their first game.
        let mut pending: BTreeMap<u64, Vec<Record>> = BTreeMap::new();
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
                for run in batch?.runs {
                    if run.start == next {
                        // Its turn (always so with one worker): handed on at once.
                        for record in &run.records {
                            next += 1;
                            if !hand_on(record)? {
                                outcome = RunEnd::Stopped;
                                stop.store(true, Ordering::Relaxed);
                                return Ok(());
                            }
                        }
                    } else {
                        pending.insert(run.start, run.records);
                    }
                    while let Some(records) = pending.remove(&next) {
                        for record in &records {
                            next += 1;
                            if !hand_on(record)? {
                                outcome = RunEnd::Stopped;
                                stop.store(true, Ordering::Relaxed);
                                return Ok(());
                            }
                        }
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
