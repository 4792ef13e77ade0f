//! Opponent models and reading the opponent: the rollout policies reproduce the agents
//! they model, and `best`'s belief moves toward the opponent it plays.

use agents::dominoes::inference::Belief;
use agents::dominoes::opponent::{OpponentModel, default_library, window};
use agents::dominoes::pimc::base_sim;
use agents::dominoes::sim::Policy;
use agents::dominoes::{Pimc, PimcConfig, build};
use arena_core::dominoes::{Case, Deal, DominoMove, Dominoes, End};
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
