//! Fault injection for the reliability suite (`docs/reliability.md`): the environment
//! variable `ARENA_FAULT` makes this process fail at one exact point of its write path,
//! the way a crash, a full disk or a second owner would, so the tests can prove that
//! every such fault ends in an identical result after `--resume` or in a clear refusal.
//! Unset (always, outside the tests), every hook is one relaxed load of a flag.
//!
//! - `abort-after-rows:K`: abort (SIGABRT: no destructor runs, buffered rows are lost,
//!   as under `kill -9`) once K rows have been handed to the results writer;
//! - `tear-row:K`: flush, write the first half of row K's line to disk, then abort;
//! - `disk-full-after:B`: writes to `games.csv` fail with "No space left on device"
//!   once B bytes were written, the last write cut short as on a real full disk;
//! - `pause-after-rows:K:MS`: sleep MS milliseconds once K rows were written (a run
//!   caught in the middle, for the second-owner test);
//! - `stage-setup:N`: the first N bot sandboxes (`always`: every one) fail their
//!   setup in the outer stage, as a stage that cannot build one does
//!   (`crate::external`'s process start reads it);
//! - `abort-at:POINT`: abort at a named point: `summaries` (every game on disk, no
//!   summary written yet), `report` (the summaries written, `report.html` not).
//!
//! Rows count those this process wrote (in `arena merge` too), from 1.

use std::io::{self, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// One injected fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    AbortAfterRows(u64),
    TearRow(u64),
    DiskFullAfter(u64),
    PauseAfterRows(u64, u64),
    AbortAt(String),
    StageSetup(String),
}

static FAULT: OnceLock<Option<Fault>> = OnceLock::new();
static ARMED: AtomicBool = AtomicBool::new(true);

/// The fault `ARENA_FAULT` names, if any (read once).
pub fn injected() -> Option<&'static Fault> {
    if !ARMED.load(Ordering::Relaxed) {
        return None;
    }
    let fault = FAULT.get_or_init(|| {
        let text = std::env::var("ARENA_FAULT").ok()?;
        let parsed = parse(&text);
        if parsed.is_none() {
            eprintln!("arena: ignoring ARENA_FAULT={text:?}: not a fault this arena knows");
        }
        parsed
    });
    if fault.is_none() {
        ARMED.store(false, Ordering::Relaxed);
    }
    fault.as_ref()
}

fn parse(text: &str) -> Option<Fault> {
    let (kind, arg) = text.split_once(':')?;
    let number = |s: &str| s.parse::<u64>().ok();
    Some(match kind {
        "abort-after-rows" => Fault::AbortAfterRows(number(arg)?),
        "tear-row" => Fault::TearRow(number(arg)?),
        "disk-full-after" => Fault::DiskFullAfter(number(arg)?),
        "pause-after-rows" => {
            let (k, ms) = arg.split_once(':')?;
            Fault::PauseAfterRows(number(k)?, number(ms)?)
        }
        "abort-at" => Fault::AbortAt(arg.to_owned()),
        "stage-setup" => Fault::StageSetup(arg.to_owned()),
        _ => return None,
    })
}

/// Aborts when the named point is the injected one.
pub fn point(name: &str) {
    if let Some(Fault::AbortAt(at)) = injected()
        && at == name
    {
        eprintln!("arena: ARENA_FAULT: aborting at {name}");
        std::process::abort();
    }
}

/// A file that reports a full disk past a byte budget (when `disk-full-after` is set).
pub struct Budgeted<W> {
    inner: W,
    left: Option<u64>,
}

impl<W: Write> Budgeted<W> {
    pub fn new(inner: W, already: u64) -> Budgeted<W> {
        let left = match injected() {
            Some(Fault::DiskFullAfter(bytes)) => Some(bytes.saturating_sub(already)),
            _ => None,
        };
        Budgeted { inner, left }
    }
}

impl<W: Write> Write for Budgeted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(left) = self.left else {
            return self.inner.write(buf);
        };
        if left == 0 {
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        let n = self.inner.write(&buf[..buf.len().min(left as usize)])?;
        self.left = Some(left - n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_nonsense_does_not() {
        assert_eq!(
            parse("abort-after-rows:12"),
            Some(Fault::AbortAfterRows(12))
        );
        assert_eq!(parse("tear-row:3"), Some(Fault::TearRow(3)));
        assert_eq!(
            parse("pause-after-rows:5:2000"),
            Some(Fault::PauseAfterRows(5, 2000))
        );
        assert_eq!(
            parse("abort-at:summaries"),
            Some(Fault::AbortAt("summaries".into()))
        );
        for bad in ["", "abort-after-rows", "abort-after-rows:x", "melt:1"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_budgeted_file_fills_up_mid_write() {
        let mut out = Budgeted {
            inner: Vec::new(),
            left: Some(5),
        };
        assert_eq!(out.write(b"abc").unwrap(), 3);
        assert_eq!(out.write(b"defg").unwrap(), 2);
        let e = out.write(b"h").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28));
        assert_eq!(out.inner, b"abcde");
    }
}
