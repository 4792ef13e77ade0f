//! The inner stage of `arena __sandbox`: pid 1 of the bot's new PID namespace. It
//! mounts a `/proc` of its own, sets the limits, applies Landlock, starts the bot as
//! pid 2 and waits for it, reaping orphans as an init does. When the bot ends, this
//! stage exits and the kernel kills every process the bot left in the namespace.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, path_beneath_rules,
};
use nix::mount::{MsFlags, mount};
use nix::sys::prctl::set_pdeathsig;
use nix::sys::resource::{Resource, setrlimit};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitStatus, wait};
use nix::unistd::Pid;

use super::{Enforcement, SandboxArgs};

/// Directories every bot may read and execute. `/proc` only where it is the bot's own.
const SYSTEM_READ: [&str; 9] = [
    "/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/sys",
];

/// The newest Landlock ABI this code asks for; older kernels get what they support.
const ABI_WANTED: ABI = ABI::V6;

pub fn run(args: SandboxArgs) -> Result<()> {
    // Dies with the outer stage (the arena's kill), and so does the whole namespace.
    let _ = set_pdeathsig(Signal::SIGKILL);
    let own_proc = args.unshared && std::process::id() == 1 && mount_own_proc().is_ok();
    // No core files: a crashing bot would fill its folder.
    setrlimit(Resource::RLIMIT_CORE, 0, 0).context("RLIMIT_CORE")?;
    if args.cpu_s > 0 {
        // SIGXCPU at the soft limit, SIGKILL a second later for a bot that ignores it.
        setrlimit(Resource::RLIMIT_CPU, args.cpu_s, args.cpu_s + 1).context("RLIMIT_CPU")?;
    }
    if args.processes > 0 {
        // Per user in this user namespace; the kernel exempts root (kernel/fork.c), where
        // the outer stage's pids cgroup does the work.
        setrlimit(Resource::RLIMIT_NPROC, args.processes, args.processes)
            .context("RLIMIT_NPROC")?;
    }
    let rw: Vec<PathBuf> = args.rw.iter().cloned().collect();
    let (status, abi) =
        restrict(&rw, &args.ro, args.network, own_proc).context("applying Landlock")?;
    let enforced = status != RulesetStatus::NotEnforced;
    if args.probe {
        let report = Enforcement {
            files: enforced,
            own_processes: own_proc,
            no_network: args.unshared && !args.network,
            own_ipc: args.unshared,
            tcp_rules: enforced && abi >= 4,
            scoped: enforced && abi >= 6,
            process_cap: None,
            landlock_abi: abi,
        };
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let Some((program, rest)) = args.command.split_first() else {
        bail!("__sandbox needs a command after --");
    };
    let bot = Command::new(program)
        .args(rest)
        .spawn()
        .with_context(|| format!("executing {program}"))?;
    let bot = Pid::from_raw(i32::try_from(bot.id()).context("pid")?);
    loop {
        match wait() {
            Ok(WaitStatus::Exited(pid, code)) if pid == bot => std::process::exit(code),
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == bot => {
                std::process::exit(128 + sig as i32)
            }
            Ok(_) => {}
            Err(e) => bail!("waiting for the bot: {e}"),
        }
    }
}

/// A fresh procfs for this PID namespace over `/proc`, in a mount namespace of its own
/// whose changes do not propagate back.
fn mount_own_proc() -> nix::Result<()> {
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )?;
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
}

/// Landlock: read the system (and `/proc` when it is the bot's own), read `ro`, write
/// `rw` and /dev; no TCP unless `network`; no signal or abstract socket outside. Also
/// forbids mount and umount, so the bot cannot uncover the arena's `/proc`. Returns the
/// ruleset's status and the ABI the kernel speaks.
fn restrict(
    rw: &[PathBuf],
    ro: &[PathBuf],
    network: bool,
    own_proc: bool,
) -> Result<(RulesetStatus, u8)> {
    let abi = ABI_WANTED;
    let system: Vec<&str> = SYSTEM_READ
        .iter()
        .copied()
        .chain(own_proc.then_some("/proc"))
        .filter(|p| Path::new(p).exists())
        .collect();
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(abi))?;
    if !network {
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    let status = ruleset
        .scope(Scope::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(system, AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(ro, AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(["/dev"], AccessFs::from_all(abi)))?
        .add_rules(path_beneath_rules(rw, AccessFs::from_all(abi)))?
        .restrict_self()?;
    let kernel_abi = match status.landlock {
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => kernel_abi.map_or(effective_abi as i32, |k| k.max(effective_abi as i32)),
        _ => 0,
    };
    Ok((status.ruleset, u8::try_from(kernel_abi).unwrap_or(u8::MAX)))
}
