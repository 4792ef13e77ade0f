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
use super::{Board, BookOptions, Prepared, Refusal, Shown, ShownStep, SolveOptions, Solved, Task};
use crate::external::{ExternalRuntime, Wire};
use crate::record::{Duel, Extras, JobKey, Outcome, Record, Score, Side, Termination, ThinkTimes};
use crate::setup::{PlanAgent, Setup};

/// What the engine needs to know about a two-seat game.
pub trait DuelGame: Send + Sync + 'static {
    type G: Game<Case: Send + Sync> + Send + Wire;
    /// The task name: `dominoes` or `quarto`.
    const NAME: &'static str;
    const FAMILY: Family;
    /// Columns this game adds to `games.csv`.
    const EXTRA_COLUMNS: &'static [&'static str];
    /// A case's two parameters, as the report's heatmap names its rows and columns.
    const CASE_AXES: (&'static str, &'static str);
    /// Whether the players see less than the referee.
    const HIDES_INFORMATION: bool;
    /// What the report's viewer draws its positions on.
    const BOARD: Board;

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

    /// How its games end by the rules, as `games.csv` writes them.
    const ENDINGS: &'static [&'static str];

    /// How a game that ended by the rules ended: one of `ENDINGS`.
    fn ending(end: &Self::G) -> &'static str;

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

    fn endings(&self) -> &'static [&'static str] {
        D::ENDINGS
    }

    fn extra_columns(&self) -> &'static [&'static str] {
        D::EXTRA_COLUMNS
    }

    fn case_axes(&self) -> (&'static str, &'static str) {
        D::CASE_AXES
    }

    fn hides_information(&self) -> bool {
        D::HIDES_INFORMATION
    }

    fn board(&self) -> Option<Board> {
        Some(D::BOARD)
    }

    fn check_agent(&self, spec: &Spec) -> Result<()> {
        if !matches!(spec, Spec::Exec { .. }) {
            D::build(spec, &|| 0)?;
        }
        Ok(())
    }

    fn prepare(&self, setup: &Setup) -> Result<Box<dyn Prepared>, Refusal> {
        let cases = setup
            .cases
            .iter()
            .enumerate()
            .map(|(index, c)| parse_case::<D>(c).map_err(|reason| Refusal::Case { index, reason }))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Box::new(PreparedDuel::<D> {
            seed: setup.seed,
            agents: setup.agents.clone(),
            reply_floor: Duration::from_millis(setup.limits.reply_floor_ms),
            matchups: setup.matchups(),
            cases,
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
    seed: u64,
    agents: Vec<PlanAgent>,
    /// In runs with an external agent, every reply is held this long (0: off), which
    /// hides every opponent's think time.
    reply_floor: Duration,
    matchups: Vec<(usize, usize)>,
    cases: Vec<<D::G as Game>::Case>,
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

/// A game lost by the agent in `slot` (0: agent A), sitting in `seat`.
struct Forfeit {
    slot: usize,
    seat: Seat,
    kind: Termination,
    detail: String,
}

impl Forfeit {
    fn new(slot: usize, seat: Seat, e: &AgentError) -> Forfeit {
        Forfeit {
            slot,
            seat,
            kind: Termination::from(e),
            detail: e.to_string(),
        }
    }
}

/// One game under way: the position (borrowed: a position is large, and a fast game
/// cannot afford to copy it), the agents (slot 0 is agent A) and what the record counts.
/// `TIMED`: each decision is measured (a constant, so untimed games pay nothing).
struct Table<'p, G: Game, const TIMED: bool> {
    position: &'p mut G,
    agents: [Box<dyn Agent<G> + Send>; 2],
    /// The seat of agent A, then of agent B.
    seats: [Seat; 2],
    plies: u32,
    think: Option<Box<ThinkTimes>>,
    /// Whose call is under way: a panic there is charged to that agent; anywhere else
    /// (the referee) it is a bug of ours, and it propagates.
    calling: Option<(usize, Seat)>,
}

impl<G: Game, const TIMED: bool> Table<'_, G, TIMED> {
    fn slot_of(&self, seat: Seat) -> usize {
        usize::from(seat != self.seats[0])
    }

    /// Plays the game to its end: `None` when it ended by the rules. One unwind guard
    /// around the whole game, not one per call: a panicking built-in is a bug in that
    /// agent, and it forfeits the game as a crash instead of taking the run down.
    fn referee<F: FnMut(Step<'_, G>)>(
        &mut self,
        case: &G::Case,
        explain_illegal: fn(&G, G::Move) -> String,
        observe: &mut F,
    ) -> Option<Forfeit> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.moves(case, explain_illegal, observe)
        }))
        .unwrap_or_else(|panic| {
            let Some((slot, seat)) = self.calling else {
                std::panic::resume_unwind(panic)
            };
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let e = AgentError::Crash(format!("the agent panicked: {what}"));
            Some(Forfeit::new(slot, seat, &e))
        })
    }

    /// Readies both agents, then asks for moves and plays them until the game ends or
    /// an agent forfeits.
    fn moves<F: FnMut(Step<'_, G>)>(
        &mut self,
        case: &G::Case,
        explain_illegal: fn(&G, G::Move) -> String,
        observe: &mut F,
    ) -> Option<Forfeit> {
        for slot in 0..2 {
            let seat = self.seats[slot];
            self.calling = Some((slot, seat));
            let ready = self.agents[slot]
                .init(case)
                .and_then(|()| self.agents[slot].reset(&self.position.view_of(seat)));
            self.calling = None;
            if let Err(e) = ready {
                return Some(Forfeit::new(slot, seat, &e));
            }
        }
        while !self.position.is_over() {
            let seat = self.position.to_move();
            let slot = self.slot_of(seat);
            self.calling = Some((slot, seat));
            let reply = self.ask(slot);
            self.calling = None;
            let mv = match reply {
                Ok(mv) => mv,
                Err(e) => return Some(Forfeit::new(slot, seat, &e)),
            };
            self.plies += 1;
            if self.position.try_play(mv).is_err() {
                let detail = explain_illegal(self.position, mv);
                let kind = Termination::Illegal;
                return Some(Forfeit {
                    slot,
                    seat,
                    kind,
                    detail,
                });
            }
            observe(Step::Move {
                seat,
                mv,
                after: self.position,
            });
        }
        None
    }

    /// The move of the agent in `slot`, its think time measured when timed.
    fn ask(&mut self, slot: usize) -> Result<G::Move, AgentError> {
        if !TIMED {
            return self.agents[slot].play(&self.position.view());
        }
        let began = std::time::Instant::now();
        let reply = self.agents[slot].play(&self.position.view());
        if let Some(t) = &mut self.think {
            let micros = began.elapsed().as_micros();
            t.micros[slot].push(u32::try_from(micros).unwrap_or(u32::MAX));
        }
        reply
    }

    /// The record's outcome, termination and reason once the game is over.
    fn verdict(
        &self,
        forfeit: Option<Forfeit>,
        first: Side,
        ending: fn(&G) -> &'static str,
    ) -> Result<(Outcome, Termination, String)> {
        let side = |slot: usize| if slot == 0 { Side::A } else { Side::B };
        let (score_a, termination, forfeit, reason) = match forfeit {
            Some(f) => (
                if f.slot == 0 { Score::Loss } else { Score::Win },
                f.kind,
                Some(side(f.slot)),
                crate::record::reason(&f.detail),
            ),
            None => {
                let outcome = self
                    .position
                    .outcome()
                    .context("the referee ended a game without an outcome")?;
                let score = Score::from_f64(outcome.score(self.seats[0]))
                    .context("the referee scored a game other than 0, 1/2 or 1")?;
                let ended = Termination::Rules(ending(self.position));
                (score, ended, None, String::new())
            }
        };
        let duel = Duel {
            score_a,
            first,
            forfeit,
        };
        Ok((Outcome::Duel(duel), termination, reason))
    }
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
        .seed(self.seed)
    }

    /// Plan agent `agent`, sitting in `seat` for `job`: built fresh and seeded, or
    /// connected to its external process.
    fn agent(
        &self,
        job: &JobKey,
        case: <D::G as Game>::Case,
        agent: usize,
        seat: Seat,
        external: Option<&Arc<ExternalRuntime>>,
    ) -> Result<Box<dyn Agent<D::G> + Send>> {
        let spec = &self.agents[agent].spec;
        let built: Box<dyn Agent<D::G> + Send> = match (spec, external) {
            (Spec::Exec { .. }, Some(rt)) => {
                Box::new(rt.agent::<D::G>(agent, case.to_string(), job.index))
            }
            _ => D::build(spec, &|| self.agent_seed(job, case, seat))
                .with_context(|| format!("agent {:?}", self.agents[agent].name))?,
        };
        Ok(if external.is_some() && !self.reply_floor.is_zero() {
            Box::new(Floored {
                inner: built,
                floor: self.reply_floor,
            })
        } else {
            built
        })
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
        let (mut position, seat_a) = D::start(case, self.seed, job.pair, job.game);
        observe(Step::Start(&position));
        // What the record needs from the start, taken now so the start is never copied.
        let first = if D::first(&position) == seat_a {
            Side::A
        } else {
            Side::B
        };
        let mut extras = Extras::new();
        D::start_extras(&position, &mut extras);
        let seats = [seat_a, seat_a.other()];
        let agents = [
            self.agent(job, case, a, seats[0], external)?,
            self.agent(job, case, b, seats[1], external)?,
        ];
        let mut table = Table::<D::G, TIMED> {
            position: &mut position,
            agents,
            seats,
            plies: 0,
            think: TIMED.then(Box::<ThinkTimes>::default),
            calling: None,
        };
        let forfeit = table
            .referee(&case, D::explain_illegal, observe)
            .map(|f| shown(observe, f));
        let (outcome, termination, reason) = table.verdict(forfeit, first, D::ending)?;
        let (plies, think) = (table.plies, table.think);
        // A game the arena failed (a bot's sandbox it could not build) is not a result.
        if let Some(rt) = external {
            rt.harness_fault(job.index)?;
        }
        D::end_extras(&position, seat_a, &mut extras);
        Ok(Record {
            key: *job,
            outcome,
            termination,
            reason,
            plies,
            extras,
            elapsed: None,
            think,
        })
    }
}

/// A forfeit, shown to the observer on its way to the record.
fn shown<G: Game, F: FnMut(Step<'_, G>)>(observe: &mut F, forfeit: Forfeit) -> Forfeit {
    observe(Step::Forfeit {
        seat: forfeit.seat,
        kind: forfeit.kind,
        detail: forfeit.detail.clone(),
    });
    forfeit
}

impl<D: DuelGame> Prepared for PreparedDuel<D> {
    fn cases(&self) -> Vec<String> {
        self.cases.iter().map(ToString::to_string).collect()
    }

    fn play(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
        timed: bool,
    ) -> Result<Record> {
        if timed {
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
        let (name_a, name_b) = (&self.agents[a].name, &self.agents[b].name);
        let (_, seat_a) = D::start(case, self.seed, job.pair, job.game);
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
        let (_, seat_a) = D::start(case, self.seed, job.pair, job.game);
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
