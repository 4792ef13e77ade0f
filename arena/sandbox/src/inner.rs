//! The inner stage of `arena __sandbox`: pid 1 of the bot's new PID namespace, root of
//! its user namespace. It builds the bot's filesystem view and enters it, becomes an
//! unprivileged user, applies Landlock, the limits and the seccomp filter, starts the
//! bot as pid 2 and waits for it, reaping orphans as an init does. When the bot ends,
//! this stage exits and the kernel kills every process the bot left in the namespace.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use landlock::{
    ABI, Access, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
    path_beneath_rules,
};
use nix::sched::{CloneFlags, unshare};
use nix::sys::prctl::{set_dumpable, set_no_new_privs, set_pdeathsig};
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitStatus, wait};
use nix::unistd::{Gid, Pid, Uid, getuid, setgroups, setresgid, setresuid};

use super::control::{self, Status};
use super::outer::{BOT_ID, SETUP_FAILED, dev_null, release_pipes};
use super::{Layer, SandboxArgs, StageExit, fail, filter, view};

/// The newest Landlock ABI this code asks for; older kernels get what they support.
const ABI_WANTED: ABI = ABI::V6;

pub fn run(args: SandboxArgs) -> Result<()> {
    // Dies with the outer stage (the arena's kill), and so does the whole namespace.
    let _ = set_pdeathsig(Signal::SIGKILL);
    let Some((program, rest)) = args.command.split_first() else {
        bail!("__sandbox needs a command after --");
    };
    // The bot must not inherit the arena's cgroup file (it could leave its cgroups),
    // nor the status pipe (it could speak for the sandbox): both close on its exec.
    let leave_freezer = args.leave_freezer_fd.and_then(own_fd);
    let mut status = args
        .status_fd
        .and_then(|fd| control::reopen(fd, true).ok())
        .map(Status);
    let workdir = match setup(&args) {
        Ok(dir) => dir,
        Err(e) => {
            let why = format!("{e:#}");
            if let Some(status) = &mut status {
                status.fail(&why);
            }
            eprintln!("arena sandbox: {why}");
            return StageExit::with(SETUP_FAILED);
        }
    };
    let null = dev_null()?;
    // From here on a failure is the bot's: its program missing, not executable.
    if let Some(mut status) = status.take() {
        status.say(control::READY);
    }
    // Reaped by the loop below, which waits for every process as an init does.
    #[allow(clippy::zombie_processes)]
    let bot = match Command::new(program)
        .args(rest)
        .current_dir(&workdir)
        .spawn()
    {
        Ok(bot) => bot,
        Err(e) => {
            // As `sh` says it, with its exit status: the bot's command line may have
            // come here without a shell (the arena's runtime of external agents runs
            // plain words directly).
            let (why, status) = match e.kind() {
                std::io::ErrorKind::NotFound => ("not found".to_owned(), 127),
                _ => (e.to_string(), 126),
            };
            eprintln!("{}: {why}", program.to_string_lossy());
            return StageExit::with(status);
        }
    };
    // The pipes are the bot's alone: a bot that closes its stdout is seen as gone at
    // once, not after its call's time runs out.
    release_pipes(&null);
    // Born in the freezer's cgroup, the bot stays there; this stage leaves it, so a
    // freeze and a thaw wake the bot's processes only, not this one waiting for them.
    if let Some(mut procs) = leave_freezer {
        let _ = std::io::Write::write_all(&mut procs, b"0");
    }
    let bot = Pid::from_raw(i32::try_from(bot.id()).context("pid")?);
    loop {
        match wait() {
            Ok(WaitStatus::Exited(pid, code)) if pid == bot => return StageExit::with(code),
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == bot => {
                return StageExit::with(128 + sig as i32);
            }
            Ok(_) => {}
            Err(e) => bail!("waiting for the bot: {e}"),
        }
    }
}

/// Reopens the inherited fd `fd` as a file closed on exec, and closes `fd`.
fn own_fd(fd: i32) -> Option<std::fs::File> {
    // The host's /proc still shows this process here, before the view is built.
    let file = std::fs::File::options()
        .write(true)
        .open(format!("/proc/self/fd/{fd}"))
        .ok();
    let _ = nix::unistd::close(fd);
    file
}

/// Every layer the inner stage applies, in order; the bot's working folder.
fn setup(args: &SandboxArgs) -> Result<PathBuf> {
    if std::process::id() != 1 {
        return Err(fail(
            Layer::Pid,
            "the inner stage is not pid 1 of a new PID namespace",
        ));
    }
    // Its own cgroup namespace, here rather than in the outer stage, which leaves the
    // freezer's cgroup once this stage is in it (a namespace root would stop it).
    unshare(CloneFlags::CLONE_NEWCGROUP)
        .map_err(|e| fail(Layer::Pid, format!("a cgroup namespace: {e}")))?;
    let workdir = args.rw.clone().context("__sandbox needs --rw")?;
    view::build(&view::Plan {
        workdir: &workdir,
        hide: args.hide.as_deref(),
        read: &args.ro,
        disk_mb: args.disk_mb,
        bot_owned: args.mapped,
        keep_workdir: args.keep_rw,
    })
    .map_err(|e| fail(Layer::Filesystem, format!("{e:#}")))?;
    let _ = nix::unistd::sethostname("arena");
    become_bot(args.mapped).map_err(|e| fail(Layer::Identity, e))?;
    // The credentials changed, which clears the parent-death signal.
    let _ = set_pdeathsig(Signal::SIGKILL);
    // This stage leaves the freezer's cgroup once the bot runs, as the bot's user: not
    // dumpable, so the bot cannot open its memory (`/proc/1/mem`) to run code between
    // its calls (seccomp and Landlock stand in the way too). The bot's exec resets it.
    set_dumpable(false).map_err(|e| fail(Layer::Identity, format!("set_dumpable: {e}")))?;
    // A second wall behind the view, where the kernel has Landlock; the view is the
    // first, so an old kernel loses nothing the probe would report.
    let _ = landlock(&workdir, args.network);
    // No core files: a crashing bot would fill its folder.
    setrlimit(Resource::RLIMIT_CORE, 0, 0).context("RLIMIT_CORE")?;
    if args.cpu_s > 0 {
        // SIGXCPU at the soft limit, SIGKILL a second later for a bot that ignores it.
        setrlimit(Resource::RLIMIT_CPU, args.cpu_s, args.cpu_s + 1).context("RLIMIT_CPU")?;
    }
    if args.processes > 0 {
        // A second cap behind the pids cgroup: per user of this namespace.
        setrlimit(Resource::RLIMIT_NPROC, args.processes, args.processes)
            .context("RLIMIT_NPROC")?;
    }
    limit_shared_counters()?;
    set_no_new_privs().map_err(|e| fail(Layer::Identity, format!("no_new_privs: {e}")))?;
    if let Err(e) = filter::apply()
        && !args.without.contains(&Layer::Seccomp)
    {
        return Err(fail(Layer::Seccomp, e));
    }
    Ok(workdir)
}

/// Limits on what every bot draws from the same machine-wide or per-user counters (each
/// bot is its own host uid outside, or the arena's user): soft and hard alike, so the bot cannot
/// raise them. Set before the seccomp filter, which lets the bot lower them only.
fn limit_shared_counters() -> Result<()> {
    // The host's file table (fs.file-max) is one for the machine: one bot's processes
    // held 1,000,000 open files. 1024 is the usual soft default (and select's
    // FD_SETSIZE); times the pids cap (64 by default), a bot holds at most 65,536.
    setrlimit(Resource::RLIMIT_NOFILE, 1024, 1024).context("RLIMIT_NOFILE")?;
    // POSIX message queues' bytes are counted per user up to the host's: none (seccomp
    // refuses mq_open too; this holds where an operator runs without it).
    setrlimit(Resource::RLIMIT_MSGQUEUE, 0, 0).context("RLIMIT_MSGQUEUE")?;
    // Queued real-time signals are counted per user up to the host's (ulimit -i): a few
    // per thread is all a C library needs (glibc's setxid broadcast is one a thread).
    setrlimit(Resource::RLIMIT_SIGPENDING, 1024, 1024).context("RLIMIT_SIGPENDING")?;
    // Locked pages cannot be reclaimed, and SHM_LOCK is charged to the host's user:
    // 64 KiB, enough for the few pages a crypto library locks.
    setrlimit(Resource::RLIMIT_MEMLOCK, 64 << 10, 64 << 10).context("RLIMIT_MEMLOCK")?;
    // RLIMIT_LOCKS is not set: Linux has ignored it since 2.4.25. Locks come with open
    // files (RLIMIT_NOFILE), and their memory is charged to the memory cgroup (Linux 5.13 on).
    Ok(())
}

/// Becomes the bot's user: 1000 with no groups where the namespace maps it (the arena
/// runs as root: 1000 is the sandbox's own host user outside); else, in a nested user
/// namespace, 1000 mapped to this namespace's root (the arena's own user outside).
/// Either way the bot's exec leaves it no capability.
fn become_bot(mapped: bool) -> Result<(), String> {
    let id = BOT_ID;
    if mapped {
        setgroups(&[]).map_err(|e| format!("setgroups: {e}"))?;
        setresgid(Gid::from_raw(id), Gid::from_raw(id), Gid::from_raw(id))
            .map_err(|e| format!("setresgid: {e}"))?;
        setresuid(Uid::from_raw(id), Uid::from_raw(id), Uid::from_raw(id))
            .map_err(|e| format!("setresuid: {e}"))?;
    } else {
        unshare(CloneFlags::CLONE_NEWUSER).map_err(|e| format!("unshare: {e}"))?;
        std::fs::write("/proc/self/setgroups", "deny")
            .and_then(|()| std::fs::write("/proc/self/uid_map", format!("{id} 0 1")))
            .and_then(|()| std::fs::write("/proc/self/gid_map", format!("{id} 0 1")))
            .map_err(|e| format!("writing the nested maps: {e}"))?;
    }
    if getuid().is_root() {
        return Err("still root".into());
    }
    Ok(())
}

/// Landlock inside the view: read and execute everything in it, write the working
/// folder, `/tmp` and `/dev`; no TCP unless `network`; no signal or abstract socket
/// outside. Also forbids mount and umount.
fn landlock(workdir: &Path, network: bool) -> Result<()> {
    let abi = ABI_WANTED;
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if !network {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    ruleset
        .scope(Scope::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(
            [workdir, Path::new("/tmp"), Path::new("/dev")],
            AccessFs::from_all(abi),
        ))?
        .restrict_self()?;
    Ok(())
}
