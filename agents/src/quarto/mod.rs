//! Built-in Quarto agents.

pub mod book;
mod greedy;
mod random;
pub mod solver;
pub mod strangler;
pub mod suite;
pub mod symmetry;

pub use greedy::Greedy;
pub use random::Random;
pub use solver::{BudgetExhausted, Progress, Solver, Stats, Value};
pub use strangler::{SolverAgent, Strangler, StranglerConfig};

use arena_core::Agent;
use arena_core::quarto::Quarto;

use rand_chacha::rand_core::Rng;

use crate::learned::{self, TrainEvent, TrainParams, Weights};
use crate::spec::{SeedSource, Spec, SpecError};

/// A boxed Quarto agent, sendable to a worker thread.
pub type BoxedAgent = Box<dyn Agent<Quarto> + Send>;

/// The built-in Quarto agents, by name.
pub const NAMES: &[&str] = &["random", "greedy", "solver", "strangler", "learned", "best"];

/// Trains the learned evaluator (`learned`), `greedy` its baseline opponent, seeded from
/// the training's exploration stream ([`learned::train`]).
pub fn train_learned(params: &TrainParams, progress: &mut impl FnMut(&TrainEvent)) -> Weights {
    learned::train::train(params, progress, |rng| Greedy::new(rng.next_u64()))
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
                Ok(Box::new(Greedy::new(seed.seed())))
            }
            "solver" => {
                let config = StranglerConfig::from_spec(spec, StranglerConfig::solver())?;
                Ok(Box::new(SolverAgent::new(config, seed.seed())))
            }
            // `best` names the strongest built-in: the Strangler with its exact endgame.
            "strangler" | "best" => {
                let config = StranglerConfig::from_spec(spec, StranglerConfig::default())?;
                Ok(Box::new(Strangler::new(config, seed.seed())))
            }
            // The learned evaluator (agents/src/learned/).
            "learned" => Ok(Box::new(learned::agent::<Quarto>(spec)?)),
            _ => Err(SpecError::Unknown {
                name: name.clone(),
                game: "quarto",
                known: NAMES.join(", "),
            }),
        },
    }
}
