//! The learned evaluators: a position value learned from seeded play, for Dominoes
//! (`learned`, and `tc-server` with the built-in weights) and Quarto (`learned`).
//!
//! - [`train_dominoes`] / [`train_quarto`] play seeded games and fit the model
//!   ([`train`] documents the procedure); the result is a [`Weights`] file
//!   ([`weights`] documents the format).
//! - The agents rate every legal move by the predicted chance of winning of the position
//!   it leads to, and play the best, ties to the first in legal-move order.
//!
//! docs/training.md gives the training commands and the measured strength.

pub mod dominoes;
pub mod model;
pub mod quarto;
pub mod train;
pub mod weights;

pub use dominoes::{LearnedDominoes, LearnedPolicy};
pub use quarto::LearnedQuarto;
pub use train::{TrainEvent, total_steps, train_dominoes, train_quarto};
pub use weights::{GameKind, TrainParams, Weights, WeightsError};

use crate::spec::{Spec, SpecError};

/// The `weights=FILE` option, if given.
fn weights_option(spec: &Spec) -> Result<Option<String>, SpecError> {
    spec.expect_options(&["weights"])?;
    let path: String = spec.option("weights", String::new())?;
    Ok((!path.is_empty()).then_some(path))
}

fn bad_weights(spec: &Spec, path: &str, e: WeightsError) -> SpecError {
    SpecError::BadValue {
        name: spec.name().to_owned(),
        option: "weights".into(),
        value: path.to_owned(),
        reason: e.to_string(),
    }
}

/// Dominoes `learned[:weights=FILE]` (built-in weights by default) and `tc-server`
/// (always the built-in weights, no options).
pub fn dominoes_agent(spec: &Spec) -> Result<LearnedDominoes, SpecError> {
    if spec.name() == "tc-server" {
        spec.expect_options(&[])?;
        return Ok(LearnedDominoes::with_default_weights());
    }
    match weights_option(spec)? {
        None => Ok(LearnedDominoes::with_default_weights()),
        Some(path) => LearnedDominoes::from_file(std::path::Path::new(&path))
            .map_err(|e| bad_weights(spec, &path, e)),
    }
}

/// Quarto `learned[:weights=FILE]` (built-in weights by default).
pub fn quarto_agent(spec: &Spec) -> Result<LearnedQuarto, SpecError> {
    match weights_option(spec)? {
        None => Ok(LearnedQuarto::with_default_weights()),
        Some(path) => LearnedQuarto::from_file(std::path::Path::new(&path))
            .map_err(|e| bad_weights(spec, &path, e)),
    }
}
