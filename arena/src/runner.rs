//! Plays one scheduled game: builds its start position and fresh seeded agents, asks
//! the agents for moves, referees every move, and turns the end into a result row.

use std::sync::Arc;

use agents::{Spec, SpecError};
use arena_core::rng::{Purpose, StreamId};
use arena_core::{AgentError, Game, Seat};
use serde::{Deserialize, Serialize};

use crate::config::Plan;
use crate::contest::Contest;
use crate::external::ExternalRuntime;
use crate::schedule::Job;

/// One line of `games.csv` (schema in `docs/csv.md`; bump its version when this changes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    pub game: u64,
    pub case: String,
    pub pair: u32,
    /// `a` or `b`: the agent whose side opened the game (Dominoes: the starting tile's
    /// owner, D6; Quarto: the side to move after the seeded opening).
    pub first: String,
    pub agent_a: String,
    pub agent_b: String,
    pub score_a: f64,
    pub score_b: f64,
    pub termination: String,
    /// `a` or `b` when an agent forfeited; empty otherwise.
    pub forfeit: String,
    /// Decisions made by the agents (automatic first tile and opening plies excluded).
    pub plies: u32,
    pub start: String,
    pub stock_left: String,
    pub pips_a: String,
    pub pips_b: String,
}

/// Why an agent lost by forfeit (D14, Q7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forfeit {
    Timeout,
    Crash,
    Malformed,
    Illegal,
    Memory,
    Startup,
}

impl Forfeit {
    pub fn as_str(self) -> &'static str {
        match self {
            Forfeit::Timeout => "timeout",
            Forfeit::Crash => "crash",
            Forfeit::Malformed => "malformed",
            Forfeit::Illegal => "illegal",
            Forfeit::Memory => "memory",
            Forfeit::Startup => "startup",
        }
    }

    pub const ALL: [Forfeit; 6] = [
        Forfeit::Timeout,
        Forfeit::Crash,
        Forfeit::Malformed,
        Forfeit::Illegal,
        Forfeit::Memory,
        Forfeit::Startup,
    ];
}

impl From<&AgentError> for Forfeit {
    fn from(e: &AgentError) -> Forfeit {
        match e {
            AgentError::Timeout(_) => Forfeit::Timeout,
            AgentError::Crash(_) => Forfeit::Crash,
            AgentError::Malformed(_) => Forfeit::Malformed,
            AgentError::Memory(_) => Forfeit::Memory,
            AgentError::Startup(_) => Forfeit::Startup,
        }
    }
}

/// What happened at one decision, for observers such as `arena replay`.
pub enum Step<'a, G: Game> {
    Start(&'a G),
    Move {
        seat: Seat,
        mv: G::Move,
        after: &'a G,
    },
    Forfeit {
        seat: Seat,
        kind: Forfeit,
        detail: String,
    },
}

/// The seed of the agent in `seat` for a job (a `Purpose::Agent` stream).
pub fn agent_seed<C: Contest>(
    plan: &Plan,
    job: &Job,
    case: <C::G as Game>::Case,
    seat: Seat,
) -> u64 {
    StreamId {
        family: C::FAMILY,
        case_key: C::case_key(case),
        matchup: job.matchup,
        pair: job.pair,
        purpose: Purpose::Agent {
            game: job.game,
            seat,
        },
    }
    .seed(plan.seed)
}

/// Plays `job` to the end. `observe` sees every step. `external` runs the plan's
/// `exec:` agents; built-ins are built fresh for each game from their seed.
pub fn play<C: Contest>(
    plan: &Plan,
    cases: &[<C::G as Game>::Case],
    job: &Job,
    external: Option<&Arc<ExternalRuntime>>,
    observe: &mut dyn FnMut(Step<'_, C::G>),
) -> Result<GameRow, SpecError> {
    let case = cases[job.case];
    let (start, seat_a) = C::start(case, plan.seed, job.pair, job.game);
    observe(Step::Start(&start));
    // slot 0 is agent A, slot 1 agent B; `slot_of[seat]` maps seats to slots.
    let seat_of = [seat_a, seat_a.other()];
    let mut agents = Vec::with_capacity(2);
    for (slot, &agent) in [job.a, job.b].iter().enumerate() {
        let spec = &plan.agents[agent].spec;
        let built: Box<dyn arena_core::Agent<C::G> + Send> = match (spec, external) {
            (Spec::Exec { .. }, Some(rt)) => Box::new(rt.agent::<C::G>(agent, case.to_string())),
            _ => C::build(spec, agent_seed::<C>(plan, job, case, seat_of[slot]))?,
        };
        agents.push(built);
    }
    let slot_of = |seat: Seat| usize::from(seat != seat_a);

    let mut position = start.clone();
    let mut plies = 0u32;
    let mut forfeit: Option<(usize, Forfeit)> = None;
    for slot in 0..2 {
        let seat = seat_of[slot];
        let ready = agents[slot]
            .init(&case)
            .and_then(|()| agents[slot].reset(&position.view_of(seat)));
        if let Err(e) = ready {
            observe(Step::Forfeit {
                seat,
                kind: Forfeit::from(&e),
                detail: e.to_string(),
            });
            forfeit = Some((slot, Forfeit::from(&e)));
            break;
        }
    }
    while forfeit.is_none() && !position.is_over() {
        let seat = position.to_move();
        let slot = slot_of(seat);
        // A panicking built-in is a bug in that agent: it forfeits the game as a crash
        // instead of taking the whole run down.
        let reply = {
            // The view borrows the position only for this call.
            let view = position.view();
            let agent = &mut agents[slot];
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| agent.play(&view)))
                .unwrap_or_else(|panic| {
                    let what = panic
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    Err(AgentError::Crash(format!("the agent panicked: {what}")))
                })
        };
        let mv = match reply {
            Ok(mv) => mv,
            Err(e) => {
                let kind = Forfeit::from(&e);
                observe(Step::Forfeit {
                    seat,
                    kind,
                    detail: e.to_string(),
                });
                forfeit = Some((slot, kind));
                break;
            }
        };
        plies += 1;
        if let Err(e) = position.try_play(mv) {
            observe(Step::Forfeit {
                seat,
                kind: Forfeit::Illegal,
                detail: e.to_string(),
            });
            forfeit = Some((slot, Forfeit::Illegal));
            break;
        }
        observe(Step::Move {
            seat,
            mv,
            after: &position,
        });
    }

    let (score_a, termination, forfeit_by) = match forfeit {
        Some((slot, kind)) => (
            if slot == 0 { 0.0 } else { 1.0 },
            kind.as_str(),
            if slot == 0 { "a" } else { "b" },
        ),
        None => {
            let outcome = position.outcome().expect("the loop ends with the game");
            (outcome.score(seat_a), C::termination(&position), "")
        }
    };
    let first_seat = C::first(&start);
    let details = C::details(&start, &position, seat_a);
    Ok(GameRow {
        game: job.index,
        case: case.to_string(),
        pair: job.pair,
        first: if first_seat == seat_a { "a" } else { "b" }.to_owned(),
        agent_a: plan.agents[job.a].name.clone(),
        agent_b: plan.agents[job.b].name.clone(),
        score_a,
        score_b: 1.0 - score_a,
        termination: termination.to_owned(),
        forfeit: forfeit_by.to_owned(),
        plies,
        start: details.start,
        stock_left: details.stock_left,
        pips_a: details.pips_a,
        pips_b: details.pips_b,
    })
}
