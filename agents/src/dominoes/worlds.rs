//! Sampled worlds shared by the searches that guess the hidden tiles (`pimc`, `best`,
//! `expecti`): opponent hands drawn from the [`Belief`], the stock shuffled, and each
//! world weighed by how well the opponent's models explain its placements in it.

use arena_core::Seat;
use arena_core::dominoes::DominoView;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::Rng;

use super::inference::{Belief, shuffled};
use super::opponent::{Observation, Reader};
use super::sim::Sim;

/// `count` worlds: the opponent's hand and the stock order, from the belief. A
/// `reading` player also gets, for each world and each of the opponent's placements
/// `observed`, the tiles of its hand that it already held then (world-major).
pub(crate) fn sample(
    rng: &mut ChaCha8Rng,
    reading: bool,
    base: &Sim,
    belief: &Belief,
    count: u32,
    observed: &[Observation],
) -> (Vec<Sim>, Vec<u64>) {
    let mut held = Vec::new();
    let worlds = (0..count)
        .map(|_| {
            let mut world = *base;
            let opp = if reading {
                let start = held.len();
                held.resize(start + observed.len(), 0);
                belief.sample_hand_by_group(rng, |group, tiles| {
                    for (h, obs) in held[start..].iter_mut().zip(observed) {
                        if group.born < obs.at {
                            *h |= tiles;
                        }
                    }
                })
            } else {
                belief.sample_hand(rng)
            };
            world.hands[1] = opp;
            let n = shuffled(rng, belief.unseen & !opp, &mut world.stock);
            world.stock_front = 0;
            world.stock_end = n as u8;
            world
        })
        .collect();
    (worlds, held)
}

/// Reads the opponent's moves over `worlds`; returns each world's weight and the model
/// its rollouts use, drawn by its joint weight (no reader: weight 1, model 0).
pub(crate) fn read(
    rng: &mut ChaCha8Rng,
    reader: Option<&mut Reader>,
    view: &DominoView<'_>,
    observed: &[Observation],
    worlds: &[Sim],
    held: &[u64],
) -> Vec<(f64, usize)> {
    let Some(reader) = reader else {
        return vec![(1.0, 0); worlds.len()];
    };
    let joint = reader.update(view, observed, worlds.len(), held);
    let m = reader.models().len();
    joint
        .chunks(m)
        .map(|row| {
            let total: f64 = row.iter().sum();
            // The model of this world's rollouts, drawn by its joint weight.
            let mut x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let mut pick = m - 1;
            for (k, &p) in row.iter().enumerate() {
                if x < p {
                    pick = k;
                    break;
                }
                x -= p;
            }
            (total, pick)
        })
        .collect()
}

/// The sim for a view with us as seat 0; the opponent's hand and the stock are left
/// for the caller to fill (in an exact endgame they are filled: the unseen tiles).
pub fn base_sim(view: &DominoView<'_>, belief: &Belief) -> Sim {
    let me = view.seat();
    let hand = view.hand().iter().fold(0u64, |m, t| m | t.bit());
    let all = (1u64 << arena_core::dominoes::set_size(view.case().n())) - 1;
    let idx = |s: Seat| s.index();
    Sim {
        hands: [hand, if belief.exact() { belief.unseen } else { 0 }],
        l: view.line().left(),
        r: view.line().right(),
        all,
        line: all & !belief.unseen & !hand,
        stock: [0; 45],
        stock_front: 0,
        stock_end: 0,
        to_move: 0,
        passes: u8::from(matches!(
            view.history().last(),
            Some(arena_core::dominoes::Event::Pass { .. })
        )),
        void: [belief.void[idx(me)], belief.void[idx(me.other())]],
    }
}
