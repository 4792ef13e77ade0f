//! One-seat puzzle runs (`docs/puzzles.md`): the task `puzzles`, whose cases are the
//! puzzles (`detrak`, `dominopeg`, `dust`) and whose agents are solvers. Job `pair` `p` of
//! a case is the instance of seed `plan.seed + p`; every solver attempts every seed once,
//! and the referee scores every answer, built-in or external (P2).

use std::fmt::Write as _;
use std::io::BufRead;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agents::Spec;
use agents::puzzles::registry;
use anyhow::{Context, Result};
use arena_core::AgentError;
use arena_core::puzzle::{PuzzleKind, line};

use super::{Prepared, Refusal, Task};
use crate::external::ExternalRuntime;
use crate::record::{Attempt, Extra, Extras, JobKey, Outcome, Record, Termination};
use crate::setup::{PlanAgent, Setup};

pub struct PuzzleTask;

pub static PUZZLES: PuzzleTask = PuzzleTask;

/// Columns puzzle attempts add to `games.csv`: whether the solver proved its answer
/// optimal (1 or 0; external solvers: 0), the nodes a built-in searched, and the answer
/// itself as the solver gave it (kept: an external solver's answer cannot be replayed).
const EXTRA_COLUMNS: &[&str] = &["optimal", "nodes", "answer"];

/// How an attempt ends by the rules: the solver answered (valid or not: the attempt's
/// score says which).
pub const ANSWER: &str = "answer";

fn kind(text: &str) -> Result<PuzzleKind> {
    text.trim()
        .parse::<PuzzleKind>()
        .map_err(|e| anyhow::anyhow!("{e}"))
}

impl Task for PuzzleTask {
    fn name(&self) -> &'static str {
        "puzzles"
    }

    fn seats(&self) -> u8 {
        1
    }

    fn default_cases(&self) -> Vec<String> {
        PuzzleKind::ALL.iter().map(ToString::to_string).collect()
    }

    fn endings(&self) -> &'static [&'static str] {
        &[ANSWER]
    }

    fn extra_columns(&self) -> &'static [&'static str] {
        EXTRA_COLUMNS
    }

    fn case_axes(&self) -> (&'static str, &'static str) {
        ("", "")
    }

    fn hides_information(&self) -> bool {
        false
    }

    fn check_agent(&self, spec: &Spec) -> Result<()> {
        Ok(registry::check(spec)?)
    }

    fn prepare(&self, setup: &Setup) -> Result<Box<dyn Prepared>, Refusal> {
        let kinds = setup
            .cases
            .iter()
            .enumerate()
            .map(|(index, c)| kind(c).map_err(|reason| Refusal::Case { index, reason }))
            .collect::<Result<Vec<_>, _>>()?;
        for a in &setup.agents {
            if let Some(k) = kinds.iter().find(|&&k| !registry::supports(k, &a.spec)) {
                return Err(Refusal::Setup(anyhow::anyhow!(
                    "solver {:?} ({}) does not play {k}: give it a run of its own puzzles (cases = \"detrak\")",
                    a.name,
                    a.spec
                )));
            }
        }
        Ok(Box::new(PreparedPuzzles {
            seed: setup.seed,
            agents: setup.agents.clone(),
            kinds,
        }))
    }

    /// `arena serve --game puzzles SPEC`: a built-in solver as an external one
    /// (one instance line on stdin, the answer on stdout; the puzzle in `ARENA_PUZZLE`).
    fn serve(&self, spec: &Spec, _seed: u64) -> Result<()> {
        registry::check(spec)?;
        let puzzle = std::env::var("ARENA_PUZZLE")
            .context("ARENA_PUZZLE is not set: it names the puzzle (detrak, dominopeg, dust)")?;
        let kind = kind(&puzzle).context("in ARENA_PUZZLE")?;
        let mut text = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut text)
            .context("reading the instance from stdin")?;
        let answer = registry::solve(kind, spec, line(&text))
            .map_err(anyhow::Error::msg)?
            .context("no answer within the solver's node budget")?;
        println!("{}", answer.answer);
        Ok(())
    }
}

struct PreparedPuzzles {
    seed: u64,
    agents: Vec<PlanAgent>,
    kinds: Vec<PuzzleKind>,
}

/// What a solver gave: an answer line, and (built-ins) its proof flag and nodes.
struct Reply {
    answer: String,
    optimal: bool,
    nodes: u64,
}

impl PreparedPuzzles {
    fn attempt(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
    ) -> Result<(String, Result<Reply, AgentError>, Duration)> {
        let kind = self.kinds[usize::from(job.case)];
        let seed = self.seed + u64::from(job.pair);
        let instance = kind.generate(seed);
        let solver = usize::from(job.matchup);
        let spec = &self.agents[solver].spec;
        let began = Instant::now();
        let reply = match spec {
            Spec::Exec { .. } => {
                let rt = external.context("an exec solver without the external runtime")?;
                rt.solve_once(solver, kind.name(), job.index, &instance)
                    .map(|(answer, _)| Reply {
                        answer: answer.trim_end_matches('\r').to_owned(),
                        optimal: false,
                        nodes: 0,
                    })
            }
            Spec::Builtin { .. } => match registry::solve(kind, spec, &instance) {
                Ok(Some(a)) => Ok(Reply {
                    answer: a.answer,
                    optimal: a.optimal,
                    nodes: a.nodes,
                }),
                Ok(None) => Err(AgentError::Timeout(
                    "no answer within the solver's node budget".into(),
                )),
                // Resolution checked the spec; anything else is the solver's own fault.
                Err(e) => Err(AgentError::Crash(e)),
            },
        };
        Ok((instance, reply, began.elapsed()))
    }
}

/// The referee's verdict on one attempt, as its record (P2: built-in answers are
/// refereed too).
fn judge(
    job: &JobKey,
    kind: PuzzleKind,
    instance: &str,
    reply: &Result<Reply, AgentError>,
    elapsed: Duration,
) -> Record {
    let (score, termination, reason, optimal, nodes) = match reply {
        Err(e) => (None, Termination::from(e), e.to_string(), false, 0),
        Ok(r) => match kind.score(instance, &r.answer) {
            Ok(Ok(score)) => (
                Some(score),
                Termination::Rules(ANSWER),
                String::new(),
                r.optimal,
                r.nodes,
            ),
            Ok(Err(invalid)) => (
                None,
                Termination::Illegal,
                invalid.to_string(),
                false,
                r.nodes,
            ),
            Err(parse) => (
                None,
                Termination::Malformed,
                parse.to_string(),
                false,
                r.nodes,
            ),
        },
    };
    let mut extras = Extras::new();
    extras.push(Extra::Int(i64::from(optimal)));
    extras.push(Extra::Int(i64::try_from(nodes).unwrap_or(i64::MAX)));
    let answer = reply.as_ref().map_or(String::new(), |r| r.answer.clone());
    extras.push(Extra::Text(answer.into()));
    Record {
        key: *job,
        outcome: Outcome::Solo(Attempt { score }),
        termination,
        reason: crate::record::reason(&reason),
        plies: 0,
        extras,
        elapsed: Some(elapsed),
        think: None,
    }
}

impl Prepared for PreparedPuzzles {
    fn cases(&self) -> Vec<String> {
        self.kinds.iter().map(ToString::to_string).collect()
    }

    /// A puzzle attempt's wall time is always measured (`times.csv`): `timed` changes
    /// nothing.
    fn play(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
        _timed: bool,
    ) -> Result<Record> {
        let kind = self.kinds[usize::from(job.case)];
        let (instance, reply, elapsed) = self.attempt(job, external)?;
        // An attempt the arena failed (a sandbox it could not build) is not a result.
        if let Some(rt) = external {
            rt.harness_fault(job.index)?;
        }
        Ok(judge(job, kind, &instance, &reply, elapsed))
    }

    /// Solves the attempt again (`arena replay` shows the stored answer instead:
    /// [`describe`]).
    fn replay(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
    ) -> Result<(String, Record)> {
        let record = self.play(job, external, false)?;
        let kind = self.kinds[usize::from(job.case)];
        let text = attempt_text(kind, self.seed, &self.agents, &record);
        Ok((text, record))
    }
}

/// `arena replay` of a puzzle attempt: the instance, the answer as recorded, the
/// referee's verdict and the answer drawn as text.
pub fn describe(setup: &Setup, record: &Record) -> Result<String> {
    let kind = kind(&setup.cases[usize::from(record.key.case)])?;
    Ok(attempt_text(kind, setup.seed, &setup.agents, record))
}

/// [`describe`] of an attempt at `kind`, in a run whose first seed is `first_seed`.
fn attempt_text(
    kind: PuzzleKind,
    first_seed: u64,
    agents: &[PlanAgent],
    record: &Record,
) -> String {
    let job = &record.key;
    let seed = first_seed + u64::from(job.pair);
    let solver = &agents[usize::from(job.matchup)].name;
    let instance = kind.generate(seed);
    let answer = record
        .extras
        .iter()
        .nth(2)
        .map_or(String::new(), ToString::to_string);
    let mut out = format!(
        "attempt {}: {kind} seed {seed} by {solver}\n\ninstance\n{instance}\n",
        job.index
    );
    let _ = match answer.as_str() {
        "" => writeln!(out, "\nno answer"),
        a => writeln!(out, "\nanswer\n{a}"),
    };
    let _ = match (&record.outcome, record.termination) {
        (Outcome::Solo(Attempt { score: Some(s) }), _) => writeln!(out, "\nScore = {s}"),
        (_, t) => writeln!(out, "\ninvalid: {t} ({})", record.reason),
    };
    let _ = writeln!(
        out,
        "\ndraw it: arena vis {kind} <instance file> <answer file> (arena gen {kind} --seeds {seed}..{})",
        seed + 1
    );
    out
}
