//! The outer stage of `arena __sandbox`: the arena's own child. It leaves the arena's
//! session, keeps only fds 0-2, joins the bot's cgroups, unshares the namespaces and
//! starts the inner stage in them. It stands for the bot: the arena waits on this
//! process, and killing it kills the namespace (the inner stage dies with its parent,
//! and every process of a PID namespace dies with its pid 1).

use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use nix::sched::{CloneFlags, unshare};
use nix::sys::prctl::set_pdeathsig;
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::{Signal, raise};
use nix::unistd::{getegid, geteuid};

use super::{Layer, SandboxArgs, copy, fail, parse_join};

/// The exit status of a sandbox that could not be built; its reason is on stderr.
pub const SETUP_FAILED: i32 = 125;

/// The bot's user and group inside (outside, as root, its slot of the arena's range:
/// `super::identity`).
pub const BOT_ID: u32 = 1000;

pub fn run(args: SandboxArgs) -> Result<()> {
    if args.command.is_empty() {
        bail!("__sandbox needs a command after --");
    }
    let (inner, leave_freezer) = match setup(&args) {
        Ok(setup) => setup,
        Err(e) => {
            eprintln!("arena sandbox: {e:#}");
            std::process::exit(SETUP_FAILED);
        }
    };
    let mut inner = inner;
    let null = dev_null()?;
    let mut child = inner.spawn().context("starting the inner sandbox")?;
    if let Some(mut procs) = leave_freezer {
        let _ = std::io::Write::write_all(&mut procs, std::process::id().to_string().as_bytes());
    }
    // The pipes are the bot's: once it is gone, the arena reads EOF at once, not after
    // this stage has cleaned up.
    release_pipes(&null);
    let status = child.wait().context("waiting for the inner sandbox")?;
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
            std::process::exit(SETUP_FAILED);
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
            std::process::exit(128 + sig)
        }
        None => std::process::exit(status.code().unwrap_or(1)),
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

/// Everything before the inner stage starts; the inner stage's command.
fn setup(args: &SandboxArgs) -> Result<(Command, Option<std::fs::File>)> {
    let exe = std::env::current_exe().context("finding the arena binary")?;
    // A session of its own: no controlling terminal to open or push input into, and a
    // Ctrl-C at the operator's terminal reaches the arena, not the bot.
    nix::unistd::setsid().map_err(|e| fail(Layer::Session, format!("setsid: {e}")))?;
    close_inherited_fds().map_err(|e| fail(Layer::Session, e))?;
    let mut leave_freezer = None;
    for join in &args.join {
        let (layer, file) = parse_join(join)?;
        match std::fs::write(&file, std::process::id().to_string()) {
            Err(e) if !args.without.contains(&layer) => {
                return Err(fail(layer, format!("joining {}: {e}", file.display())));
            }
            // The freezer need not wake this stage at every call: once the inner stage
            // has started in it, this one moves back to the arena's freezer cgroup,
            // through a file opened now (the inner stage's pivot_root will have moved
            // this process's root by then).
            Ok(()) if layer == Layer::Freezer => {
                leave_freezer = file.parent().and_then(Path::parent).and_then(|up| {
                    std::fs::File::options()
                        .write(true)
                        .open(up.join("cgroup.procs"))
                        .ok()
                });
            }
            _ => {}
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
    if root {
        // Only a process with CAP_SETUID in the parent namespace may map more than
        // itself: the arena, which waits for this unshare ([`map_when_unshared`]).
        wait_for_maps().map_err(|e| fail(Layer::Identity, e))?;
    } else {
        std::fs::write("/proc/self/setgroups", "deny")
            .and_then(|()| std::fs::write("/proc/self/uid_map", format!("0 {uid} 1")))
            .and_then(|()| std::fs::write("/proc/self/gid_map", format!("0 {gid} 1")))
            .map_err(|e| fail(Layer::Identity, format!("writing the maps: {e}")))?;
    }
    // Dies with the arena, and with it the bot's namespace.
    let _ = set_pdeathsig(Signal::SIGKILL);
    let mut inner = Command::new(exe);
    inner.args(["__sandbox", "--inner"]);
    if root {
        inner.arg("--mapped");
    }
    if let Some(rw) = &args.rw {
        inner.arg("--rw").arg(rw);
    }
    if let Some(hide) = &args.hide {
        inner.arg("--hide").arg(hide);
    }
    for path in &args.ro {
        inner.arg("--ro").arg(path);
    }
    for (flag, value) in [
        ("--cpu-s", args.cpu_s),
        ("--processes", args.processes),
        ("--disk-mb", args.disk_mb),
    ] {
        inner.arg(flag).arg(value.to_string());
    }
    if args.network {
        inner.arg("--network");
    }
    if args.keep_rw {
        inner.arg("--keep-rw");
    }
    if let Some(procs) = &leave_freezer {
        // The inner stage leaves too, once the bot runs: a file it inherits, as it
        // cannot open one inside its view.
        let fd = procs.as_raw_fd();
        fcntl(procs, FcntlArg::F_SETFD(FdFlag::empty()))
            .map_err(|e| fail(Layer::Freezer, format!("passing the freezer's file: {e}")))?;
        inner.arg("--leave-freezer-fd").arg(fd.to_string());
    }
    for layer in &args.without {
        inner.arg("--without").arg(layer.id());
    }
    inner.arg("--").args(&args.command);
    Ok((inner, leave_freezer))
}

/// Closes every fd but 0-2: the arena's own are close-on-exec, but a shell may have
/// given it more (`arena ... 7>>operator.log`), and the bot must not inherit them.
fn close_inherited_fds() -> Result<(), String> {
    let list = || -> Result<Vec<i32>, String> {
        let entries =
            std::fs::read_dir("/proc/self/fd").map_err(|e| format!("/proc/self/fd: {e}"))?;
        Ok(entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|&fd| fd > 2)
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

/// How long either side waits for the other while the maps are written.
const MAP_WAIT: Duration = Duration::from_secs(5);
const MAP_POLL: Duration = Duration::from_micros(20);

/// Waits (as root) until the arena has written this process's user namespace maps.
fn wait_for_maps() -> Result<(), String> {
    let began = Instant::now();
    while began.elapsed() < MAP_WAIT {
        let mapped = |file: &str| std::fs::read_to_string(file).is_ok_and(|m| !m.trim().is_empty());
        // Both: a process whose group is not mapped cannot even make a folder in its tmpfs.
        if mapped("/proc/self/uid_map") && mapped("/proc/self/gid_map") {
            return Ok(());
        }
        std::thread::sleep(MAP_POLL);
    }
    Err("the arena did not map the user namespace".into())
}

/// The arena's half, as root: once the outer stage `pid` has unshared its user namespace,
/// maps root inside to root outside (the inner stage sets the bot's view up as root of
/// the namespace) and the bot's user and group, 1000 inside, to `host_id` outside (its
/// own, `super::identity`; `None`: none was taken, nothing is mapped and the stage fails
/// closed). A stage that ends before it unshares (a setup failure) is left to say why.
pub fn map_when_unshared(pid: u32, host_id: Option<u32>) {
    let Some(host_id) = host_id.filter(|_| geteuid().is_root()) else {
        return;
    };
    let ours = std::fs::read_link("/proc/self/ns/user").ok();
    let began = Instant::now();
    while began.elapsed() < MAP_WAIT {
        match std::fs::read_link(format!("/proc/{pid}/ns/user")) {
            Ok(theirs) if Some(&theirs) != ours.as_ref() => {
                let map = format!("0 0 1\n{BOT_ID} {host_id} 1\n");
                let _ = std::fs::write(format!("/proc/{pid}/gid_map"), &map);
                let _ = std::fs::write(format!("/proc/{pid}/uid_map"), &map);
                return;
            }
            Ok(_) => std::thread::sleep(MAP_POLL),
            Err(_) => return,
        }
    }
}
