//! `games.csv`: records in game order, one line each (`docs/csv.md`). Written in batches
//! (a kill -9 loses at most the last second of games, which `--resume` replays
//! identically from the seed); read back with every row checked against the schedule and
//! against its `check` column, a running CRC-32 of the rows so far, so an edited,
//! deleted, moved or damaged row is named, never trusted.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::fault::{self, Budgeted, Fault};
use crate::engine::{Flow, Observer, RowEncoder, RowSink, Rows, Schedule, Shard};
use crate::plan::Plan;
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

/// `00` to `99`, two bytes each.
const DIGIT_PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Appends `n` in decimal, two digits at a time (a row has three or more numbers, and
/// fast games are written at millions a second).
fn decimal(out: &mut Vec<u8>, mut n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        i -= 2;
        digits[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        i -= 1;
        digits[i] = b'0' + n as u8;
    }
    out.extend_from_slice(&digits[i..]);
}

/// Appends a cell as [`csv_cell`] writes it, without allocating when it needs no quotes.
fn write_cell(out: &mut Vec<u8>, text: &str) {
    if text
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
    {
        out.extend_from_slice(csv_cell(text).as_bytes());
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

/// Turns records into lines and back, for one plan.
pub struct Codec {
    schedule: Schedule,
    /// One-seat (puzzle) rows: `SOLO_COLUMNS`; the instance seed of pair `p` is
    /// `first_seed + p`.
    solo: bool,
    first_seed: u64,
    extra_columns: &'static [&'static str],
    /// The task's endings by the rules (`Termination::Rules`).
    endings: &'static [&'static str],
    /// Names and cases as written (CSV-quoted where needed), rendered once.
    cases: Vec<String>,
    case_names: Vec<String>,
    matchups: Vec<(String, String)>,
    matchup_names: Vec<(String, String)>,
    /// Per case, its cell and the comma after it.
    case_cells: Vec<String>,
    /// Per matchup, the cells from `first` to `agent_b` and the commas around them, when
    /// A moves first and when B does: `,a,greedy,random,`.
    seat_cells: Vec<[String; 2]>,
}

impl Codec {
    pub fn new(plan: &Plan) -> Codec {
        let names: Vec<(String, String)> = plan
            .matchups()
            .iter()
            .map(|&(a, b)| (plan.agents[a].name.clone(), plan.agents[b].name.clone()))
            .collect();
        Codec {
            schedule: plan.schedule,
            solo: plan.is_solo(),
            first_seed: plan.seed,
            extra_columns: plan.task.extra_columns(),
            endings: plan.task.endings(),
            cases: plan.cases.iter().map(|c| csv_cell(c)).collect(),
            case_names: plan.cases.clone(),
            matchups: names
                .iter()
                .map(|(a, b)| (csv_cell(a), csv_cell(b)))
                .collect(),
            case_cells: plan.cases.iter().map(|c| csv_cell(c) + ",").collect(),
            seat_cells: names
                .iter()
                .map(|(a, b)| {
                    let (a, b) = (csv_cell(a), csv_cell(b));
                    [Side::A, Side::B].map(|first| format!(",{},{a},{b},", first.as_str()))
                })
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
        line.push_str(",check\n");
        line
    }

    /// Appends `record`'s line to `out`, without its `check` column: the row's content,
    /// ending in a line break.
    pub fn write(&self, record: &Record, out: &mut Vec<u8>) {
        let d = match &record.outcome {
            Outcome::Duel(d) => d,
            Outcome::Solo(attempt) => return self.write_solo(record, attempt, out),
        };
        let k = &record.key;
        // Whole runs of cells rendered once per plan, and bytes pushed: per-cell `write!`
        // (or a copy per comma) would cost as much as a fast game.
        decimal(out, k.index);
        out.push(b',');
        out.extend_from_slice(self.case_cells[usize::from(k.case)].as_bytes());
        decimal(out, u64::from(k.pair));
        out.extend_from_slice(
            self.seat_cells[usize::from(k.matchup)][usize::from(d.first == Side::B)].as_bytes(),
        );
        out.extend_from_slice(match d.score_a {
            Score::Win => b"1,0,",
            Score::Draw => b"0.5,0.5,",
            Score::Loss => b"0,1,",
        });
        out.extend_from_slice(record.termination.as_str().as_bytes());
        out.push(b',');
        if let Some(side) = d.forfeit {
            out.extend_from_slice(side.as_str().as_bytes());
        }
        out.push(b',');
        if !record.reason.is_empty() {
            write_cell(out, &record.reason);
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
        let termination = Termination::parse(cell(6), self.endings)?;
        let reason = cell(7).to_owned();
        let score = match (cell(4), cell(5)) {
            ("1", s) => Some(
                s.parse::<i64>()
                    .map_err(|_| format!("score {s:?} is not a number"))?,
            ),
            ("0", "") => None,
            (v, s) => return Err(format!("valid {v:?} with score {s:?}")),
        };
        let answered = termination == Termination::Rules(crate::task::puzzles::ANSWER);
        if score.is_some() != answered {
            return Err(format!(
                "termination {termination} with valid {:?}",
                cell(4)
            ));
        }
        if !termination.is_forfeit() && !answered {
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
        let termination = Termination::parse(cell(8), self.endings)?;
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
            Extra::Text(t) => write_cell(out, t),
        }
    }
}

/// The `check` of a row: the running CRC-32 (zlib's `crc32(data, value)`) of every row's
/// content so far, each with its line break, starting from 0. So an edited row breaks
/// its own check, and a deleted, added or moved one the check of the row after it.
pub fn chain(previous: u32, content: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new_with_initial(previous);
    crc.update(content);
    crc.finalize()
}

/// Appends `content` (a row's content, ending in a line break) to `out` with its `check`
/// column after `previous`; returns the new check.
pub fn append_checked(out: &mut Vec<u8>, content: &[u8], previous: u32) -> u32 {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let check = chain(previous, content);
    out.extend_from_slice(&content[..content.len() - 1]);
    out.push(b',');
    out.extend((0..8).rev().map(|i| HEX[(check >> (4 * i)) as usize & 15]));
    out.push(b'\n');
    check
}

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

impl RowEncoder for Codec {
    fn encode(&self, record: &Record, out: &mut Vec<u8>) {
        self.write(record, out);
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
                super::SCHEMA,
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

/// Splits a row as `csv_cell` writes it: cells between commas, a quoted one with `""`
/// for a quote.
pub fn split_fields(line: &[u8], row: &mut csv::StringRecord) -> Result<(), String> {
    row.clear();
    let text = std::str::from_utf8(line).map_err(|_| "not UTF-8".to_owned())?;
    let mut rest = text;
    loop {
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut cell = String::new();
            let mut chars = quoted.char_indices();
            let end = loop {
                match chars.next() {
                    Some((i, '"')) => {
                        if quoted[i + 1..].starts_with('"') {
                            cell.push('"');
                            chars.next();
                        } else {
                            break i + 1;
                        }
                    }
                    Some((_, c)) => cell.push(c),
                    None => return Err("a quoted cell is not closed".into()),
                }
            };
            row.push_field(&cell);
            rest = &quoted[end..];
            match rest.strip_prefix(',') {
                Some(r) => rest = r,
                None if rest.is_empty() => return Ok(()),
                None => return Err("text after a quoted cell".into()),
            }
        } else {
            match rest.split_once(',') {
                Some((cell, r)) => {
                    row.push_field(cell);
                    rest = r;
                }
                None => {
                    row.push_field(rest);
                    return Ok(());
                }
            }
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
