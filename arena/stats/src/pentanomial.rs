//! Pentanomial counts: one sample per seat-swapped game pair.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use super::StatsError;

/// Counts of pair scores `[0, ¼, ½, ¾, 1]` for agent A.
///
/// A pair is two games on the same deal or opening with the seats swapped. Its score is the
/// average of agent A's two game scores (each 0, ½ or 1), so index `i` counts pairs that scored
/// `i/4`: LL, LD, (WL or DD), WD, WW. This is fastchess's `Ptnml(0-2)` order and fishtest's
/// five-element results order. WL and DD are merged, as both tools do for statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Counts from pair scores, each 0, 0.25, 0.5, 0.75 or 1.
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidPairScore`] for any other value.
    #[cfg(test)]
    fn from_pair_scores<I: IntoIterator<Item = f64>>(scores: I) -> Result<Self, StatsError> {
        let mut p = Self::default();
        for s in scores {
            p.push_pair_score(s)?;
        }
        Ok(p)
    }

    /// Records one pair score. Values within `1e-9` of a multiple of ¼ in `[0, 1]` are accepted,
    /// so averages computed in floating point are fine.
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidPairScore`] otherwise; the counts are then unchanged.
    fn push_pair_score(&mut self, score: f64) -> Result<(), StatsError> {
        let quarters = (score * 4.0).round();
        if !(0.0..=4.0).contains(&quarters) || (score * 4.0 - quarters).abs() > 4e-9 {
            return Err(StatsError::InvalidPairScore(score));
        }
        self.0[quarters as usize] += 1;
        Ok(())
    }

    /// Records a pair from agent A's two game scores (each 0, 0.5 or 1); the pair score is
    /// their average.
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidGameScore`] if either game score is not 0, 0.5 or 1.
    pub fn push_pair(&mut self, first: f64, second: f64) -> Result<(), StatsError> {
        for g in [first, second] {
            if g != 0.0 && g != 0.5 && g != 1.0 {
                return Err(StatsError::InvalidGameScore(g));
            }
        }
        self.push_pair_score((first + second) / 2.0)
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Number of games, two per pair.
    pub fn games(&self) -> u64 {
        2 * self.pairs()
    }

    /// The raw mean pair score `Σ n_i (i/4) / M`, which equals the per-game score; ½ when there
    /// are no pairs.
    pub fn mean(&self) -> f64 {
        match self.pairs() {
            0 => 0.5,
            m => {
                let quarters: f64 = (0..5).map(|i| i as f64 * self.0[i] as f64).sum();
                quarters / 4.0 / m as f64
            }
        }
    }

    /// The raw variance of the pair score per pair, `Σ n_i (i/4 − mean)² / M`; 0 when there are
    /// no pairs. The per-game variance it implies is twice this.
    pub fn variance(&self) -> f64 {
        match self.pairs() {
            0 => 0.0,
            m => {
                let mean = self.mean();
                (0..5)
                    .map(|i| self.0[i] as f64 * (i as f64 / 4.0 - mean).powi(2))
                    .sum::<f64>()
                    / m as f64
            }
        }
    }

    /// The same pairs seen from agent B (the counts reversed).
    pub fn swapped(&self) -> Self {
        let mut c = self.0;
        c.reverse();
        Self(c)
    }
}

impl Add for Pentanomial {
    type Output = Self;

    fn add(self, rhs: Self) -> Self {
        Self(std::array::from_fn(|i| self.0[i] + rhs.0[i]))
    }
}

impl AddAssign for Pentanomial {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_from_pair_scores_and_games() {
        let p = Pentanomial::from_pair_scores([0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0]).unwrap();
        assert_eq!(p, Pentanomial([1, 1, 2, 1, 3]));
        assert_eq!(p.pairs(), 8);
        assert_eq!(p.games(), 16);

        let mut q = Pentanomial::default();
        q.push_pair(1.0, 0.0).unwrap(); // WL -> 1/2
        q.push_pair(0.5, 0.5).unwrap(); // DD -> 1/2
        q.push_pair(0.5, 1.0).unwrap(); // DW -> 3/4
        q.push_pair(0.0, 0.5).unwrap(); // LD -> 1/4
        q.push_pair(0.0, 0.0).unwrap(); // LL -> 0
        assert_eq!(q, Pentanomial([1, 1, 2, 1, 0]));
        // (0.1 + 0.2) / 2-style rounding noise is accepted.
        q.push_pair_score((0.1 + 0.2 + 0.2) / 2.0).unwrap();
        assert_eq!(q.0[1], 2);
    }

    #[test]
    fn rejects_invalid_scores() {
        let mut p = Pentanomial::default();
        assert_eq!(
            p.push_pair_score(0.3),
            Err(StatsError::InvalidPairScore(0.3))
        );
        assert!(p.push_pair_score(1.25).is_err());
        assert!(p.push_pair_score(-0.25).is_err());
        assert!(p.push_pair_score(f64::NAN).is_err());
        assert_eq!(
            p.push_pair(0.25, 0.25),
            Err(StatsError::InvalidGameScore(0.25))
        );
        assert_eq!(p, Pentanomial::default());
    }

    #[test]
    fn mean_and_variance_per_pair() {
        // fastchess PR #490 sample: Ptnml(0-2) [3, 0, 5, 0, 1], 7 points of 18 games.
        let p = Pentanomial([3, 0, 5, 0, 1]);
        assert!((p.mean() - 7.0 / 18.0).abs() < 1e-15);
        let s = 7.0 / 18.0;
        let v = (3.0 * s * s + 5.0 * (0.5 - s) * (0.5 - s) + (1.0 - s) * (1.0 - s)) / 9.0;
        assert!((p.variance() - v).abs() < 1e-15);
        assert!((p.variance() - 0.098_765_432).abs() < 1e-9);

        assert_eq!(Pentanomial::default().mean(), 0.5);
        assert_eq!(Pentanomial::default().variance(), 0.0);
        assert_eq!(Pentanomial([0, 0, 9, 0, 0]).variance(), 0.0);
        assert_eq!(Pentanomial([4, 0, 0, 0, 0]).mean(), 0.0);
        assert_eq!(Pentanomial([0, 0, 0, 0, 4]).mean(), 1.0);
        assert!((Pentanomial([2, 0, 0, 0, 2]).variance() - 0.25).abs() < 1e-15);
        assert_eq!(p.swapped(), Pentanomial([1, 0, 5, 0, 3]));
        assert_eq!(p + p, Pentanomial([6, 0, 10, 0, 2]));
    }
}
