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
//! 5. **Reading the opponent** (`opp=read`, what `pimc-read` does; see `opponent.rs`): the
//!    worlds are weighed by how well each model of the library explains the opponent's
//!    placements in them, each world's rollouts play the opponent as a model drawn by
//!    that weight, and in a solved endgame the move is the best response to the models
//!    (`response.rs`) rather than to perfect play.
//!
//! The budget is an iteration count (`k` worlds, i.e. at most `k` rollouts per legal
//! move, and at most `nodes` solver nodes), so play is a deterministic function of the
//! seed and the calls: no clock is read. An endgame the solver cannot finish within
//! `nodes` (rare: lopsided positions with 25+ tiles in hand) is decided by rollouts. [`Pimc::last_work`] reports the rollouts of the last decision.

use arena_core::dominoes::{DominoMove, DominoView, Dominoes, Tile};
use arena_core::{Agent, AgentError};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use super::endgame::endgame_of;
use super::inference::Belief;
use super::opponent::{
    Likelihood, Observation, OpponentModel, Reader, default_library, observations,
};
use super::response;
use super::sim::{Policy, Sim};
use super::solver::{Solution, Solver};
use super::worlds::{self, base_sim};

/// Who the opponent is taken to be in rollouts.
#[derive(Clone, Debug, PartialEq)]
pub enum Opponent {
    /// One fixed policy (`opp=greedy`, `opp=tc-server`, ...).
    Fixed(Policy),
    /// Read from its moves within the game against a library of models (`pimc-read`).
    Read(Vec<OpponentModel>),
}

/// The settings of a [`Pimc`] player (spec `pimc:k=..,policy=..,opp=..,endgame=..`).
#[derive(Clone, Debug, PartialEq)]
pub struct PimcConfig {
    /// Worlds sampled per decision (`k`).
    pub worlds: u32,
    /// Our rollout policy (`policy`).
    pub policy: Policy,
    /// The opponent in rollouts (`opp`).
    pub opponent: Opponent,
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
            opponent: Opponent::Fixed(Policy::Smart),
            endgame: true,
            solver_nodes: DEFAULT_SOLVER_NODES,
        }
    }
}

impl PimcConfig {
    /// `pimc-read`: the opponent read against [`default_library`].
    pub fn reading() -> PimcConfig {
        PimcConfig {
            opponent: Opponent::Read(default_library()),
            ..PimcConfig::default()
        }
    }
}

/// Solver nodes per decision by default (about 50-100 ms at worst).
pub const DEFAULT_SOLVER_NODES: u64 = 400_000;

/// Worlds sampled per decision by default.
pub const DEFAULT_WORLDS: u32 = 1000;

/// Worlds sampled to read the opponent's moves in an endgame, where the hand is known
/// but not when its tiles came.
pub const READ_WORLDS: u32 = 200;

/// The PIMC player.
pub struct Pimc {
    config: PimcConfig,
    rng: ChaCha8Rng,
    solver: Solver,
    reader: Option<Reader>,
    last_work: u64,
    total_work: u64,
}

impl Pimc {
    pub fn new(config: PimcConfig, seed: u64) -> Pimc {
        let reader = match &config.opponent {
            Opponent::Read(models) => Some(Reader::new(models.clone())),
            Opponent::Fixed(_) => None,
        };
        Pimc {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            solver: Solver::new(),
            reader,
            last_work: 0,
            total_work: 0,
        }
    }

    pub fn config(&self) -> &PimcConfig {
        &self.config
    }

    /// The posterior weight of each model of the opponent, by name, after the moves
    /// read so far in this game; `None` for a fixed opponent.
    pub fn opponent_posterior(&self) -> Option<Vec<(String, f64)>> {
        let reader = self.reader.as_ref()?;
        Some(
            reader
                .models()
                .iter()
                .map(|m| m.name.clone())
                .zip(reader.posterior())
                .collect(),
        )
    }

    /// Rollouts run for the last decision (at most `k` per legal move, plus one per
    /// optimal move and model in a solved endgame).
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

    /// `count` worlds from the belief (see [`worlds::sample`]).
    fn sample_worlds(
        &mut self,
        base: &Sim,
        belief: &Belief,
        count: u32,
        observed: &[Observation],
    ) -> (Vec<Sim>, Vec<u64>) {
        let reading = self.reader.is_some();
        worlds::sample(&mut self.rng, reading, base, belief, count, observed)
    }

    /// Each world's weight and rollout model (see [`worlds::read`]).
    fn read_opponent(
        &mut self,
        view: &DominoView<'_>,
        observed: &[Observation],
        worlds: &[Sim],
        held: &[u64],
    ) -> Vec<(f64, usize)> {
        worlds::read(
            &mut self.rng,
            self.reader.as_mut(),
            view,
            observed,
            worlds,
            held,
        )
    }

    /// The opponent's rollout policy for a world's model.
    fn opponent_policy(&self, model: usize) -> &Policy {
        match &self.config.opponent {
            Opponent::Fixed(p) => p,
            Opponent::Read(models) => &models[model].rollout,
        }
    }

    /// The move for `view`, for an analysis that may show the opponent's hand: with
    /// `opponent_hand` (a tile mask) every sampled world holds exactly that hand.
    /// Cheating; only the `oracle` analysis (`examples/dominoes_oracle.rs`) uses it.
    pub fn play_seeing(&mut self, view: &DominoView<'_>, opponent_hand: u64) -> DominoMove {
        self.decide(view, Some(opponent_hand))
    }

    fn decide(&mut self, view: &DominoView<'_>, opponent_hand: Option<u64>) -> DominoMove {
        self.last_work = 0;
        let moves = view.legal_moves();
        let reading = self.reader.is_some();
        if moves.len() == 1 {
            // Nothing to decide; the opponent's moves are read again at the next choice.
            return moves[0];
        }
        let mut belief = Belief::of(view);
        if let Some(hand) = opponent_hand {
            belief = belief.knowing(hand);
        }
        let base = base_sim(view, &belief);
        let observed = if reading {
            observations(view)
        } else {
            Vec::new()
        };
        if self.config.endgame
            && let Some(eg) = endgame_of(view)
            && let Some(sol) = self.solver.solve_within(&eg, self.config.solver_nodes)
        {
            // One world: the opponent's hand is known. Among the optimal moves, the one
            // whose rollouts against the modelled opponent score best.
            if reading {
                // The hand is known, but not which of its tiles were held at each
                // placement: sample that.
                let (worlds, held) = self.sample_worlds(&base, &belief, READ_WORLDS, &observed);
                self.read_opponent(view, &observed, &worlds, &held);
            }
            if let Some(m) = self.respond(view, &base, &sol) {
                return m;
            }
            let models = self.reader.as_ref().map_or(vec![1.0], Reader::posterior);
            let mut best = (f64::NEG_INFINITY, sol.best[0]);
            for &m in &sol.best {
                let mut score = 0.0;
                for (k, &w) in models.iter().enumerate() {
                    if w > 0.0 {
                        let mut sim = base;
                        score += w * f64::from(self.play_out(&mut sim, view, m, k));
                    }
                }
                if score > best.0 {
                    best = (score, m);
                }
            }
            return best.1;
        }
        let count = if belief.exact() && !reading {
            1
        } else {
            self.config.worlds.max(1)
        };
        let (worlds, held) = self.sample_worlds(&base, &belief, count, &observed);
        let weights = self.read_opponent(view, &observed, &worlds, &held);
        // Worlds this unlikely change no total noticeably: skip their rollouts.
        let top = weights.iter().fold(0.0f64, |a, w| a.max(w.0));
        let mut totals = vec![0.0f64; moves.len()];
        for (world, &(weight, model)) in worlds.iter().zip(&weights) {
            if weight < top * NEGLIGIBLE {
                continue;
            }
            for (i, &m) in moves.iter().enumerate() {
                let mut sim = *world;
                totals[i] += weight * f64::from(self.play_out(&mut sim, view, m, model));
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

    /// A reading player's endgame move: the best response to the opponent's models,
    /// each weighed by its posterior, the catch-all and `random` counting as perfect
    /// play (the solver's values); ties go to the better value under perfect play, then the
    /// earlier move. `None` for a fixed opponent, or when a search runs out of nodes.
    fn respond(&self, view: &DominoView<'_>, base: &Sim, sol: &Solution) -> Option<DominoMove> {
        let reader = self.reader.as_ref()?;
        let posterior = reader.posterior();
        let mut scores: Vec<f64> = sol.move_values.iter().map(|_| 0.0).collect();
        for (model, &w) in reader.models().iter().zip(&posterior) {
            if w < MODEL_WEIGHT_FLOOR {
                continue;
            }
            let mut nodes = RESPONSE_NODES;
            for (score, (&m, &perfect)) in scores
                .iter_mut()
                .zip(sol.moves.iter().zip(&sol.move_values))
            {
                let v = match &model.likelihood {
                    Likelihood::Exact(policy) => {
                        let placement = match m {
                            DominoMove::Place { end, index } => {
                                Some((view.hand()[index as usize], end))
                            }
                            DominoMove::Draw | DominoMove::Pass => None,
                        };
                        f64::from(response::value_after(base, placement, policy, &mut nodes)?) / 2.0
                    }
                    Likelihood::SoftSmart(_) | Likelihood::Uniform => perfect,
                };
                *score += w * v;
            }
        }
        let mut best = 0;
        for i in 1..scores.len() {
            if (scores[i], sol.move_values[i]) > (scores[best], sol.move_values[best]) {
                best = i;
            }
        }
        sol.moves.get(best).copied()
    }

    /// Plays `m` in `sim` (us = seat 0) and rolls out with the opponent as `model`;
    /// half points for us.
    fn play_out(
        &mut self,
        sim: &mut Sim,
        view: &DominoView<'_>,
        m: DominoMove,
        model: usize,
    ) -> u32 {
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
        let (res, _) = sim.rollout([&self.config.policy, self.opponent_policy(model)]);
        res.half_points(0)
    }
}

/// Models below this posterior weight are left out of the endgame response.
pub const MODEL_WEIGHT_FLOOR: f64 = 0.01;

/// Search nodes for the endgame response to one model.
pub const RESPONSE_NODES: u64 = 200_000;

/// A world weighing less than this fraction of the heaviest is not rolled out.
pub const NEGLIGIBLE: f64 = 1e-3;

impl Agent<Dominoes> for Pimc {
    fn reset(&mut self, _start: &DominoView<'_>) -> Result<(), AgentError> {
        if let Some(r) = self.reader.as_mut() {
            r.reset();
        }
        Ok(())
    }

    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        Ok(self.decide(view, None))
    }
}
