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
//!    iterations take pairs from it by systematic resampling, in a shuffled order. With
//!    `hand=learned` each world's weight is also multiplied by the learned hand model's
//!    importance factor ([`super::hand`]; not the default: it did not pay). With
//!    `read=all` the reading also reads the opponent's placements whose hand the record
//!    cannot rebuild (a tile placed later may have been drawn in between): each world
//!    makes up the hand size with later-placed tiles at random, among those that showed
//!    no open end at the opponent's draws and passes in between
//!    ([`super::opponent::observations_all`]).
//! 2. **Selection.** The tree is keyed by what a player observes, never by the hidden
//!    tiles: placements are public, our draws show us their tile, the opponent's draws
//!    show only that it drew. So our choice at a node is made once for every world in
//!    which we would see the same thing (no strategy fusion). Among the moves available
//!    in this determinization, ISUCT picks the highest `mean + c * sqrt(ln(available) /
//!    visits)`, where `available` counts the iterations in which the move was legal.
//!    At the opponent's turns (`opp=model`, the default) it plays its model's choice in
//!    this determinization, the way `pimc-read`'s rollouts do; with `opp=ucb` the opponent
//!    searches too (it maximizes our loss by the same rule), with a progressive bias
//!    `bias / (visits + 1)` towards its model's choice.
//! 3. **Trees.** SO-ISMCTS (the default) keeps one tree, keyed by our observations, for
//!    both players' choices. MO-ISMCTS (`mo=1`) keeps a second tree for the opponent,
//!    keyed by what *it* observes (its draws show it their tile, ours do not), so that
//!    its choices cannot depend on the tiles we drew; it only matters with `opp=ucb`.
//! 4. **Expansion and rollout.** One new node per iteration; from it the game is played
//!    out by our rollout policy (`smart`) and the model's policy.
//!    With `leaf` above 0, a new node reached by a placement is also valued by the
//!    learned evaluator (`tc-server`'s weights: the mover's chance of winning after
//!    it), weighed `leaf` against the rollout; at `leaf=1` no rollout is played (not the
//!    default: as strong against `tc-server`, cheaper, unmeasured against the rest).
//! 5. **Empty stock.** Inside the tree, a node whose stock is empty is valued by the
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

use super::hand::{self, HandModel};
use super::inference::Belief;
use super::opponent::{Reader, default_library, observations, observations_all};
use super::pimc::{Pimc, PimcConfig};
use super::sim::{Policy, Sim};
use super::solver::Solver;
use super::worlds::{self, base_sim};

/// How the opponent chooses inside the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OpponentChoice {
    /// Its model's choice in the determinization (`opp=model`).
    Model,
    /// Its own ISUCT search, biased towards its model's choice (`opp=ucb`).
    Search { bias: f64 },
}

/// The settings of an [`Ismcts`] player (spec `ismcts:iterations=..,c=..,..`).
#[derive(Clone, Debug, PartialEq)]
pub struct IsmctsConfig {
    /// Iterations per legal move at the root (`iterations`).
    pub iterations: u32,
    /// The exploration constant of ISUCT (`c`), on values from 0 (loss) to 1 (win).
    pub exploration: f64,
    /// Worlds sampled and read per decision, from which the iterations draw (`worlds`).
    pub worlds: u32,
    /// A separate tree for the opponent's observations (`mo`).
    pub multiple_observer: bool,
    /// How the opponent chooses in the tree (`opp`, `bias`).
    pub opponent: OpponentChoice,
    /// Value tree nodes with an empty stock exactly (`solve`).
    pub solve: bool,
    /// The share of a new placement node's value that the learned evaluator gives
    /// (`leaf`, 0 to 1), the rest from its rollout; at 1 no rollout is played.
    pub leaf: f64,
    /// Search nodes for one exact solve (`nodes`); past it, a rollout.
    pub solver_nodes: u64,
    /// Our rollout policy (`policy`).
    pub policy: Policy,
    /// Weigh the sampled worlds by the learned hand model (`hand=learned`) with this
    /// exponent (`hand_a`); `None`: the reading alone (`hand=none`, the default).
    pub hand: Option<f64>,
    /// Read every opponent placement (`read=all`), also those whose hand the record
    /// cannot rebuild, each world guessing which later tiles were held then
    /// ([`observations_all`]); `false` (`read=placed`, the default): only those it can.
    pub read_all: bool,
}

impl Default for IsmctsConfig {
    fn default() -> Self {
        IsmctsConfig {
            iterations: 1000,
            exploration: 0.7,
            worlds: 1000,
            multiple_observer: false,
            opponent: OpponentChoice::Model,
            solve: true,
            leaf: 0.0,
            solver_nodes: 2_000,
            policy: Policy::Smart,
            hand: None,
            read_all: false,
        }
    }
}

/// No node (a child or sibling link).
const NONE: u32 = u32::MAX;

/// A tree node: the statistics of the move that leads to it, from our side.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The move as its tree's observer sees it ([`key`]).
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

/// One observer's tree, nodes in an arena (index 0 is the root).
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
const KEY_DRAW_SEEN: u8 = 100; // + the tile index: a draw whose tile the observer sees
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
    trees: [Tree; 2],
    /// The learned evaluator of `leaf`.
    evaluator: std::sync::Arc<crate::learned::LearnedPolicy>,
    /// Each tree's path of the current iteration (reused buffers).
    paths: [Vec<u32>; 2],
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
            trees: [Tree::default(), Tree::default()],
            evaluator: match Policy::tc_server() {
                Policy::Learned(p) => p,
                _ => unreachable!("tc-server is a learned policy"),
            },
            paths: [Vec::new(), Vec::new()],
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
        let observed = if self.config.read_all {
            observations_all(view)
        } else {
            observations(view)
        };
        let (pool, held) = worlds::sample(
            &mut self.rng,
            true,
            &base,
            &belief,
            self.config.worlds.max(1),
            &observed,
        );
        let mut joint = self.reader.update(view, &observed, pool.len(), &held);
        let m = self.reader.models().len();
        if let Some(a) = self.config.hand {
            learned_weights(view, &belief, &pool, &mut joint, m, a);
        }
        let policies: Vec<Policy> = self
            .reader
            .models()
            .iter()
            .map(|model| model.rollout.clone())
            .collect();
        let iterations = u64::from(self.config.iterations.max(1)) * moves.len() as u64;
        let picks = self.resample(&joint, iterations as usize);
        for t in &mut self.trees {
            t.clear();
        }
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

    /// One iteration in the determinization `world` with the opponent as `model`.
    fn iterate(&mut self, world: Sim, model: &Policy) {
        let trees = if self.config.multiple_observer { 2 } else { 1 };
        let mut sim = world;
        // The path through each tree (root first); the buffers are kept between
        // iterations, so an iteration allocates nothing.
        let mut paths = std::mem::take(&mut self.paths);
        for path in &mut paths {
            path.clear();
            path.push(0);
        }
        let mut expanded = false;
        let mut value = None;
        // The learned evaluator's value of the new node, when it is a placement.
        let mut learned = None;
        let mut depth = 0;
        while !expanded {
            if depth > 0 && self.config.solve && sim.stock_front == sim.stock_end {
                value = self.exact(&sim);
                if value.is_some() {
                    break;
                }
            }
            let p = sim.to_move as usize;
            let mut options = [(Tile::from_index(0), End::Left); 90];
            let mut count = 0;
            sim.for_each_placement(|t, end| {
                options[count] = (t, end);
                count += 1;
            });
            if count == 0 {
                let drawn =
                    (sim.stock_front < sim.stock_end).then(|| sim.stock[sim.stock_front as usize]);
                let done = sim.draw_or_pass();
                for (o, path) in paths.iter_mut().enumerate().take(trees) {
                    let key = match drawn {
                        Some(t) if o == p => KEY_DRAW_SEEN + t,
                        Some(_) => KEY_DRAW_HIDDEN,
                        None => KEY_PASS,
                    };
                    let at = *path.last().expect("a path has its root");
                    let (c, created) = self.trees[o].child_or_new(at, key);
                    path.push(c);
                    expanded |= created;
                }
                if let Some(res) = done {
                    value = Some(f64::from(res.half_points(0)) / 2.0);
                    break;
                }
                depth += 1;
                continue;
            }
            let options = &options[..count];
            let (t, end) = match (p, self.config.opponent) {
                (1, OpponentChoice::Model) => sim.choose(model).expect("a placement fits"),
                (_, choice) => {
                    let favoured = match choice {
                        OpponentChoice::Search { bias } if p == 1 && bias > 0.0 => {
                            sim.choose(model).map(|(t, e)| (placement_key(t, e), bias))
                        }
                        _ => None,
                    };
                    let tree = if self.config.multiple_observer { p } else { 0 };
                    let at = *paths[tree].last().expect("a path has its root");
                    self.select(tree, at, p, options, favoured)
                }
            };
            let key = placement_key(t, end);
            for (o, path) in paths.iter_mut().enumerate().take(trees) {
                let at = *path.last().expect("a path has its root");
                let (c, created) = self.trees[o].child_or_new(at, key);
                path.push(c);
                expanded |= created;
            }
            if expanded && self.config.leaf > 0.0 {
                // The learned evaluator's chance that the mover wins after this placement,
                // seen by the mover (its hand and the public record).
                let (nl, nr) = super::sim::after(t, end, sim.l, sim.r);
                let v = self.evaluator.value(&sim.context(), t, nl, nr).min(1.0);
                learned = Some(if p == 0 { v } else { 1.0 - v });
            }
            if sim.place(t, end) {
                value = Some(if p == 0 { 1.0 } else { 0.0 });
                break;
            }
            depth += 1;
        }
        let leaf = self.config.leaf;
        let value = value.unwrap_or_else(|| match learned {
            Some(v) if leaf >= 1.0 => v,
            _ => {
                let (res, _) = sim.rollout([&self.config.policy, model]);
                let rolled = f64::from(res.half_points(0)) / 2.0;
                learned.map_or(rolled, |v| (1.0 - leaf) * rolled + leaf * v)
            }
        });
        for (o, path) in paths.iter().enumerate().take(trees) {
            for &n in path {
                let node = &mut self.trees[o].nodes[n as usize];
                node.visits += 1;
                node.total += value;
            }
        }
        self.paths = paths;
    }

    /// ISUCT at node `at` of tree `tree` for player `p` among `options` (those available
    /// in this determinization): an untried one if any (chosen at random), else the
    /// best bound. `favoured`: the model's choice and its progressive bias.
    fn select(
        &mut self,
        tree: usize,
        at: u32,
        p: usize,
        options: &[(Tile, End)],
        favoured: Option<(u8, f64)>,
    ) -> (Tile, End) {
        let mut untried = [0usize; 90];
        let mut n_untried = 0;
        let mut best = (f64::NEG_INFINITY, 0usize);
        let c = self.config.exploration;
        for (i, &(t, end)) in options.iter().enumerate() {
            let key = placement_key(t, end);
            let Some(child) = self.trees[tree].child(at, key) else {
                untried[n_untried] = i;
                n_untried += 1;
                continue;
            };
            let node = &mut self.trees[tree].nodes[child as usize];
            node.available += 1;
            if node.visits == 0 {
                // A guard: every node is visited by the iteration that creates it, so an
                // unvisited child cannot be scored; it counts as untried.
                untried[n_untried] = i;
                n_untried += 1;
                continue;
            }
            let visits = f64::from(node.visits);
            let mean = node.total / visits;
            let mine = if p == 0 { mean } else { 1.0 - mean };
            let mut score = mine + c * (f64::from(node.available).ln() / visits).sqrt();
            if let Some((k, bias)) = favoured
                && k == key
            {
                score += bias / (visits + 1.0);
            }
            if score > best.0 {
                best = (score, i);
            }
        }
        if n_untried > 0 {
            // The model's choice first, when untried; else any untried move.
            if let Some((k, _)) = favoured
                && let Some(&i) = untried[..n_untried]
                    .iter()
                    .find(|&&i| placement_key(options[i].0, options[i].1) == k)
            {
                return options[i];
            }
            let pick = (self.rng.next_u64() % n_untried as u64) as usize;
            return options[untried[pick]];
        }
        options[best.1]
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
        let tree = &self.trees[0];
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

/// Multiplies each world's joint weights by the learned hand model's importance factor
/// `exp(a * sum over the opponent's tiles t of (logit p_t - logit r_t))`, where `r_t`
/// is the tile's reading-weighted frequency in the pool and `p_t` the model's chance
/// (module [`super::hand`]): it moves the pool's marginals from `r` towards `p`.
fn learned_weights(
    view: &DominoView<'_>,
    belief: &Belief,
    pool: &[Sim],
    joint: &mut [f64],
    m: usize,
    a: f64,
) {
    let prior = hand::pool_prior(pool.iter().map(|w| w.hands[1]));
    let mut reading = [0.0; 45];
    let mut total = 0.0;
    for (w, row) in pool.iter().zip(joint.chunks(m)) {
        let weight: f64 = row.iter().sum();
        total += weight;
        let mut h = w.hands[1];
        while h != 0 {
            reading[h.trailing_zeros() as usize] += weight;
            h &= h - 1;
        }
    }
    if total <= 0.0 {
        return;
    }
    let logit = |p: f64| {
        let p = p.clamp(1e-4, 1.0 - 1e-4);
        (p / (1.0 - p)).ln()
    };
    let mut shift = [0.0f64; 45];
    reading.iter_mut().for_each(|r| *r /= total);
    let f = hand::features(view, belief, &prior, &reading);
    for (i, z) in HandModel::builtin().logits(&f).iter().enumerate() {
        if let Some(z) = z {
            shift[i] = a * (z - logit(reading[i]));
        }
    }
    for (w, row) in pool.iter().zip(joint.chunks_mut(m)) {
        let mut h = w.hands[1];
        let mut s = 0.0;
        while h != 0 {
            s += shift[h.trailing_zeros() as usize];
            h &= h - 1;
        }
        let factor = s.exp();
        row.iter_mut().for_each(|x| *x *= factor);
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
