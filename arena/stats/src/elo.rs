//! Logistic Elo and normalized Elo with normal-theory intervals (fastchess `elo_wdl.cpp`,
//! `elo_pentanomial.cpp`), regularised so that every number is finite.

use std::f64::consts::LN_10;

use serde::Serialize;

use super::{PairInterval, Pentanomial, Regularised, Wdl, normal_cdf};

/// `800 / ln 10 ≈ 347.4356`: normalized Elo per unit of `(s − ½)/σ` (fishtest
/// `nelo_divided_by_nt`).
pub const NELO_SCALE: f64 = 800.0 / LN_10;

/// Logistic Elo difference for an expected score: `Elo(s) = −400 · log10(1/s − 1)`, computed as
/// `400 · log10(s/(1 − s))`.
///
/// This is the bare curve: it returns −∞ at `s = 0`, +∞ at `s = 1` and NaN outside `[0, 1]`.
/// [`EloEstimate`] regularises the score first, so its numbers are always finite.
///
/// ```
/// use arena_stats::elo_from_score;
/// assert_eq!(elo_from_score(0.5), 0.0);
/// assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
/// ```
pub fn elo_from_score(score: f64) -> f64 {
    400.0 * (score / (1.0 - score)).log10()
}

/// The inverse of [`elo_from_score`]: `L(elo) = 1/(1 + 10^(−elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Normalized Elo of a score with per-game standard deviation `sigma_per_game`:
/// `nElo = (s − ½)/σ · 800/ln 10` (fastchess `scoreToNeloDiff`, Van den Bergh's
/// normalized Elo). For pentanomial data the per-game σ is `√(2 · variance per pair)`.
pub fn nelo_from_score(score: f64, sigma_per_game: f64) -> f64 {
    (score - 0.5) / sigma_per_game * NELO_SCALE
}

/// Logistic Elo of agent A over agent B with a confidence interval and the likelihood of
/// superiority.
///
/// Computed from the regularised distribution (zero counts replaced by `1e-3`, see the module
/// docs) with `N` the regularised number of games (trinomial) or pairs (pentanomial), mean
/// score `s` and variance `σ²` per game or per pair:
///
/// - `elo = Elo(s)`;
/// - `lower, upper = Elo(s ∓ z·σ/√N)`, with the two score bounds clamped into
///   `[s_min, 1 − s_min]`, where `s_min` is the regularised score of a clean sweep of the same
///   size (of one game or pair when there is no data). So no bound is ever more extreme than the
///   point estimate the same estimator reports for a 0 % or 100 % result;
/// - `plus_minus = (upper − lower)/2`, as fastchess reports "±";
/// - `los = Φ((s − ½)/(σ/√N))`.
///
/// All fields are finite for every input, including no games, 0 %, 100 % and all draws, and
/// `lower ≤ elo ≤ upper`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EloEstimate {
    /// Point estimate, `Elo(s)`.
    pub elo: f64,
    /// Lower end of the interval, in Elo.
    pub lower: f64,
    /// Upper end of the interval, in Elo.
    pub upper: f64,
    /// `(upper − lower)/2`, the "±" that fastchess prints.
    pub plus_minus: f64,
    /// Likelihood of superiority, the normal approximation of `P(true score > ½)`, in `[0, 1]`.
    pub los: f64,
}

impl EloEstimate {
    /// From single-game counts (trinomial model: per-game variance, `N` games).
    ///
    /// ```
    /// use arena_stats::{EloEstimate, Wdl, Z_95};
    /// let e = EloEstimate::from_wdl(&Wdl::new(4307, 8620, 4063), Z_95);
    /// assert!((e.elo - 4.99).abs() < 0.005 && (e.plus_minus - 3.67).abs() < 0.005);
    /// ```
    pub fn from_wdl(wdl: &Wdl, z: f64) -> Self {
        Self::from_distribution(&Regularised::new(wdl.as_ldw()), z)
    }

    /// From pair counts: the score interval of [`PairInterval`] (which holds at sweeps and
    /// in tiny samples, where the normal one does not) and its LOS. The sample score and
    /// both bounds are clamped into `[s_min, 1 − s_min]` before they become Elo, so a sweep
    /// reports the same finite floor as before, as its estimate and as its bound.
    pub fn from_pentanomial(pentanomial: &Pentanomial, z: f64) -> Self {
        let i = PairInterval::from_pentanomial(pentanomial, z);
        Self::from_pair_interval(pentanomial, &i)
    }

    /// The same, from the pairs' interval already computed (`i` of `pentanomial`).
    pub fn from_pair_interval(pentanomial: &Pentanomial, i: &PairInterval) -> Self {
        let floor = Regularised::new(pentanomial.0).sweep_floor();
        let clamp = |s: f64| s.clamp(floor, 1.0 - floor);
        let (lower, upper) = (
            elo_from_score(clamp(i.lower)),
            elo_from_score(clamp(i.upper)),
        );
        Self {
            elo: elo_from_score(clamp(i.score)),
            lower,
            upper,
            plus_minus: (upper - lower) / 2.0,
            los: i.los,
        }
    }

    fn from_distribution<const K: usize>(d: &Regularised<K>, z: f64) -> Self {
        let s = d.mean();
        let se = (d.variance() / d.total).sqrt();
        let floor = d.sweep_floor();
        let lo = (s - z * se).max(floor.min(s));
        let hi = (s + z * se).min((1.0 - floor).max(s));
        let (lower, upper) = (elo_from_score(lo), elo_from_score(hi));
        Self {
            elo: elo_from_score(s),
            lower,
            upper,
            plus_minus: (upper - lower) / 2.0,
            los: normal_cdf((s - 0.5) / se),
        }
    }
}

/// Normalized Elo with its interval: `nElo = (s − ½)/σ_game · 800/ln 10`.
///
/// `σ_game` is the per-game standard deviation: `σ` for trinomial data and `√2 · σ_pair` for
/// pentanomial data (fastchess `elo_pentanomial.cpp`, fishtest `LLR_normalized`). The interval
/// is the same normal interval as [`EloEstimate`] expressed in nElo; nElo is linear in the
/// score, so no clamping is needed and `plus_minus` is `z · 800/ln 10 / √N` (trinomial) or
/// `z · 800/ln 10 / √(2N)` (pentanomial). Computed on the regularised distribution, so finite
/// everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NeloEstimate {
    /// Point estimate.
    pub nelo: f64,
    /// Lower end of the interval.
    pub lower: f64,
    /// Upper end of the interval.
    pub upper: f64,
    /// `(upper − lower)/2`.
    pub plus_minus: f64,
}

impl NeloEstimate {
    /// From single-game counts.
    pub fn from_wdl(wdl: &Wdl, z: f64) -> Self {
        Self::from_distribution(&Regularised::new(wdl.as_ldw()), 1.0, z)
    }

    /// From pair counts; the per-game σ is `√(2 · variance per pair)`.
    pub fn from_pentanomial(pentanomial: &Pentanomial, z: f64) -> Self {
        Self::from_distribution(&Regularised::new(pentanomial.0), 2.0, z)
    }

    fn from_distribution<const K: usize>(
        d: &Regularised<K>,
        games_per_sample: f64,
        z: f64,
    ) -> Self {
        let s = d.mean();
        let v = d.variance();
        let sigma_game = (games_per_sample * v).sqrt();
        let half_score = z * (v / d.total).sqrt();
        let nelo = nelo_from_score(s, sigma_game);
        let lower = nelo_from_score(s - half_score, sigma_game);
        let upper = nelo_from_score(s + half_score, sigma_game);
        Self {
            nelo,
            lower,
            upper,
            plus_minus: (upper - lower) / 2.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Z_95;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn assert_finite(e: &EloEstimate) {
        for x in [e.elo, e.lower, e.upper, e.plus_minus, e.los] {
            assert!(x.is_finite(), "{e:?}");
        }
        assert!(e.lower <= e.elo && e.elo <= e.upper, "{e:?}");
        assert!((0.0..=1.0).contains(&e.los), "{e:?}");
    }

    #[test]
    fn elo_curve_round_trips() {
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.75), 400.0 * 3f64.log10(), 1e-12));
        assert!(close(elo_from_score(0.75), 190.848_501_9, 1e-6));
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        for elo in [-800.0, -3.0, 0.0, 5.0, 250.0] {
            assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
        }
        assert!(close(score_from_elo(3.0), 0.504_317_239_755, 1e-11));
        assert!(close(NELO_SCALE, 347.435_585_522_601_46, 1e-9));
    }

    #[test]
    fn trinomial_published_vector() {
        // W=4307, D=8620, L=4063: Elo 4.99 +/- 3.67 (docs/statistics.md, notes §4).
        let e = EloEstimate::from_wdl(&Wdl::new(4307, 8620, 4063), Z_95);
        assert!(close(e.elo, 4.990_000_7, 1e-6), "{e:?}");
        assert!(close(e.lower, 1.323_593_5, 1e-6), "{e:?}");
        assert!(close(e.upper, 8.657_519_5, 1e-6), "{e:?}");
        assert!(close(e.plus_minus, 3.666_963_0, 1e-6), "{e:?}");
        assert!(close(e.los, 0.996_180_06, 1e-7), "{e:?}");
        let n = NeloEstimate::from_wdl(&Wdl::new(4307, 8620, 4063), Z_95);
        assert!(close(n.nelo, 7.110_426_2, 1e-6), "{n:?}");
        assert!(close(
            n.plus_minus,
            Z_95 * NELO_SCALE / 16990f64.sqrt(),
            1e-9
        ));
    }

    #[test]
    fn pentanomial_point_matches_fastchess_and_the_interval_is_the_pairs_score_interval() {
        // fastchess PR #490: Ptnml(0-2) [3, 0, 5, 0, 1] prints
        // "Elo: -78.52 +/- 162.75, nElo: -86.86 +/- 160.50, LOS: 14.44 %". The point is the
        // same (from the raw score 7/18); the interval is the score interval of the pairs
        // (stats::score_interval), a little wider on the high side at 9 pairs.
        let p = Pentanomial([3, 0, 5, 0, 1]);
        let e = EloEstimate::from_pentanomial(&p, Z_95);
        assert!(close(e.elo, elo_from_score(7.0 / 18.0), 1e-9), "{e:?}");
        assert!(close(e.elo, -78.52, 0.005), "{e:?}");
        let i = PairInterval::from_pentanomial(&p, Z_95);
        assert!(close(e.lower, elo_from_score(i.lower), 1e-9), "{e:?}");
        assert!(close(e.upper, elo_from_score(i.upper), 1e-9), "{e:?}");
        assert!(
            close(e.lower, -239.447, 1e-3) && close(e.upper, 82.139, 1e-3),
            "{e:?}"
        );
        assert!(close(e.los, 0.161_24, 1e-5), "{e:?}");
        let n = NeloEstimate::from_pentanomial(&p, Z_95);
        assert!(close(n.nelo, -86.86, 0.05), "{n:?}");
        assert!(close(n.plus_minus, 160.50, 0.05), "{n:?}");
    }

    #[test]
    fn zero_and_full_scores_are_finite() {
        // 0 wins / 10 losses.
        let lost = EloEstimate::from_wdl(&Wdl::new(0, 0, 10), Z_95);
        assert_finite(&lost);
        // s = 1.5e-3 / 10.002, the sweep floor, so the lower bound equals the estimate.
        assert!(close(lost.elo, -1_529.572_18, 1e-4), "{lost:?}");
        assert_eq!(lost.lower, lost.elo);
        // Upper: Elo(s + z·σ/√N) with the regularised σ.
        assert!(close(
            lost.upper,
            elo_from_score(0.007_077_480_065_664_847),
            1e-6
        ));
        assert!(close(lost.upper, -858.814_682, 1e-5), "{lost:?}");
        assert!(close(lost.plus_minus, 335.378_750, 1e-5), "{lost:?}");
        // 1 win in 10: the unclamped lower score bound would be negative (NaN in fastchess).
        let one = EloEstimate::from_wdl(&Wdl::new(1, 0, 9), Z_95);
        assert_finite(&one);
        assert!(close(one.lower, lost.elo, 1e-9), "{one:?}");
        assert!(lost.los < 1e-12);

        // 10 wins / 0 losses mirrors it exactly.
        let won = EloEstimate::from_wdl(&Wdl::new(10, 0, 0), Z_95);
        assert_finite(&won);
        assert!(close(won.elo, -lost.elo, 1e-6));
        assert!(close(won.lower, -lost.upper, 1e-6));
        assert!(close(won.upper, -lost.lower, 1e-6));
        assert!(close(won.los, 1.0, 1e-12));

        for w in [Wdl::new(0, 0, 10), Wdl::new(10, 0, 0)] {
            let n = NeloEstimate::from_wdl(&w, Z_95);
            for x in [n.nelo, n.lower, n.upper, n.plus_minus] {
                assert!(x.is_finite(), "{n:?}");
            }
        }
        let lost_pairs = EloEstimate::from_pentanomial(&Pentanomial([5, 0, 0, 0, 0]), Z_95);
        assert_finite(&lost_pairs);
        assert!(
            close(lost_pairs.elo, -1_320.464_106, 1e-4),
            "{lost_pairs:?}"
        );
        let won_pairs = EloEstimate::from_pentanomial(&Pentanomial([0, 0, 0, 0, 5]), Z_95);
        assert_finite(&won_pairs);
        assert!(close(won_pairs.elo, 1_320.464_106, 1e-4), "{won_pairs:?}");
    }

    #[test]
    fn no_games_and_all_draws() {
        let none = EloEstimate::from_wdl(&Wdl::default(), Z_95);
        assert_finite(&none);
        assert!(close(none.elo, 0.0, 1e-9));
        assert!(close(none.los, 0.5, 1e-9));
        // Widest reportable interval: that of a one-game sweep, Elo(1.5e-3 / 1.002).
        assert!(
            close(none.lower, elo_from_score(1.5e-3 / 1.002), 1e-9),
            "{none:?}"
        );
        assert!(close(none.upper, -none.lower, 1e-9), "{none:?}");
        let none_p = EloEstimate::from_pentanomial(&Pentanomial::default(), Z_95);
        assert_finite(&none_p);
        assert!(close(none_p.elo, 0.0, 1e-9));
        let nn = NeloEstimate::from_wdl(&Wdl::default(), Z_95);
        assert!(nn.nelo.is_finite() && nn.plus_minus.is_finite());

        let draws = EloEstimate::from_wdl(&Wdl::new(0, 10, 0), Z_95);
        assert_finite(&draws);
        assert!(close(draws.elo, 0.0, 1e-9));
        assert!(close(draws.plus_minus, 3.044_820_2, 1e-6), "{draws:?}");
        assert!(close(draws.los, 0.5, 1e-9));
    }

    #[test]
    fn property_finite_ordered_and_symmetric_on_small_samples() {
        for n in 0..=15u64 {
            for w in 0..=n {
                for d in 0..=(n - w) {
                    let wdl = Wdl::new(w, d, n - w - d);
                    let e = EloEstimate::from_wdl(&wdl, Z_95);
                    assert_finite(&e);
                    let m = EloEstimate::from_wdl(&wdl.swapped(), Z_95);
                    assert!(close(e.elo, -m.elo, 1e-6), "{wdl:?}");
                    assert!(close(e.plus_minus, m.plus_minus, 1e-6), "{wdl:?}");
                    assert!(close(e.los, 1.0 - m.los, 1e-9), "{wdl:?}");
                    let ne = NeloEstimate::from_wdl(&wdl, Z_95);
                    assert!(ne.lower <= ne.nelo && ne.nelo <= ne.upper, "{wdl:?}");
                }
            }
        }
        for i in 0..4u64.pow(5) {
            let counts: [u64; 5] = std::array::from_fn(|k| (i / 4u64.pow(k as u32)) % 4);
            let e = EloEstimate::from_pentanomial(&Pentanomial(counts), Z_95);
            assert_finite(&e);
            let ne = NeloEstimate::from_pentanomial(&Pentanomial(counts), Z_95);
            assert!(ne.nelo.is_finite() && ne.lower <= ne.nelo && ne.nelo <= ne.upper);
        }
    }

    #[test]
    fn wider_confidence_gives_wider_interval() {
        let wdl = Wdl::new(60, 30, 40);
        let e95 = EloEstimate::from_wdl(&wdl, Z_95);
        let e99 = EloEstimate::from_wdl(&wdl, crate::z_for_confidence(0.99));
        assert_eq!(e95.elo, e99.elo);
        assert!(e99.lower < e95.lower && e95.upper < e99.upper);
        // Lower bound above 0 Elo exactly when LOS exceeds 97.5 %.
        assert!(e95.lower > 0.0 && e95.los > 0.975, "{e95:?}");
    }
}
