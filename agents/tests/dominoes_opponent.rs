//! Opponent models and reading the opponent: the rollout policies reproduce the agents
//! they model, and `best`'s belief moves toward the opponent it plays.

use agents::dominoes::inference::Belief;
use agents::dominoes::opponent::{OpponentModel, default_library, observations};
use agents::dominoes::sim::Policy;
use agents::dominoes::worlds::base_sim;
use agents::dominoes::{Pimc, PimcConfig, build};
use arena_core::dominoes::{Case, Deal, DominoMove, Dominoes, End, Event};
use arena_core::{Agent, Game, Seat};

/// The rollout position of `game` for the seat to move, with the other's true hand.
fn full_sim(game: &Dominoes) -> agents::dominoes::sim::Sim {
    let view = game.view();
    let belief = Belief::of(&view);
    let mut sim = base_sim(&view, &belief);
    sim.hands[1] = game.hand(game.to_move().other()).mask();
    // Only the stock's size is visible to a policy.
    sim.stock_end = view.stock() as u8;
    sim
}

/// Every built-in deterministic agent and the rollout policy that models it agree on
/// every placement with a choice, up to ties between equal tiles (whose order in hand
/// the policy cannot see).
#[test]
fn rollout_policies_choose_what_their_agents_play() {
    for (name, policy) in [
        ("greedy", Policy::Greedy),
        ("smart", Policy::Smart),
        ("tc-server", Policy::tc_server()),
    ] {
        let model = OpponentModel::exact(policy.clone(), 1.0);
        let (mut checked, mut agreed) = (0, 0);
        for case in Case::all() {
            for pair in 0..6 {
                let deal = Deal::seeded(case, 31, pair);
                let mut game = Dominoes::new(&deal);
                let mut agent = build(&name.parse().unwrap(), 0).unwrap();
                let mut other = build(&"random".parse().unwrap(), u64::from(pair)).unwrap();
                while !game.is_over() {
                    let view = game.view();
                    let m = if game.to_move() == Seat::A {
                        agent.play(&view).unwrap()
                    } else {
                        other.play(&view).unwrap()
                    };
                    if game.to_move() == Seat::A
                        && view.legal_moves().len() > 1
                        && let DominoMove::Place { end, index } = m
                    {
                        let sim = full_sim(&game);
                        let tile = view.hand()[index as usize];
                        let (l, r) = (view.line().left(), view.line().right());
                        let end = if l == r { End::Left } else { end };
                        checked += 1;
                        // The policy's own choice has the agent's move among its ties.
                        if model.likelihood(&sim, tile, end) > agents::dominoes::opponent::SLIP {
                            agreed += 1;
                        } else {
                            let chosen = sim.choose(&policy).unwrap();
                            panic!("{name} played {tile} {end:?}, its policy {chosen:?}\n{game}");
                        }
                    }
                    game.play_unchecked(m);
                }
            }
        }
        assert!(checked > 200, "{name}: only {checked} choices");
        assert_eq!(agreed, checked);
    }
}

/// Plays `best` (seat A, `k` worlds) against `opponent` on a deal pair and returns its
/// posterior over the library after each game.
fn posteriors_against(opponent: &str, case: Case, pair: u32, k: u32) -> Vec<Vec<(String, f64)>> {
    let deal = Deal::seeded(case, 5, pair);
    let mut out = Vec::new();
    for deal in [deal, deal.with_hands_exchanged()] {
        let config = PimcConfig {
            worlds: k,
            ..PimcConfig::reading()
        };
        let mut best = Pimc::new(config, u64::from(pair));
        let mut other = build(&opponent.parse().unwrap(), 3).unwrap();
        let mut game = Dominoes::new(&deal);
        while !game.is_over() {
            let view = game.view();
            let m = if game.to_move() == Seat::A {
                best.play(&view).unwrap()
            } else {
                other.play(&view).unwrap()
            };
            game.play_unchecked(m);
        }
        out.push(best.opponent_posterior().unwrap());
    }
    out
}

/// Within a game, `best`'s posterior weight of the model that is its true opponent
/// rises above its prior, and above the weight the same model gets against the other
/// opponents of the library (the mean over 24 games per opponent).
#[test]
fn the_belief_moves_toward_the_true_model() {
    let opponents = ["greedy", "smart", "tc-server", "random"];
    let names: Vec<String> = default_library().iter().map(|m| m.name.clone()).collect();
    let prior = 1.0 / names.len() as f64;
    // mean[o][m]: the mean posterior of model m against opponent o.
    let mut mean = vec![vec![0.0; names.len()]; opponents.len()];
    for (o, opponent) in opponents.iter().enumerate() {
        let mut games = 0.0;
        for case in ["7,7", "9,6", "6,5"] {
            for pair in 0..4 {
                for post in posteriors_against(opponent, case.parse().unwrap(), pair, 50) {
                    for (m, (_, w)) in mean[o].iter_mut().zip(&post) {
                        *m += w;
                    }
                    games += 1.0;
                }
            }
        }
        mean[o].iter_mut().for_each(|m| *m /= games);
    }
    for (o, opponent) in opponents.iter().enumerate() {
        let truth = names.iter().position(|n| n == opponent).unwrap();
        assert!(mean[o][truth] > prior, "{opponent}: {:?}", mean[o]);
        for (other, row) in mean.iter().enumerate() {
            if other != o {
                assert!(
                    mean[o][truth] > row[truth],
                    "{opponent} gets {} against itself, {} against {}",
                    mean[o][truth],
                    row[truth],
                    opponents[other]
                );
            }
        }
    }
}

/// At each opponent placement kept as an observation, the tiles it placed from then on
/// that the observations count as already held were in its hand then: a tile placed
/// right after a draw is the drawn one and is never credited, and a placement followed
/// by a draw and a later placement of an older-looking tile is not kept.
#[test]
fn observations_credit_the_opponent_with_the_tiles_it_held() {
    let (mut credited, mut wrong, mut checked) = (0, 0, 0);
    for case in Case::all() {
        for pair in 0..4 {
            let deal = Deal::seeded(case, 41, pair);
            let mut game = Dominoes::new(&deal);
            let mut a = build(&"smart".parse().unwrap(), 0).unwrap();
            let mut b = build(&"random".parse().unwrap(), u64::from(pair)).unwrap();
            // B's hand before each of its moves, by history index of the move.
            let mut hands = Vec::new();
            while !game.is_over() {
                let seat = game.to_move();
                let view = game.view();
                let m = if seat == Seat::A {
                    a.play(&view).unwrap()
                } else {
                    hands.push((view.history().len(), game.hand(Seat::B).mask()));
                    b.play(&view).unwrap()
                };
                game.play_unchecked(m);
                if game.is_over() || game.to_move() != Seat::A {
                    continue;
                }
                let view = game.view();
                let history = view.history();
                let observed = observations(&view);
                for obs in &observed {
                    let held = hands.iter().find(|(at, _)| *at == obs.at).unwrap().1;
                    assert_ne!(obs.tile.bit() & held, 0);
                    for later in observed.iter().filter(|o| o.at > obs.at) {
                        if matches!(history[later.at - 1], Event::Draw { .. }) {
                            assert_eq!(obs.placed_since & later.tile.bit(), 0, "{game}");
                        }
                    }
                    credited += obs.placed_since.count_ones();
                    wrong += (obs.placed_since & !held).count_ones();
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 500, "{checked}");
    assert!(credited > 1000, "{credited}");
    assert_eq!(
        wrong, 0,
        "{wrong} of {credited} credited tiles were not held"
    );
}
