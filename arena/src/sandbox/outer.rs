//! The outer stage of `arena __sandbox`: the arena's own child. It joins a `pids`
//! cgroup, unshares the namespaces, starts the inner stage in them and stands for it:
//! the arena waits on this process, and killing it kills the namespace (the inner stage
//! dies with its parent, and every process of a PID namespace dies with its pid 1).

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use nix::sched::{CloneFlags, unshare};
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::{Signal, raise};
use nix::unistd::{getgid, getuid};

use super::cgroup::Pids;
use super::{Enforcement, SandboxArgs};

/// Lines this stage writes to the bot's stderr when the bot hit a limit: the arena
/// classifies the forfeit as `limit` with the words that follow.
pub const LIMIT_MARKER: &str = "arena sandbox: limit: ";

pub fn run(args: SandboxArgs) -> Result<()> {
    if args.command.is_empty() && !args.probe {
        bail!("__sandbox needs a command after --");
    }
    let exe = std::env::current_exe().context("finding the arena binary")?;
    let (uid, gid) = (getuid(), getgid());
    let pids = (args.processes > 0)
        .then(|| Pids::join(args.processes))
        .flatten();
    let mut flags = CloneFlags::CLONE_NEWUSER
        | CloneFlags::CLONE_NEWPID
        | CloneFlags::CLONE_NEWIPC
        | CloneFlags::CLONE_NEWNS;
    if !args.network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    let unshared = match unshare(flags).map_err(anyhow::Error::from).and_then(|()| {
        // Root in the new user namespace (the same user outside), so the inner stage
        // may mount its /proc; Landlock then forbids any further mount.
        std::fs::write("/proc/self/setgroups", "deny")?;
        std::fs::write("/proc/self/uid_map", format!("0 {uid} 1"))?;
        std::fs::write("/proc/self/gid_map", format!("0 {gid} 1"))?;
        Ok(())
    }) {
        Ok(()) => true,
        Err(e) => {
            if !args.probe {
                eprintln!("arena sandbox: no namespaces on this machine: {e}");
            }
            false
        }
    };
    let mut inner = Command::new(exe);
    inner.args(["__sandbox", "--inner"]);
    if let Some(rw) = &args.rw {
        inner.arg("--rw").arg(rw);
    }
    for dir in &args.ro {
        inner.arg("--ro").arg(dir);
    }
    inner
        .arg("--cpu-s")
        .arg(args.cpu_s.to_string())
        .arg("--processes")
        .arg(args.processes.to_string());
    for (on, flag) in [
        (args.network, "--network"),
        (unshared, "--unshared"),
        (args.probe, "--probe"),
    ] {
        if on {
            inner.arg(flag);
        }
    }
    inner.arg("--").args(&args.command);
    if args.probe {
        let out = inner.stderr(Stdio::inherit()).output()?;
        let mut report: Enforcement =
            serde_json::from_slice(&out.stdout).context("reading the inner probe")?;
        report.process_cap = match (&pids, uid.is_root()) {
            (Some(p), _) => Some(format!("cgroup pids.max ({})", p.kind())),
            // RLIMIT_NPROC binds every user but root (kernel/fork.c).
            (None, false) => Some("RLIMIT_NPROC in its own user namespace".into()),
            (None, true) => None,
        };
        println!("{}", serde_json::to_string(&report)?);
        if let Some(p) = pids {
            p.remove();
        }
        return Ok(());
    }
    let mut child = inner.spawn().context("starting the inner sandbox")?;
    // The pipes are the bot's: once it is gone, the arena reads EOF at once, not after
    // this stage has cleaned up. Only stderr stays, for the limit lines below.
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdin(&null);
        let _ = nix::unistd::dup2_stdout(&null);
    }
    let status = child.wait().context("waiting for the inner sandbox")?;
    // The inner stage is pid 1 of its namespace and cannot die by its own signal: it
    // exits with 128 + the bot's signal, as a shell does.
    let signal = status.signal().or_else(|| {
        status
            .code()
            .filter(|c| (129..160).contains(c))
            .map(|c| c - 128)
    });
    if pids
        .as_ref()
        .and_then(Pids::times_capped)
        .is_some_and(|n| n > 0)
    {
        eprintln!(
            "{LIMIT_MARKER}the bot reached its cap of {} processes and threads",
            args.processes
        );
    }
    if signal == Some(Signal::SIGXCPU as i32) {
        eprintln!(
            "{LIMIT_MARKER}the bot used its {} s of CPU time",
            args.cpu_s
        );
    }
    if let Some(p) = pids {
        p.remove();
    }
    match signal {
        Some(sig) => {
            if let Ok(sig) = Signal::try_from(sig) {
                // Dies as the bot died, without a core file in the bot's folder.
                let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
                let _ = raise(sig);
            }
            std::process::exit(128 + sig)
        }
        None => std::process::exit(status.code().unwrap_or(1)),
    }
}
