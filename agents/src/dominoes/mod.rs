//! Built-in Dominoes agents.
//!
//! | name | play |
//! |---|---|
//! | `random` | a uniformly random legal move |
//! | `greedy` | heaviest playable tile first |
//! | `smart` | one-move playability/blocking heuristic ([`smart`]) |
//! | `endgame` | `greedy`, then perfect play once the stock is empty ([`solver`]); option `nodes` (solver node cap per decision, default 5,000,000; past it: greedy) |
//! | `pimc` | determinized Monte Carlo search with inference ([`pimc`]); options `k` (worlds per decision, default 1000), `policy` (our rollout policy: `smart`, `greedy`, `tc-server`, `learned`, `learned:weights=FILE`; default `smart`), `opp` (the opponent's rollout policy, the same choices, default `policy`; or `read`: read it from its moves, [`opponent`]), `endgame` (1 or 0, default 1), `nodes` (solver node cap per decision, default 400,000; past it: rollouts), `late` (with 1 to `late` tiles in the stock, decide by the [`expecti`] search; default 0: never), `blend` (0 to 1: each move's rollout mean blended with its `expecti` value, this share to the latter; default 0), `budget` (`default`, or `tco09`: defaults `k=4000,blend=0.5`, about TCO09's time budget) |
//! | `best` | the strongest: `ismcts` (the same options, and `budget`: `default`, or `tco09`: `iterations=4000`, about TCO09's time budget) |
//! | `pimc-read` | `pimc` with `opp=read` (the same options): the `best` of issues 16 and 24 before `ismcts` |
//! | `ismcts` | information-set MCTS over the worlds and opponent models `pimc-read` reads ([`ismcts`]); options `iterations` (per legal move at the root, default 1000), `c` (exploration, default 0.7), `worlds` (sampled and read per decision, default 1000), `mo` (1: a separate tree for the opponent's observations; default 0), `opp` (`model`: the opponent plays its read model, the default; `ucb`: it searches too), `bias` (with `opp=ucb`, the progressive bias towards the model's choice, default 1), `solve` (1 or 0: tree nodes with an empty stock valued exactly, default 1), `leaf` (0 to 1: the share of a new placement node's value given by the learned evaluator, the rest by its rollout; at 1 no rollout, about two thirds of the CPU for the same strength against `tc-server`; default 0), `nodes` (solver node cap per solve, default 2,000; past it: a rollout), `policy` (our rollout policy, default `smart`), `hand` (`learned`: the sampled worlds also weighed by the learned hand model, [`hand`]; default `none`), `hand_a` (its exponent, default 1), `read` (`placed`: read the opponent's placements whose hand the record rebuilds, the default; `all`: every placement, each world guessing the hand where the record cannot say), `budget` (as `best`'s) |
//! | `expecti` | expectiminimax over a belief state, chance nodes for draws and passes, the exact solver once the stock is empty ([`expecti`]); options `depth` (plies, default 3), `rollouts` (per leaf, default 8), `worlds` (root samples of the belief, default 400), `read` (1 or 0: weigh them by reading the opponent, default 1; `all`: also its placements whose hand the record cannot rebuild, as `ismcts`'s `read=all`), `nodes` (solver node cap per solve, default 100,000) |

mod endgame;
pub mod expecti;
mod greedy;
pub mod hand;
pub mod inference;
pub mod ismcts;
pub mod opponent;
pub mod pimc;
mod random;
mod response;
pub mod sim;
pub mod smart;
pub mod solver;
pub mod worlds;

pub use endgame::{EndgamePlayer, endgame_of};
pub use expecti::{Expecti, ExpectiConfig};
pub use greedy::Greedy;
pub use ismcts::{Ismcts, IsmctsConfig, OpponentChoice};
pub use pimc::{Opponent, Pimc, PimcConfig};
pub use random::Random;
pub use smart::Smart;
pub use solver::{Solution, Solver};

use arena_core::Agent;
use arena_core::dominoes::Dominoes;

use crate::spec::{SeedSource, Spec, SpecError};

/// A boxed Dominoes agent, sendable to a worker thread.
pub type BoxedAgent = Box<dyn Agent<Dominoes> + Send>;

/// The built-in Dominoes agents, by name.
pub const NAMES: &[&str] = &[
    "random",
    "greedy",
    "smart",
    "endgame",
    "pimc",
    "learned",
    "tc-server",
    "best",
    "pimc-read",
    "expecti",
    "ismcts",
];

/// Worlds per decision at `budget=tco09`.
pub const TCO09_WORLDS: u32 = 4000;

/// The share of the `expecti` value at `budget=tco09`.
pub const TCO09_BLEND: f64 = 0.5;

/// `ismcts` iterations per legal move at `budget=tco09` (`best:budget=tco09`).
pub const TCO09_ITERATIONS: u32 = 4000;

/// The `pimc` / `pimc-read` settings a spec names (`pimc:k=..,policy=..,opp=..,endgame=..`).
/// `opp=read` reads the opponent against the library ([`opponent`]); `pimc-read` reads by
/// default, `pimc` plays everyone as its own `policy`.
pub fn pimc_config(spec: &Spec) -> Result<PimcConfig, SpecError> {
    spec.expect_options(&[
        "k", "policy", "opp", "endgame", "nodes", "late", "blend", "budget",
    ])?;
    let reads = spec.name() == "pimc-read";
    let mut d = if reads {
        PimcConfig::reading()
    } else {
        PimcConfig::default()
    };
    let bad = |option: &str, value: String, reason: &str| SpecError::BadValue {
        name: spec.name().to_owned(),
        option: option.into(),
        value,
        reason: reason.into(),
    };
    let budget: String = spec.option("budget", "default".to_owned())?;
    match budget.as_str() {
        "default" => {}
        // TCO09's budget (100 s per case of 100 games, one core): about 4 times the
        // rollouts, and the expecti search blended in (measured in docs/benchmarks.md).
        "tco09" => {
            d.worlds = TCO09_WORLDS;
            d.blend = TCO09_BLEND;
        }
        other => return Err(bad("budget", other.into(), "expected default or tco09")),
    }
    let worlds: u32 = spec.option("k", d.worlds)?;
    if worlds == 0 {
        return Err(bad("k", "0".into(), "at least one world"));
    }
    let policy: sim::Policy = spec.option("policy", d.policy.clone())?;
    let opp: String = spec.option("opp", String::new())?;
    let opponent = match opp.as_str() {
        "" if reads => d.opponent,
        "" => pimc::Opponent::Fixed(policy.clone()),
        "read" => pimc::Opponent::Read(opponent::default_library()),
        other => pimc::Opponent::Fixed(
            other
                .parse()
                .map_err(|e: String| bad("opp", other.into(), &format!("{e}, or read")))?,
        ),
    };
    let endgame: u8 = spec.option("endgame", 1u8)?;
    if endgame > 1 {
        return Err(bad("endgame", endgame.to_string(), "expected 0 or 1"));
    }
    Ok(PimcConfig {
        worlds,
        policy,
        opponent,
        endgame: endgame == 1,
        solver_nodes: spec.option("nodes", d.solver_nodes)?,
        late: spec.option("late", d.late)?,
        blend: {
            let b: f64 = spec.option("blend", d.blend)?;
            if !(0.0..=1.0).contains(&b) {
                return Err(bad("blend", b.to_string(), "expected 0 to 1"));
            }
            b
        },
    })
}

/// The `expecti` settings a spec names (`expecti:depth=..,rollouts=..,worlds=..,read=..,nodes=..`).
pub fn expecti_config(spec: &Spec) -> Result<ExpectiConfig, SpecError> {
    spec.expect_options(&["depth", "rollouts", "worlds", "read", "nodes"])?;
    let d = ExpectiConfig::default();
    let at_least_one = |option: &str, value: u32| {
        if value == 0 {
            Err(SpecError::BadValue {
                name: spec.name().to_owned(),
                option: option.into(),
                value: "0".into(),
                reason: "at least 1".into(),
            })
        } else {
            Ok(value)
        }
    };
    let read: String = spec.option("read", "1".to_owned())?;
    if !["0", "1", "all"].contains(&read.as_str()) {
        return Err(SpecError::BadValue {
            name: spec.name().to_owned(),
            option: "read".into(),
            value: read,
            reason: "expected 0, 1 or all".into(),
        });
    }
    Ok(ExpectiConfig {
        depth: at_least_one("depth", spec.option("depth", d.depth)?)?,
        rollouts: at_least_one("rollouts", spec.option("rollouts", d.rollouts)?)?,
        worlds: at_least_one("worlds", spec.option("worlds", d.worlds)?)?,
        read: read != "0",
        read_all: read == "all",
        solver_nodes: spec.option("nodes", d.solver_nodes)?,
    })
}

/// The `ismcts` / `best` settings a spec names (`ismcts:iterations=..,c=..,worlds=..,mo=..,opp=..,bias=..,solve=..,nodes=..,policy=..,hand=..,hand_a=..,read=..,budget=..`).
pub fn ismcts_config(spec: &Spec) -> Result<IsmctsConfig, SpecError> {
    spec.expect_options(&[
        "budget",
        "iterations",
        "c",
        "worlds",
        "mo",
        "opp",
        "bias",
        "solve",
        "leaf",
        "nodes",
        "policy",
        "hand",
        "hand_a",
        "read",
    ])?;
    let d = IsmctsConfig::default();
    let bad = |option: &str, value: String, reason: &str| SpecError::BadValue {
        name: spec.name().to_owned(),
        option: option.into(),
        value,
        reason: reason.into(),
    };
    let flag = |option: &str, default: bool| -> Result<bool, SpecError> {
        match spec.option(option, u8::from(default))? {
            0 => Ok(false),
            1 => Ok(true),
            v => Err(bad(option, v.to_string(), "expected 0 or 1")),
        }
    };
    let budget: String = spec.option("budget", "default".to_owned())?;
    let default_iterations = match budget.as_str() {
        "default" => d.iterations,
        // TCO09's budget (100 s per case of 100 games, one core): 4 times the iterations.
        "tco09" => TCO09_ITERATIONS,
        other => return Err(bad("budget", other.into(), "expected default or tco09")),
    };
    let iterations: u32 = spec.option("iterations", default_iterations)?;
    let worlds: u32 = spec.option("worlds", d.worlds)?;
    for (option, v) in [("iterations", iterations), ("worlds", worlds)] {
        if v == 0 {
            return Err(bad(option, "0".into(), "at least 1"));
        }
    }
    let exploration: f64 = spec.option("c", d.exploration)?;
    if !(exploration >= 0.0 && exploration.is_finite()) {
        return Err(bad("c", exploration.to_string(), "expected 0 or more"));
    }
    let bias: f64 = spec.option("bias", 1.0)?;
    if !(bias >= 0.0 && bias.is_finite()) {
        return Err(bad("bias", bias.to_string(), "expected 0 or more"));
    }
    let opp: String = spec.option("opp", "model".to_owned())?;
    let opponent = match opp.as_str() {
        "model" => OpponentChoice::Model,
        "ucb" => OpponentChoice::Search { bias },
        other => return Err(bad("opp", other.into(), "expected model or ucb")),
    };
    let hand: String = spec.option("hand", "none".to_owned())?;
    let hand_a: f64 = spec.option("hand_a", 1.0)?;
    if !(hand_a >= 0.0 && hand_a.is_finite()) {
        return Err(bad("hand_a", hand_a.to_string(), "expected 0 or more"));
    }
    let hand = match hand.as_str() {
        "none" => d.hand,
        "learned" => Some(hand_a),
        other => return Err(bad("hand", other.into(), "expected none or learned")),
    };
    let read: String = spec.option("read", "placed".to_owned())?;
    let read_all = match read.as_str() {
        "placed" => false,
        "all" => true,
        other => return Err(bad("read", other.into(), "expected placed or all")),
    };
    Ok(IsmctsConfig {
        hand,
        read_all,
        iterations,
        exploration,
        worlds,
        multiple_observer: flag("mo", d.multiple_observer)?,
        opponent,
        solve: flag("solve", d.solve)?,
        leaf: {
            let leaf: f64 = spec.option("leaf", d.leaf)?;
            if !(0.0..=1.0).contains(&leaf) {
                return Err(bad("leaf", leaf.to_string(), "expected 0 to 1"));
            }
            leaf
        },
        solver_nodes: spec.option("nodes", d.solver_nodes)?,
        policy: spec.option("policy", d.policy.clone())?,
    })
}

/// Builds the agent a spec names, with its private seed (derived only if it uses one).
pub fn build(spec: &Spec, seed: impl SeedSource) -> Result<BoxedAgent, SpecError> {
    match spec {
        Spec::Exec { .. } => Err(SpecError::ExecUnsupported {
            spec: spec.to_string(),
        }),
        Spec::Builtin { name, .. } => match name.as_str() {
            "random" => {
                spec.expect_options(&[])?;
                Ok(Box::new(Random::new(seed.seed())))
            }
            "greedy" => {
                spec.expect_options(&[])?;
                Ok(Box::new(Greedy))
            }
            "smart" => {
                spec.expect_options(&[])?;
                Ok(Box::new(Smart))
            }
            "endgame" => {
                spec.expect_options(&["nodes"])?;
                let nodes = spec.option("nodes", endgame::DEFAULT_ENDGAME_NODES)?;
                Ok(Box::new(EndgamePlayer::with_max_nodes(nodes)))
            }
            "pimc" | "pimc-read" => Ok(Box::new(Pimc::new(pimc_config(spec)?, seed.seed()))),
            "expecti" => Ok(Box::new(Expecti::new(expecti_config(spec)?, seed.seed()))),
            // `best` names the strongest built-in: `ismcts` (docs/benchmarks.md, issue 24).
            "ismcts" | "best" => Ok(Box::new(Ismcts::new(ismcts_config(spec)?, seed.seed()))),
            // The learned evaluator (agents/src/learned/); `tc-server` uses the built-in weights.
            "learned" | "tc-server" => Ok(Box::new(crate::learned::dominoes_agent(spec)?)),
            _ => Err(SpecError::Unknown {
                name: name.clone(),
                game: "dominoes",
                known: NAMES.join(", "),
            }),
        },
    }
}
