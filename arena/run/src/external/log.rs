//! Bounded per-agent stderr logs in the run directory.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// An append-only log that stops writing (but keeps accepting) past `cap` bytes.
pub struct StderrLog {
    inner: Mutex<(Option<File>, u64)>,
    cap: u64,
}

impl StderrLog {
    pub fn create(path: &Path, cap: u64) -> StderrLog {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok();
        StderrLog {
            inner: Mutex::new((file, 0)),
            cap,
        }
    }

    pub fn write(&self, bytes: &[u8]) {
        let mut guard = self.inner.lock().expect("not poisoned");
        let (file, written) = &mut *guard;
        let Some(f) = file else { return };
        let room = self.cap.saturating_sub(*written) as usize;
        if room == 0 {
            return;
        }
        let take = bytes.len().min(room);
        let _ = f.write_all(&bytes[..take]);
        *written += take as u64;
        if *written >= self.cap {
            let _ = f.write_all(b"\n[arena: stderr log truncated here]\n");
        }
    }
}
