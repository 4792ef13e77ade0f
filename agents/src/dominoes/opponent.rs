//! Reading the opponent: a library of opponent models, the likelihood of each observed
//! opponent move under each, and the belief over models and hidden hands that `best`
//! keeps within a game.
//!
//! - **Models** ([`OpponentModel`]): every deterministic built-in (`greedy`, `smart`,
//!   `tc-server`), each allowed a small chance [`SLIP`] of any other placement, plus a
//!   catch-all for strangers: `smart`'s scores through a softmax ([`CATCH_ALL_TEMPERATURE`]),
//!   rolled out as `smart` (what `pimc` assumes of everyone).
//! - **Observations** ([`Observation`]): each opponent placement since its last draw,
//!   with the public position before it. After a draw the opponent's hand holds tiles
//!   nobody saw it take, but until then its hand at each placement is its hand now plus
//!   the tiles it placed since: every sampled world gives it exactly.
//! - **Belief** ([`Reader`]): each opponent placement, once seen, adds to each model's
//!   log-evidence the likelihood of that placement averaged over the sampled worlds.
//!   A world's weight under a model is that model's evidence from placements before the
//!   window times the likelihood of the window's placements in that world; the window is
//!   what makes worlds where the opponent's choices make sense count more (hand
//!   inference from its policy). Rollouts sample the model per world from these joint
//!   weights. Nothing is carried from one game to the next.

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
        };
        // Placements with their scores; a hand holds at most 45 tiles, two ends each.
        let mut scored = [(Tile::from_index(0), End::Left, 0.0f64); 90];
        let mut n = 0;
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
    /// Tiles the opponent placed from this placement on (this one included): its hand
    /// then is its hand now plus these.
    pub placed_since: u64,
}

/// The opponent's placements since its last draw (all of them if it never drew).
pub fn window(view: &DominoView<'_>) -> Vec<Observation> {
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
    let mut passes = 0u8;
    for (at, ev) in view.history().iter().enumerate() {
        match *ev {
            Event::Start { seat, tile } => {
                (l, r) = (tile.lo(), tile.hi());
                line |= tile.bit();
                hand_len[seat.index()] -= 1;
            }
            Event::Place { seat, tile, end } => {
                if seat == opp {
                    let me = opp.other().index();
                    let mut before = Sim {
                        hands: [(1u64 << hand_len[me]) - 1, 0],
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
                    before.hands[0] &= all;
                    let end = if l == r { End::Left } else { end };
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
                if seat == opp {
                    out.clear();
                }
            }
            Event::Pass { seat } => {
                void[seat.index()] |= (1 << l) | (1 << r);
                passes += 1;
            }
        }
    }
    let mut since = 0u64;
    for o in out.iter_mut().rev() {
        since |= o.tile.bit();
        o.placed_since = since;
    }
    out
}

/// The belief over the library within one game.
#[derive(Clone, Debug)]
pub struct Reader {
    models: Vec<OpponentModel>,
    /// Log prior of each model.
    log_prior: Vec<f64>,
    /// Each opponent placement read so far (history index) with the log of its
    /// likelihood under each model, averaged over the worlds of the decision that read it.
    read: Vec<(usize, Vec<f64>)>,
    /// History length at the last read (a shorter history means a new game).
    seen: usize,
}

impl Reader {
    pub fn new(models: Vec<OpponentModel>) -> Reader {
        let total: f64 = models.iter().map(|m| m.prior).sum();
        let log_prior = models.iter().map(|m| (m.prior / total).ln()).collect();
        Reader {
            models,
            log_prior,
            read: Vec::new(),
            seen: 0,
        }
    }

    pub fn models(&self) -> &[OpponentModel] {
        &self.models
    }

    /// Forgets the game.
    pub fn reset(&mut self) {
        self.read.clear();
        self.seen = 0;
    }

    /// Whether `view` shows an opponent placement not read yet (or a new game).
    pub fn has_news(&self, view: &DominoView<'_>) -> bool {
        let h = view.history();
        h.len() < self.seen
            || h[self.seen.min(h.len())..]
                .iter()
                .any(|e| matches!(e, Event::Place { seat, .. } if *seat != view.seat()))
    }

    /// Reads the opponent placements of `window` not read yet, weighing each over the
    /// opponent hands `worlds` (its hand now, one per sampled world), and returns the
    /// joint weight of each (world, model) pair, world-major, normalized to sum to 1.
    pub fn update(
        &mut self,
        view: &DominoView<'_>,
        window: &[Observation],
        worlds: &[u64],
    ) -> Vec<f64> {
        let len = view.history().len();
        if len < self.seen {
            self.reset();
        }
        self.seen = len;
        let m = self.models.len();
        // Likelihood of the window in each world under each model.
        let mut joint = vec![1.0f64; worlds.len() * m];
        for obs in window {
            let new = self.read.iter().all(|(at, _)| *at != obs.at);
            let mut marginal = vec![0.0f64; m];
            for (w, &hand) in worlds.iter().enumerate() {
                let mut sim = obs.before;
                sim.hands[1] = hand | obs.placed_since;
                for (k, model) in self.models.iter().enumerate() {
                    let p = model.likelihood(&sim, obs.tile, obs.end);
                    joint[w * m + k] *= p;
                    marginal[k] += p;
                }
            }
            if new {
                let n = worlds.len().max(1) as f64;
                let logs = marginal
                    .iter()
                    .map(|&s| (s / n).max(f64::MIN_POSITIVE).ln())
                    .collect();
                self.read.push((obs.at, logs));
            }
        }
        // Evidence from placements before the window, per model.
        let start = window.first().map_or(usize::MAX, |o| o.at);
        let mut prior = self.log_prior.clone();
        for (at, logs) in &self.read {
            if *at < start {
                for (p, l) in prior.iter_mut().zip(logs) {
                    *p += l;
                }
            }
        }
        let top = prior.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let prior: Vec<f64> = prior.iter().map(|p| (p - top).exp()).collect();
        for row in joint.chunks_mut(m) {
            for (x, p) in row.iter_mut().zip(&prior) {
                *x *= p;
            }
        }
        let total: f64 = joint.iter().sum();
        if total > 0.0 {
            joint.iter_mut().for_each(|x| *x /= total);
        }
        joint
    }

    /// The posterior weight of each model after the placements read so far.
    pub fn posterior(&self) -> Vec<f64> {
        let mut logs = self.log_prior.clone();
        for (_, l) in &self.read {
            for (a, b) in logs.iter_mut().zip(l) {
                *a += b;
            }
        }
        let top = logs.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let w: Vec<f64> = logs.iter().map(|x| (x - top).exp()).collect();
        let total: f64 = w.iter().sum();
        w.iter().map(|x| x / total).collect()
    }
}
