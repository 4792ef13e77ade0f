//! `smart`: a one-move playability/blocking heuristic (no search).
//!
//! For each placement it scores the ends it leaves: own tiles that will still fit
//! (+), unseen tiles that fit (the opponent may hold them, -), ends the opponent is
//! known to be void in (+), and small pip and double terms ([`super::sim::SMART`]).

use arena_core::dominoes::{DominoMove, DominoView, Dominoes, End};
use arena_core::{Agent, AgentError};

use super::inference::Belief;
use super::sim::{after, smart_score};

/// The smart heuristic as a player. Deterministic, no seed.
pub struct Smart;

/// The smart heuristic's move in `view` (ties go to the earlier legal move).
pub fn smart_move(view: &DominoView<'_>, belief: &Belief) -> DominoMove {
    let moves = view.legal_moves();
    let hand = view.hand().iter().fold(0u64, |m, t| m | t.bit());
    let (l, r) = (view.line().left(), view.line().right());
    let opp_void = belief.void[view.seat().other().index()];
    let mut best = (i32::MIN, moves[0]);
    for &m in &moves {
        if let DominoMove::Place { end, index } = m {
            let t = view.hand()[index as usize];
            if end == End::Right && l == r {
                continue; // mirrors L with equal ends
            }
            let (nl, nr) = after(t, end, l, r);
            let s = smart_score(hand, t, nl, nr, belief.unseen, opp_void);
            if s > best.0 {
                best = (s, m);
            }
        }
    }
    best.1
}

impl Agent<Dominoes> for Smart {
    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        Ok(smart_move(view, &Belief::of(view)))
    }
}
