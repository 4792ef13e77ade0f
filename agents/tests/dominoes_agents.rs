//! Built-in Dominoes agents: legality, budgets, determinism, sound inference.

use agents::dominoes::inference::Belief;
use agents::dominoes::{EndgamePlayer, Greedy, Pimc, PimcConfig, Solver, build, endgame_of};
use agents::spec::Spec;
use arena_core::dominoes::{Case, Deal, DominoMove, Dominoes, Endgame};
use arena_core::{Agent, Game, Seat};

mod dominoes_play;
use dominoes_play::play;

#[test]
fn every_builtin_plays_legal_moves_in_every_case() {
    for name in [
        "random",
        "greedy",
        "smart",
        "endgame",
        "pimc:k=4",
        "pimc:k=3,policy=greedy,endgame=0",
        "pimc:k=3,opp=tc-server",
        "pimc:k=3,policy=learned,opp=read",
        "pimc-read",
        "pimc-read:k=5",
        "pimc-read:k=5,late=3",
        "pimc-read:k=5,blend=0.5",
        "best:iterations=5,worlds=20",
        "expecti:depth=2,rollouts=2,worlds=20",
        "expecti:depth=3,rollouts=1,worlds=10,read=0",
        "ismcts:iterations=5,worlds=20",
        "ismcts:iterations=4,worlds=10,mo=1,opp=ucb,bias=2",
        "ismcts:iterations=4,worlds=10,opp=ucb,solve=0,c=0",
    ] {
        let spec: Spec = name.parse().unwrap();
        for case in Case::all() {
            let deal = Deal::seeded(case, 11, 0);
            let mut a = build(&spec, 1).unwrap();
            let mut b = build(&"random".parse().unwrap(), 2).unwrap();
            play(&deal, &mut a, &mut b, |_, _, _| {});
            play(&deal.with_hands_exchanged(), &mut b, &mut a, |_, _, _| {});
        }
    }
}

#[test]
fn pimc_specs_are_checked() {
    for bad in [
        "pimc:k=0",
        "pimc:k=x",
        "pimc:policy=deep",
        "pimc:endgame=2",
        "pimc:ms=5",
        "pimc:blend=1.5",
        "pimc-read:late=x",
        "pimc-read:budget=huge",
        "best:budget=huge",
        "best:k=5",
        "smart:k=1",
    ] {
        let spec: Spec = bad.parse().unwrap();
        assert!(build(&spec, 0).is_err(), "{bad} was accepted");
    }
    let tco09 = |s: &str| agents::dominoes::pimc_config(&s.parse().unwrap()).unwrap();
    assert_eq!(
        tco09("pimc-read:budget=tco09"),
        tco09("pimc-read:k=4000,blend=0.5")
    );
    assert_eq!(tco09("pimc-read:budget=tco09,k=9").worlds, 9);
    assert_eq!(tco09("pimc-read:budget=default"), tco09("pimc-read"));
    assert_eq!(
        tco09("pimc-read").opponent,
        agents::dominoes::PimcConfig::reading().opponent
    );
    let best = |s: &str| agents::dominoes::ismcts_config(&s.parse().unwrap()).unwrap();
    assert_eq!(best("best"), agents::dominoes::IsmctsConfig::default());
    assert_eq!(best("best:budget=tco09"), best("best:iterations=4000"));
    assert_eq!(best("best:budget=tco09,iterations=9").iterations, 9);
    let spec: Spec = "pimc:k=7,policy=greedy,endgame=0".parse().unwrap();
    let c = agents::dominoes::pimc_config(&spec).unwrap();
    assert_eq!(c.worlds, 7);
    assert!(!c.endgame);
    assert_eq!(
        c.opponent,
        agents::dominoes::Opponent::Fixed(c.policy.clone())
    );
}

#[test]
fn pimc_never_exceeds_its_iteration_budget() {
    for case in Case::all() {
        for k in [1, 5, 20] {
            let config = PimcConfig {
                worlds: k,
                ..PimcConfig::default()
            };
            let mut pimc = Pimc::new(config, 3);
            let mut greedy = Greedy;
            let deal = Deal::seeded(case, 5, k);
            let mut game = Dominoes::new(&deal);
            let mut decisions = 0;
            while !game.is_over() {
                let m = if game.to_move() == Seat::A {
                    let legal = game.legal_moves().len();
                    let before = pimc.total_work();
                    let m = pimc.play(&game.view()).unwrap();
                    assert_eq!(pimc.total_work() - before, pimc.last_work());
                    assert!(
                        pimc.last_work() <= pimc.budget(legal),
                        "{} rollouts for {legal} moves at k={k}",
                        pimc.last_work()
                    );
                    if legal == 1 {
                        assert_eq!(pimc.last_work(), 0);
                    }
                    decisions += 1;
                    m
                } else {
                    greedy.play(&game.view()).unwrap()
                };
                game.play_unchecked(m);
            }
            assert!(decisions > 0);
        }
    }
}

#[test]
fn pimc_is_deterministic_for_a_seed() {
    let case: Case = "7,6".parse().unwrap();
    let record = |seed: u64| {
        let mut moves = Vec::new();
        for pair in 0..6 {
            let deal = Deal::seeded(case, 21, pair);
            let mut a = Pimc::new(
                PimcConfig {
                    worlds: 10,
                    ..PimcConfig::default()
                },
                seed,
            );
            let mut b = Greedy;
            play(&deal, &mut a, &mut b, |_, m, _| moves.push(m));
        }
        moves
    };
    assert_eq!(record(9), record(9));
}

#[test]
fn a_reading_player_is_deterministic_for_a_seed() {
    let case: Case = "8,5".parse().unwrap();
    let record = |seed: u64| {
        let mut moves = Vec::new();
        for pair in 0..6 {
            let deal = Deal::seeded(case, 22, pair);
            let config = PimcConfig {
                worlds: 20,
                ..PimcConfig::reading()
            };
            let mut a = Pimc::new(config, seed);
            let mut b = build(&"tc-server".parse().unwrap(), 0).unwrap();
            play(&deal, &mut a, &mut b, |_, m, _| moves.push(m));
            moves.push(DominoMove::Pass);
        }
        moves
    };
    let first = record(4);
    assert_eq!(first, record(4));
    assert_ne!(first, record(5), "the seed is used");
}

#[test]
fn inference_never_excludes_the_true_hand() {
    let mut checked = 0;
    for case in Case::all() {
        for pair in 0..10 {
            let deal = Deal::seeded(case, 77, pair);
            let mut a = build(&"random".parse().unwrap(), u64::from(pair)).unwrap();
            let mut b = build(&"greedy".parse().unwrap(), 0).unwrap();
            let mut rng =
                <rand_chacha::ChaCha8Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(1);
            play(&deal, &mut a, &mut b, |game, _, seat| {
                let view = game.view();
                let belief = Belief::of(&view);
                let truth = game.hand(seat.other()).mask();
                assert_eq!(
                    belief.opponent_len() as usize,
                    game.hand(seat.other()).len()
                );
                assert!(
                    belief.consistent(truth),
                    "true hand excluded in\n{game}\n{belief:?}"
                );
                for _ in 0..3 {
                    let s = belief.sample_hand(&mut rng);
                    assert!(belief.consistent(s), "inconsistent sample in\n{game}");
                }
                checked += 1;
            });
        }
    }
    assert!(checked > 1000);
}

#[test]
fn endgame_player_plays_optimally_once_the_stock_is_empty() {
    let mut solver = Solver::new();
    let mut checked = 0;
    for case in Case::all() {
        for pair in 0..10 {
            let deal = Deal::seeded(case, 3, pair);
            let mut a = EndgamePlayer::new();
            let mut b = build(&"random".parse().unwrap(), u64::from(pair)).unwrap();
            play(&deal, &mut a, &mut b, |game, m, seat| {
                if seat == Seat::A && game.stock_len() == 0 {
                    let eg = Endgame::of(game).unwrap();
                    assert_eq!(
                        endgame_of(&game.view()).map(|e| e.to_string().len()),
                        Some(eg.to_string().len())
                    );
                    assert!(solver.solve(&eg).best.contains(&m), "{m} in {eg}");
                    checked += 1;
                }
            });
        }
    }
    assert!(checked > 50);
}
