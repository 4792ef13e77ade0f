//! Reading the opponent: a library of opponent models, the likelihood of each observed
//! opponent move under each, and the belief over models and hidden hands that `best`
//! keeps within a game.
//!
//! - **Models** ([`OpponentModel`]): every deterministic built-in (`greedy`, `smart`,
//!   `tc-server`), each allowed a small chance [`SLIP`] of any other placement; `random`
//!   (every placement equally likely, rolled out as [`Policy::Random`]); and a catch-all
//!   for strangers: `smart`'s scores through a softmax ([`CATCH_ALL_TEMPERATURE`]),
//!   rolled out as `smart` (what `pimc` assumes of everyone).
//! - **Observations** ([`Observation`]): each opponent placement, with the public
//!   position before it. In a sampled world the opponent's hand at a placement is the
//!   tiles of its hand now that it already held then (the sampler says which belief group,
//!   dealt or drawn when, each tile came from) plus the tiles it placed since, except those
//!   it placed right after drawing them.
//! - **Belief** ([`Reader`]): each opponent placement, once seen, adds to each model's
//!   log-evidence the likelihood of that placement averaged over the sampled worlds.
//!   A world's weight under a model is the likelihood of all the opponent's placements in
//!   that world: worlds where the opponent's choices make sense count more (hand
//!   inference from its policy). Rollouts sample the model per world from these joint
//!   weights. Nothing is carried from one game to the next.

use std::collections::HashMap;

use arena_core::dominoes::{DominoView, End, Event, Tile, set_size};

use super::sim::{Policy, Sim};

/// The chance a deterministic model is granted of any other placement (so that one
/// surprise lowers a model's weight rather than killing it).
pub const SLIP: f64 = 0.03;

/// The catch-all's softmax temperature in `smart` score points (20 is one own tile).
pub const CATCH_ALL_TEMPERATURE: f64 = 25.0;

/// How a model explains an opponent's placement.
#[derive(Clone, Debug, PartialEq)]
pub enum Likelihood {
    /// The policy's choice (ties shared evenly: the opponent's hand order is unknown),
    /// with [`SLIP`] spread over all placements.
    Exact(Policy),
    /// A softmax over `smart`'s scores at a temperature.
    SoftSmart(f64),
    /// Every placement equally likely (`random`, and anyone erratic).
    Uniform,
}

/// One model of the opponent: how it explains moves and how it is rolled out.
#[derive(Clone, Debug, PartialEq)]
pub struct OpponentModel {
    pub name: String,
    pub likelihood: Likelihood,
    pub rollout: Policy,
    /// Prior weight (the library's priors are normalized when read).
    pub prior: f64,
}

impl OpponentModel {
    /// A deterministic policy as a model of itself.
    pub fn exact(policy: Policy, prior: f64) -> OpponentModel {
        OpponentModel {
            name: policy.to_string(),
            likelihood: Likelihood::Exact(policy.clone()),
            rollout: policy,
            prior,
        }
    }

    /// The catch-all for opponents outside the library.
    pub fn catch_all(prior: f64) -> OpponentModel {
        OpponentModel {
            name: "stranger".into(),
            likelihood: Likelihood::SoftSmart(CATCH_ALL_TEMPERATURE),
            rollout: Policy::Smart,
            prior,
        }
    }

    /// The chance of the observed placement `(tile, end)` for the player to move in
    /// `sim` under this model.
    pub fn likelihood(&self, sim: &Sim, tile: Tile, end: End) -> f64 {
        let policy = match &self.likelihood {
            Likelihood::Exact(policy) => policy,
            Likelihood::SoftSmart(_) => &Policy::Smart,
            Likelihood::Uniform => {
                let mut n = 0;
                sim.for_each_placement(|_, _| n += 1);
                return 1.0 / f64::from(n.max(1));
            }
        };
        let mut n = 0;
        sim.for_each_placement(|_, _| n += 1);
        if n == 1 {
            // A forced placement says nothing about the policy.
            return 1.0;
        }
        // Placements with their scores; a hand holds at most 45 tiles, two ends each.
        let mut scored = [(Tile::from_index(0), End::Left, 0.0f64); 90];
        n = 0;
        let mut observed = None;
        sim.score_placements(policy, |t, e, s| {
            if t == tile && e == end {
                observed = Some(n);
            }
            scored[n] = (t, e, s);
            n += 1;
        });
        let scored = &scored[..n];
        let Some(o) = observed else {
            return 0.0;
        };
        let top = scored.iter().fold(f64::NEG_INFINITY, |a, x| a.max(x.2));
        match self.likelihood {
            Likelihood::Exact(_) => {
                // Ties between tiles are shared evenly (the opponent's hand order is
                // unknown); a tile's first end at the top score is its choice (legal-move
                // order puts the left end first).
                let first_at_top = |t: Tile| scored.iter().position(|x| x.0 == t && x.2 == top);
                let mut tied = 0u64;
                for x in scored.iter().filter(|x| x.2 == top) {
                    tied |= x.0.bit();
                }
                let chosen = if first_at_top(tile) == Some(o) {
                    1.0 / f64::from(tied.count_ones())
                } else {
                    0.0
                };
                (1.0 - SLIP) * chosen + SLIP / n as f64
            }
            Likelihood::Uniform => unreachable!("answered above"),
            Likelihood::SoftSmart(temperature) => {
                let weight = |s: f64| ((s - top) / temperature).exp();
                let sum: f64 = scored.iter().map(|x| weight(x.2)).sum();
                weight(scored[o].2) / sum
            }
        }
    }
}

/// The models `best` reads its opponent against.
pub fn default_library() -> Vec<OpponentModel> {
    vec![
        OpponentModel::exact(Policy::Greedy, 1.0),
        OpponentModel::exact(Policy::Smart, 1.0),
        OpponentModel::exact(Policy::tc_server(), 1.0),
        OpponentModel {
            name: "random".into(),
            likelihood: Likelihood::Uniform,
            rollout: Policy::Random,
            prior: 1.0,
        },
        OpponentModel::catch_all(1.0),
    ]
}

/// An opponent placement and the public position just before it, from the opponent's
/// seat (seat 1 of [`Observation::before`]).
#[derive(Clone, Copy, Debug)]
pub struct Observation {
    /// Index of the placement in the history.
    pub at: usize,
    /// The position before the placement with the opponent (seat 1) to move. Its own
    /// hand is left empty for each world to fill; seat 0's hand holds the right number
    /// of tiles but not the right ones (the opponent's policies see only its size).
    pub before: Sim,
    pub tile: Tile,
    /// The end, as the first of equivalent ends (left when both ends show one number).
    pub end: End,
    /// Tiles the opponent placed from this placement on (this one included) that it
    /// already held: its hand then is these plus the tiles it holds now that it held
    /// then (those of its belief groups born before, see [`Belief`](super::inference::Belief)).
    pub placed_since: u64,
}

/// The opponent's placements in the game whose hand the record lets us rebuild, each
/// with the public position before it.
pub fn observations(view: &DominoView<'_>) -> Vec<Observation> {
    let opp = view.seat().other();
    let n = view.case().n();
    let size = set_size(n);
    let all = (1u64 << size) - 1;
    let h = u32::from(view.case().h());
    let mut hand_len = [h, h];
    let mut stock = size as u32 - 2 * h;
    let mut void = [0u16; 2];
    let (mut l, mut r, mut line) = (0u8, 0u8, 0u64);
    let mut out: Vec<Observation> = Vec::new();
    // Tiles placed right after the opponent drew: the drawn tile (nothing else fits).
    let mut just_drawn = Vec::new();
    let mut passes = 0u8;
    let history = view.history();
    for (at, ev) in history.iter().enumerate() {
        match *ev {
            Event::Start { seat, tile } => {
                (l, r) = (tile.lo(), tile.hi());
                line |= tile.bit();
                hand_len[seat.index()] -= 1;
            }
            Event::Place { seat, tile, end } => {
                if seat == opp {
                    let me = opp.other().index();
                    let before = Sim {
                        hands: [((1u64 << hand_len[me]) - 1) & all, 0],
                        l,
                        r,
                        all,
                        line,
                        stock: [0; 45],
                        stock_front: 0,
                        stock_end: stock as u8,
                        to_move: 1,
                        passes,
                        void: [void[me], void[opp.index()]],
                    };
                    let end = if l == r { End::Left } else { end };
                    just_drawn.push(at > 0 && matches!(history[at - 1], Event::Draw { .. }));
                    out.push(Observation {
                        at,
                        before,
                        tile: tile.tile(),
                        end,
                        placed_since: 0,
                    });
                }
                match end {
                    End::Left => l = tile.left,
                    End::Right => r = tile.right,
                }
                line |= tile.tile().bit();
                hand_len[seat.index()] -= 1;
                passes = 0;
            }
            Event::Draw { seat } => {
                void[seat.index()] = (1 << l) | (1 << r);
                hand_len[seat.index()] += 1;
                stock -= 1;
                passes = 0;
            }
            Event::Pass { seat } => {
                void[seat.index()] |= (1 << l) | (1 << r);
                passes += 1;
            }
        }
    }
    // A tile placed later was held at an earlier placement unless it was drawn since:
    // certainly if placed right after a draw (nothing else fitted), but a tile drawn
    // without fitting and placed in a later turn looks like one held before. So a
    // placement is kept only if every tile placed after it is certain either way.
    let draws_before: Vec<usize> = out
        .iter()
        .map(|o| {
            history[..o.at]
                .iter()
                .filter(|e| matches!(e, Event::Draw { seat } if *seat == opp))
                .count()
        })
        .collect();
    let mut kept = Vec::new();
    for j in 0..out.len() {
        let mut since = out[j].tile.bit();
        let mut certain = true;
        for k in j + 1..out.len() {
            if just_drawn[k] {
                continue;
            }
            // Draws between j and k other than one right before k (not the case here)
            // may have brought this tile.
            if draws_before[k] > draws_before[j] {
                certain = false;
            }
            since |= out[k].tile.bit();
        }
        if certain {
            let mut o = out[j];
            o.placed_since = since;
            kept.push(o);
        }
    }
    kept
}

/// The belief over the library within one game.
#[derive(Clone, Debug)]
pub struct Reader {
    models: Vec<OpponentModel>,
    /// Prior weight of each model, normalized.
    prior: Vec<f64>,
    /// The posterior weight of each model at the last read.
    posterior: Vec<f64>,
    /// History length at the last read (a shorter history means a new game).
    seen: usize,
    /// Models ruled out in this game.
    out: Vec<bool>,
}

/// A model whose posterior weight falls below this is ruled out for the rest of the game.
pub const RULED_OUT: f64 = 1e-4;

impl Reader {
    pub fn new(models: Vec<OpponentModel>) -> Reader {
        let total: f64 = models.iter().map(|m| m.prior).sum();
        let prior: Vec<f64> = models.iter().map(|m| m.prior / total).collect();
        Reader {
            out: vec![false; models.len()],
            models,
            posterior: prior.clone(),
            prior,
            seen: 0,
        }
    }

    pub fn models(&self) -> &[OpponentModel] {
        &self.models
    }

    /// Forgets the game.
    pub fn reset(&mut self) {
        self.posterior.clone_from(&self.prior);
        self.seen = 0;
        self.out.iter_mut().for_each(|o| *o = false);
    }

    /// Reads the opponent's placements `observed` over `worlds` sampled worlds and returns
    /// the joint weight of each (world, model) pair, world-major, normalized to sum to 1:
    /// the prior times the likelihood of every placement in that world.
    /// `held[w * observed.len() + j]`: the tiles world `w` says the opponent holds now
    /// and already held at placement `j`.
    pub fn update(
        &mut self,
        view: &DominoView<'_>,
        observed: &[Observation],
        worlds: usize,
        held: &[u64],
    ) -> Vec<f64> {
        let len = view.history().len();
        if len < self.seen {
            self.reset();
        }
        self.seen = len;
        let m = self.models.len();
        // Models the game has already ruled out are no longer evaluated: their weight
        // stays zero for the rest of the game (the learned ones are costly to consult).
        for (k, p) in self.posterior.iter().enumerate() {
            if *p < RULED_OUT {
                self.out[k] = true;
            }
        }
        let mut joint: Vec<f64> = (0..worlds)
            .flat_map(|_| self.prior.iter().copied())
            .collect();
        // Worlds often agree on the opponent's hand at a placement (late in a game nearly
        // all do), and a likelihood depends on nothing else: each distinct hand is
        // evaluated once per placement (the learned models are costly to consult).
        let mut seen_hands: HashMap<u64, usize> = HashMap::new();
        let mut rows: Vec<f64> = Vec::new();
        for (j, obs) in observed.iter().enumerate() {
            seen_hands.clear();
            rows.clear();
            for w in 0..worlds {
                let hand = held[w * observed.len() + j] | obs.placed_since;
                let row = *seen_hands.entry(hand).or_insert_with(|| {
                    let mut sim = obs.before;
                    sim.hands[1] = hand;
                    for (k, model) in self.models.iter().enumerate() {
                        rows.push(if self.out[k] {
                            0.0
                        } else {
                            model.likelihood(&sim, obs.tile, obs.end)
                        });
                    }
                    rows.len() / m - 1
                });
                for k in 0..m {
                    joint[w * m + k] *= rows[row * m + k];
                }
            }
        }
        let total: f64 = joint.iter().sum();
        if total > 0.0 {
            joint.iter_mut().for_each(|x| *x /= total);
        }
        self.posterior = vec![0.0; m];
        for row in joint.chunks(m) {
            for (p, x) in self.posterior.iter_mut().zip(row) {
                *p += x;
            }
        }
        joint
    }

    /// The posterior weight of each model after the placements read so far (the prior
    /// before any).
    pub fn posterior(&self) -> Vec<f64> {
        self.posterior.clone()
    }
}
