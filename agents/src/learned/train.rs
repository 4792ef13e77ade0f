//! Training: generations of seeded games, then SGD on the positions gathered so far.
//!
//! Each generation plays `games` games. Game `g` (counted over the whole run) uses case
//! `g mod cases` and the deal (Dominoes) or opening (Quarto) of pair `g` under master seed
//! `seed ^ DEAL_SALT`, so training never replays a tournament's deals for the same seed.
//! Its players: games `g mod 4` = 0, 1 are self-play (learner against learner), 2 is the
//! learner against `greedy`, 3 against `random`; the learner takes seat A when
//! `(g / 4)` is even, else B. A learner plays the evaluator's move, or a uniformly random
//! legal move with chance `epsilon`; in generation 0, before any model exists, it plays
//! `greedy`'s move instead. Every placement of every player is a sample: the features of
//! the position it led to, labelled with the mover's final score (1, 0.5 or 0), a Monte
//! Carlo target. Games with `g mod 10 = 9` are held out, never trained on.
//!
//! After generation 0 the standardization (mean and standard deviation of each feature
//! over its training samples) is fixed. After each generation the model takes `epochs`
//! passes of SGD over all training samples so far, in an order shuffled by the run's
//! exploration stream (ChaCha8 seeded with `seed ^ EXPLORE_SALT`). All of it runs on one
//! thread, so the same parameters give bit-identical weights. The result is rounded to
//! 12 significant digits ([`super::weights`]), so it is exactly what its file reads back as.

use arena_core::rng::{below, shuffle};
use arena_core::{Agent, Seat};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::Learnable;
use super::model::{Model, log_loss};
use super::weights::{Evaluator, FORMAT, TrainParams, TrainStats, VERSION, Weights};

/// Mixed into the master seed for training deals and openings.
pub const DEAL_SALT: u64 = 0x7472_6169_6e00_0001;
/// Mixed into the master seed for exploration and shuffling.
pub const EXPLORE_SALT: u64 = 0x7472_6169_6e00_0002;

/// What training reports as it goes.
#[derive(Clone, Debug, PartialEq)]
pub enum TrainEvent {
    /// Game `game` (0-based, within the generation) of `generation` is finished.
    Game { generation: u32, game: u32 },
    /// Losses after `epoch` passes of `generation`'s fitting; epoch 0 is before any
    /// pass (the previous generation's model on the grown data). `heldout_loss` is the
    /// mean cross-entropy on held-out positions, `train_loss` on training positions.
    Epoch {
        generation: u32,
        epoch: u32,
        train_loss: f64,
        heldout_loss: f64,
    },
}

/// The number of steps a progress bar should count: one per game and one per epoch
/// (epoch 0 excluded).
pub fn total_steps(params: &TrainParams) -> u64 {
    u64::from(params.generations) * (u64::from(params.games) + u64::from(params.epochs))
}

/// Who plays a seat in a training game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Player {
    Learner,
    Greedy,
    Random,
}

fn players(g: u64) -> [Player; 2] {
    let other = match g % 4 {
        0 | 1 => Player::Learner,
        2 => Player::Greedy,
        _ => Player::Random,
    };
    if (g / 4).is_multiple_of(2) {
        [Player::Learner, other]
    } else {
        [other, Player::Learner]
    }
}

fn explore(rng: &mut ChaCha8Rng, epsilon: f64) -> bool {
    // A fixed-point comparison, so no float rounding decides a draw from the stream.
    u64::from(rng.next_u32()) < (epsilon.clamp(0.0, 1.0) * 4_294_967_296.0) as u64
}

/// Positions with targets: raw features, row-major.
struct Set {
    dim: usize,
    x: Vec<f32>,
    y: Vec<f32>,
}

impl Set {
    fn new(dim: usize) -> Set {
        Set {
            dim,
            x: Vec::new(),
            y: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.y.len()
    }

    fn push(&mut self, f: &[f64], y: f64) {
        assert_eq!(f.len(), self.dim);
        // f32 storage halves the memory; every feature is a small count or ratio.
        self.x.extend(f.iter().map(|&v| v as f32));
        self.y.push(y as f32);
    }

    fn row(&self, i: usize, out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            self.x[i * self.dim..(i + 1) * self.dim]
                .iter()
                .map(|&v| f64::from(v)),
        );
    }

    /// Per-feature mean and standard deviation (1 where a feature is constant).
    fn standardization(&self) -> (Vec<f64>, Vec<f64>) {
        let n = self.len().max(1) as f64;
        let mut mean = vec![0.0; self.dim];
        let mut sq = vec![0.0; self.dim];
        for row in self.x.chunks(self.dim) {
            for (j, &v) in row.iter().enumerate() {
                mean[j] += f64::from(v);
            }
        }
        mean.iter_mut().for_each(|m| *m /= n);
        for row in self.x.chunks(self.dim) {
            for (j, &v) in row.iter().enumerate() {
                let d = f64::from(v) - mean[j];
                sq[j] += d * d;
            }
        }
        let scale = sq
            .iter()
            .map(|s| {
                let sd = (s / n).sqrt();
                if sd > 1e-9 { sd } else { 1.0 }
            })
            .collect();
        (mean, scale)
    }

    /// Mean cross-entropy of `eval` over the set.
    fn loss(&self, eval: &Evaluator, raw: &mut Vec<f64>, x: &mut Vec<f64>) -> f64 {
        if self.len() == 0 {
            return 0.0;
        }
        let mut total = 0.0;
        for i in 0..self.len() {
            self.row(i, raw);
            eval.standardize(raw, x);
            total += log_loss(eval.model.predict(x), f64::from(self.y[i]));
        }
        total / self.len() as f64
    }

    fn mean_target(&self) -> f64 {
        self.y.iter().map(|&y| f64::from(y)).sum::<f64>() / self.len().max(1) as f64
    }
}

/// Trains `G`'s evaluator (see the module documentation for the procedure); `baseline`
/// makes each game's `greedy` player, from the exploration stream if it needs a seed.
pub fn train<G: Learnable, A: Agent<G>>(
    params: &TrainParams,
    progress: &mut impl FnMut(&TrainEvent),
    mut baseline: impl FnMut(&mut ChaCha8Rng) -> A,
) -> Weights {
    let cases = G::training_cases();
    let master = params.seed ^ DEAL_SALT;
    let dim = G::FEATURES.len();
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed ^ EXPLORE_SALT);
    let mut train = Set::new(dim);
    let mut held = Set::new(dim);
    let mut eval: Option<Evaluator> = None;
    let mut samples = Vec::new();
    for generation in 0..params.generations {
        for i in 0..params.games {
            let g = u64::from(generation) * u64::from(params.games) + u64::from(i);
            let case = cases[(g % cases.len() as u64) as usize];
            let start = G::training_start(case, master, g as u32);
            let mut greedy = baseline(&mut rng);
            samples.clear();
            let learner = eval.as_mut();
            play_game(
                g,
                start,
                learner,
                &mut greedy,
                params.epsilon,
                &mut rng,
                &mut samples,
            );
            let set = if g % 10 == 9 { &mut held } else { &mut train };
            for (f, y) in &samples {
                set.push(f, *y);
            }
            progress(&TrainEvent::Game {
                generation,
                game: i,
            });
        }
        let current = eval.take().unwrap_or_else(|| {
            let (mean, scale) = train.standardization();
            let model = Model::new(dim, params.hidden as usize, || {
                // Uniform in [-1, 1) from 24 bits of the stream: exact in f64.
                f64::from(rng.next_u32() >> 8) / f64::from(1u32 << 23) - 1.0
            });
            Evaluator::new(mean, scale, model)
        });
        eval = Some(fit(
            current, generation, &train, &held, params, &mut rng, progress,
        ));
    }
    let eval = eval.unwrap_or_else(|| {
        Evaluator::new(
            vec![0.0; dim],
            vec![1.0; dim],
            Model::new(dim, params.hidden as usize, || 0.0),
        )
    });
    let ybar = held.mean_target();
    let baseline_loss = if held.len() == 0 {
        0.0
    } else {
        held.y
            .iter()
            .map(|&y| log_loss(ybar, f64::from(y)))
            .sum::<f64>()
            / held.len() as f64
    };
    let (mut raw, mut x) = (Vec::new(), Vec::new());
    let mut weights = Weights {
        format: FORMAT.to_owned(),
        version: VERSION,
        game: G::KIND,
        params: params.clone(),
        features: G::FEATURES.iter().map(|s| (*s).to_owned()).collect(),
        stats: TrainStats {
            samples: (train.len() + held.len()) as u64,
            heldout_samples: held.len() as u64,
            heldout_loss: held.loss(&eval, &mut raw, &mut x),
            heldout_baseline_loss: baseline_loss,
        },
        mean: eval.mean,
        scale: eval.scale,
        model: eval.model,
    };
    weights.canonicalize();
    weights
}

/// Generation `generation`'s fitting: `params.epochs` passes of SGD over the training
/// samples, in orders shuffled by `rng`, reporting the losses before and after each.
fn fit(
    mut current: Evaluator,
    generation: u32,
    train: &Set,
    held: &Set,
    params: &TrainParams,
    rng: &mut ChaCha8Rng,
    progress: &mut impl FnMut(&TrainEvent),
) -> Evaluator {
    let (mut raw, mut x, mut act) = (Vec::new(), Vec::new(), Vec::new());
    let mut report = |epoch: u32, train_loss: f64, current: &Evaluator, raw: &mut _, x: &mut _| {
        progress(&TrainEvent::Epoch {
            generation,
            epoch,
            train_loss,
            heldout_loss: held.loss(current, raw, x),
        });
    };
    let initial = train.loss(&current, &mut raw, &mut x);
    report(0, initial, &current, &mut raw, &mut x);
    let mut order: Vec<u32> = (0..train.len() as u32).collect();
    for epoch in 1..=params.epochs {
        shuffle(rng, &mut order);
        let mut total = 0.0;
        for &i in &order {
            train.row(i as usize, &mut raw);
            current.standardize(&raw, &mut x);
            let y = f64::from(train.y[i as usize]);
            let p = current
                .model
                .sgd_step(&x, y, params.learning_rate, params.l2, &mut act);
            total += log_loss(p, y);
        }
        let train_loss = total / order.len().max(1) as f64;
        report(epoch, train_loss, &current, &mut raw, &mut x);
    }
    current
}

/// Plays training game `g` from `start`, appending each placement's features with the
/// mover's final score to `out`. `eval`: the learners' model (`None` in generation 0);
/// `baseline`: this game's `greedy`.
fn play_game<G: Learnable>(
    g: u64,
    start: G,
    mut eval: Option<&mut Evaluator>,
    baseline: &mut impl Agent<G>,
    epsilon: f64,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<(Vec<f64>, f64)>,
) {
    let mut game = start;
    let who = players(g);
    let (mut moves, mut buf, mut feats) = (Vec::new(), Vec::new(), Vec::new());
    let mut record: Vec<(Seat, Vec<f64>)> = Vec::new();
    while !game.is_over() {
        let seat = game.to_move();
        game.legal_moves_into(&mut moves);
        let mv = {
            let view = game.view();
            let mv = if moves.len() == 1 {
                moves[0]
            } else {
                match who[seat.index()] {
                    Player::Random => moves[below(rng, moves.len() as u32) as usize],
                    Player::Learner if explore(rng, epsilon) => {
                        moves[below(rng, moves.len() as u32) as usize]
                    }
                    Player::Learner if eval.is_some() => {
                        G::best_move(&view, eval.as_deref_mut().expect("checked"), &mut buf)
                    }
                    Player::Learner | Player::Greedy => {
                        baseline.play(&view).expect("greedy always answers")
                    }
                }
            };
            if G::features_of(&view, mv, &mut feats) {
                record.push((seat, feats.clone()));
            }
            mv
        };
        game.play_unchecked(mv);
    }
    let outcome = game.outcome().expect("over");
    for (seat, f) in record {
        out.push((f, outcome.score(seat)));
    }
}
