//! Seeded openings (Q8): Quarto has no chance, so a pair's variety comes from here.

use super::{Case, Quarto, QuartoMove};
use crate::Game;
use crate::rng::{Family, Purpose, StreamId, below};

impl Quarto {
    /// The start of every game of pair `pair` in `case`: `case.opening_plies` random
    /// legal plies, none of which ends the game.
    ///
    /// Each ply is drawn with [`below`] on the pair's deal stream
    /// (`StreamId { family: Quarto, case_key: case.key(), matchup: 0, pair, purpose:
    /// Deal }`), uniformly among the legal moves that do not end the game, in
    /// [`Game::legal_moves_into`] order. If some ply has no such move, the opening
    /// restarts from the empty board, continuing the same stream. That needs every empty
    /// square to win for the piece in hand, each through its own line holding three
    /// pieces, so it cannot happen with fewer than 5 pieces on the board (8 for
    /// `lines`), i.e. for openings up to 6 plies (9 for `lines`). Measured over 2,000
    /// pairs: no restart up to 10 plies; restarts per opening 0.02 (`lines`) and 0.16
    /// (`squares`) at 14 plies, 0.17 and 0.69 at 15.
    /// Matchup 0 means every pairing of a round robin sees the same openings.
    ///
    /// # Panics
    /// If `case.opening_plies` exceeds [`Case::MAX_OPENING_PLIES`].
    pub fn seeded_opening(case: Case, master_seed: u64, pair: u32) -> Quarto {
        assert!(
            case.opening_plies <= Case::MAX_OPENING_PLIES,
            "{case}: at most {} opening plies",
            Case::MAX_OPENING_PLIES
        );
        let mut rng = StreamId {
            family: Family::Quarto,
            case_key: case.key(),
            matchup: 0,
            pair,
            purpose: Purpose::Deal,
        }
        .rng(master_seed);
        let mut moves = Vec::with_capacity(256);
        'attempt: loop {
            let mut pos = Quarto::new(case);
            for _ in 0..case.opening_plies {
                pos.legal_moves_into(&mut moves);
                // Only a placement without a give ends a game: it either wins or
                // places the last piece.
                moves.retain(|mv| !matches!(mv, QuartoMove::Place { give: None, .. }));
                if moves.is_empty() {
                    continue 'attempt;
                }
                let i = below(&mut rng, moves.len() as u32) as usize;
                pos.play_unchecked(moves[i]);
            }
            return pos;
        }
    }
}
