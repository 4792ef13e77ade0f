//! `arena league run`: the loop. Before every batch it reads the bot table (so bots
//! added, promoted, rejected, archived or renamed meanwhile take effect), asks the
//! matchmaker for the next game pairs (a batch sized by each pair's measured speed to
//! last about [`BATCH_TARGET`]), and plays them on the task's engine. A writer thread
//! (the one writer of games) commits each batch in one transaction while the next is
//! played, then records the candidates' tests; the loop itself checks each test on
//! its own exact counts before choosing the next batch, so a decided candidate stops
//! at the next batch boundary. Ctrl-C abandons the batch in progress (within
//! [`ABANDON_AFTER`] of the games in flight) and exits 130; a `kill -9` loses only the
//! uncommitted batches. Either way the next `run` plays them again identically (a
//! game depends on nothing but its key).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::League;
use super::history;
use super::matchmaker::{Sizing, Spare, next_jobs};
use super::play::{
    Abandoned, Dropped, Finished, PairPlayer, Players, Runtimes, Timed, spawn_batch,
};
use super::store::{
    Bot, BotId, PairStats, PlayedPair, State, Store, Test, TestId, TestState, pair_totals,
};
use super::verdict::{Decided, evaluate, judge, settle_blocked};

/// How `run` runs.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Games played at once (0: one per core). Never changes a game.
    pub concurrency: usize,
    /// Stop once this many games were recorded by this run.
    pub games: Option<u64>,
    /// Stop once no candidate is running (every one has its verdict).
    pub until_decided: bool,
    /// Serve the live page here.
    pub serve: Option<SocketAddr>,
    pub token: Option<String>,
    /// Other names the page answers to (`--serve-host`).
    pub serve_hosts: Vec<String>,
    /// No progress lines.
    pub quiet: bool,
    /// Pin each game thread to a core of its own where there are enough
    /// (`arena_run::affinity`).
    pub pin: bool,
    /// What is played with no candidate running.
    pub spare: Spare,
}

/// What a run did.
pub struct Ran {
    pub games: u64,
    pub seconds: f64,
}

/// `run` stopped on Ctrl-C or SIGTERM (exit 130): the batch in progress was abandoned,
/// every batch before it is committed.
#[derive(Debug, thiserror::Error)]
#[error(
    "stopped: {recorded} games recorded by this run (the batch in progress abandoned); `arena league run {dir}` plays on"
)]
pub struct Stopped {
    pub recorded: u64,
    pub dir: String,
}

/// Batches aim at about this long (the game threads' time, measured per pair), so
/// verdicts, the page and Ctrl-C stay prompt and the per-batch costs (a transaction,
/// the matchmaker) stay small.
const BATCH_TARGET: Duration = Duration::from_secs(1);
/// The most game pairs in one batch, whatever their speed (memory).
const MAX_BATCH: usize = 65_536;
/// After Ctrl-C, how long the games in flight may take to finish before the batch is
/// given up without them.
const ABANDON_AFTER: Duration = Duration::from_secs(2);
/// How often an idle league reads the bot table again.
const IDLE_POLL: Duration = Duration::from_millis(300);
/// How often a batch in flight looks for bots rejected, archived or failed meanwhile.
const RECHECK_EVERY: Duration = Duration::from_millis(500);

pub fn run(dir: &Path, options: &Options) -> Result<Ran> {
    let league = League::open(dir)?;
    let _lock = arena_run::rundir::lock::acquire(dir, arena_run::rundir::Access::Write)
        .context("another `arena league run` holds this league")?;
    arena_run::engine::stop::install_for_league(dir);
    // Checked once here: a test's own bounds were checked when it was made.
    league.config.sprt.sprt()?;
    let sprt = league.config.sprt;
    if let Some(addr) = options.serve {
        let url = super::page::serve(addr, dir, options.token.clone(), &options.serve_hosts)?;
        eprintln!("league page: {url}");
    }
    let mut playing = Playing::new(options, dir.join(super::LOGS))?;
    // A batch that cannot be played stops the run, after the writer has committed what
    // was played before it.
    let mut failed = None;
    let mut stopped = false;
    let mut progress = Progress::new(options.quiet);
    let mut idle_said = false;
    // Seconds of a game thread per game pair, per pair of bots: what sizes a batch.
    let mut cost: HashMap<(BotId, BotId), f64> = HashMap::new();
    // Tests this loop found decided, before the writer records it.
    let mut decided: HashMap<TestId, TestState> = HashMap::new();
    // Start-up failures in a row per bot and case, in game order.
    let mut start_streaks: HashMap<(BotId, u16), u32> = HashMap::new();
    // Only this process writes games, so its own copy of the pairs' counts is exact,
    // including the batch being committed.
    let mut pairs: HashMap<(BotId, BotId), PairStats> = league
        .store
        .pairs()?
        .into_iter()
        .map(|p| ((p.a, p.b), p))
        .collect();
    let (to_writer, writer) = spawn_writer(&league, options.quiet)?;
    loop {
        if arena_run::engine::stop::requested() {
            stopped = true;
            break;
        }
        let left = options.games.map(|g| g.saturating_sub(progress.recorded));
        if left == Some(0) {
            break;
        }
        // A test whose bot or base failed (here, at `add`'s probe, or by a sealed
        // copy changed) ends before the next batch is chosen.
        report_verdicts(&settle_blocked(&league.store)?, options.quiet);
        let bots = league.store.bots()?;
        let tests = tests_now(&league.store, &decided)?;
        let running = tests.iter().any(|t| t.state == TestState::Running);
        if options.until_decided && !running {
            break;
        }
        let known: Vec<PairStats> = pairs.values().cloned().collect();
        let sizing = Sizing {
            seconds: playing.concurrency as f64 * BATCH_TARGET.as_secs_f64(),
            cost: &cost,
            most: left.map_or(MAX_BATCH, |l| MAX_BATCH.min(l.div_ceil(2) as usize)),
            spare: options.spare,
        };
        let jobs = next_jobs(&bots, &tests, &known, &sizing);
        if jobs.is_empty() {
            if idle(options, &bots, &mut idle_said) {
                break;
            }
            continue;
        }
        idle_said = false;
        // A bot whose stored copy changed since `add` is failed before any process of
        // it starts; the table is read again without it.
        if refuse_changed(&league, &bots, &jobs, &playing.runtimes)? {
            continue;
        }
        let played = match playing.batch(&league, &bots, jobs, &mut progress) {
            Ok(Some(played)) => played,
            Ok(None) => {
                stopped = true;
                break;
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        };
        measure(&mut cost, &played);
        let played: Vec<PlayedPair> = played.into_iter().map(|(p, _)| p).collect();
        fail_unstartable(&league, &bots, &played, &mut start_streaks, &playing.logs)?;
        if let Err(e) = count(&mut pairs, &played) {
            failed = Some(e);
            break;
        }
        progress.recorded += 2 * played.len() as u64;
        if to_writer.send(played).is_err() {
            break; // the writer failed: its error is returned below
        }
        let known: Vec<PairStats> = pairs.values().cloned().collect();
        decided.extend(decide(&bots, &tests, &known, &sprt));
        progress.tick(0);
    }
    drop(to_writer);
    playing.runtimes.shutdown();
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("the league's writer thread panicked"))??;
    if let Some(e) = failed {
        return Err(e);
    }
    if stopped {
        return Err(Stopped {
            recorded: progress.recorded,
            dir: dir.display().to_string(),
        }
        .into());
    }
    progress.ran(&league.store)
}

/// The games recorded by this run and its progress line ("N games in T s"), at most
/// every [`PROGRESS_EVERY`], within a batch too.
struct Progress {
    quiet: bool,
    began: Instant,
    recorded: u64,
    last_line: Instant,
}

impl Progress {
    fn new(quiet: bool) -> Progress {
        Progress {
            quiet,
            began: Instant::now(),
            recorded: 0,
            last_line: Instant::now(),
        }
    }

    /// What the run did, said unless quiet.
    fn ran(&self, store: &Store) -> Result<Ran> {
        let (recorded, seconds) = (self.recorded, self.began.elapsed().as_secs_f64());
        if !self.quiet {
            eprintln!(
                "recorded {recorded} games in {seconds:.1} s; {} in the league",
                store.total_games()?
            );
        }
        Ok(Ran {
            games: recorded,
            seconds,
        })
    }

    /// A line if one is due, counting `in_flight` ended games of the batch in flight.
    fn tick(&mut self, in_flight: u64) {
        if !self.quiet && self.last_line.elapsed() > PROGRESS_EVERY {
            self.last_line = Instant::now();
            progress(self.recorded + in_flight, self.began);
        }
    }
}

/// What plays the batches: the game threads (pinned where there are cores enough), the
/// pairs' players, and the external bots' runtimes kept across batches.
struct Playing {
    pool: rayon::ThreadPool,
    concurrency: usize,
    players: Players,
    runtimes: Runtimes,
    logs: std::path::PathBuf,
}

impl Playing {
    fn new(options: &Options, logs: std::path::PathBuf) -> Result<Playing> {
        let concurrency = if options.concurrency == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            options.concurrency
        };
        let cores = options
            .pin
            .then(|| arena_run::affinity::plan(concurrency))
            .flatten();
        let pool = arena_run::affinity::pinned_pool(concurrency, cores)
            .context("starting the game threads")?;
        Ok(Playing {
            pool,
            concurrency,
            players: Players::default(),
            runtimes: Runtimes::default(),
            logs,
        })
    }

    /// Plays `jobs`; `None` when a stop (Ctrl-C) abandoned the batch. The games of a
    /// pair given up meanwhile (`reject`, `archive`, a failure: [`give_up`]) are
    /// dropped whole, so a pair's stored games stay a prefix of its match, and those
    /// given up are played again identically if the pair plays again.
    fn batch(
        &mut self,
        league: &League,
        bots: &[Bot],
        jobs: Vec<super::play::Job>,
        progress: &mut Progress,
    ) -> Result<Option<Vec<Timed>>> {
        self.runtimes.keep_playable(bots);
        // Games of the batch in flight that have ended: a batch of slow bots can last
        // a minute, and the progress line goes on within it.
        let finished = Arc::new(Finished::new(self.concurrency));
        let dropped: Arc<Dropped> = Arc::default();
        let in_batch: HashSet<(BotId, BotId)> = jobs.iter().map(|j| (j.a, j.b)).collect();
        let mut checked = Instant::now();
        let ready = players_for(&mut self.players, league, bots, &jobs)?;
        self.runtimes.start(&ready, &jobs, &self.logs)?;
        let batch = spawn_batch(
            &self.pool,
            ready,
            &self.runtimes,
            jobs,
            Arc::clone(&finished),
            Arc::clone(&dropped),
        );
        let runtimes = &mut self.runtimes;
        let played = wait(batch, || {
            progress.tick(finished.total());
            // `reject`, `archive` and a failure take effect within a check: the pair's
            // games in flight are given up, its processes stopped.
            if checked.elapsed() > RECHECK_EVERY {
                checked = Instant::now();
                give_up(league, &in_batch, &dropped, runtimes, progress.quiet);
            }
        });
        let mut played = match played {
            Ok(Some(played)) => played,
            Ok(None) => return Ok(None),
            Err(e) if e.is::<Abandoned>() => return Ok(None),
            Err(e) => return Err(e),
        };
        played.retain(|(p, _)| !dropped.contains((p.a, p.b)));
        Ok(Some(played))
    }
}

/// The tests as stored, with the verdicts this loop found before the writer records
/// them.
fn tests_now(store: &Store, decided: &HashMap<TestId, TestState>) -> Result<Vec<Test>> {
    let mut tests = store.tests()?;
    for t in &mut tests {
        if t.state == TestState::Running
            && let Some(&state) = decided.get(&t.id)
        {
            t.state = state;
        }
    }
    Ok(tests)
}

/// Nothing to play: says why (once), waits a poll for a bot to be added; whether the
/// run ends instead (`--until-decided`, or `--games` with spare play done or off).
fn idle(options: &Options, bots: &[Bot], said: &mut bool) -> bool {
    if options.until_decided {
        eprintln!("nothing to play: a running test needs its base (or a benchmark) in play");
        return true;
    }
    // A run told when to end does not wait for spare play that is done or off (nothing
    // is left to learn); it waits for bots, as without `--games`.
    if options.games.is_some() && playable(bots) >= 2 {
        if !options.quiet {
            eprintln!("{}; the run ends", idle_reason(bots, options.spare));
        }
        return true;
    }
    if !*said && !options.quiet {
        eprintln!(
            "{}; waiting for a bot (`arena league add`)",
            idle_reason(bots, options.spare)
        );
        *said = true;
    }
    // Idle: a new bot (or a Ctrl-C) is seen within a poll.
    let until = Instant::now() + IDLE_POLL;
    while Instant::now() < until && !arena_run::engine::stop::requested() {
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// The most of a failed bot's stderr kept with its reason, in lines.
const STDERR_LINES: usize = 20;

/// Counts each bot's start-up failures in a row in each case over `played` (in game
/// order; a game the other bot lost at start-up tells nothing) and fails a bot that
/// reached `start_failures`: it cannot play that case, so it cannot play the league.
/// Its reason holds the end of its stderr; its games leave the standings with it.
fn fail_unstartable(
    league: &League,
    bots: &[Bot],
    played: &[PlayedPair],
    streaks: &mut HashMap<(BotId, u16), u32>,
    logs: &Path,
) -> Result<()> {
    use arena_run::record::{Side, Termination};
    let limit = league.config.limits.start_failures.max(1);
    let mut failing: Vec<(BotId, u16, (BotId, BotId), usize)> = Vec::new();
    // The map holds only the streaks under way, so a batch with no start-up failure and
    // none under way (every batch of built-in bots) costs one pass of comparisons: the
    // game threads wait while this loop runs.
    let startup = |g: &arena_run::record::Record| g.termination == Termination::Startup;
    if streaks.is_empty() && !played.iter().any(|p| p.games.iter().any(startup)) {
        return Ok(());
    }
    for p in played {
        for game in &p.games {
            for (side, id, seat) in [(Side::A, p.a, 0), (Side::B, p.b, 1)] {
                if !startup(game) {
                    streaks.remove(&(id, p.case));
                } else if game.forfeiter() == Some(side) {
                    let streak = streaks.entry((id, p.case)).or_default();
                    *streak += 1;
                    if *streak == limit {
                        failing.push((id, p.case, (p.a, p.b), seat));
                    }
                }
            }
        }
    }
    for (id, case, (a, b), seat) in failing {
        let Some(bot) = bots.iter().find(|b| b.id == id && b.plays()) else {
            continue;
        };
        let log = logs.join(format!("{a}-{b}")).join(format!(
            "stderr-{}.log",
            arena_run::external::label(seat, &bot.name)
        ));
        let stderr = std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n");
        let case = league
            .config
            .cases
            .get(usize::from(case))
            .map_or("?", String::as_str);
        let why = format!(
            "cannot start: {limit} start-up failures in a row in case {case} (start_failures); \
             the end of its stderr ({}):\n{}",
            log.display(),
            arena_run::shown::escape_controls(&tail)
        );
        eprintln!("bot {:?} is failed: {why}", bot.name);
        league.store.set_failed(id, &why)?;
    }
    Ok(())
}

/// Checks the stored copy of every bot whose processes `jobs` would start (a pair with
/// no runtime yet) against its seal; a changed one becomes `failed` ("files changed
/// since add: PATH"). Whether any was refused.
fn refuse_changed(
    league: &League,
    bots: &[Bot],
    jobs: &[super::play::Job],
    runtimes: &Runtimes,
) -> Result<bool> {
    let mut starting: Vec<BotId> = jobs
        .iter()
        .filter(|j| !runtimes.has((j.a, j.b)))
        .flat_map(|j| [j.a, j.b])
        .collect();
    starting.sort_unstable();
    starting.dedup();
    let mut refused = false;
    for bot in bots.iter().filter(|b| starting.contains(&b.id)) {
        let Some(seal) = &bot.seal else { continue };
        let folder = league.dir.join(super::BOTS).join(bot.id.to_string());
        let why = match super::seal::changed(&folder, seal) {
            Ok(None) => continue,
            Ok(Some(path)) => format!("files changed since add: {path}"),
            Err(e) => format!("files changed since add: {e:#}"),
        };
        eprintln!("bot {:?} is failed: {why}", bot.name);
        league.store.set_failed(bot.id, &why)?;
        refused = true;
    }
    Ok(refused)
}

/// How often `run` prints its progress line, between batches and within a long one.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// The progress line: the games this run has played (those of the batch in flight
/// included) and its rate.
fn progress(games: u64, began: Instant) {
    let secs = began.elapsed().as_secs_f64();
    let rate = games as f64 / secs.max(1e-9);
    // A slow bot's rate would read "0 games/s" without its tenths.
    let digits = usize::from(rate < 10.0);
    eprintln!("{games} games in {secs:.1} s ({rate:.digits$} games/s)");
}

/// Waits for a batch, calling `tick` at every poll (the progress line); `None` when a
/// stop came and its games in flight did not finish within [`ABANDON_AFTER`] (the
/// batch is given up: its threads end with the process).
fn wait(
    batch: std::sync::mpsc::Receiver<Result<Vec<Timed>>>,
    mut tick: impl FnMut(),
) -> Result<Option<Vec<Timed>>> {
    use std::sync::mpsc::RecvTimeoutError;
    let mut stop_seen: Option<Instant> = None;
    loop {
        match batch.recv_timeout(Duration::from_millis(50)) {
            Ok(played) => return played.map(Some),
            Err(RecvTimeoutError::Timeout) => {
                tick();
                if arena_run::engine::stop::requested()
                    && stop_seen.get_or_insert_with(Instant::now).elapsed() > ABANDON_AFTER
                {
                    return Ok(None);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                anyhow::bail!("a game thread panicked")
            }
        }
    }
}

/// Gives up the pairs of the batch in flight that are no longer wanted ([`unwanted`]):
/// their processes stop, and no more of their game pairs start.
fn give_up(
    league: &League,
    in_batch: &HashSet<(BotId, BotId)>,
    dropped: &Dropped,
    runtimes: &mut Runtimes,
    quiet: bool,
) {
    let (Ok(bots), Ok(tests)) = (league.store.bots(), league.store.tests()) else {
        return; // a busy database: the next check sees it
    };
    for (key, why) in unwanted(&bots, &tests, in_batch) {
        if dropped.insert(key) {
            runtimes.stop_pair(key);
            if !quiet {
                eprintln!(
                    "gave up the games in flight of bots {} and {}: {why} (they are played again identically if the pair plays again)",
                    key.0, key.1
                );
            }
        }
    }
}

/// The pairs of `in_batch` no longer wanted, and why: a bot archived or failed, or a
/// rejected candidate whose pair no running test needs.
fn unwanted(
    bots: &[Bot],
    tests: &[Test],
    in_batch: &HashSet<(BotId, BotId)>,
) -> Vec<((BotId, BotId), String)> {
    let needed: HashSet<(BotId, BotId)> = super::matchmaker::test_pairs(bots, tests)
        .into_iter()
        .collect();
    let why = |id: BotId| -> Option<String> {
        let Some(b) = bots.iter().find(|b| b.id == id) else {
            return Some("a bot left the league".into());
        };
        if b.archived {
            Some(format!("{:?} was archived", b.name))
        } else if b.state() == State::Failed {
            Some(format!("{:?} failed", b.name))
        } else if b.state() == State::Rejected {
            Some(format!("{:?} was rejected", b.name))
        } else {
            None
        }
    };
    let mut out: Vec<((BotId, BotId), String)> = in_batch
        .iter()
        .filter_map(|&(a, b)| {
            let reason = why(a).or_else(|| why(b))?;
            let still_needed = reason.ends_with("was rejected") && needed.contains(&(a, b));
            (!still_needed).then_some(((a, b), reason))
        })
        .collect();
    out.sort();
    out
}

/// Each pair's seconds per game pair, from the batch just played (half the last
/// figure, half the new: one slow game does not swing it).
fn measure(cost: &mut HashMap<(BotId, BotId), f64>, played: &[Timed]) {
    let mut batch: HashMap<(BotId, BotId), (f64, u32)> = HashMap::new();
    for (p, secs) in played {
        let e = batch.entry((p.a, p.b)).or_default();
        e.0 += secs;
        e.1 += 1;
    }
    for (k, (secs, n)) in batch {
        let now = secs / f64::from(n);
        cost.entry(k)
            .and_modify(|c| *c = 0.5 * *c + 0.5 * now)
            .or_insert(now);
    }
}

/// The tests that reached a bound on `pairs` (the loop's exact counts), as the writer
/// will find them once it has committed the same games.
fn decide(
    bots: &[Bot],
    tests: &[Test],
    pairs: &[PairStats],
    sprt: &arena_run::plan::SprtConfig,
) -> Vec<(TestId, TestState)> {
    judge(bots, tests, pairs, sprt)
        .into_iter()
        .filter(|(_, u)| u.state != TestState::Running)
        .map(|(id, u)| (id, u.state))
        .collect()
}

/// The bots spare play would pair: benchmarks and accepted candidates in play.
fn playable(bots: &[Bot]) -> usize {
    bots.iter().filter(|b| b.spares()).count()
}

/// Why nothing is played now.
fn idle_reason(bots: &[Bot], spare: Spare) -> String {
    if playable(bots) < 2 {
        return "waiting: fewer than two bots can play".into();
    }
    match spare {
        Spare::Off => {
            "idle: no candidate running and spare play is off (--spare off); waiting for a bot"
                .into()
        }
        Spare::Bounded { width, games } => format!(
            "idle: no candidate running and every pair's interval is narrower than {width} points per 100 (or has {games} games); waiting for a bot"
        ),
        Spare::Always => "waiting: nothing to play".into(),
    }
}

/// Adds a batch's counts to the run's own copy of the pairs' counts.
fn count(pairs: &mut HashMap<(BotId, BotId), PairStats>, played: &[PlayedPair]) -> Result<()> {
    for (key, more) in pair_totals(played)? {
        pairs
            .entry(key)
            .or_insert_with(|| PairStats {
                a: key.0,
                b: key.1,
                ..PairStats::default()
            })
            .add(&more);
    }
    Ok(())
}

/// The players of the pairs `jobs` names, built once and kept in `players`.
fn players_for(
    players: &mut Players,
    league: &League,
    bots: &[super::store::Bot],
    jobs: &[super::play::Job],
) -> Result<HashMap<(BotId, BotId), Arc<PairPlayer>>> {
    let by_id: HashMap<BotId, &super::store::Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let mut batch: HashMap<(BotId, BotId), Arc<PairPlayer>> = HashMap::new();
    for job in jobs {
        if let std::collections::hash_map::Entry::Vacant(slot) = batch.entry((job.a, job.b)) {
            slot.insert(players.get(&league.config, by_id[&job.a], by_id[&job.b])?);
        }
    }
    Ok(batch)
}

/// The one writer of games: commits each batch it receives, then updates the tests.
type Writer = (
    std::sync::mpsc::SyncSender<Vec<PlayedPair>>,
    std::thread::JoinHandle<Result<()>>,
);

fn spawn_writer(league: &League, quiet: bool) -> Result<Writer> {
    let (to_writer, batches) = std::sync::mpsc::sync_channel::<Vec<PlayedPair>>(1);
    let db = league.dir.join(super::DATABASE);
    let (sprt, cells) = (league.config.sprt, league.config.game_cells());
    let writer = std::thread::Builder::new()
        .name("league-writer".into())
        .spawn(move || -> Result<()> {
            let mut store = Store::open(&db, cells)?;
            // Verdicts due from games committed before a restart.
            report_verdicts(&evaluate(&store, &sprt)?, quiet);
            let mut cadence = history::Cadence::default();
            for played in batches {
                store.commit(&played)?;
                report_verdicts(&evaluate(&store, &sprt)?, quiet);
                snapshot(&store, &mut cadence, false);
            }
            snapshot(&store, &mut cadence, true);
            Ok(())
        })?;
    Ok((to_writer, writer))
}

/// The chart's snapshot, if due (`history::after_commit`), written after the commit in
/// a transaction of its own: the fit stays out of the batch's write lock, and a
/// snapshot that cannot be written costs a point of the chart, never the run.
fn snapshot(store: &Store, cadence: &mut history::Cadence, end: bool) {
    if let Err(e) = history::after_commit(store, cadence, end) {
        eprintln!("the rating chart's snapshot was not written: {e:#}");
    }
}

fn report_verdicts(decided: &[Decided], quiet: bool) {
    if quiet {
        return;
    }
    for d in decided {
        let llr = d.llr.map_or(String::new(), |l| format!("LLR {l:+.2}, "));
        let why = if d.why.is_empty() {
            String::new()
        } else {
            format!(": {}", d.why)
        };
        eprintln!(
            "test of {:?} against {}: {}{why} ({llr}{} pairs); its test stops",
            d.bot, d.base, d.state, d.pairs
        );
    }
}
