//! A learned hand model: the chance that each unseen tile is in the opponent's hand,
//! given the public record (issue 24's "learned hand model").
//!
//! It is a logistic regression per unseen tile over a few features of the record
//! ([`features`]): the consistency prior (the chance the [`Belief`]'s groups give the
//! tile), what the tile is (double, pips), and how the opponent treated it: how often it
//! fitted an open end while the opponent placed another tile, after its last draw (when
//! every tile it holds now was already in its hand) and before, and whether the declined
//! tile was heavier or lighter than the one placed. A tile the record proves is not in
//! the hand (seen, or forbidden to every group of the belief) gets probability 0.
//!
//! Trained by [`train`] on self-play records (`cargo run --release -p agents --example
//! dominoes_hand_train`; docs/training.md): Newton's method on the log loss, one thread,
//! a fixed order, so the same seed gives byte-identical weights. The committed weights
//! (`agents/weights/dominoes-hand-v1.json`) are compiled in ([`HandModel::builtin`]).
//!
//! `ismcts:hand=learned` weighs its sampled worlds by the model: a world whose opponent
//! hand is `H` gets the factor `exp(a * sum over t in H of (logit p_t - logit q_t))`,
//! where `q_t` is the tile's frequency in the sampled pool (what consistency sampling
//! already gives) and `a` the option `hand_a`: importance weights that move the pool's
//! marginals towards the model's (exactly, for independent tiles and `a = 1`).

use std::sync::OnceLock;

use arena_core::dominoes::{Case, Deal, DominoView, Dominoes, End, Event, PIP_MASKS, Tile};
use arena_core::{Agent, Game, Seat};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::learned::weights::canonical;

use super::expecti::{Expecti, ExpectiConfig};
use super::inference::Belief;

/// The number of features per tile.
pub const FEATURES: usize = 13;

/// The features' names, in order (recorded in the weights file).
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "bias",
    "logit_prior",
    "double",
    "pips",
    "declined_since_draw",
    "declined_double_since_draw",
    "declined_heavier_since_draw",
    "declined_lighter_since_draw",
    "declined_before_draw",
    "suit_affinity",
    "stock_share",
    "fits_now",
    "logit_reading",
];

/// The built-in weights' file.
pub const DEFAULT_WEIGHTS: &str = include_str!("../../weights/dominoes-hand-v1.json");

/// A hand model's parameters (and how they were trained).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandModel {
    pub features: Vec<String>,
    pub weights: Vec<f64>,
    pub params: HandTrainParams,
}

/// The settings of [`train`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandTrainParams {
    pub seed: u64,
    pub games: u32,
    /// Newton steps.
    pub steps: u32,
    /// L2 penalty per sample on the weights (not the bias).
    pub l2: f64,
    /// Worlds read per decision for the reading feature.
    pub reading_worlds: u32,
}

impl Default for HandTrainParams {
    fn default() -> Self {
        HandTrainParams {
            seed: 1,
            games: 4000,
            steps: 12,
            l2: 1e-4,
            reading_worlds: 500,
        }
    }
}

/// Per-tile features of a view, for every unseen tile the record allows in the
/// opponent's hand; `rows[i]` is `None` for the others (probability 0).
pub struct TileFeatures {
    pub rows: [Option<[f64; FEATURES]>; 45],
    /// The opponent's hand size.
    pub hand: u32,
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The features of `view` (with its belief).
///
/// `prior`: each tile's chance under consistency sampling alone (the frequencies of
/// sampled hands: [`sampled_prior`], or the pool `ismcts` already drew).
/// `reading`: the same weighed by reading the opponent's placements against the library
/// (the marginals `pimc-read`, `ismcts` and `expecti` use).
pub fn features(
    view: &DominoView<'_>,
    belief: &Belief,
    prior: &[f64; 45],
    reading: &[f64; 45],
) -> TileFeatures {
    let n = view.case().n();
    let opp = view.seat().other();
    let unseen = belief.unseen;
    let hand = belief.opponent_len();
    let mut possible = 0u64;
    for g in &belief.groups {
        if g.count > 0 {
            possible |= unseen & !g.forbidden;
        }
    }
    // The opponent's placements: declined tiles (those fitting an end then, other than
    // the one placed), split at its last draw; the numbers it played.
    let last_draw = view
        .history()
        .iter()
        .rposition(|e| matches!(e, Event::Draw { seat } if *seat == opp))
        .unwrap_or(0);
    let mut since = [0u32; 45];
    let mut heavier = [0u32; 45];
    let mut lighter = [0u32; 45];
    let mut before = [0u32; 45];
    let mut suits = [0u32; 10];
    let mut placed = 0u32;
    let (mut l, mut r) = (0u8, 0u8);
    for (at, ev) in view.history().iter().enumerate() {
        match *ev {
            Event::Start { tile, .. } => (l, r) = (tile.lo(), tile.hi()),
            Event::Place { seat, tile, end } => {
                if seat == opp {
                    let t = tile.tile();
                    let fit = (PIP_MASKS[l as usize] | PIP_MASKS[r as usize]) & unseen & !t.bit();
                    for i in bits(fit) {
                        if at > last_draw {
                            since[i] += 1;
                            let other = Tile::from_index(i as u8).pips();
                            if other > t.pips() {
                                heavier[i] += 1;
                            } else if other < t.pips() {
                                lighter[i] += 1;
                            }
                        } else {
                            before[i] += 1;
                        }
                    }
                    suits[t.lo() as usize] += 1;
                    if !t.is_double() {
                        suits[t.hi() as usize] += 1;
                    }
                    placed += 1;
                }
                match end {
                    End::Left => l = tile.left,
                    End::Right => r = tile.right,
                }
            }
            Event::Draw { .. } | Event::Pass { .. } => {}
        }
    }
    let (l, r) = (view.line().left(), view.line().right());
    let fits_now = PIP_MASKS[l as usize] | PIP_MASKS[r as usize];
    let stock_share = view.stock() as f64 / f64::from(unseen.count_ones().max(1));
    let cap = |x: u32| f64::from(x.min(4));
    let mut rows = [None; 45];
    for i in bits(unseen & possible) {
        let t = Tile::from_index(i as u8);
        let affinity = if placed == 0 {
            0.0
        } else {
            let s = suits[t.lo() as usize]
                + if t.is_double() {
                    0
                } else {
                    suits[t.hi() as usize]
                };
            f64::from(s) / f64::from(placed)
        };
        rows[i] = Some([
            1.0,
            logit(prior[i]),
            f64::from(u8::from(t.is_double())),
            f64::from(t.pips()) / f64::from(2 * n.max(1)),
            cap(since[i]),
            f64::from(u8::from(since[i] > 0 && t.is_double())),
            cap(heavier[i]),
            cap(lighter[i]),
            cap(before[i]),
            affinity,
            stock_share,
            f64::from(u8::from(fits_now & t.bit() != 0)),
            logit(reading[i]),
        ]);
    }
    TileFeatures { rows, hand }
}

/// Each tile's frequency in `samples` hands drawn from the belief (consistency only).
pub fn sampled_prior<R: rand::Rng + ?Sized>(
    belief: &Belief,
    rng: &mut R,
    samples: u32,
) -> [f64; 45] {
    let mut p = [0.0; 45];
    for _ in 0..samples {
        for i in bits(belief.sample_hand(rng)) {
            p[i] += 1.0;
        }
    }
    let k = f64::from(samples.max(1));
    for x in &mut p {
        *x /= k;
    }
    p
}

/// The pool frequencies of the opponent's hands `hands` (what [`sampled_prior`] gives).
pub fn pool_prior(hands: impl Iterator<Item = u64>) -> [f64; 45] {
    let mut p = [0.0; 45];
    let mut k = 0.0;
    for h in hands {
        for i in bits(h) {
            p[i] += 1.0;
        }
        k += 1.0;
    }
    if k > 0.0 {
        for x in &mut p {
            *x /= k;
        }
    }
    p
}

fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

impl HandModel {
    /// The committed model (parsed once).
    pub fn builtin() -> &'static HandModel {
        static MODEL: OnceLock<HandModel> = OnceLock::new();
        MODEL.get_or_init(|| HandModel::parse(DEFAULT_WEIGHTS).expect("the built-in hand model"))
    }

    pub fn parse(text: &str) -> Result<HandModel, String> {
        let m: HandModel = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if m.weights.len() != FEATURES || m.features != FEATURE_NAMES {
            return Err(format!(
                "expected the {FEATURES} features {FEATURE_NAMES:?}"
            ));
        }
        Ok(m)
    }

    /// The weights file's text ([`train`] rounds the weights to 12 significant digits,
    /// which serde_json reads back exactly).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("serializable");
        s.push('\n');
        s
    }

    /// The logit of each tile's chance (`None`: the record excludes it).
    pub fn logits(&self, f: &TileFeatures) -> [Option<f64>; 45] {
        let mut out = [None; 45];
        for (o, row) in out.iter_mut().zip(&f.rows) {
            *o = row.map(|x| x.iter().zip(&self.weights).map(|(a, b)| a * b).sum());
        }
        out
    }

    /// Each tile's chance of being in the opponent's hand (0 for tiles the record
    /// excludes; all the unseen tiles when the stock is empty).
    /// `prior` and `reading` as for [`features`].
    pub fn marginals(
        &self,
        view: &DominoView<'_>,
        prior: &[f64; 45],
        reading: &[f64; 45],
    ) -> [f64; 45] {
        let belief = Belief::of(view);
        let mut p = [0.0; 45];
        if belief.exact() {
            for i in bits(belief.unseen) {
                p[i] = 1.0;
            }
            return p;
        }
        let f = features(view, &belief, prior, reading);
        for (p, z) in p.iter_mut().zip(self.logits(&f)) {
            *p = z.map_or(0.0, sigmoid);
        }
        p
    }
}

/// One training sample: a tile's features and whether the opponent held it.
struct Sample {
    x: [f64; FEATURES],
    held: bool,
}

/// Hands sampled per decision for the consistency prior in training.
const PRIOR_SAMPLES: u32 = 300;
/// Mixed into the seed of the prior's sampling.
const PRIOR_SEED: u64 = 0x0070_7269_6f72;

/// Mixed into the training seed, so training never replays a tournament's deals.
const TRAIN_SEED: u64 = 0x6861_6e64_0000_0001;

/// The players of training game `g`: every opponent the library reads, and the
/// strong ones most.
const PAIRS: [(&str, &str); 5] = [
    ("tc-server", "tc-server"),
    ("tc-server", "smart"),
    ("tc-server", "greedy"),
    ("expecti", "tc-server"),
    ("smart", "expecti"),
];

/// The samples of game `g` (at every decision with tiles in the stock, each unseen
/// tile the record allows, from the mover's view).
fn game_samples(params: &HandTrainParams, g: u32, out: &mut Vec<Sample>, uniform: &mut Vec<f64>) {
    let seed = params.seed;
    let cases: Vec<Case> = Case::all().collect();
    let case = cases[g as usize % cases.len()];
    let deal = Deal::seeded(case, seed ^ TRAIN_SEED, g);
    let (a, b) = PAIRS[(g as usize / cases.len()) % PAIRS.len()];
    let (a, b) = if g.is_multiple_of(2) { (a, b) } else { (b, a) };
    let agent_seed = seed ^ TRAIN_SEED ^ u64::from(g);
    let mut agents = [a, b]
        .map(|name| super::build(&name.parse().expect("a spec"), agent_seed).expect("a built-in"));
    let mut rng = ChaCha8Rng::seed_from_u64(agent_seed ^ PRIOR_SEED);
    // One reader per seat (a reader follows one viewer's record).
    let mut readers = [0u64, 1].map(|k| {
        Expecti::new(
            ExpectiConfig {
                worlds: params.reading_worlds.max(1),
                read: true,
                ..ExpectiConfig::default()
            },
            agent_seed ^ PRIOR_SEED ^ (k + 2),
        )
    });
    let mut game = Dominoes::new(&deal);
    for agent in &mut agents {
        agent.reset(&game.view()).expect("reset");
    }
    for r in &mut readers {
        r.reset(&game.view()).expect("reset");
    }
    while !game.is_over() {
        let view = game.view();
        let seat = game.to_move();
        if view.stock() > 0 {
            let truth = game.hand(seat.other()).mask();
            let belief = Belief::of(&view);
            let prior = sampled_prior(&belief, &mut rng, PRIOR_SAMPLES);
            let mut reading = [0.0; 45];
            reading.copy_from_slice(&readers[seat.index()].marginals(&view)[..45]);
            let f = features(&view, &belief, &prior, &reading);
            let base = f64::from(f.hand) / f64::from(belief.unseen.count_ones());
            for (i, row) in f.rows.iter().enumerate() {
                if let Some(x) = row {
                    uniform.push(base);
                    out.push(Sample {
                        x: *x,
                        held: truth >> i & 1 == 1,
                    });
                }
            }
        }
        let m = agents[usize::from(seat == Seat::B)]
            .play(&view)
            .expect("a built-in always moves");
        game.play_unchecked(m);
    }
}

/// What [`train`] reports.
#[derive(Clone, Debug)]
pub struct HandTrainReport {
    pub train_samples: usize,
    pub held_out_samples: usize,
    /// Mean log loss per tile on the held-out games: uniform, the consistency prior
    /// alone, the reading alone, and the model.
    pub held_out_uniform: f64,
    pub held_out_prior: f64,
    pub held_out_reading: f64,
    pub held_out_model: f64,
}

/// Mean log loss of `predict` over `samples`.
fn mean_loss(samples: &[Sample], predict: impl Fn(&[f64; FEATURES]) -> f64) -> f64 {
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = predict(&s.x).clamp(1e-6, 1.0 - 1e-6);
            -(if s.held { p.ln() } else { (1.0 - p).ln() })
        })
        .sum();
    total / samples.len().max(1) as f64
}

// Index loops: the Hessian's rows and columns read clearest by index.
#[allow(clippy::needless_range_loop)]
/// Trains a hand model on `params.games` games (games with `g mod 10 = 9` held out).
pub fn train(params: &HandTrainParams) -> (HandModel, HandTrainReport) {
    let mut train_set = Vec::new();
    let mut held_out = Vec::new();
    let mut uniform = Vec::new();
    let mut unused = Vec::new();
    for g in 0..params.games {
        if g % 10 == 9 {
            game_samples(params, g, &mut held_out, &mut uniform);
        } else {
            game_samples(params, g, &mut train_set, &mut unused);
        }
    }
    // Start from the reading: weight 1 on its logit.
    let mut w = [0.0f64; FEATURES];
    w[FEATURES - 1] = 1.0;
    let count = train_set.len().max(1) as f64;
    for _ in 0..params.steps {
        let mut grad = [0.0f64; FEATURES];
        let mut hess = [[0.0f64; FEATURES]; FEATURES];
        for s in &train_set {
            let z: f64 = s.x.iter().zip(&w).map(|(a, b)| a * b).sum();
            let p = sigmoid(z);
            let e = p - f64::from(u8::from(s.held));
            let v = p * (1.0 - p);
            for i in 0..FEATURES {
                grad[i] += e * s.x[i];
                for j in 0..=i {
                    hess[i][j] += v * s.x[i] * s.x[j];
                }
            }
        }
        for i in 0..FEATURES {
            for j in 0..i {
                hess[j][i] = hess[i][j];
            }
            let ridge = if i == 0 { 1e-9 } else { params.l2 } * count;
            grad[i] += ridge * w[i];
            hess[i][i] += ridge;
        }
        let step = solve(hess, grad);
        for (wi, si) in w.iter_mut().zip(step) {
            *wi -= si;
        }
    }
    // Rounded to 12 significant digits, so that the file reads back bit for bit.
    let w = w.map(canonical);
    let model = HandModel {
        features: FEATURE_NAMES.iter().map(|s| (*s).to_owned()).collect(),
        weights: w.to_vec(),
        params: params.clone(),
    };
    let predict = |x: &[f64; FEATURES]| sigmoid(x.iter().zip(&w).map(|(a, b)| a * b).sum());
    let report = HandTrainReport {
        train_samples: train_set.len(),
        held_out_samples: held_out.len(),
        held_out_uniform: held_out
            .iter()
            .zip(&uniform)
            .map(|(s, &p)| {
                let p = p.clamp(1e-6, 1.0 - 1e-6);
                -(if s.held { p.ln() } else { (1.0 - p).ln() })
            })
            .sum::<f64>()
            / held_out.len().max(1) as f64,
        held_out_prior: mean_loss(&held_out, |x| sigmoid(x[1])),
        held_out_reading: mean_loss(&held_out, |x| sigmoid(x[FEATURES - 1])),
        held_out_model: mean_loss(&held_out, predict),
    };
    (model, report)
}

#[allow(clippy::needless_range_loop)]
/// `a x = b` by Gaussian elimination with partial pivoting (a is symmetric positive
/// definite here; small).
fn solve(mut a: [[f64; FEATURES]; FEATURES], mut b: [f64; FEATURES]) -> [f64; FEATURES] {
    for c in 0..FEATURES {
        let pivot = (c..FEATURES)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .expect("rows");
        a.swap(c, pivot);
        b.swap(c, pivot);
        let d = a[c][c];
        if d.abs() < 1e-300 {
            continue;
        }
        for r in c + 1..FEATURES {
            let f = a[r][c] / d;
            if f != 0.0 {
                for k in c..FEATURES {
                    a[r][k] -= f * a[c][k];
                }
                b[r] -= f * b[c];
            }
        }
    }
    let mut x = [0.0; FEATURES];
    for c in (0..FEATURES).rev() {
        let s: f64 = (c + 1..FEATURES).map(|k| a[c][k] * x[k]).sum();
        x[c] = if a[c][c].abs() < 1e-300 {
            0.0
        } else {
            (b[c] - s) / a[c][c]
        };
    }
    x
}
