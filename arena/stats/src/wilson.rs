//! The Wilson score interval for a proportion (Wilson 1927).

use serde::Serialize;

use super::Wdl;

/// A confidence interval for a proportion, always within `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Wilson {
    /// Lower end, `≥ 0`.
    pub lower: f64,
    /// Upper end, `≤ 1`.
    pub upper: f64,
}

impl Wilson {
    /// The Wilson interval for agent A's score, counting a draw as half a success:
    /// `k = W + D/2` successes out of `n = W + D + L`.
    ///
    /// With draws this is an interval for the expected score treated as a binomial proportion.
    /// The Wilson construction assumes the binomial variance `s(1 − s)` per game; a game that
    /// can be drawn has variance `(W + D/4)/N − s²`, which is never larger. Counting draws as
    /// half a success therefore errs on the wide (conservative) side when there are many draws,
    /// and is the plain Wilson interval when there are none.
    ///
    /// ```
    /// use arena_stats::{Wdl, Wilson, Z_95};
    /// let ci = Wilson::from_wdl(&Wdl::new(3, 0, 7), Z_95);
    /// assert!((ci.lower - 0.1078).abs() < 5e-5 && (ci.upper - 0.6032).abs() < 5e-5);
    /// ```
    pub fn from_wdl(wdl: &Wdl, z: f64) -> Self {
        wilson(wdl.points(), wdl.games() as f64, z)
    }

    /// Whether `p` lies in the closed interval.
    pub fn contains(&self, p: f64) -> bool {
        self.lower <= p && p <= self.upper
    }

    /// `upper − lower`.
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }
}

/// The Wilson score interval for `k` successes in `n` trials at normal quantile `z` (use
/// [`Z_95`](super::Z_95) for 95 %).
///
/// With `p̂ = k/n`:
/// `centre = (p̂ + z²/2n)/(1 + z²/n)`,
/// `half-width = z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²)`.
///
/// `k` may be fractional (a draw counts ½). It is clamped into `[0, n]`, and the ends are
/// clamped into `[0, 1]` against rounding, so `k = 0` gives lower 0 and `k = n` gives upper 1.
/// When `n` is not positive or an input is not finite there is no information, and the result
/// is `[0, 1]`. `z` is taken as `|z|`.
///
/// ```
/// use arena_stats::{wilson, Z_95};
/// let ci = wilson(3.0, 10.0, Z_95);
/// assert!((ci.lower - 0.1078).abs() < 5e-5);
/// assert!((ci.upper - 0.6032).abs() < 5e-5);
/// ```
pub fn wilson(k: f64, n: f64, z: f64) -> Wilson {
    if !(n > 0.0 && n.is_finite() && k.is_finite() && z.is_finite()) {
        return Wilson {
            lower: 0.0,
            upper: 1.0,
        };
    }
    let z = z.abs();
    let p = (k / n).clamp(0.0, 1.0);
    let z2n = z * z / n;
    let denom = 1.0 + z2n;
    let centre = (p + z2n / 2.0) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt();
    Wilson {
        lower: (centre - half).clamp(0.0, p),
        upper: (centre + half).clamp(p, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Z_95;

    #[test]
    fn published_vector_k3_n10() {
        let ci = wilson(3.0, 10.0, Z_95);
        assert!((ci.lower - 0.107_8).abs() < 5e-5, "{ci:?}");
        assert!((ci.upper - 0.603_2).abs() < 5e-5, "{ci:?}");
        // Same counts through Wdl: 3 wins, 7 losses.
        assert_eq!(Wilson::from_wdl(&Wdl::new(3, 0, 7), Z_95), ci);
        // Two draws count as one success.
        assert_eq!(Wilson::from_wdl(&Wdl::new(2, 2, 6), Z_95), ci);
    }

    #[test]
    fn extremes_are_finite_and_inside_unit_interval() {
        let zero = wilson(0.0, 10.0, Z_95);
        assert_eq!(zero.lower, 0.0);
        // z²/(n + z²) for k = 0.
        assert!((zero.upper - Z_95 * Z_95 / (10.0 + Z_95 * Z_95)).abs() < 1e-12);
        assert!((zero.upper - 0.277_5).abs() < 1e-4);

        let all = wilson(10.0, 10.0, Z_95);
        assert_eq!(all.upper, 1.0);
        assert!((all.lower - (1.0 - zero.upper)).abs() < 1e-12);

        for ci in [
            wilson(0.0, 0.0, Z_95),
            wilson(5.0, -1.0, Z_95),
            wilson(f64::NAN, 10.0, Z_95),
        ] {
            assert_eq!(
                ci,
                Wilson {
                    lower: 0.0,
                    upper: 1.0
                }
            );
        }
        // All draws: k = n/2.
        let draws = Wilson::from_wdl(&Wdl::new(0, 10, 0), Z_95);
        assert!(draws.contains(0.5) && draws.lower > 0.2 && draws.upper < 0.8);
        assert!((draws.lower + draws.upper - 1.0).abs() < 1e-12);
    }

    #[test]
    fn property_contains_the_point_estimate_and_shrinks_with_n() {
        for n in 1..=40u64 {
            for w in 0..=n {
                for d in 0..=(n - w) {
                    let wdl = Wdl::new(w, d, n - w - d);
                    let ci = Wilson::from_wdl(&wdl, Z_95);
                    assert!(ci.lower.is_finite() && ci.upper.is_finite());
                    assert!(0.0 <= ci.lower && ci.upper <= 1.0, "{wdl:?} {ci:?}");
                    assert!(ci.contains(wdl.score()), "{wdl:?} {ci:?}");
                    assert!(ci.width() > 0.0);
                }
            }
        }
        // Quadrupling the sample roughly halves the width.
        let small = wilson(30.0, 100.0, Z_95).width();
        let large = wilson(120.0, 400.0, Z_95).width();
        assert!(large < small * 0.55 && large > small * 0.45);
    }
}
