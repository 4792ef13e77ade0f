//! One external agent process: spawned through `sh -c` with a scrubbed environment and
//! its own working directory, inside `arena __sandbox` (`crate::sandbox`, `docs/sandbox.md`)
//! unless the config turned it off; frozen between its calls; replies read with length
//! and time caps; stderr drained into a bounded log so a chatty bot never blocks. Its
//! limit and memory verdicts come from its cgroups and exit signal, never from its
//! words.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arena_core::AgentError;
use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::runtime::Handle;

use super::log::StderrLog;
use crate::sandbox::control::Channel;
use crate::sandbox::{BotCgroup, Confined, NotStarted, Policy};
use crate::setup::Limits;

/// The sandbox a confined bot runs in: the arena binary that builds it, and how.
pub struct Sandboxed {
    pub exe: PathBuf,
    pub policy: Policy,
}

pub struct Process {
    child: Child,
    /// The pipes' ends, non-blocking, taken from tokio: calls are served on the
    /// calling thread ([`Process::call`]).
    stdin: OwnedFd,
    stdout: OwnedFd,
    buffer: Vec<u8>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    /// Ends when stderr reaches EOF: a dead bot's last words are read before it is judged.
    stderr_drained: Option<tokio::task::JoinHandle<()>>,
    /// The game in progress, for the stderr log ([`NO_GAME`] before the first).
    game: Arc<AtomicU64>,
    handle: Handle,
    /// How long the last failed call ran until its failure was seen (before the time
    /// spent finding out why: the exit status, the last stderr): what it is charged.
    pub failed_after: Duration,
    /// Its cgroups (confined bots): frozen between calls, read for verdicts, removed
    /// after the process is reaped.
    cgroup: Option<BotCgroup>,
    /// The core it was started on, pinned there with the game thread that started it
    /// (`crate::affinity`).
    pub core: Option<usize>,
    /// The sandbox's control channel (confined bots): held until the process is reaped,
    /// as the lifeline that tells its outer stage the arena still runs.
    control: Option<Channel>,
}

/// Why a process did not start.
#[derive(Debug)]
pub enum SpawnError {
    /// The bot's own failure, or a refusal (a layer missing here).
    Bot(AgentError),
    /// The arena could not build the bot's sandbox, as its stages reported on their
    /// status pipe (which the bot cannot write), every time it tried.
    Arena(String),
}

impl From<AgentError> for SpawnError {
    fn from(e: AgentError) -> SpawnError {
        SpawnError::Bot(e)
    }
}

/// How many times a sandbox that could not be built is built again, and the pause
/// before each retry: the arena's own failures (a busy kernel) are usually passing.
const SETUP_ATTEMPTS: u32 = 3;
const SETUP_BACKOFF: Duration = Duration::from_millis(100);

/// `ARENA_FAULT=stage-setup:N` (tests only): the first N sandboxes of this process fail
/// their setup, as a stage that cannot build one does (`always`: every one).
fn injected_stage_fault() -> bool {
    static LEFT: std::sync::OnceLock<Option<AtomicU64>> = std::sync::OnceLock::new();
    let left = LEFT.get_or_init(|| {
        let Some(crate::runfile::fault::Fault::StageSetup(n)) = crate::runfile::fault::injected()
        else {
            return None;
        };
        Some(AtomicU64::new(if n == "always" {
            u64::MAX
        } else {
            n.parse().ok()?
        }))
    });
    left.as_ref().is_some_and(|left| {
        left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok()
    })
}

/// Rewrites tokens naming existing files relative to the arena's directory into absolute
/// paths, so `python3 bot.py` still finds its script from the bot's own directory.
///
/// The program word (the first token) is found the way `sh` finds it: on `PATH` unless it
/// holds a `/`, so it is rewritten only when it holds one (`./bot`, `bots/bot`) and names
/// a file. `arena serve ...` run from the repository root keeps `arena` (the `arena/`
/// folder there is not a program), and no token becomes a directory for the shell to run.
///
/// `checked` (a sandboxed bot): each link below the arena's directory on a token's way
/// must stay in the folder it sits in (`crate::sandbox::resolve_below`), since the real
/// path is what the sandbox grants.
// Once per bot's command line, at its start: the error's size costs nothing here (clippy
// weighs it since `GrantError` lives in the sandbox's crate, issue 43).
#[allow(clippy::result_large_err)]
pub fn absolutize(command: &str, checked: bool) -> Result<String, crate::sandbox::GrantError> {
    let here = std::env::current_dir().unwrap_or_default();
    rewrite_paths(command, |token, path| {
        if checked {
            return crate::sandbox::resolve_below(token, &here, path)
                .map(|p| p.display().to_string());
        }
        Ok(std::fs::canonicalize(path)
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| token.to_owned()))
    })
}

/// Rewrites, with `f`, each token of `command` that names an existing file or folder by a
/// relative path (the program word only when it holds a `/` and names a file, as `sh`
/// finds programs); options and other tokens stay as they are.
pub fn rewrite_paths<E>(
    command: &str,
    mut f: impl FnMut(&str, &Path) -> Result<String, E>,
) -> Result<String, E> {
    let mut before_program = true;
    let mut out = Vec::new();
    for token in command.split(' ') {
        let path = Path::new(token);
        let program = before_program && !token.is_empty();
        before_program &= token.is_empty();
        let names_a_path = if program {
            token.contains('/') && path.is_file()
        } else {
            path.exists()
        };
        if !token.is_empty() && !token.starts_with('-') && path.is_relative() && names_a_path {
            out.push(f(token, path)?);
        } else {
            out.push(token.to_owned());
        }
    }
    Ok(out.join(" "))
}

/// How one process is started, beside its command and limits.
pub struct Launch<'a> {
    /// Its stderr lines' prefix (`case C process K`).
    pub tag: String,
    /// The sandbox (`None`: `sandbox = "off"`).
    pub sandbox: Option<&'a Sandboxed>,
    /// The run directory: hidden from the bot.
    pub run_dir: &'a Path,
    /// Extra environment variables (puzzle solvers get `ARENA_PUZZLE`).
    pub env: &'a [(&'a str, String)],
}

impl Process {
    /// Starts `command` (already absolutized) in `workdir`; with `sandbox`, through
    /// `arena __sandbox`, in cgroups of its own. A sandbox the arena could not build is
    /// built again, up to [`SETUP_ATTEMPTS`] times, before the arena gives up.
    pub fn spawn(
        handle: &Handle,
        command: &str,
        workdir: &Path,
        limits: &Limits,
        log: Arc<StderrLog>,
        launch: Launch<'_>,
    ) -> Result<Process, SpawnError> {
        let mut attempt = 1;
        loop {
            match Process::spawn_once(handle, command, workdir, limits, Arc::clone(&log), &launch) {
                Err(SpawnError::Arena(why)) if attempt < SETUP_ATTEMPTS => {
                    log.write(
                        format!(
                            "[{}] arena: the sandbox could not be built ({why}); trying again\n",
                            launch.tag
                        )
                        .as_bytes(),
                    );
                    std::thread::sleep(SETUP_BACKOFF * attempt);
                    attempt += 1;
                }
                Err(SpawnError::Arena(why)) => {
                    return Err(SpawnError::Arena(format!(
                        "the sandbox of `{command}` could not be built ({attempt} tries): {why}"
                    )));
                }
                done => return done,
            }
        }
    }

    fn spawn_once(
        handle: &Handle,
        command: &str,
        workdir: &Path,
        limits: &Limits,
        log: Arc<StderrLog>,
        launch: &Launch<'_>,
    ) -> Result<Process, SpawnError> {
        let Launch {
            tag,
            sandbox,
            run_dir,
            env,
        } = launch;
        std::fs::create_dir_all(workdir)
            .map_err(|e| AgentError::Startup(format!("creating {}: {e}", workdir.display())))?;
        let _guard = handle.enter();
        let tag = tag.clone();
        let (mut child, cgroup, control) = match sandbox {
            None => (start_unconfined(command, workdir, limits, env)?, None, None),
            Some(sandbox) => {
                let (child, cgroup, control) =
                    start_confined(command, workdir, limits, sandbox, run_dir, env)?;
                (child, Some(cgroup), Some(control))
            }
        };
        let own = |fd: std::io::Result<OwnedFd>| {
            fd.and_then(|fd| {
                fcntl(&fd, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))?;
                Ok(fd)
            })
            .map_err(|e| AgentError::Startup(format!("the pipes of {command:?}: {e}")))
        };
        let stdin = own(child.stdin.take().expect("piped").into_owned_fd())?;
        let stdout = own(child.stdout.take().expect("piped").into_owned_fd())?;
        let mut stderr = child.stderr.take().expect("piped");
        let tail = Arc::new(Mutex::new(Vec::new()));
        let tail_writer = Arc::clone(&tail);
        let game = Arc::new(AtomicU64::new(NO_GAME));
        let game_reader = Arc::clone(&game);
        let stderr_drained = handle.spawn(async move {
            // Lines of processes running side by side share one log file: each line goes
            // in whole, prefixed with its process and the game it was playing.
            let mut lines = StderrLines::new(tag, game_reader);
            let mut chunk = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                {
                    let mut t = tail_writer.lock().expect("not poisoned");
                    t.extend_from_slice(&chunk[..n]);
                    let excess = t.len().saturating_sub(4096);
                    t.drain(..excess);
                }
                lines.feed(&chunk[..n], &log);
            }
            lines.finish(&log);
        });
        Ok(Process {
            child,
            stdin,
            stdout,
            buffer: Vec::new(),
            stderr_tail: tail,
            stderr_drained: Some(stderr_drained),
            handle: handle.clone(),
            game,
            failed_after: Duration::ZERO,
            cgroup,
            core: crate::affinity::current(),
            control,
        })
    }

    /// The game this process now plays (named in its stderr lines).
    pub fn set_game(&self, index: u64) {
        self.game.store(index, Ordering::Relaxed);
    }

    /// Sends one call and waits for its one-line reply, at most `cap`. Returns the line
    /// and the time it took (measured by the arena).
    ///
    /// The pipes are written and read on the calling thread, with `poll(2)`, not on the
    /// tokio runtime: the bot's reply wakes this thread directly, where an await would
    /// wake the runtime's I/O thread first and this one after it, two wake-ups per call
    /// on cores that sleep between calls (`docs/benchmarks.md`).
    pub fn call(
        &mut self,
        text: &str,
        cap: Duration,
        limits: &Limits,
    ) -> Result<(String, Duration), AgentError> {
        if let Some(text) = self.unasked() {
            return Err(AgentError::Malformed(format!(
                "output it was not asked for, before this call: {text:?}"
            )));
        }
        // The call goes into the pipe while the bot is still frozen (a call fits the
        // pipe's buffer, so this write does not wait): thawed, the bot finds it at once,
        // instead of waking from the freezer only to sleep again on an empty pipe until
        // the call comes. What does not fit is written after the thaw.
        let mut rest = text.as_bytes();
        let early = write_some(self.stdin.as_fd(), &mut rest);
        if let Some(cgroup) = &self.cgroup {
            cgroup.thaw();
        }
        let started = Instant::now();
        let written = early.and_then(|()| {
            let deadline = started + cap;
            while !rest.is_empty() {
                if !wait_ready(self.stdin.as_fd(), PollFlags::POLLOUT, deadline)? {
                    return Ok(false);
                }
                write_some(self.stdin.as_fd(), &mut rest)?;
            }
            Ok(true)
        });
        match written {
            Ok(true) => {}
            Ok(false) => {
                self.failed_after = started.elapsed();
                return Err(self.timed_out("not reading its input", limits));
            }
            // The bot's end of stdin is closed (it exited): the same fault as EOF on
            // its stdout, and which one the arena sees first is the OS's race, so both
            // get one reason and games.csv stays a function of the bot.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.failed_after = started.elapsed();
                return Err(self.crashed(ENDED, limits));
            }
            Err(e) => {
                self.failed_after = started.elapsed();
                return Err(self.crashed(&format!("writing the call: {e}"), limits));
            }
        }
        let line = match self.read_line(limits.max_line, Instant::now() + cap) {
            Err(Reply::Late) => {
                self.failed_after = started.elapsed();
                return Err(self.timed_out("no reply", limits));
            }
            Err(Reply::Bad(e)) => {
                self.failed_after = started.elapsed();
                return Err(e);
            }
            Err(Reply::Ended) => {
                self.failed_after = started.elapsed();
                return Err(self.crashed(ENDED, limits));
            }
            Ok(line) => line,
        };
        let took = started.elapsed();
        // Its think time is over: not one cycle more until its next call.
        if let Some(cgroup) = &self.cgroup {
            cgroup.freeze();
        }
        Ok((line, took))
    }

    /// A call that ran out of time; a bot that reached its memory limit meanwhile loses
    /// it as `memory`, one that hit its cap on processes (a fork bomb stuck at the cap)
    /// as `limit`, not `timeout`.
    fn timed_out(&self, why: &str, limits: &Limits) -> AgentError {
        // A bot at its memory limit is being reclaimed, then killed, not thinking.
        if self
            .cgroup
            .as_ref()
            .is_some_and(BotCgroup::reached_memory_limit)
        {
            return AgentError::Memory(format!(
                "{why}: it ran out of memory: it was at its limit of {} MB",
                limits.memory_mb
            ));
        }
        if self.cgroup.as_ref().is_some_and(|c| c.times_capped() > 0) {
            AgentError::Limit(format!(
                "{why}: it reached its cap of {} processes and threads",
                limits.processes
            ))
        } else {
            AgentError::Timeout(why.into())
        }
    }

    /// What the process wrote since its last reply, if anything: a line the arena never
    /// asked for. One read that does not wait: output already there is caught; a line
    /// written after the arena sends its next call is taken as that call's reply.
    fn unasked(&mut self) -> Option<String> {
        let mut chunk = [0u8; 4096];
        if let Ok(n) = nix::unistd::read(self.stdout.as_fd(), &mut chunk) {
            self.buffer.extend_from_slice(&chunk[..n]);
        }
        if self.buffer.is_empty() {
            return None;
        }
        let text = String::from_utf8_lossy(&self.buffer);
        Some(text.lines().next().unwrap_or("").chars().take(40).collect())
    }

    /// The next line of the bot's output, read until `deadline`.
    fn read_line(&mut self, max_line: usize, deadline: Instant) -> Result<String, Reply> {
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') {
                let rest = self.buffer.split_off(pos + 1);
                let mut line = std::mem::replace(&mut self.buffer, rest);
                // The line as sent, CR included: the protocol's parser takes off one.
                line.pop();
                if line.len() > max_line {
                    return Err(Reply::Bad(AgentError::Malformed(format!(
                        "a reply line longer than {max_line} bytes"
                    ))));
                }
                return String::from_utf8(line).map_err(|_| {
                    Reply::Bad(AgentError::Malformed("a reply that is not UTF-8".into()))
                });
            }
            if self.buffer.len() > max_line {
                return Err(Reply::Bad(AgentError::Malformed(format!(
                    "more than {max_line} bytes without a newline"
                ))));
            }
            let reading = |e: std::io::Error| {
                Reply::Bad(AgentError::Crash(format!("reading its output: {e}")))
            };
            match nix::unistd::read(self.stdout.as_fd(), &mut chunk) {
                Ok(0) => return Err(Reply::Ended),
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(Errno::EAGAIN | Errno::EINTR) => {
                    if !wait_ready(self.stdout.as_fd(), PollFlags::POLLIN, deadline)
                        .map_err(reading)?
                    {
                        return Err(Reply::Late);
                    }
                }
                Err(e) => return Err(reading(e.into())),
            }
        }
    }

    /// Classifies a dead or dying process: out of memory, over a limit, or a crash with
    /// its status. The verdict is the arena's own reading (the cgroups' counters, the
    /// exit signal); the bot's stderr is only quoted.
    fn crashed(&mut self, what: &str, limits: &Limits) -> AgentError {
        let handle = self.handle.clone();
        let status = handle.block_on(async {
            let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
            // Its stderr may still hold the reason (a traceback): read to its end.
            if let Some(drained) = self.stderr_drained.take() {
                let _ = tokio::time::timeout(Duration::from_millis(500), drained).await;
            }
            status
        });
        let tail =
            String::from_utf8_lossy(&self.stderr_tail.lock().expect("not poisoned")).into_owned();
        let signal = match &status {
            Ok(Ok(s)) => std::os::unix::process::ExitStatusExt::signal(s),
            _ => None,
        };
        let status = match status {
            Ok(Ok(s)) => describe(s),
            _ => "still running".into(),
        };
        if let Some(cgroup) = &self.cgroup {
            if cgroup.oom_kills() > 0 {
                return AgentError::Memory(format!(
                    "{what}; {status}; it ran out of memory: the kernel stopped it at its limit \
                     of {} MB",
                    limits.memory_mb
                ));
            }
            if cgroup.times_capped() > 0 {
                return AgentError::Limit(format!(
                    "{what}; {status}; it reached its cap of {} processes and threads",
                    limits.processes
                ));
            }
        }
        if signal == Some(nix::sys::signal::Signal::SIGXCPU as i32) && self.cgroup.is_some() {
            return AgentError::Limit(format!(
                "{what}; {status}; the bot used its {} s of CPU time",
                limits.cpu_s
            ));
        }
        // The last thing it said is usually why (`sh: 1: ./bot: not found`, a traceback).
        match tail.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(last) => AgentError::Crash(format!("{what}; {status}; stderr: {}", clip(last))),
            None => AgentError::Crash(format!("{what}; {status}")),
        }
    }

    /// Ends processes politely: EOF on stdin, up to `grace` to exit, then a kill; every
    /// one is reaped and its cgroups removed. All wait at once, so many idle bots cost
    /// one grace period.
    pub fn stop_all(processes: Vec<Process>, grace: Duration) {
        let Some(handle) = processes.first().map(|p| p.handle.clone()) else {
            return;
        };
        handle.block_on(async move {
            let mut waits = tokio::task::JoinSet::new();
            for p in processes {
                let Process {
                    mut child,
                    stdin,
                    cgroup,
                    control,
                    ..
                } = p;
                // A frozen bot would not see its EOF.
                if let Some(c) = &cgroup {
                    c.thaw();
                }
                drop(stdin);
                waits.spawn(async move {
                    if tokio::time::timeout(grace, child.wait()).await.is_err() {
                        let _ = child.start_kill();
                        let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
                    }
                    // Removed once the bot is reaped.
                    drop(cgroup);
                    drop(control);
                });
            }
            while waits.join_next().await.is_some() {}
        });
    }

    /// Kills the process and reaps it, so no zombie is left, then removes its cgroups.
    pub fn kill(mut self) {
        let handle = self.handle.clone();
        if let Some(c) = &self.cgroup {
            c.thaw();
        }
        handle.block_on(async {
            let _ = self.child.start_kill();
            let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        });
        drop(self.cgroup.take());
    }
}

/// What every bot process gets, confined or not: its working directory, a scrubbed
/// environment (and `env`), piped stdio, and a kill if the arena lets go of it.
fn bot_command(mut command: Command, workdir: &Path, env: &[(&str, String)]) -> Command {
    command
        .current_dir(workdir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", workdir)
        .env("TMPDIR", workdir)
        .env("LANG", "C.UTF-8")
        .env("PYTHONUNBUFFERED", "1")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

fn cannot_start(command: &str) -> impl Fn(std::io::Error) -> SpawnError + '_ {
    move |e| {
        SpawnError::Bot(AgentError::Startup(format!(
            "cannot start {command:?}: {e}"
        )))
    }
}

/// Starts `command` without a sandbox (`sandbox = "off"`), under an address-space limit.
fn start_unconfined(
    command: &str,
    workdir: &Path,
    limits: &Limits,
    env: &[(&str, String)],
) -> Result<Child, SpawnError> {
    let argv = crate::sandbox::bot_argv(command, Some(limits.memory_mb));
    let mut c = Command::new(&argv[0]);
    c.args(&argv[1..]);
    // Its own process group: a Ctrl-C at the terminal reaches the arena, which stops
    // the run cleanly, not the bots in the middle of their games.
    c.process_group(0);
    bot_command(c, workdir, env)
        .spawn()
        .map_err(cannot_start(command))
}

/// Starts `command` in `sandbox` (`crate::sandbox::Confined`), hiding `run_dir`: the
/// process, its cgroups and its control channel. A sandbox its stages could not build is
/// the arena's failure ([`SpawnError::Arena`]).
fn start_confined(
    command: &str,
    workdir: &Path,
    limits: &Limits,
    sandbox: &Sandboxed,
    run_dir: &Path,
    env: &[(&str, String)],
) -> Result<(Child, BotCgroup, Channel), SpawnError> {
    let mut confined = Confined::new(&sandbox.exe, &sandbox.policy, workdir)
        .map_err(|refused| AgentError::Startup(refused.to_string()))?
        .hiding(run_dir);
    if injected_stage_fault() {
        confined = confined.failing_setup();
    }
    let (launcher, starter) = confined
        .bot_command(command, limits.memory_mb)
        .map_err(|e| SpawnError::Arena(format!("the sandbox's control pipes: {e}")))?;
    // The outer stage starts a session of its own (no process group here: a group leader
    // cannot).
    let mut launcher = bot_command(Command::from(launcher), workdir, env);
    let limit = Duration::from_millis(limits.startup_ms);
    match starter.start(|| launcher.spawn(), |c| c.id().unwrap_or(0), limit) {
        Ok((child, control)) => Ok((child, confined.into_cgroup(), control)),
        Err(NotStarted::Spawn(e)) => Err(cannot_start(command)(e)),
        Err(NotStarted::Stages {
            why,
            process: mut child,
        }) => {
            confined.cgroup().thaw();
            let _ = child.start_kill();
            let began = Instant::now();
            while matches!(child.try_wait(), Ok(None)) && began.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(SpawnError::Arena(why))
        }
    }
}

/// How a wait for a reply ended without one.
enum Reply {
    /// The deadline passed.
    Late,
    /// EOF: the bot closed its stdout or exited.
    Ended,
    Bad(AgentError),
}

/// Writes what the pipe takes of `rest` without waiting, and keeps what it did not.
fn write_some(fd: BorrowedFd<'_>, rest: &mut &[u8]) -> std::io::Result<()> {
    while !rest.is_empty() {
        match nix::unistd::write(fd, rest) {
            Ok(n) => *rest = &rest[n..],
            Err(Errno::EAGAIN) => return Ok(()),
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Waits until `fd` is ready for `events` (or at its end: a hangup or an error), at
/// most until `deadline`; false when the deadline passed first.
fn wait_ready(fd: BorrowedFd<'_>, events: PollFlags, deadline: Instant) -> std::io::Result<bool> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(false);
        }
        // Whole milliseconds, rounded up: a wait of 0 would spin until the deadline.
        let ms = i32::try_from(left.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
        let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
        match poll(&mut [PollFd::new(fd, events)], timeout) {
            Ok(0) | Err(Errno::EINTR) => {}
            Ok(_) => return Ok(true),
            Err(e) => return Err(e.into()),
        }
    }
}

/// A stderr line for a reason: whole up to 160 characters, else cut at a word with `…`
/// (a reason goes into games.csv; a long traceback line would swamp it).
fn clip(line: &str) -> String {
    const MAX: usize = 160;
    let line = line.trim();
    if line.chars().count() <= MAX {
        return line.to_owned();
    }
    let head: String = line.chars().take(MAX).collect();
    let cut = head
        .rfind(' ')
        .filter(|&i| i > MAX / 2)
        .unwrap_or(head.len());
    format!("{}…", head[..cut].trim_end())
}

fn describe(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "ended".into(),
    }
}

/// A file-name-safe label for agent `index` named `name`: `3-my_bot`.
pub fn label(index: usize, name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    format!("{index}-{safe}")
}

/// The working directory of an agent under the run directory.
pub fn workdir(run_dir: &Path, label: &str) -> PathBuf {
    run_dir.join("agents").join(label)
}

/// Why a call failed when the bot's pipes were closed (it exited) before it replied.
const ENDED: &str = "closed its pipes before replying";

/// Before a process's first game (while it answers `init`).
const NO_GAME: u64 = u64::MAX;

/// The longest stderr line kept whole; a longer one is cut into pieces of this size,
/// each prefixed.
const LINE_MAX: usize = 16 * 1024;

/// Splits a process's stderr into lines and writes each to the shared log with its
/// prefix: `[<tag> game <n>] ` (`<tag>` names the case and the process).
struct StderrLines {
    tag: String,
    game: Arc<AtomicU64>,
    pending: Vec<u8>,
}

impl StderrLines {
    fn new(tag: String, game: Arc<AtomicU64>) -> StderrLines {
        StderrLines {
            tag,
            game,
            pending: Vec::new(),
        }
    }

    fn feed(&mut self, bytes: &[u8], log: &StderrLog) {
        for &b in bytes {
            if b == b'\n' {
                self.emit(log);
            } else {
                self.pending.push(b);
                if self.pending.len() >= LINE_MAX {
                    self.emit(log);
                }
            }
        }
    }

    /// The last line, when the process ends without a line break.
    fn finish(&mut self, log: &StderrLog) {
        if !self.pending.is_empty() {
            self.emit(log);
        }
    }

    fn emit(&mut self, log: &StderrLog) {
        let game = match self.game.load(Ordering::Relaxed) {
            NO_GAME => "init".to_owned(),
            n => format!("game {n}"),
        };
        let mut line = format!("[{} {game}] ", self.tag).into_bytes();
        line.append(&mut self.pending);
        line.push(b'\n');
        log.write(&line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One unconfined process of `command` and the runtime that holds its stderr reader.
    fn start(command: &str) -> (tokio::runtime::Runtime, Process, tempfile::TempDir) {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let log = Arc::new(StderrLog::create(&dir.path().join("stderr.log"), 4096));
        let process = Process::spawn(
            rt.handle(),
            command,
            &dir.path().join("work"),
            &Limits::default(),
            log,
            Launch {
                tag: "test".into(),
                sandbox: None,
                run_dir: dir.path(),
                env: &[],
            },
        )
        .unwrap();
        (rt, process, dir)
    }

    const CAP: Duration = Duration::from_secs(5);

    #[test]
    fn a_call_larger_than_the_pipe_is_written_while_the_bot_reads_it() {
        let (_rt, mut p, _dir) = start("sh -c 'head -c 300001 >/dev/null; echo done'");
        let call = format!("{}\n", "x".repeat(300_000));
        let (line, _) = p.call(&call, CAP, &Limits::default()).unwrap();
        assert_eq!(line, "done");
        p.kill();
    }

    #[test]
    fn a_bot_that_does_not_read_a_large_call_times_out_at_its_cap() {
        let (_rt, mut p, _dir) = start("sleep 30");
        let call = format!("{}\n", "x".repeat(300_000));
        let cap = Duration::from_millis(200);
        let began = Instant::now();
        let e = p.call(&call, cap, &Limits::default()).unwrap_err();
        assert!(
            matches!(&e, AgentError::Timeout(w) if w.contains("not reading its input")),
            "{e:?}"
        );
        assert!(
            began.elapsed() >= cap && began.elapsed() < CAP,
            "{:?}",
            began.elapsed()
        );
        p.kill();
    }

    #[test]
    fn a_reply_in_pieces_is_one_line_and_the_next_call_gets_the_next() {
        let (_rt, mut p, _dir) = start(
            "sh -c 'read a; printf pl; sleep 0.05; printf \"ay\\r\\n\"; read b; echo second'",
        );
        let (line, took) = p.call("one\n", CAP, &Limits::default()).unwrap();
        // The CR stays: the protocol's parser takes off one.
        assert_eq!(line, "play\r");
        assert!(took >= Duration::from_millis(50), "{took:?}");
        let (line, _) = p.call("two\n", CAP, &Limits::default()).unwrap();
        assert_eq!(line, "second");
        p.kill();
    }

    #[test]
    fn silence_is_a_timeout_and_a_closed_stdout_a_crash_at_once() {
        let (_rt, mut p, _dir) = start("sh -c 'read a; sleep 30'");
        let cap = Duration::from_millis(150);
        let e = p.call("one\n", cap, &Limits::default()).unwrap_err();
        assert!(
            matches!(&e, AgentError::Timeout(w) if w == "no reply"),
            "{e:?}"
        );
        assert!(p.failed_after >= cap, "{:?}", p.failed_after);
        p.kill();

        let (_rt, mut p, _dir) = start("sh -c 'exec 1>&-; sleep 30'");
        let e = p.call("one\n", CAP, &Limits::default()).unwrap_err();
        assert!(
            matches!(&e, AgentError::Crash(w) if w.starts_with(ENDED)),
            "{e:?}"
        );
        assert!(
            p.failed_after < Duration::from_secs(1),
            "{:?}",
            p.failed_after
        );
        p.kill();
    }

    #[test]
    fn output_before_a_call_is_unasked_for() {
        let (_rt, mut p, _dir) = start("sh -c 'echo early; sleep 30'");
        std::thread::sleep(Duration::from_millis(200));
        let e = p.call("one\n", CAP, &Limits::default()).unwrap_err();
        assert!(
            matches!(&e, AgentError::Malformed(w) if w.contains("\"early\"")),
            "{e:?}"
        );
        p.kill();
    }
}
