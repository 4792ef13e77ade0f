//! One external agent process: spawned through `sh -c` with a memory limit, a scrubbed
//! environment and its own working directory, inside `arena __sandbox` where the arena
//! binary is known (`crate::sandbox`: namespaces, CPU and process caps, Landlock);
//! replies read with length and time caps; stderr drained into a bounded log so a
//! chatty bot never blocks.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arena_core::AgentError;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::runtime::Handle;

use super::Limits;
use super::log::StderrLog;

/// Markers in a dead bot's last stderr that mean it ran out of memory (under the
/// address-space limit, allocation fails and runtimes say so in these words).
const MEMORY_MARKERS: [&str; 6] = [
    "MemoryError",
    "memory allocation of",
    "bad_alloc",
    "Cannot allocate memory",
    "out of memory",
    "Out of memory",
];

pub struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
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
}

/// The shell command that applies the memory limit, then becomes the bot.
fn shell_line(command: &str, memory_mb: u64) -> String {
    format!("ulimit -v {} 2>/dev/null; exec {command}", memory_mb * 1024)
}

/// Rewrites tokens naming existing files relative to the arena's directory into absolute
/// paths, so `python3 bot.py` still finds its script from the bot's own directory.
///
/// The program word (the first token) is found the way `sh` finds it: on `PATH` unless it
/// holds a `/`, so it is rewritten only when it holds one (`./bot`, `bots/bot`) and names
/// a file. `arena serve ...` run from the repository root keeps `arena` (the `arena/`
/// folder there is not a program), and no token becomes a directory for the shell to run.
pub fn absolutize(command: &str) -> String {
    let mut before_program = true;
    command
        .split(' ')
        .map(|token| {
            let path = Path::new(token);
            let program = before_program && !token.is_empty();
            before_program &= token.is_empty();
            let names_a_path = if program {
                token.contains('/') && path.is_file()
            } else {
                path.exists()
            };
            if !token.is_empty() && !token.starts_with('-') && path.is_relative() && names_a_path {
                std::fs::canonicalize(path)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| token.to_owned())
            } else {
                token.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How one process is started, beside its command and limits.
pub struct Launch<'a> {
    /// Its stderr lines' prefix (`case C process K`).
    pub tag: String,
    /// With Landlock: the arena binary and the directories the bot may read.
    pub sandbox: Option<&'a (PathBuf, Vec<PathBuf>)>,
    /// Extra environment variables (puzzle solvers get `ARENA_PUZZLE`).
    pub env: &'a [(&'a str, String)],
}

impl Process {
    /// Starts `command` (already absolutized) in `workdir`; with `sandbox`, through
    /// `arena __sandbox` (Landlock), reading only the given extra directories.
    pub fn spawn(
        handle: &Handle,
        command: &str,
        workdir: &Path,
        limits: &Limits,
        log: Arc<StderrLog>,
        launch: Launch<'_>,
    ) -> Result<Process, AgentError> {
        let Launch { tag, sandbox, env } = launch;
        std::fs::create_dir_all(workdir)
            .map_err(|e| AgentError::Startup(format!("creating {}: {e}", workdir.display())))?;
        let _guard = handle.enter();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let line = shell_line(command, limits.memory_mb);
        let mut cmd = match sandbox {
            None => Command::new("/bin/sh"),
            Some((exe, read)) => {
                let mut c = Command::new(exe);
                c.arg("__sandbox").arg("--rw").arg(workdir);
                for dir in read {
                    c.arg("--ro").arg(dir);
                }
                c.arg("--cpu-s").arg(limits.cpu_s.to_string());
                c.arg("--processes").arg(limits.processes.to_string());
                if limits.network {
                    c.arg("--network");
                }
                c.args(["--", "/bin/sh"]);
                c
            }
        };
        let mut child = cmd
            .arg("-c")
            .arg(line)
            .current_dir(workdir)
            .env_clear()
            .env("PATH", path)
            .env("HOME", workdir)
            .env("TMPDIR", workdir)
            .env("LANG", "C.UTF-8")
            .env("PYTHONUNBUFFERED", "1")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            // Its own process group: a Ctrl-C at the terminal reaches the arena, which
            // stops the run cleanly, not the bots in the middle of their games.
            .process_group(0)
            .spawn()
            .map_err(|e| AgentError::Startup(format!("cannot start {command:?}: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
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
        })
    }

    /// The game this process now plays (named in its stderr lines).
    pub fn set_game(&self, index: u64) {
        self.game.store(index, Ordering::Relaxed);
    }

    /// Sends one call and waits for its one-line reply, at most `cap`. Returns the line
    /// and the time it took (measured by the arena).
    pub fn call(
        &mut self,
        text: &str,
        cap: Duration,
        limits: &Limits,
    ) -> Result<(String, Duration), AgentError> {
        let handle = self.handle.clone();
        handle.block_on(async {
            if let Some(text) = self.unasked().await {
                return Err(AgentError::Malformed(format!(
                    "output it was not asked for, before this call: {text:?}"
                )));
            }
            let started = Instant::now();
            let write = async {
                self.stdin.write_all(text.as_bytes()).await?;
                self.stdin.flush().await
            };
            match tokio::time::timeout(cap, write).await {
                Err(_) => {
                    self.failed_after = started.elapsed();
                    return Err(self.timed_out("not reading its input", limits));
                }
                // The bot's end of stdin is closed (it exited): the same fault as EOF
                // on its stdout, and which one the arena sees first is the OS's race, so
                // both get one reason and games.csv stays a function of the bot.
                Ok(Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    self.failed_after = started.elapsed();
                    return Err(self.crashed(ENDED).await);
                }
                Ok(Err(e)) => {
                    self.failed_after = started.elapsed();
                    return Err(self.crashed(&format!("writing the call: {e}")).await);
                }
                Ok(Ok(())) => {}
            }
            let line = match tokio::time::timeout(cap, self.read_line(limits.max_line)).await {
                Err(_) => {
                    self.failed_after = started.elapsed();
                    return Err(self.timed_out("no reply", limits));
                }
                Ok(Err(e)) => {
                    self.failed_after = started.elapsed();
                    return Err(e);
                }
                Ok(Ok(None)) => {
                    self.failed_after = started.elapsed();
                    return Err(self.crashed(ENDED).await);
                }
                Ok(Ok(Some(line))) => line,
            };
            Ok((line, started.elapsed()))
        })
    }

    /// A call that ran out of time; a bot that hit its cap on processes meanwhile (a
    /// fork bomb stuck at the cap) loses it as `limit`, not `timeout`.
    fn timed_out(&self, why: &str, limits: &Limits) -> AgentError {
        let capped = self
            .child
            .id()
            .and_then(crate::sandbox::times_capped_of)
            .is_some_and(|n| n > 0);
        if capped {
            AgentError::Limit(format!(
                "{why}: it reached its cap of {} processes and threads",
                limits.processes
            ))
        } else {
            AgentError::Timeout(why.into())
        }
    }

    /// What the process wrote since its last reply, if anything: a line the arena never
    /// asked for. One read that does not wait (the last read returned data, so the pipe
    /// is read again rather than assumed empty): output already there is caught; a line
    /// written after the arena sends its next call is taken as that call's reply.
    async fn unasked(&mut self) -> Option<String> {
        let mut chunk = [0u8; 4096];
        // One poll, never a wait: not `timeout(ZERO, ..)`, whose timer fires on the next
        // millisecond tick and so cost every call about a millisecond (measured).
        let stdout = &mut self.stdout;
        let n = std::future::poll_fn(|cx| {
            let mut buf = tokio::io::ReadBuf::new(&mut chunk);
            std::task::Poll::Ready(
                match std::pin::Pin::new(&mut *stdout).poll_read(cx, &mut buf) {
                    std::task::Poll::Ready(Ok(())) => buf.filled().len(),
                    std::task::Poll::Ready(Err(_)) | std::task::Poll::Pending => 0,
                },
            )
        })
        .await;
        self.buffer.extend_from_slice(&chunk[..n]);
        if self.buffer.is_empty() {
            return None;
        }
        let text = String::from_utf8_lossy(&self.buffer);
        Some(text.lines().next().unwrap_or("").chars().take(40).collect())
    }

    async fn read_line(&mut self, max_line: usize) -> Result<Option<String>, AgentError> {
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') {
                let rest = self.buffer.split_off(pos + 1);
                let mut line = std::mem::replace(&mut self.buffer, rest);
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if line.len() > max_line {
                    return Err(AgentError::Malformed(format!(
                        "a reply line longer than {max_line} bytes"
                    )));
                }
                return String::from_utf8(line)
                    .map(Some)
                    .map_err(|_| AgentError::Malformed("a reply that is not UTF-8".into()));
            }
            if self.buffer.len() > max_line {
                return Err(AgentError::Malformed(format!(
                    "more than {max_line} bytes without a newline"
                )));
            }
            let n = self
                .stdout
                .read(&mut chunk)
                .await
                .map_err(|e| AgentError::Crash(format!("reading its output: {e}")))?;
            if n == 0 {
                return Ok(None);
            }
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    /// Classifies a dead or dying process: out of memory, or a crash with its status.
    async fn crashed(&mut self, what: &str) -> AgentError {
        let status = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
        // Its stderr may still hold the reason (a MemoryError traceback): read to its end.
        if let Some(drained) = self.stderr_drained.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), drained).await;
        }
        let tail =
            String::from_utf8_lossy(&self.stderr_tail.lock().expect("not poisoned")).into_owned();
        let status = match status {
            Ok(Ok(s)) => describe(s),
            _ => "still running".into(),
        };
        // The sandbox names the limit a bot hit (CPU time, processes) on its stderr.
        if let Some(limit) = tail
            .lines()
            .rev()
            .find_map(|l| l.split_once(crate::sandbox::LIMIT_MARKER))
        {
            return AgentError::Limit(format!("{what}; {status}; {}", limit.1.trim()));
        }
        if MEMORY_MARKERS.iter().any(|m| tail.contains(m)) {
            return AgentError::Memory(format!(
                "{what}; {status}; stderr says it ran out of memory"
            ));
        }
        // The last thing it said is usually why (`sh: 1: ./bot: not found`, a traceback).
        match tail.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(last) => AgentError::Crash(format!("{what}; {status}; stderr: {}", clip(last))),
            None => AgentError::Crash(format!("{what}; {status}")),
        }
    }

    /// Ends processes politely: EOF on stdin, up to `grace` to exit, then a kill; every
    /// one is reaped. All wait at once, so many idle bots cost one grace period.
    pub fn stop_all(processes: Vec<Process>, grace: Duration) {
        let Some(handle) = processes.first().map(|p| p.handle.clone()) else {
            return;
        };
        handle.block_on(async move {
            let mut waits = tokio::task::JoinSet::new();
            let mut pids = Vec::new();
            for p in processes {
                let Process {
                    mut child, stdin, ..
                } = p;
                drop(stdin);
                pids.extend(child.id());
                waits.spawn(async move {
                    if tokio::time::timeout(grace, child.wait()).await.is_err() {
                        let _ = child.start_kill();
                        let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
                    }
                });
            }
            while waits.join_next().await.is_some() {}
            // A sandbox killed here could not remove its cgroup.
            for pid in pids {
                crate::sandbox::remove_leftover_cgroup(pid);
            }
        });
    }

    /// Kills the process and reaps it, so no zombie is left.
    pub fn kill(mut self) {
        let handle = self.handle.clone();
        let pid = self.child.id();
        handle.block_on(async {
            let _ = self.child.start_kill();
            let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
        });
        // Killed, the sandbox's outer stage could not remove its cgroup.
        if let Some(pid) = pid {
            crate::sandbox::remove_leftover_cgroup(pid);
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
