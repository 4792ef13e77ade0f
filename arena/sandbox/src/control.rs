//! The control channel between the arena and the stages of a bot's sandbox: two pipes
//! the bot never holds, so what they carry is the stages' word, never the bot's.
//!
//! - **status** (stages to arena): `unshared` when the outer stage has its user
//!   namespace and waits for the arena to map it (as root); `fail REASON` when a stage
//!   cannot build the sandbox; `ready` when the inner stage starts the bot. The end it
//!   writes is close-on-exec in the inner stage, so the bot never inherits it: a bot
//!   that prints `arena sandbox: ...` and exits 125 is a bot that failed, and a stage
//!   that ends without `ready` or `fail` is the arena's fault.
//! - **lifeline** (arena to outer stage): `mapped` answers `unshared`; then nothing, for
//!   as long as the bot lives. EOF means the arena is gone, however it died: the outer
//!   stage then kills the bot's namespace and thaws its freezer ([`super::outer`]).
//!
//! No fixed wait on either side: the outer stage waits for `mapped` as long as the arena
//! lives, and the arena waits for the stages only as long as the bot's start-up limit.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, FdFlag, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::unistd::geteuid;

use super::identity::BOT_ID;

/// The stages' messages.
const UNSHARED: &str = "unshared";
const MAPPED: &str = "mapped";
pub const READY: &str = "ready";
const FAIL: &str = "fail ";

/// Held while a stage's ends of the pipes are inheritable: a process another thread
/// starts meanwhile would inherit them too, and hold the lifeline open after the arena
/// died.
static SPAWNING: Mutex<()> = Mutex::new(());

/// The arena's ends of a bot's control channel, kept as long as the bot runs.
pub struct Channel {
    status: File,
    /// Dropped (closed) when the bot is: the outer stage then knows its arena is done.
    lifeline: File,
}

/// A channel whose stage ends are not yet handed to a stage.
pub struct Pending {
    channel: Channel,
    stage_status: OwnedFd,
    stage_lifeline: OwnedFd,
}

impl Pending {
    pub fn new() -> std::io::Result<Pending> {
        let (status_read, status_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
        let (lifeline_read, lifeline_write) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
        Ok(Pending {
            channel: Channel {
                status: File::from(status_read),
                lifeline: File::from(lifeline_write),
            },
            stage_status: status_write,
            stage_lifeline: lifeline_read,
        })
    }

    /// The stage's ends, as the outer stage's `--status-fd` and `--lifeline-fd` name them.
    pub fn stage_fds(&self) -> (i32, i32) {
        (
            self.stage_status.as_raw_fd(),
            self.stage_lifeline.as_raw_fd(),
        )
    }

    /// Runs `spawn` (which starts the outer stage with [`Pending::stage_fds`]) with the stage's
    /// ends inheritable, then closes them here.
    pub fn spawn<T>(
        self,
        spawn: impl FnOnce() -> std::io::Result<T>,
    ) -> std::io::Result<(T, Channel)> {
        let Pending {
            channel,
            stage_status,
            stage_lifeline,
        } = self;
        let _alone = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
        for fd in [&stage_status, &stage_lifeline] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::empty()))?;
        }
        let spawned = spawn();
        drop((stage_status, stage_lifeline));
        spawned.map(|t| (t, channel))
    }
}

impl Channel {
    /// Serves the stages of the sandbox of process `pid` until the inner stage starts the
    /// bot: maps the user namespace when asked (as root: the bot's user 1000 to `host_id`
    /// outside), and returns why the sandbox could not be built if it was not, within
    /// `limit`.
    pub fn await_start(
        &mut self,
        pid: u32,
        host_id: Option<u32>,
        limit: Duration,
    ) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        let mut buffer = Vec::new();
        let mut chunk = [0u8; 1024];
        loop {
            while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buffer.drain(..=end).collect();
                let line = String::from_utf8_lossy(&line[..end]).into_owned();
                match line.as_str() {
                    READY => return Ok(()),
                    UNSHARED => {
                        let mapped = write_maps(pid, host_id);
                        // Answered either way: a stage left waiting would only time out.
                        let _ = self.lifeline.write_all(format!("{MAPPED}\n").as_bytes());
                        mapped?;
                    }
                    _ => {
                        return Err(match line.strip_prefix(FAIL) {
                            Some(why) => why.to_owned(),
                            None => format!("a stage said {line:?}"),
                        });
                    }
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "the sandbox was not built within the start-up limit of {} ms",
                    limit.as_millis()
                ));
            }
            let ms = i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX);
            let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
            match poll(
                &mut [PollFd::new(self.status.as_fd(), PollFlags::POLLIN)],
                timeout,
            ) {
                Ok(0) | Err(Errno::EINTR) => continue,
                Ok(_) => {}
                Err(e) => return Err(format!("waiting for the sandbox: {e}")),
            }
            match self.status.read(&mut chunk) {
                Ok(0) => return Err("a stage of the sandbox ended before the bot started".into()),
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("reading the sandbox's status: {e}")),
            }
        }
    }
}

/// As root: maps root inside to root outside (the inner stage sets the bot's view up as
/// root of the namespace) and the bot's user and group, 1000 inside, to `host_id`
/// outside. Only a process with CAP_SETUID in the parent namespace may map more than
/// itself, so the arena writes what its stage asks for.
fn write_maps(pid: u32, host_id: Option<u32>) -> Result<(), String> {
    if !geteuid().is_root() {
        return Ok(());
    }
    // As root every sandbox has a host uid of its own (`super::identity`); none taken,
    // nothing is mapped and the stage fails closed.
    let Some(host_id) = host_id else {
        return Err(
            "cannot apply the identity layer: no host uid was taken for this sandbox".into(),
        );
    };
    let map = format!("0 0 1\n{BOT_ID} {host_id} 1\n");
    for file in ["gid_map", "uid_map"] {
        std::fs::write(format!("/proc/{pid}/{file}"), &map)
            .map_err(|e| format!("cannot apply the identity layer: writing {file}: {e}"))?;
    }
    Ok(())
}

/// A stage's end of a pipe the arena handed it as fd `fd`, reopened close-on-exec (the
/// host's /proc is still there before the view is built); `fd` itself is closed.
pub fn reopen(fd: i32, write: bool) -> std::io::Result<File> {
    // Non-blocking open: opening a pipe's end waits for the other end's holder otherwise,
    // which an arena that died no longer is.
    let file = std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(nix::libc::O_NONBLOCK)
        .open(format!("/proc/self/fd/{fd}"));
    let _ = nix::unistd::close(fd);
    let file = file?;
    fcntl(&file, FcntlArg::F_SETFL(OFlag::empty()))?;
    Ok(file)
}

/// A stage's status end: says what it has to say in one write (atomic on a pipe).
pub struct Status(pub File);

impl Status {
    pub fn say(&mut self, line: &str) {
        let line = line.replace('\n', " ");
        let _ = self.0.write_all(format!("{line}\n").as_bytes());
    }

    pub fn fail(&mut self, why: &str) {
        self.say(&format!("{FAIL}{why}"));
    }
}

/// The outer stage's wait for its maps: says `unshared`, reads `mapped`. EOF: the arena
/// is gone.
pub fn request_maps(status: &mut Status, lifeline: &mut File) -> Result<(), String> {
    status.say(UNSHARED);
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match lifeline.read(&mut byte) {
            Ok(0) => return Err("the arena ended before mapping the user namespace".into()),
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => got.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("reading the arena's answer: {e}")),
        }
    }
    if got != MAPPED.as_bytes() {
        return Err(format!(
            "the arena answered {:?}",
            String::from_utf8_lossy(&got)
        ));
    }
    Ok(())
}
