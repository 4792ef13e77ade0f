//! `arena league run`: the loop. Before every batch it reads the bot table (so bots
//! added, promoted, rejected, archived or renamed meanwhile take effect), asks the
//! matchmaker for the next game pairs, plays them on the task's engine, and commits the
//! batch in one transaction; then it updates the candidates' tests. Ctrl-C stops after
//! the batch in progress; a `kill -9` loses only the uncommitted batch, which the next
//! `run` plays again identically (a game depends on nothing but its key).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::League;
use super::matchmaker::next_jobs;
use super::play::{PairPlayer, Players, play_batch};
use super::store::{BotId, Role, State};
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
    /// No progress lines.
    pub quiet: bool,
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
    let mut league = League::open(dir)?;
    let _lock = crate::rundir::lock::acquire(dir, crate::rundir::Access::Write)
        .context("another `arena league run` holds this league")?;
    crate::engine::stop::install(dir);
    let sprt = league.config.sprt.sprt()?;
    if let Some(addr) = options.serve {
        let url = super::page::serve(addr, dir, options.token.clone())?;
        eprintln!("league page: {url}");
    }
    let concurrency = if options.concurrency == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        options.concurrency
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(concurrency)
        .build()
        .context("starting the game threads")?;
    let logs = dir.join(super::LOGS);
    let mut players = Players::default();
    let mut batch = (4 * concurrency).max(8);
    let began = Instant::now();
    let mut recorded = 0u64;
    let mut last_line = Instant::now();
    let mut waiting_said = false;
    // Verdicts due from games committed before a restart.
    report_verdicts(&evaluate(&league.store, &sprt)?, options.quiet);
    loop {
        if crate::engine::stop::requested() {
            break;
        }
        let left = options.games.map(|g| g.saturating_sub(recorded));
        if left == Some(0) {
            break;
        }
        let bots = league.store.bots()?;
        let pairs = league.store.pairs()?;
        let running = bots
            .iter()
            .any(|b| b.plays() && b.role == Role::Candidate && b.state == State::Running);
        if options.until_decided && !running {
            break;
        }
        let want = left.map_or(batch, |l| batch.min(l.div_ceil(2) as usize)).max(1);
        let jobs = next_jobs(&bots, &pairs, want);
        if jobs.is_empty() {
            if options.until_decided {
                eprintln!("nothing to play: a candidate needs a benchmark to play against");
                break;
            }
            if !waiting_said && !options.quiet {
                eprintln!("waiting: fewer than two bots can play (add some with `arena league add`)");
                waiting_said = true;
            }
            std::thread::sleep(Duration::from_millis(300));
            continue;
        }
        waiting_said = false;
        let by_id: HashMap<BotId, &super::store::Bot> = bots.iter().map(|b| (b.id, b)).collect();
        let mut batch_players: HashMap<(BotId, BotId), Arc<PairPlayer>> = HashMap::new();
        for job in &jobs {
            if !batch_players.contains_key(&(job.a, job.b)) {
                let p = players.get(&league.config, by_id[&job.a], by_id[&job.b])?;
                batch_players.insert((job.a, job.b), p);
            }
        }
        let start = Instant::now();
        let played = play_batch(&pool, &batch_players, &jobs, &logs)?;
        league.store.commit(&played)?;
        recorded += 2 * played.len() as u64;
        let took = start.elapsed();
        if took < BATCH_TARGET / 2 {
            batch = (batch * 2).min(MAX_BATCH);
        } else if took > BATCH_TARGET * 2 {
            batch = (batch / 2).max(concurrency);
        }
        report_verdicts(&evaluate(&league.store, &sprt)?, options.quiet);
        if !options.quiet && last_line.elapsed() > Duration::from_secs(2) {
            last_line = Instant::now();
            let secs = began.elapsed().as_secs_f64();
            eprintln!(
                "{recorded} games in {secs:.1} s ({:.0} games/s); {} in the league",
                recorded as f64 / secs.max(1e-9),
                league.store.total_games()?
            );
        }
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

fn report_verdicts(decided: &[(String, State, f64)], quiet: bool) {
    if quiet {
        return;
    }
    for (name, state, llr) in decided {
        eprintln!("candidate {name:?}: {} (LLR {llr:+.2}); its evaluation stops", state.as_str());
    }
}
