//! Confinement for external agents (`docs/sandbox.md`): the arena binary re-executed as
//! `arena __sandbox`, so no unsafe `pre_exec` hook is needed.
//!
//! - The arena makes the bot's cgroups ([`cgroup`]: memory, pids, cpu, io, freezer),
//!   takes a host user of its own for it as root ([`identity`]) and starts the outer
//!   stage.
//! - [`outer`]: a new session, only fds 0-2, joins the cgroups, unshares user, PID,
//!   network, IPC, mount and UTS namespaces (as root, the arena writes the maps, which
//!   make the bot's user that host user outside) and starts the inner stage, then leaves
//!   the freezer's cgroup.
//! - [`inner`]: pid 1 of the new PID namespace, in a cgroup namespace of its own. It
//!   builds the bot's filesystem view
//!   ([`view`]: pivot_root into a tmpfs of read-only system folders and program files, a
//!   private `/dev`, `/dev/shm`, `/tmp` and working folder), drops to an unprivileged
//!   user, applies Landlock and the seccomp filter ([`filter`]) and starts the bot.
//!
//! A layer that cannot be applied stops the bot from starting unless the operator
//! accepted losing it; what the run reports is what a probe observed from inside a
//! sandbox built the same way ([`observe`]).

mod args;
pub mod build;
mod cgroup;
mod command_line;
mod confined;
pub mod control;
mod copy;
pub mod filter;
mod grant;
mod identity;
mod inner;
pub mod mountinfo;
mod observe;
mod outer;
pub mod report;
mod view;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

pub use args::{Join, SUBCOMMAND, SandboxArgs};
pub use cgroup::{BotCgroup, Caps};
pub use command_line::bot_argv;
pub use confined::{Confined, NotStarted, Refused, STAGES_LIMIT, Starter};
pub use copy::{copy_submission, link_out_of};
pub use grant::{GrantError, grants, read_paths_for, resolve_below};

/// One layer of the sandbox: what `arena doctor`, `run.log` and `sandbox_without` name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Session,
    Identity,
    Filesystem,
    Pid,
    Network,
    Ipc,
    Seccomp,
    Memory,
    Processes,
    Cpu,
    Io,
    Freezer,
}

impl Layer {
    pub const ALL: [Layer; 12] = [
        Layer::Session,
        Layer::Identity,
        Layer::Filesystem,
        Layer::Pid,
        Layer::Network,
        Layer::Ipc,
        Layer::Seccomp,
        Layer::Memory,
        Layer::Processes,
        Layer::Cpu,
        Layer::Io,
        Layer::Freezer,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Layer::Session => "session",
            Layer::Identity => "identity",
            Layer::Filesystem => "filesystem",
            Layer::Pid => "pid",
            Layer::Network => "network",
            Layer::Ipc => "ipc",
            Layer::Seccomp => "seccomp",
            Layer::Memory => "memory",
            Layer::Processes => "processes",
            Layer::Cpu => "cpu",
            Layer::Io => "io",
            Layer::Freezer => "freezer",
        }
    }

    /// What the layer is and what it stops, in a line.
    pub fn stops(self) -> &'static str {
        match self {
            Layer::Session => {
                "a new session, no controlling terminal, only fds 0-2: no typing into the operator's shell, no inherited files"
            }
            Layer::Identity => {
                "an unprivileged user (not root inside; as root, a host uid of its own from the arena's range, so no per-user count is shared), no capabilities, no_new_privs"
            }
            Layer::Filesystem => {
                "its own root: system folders and its program files read-only, private /dev, /dev/shm, /tmp and working folder; no run directory, configs, other bots or sockets"
            }
            Layer::Pid => "own PID namespace and /proc: no other process to see, signal or trace",
            Layer::Network => "own network namespace: no TCP, UDP or abstract unix socket outside",
            Layer::Ipc => "own IPC namespace: no System V or POSIX message queues with others",
            Layer::Seccomp => {
                "seccomp allowlist (`docs/sandbox.md`): unix and inet sockets only (no vsock, netlink), no new namespaces, ptrace, mount, inotify, AIO, io_uring, bpf, O_DIRECT or TIOCSTI"
            }
            Layer::Memory => "memory cgroup: memory_mb for all its processes and tmpfs together",
            Layer::Processes => "pids cgroup: at most `processes` processes and threads",
            Layer::Cpu => "cpu cgroup: at most one core for all its processes",
            Layer::Io => {
                "blkio/io cgroup: at most 50 MiB/s and 1000 operations/s of reads and writes each on the host's disks"
            }
            Layer::Freezer => "freezer: no CPU at all between its calls",
        }
    }

    /// Layers an operator may accept losing (`sandbox_without`): the namespaces come
    /// together with user namespaces, and without them no bot starts (or `sandbox = "off"`).
    pub fn may_be_lost(self) -> bool {
        matches!(
            self,
            Layer::Seccomp
                | Layer::Memory
                | Layer::Processes
                | Layer::Cpu
                | Layer::Io
                | Layer::Freezer
        )
    }
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

impl std::str::FromStr for Layer {
    type Err = String;
    fn from_str(s: &str) -> Result<Layer, String> {
        Layer::ALL.into_iter().find(|l| l.id() == s).ok_or_else(|| {
            let ids: Vec<&str> = Layer::ALL.iter().map(|l| l.id()).collect();
            format!("unknown sandbox layer {s:?} (layers: {})", ids.join(", "))
        })
    }
}

/// What the sandbox enforces on this machine, layer by layer, as a probe observed it
/// from inside a sandbox built as for a bot (`arena doctor`, run.log, manifest.json).
/// Written as maps keyed by the layers' ids in their alphabetical order, as before the
/// layers were the keys; a layer an older or newer arena named is skipped when read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "EnforcementFile", into = "EnforcementFile")]
pub struct Enforcement {
    /// Whether each layer held.
    layers: BTreeMap<Layer, bool>,
    /// Why each missing layer is.
    why: BTreeMap<Layer, String>,
}

/// [`Enforcement`] as written: each layer's id, whether it held; each missing layer's
/// id, why.
#[derive(Default, Serialize, Deserialize)]
#[serde(default)]
struct EnforcementFile {
    layers: BTreeMap<String, bool>,
    why: BTreeMap<String, String>,
}

impl From<EnforcementFile> for Enforcement {
    fn from(file: EnforcementFile) -> Enforcement {
        fn known<T>(map: BTreeMap<String, T>) -> BTreeMap<Layer, T> {
            map.into_iter()
                .filter_map(|(id, v)| Some((id.parse().ok()?, v)))
                .collect()
        }
        Enforcement {
            layers: known(file.layers),
            why: known(file.why),
        }
    }
}

impl From<Enforcement> for EnforcementFile {
    fn from(enforced: Enforcement) -> EnforcementFile {
        fn ids<T>(map: BTreeMap<Layer, T>) -> BTreeMap<String, T> {
            map.into_iter()
                .map(|(l, v)| (l.id().to_owned(), v))
                .collect()
        }
        EnforcementFile {
            layers: ids(enforced.layers),
            why: ids(enforced.why),
        }
    }
}

impl Enforcement {
    fn set(&mut self, layer: Layer, held: Result<(), String>) {
        self.layers.insert(layer, held.is_ok());
        match held {
            Ok(()) => {
                self.why.remove(&layer);
            }
            Err(why) => {
                self.why.insert(layer, why);
            }
        }
    }

    /// Whether `layer` held.
    pub fn holds(&self, layer: Layer) -> bool {
        self.layers.get(&layer).copied().unwrap_or(false)
    }

    /// Why `layer` is missing, where the probe said.
    pub fn why(&self, layer: Layer) -> Option<&str> {
        self.why.get(&layer).map(String::as_str)
    }

    /// The layers that did not hold.
    pub fn missing(&self) -> Vec<Layer> {
        Layer::ALL.into_iter().filter(|l| !self.holds(*l)).collect()
    }

    /// One line per layer: `yes`/`NO`, its id, what it stops, and why where it is missing.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for layer in Layer::ALL {
            if self.holds(layer) {
                out += &format!("yes {:<10} {}\n", layer.id(), layer.stops());
            } else {
                let why = self.why(layer).unwrap_or("");
                out += &format!("NO  {:<10} {}\n    why: {why}\n", layer.id(), layer.stops());
            }
        }
        out
    }
}

/// What a bot's sandbox is built with (from `[limits]`).
#[derive(Clone, Debug, Default)]
pub struct Policy {
    pub memory_mb: u64,
    pub cpu_s: u64,
    pub processes: u64,
    /// Size of each of its tmpfs: working folder, `/tmp`, `/dev/shm`.
    pub disk_mb: u64,
    /// Keep the host's network (no network namespace).
    pub network: bool,
    /// Layers the operator accepts losing.
    pub without: Vec<Layer>,
    /// Extra folders and files the bot may read.
    pub read: Vec<PathBuf>,
}

impl Policy {
    /// Whether a run may go on without `layer`.
    pub fn accepts_losing(&self, layer: Layer) -> bool {
        (layer == Layer::Network && self.network) || self.without.contains(&layer)
    }

    pub fn caps(&self) -> Caps {
        Caps {
            memory_mb: self.memory_mb,
            processes: self.processes,
        }
    }
}

/// How a stage of `__sandbox` ends with a status other than 0: the bot's own (a signal
/// as 128 + its number), or 125 when the sandbox could not be built (`outer.rs`). The
/// binary's `main` exits with it and says nothing more: the stage has said what it had to.
#[derive(Debug, thiserror::Error)]
#[error("the sandboxed process ended with status {0}")]
pub struct StageExit(pub u8);

impl StageExit {
    /// Ends a stage with `code` (as `exit(2)` takes it: its low 8 bits).
    fn with(code: i32) -> Result<()> {
        match u8::try_from(code & 0xff).unwrap_or(1) {
            0 => Ok(()),
            code => Err(StageExit(code).into()),
        }
    }

    /// The status a stage ended `run` with, if it did.
    pub fn of(e: &anyhow::Error) -> Option<u8> {
        e.downcast_ref::<StageExit>().map(|exit| exit.0)
    }
}

pub fn run(args: SandboxArgs) -> Result<()> {
    if args.stages_id {
        println!("{STAGES_ID}");
        Ok(())
    } else if args.observe {
        observe::report(args.hidden.as_deref())
    } else if args.inner {
        inner::run(args)
    } else {
        outer::run(args)
    }
}

/// `arena doctor`: each layer as a probe observed it from inside a sandbox on this host.
/// [`LayersMissing`] when one is missing, which the binary turns into exit 1, so a
/// contest's setup script can check the host.
pub fn doctor(json: bool) -> Result<()> {
    let enforced = probe(&Policy {
        memory_mb: 256,
        cpu_s: 10,
        processes: 64,
        disk_mb: 16,
        ..Policy::default()
    });
    if json {
        println!("{}", serde_json::to_string(&enforced)?);
    } else {
        print!("{}", enforced.table());
    }
    let missing = enforced.missing();
    if missing.is_empty() {
        if !json {
            println!("every layer is enforced");
        }
        Ok(())
    } else {
        let missing = LayersMissing(missing);
        if !json {
            println!("{missing}");
        }
        Err(missing.into())
    }
}

/// What `arena doctor` found: layers this host does not enforce. Its output has said
/// which already, so the binary exits 1 without another word.
#[derive(Debug, thiserror::Error)]
#[error("missing: {}", .0.iter().map(|l| l.id()).collect::<Vec<_>>().join(", "))]
pub struct LayersMissing(pub Vec<Layer>);

/// The `arena` binary that confines bots (`arena __sandbox`), once the binary's `main`
/// has named itself. A library user (a bench, a test) that builds an external runtime in
/// its own process has not: its executable is not `arena`, and re-executing it with
/// `__sandbox` would start it over (in a bench: again and again). Such a user gets no
/// sandbox (and the fail-closed check refuses its bots) unless it names the binary here.
static LAUNCHER: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Names the `arena` binary that confines bots; the first call wins.
pub fn set_launcher(arena: PathBuf) {
    let _ = LAUNCHER.set(arena);
}

/// The binary that runs the stages: the slim `arena-sandbox` beside the launcher (the
/// same stages, a sixth of the size, about 1 ms faster to start, twice per bot) when it
/// was built from the same sandbox code (it says so, asked once), else the launcher.
static STAGES: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

/// The code of the stages this binary holds (`build.rs`).
const STAGES_ID: &str = env!("SANDBOX_STAGES_ID");

/// The binary that runs `arena __sandbox` for this process, if any ([`set_launcher`]).
pub fn launcher() -> Option<&'static Path> {
    STAGES
        .get_or_init(|| {
            let arena = LAUNCHER.get()?;
            let slim = arena.with_file_name("arena-sandbox");
            let same = std::process::Command::new(&slim)
                .args(
                    SandboxArgs {
                        stages_id: true,
                        ..SandboxArgs::default()
                    }
                    .to_args(),
                )
                .env_clear()
                .output()
                .is_ok_and(|o| o.status.success() && o.stdout.trim_ascii() == STAGES_ID.as_bytes());
            Some(if same { slim } else { arena.clone() })
        })
        .as_deref()
}

/// What this machine enforces under `policy`, observed from inside a throwaway sandbox
/// built exactly as for a bot (its "bot" is `arena __sandbox --observe`); the cgroup
/// layers are checked from outside: the probe is in them, and the freezer froze it.
pub fn probe(policy: &Policy) -> Enforcement {
    let mut report = Enforcement::default();
    let Some(exe) = launcher() else {
        for layer in Layer::ALL {
            report.set(
                layer,
                Err("this program cannot start `arena __sandbox`".into()),
            );
        }
        return report;
    };
    match observe::probe(exe, policy) {
        Ok(r) => r,
        Err(e) => {
            for layer in Layer::ALL {
                report.set(
                    layer,
                    Err(format!("the probe sandbox did not start: {e:#}")),
                );
            }
            report
        }
    }
}

fn fail(layer: Layer, why: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("cannot apply the {layer} layer: {why}")
}
