//! Built-in Dominoes agents.
//!
//! | name | play |
//! |---|---|
//! | `random` | a uniformly random legal move |
//! | `greedy` | heaviest playable tile first |
//! | `smart` | one-move playability/blocking heuristic ([`smart`]) |
//! | `endgame` | `greedy`, then perfect play once the stock is empty ([`solver`]); option `nodes` (solver node cap per decision, default 5,000,000; past it: greedy) |
//! | `pimc` | determinized Monte Carlo search with inference ([`pimc`]); options `k` (worlds per decision, default 1000), `policy` (our rollout policy: `smart`, `greedy`, `tc-server`, `learned`, `learned:weights=FILE`; default `smart`), `opp` (the opponent's rollout policy, the same choices, default `policy`; or `read`: read it from its moves, [`opponent`]), `endgame` (1 or 0, default 1), `nodes` (solver node cap per decision, default 400,000; past it: rollouts) |
//! | `best` | the strongest: `ismcts` (the same options, and `budget`: `default`, or `tco09`: `iterations=4000`, about TCO09's time budget) |
//! | `pimc-read` | `pimc` with `opp=read` (the same options): the `best` of issues 16 and 24 before `ismcts` |
//! | `ismcts` | information-set MCTS over the worlds and opponent models `pimc-read` reads ([`ismcts`]); options `iterations` (per legal move at the root, default 1000), `c` (exploration, default 0.7), `worlds` (sampled and read per decision, default 1000), `solve` (1 or 0: tree nodes with an empty stock valued exactly, default 1), `nodes` (solver node cap per solve, default 2,000; past it: a rollout), `policy` (our rollout policy, default `smart`), `opp` (`model`, the only choice: the opponent plays its read model), `read` (`placed`, the only choice: read the placements whose hand the record rebuilds), `budget` (as `best`'s) |
//! | `expecti` | expectiminimax over a belief state, chance nodes for draws and passes, the exact solver once the stock is empty ([`expecti`]); options `depth` (plies, default 3), `rollouts` (per leaf, default 8), `worlds` (root samples of the belief, default 400), `read` (1 or 0: weigh them by reading the opponent, default 1), `nodes` (solver node cap per solve, default 100,000) |

mod endgame;
pub mod expecti;
mod greedy;
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
pub use ismcts::{Ismcts, IsmctsConfig};
pub use pimc::{Opponent, Pimc, PimcConfig};
pub use random::Random;
pub use smart::Smart;
pub use solver::{Solution, Solver};

use arena_core::Agent;
use arena_core::dominoes::Dominoes;

use crate::learned::{self, TrainEvent, TrainParams, Weights};
use crate::spec::{Opt, SeedSource, Spec, SpecError, value};

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

/// `ismcts` iterations per legal move at `budget=tco09` (`best:budget=tco09`).
pub const TCO09_ITERATIONS: u32 = 4000;

/// The options of `pimc` and `pimc-read` (`pimc:k=..,policy=..,opp=..,endgame=..,nodes=..`).
pub const PIMC_OPTIONS: &[Opt<PimcConfig>] = &[
    Opt::new("k", |c, v| value::positive(v).map(|k| c.worlds = k)),
    // A fixed opponent (`pimc`'s) plays our policy unless `opp` says otherwise.
    Opt::new("policy", |c, v| {
        let policy: sim::Policy = value::any(v)?;
        if let Opponent::Fixed(_) = c.opponent {
            c.opponent = Opponent::Fixed(policy.clone());
        }
        c.policy = policy;
        Ok(())
    }),
    Opt::new("opp", |c, v| {
        c.opponent = match v {
            "read" => Opponent::Read(opponent::default_library()),
            _ => Opponent::Fixed(value::any(v).map_err(|e| format!("{e}, or read"))?),
        };
        Ok(())
    }),
    Opt::new("endgame", |c, v| value::flag(v).map(|on| c.endgame = on)),
    Opt::new("nodes", |c, v| value::any(v).map(|n| c.solver_nodes = n)),
];

/// The options of `expecti` (`expecti:depth=..,rollouts=..,worlds=..,read=..,nodes=..`).
pub const EXPECTI_OPTIONS: &[Opt<ExpectiConfig>] = &[
    Opt::new("depth", |c, v| value::positive(v).map(|n| c.depth = n)),
    Opt::new("rollouts", |c, v| {
        value::positive(v).map(|n| c.rollouts = n)
    }),
    Opt::new("worlds", |c, v| value::positive(v).map(|n| c.worlds = n)),
    Opt::new("read", |c, v| value::flag(v).map(|on| c.read = on)),
    Opt::new("nodes", |c, v| value::any(v).map(|n| c.solver_nodes = n)),
];

/// The options of `ismcts` and `best`.
pub const ISMCTS_OPTIONS: &[Opt<IsmctsConfig>] = &[
    // First, so that `iterations` given beside it wins. TCO09's budget (100 s per case of
    // 100 games, one core): 4 times the iterations.
    Opt::new("budget", |c, v| {
        if value::tco09_budget(v)? {
            c.iterations = TCO09_ITERATIONS;
        }
        Ok(())
    }),
    Opt::new("iterations", |c, v| {
        value::positive(v).map(|n| c.iterations = n)
    }),
    Opt::new("c", |c, v| {
        value::non_negative(v).map(|x| c.exploration = x)
    }),
    Opt::new("worlds", |c, v| value::positive(v).map(|n| c.worlds = n)),
    Opt::new("solve", |c, v| value::flag(v).map(|on| c.solve = on)),
    Opt::new("nodes", |c, v| value::any(v).map(|n| c.solver_nodes = n)),
    Opt::new("policy", |c, v| value::any(v).map(|p| c.policy = p)),
    // The only choices left of two measured options (docs/benchmarks.md).
    Opt::new("opp", |_, v| value::one_of(v, &["model"]).map(drop)),
    Opt::new("read", |_, v| value::one_of(v, &["placed"]).map(drop)),
];

/// The `pimc` / `pimc-read` settings a spec names: `pimc-read` reads its opponent
/// ([`opponent`]) by default, `pimc` plays everyone as its own `policy`.
pub fn pimc_config(spec: &Spec) -> Result<PimcConfig, SpecError> {
    let start = if spec.name() == "pimc-read" {
        PimcConfig::reading()
    } else {
        PimcConfig::default()
    };
    spec.configure(start, PIMC_OPTIONS)
}

/// The `expecti` settings a spec names.
pub fn expecti_config(spec: &Spec) -> Result<ExpectiConfig, SpecError> {
    spec.configure(ExpectiConfig::default(), EXPECTI_OPTIONS)
}

/// The `ismcts` / `best` settings a spec names.
pub fn ismcts_config(spec: &Spec) -> Result<IsmctsConfig, SpecError> {
    spec.configure(IsmctsConfig::default(), ISMCTS_OPTIONS)
}

/// Trains the learned evaluator (`learned`, `tc-server`), `greedy` its baseline
/// opponent ([`learned::train`]).
pub fn train_learned(params: &TrainParams, progress: &mut impl FnMut(&TrainEvent)) -> Weights {
    learned::train::train(params, progress, |_| Greedy)
}

/// Builds the agent a spec names, with its private seed (derived only if it uses one).
pub fn build(spec: &Spec, seed: impl SeedSource) -> Result<BoxedAgent, SpecError> {
    let name = spec.builtin_name()?;
    if matches!(name, "random" | "greedy" | "smart") {
        spec.expect_options(&[])?;
    }
    Ok(match name {
        "random" => Box::new(Random::new(seed.seed())),
        "greedy" => Box::new(Greedy),
        "smart" => Box::new(Smart),
        "endgame" => {
            let nodes = [Opt::new("nodes", |n, v| value::any(v).map(|x| *n = x))];
            let nodes = spec.configure(endgame::DEFAULT_ENDGAME_NODES, &nodes)?;
            Box::new(EndgamePlayer::with_max_nodes(nodes))
        }
        "pimc" | "pimc-read" => Box::new(Pimc::new(pimc_config(spec)?, seed.seed())),
        "expecti" => Box::new(Expecti::new(expecti_config(spec)?, seed.seed())),
        // `best` names the strongest built-in: `ismcts` (docs/benchmarks.md, issue 24).
        "ismcts" | "best" => Box::new(Ismcts::new(ismcts_config(spec)?, seed.seed())),
        // The learned evaluator (agents/src/learned/); `tc-server` uses the built-in weights.
        "learned" | "tc-server" => Box::new(learned::agent::<Dominoes>(spec)?),
        _ => {
            return Err(SpecError::Unknown {
                name: name.to_owned(),
                game: "dominoes",
                known: NAMES.join(", "),
            });
        }
    })
}
