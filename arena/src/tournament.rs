//! Runs a plan: games in parallel on a rayon pool, rows through a reorder buffer into
//! `games.csv` in game order (so the file is byte-identical at any concurrency), every
//! finished row first appended to `journal.csv` so an interrupted run loses nothing and
//! `--resume` never replays a finished game.

use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{Context, Result, bail};
use arena_core::Game;

use crate::config::Plan;
use crate::contest::Contest;
use crate::external::{ExecAgent, ExternalRuntime};
use crate::progress::Progress;
use crate::runner::{self, GameRow};
use crate::schedule::{self, Job};
use crate::summary::Tally;

pub const GAMES_CSV: &str = "games.csv";
pub const JOURNAL_CSV: &str = "journal.csv";
pub const CONFIG_TOML: &str = "config.toml";
pub const LOG: &str = "run.log";

/// How a run is carried out; none of it changes results.
pub struct Execution {
    pub concurrency: usize,
    pub progress: bool,
}

/// The finished games of a run, in game order, and whether an SPRT stopped it.
pub struct Finished {
    pub rows: Vec<GameRow>,
    pub stopped_early: bool,
}

/// Parses the plan's cases with the game's notation.
pub fn parse_cases<C: Contest>(plan: &Plan) -> Result<Vec<<C::G as Game>::Case>> {
    plan.cases
        .iter()
        .map(|c| {
            c.parse()
                .map_err(|e: arena_core::ParseError| anyhow::anyhow!("{e}"))
                .with_context(|| format!("in the case list of this {} run", C::NAME))
        })
        .collect()
}

/// Checks that every built-in agent spec builds, before any game starts (external
/// agents are checked when they start).
pub fn check_agents<C: Contest>(plan: &Plan) -> Result<()> {
    for a in &plan.agents {
        if matches!(a.spec, agents::Spec::Exec { .. }) {
            continue;
        }
        C::build(&a.spec, 0).with_context(|| format!("agent {:?}", a.name))?;
    }
    Ok(())
}

/// The runtime for the plan's `exec:` agents, if it has any.
pub fn external_runtime(
    plan: &Plan,
    dir: &Path,
    jobs: &[Job],
) -> Result<Option<Arc<ExternalRuntime>>> {
    let agents: Vec<Option<ExecAgent>> = plan
        .agents
        .iter()
        .map(|a| match &a.spec {
            agents::Spec::Exec { command } => Some(ExecAgent {
                name: a.name.clone(),
                command: crate::external::absolutize(command),
            }),
            _ => None,
        })
        .collect();
    if agents.iter().all(Option::is_none) {
        return Ok(None);
    }
    let mut games: HashMap<(usize, String), usize> = HashMap::new();
    for job in jobs {
        for agent in [job.a, job.b] {
            *games
                .entry((agent, plan.cases[job.case].clone()))
                .or_default() += 1;
        }
    }
    let rt = ExternalRuntime::new(agents, dir, plan.limits, games)
        .context("starting the runtime for external agents")?;
    log(
        dir,
        if rt.sandboxed() {
            "sandbox: external agents get a scrubbed environment, their own working directory \
             under agents/, an address-space limit, and Landlock confinement (they cannot read \
             the run directory or the configs)"
        } else {
            "sandbox: external agents get a scrubbed environment, their own working directory \
             under agents/, and an address-space limit; Landlock is NOT available on this \
             kernel, so they can read any file the user can"
        },
    )?;
    Ok(Some(Arc::new(rt)))
}

/// Reads the journal of an interrupted run: finished rows by game index. A torn last
/// line (the run was killed mid-write) is dropped and cut from the file.
fn read_journal(path: &Path) -> Result<BTreeMap<u64, GameRow>> {
    let mut done = BTreeMap::new();
    if !path.exists() {
        return Ok(done);
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    if complete.len() != text.len() {
        std::fs::write(path, complete).with_context(|| format!("repairing {}", path.display()))?;
    }
    let mut reader = csv::Reader::from_reader(complete.as_bytes());
    for row in reader.deserialize::<GameRow>() {
        let row = row.with_context(|| format!("a row of {}", path.display()))?;
        done.insert(row.game, row);
    }
    Ok(done)
}

fn csv_line(row: &GameRow, header: bool) -> Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    w.serialize(row)?;
    w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
}

fn header_line() -> Result<Vec<u8>> {
    let mut all = csv_line(&example_row(), true)?;
    let body = csv_line(&example_row(), false)?;
    all.truncate(all.len() - body.len());
    Ok(all)
}

fn example_row() -> GameRow {
    GameRow {
        game: 0,
        case: String::new(),
        pair: 0,
        first: String::new(),
        agent_a: String::new(),
        agent_b: String::new(),
        score_a: 0.0,
        score_b: 0.0,
        termination: String::new(),
        forfeit: String::new(),
        plies: 0,
        start: String::new(),
        stock_left: String::new(),
        pips_a: String::new(),
        pips_b: String::new(),
    }
}

/// Appends a line to a log file, with no clock inside the results.
pub fn log(dir: &Path, line: &str) -> Result<()> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(LOG))?;
    writeln!(f, "{line}")?;
    Ok(())
}

/// Plays every game of `plan` not yet in `dir`'s journal, writing `games.csv`.
pub fn run<C: Contest>(plan: &Plan, dir: &Path, exec: &Execution) -> Result<Finished> {
    let cases = parse_cases::<C>(plan)?;
    check_agents::<C>(plan)?;
    let jobs = schedule::jobs(plan);
    let journal_path = dir.join(JOURNAL_CSV);
    let mut done = read_journal(&journal_path)?;
    done.retain(|&i, _| (i as usize) < jobs.len());
    let todo: Vec<Job> = jobs
        .iter()
        .filter(|j| !done.contains_key(&j.index))
        .copied()
        .collect();
    if !done.is_empty() {
        log(
            dir,
            &format!(
                "resume: {} games already finished, {} to play",
                done.len(),
                todo.len()
            ),
        )?;
    }

    let mut journal = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_path)?;
    if journal.metadata()?.len() == 0 {
        journal.write_all(&header_line()?)?;
    }
    let mut games = File::create(dir.join(GAMES_CSV))?;
    games.write_all(&header_line()?)?;

    let external = external_runtime(plan, dir, &jobs)?;
    let progress = Progress::new::<C>(exec.progress, plan, &cases, &done);
    let mut tally = Tally::new(plan);
    let mut next = 0u64;
    let mut pending: BTreeMap<u64, GameRow> = done;
    let mut rows = Vec::with_capacity(jobs.len());
    let stop = AtomicBool::new(false);
    let mut stopped_early = false;

    // Writes every row that is next in game order; checks the SPRT at pair ends.
    let mut drain = |pending: &mut BTreeMap<u64, GameRow>, rows: &mut Vec<GameRow>| -> Result<()> {
        while !stopped_early {
            let Some(row) = pending.remove(&next) else {
                break;
            };
            games.write_all(&csv_line(&row, false)?)?;
            games.flush()?;
            tally.add(&row);
            progress.finished(&row, &tally);
            next += 1;
            rows.push(row);
            if next.is_multiple_of(2) && tally.sprt_decided() {
                stopped_early = true;
                stop.store(true, Ordering::Relaxed);
            }
        }
        Ok(())
    };
    drain(&mut pending, &mut rows)?;

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(exec.concurrency)
        .build()
        .context("starting the worker pool")?;
    let (sender, receiver) = mpsc::channel::<Result<GameRow>>();
    let cursor = AtomicUsize::new(0);
    std::thread::scope(|scope| -> Result<()> {
        let (todo, cases, stop, cursor, external) = (&todo, &cases, &stop, &cursor, &external);
        let pool = &pool;
        scope.spawn(move || {
            // Each worker takes the next job in order, so rows arrive nearly in order
            // and the reorder buffer stays small.
            pool.scope(|s| {
                for _ in 0..exec.concurrency {
                    let sender = sender.clone();
                    s.spawn(move |_| {
                        loop {
                            if stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let i = cursor.fetch_add(1, Ordering::Relaxed);
                            let Some(job) = todo.get(i) else { break };
                            let row =
                                runner::play::<C>(plan, cases, job, external.as_ref(), &mut |_| {})
                                    .map_err(anyhow::Error::from);
                            if sender.send(row).is_err() {
                                break;
                            }
                        }
                    });
                }
            });
            drop(sender);
        });
        for row in receiver {
            let row = row?;
            journal.write_all(&csv_line(&row, false)?)?;
            journal.flush()?;
            pending.insert(row.game, row);
            drain(&mut pending, &mut rows)?;
        }
        Ok(())
    })?;
    progress.finish();
    if let Some(rt) = &external {
        rt.shutdown();
    }
    if !stopped_early && rows.len() != jobs.len() {
        bail!("only {} of {} games finished", rows.len(), jobs.len());
    }
    Ok(Finished {
        rows,
        stopped_early,
    })
}

/// The default output directory: `results/<game>-<UTC timestamp>`, made unique.
pub fn default_out_dir(game: &str) -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = format!("results/{game}-{}", utc_stamp(secs));
    let mut dir = PathBuf::from(&base);
    let mut k = 1;
    while dir.exists() {
        k += 1;
        dir = PathBuf::from(format!("{base}-{k}"));
    }
    dir
}

/// `YYYYmmdd-HHMMSS` for Unix seconds (civil-from-days, proleptic Gregorian, UTC).
fn utc_stamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_stamps() {
        assert_eq!(super::utc_stamp(0), "19700101-000000");
        assert_eq!(super::utc_stamp(1_795_435_200), "20261123-120000");
    }
}
