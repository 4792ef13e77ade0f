//! External agents: programs that speak the line protocol (`docs/protocol.md`) on
//! stdin/stdout. One process per agent per test case, as on TopCoder: it gets `init`
//! once, then `reset` and `play` calls for each of the case's games it plays. A process
//! that fails forfeits the game it was in and is replaced (with a fresh `init`) for the
//! next game; after `start_failures` failed starts in a row in a case (`starts`), the rest
//! of that agent's case is forfeited without starting it. Tokio is used here only, for
//! the child processes and their timeouts.

mod log;
mod process;
mod solver;
mod starts;

use std::collections::HashMap;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arena_core::protocol::ReplyError;
use arena_core::{Agent, AgentError, Game};

use self::log::StderrLog;
use self::process::{Process, Sandboxed, SpawnError};
use self::starts::Starts;
use crate::sandbox::Policy;
use crate::setup::{Limits, SandboxMode};

pub use self::process::{absolutize, label, rewrite_paths};
pub use self::starts::{GameOrder, Start};

/// The sandbox `limits` build around a bot that may read `read`: the adapter turns the
/// plan's `[limits]` into the sandbox's terms (the sandbox knows no plan).
pub fn policy(limits: &Limits, read: Vec<PathBuf>) -> Policy {
    Policy {
        memory_mb: limits.memory_mb,
        cpu_s: limits.cpu_s,
        processes: limits.processes,
        disk_mb: limits.disk_mb,
        network: limits.network,
        without: limits.sandbox_without.clone(),
        read,
    }
}

/// What the runtime needs to know about one exec agent of a plan.
#[derive(Clone, Debug)]
pub struct ExecAgent {
    pub name: String,
    /// The command line, with relative file paths made absolute.
    pub command: String,
}

type Key = (usize, String);

/// Shared by every game of a run: the tokio runtime, idle processes per (agent, case),
/// the per-case time budgets, and the stderr logs.
pub struct ExternalRuntime {
    runtime: tokio::runtime::Runtime,
    agents: Vec<Option<ExecAgent>>,
    run_dir: PathBuf,
    pub limits: Limits,
    idle: Mutex<HashMap<Key, Vec<Process>>>,
    budgets: Mutex<HashMap<Key, Duration>>,
    remaining_games: Mutex<HashMap<Key, usize>>,
    /// Games have no known end (a league): idle processes wait for the next game until
    /// [`ExternalRuntime::shutdown`], whatever `remaining_games` says, and each game
    /// has the case's time budget to itself (a budget over an endless case would run
    /// out for good, and one per batch would depend on how the league sized it).
    endless: bool,
    logs: Vec<Option<Arc<StderrLog>>>,
    /// Per agent: the arena binary and the sandbox it builds around the bot (`None`:
    /// `sandbox = "off"`).
    sandboxes: Vec<Option<Sandboxed>>,
    /// What the probe observed the sandbox enforce here (`None`: `sandbox = "off"`).
    enforcement: Option<crate::sandbox::Enforcement>,
    /// Processes started so far: each one's number in the stderr logs.
    started: AtomicU64,
    /// Start-up failures in a row per (agent, case), in game order (`None`: games have
    /// no known order, a league, and nothing is given up).
    starts: Option<Starts>,
    /// Games (by their number in the run) in which the arena could not build a bot's
    /// sandbox: the arena's fault, not the bot's, so the game is not recorded.
    faults: Mutex<HashMap<u64, String>>,
    /// The games in flight are given up ([`ExternalRuntime::give_up`]): every call
    /// fails at once, so they end within a call; the caller records none of them.
    given_up: std::sync::atomic::AtomicBool,
}

impl ExternalRuntime {
    /// `agents[i]` is `Some` for the plan's exec agents; `games[(i, case)]` counts the
    /// games agent `i` plays in `case`, so idle processes are stopped once it is done.
    pub fn new(
        agents: Vec<Option<ExecAgent>>,
        run_dir: &Path,
        limits: Limits,
        games: HashMap<(usize, String), usize>,
    ) -> std::io::Result<ExternalRuntime> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let logs = agents
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.as_ref().map(|a| {
                    let label = process::label(i, &a.name);
                    Arc::new(StderrLog::create(
                        &run_dir.join(format!("stderr-{label}.log")),
                        limits.stderr_bytes,
                    ))
                })
            })
            .collect();
        let on = limits.sandbox == SandboxMode::On;
        let enforcement = on.then(|| crate::sandbox::probe(&policy(&limits, Vec::new())));
        let exe = crate::sandbox::launcher().filter(|_| on);
        // Checked before the first bot starts: a link out of its folder, or a file the
        // bot's user cannot read, is the operator's to fix, not a bot's startup failure.
        let sandboxes = agents
            .iter()
            .map(|a| {
                let (Some(a), Some(exe)) = (a.as_ref(), exe) else {
                    return Ok(None);
                };
                let mut read = crate::sandbox::grants(&a.command).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("agent {:?}: {e}", a.name),
                    )
                })?;
                read.extend(limits.read_paths.iter().cloned());
                Ok(Some(Sandboxed {
                    exe: exe.to_owned(),
                    policy: policy(&limits, read),
                }))
            })
            .collect::<std::io::Result<_>>()?;
        Ok(ExternalRuntime {
            sandboxes,
            enforcement,
            runtime,
            agents,
            // Absolute: a bot runs in its own directory, where a relative path (the
            // default `results/...`) would point nowhere (its HOME, TMPDIR, the one
            // directory Landlock lets it write).
            run_dir: std::path::absolute(run_dir)?,
            limits,
            idle: Mutex::new(HashMap::new()),
            budgets: Mutex::new(HashMap::new()),
            remaining_games: Mutex::new(games),
            endless: false,
            given_up: std::sync::atomic::AtomicBool::new(false),
            logs,
            started: AtomicU64::new(0),
            starts: None,
            faults: Mutex::new(HashMap::new()),
        })
    }

    /// Gives up an agent's case after `limits.start_failures` start-up failures in a row
    /// (in the game order `order` tells): the rest of its games in that case are
    /// forfeited without starting it again. `earlier`: how the starts of games before
    /// game `first` went (a resumed run's games on disk), so that a streak goes on
    /// across `--resume` as if the run had not stopped.
    pub fn with_order(
        mut self,
        order: Box<dyn GameOrder>,
        earlier: Vec<(Key, u64, Start)>,
        first: u64,
    ) -> ExternalRuntime {
        let starts = Starts::new(order, self.limits.start_failures);
        for (key, index, start) in earlier {
            starts.record(&key, index, start);
        }
        starts.settle(first);
        self.starts = Some(starts);
        self
    }

    /// Every game below `index` is over (the engine, in game order).
    pub fn settle(&self, index: u64) {
        if let Some(s) = &self.starts {
            s.settle(index);
        }
    }

    /// The engine will not play game `index` (the run stopped before it).
    pub fn abandon(&self, index: u64) {
        if let Some(s) = &self.starts {
            s.abandon(index);
        }
    }

    /// A runtime for games without a known total (a league, which plays until stopped):
    /// a healthy process is kept for the next game of its case until `shutdown`, and
    /// `case_budget_ms` is each game's thinking time, not shared with the case's other
    /// games.
    pub fn endless(
        agents: Vec<Option<ExecAgent>>,
        run_dir: &Path,
        limits: Limits,
    ) -> std::io::Result<ExternalRuntime> {
        let mut rt = ExternalRuntime::new(agents, run_dir, limits, HashMap::new())?;
        rt.endless = true;
        Ok(rt)
    }

    /// What the sandbox of external agents enforces here (`None`: they run unconfined).
    pub fn enforcement(&self) -> Option<&crate::sandbox::Enforcement> {
        self.enforcement.as_ref()
    }

    /// An agent handle for game `game` (its number in the run) of `case`.
    pub fn agent<G: Wire>(
        self: &Arc<Self>,
        agent: usize,
        case: String,
        game: u64,
    ) -> ExternalAgent<G> {
        ExternalAgent {
            runtime: Arc::clone(self),
            key: (agent, case),
            index: game,
            spent: Duration::ZERO,
            process: None,
            healthy: true,
            start: None,
            game: PhantomData,
        }
    }

    /// An idle process of `key`; one started on this thread's core if there is one
    /// (`crate::affinity`), so calls and replies stay on one core.
    fn take_idle(&self, key: &Key) -> Option<Process> {
        let mut idle = self.idle.lock().expect("not poisoned");
        let waiting = idle.get_mut(key)?;
        let here = crate::affinity::current();
        match waiting.iter().rposition(|p| p.core == here) {
            Some(i) => Some(waiting.swap_remove(i)),
            None => waiting.pop(),
        }
    }

    /// The arena's own failure in game `game`, if it had one: an error that stops the
    /// run (exit 3, `HarnessFailure`) before the game is recorded, so a resumed run plays
    /// it again. The game's forfeit, which the bot did not cause, goes nowhere.
    pub fn harness_fault(&self, game: u64) -> anyhow::Result<()> {
        match self.faults.lock().expect("not poisoned").remove(&game) {
            None => Ok(()),
            Some(why) => Err(anyhow::anyhow!("{why}").context(crate::runfile::HarnessFailure)),
        }
    }

    /// A start's failure as the game sees it; the arena's own is kept for
    /// [`ExternalRuntime::harness_fault`].
    fn started(
        &self,
        game: u64,
        spawned: Result<Process, SpawnError>,
    ) -> Result<Process, AgentError> {
        spawned.map_err(|e| match e {
            SpawnError::Bot(e) => e,
            SpawnError::Arena(why) => {
                self.faults
                    .lock()
                    .expect("not poisoned")
                    .insert(game, why.clone());
                AgentError::Startup(format!("the arena's fault: {why}"))
            }
        })
    }

    fn spawn(&self, key: &Key, game: u64) -> Result<Process, AgentError> {
        let agent = self.agents[key.0].as_ref().expect("exec agent");
        let log = Arc::clone(self.logs[key.0].as_ref().expect("exec agent"));
        let dir = process::workdir(&self.run_dir, &process::label(key.0, &agent.name));
        let number = self.started.fetch_add(1, Ordering::Relaxed) + 1;
        let spawned = Process::spawn(
            self.runtime.handle(),
            &agent.command,
            &dir,
            &self.limits,
            log,
            process::Launch {
                tag: format!("case {} process {number}", key.1),
                sandbox: self.sandboxes[key.0].as_ref(),
                run_dir: &self.run_dir,
                env: &[],
            },
        );
        self.started(game, spawned)
    }

    fn remaining_budget(&self, key: &Key) -> Duration {
        let full = Duration::from_millis(self.limits.case_budget_ms);
        let used = self
            .budgets
            .lock()
            .expect("not poisoned")
            .get(key)
            .copied()
            .unwrap_or_default();
        full.saturating_sub(used)
    }

    /// Marks the case's budget as used up: every later call of this agent in this case
    /// times out at once (TopCoder's rule), so results do not hang on the few
    /// milliseconds a timed-out call leaves.
    fn exhaust(&self, key: &Key) {
        self.budgets.lock().expect("not poisoned").insert(
            key.clone(),
            Duration::from_millis(self.limits.case_budget_ms),
        );
    }

    fn spend(&self, key: &Key, took: Duration) {
        *self
            .budgets
            .lock()
            .expect("not poisoned")
            .entry(key.clone())
            .or_default() += took;
    }

    /// A game of `key` ended: keep its healthy process for the next one, unless the
    /// agent has no games left in the case.
    fn release(&self, key: &Key, process: Option<Process>) {
        let left = if self.endless {
            usize::MAX
        } else {
            let mut games = self.remaining_games.lock().expect("not poisoned");
            let left = games.entry(key.clone()).or_insert(1);
            *left = left.saturating_sub(1);
            *left
        };
        match process {
            Some(p) if left > 0 => self
                .idle
                .lock()
                .expect("not poisoned")
                .entry(key.clone())
                .or_default()
                .push(p),
            Some(p) => self.stop(vec![p]),
            None => {}
        }
        if left == 0 {
            let idle = self.idle.lock().expect("not poisoned").remove(key);
            self.stop(idle.unwrap_or_default());
        }
    }

    fn stop(&self, processes: Vec<Process>) {
        Process::stop_all(processes, Duration::from_millis(self.limits.grace_ms));
    }

    /// Stops every process still alive (the end of a run).
    /// Gives up the games in flight (a league bot rejected, archived or failed while
    /// its batch plays): each ends at its next call, lost, and the caller records none
    /// of them; the idle processes stop.
    pub fn give_up(&self) {
        self.given_up
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.shutdown();
    }

    pub fn shutdown(&self) {
        let idle: Vec<Process> = self
            .idle
            .lock()
            .expect("not poisoned")
            .drain()
            .flat_map(|(_, v)| v)
            .collect();
        self.stop(idle);
    }
}

impl Drop for ExternalRuntime {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// How a game's calls are written on the wire.
pub trait Wire: Game + 'static {
    fn init_call(case: &Self::Case) -> String;
    fn reset_call(view: &Self::View<'_>) -> String;
    fn play_call(view: &Self::View<'_>) -> String;
    /// The move a reply line names, or why it names none (`docs/protocol.md`).
    fn parse_move(line: &str) -> Result<Self::Move, arena_core::protocol::ReplyError>;
}

/// One game's handle on an external agent's process.
pub struct ExternalAgent<G: Wire> {
    runtime: Arc<ExternalRuntime>,
    key: Key,
    /// The game's number in the run, for the stderr log.
    index: u64,
    /// Thinking time this game used, where each game has its own budget (`endless`).
    spent: Duration,
    process: Option<Process>,
    healthy: bool,
    /// How its start went, once known (for the count of start-up failures in a row).
    start: Option<Start>,
    game: PhantomData<fn() -> G>,
}

impl<G: Wire> ExternalAgent<G> {
    fn started(&mut self, start: Start) {
        self.start = Some(start);
        if let Some(s) = &self.runtime.starts {
            s.record(&self.key, self.index, start);
        }
    }

    /// Why a game of a given-up case is lost: the same words whatever the timing, and
    /// short (a reason is cut at `REASON_MAX`; the agent is named in the row).
    fn given_up(&self) -> String {
        let limit = self.runtime.starts.as_ref().map_or(0, Starts::limit);
        format!(
            "gave up in case {} after {limit} start-up failures in a row (start_failures): \
             the rest of the case is forfeited, the next case tries again",
            self.key.1
        )
    }

    fn fail(&mut self, e: AgentError) -> AgentError {
        self.healthy = false;
        if let Some(p) = self.process.take() {
            p.kill();
        }
        e
    }

    /// The thinking time left to this game: the case's (a run's), or its own (a league).
    fn remaining_budget(&self) -> Duration {
        if self.runtime.endless {
            Duration::from_millis(self.runtime.limits.case_budget_ms).saturating_sub(self.spent)
        } else {
            self.runtime.remaining_budget(&self.key)
        }
    }

    fn spend(&mut self, took: Duration) {
        if self.runtime.endless {
            self.spent += took;
        } else {
            self.runtime.spend(&self.key, took);
        }
    }

    fn exhaust(&mut self) {
        if self.runtime.endless {
            self.spent = Duration::from_millis(self.runtime.limits.case_budget_ms);
        } else {
            self.runtime.exhaust(&self.key);
        }
    }

    /// One call and its reply line, charged to the budget.
    fn call(&mut self, text: &str, cap: Duration) -> Result<String, AgentError> {
        if self
            .runtime
            .given_up
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return Err(self.fail(AgentError::Crash(GIVEN_UP.into())));
        }
        let runtime = Arc::clone(&self.runtime);
        let limits = &runtime.limits;
        let remaining = self.remaining_budget();
        if remaining.is_zero() {
            return Err(self.fail(AgentError::Timeout(SPENT.into())));
        }
        let cap = cap.min(remaining);
        let process = self.process.as_mut().expect("started");
        match process.call(text, cap, limits) {
            Ok((line, took)) => {
                self.spend(took);
                Ok(line)
            }
            Err(e) => {
                // A timeout used the whole cap; any other failure (a crash, a bad reply)
                // is charged the time until it was seen, so a crash never eats the
                // case's budget.
                let used = match e {
                    AgentError::Timeout(_) => cap,
                    _ => process.failed_after.min(cap),
                };
                self.spend(used);
                // No measured durations in the reason: it goes into games.csv, which
                // must not depend on the machine's timing.
                let e = match e {
                    AgentError::Timeout(why) if cap == remaining => {
                        self.exhaust();
                        AgentError::Timeout(format!("{why}: {SPENT}"))
                    }
                    AgentError::Timeout(why) => AgentError::Timeout(format!(
                        "{why} within the per-call cap of {} ms",
                        cap.as_millis()
                    )),
                    e => e,
                };
                Err(self.fail(e))
            }
        }
    }
}

/// Why a call of a runtime given up fails (a reason no recorded game holds).
const GIVEN_UP: &str = "the arena gave up this game";

/// Why a call of an agent whose case budget is used up fails.
const SPENT: &str = "the case's time budget is spent";

impl<G: Wire> Agent<G> for ExternalAgent<G> {
    fn init(&mut self, case: &G::Case) -> Result<(), AgentError> {
        if self
            .runtime
            .given_up
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            self.healthy = false;
            return Err(AgentError::Crash(GIVEN_UP.into()));
        }
        // A spent budget loses the rest of the case without starting anything.
        if self.remaining_budget().is_zero() {
            self.healthy = false;
            self.started(Start::Neutral);
            return Err(AgentError::Timeout(SPENT.into()));
        }
        if let Some(p) = self.runtime.take_idle(&self.key) {
            p.set_game(self.index);
            self.process = Some(p);
            self.started(Start::Started);
            return Ok(());
        }
        let command = self.runtime.agents[self.key.0]
            .as_ref()
            .map_or("", |a| a.command.as_str())
            .to_owned();
        let runtime = Arc::clone(&self.runtime);
        let starts = runtime.starts.as_ref();
        if starts.is_some_and(|s| s.gives_up_now(&self.key, self.index)) {
            self.started(Start::Failed);
            let why = self.given_up();
            return Err(self.fail(AgentError::Startup(why)));
        }
        let started = self.start_process(case, &command);
        self.started(match &started {
            Ok(()) => Start::Started,
            Err(AgentError::Startup(_)) => Start::Failed,
            Err(_) => Start::Neutral,
        });
        match started {
            // Counted by game index: its row says the same at any concurrency.
            Err(AgentError::Startup(_))
                if starts.is_some_and(|s| s.gives_up(&self.key, self.index)) =>
            {
                Err(AgentError::Startup(self.given_up()))
            }
            other => other,
        }
    }

    fn reset(&mut self, start: &G::View<'_>) -> Result<(), AgentError> {
        let cap = Duration::from_millis(self.runtime.limits.call_ms);
        self.call(&G::reset_call(start), cap).map(|_| ())
    }

    fn play(&mut self, view: &G::View<'_>) -> Result<G::Move, AgentError> {
        let cap = Duration::from_millis(self.runtime.limits.call_ms);
        let line = self.call(&G::play_call(view), cap)?;
        match G::parse_move(&line) {
            Ok(mv) => Ok(mv),
            // The bot answered in step: its process may serve the next game.
            Err(ReplyError::OutOfRange(why)) => Err(AgentError::Illegal(why)),
            // Out of step, or not speaking the protocol: start afresh next game.
            Err(ReplyError::Malformed(e)) => Err(self.fail(AgentError::Malformed(e.to_string()))),
        }
    }
}

impl<G: Wire> ExternalAgent<G> {
    /// Starts a process of the agent and waits for its answer to `init`.
    fn start_process(&mut self, case: &G::Case, command: &str) -> Result<(), AgentError> {
        let p = self
            .runtime
            .spawn(&self.key, self.index)
            .map_err(|e| self.fail(e))?;
        self.process = Some(p);
        let startup = Duration::from_millis(self.runtime.limits.startup_ms);
        let process = self.process.as_mut().expect("just set");
        let runtime = Arc::clone(&self.runtime);
        let limits = &runtime.limits;
        // Start-up time is not charged to the thinking budget.
        match process.call(&G::init_call(case), startup, limits) {
            Ok(_) => {
                process.set_game(self.index);
                Ok(())
            }
            // A limit hit while starting (a fork bomb in its set-up) loses the game as
            // such, not as a bot that cannot start (which would stop the run).
            Err(e @ AgentError::Limit(_)) => Err(self.fail(e)),
            Err(e) => {
                let e = AgentError::Startup(match e {
                    AgentError::Timeout(w)
                    | AgentError::Crash(w)
                    | AgentError::Malformed(w)
                    | AgentError::Illegal(w)
                    | AgentError::Memory(w)
                    | AgentError::Limit(w)
                    | AgentError::Startup(w) => format!("no answer to init from `{command}`: {w}"),
                });
                Err(self.fail(e))
            }
        }
    }
}

impl<G: Wire> Drop for ExternalAgent<G> {
    fn drop(&mut self) {
        // Never asked to start (the other agent failed first): it breaks no streak.
        if self.start.is_none() {
            self.started(Start::Neutral);
        }
        let process = if self.healthy {
            self.process.take()
        } else {
            None
        };
        self.runtime.release(&self.key, process);
    }
}
