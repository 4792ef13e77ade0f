//! A score interval for seat-swapped pairs that holds at the extremes: Wilson's score-test
//! inversion (Wilson 1927) carried from two outcomes to the five pair scores.
//!
//! The normal interval `s ± z·σ̂/√M` fails exactly where small pair samples live: a sweep
//! has `σ̂ = 0` (a zero-width interval, or, regularised, one that excludes its own
//! estimate), and 200 pairs that all scored ½ claim to know the score to the last digit.
//! Wilson's fix for a proportion is to test each candidate score `μ` with the variance the
//! data would have *if `μ` were true*, and keep the `μ` the test does not reject:
//!
//! ```text
//! M · (s − μ)² ≤ z² · V(μ)
//! ```
//!
//! For a proportion `V(μ) = μ(1 − μ)`. For pairs, `V(μ)` is the variance of the most likely
//! pair-score distribution with mean `μ` (the constrained maximum-likelihood estimate that
//! fishtest's `LLRcalc.MLE_pentanomial` and fastchess's SPRT also use), fitted to the counts
//! plus a Jeffreys pseudo-count of ½ per outcome, so that outcomes not yet seen keep some
//! weight (Agresti and Coull 1998: add pseudo-counts, then invert the score test).
//!
//! Properties, each tested: the interval always contains the sample score `s` (the test
//! statistic is 0 there); it stays in `[0, 1]`, with a bound at 0 or 1 only for a sweep;
//! it is wide for tiny or one-sided samples (two lost pairs: `[0, 0.43]`) and as narrow as
//! the normal interval for large balanced ones (the two agree to 0.1 per 100 at 1,000
//! pairs). The LOS is the same test at `μ = ½`, so the interval excludes ½ exactly when the
//! LOS is past `Φ(±z)`.

use super::{Pentanomial, normal_cdf};

/// The pseudo-count added to each of the five outcomes when fitting `V(μ)` (Jeffreys).
pub const PAIR_PRIOR: f64 = 0.5;

/// The five pair scores.
const OUTCOMES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// A score interval from pair counts, with the likelihood of superiority from the same test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairInterval {
    /// The sample score per game, `Σ nᵢ (i/4) / M` (½ without pairs).
    pub score: f64,
    pub lower: f64,
    pub upper: f64,
    /// `Φ((s − ½)·√M / √V(½))`: ½ without pairs.
    pub los: f64,
}

impl PairInterval {
    /// The `z` interval (`Z_95` for 95 %) of the score of `pairs`.
    pub fn from_pentanomial(pairs: &Pentanomial, z: f64) -> PairInterval {
        let score = pairs.mean();
        let m = pairs.pairs() as f64;
        let weights: [f64; 5] = std::array::from_fn(|i| pairs.0[i] as f64 + PAIR_PRIOR);
        if pairs.pairs() == 0 {
            return PairInterval {
                score,
                lower: 0.0,
                upper: 1.0,
                los: 0.5,
            };
        }
        // Positive where the test rejects `mu`; at most 0 at the sample score.
        let rejects = |mu: f64| m * (score - mu).powi(2) - z * z * null_variance(&weights, mu);
        PairInterval {
            score,
            lower: outermost_kept(&rejects, score, 0.0),
            upper: outermost_kept(&rejects, score, 1.0),
            los: normal_cdf((score - 0.5) * m.sqrt() / null_variance(&weights, 0.5).sqrt()),
        }
    }

    /// Whether the interval excludes an even score.
    #[cfg(test)]
    fn excludes_even(&self) -> bool {
        self.lower > 0.5 || self.upper < 0.5
    }
}

/// The variance of the most likely distribution over the five pair scores, given counts
/// `weights`, among those with mean `mu`. By Lagrange, `pᵢ = wᵢ / (W · (1 + θ(aᵢ − μ)))`
/// with `θ` the root of `Σ wᵢ (aᵢ − μ) / (1 + θ(aᵢ − μ)) = 0`, which is decreasing in `θ`
/// on the interval where every `pᵢ` is positive, so bisection finds it.
fn null_variance(weights: &[f64; 5], mu: f64) -> f64 {
    if mu <= 0.0 || mu >= 1.0 {
        return 0.0; // Only a point mass at 0 (or 1) has that mean.
    }
    let total: f64 = weights.iter().sum();
    let moment = |theta: f64| -> f64 {
        (0..5)
            .map(|i| weights[i] * (OUTCOMES[i] - mu) / (1.0 + theta * (OUTCOMES[i] - mu)))
            .sum()
    };
    // Open bounds: 1 + θ(a − μ) > 0 for a = 0 and a = 1.
    let (mut low, mut high) = (-1.0 / (1.0 - mu), 1.0 / mu);
    // Until the bracket is as narrow as doubles allow (about 50 halvings).
    for _ in 0..80 {
        let mid = 0.5 * (low + high);
        if mid <= low || mid >= high || high - low < 1e-14 * (1.0 + low.abs().max(high.abs())) {
            break;
        }
        if moment(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let theta = 0.5 * (low + high);
    (0..5)
        .map(|i| {
            let d = OUTCOMES[i] - mu;
            weights[i] / (total * (1.0 + theta * d)) * d * d
        })
        .sum()
}

/// The candidate score farthest from `from` toward `edge` that `rejects` keeps (`≤ 0`):
/// a scan in 32 steps finds the outermost kept step, bisection refines the crossing just
/// beyond it. `rejects(from) ≤ 0` always holds, so the result lies between `from` and
/// `edge` and the interval always contains the sample score.
fn outermost_kept(rejects: &impl Fn(f64) -> f64, from: f64, edge: f64) -> f64 {
    const STEPS: usize = 32;
    if rejects(edge) <= 0.0 {
        return edge;
    }
    let at = |k: usize| from + (edge - from) * k as f64 / STEPS as f64;
    let kept = (0..STEPS)
        .rev()
        .find(|&k| rejects(at(k)) <= 0.0)
        .unwrap_or(0);
    let (mut inside, mut outside) = (at(kept), at(kept + 1));
    for _ in 0..52 {
        let mid = 0.5 * (inside + outside);
        if rejects(mid) <= 0.0 {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Z_95;

    fn interval(counts: [u64; 5]) -> PairInterval {
        PairInterval::from_pentanomial(&Pentanomial(counts), Z_95)
    }

    /// Every pentanomial count vector of up to `max` pairs.
    fn all_counts(max: u64) -> Vec<[u64; 5]> {
        let mut out = Vec::new();
        for a in 0..=max {
            for b in 0..=max - a {
                for c in 0..=max - a - b {
                    for d in 0..=max - a - b - c {
                        for e in 0..=max - a - b - c - d {
                            out.push([a, b, c, d, e]);
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_interval_up_to_12_pairs_contains_its_estimate() {
        let all = all_counts(12);
        assert_eq!(all.len(), 6188); // C(17, 5): every vector with at most 12 pairs
        for counts in all {
            let i = interval(counts);
            assert!(
                0.0 <= i.lower && i.lower <= i.score && i.score <= i.upper && i.upper <= 1.0,
                "{counts:?}: {i:?}"
            );
            assert!((0.0..=1.0).contains(&i.los), "{counts:?}: {i:?}");
            // The bounds touch 0 or 1 only for a sweep (or no pairs at all).
            let m: u64 = counts.iter().sum();
            if i.lower == 0.0 {
                assert!(m == 0 || counts[0] == m, "{counts:?}: {i:?}");
            }
            if i.upper == 1.0 {
                assert!(m == 0 || counts[4] == m, "{counts:?}: {i:?}");
            }
            // The star and the LOS agree: the test at one half is the same test.
            let past = i.los > normal_cdf(Z_95) || i.los < normal_cdf(-Z_95);
            assert_eq!(i.excludes_even(), past, "{counts:?}: {i:?}");
        }
    }

    #[test]
    fn sweeps_and_one_sided_samples_are_honestly_wide() {
        // 0-0-4: two pairs lost. The estimate is 0, and the interval starts there.
        let swept = interval([2, 0, 0, 0, 0]);
        assert_eq!((swept.score, swept.lower), (0.0, 0.0));
        assert!(swept.upper > 0.3 && swept.upper < 0.6, "{swept:?}");
        assert!(!swept.excludes_even(), "two pairs prove nothing: {swept:?}");
        // 3-394-3 in 200 pairs, all even: not known to the last digit.
        let even = interval([0, 0, 200, 0, 0]);
        assert!(even.lower < 0.497 && even.upper > 0.503, "{even:?}");
        assert!(
            (even.lower + even.upper - 1.0).abs() < 1e-9,
            "symmetric: {even:?}"
        );
        // Ten straight pair wins are significant.
        assert!(interval([0, 0, 0, 0, 10]).excludes_even());
        // Mirror images give mirror intervals.
        let a = interval([3, 1, 4, 1, 5]);
        let b = interval([5, 1, 4, 1, 3]);
        assert!((a.lower - (1.0 - b.upper)).abs() < 1e-9, "{a:?} {b:?}");
        assert!((a.los - (1.0 - b.los)).abs() < 1e-9, "{a:?} {b:?}");
    }

    #[test]
    fn large_balanced_samples_match_the_normal_interval() {
        let p = Pentanomial([100, 250, 400, 250, 120]);
        let i = PairInterval::from_pentanomial(&p, Z_95);
        let half = Z_95 * (p.variance() / p.pairs() as f64).sqrt();
        assert!((i.lower - (p.mean() - half)).abs() < 1e-3, "{i:?}");
        assert!((i.upper - (p.mean() + half)).abs() < 1e-3, "{i:?}");
    }

    #[test]
    fn no_pairs_know_nothing() {
        let i = interval([0; 5]);
        assert_eq!((i.lower, i.upper, i.los, i.score), (0.0, 1.0, 0.5, 0.5));
    }

    #[test]
    fn the_null_variance_has_the_asked_mean_and_is_largest_near_the_middle() {
        let w = [2.5, 0.5, 0.5, 0.5, 0.5];
        assert_eq!(null_variance(&w, 0.0), 0.0);
        let v = null_variance(&w, 0.3);
        // At most the variance of a 0/1 variable with that mean.
        assert!(v > 0.0 && v <= 0.3 * 0.7, "{v}");
        assert!(null_variance(&w, 0.05) < v);
    }
}
