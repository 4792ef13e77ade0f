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

use arena_core::dominoes::{Case as DominoCase, Deal, DominoMove, Dominoes};
use arena_core::quarto::{Case as QuartoCase, Quarto, QuartoMove};
use arena_core::rng::{below, shuffle};
use arena_core::{Agent, Game, Seat};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use super::model::{Model, log_loss};
use super::weights::{Evaluator, FORMAT, GameKind, TrainParams, TrainStats, VERSION, Weights};
use super::{dominoes, quarto};

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

/// The game-specific part of training: play game `g`, appending `(features, score)`.
type PlayGame<'a> =
    dyn FnMut(u64, Option<&mut Evaluator>, &mut ChaCha8Rng, &mut Vec<(Vec<f64>, f64)>) + 'a;

fn run(
    game: GameKind,
    names: &[&str],
    params: &TrainParams,
    progress: &mut dyn FnMut(&TrainEvent),
    play: &mut PlayGame<'_>,
) -> Weights {
    let dim = names.len();
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed ^ EXPLORE_SALT);
    let mut train = Set::new(dim);
    let mut held = Set::new(dim);
    let mut eval: Option<Evaluator> = None;
    let mut samples = Vec::new();
    let (mut raw, mut x, mut act) = (Vec::new(), Vec::new(), Vec::new());
    for generation in 0..params.generations {
        for i in 0..params.games {
            let g = u64::from(generation) * u64::from(params.games) + u64::from(i);
            samples.clear();
            play(g, eval.as_mut(), &mut rng, &mut samples);
            let set = if g % 10 == 9 { &mut held } else { &mut train };
            for (f, y) in &samples {
                set.push(f, *y);
            }
            progress(&TrainEvent::Game {
                generation,
                game: i,
            });
        }
        let mut current = match eval.take() {
            Some(e) => e,
            None => {
                let (mean, scale) = train.standardization();
                let model = Model::new(dim, params.hidden as usize, || {
                    // Uniform in [-1, 1) from 24 bits of the stream: exact in f64.
                    f64::from(rng.next_u32() >> 8) / f64::from(1u32 << 23) - 1.0
                });
                Evaluator::new(mean, scale, model)
            }
        };
        let report = |epoch: u32, train_loss: f64, current: &Evaluator, raw: &mut _, x: &mut _| {
            TrainEvent::Epoch {
                generation,
                epoch,
                train_loss,
                heldout_loss: held.loss(current, raw, x),
            }
        };
        let initial = train.loss(&current, &mut raw, &mut x);
        progress(&report(0, initial, &current, &mut raw, &mut x));
        let mut order: Vec<u32> = (0..train.len() as u32).collect();
        for epoch in 1..=params.epochs {
            shuffle(&mut rng, &mut order);
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
            progress(&report(epoch, train_loss, &current, &mut raw, &mut x));
        }
        eval = Some(current);
    }
    let eval = eval.unwrap_or_else(|| {
        Evaluator::new(
            vec![0.0; dim],
            vec![1.0; dim],
            Model::new(dim, params.hidden as usize, || 0.0),
        )
    });
    let ybar = held.mean_target();
    let baseline = if held.len() == 0 {
        0.0
    } else {
        held.y
            .iter()
            .map(|&y| log_loss(ybar, f64::from(y)))
            .sum::<f64>()
            / held.len() as f64
    };
    let mut weights = Weights {
        format: FORMAT.to_owned(),
        version: VERSION,
        game,
        params: params.clone(),
        features: names.iter().map(|s| (*s).to_owned()).collect(),
        stats: TrainStats {
            samples: (train.len() + held.len()) as u64,
            heldout_samples: held.len() as u64,
            heldout_loss: held.loss(&eval, &mut raw, &mut x),
            heldout_baseline_loss: baseline,
        },
        mean: eval.mean,
        scale: eval.scale,
        model: eval.model,
    };
    weights.canonicalize();
    weights
}

/// Trains the Dominoes evaluator (see the module documentation for the procedure).
pub fn train_dominoes(params: &TrainParams, progress: &mut impl FnMut(&TrainEvent)) -> Weights {
    let cases: Vec<DominoCase> = DominoCase::all().collect();
    let master = params.seed ^ DEAL_SALT;
    let epsilon = params.epsilon;
    let (mut buf, mut chosen, mut feats) = (Vec::new(), Vec::new(), Vec::new());
    let mut play = |g: u64,
                    mut eval: Option<&mut Evaluator>,
                    rng: &mut ChaCha8Rng,
                    out: &mut Vec<(Vec<f64>, f64)>| {
        let case = cases[(g % cases.len() as u64) as usize];
        let deal = Deal::seeded(case, master, g as u32);
        let mut game = Dominoes::new(&deal);
        let who = players(g);
        let mut record: Vec<(Seat, Vec<f64>)> = Vec::new();
        while !game.is_over() {
            let view = game.view();
            let seat = view.seat();
            let moves = view.legal_moves();
            let mv: DominoMove = if moves.len() == 1 {
                moves[0]
            } else {
                match who[seat.index()] {
                    Player::Random => moves[below(rng, moves.len() as u32) as usize],
                    Player::Learner if explore(rng, epsilon) => {
                        moves[below(rng, moves.len() as u32) as usize]
                    }
                    Player::Learner if eval.is_some() => dominoes::choose(
                        &view,
                        eval.as_deref_mut().expect("checked"),
                        &mut buf,
                        &mut chosen,
                    ),
                    Player::Learner | Player::Greedy => crate::dominoes::Greedy
                        .play(&view)
                        .expect("greedy always answers"),
                }
            };
            if dominoes::features_of(&view, mv, &mut feats) {
                record.push((seat, feats.clone()));
            }
            game.play_unchecked(mv);
        }
        let outcome = game.outcome().expect("over");
        for (seat, f) in record {
            out.push((f, outcome.score(seat)));
        }
    };
    run(
        GameKind::Dominoes,
        dominoes::FEATURES,
        params,
        progress,
        &mut play,
    )
}

/// Trains the Quarto evaluator on the default cases (`lines:0 lines:4 squares:0
/// squares:4`), with the same procedure as Dominoes.
pub fn train_quarto(params: &TrainParams, progress: &mut impl FnMut(&TrainEvent)) -> Weights {
    let cases: Vec<QuartoCase> = QuartoCase::DEFAULTS.to_vec();
    let master = params.seed ^ DEAL_SALT;
    let epsilon = params.epsilon;
    let (mut moves, mut buf, mut chosen, mut feats) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut play = |g: u64,
                    mut eval: Option<&mut Evaluator>,
                    rng: &mut ChaCha8Rng,
                    out: &mut Vec<(Vec<f64>, f64)>| {
        let case = cases[(g % cases.len() as u64) as usize];
        let mut pos = Quarto::seeded_opening(case, master, g as u32);
        let who = players(g);
        let mut greedy = crate::quarto::Greedy::new(rng.next_u64());
        let mut record: Vec<(Seat, Vec<f64>)> = Vec::new();
        while !pos.is_over() {
            let seat = pos.to_move();
            pos.legal_moves_into(&mut moves);
            let mv: QuartoMove = if moves.len() == 1 {
                moves[0]
            } else {
                match who[seat.index()] {
                    Player::Random => moves[below(rng, moves.len() as u32) as usize],
                    Player::Learner if explore(rng, epsilon) => {
                        moves[below(rng, moves.len() as u32) as usize]
                    }
                    Player::Learner if eval.is_some() => quarto::choose(
                        &pos,
                        eval.as_deref_mut().expect("checked"),
                        &mut moves,
                        &mut buf,
                        &mut chosen,
                    ),
                    Player::Learner | Player::Greedy => {
                        greedy.play(&&pos).expect("greedy always answers")
                    }
                }
            };
            if quarto::features_of(&pos, mv, &mut feats) {
                record.push((seat, feats.clone()));
            }
            pos.play_unchecked(mv);
        }
        let outcome = pos.outcome().expect("over");
        for (seat, f) in record {
            out.push((f, outcome.score(seat)));
        }
    };
    run(
        GameKind::Quarto,
        quarto::FEATURES,
        params,
        progress,
        &mut play,
    )
}
