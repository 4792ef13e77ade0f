//! The outer stage of `arena __sandbox`: the arena's own child. It leaves the arena's
//! session, keeps only fds 0-2, joins the bot's cgroups, unshares the namespaces and
//! starts the inner stage in them. It stands for the bot: the arena waits on this
//! process, and killing it kills the namespace (the inner stage dies with its parent,
//! and every process of a PID namespace dies with its pid 1). It outlives no arena:
//! when the arena's lifeline reaches EOF, it kills the namespace and thaws the bot.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::FileExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sched::{CloneFlags, unshare};
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::{SigSet, Signal, kill, raise};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::unistd::{Pid, UnlinkatFlags, getegid, geteuid, unlinkat};

use super::control::{self, Status};
use super::{Join, Layer, SandboxArgs, StageExit, copy, fail};

/// The exit status of a sandbox that could not be built; its reason is on stderr and,
/// for the arena, on the status pipe ([`control`]), which the bot cannot write.
pub const SETUP_FAILED: i32 = 125;

pub use super::identity::BOT_ID;

pub fn run(args: SandboxArgs) -> Result<()> {
    if args.command.is_empty() {
        bail!("__sandbox needs a command after --");
    }
    // The channel's ends, reopened before every other inherited fd is closed.
    let mut status = args
        .status_fd
        .and_then(|fd| control::reopen(fd, true).ok())
        .map(Status);
    let lifeline = args
        .lifeline_fd
        .and_then(|fd| control::reopen(fd, false).ok());
    let failed = |status: &mut Option<Status>, e: anyhow::Error| {
        let why = format!("{e:#}");
        if let Some(status) = status {
            status.fail(&why);
        }
        eprintln!("arena sandbox: {why}");
        StageExit::with(SETUP_FAILED)
    };
    let Setup {
        inner: mut inner_command,
        leave_freezer,
        cgroups,
        mut lifeline,
    } = match setup(&args, status.as_ref(), lifeline) {
        Ok(setup) => setup,
        Err(e) => return failed(&mut status, e),
    };
    let null = dev_null()?;
    let mut child = match inner_command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return failed(
                &mut status,
                anyhow::anyhow!("starting the inner stage: {e}"),
            );
        }
    };
    // The inner stage says the rest: `ready` when it starts the bot, or why it cannot.
    drop(status);
    if let Some(mut procs) = leave_freezer {
        let _ = std::io::Write::write_all(&mut procs, std::process::id().to_string().as_bytes());
    }
    // The pipes are the bot's: once it is gone, the arena reads EOF at once, not after
    // this stage has cleaned up.
    release_pipes(&null);
    let (status, arena_gone) = match lifeline.take() {
        Some(lifeline) => outlive_no_arena(&mut child, lifeline, cgroups.freezer.as_ref())?,
        None => (
            child.wait().context("waiting for the inner sandbox")?,
            false,
        ),
    };
    if arena_gone {
        // No one else will remove the bot's cgroups.
        cgroups.remove();
        return StageExit::with(SETUP_FAILED);
    }
    // A build that succeeded: its folder's copy (a tmpfs in the view, this stage's root
    // since the inner stage's pivot_root) replaces the host folder (this stage's
    // working folder, which the pivot left where it was).
    if args.keep_rw && status.success() {
        let copied = args
            .rw
            .as_deref()
            .context("__sandbox needs --rw")
            .and_then(|rw| {
                copy::clear(Path::new("."))
                    .and_then(|()| copy::copy_tree(rw, Path::new("."), None))
                    .context("copying the build's folder back")
            });
        if let Err(e) = copied {
            eprintln!("arena sandbox: {e:#}");
            return StageExit::with(SETUP_FAILED);
        }
    }
    // The inner stage is pid 1 of its namespace and cannot die by its own signal: it
    // exits with 128 + the bot's signal, as a shell does.
    let signal = status.signal().or_else(|| {
        status
            .code()
            .filter(|c| (129..160).contains(c))
            .map(|c| c - 128)
    });
    match signal {
        Some(sig) => {
            if let Ok(sig) = Signal::try_from(sig) {
                // Dies as the bot died, without a core file.
                let _ = setrlimit(Resource::RLIMIT_CORE, 0, 0);
                let _ = raise(sig);
            }
            StageExit::with(128 + sig)
        }
        None => StageExit::with(status.code().unwrap_or(1)),
    }
}

/// /dev/null, opened before the inner stage starts: its `pivot_root` moves the root of
/// every process of the mount namespace, this one's too, and while it builds the view
/// there is no /dev/null to open.
pub fn dev_null() -> Result<std::fs::File> {
    std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
        .context("opening /dev/null")
}

/// Points this process's stdin and stdout at `null`.
pub fn release_pipes(null: &std::fs::File) {
    let _ = nix::unistd::dup2_stdin(null);
    let _ = nix::unistd::dup2_stdout(null);
}

/// What the outer stage holds once the inner stage may start.
struct Setup {
    inner: Command,
    /// The `cgroup.procs` of the arena's freezer cgroup, which this stage moves to.
    leave_freezer: Option<File>,
    cgroups: Joined,
    lifeline: Option<File>,
}

/// Everything before the inner stage starts.
fn setup(args: &SandboxArgs, status: Option<&Status>, lifeline: Option<File>) -> Result<Setup> {
    let mut lifeline = lifeline;
    let exe = std::env::current_exe().context("finding the arena binary")?;
    // A session of its own: no controlling terminal to open or push input into, and a
    // Ctrl-C at the operator's terminal reaches the arena, not the bot.
    nix::unistd::setsid().map_err(|e| fail(Layer::Session, format!("setsid: {e}")))?;
    let keep: Vec<i32> = status
        .map(|s| s.0.as_raw_fd())
        .into_iter()
        .chain(lifeline.as_ref().map(File::as_raw_fd))
        .collect();
    close_inherited_fds(&keep).map_err(|e| fail(Layer::Session, e))?;
    let mut leave_freezer = None;
    let mut cgroups = Joined {
        parts: Vec::new(),
        freezer: None,
        arena: nix::unistd::getppid().as_raw(),
    };
    for &Join { layer, ref file } in &args.join {
        match std::fs::write(file, std::process::id().to_string()) {
            Err(e) if !args.without.contains(&layer) => {
                return Err(fail(layer, format!("joining {}: {e}", file.display())));
            }
            Err(_) => {}
            Ok(()) => {
                cgroups.hold(layer, file);
                // The freezer need not wake this stage at every call: once the inner
                // stage has started in it, this one moves back to the arena's freezer
                // cgroup, through a file opened now (the inner stage's pivot_root will
                // have moved this process's root by then).
                if layer == Layer::Freezer {
                    leave_freezer = file.parent().and_then(Path::parent).and_then(|up| {
                        File::options()
                            .write(true)
                            .open(up.join("cgroup.procs"))
                            .ok()
                    });
                }
            }
        }
    }
    // Read before unsharing: inside, until mapped, every id reads as the overflow id.
    let (uid, gid) = (geteuid(), getegid());
    let root = uid.is_root();
    let mut flags = CloneFlags::CLONE_NEWUSER
        | CloneFlags::CLONE_NEWPID
        | CloneFlags::CLONE_NEWIPC
        | CloneFlags::CLONE_NEWNS
        | CloneFlags::CLONE_NEWUTS;
    if !args.network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags).map_err(|e| {
        let hint = match e {
            nix::Error::ENOSPC => {
                " (the user-namespace quota, /proc/sys/user/max_user_namespaces, is spent)"
            }
            nix::Error::EPERM => " (unprivileged user namespaces are off on this host)",
            _ => "",
        };
        fail(Layer::Identity, format!("unshare: {e}{hint}"))
    })?;
    if args.fail_setup {
        return Err(fail(Layer::Identity, "a fault injected by the tests"));
    }
    if root {
        // Only a process with CAP_SETUID in the parent namespace may map more than
        // itself: the arena, which this stage asks and waits for, as long as it lives
        // (the time an unshare takes under load is no failure).
        let (Some(status), Some(lifeline)) = (status, lifeline.as_mut()) else {
            return Err(fail(
                Layer::Identity,
                "no channel to the arena, which maps the user namespace",
            ));
        };
        let mut status = Status(status.0.try_clone().context("the status pipe")?);
        control::request_maps(&mut status, lifeline).map_err(|e| fail(Layer::Identity, e))?;
        let mapped = |file: &str| std::fs::read_to_string(file).is_ok_and(|m| !m.trim().is_empty());
        if !(mapped("/proc/self/uid_map") && mapped("/proc/self/gid_map")) {
            return Err(fail(
                Layer::Identity,
                "the arena did not map the user namespace",
            ));
        }
    } else {
        std::fs::write("/proc/self/setgroups", "deny")
            .and_then(|()| std::fs::write("/proc/self/uid_map", format!("0 {uid} 1")))
            .and_then(|()| std::fs::write("/proc/self/gid_map", format!("0 {gid} 1")))
            .map_err(|e| fail(Layer::Identity, format!("writing the maps: {e}")))?;
    }
    // No parent-death signal here: it would fire when the arena's thread that started
    // this stage ends, and it would kill this stage before it thaws a frozen bot. The
    // lifeline says when the arena is gone ([`outlive_no_arena`]).
    let inner = inner_command(&exe, args, root, leave_freezer.as_ref(), status)?;
    Ok(Setup {
        inner,
        leave_freezer,
        cgroups,
        lifeline,
    })
}

/// The inner stage's command: this binary (`exe`) with the arguments that concern it, the
/// maps made by the arena (`mapped`, as root), and the fds it inherits: the arena's
/// freezer cgroup to leave and the status pipe.
fn inner_command(
    exe: &Path,
    args: &SandboxArgs,
    mapped: bool,
    leave_freezer: Option<&File>,
    status: Option<&Status>,
) -> Result<Command> {
    let leave_freezer_fd = leave_freezer
        // The inner stage leaves too, once the bot runs: a file it inherits, as it
        // cannot open one inside its view.
        .map(|procs| inheritable(procs).map_err(|e| fail(Layer::Freezer, e)))
        .transpose()?;
    let status_fd = status
        .map(|status| inheritable(&status.0).map_err(|e| fail(Layer::Session, e)))
        .transpose()?;
    let inner_args = SandboxArgs {
        inner: true,
        mapped,
        rw: args.rw.clone(),
        hide: args.hide.clone(),
        ro: args.ro.clone(),
        cpu_s: args.cpu_s,
        processes: args.processes,
        disk_mb: args.disk_mb,
        network: args.network,
        keep_rw: args.keep_rw,
        leave_freezer_fd,
        status_fd,
        without: args.without.clone(),
        command: args.command.clone(),
        ..SandboxArgs::default()
    };
    let mut inner = Command::new(exe);
    inner.args(inner_args.to_args());
    Ok(inner)
}

/// `file`'s fd, which the inner stage inherits (this stage has one thread until then).
fn inheritable(file: &File) -> Result<i32, String> {
    fcntl(file, FcntlArg::F_SETFD(FdFlag::empty()))
        .map_err(|e| format!("passing an fd to the inner stage: {e}"))?;
    Ok(file.as_raw_fd())
}

/// The bot's cgroups this stage joined, held open (its root moves with the inner
/// stage's pivot_root) so that it can thaw and remove them if its arena dies.
struct Joined {
    parts: Vec<JoinedPart>,
    /// `freezer.state` (v1, false) or `cgroup.freeze` (v2, true).
    freezer: Option<(File, bool)>,
    /// The arena's pid: its frozen sentinel cgroup (`arena-PID-keep`) goes too.
    arena: i32,
}

struct JoinedPart {
    /// The folder above the bot's cgroup (the arena's), and its `cgroup.procs`.
    parent: File,
    parent_procs: Option<File>,
    name: std::ffi::OsString,
    freezer: bool,
}

impl Joined {
    /// Holds the cgroup whose `cgroup.procs` is `procs`; best effort (a cgroup it cannot
    /// hold is left to the next run's sweep).
    fn hold(&mut self, layer: Layer, procs: &Path) {
        let Some(dir) = procs.parent() else { return };
        let (Some(up), Some(name)) = (dir.parent(), dir.file_name()) else {
            return;
        };
        let Ok(parent) = File::open(up) else { return };
        if layer == Layer::Freezer {
            self.freezer = [("freezer.state", false), ("cgroup.freeze", true)]
                .into_iter()
                .find_map(|(file, v2)| {
                    let f = File::options().write(true).open(dir.join(file)).ok()?;
                    Some((f, v2))
                });
        }
        self.parts.push(JoinedPart {
            parent,
            parent_procs: File::options()
                .write(true)
                .open(up.join("cgroup.procs"))
                .ok(),
            name: name.to_owned(),
            freezer: layer == Layer::Freezer,
        });
    }

    /// Once the bot is gone: leaves the bot's cgroups and removes them.
    fn remove(&self) {
        let me = std::process::id().to_string();
        for part in &self.parts {
            if let Some(mut procs) = part.parent_procs.as_ref() {
                let _ = procs.write_all(me.as_bytes());
            }
        }
        for part in &self.parts {
            // The bot's last processes may take a moment to be reaped.
            for _ in 0..200 {
                match unlinkat(
                    &part.parent,
                    part.name.as_os_str(),
                    UnlinkatFlags::RemoveDir,
                ) {
                    Ok(()) | Err(nix::Error::ENOENT) => break,
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            if part.freezer {
                let keep = format!("arena-{}-keep", self.arena);
                let _ = unlinkat(&part.parent, keep.as_str(), UnlinkatFlags::RemoveDir);
            }
        }
    }
}

fn thaw((file, v2): &(File, bool)) {
    let text: &[u8] = if *v2 { b"0" } else { b"THAWED" };
    let _ = file.write_all_at(text, 0);
}

/// Waits for the inner stage to end, watching the lifeline meanwhile: at its EOF (the
/// arena is gone, however it died) kills the bot's namespace (its pid 1, the inner
/// stage) and thaws the bot: a frozen process cannot die, and a namespace's pid 1 waits
/// for all of them. One thread (after `unshare(CLONE_NEWPID)` this process may start no
/// other): the inner stage's end comes as SIGCHLD on a signalfd. Returns its status and
/// whether the arena is gone.
fn outlive_no_arena(
    child: &mut std::process::Child,
    lifeline: File,
    freezer: Option<&(File, bool)>,
) -> Result<(std::process::ExitStatus, bool)> {
    let mut mask = SigSet::empty();
    mask.add(Signal::SIGCHLD);
    mask.thread_block().context("blocking SIGCHLD")?;
    let signals = SignalFd::with_flags(&mask, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
        .context("a signalfd for SIGCHLD")?;
    let inner = Pid::from_raw(i32::try_from(child.id()).context("pid")?);
    let mut lifeline = Some(lifeline);
    let mut gone = false;
    loop {
        if let Some(status) = child.try_wait().context("waiting for the inner sandbox")? {
            return Ok((status, gone));
        }
        let mut fds = vec![PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
        if let Some(l) = &lifeline {
            fds.push(PollFd::new(l.as_fd(), PollFlags::POLLIN));
        }
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) | Err(nix::Error::EINTR) => {}
            Err(e) => bail!("waiting for the inner sandbox: {e}"),
        }
        let arena_ready = fds
            .get(1)
            .and_then(PollFd::revents)
            .is_some_and(|r| !r.is_empty());
        drop(fds);
        while let Ok(Some(_)) = signals.read_signal() {}
        if arena_ready && let Some(l) = lifeline.as_mut() {
            let mut chunk = [0u8; 64];
            match l.read(&mut chunk) {
                Ok(n) if n > 0 => continue,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                _ => {}
            }
            lifeline = None;
            gone = true;
            let _ = kill(inner, Signal::SIGKILL);
            if let Some(freezer) = freezer {
                thaw(freezer);
            }
        }
    }
}

/// Closes every fd but 0-2 and `keep`: the arena's own are close-on-exec, but a shell
/// may have given it more (`arena ... 7>>operator.log`), and the bot must not inherit
/// them.
fn close_inherited_fds(keep: &[i32]) -> Result<(), String> {
    let list = || -> Result<Vec<i32>, String> {
        let entries =
            std::fs::read_dir("/proc/self/fd").map_err(|e| format!("/proc/self/fd: {e}"))?;
        Ok(entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|&fd| fd > 2 && !keep.contains(&fd))
            .collect())
    };
    for fd in list()? {
        // The listing's own fd is gone by now: EBADF is expected for it.
        let _ = nix::unistd::close(fd);
    }
    // Listing again opens one fd, which must be the only one above 2.
    let left = list()?;
    if left.len() > 1 {
        return Err(format!("fds {left:?} stayed open"));
    }
    Ok(())
}
