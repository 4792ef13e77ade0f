//! `expecti`: expectiminimax over what we know (a belief state), not over guessed worlds.
//!
//! A node of the search is what *we* know: our hand, the unseen tiles (the opponent's
//! hand and the stock together), the opponent's hand size, the open ends, and for every
//! unseen tile the probability that the opponent holds it (its marginal). Our own
//! moves are chosen once for the whole node, so the search never assumes that we see
//! the opponent's hand (no strategy fusion on our side). The imadtg/domino-ai engine
//! is of this family; this one differs in its weights and its endgame:
//!
//! - **Belief weights.** At the root the marginals are the frequencies of each tile in
//!   hands sampled from the [`Belief`] (the record's constraints: deal, draws, passes),
//!   each sample weighed, when reading (`read=1`, the default), by how well the
//!   opponent's models explain its placements in it ([`super::opponent`]).
//! - **Opponent nodes** ([`Expecti::opponent`]): each unseen tile that fits is a
//!   candidate; the opponent is taken to play the candidate worst for us among those it
//!   holds, holding each with its marginal, independently: the candidates sorted from
//!   worst for us, candidate `i` is played with chance `p_i * prod_{j<i} (1 - p_j)`.
//!   What is left is the chance that nothing fits.
//! - **Chance nodes for draws and passes.** Nothing fitting with tiles in the stock, the
//!   opponent draws until a tile fits: each fitting tile (all of them in the stock now)
//!   is equally likely to come first, after the expected number of draws (a
//!   hypergeometric mean, rounded); with none in the stock it draws the stock and
//!   passes. Our own draw is a chance node over the stock's tiles.
//! - **Empty stock.** The opponent then holds exactly the unseen tiles: the exact
//!   solver ([`Solver`]) values the node, inside the tree as at the root.
//! - **Leaves.** At depth 0, `rollouts` games played out by `smart` for both sides in
//!   hands drawn from the node's marginals.
//!
//! After an opponent placement or draw the marginals are rescaled so they sum to its
//! hand size again (tiles shown not to be held get 0). Everything is fixed in size
//! (`depth` plies, `worlds` root samples, `rollouts` per leaf, `nodes` per exact solve)
//! and the generator is seeded, so play is a deterministic function of the seed.

use arena_core::dominoes::{DominoMove, DominoView, Dominoes, End, PIP_MASKS, Tile};
use arena_core::{Agent, AgentError};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::endgame::endgame_of;
use super::inference::{Belief, shuffled};
use super::opponent::{Observation, Reader, default_library, observations};
use super::sim::{Policy, Sim, after};
use super::solver::Solver;
use super::worlds;
use super::worlds::base_sim;

/// The settings of an [`Expecti`] player (spec `expecti:depth=..,rollouts=..,..`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectiConfig {
    /// Plies searched (placements and our draws; the opponent's draws ride along with
    /// the placement that ends them).
    pub depth: u32,
    /// Rollouts per leaf.
    pub rollouts: u32,
    /// Hands sampled at the root to estimate the marginals.
    pub worlds: u32,
    /// Weigh the root samples by reading the opponent's placements.
    pub read: bool,
    /// Search nodes for one exact solve; past it the node is valued by rollouts.
    pub solver_nodes: u64,
}

impl Default for ExpectiConfig {
    fn default() -> Self {
        ExpectiConfig {
            depth: 3,
            rollouts: 8,
            worlds: 400,
            read: true,
            solver_nodes: 100_000,
        }
    }
}

/// The information a search node holds, from our side (seat 0 of the sims).
#[derive(Clone, Copy, Debug)]
struct Node {
    me: u64,
    /// The opponent's hand and the stock.
    unseen: u64,
    /// Chance that the opponent holds each tile (0 outside `unseen`).
    p: [f32; 45],
    opp_len: u32,
    stock: u32,
    l: u8,
    r: u8,
    /// 1 if the previous turn was a pass.
    passes: u8,
    line: u64,
    all: u64,
    void: [u16; 2],
}

impl Node {
    /// Rescales the marginals of the tiles in `tiles` so that all marginals sum to the
    /// opponent's hand size (each at most 1).
    fn rescale(&mut self, tiles: u64) {
        let fixed: f32 = bits(self.unseen & !tiles).map(|i| self.p[i]).sum();
        let free: f32 = bits(tiles).map(|i| self.p[i]).sum();
        let target = self.opp_len as f32 - fixed;
        if free > 0.0 && target > 0.0 {
            let k = target / free;
            for i in bits(tiles) {
                self.p[i] = (self.p[i] * k).min(1.0);
            }
        }
    }

    /// The node after tile `t` left the unseen tiles into the line at `end`.
    fn opponent_placed(&self, t: Tile, end: End) -> Node {
        let mut n = *self;
        n.unseen &= !t.bit();
        n.p[t.index() as usize] = 0.0;
        n.opp_len -= 1;
        n.line |= t.bit();
        (n.l, n.r) = after(t, end, n.l, n.r);
        n.passes = 0;
        n.rescale(n.unseen);
        n
    }
}

/// The indices of the set bits of `mask`.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

fn ends_mask(l: u8, r: u8) -> u64 {
    PIP_MASKS[l as usize] | PIP_MASKS[r as usize]
}

/// Every placement of a tile of `hand` on `(l, r)`; a tile matching two equal ends is
/// offered once (left).
fn placements(hand: u64, l: u8, r: u8) -> impl Iterator<Item = (Tile, End)> {
    bits(hand & ends_mask(l, r)).flat_map(move |i| {
        let t = Tile::from_index(i as u8);
        let left = t.has(l).then_some((t, End::Left));
        let right = (t.has(r) && l != r).then_some((t, End::Right));
        left.into_iter().chain(right)
    })
}

/// Marginals below this are treated as "not held".
const NEGLIGIBLE: f32 = 1e-4;

/// The expectiminimax player.
pub struct Expecti {
    config: ExpectiConfig,
    rng: ChaCha8Rng,
    solver: Solver,
    reader: Option<Reader>,
    /// Rollouts and exact solves of the last decision.
    last_work: u64,
}

impl Expecti {
    pub fn new(config: ExpectiConfig, seed: u64) -> Expecti {
        let reader = config.read.then(|| Reader::new(default_library()));
        Expecti {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            solver: Solver::new(),
            reader,
            last_work: 0,
        }
    }

    pub fn config(&self) -> &ExpectiConfig {
        &self.config
    }

    /// Leaf rollouts and exact solves of the last decision.
    pub fn last_work(&self) -> u64 {
        self.last_work
    }

    /// The chance that the opponent holds each tile (index by tile index; 0 for the
    /// tiles we can see), as the search's root uses it.
    pub fn marginals(&mut self, view: &DominoView<'_>) -> Vec<f64> {
        let belief = Belief::of(view);
        let base = base_sim(view, &belief);
        self.root(view, &belief, &base)
            .p
            .iter()
            .map(|&x| f64::from(x))
            .collect()
    }

    /// The root node: the marginals from `worlds` samples of the belief, weighed by the
    /// reading when reading.
    fn root(&mut self, view: &DominoView<'_>, belief: &Belief, base: &Sim) -> Node {
        let opp_len = belief.opponent_len();
        let mut p = [0f32; 45];
        if belief.exact() {
            for i in bits(belief.unseen) {
                p[i] = 1.0;
            }
        } else {
            let observed: Vec<Observation> = if self.reader.is_some() {
                observations(view)
            } else {
                Vec::new()
            };
            let reading = self.reader.is_some();
            let (sampled, held) = worlds::sample(
                &mut self.rng,
                reading,
                base,
                belief,
                self.config.worlds.max(1),
                &observed,
            );
            let weights = worlds::read(
                &mut self.rng,
                self.reader.as_mut(),
                view,
                &observed,
                &sampled,
                &held,
            );
            let mut sum = [0f64; 45];
            let mut total = 0.0;
            for (w, &(weight, _)) in sampled.iter().zip(&weights) {
                total += weight;
                for i in bits(w.hands[1]) {
                    sum[i] += weight;
                }
            }
            if total > 0.0 {
                for i in bits(belief.unseen) {
                    p[i] = (sum[i] / total) as f32;
                }
            }
        }
        Node {
            me: base.hands[0],
            unseen: belief.unseen,
            p,
            opp_len,
            stock: belief.stock as u32,
            l: base.l,
            r: base.r,
            passes: base.passes,
            line: base.line,
            all: base.all,
            void: base.void,
        }
    }

    /// The move for `view`.
    pub fn decide(&mut self, view: &DominoView<'_>) -> DominoMove {
        self.last_work = 0;
        let moves = view.legal_moves();
        if moves.len() == 1 {
            return moves[0];
        }
        if let Some(m) = self.decide_endgame(view) {
            return m;
        }
        let values = self.move_values(view, &moves);
        let mut best = 0;
        for i in 1..moves.len() {
            if values[i] > values[best] {
                best = i;
            }
        }
        moves[best]
    }

    /// The searched value for us (0 loss .. 1 win) of each of `moves`, legal in `view`.
    fn move_values(&mut self, view: &DominoView<'_>, moves: &[DominoMove]) -> Vec<f64> {
        let belief = Belief::of(view);
        let base = base_sim(view, &belief);
        let root = self.root(view, &belief, &base);
        let depth = self.config.depth.max(1);
        moves
            .iter()
            .map(|&m| match m {
                DominoMove::Place { end, index } => {
                    self.after_ours(&root, view.hand()[index as usize], end, depth)
                }
                DominoMove::Draw | DominoMove::Pass => self.ours(&root, depth),
            })
            .collect()
    }

    /// With the stock empty: the solver's optimal moves, the one whose rollouts score
    /// best among them (a fallible opponent may still go wrong in a lost position).
    fn decide_endgame(&mut self, view: &DominoView<'_>) -> Option<DominoMove> {
        let eg = endgame_of(view)?;
        let sol = self.solver.solve_within(&eg, self.config.solver_nodes)?;
        self.last_work += 1;
        if sol.best.len() == 1 {
            return Some(sol.best[0]);
        }
        let belief = Belief::of(view);
        let base = base_sim(view, &belief);
        let root = self.root(view, &belief, &base);
        let mut best = (f64::NEG_INFINITY, sol.best[0]);
        for &m in &sol.best {
            let v = match m {
                DominoMove::Place { end, index } => {
                    self.after_ours(&root, view.hand()[index as usize], end, 0)
                }
                DominoMove::Draw | DominoMove::Pass => self.leaf(&root, 0),
            };
            if v > best.0 {
                best = (v, m);
            }
        }
        Some(best.1)
    }

    /// Our value after we place `t` at `end`, with `depth` plies left before it.
    fn after_ours(&mut self, n: &Node, t: Tile, end: End, depth: u32) -> f64 {
        let mut c = *n;
        c.me &= !t.bit();
        if c.me == 0 {
            return 1.0;
        }
        c.line |= t.bit();
        (c.l, c.r) = after(t, end, c.l, c.r);
        c.passes = 0;
        if depth <= 1 {
            return self.leaf(&c, 1);
        }
        self.opponent(&c, depth - 1)
    }

    /// The exact value for us with the stock empty and `to_move` (0 us, 1 the opponent)
    /// to move; `None` past the solver's budget.
    fn exact(&mut self, n: &Node, to_move: u8) -> Option<f64> {
        self.last_work += 1;
        let (mover, other) = if to_move == 0 {
            (n.me, n.unseen)
        } else {
            (n.unseen, n.me)
        };
        let v = self.solver.value_within(
            mover,
            other,
            (n.l, n.r),
            n.passes > 0,
            self.config.solver_nodes,
        )?;
        let v = f64::from(v) / 2.0;
        Some(if to_move == 0 { v } else { 1.0 - v })
    }

    /// Our value with us to move.
    fn ours(&mut self, n: &Node, depth: u32) -> f64 {
        if n.stock == 0
            && let Some(v) = self.exact(n, 0)
        {
            return v;
        }
        if depth == 0 {
            return self.leaf(n, 0);
        }
        let mut best = f64::NEG_INFINITY;
        for (t, end) in placements(n.me, n.l, n.r) {
            best = best.max(self.after_ours(n, t, end, depth));
        }
        if best > f64::NEG_INFINITY {
            return best;
        }
        if n.stock == 0 {
            // Past the solver's budget with nothing to place.
            return self.leaf(n, 0);
        }
        // We draw: each stock tile by its chance of being in the stock, then move again.
        let stock_weight: f32 = bits(n.unseen).map(|i| 1.0 - n.p[i]).sum();
        let mut value = 0.0;
        for i in bits(n.unseen) {
            let q = (1.0 - n.p[i]) / stock_weight;
            if q <= NEGLIGIBLE {
                continue;
            }
            let mut c = *n;
            c.me |= 1 << i;
            c.unseen &= !(1 << i);
            c.p[i] = 0.0;
            c.stock -= 1;
            c.void[0] = (1 << n.l) | (1 << n.r);
            c.rescale(c.unseen);
            value += f64::from(q) * self.ours(&c, depth - 1);
        }
        value
    }

    /// Our value with the opponent to move.
    fn opponent(&mut self, n: &Node, depth: u32) -> f64 {
        if n.stock == 0
            && let Some(v) = self.exact(n, 1)
        {
            return v;
        }
        if depth == 0 || n.stock == 0 {
            return self.leaf(n, 1);
        }
        // Each candidate tile at the end worst for us.
        let mut candidates: Vec<(f64, f32)> = Vec::new();
        for i in bits(n.unseen & ends_mask(n.l, n.r)) {
            if n.p[i] <= NEGLIGIBLE {
                continue;
            }
            let t = Tile::from_index(i as u8);
            let v = self.worst_placement(n, t, |this, c| {
                if c.opp_len == 0 {
                    0.0
                } else {
                    this.ours(c, depth - 1)
                }
            });
            candidates.push((v, n.p[i]));
        }
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut value = 0.0;
        let mut none = 1.0f64;
        for &(v, p) in &candidates {
            value += none * f64::from(p) * v;
            none *= 1.0 - f64::from(p);
        }
        if none > f64::from(NEGLIGIBLE) {
            let fitting = (n.unseen & ends_mask(n.l, n.r)).count_ones();
            if fitting <= n.stock {
                value += none * self.opponent_draws(n, depth);
            } else if none < 1.0 {
                // More fitting tiles than the stock holds: the opponent has one.
                value /= 1.0 - none;
            }
        }
        value
    }

    /// The lower of our values after the opponent places `t` at either end it fits.
    fn worst_placement(
        &mut self,
        n: &Node,
        t: Tile,
        mut value: impl FnMut(&mut Self, &Node) -> f64,
    ) -> f64 {
        let mut worst = f64::INFINITY;
        for (_, end) in placements(t.bit(), n.l, n.r) {
            let c = n.opponent_placed(t, end);
            worst = worst.min(value(self, &c));
        }
        worst
    }

    /// Our value when the opponent holds nothing that fits and draws (the stock is not
    /// empty): until a fitting tile comes, which it places; or the whole stock, then a pass.
    fn opponent_draws(&mut self, n: &Node, depth: u32) -> f64 {
        let ends = ends_mask(n.l, n.r);
        let mut c = *n;
        c.void[1] = (1 << n.l) | (1 << n.r);
        let fitting = n.unseen & ends;
        for i in bits(fitting) {
            c.p[i] = 0.0;
        }
        c.rescale(c.unseen & !ends);
        let s = n.stock;
        let m = fitting.count_ones();
        if m == 0 {
            // It draws the whole stock and passes: perfect information from here.
            for i in bits(c.unseen) {
                c.p[i] = 1.0;
            }
            c.opp_len += s;
            c.stock = 0;
            c.void[1] |= (1 << n.l) | (1 << n.r);
            c.passes = 1;
            return self.ours(&c, depth);
        }
        // The first fitting tile comes at draw d, on average (s + 1) / (m + 1).
        let d = ((f64::from(s + 1) / f64::from(m + 1)).round() as u32).clamp(1, s - m + 1);
        let misses = s - m;
        if misses > 0 {
            let share = (d - 1) as f32 / misses as f32;
            for i in bits(c.unseen & !ends) {
                c.p[i] += (1.0 - c.p[i]) * share;
            }
        }
        c.opp_len += d;
        c.stock -= d;
        let mut value = 0.0;
        for i in bits(fitting) {
            let t = Tile::from_index(i as u8);
            value += self.worst_placement(&c, t, |this, child| this.ours(child, depth - 1));
        }
        value / f64::from(m)
    }

    /// The mean result of `rollouts` games played out by `smart` for both sides from
    /// `n` with `to_move` (0 us) to move, in hands drawn from the marginals.
    fn leaf(&mut self, n: &Node, to_move: u8) -> f64 {
        let count = self.config.rollouts.max(1);
        let mut half_points = 0u32;
        for _ in 0..count {
            self.last_work += 1;
            let opp = self.sample_hand(n);
            let mut sim = Sim {
                hands: [n.me, opp],
                l: n.l,
                r: n.r,
                all: n.all,
                line: n.line,
                stock: [0; 45],
                stock_front: 0,
                stock_end: 0,
                to_move,
                passes: n.passes,
                void: n.void,
            };
            sim.stock_end = shuffled(&mut self.rng, n.unseen & !opp, &mut sim.stock) as u8;
            let (res, _) = sim.rollout([&Policy::Smart, &Policy::Smart]);
            half_points += res.half_points(0);
        }
        f64::from(half_points) / f64::from(2 * count)
    }

    /// An opponent hand of the node's size drawn from its marginals: the certain tiles,
    /// then tiles drawn one by one in proportion to their marginals.
    fn sample_hand(&mut self, n: &Node) -> u64 {
        let mut hand = 0u64;
        for i in bits(n.unseen) {
            if n.p[i] >= 1.0 - NEGLIGIBLE {
                hand |= 1 << i;
            }
        }
        while hand.count_ones() < n.opp_len {
            let pool = n.unseen & !hand;
            let total: f32 = bits(pool).map(|i| n.p[i].max(NEGLIGIBLE)).sum();
            let mut x = (self.rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * total;
            let mut pick = 63 - pool.leading_zeros() as usize;
            for i in bits(pool) {
                let w = n.p[i].max(NEGLIGIBLE);
                if x < w {
                    pick = i;
                    break;
                }
                x -= w;
            }
            hand |= 1 << pick;
        }
        hand
    }
}

impl Agent<Dominoes> for Expecti {
    fn reset(&mut self, _start: &DominoView<'_>) -> Result<(), AgentError> {
        if let Some(r) = self.reader.as_mut() {
            r.reset();
        }
        Ok(())
    }

    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        Ok(self.decide(view))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::dominoes::set_size;

    #[test]
    fn rescaling_keeps_the_hand_size() {
        let mut p = [0f32; 45];
        for x in p.iter_mut().take(10) {
            *x = 0.3;
        }
        let mut n = Node {
            me: 0,
            unseen: (1 << 10) - 1,
            p,
            opp_len: 3,
            stock: 7,
            l: 0,
            r: 1,
            passes: 0,
            line: 0,
            all: (1 << set_size(5)) - 1,
            void: [0; 2],
        };
        // Tiles 0..4 shown not held: the other six carry the three tiles.
        for i in 0..4 {
            n.p[i] = 0.0;
        }
        n.rescale(n.unseen & !0b1111);
        let sum: f32 = n.p.iter().sum();
        assert!((sum - 3.0).abs() < 1e-4, "{sum}");
        assert!((n.p[5] - 0.5).abs() < 1e-4);
    }
}
