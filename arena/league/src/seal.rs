//! A bot's stored copy, sealed: at `add` (after its build) every file of
//! `bots/<id>/` is listed with its size and CRC-32 in the database, and `run` checks
//! the copy against that list before a bot's processes start. The list lives in the
//! database, not in the bot's folder: the folder is what the seal guards, and an author
//! who edits a file there would edit a list beside it as easily. A CRC-32 (the crate is
//! in the arena already; no SHA is) with the size catches an edit, a new or a missing
//! file; it is not made to stand against someone forging a collision on purpose.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

/// Folders a bot's interpreter may write beside its files when it runs unconfined
/// (`sandbox = "off"`): Python's byte code caches, not the author's files.
const SKIPPED: &[&str] = &["__pycache__"];

/// The seal of `folder`: one line per file, `SIZE CRC PATH`, sorted by path (a link is
/// sealed as its target's text, never followed).
pub fn seal(folder: &Path) -> Result<String> {
    let mut lines = Vec::new();
    walk(folder, Path::new(""), &mut lines)?;
    lines.sort();
    let mut out = String::new();
    for (path, size, crc) in lines {
        let _ = writeln!(out, "{size} {crc:08x} {path}");
    }
    Ok(out)
}

/// The first path whose file differs from `recorded` (changed, added or removed), or
/// `None` when the copy is as it was sealed.
pub fn changed(folder: &Path, recorded: &str) -> Result<Option<String>> {
    let now = seal(folder)?;
    let entries = |text: &str| -> std::collections::BTreeMap<String, String> {
        text.lines()
            .filter_map(|l| {
                let mut parts = l.splitn(3, ' ');
                let (size, crc, path) = (parts.next()?, parts.next()?, parts.next()?);
                Some((path.to_owned(), format!("{size} {crc}")))
            })
            .collect()
    };
    let (was, is) = (entries(recorded), entries(&now));
    let first = was
        .keys()
        .chain(is.keys())
        .filter(|p| was.get(*p) != is.get(*p))
        .min()
        .cloned();
    Ok(first)
}

fn walk(root: &Path, rel: &Path, out: &mut Vec<(String, u64, u32)>) -> Result<()> {
    let dir = root.join(rel);
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name();
        let rel = rel.join(&name);
        let meta = std::fs::symlink_metadata(root.join(&rel))?;
        if meta.is_dir() {
            if !SKIPPED.iter().any(|s| name == *s) {
                walk(root, &rel, out)?;
            }
            continue;
        }
        let bytes = if meta.file_type().is_symlink() {
            std::fs::read_link(root.join(&rel))?
                .as_os_str()
                .as_encoded_bytes()
                .to_vec()
        } else {
            std::fs::read(root.join(&rel))
                .with_context(|| format!("reading {}", root.join(&rel).display()))?
        };
        out.push((
            rel.display().to_string(),
            bytes.len() as u64,
            crc32fast::hash(&bytes),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_a_new_file_and_a_removed_one_are_named() {
        let tmp = tempfile::TempDir::new().unwrap();
        let d = tmp.path();
        std::fs::create_dir_all(d.join("lib/__pycache__")).unwrap();
        std::fs::write(d.join("bot.py"), "print(1)\n").unwrap();
        std::fs::write(d.join("lib/a.py"), "x = 1\n").unwrap();
        let sealed = seal(d).unwrap();
        assert_eq!(sealed.lines().count(), 2, "{sealed}");
        std::fs::write(d.join("lib/__pycache__/a.pyc"), "cache").unwrap();
        assert_eq!(changed(d, &sealed).unwrap(), None);
        std::fs::write(d.join("lib/a.py"), "x = 2\n").unwrap();
        assert_eq!(changed(d, &sealed).unwrap().as_deref(), Some("lib/a.py"));
        std::fs::write(d.join("lib/a.py"), "x = 1\n").unwrap();
        std::fs::write(d.join("extra"), "").unwrap();
        assert_eq!(changed(d, &sealed).unwrap().as_deref(), Some("extra"));
        std::fs::remove_file(d.join("extra")).unwrap();
        std::fs::remove_file(d.join("bot.py")).unwrap();
        assert_eq!(changed(d, &sealed).unwrap().as_deref(), Some("bot.py"));
    }
}
