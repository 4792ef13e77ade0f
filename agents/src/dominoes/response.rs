//! The best response to a known policy in a perfect-information endgame.
//!
//! Once the stock is empty both hands are known. If the opponent plays a deterministic
//! policy, its replies are fixed, so our best play is a one-player search: the maximum
//! over our placements, the policy's choice at its turns. Against a fallible opponent
//! this wins positions that perfect play by both sides (the [`super::solver`]) calls
//! lost, and it never does worse against that policy.

use arena_core::dominoes::{End, Tile};

use super::sim::{Policy, Sim, SimResult};

/// The searched value, in half points for seat 0 (2 win, 1 tie, 0 loss), of `sim`
/// (stock empty) with seat 1 playing `policy`; `None` once `nodes` runs out.
pub fn value_against(sim: &Sim, policy: &Policy, nodes: &mut u64) -> Option<u32> {
    if *nodes == 0 {
        return None;
    }
    *nodes -= 1;
    if sim.to_move == 1 {
        match sim.choose(policy) {
            Some((t, end)) => {
                let mut next = *sim;
                if next.place(t, end) {
                    return Some(0);
                }
                return value_against(&next, policy, nodes);
            }
            None => return pass(sim, policy, nodes),
        }
    }
    let (options, count) = sim.placements();
    if count == 0 {
        return pass(sim, policy, nodes);
    }
    let mut best = 0;
    for &(t, end) in &options[..count] {
        let mut next = *sim;
        let v = if next.place(t, end) {
            2
        } else {
            value_against(&next, policy, nodes)?
        };
        best = best.max(v);
        if best == 2 {
            break;
        }
    }
    Some(best)
}

/// The value after the player to move passes (the stock is empty).
fn pass(sim: &Sim, policy: &Policy, nodes: &mut u64) -> Option<u32> {
    let mut next = *sim;
    match next.draw_or_pass() {
        Some(res) => Some(res.half_points(0)),
        None => value_against(&next, policy, nodes),
    }
}

/// The value after we (seat 0, to move) play `(tile, end)`, or pass when `None`.
pub fn value_after(
    sim: &Sim,
    placement: Option<(Tile, End)>,
    policy: &Policy,
    nodes: &mut u64,
) -> Option<u32> {
    match placement {
        Some((t, end)) => {
            let mut next = *sim;
            if next.place(t, end) {
                return Some(SimResult::Winner(0).half_points(0));
            }
            value_against(&next, policy, nodes)
        }
        None => pass(sim, policy, nodes),
    }
}
