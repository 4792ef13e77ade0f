//! Single-game (trinomial) win/draw/loss counts.

use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use super::StatsError;

/// Win/draw/loss counts of agent A over single games.
///
/// Each game scores 1 (win), ½ (draw) or 0 (loss) for agent A.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wdl {
    /// Games agent A won.
    pub wins: u64,
    /// Drawn (tied) games.
    pub draws: u64,
    /// Games agent A lost.
    pub losses: u64,
}

impl Wdl {
    /// Counts from wins, draws and losses.
    pub const fn new(wins: u64, draws: u64, losses: u64) -> Self {
        Self {
            wins,
            draws,
            losses,
        }
    }

    /// Counts from agent A's game scores, each 0, 0.5 or 1.
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidGameScore`] for any other value.
    #[cfg(test)]
    fn from_game_scores<I: IntoIterator<Item = f64>>(scores: I) -> Result<Self, StatsError> {
        let mut wdl = Self::default();
        for s in scores {
            wdl.push_game_score(s)?;
        }
        Ok(wdl)
    }

    /// Records one game score (0, 0.5 or 1).
    ///
    /// # Errors
    ///
    /// [`StatsError::InvalidGameScore`] for any other value; the counts are then unchanged.
    pub fn push_game_score(&mut self, score: f64) -> Result<(), StatsError> {
        if score == 1.0 {
            self.wins += 1;
        } else if score == 0.5 {
            self.draws += 1;
        } else if score == 0.0 {
            self.losses += 1;
        } else {
            return Err(StatsError::InvalidGameScore(score));
        }
        Ok(())
    }

    /// Number of games, `N = W + D + L`.
    pub const fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points of agent A, `W + D/2`.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The raw score `(W + D/2)/N`, in `[0, 1]`; ½ when there are no games.
    ///
    /// This is the unregularised score; [`EloEstimate`](super::EloEstimate) works on the
    /// regularised one (see the module docs).
    pub fn score(&self) -> f64 {
        match self.games() {
            0 => 0.5,
            n => self.points() / n as f64,
        }
    }

    /// The raw per-game variance `(W + D/4)/N − s²` (population variance of the game scores);
    /// 0 when there are no games.
    pub fn variance(&self) -> f64 {
        match self.games() {
            0 => 0.0,
            n => {
                let s = self.score();
                ((self.wins as f64 + 0.25 * self.draws as f64) / n as f64 - s * s).max(0.0)
            }
        }
    }

    /// The counts ordered by outcome score, `[losses, draws, wins]` (scores 0, ½, 1), as
    /// fishtest's `LLRcalc` and [`llr_exact`](super::llr_exact) expect them.
    pub const fn as_ldw(&self) -> [u64; 3] {
        [self.losses, self.draws, self.wins]
    }

    /// The same games seen from agent B: wins and losses swapped.
    pub const fn swapped(&self) -> Self {
        Self::new(self.losses, self.draws, self.wins)
    }
}

impl Add for Wdl {
    type Output = Self;

    fn add(self, rhs: Self) -> Self {
        Self::new(
            self.wins + rhs.wins,
            self.draws + rhs.draws,
            self.losses + rhs.losses,
        )
    }
}

impl AddAssign for Wdl {
    fn add_assign(&mut self, rhs: Self) {
        *self = *self + rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_and_variance_of_the_published_vector() {
        let wdl = Wdl::new(4307, 8620, 4063);
        assert_eq!(wdl.games(), 16990);
        assert!((wdl.points() - 8617.0).abs() < 1e-12);
        assert!((wdl.score() - 0.507_180_694_5).abs() < 1e-9);
        // Σ p (a − s)², computed independently.
        assert!((wdl.variance() - 0.123_109_120_4).abs() < 1e-9);
    }

    #[test]
    fn score_edges() {
        assert_eq!(Wdl::new(0, 0, 10).score(), 0.0);
        assert_eq!(Wdl::new(10, 0, 0).score(), 1.0);
        assert_eq!(Wdl::new(0, 10, 0).score(), 0.5);
        assert_eq!(Wdl::default().score(), 0.5);
        assert_eq!(Wdl::default().variance(), 0.0);
        assert_eq!(Wdl::new(0, 10, 0).variance(), 0.0);
        assert!((Wdl::new(5, 0, 5).variance() - 0.25).abs() < 1e-15);
    }

    #[test]
    fn from_game_scores_counts_and_rejects() {
        let wdl = Wdl::from_game_scores([1.0, 0.5, 0.0, 1.0, 0.5, 1.0]).unwrap();
        assert_eq!(wdl, Wdl::new(3, 2, 1));
        assert_eq!(wdl.as_ldw(), [1, 2, 3]);
        assert_eq!(wdl.swapped(), Wdl::new(1, 2, 3));
        assert_eq!(
            Wdl::from_game_scores([1.0, 0.3]),
            Err(StatsError::InvalidGameScore(0.3))
        );
        let mut w = Wdl::new(1, 1, 1);
        assert!(w.push_game_score(f64::NAN).is_err());
        assert_eq!(w, Wdl::new(1, 1, 1));
        w += Wdl::new(1, 2, 3);
        assert_eq!(w, Wdl::new(2, 3, 4));
    }
}
