//! The bot's filesystem view, built by the inner stage as root of its user namespace
//! and entered with `pivot_root`, as bubblewrap and nsjail do: a fresh tmpfs root holding
//! the system folders and the bot's program files read-only, its own `/proc` (with the
//! machine-wide load figures masked), a private `/dev` of five devices with its own
//! `/dev/shm`, and size-capped tmpfs for `/tmp` and its working folder. The run
//! directory is covered by an empty read-only tmpfs, so no read grant can reach it. The
//! host's root is detached at the end: nothing else is reachable.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use nix::mount::{MntFlags, MsFlags, mount, umount2};
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{chdir, pivot_root};

use super::grant::SYSTEM;

/// The devices a bot gets.
pub const DEVICES: [&str; 5] = ["null", "zero", "full", "random", "urandom"];

/// Machine-wide activity in `/proc` (another bot's CPU use, the load): read as empty.
const MASKED_PROC: [&str; 6] = [
    "loadavg",
    "stat",
    "schedstat",
    "interrupts",
    "softirqs",
    "pressure",
];

/// What the view holds beyond the system.
pub struct Plan<'a> {
    /// The bot's working folder: a private tmpfs at this path.
    pub workdir: &'a Path,
    /// Covered by an empty read-only tmpfs (the run directory).
    pub hide: Option<&'a Path>,
    /// Folders and files the bot may read, at the same path.
    pub read: &'a [PathBuf],
    /// Size of each writable tmpfs, in MB.
    pub disk_mb: u64,
    /// The bot runs as 1000 of this user namespace (root host): its tmpfs are its own.
    pub bot_owned: bool,
    /// The working folder is the host's, bound read-write, not a private tmpfs.
    pub keep_workdir: bool,
}

/// Where the old root is while the new one is built.
const OLD: &str = "/old";
const NEW: &str = "/new";

fn under(root: &str, path: &Path) -> PathBuf {
    Path::new(root).join(path.strip_prefix("/").unwrap_or(path))
}

/// Builds the bot's root and moves into it: the host's root is detached at the end.
pub fn build(plan: &Plan<'_>) -> Result<()> {
    enter_scratch_root()?;
    // /tmp first: a program folder under the host's /tmp is bound on top of it.
    let shared = format!("mode=1777,size={}m", plan.disk_mb);
    let tmp = under(NEW, Path::new("/tmp"));
    std::fs::create_dir_all(&tmp)?;
    tmpfs(&tmp, &shared)?;
    bind_programs(plan.read)?;
    mount_proc()?;
    build_dev(&shared)?;
    build_workdir(plan)?;

    remount_ro(Path::new(NEW), MsFlags::MS_NOSUID | MsFlags::MS_NODEV)?;
    // Into the new root; the scratch root, with the host's beneath it, is stacked on
    // top by pivot_root(".", ".") and detached.
    chdir(NEW).context("chdir into the new root")?;
    pivot_root(".", ".").context("pivot_root into the new root")?;
    umount2(".", MntFlags::MNT_DETACH).context("detaching the host's root")?;
    chdir(plan.workdir).context("chdir into the working folder")?;
    Ok(())
}

/// A scratch tmpfs becomes the root for a while, the host's at /old beneath it: the
/// sources stay reachable (even those under the host's /tmp, which pivot_root moves out
/// from under the scratch mount) while the new root is filled at /new.
fn enter_scratch_root() -> Result<()> {
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .context("making the mounts private")?;
    tmpfs("/tmp", "mode=0755,size=1m")?;
    for dir in ["/tmp/old", "/tmp/new"] {
        std::fs::create_dir(dir).with_context(|| format!("creating {dir}"))?;
    }
    chdir("/tmp").context("chdir /tmp")?;
    pivot_root(".", "old").context("pivot_root into the scratch root")?;
    chdir("/").context("chdir /")?;
    tmpfs(NEW, "mode=0755,size=1m")
}

/// The system folders and the bot's own program files, read-only at the same paths.
fn bind_programs(read: &[PathBuf]) -> Result<()> {
    let mut bound = Vec::new();
    for dir in SYSTEM {
        let source = under(OLD, Path::new(dir));
        match std::fs::symlink_metadata(&source) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&source)?;
                std::os::unix::fs::symlink(target, under(NEW, Path::new(dir)))?;
            }
            Ok(_) => {
                let target = under(NEW, Path::new(dir));
                bind(&source, &target)?;
                bound.push(target);
            }
            Err(_) => {}
        }
    }
    for path in read {
        let source = under(OLD, path);
        if source.exists() {
            let target = under(NEW, path);
            bind(&source, &target)?;
            bound.push(target);
        }
    }
    // Every mount the binds brought, read once: a recursive bind brings submounts along.
    for point in mounts_under(&bound) {
        remount_ro(&point, MsFlags::MS_NOSUID | MsFlags::MS_NODEV)?;
    }
    Ok(())
}

/// The bot's own /proc, with the machine-wide load figures masked.
fn mount_proc() -> Result<()> {
    let proc_dir = under(NEW, Path::new("/proc"));
    std::fs::create_dir_all(&proc_dir)?;
    mount(
        Some("proc"),
        &proc_dir,
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .context("mounting the bot's own /proc")?;
    for name in MASKED_PROC {
        let target = proc_dir.join(name);
        if target.is_dir() {
            tmpfs(&target, "mode=0555,size=4k")?;
            remount_ro(&target, MsFlags::empty())?;
        } else if target.exists() {
            mount(
                Some(&under(OLD, Path::new("/dev/null"))),
                &target,
                None::<&str>,
                MsFlags::MS_BIND,
                None::<&str>,
            )
            .with_context(|| format!("masking /proc/{name}"))?;
        }
    }
    Ok(())
}

/// A private /dev: the five harmless devices, the usual links, its own /dev/shm.
fn build_dev(shared: &str) -> Result<()> {
    let dev = under(NEW, Path::new("/dev"));
    std::fs::create_dir_all(&dev)?;
    tmpfs(&dev, "mode=0755,size=64k")?;
    for name in DEVICES {
        let target = dev.join(name);
        std::fs::File::create(&target)?;
        mount(
            Some(&under(OLD, &Path::new("/dev").join(name))),
            &target,
            None::<&str>,
            MsFlags::MS_BIND,
            None::<&str>,
        )
        .with_context(|| format!("binding /dev/{name}"))?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        std::os::unix::fs::symlink(target, dev.join(name))?;
    }
    std::fs::create_dir(dev.join("shm"))?;
    tmpfs(dev.join("shm"), shared)?;
    remount_ro(&dev, MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC)
}

/// The run directory covered by an empty read-only tmpfs, and the bot's working folder
/// (a tmpfs of `disk_mb`, its own) inside it.
fn build_workdir(plan: &Plan<'_>) -> Result<()> {
    let owner = if plan.bot_owned {
        format!(",uid={0},gid={0}", super::outer::BOT_ID)
    } else {
        String::new()
    };
    if let Some(hide) = plan.hide {
        let hidden = under(NEW, hide);
        std::fs::create_dir_all(&hidden)?;
        tmpfs(&hidden, "mode=0755,size=64k")?;
        std::fs::create_dir_all(under(NEW, plan.workdir))?;
        remount_ro(&hidden, MsFlags::MS_NOSUID | MsFlags::MS_NODEV)?;
    }
    let work = under(NEW, plan.workdir);
    if plan.keep_workdir {
        // A build: a copy of its folder in a tmpfs with `disk_mb` to spare, copied back
        // by the outer stage if the build succeeds (`super::copy`).
        let source = under(OLD, plan.workdir);
        let used = super::copy::tree_bytes(&source)
            .with_context(|| format!("measuring {}", plan.workdir.display()))?;
        std::fs::create_dir_all(&work)?;
        let size_kb = used.div_ceil(1024) + plan.disk_mb * 1024;
        tmpfs(&work, &format!("mode=0700,size={size_kb}k{owner}"))?;
        let bot = plan.bot_owned.then_some(super::outer::BOT_ID);
        return super::copy::copy_tree(&source, &work, bot)
            .with_context(|| format!("copying {} into its tmpfs", plan.workdir.display()));
    }
    std::fs::create_dir_all(&work)?;
    tmpfs(&work, &format!("mode=0700,size={}m{owner}", plan.disk_mb))
}

fn tmpfs(target: impl AsRef<Path>, options: &str) -> Result<()> {
    let target = target.as_ref();
    mount(
        Some("tmpfs"),
        target,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(options),
    )
    .with_context(|| format!("mounting a tmpfs on {}", target.display()))
}

/// Binds `source` at `target` (created: a folder or an empty file), with its
/// submounts.
fn bind(source: &Path, target: &Path) -> Result<()> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if source.is_dir() {
        std::fs::create_dir_all(target)?;
    } else if !target.exists() {
        std::fs::File::create(target)?;
    }
    mount(
        Some(source),
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
    .with_context(|| format!("binding {}", source.display()))
}

/// Mount points at or under any of `targets`, each once, parents first.
fn mounts_under(targets: &[PathBuf]) -> Vec<PathBuf> {
    let mut points: Vec<PathBuf> = super::mountinfo::read()
        .unwrap_or_default()
        .into_iter()
        .map(|m| m.point)
        .filter(|p| targets.iter().any(|t| p.starts_with(t)))
        .collect();
    // A target whose mount the listing lacks is still made read-only.
    for t in targets {
        if !points.iter().any(|p| p.starts_with(t)) {
            points.push(t.clone());
        }
    }
    points.sort();
    points.dedup();
    points
}

/// Makes the mount at `target` read-only, keeping the flags it has (the kernel refuses
/// to clear a flag a less privileged namespace inherited locked) and adding `extra`.
fn remount_ro(target: &Path, extra: MsFlags) -> Result<()> {
    let have = statvfs(target)
        .with_context(|| format!("statvfs {}", target.display()))?
        .flags();
    let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | extra;
    for (st, ms) in [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if have.contains(st) {
            flags |= ms;
        }
    }
    mount(None::<&str>, target, None::<&str>, flags, None::<&str>)
        .with_context(|| format!("making {} read-only", target.display()))
}
