//! The resolved plan: everything that determines a run's results, fully explicit. Below
//! both the config (which resolves into it, through the task registry) and the tasks
//! (which play it): it imports neither.

use agents::Spec;
use serde::{Deserialize, Serialize};

use crate::external::Limits;
use crate::stats::{Sprt, StatsError};

/// A named agent of a resolved plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanAgent {
    pub name: String,
    pub spec: Spec,
}

/// Everything that determines a run's results, fully explicit. Cases are kept as their
/// notation strings here; the game module parses them.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The task's registered name.
    pub game: String,
    pub cases: Vec<String>,
    pub games_per_case: u32,
    pub seed: u64,
    pub agents: Vec<PlanAgent>,
    pub sprt: Option<SprtConfig>,
    pub limits: Limits,
    /// Indices of the gauntlet agents, ascending; empty for a round robin.
    pub gauntlet: Vec<usize>,
    /// Seats per game, the task's: 2, or 1 for a puzzle.
    pub seats: u8,
}

impl Plan {
    /// Whether the task is one-seat (a puzzle): agents attempt seeds alone.
    pub fn is_solo(&self) -> bool {
        self.seats == 1
    }

    /// `n` of what this plan plays, counted: `1 game`, `8 attempts` (a puzzle run's
    /// rows are attempts at a seed).
    pub fn count(&self, n: u64) -> String {
        let unit = if self.is_solo() { "attempt" } else { "game" };
        format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
    }

    /// Agent pairings. A round robin: every `(i, j)` with `i < j`, in order. A gauntlet:
    /// each gauntlet agent `g` (as agent A) against every other agent, in order, a pairing
    /// of two gauntlet agents listed once.
    pub fn matchups(&self) -> Vec<(usize, usize)> {
        let n = self.agents.len();
        if self.is_solo() {
            // One seat: each agent alone, `(i, i)`.
            return (0..n).map(|i| (i, i)).collect();
        }
        if self.gauntlet.is_empty() {
            return (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect();
        }
        let mut out = Vec::new();
        for &g in &self.gauntlet {
            for j in 0..n {
                if j != g && !(self.gauntlet.contains(&j) && j < g) {
                    out.push((g, j));
                }
            }
        }
        out
    }

    /// Whether this is a gauntlet (else a round robin, or a two-agent match).
    pub fn is_gauntlet(&self) -> bool {
        !self.gauntlet.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtConfig {
    pub elo0: f64,
    pub elo1: f64,
    #[serde(default = "default_error_rate")]
    pub alpha: f64,
    #[serde(default = "default_error_rate")]
    pub beta: f64,
}

fn default_error_rate() -> f64 {
    0.05
}

impl SprtConfig {
    /// The test it configures.
    pub fn sprt(&self) -> Result<Sprt, StatsError> {
        Sprt::new(self.elo0, self.elo1, self.alpha, self.beta)
    }
}
