//! Built-in Quarto agents.

mod greedy;
mod random;

pub use greedy::Greedy;
pub use random::Random;

use arena_core::Agent;
use arena_core::quarto::Quarto;

use crate::spec::{Spec, SpecError};

/// A boxed Quarto agent, sendable to a worker thread.
pub type BoxedAgent = Box<dyn Agent<Quarto> + Send>;

/// The built-in Quarto agents, by name.
pub const NAMES: &[&str] = &["random", "greedy", "best"];

/// Builds the agent a spec names, with its private seed.
pub fn build(spec: &Spec, seed: u64) -> Result<BoxedAgent, SpecError> {
    match spec {
        Spec::Exec { .. } => Err(SpecError::ExecUnsupported {
            spec: spec.to_string(),
        }),
        Spec::Builtin { name, .. } => match name.as_str() {
            "random" => {
                spec.expect_options(&[])?;
                Ok(Box::new(Random::new(seed)))
            }
            // `best` names the strongest built-in; today that is `greedy`.
            "greedy" | "best" => {
                spec.expect_options(&[])?;
                Ok(Box::new(Greedy::new(seed)))
            }
            _ => Err(SpecError::Unknown {
                name: name.clone(),
                game: "quarto",
                known: NAMES.join(", "),
            }),
        },
    }
}
