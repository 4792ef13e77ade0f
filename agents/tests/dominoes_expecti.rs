//! `expecti` (legality: `dominoes_agents.rs`): specs, determinism, sound marginals, exact endgames, strength.

use agents::dominoes::inference::Belief;
use agents::dominoes::{Expecti, ExpectiConfig, Solver, build, endgame_of, expecti_config};
use agents::spec::Spec;
use arena_core::dominoes::{Case, Deal, DominoMove};
use arena_core::{Game, Seat};

mod dominoes_play;
use dominoes_play::play;

/// A small, fast setting for the tests.
fn small() -> ExpectiConfig {
    ExpectiConfig {
        depth: 2,
        rollouts: 2,
        worlds: 20,
        ..ExpectiConfig::default()
    }
}

#[test]
fn expecti_specs_are_checked() {
    for bad in [
        "expecti:depth=0",
        "expecti:rollouts=0",
        "expecti:worlds=0",
        "expecti:read=2",
        "expecti:read=some",
        // `read=all` was removed after measuring nothing (docs/benchmarks.md, issue 34).
        "expecti:read=all",
        "expecti:depth=x",
        "expecti:k=5",
    ] {
        let spec: Spec = bad.parse().unwrap();
        assert!(build(&spec, 0).is_err(), "{bad} was accepted");
    }
    let spec: Spec = "expecti:depth=5,rollouts=3,worlds=9,read=0,nodes=77"
        .parse()
        .unwrap();
    let c = expecti_config(&spec).unwrap();
    assert_eq!(
        c,
        ExpectiConfig {
            depth: 5,
            rollouts: 3,
            worlds: 9,
            read: false,
            solver_nodes: 77,
        }
    );
    let default = expecti_config(&"expecti".parse().unwrap()).unwrap();
    assert_eq!(default, ExpectiConfig::default());
}

#[test]
fn expecti_is_deterministic_for_a_seed() {
    let case: Case = "8,5".parse().unwrap();
    let record = |seed: u64| {
        let mut moves = Vec::new();
        for pair in 0..6 {
            let deal = Deal::seeded(case, 23, pair);
            let mut a = Expecti::new(small(), seed);
            let mut b = build(&"smart".parse().unwrap(), 0).unwrap();
            play(&deal, &mut a, &mut b, |_, m, _| moves.push(m));
            moves.push(DominoMove::Pass);
        }
        moves
    };
    let first = record(4);
    assert_eq!(first, record(4));
    assert_ne!(first, record(5), "the seed is used");
}

/// The root's marginals: they sum to the opponent's hand size, vanish on tiles we see
/// and on tiles no group of the belief may hold, and are 1 on every unseen tile once
/// the stock is empty.
#[test]
fn marginals_follow_the_belief() {
    let mut checked = 0;
    let mut exact = 0;
    for case in Case::all() {
        for pair in 0..3 {
            let deal = Deal::seeded(case, 78, pair);
            let mut a = Expecti::new(small(), u64::from(pair));
            let mut b = build(&"smart".parse().unwrap(), 0).unwrap();
            let mut probe = Expecti::new(small(), 9);
            play(&deal, &mut a, &mut b, |game, _, seat| {
                if seat != Seat::A {
                    return;
                }
                let view = game.view();
                let belief = Belief::of(&view);
                let p = probe.marginals(&view);
                let sum: f64 = p.iter().sum();
                assert!(
                    (sum - view.opponent_hand_len() as f64).abs() < 1e-3,
                    "marginals sum to {sum} in\n{game}"
                );
                let nowhere = belief.groups.iter().fold(u64::MAX, |m, g| m & g.forbidden);
                for (i, &x) in p.iter().enumerate() {
                    let bit = 1u64 << i;
                    if belief.unseen & bit == 0 || nowhere & bit != 0 {
                        assert_eq!(x, 0.0, "tile {i} in\n{game}");
                    }
                    if view.stock() == 0 && belief.unseen & bit != 0 {
                        assert_eq!(x, 1.0, "tile {i} in\n{game}");
                    }
                }
                if view.stock() == 0 {
                    exact += 1;
                }
                checked += 1;
            });
        }
    }
    assert!(
        checked > 200 && exact > 5,
        "{checked} checked, {exact} exact"
    );
}

/// Once the stock is empty every choice is optimal under perfect play.
#[test]
fn expecti_plays_optimally_once_the_stock_is_empty() {
    let mut solver = Solver::new();
    let mut checked = 0;
    for case in Case::all() {
        for pair in 0..6 {
            let deal = Deal::seeded(case, 4, pair);
            let mut a = Expecti::new(small(), 1);
            let mut b = build(&"greedy".parse().unwrap(), 0).unwrap();
            play(&deal, &mut a, &mut b, |game, m, seat| {
                let view = game.view();
                let Some(eg) = endgame_of(&view) else {
                    return;
                };
                if seat != Seat::A || view.legal_moves().len() < 2 {
                    return;
                }
                let sol = solver.solve(&eg);
                assert!(sol.best.contains(&m), "{m} is not optimal in\n{game}");
                checked += 1;
            });
        }
    }
    assert!(checked > 20, "only {checked} endgame choices");
}

/// `expecti` (default settings) against `smart`, 400 paired games; the issue asks for
/// more than 52 per 100 (it measures about 59, see docs/benchmarks.md).
#[test]
#[ignore = "400 games of expecti: about 10 CPU seconds in release, minutes in debug; run with --release -- --ignored"]
fn expecti_beats_smart() {
    let mut points = 0.0;
    let mut games = 0.0;
    for case in Case::all() {
        for pair in 0..10 {
            let deal = Deal::seeded(case, 31, pair);
            for (d, seat) in [(deal, Seat::A), (deal.with_hands_exchanged(), Seat::B)] {
                let mut e = build(&"expecti".parse().unwrap(), u64::from(pair)).unwrap();
                let mut s = build(&"smart".parse().unwrap(), 0).unwrap();
                let g = if seat == Seat::A {
                    play(&d, &mut e, &mut s, |_, _, _| {})
                } else {
                    play(&d, &mut s, &mut e, |_, _, _| {})
                };
                points += g.outcome().unwrap().score(seat);
                games += 1.0;
            }
        }
    }
    let score = 100.0 * points / games;
    assert!(
        score > 52.0,
        "expecti scored {score:.1} per 100 against smart"
    );
}
