//! `games.csv`: records in game order, one line each (`docs/csv.md`, schema 2). Written
//! in batches (a kill -9 loses at most the last second of games, which `--resume`
//! replays identically from the seed); read back with every row checked against the
//! schedule, so a foreign, edited or torn file is named, never trusted.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::config::Plan;
use crate::engine::{Flow, Observer, Schedule, Shard};
use crate::record::{
    Attempt, Duel, Extra, Extras, JobKey, Outcome, Record, Score, Side, Termination,
};

/// The columns every game has, before the task's own.
pub const COMMON_COLUMNS: [&str; 12] = [
    "game",
    "case",
    "pair",
    "first",
    "agent_a",
    "agent_b",
    "score_a",
    "score_b",
    "termination",
    "forfeit",
    "reason",
    "plies",
];

/// The columns every puzzle attempt has, before the task's own (`docs/csv.md`).
pub const SOLO_COLUMNS: [&str; 8] = [
    "attempt",
    "puzzle",
    "seed",
    "solver",
    "valid",
    "score",
    "termination",
    "reason",
];

/// A cell as CSV writes it: quoted when it holds a comma, quote or line break.
pub fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// Appends `n` in decimal.
fn decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Turns records into lines and back, for one plan.
pub struct Codec {
    schedule: Schedule,
    /// One-seat (puzzle) rows: `SOLO_COLUMNS`; the instance seed of pair `p` is
    /// `first_seed + p`.
    solo: bool,
    first_seed: u64,
    extra_columns: &'static [&'static str],
    /// Names and cases as written (CSV-quoted where needed), rendered once.
    cases: Vec<String>,
    case_names: Vec<String>,
    matchups: Vec<(String, String)>,
    matchup_names: Vec<(String, String)>,
}

impl Codec {
    pub fn new(plan: &Plan) -> Codec {
        let names: Vec<(String, String)> = plan
            .matchups()
            .iter()
            .map(|&(a, b)| (plan.agents[a].name.clone(), plan.agents[b].name.clone()))
            .collect();
        Codec {
            schedule: plan.schedule(),
            solo: plan.is_solo(),
            first_seed: plan.seed,
            extra_columns: plan.task().extra_columns(),
            cases: plan.cases.iter().map(|c| csv_cell(c)).collect(),
            case_names: plan.cases.clone(),
            matchups: names
                .iter()
                .map(|(a, b)| (csv_cell(a), csv_cell(b)))
                .collect(),
            matchup_names: names,
        }
    }

    fn columns(&self) -> &'static [&'static str] {
        if self.solo {
            &SOLO_COLUMNS
        } else {
            &COMMON_COLUMNS
        }
    }

    pub fn header(&self) -> String {
        let mut line = self.columns().join(",");
        for c in self.extra_columns {
            line.push(',');
            line.push_str(c);
        }
        line.push('\n');
        line
    }

    /// Appends `record`'s line to `out`.
    pub fn write(&self, record: &Record, out: &mut Vec<u8>) {
        let d = match &record.outcome {
            Outcome::Duel(d) => d,
            Outcome::Solo(attempt) => return self.write_solo(record, attempt, out),
        };
        let k = &record.key;
        let (a, b) = &self.matchups[usize::from(k.matchup)];
        // Plain byte pushes: `write!` costs as much as a fast game.
        decimal(out, k.index);
        for cell in [",", &self.cases[usize::from(k.case)], ","] {
            out.extend_from_slice(cell.as_bytes());
        }
        decimal(out, u64::from(k.pair));
        for cell in [
            ",",
            d.first.as_str(),
            ",",
            a,
            ",",
            b,
            ",",
            d.score_a.as_str(),
            ",",
            d.score_a.flipped().as_str(),
            ",",
            record.termination.as_str(),
            ",",
            d.forfeit.map_or("", Side::as_str),
            ",",
        ] {
            out.extend_from_slice(cell.as_bytes());
        }
        if !record.reason.is_empty() {
            out.extend_from_slice(csv_cell(&record.reason).as_bytes());
        }
        out.push(b',');
        decimal(out, u64::from(record.plies));
        write_extras(record, out);
        out.push(b'\n');
    }

    fn write_solo(&self, record: &Record, attempt: &Attempt, out: &mut Vec<u8>) {
        let k = &record.key;
        decimal(out, k.index);
        for cell in [",", &self.cases[usize::from(k.case)], ","] {
            out.extend_from_slice(cell.as_bytes());
        }
        decimal(out, self.first_seed + u64::from(k.pair));
        out.push(b',');
        out.extend_from_slice(self.matchups[usize::from(k.matchup)].0.as_bytes());
        match attempt.score {
            Some(score) => {
                out.extend_from_slice(b",1,");
                out.extend_from_slice(score.to_string().as_bytes());
            }
            None => out.extend_from_slice(b",0,"),
        }
        out.push(b',');
        out.extend_from_slice(record.termination.as_str().as_bytes());
        out.push(b',');
        out.extend_from_slice(csv_cell(&record.reason).as_bytes());
        write_extras(record, out);
        out.push(b'\n');
    }

    /// Reads one row back; `expected` is the game number it must hold. Errors say what
    /// is wrong, without the file (the caller names it).
    pub fn read(&self, row: &csv::StringRecord, expected: u64) -> Result<Record, String> {
        let width = self.columns().len() + self.extra_columns.len();
        if row.len() != width {
            return Err(format!("{} columns, expected {width}", row.len()));
        }
        let cell = |i: usize| row.get(i).unwrap_or_default();
        let index: u64 = cell(0)
            .parse()
            .map_err(|_| format!("{} {:?} is not a number", self.columns()[0], cell(0)))?;
        if index != expected {
            return Err(format!("game {index} where game {expected} belongs"));
        }
        if index >= self.schedule.len() {
            return Err(format!(
                "game {index} is past the end of the schedule ({} games)",
                self.schedule.len()
            ));
        }
        let key = self.schedule.job(index);
        let extras = (self.columns().len()..width)
            .map(|i| Extra::parse(cell(i)))
            .collect();
        if self.solo {
            self.read_solo(&cell, key, extras)
        } else {
            self.read_duel(&cell, key, extras)
        }
    }

    fn read_solo<'r>(
        &self,
        cell: &dyn Fn(usize) -> &'r str,
        key: JobKey,
        extras: Extras,
    ) -> Result<Record, String> {
        let index = key.index;
        let solver = &self.matchup_names[usize::from(key.matchup)].0;
        let puzzle = &self.case_names[usize::from(key.case)];
        let seed = self.first_seed + u64::from(key.pair);
        if cell(1) != puzzle || cell(2) != seed.to_string() || cell(3) != solver {
            return Err(format!(
                "attempt {index} is {:?} seed {} by {:?}, but this run's attempt {index} is {puzzle} seed {seed} by {solver:?}: the row is not from this run",
                cell(1),
                cell(2),
                cell(3)
            ));
        }
        let termination: Termination = cell(6).parse()?;
        let reason = cell(7).to_owned();
        let score = match (cell(4), cell(5)) {
            ("1", s) => Some(
                s.parse::<i64>()
                    .map_err(|_| format!("score {s:?} is not a number"))?,
            ),
            ("0", "") => None,
            (v, s) => return Err(format!("valid {v:?} with score {s:?}")),
        };
        if score.is_some() != (termination == Termination::Answer) {
            return Err(format!(
                "termination {termination} with valid {:?}",
                cell(4)
            ));
        }
        if !termination.is_forfeit() && termination != Termination::Answer {
            return Err(format!("termination {termination} in a puzzle attempt"));
        }
        if reason.is_empty() == termination.is_forfeit() {
            return Err(format!("termination {termination} with reason {reason:?}"));
        }
        Ok(Record {
            key,
            outcome: Outcome::Solo(Attempt { score }),
            termination,
            reason,
            plies: 0,
            extras,
            elapsed: None,
            think: None,
        })
    }

    fn read_duel<'r>(
        &self,
        cell: &dyn Fn(usize) -> &'r str,
        key: JobKey,
        extras: Extras,
    ) -> Result<Record, String> {
        let index = key.index;
        let (a, b) = &self.matchup_names[usize::from(key.matchup)];
        let case = &self.case_names[usize::from(key.case)];
        if cell(1) != case || cell(4) != a || cell(5) != b || cell(2) != key.pair.to_string() {
            return Err(format!(
                "game {index} is case {:?} pair {} of {:?} vs {:?}, but this run's game {index} is case {case} pair {} of {a:?} vs {b:?}: the row is not from this run",
                cell(1),
                cell(2),
                cell(4),
                cell(5),
                key.pair
            ));
        }
        let first: Side = cell(3).parse().map_err(|e| format!("first: {e}"))?;
        let score_a: Score = cell(6).parse().map_err(|e| format!("score_a: {e}"))?;
        let score_b: Score = cell(7).parse().map_err(|e| format!("score_b: {e}"))?;
        if score_b != score_a.flipped() {
            return Err(format!(
                "score_a {} and score_b {} do not sum to 1",
                cell(6),
                cell(7)
            ));
        }
        let termination: Termination = cell(8).parse()?;
        let forfeit = match cell(9) {
            "" => None,
            s => Some(s.parse::<Side>().map_err(|e| format!("forfeit: {e}"))?),
        };
        if forfeit.is_some() != termination.is_forfeit() {
            return Err(format!(
                "termination {termination} with forfeit {:?}",
                cell(9)
            ));
        }
        let reason = cell(10).to_owned();
        if reason.is_empty() == forfeit.is_some() {
            return Err(format!("termination {termination} with reason {reason:?}"));
        }
        let plies: u32 = cell(11)
            .parse()
            .map_err(|_| format!("plies {:?} is not a number", cell(11)))?;
        Ok(Record {
            key,
            outcome: Outcome::Duel(Duel {
                score_a,
                first,
                forfeit,
            }),
            termination,
            reason,
            plies,
            extras,
            elapsed: None,
            think: None,
        })
    }
}

/// Appends the record's extra columns, each after a comma.
#[inline(always)]
fn write_extras(record: &Record, out: &mut Vec<u8>) {
    for e in &record.extras {
        out.push(b',');
        match e {
            Extra::Int(n) => {
                if *n < 0 {
                    out.push(b'-');
                }
                decimal(out, n.unsigned_abs());
            }
            Extra::Text(t) => out.extend_from_slice(csv_cell(t).as_bytes()),
        }
    }
}

/// Appends records to `games.csv`, flushing when its buffer fills or a second has
/// passed, and at the end.
pub struct ResultsWriter {
    codec: Codec,
    path: PathBuf,
    out: BufWriter<File>,
    line: Vec<u8>,
    last_flush: Instant,
    /// Rows until the clock is read again, and when it last was.
    until_clock: u32,
    last_clock: Instant,
    pub written: u64,
}

impl ResultsWriter {
    /// Opens `path` for appending after `rows` valid rows (a new file gets the header).
    pub fn append(path: &Path, plan: &Plan, rows: u64) -> Result<ResultsWriter> {
        let codec = Codec::new(plan);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        let fresh = file
            .metadata()
            .with_context(|| format!("reading {}", path.display()))?
            .len()
            == 0;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        if fresh {
            out.write_all(codec.header().as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
        }
        Ok(ResultsWriter {
            codec,
            path: path.to_owned(),
            out,
            line: Vec::with_capacity(256),
            last_flush: Instant::now(),
            until_clock: 1,
            last_clock: Instant::now(),
            written: rows,
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

impl Observer for ResultsWriter {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        self.line.clear();
        self.codec.write(record, &mut self.line);
        self.out
            .write_all(&self.line)
            .with_context(|| format!("writing {}", self.path.display()))?;
        self.written += 1;
        // Slow games are flushed about once a second; fast ones when the buffer fills.
        // The clock is read at every row while rows are slow, every 64th while they come
        // faster than one a millisecond (fast games would pay for it on every row).
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
        Ok(Flow::Continue)
    }
}

impl Drop for ResultsWriter {
    fn drop(&mut self) {
        let _ = self.out.flush();
    }
}

/// What to do with an incomplete last line (a run killed mid-write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Torn {
    /// Cut it from the file (resume: the game is replayed).
    Repair,
    /// Refuse the file (merge: the shard must be resumed first).
    Refuse,
}

/// Reads the rows of a results file one by one (the games of `shard`, in order), checking
/// every one against the schedule.
pub struct RowReader {
    codec: Codec,
    name: String,
    reader: csv::Reader<BufReader<std::io::Take<File>>>,
    expected: Box<dyn Iterator<Item = u64>>,
    shard_games: u64,
    whole: bool,
    row: csv::StringRecord,
    /// Rows read so far.
    pub rows: u64,
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
                Torn::Refuse => bail!(
                    "{name} is torn: its last line is incomplete (the run was killed); finish it with `arena run --resume` first"
                ),
            }
        }
        file.seek(SeekFrom::Start(0))
            .with_context(|| format!("cannot read {name}"))?;
        let mut input = BufReader::with_capacity(1 << 16, file.take(complete));
        let header = codec.header();
        let mut first = String::new();
        input
            .read_line(&mut first)
            .with_context(|| format!("{name} line 1: not text"))?;
        if complete > 0 && first != header {
            bail!(
                "{name} line 1: the header is {:?}, expected {:?} (schema 2 for {})",
                first.trim_end(),
                header.trim_end(),
                plan.game
            );
        }
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(input);
        let schedule = plan.schedule();
        Ok(RowReader {
            codec,
            name,
            reader,
            expected: Box::new(schedule.indices(shard, 0)),
            shard_games: schedule.shard_len(shard),
            whole: shard.is_whole(),
            row: csv::StringRecord::new(),
            rows: 0,
        })
    }

    /// The next record, or `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let name = &self.name;
        let line = self.rows + 2;
        match self.reader.read_record(&mut self.row) {
            Ok(false) => return Ok(None),
            Ok(true) => {}
            Err(e) => bail!("{name} line {line}: {e}"),
        }
        let Some(index) = self.expected.next() else {
            bail!(
                "{name} line {line}: more rows than the {} games of this {}",
                self.shard_games,
                if self.whole { "run" } else { "shard" }
            );
        };
        let record = self
            .codec
            .read(&self.row, index)
            .map_err(|e| anyhow::anyhow!("{name} line {line}: {e}"))?;
        self.rows += 1;
        Ok(Some(record))
    }
}

/// Reads every row of `path` into `each` (until it says stop); returns the rows read.
pub fn read_rows(
    path: &Path,
    plan: &Plan,
    shard: Shard,
    torn: Torn,
    each: &mut dyn FnMut(Record) -> Result<Flow>,
) -> Result<u64> {
    let mut reader = RowReader::open(path, plan, shard, torn)?;
    while let Some(record) = reader.next_record()? {
        if each(record)? == Flow::Stop {
            break;
        }
    }
    Ok(reader.rows)
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

#[cfg(test)]
mod tests {
    #[test]
    fn decimals_are_written_like_display() {
        for n in [0u64, 7, 10, 99, 100, 12_345, u64::MAX] {
            let mut out = Vec::new();
            super::decimal(&mut out, n);
            assert_eq!(String::from_utf8(out).unwrap(), n.to_string());
        }
    }
}
