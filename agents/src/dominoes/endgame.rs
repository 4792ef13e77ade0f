//! `endgame`: `greedy` while the stock has tiles, perfect play once it is empty.
//!
//! The solve is capped at `nodes` search nodes (default [`DEFAULT_ENDGAME_NODES`],
//! about a second at worst); the rare endgame that needs more (lopsided hands with 25+
//! tiles) is played greedily. The cap is a work count, so play stays deterministic.

use arena_core::dominoes::{DominoMove, DominoView, Dominoes, Endgame, Tile};
use arena_core::{Agent, AgentError};

use super::greedy::Greedy;
use super::solver::Solver;

/// Greedy until the stock is empty, then the exact solver; among optimal moves the
/// heaviest tile (greedy's order). Deterministic, no seed.
pub struct EndgamePlayer {
    solver: Solver,
    max_nodes: u64,
}

/// Solver nodes per decision by default.
pub const DEFAULT_ENDGAME_NODES: u64 = 5_000_000;

impl Default for EndgamePlayer {
    fn default() -> Self {
        EndgamePlayer::new()
    }
}

impl EndgamePlayer {
    pub fn new() -> EndgamePlayer {
        EndgamePlayer::with_max_nodes(DEFAULT_ENDGAME_NODES)
    }

    /// A player whose solves stop after `max_nodes` search nodes (then: greedy).
    pub fn with_max_nodes(max_nodes: u64) -> EndgamePlayer {
        EndgamePlayer {
            solver: Solver::new(),
            max_nodes,
        }
    }
}

/// The perfect-information endgame of a view whose stock is empty: the opponent
/// holds exactly the unseen tiles.
pub fn endgame_of(view: &DominoView<'_>) -> Option<Endgame> {
    if view.stock() > 0 {
        return None;
    }
    let unseen = view.unseen();
    let other: Vec<Tile> = (0..64u8)
        .filter(|i| unseen >> i & 1 == 1)
        .map(Tile::from_index)
        .collect();
    let previous_was_pass = matches!(
        view.history().last(),
        Some(arena_core::dominoes::Event::Pass { .. })
    );
    Some(Endgame {
        n: view.case().n(),
        left: view.line().left(),
        right: view.line().right(),
        mover: view.hand().to_vec(),
        other,
        previous_was_pass,
    })
}

impl Agent<Dominoes> for EndgamePlayer {
    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        let Some(sol) =
            endgame_of(view).and_then(|eg| self.solver.solve_within(&eg, self.max_nodes))
        else {
            return Greedy.play(view);
        };
        let weight = |m: &DominoMove| match *m {
            DominoMove::Place { index, .. } => {
                let t = view.hand()[index as usize];
                (t.pips(), t.is_double())
            }
            _ => (0, false),
        };
        Ok(*sol
            .best
            .iter()
            .rev()
            .max_by_key(|m| weight(m))
            .expect("a running game has a move"))
    }
}
