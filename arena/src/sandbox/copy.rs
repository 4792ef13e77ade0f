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

use std::os::unix::fs::lchown;
use std::path::Path;

/// Bytes the files under `folder` take in a tmpfs (whole pages), links not followed.
pub fn tree_bytes(folder: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            total += tree_bytes(&entry.path())?;
        } else if kind.is_file() {
            total += entry.metadata()?.len().div_ceil(4096) * 4096;
        }
    }
    Ok(total)
}

/// Copies what is in the folder `from` into the existing folder `to`: folders and files
/// with their permission bits, links as links. `owner`: each copy given to this user
/// and group (the bot's, where the namespace maps it).
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
            std::fs::set_permissions(&target, entry.metadata()?.permissions())?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target)?;
        } else {
            continue;
        }
        if let Some(id) = owner {
            lchown(&target, Some(id), Some(id))?;
        }
    }
    Ok(())
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
