//! Two-seat games (Dominoes, Quarto): the typed trait each game implements, and the one
//! generic [`Task`] over it that plays a job: fresh seeded agents, every move refereed,
//! the end turned into a [`Record`].

use std::fmt::Write as _;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use agents::{Spec, SpecError};
use anyhow::{Context, Result};
use arena_core::rng::{Family, Purpose, StreamId};
use arena_core::{Agent, AgentError, Game, Seat};

use super::floor::Floored;
use super::{BookOptions, Prepared, Shown, ShownStep, SolveOptions, Solved, Task};
use crate::external::{ExternalRuntime, Wire};
use crate::plan::Plan;
use crate::record::{Duel, Extras, JobKey, Outcome, Record, Score, Side, Termination, ThinkTimes};

/// What the engine needs to know about a two-seat game.
pub trait DuelGame: Send + Sync + 'static {
    type G: Game<Case: Send + Sync> + Send + Wire;
    /// The task name: `dominoes` or `quarto`.
    const NAME: &'static str;
    const FAMILY: Family;
    /// Columns this game adds to `games.csv`.
    const EXTRA_COLUMNS: &'static [&'static str];

    /// The cases a run uses when none are named (and what `all` means).
    fn default_cases() -> Vec<<Self::G as Game>::Case>;
    /// The case's stable key in the seeding contract (`docs/seeding.md`).
    fn case_key(case: <Self::G as Game>::Case) -> u16;

    /// Game `game` (0 or 1) of pair `pair`: the start position and the seat agent A sits
    /// in. The two games share the deal or opening with the seats exchanged (D5, Q8).
    fn start(case: <Self::G as Game>::Case, seed: u64, pair: u32, game: u8) -> (Self::G, Seat);

    /// The agent `spec` names; `seed` derives its private seed, called only by agents
    /// that use one.
    fn build(
        spec: &Spec,
        seed: &dyn Fn() -> u64,
    ) -> Result<Box<dyn Agent<Self::G> + Send>, SpecError>;

    /// The seat whose side opened the game.
    fn first(start: &Self::G) -> Seat;

    /// How a game that ended by the rules ended.
    fn termination(end: &Self::G) -> Termination;

    /// The values of `EXTRA_COLUMNS` known at the start (the first ones).
    fn start_extras(start: &Self::G, extras: &mut Extras);

    /// The rest of `EXTRA_COLUMNS`, from the final position.
    fn end_extras(end: &Self::G, seat_a: Seat, extras: &mut Extras);

    /// A text drawing of a position, for `arena replay`.
    fn draw(position: &Self::G) -> String;

    /// Why the referee refuses `mv` in `position`, in words a bot author can act on
    /// (the forfeit's `reason`).
    fn explain_illegal(_position: &Self::G, mv: <Self::G as Game>::Move) -> String {
        format!("{mv} is not legal here")
    }

    fn serve(spec: &Spec, seed: u64) -> Result<()>;

    fn solve(_position: &str, _options: &SolveOptions) -> Result<Option<Solved>> {
        Ok(None)
    }

    fn perft(_variant: Option<&str>, _depth: u32) -> Result<Option<u64>> {
        Ok(None)
    }

    fn book(_options: &BookOptions) -> Result<Option<String>> {
        Ok(None)
    }

    fn verify_book(_text: &str, _nodes: u64) -> Result<Option<usize>> {
        Ok(None)
    }

    fn learned() -> Option<agents::learned::GameKind> {
        None
    }
}

/// The [`Task`] of a two-seat game.
pub struct DuelTask<D>(PhantomData<fn() -> D>);

impl<D> Default for DuelTask<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D> DuelTask<D> {
    pub const fn new() -> Self {
        DuelTask(PhantomData)
    }
}

fn parse_case<D: DuelGame>(text: &str) -> Result<<D::G as Game>::Case> {
    text.parse()
        .map_err(|e: arena_core::ParseError| anyhow::anyhow!("{e}"))
        .with_context(|| format!("in the case list of this {} run", D::NAME))
}

impl<D: DuelGame> Task for DuelTask<D> {
    fn name(&self) -> &'static str {
        D::NAME
    }

    fn default_cases(&self) -> Vec<String> {
        D::default_cases().iter().map(ToString::to_string).collect()
    }

    fn canonical_case(&self, text: &str) -> Result<String> {
        Ok(parse_case::<D>(text)?.to_string())
    }

    fn extra_columns(&self) -> &'static [&'static str] {
        D::EXTRA_COLUMNS
    }

    fn check_agent(&self, spec: &Spec) -> Result<()> {
        if !matches!(spec, Spec::Exec { .. }) {
            D::build(spec, &|| 0)?;
        }
        Ok(())
    }

    fn prepare(&self, plan: &Plan) -> Result<Box<dyn Prepared>> {
        let cases = plan
            .cases
            .iter()
            .map(|c| parse_case::<D>(c))
            .collect::<Result<Vec<_>>>()?;
        Ok(Box::new(PreparedDuel::<D> {
            plan: plan.clone(),
            matchups: plan.matchups(),
            cases,
            timed: false,
        }))
    }

    fn serve(&self, spec: &Spec, seed: u64) -> Result<()> {
        D::serve(spec, seed)
    }

    fn solve(&self, position: &str, options: &SolveOptions) -> Result<Solved> {
        D::solve(position, options)?
            .ok_or_else(|| anyhow::anyhow!("arena solve has no solver for {}", D::NAME))
    }

    fn perft(&self, variant: Option<&str>, depth: u32) -> Result<u64> {
        D::perft(variant, depth)?
            .ok_or_else(|| anyhow::anyhow!("arena perft does not count {} moves", D::NAME))
    }

    fn book(&self, options: &BookOptions) -> Result<String> {
        D::book(options)?.ok_or_else(|| anyhow::anyhow!("arena book has no book for {}", D::NAME))
    }

    fn verify_book(&self, text: &str, nodes: u64) -> Result<usize> {
        D::verify_book(text, nodes)?
            .ok_or_else(|| anyhow::anyhow!("arena book has no book for {}", D::NAME))
    }

    fn learned(&self) -> Option<agents::learned::GameKind> {
        D::learned()
    }
}

struct PreparedDuel<D: DuelGame> {
    plan: Plan,
    matchups: Vec<(usize, usize)>,
    cases: Vec<<D::G as Game>::Case>,
    /// Whether each decision's wall time is measured (`--timings`).
    timed: bool,
}

/// What happened at one decision, for `arena replay`.
enum Step<'a, G: Game> {
    Start(&'a G),
    Move {
        seat: Seat,
        mv: G::Move,
        after: &'a G,
    },
    Forfeit {
        seat: Seat,
        kind: Termination,
        detail: String,
    },
}

impl<D: DuelGame> PreparedDuel<D> {
    /// The seed of the agent in `seat` for a job (a `Purpose::Agent` stream).
    fn agent_seed(&self, job: &JobKey, case: <D::G as Game>::Case, seat: Seat) -> u64 {
        StreamId {
            family: D::FAMILY,
            case_key: D::case_key(case),
            matchup: job.matchup as u8,
            pair: job.pair,
            purpose: Purpose::Agent {
                game: job.game,
                seat,
            },
        }
        .seed(self.plan.seed)
    }

    /// Plays `job` to the end; `observe` sees every step.
    /// `TIMED`: measure each decision (a constant, so untimed games pay nothing).
    fn run<const TIMED: bool, F: FnMut(Step<'_, D::G>)>(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
        observe: &mut F,
    ) -> Result<Record> {
        let case = *self
            .cases
            .get(usize::from(job.case))
            .context("a job outside the plan's cases")?;
        let (a, b) = *self
            .matchups
            .get(usize::from(job.matchup))
            .context("a job outside the plan's matchups")?;
        let (mut position, seat_a) = D::start(case, self.plan.seed, job.pair, job.game);
        observe(Step::Start(&position));
        // What the record needs from the start, taken now so the start is never copied.
        let first = if D::first(&position) == seat_a {
            Side::A
        } else {
            Side::B
        };
        let mut extras = Extras::new();
        D::start_extras(&position, &mut extras);
        // slot 0 is agent A, slot 1 agent B.
        let seat_of = [seat_a, seat_a.other()];
        // In runs with an external agent, the floor hides every opponent's think time.
        let floor = Duration::from_millis(self.plan.limits.reply_floor_ms);
        let build = |slot: usize, agent: usize| -> Result<Box<dyn Agent<D::G> + Send>> {
            let spec = &self.plan.agents[agent].spec;
            let built: Box<dyn Agent<D::G> + Send> = match (spec, external) {
                (Spec::Exec { .. }, Some(rt)) => {
                    Box::new(rt.agent::<D::G>(agent, case.to_string(), job.index))
                }
                _ => D::build(spec, &|| self.agent_seed(job, case, seat_of[slot]))
                    .with_context(|| format!("agent {:?}", self.plan.agents[agent].name))?,
            };
            Ok(if external.is_some() && !floor.is_zero() {
                Box::new(Floored {
                    inner: built,
                    floor,
                })
            } else {
                built
            })
        };
        let mut agents = [build(0, a)?, build(1, b)?];
        let slot_of = |seat: Seat| usize::from(seat != seat_a);

        let mut plies = 0u32;
        let mut think = TIMED.then(Box::<ThinkTimes>::default);
        // Whose call is under way: a panic there is charged to that agent; anywhere else
        // (the referee) it is a bug of ours, and it propagates.
        let mut calling: Option<(usize, Seat)> = None;
        // One unwind guard around the whole game, not one per call: a panicking built-in
        // is a bug in that agent, and it forfeits the game as a crash instead of taking
        // the run down. `None`: the game ended by the rules.
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(
            || -> Option<(usize, Seat, Termination, String)> {
                for slot in 0..2 {
                    let seat = seat_of[slot];
                    calling = Some((slot, seat));
                    let ready = agents[slot]
                        .init(&case)
                        .and_then(|()| agents[slot].reset(&position.view_of(seat)));
                    calling = None;
                    if let Err(e) = ready {
                        return Some((slot, seat, Termination::from(&e), e.to_string()));
                    }
                }
                while !position.is_over() {
                    let seat = position.to_move();
                    let slot = slot_of(seat);
                    calling = Some((slot, seat));
                    let reply = if TIMED {
                        let began = std::time::Instant::now();
                        let reply = agents[slot].play(&position.view());
                        if let Some(t) = &mut think {
                            let micros = began.elapsed().as_micros();
                            t.micros[slot].push(u32::try_from(micros).unwrap_or(u32::MAX));
                        }
                        reply
                    } else {
                        agents[slot].play(&position.view())
                    };
                    calling = None;
                    let mv = match reply {
                        Ok(mv) => mv,
                        Err(e) => {
                            return Some((slot, seat, Termination::from(&e), e.to_string()));
                        }
                    };
                    plies += 1;
                    if position.try_play(mv).is_err() {
                        let why = D::explain_illegal(&position, mv);
                        return Some((slot, seat, Termination::Illegal, why));
                    }
                    observe(Step::Move {
                        seat,
                        mv,
                        after: &position,
                    });
                }
                None
            },
        ))
        .unwrap_or_else(|panic| {
            let Some((slot, seat)) = calling else {
                std::panic::resume_unwind(panic)
            };
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let e = AgentError::Crash(format!("the agent panicked: {what}"));
            Some((slot, seat, Termination::from(&e), e.to_string()))
        });
        let forfeit =
            played.map(|(slot, seat, kind, detail)| forfeited(observe, slot, seat, kind, detail));

        let side = |slot: usize| if slot == 0 { Side::A } else { Side::B };
        let (score_a, termination, forfeit, reason) = match forfeit {
            Some((slot, kind, detail)) => (
                if slot == 0 { Score::Loss } else { Score::Win },
                kind,
                Some(side(slot)),
                crate::record::reason(&detail),
            ),
            None => {
                let outcome = position
                    .outcome()
                    .context("the referee ended a game without an outcome")?;
                let score = Score::from_f64(outcome.score(seat_a))
                    .context("the referee scored a game other than 0, 1/2 or 1")?;
                (score, D::termination(&position), None, String::new())
            }
        };
        D::end_extras(&position, seat_a, &mut extras);
        Ok(Record {
            key: *job,
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
            think,
        })
    }
}

/// A forfeit by the agent in `slot` (sitting in `seat`): shown to the observer, and
/// returned as what the record needs.
fn forfeited<G: Game, F: FnMut(Step<'_, G>)>(
    observe: &mut F,
    slot: usize,
    seat: Seat,
    kind: Termination,
    detail: String,
) -> (usize, Termination, String) {
    observe(Step::Forfeit {
        seat,
        kind,
        detail: detail.clone(),
    });
    (slot, kind, detail)
}

impl<D: DuelGame> Prepared for PreparedDuel<D> {
    fn time_moves(&mut self, on: bool) {
        self.timed = on;
    }

    fn play(&self, job: &JobKey, external: Option<&Arc<ExternalRuntime>>) -> Result<Record> {
        if self.timed {
            self.run::<true, _>(job, external, &mut |_| {})
        } else {
            self.run::<false, _>(job, external, &mut |_| {})
        }
    }

    fn replay(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
    ) -> Result<(String, Record)> {
        let (a, b) = self.matchups[usize::from(job.matchup)];
        let case = self.cases[usize::from(job.case)];
        let (name_a, name_b) = (&self.plan.agents[a].name, &self.plan.agents[b].name);
        let (_, seat_a) = D::start(case, self.plan.seed, job.pair, job.game);
        let name = |seat: Seat| if seat == seat_a { name_a } else { name_b };
        let mut out = format!(
            "game {}: case {case}, pair {}, game {} of the pair; agent a = {name_a} (seat {seat_a}), agent b = {name_b}\n",
            job.index, job.pair, job.game
        );
        let mut ply = 0;
        let record = self.run::<false, _>(job, external, &mut |step| {
            let _ = match step {
                Step::Start(p) => write!(out, "\nstart\n{}\n", D::draw(p)),
                Step::Move { seat, mv, after } => {
                    ply += 1;
                    write!(
                        out,
                        "\n{ply}. {seat} ({}) plays {mv}\n{}\n",
                        name(seat),
                        D::draw(after)
                    )
                }
                Step::Forfeit { seat, kind, detail } => write!(
                    out,
                    "\n{seat} ({}) forfeits: {kind} ({detail})\n",
                    name(seat)
                ),
            };
        })?;
        if let Some(d) = record.duel() {
            let _ = writeln!(
                out,
                "\nresult: {name_a} {} - {} {name_b} ({})",
                d.score_a.as_str(),
                d.score_a.flipped().as_str(),
                record.termination
            );
        }
        Ok((out, record))
    }

    fn steps(&self, job: &JobKey) -> Result<Shown> {
        let case = self.cases[usize::from(job.case)];
        let (_, seat_a) = D::start(case, self.plan.seed, job.pair, job.game);
        let mut steps = Vec::new();
        let record = self.run::<false, _>(job, None, &mut |step| {
            steps.push(match step {
                Step::Start(p) => ShownStep::Start {
                    drawing: D::draw(p),
                },
                Step::Move { seat, mv, after } => ShownStep::Move {
                    seat,
                    mv: mv.to_string(),
                    drawing: D::draw(after),
                },
                Step::Forfeit { seat, kind, detail } => ShownStep::Forfeit { seat, kind, detail },
            });
        })?;
        Ok(Shown {
            seat_a,
            steps,
            record,
        })
    }
}
