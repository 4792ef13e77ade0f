//! The cap on a bot's processes and threads, as a `pids` cgroup of its own (cgroup v1's
//! `pids` hierarchy or a cgroup v2 child with the `pids` controller), where this user may
//! make one. The outer stage joins it before it starts the bot, so every process and
//! thread of the bot counts; a fork bomb gets `EAGAIN` at the cap.

use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct Pids {
    dir: PathBuf,
    parent: PathBuf,
    v2: bool,
}

/// The folder a bot's cgroup gets under `parent`, named by the outer stage's pid.
fn name(pid: u32) -> String {
    format!("arena-bot-{pid}")
}

/// Where this process's cgroups are: the v1 `pids` hierarchy, then v2's unified one.
fn parents() -> Vec<(PathBuf, bool)> {
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let mut out = Vec::new();
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c.trim_start_matches('/')),
            _ => continue,
        };
        if controllers.split(',').any(|c| c == "pids") {
            out.push((Path::new("/sys/fs/cgroup/pids").join(path), false));
        } else if controllers.is_empty() {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                if Path::new(root).join("cgroup.controllers").exists() {
                    out.push((Path::new(root).join(path), true));
                }
            }
        }
    }
    out.sort_by_key(|(_, v2)| *v2);
    out
}

impl Pids {
    /// Makes a cgroup capped at `max` tasks and moves this process into it; `None`
    /// where no hierarchy lets this user.
    pub fn join(max: u64) -> Option<Pids> {
        let pid = std::process::id();
        parents().into_iter().find_map(|(parent, v2)| {
            let dir = parent.join(name(pid));
            if std::fs::create_dir(&dir).is_err() {
                // One left by an earlier outer stage with this pid, killed before it
                // could remove it: empty, so it can go (a busy one cannot).
                std::fs::remove_dir(&dir).ok()?;
                std::fs::create_dir(&dir).ok()?;
            }
            let joined = std::fs::write(dir.join("pids.max"), max.to_string())
                .and_then(|()| std::fs::write(dir.join("cgroup.procs"), pid.to_string()));
            match joined {
                Ok(()) => Some(Pids { dir, parent, v2 }),
                Err(_) => {
                    let _ = std::fs::remove_dir(&dir);
                    None
                }
            }
        })
    }

    pub fn kind(&self) -> &'static str {
        if self.v2 { "cgroup v2" } else { "cgroup v1" }
    }

    /// How many forks the cap refused (`pids.events`), if the kernel says.
    pub fn times_capped(&self) -> Option<u64> {
        let events = std::fs::read_to_string(self.dir.join("pids.events")).ok()?;
        events
            .lines()
            .find_map(|l| l.strip_prefix("max "))
            .and_then(|n| n.trim().parse().ok())
    }

    /// Leaves the cgroup and removes it once the bot's last process is gone.
    pub fn remove(self) {
        let _ = std::fs::write(
            self.parent.join("cgroup.procs"),
            std::process::id().to_string(),
        );
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// How many forks the cap refused to the bot whose outer stage is `pid`, while it runs.
pub fn times_capped_of(pid: u32) -> Option<u64> {
    parents().into_iter().find_map(|(parent, v2)| {
        let dir = parent.join(name(pid));
        if !dir.exists() {
            return None;
        }
        Pids { dir, parent, v2 }.times_capped()
    })
}

/// Removes the cgroup of the outer stage `pid` if it is left (the arena killed that
/// stage before it could); harmless where there is none or it is still in use.
pub fn remove_leftover(pid: u32) {
    for (parent, _) in parents() {
        let dir = parent.join(name(pid));
        // The killed namespace's processes take a moment to go.
        for _ in 0..100 {
            if !dir.exists() || std::fs::remove_dir(&dir).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
