//! Appends records to `games.csv` in batches, each row with its running check (the
//! engine's writer stage, and `merge` a record at a time), with the `ARENA_FAULT` hooks
//! of the fault suite.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::reader::Tail;
use super::{Codec, append_checked};
use crate::engine::{Flow, Observer, RowSink, Rows};
use crate::plan::Plan;
use crate::record::Record;
use crate::runfile::fault::{self, Budgeted, Fault};

/// Appends records to `games.csv`, flushing when its buffer fills or a second has
/// passed, and at the end.
pub struct ResultsWriter {
    codec: Codec,
    path: PathBuf,
    out: BufWriter<Budgeted<File>>,
    /// Rows this process wrote (what `ARENA_FAULT` counts).
    written_now: u64,
    content: Vec<u8>,
    line: Vec<u8>,
    /// The last row's check.
    chain: u32,
    last_flush: Instant,
    /// Rows until the clock is read again, and when it last was.
    until_clock: u32,
    last_clock: Instant,
    pub written: u64,
}

impl ResultsWriter {
    /// Opens `path` for appending after the rows `tail` describes (a new file gets the
    /// header).
    pub fn append(path: &Path, plan: &Plan, tail: Tail) -> Result<ResultsWriter> {
        let codec = Codec::new(plan);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let len = file
            .metadata()
            .with_context(|| format!("reading {}", path.display()))?
            .len();
        let fresh = len == 0;
        let mut out = BufWriter::with_capacity(1 << 16, Budgeted::new(file, len));
        if fresh {
            out.write_all(codec.header().as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(ResultsWriter {
            codec,
            path: path.to_owned(),
            out,
            content: Vec::with_capacity(256),
            line: Vec::with_capacity(256),
            chain: tail.chain,
            written_now: 0,
            last_flush: Instant::now(),
            until_clock: 1,
            last_clock: Instant::now(),
            written: tail.rows,
        })
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))?;
        self.last_flush = Instant::now();
        Ok(())
    }
}

impl ResultsWriter {
    /// Appends one row's content (ending in a line break) with its check.
    fn append_row(&mut self, content: &[u8]) -> Result<()> {
        self.line.clear();
        self.chain = append_checked(&mut self.line, content, self.chain);
        self.written_now += 1;
        if fault::injected().is_some() {
            self.inject_before_row()?;
        }
        self.out
            .write_all(&self.line)
            .with_context(|| format!("writing {}", self.path.display()))?;
        self.written += 1;
        if fault::injected().is_some() {
            self.inject_after_row()?;
        }
        Ok(())
    }

    /// Flushes when a second has passed since the last flush. The clock is read at every
    /// call while calls are slow, every 64th while they come faster than one a
    /// millisecond (fast games would pay for it on every row).
    fn flush_now_and_then(&mut self) -> Result<()> {
        self.until_clock -= 1;
        if self.until_clock == 0 {
            let now = Instant::now();
            let fast = now.duration_since(self.last_clock) < Duration::from_millis(1);
            self.until_clock = if fast { 64 } else { 1 };
            self.last_clock = now;
            if now.duration_since(self.last_flush) >= Duration::from_secs(1) {
                self.flush()?;
            }
        }
        Ok(())
    }
}

/// The engine's writer stage: rows its workers encoded, checked and appended here.
impl RowSink for ResultsWriter {
    fn append(&mut self, rows: &Rows) -> Result<()> {
        if fault::injected().is_some() {
            for content in rows.iter() {
                self.append_row(content)?;
            }
            return self.flush_now_and_then();
        }
        // The common path: the whole batch checked into one buffer, written at once.
        self.line.clear();
        for content in rows.iter() {
            self.chain = append_checked(&mut self.line, content, self.chain);
        }
        self.out
            .write_all(&self.line)
            .with_context(|| format!("writing {}", self.path.display()))?;
        self.written_now += rows.len() as u64;
        self.written += rows.len() as u64;
        self.flush_now_and_then()
    }
}

/// Rows written one record at a time (`merge`, which reads records back).
impl Observer for ResultsWriter {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        self.content.clear();
        self.codec.write(record, &mut self.content);
        let content = std::mem::take(&mut self.content);
        let appended = self.append_row(&content);
        self.content = content;
        appended?;
        self.flush_now_and_then()?;
        Ok(Flow::Continue)
    }
}

impl ResultsWriter {
    /// `tear-row:K`: the rows before on disk, half of row K, then the process dies.
    fn inject_before_row(&mut self) -> Result<()> {
        if fault::injected() == Some(&Fault::TearRow(self.written_now)) {
            self.flush()?;
            let half = &self.line[..self.line.len() / 2];
            let file = self.out.get_mut();
            file.write_all(half)?;
            file.flush()?;
            eprintln!("arena: ARENA_FAULT: aborting in the middle of a row");
            std::process::abort();
        }
        Ok(())
    }

    fn inject_after_row(&mut self) -> Result<()> {
        match fault::injected() {
            Some(&Fault::AbortAfterRows(k)) if k == self.written_now => {
                eprintln!("arena: ARENA_FAULT: aborting after {k} rows");
                std::process::abort();
            }
            Some(&Fault::PauseAfterRows(k, ms)) if k == self.written_now => {
                self.flush()?;
                std::thread::sleep(Duration::from_millis(ms));
            }
            _ => {}
        }
        Ok(())
    }
}

impl Drop for ResultsWriter {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}
