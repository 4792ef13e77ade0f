//! The latest stderr of each external bot still in play, for `show` and the page: the
//! last lines of its newest log under `DIR/logs/<a>-<b>/`, read from the end of the file
//! (a log may hold `[limits] stderr_bytes`, a megabyte by default, and `show` must stay
//! fast).

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use crate::store::{Bot, BotId};

/// Lines shown per bot.
pub const LINES: usize = 5;
/// A line longer than this (escaped) is cut, with `…`.
const LINE_CHARS: usize = 200;
/// The most read from a log's end: room for [`LINES`] lines of any sensible length.
const TAIL_BYTES: u64 = 16 * 1024;

/// A bot's newest stderr log and its last lines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stderr {
    pub log: String,
    /// Controls escaped (`shown::escape_controls`), each cut at [`LINE_CHARS`].
    pub lines: Vec<String>,
}

/// For each external bot of `bots` that plays (not failed, not archived) and has written
/// to stderr: the last lines of its newest log (by modification time, over its pairs).
pub fn latest(logs: &Path, bots: &[Bot]) -> HashMap<BotId, Stderr> {
    let playing: Vec<BotId> = bots
        .iter()
        .filter(|b| b.plays() && b.spec.starts_with("exec:"))
        .map(|b| b.id)
        .collect();
    let mut newest: HashMap<BotId, (SystemTime, PathBuf)> = HashMap::new();
    if playing.is_empty() {
        return HashMap::new();
    }
    let Ok(pairs) = std::fs::read_dir(logs) else {
        return HashMap::new();
    };
    for pair in pairs.flatten() {
        // `<a>-<b>`; `add-<id>` (add's probe) is no pair's.
        let Some((a, b)) = pair.file_name().to_str().and_then(|n| {
            let (a, b) = n.split_once('-')?;
            Some((a.parse::<BotId>().ok()?, b.parse::<BotId>().ok()?))
        }) else {
            continue;
        };
        let Ok(files) = std::fs::read_dir(pair.path()) else {
            continue;
        };
        for file in files.flatten() {
            let name = file.file_name();
            let Some(name) = name.to_str().filter(|n| n.ends_with(".log")) else {
                continue;
            };
            // `stderr-<seat>-<name>.log`: the seat tells the bot (0: `a`, 1: `b`); the
            // name may be one it had before a `rename`.
            let id = if name.starts_with("stderr-0-") {
                a
            } else if name.starts_with("stderr-1-") {
                b
            } else {
                continue;
            };
            if !playing.contains(&id) {
                continue;
            }
            let Ok(meta) = file.metadata() else { continue };
            let Ok(modified) = meta.modified() else {
                continue;
            };
            if meta.len() > 0 && newest.get(&id).is_none_or(|(t, _)| modified > *t) {
                newest.insert(id, (modified, file.path()));
            }
        }
    }
    newest
        .into_iter()
        .filter_map(|(id, (_, path))| {
            let lines = last_lines(&path).ok().filter(|l| !l.is_empty())?;
            let log = path.display().to_string();
            Some((id, Stderr { log, lines }))
        })
        .collect()
}

/// The last [`LINES`] lines of the file at `path`, read from its end.
fn last_lines(path: &Path) -> std::io::Result<Vec<String>> {
    let mut file = std::fs::File::open(path)?;
    let from = file.metadata()?.len().saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(from))?;
    let mut tail = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut tail)?;
    let text = String::from_utf8_lossy(&tail);
    let mut lines: Vec<&str> = text.lines().collect();
    // The seek cut the first line: drop it, unless it is all there is.
    if from > 0 && lines.len() > 1 {
        lines.remove(0);
    }
    let start = lines.len().saturating_sub(LINES);
    Ok(lines[start..].iter().map(|l| shown(l)).collect())
}

/// A line as shown: controls escaped, cut at [`LINE_CHARS`].
fn shown(line: &str) -> String {
    let escaped = arena_run::shown::escape_controls(line);
    if escaped.chars().count() <= LINE_CHARS {
        return escaped.into_owned();
    }
    let mut cut: String = escaped.chars().take(LINE_CHARS).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the end of a long log is read, its cut first line dropped, long lines cut.
    #[test]
    fn the_last_lines_of_a_long_log() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("stderr-0-x.log");
        let mut text = String::new();
        for i in 0..5000 {
            text.push_str(&format!("[case 5,4 process 1 game {i}] line {i}\n"));
        }
        text.push_str(&"y".repeat(500));
        text.push_str("\n\u{1b}[31mred\n");
        std::fs::write(&path, text).unwrap();
        let lines = last_lines(&path).unwrap();
        assert_eq!(lines.len(), LINES);
        assert_eq!(lines[0], "[case 5,4 process 1 game 4997] line 4997");
        assert_eq!(lines[3].chars().count(), LINE_CHARS + 1);
        assert!(lines[3].ends_with('…'));
        assert!(!lines[4].contains('\u{1b}'), "{:?}", lines[4]);
        assert!(lines[4].ends_with("[31mred"), "{:?}", lines[4]);
    }
}
