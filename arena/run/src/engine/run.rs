//! Plays a shard of a run: workers claim games in order, play them, encode each one's row
//! and send records in small batches; the calling thread puts them back in game order and
//! hands each to the observers, and a writer thread appends the rows. Memory is bounded
//! by the concurrency (a window of games in flight), never by the length of the run.
//!
//! Three stages, because fast games (a few microseconds each) make any per-game work done
//! in one thread the limit on many cores: the workers do everything that can be done out
//! of order (playing, encoding the row), the ordering thread only what needs game order
//! (the observers' counts), and the writer only what needs the bytes of every earlier row
//! (the running check, the file).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::observer::{Flow, Observer};
use crate::external::ExternalRuntime;
use crate::record::{JobKey, Record};
use crate::schedule::{Schedule, Shard};
use crate::task::Prepared;

/// How a run is carried out; none of it changes results.
#[derive(Clone, Copy, Debug)]
pub struct Execution {
    pub concurrency: usize,
    pub progress: bool,
    /// Measure every decision's wall time (`timings.csv`, `think.csv`). Runs with an
    /// external agent are timed whatever this says.
    pub timings: bool,
    /// Pin each game thread to a core of its own where there are enough
    /// (`crate::affinity`); the bots a thread starts run on its core.
    pub pin: bool,
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
/// Games the workers may run ahead of the first one not yet handed on: this many per
/// worker, never fewer than [`WINDOW_MIN`] and never more than [`WINDOW_MAX`] in all.
/// The ordering and writer threads lose a scheduler time slice now and then (a few
/// milliseconds) whenever the workers fill the cores; if the window runs out within one,
/// the workers sleep. A window of 2,048 games at two workers did (84% efficiency on two
/// cores; 94% with the minimum), and so did 1,024 games a worker at 16 workers on 16
/// cores (68% efficiency; 82% with 4,096 a worker, as much as 16 copies of the C++
/// simulation get on that machine, and 16,384 a worker gained nothing more for three
/// times the memory). Memory stays bounded by the window: about 0.25 KB a game in it.
const WINDOW_PER_WORKER: u64 = 4096;
const WINDOW_MIN: u64 = 16_384;
const WINDOW_MAX: u64 = 262_144;
/// The most games a worker claims at once. Workers claim consecutive games, as many as
/// take about [`CLAIM_TIME`], so that records come back in runs: the thread that puts
/// them in order then moves whole runs, not single records through a map (which was the
/// serial stage of fast games). Slow games are claimed one at a time, so the last games
/// of a run are still shared out.
const CLAIM_MAX: u64 = 64;
const CLAIM_TIME: Duration = Duration::from_micros(200);

/// Runs the ordering thread may hand the writer before it waits (a bound on memory).
const WRITER_QUEUE: usize = 64;

/// Encodes a record as its row's content, ending in a line break (`games.csv`'s rows
/// without their running check). Called in the workers.
pub trait RowEncoder: Sync {
    fn encode(&self, record: &Record, out: &mut Vec<u8>);
}

/// Rows' contents back to back, in game order.
#[derive(Debug, Default)]
pub struct Rows {
    bytes: Vec<u8>,
    /// Where each row ends in `bytes`.
    ends: Vec<usize>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each row's content, with its line break.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.ranges().map(|r| &self.bytes[r])
    }

    fn ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        std::iter::once(0)
            .chain(self.ends.iter().copied())
            .zip(self.ends.iter().copied())
            .map(|(start, end)| start..end)
    }

    fn push(&mut self, encoder: &dyn RowEncoder, record: &Record) {
        encoder.encode(record, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// Keeps the first `n` rows.
    fn truncate(&mut self, n: usize) {
        if n < self.ends.len() {
            self.bytes
                .truncate(if n == 0 { 0 } else { self.ends[n - 1] });
            self.ends.truncate(n);
        }
    }
}

/// Receives every handed-on game's row, in game order, on a thread of its own.
pub trait RowSink: Send {
    fn append(&mut self, rows: &Rows) -> Result<()>;
}

/// Consecutive records of one worker, games `start`, `start + 1`, …, and their rows.
struct Run {
    start: u64,
    records: Vec<Record>,
    rows: Rows,
}

/// Emptied buffers going back to the workers. A buffer filled on one thread and freed on
/// another makes the allocator hand memory back and fault it in again (13 times the
/// page faults at two workers as at one), so runs' buffers are reused instead.
#[derive(Default)]
struct Spares {
    records: Mutex<Vec<Vec<Record>>>,
    rows: Mutex<Vec<Rows>>,
}

/// Spare buffers kept, at most; more are freed (memory stays bounded).
const SPARES_KEPT: usize = 1024;

impl Spares {
    fn records(&self) -> Vec<Record> {
        self.records
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    fn rows(&self) -> Rows {
        self.rows
            .lock()
            .ok()
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    fn give_records(&self, mut records: Vec<Record>) {
        records.clear();
        if let Ok(mut v) = self.records.lock()
            && v.len() < SPARES_KEPT
        {
            v.push(records);
        }
    }

    fn give_rows(&self, mut rows: Rows) {
        rows.clear();
        if let Ok(mut v) = self.rows.lock()
            && v.len() < SPARES_KEPT
        {
            v.push(rows);
        }
    }
}

/// A worker's records since its last send, as runs.
#[derive(Default)]
struct Batch {
    runs: Vec<Run>,
    len: usize,
}

impl Batch {
    fn push(&mut self, p: u64, record: Record, encoder: &dyn RowEncoder, spares: &Spares) {
        let run = match self.runs.last_mut() {
            Some(run) if run.start + run.records.len() as u64 == p => run,
            _ => {
                self.runs.push(Run {
                    start: p,
                    records: spares.records(),
                    rows: spares.rows(),
                });
                self.runs.last_mut().expect("just pushed")
            }
        };
        run.rows.push(encoder, &record);
        run.records.push(record);
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

/// Where a run's records go: every record to the observers, in game order, then, unless
/// an observer withheld it ([`Flow::StopBefore`]), its row (encoded by `encoder`) to
/// `sink`.
pub struct Outputs<'a, 'o> {
    pub encoder: &'a dyn RowEncoder,
    pub sink: &'a mut dyn RowSink,
    pub observers: &'a mut [&'o mut dyn Observer],
}

/// Hands one record to every observer: what the strictest of them says.
fn observe(record: &Record, observers: &mut [&mut dyn Observer]) -> Result<Flow> {
    let mut flow = Flow::Continue;
    for o in observers.iter_mut() {
        match o.record(record)? {
            Flow::Continue => {}
            Flow::Stop => flow = Flow::Stop,
            // The observers after it never see the record.
            Flow::StopBefore => return Ok(Flow::StopBefore),
        }
    }
    Ok(flow)
}

/// Hands a run's records to every observer in order, then its rows (those no observer
/// withheld) to `to_write`; `false` when an observer says stop. `next` counts the records
/// handed on.
fn hand_on(
    run: Run,
    observers: &mut [&mut dyn Observer],
    next: &mut u64,
    to_write: &mut Vec<Rows>,
    spares: &Spares,
) -> Result<bool> {
    let Run {
        records, mut rows, ..
    } = run;
    let mut accepted = 0;
    let mut go_on = true;
    for record in &records {
        *next += 1;
        let flow = observe(record, observers)?;
        if flow != Flow::StopBefore {
            accepted += 1;
        }
        if flow != Flow::Continue {
            go_on = false;
            break;
        }
    }
    spares.give_records(records);
    rows.truncate(accepted);
    to_write.push(rows);
    Ok(go_on)
}

/// Reads the clock once in a while: at every call while calls are slow (over a
/// millisecond apart), every 64th while they are fast, so fast games never pay for it.
struct Sometimes {
    until: u32,
    last: Instant,
}

impl Sometimes {
    fn new() -> Sometimes {
        Sometimes {
            until: 1,
            last: Instant::now(),
        }
    }

    /// Now, when this call reads the clock.
    fn now(&mut self) -> Option<Instant> {
        self.until -= 1;
        if self.until > 0 {
            return None;
        }
        let now = Instant::now();
        let fast = now.duration_since(self.last) < Duration::from_millis(1);
        self.until = if fast { 64 } else { 1 };
        self.last = now;
        Some(now)
    }
}

/// How long rows may wait on the ordering side before they go to the writer: slow games
/// reach the file (and a kill loses nothing) as promptly as fast ones.
const ROWS_WAIT: Duration = Duration::from_millis(20);

/// What the engine plays: a task's games of a span.
#[derive(Clone, Copy)]
pub struct Games<'a> {
    pub task: &'a dyn Prepared,
    pub span: Span,
    /// The runtime of the plan's `exec:` agents, when it has any.
    pub external: Option<&'a Arc<ExternalRuntime>>,
    /// Measure every decision's wall time into the records.
    pub timed: bool,
}

impl Games<'_> {
    /// The span's shard's `p`-th game, played. An error names the game.
    fn play(&self, p: u64) -> Result<Record> {
        let schedule = &self.span.schedule;
        let job: JobKey = schedule.job(schedule.shard_game(self.span.shard, p));
        self.task
            .play(&job, self.external, self.timed)
            .map_err(|e| e.context(format!("playing game {} of the schedule", job.index)))
    }

    /// Where the shard's games end.
    fn end(&self) -> u64 {
        self.span.schedule.shard_len(self.span.shard)
    }

    /// Every game before the shard's `p`-th is over: the external runtime's count of
    /// start-up failures forgets what it can no longer need.
    fn settle(&self, p: u64) {
        if let Some(rt) = self.external {
            let index = match p < self.end() {
                true => self.span.schedule.shard_game(self.span.shard, p),
                false => u64::MAX,
            };
            rt.settle(index);
        }
    }

    /// Claimed games that will not be played (the run stopped): nothing waits for them.
    fn abandon(&self, positions: Range<u64>) {
        if let Some(rt) = self.external {
            for p in positions {
                rt.abandon(self.span.schedule.shard_game(self.span.shard, p));
            }
        }
    }
}

/// One worker: each game is played, handed on and its row written on the calling thread,
/// with no hand-off between threads. On a virtual machine, waking a sleeping thread costs
/// more than a fast game; with one worker there is nothing to gain from it.
fn play_inline(
    games: Games<'_>,
    interrupt: &AtomicBool,
    outputs: Outputs<'_, '_>,
) -> Result<RunEnd> {
    let end = games.end();
    let mut rows = Rows::default();
    let mut clock = Sometimes::new();
    let mut last_write = Instant::now();
    let played = (|| -> Result<RunEnd> {
        for p in games.span.start..end {
            if interrupt.load(Ordering::Relaxed) {
                return Ok(RunEnd::Interrupted);
            }
            let record = games.play(p)?;
            games.settle(p + 1);
            let flow = observe(&record, outputs.observers)?;
            if flow != Flow::StopBefore {
                rows.push(outputs.encoder, &record);
            }
            if flow != Flow::Continue {
                return Ok(RunEnd::Stopped);
            }
            let due = clock.now().is_some_and(|now| now - last_write >= ROWS_WAIT);
            if rows.len() >= BATCH || due {
                outputs.sink.append(&rows)?;
                rows.clear();
                last_write = Instant::now();
            }
        }
        Ok(RunEnd::Completed)
    })();
    // Whatever happened, what was handed on is written (a failed write is the error).
    let written = if rows.is_empty() {
        Ok(())
    } else {
        outputs.sink.append(&rows)
    };
    let end = played?;
    written?;
    Ok(end)
}

/// Plays `games` on `concurrency` workers and hands every record to `outputs`, in game
/// order. One worker plays inline; more run three stages: the workers ([`Worker`]), the
/// ordering stage on the calling thread ([`Reorder`]) and the writer ([`write_rows`]).
pub fn play_all(
    games: Games<'_>,
    exec: &Execution,
    interrupt: &AtomicBool,
    outputs: Outputs<'_, '_>,
) -> Result<RunEnd> {
    let (span, end) = (games.span, games.end());
    if span.start >= end {
        return Ok(RunEnd::Completed);
    }
    let workers = exec.concurrency.max(1);
    // Each game thread on a core of its own, where there are enough (`crate::affinity`).
    let cores = exec.pin.then(|| crate::affinity::plan(workers)).flatten();
    if workers == 1 {
        let _pinned = cores.and_then(|c| crate::affinity::pin(c[0]));
        return play_inline(games, interrupt, outputs);
    }
    let claims = Claims {
        end,
        window: (WINDOW_PER_WORKER * workers as u64).clamp(WINDOW_MIN, WINDOW_MAX),
        claimed: AtomicU64::new(span.start),
        handed_on: AtomicU64::new(span.start),
        stop: AtomicBool::new(false),
        interrupt,
    };
    let spares = Spares::default();
    let pool = crate::affinity::pinned_pool(workers, cores).context("starting the worker pool")?;
    let (sender, receiver) = mpsc::channel::<Result<Batch>>();
    let Outputs {
        encoder,
        sink,
        observers,
    } = outputs;
    std::thread::scope(|scope| -> Result<RunEnd> {
        let worker = Worker {
            games,
            encoder,
            claims: &claims,
            spares: &spares,
        };
        let pool = &pool;
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let sender = sender.clone();
                    s.spawn(move |_| worker.run(&sender));
                }
            });
            drop(sender);
        });
        let (rows_to_write, rows_to_write_rx) = mpsc::sync_channel::<Vec<Rows>>(WRITER_QUEUE);
        let writer = scope.spawn(|| write_rows(rows_to_write_rx, sink, &spares));
        let mut reorder = Reorder {
            games,
            next: span.start,
            pending: BTreeMap::new(),
            observers,
            spares: &spares,
        };
        let stopped = reorder.receive(&receiver, &claims.handed_on, &rows_to_write);
        // Whatever happened, let the workers finish their current game and leave, and the
        // writer write what was handed on.
        claims.stop.store(true, Ordering::Relaxed);
        for _ in receiver.iter() {}
        drop(rows_to_write);
        let written = writer
            .join()
            .map_err(|_| anyhow::anyhow!("the results writer panicked"))?;
        written?;
        Ok(if stopped? {
            RunEnd::Stopped
        } else if reorder.next < end {
            RunEnd::Interrupted
        } else {
            RunEnd::Completed
        })
    })
}

/// What the workers share: the next game to claim, and how far the ordering stage got.
struct Claims<'a> {
    /// The shard's games end here.
    end: u64,
    /// Games the workers may run ahead of the first one not yet handed on.
    window: u64,
    claimed: AtomicU64,
    handed_on: AtomicU64,
    /// The ordering stage is done (stopped, failed, or every game handed on).
    stop: AtomicBool,
    /// Ctrl-C or SIGTERM.
    interrupt: &'a AtomicBool,
}

impl Claims<'_> {
    fn halted(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.interrupt.load(Ordering::Relaxed)
    }
}

/// The worker stage: claims consecutive games, plays them, encodes their rows (work
/// that needs no order) and sends them as runs in batches.
#[derive(Clone, Copy)]
struct Worker<'a> {
    games: Games<'a>,
    encoder: &'a dyn RowEncoder,
    claims: &'a Claims<'a>,
    spares: &'a Spares,
}

impl Worker<'_> {
    fn run(&self, sender: &mpsc::Sender<Result<Batch>>) {
        let mut batch = Batch::default();
        let mut last_send = Instant::now();
        // Games to claim at once, grown while games are fast.
        let mut claim = 1u64;
        while !self.claims.halted() {
            let first = self.claims.claimed.fetch_add(claim, Ordering::Relaxed);
            if first >= self.claims.end {
                break;
            }
            let began = Instant::now();
            if !self.play_claim(
                first..(first + claim).min(self.claims.end),
                &mut batch,
                sender,
            ) {
                break;
            }
            claim = next_claim(claim, began.elapsed());
            // Slow games are still sent promptly, fast ones in batches.
            if batch.len >= BATCH || last_send.elapsed() >= Duration::from_millis(20) {
                if sender.send(Ok(batch.take())).is_err() {
                    return;
                }
                last_send = Instant::now();
            }
        }
        if !batch.is_empty() {
            let _ = sender.send(Ok(batch));
        }
    }

    /// Plays the claimed games into `batch`: `false` when the run ends before all of
    /// them (a stop, or a game that failed: its error is sent).
    fn play_claim(
        &self,
        claimed: Range<u64>,
        batch: &mut Batch,
        sender: &mpsc::Sender<Result<Batch>>,
    ) -> bool {
        let (first, end) = (claimed.start, claimed.end);
        for p in claimed {
            if p > first && self.claims.halted() {
                // Claimed but not played: the run ends before them.
                self.games.abandon(p..end);
                return false;
            }
            self.wait_for_window(p, batch, sender);
            match self.games.play(p) {
                Ok(record) => batch.push(p, record, self.encoder, self.spares),
                Err(e) => {
                    self.games.abandon(p + 1..end);
                    let _ = sender.send(Err(e));
                    return false;
                }
            }
        }
        true
    }

    /// Backpressure: never run further ahead of the writer than the window. Whoever
    /// holds the oldest game is never held.
    fn wait_for_window(&self, p: u64, batch: &mut Batch, sender: &mpsc::Sender<Result<Batch>>) {
        let claims = self.claims;
        while p >= claims.handed_on.load(Ordering::Relaxed) + claims.window
            && !claims.stop.load(Ordering::Relaxed)
        {
            if !batch.is_empty() {
                let _ = sender.send(Ok(batch.take()));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Games to claim next: what takes about [`CLAIM_TIME`] (the clock is read once per
/// claim, not per game).
fn next_claim(claim: u64, took: Duration) -> u64 {
    if took * 2 < CLAIM_TIME {
        (claim * 2).min(CLAIM_MAX)
    } else if took > CLAIM_TIME * 2 {
        (claim / 2).max(1)
    } else {
        claim
    }
}

/// The ordering stage: puts the workers' runs back in game order, hands each record to
/// the observers and passes the rows on to the writer.
struct Reorder<'a, 'b, 'o> {
    games: Games<'a>,
    /// The first game not yet handed on.
    next: u64,
    /// Runs that came before their turn, by their first game.
    pending: BTreeMap<u64, Run>,
    observers: &'b mut [&'o mut dyn Observer],
    spares: &'a Spares,
}

impl Reorder<'_, '_, '_> {
    /// Receives batches until the workers are done: `true` when an observer stopped the
    /// run. A failed writer ends it too (its error is the run's).
    fn receive(
        &mut self,
        receiver: &mpsc::Receiver<Result<Batch>>,
        handed_on: &AtomicU64,
        rows_to_write: &mpsc::SyncSender<Vec<Rows>>,
    ) -> Result<bool> {
        for batch in receiver {
            let mut to_write = Vec::new();
            let go_on = self.hand_on_batch(batch?, &mut to_write)?;
            handed_on.store(self.next, Ordering::Relaxed);
            self.games.settle(self.next);
            if rows_to_write.send(to_write).is_err() {
                return Ok(false);
            }
            if !go_on {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Hands on every run of `batch` whose turn has come (and those pending behind it);
    /// `false` when an observer says stop.
    fn hand_on_batch(&mut self, batch: Batch, to_write: &mut Vec<Rows>) -> Result<bool> {
        for run in batch.runs {
            let mut go_on = true;
            if run.start == self.next {
                // Its turn (always so with one worker): handed on at once.
                go_on = hand_on(run, self.observers, &mut self.next, to_write, self.spares)?;
            } else {
                self.pending.insert(run.start, run);
            }
            while go_on && let Some(run) = self.pending.remove(&self.next) {
                go_on = hand_on(run, self.observers, &mut self.next, to_write, self.spares)?;
            }
            if !go_on {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The writer stage: the rows' running check and the file, off the ordering thread.
fn write_rows(
    runs: mpsc::Receiver<Vec<Rows>>,
    sink: &mut dyn RowSink,
    spares: &Spares,
) -> Result<()> {
    for runs in runs {
        for rows in runs {
            sink.append(&rows)?;
            spares.give_rows(rows);
        }
    }
    Ok(())
}
