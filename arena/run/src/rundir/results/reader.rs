//! Reads `games.csv` back row by row: every row checked against the schedule and against
//! its `check` column; a torn last line repaired, refused or skipped as the caller says.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::{Codec, chain, split_fields};
use crate::engine::{Flow, Shard};
use crate::plan::Plan;
use crate::record::Record;

/// Where a results file ends: its rows, and the last row's check (0 for none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tail {
    pub rows: u64,
    pub chain: u32,
}

/// What to do with an incomplete last line (a run killed mid-write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Torn {
    /// Cut it from the file (resume: the game is replayed).
    Repair,
    /// Refuse the file (merge: the shard must be resumed first).
    Refuse,
    /// Read the complete rows and leave the file as it is (verify).
    Skip,
}

/// Reads the rows of a results file one by one (the games of `shard`, in order), checking
/// every one against its check column and against the schedule.
pub struct RowReader {
    codec: Codec,
    name: String,
    input: BufReader<std::io::Take<File>>,
    expected: Box<dyn Iterator<Item = u64>>,
    shard_games: u64,
    whole: bool,
    line: Vec<u8>,
    row: csv::StringRecord,
    /// Rows read so far, and the last one's check.
    pub rows: u64,
    pub chain: u32,
    /// With [`RowReader::tolerate_breaks`]: the lines that failed their check (`verify`
    /// reports them and replays on), instead of refusing the file at the first.
    pub breaks: Option<Vec<u64>>,
}

impl RowReader {
    pub fn open(path: &Path, plan: &Plan, shard: Shard, torn: Torn) -> Result<RowReader> {
        let codec = Codec::new(plan);
        let name = path.display().to_string();
        let mut file = File::open(path).with_context(|| format!("cannot read {name}"))?;
        let complete = complete_length(&mut file).with_context(|| format!("cannot read {name}"))?;
        let len = file
            .metadata()
            .with_context(|| format!("cannot read {name}"))?
            .len();
        if complete != len {
            match torn {
                Torn::Repair => {
                    let f = std::fs::OpenOptions::new()
                        .write(true)
                        .open(path)
                        .with_context(|| format!("repairing {name}"))?;
                    f.set_len(complete)
                        .with_context(|| format!("repairing {name}"))?;
                }
                Torn::Skip => {}
                Torn::Refuse => bail!(
                    "{name} is torn: its last line is incomplete (the run was killed); finish it with `arena run --resume` first"
                ),
            }
        }
        file.seek(SeekFrom::Start(0))
            .with_context(|| format!("cannot read {name}"))?;
        let mut input = BufReader::with_capacity(1 << 16, file.take(complete));
        let header = codec.header();
        let mut first = Vec::new();
        input
            .read_until(b'\n', &mut first)
            .with_context(|| format!("cannot read {name}"))?;
        if complete > 0 && first != header.as_bytes() {
            bail!(
                "{name} line 1: the header is {:?}, expected {:?} (schema {} for {})",
                String::from_utf8_lossy(&first).trim_end(),
                header.trim_end(),
                crate::runfile::SCHEMA,
                plan.task.name()
            );
        }
        let schedule = plan.schedule;
        Ok(RowReader {
            codec,
            name,
            input,
            expected: Box::new(schedule.indices(shard, 0)),
            shard_games: schedule.shard_len(shard),
            whole: shard.is_whole(),
            line: Vec::with_capacity(256),
            row: csv::StringRecord::new(),
            rows: 0,
            chain: 0,
            breaks: None,
        })
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let name = &self.name;
        let line = self.rows + 2;
        if !read_row(&mut self.input, &mut self.line)
            .with_context(|| format!("cannot read {name}"))?
        {
            return Ok(None);
        }
        let Some(index) = self.expected.next() else {
            bail!(
                "{name} line {line}: more rows than the {} games of this {}",
                self.shard_games,
                if self.whole { "run" } else { "shard" }
            );
        };
        let Some(comma) = self.line.iter().rposition(|&b| b == b',') else {
            bail!("{name} line {line}: no check column");
        };
        let check = self.line.split_off(comma);
        // The row against the schedule first (its errors say what is wrong with it),
        // then against the chain (which catches a row that is valid but not the one
        // written, and a row deleted, added or moved).
        split_fields(&self.line, &mut self.row)
            .map_err(|e| anyhow::anyhow!("{name} line {line}: {e}"))?;
        let record = self
            .codec
            .read(&self.row, index)
            .map_err(|e| anyhow::anyhow!("{name} line {line}: {e}"))?;
        self.line.push(b'\n');
        let mut expected = chain(self.chain, &self.line);
        self.line.pop();
        if check[1..] != *format!("{expected:08x}").as_bytes() {
            if let Some(breaks) = &mut self.breaks {
                // Go on from the file's own check, so one bad row is reported once.
                breaks.push(line);
                let stated = std::str::from_utf8(&check[1..]).ok();
                expected = stated
                    .and_then(|c| u32::from_str_radix(c, 16).ok())
                    .unwrap_or(expected);
            } else {
                bail!(
                    "{name} line {line} (game {index}) fails its check ({:?}; the rows up to it give {expected:08x}): it was edited or damaged, or a row before it was deleted, added or moved. Nothing from line {line} on is trusted: restore the file, or start the run again in a new directory (`arena verify` shows which games differ)",
                    String::from_utf8_lossy(&check[1..])
                );
            }
        }
        self.chain = expected;
        self.rows += 1;
        Ok(Some(record))
    }

    /// Lines that fail their check are noted in [`RowReader::breaks`], not refused.
    pub fn tolerate_breaks(&mut self) {
        self.breaks = Some(Vec::new());
    }

    /// The last row's content as it is on disk (without its check and line break).
    pub fn last_content(&self) -> &[u8] {
        &self.line
    }

    /// Where the file ends so far.
    pub fn tail(&self) -> Tail {
        Tail {
            rows: self.rows,
            chain: self.chain,
        }
    }
}

/// Reads one row's bytes into `line`, without its line break (a quoted field may hold
/// line breaks). `false` at the end of the input.
fn read_row(input: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<bool> {
    line.clear();
    loop {
        if input.read_until(b'\n', line)? == 0 {
            return Ok(!line.is_empty());
        }
        let quotes = line.iter().filter(|&&b| b == b'"').count();
        if quotes % 2 == 0 {
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            return Ok(true);
        }
    }
}

/// Reads every row of `path` into `each` (until it says stop); returns where it ended.
pub fn read_rows(
    path: &Path,
    plan: &Plan,
    shard: Shard,
    torn: Torn,
    each: &mut dyn FnMut(Record) -> Result<Flow>,
) -> Result<Tail> {
    let mut reader = RowReader::open(path, plan, shard, torn)?;
    while let Some(record) = reader.next_record()? {
        if each(record)? == Flow::Stop {
            break;
        }
    }
    Ok(reader.tail())
}

/// The length of `file` up to and including its last line break.
fn complete_length(file: &mut File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut chunk = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(part)?;
        if let Some(i) = part.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}
