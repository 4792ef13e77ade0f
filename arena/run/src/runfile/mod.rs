//! The primitives every file of a run directory is written with, below both the run
//! directory (`rundir/`: the manifest, `games.csv`) and the reports (`report/`: the
//! summaries, `report.html`), so neither imports the other: the schema version, the
//! atomic write, the CSV cell, and the fault hooks of the write path.

pub mod fault;

use std::path::Path;

use anyhow::{Context, Result};

/// The version of `games.csv`, the manifest and `summary.json` (`docs/csv.md`).
pub const SCHEMA: u32 = 3;

/// Writes `path` whole or not at all (a temporary file renamed over it).
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// A cell as CSV writes it: quoted when it holds a comma, quote or line break.
pub fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// The harness itself failed (a write, a thread, a sandbox the arena could not build):
/// not the input's fault, so an array job may retry it (exit 3). Here, below every room
/// that meets such a failure (the external runtime's included).
#[derive(Debug, thiserror::Error)]
#[error("the harness failed")]
pub struct HarnessFailure;
