//! One run, from a resolved plan to its reports: create or reopen the run directory,
//! replay what is on disk into the observers, play the rest on the engine, write the
//! summaries. `arena run`, `arena match` and `--resume` all come here.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::engine::{self, Execution, Observer, RunEnd, Shard, SprtMonitor, StartupGuard};
use crate::external::{ExecAgent, ExternalRuntime, Start};
use crate::plan::Plan;
use crate::record::{Extras, Outcome, Record, Termination};
use crate::report::think::{TIMINGS_CSV, ThinkTally};
use crate::report::{Forfeits, Progress, RunFacts, Summarizer};
use crate::rundir::results::{Codec, ResultsWriter, Tail, Torn, read_rows};
use crate::rundir::times::{TIMES_CSV, TimesWriter};
use crate::rundir::{Access, RunDir};

/// The run stopped on Ctrl-C or SIGTERM; `arena run --resume` finishes it (exit 130).
#[derive(Debug, thiserror::Error)]
#[error("interrupted after {played} of {total}; finish with `arena run --resume {dir}`")]
pub struct Interrupted {
    /// What is on disk, counted (`12 games`, `3 attempts`).
    pub played: String,
    pub total: u64,
    pub dir: String,
}

pub use crate::runfile::HarnessFailure;

/// Starts a new run of `plan` in `dir`.
pub fn start(plan: &Plan, dir: &Path, shard: Shard, exec: &Execution) -> Result<()> {
    // Before the run directory exists: an agent its task refuses leaves nothing behind
    // (resolving the plan refused the rest: cases, a solver given another puzzle).
    for a in &plan.agents {
        plan.task
            .check_agent(&a.spec)
            .with_context(|| format!("agent {:?}", a.name))?;
    }
    let run = RunDir::create(dir, plan, shard)?;
    run.log(&format!(
        "arena {} started; seed {}; shard {}",
        env!("CARGO_PKG_VERSION"),
        plan.seed,
        shard
    ))?;
    eprintln!("arena: results in {}", dir.display());
    execute(&run, exec)
}

/// Finishes the interrupted run in `dir` (a finished one has nothing to do).
pub fn resume(dir: &Path, exec: &Execution) -> Result<()> {
    resume_open(RunDir::open(dir, Access::Write)?, exec)
}

/// Finishes the interrupted run already opened (and locked) as `run`.
pub fn resume_open(run: RunDir, exec: &Execution) -> Result<()> {
    run.log("resumed")?;
    execute(&run, exec)
}

/// The harness's own failures (a write, a thread), told apart from bad input.
fn harness(e: anyhow::Error) -> anyhow::Error {
    e.context(HarnessFailure)
}

fn execute(run: &RunDir, exec: &Execution) -> Result<()> {
    let plan = &run.plan;
    let shard = run.shard();
    let total = plan.schedule.shard_len(shard);
    let mut seen = Seen::read(run)?;
    let done = seen.tail.rows;
    if done == total || seen.decided() {
        return nothing_to_do(run, &seen);
    }
    if done > 0 {
        // Said on the console too: a resume should show what it found before it plays.
        let found = format!(
            "resume: {} on disk, {} to play",
            plan.count(done),
            plan.count(total - done)
        );
        eprintln!("arena: {found}");
        run.log(&found)?;
    }
    let began = Instant::now();
    let external = runtime(run, done, Some(std::mem::take(&mut seen.starts.tails)))?;
    if let Some(rt) = &external {
        // No sandbox at all is recorded as every layer missing.
        run.record_sandbox(rt.enforcement().cloned().unwrap_or_default())?;
    }
    let played = play_rest(run, exec, &mut seen, external.as_ref())?;
    if let Some((agent, reason)) = &played.tripped {
        return Err(could_not_start(run, *agent, reason, played.written)?);
    }
    run.log(&format!(
        "{} {} in {:.2} s at concurrency {}{}",
        if played.end == RunEnd::Interrupted {
            "interrupted after"
        } else {
            "finished"
        },
        plan.count(played.written),
        began.elapsed().as_secs_f64(),
        exec.concurrency,
        if played.end == RunEnd::Stopped {
            " (stopped by the SPRT)"
        } else {
            ""
        }
    ))?;
    if played.end == RunEnd::Interrupted {
        return Err(Interrupted {
            played: plan.count(played.written),
            total,
            dir: run.dir.display().to_string(),
        }
        .into());
    }
    let stopped = played.end == RunEnd::Stopped;
    let table =
        write_summaries(run, &seen.tally, stopped, played.think.as_ref()).map_err(harness)?;
    let forfeit_list = seen.forfeits.describe(&run.dir);
    if !forfeit_list.is_empty() {
        run.log(forfeit_list.trim_end())?;
    }
    println!(
        "{} {}, seed {}{}, results in {}\n\n{table}{forfeit_list}",
        plan.task.name(),
        plan.count(played.written),
        plan.seed,
        if shard.is_whole() {
            String::new()
        } else {
            format!(", shard {shard}")
        },
        run.dir.display()
    );
    Ok(())
}

/// The observers that see every record of a run, the ones on disk and the ones played
/// now, and where `games.csv` ends.
struct Seen {
    tally: Summarizer,
    forfeits: Forfeits,
    /// An SPRT is decided on the whole run in game order; shards leave it to `merge`.
    sprt: Option<SprtMonitor>,
    /// Knows who started in a game on disk: only an agent that never started in the
    /// run stops it.
    guard: StartupGuard,
    /// How the agents' starts went in the last games on disk, per case.
    starts: DiskStarts,
    tail: Tail,
}

impl Seen {
    /// The observers, fed what is on disk already: checked row by row, exactly as if
    /// just played.
    fn read(run: &RunDir) -> Result<Seen> {
        let plan = &run.plan;
        let mut tally = Summarizer::new(plan)?;
        let mut forfeits = Forfeits::new(plan);
        let mut sprt = match (&plan.sprt, run.shard().is_whole()) {
            (Some(s), true) => Some(SprtMonitor::new(s)?),
            _ => None,
        };
        let mut guard = StartupGuard::new(plan.matchups(), plan.agents.len());
        let mut starts = DiskStarts::new(plan);
        let games_csv = run.games_csv();
        let mut tail = Tail::default();
        if games_csv.exists() {
            tail = read_rows(&games_csv, plan, run.shard(), Torn::Repair, &mut |record| {
                guard.replay(&record);
                starts.replay(&record);
                tally.record(&record)?;
                forfeits.record(&record)?;
                match &mut sprt {
                    Some(s) => s.record(&record),
                    None => Ok(engine::Flow::Continue),
                }
            })?;
        }
        Ok(Seen {
            tally,
            forfeits,
            sprt,
            guard,
            starts,
            tail,
        })
    }

    fn decided(&self) -> bool {
        self.sprt.as_ref().is_some_and(SprtMonitor::decided)
    }
}

/// A finished run (every game on disk, or the SPRT decided): its summaries again.
fn nothing_to_do(run: &RunDir, seen: &Seen) -> Result<()> {
    let games_csv = run.games_csv();
    if !games_csv.exists() {
        // A shard with no games (more shards than pairs): its empty games.csv says so
        // to `merge`.
        ResultsWriter::append(&games_csv, &run.plan, Tail::default())?.flush()?;
    }
    let think = existing_think(run)?;
    let table = write_summaries(run, &seen.tally, seen.decided(), think.as_ref())?;
    println!(
        "nothing to do: {} is finished ({})\n\n{table}{}",
        run.dir.display(),
        run.plan.count(seen.tail.rows),
        seen.forfeits.describe(&run.dir)
    );
    Ok(())
}

/// What playing the rest of a run did.
struct Played {
    end: RunEnd,
    /// Rows written to `games.csv` now.
    written: u64,
    /// Think times of a timed run (`timings.csv`).
    think: Option<ThinkTally>,
    /// The agent that could not start, and the reason of its last failure.
    tripped: Option<(usize, String)>,
}

/// Whether a run's decisions are timed: when asked, and always with an external agent
/// (its games are slow anyway, and its think time is what its author needs).
fn timed(plan: &Plan, exec: &Execution) -> bool {
    !plan.is_solo()
        && (exec.timings
            || plan
                .agents
                .iter()
                .any(|a| matches!(a.spec, agents::Spec::Exec { .. })))
}

/// Plays the games not on disk on the engine, into `seen` and the run's files.
fn play_rest(
    run: &RunDir,
    exec: &Execution,
    seen: &mut Seen,
    external: Option<&Arc<ExternalRuntime>>,
) -> Result<Played> {
    let plan = &run.plan;
    let shard = run.shard();
    let done = seen.tail.rows;
    let total = plan.schedule.shard_len(shard);
    let tail = std::mem::take(&mut seen.tail);
    let mut writer = ResultsWriter::append(&run.games_csv(), plan, tail).map_err(harness)?;
    let codec = Codec::new(plan);
    let mut progress = Progress::new(exec.progress, plan, total, done);
    let mut think = match timed(plan, exec) {
        true => {
            // Times of games past the last one on disk were never recorded: dropped.
            let next = plan.schedule.shard_game(shard, done);
            Some(ThinkTally::open(&run.dir, plan, next).map_err(harness)?)
        }
        false => None,
    };
    let mut times = match plan.is_solo() {
        true => Some(
            TimesWriter::append(&run.dir.join(TIMES_CSV), plan, exec.concurrency)
                .map_err(harness)?,
        ),
        false => None,
    };
    engine::stop::install(&run.dir);
    let end = {
        // The guard first: the game that trips it reaches no other observer.
        let mut observers: Vec<&mut dyn Observer> = vec![
            &mut seen.guard,
            &mut seen.tally,
            &mut seen.forfeits,
            &mut progress,
        ];
        if let Some(s) = &mut seen.sprt {
            observers.push(s);
        }
        if let Some(t) = &mut times {
            observers.push(t);
        }
        if let Some(t) = &mut think {
            observers.push(t);
        }
        let games = engine::Games {
            task: plan.prepared.as_ref(),
            span: engine::Span {
                schedule: plan.schedule,
                shard,
                start: done,
            },
            external,
            timed: timed(plan, exec),
        };
        let outputs = engine::Outputs {
            encoder: &codec,
            sink: &mut writer,
            observers: &mut observers,
        };
        engine::play_all(games, exec, engine::stop::flag(), outputs)
    };
    progress.finish();
    writer.flush().map_err(harness)?;
    if let Some(t) = &mut times {
        t.flush().map_err(harness)?;
    }
    if let Some(t) = &mut think {
        t.flush().map_err(harness)?;
    }
    if let Some(rt) = external {
        rt.shutdown();
    }
    Ok(Played {
        end: end.map_err(harness)?,
        written: writer.written,
        think,
        tripped: seen.guard.tripped.take(),
    })
}

/// The error of a run stopped because agent `agent` could not start (logged), with the
/// end of its stderr and what to do.
fn could_not_start(
    run: &RunDir,
    agent: usize,
    reason: &str,
    written: u64,
) -> Result<anyhow::Error> {
    let name = &run.plan.agents[agent].name;
    let tail = stderr_tail(run, agent, name);
    run.log(&format!(
        "stopped: agent {name:?} could not start (that game is not recorded): {reason}"
    ))?;
    let kept = run.plan.count(written);
    let dir = run.dir.display();
    Ok(anyhow::anyhow!(
        "agent {name:?} could not start, so the run stopped with {kept} on disk: {reason}{tail}\n\
         the game that showed it is not recorded. If the fix is in the program (a bug, a \
         missing file or package), fix it and `arena run --resume {dir}` plays that game \
         again and finishes the run. If the fix is to the agent's spec or the config, that \
         is another run (a run directory keeps the config it began with): start it with \
         another --out, or delete {dir} first"
    ))
}

/// The think times of a timed run already in `dir`, if any (`timings.csv`).
fn existing_think(run: &RunDir) -> Result<Option<ThinkTally>> {
    if run.dir.join(TIMINGS_CSV).exists() {
        Ok(Some(ThinkTally::open(&run.dir, &run.plan, u64::MAX)?))
    } else {
        Ok(None)
    }
}

/// Writes every summary file and returns the console table (with the think times of a
/// timed run).
pub fn write_summaries(
    run: &RunDir,
    tally: &Summarizer,
    stopped_early: bool,
    think: Option<&ThinkTally>,
) -> Result<String> {
    let facts = RunFacts {
        plan: &run.plan,
        stopped_early,
        think,
    };
    tally.write_summaries(&run.dir, &facts)
}

/// `arena report DIR`: writes `report.html` again from the games on disk (the other
/// summaries are left as they are); returns its path.
pub fn report(dir: &Path) -> Result<std::path::PathBuf> {
    let run = RunDir::open(dir, Access::Write)?;
    let mut tally = Summarizer::new(&run.plan)?;
    let games_csv = run.games_csv();
    if games_csv.exists() {
        read_rows(&games_csv, &run.plan, run.shard(), Torn::Refuse, &mut |r| {
            tally.record(&r)
        })?;
    }
    // Whether the SPRT cut the run is stated in summary.json; games alone cannot tell.
    let stopped_early = std::fs::read_to_string(run.dir.join("summary.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("stopped_early")?.as_bool())
        .unwrap_or(false);
    let think = existing_think(&run)?;
    let facts = RunFacts {
        plan: &run.plan,
        stopped_early,
        think: think.as_ref(),
    };
    tally.write_page(&run.dir, &facts)?;
    Ok(run.dir.join(crate::report::export::REPORT_HTML))
}

/// The runtime for the plan's `exec:` agents, if it has any, knowing how many games each
/// plays per case from game `done` of the shard on (so idle processes stop in time).
pub fn external_runtime(run: &RunDir, done: u64) -> Result<Option<Arc<ExternalRuntime>>> {
    runtime(run, done, None)
}

/// [`external_runtime`]; `in_order`: it plays the games from `done` on in game order, so
/// it may count start-up failures in a row by game index, going on from how the starts
/// went on disk (a replay of a few games, which would wait for games it never plays, may
/// not).
fn runtime(
    run: &RunDir,
    done: u64,
    in_order: Option<StartTails>,
) -> Result<Option<Arc<ExternalRuntime>>> {
    let plan = &run.plan;
    let sandboxed = plan.limits.sandbox == crate::setup::SandboxMode::On;
    let agents: Vec<Option<ExecAgent>> = plan
        .agents
        .iter()
        .map(|a| match &a.spec {
            agents::Spec::Exec { command } => Ok(Some(ExecAgent {
                name: a.name.clone(),
                command: crate::external::absolutize(command, sandboxed)
                    .with_context(|| format!("agent {:?}", a.name))?,
            })),
            _ => Ok(None),
        })
        .collect::<Result<_>>()?;
    if agents.iter().all(Option::is_none) {
        return Ok(None);
    }
    let schedule = &plan.schedule;
    let matchups = plan.matchups();
    let mut games: HashMap<(usize, String), usize> = HashMap::new();
    let shard = run.shard();
    let first = schedule
        .indices(shard, 0)
        .nth(done as usize)
        .unwrap_or(u64::MAX);
    for job in schedule.jobs(shard, first) {
        let (a, b) = matchups[usize::from(job.matchup)];
        for agent in [a, b] {
            *games
                .entry((agent, plan.cases[usize::from(job.case)].clone()))
                .or_default() += 1;
        }
    }
    let order = PlanOrder {
        schedule: *schedule,
        shard,
        matchups,
    };
    let mut rt = ExternalRuntime::new(agents, &run.dir, plan.limits.clone(), games)
        .context("starting the runtime for external agents")?;
    if let Some(tails) = in_order {
        let earlier = tails
            .into_iter()
            .flat_map(|((agent, case), tail)| {
                let case = &plan.cases[usize::from(case)];
                tail.into_iter()
                    .map(move |(index, start)| ((agent, case.clone()), index, start))
            })
            .collect();
        rt = rt.with_order(Box::new(order), earlier, first);
    }
    crate::sandbox::report::announce(
        rt.enforcement(),
        &crate::external::policy(&plan.limits, Vec::new()),
        plan.seed,
        |line| run.log(line),
    )?;
    Ok(Some(Arc::new(rt)))
}

/// Per (agent, case index): the starts of its last games on disk that a count of
/// start-up failures in a row can still reach, as (game, how it went).
type StartTails = HashMap<(usize, u16), Vec<(u64, Start)>>;

/// How the agents' starts went in the games on disk, as far as their records tell
/// (`engine::started_in`), kept only as far back as a count can reach.
struct DiskStarts {
    matchups: Vec<(usize, usize)>,
    limit: usize,
    tails: StartTails,
}

impl DiskStarts {
    fn new(plan: &Plan) -> DiskStarts {
        DiskStarts {
            matchups: plan.matchups(),
            limit: plan.limits.start_failures.max(1) as usize,
            tails: HashMap::new(),
        }
    }

    fn replay(&mut self, record: &Record) {
        if record.duel().is_none() {
            return;
        }
        let (a, b) = self.matchups[usize::from(record.key.matchup)];
        let (started_a, started_b) = engine::started_in(record);
        let failed =
            |side| record.termination == Termination::Startup && record.forfeiter() == Some(side);
        for (agent, started, failed) in [
            (a, started_a, failed(crate::record::Side::A)),
            (b, started_b, failed(crate::record::Side::B)),
        ] {
            let start = match (failed, started) {
                (true, _) => Start::Failed,
                (false, true) => Start::Started,
                (false, false) => continue,
            };
            let tail = self.tails.entry((agent, record.key.case)).or_default();
            if start == Start::Started {
                tail.clear();
            }
            tail.push((record.key.index, start));
            // `limit` failures end any count: what is before them is out of reach.
            if tail.len() > self.limit {
                tail.remove(0);
            }
        }
    }
}

/// Where an agent's games of a case lie in a run, by the schedule's arithmetic
/// (`docs/protocol.md`: *One bot cannot stop a run*).
struct PlanOrder {
    schedule: engine::Schedule,
    shard: Shard,
    matchups: Vec<(usize, usize)>,
}

impl crate::external::GameOrder for PlanOrder {
    fn previous(&self, agent: usize, index: u64) -> Option<u64> {
        let schedule = &self.schedule;
        let job = schedule.job(index);
        if job.game > 0 {
            // The pair's other game: the same matchup, so the agent plays it.
            return Some(index - 1);
        }
        let per_pair = u64::from(schedule.games_per_pair);
        let (matchups, cases) = (u64::from(schedule.matchups), u64::from(schedule.cases));
        let (mut pair, mut matchup) = (u64::from(job.pair), u64::from(job.matchup));
        loop {
            if matchup == 0 {
                pair = pair.checked_sub(1)?;
                matchup = matchups;
            }
            matchup -= 1;
            let global = (pair * cases + u64::from(job.case)) * matchups + matchup;
            let last = global * per_pair + per_pair - 1;
            let (a, b) = self.matchups[matchup as usize];
            if (a == agent || b == agent) && schedule.holds(self.shard, global) {
                return Some(last);
            }
        }
    }
}

/// Replays game `index` of the run in `dir`, drawn move by move.
pub fn replay(dir: &Path, index: u64) -> Result<String> {
    let run = RunDir::open(dir, Access::Peek)?;
    let plan = &run.plan;
    let schedule = &plan.schedule;
    let shard = run.shard();
    // Only games that were played: a run stopped by the SPRT, interrupted, or a shard
    // holds fewer games than its schedule.
    let games_csv = run.games_csv();
    let mut found = None;
    let mut played = 0u64;
    if games_csv.exists() {
        // The whole file is checked, not only up to the game: a replay of a damaged
        // run directory says so.
        played = read_rows(&games_csv, plan, shard, Torn::Refuse, &mut |r| {
            if r.key.index == index {
                found = Some(r);
            }
            Ok(engine::Flow::Continue)
        })?
        .rows;
    }
    if index >= schedule.len() {
        anyhow::bail!(
            "game {index} was not played: this run has games 0 to {}",
            schedule.len().saturating_sub(1)
        );
    }
    let Some(record) = found else {
        anyhow::bail!(
            "game {index} was not played in {}: {} holds {played} games of this {}",
            dir.display(),
            games_csv.display(),
            if shard.is_whole() { "run" } else { "shard" }
        );
    };
    // A puzzle attempt's answer is on disk: it is shown as it was given, never re-solved
    // (an external solver need not answer the same twice).
    if plan.is_solo() {
        return crate::task::puzzles::describe(plan, &record);
    }
    let external = external_runtime(&run, 0)?;
    let (mut text, replayed) = plan
        .prepared
        .replay(&schedule.job(index), external.as_ref())?;
    fn gist(r: &Record) -> (&Outcome, Termination, &str, u32, &Extras) {
        (&r.outcome, r.termination, &r.reason, r.plies, &r.extras)
    }
    if gist(&replayed) != gist(&record) {
        // Built-in agents replay exactly; an external one is started afresh and may not.
        let _ = write!(
            text,
            "\nwarning: this replay differs from the game in {}: recorded {}; replayed {}. \
             An external agent is started afresh for a replay and need not play the same \
             moves again (a clock, its own randomness, files kept in its directory).\n",
            games_csv.display(),
            describe(&record),
            describe(&replayed)
        );
    }
    Ok(text)
}

/// A record in a few words: the score, how it ended and after how many decisions.
fn describe(r: &Record) -> String {
    let score = r.duel().map_or(String::new(), |d| {
        format!(
            "{} - {}, ",
            d.score_a.as_str(),
            d.score_a.flipped().as_str()
        )
    });
    let reason = match r.reason.as_str() {
        "" => String::new(),
        why => format!(" ({why})"),
    };
    format!(
        "{score}{}{reason}, {} plies",
        r.termination.as_str(),
        r.plies
    )
}

/// The last lines an external agent wrote on stderr, for an error message.
fn stderr_tail(run: &RunDir, agent: usize, name: &str) -> String {
    let path = run.dir.join(format!(
        "stderr-{}.log",
        crate::external::label(agent, name)
    ));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let text = crate::shown::escape_controls(&text);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let last = &lines[lines.len().saturating_sub(5)..];
    format!(
        "\nits stderr ({}) ends with:\n  {}",
        path.display(),
        last.join("\n  ")
    )
}
