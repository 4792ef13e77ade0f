//! The learned evaluators: a position value learned from seeded play, for Dominoes
//! (`learned`, and `tc-server` with the built-in weights) and Quarto (`learned`).
//!
//! - A game takes part through [`Learnable`]: its features, and the move its evaluator
//!   rates best ([`dominoes`], [`quarto`]). Nothing here knows the games' players.
//! - [`train::train`] plays seeded games and fits the model ([`train`] documents the
//!   procedure); the result is a [`Weights`] file ([`weights`] documents the format).
//! - The agents ([`Learned`]) rate every legal move by the predicted chance of winning of
//!   the position it leads to, and play the best, ties to the first in legal-move order.
//!
//! docs/training.md gives the training commands and the measured strength.

pub mod dominoes;
pub mod model;
pub mod quarto;
pub mod train;
pub mod weights;

use std::marker::PhantomData;
use std::path::Path;

use arena_core::{Agent, AgentError, Game};

pub use dominoes::LearnedPolicy;
pub use train::{TrainEvent, total_steps};
pub use weights::{Evaluator, GameKind, TrainParams, Weights, WeightsError};

use crate::spec::{Spec, SpecError};

/// A game with a learned evaluator.
pub trait Learnable: Game {
    const KIND: GameKind;
    /// The feature names, in input order (a weights file must name the same).
    const FEATURES: &'static [&'static str];
    /// The committed default weights, built in, and where they come from.
    const DEFAULT_WEIGHTS: (&'static str, &'static str);
    /// The cases training cycles through.
    fn training_cases() -> Vec<Self::Case>;
    /// The start of training game `index` of `case` under the master seed `master`.
    fn training_start(case: Self::Case, master: u64, index: u32) -> Self;
    /// The legal move of `view` that `eval` rates best, ties to the first in legal-move
    /// order (`buf`: scratch for the features).
    fn best_move(view: &Self::View<'_>, eval: &mut Evaluator, buf: &mut Vec<f64>) -> Self::Move;
    /// The features of the position `mv` leads to, into `out`; `false` when there are
    /// none to learn from (no placement, or the game ends).
    fn features_of(view: &Self::View<'_>, mv: Self::Move, out: &mut Vec<f64>) -> bool;
}

/// The parsed built-in weights of `G`.
pub fn default_weights<G: Learnable>() -> Weights {
    let (json, name) = G::DEFAULT_WEIGHTS;
    Weights::parse(json, name, G::KIND, G::FEATURES).expect("the built-in weights are valid")
}

/// `learned`: plays the move whose resulting position the evaluator rates best.
/// Deterministic: no seed, fixed tie-break (first legal move among equals).
pub struct Learned<G> {
    eval: Evaluator,
    buf: Vec<f64>,
    game: PhantomData<G>,
}

/// Dominoes `learned` and `tc-server`.
pub type LearnedDominoes = Learned<arena_core::dominoes::Dominoes>;
/// Quarto `learned`.
pub type LearnedQuarto = Learned<arena_core::quarto::Quarto>;

impl<G: Learnable> Learned<G> {
    pub fn new(weights: &Weights) -> Learned<G> {
        Learned {
            eval: weights.evaluator(),
            buf: Vec::new(),
            game: PhantomData,
        }
    }

    /// The agent with the built-in default weights.
    pub fn with_default_weights() -> Learned<G> {
        Learned::new(&default_weights::<G>())
    }

    /// The agent with the weights in `path`.
    pub fn from_file(path: &Path) -> Result<Learned<G>, WeightsError> {
        Ok(Learned::new(&Weights::load(path, G::KIND, G::FEATURES)?))
    }
}

impl<G: Learnable> Agent<G> for Learned<G> {
    fn play(&mut self, view: &G::View<'_>) -> Result<G::Move, AgentError> {
        Ok(G::best_move(view, &mut self.eval, &mut self.buf))
    }
}

/// `learned[:weights=FILE]` (built-in weights by default); Dominoes `tc-server`: always
/// the built-in weights, no options.
pub fn agent<G: Learnable>(spec: &Spec) -> Result<Learned<G>, SpecError> {
    if spec.name() == "tc-server" {
        spec.expect_options(&[])?;
        return Ok(Learned::with_default_weights());
    }
    spec.expect_options(&["weights"])?;
    let path: String = spec.option("weights", String::new())?;
    if path.is_empty() {
        return Ok(Learned::with_default_weights());
    }
    Learned::from_file(Path::new(&path)).map_err(|e| SpecError::BadValue {
        name: spec.name().to_owned(),
        option: "weights".into(),
        value: path.clone(),
        reason: e.to_string(),
    })
}
