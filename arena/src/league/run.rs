//! `arena league run`: the loop. Before every batch it reads the bot table (so bots
//! added, promoted, rejected, archived or renamed meanwhile take effect), asks the
//! matchmaker for the next game pairs, and plays them on the task's engine. A writer
//! thread (the one writer of games) commits each batch in one transaction while the
//! next is played, then updates the candidates' tests. Ctrl-C stops after the batch in
//! progress; a `kill -9` loses only the uncommitted batches, which the next `run` plays
//! again identically (a game depends on nothing but its key).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::League;
use super::matchmaker::next_jobs;
use super::play::{PairPlayer, Players, Runtimes, play_batch};
use super::store::{BotId, PairStats, PlayedPair, Role, State, Store, pair_totals};
use super::verdict::evaluate;

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
    /// (`crate::affinity`).
    pub pin: bool,
}

/// What a run did.
pub struct Ran {
    pub games: u64,
    pub seconds: f64,
}

/// Batches aim at about this long, so verdicts, the page and Ctrl-C stay prompt and
/// the per-batch costs (a transaction, the matchmaker) stay small.
const BATCH_TARGET: Duration = Duration::from_millis(500);
const MAX_BATCH: usize = 8192;

pub fn run(dir: &Path, options: &Options) -> Result<Ran> {
    let league = League::open(dir)?;
    let _lock = crate::rundir::lock::acquire(dir, crate::rundir::Access::Write)
        .context("another `arena league run` holds this league")?;
    crate::engine::stop::install(dir);
    let sprt = league.config.sprt.sprt()?;
    if let Some(addr) = options.serve {
        let url = super::page::serve(addr, dir, options.token.clone(), &options.serve_hosts)?;
        eprintln!("league page: {url}");
    }
    let concurrency = if options.concurrency == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.concurrency
    };
    let cores = options
        .pin
        .then(|| crate::affinity::plan(concurrency))
        .flatten();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(concurrency)
        .start_handler(move |i| {
            if let Some(core) = cores.as_ref().and_then(|c| c.get(i)) {
                // Pinned for the thread's life: it ends with the pool.
                std::mem::forget(crate::affinity::pin(*core));
            }
        })
        .build()
        .context("starting the game threads")?;
    let logs = dir.join(super::LOGS);
    let mut players = Players::default();
    let mut runtimes = Runtimes::default();
    // A batch that cannot be played stops the run, after the writer has committed what
    // was played before it.
    let mut failed = None;
    let mut batch = (4 * concurrency).max(8);
    let began = Instant::now();
    let mut recorded = 0u64;
    let mut last_line = Instant::now();
    let mut waiting_said = false;
    // Only this process writes games, so its own copy of the pairs' counts is exact,
    // including the batch being committed.
    let mut pairs: HashMap<(BotId, BotId), PairStats> = league
        .store
        .pairs()?
        .into_iter()
        .map(|p| ((p.a, p.b), p))
        .collect();
    let (to_writer, writer) = spawn_writer(&dir.join(super::DATABASE), sprt, options.quiet)?;
    loop {
        if crate::engine::stop::requested() {
            break;
        }
        let left = options.games.map(|g| g.saturating_sub(recorded));
        if left == Some(0) {
            break;
        }
        let bots = league.store.bots()?;
        let running = bots
            .iter()
            .any(|b| b.plays() && b.role == Role::Candidate && b.state == State::Running);
        // (Verdicts arrive a batch late, from the writer: a decided candidate may play
        // one more batch, which the test then ignores.)
        if options.until_decided && !running {
            break;
        }
        let want = left
            .map_or(batch, |l| batch.min(l.div_ceil(2) as usize))
            .max(1);
        let known: Vec<PairStats> = pairs.values().cloned().collect();
        let jobs = next_jobs(&bots, &known, want);
        if jobs.is_empty() {
            if options.until_decided {
                eprintln!("nothing to play: a candidate needs a benchmark to play against");
                break;
            }
            if !waiting_said && !options.quiet {
                eprintln!(
                    "waiting: fewer than two bots can play (add some with `arena league add`)"
                );
                waiting_said = true;
            }
            std::thread::sleep(Duration::from_millis(300));
            continue;
        }
        waiting_said = false;
        let start = Instant::now();
        runtimes.keep_playable(&bots);
        let played = players_for(&mut players, &league, &bots, &jobs).and_then(|ready| {
            runtimes.start(&ready, &jobs, &logs)?;
            play_batch(&pool, &ready, &runtimes, &jobs)
        });
        let played = match played.and_then(|p| count(&mut pairs, &p).map(|()| p)) {
            Ok(played) => played,
            Err(e) => {
                failed = Some(e);
                break;
            }
        };
        recorded += 2 * played.len() as u64;
        if to_writer.send(played).is_err() {
            break; // the writer failed: its error is returned below
        }
        let took = start.elapsed();
        if took < BATCH_TARGET / 2 {
            batch = (batch * 2).min(MAX_BATCH);
        } else if took > BATCH_TARGET * 2 {
            batch = (batch / 2).max(concurrency);
        }
        if !options.quiet && last_line.elapsed() > Duration::from_secs(2) {
            last_line = Instant::now();
            let secs = began.elapsed().as_secs_f64();
            eprintln!(
                "{recorded} games in {secs:.1} s ({:.0} games/s)",
                recorded as f64 / secs.max(1e-9),
            );
        }
    }
    drop(to_writer);
    runtimes.shutdown();
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("the league's writer thread panicked"))??;
    if let Some(e) = failed {
        return Err(e);
    }
    let seconds = began.elapsed().as_secs_f64();
    if !options.quiet {
        eprintln!(
            "recorded {recorded} games in {seconds:.1} s; {} in the league",
            league.store.total_games()?
        );
    }
    Ok(Ran {
        games: recorded,
        seconds,
    })
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

fn spawn_writer(db: &Path, sprt: crate::stats::Sprt, quiet: bool) -> Result<Writer> {
    let (to_writer, batches) = std::sync::mpsc::sync_channel::<Vec<PlayedPair>>(1);
    let db = db.to_owned();
    let writer = std::thread::Builder::new()
        .name("league-writer".into())
        .spawn(move || -> Result<()> {
            let mut store = Store::open(&db)?;
            // Verdicts due from games committed before a restart.
            report_verdicts(&evaluate(&store, &sprt)?, quiet);
            for played in batches {
                store.commit(&played)?;
                report_verdicts(&evaluate(&store, &sprt)?, quiet);
            }
            Ok(())
        })?;
    Ok((to_writer, writer))
}

fn report_verdicts(decided: &[(String, State, f64)], quiet: bool) {
    if quiet {
        return;
    }
    for (name, state, llr) in decided {
        eprintln!(
            "candidate {name:?}: {} (LLR {llr:+.2}); its evaluation stops",
            state.as_str()
        );
    }
}
