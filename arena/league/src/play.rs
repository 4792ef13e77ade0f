//! Plays a batch of game pairs on the task's own engine: each pair of bots is the
//! two-agent match of [`LeagueConfig::pair_plan`], and game pair `g` of it is games
//! `2g` and `2g + 1` of that match (`Prepared::play`), so a league game and the same
//! game of `arena match --seed S` are one and the same.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::config::{ENDLESS_GAMES_PER_CASE, LeagueConfig};
use super::store::{Bot, BotId, PlayedPair, game_key};
use arena_run::external::{ExecAgent, ExternalRuntime};
use arena_run::plan::Plan;
use arena_run::record::{JobKey, Outcome};
use arena_run::task::Prepared;

/// One game pair to play: global pair `g` of bots `a < b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Job {
    pub a: BotId,
    pub b: BotId,
    pub g: u64,
}

/// A pair of bots, ready to play: its match's plan, prepared.
pub struct PairPlayer {
    pub plan: Plan,
    prepared: Arc<dyn Prepared>,
    exec: bool,
}

impl PairPlayer {
    pub fn new(config: &LeagueConfig, a: &Bot, b: &Bot) -> Result<PairPlayer> {
        let plan = config.pair_plan(
            [a.name.as_str(), b.name.as_str()],
            [a.spec.as_str(), b.spec.as_str()],
            ENDLESS_GAMES_PER_CASE,
        )?;
        let prepared = plan.prepared.clone();
        let exec = plan
            .agents
            .iter()
            .any(|a| matches!(a.spec, agents::Spec::Exec { .. }));
        Ok(PairPlayer {
            plan,
            prepared,
            exec,
        })
    }

    /// The job of game `seat` (0 or 1) of global pair `g`.
    pub fn key(&self, g: u64, seat: u8) -> JobKey {
        game_key(g, seat, self.plan.cases.len() as u64)
    }

    /// Plays global pair `g`, counting each game in `finished` as it ends (the run's
    /// progress line within a batch).
    pub fn play(
        &self,
        job: Job,
        external: Option<&Arc<ExternalRuntime>>,
        finished: &Finished,
    ) -> Result<PlayedPair> {
        let mut games = Vec::with_capacity(2);
        for seat in 0..2u8 {
            let record = self
                .prepared
                .play(&self.key(job.g, seat), external, false)?;
            finished.add();
            if !matches!(record.outcome, Outcome::Duel(_)) {
                bail!("a league plays two-seat games");
            }
            games.push(record);
        }
        let key = self.key(job.g, 0);
        let second = games.pop().context("two games")?;
        let first = games.pop().context("two games")?;
        Ok(PlayedPair {
            a: job.a,
            b: job.b,
            g: job.g,
            case: key.case,
            deal: key.pair,
            cases: self.plan.cases.len() as u16,
            games: [first, second],
        })
    }

    /// The first game (global pair 0, seat 0: the league's first case) alone, as
    /// [`PairPlayer::play`] would play it: `add`'s probe of a new bot.
    pub fn first_game(
        &self,
        external: Option<&Arc<ExternalRuntime>>,
    ) -> Result<arena_run::record::Record> {
        self.prepared.play(&self.key(0, 0), external, false)
    }

    /// Game `seat` of global pair `g` again, drawn move by move (the page's viewer);
    /// `None` for a pair with an external bot (a stranger's bot need not play the same
    /// game twice, and the page starts no process).
    pub fn replay(&self, g: u64, seat: u8) -> Result<Option<String>> {
        if self.exec {
            return Ok(None);
        }
        let (text, _) = self.prepared.replay(&self.key(g, seat), None)?;
        Ok(Some(text))
    }
}

/// Builds the pairs' players once and keeps them (a bot's spec never changes).
#[derive(Default)]
pub struct Players {
    players: HashMap<(BotId, BotId), Arc<PairPlayer>>,
}

impl Players {
    pub fn get(&mut self, config: &LeagueConfig, a: &Bot, b: &Bot) -> Result<Arc<PairPlayer>> {
        if let Some(p) = self.players.get(&(a.id, b.id)) {
            return Ok(Arc::clone(p));
        }
        let p = Arc::new(
            PairPlayer::new(config, a, b)
                .with_context(|| format!("bots {:?} and {:?}", a.name, b.name))?,
        );
        self.players.insert((a.id, b.id), Arc::clone(&p));
        Ok(p)
    }
}

/// External bots' runtimes, one per pair of bots, kept from batch to batch as
/// [`Players`] keeps the players: a bot's processes (and the sandbox's probe) start
/// once per run, not once per batch, and stop when the pair can play no more or the
/// run ends.
#[derive(Default)]
pub struct Runtimes {
    runtimes: HashMap<(BotId, BotId), Arc<ExternalRuntime>>,
}

impl Runtimes {
    /// Starts the runtime of every pair of `jobs` with an external bot that has none.
    /// A runtime that cannot start (the sandbox's probe failed, say) is an error naming
    /// the bots. (Budgets are per game: nothing is granted per batch.)
    pub fn start(
        &mut self,
        players: &HashMap<(BotId, BotId), Arc<PairPlayer>>,
        jobs: &[Job],
        logs: &std::path::Path,
    ) -> Result<()> {
        for job in jobs {
            let key = (job.a, job.b);
            let player = &players[&key];
            if !player.exec || self.runtimes.contains_key(&key) {
                continue;
            }
            let names = &player.plan.agents;
            let rt = start_runtime(player, &logs.join(format!("{}-{}", job.a, job.b)))
                .with_context(|| {
                    format!(
                        "starting the external bots of {:?} against {:?}",
                        names[0].name, names[1].name
                    )
                })?;
            self.runtimes.insert(key, Arc::new(rt));
        }
        Ok(())
    }

    /// Whether the pair of bots `key` has its processes' runtime already.
    pub fn has(&self, key: (BotId, BotId)) -> bool {
        self.runtimes.contains_key(&key)
    }

    /// Stops the runtimes of pairs that can no longer play: a bot gone from `bots`,
    /// archived, failed or rejected.
    pub fn keep_playable(&mut self, bots: &[Bot]) {
        let playable = |id: BotId| {
            bots.iter()
                .any(|b| b.id == id && b.plays() && b.state() != super::store::State::Rejected)
        };
        self.runtimes.retain(|&(a, b), rt| {
            let keep = playable(a) && playable(b);
            if !keep {
                rt.shutdown();
            }
            keep
        });
    }

    /// Gives up one pair's games in flight (each ends at its next call; the caller
    /// drops them) and stops its processes.
    pub fn stop_pair(&mut self, key: (BotId, BotId)) {
        if let Some(rt) = self.runtimes.remove(&key) {
            rt.give_up();
        }
    }

    /// Stops every bot's processes (the end of a run).
    pub fn shutdown(&mut self) {
        for (_, rt) in self.runtimes.drain() {
            rt.shutdown();
        }
    }
}

/// A pair's runtime for the whole run, its stderr logs in `dir`.
pub(super) fn start_runtime(player: &PairPlayer, dir: &std::path::Path) -> Result<ExternalRuntime> {
    let agents = player
        .plan
        .agents
        .iter()
        .map(|a| match &a.spec {
            agents::Spec::Exec { command } => Some(ExecAgent {
                name: a.name.clone(),
                command: command.clone(),
            }),
            _ => None,
        })
        .collect();
    std::fs::create_dir_all(dir)?;
    let rt = ExternalRuntime::endless(agents, dir, player.plan.limits.clone())?;
    arena_sandbox::report::announce(
        rt.enforcement(),
        &arena_run::external::policy(&player.plan.limits, Vec::new()),
        player.plan.seed,
        |_| Ok(()),
    )?;
    Ok(rt)
}

/// A batch abandoned for a stop (Ctrl-C): no game of it is recorded; each is played
/// again, identically, by the next `run` (a game depends only on its key).
#[derive(Debug, thiserror::Error)]
#[error("the batch was abandoned for a stop")]
pub struct Abandoned;

/// One game pair played, and the seconds its thread took.
pub type Timed = (PlayedPair, f64);

/// The pairs of bots whose games in flight a batch gives up (a bot archived, failed or
/// rejected while it played). Every game pair asks, so the common answer (none) is one
/// read of a flag no thread writes, not a lock every game thread takes.
#[derive(Default)]
pub struct Dropped {
    any: AtomicBool,
    pairs: std::sync::Mutex<std::collections::HashSet<(BotId, BotId)>>,
}

impl Dropped {
    pub fn contains(&self, key: (BotId, BotId)) -> bool {
        self.any.load(Ordering::Acquire) && self.pairs.lock().is_ok_and(|p| p.contains(&key))
    }

    /// Adds a pair; whether it was new.
    pub fn insert(&self, key: (BotId, BotId)) -> bool {
        let Ok(mut pairs) = self.pairs.lock() else {
            return false;
        };
        let new = pairs.insert(key);
        self.any.store(true, Ordering::Release);
        new
    }
}

/// Games ended in the batch in flight, for the progress line: a counter per game
/// thread, each on a cache line of its own (one counter written by every thread at
/// every game would bounce its line between the cores).
pub struct Finished {
    slots: Vec<Slot>,
}

#[repr(align(128))]
#[derive(Default)]
struct Slot(AtomicU64);

impl Finished {
    pub fn new(threads: usize) -> Finished {
        Finished {
            slots: (0..=threads).map(|_| Slot::default()).collect(),
        }
    }

    fn add(&self) {
        let i = rayon::current_thread_index().map_or(0, |i| i + 1);
        self.slots[i.min(self.slots.len() - 1)]
            .0
            .fetch_add(1, Ordering::Relaxed);
    }

    pub fn total(&self) -> u64 {
        self.slots.iter().map(|s| s.0.load(Ordering::Relaxed)).sum()
    }
}

/// Plays `jobs` on `pool`, in any order, on the pool's threads (the caller waits on the
/// receiver, so it can give up on a batch); returns them in the order given. A pair
/// with an external bot plays on its runtime in `runtimes`. Once a stop is asked for,
/// no game pair starts: the batch ends with [`Abandoned`]. Each game that ends adds one
/// to `finished`, so the caller can tell how far a long batch has come. A pair the
/// caller puts in `dropped` meanwhile starts no more game pairs (the caller drops the
/// ones it played).
pub fn spawn_batch(
    pool: &rayon::ThreadPool,
    players: HashMap<(BotId, BotId), Arc<PairPlayer>>,
    runtimes: &Runtimes,
    jobs: Vec<Job>,
    finished: Arc<Finished>,
    dropped: Arc<Dropped>,
) -> std::sync::mpsc::Receiver<Result<Vec<Timed>>> {
    let runtimes = runtimes.runtimes.clone();
    let (done, batch) = std::sync::mpsc::channel();
    pool.spawn(move || {
        let played = jobs
            .par_iter()
            .map(|job| {
                if arena_run::engine::stop::requested() {
                    return Err(Abandoned.into());
                }
                let key = (job.a, job.b);
                if dropped.contains(key) {
                    return Ok(None);
                }
                let began = std::time::Instant::now();
                match players[&key].play(*job, runtimes.get(&key), &finished) {
                    Ok(pair) => Ok(Some((pair, began.elapsed().as_secs_f64()))),
                    // Its processes were stopped under it: the game is given up.
                    Err(_) if dropped.contains(key) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .collect::<Result<Vec<Option<Timed>>>>()
            .map(|played| played.into_iter().flatten().collect());
        let _ = done.send(played);
    });
    batch
}
