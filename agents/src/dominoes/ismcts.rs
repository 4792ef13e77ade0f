//! `ismcts`: information-set Monte Carlo tree search (Cowling, Powley and Whitehouse,
//! 2012) over the worlds `pimc-read` samples and the opponent models it reads. It is
//! `best` since issue 24 (measured in docs/benchmarks.md).
//!
//! Each iteration:
//!
//! 1. **Determinization.** A (world, model) pair is drawn from a pool of `worlds` sampled
//!    worlds (opponent hand and stock order, from the [`Belief`]), by the joint weight the
//!    reading gives it ([`Reader::update`]: worlds where the opponent's past placements
//!    make sense under a model weigh more). The pool is drawn once per decision and the
//!    iterations take pairs from it by systematic resampling, in a shuffled order.
//! 2. **Selection.** The tree is keyed by what a player observes, never by the hidden
//!    tiles: placements are public, our draws show us their tile, the opponent's draws
//!    show only that it drew. So our choice at a node is made once for every world in
//!    which we would see the same thing (no strategy fusion). Among the moves available
//!    in this determinization, ISUCT picks the highest `mean + c * sqrt(ln(available) /
//!    visits)`, where `available` counts the iterations in which the move was legal.
//!    At the opponent's turns it plays its model's choice in this determinization, the
//!    way `pimc-read`'s rollouts do.
//! 3. **Expansion and rollout.** One new node per iteration; from it the game is played
//!    out by our rollout policy (`smart`) and the model's policy.
//! 4. **Empty stock.** Inside the tree, a node whose stock is empty is valued by the
//!    exact solver in that determinization (`solve=1`, the default). At the root the
//!    decision is `pimc-read`'s: the solver and the best response to the read models.
//!
//! The move played is the root's most visited. The budget is `iterations` per legal
//! move at the root (the same number of rollouts as `best`'s `k`), solver work is capped
//! by `nodes`, and the generator is seeded: play is a deterministic function of the seed.

use arena_core::dominoes::{DominoMove, DominoView, Dominoes, End, Tile};
use arena_core::{Agent, AgentError};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::inference::Belief;
use super::opponent::{Reader, default_library, observations};
use super::pimc::{Pimc, PimcConfig};
use super::sim::{Policy, Sim};
use super::solver::Solver;
use super::worlds::{self, base_sim};

/// The settings of an [`Ismcts`] player (spec `ismcts:iterations=..,c=..,..`).
#[derive(Clone, Debug, PartialEq)]
pub struct IsmctsConfig {
    /// Iterations per legal move at the root (`iterations`).
    pub iterations: u32,
    /// The exploration constant of ISUCT (`c`), on values from 0 (loss) to 1 (win).
    pub exploration: f64,
    /// Worlds sampled and read per decision, from which the iterations draw (`worlds`).
    pub worlds: u32,
    /// Value tree nodes with an empty stock exactly (`solve`).
    pub solve: bool,
    /// Search nodes for one exact solve (`nodes`); past it, a rollout.
    pub solver_nodes: u64,
    /// Our rollout policy (`policy`).
    pub policy: Policy,
}

impl Default for IsmctsConfig {
    fn default() -> Self {
        IsmctsConfig {
            iterations: 1000,
            exploration: 0.7,
            worlds: 1000,
            solve: true,
            solver_nodes: 2_000,
            policy: Policy::Smart,
        }
    }
}

/// No node (a child or sibling link).
const NONE: u32 = u32::MAX;

/// A tree node: the statistics of the move that leads to it, from our side.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The move as we see it ([`placement_key`] and the `KEY_` constants).
    key: u8,
    first_child: u32,
    next_sibling: u32,
    visits: u32,
    /// Iterations in which this move was available at its parent.
    available: u32,
    /// Sum of our values (0 loss, 0.5 tie, 1 win) over the visits.
    total: f64,
}

impl Node {
    fn new(key: u8) -> Node {
        Node {
            key,
            first_child: NONE,
            next_sibling: NONE,
            visits: 0,
            available: 0,
            total: 0.0,
        }
    }
}

/// The tree, keyed by our observations, nodes in an arena (index 0 is the root).
#[derive(Default)]
struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn clear(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::new(0));
    }

    fn child(&self, parent: u32, key: u8) -> Option<u32> {
        let mut c = self.nodes[parent as usize].first_child;
        while c != NONE {
            if self.nodes[c as usize].key == key {
                return Some(c);
            }
            c = self.nodes[c as usize].next_sibling;
        }
        None
    }

    /// The child of `parent` for `key`, created if missing; `true` when created.
    fn child_or_new(&mut self, parent: u32, key: u8) -> (u32, bool) {
        if let Some(c) = self.child(parent, key) {
            return (c, false);
        }
        let idx = self.nodes.len() as u32;
        let mut node = Node::new(key);
        node.next_sibling = self.nodes[parent as usize].first_child;
        self.nodes.push(node);
        self.nodes[parent as usize].first_child = idx;
        (idx, true)
    }
}

/// Keys of moves that are not placements (placements are `tile * 2 + end`, below 90).
const KEY_DRAW_SEEN: u8 = 100; // + the tile index: our draw, whose tile we see
const KEY_DRAW_HIDDEN: u8 = 250;
const KEY_PASS: u8 = 251;

fn placement_key(t: Tile, end: End) -> u8 {
    t.index() * 2 + u8::from(end == End::Right)
}

/// The ISMCTS player.
pub struct Ismcts {
    config: IsmctsConfig,
    rng: ChaCha8Rng,
    reader: Reader,
    solver: Solver,
    /// `pimc-read`, for decisions with the stock already empty (the exact solver and
    /// the best response to the read models).
    endgame: Pimc,
    tree: Tree,
    /// The path of the current iteration, root first (a buffer reused so that an
    /// iteration allocates nothing).
    path: Vec<u32>,
    last_work: u64,
}

/// Mixed into the seed of the endgame player, so its generator is not ours.
const ENDGAME_SEED: u64 = 0x6973_6d63;

impl Ismcts {
    pub fn new(config: IsmctsConfig, seed: u64) -> Ismcts {
        Ismcts {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            reader: Reader::new(default_library()),
            solver: Solver::new(),
            endgame: Pimc::new(PimcConfig::reading(), seed ^ ENDGAME_SEED),
            tree: Tree::default(),
            path: Vec::new(),
            last_work: 0,
        }
    }

    pub fn config(&self) -> &IsmctsConfig {
        &self.config
    }

    /// Iterations run for the last decision (0 when it was forced or decided as an
    /// endgame).
    pub fn last_work(&self) -> u64 {
        self.last_work
    }

    /// The move for `view`.
    pub fn decide(&mut self, view: &DominoView<'_>) -> DominoMove {
        self.last_work = 0;
        let moves = view.legal_moves();
        if moves.len() == 1 {
            return moves[0];
        }
        if view.stock() == 0 {
            return self
                .endgame
                .play(view)
                .expect("pimc-read never fails to move");
        }
        let belief = Belief::of(view);
        let base = base_sim(view, &belief);
        let observed = observations(view);
        let (pool, held) = worlds::sample(
            &mut self.rng,
            true,
            &base,
            &belief,
            self.config.worlds.max(1),
            &observed,
        );
        let joint = self.reader.update(view, &observed, pool.len(), &held);
        let m = self.reader.models().len();
        let policies: Vec<Policy> = self
            .reader
            .models()
            .iter()
            .map(|model| model.rollout.clone())
            .collect();
        let iterations = u64::from(self.config.iterations.max(1)) * moves.len() as u64;
        let picks = self.resample(&joint, iterations as usize);
        self.tree.clear();
        for pair in picks {
            let world = pool[pair / m];
            self.iterate(world, &policies[pair % m]);
        }
        self.last_work = iterations;
        self.root_choice(view, &moves)
    }

    /// `count` (world, model) pairs (as `world * models + model`) drawn from `joint` by
    /// systematic resampling, in a random order.
    fn resample(&mut self, joint: &[f64], count: usize) -> Vec<usize> {
        let total: f64 = joint.iter().sum();
        let mut picks = Vec::with_capacity(count);
        if total <= 0.0 {
            // Nothing explains the record (cannot happen with the catch-all): uniform.
            picks.extend((0..count).map(|i| i % joint.len()));
        } else {
            let step = total / count as f64;
            let mut x = unit(&mut self.rng) * step;
            let mut acc = 0.0;
            let mut j = 0;
            for _ in 0..count {
                while j + 1 < joint.len() && acc + joint[j] <= x {
                    acc += joint[j];
                    j += 1;
                }
                picks.push(j);
                x += step;
            }
        }
        for i in (1..picks.len()).rev() {
            let j = (self.rng.next_u64() % (i as u64 + 1)) as usize;
            picks.swap(i, j);
        }
        picks
    }

    /// Follows the tree's child for `key` from the end of the path, created if missing;
    /// `true` when created (the iteration's expansion).
    fn descend(&mut self, key: u8) -> bool {
        let at = *self.path.last().expect("a path has its root");
        let (c, created) = self.tree.child_or_new(at, key);
        self.path.push(c);
        created
    }

    /// One iteration in the determinization `world` with the opponent as `model`.
    fn iterate(&mut self, world: Sim, model: &Policy) {
        let mut sim = world;
        self.path.clear();
        self.path.push(0);
        let mut depth = 0;
        let value = loop {
            if depth > 0
                && self.config.solve
                && sim.stock_front == sim.stock_end
                && let Some(v) = self.exact(&sim)
            {
                break v;
            }
            depth += 1;
            let p = sim.to_move;
            let choice = if p == 1 {
                sim.choose(model)
            } else {
                self.select(&sim)
            };
            let Some((t, end)) = choice else {
                let key = match (sim.stock_front < sim.stock_end)
                    .then(|| sim.stock[sim.stock_front as usize])
                {
                    Some(t) if p == 0 => KEY_DRAW_SEEN + t,
                    Some(_) => KEY_DRAW_HIDDEN,
                    None => KEY_PASS,
                };
                let done = sim.draw_or_pass();
                let expanded = self.descend(key);
                if let Some(res) = done {
                    break f64::from(res.half_points(0)) / 2.0;
                }
                if expanded {
                    break self.rollout(&mut sim, model);
                }
                continue;
            };
            let expanded = self.descend(placement_key(t, end));
            if sim.place(t, end) {
                break if p == 0 { 1.0 } else { 0.0 };
            }
            if expanded {
                break self.rollout(&mut sim, model);
            }
        };
        for &n in &self.path {
            let node = &mut self.tree.nodes[n as usize];
            node.visits += 1;
            node.total += value;
        }
    }

    /// Our value of a rollout from `sim`, the opponent playing `model`.
    fn rollout(&self, sim: &mut Sim, model: &Policy) -> f64 {
        let (res, _) = sim.rollout([&self.config.policy, model]);
        f64::from(res.half_points(0)) / 2.0
    }

    /// ISUCT for us at the end of the path among the placements available in `sim`: an
    /// untried one if any (chosen at random), else the best bound; `None` when nothing
    /// fits.
    fn select(&mut self, sim: &Sim) -> Option<(Tile, End)> {
        let (options, count) = sim.placements();
        if count == 0 {
            return None;
        }
        let at = *self.path.last().expect("a path has its root");
        let mut untried = [0usize; 90];
        let mut n_untried = 0;
        let mut best = (f64::NEG_INFINITY, 0usize);
        let c = self.config.exploration;
        for (i, &(t, end)) in options[..count].iter().enumerate() {
            let Some(child) = self.tree.child(at, placement_key(t, end)) else {
                untried[n_untried] = i;
                n_untried += 1;
                continue;
            };
            let node = &mut self.tree.nodes[child as usize];
            node.available += 1;
            if node.visits == 0 {
                // A guard: every node is visited by the iteration that creates it, so an
                // unvisited child cannot be scored; it counts as untried.
                untried[n_untried] = i;
                n_untried += 1;
                continue;
            }
            let visits = f64::from(node.visits);
            let score = node.total / visits + c * (f64::from(node.available).ln() / visits).sqrt();
            if score > best.0 {
                best = (score, i);
            }
        }
        if n_untried > 0 {
            let pick = (self.rng.next_u64() % n_untried as u64) as usize;
            return Some(options[untried[pick]]);
        }
        Some(options[best.1])
    }

    /// Our value of `sim` (stock empty) under perfect play; `None` past the node cap.
    fn exact(&mut self, sim: &Sim) -> Option<f64> {
        let p = sim.to_move as usize;
        let v = self.solver.value_within(
            sim.hands[p],
            sim.hands[1 - p],
            (sim.l, sim.r),
            sim.passes > 0,
            self.config.solver_nodes,
        )?;
        let ours = if p == 0 { v } else { 2 - v };
        Some(f64::from(ours) / 2.0)
    }

    /// The root's most visited legal move (ties: the better mean, then the earlier move).
    fn root_choice(&self, view: &DominoView<'_>, moves: &[DominoMove]) -> DominoMove {
        let tree = &self.tree;
        let (l, r) = (view.line().left(), view.line().right());
        let mut best: Option<((u32, f64), DominoMove)> = None;
        for &m in moves {
            let DominoMove::Place { end, index } = m else {
                continue;
            };
            // With equal ends a tile's right placement is its left one.
            let end = if l == r { End::Left } else { end };
            let key = placement_key(view.hand()[index as usize], end);
            let stats = tree.child(0, key).map_or((0, 0.0), |c| {
                let n = &tree.nodes[c as usize];
                (n.visits, n.total / f64::from(n.visits.max(1)))
            });
            if best.is_none_or(|(b, _)| stats > b) {
                best = Some((stats, m));
            }
        }
        best.map_or(moves[0], |(_, m)| m)
    }
}

/// A uniform number in [0, 1).
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

impl Agent<Dominoes> for Ismcts {
    fn reset(&mut self, start: &DominoView<'_>) -> Result<(), AgentError> {
        self.reader.reset();
        self.endgame.reset(start)
    }

    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        Ok(self.decide(view))
    }
}
