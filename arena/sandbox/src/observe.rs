//! The probe: a throwaway sandbox built exactly as for a bot, whose "bot" is
//! `arena __sandbox --observe`. From inside, the observer checks what a bot would see
//! (its session and fds, its user and capabilities, its filesystem, its processes, its
//! network, its seccomp filter) and reports its namespaces; from outside, the arena
//! compares those namespaces with its own and checks the cgroups: the probe is in them,
//! and the freezer stops it. What `arena doctor`, run.log and manifest.json say is this.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::{
    BotCgroup, Confined, Enforcement, Layer, Policy, STAGES_LIMIT, SandboxArgs, mountinfo, view,
};

/// What the observer saw: each checked layer's failure (`None`: it held), and its
/// namespaces (`ipc:[4026531839]`).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Observed {
    checks: BTreeMap<String, Option<String>>,
    namespaces: BTreeMap<String, String>,
}

const NAMESPACES: [&str; 4] = ["pid", "net", "ipc", "user"];

fn status_field(name: &str) -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(|v| v.trim().to_owned())
}

fn check(ok: bool, why: impl FnOnce() -> String) -> Option<String> {
    (!ok).then(why)
}

fn session() -> Option<String> {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Field 7, after the command name in parentheses: the controlling terminal.
    let tty = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(4))
        .unwrap_or("?");
    if tty != "0" {
        return Some(format!("a controlling terminal ({tty})"));
    }
    if std::fs::File::open("/dev/tty").is_ok() {
        return Some("/dev/tty opens".into());
    }
    let fds: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    // 0-2, and the listing's own.
    check(fds.len() <= 4, || format!("fds open: {fds:?}"))
}

fn identity() -> Option<String> {
    let uid = nix::unistd::getuid();
    let gid = nix::unistd::getgid();
    if uid.is_root() || nix::unistd::geteuid().is_root() || gid.as_raw() == 0 {
        return Some(format!("runs as uid {uid} gid {gid}"));
    }
    for field in ["CapEff", "CapPrm", "CapAmb"] {
        let caps = status_field(field).unwrap_or_default();
        if caps.trim_start_matches('0').is_empty() {
            continue;
        }
        return Some(format!("{field} {caps}"));
    }
    check(status_field("NoNewPrivs").as_deref() == Some("1"), || {
        "no_new_privs is not set".into()
    })
}

fn filesystem(hidden: Option<&Path>) -> Option<String> {
    if let Some(hidden) = hidden {
        let visible = std::fs::read_dir(hidden).is_ok_and(|mut d| d.next().is_some());
        if visible && hidden.join("config.toml").exists() {
            return Some(format!("{} is readable", hidden.display()));
        }
    }
    let mut dev: Vec<String> = std::fs::read_dir("/dev")
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    dev.sort();
    let allowed = |n: &String| {
        view::DEVICES.contains(&n.as_str())
            || ["fd", "stdin", "stdout", "stderr", "shm"].contains(&n.as_str())
    };
    if let Some(extra) = dev.iter().find(|n| !allowed(n)) {
        return Some(format!("/dev holds {extra}"));
    }
    let mounts = mountinfo::read().unwrap_or_default();
    // The last mount listed at a point is the one on top.
    let fstype = |point: &str| {
        mounts
            .iter()
            .rev()
            .find(|m| m.point == Path::new(point))
            .map(|m| m.fstype.as_str())
    };
    for point in ["/", "/tmp", "/dev/shm"] {
        if fstype(point) != Some("tmpfs") {
            return Some(format!("{point} is not a private tmpfs"));
        }
    }
    if std::fs::write("probe.txt", "x").is_err() {
        return Some("the working folder is not writable".into());
    }
    let _ = std::fs::remove_file("probe.txt");
    check(std::fs::write("/usr/arena-probe", "x").is_err(), || {
        "/usr is writable".into()
    })
}

fn pid() -> Option<String> {
    let pids = std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
                .count()
        })
        .unwrap_or(usize::MAX);
    // The inner stage (1) and this observer.
    check(pids <= 3 && std::process::id() <= 3, || {
        format!("sees {pids} processes, is pid {}", std::process::id())
    })
}

fn network() -> Option<String> {
    let dev = std::fs::read_to_string("/proc/net/dev").unwrap_or_default();
    let interfaces: Vec<&str> = dev
        .lines()
        .skip(2)
        .filter_map(|l| l.split(':').next().map(str::trim))
        .collect();
    check(interfaces.iter().all(|i| *i == "lo"), || {
        format!("interfaces {interfaces:?}")
    })
}

fn seccomp() -> Option<String> {
    if status_field("Seccomp").as_deref() != Some("2") {
        return Some("no seccomp filter".into());
    }
    check(
        nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWUSER).is_err(),
        || "a new user namespace was allowed".into(),
    )
}

/// `arena __sandbox --observe`: inside the probe sandbox, prints what it observed as one
/// JSON line, then waits for EOF on stdin (the arena checks the cgroups meanwhile).
pub fn report(hidden: Option<&Path>) -> Result<()> {
    let mut observed = Observed::default();
    for (layer, result) in [
        (Layer::Session, session()),
        (Layer::Identity, identity()),
        (Layer::Filesystem, filesystem(hidden)),
        (Layer::Pid, pid()),
        (Layer::Network, network()),
        (Layer::Seccomp, seccomp()),
    ] {
        observed.checks.insert(layer.id().into(), result);
    }
    observed.namespaces = own_namespaces();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(&observed)?)?;
    out.flush()?;
    let mut rest = String::new();
    let _ = std::io::stdin().read_line(&mut rest);
    Ok(())
}

fn own_namespaces() -> BTreeMap<String, String> {
    NAMESPACES
        .iter()
        .filter_map(|ns| {
            let link = std::fs::read_link(format!("/proc/self/ns/{ns}")).ok()?;
            Some((ns.to_string(), link.display().to_string()))
        })
        .collect()
}

/// Runs the probe sandbox under `policy` and says what held.
pub fn probe(exe: &Path, policy: &Policy) -> Result<Enforcement> {
    let scratch = tempfile_dir()?;
    let run_dir = scratch.join("run");
    let workdir = run_dir.join("agents").join("probe");
    std::fs::create_dir_all(&workdir)?;
    // What a run directory holds: the observer must not see it.
    std::fs::write(run_dir.join("config.toml"), "seed = 0\n")?;
    let result = probe_in(exe, policy, &run_dir, &workdir);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn tempfile_dir() -> Result<std::path::PathBuf> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "arena-probe-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

fn probe_in(exe: &Path, policy: &Policy, run_dir: &Path, workdir: &Path) -> Result<Enforcement> {
    let mut policy = policy.clone();
    policy.read = super::read_paths_for(&exe.display().to_string());
    // The probe runs every layer it can, to report each; the run decides what to accept.
    // Only the identity layer is refused then: without a host user of its own, as root,
    // nothing would map the probe's namespace.
    policy.without = Layer::ALL.into_iter().filter(|l| l.may_be_lost()).collect();
    let confined = Confined::new(exe, &policy, workdir)
        .map_err(|refused| anyhow::anyhow!(refused.why))?
        .hiding(run_dir);
    let observing = SandboxArgs {
        observe: true,
        hidden: Some(run_dir.to_owned()),
        ..SandboxArgs::default()
    };
    let (mut command, starter) = confined
        .command(std::iter::once(exe.as_os_str().to_owned()).chain(observing.to_args()))
        .context("the sandbox's control pipes")?;
    let (mut child, _lifeline) = starter
        .start_plain(&mut command, STAGES_LIMIT)
        .map_err(anyhow::Error::msg)?;
    let (cgroup, missing) = (confined.cgroup(), confined.lost());
    let mut line = String::new();
    let stdout = child.stdout.take().context("the probe's stdout")?;
    BufReader::new(stdout).read_line(&mut line)?;
    let observed: Observed = match serde_json::from_str(&line) {
        Ok(o) => o,
        Err(_) => {
            let _ = child.kill();
            let out = child.wait_with_output()?;
            bail!(
                "{}",
                String::from_utf8_lossy(&out.stderr)
                    .trim()
                    .trim_start_matches("arena sandbox: ")
            );
        }
    };
    let outside = Outside::check(child.id(), cgroup);
    drop(child.stdin.take());
    let _ = child.wait();
    Ok(judge(&observed, &outside, cgroup, missing, &policy))
}

/// What the arena checks from outside while the observer waits.
struct Outside {
    /// The freezer stopped every process of the probe.
    frozen: bool,
    /// The observer is in every cgroup of the set.
    inside: bool,
    /// The observer's user on the host.
    host_user: Option<u32>,
}

impl Outside {
    /// Checks the sandbox whose outer stage is `outer`: the cgroups hold the observer,
    /// and the freezer stops it.
    fn check(outer: u32, cgroup: &BotCgroup) -> Outside {
        let frozen = {
            cgroup.freeze();
            let mut seen = false;
            // Frozen once every process has stopped: on a loaded machine a runnable process
            // may wait for a core for a while (200 ms was seen to be too short at load 15).
            for _ in 0..1000 {
                if cgroup.is_frozen() == Some(true) {
                    seen = true;
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            cgroup.thaw();
            seen
        };
        // The observer, the inner stage's child as a bot is, holds every cgroup of the set
        // (the outer and the inner stage leave the freezer's once they have started it).
        let child_of = |pid: u32| -> Option<u32> {
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
                .ok()?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        };
        let observer = child_of(outer).and_then(child_of);
        let inside = observer.is_some_and(|pid| cgroup.holds(pid));
        // As root, the observer's user on the host is the sandbox's own.
        let host_user = observer.and_then(|pid| {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))?
                .split_whitespace()
                .next()?
                .parse::<u32>()
                .ok()
        });
        Outside {
            frozen,
            inside,
            host_user,
        }
    }
}

/// Each layer, from the cgroups' setup (`missing`: the layers that could not be made),
/// what the observer saw inside and what the arena saw outside.
fn judge(
    observed: &Observed,
    outside: &Outside,
    cgroup: &BotCgroup,
    missing: &[(Layer, String)],
    policy: &Policy,
) -> Enforcement {
    let mut report = Enforcement::default();
    let Outside {
        frozen,
        inside,
        host_user,
    } = *outside;
    let held = |layer: Layer| inside && cgroup.layers().contains(&layer);
    for (layer, why) in missing {
        report.set(*layer, Err(why.clone()));
    }
    for layer in [Layer::Memory, Layer::Processes, Layer::Cpu, Layer::Io] {
        if !missing.iter().any(|(l, _)| *l == layer) {
            report.set(
                layer,
                if !held(layer) {
                    Err("the probe was not in its cgroup".into())
                } else if layer == Layer::Io && !cgroup.io_throttled() {
                    Err("the probe's cgroup does not throttle every disk".into())
                } else {
                    Ok(())
                },
            );
        }
    }
    if !missing.iter().any(|(l, _)| *l == Layer::Freezer) {
        report.set(
            Layer::Freezer,
            if frozen && held(Layer::Freezer) {
                Ok(())
            } else {
                Err("the freezer did not stop the probe".into())
            },
        );
    }
    for (id, why) in &observed.checks {
        if let Ok(layer) = id.parse::<Layer>() {
            report.set(layer, why.clone().map_or(Ok(()), Err));
        }
    }
    let ours = own_namespaces();
    for (layer, ns) in [
        (Layer::Pid, "pid"),
        (Layer::Network, "net"),
        (Layer::Ipc, "ipc"),
        (Layer::Identity, "user"),
    ] {
        let theirs = observed.namespaces.get(ns);
        if theirs.is_none() || theirs == ours.get(ns) {
            report.set(
                layer,
                Err(format!("the probe shares the arena's {ns} namespace")),
            );
        } else if layer == Layer::Ipc {
            report.set(layer, Ok(()));
        }
    }
    if let Some(own) = cgroup.host_id()
        && host_user != Some(own)
        && report.holds(Layer::Identity)
    {
        report.set(
            Layer::Identity,
            Err(format!(
                "the probe ran as host user {host_user:?}, not its own ({own})"
            )),
        );
    }
    if policy.network {
        report.set(
            Layer::Network,
            Err("limits.network = true grants the network".into()),
        );
    }
    report
}
