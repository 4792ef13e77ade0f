//! A plan's setup: everything that determines a run's results except the task itself
//! (agents, cases, seed, SPRT, limits, matchups), fully explicit. Below the plan (which
//! holds its task and this), the tasks (which play it) and the external adapter (which
//! enforces its `[limits]`): it imports none of them.

use std::path::PathBuf;

use agents::Spec;
use serde::{Deserialize, Serialize};

use crate::sandbox::Layer;
use crate::stats::{Sprt, StatsError};

/// A named agent of a resolved plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanAgent {
    pub name: String,
    pub spec: Spec,
}

/// Everything of a plan but its task. Cases are kept in their canonical notation here;
/// the task parsed them when the plan was resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
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

impl Setup {
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

/// Resource limits for external agents (defaults: TCO09's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Thinking time per agent per test case, over all its games (TCO09: 100 s per 100
    /// games), measured by the arena from sending a call to receiving its reply.
    pub case_budget_ms: u64,
    /// A hard cap on any one call.
    pub call_ms: u64,
    /// Time to start and answer `init`.
    pub startup_ms: u64,
    /// Address-space limit per process (TCO09: 1024 MB).
    pub memory_mb: u64,
    /// The longest reply line, in bytes.
    pub max_line: usize,
    /// The most stderr kept per agent in the run directory, in bytes.
    pub stderr_bytes: u64,
    /// When an agent has no games left in a case (or the run stops), its process gets
    /// EOF on stdin and this long to exit before it is killed.
    pub grace_ms: u64,
    /// Start-up failures in a row (by game index) after which an agent's case is given
    /// up: the rest of its games there are forfeited without starting it, and its next
    /// case tries again. (A failed start of an agent that never started in the run stops
    /// the run instead, whatever this says: a bot that cannot start is a setup error.)
    pub start_failures: u32,
    /// Extra directories or files a confined bot may read (a model, an opening book),
    /// beside the system directories and the files its command names. Relative paths are
    /// taken from where `arena` runs; a run stores them absolute.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read_paths: Vec<PathBuf>,
    /// CPU seconds per process (RLIMIT_CPU; 0: none). A process serves one case: the
    /// default is three times TCO09's 100 s of thinking, room for start-up and threads.
    pub cpu_s: u64,
    /// The most processes and threads one bot may run at once (0: no cap): a fork bomb
    /// loses its own game.
    pub processes: u64,
    /// Let confined bots use the network (no network namespace, no Landlock TCP rules).
    /// Off by default; a run that grants it says so in run.log.
    pub network: bool,
    /// Kept so configs written for the earlier sandbox still parse: a run now always
    /// refuses to start bots without every layer, unless `sandbox_without` or `sandbox`
    /// says otherwise.
    pub require_sandbox: bool,
    /// `on` (the default: every layer, or no bot starts) or `off` (no sandbox at all;
    /// said loudly on the console and in run.log).
    pub sandbox: SandboxMode,
    /// Layers the run may go without where the host cannot apply them (`seccomp`,
    /// `memory`, `processes`, `cpu`, `freezer`); each is a warning in run.log.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sandbox_without: Vec<Layer>,
    /// Size of each of a confined bot's private tmpfs (its working folder, `/tmp`,
    /// `/dev/shm`), in MB; their pages count in `memory_mb`.
    pub disk_mb: u64,
    /// Holds every reply of an agent until this long after its call began (0: off), so
    /// an opponent's timing tells nothing of how hard its move was (`docs/protocol.md`).
    pub reply_floor_ms: u64,
}

/// Whether external agents are confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxMode {
    #[default]
    On,
    Off,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            case_budget_ms: 100_000,
            call_ms: 10_000,
            startup_ms: 10_000,
            memory_mb: 1024,
            max_line: 64,
            stderr_bytes: 1 << 20,
            grace_ms: 1000,
            start_failures: 3,
            read_paths: Vec::new(),
            cpu_s: 300,
            processes: 64,
            network: false,
            require_sandbox: false,
            sandbox: SandboxMode::On,
            sandbox_without: Vec::new(),
            disk_mb: 64,
            reply_floor_ms: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Limits;

    /// D16: TCO09 gave 100 s of thinking per 100 games of a case and 1024 MB; those are
    /// the defaults for external agents.
    #[test]
    fn d16_external_agents_default_to_tco09_limits() {
        let l = Limits::default();
        assert_eq!(l.case_budget_ms, 100_000);
        assert_eq!(l.memory_mb, 1024);
        assert!(l.call_ms <= l.case_budget_ms && l.startup_ms > 0);
    }
}
