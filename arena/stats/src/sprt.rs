//! The generalized sequential probability ratio test (GSPRT) on the logistic Elo model.
//!
//! Hypotheses are on the expected score `s` of agent A: H0 `s = L(elo0)` against H1
//! `s = L(elo1)`, with the logistic curve `L(x) = 1/(1 + 10^(−x/400))`. This is the "logistic"
//! model of fishtest `LLRcalc.LLR_logistic` and fastchess `--sprt model=logistic`. It is not the
//! BayesElo model of cutechess (whose Elo units differ) and not the normalized-Elo model.

use serde::{Deserialize, Serialize};

use super::{Pentanomial, Regularised, StatsError, Wdl, score_from_elo};

/// Parameters of a GSPRT between two logistic Elo differences.
///
/// `elo0 < elo1` are logistic Elo (not BayesElo, not normalized Elo); `alpha` is the type I
/// error (accepting H1 when H0 holds), `beta` the type II error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Logistic Elo under H0.
    pub elo0: f64,
    /// Logistic Elo under H1.
    pub elo1: f64,
    /// Type I error bound, in `(0, 1)`.
    pub alpha: f64,
    /// Type II error bound, in `(0, 1)`.
    pub beta: f64,
}

/// The outcome of an SPRT once the LLR leaves the continuation region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SprtDecision {
    /// `LLR ≤ lower bound`: stop and accept H0 (`elo = elo0`).
    AcceptH0,
    /// `LLR ≥ upper bound`: stop and accept H1 (`elo = elo1`).
    AcceptH1,
}

impl Sprt {
    /// Checked constructor.
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidSprt`] unless all values are finite, `elo0 < elo1`, both map to
    /// scores strictly inside `(0, 1)`, `0 < alpha < 1`, `0 < beta < 1` and `alpha + beta < 1`.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, StatsError> {
        let sprt = Self {
            elo0,
            elo1,
            alpha,
            beta,
        };
        sprt.validate()?;
        Ok(sprt)
    }

    /// Checks the conditions listed under [`Sprt::new`] (useful after deserialising).
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidSprt`] naming the first violated condition.
    fn validate(&self) -> Result<(), StatsError> {
        let err = |msg| Err(StatsError::InvalidSprt(msg));
        if ![self.elo0, self.elo1, self.alpha, self.beta]
            .iter()
            .all(|x| x.is_finite())
        {
            return err("all parameters must be finite");
        }
        if self.elo0 >= self.elo1 {
            return err("elo0 must be less than elo1");
        }
        let (s0, s1) = (score_from_elo(self.elo0), score_from_elo(self.elo1));
        if !(s0 > 0.0 && s1 < 1.0) {
            return err("elo0 and elo1 must map to scores strictly between 0 and 1");
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return err("alpha must be in (0, 1)");
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return err("beta must be in (0, 1)");
        }
        if self.alpha + self.beta >= 1.0 {
            return err("alpha + beta must be less than 1");
        }
        Ok(())
    }

    /// Wald's stopping bounds `(lower, upper) = (ln(β/(1−α)), ln((1−β)/α))`.
    /// `α = β = 0.05` gives `(−2.944, 2.944)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The hypothesised expected scores `(L(elo0), L(elo1))`.
    pub fn scores(&self) -> (f64, f64) {
        (score_from_elo(self.elo0), score_from_elo(self.elo1))
    }

    /// The GSPRT log-likelihood ratio of single-game counts (trinomial model), with the exact
    /// constrained MLE: [`llr_exact`] on `[L, D, W]`.
    pub fn llr_trinomial(&self, wdl: &Wdl) -> f64 {
        let (s0, s1) = self.scores();
        llr_exact(wdl.as_ldw(), s0, s1)
    }

    /// The GSPRT log-likelihood ratio of pair counts (pentanomial model), with the exact
    /// constrained MLE: [`llr_exact`] on the five pair counts. `N` is the number of pairs.
    pub fn llr_pentanomial(&self, pentanomial: &Pentanomial) -> f64 {
        let (s0, s1) = self.scores();
        llr_exact(pentanomial.0, s0, s1)
    }

    /// The normal approximation [`llr_approx`] on single-game counts, for comparison.
    #[cfg(test)]
    fn llr_approx_trinomial(&self, wdl: &Wdl) -> f64 {
        let (s0, s1) = self.scores();
        llr_approx(wdl.as_ldw(), s0, s1)
    }

    /// The normal approximation [`llr_approx`] on pair counts, for comparison.
    #[cfg(test)]
    fn llr_approx_pentanomial(&self, pentanomial: &Pentanomial) -> f64 {
        let (s0, s1) = self.scores();
        llr_approx(pentanomial.0, s0, s1)
    }

    /// `Some(AcceptH1)` if `llr ≥ upper`, `Some(AcceptH0)` if `llr ≤ lower`, otherwise `None`
    /// (keep playing). A NaN `llr` gives `None`.
    pub fn decision(&self, llr: f64) -> Option<SprtDecision> {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Some(SprtDecision::AcceptH1)
        } else if llr <= lower {
            Some(SprtDecision::AcceptH0)
        } else {
            None
        }
    }
}

/// The generalized log-likelihood ratio for expected score `s1` against `s0`, with exact
/// constrained maximum-likelihood estimates (fishtest `LLRcalc.LLR_logistic`, fastchess
/// `getLLR_logistic`; Van den Bergh, "Comments on normalized Elo", Proposition 1.1).
///
/// `counts[i]` is the number of samples that scored `a_i = i/(K−1)`: `[L, D, W]` for games,
/// the five pair counts for pairs. Zero counts are replaced by `1e-3`, giving frequencies `p̂_i`
/// and a regularised total `N`. For each `s`, the multinomial MLE with expectation `s` is
/// `p_i = p̂_i/(1 + θ(a_i − s))`, where `θ` is the unique root of
/// `Σ p̂_i (a_i − s)/(1 + θ(a_i − s)) = 0` on `(−1/(a_max − s), −1/(a_min − s))`, found here by
/// bisection to full floating-point precision. Then `LLR = N · Σ p̂_i ln(p1_i/p0_i)`.
///
/// Returns NaN unless `0 < s0 < 1` and `0 < s1 < 1`.
pub fn llr_exact<const K: usize>(counts: [u64; K], s0: f64, s1: f64) -> f64 {
    if !(s0 > 0.0 && s0 < 1.0 && s1 > 0.0 && s1 < 1.0) {
        return f64::NAN;
    }
    let d = Regularised::new(counts);
    let p0 = constrained_mle(&d, s0);
    let p1 = constrained_mle(&d, s1);
    let per_sample: f64 = (0..K).map(|i| d.probs[i] * (p1[i].ln() - p0[i].ln())).sum();
    d.total * per_sample
}

/// The normal (Brownian) approximation of the GSPRT log-likelihood ratio,
/// `LLR ≈ N · (s1 − s0)(2ŝ − s0 − s1)/(2σ̂²)` (fishtest `LLRcalc.LLR_alt2`; Van den Bergh,
/// "A simple approximation of the GSPRT"), on the same regularised distribution as
/// [`llr_exact`]: `ŝ` and `σ̂²` are its mean and variance per sample, `N` its total.
///
/// Close to [`llr_exact`] when `s0` and `s1` are close and the sample is large; far off for
/// lopsided small samples. Returns NaN unless `0 < s0 < 1` and `0 < s1 < 1`.
pub fn llr_approx<const K: usize>(counts: [u64; K], s0: f64, s1: f64) -> f64 {
    if !(s0 > 0.0 && s0 < 1.0 && s1 > 0.0 && s1 < 1.0) {
        return f64::NAN;
    }
    let d = Regularised::new(counts);
    d.total * (s1 - s0) * (2.0 * d.mean() - s0 - s1) / (2.0 * d.variance())
}

/// The maximum-likelihood distribution on the outcomes `i/(K−1)` with expectation `s`, given
/// the (regularised, all positive) empirical frequencies of `d`. Requires `0 < s < 1`.
fn constrained_mle<const K: usize>(d: &Regularised<K>, s: f64) -> [f64; K] {
    let dev: [f64; K] = std::array::from_fn(|i| Regularised::<K>::outcome(i) - s);
    // f(θ) = Σ p̂_i dev_i / (1 + θ dev_i) is strictly decreasing on the open interval, tends to
    // +∞ at the left end (a_max term) and to −∞ at the right end (a_min term).
    let f = |theta: f64| -> f64 {
        let mut sum = 0.0;
        for (p, dv) in d.probs.iter().zip(&dev) {
            let denom = 1.0 + theta * dv;
            if denom <= 0.0 {
                // Rounded onto or past a pole: report the sign of the limit there.
                return if *dv > 0.0 {
                    f64::INFINITY
                } else {
                    f64::NEG_INFINITY
                };
            }
            sum += p * dv / denom;
        }
        sum
    };
    let mut lo = -1.0 / (1.0 - s); // −1/(a_max − s)
    let mut hi = 1.0 / s; // −1/(a_min − s)
    let mut theta = 0.0;
    for _ in 0..2000 {
        theta = lo + (hi - lo) / 2.0;
        if theta <= lo || theta >= hi {
            break;
        }
        let value = f(theta);
        if value > 0.0 {
            lo = theta;
        } else if value < 0.0 {
            hi = theta;
        } else {
            break;
        }
    }
    std::array::from_fn(|i| d.probs[i] / (1.0 + theta * dev[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    const VECTOR: Wdl = Wdl::new(4307, 8620, 4063);

    #[test]
    fn bounds_match_wald() {
        let s = Sprt::new(0.0, 3.0, 0.05, 0.05).unwrap();
        let (lo, hi) = s.bounds();
        assert!(close(lo, -2.944_438_979, 1e-8) && close(hi, 2.944_438_979, 1e-8));
        let s = Sprt::new(0.0, 5.0, 0.05, 0.1).unwrap();
        let (lo, hi) = s.bounds();
        assert!(close(lo, -2.251_291_799, 1e-8), "{lo}");
        assert!(close(hi, 2.890_371_758, 1e-8), "{hi}");
    }

    #[test]
    fn property_bounds_are_ordered() {
        for a in 1..20 {
            for b in 1..20 {
                let (alpha, beta) = (a as f64 * 0.02, b as f64 * 0.02);
                let Ok(s) = Sprt::new(-1.0, 1.0, alpha, beta) else {
                    assert!(alpha + beta >= 1.0 - 1e-12);
                    continue;
                };
                let (lo, hi) = s.bounds();
                assert!(lo < 0.0 && 0.0 < hi, "alpha {alpha} beta {beta}");
                assert_eq!(s.decision(0.0), None);
                assert_eq!(s.decision(hi), Some(SprtDecision::AcceptH1));
                assert_eq!(s.decision(lo), Some(SprtDecision::AcceptH0));
            }
        }
    }

    #[test]
    fn trinomial_published_vector() {
        // W=4307, L=4063, D=8620, elo0=0, elo1=3, logistic: 2.991 exact, 2.992 approximated.
        let s = Sprt::new(0.0, 3.0, 0.05, 0.05).unwrap();
        let exact = s.llr_trinomial(&VECTOR);
        let approx = s.llr_approx_trinomial(&VECTOR);
        assert!(close(exact, 2.991, 5e-4), "{exact}");
        assert!(close(approx, 2.992, 5e-4), "{approx}");
        assert!(close(exact, 2.991_288_808, 1e-6), "{exact}");
        assert!(close(approx, 2.992_212_839, 1e-6), "{approx}");
        // 2.991 is past the upper bound 2.944.
        assert_eq!(s.decision(exact), Some(SprtDecision::AcceptH1));
        // With beta = 0.02 the upper bound stays ln(0.98/0.05) = 2.976 < 2.991: still H1.
        let tighter = Sprt::new(0.0, 3.0, 0.05, 0.02).unwrap();
        assert_eq!(tighter.decision(exact), Some(SprtDecision::AcceptH1));
        // With alpha = 0.04 it is ln(0.95/0.04) = 3.168: keep playing.
        let stricter = Sprt::new(0.0, 3.0, 0.04, 0.05).unwrap();
        assert_eq!(stricter.decision(exact), None);
    }

    #[test]
    fn pentanomial_llr() {
        // Cross-checked with an independent bisection of fishtest's formulas (LLR_logistic and
        // LLR_alt2 on the regularised pdf).
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let p = Pentanomial([1000, 5000, 12000, 5300, 1100]);
        assert!(close(s.llr_pentanomial(&p), 5.591_714_44, 1e-6));
        assert!(close(s.llr_approx_pentanomial(&p), 5.593_947_13, 1e-6));
        assert_eq!(
            s.decision(s.llr_pentanomial(&p)),
            Some(SprtDecision::AcceptH1)
        );
        let small = Pentanomial([100, 500, 1200, 520, 110]);
        assert!(close(s.llr_pentanomial(&small), 0.189_249_22, 1e-7));
        // Zero counts at LD and WD (fastchess PR #490 sample), wide hypotheses.
        let fc = Sprt::new(-10.0, 10.0, 0.05, 0.05).unwrap();
        let sample = Pentanomial([3, 0, 5, 0, 1]);
        assert!(close(fc.llr_pentanomial(&sample), -0.258_838_125, 1e-7));
        assert!(close(
            fc.llr_approx_pentanomial(&sample),
            -0.291_356_158,
            1e-7
        ));
    }

    #[test]
    fn constrained_mle_is_a_distribution_with_the_requested_mean() {
        for counts in [
            [4063, 8620, 4307],
            [0, 0, 10],
            [10, 0, 0],
            [0, 10, 0],
            [0, 0, 0],
        ] {
            let d = Regularised::new(counts);
            for s in [0.01, 0.3, 0.5, 0.504_317_239_755, 0.99] {
                let p = constrained_mle(&d, s);
                assert!(
                    p.iter().all(|&x| x > 0.0 && x.is_finite()),
                    "{counts:?} {s} {p:?}"
                );
                assert!(
                    close(p.iter().sum::<f64>(), 1.0, 1e-9),
                    "{counts:?} {s} {p:?}"
                );
                let mean: f64 = p.iter().enumerate().map(|(i, x)| x * i as f64 / 2.0).sum();
                assert!(close(mean, s, 1e-9), "{counts:?} {s} {p:?}");
            }
        }
        // At s = ŝ the MLE is the empirical distribution itself (θ = 0).
        let d = Regularised::new([4063, 8620, 4307]);
        let p = constrained_mle(&d, d.mean());
        for (mle, empirical) in p.iter().zip(&d.probs) {
            assert!(close(*mle, *empirical, 1e-12));
        }
    }

    #[test]
    fn extremes_are_finite() {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let cases = [
            (Wdl::new(0, 0, 10), -0.144_947_264),
            (Wdl::new(10, 0, 0), 0.142_875_867),
            (Wdl::new(0, 10, 0), -0.139_681_997),
            (Wdl::default(), -4.659_59e-7),
        ];
        for (wdl, want) in cases {
            let llr = s.llr_trinomial(&wdl);
            assert!(llr.is_finite() && close(llr, want, 1e-8), "{wdl:?}: {llr}");
            assert!(s.llr_approx_trinomial(&wdl).is_finite());
        }
        // The approximation is far off for a 0/10 sweep; the exact LLR is not.
        assert!(close(
            s.llr_approx_trinomial(&Wdl::new(0, 0, 10)),
            -289.955_821,
            1e-5
        ));
        for p in [
            Pentanomial([5, 0, 0, 0, 0]),
            Pentanomial([0, 0, 0, 0, 5]),
            Pentanomial::default(),
        ] {
            assert!(s.llr_pentanomial(&p).is_finite(), "{p:?}");
            assert!(s.llr_approx_pentanomial(&p).is_finite(), "{p:?}");
        }
        assert!(close(
            s.llr_pentanomial(&Pentanomial([5, 0, 0, 0, 0])),
            -0.072_502_702,
            1e-8
        ));
        // Out-of-range hypotheses are rejected rather than silently wrong.
        assert!(llr_exact([1, 1, 1], 0.0, 0.5).is_nan());
        assert!(llr_approx([1, 1, 1], 0.5, 1.0).is_nan());
        assert_eq!(s.decision(f64::NAN), None);
    }

    #[test]
    fn property_sign_and_mirror_symmetry() {
        let (s0, s1) = (score_from_elo(-20.0), score_from_elo(20.0));
        for n in 1..=14u64 {
            for w in 0..=n {
                for d in 0..=(n - w) {
                    let wdl = Wdl::new(w, d, n - w - d);
                    let llr = llr_exact(wdl.as_ldw(), s0, s1);
                    assert!(llr.is_finite());
                    // The generalized LLR favours the hypothesis nearer the (regularised) data.
                    let mean = Regularised::new(wdl.as_ldw()).mean();
                    if mean >= s1 {
                        assert!(llr > 0.0, "{wdl:?} {llr}");
                    }
                    if mean <= s0 {
                        assert!(llr < 0.0, "{wdl:?} {llr}");
                    }
                    // Seeing the games from B's side mirrors the scores: a -> 1 - a, s -> 1 - s.
                    let mirrored = llr_exact(wdl.swapped().as_ldw(), 1.0 - s0, 1.0 - s1);
                    assert!(close(llr, mirrored, 1e-9), "{wdl:?} {llr} {mirrored}");
                }
            }
        }
    }

    #[test]
    fn exact_and_approx_agree_on_large_balanced_samples() {
        let s = Sprt::new(0.0, 2.0, 0.05, 0.05).unwrap();
        for (w, d, l) in [
            (30_000, 40_000, 29_500),
            (25_000, 50_000, 25_000),
            (10_000, 80_000, 10_300),
        ] {
            let wdl = Wdl::new(w, d, l);
            let (e, a) = (s.llr_trinomial(&wdl), s.llr_approx_trinomial(&wdl));
            assert!(close(e, a, 0.01 * e.abs().max(1.0)), "{wdl:?}: {e} vs {a}");
        }
        assert!(s.llr_trinomial(&Wdl::new(30_000, 40_000, 29_500)) > 0.0);
        assert!(s.llr_trinomial(&Wdl::new(25_000, 50_000, 25_000)) < 0.0);
    }

    #[test]
    fn validation_rejects_bad_parameters() {
        assert!(Sprt::new(0.0, 3.0, 0.05, 0.05).is_ok());
        for (e0, e1, a, b) in [
            (3.0, 0.0, 0.05, 0.05),
            (0.0, 0.0, 0.05, 0.05),
            (0.0, 3.0, 0.0, 0.05),
            (0.0, 3.0, 0.05, 1.0),
            (0.0, 3.0, 0.6, 0.5),
            (0.0, f64::NAN, 0.05, 0.05),
            (0.0, 1e6, 0.05, 0.05),
        ] {
            assert!(
                matches!(Sprt::new(e0, e1, a, b), Err(StatsError::InvalidSprt(_))),
                "{e0} {e1} {a} {b}"
            );
        }
    }
}
