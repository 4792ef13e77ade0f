//! A bot's cgroups: made by the arena before it starts the bot, joined by the sandbox's
//! outer stage before anything else runs, read back by the arena for its verdicts and
//! removed by it once the bot is reaped.
//!
//! One cgroup per bot process and controller, so every process of the bot counts
//! together: `memory` (its limit, tmpfs pages included; the OOM killer's count is the
//! memory verdict), `pids` (the cap on processes and threads), `cpu` (at most one core),
//! `blkio` (v1) or `io` (v2), which throttles its reads and writes on the host's disks,
//! and the freezer (the bot is frozen while it waits for its next call). Each controller
//! comes from the cgroup v1 hierarchy that holds it where there is one (this project's
//! CI machines), else from cgroup v2's unified hierarchy (most distributions).
//!
//! The set also holds the sandbox's host user ([`identity`], as root), so that a slot of
//! the arena's uid range is given back only once the cgroups, and so every process of
//! the bot, are gone.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::Layer;
use super::identity::{self, Slot};
use super::mountinfo;

/// What a bot's cgroups hold it to.
#[derive(Clone, Copy, Debug)]
pub struct Caps {
    pub memory_mb: u64,
    /// Processes and threads (0: no cap).
    pub processes: u64,
}

/// One controller's cgroup of a bot.
struct Part {
    layer: Layer,
    dir: PathBuf,
    v2: bool,
}

/// The cgroups of one bot process, removed when dropped.
pub struct BotCgroup {
    parts: Vec<Part>,
    /// `freezer.state` (v1) or `cgroup.freeze` (v2), kept open: a call's freeze and thaw
    /// are one write each.
    freezer: Option<(File, bool)>,
    /// The sandbox's uid and gid outside (as root; `None` otherwise).
    slot: Option<Slot>,
}

/// Where a controller lives: the folder of this process's cgroup in that hierarchy.
struct Hierarchy {
    own: PathBuf,
    v2: bool,
}

/// This process's cgroup folder for each layer, from `/proc/self/mountinfo` and
/// `/proc/self/cgroup`: the v1 hierarchy that holds the controller, else v2's.
fn hierarchy(layer: Layer) -> Option<Hierarchy> {
    let controller = controller_of(layer, false);
    let mounts = mountinfo::read().ok()?;
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut v2_mount = None;
    for mount in &mounts {
        if mount.fstype == "cgroup2" {
            v2_mount.get_or_insert(mount);
        } else if mount.fstype == "cgroup"
            && mount.super_options.split(',').any(|o| o == controller)
        {
            let path = own.lines().find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, list, path) = (parts.next()?, parts.next()?, parts.next()?);
                list.split(',').any(|c| c == controller).then_some(path)
            })?;
            return Some(Hierarchy {
                own: join_under(&mount.point, &mount.root, path),
                v2: false,
            });
        }
    }
    let v2_mount = v2_mount?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let own = join_under(&v2_mount.point, &v2_mount.root, path);
    // The freezer is part of every v2 cgroup; the other controllers must be offered.
    if layer != Layer::Freezer {
        let offered = std::fs::read_to_string(own.join("cgroup.controllers")).ok()?;
        if !offered
            .split_whitespace()
            .any(|c| c == controller_of(layer, true))
        {
            return None;
        }
    }
    Some(Hierarchy { own, v2: true })
}

/// The folder of cgroup `path` in a hierarchy mounted at `point` whose root is `root`.
fn join_under(point: &Path, root: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    let rel = path.strip_prefix(root).unwrap_or(path);
    point.join(rel.strip_prefix("/").unwrap_or(rel))
}

/// The controller of a cgroup layer, in cgroup v1 or (`v2`) in v2, which renamed one.
fn controller_of(layer: Layer, v2: bool) -> &'static str {
    match layer {
        Layer::Memory => "memory",
        Layer::Processes => "pids",
        Layer::Cpu => "cpu",
        Layer::Io if v2 => "io",
        Layer::Io => "blkio",
        _ => "freezer",
    }
}

/// The cgroup layers, in the order they are made.
pub const LAYERS: [Layer; 5] = [
    Layer::Memory,
    Layer::Processes,
    Layer::Cpu,
    Layer::Io,
    Layer::Freezer,
];

/// What the io layer allows a bot on each disk, reads and writes each: about what a
/// program reading its files needs, and a fraction of a disk's bandwidth (a bot reading
/// with `O_DIRECT` took 490-656 MiB/s of this host's disk before).
const IO_BYTES_PER_S: u64 = 50 << 20;
const IO_OPS_PER_S: u64 = 1000;

/// The disks a bot could read through its view: every block device a filesystem of the
/// host is mounted from (the view binds host folders only), as the whole disk a
/// partition belongs to (throttles apply to disks), `MAJ:MIN`. Read once per process.
fn disks() -> &'static [String] {
    static DISKS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    DISKS.get_or_init(|| {
        let mut disks: Vec<String> = mountinfo::read()
            .unwrap_or_default()
            .into_iter()
            .filter_map(|mount| {
                // Anonymous devices (tmpfs, proc, overlay; btrfs too) say nothing: their
                // source may still name the block device they are on.
                let dev = if mount.device.starts_with("0:") {
                    block_device_number(Path::new(&mount.source))?
                } else {
                    mount.device
                };
                whole_disk(&dev)
            })
            .collect();
        disks.sort();
        disks.dedup();
        disks
    })
}

/// `MAJ:MIN` of the block device file `path`.
fn block_device_number(path: &Path) -> Option<String> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = std::fs::metadata(path).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let rdev = meta.rdev();
    Some(format!(
        "{}:{}",
        nix::sys::stat::major(rdev),
        nix::sys::stat::minor(rdev)
    ))
}

/// The disk of block device `dev` (itself where it is not a partition), if the kernel
/// knows it.
fn whole_disk(dev: &str) -> Option<String> {
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{dev}")).ok()?;
    if sys.join("partition").exists() {
        let disk = std::fs::read_to_string(sys.parent()?.join("dev")).ok()?;
        Some(disk.trim().to_owned())
    } else {
        Some(dev.to_owned())
    }
}

static MADE: AtomicU64 = AtomicU64::new(0);

/// cgroup v1's freezer turns a kernel static key on while any cgroup is frozen, and off
/// when none is; each flip patches kernel text. With one bot, every freeze and thaw
/// flipped it: 290 µs a pair, measured, against 9 µs with the key held. So while any
/// bot has a v1 freezer, an empty cgroup of the arena's stays frozen and holds it on.
struct Sentinel {
    dir: PathBuf,
    users: usize,
}

static SENTINEL: std::sync::Mutex<Option<Sentinel>> = std::sync::Mutex::new(None);

fn hold_sentinel(parent: &Path) {
    let mut held = SENTINEL.lock().expect("not poisoned");
    if let Some(s) = held.as_mut() {
        s.users += 1;
        return;
    }
    let dir = parent.join(format!("arena-{}-keep", std::process::id()));
    let _ = std::fs::create_dir(&dir);
    let _ = std::fs::write(dir.join("freezer.state"), "FROZEN");
    *held = Some(Sentinel { dir, users: 1 });
}

fn release_sentinel() {
    let mut held = SENTINEL.lock().expect("not poisoned");
    let last = held.as_mut().is_some_and(|s| {
        s.users -= 1;
        s.users == 0
    });
    if last && let Some(s) = held.take() {
        let _ = std::fs::write(s.dir.join("freezer.state"), "THAWED");
        let _ = std::fs::remove_dir(&s.dir);
    }
}

impl BotCgroup {
    /// Makes the bot's cgroups. Each layer that cannot be made is returned with why; the
    /// caller decides whether the bot may start without it.
    pub fn create(caps: Caps) -> (BotCgroup, Vec<(Layer, String)>) {
        sweep_dead_arenas();
        let name = format!(
            "arena-{}-{}",
            std::process::id(),
            MADE.fetch_add(1, Ordering::Relaxed)
        );
        let mut missing = Vec::new();
        // As root, the bot's user outside is one of the arena's range, its own; as
        // another user, the namespace can map only that user (nothing to take).
        let slot = if nix::unistd::geteuid().is_root() {
            identity::take()
                .inspect_err(|why| missing.push((Layer::Identity, why.clone())))
                .ok()
        } else {
            None
        };
        let mut cgroup = BotCgroup {
            parts: Vec::new(),
            freezer: None,
            slot,
        };
        for layer in LAYERS {
            match make(layer, &name, caps) {
                Ok(part) => {
                    if layer == Layer::Freezer {
                        let file = if part.v2 {
                            "cgroup.freeze"
                        } else {
                            "freezer.state"
                        };
                        match File::options().write(true).open(part.dir.join(file)) {
                            Ok(f) => {
                                if !part.v2
                                    && let Some(parent) = part.dir.parent()
                                {
                                    hold_sentinel(parent);
                                }
                                cgroup.freezer = Some((f, part.v2));
                            }
                            Err(e) => missing.push((layer, format!("opening {file}: {e}"))),
                        }
                    }
                    cgroup.parts.push(part);
                }
                Err(why) => missing.push((layer, why)),
            }
        }
        (cgroup, missing)
    }

    /// The `cgroup.procs` files the outer stage writes its pid into.
    pub fn procs_files(&self) -> Vec<(Layer, PathBuf)> {
        self.parts
            .iter()
            .map(|p| (p.layer, p.dir.join("cgroup.procs")))
            .collect()
    }

    /// Stops every process of the bot (its think time is over until the next call).
    pub fn freeze(&self) {
        self.set_frozen(true);
    }

    /// Lets the bot run again.
    pub fn thaw(&self) {
        self.set_frozen(false);
    }

    fn set_frozen(&self, frozen: bool) {
        if let Some((file, v2)) = &self.freezer {
            let text: &[u8] = match (v2, frozen) {
                (true, true) => b"1",
                (true, false) => b"0",
                (false, true) => b"FROZEN",
                (false, false) => b"THAWED",
            };
            let _ = file.write_all_at(text, 0);
        }
    }

    /// Whether the freezer reports the bot frozen (the probe checks that it works).
    pub fn is_frozen(&self) -> Option<bool> {
        let part = self.part(Layer::Freezer)?;
        if part.v2 {
            let events = std::fs::read_to_string(part.dir.join("cgroup.events")).ok()?;
            Some(events.lines().any(|l| l == "frozen 1"))
        } else {
            let state = std::fs::read_to_string(part.dir.join("freezer.state")).ok()?;
            Some(state.trim() == "FROZEN")
        }
    }

    fn part(&self, layer: Layer) -> Option<&Part> {
        self.parts.iter().find(|p| p.layer == layer)
    }

    /// Processes of the bot the kernel's OOM killer ended at its memory limit.
    pub fn oom_kills(&self) -> u64 {
        let Some(part) = self.part(Layer::Memory) else {
            return 0;
        };
        let file = if part.v2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        counter(&part.dir.join(file), "oom_kill ")
    }

    /// Whether the bot's memory reached its limit (the kernel reclaimed or refused pages
    /// there, whether or not its OOM killer has struck yet).
    pub fn reached_memory_limit(&self) -> bool {
        let Some(part) = self.part(Layer::Memory) else {
            return false;
        };
        let hits = if part.v2 {
            counter(&part.dir.join("memory.events"), "max ")
        } else {
            std::fs::read_to_string(part.dir.join("memory.failcnt"))
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(0)
        };
        hits > 0 || self.oom_kills() > 0
    }

    /// Forks the cap on processes refused.
    pub fn times_capped(&self) -> u64 {
        self.part(Layer::Processes)
            .map_or(0, |p| counter(&p.dir.join("pids.events"), "max "))
    }

    /// Whether `pid` is in every cgroup of this set (the probe checks the join).
    pub fn holds(&self, pid: u32) -> bool {
        self.parts.iter().all(|p| {
            std::fs::read_to_string(p.dir.join("cgroup.procs"))
                .is_ok_and(|s| s.lines().any(|l| l.trim() == pid.to_string()))
        })
    }

    /// The layers this set holds.
    pub fn layers(&self) -> Vec<Layer> {
        self.parts.iter().map(|p| p.layer).collect()
    }

    /// The sandbox's uid and gid on the host, where the arena maps them (as root).
    pub fn host_id(&self) -> Option<u32> {
        self.slot.as_ref().map(Slot::id)
    }

    /// Whether the io layer's throttle is in place on every disk a bot could read (the
    /// probe checks it from outside).
    pub fn io_throttled(&self) -> bool {
        let Some(part) = self.part(Layer::Io) else {
            return false;
        };
        let file = if part.v2 {
            "io.max"
        } else {
            "blkio.throttle.read_bps_device"
        };
        let set = std::fs::read_to_string(part.dir.join(file)).unwrap_or_default();
        disks()
            .iter()
            .all(|disk| set.lines().any(|l| l.split(' ').next() == Some(disk)))
    }
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        // A frozen cgroup v1 keeps even killed processes: let them go first.
        self.thaw();
        if matches!(self.freezer, Some((_, false))) {
            release_sentinel();
        }
        let mut all_gone = true;
        for part in &self.parts {
            // The bot's last processes may take a moment to be reaped.
            for _ in 0..200 {
                if std::fs::remove_dir(&part.dir).is_ok() || !part.dir.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            all_gone &= !part.dir.exists();
        }
        // A process of the bot that would not go still runs as the slot's user: the slot
        // stays taken (its lock open) until the arena exits, so no other bot gets it.
        if !all_gone && let Some(slot) = self.slot.take() {
            std::mem::forget(slot);
        }
    }
}

/// The number after `key` in a flat-keyed cgroup file (0 if absent).
fn counter(file: &Path, key: &str) -> u64 {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Makes one layer's cgroup `name` and sets its limit.
fn make(layer: Layer, name: &str, caps: Caps) -> Result<Part, String> {
    let h = hierarchy(layer).ok_or_else(|| {
        format!(
            "no cgroup v1 hierarchy with `{}` and no cgroup v2 offering `{}`",
            controller_of(layer, false),
            controller_of(layer, true)
        )
    })?;
    if h.v2 && layer != Layer::Freezer {
        enable_v2(&h.own, controller_of(layer, true))?;
    }
    let dir = h.own.join(name);
    std::fs::create_dir(&dir).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::PermissionDenied {
            " (this user has no cgroup of its own: cgroup v2, run the arena under `systemd-run \
             --user --scope -p Delegate=yes`; v1, root makes a cgroup in each hierarchy, gives it \
             to the user and moves the user's shell into it; docs/sandbox.md)"
        } else {
            ""
        };
        format!("creating {}: {e}{hint}", dir.display())
    })?;
    let part = Part {
        layer,
        dir,
        v2: h.v2,
    };
    let set = |file: &str, value: String| {
        std::fs::write(part.dir.join(file), &value)
            .map_err(|e| format!("writing {value} to {}: {e}", part.dir.join(file).display()))
    };
    let limited = match (layer, h.v2) {
        (Layer::Memory, false) => {
            let bytes = caps.memory_mb << 20;
            set("memory.limit_in_bytes", bytes.to_string()).and_then(|()| {
                // No swap beyond the limit, where the kernel accounts it.
                if part.dir.join("memory.memsw.limit_in_bytes").exists() {
                    set("memory.memsw.limit_in_bytes", bytes.to_string())
                } else {
                    Ok(())
                }
            })
        }
        (Layer::Memory, true) => {
            set("memory.max", (caps.memory_mb << 20).to_string()).and_then(|()| {
                if part.dir.join("memory.swap.max").exists() {
                    set("memory.swap.max", "0".into())
                } else {
                    Ok(())
                }
            })
        }
        (Layer::Processes, _) if caps.processes > 0 => set("pids.max", caps.processes.to_string()),
        (Layer::Processes, _) => Ok(()),
        (Layer::Cpu, false) => set("cpu.cfs_period_us", "100000".into())
            .and_then(|()| set("cpu.cfs_quota_us", "100000".into())),
        (Layer::Cpu, true) => set("cpu.max", "100000 100000".into()),
        (Layer::Io, false) => disks().iter().try_for_each(|disk| {
            [
                ("blkio.throttle.read_bps_device", IO_BYTES_PER_S),
                ("blkio.throttle.write_bps_device", IO_BYTES_PER_S),
                ("blkio.throttle.read_iops_device", IO_OPS_PER_S),
                ("blkio.throttle.write_iops_device", IO_OPS_PER_S),
            ]
            .into_iter()
            .try_for_each(|(file, limit)| set(file, format!("{disk} {limit}")))
        }),
        (Layer::Io, true) => disks().iter().try_for_each(|disk| {
            set(
                "io.max",
                format!(
                    "{disk} rbps={IO_BYTES_PER_S} wbps={IO_BYTES_PER_S} \
                     riops={IO_OPS_PER_S} wiops={IO_OPS_PER_S}"
                ),
            )
        }),
        _ => Ok(()),
    };
    // Dropping the part removes its folder.
    limited.map(|()| part).inspect_err(|_| {
        let _ = std::fs::remove_dir(h.own.join(name));
    })
}

/// Offers `controller` to the children of `own` (cgroup v2). A cgroup with processes of
/// its own cannot offer controllers (no internal processes): the arena then moves
/// itself into a child `arena-main` first, once.
fn enable_v2(own: &Path, controller: &str) -> Result<(), String> {
    let control = own.join("cgroup.subtree_control");
    let enabled = || {
        std::fs::read_to_string(&control)
            .is_ok_and(|s| s.split_whitespace().any(|c| c == controller))
    };
    if enabled() {
        return Ok(());
    }
    if std::fs::write(&control, format!("+{controller}")).is_ok() {
        return Ok(());
    }
    let main = own.join("arena-main");
    let _ = std::fs::create_dir(&main);
    std::fs::write(main.join("cgroup.procs"), std::process::id().to_string())
        .and_then(|()| std::fs::write(&control, format!("+{controller}")))
        .map_err(|e| {
            format!(
                "cgroup v2: cannot offer `{controller}` below {} ({e}); run the arena in a \
                 delegated cgroup (`systemd-run --user --scope -p Delegate=yes arena ...`)",
                own.display()
            )
        })
}

/// Clears what arenas that died before removing their cgroups left (`kill -9`, a crash):
/// under every controller, each `arena-PID-*` whose PID no longer runs is thawed, its
/// processes killed, and removed. Their stages kill such bots themselves when their arena
/// dies ([`super::outer`]); this is for what they could not (an older arena's, a stage
/// killed too). Once per process.
fn sweep_dead_arenas() {
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| {
        let dead: Vec<(PathBuf, bool)> = LAYERS
            .iter()
            .filter_map(|&layer| hierarchy(layer))
            .flat_map(|h| {
                let v2 = h.v2;
                dead_arenas_cgroups(&h.own)
                    .into_iter()
                    .map(move |dir| (dir, v2))
            })
            .collect();
        if dead.is_empty() {
            return;
        }
        // Killed first, everywhere, then thawed: a frozen process cannot die, and one
        // that is thawed before its kill would run its next step.
        for (dir, _) in &dead {
            let procs = std::fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        for (dir, v2) in &dead {
            let (file, text) = if *v2 {
                ("cgroup.freeze", "0")
            } else {
                ("freezer.state", "THAWED")
            };
            if dir.join(file).exists() {
                let _ = std::fs::write(dir.join(file), text);
            }
        }
        // Children first (a v2 `arena-main` holds none of ours), then the folders.
        for (dir, _) in &dead {
            for _ in 0..200 {
                if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    });
}

/// The cgroups under `own` named for an arena (`arena-PID-N`, `arena-PID-keep`) whose
/// PID no longer runs.
fn dead_arenas_cgroups(own: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(own) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix("arena-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| {
                    pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
                })
        })
        .map(|entry| entry.path())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mountinfo::Mount;

    #[test]
    fn a_cgroup_is_found_below_its_hierarchys_mount_point() {
        let line =
            br"30 23 0:27 /docker/ab /sys/fs/cgroup/with\040space rw - cgroup cgroup rw,memory";
        let mount = Mount::parse(line).expect("a valid line");
        assert_eq!(
            join_under(&mount.point, &mount.root, "/docker/ab/arena"),
            Path::new("/sys/fs/cgroup/with space/arena")
        );
        // A cgroup outside the mount's root keeps its whole path below the mount point.
        assert_eq!(
            join_under(&mount.point, &mount.root, "/docker/abc"),
            Path::new("/sys/fs/cgroup/with space/docker/abc")
        );
        assert_eq!(
            join_under(Path::new("/sys/fs/cgroup"), Path::new("/"), "/user.slice/a"),
            Path::new("/sys/fs/cgroup/user.slice/a")
        );
    }
}
