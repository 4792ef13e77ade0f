//! The one reader of `/proc/self/mountinfo` (proc(5)): the cgroup hierarchies and the
//! host's disks ([`crate::BotCgroup`]), the probe's private tmpfs and the view's
//! submounts all read it here.
//!
//! Written by hand rather than with the `procfs` crate's `MountInfo`, which the team
//! prefers for /proc: `procfs` is not in this machine's offline registry, and the format
//! is one line of space-separated fields. What a hand-written split gets wrong, and this
//! does not: the optional fields vary in number (up to the ` - ` separator), and the
//! kernel writes a space, tab, newline or backslash in a path as an octal escape
//! (`\040`, `\011`, `\012`, `\134`).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// One mount, as a line of mountinfo describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub id: u32,
    pub parent: u32,
    /// `MAJ:MIN` of the filesystem's device; `0:N` for an anonymous one (tmpfs, proc,
    /// overlay, btrfs), whose `source` may still name a block device.
    pub device: String,
    /// The folder of the filesystem mounted here (`/` unless a bind mount's).
    pub root: PathBuf,
    pub point: PathBuf,
    /// The mount's own options (`rw,nosuid`).
    pub options: String,
    /// Propagation and the like (`shared:5`, `master:1`), any number.
    pub optional: Vec<String>,
    pub fstype: String,
    /// What was mounted: a device path, or a name (`tmpfs`, `proc`, `cgroup`).
    pub source: String,
    /// The filesystem's options; for cgroup v1, its controllers (`rw,memory`).
    pub super_options: String,
}

impl Mount {
    /// Parses one line of mountinfo. `None` for a line that is not one: fewer than six
    /// fields before the ` - ` separator, no separator, fewer than three fields after
    /// it, or an id that is not a number.
    pub fn parse(line: &[u8]) -> Option<Mount> {
        let fields: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
        let separator = fields.iter().skip(6).position(|f| *f == b"-")? + 6;
        let (before, after) = (&fields[..separator], &fields[separator + 1..]);
        let number = |f: &[u8]| std::str::from_utf8(f).ok()?.parse::<u32>().ok();
        if after.len() < 3 {
            return None;
        }
        Some(Mount {
            id: number(before[0])?,
            parent: number(before[1])?,
            device: text(before[2]),
            root: path(before[3]),
            point: path(before[4]),
            options: text(before[5]),
            optional: before[6..].iter().map(|f| text(f)).collect(),
            fstype: text(after[0]),
            source: text(after[1]),
            super_options: text(after[2]),
        })
    }
}

/// The mounts of this process's mount namespace, in the kernel's order (a mount listed
/// later at the same point covers an earlier one). Lines that do not parse are skipped:
/// the kernel writes none, and a reader of the sandbox's own mounts has no one to tell.
pub fn read() -> std::io::Result<Vec<Mount>> {
    read_from(Path::new("/proc/self/mountinfo"))
}

/// [`read`] of another listing (`/proc/PID/mountinfo`).
fn read_from(file: &Path) -> std::io::Result<Vec<Mount>> {
    // Bytes, not a string: a path may hold any byte but NUL and `/`.
    let listing = std::fs::read(file)?;
    Ok(listing
        .split(|&b| b == b'\n')
        .filter_map(Mount::parse)
        .collect())
}

fn path(field: &[u8]) -> PathBuf {
    PathBuf::from(OsString::from_vec(unescape(field)))
}

fn text(field: &[u8]) -> String {
    String::from_utf8_lossy(&unescape(field)).into_owned()
}

/// The field with each `\ooo` (three octal digits) replaced by its byte; a backslash
/// not followed by one stays as it is.
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut rest = field;
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'\\'
            && let Some(byte) = tail.get(..3).and_then(octal)
        {
            out.push(byte);
            rest = &tail[3..];
        } else {
            out.push(first);
            rest = tail;
        }
    }
    out
}

/// The byte three octal digits spell (`040` is a space), if they do.
fn octal(digits: &[u8]) -> Option<u8> {
    let value = digits.iter().try_fold(0u16, |value, &d| {
        matches!(d, b'0'..=b'7').then(|| value * 8 + u16::from(d - b'0'))
    })?;
    u8::try_from(value).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_with_optional_fields_parses_past_them() {
        let line = b"36 35 98:0 /mnt1 /mnt2 rw,noatime shared:5 master:1 - ext3 /dev/root rw,errors=continue";
        let mount = Mount::parse(line).expect("a valid line");
        assert_eq!(
            mount,
            Mount {
                id: 36,
                parent: 35,
                device: "98:0".into(),
                root: "/mnt1".into(),
                point: "/mnt2".into(),
                options: "rw,noatime".into(),
                optional: vec!["shared:5".into(), "master:1".into()],
                fstype: "ext3".into(),
                source: "/dev/root".into(),
                super_options: "rw,errors=continue".into(),
            }
        );
    }

    #[test]
    fn a_line_without_optional_fields_parses() {
        let line =
            b"29 23 0:26 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,memory";
        let mount = Mount::parse(line).expect("a valid line");
        assert!(mount.optional.is_empty());
        assert_eq!(mount.point, Path::new("/sys/fs/cgroup/memory"));
        assert_eq!(mount.fstype, "cgroup");
        assert_eq!(mount.source, "cgroup");
        assert_eq!(mount.super_options, "rw,memory");
    }

    #[test]
    fn escaped_space_tab_newline_and_backslash_are_decoded() {
        let line = br"40 23 8:1 /a\134b /mnt/with\040space\011tab\012line rw shared:7 - ext4 /dev/my\040disk rw";
        let mount = Mount::parse(line).expect("a valid line");
        assert_eq!(mount.root, Path::new("/a\\b"));
        assert_eq!(mount.point, Path::new("/mnt/with space\ttab\nline"));
        assert_eq!(mount.source, "/dev/my disk");
        assert_eq!(mount.optional, ["shared:7"]);
    }

    #[test]
    fn a_backslash_without_three_octal_digits_stays() {
        assert_eq!(unescape(br"a\b\08x\04"), br"a\b\08x\04");
        assert_eq!(unescape(br"\777"), br"\777", "above a byte");
        assert_eq!(unescape(br"\101\102"), b"AB");
    }

    #[test]
    fn a_line_missing_the_separator_or_its_fields_is_skipped() {
        assert_eq!(
            Mount::parse(b"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw"),
            None
        );
        assert_eq!(
            Mount::parse(b"36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root"),
            None
        );
        // A `-` among the first six fields is a path or an option, not the separator.
        assert_eq!(Mount::parse(b"36 35 98:0 / - rw ext3 /dev/root rw"), None);
        assert_eq!(Mount::parse(b"x 35 98:0 / /m rw - ext3 /dev/root rw"), None);
        assert_eq!(Mount::parse(b""), None);
    }

    #[test]
    fn a_mount_point_named_dash_is_not_the_separator() {
        let mount = Mount::parse(b"36 35 0:5 / /- rw - tmpfs tmpfs rw").expect("a valid line");
        assert_eq!(mount.point, Path::new("/-"));
        let mount = Mount::parse(b"36 35 0:5 / - rw - tmpfs tmpfs rw").expect("a valid line");
        assert_eq!(mount.point, Path::new("-"));
        assert_eq!(mount.fstype, "tmpfs");
    }

    #[test]
    fn a_listing_skips_blank_and_broken_lines() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let file = dir.path().join("mountinfo");
        std::fs::write(
            &file,
            "1 0 0:1 / / rw - rootfs rootfs rw\nbroken\n\n2 1 0:2 / /tmp rw - tmpfs tmpfs rw\n",
        )
        .expect("written");
        let points: Vec<PathBuf> = read_from(&file)
            .expect("read")
            .into_iter()
            .map(|m| m.point)
            .collect();
        assert_eq!(points, [PathBuf::from("/"), PathBuf::from("/tmp")]);
    }

    #[test]
    fn this_process_has_a_root_mount() {
        let mounts = read().expect("/proc/self/mountinfo");
        assert!(
            mounts.iter().any(|m| m.point == Path::new("/")),
            "{mounts:?}"
        );
    }
}
