//! Match statistics for two-agent comparisons: score intervals, Elo, normalized Elo and the
//! generalized sequential probability ratio test (GSPRT).
//!
//! Everything here is a pure function of result counts, from agent A's point of view:
//!
//! - [`Wdl`]: single-game (trinomial) counts. A game scores 1, ½ or 0.
//! - [`Pentanomial`]: counts of seat-swapped pair scores 0, ¼, ½, ¾, 1. Prefer it whenever the two
//!   games of a pair share a deal or an opening, because it removes that luck from the variance.
//! - [`Wilson`] / [`wilson`]: a score interval that stays inside `[0, 1]` at 0 %, 100 % and tiny `n`.
//! - [`PairInterval`]: the score interval of pairs, Wilson's score test carried to the five
//!   pair scores, so it holds at sweeps and in tiny samples.
//! - [`EloEstimate`] / [`NeloEstimate`]: logistic Elo and normalized Elo, with the interval
//!   mapped through the Elo curve (games: the normal interval as fastchess reports it;
//!   pairs: [`PairInterval`]), always finite.
//! - [`Sprt`]: the GSPRT with the logistic Elo model and the exact constrained maximum-likelihood
//!   estimate, as in fishtest `LLRcalc.py` and fastchess `sprt.cpp`.
//!
//! The formulas, their sources and the regularisation of zero counts are written out in
//! `docs/statistics.md`.
//!
//! # Regularisation
//!
//! Every estimate that divides by a variance or takes a logarithm of a frequency first replaces
//! each zero count by [`REGULARISATION`] (`1e-3`), exactly as fishtest `LLRcalc.regularize` and
//! fastchess `sprt.cpp` do before computing a log-likelihood ratio. The Elo estimates reuse the
//! same regularised distribution, so the Elo, LOS and LLR of one result are computed from the
//! same numbers. Counts that are not zero are left untouched.
//!
//! # Example
//!
//! ```
//! use arena_stats::{EloEstimate, Sprt, SprtDecision, Wdl, Z_95};
//!
//! let wdl = Wdl::new(4307, 8620, 4063);
//! let elo = EloEstimate::from_wdl(&wdl, Z_95);
//! assert!((elo.elo - 4.99).abs() < 0.005);
//! assert!((elo.plus_minus - 3.67).abs() < 0.005);
//!
//! let sprt = Sprt::new(0.0, 3.0, 0.05, 0.05).unwrap();
//! let llr = sprt.llr_trinomial(&wdl);
//! assert!((llr - 2.991).abs() < 0.001);
//! // 2.991 is past the upper bound ln(0.95/0.05) = 2.944.
//! assert_eq!(sprt.decision(llr), Some(SprtDecision::AcceptH1));
//! ```

pub mod bradley_terry;
mod elo;
mod pentanomial;
mod score_interval;
mod sprt;
mod wdl;
mod wilson;

pub use elo::{
    EloEstimate, NELO_SCALE, NeloEstimate, elo_from_score, nelo_from_score, score_from_elo,
};
pub use pentanomial::Pentanomial;
pub use score_interval::{PAIR_PRIOR, PairInterval};
pub use sprt::{Sprt, SprtDecision, llr_approx, llr_exact};
pub use wdl::Wdl;
pub use wilson::{Wilson, wilson};

use statrs::distribution::{ContinuousCDF, Normal};

/// The two-sided 95 % standard-normal quantile, `Φ⁻¹(0.975)`.
///
/// Equal to `Normal::standard().inverse_cdf(0.975)` from statrs (checked in the tests) and to
/// fastchess's `CI95ZSCORE` (1.959963984540054).
pub const Z_95: f64 = 1.959_963_984_540_054;

/// The pseudo-count that replaces a zero count before any variance or log-likelihood is computed
/// (fishtest `LLRcalc.regularize`, fastchess `sprt.cpp` `regularize`).
const REGULARISATION: f64 = 1e-3;

/// The two-sided standard-normal quantile for a confidence level, `Φ⁻¹(1 − (1 − confidence)/2)`.
///
/// `z_for_confidence(0.95)` is [`Z_95`]. Returns NaN unless `0 < confidence < 1`.
///
/// ```
/// let z = arena_stats::z_for_confidence(0.95);
/// assert!((z - 1.959964).abs() < 1e-6);
/// ```
pub fn z_for_confidence(confidence: f64) -> f64 {
    if !(confidence > 0.0 && confidence < 1.0) {
        return f64::NAN;
    }
    Normal::standard().inverse_cdf(1.0 - (1.0 - confidence) / 2.0)
}

/// The standard normal distribution function `Φ(x)`.
pub(crate) fn normal_cdf(x: f64) -> f64 {
    Normal::standard().cdf(x)
}

/// Errors from building counts or an SPRT configuration.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A single game scored something other than 0, ½ or 1.
    #[error("a game score must be 0, 0.5 or 1, got {0}")]
    InvalidGameScore(f64),
    /// A pair scored something other than 0, ¼, ½, ¾ or 1.
    #[error("a pair score must be 0, 0.25, 0.5, 0.75 or 1, got {0}")]
    InvalidPairScore(f64),
    /// The SPRT parameters are unusable; the message names the violated condition.
    #[error("invalid SPRT parameters: {0}")]
    InvalidSprt(&'static str),
}

/// A regularised empirical distribution over `K` equally spaced outcomes `a_i = i/(K−1)`.
///
/// This is fishtest's `results_to_pdf(regularize(results))`: zero counts become
/// [`REGULARISATION`], `total` is the sum of the regularised counts and `probs[i]` is
/// `count_i / total`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Regularised<const K: usize> {
    /// Sum of the regularised counts (games or pairs).
    pub(crate) total: f64,
    /// Regularised frequencies, summing to one.
    pub(crate) probs: [f64; K],
    /// Sum of the raw counts.
    raw_total: u64,
}

impl<const K: usize> Regularised<K> {
    pub(crate) fn new(counts: [u64; K]) -> Self {
        const { assert!(K >= 2, "need at least two outcomes") };
        let regularised = counts.map(|c| if c == 0 { REGULARISATION } else { c as f64 });
        let total: f64 = regularised.iter().sum();
        Self {
            total,
            probs: regularised.map(|c| c / total),
            raw_total: counts.iter().sum(),
        }
    }

    /// The score of outcome `i`, `i/(K−1)`.
    pub(crate) fn outcome(i: usize) -> f64 {
        i as f64 / (K - 1) as f64
    }

    /// `Σ p_i a_i`.
    pub(crate) fn mean(&self) -> f64 {
        (0..K).map(|i| self.probs[i] * Self::outcome(i)).sum()
    }

    /// `Σ p_i (a_i − mean)²`, strictly positive thanks to the regularisation.
    pub(crate) fn variance(&self) -> f64 {
        let mean = self.mean();
        (0..K)
            .map(|i| self.probs[i] * (Self::outcome(i) - mean).powi(2))
            .sum()
    }

    /// The regularised mean of a clean sweep (all mass on outcome 0) of `max(raw total, 1)`
    /// samples: `1e-3 · (K/2) / (m + (K−1) · 1e-3)`. No regularised result of that size has a
    /// lower mean, so this is the most extreme score the estimator can report.
    pub(crate) fn sweep_floor(&self) -> f64 {
        let m = self.raw_total.max(1) as f64;
        REGULARISATION * (K as f64 / 2.0) / (m + (K - 1) as f64 * REGULARISATION)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_95_matches_statrs_quantile() {
        let z = Normal::standard().inverse_cdf(0.975);
        assert!((z - Z_95).abs() < 1e-12, "statrs gives {z}");
        assert!((z_for_confidence(0.95) - Z_95).abs() < 1e-12);
        assert!((z_for_confidence(0.99) - 2.575_829).abs() < 1e-6);
        assert!(z_for_confidence(0.0).is_nan());
        assert!(z_for_confidence(1.0).is_nan());
    }

    #[test]
    fn regularisation_replaces_only_zero_counts() {
        let d = Regularised::new([10, 0, 0]);
        assert!((d.total - 10.002).abs() < 1e-12);
        assert!((d.probs.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert!((d.probs[1] - 1e-3 / 10.002).abs() < 1e-15);
        let untouched = Regularised::new([4063, 8620, 4307]);
        assert_eq!(untouched.total, 16990.0);
        assert!(untouched.variance() > 0.0 && d.variance() > 0.0);
    }

    #[test]
    fn sweep_floor_is_the_regularised_score_of_a_sweep() {
        let tri = Regularised::new([10, 0, 0]);
        assert!((tri.sweep_floor() - tri.mean()).abs() < 1e-15);
        let penta = Regularised::new([7, 0, 0, 0, 0]);
        assert!((penta.sweep_floor() - penta.mean()).abs() < 1e-15);
        // Any other result of the same size has a higher regularised score.
        let other = Regularised::new([9, 1, 0]);
        assert!(other.mean() > other.sweep_floor());
    }
}
