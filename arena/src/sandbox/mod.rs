//! Confinement for external agents, applied by `arena __sandbox` (the arena binary
//! re-executed) before it becomes the bot, so no unsafe `pre_exec` hook is needed.
//!
//! Two stages (`docs/protocol.md`, "Security"):
//! - [`outer`]: the arena's child. It puts itself in a `pids` cgroup (the cap on
//!   processes and threads, where one can be made), unshares user, PID, network, IPC
//!   and mount namespaces, starts the inner stage, waits for it and passes on how it
//!   ended (naming a limit the bot hit on stderr).
//! - [`inner`]: pid 1 of the new PID namespace. It mounts a `/proc` of its own, sets
//!   the CPU and process limits, applies Landlock (files, TCP, signal and
//!   abstract-socket scoping), and becomes the bot. When it ends, the kernel kills
//!   whatever the bot left behind in its namespace.
//!
//! The bot may read and execute system directories, the install prefix of each program
//! its command names, and the directories of files its command names; it may write only
//! its own working directory and /dev. It sees only its own processes, has no network
//! (unless a config grants it), and cannot signal or connect to anything outside.

mod cgroup;
mod inner;
mod outer;
pub mod report;

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

pub use cgroup::{remove_leftover as remove_leftover_cgroup, times_capped_of};
pub use outer::LIMIT_MARKER;

#[derive(clap::Args, Debug, Clone)]
pub struct SandboxArgs {
    /// Only report, as one JSON line, which layers this machine enforces.
    #[arg(long)]
    pub probe: bool,
    /// The one directory the bot may write.
    #[arg(long)]
    pub rw: Option<PathBuf>,
    /// Extra directories the bot may read.
    #[arg(long)]
    pub ro: Vec<PathBuf>,
    /// CPU seconds for the bot's process (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub cpu_s: u64,
    /// The most processes and threads the bot may run at once (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub processes: u64,
    /// Keep the network (no network namespace, no Landlock TCP rules).
    #[arg(long)]
    pub network: bool,
    /// Internal: run as the inner stage (pid 1 of the new namespaces).
    #[arg(long, hide = true)]
    pub inner: bool,
    /// Internal: the outer stage made new namespaces.
    #[arg(long, hide = true)]
    pub unshared: bool,
    /// The command to become.
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// What the sandbox enforces on this machine, layer by layer (`arena doctor`, run.log).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enforcement {
    /// Landlock file rules: no reading the run directory, the configs, other bots.
    pub files: bool,
    /// A PID namespace with its own /proc: no other process to see, signal or trace.
    pub own_processes: bool,
    /// A network namespace: no network at all (loopback included).
    pub no_network: bool,
    /// An IPC namespace: no System V or POSIX shared memory with other processes.
    pub own_ipc: bool,
    /// Landlock TCP rules (ABI 4): no TCP connect or bind.
    pub tcp_rules: bool,
    /// Landlock scoping (ABI 6): no signal to, no abstract unix socket of, a process
    /// outside the sandbox.
    pub scoped: bool,
    /// How the cap on processes and threads is enforced (`cgroup pids.max`,
    /// `RLIMIT_NPROC`), if it is.
    pub process_cap: Option<String>,
    /// The Landlock ABI the kernel speaks (0: none).
    pub landlock_abi: u8,
}

impl Enforcement {
    /// Each layer: whether it is enforced, its name where it is, and where it is not.
    fn layers(&self) -> [(bool, &'static str, &'static str); 7] {
        [
            (self.files, "Landlock file rules", "Landlock file rules"),
            (
                self.own_processes,
                "own PID namespace and /proc",
                "a PID namespace with its own /proc",
            ),
            (self.no_network, "no network", "a network namespace"),
            (self.own_ipc, "own IPC namespace", "an IPC namespace"),
            (
                self.tcp_rules,
                "Landlock TCP rules",
                "Landlock TCP rules (kernel 6.7+)",
            ),
            (
                self.scoped,
                "Landlock signal and abstract-socket scoping",
                "Landlock signal and abstract-socket scoping (kernel 6.12+)",
            ),
            (
                self.process_cap.is_some(),
                "a process cap",
                "a cap on processes (a writable pids cgroup, or a user other than root)",
            ),
        ]
    }

    /// The layers not enforced, in words (empty: the full set).
    pub fn missing(&self) -> Vec<&'static str> {
        self.layers()
            .into_iter()
            .filter_map(|(on, _, missing)| (!on).then_some(missing))
            .collect()
    }

    /// The layers enforced, in words.
    pub fn enforced(&self) -> Vec<&'static str> {
        self.layers()
            .into_iter()
            .filter_map(|(on, name, _)| on.then_some(name))
            .collect()
    }

    /// One line per layer: `yes`/`NO` and what it stops.
    pub fn table(&self) -> String {
        let yes = |b: bool| if b { "yes" } else { "NO " };
        let cap = self.process_cap.as_deref().unwrap_or("none");
        format!(
            "{} files: Landlock file rules (ABI {}): no reading the run directory, configs, other bots\n\
             {} processes: own PID namespace and /proc: no seed in another's command line, no pid to signal\n\
             {} network: own network namespace: no TCP, UDP or unix socket outside\n\
             {} ipc: own IPC namespace\n\
             {} tcp: Landlock TCP connect/bind rules (kernel 6.7+)\n\
             {} scoping: Landlock signal and abstract-socket scoping (kernel 6.12+)\n\
             {} process cap: {cap}\n\
             yes cpu and memory: RLIMIT_CPU, RLIMIT_AS\n",
            yes(self.files),
            self.landlock_abi,
            yes(self.own_processes),
            yes(self.no_network),
            yes(self.own_ipc),
            yes(self.tcp_rules),
            yes(self.scoped),
            yes(self.process_cap.is_some()),
        )
    }
}

/// Read access a command line needs beyond the system: the install prefix of each
/// program it names (`/root/.pyenv` for `/root/.pyenv/shims/python3`) and the folder of
/// each file it names.
pub fn read_paths_for(command: &str) -> Vec<PathBuf> {
    let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let mut out = Vec::new();
    for token in command.split_whitespace() {
        // A quoted word (`'arena'`) names the same program once the shell removes quotes.
        let token = token.trim_matches(|c| c == '\'' || c == '"');
        let candidate = Path::new(token);
        let found = if candidate.is_absolute() {
            Some(candidate.to_owned())
        } else if !token.contains('/') {
            path_dirs
                .iter()
                .map(|d| d.join(token))
                .find(|p| p.is_file())
        } else {
            None
        };
        let Some(found) = found.filter(|p| p.exists()) else {
            continue;
        };
        for p in [
            found.clone(),
            std::fs::canonicalize(&found).unwrap_or(found),
        ] {
            if let Some(dir) = p.parent() {
                out.push(dir.to_owned());
                if dir.file_name().is_some_and(|n| n == "bin" || n == "shims")
                    && let Some(prefix) = dir.parent().filter(|d| d.parent().is_some())
                {
                    out.push(prefix.to_owned());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

pub fn run(args: SandboxArgs) -> Result<()> {
    if args.inner {
        inner::run(args)
    } else {
        outer::run(args)
    }
}

/// `arena doctor`: the layers this machine enforces. Exits 1 when one is missing, so a
/// contest's setup script can check the host.
pub fn doctor() -> Result<()> {
    let Some(enforced) = probe() else {
        println!("NO  sandbox: `arena __sandbox` cannot start on this machine");
        std::process::exit(1);
    };
    print!("{}", enforced.table());
    let missing = enforced.missing();
    if missing.is_empty() {
        println!("every layer is enforced");
        Ok(())
    } else {
        println!("missing: {}", missing.join(", "));
        std::process::exit(1);
    }
}

/// The `arena` binary that confines bots (`arena __sandbox`), once the binary's `main`
/// has named itself. A library user (a bench, a test) that builds an external runtime in
/// its own process has not: its executable is not `arena`, and re-executing it with
/// `__sandbox` would start it over (in a bench: again and again). Such a user gets no
/// confinement unless it names the arena binary here.
static LAUNCHER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Names the `arena` binary that confines bots; the first call wins.
pub fn set_launcher(arena: PathBuf) {
    let _ = LAUNCHER.set(arena);
}

/// The `arena` binary named by [`set_launcher`], if any.
pub fn launcher() -> Option<&'static Path> {
    LAUNCHER.get().map(PathBuf::as_path)
}

/// What this machine enforces, asked of a throwaway sandbox started by the launcher;
/// `None` without one, or where the sandbox cannot start at all. The probe sets up
/// every layer as for a bot, then reports.
pub fn probe() -> Option<Enforcement> {
    let exe = launcher()?;
    std::process::Command::new(exe)
        .args(["__sandbox", "--probe", "--processes", "64", "--cpu-s", "10"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| serde_json::from_slice(&o.stdout).ok())
}
