//! A command run once in a bot's sandbox whose writes in its working folder stay: a
//! league bot's `--build`, in the copy of its files. It works in a tmpfs holding a copy
//! of the folder with `disk_mb` to spare, copied back when it succeeds
//! (`super::copy`). Every other layer is a bot's: its own user (as root, a uid of its
//! own outside, from the arena's range), namespaces, a view of the system folders
//! read-only and nothing else of the host, seccomp, and the memory, process, CPU and io
//! cgroups; no freezer (nothing waits for its calls).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

use super::control::Channel;
use super::{BotCgroup, Confined, Policy, STAGES_LIMIT, Starter, launcher, probe};

/// A command ready to run in `folder`; dropping it gives the folder back to the arena's
/// user and removes the cgroups.
pub struct InPlace {
    command: Command,
    /// Starts the command once ([`Starter`]); the control channel it gives is held while
    /// the build runs: its end is the lifeline.
    starter: Option<Starter>,
    channel: Option<Channel>,
    /// Held to be removed when the build is done.
    _cgroup: BotCgroup,
    /// Set when the arena runs as root: the folder was lent to the build's own host user
    /// for the run.
    lent: Option<PathBuf>,
}

/// Prepares `sh -c line` in a sandbox of `policy` working in `folder`. Fails closed, as
/// a bot's start does: a layer the policy does not accept losing, missing on this host
/// (as a probe observes it), stops it with the layer and the reason.
pub fn in_place(policy: &Policy, folder: &Path, line: &str) -> Result<InPlace> {
    let Some(exe) = launcher() else {
        bail!("this program cannot start `arena __sandbox`");
    };
    let enforced = probe(policy);
    let refused: Vec<String> = enforced
        .missing()
        .into_iter()
        .filter(|l| !policy.accepts_losing(*l))
        .map(|l| format!("{l} ({})", enforced.why(l).unwrap_or("")))
        .collect();
    if !refused.is_empty() {
        bail!(
            "the sandbox cannot apply {} on this machine (`arena doctor` lists every layer)",
            refused.join(", ")
        );
    }
    let folder = std::path::absolute(folder)?;
    let confined = Confined::new(exe, policy, &folder)?.keeping_writes();
    // As root the sandbox's user outside is its slot's, who may not write a folder of
    // root's.
    let lent_to = (confined.cgroup().host_id()).filter(|_| nix::unistd::geteuid().is_root());
    if let Some(id) = lent_to {
        chown_tree(&folder, id, id)
            .with_context(|| format!("lending {} to the sandbox's user", folder.display()))?;
    }
    let (mut command, starter) = confined
        .command(["/bin/sh", "-c", line])
        .context("the sandbox's control pipes")?;
    command
        .env("HOME", &folder)
        .env("TMPDIR", "/tmp")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null());
    Ok(InPlace {
        command,
        starter: Some(starter),
        channel: None,
        _cgroup: confined.into_cgroup(),
        lent: lent_to.map(|_| folder),
    })
}

impl InPlace {
    /// Starts the build once its sandbox is built (an error says why it is not).
    pub fn spawn(&mut self) -> Result<Child> {
        let starter = self.starter.take().context("a build starts once")?;
        let (child, channel) = starter
            .start_plain(&mut self.command, STAGES_LIMIT)
            .map_err(|why| anyhow::anyhow!("the arena's sandbox: {why}"))?;
        self.channel = Some(channel);
        Ok(child)
    }
}

impl Drop for InPlace {
    fn drop(&mut self) {
        if let Some(folder) = &self.lent {
            let (uid, gid) = (nix::unistd::geteuid(), nix::unistd::getegid());
            let _ = chown_tree(folder, uid.as_raw(), gid.as_raw());
        }
    }
}

/// Gives `path` and everything under it to `uid`:`gid` (links themselves, never what
/// they point at: a build may leave a link to anywhere).
fn chown_tree(path: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    let meta = std::fs::symlink_metadata(path)?;
    if meta.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}
