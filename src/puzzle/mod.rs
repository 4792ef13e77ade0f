//! Single-player puzzles scored TopCoder-Marathon style (`specs/puzzles.md`): an instance
//! generated from (puzzle, seed) alone (P1), a solver's answer, and a referee that never
//! trusts the answer (P2). Each puzzle has its own module; [`PuzzleKind`] erases them
//! behind notation strings for the command line and the task registry.

pub mod detrak;
pub mod dominopeg;
pub mod dust;

use std::fmt::{Debug, Display};
use std::str::FromStr;

use rand_chacha::ChaCha8Rng;

use crate::ParseError;
use crate::rng::{Family, Purpose, StreamId};

/// Whether a higher or a lower raw score is better (P3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    Maximize,
    Minimize,
}

/// Why the referee refuses an answer (TopCoder's -1).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl Invalid {
    pub fn new(reason: impl Into<String>) -> Self {
        Invalid(reason.into())
    }
}

/// One puzzle: its notations, its generator and its referee.
pub trait Puzzle {
    /// The name on the command line and in configs.
    const NAME: &'static str;
    const OBJECTIVE: Objective;
    /// One line of text in the puzzle's notation.
    type Instance: Clone + Debug + PartialEq + Display + FromStr<Err = ParseError>;
    /// One line of text in the puzzle's notation.
    type Answer: Clone + Debug + PartialEq + Display + FromStr<Err = ParseError>;

    /// The instance of `seed` (P1): the same on every platform.
    fn generate(seed: u64) -> Self::Instance;

    /// The raw score of `answer`, or why it breaks a rule (P2).
    fn score(instance: &Self::Instance, answer: &Self::Answer) -> Result<i64, Invalid>;
}

/// Relative scores of several solvers on one instance (P3): for a maximised score
/// `score / best`, for a minimised one `best / score`, over the valid answers; 0 for an
/// invalid answer (`None`). When the best score is not positive (Détrak can score below
/// 0), a maximised score is shifted so the best is 1 and the worst valid one is its
/// ratio to the best in the shifted scale: `(score - low + 1) / (best - low + 1)`.
pub fn relative_scores(objective: Objective, scores: &[Option<i64>]) -> Vec<f64> {
    let valid = scores.iter().flatten().copied();
    let (Some(low), Some(high)) = (valid.clone().min(), valid.max()) else {
        return vec![0.0; scores.len()];
    };
    scores
        .iter()
        .map(|s| match (s, objective) {
            (None, _) => 0.0,
            (Some(s), Objective::Maximize) if low > 0 => *s as f64 / high as f64,
            (Some(s), Objective::Maximize) => (s - low + 1) as f64 / (high - low + 1) as f64,
            (Some(s), Objective::Minimize) if *s > 0 => low as f64 / *s as f64,
            (Some(_), Objective::Minimize) => 1.0,
        })
        .collect()
}

/// The stream an instance is drawn from: the puzzle's family, the seed as master seed,
/// every other field zero (`docs/seeding.md`).
pub(crate) fn instance_rng(family: Family, seed: u64) -> ChaCha8Rng {
    StreamId {
        family,
        case_key: 0,
        matchup: 0,
        pair: 0,
        purpose: Purpose::Deal,
    }
    .rng(seed)
}

/// The three puzzles by name, for callers that only hold notation strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PuzzleKind {
    Detrak,
    DominoPeg,
    Dust,
}

impl PuzzleKind {
    pub const ALL: [PuzzleKind; 3] = [PuzzleKind::Detrak, PuzzleKind::DominoPeg, PuzzleKind::Dust];

    pub fn name(self) -> &'static str {
        match self {
            PuzzleKind::Detrak => detrak::Detrak::NAME,
            PuzzleKind::DominoPeg => dominopeg::DominoPeg::NAME,
            PuzzleKind::Dust => dust::Dust::NAME,
        }
    }

    pub fn objective(self) -> Objective {
        match self {
            PuzzleKind::Detrak => detrak::Detrak::OBJECTIVE,
            PuzzleKind::DominoPeg => dominopeg::DominoPeg::OBJECTIVE,
            PuzzleKind::Dust => dust::Dust::OBJECTIVE,
        }
    }

    /// The instance of `seed`, in notation.
    pub fn generate(self, seed: u64) -> String {
        match self {
            PuzzleKind::Detrak => detrak::Detrak::generate(seed).to_string(),
            PuzzleKind::DominoPeg => dominopeg::DominoPeg::generate(seed).to_string(),
            PuzzleKind::Dust => dust::Dust::generate(seed).to_string(),
        }
    }

    /// Parses both texts (a notation error is `Err`), then referees: `Ok(Err(_))` is an
    /// answer that parses but breaks a rule.
    pub fn score(self, instance: &str, answer: &str) -> Result<Result<i64, Invalid>, ParseError> {
        match self {
            PuzzleKind::Detrak => score_text::<detrak::Detrak>(instance, answer),
            PuzzleKind::DominoPeg => score_text::<dominopeg::DominoPeg>(instance, answer),
            PuzzleKind::Dust => score_text::<dust::Dust>(instance, answer),
        }
    }
}

fn score_text<P: Puzzle>(instance: &str, answer: &str) -> Result<Result<i64, Invalid>, ParseError> {
    let instance: P::Instance = line(instance).parse()?;
    let answer: P::Answer = line(answer).parse()?;
    Ok(P::score(&instance, &answer))
}

/// A line of text without its line ending. Leading spaces stay: a dust board's top row
/// may start with empty cells.
pub fn line(text: &str) -> &str {
    text.trim_end_matches(['\n', '\r'])
}

impl Display for PuzzleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PuzzleKind {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PuzzleKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| ParseError::new("puzzle", s, "expected detrak, dominopeg or dust"))
    }
}
