//! The learned hand model (`agents::dominoes::hand`): training is deterministic, its
//! probabilities are valid and respect what the record proves, it beats the uniform
//! belief on held-out games, and `ismcts:hand=learned` uses it deterministically.

use agents::dominoes::hand::{
    FEATURES, HandModel, HandTrainParams, features, sampled_prior, train,
};
use agents::dominoes::inference::Belief;
use agents::dominoes::{Ismcts, IsmctsConfig, build, ismcts_config};
use arena_core::dominoes::{Case, Deal, DominoMove, Dominoes};
use arena_core::{Agent, Game};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

mod dominoes_play;
use dominoes_play::play;

/// A training run small enough for a debug build.
fn small(seed: u64) -> HandTrainParams {
    HandTrainParams {
        seed,
        games: 40,
        steps: 6,
        reading_worlds: 30,
        ..HandTrainParams::default()
    }
}

#[test]
fn training_is_deterministic_for_a_seed() {
    let (a, _) = train(&small(3));
    let (b, _) = train(&small(3));
    assert_eq!(a.to_json(), b.to_json(), "same seed, same bytes");
    let (c, _) = train(&small(4));
    assert_ne!(a.weights, c.weights, "the seed is used");
    // The file reads back to the same model, bit for bit.
    assert_eq!(HandModel::parse(&a.to_json()).unwrap(), a);
}

#[test]
fn the_built_in_model_parses() {
    let m = HandModel::builtin();
    assert_eq!(m.weights.len(), FEATURES);
    assert!(m.weights.iter().all(|w| w.is_finite()));
    assert!(HandModel::parse("{}").is_err());
}

/// At every decision of some games: each probability lies in [0, 1], tiles the viewer
/// sees or the record excludes get 0, and every tile the opponent really holds gets
/// more than 0 (the hard constraints never exclude the truth).
#[test]
fn probabilities_are_valid_and_respect_the_record() {
    let model = HandModel::builtin();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut checked = 0;
    let mut excluded = 0;
    for case in Case::all() {
        let deal = Deal::seeded(case, 12, 0);
        let mut a = build(&"smart".parse().unwrap(), 0).unwrap();
        let mut b = build(&"tc-server".parse().unwrap(), 0).unwrap();
        let mut game = Dominoes::new(&deal);
        a.reset(&game.view()).unwrap();
        b.reset(&game.view()).unwrap();
        while !game.is_over() {
            let view = game.view();
            let seat = game.to_move();
            let truth = game.hand(seat.other()).mask();
            let belief = Belief::of(&view);
            let prior = sampled_prior(&belief, &mut rng, 50);
            let p = model.marginals(&view, &prior, &prior);
            let rows = features(&view, &belief, &prior, &prior).rows;
            for (i, &pi) in p.iter().enumerate() {
                assert!((0.0..=1.0).contains(&pi), "p = {pi}");
                let unseen = view.unseen() >> i & 1 == 1;
                if !unseen {
                    assert_eq!(pi, 0.0, "a seen tile");
                }
                if truth >> i & 1 == 1 {
                    assert!(pi > 0.0, "a held tile was excluded");
                }
                if view.stock() > 0 && unseen && rows[i].is_none() {
                    assert_eq!(pi, 0.0, "an excluded tile");
                    excluded += 1;
                }
            }
            checked += 1;
            let m = if seat == arena_core::Seat::A {
                a.play(&view).unwrap()
            } else {
                b.play(&view).unwrap()
            };
            game.play_unchecked(m);
        }
    }
    assert!(checked > 100, "only {checked} positions");
    assert!(
        excluded > 0,
        "no position excluded a tile: the check never ran"
    );
}

/// Trained on a few games, the model predicts the held-out games' hands better than
/// the uniform belief (hand size / unseen tiles).
#[test]
fn the_model_beats_uniform_on_held_out_games() {
    let (_, report) = train(&HandTrainParams {
        games: 60,
        ..small(1)
    });
    assert!(report.held_out_samples > 100);
    assert!(
        report.held_out_model < report.held_out_uniform,
        "model {} uniform {}",
        report.held_out_model,
        report.held_out_uniform
    );
}

#[test]
fn ismcts_with_the_hand_model_is_deterministic() {
    let config: IsmctsConfig = ismcts_config(
        &"ismcts:iterations=20,worlds=40,hand=learned"
            .parse()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(config.hand, Some(1.0));
    assert!(build(&"ismcts:hand=oracle".parse().unwrap(), 0).is_err());
    assert!(build(&"ismcts:hand=learned,hand_a=-1".parse().unwrap(), 0).is_err());
    let case: Case = "7,5".parse().unwrap();
    let record = |seed: u64| {
        let mut moves = Vec::new();
        for pair in 0..4 {
            let deal = Deal::seeded(case, 31, pair);
            let mut a = Ismcts::new(config.clone(), seed);
            let mut b = build(&"tc-server".parse().unwrap(), 0).unwrap();
            play(&deal, &mut a, &mut b, |_, m, _| moves.push(m));
            moves.push(DominoMove::Pass);
        }
        moves
    };
    let first = record(2);
    assert_eq!(first, record(2));
    assert_ne!(first, record(3), "the seed is used");
}
