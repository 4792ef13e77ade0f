//! A host user and group of its own for each sandbox, when the arena runs as root, as
//! isolate gives each box its own uid. The kernel counts some resources per user on the
//! host (pipe pages against `fs.pipe-user-pages-soft`, inotify instances and watches,
//! POSIX message queue bytes, `RLIMIT_NPROC`'s processes); were every bot the same user
//! outside, one bot could spend them for all the others (its pipes shrank every other
//! bot's new pipes from 64 KiB to 8 KiB).
//!
//! The ids come from a range the arena owns: `FIRST_ID` + slot, for `SLOTS` slots. A
//! slot is taken by holding an exclusive `flock` on its file in `SLOT_DIR`, lowest free
//! slot first, for as long as the sandbox's cgroups exist; the kernel releases the lock
//! when the arena exits, however it dies. Locks, not a counter, so that every arena
//! process on the host (several runs, a league's builds) draws from the same pool.
//!
//! Why 2,100,000,000: systemd's table of ranges (systemd.io/UIDS-GIDS) leaves
//! 1,879,048,192-2,147,352,575 unused, above its container ranges (524,288-1,879,048,191,
//! which hold `/etc/subuid`'s usual 100,000-600,100,000 as well) and below its foreign
//! range (2,147,352,576), and advises against ids of 2^31 and above (read as negative by
//! some programs). The slots stay far from both ends.

use std::fs::File;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The bot's user and group inside (outside, as root, its slot of the arena's range).
pub const BOT_ID: u32 = 1000;

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

/// The first host id of the arena's range: slot 0's uid and gid.
const FIRST_ID: u32 = 2_100_000_000;
/// How many sandboxes the host may run at once, across arena processes.
const SLOTS: u32 = 4096;
/// The slots' lock files, one per slot, named by its number.
const SLOT_DIR: &str = "/run/arena/slots";

/// A slot of the range, held until dropped: the sandbox's uid and gid outside.
pub struct Slot {
    number: u32,
    _lock: Flock<File>,
}

impl Slot {
    /// The sandbox's uid and gid on the host.
    pub fn id(&self) -> u32 {
        FIRST_ID + self.number
    }
}

/// Takes the lowest free slot, or says why none can be had.
pub fn take() -> Result<Slot, String> {
    let dir = Path::new(SLOT_DIR);
    prepare(dir)?;
    for number in 0..SLOTS {
        let path = dir.join(number.to_string());
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| format!("opening {}: {e}", path.display()))?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => {
                return Ok(Slot {
                    number,
                    _lock: lock,
                });
            }
            Err((_, Errno::EWOULDBLOCK)) => {}
            Err((_, e)) => return Err(format!("locking {}: {e}", path.display())),
        }
    }
    Err(format!(
        "all {SLOTS} sandbox users (uids {FIRST_ID}-{}) are taken: that many sandboxes run on \
         this host now (each holds a lock in {SLOT_DIR}); start fewer at once",
        FIRST_ID + SLOTS - 1
    ))
}

/// Makes the slot folder once per process, and checks that only root can make or remove
/// its files: a user who could would hold every slot, or share one with a bot.
fn prepare(dir: &Path) -> Result<(), String> {
    static READY: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    READY
        .get_or_init(|| {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
            for folder in dir.ancestors().filter(|f| f.parent().is_some()) {
                let meta = std::fs::symlink_metadata(folder)
                    .map_err(|e| format!("{}: {e}", folder.display()))?;
                let mode = meta.permissions().mode();
                if meta.uid() != 0 || !meta.is_dir() || mode & 0o022 != 0 {
                    return Err(format!(
                        "{} must be a folder of root's that no one else may write \
                         (owner {}, mode {:o})",
                        folder.display(),
                        meta.uid(),
                        mode & 0o7777
                    ));
                }
            }
            Ok(())
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As root only (elsewhere no slot is taken): two slots held at once differ and lie
    /// in the range, and a held slot's file cannot be locked again (by any process).
    #[test]
    fn slots_held_at_once_are_distinct_and_exclusive() {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let a = take().unwrap();
        let b = take().unwrap();
        assert_ne!(a.id(), b.id());
        for slot in [&a, &b] {
            assert!((FIRST_ID..FIRST_ID + SLOTS).contains(&slot.id()));
            let file = Path::new(SLOT_DIR).join((slot.id() - FIRST_ID).to_string());
            let again = Flock::lock(File::open(file).unwrap(), FlockArg::LockExclusiveNonblock);
            assert!(matches!(again, Err((_, Errno::EWOULDBLOCK))));
        }
    }
}
