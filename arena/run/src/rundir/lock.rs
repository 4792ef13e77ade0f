//! One owner at a time: every command that writes a run directory holds an exclusive OS
//! file lock on its `lock` file for its whole life (`flock`, through `File::try_lock`).
//! The kernel releases it when the process ends, however it ends, so `kill -9` leaves
//! nothing to clean by hand; the file itself stays, naming the last holder. A second
//! process is refused at once, with the holder's pid, host, start time and command read
//! from the file. `arena verify` takes the same lock (it must not read a run while it is
//! written), except on a directory it cannot write (a read-only copy), where nothing can
//! write either.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The lock file's name inside a run directory.
const LOCK: &str = "lock";

/// How a command uses the run directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// It writes: `run`, `match`, `--resume`, `merge` (its output), `report`.
    Write,
    /// It only reads, but must not race a writer: `verify`, the shards `merge` reads.
    Read,
    /// It reads one game and races nothing (`replay`): no lock.
    Peek,
}

/// A held lock: released when dropped or when the process ends. `None` inside for a
/// reader of a directory it cannot write.
#[derive(Debug)]
pub struct RunLock {
    _file: Option<File>,
}

/// Takes the lock of `dir` (`Peek` is treated as `Read`), or says who holds it.
pub fn acquire(dir: &Path, access: Access) -> Result<RunLock> {
    let path = dir.join(LOCK);
    let opened = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path);
    let mut file = match opened {
        Ok(file) => file,
        Err(e)
            if access == Access::Read
                && matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) =>
        {
            return Ok(RunLock { _file: None });
        }
        Err(e) => return Err(e).with_context(|| format!("opening {}", path.display())),
    };
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.trim() {
                "" => "another process (it has not named itself yet)",
                named => named,
            };
            bail!(
                "{} is in use by {holder}; one process at a time may use a run directory (wait for that one to end, or stop it: the kernel releases its lock the moment it exits)",
                dir.display()
            );
        }
        Err(TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("locking {}", path.display()));
        }
    }
    // Who holds it, for the process that is refused.
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)).map(|_| ()))
        .and_then(|()| file.write_all(holder_line().as_bytes()))
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(RunLock { _file: Some(file) })
}

/// `pid 123 on host h since 2026-11-25 21:50:00 UTC: arena run --resume D`.
fn holder_line() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "?".into());
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| super::utc_time(d.as_secs()))
        .unwrap_or_default();
    let command: Vec<String> = std::env::args().collect();
    format!(
        "pid {} on host {host} since {since}: {}\n",
        std::process::id(),
        command.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_owner_is_refused_with_the_holder_named_and_the_lock_ends_with_its_owner() {
        let t = tempfile::tempdir().unwrap();
        let held = acquire(t.path(), Access::Write).unwrap();
        for access in [Access::Write, Access::Read] {
            let e = acquire(t.path(), access).unwrap_err().to_string();
            assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
            assert!(e.contains("in use by") && e.contains("since 20"), "{e}");
        }
        drop(held);
        let reader = acquire(t.path(), Access::Read).unwrap();
        assert!(acquire(t.path(), Access::Write).is_err());
        drop(reader);
        acquire(t.path(), Access::Write).unwrap();
    }
}
