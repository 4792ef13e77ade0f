//! `pimc`: determinized (perfect-information Monte Carlo) search over the opponent's
//! hidden hand and the stock order.
//!
//! At each decision with more than one legal move:
//!
//! 1. **Inference** ([`Belief`], see `inference.rs`): the opponent's hand is constrained
//!    by the deal (no tile ranked above the starting tile was dealt), by every draw (at
//!    a draw it held no tile matching either open end; later draws add unconstrained
//!    tiles) and by every pass (same, with the stock empty). These facts follow from the
//!    rules alone (D6, D10, D11), so they hold against any opponent.
//! 2. **Sampling**: `k` worlds, each an opponent hand drawn from the unseen tiles that
//!    the belief allows, with the remaining unseen tiles shuffled into the stock.
//! 3. **Evaluation**: every candidate move is played in every world (the same worlds
//!    for all candidates, so their differences are not sampling noise) and the game is
//!    rolled out to the end with a fast policy for each side (`smart` by default: the
//!    notes measured that the rollout policy matters more than the world count). The
//!    move with the highest total score wins; ties go to the earlier legal move.
//! 4. **Empty stock**: the opponent's hand is then known exactly, so the exact solver
//!    decides (`endgame=1`, the default). Among the moves it finds optimal, the one whose
//!    rollout against the modelled opponent scores best is chosen, which keeps the
//!    chances of a fallible opponent going wrong in lost or drawn positions.
//!
//! The budget is an iteration count (`k` worlds, i.e. at most `k` rollouts per legal
//! move, and at most `nodes` solver nodes), so play is a deterministic function of the
//! seed and the calls: no clock is read. An endgame the solver cannot finish within
//! `nodes` (rare: lopsided positions with 25+ tiles in hand) is decided by rollouts. [`Pimc::last_work`] reports the rollouts of the last decision.

use arena_core::Seat;
use arena_core::dominoes::{DominoMove, DominoView, Dominoes, Tile};
use arena_core::{Agent, AgentError};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use super::endgame::endgame_of;
use super::inference::{Belief, shuffled};
use super::sim::{Policy, Sim};
use super::solver::Solver;

/// The settings of a [`Pimc`] player (spec `pimc:k=..,policy=..,opp=..,endgame=..`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PimcConfig {
    /// Worlds sampled per decision (`k`).
    pub worlds: u32,
    /// Our rollout policy (`policy`).
    pub policy: Policy,
    /// The opponent's rollout policy (`opp`).
    pub opp_policy: Policy,
    /// Solve exactly once the stock is empty (`endgame`, 1 or 0).
    pub endgame: bool,
    /// Search nodes allowed for one exact solve (`nodes`); past it the decision falls
    /// back to rollouts. Rare: only lopsided endgames with 25+ tiles in hand need more.
    pub solver_nodes: u64,
}

impl Default for PimcConfig {
    fn default() -> Self {
        PimcConfig {
            worlds: DEFAULT_WORLDS,
            policy: Policy::Smart,
            opp_policy: Policy::Smart,
            endgame: true,
            solver_nodes: DEFAULT_SOLVER_NODES,
        }
    }
}

/// Solver nodes per decision by default (about 50-100 ms at worst).
pub const DEFAULT_SOLVER_NODES: u64 = 400_000;

/// Worlds per decision by default.
pub const DEFAULT_WORLDS: u32 = 1000;

/// The PIMC player.
pub struct Pimc {
    config: PimcConfig,
    rng: ChaCha8Rng,
    solver: Solver,
    last_work: u64,
    total_work: u64,
}

impl Pimc {
    pub fn new(config: PimcConfig, seed: u64) -> Pimc {
        Pimc {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            solver: Solver::new(),
            last_work: 0,
            total_work: 0,
        }
    }

    pub fn config(&self) -> PimcConfig {
        self.config
    }

    /// Rollouts run for the last decision (at most `k` per legal move, plus one per
    /// optimal move in a solved endgame).
    pub fn last_work(&self) -> u64 {
        self.last_work
    }

    /// Rollouts run since construction.
    pub fn total_work(&self) -> u64 {
        self.total_work
    }

    /// The most rollouts one decision with `moves` legal moves may use.
    pub fn budget(&self, moves: usize) -> u64 {
        u64::from(self.config.worlds) * moves as u64
    }

    fn decide(&mut self, view: &DominoView<'_>) -> DominoMove {
        self.last_work = 0;
        let moves = view.legal_moves();
        if moves.len() == 1 {
            return moves[0];
        }
        let belief = Belief::of(view);
        let base = base_sim(view, &belief);
        if self.config.endgame
            && let Some(eg) = endgame_of(view)
            && let Some(sol) = self.solver.solve_within(&eg, self.config.solver_nodes)
        {
            let mut best = (u32::MAX, sol.best[0]);
            for &m in &sol.best {
                let mut sim = base;
                let score = self.play_out(&mut sim, view, m);
                if best.0 == u32::MAX || score > best.0 {
                    best = (score, m);
                }
            }
            return best.1;
        }
        let worlds = if belief.exact() {
            1
        } else {
            self.config.worlds.max(1)
        };
        let mut totals = vec![0u32; moves.len()];
        for _ in 0..worlds {
            let mut world = base;
            let opp = belief.sample_hand(&mut self.rng);
            world.hands[1] = opp;
            let n = shuffled(&mut self.rng, belief.unseen & !opp, &mut world.stock);
            world.stock_front = 0;
            world.stock_end = n as u8;
            for (i, &m) in moves.iter().enumerate() {
                let mut sim = world;
                totals[i] += self.play_out(&mut sim, view, m);
            }
        }
        let mut best = 0;
        for i in 1..moves.len() {
            if totals[i] > totals[best] {
                best = i;
            }
        }
        moves[best]
    }

    /// Plays `m` in `sim` (us = seat 0) and rolls out; half points for us.
    fn play_out(&mut self, sim: &mut Sim, view: &DominoView<'_>, m: DominoMove) -> u32 {
        self.last_work += 1;
        self.total_work += 1;
        match m {
            DominoMove::Place { end, index } => {
                let t: Tile = view.hand()[index as usize];
                if sim.place(t, end) {
                    return 2;
                }
            }
            DominoMove::Draw | DominoMove::Pass => {
                if let Some(res) = sim.draw_or_pass() {
                    return res.half_points(0);
                }
            }
        }
        let (res, _) = sim.rollout([self.config.policy, self.config.opp_policy]);
        res.half_points(0)
    }
}

/// The sim for a view with us as seat 0; the opponent's hand and the stock are left
/// for the caller to fill (in an exact endgame they are filled: the unseen tiles).
pub(crate) fn base_sim(view: &DominoView<'_>, belief: &Belief) -> Sim {
    let me = view.seat();
    let hand = view.hand().iter().fold(0u64, |m, t| m | t.bit());
    let all = (1u64 << arena_core::dominoes::set_size(view.case().n())) - 1;
    let idx = |s: Seat| s.index();
    Sim {
        hands: [hand, if belief.exact() { belief.unseen } else { 0 }],
        l: view.line().left(),
        r: view.line().right(),
        all,
        line: all & !belief.unseen & !hand,
        stock: [0; 45],
        stock_front: 0,
        stock_end: 0,
        to_move: 0,
        passes: u8::from(matches!(
            view.history().last(),
            Some(arena_core::dominoes::Event::Pass { .. })
        )),
        void: [belief.void[idx(me)], belief.void[idx(me.other())]],
    }
}

impl Agent<Dominoes> for Pimc {
    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        Ok(self.decide(view))
    }
}
