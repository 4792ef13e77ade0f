//! The one way a confined process is started: a bot (`external/process.rs`, through
//! tokio), a league bot's build ([`super::build`]) and the probe ([`super::observe`]) all
//! build their command here and start it with [`Starter`].
//!
//! [`Confined::new`] makes the process's cgroups and fails closed on a layer the policy
//! needs and this host lost; [`Confined::command`] is the launcher (`arena __sandbox`, or
//! the slim `arena-sandbox`) with the policy's [`SandboxArgs`], the control channel's ends,
//! `--` and the program, working in its folder with a scrubbed environment and piped
//! stdio; [`Starter::start`] spawns it with the channel's ends inheritable and serves the
//! stages until the program runs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::control::{Channel, Pending};
use super::{BotCgroup, Join, Layer, Policy, SandboxArgs, bot_argv};

/// How long a plain caller (the probe, a league build) waits for the stages to build a
/// sandbox: a bound for a stage that hangs, never reached by one that is only slow.
pub const STAGES_LIMIT: Duration = Duration::from_secs(60);

/// A process to start in a sandbox of its own: its cgroups, made, and the launcher's
/// arguments. Dropping it removes the cgroups ([`Confined::into_cgroup`] keeps them).
pub struct Confined {
    launcher: PathBuf,
    args: SandboxArgs,
    cgroup: BotCgroup,
    lost: Vec<(Layer, String)>,
}

/// A layer the policy needs that this host could not give the process.
#[derive(Debug, thiserror::Error)]
#[error("the sandbox cannot apply its {layer} layer: {why}")]
pub struct Refused {
    pub layer: Layer,
    pub why: String,
}

impl Confined {
    /// A process of `policy` working in `workdir`, started by `launcher`: makes its
    /// cgroups (and, as root, takes its host user), refusing a layer that could not be
    /// made which the policy does not accept losing.
    pub fn new(launcher: &Path, policy: &Policy, workdir: &Path) -> Result<Confined, Refused> {
        let (cgroup, lost) = BotCgroup::create(policy.caps());
        if let Some((layer, why)) = lost.iter().find(|(l, _)| !policy.accepts_losing(*l)) {
            return Err(Refused {
                layer: *layer,
                why: why.clone(),
            });
        }
        let args = SandboxArgs {
            rw: Some(workdir.to_owned()),
            ro: policy.read.clone(),
            cpu_s: policy.cpu_s,
            processes: policy.processes,
            disk_mb: policy.disk_mb,
            network: policy.network,
            join: (cgroup.procs_files().into_iter())
                .map(|(layer, file)| Join { layer, file })
                .collect(),
            without: policy.without.clone(),
            ..SandboxArgs::default()
        };
        Ok(Confined {
            launcher: launcher.to_owned(),
            args,
            cgroup,
            lost,
        })
    }

    /// Covers `path` (the run directory) with an empty tmpfs in the process's view.
    pub fn hiding(mut self, path: &Path) -> Confined {
        self.args.hide = Some(path.to_owned());
        self
    }

    /// The working folder is the host's, bound read-write: what the process writes there
    /// stays (a build), instead of a private tmpfs.
    pub fn keeping_writes(mut self) -> Confined {
        self.args.keep_rw = true;
        self
    }

    /// The outer stage fails its setup, as one that cannot build the sandbox does (the
    /// tests' `ARENA_FAULT=stage-setup:N`).
    pub fn failing_setup(mut self) -> Confined {
        self.args.fail_setup = true;
        self
    }

    pub fn cgroup(&self) -> &BotCgroup {
        &self.cgroup
    }

    /// The layers this host could not give, which the policy accepts losing.
    pub fn lost(&self) -> &[(Layer, String)] {
        &self.lost
    }

    /// The cgroups, kept past this builder: the caller removes them (drops them) once
    /// the process is reaped.
    pub fn into_cgroup(self) -> BotCgroup {
        self.cgroup
    }

    /// The launcher's command that confines `program` (its words, the program first): in
    /// the working folder, with no environment but `PATH`, stdin, stdout and stderr piped
    /// (the caller may add variables, change the stdio or hand the command to tokio), and
    /// the [`Starter`] that must start it. Fails when the control pipes cannot be made.
    pub fn command(
        &self,
        program: impl IntoIterator<Item = impl Into<OsString>>,
    ) -> std::io::Result<(Command, Starter)> {
        let pending = Pending::new()?;
        let (status_fd, lifeline_fd) = pending.stage_fds();
        let args = SandboxArgs {
            status_fd: Some(status_fd),
            lifeline_fd: Some(lifeline_fd),
            command: program.into_iter().map(Into::into).collect(),
            ..self.args.clone()
        };
        let mut command = Command::new(&self.launcher);
        command
            .args(args.to_args())
            .current_dir(self.args.rw.as_deref().unwrap_or(Path::new("/")))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let starter = Starter {
            pending,
            host_id: self.cgroup.host_id(),
        };
        Ok((command, starter))
    }

    /// [`Confined::command`] for a bot's command line ([`bot_argv`]): under an
    /// address-space limit of `memory_mb` where no memory cgroup holds it.
    pub fn bot_command(&self, line: &str, memory_mb: u64) -> std::io::Result<(Command, Starter)> {
        let held = self.cgroup.layers().contains(&Layer::Memory);
        self.command(bot_argv(line, (!held).then_some(memory_mb)))
    }
}

/// Starts a command of [`Confined::command`] and serves its stages (as root, the user
/// namespace's maps) until the program runs.
pub struct Starter {
    pending: Pending,
    host_id: Option<u32>,
}

/// Why a confined command did not start.
#[derive(Debug)]
pub enum NotStarted<T> {
    /// The launcher could not be started.
    Spawn(std::io::Error),
    /// The stages did not build the sandbox, as they said (or did not say) on the status
    /// pipe, which the program cannot write; the launcher's process is the caller's to
    /// kill and reap.
    Stages { why: String, process: T },
}

impl Starter {
    /// Runs `spawn` (which spawns the command, std or tokio) with the control channel's
    /// ends inheritable, then waits at most `limit` for the stages, serving them. The
    /// channel returned is the process's lifeline: keep it until the process is reaped.
    pub fn start<T>(
        self,
        spawn: impl FnOnce() -> std::io::Result<T>,
        pid: impl FnOnce(&T) -> u32,
        limit: Duration,
    ) -> Result<(T, Channel), NotStarted<T>> {
        let (process, mut channel) = self.pending.spawn(spawn).map_err(NotStarted::Spawn)?;
        match channel.await_start(pid(&process), self.host_id, limit) {
            Ok(()) => Ok((process, channel)),
            Err(why) => Err(NotStarted::Stages { why, process }),
        }
    }

    /// [`Starter::start`] for a plain (non-async) caller: a sandbox that was not built is
    /// killed and reaped, and the error says why, with what the stages wrote on stderr.
    pub fn start_plain(
        self,
        command: &mut Command,
        limit: Duration,
    ) -> Result<(Child, Channel), String> {
        match self.start(|| command.spawn(), Child::id, limit) {
            Ok(started) => Ok(started),
            Err(NotStarted::Spawn(e)) => Err(format!("starting `arena __sandbox`: {e}")),
            Err(NotStarted::Stages { why, mut process }) => {
                let _ = process.kill();
                let said = process
                    .wait_with_output()
                    .map(|o| String::from_utf8_lossy(&o.stderr).trim().to_owned())
                    .unwrap_or_default();
                Err(if said.is_empty() {
                    why
                } else {
                    format!("{why} (its stderr: {said})")
                })
            }
        }
    }
}
