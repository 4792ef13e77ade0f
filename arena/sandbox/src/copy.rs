//! A build's folder, capped: the inner stage copies the host folder into a tmpfs of its
//! size plus `disk_mb` before the build starts, and the outer stage copies the tmpfs back
//! over the host folder when the build succeeds. What a build writes is capped as a
//! bot's working folder is (and counted in its memory), and the host's disk never sees
//! more than the cap.
//!
//! Links are copied as links, never followed: the outer stage copies as the namespace's
//! root, and a link a build left (`bot -> /etc/shadow`) must not make it read what it
//! points at. Anything that is not a folder, a file or a link is left out. When the
//! outer stage copies back, every process of the build is gone (the kernel reaps a PID
//! namespace before its pid 1's exit is seen), so nothing changes under the copy.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt, lchown};
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::unistd::{Whence, lseek};

/// Mode bits a copy never keeps: world-writable, set-user-id, set-group-id and sticky.
/// A build's `chmod 4777` or `1777` must not come back as a root-owned file anyone may
/// change or that runs as its owner.
const STRIPPED: u32 = 0o7002;

/// Bytes the files under `folder` take in a tmpfs (whole pages of the blocks they hold:
/// a file with holes is copied with its holes), links not followed.
pub fn tree_bytes(folder: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            total += tree_bytes(&entry.path())?;
        } else if kind.is_file() {
            total += (entry.metadata()?.blocks() * 512).div_ceil(4096) * 4096;
        }
    }
    Ok(total)
}

/// Copies what is in the folder `from` into the existing folder `to`: folders and files
/// with their permission bits (less [`STRIPPED`]), files with their holes, links as
/// links. `owner`: each copy given to this user and group (the bot's, where the
/// namespace maps it).
pub fn copy_tree(from: &Path, to: &Path, owner: Option<u32>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&source, &target, owner)?;
            // Last: a folder without write permission still receives its contents.
            std::fs::set_permissions(&target, stripped(&entry.metadata()?))?;
        } else if kind.is_file() {
            copy_file(&source, &target)?;
        } else {
            continue;
        }
        if let Some(id) = owner {
            lchown(&target, Some(id), Some(id))?;
        }
    }
    Ok(())
}

fn stripped(meta: &std::fs::Metadata) -> std::fs::Permissions {
    std::fs::Permissions::from_mode(meta.permissions().mode() & 0o7777 & !STRIPPED)
}

/// Copies the file `from` to the new file `to` (never through a link at `to`), only
/// the parts that hold data (`SEEK_DATA`/`SEEK_HOLE`): a 2 GiB file of holes stays a
/// few blocks, as it was in the build's tmpfs.
fn copy_file(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut source = File::open(from)?;
    let meta = source.metadata()?;
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)?;
    let len = meta.len();
    let mut at = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    while at < len {
        let data = match lseek(&source, at as i64, Whence::SeekData) {
            Ok(data) => data as u64,
            // No data after `at`: the rest is a hole.
            Err(Errno::ENXIO) => break,
            Err(e) => return Err(e.into()),
        };
        let hole = lseek(&source, data as i64, Whence::SeekHole).map_or(len, |h| h as u64);
        source.seek(SeekFrom::Start(data))?;
        target.seek(SeekFrom::Start(data))?;
        let mut left = hole.min(len) - data;
        while left > 0 {
            let want = left.min(buf.len() as u64) as usize;
            let got = source.read(&mut buf[..want])?;
            if got == 0 {
                break;
            }
            target.write_all(&buf[..got])?;
            left -= got as u64;
        }
        at = hole;
    }
    target.set_len(len)?;
    target.set_permissions(stripped(&meta))
}

/// Where `link` (in the folder `folder`) leads, lexically: its target from there, with
/// `.` and `..` applied.
fn lexical_target(folder: &Path, target: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in folder.join(target).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The first link under `root` that leads out of it (into a system folder aside, which
/// every bot reads anyway), with where it leads: as written and, where it exists, as
/// the kernel resolves it. Links are not followed into.
pub fn link_out_of(root: &Path) -> std::io::Result<Option<(PathBuf, PathBuf)>> {
    let root = std::fs::canonicalize(root)?;
    link_out_below(&root, &root)
}

fn link_out_below(root: &Path, folder: &Path) -> std::io::Result<Option<(PathBuf, PathBuf)>> {
    let inside = |p: &Path| p.starts_with(root) || super::grant::in_system(p);
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            let target = std::fs::read_link(entry.path())?;
            let real = std::fs::canonicalize(entry.path()).ok();
            if !inside(&lexical_target(folder, &target)) || real.is_some_and(|r| !inside(&r)) {
                return Ok(Some((entry.path(), target)));
            }
        } else if kind.is_dir()
            && let Some(found) = link_out_below(root, &entry.path())?
        {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// Copies a bot's submission, `from` (a file or a folder, its real path), to the new
/// path `to`, as [`copy_tree`] does; refused, naming it, where a link in it leads out of
/// it: copied as a link it would point at the author's files, and followed it would
/// copy in whatever it names (a file only root may read).
pub fn copy_submission(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::metadata(from)?;
    if !meta.is_dir() {
        return copy_file(from, to);
    }
    if let Some((link, target)) = link_out_of(from)? {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "the link {} leads to {}, out of the submission {}: links are copied as \
                 links and must stay inside it",
                link.display(),
                target.display(),
                from.display()
            ),
        ));
    }
    std::fs::create_dir_all(to)?;
    copy_tree(from, to, None)?;
    std::fs::set_permissions(to, stripped(&meta))
}

/// Empties the folder `folder` (links removed, not followed), keeping the folder.
pub fn clear(folder: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_copied_with_links_as_links_and_a_cleared_folder_stays() {
        let t = tempfile::tempdir().unwrap();
        let (from, to) = (t.path().join("from"), t.path().join("to"));
        std::fs::create_dir_all(from.join("sub/deeper")).unwrap();
        std::fs::write(from.join("a.txt"), "a").unwrap();
        std::fs::write(from.join("sub/deeper/b.bin"), vec![7u8; 5000]).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", from.join("link")).unwrap();
        std::os::unix::fs::symlink("sub", from.join("dirlink")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(from.join("a.txt"), std::fs::Permissions::from_mode(0o751))
            .unwrap();
        // Pages: 4096 for a.txt, 8192 for b.bin; links take none.
        assert_eq!(tree_bytes(&from).unwrap(), 4096 + 8192);
        std::fs::create_dir(&to).unwrap();
        copy_tree(&from, &to, None).unwrap();
        assert_eq!(std::fs::read_to_string(to.join("a.txt")).unwrap(), "a");
        let mode = std::fs::metadata(to.join("a.txt"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o751);
        assert_eq!(
            std::fs::read(to.join("sub/deeper/b.bin")).unwrap(),
            vec![7u8; 5000]
        );
        for link in ["link", "dirlink"] {
            let meta = std::fs::symlink_metadata(to.join(link)).unwrap();
            assert!(meta.file_type().is_symlink(), "{link} copied as a link");
        }
        assert_eq!(
            std::fs::read_link(to.join("link")).unwrap(),
            Path::new("/etc/hostname")
        );
        clear(&to).unwrap();
        assert!(to.is_dir());
        assert_eq!(std::fs::read_dir(&to).unwrap().count(), 0);
        // The link's target was not followed into.
        assert!(from.join("sub/deeper/b.bin").exists());
    }
}
