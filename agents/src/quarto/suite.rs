//! Seeded random positions for tests and benchmarks.

use arena_core::Game;
use arena_core::quarto::{Quarto, QuartoMove, Variant};
use arena_core::rng::below;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// Whether `mv` lets the opponent win at once with the piece it gives.
pub fn hands_over_a_win(pos: &Quarto, mv: QuartoMove) -> bool {
    let Some(give) = mv.give() else {
        return false;
    };
    let mut next = *pos;
    next.play_unchecked(mv);
    !next.is_over() && next.winning_squares(give) != 0
}

/// A position of `variant` with `empties` empty squares (1..=15) and a piece in hand,
/// reached by "random safe play" from the empty board: every ply is uniform among the
/// moves that neither end the game nor hand over a win at once (restarting when there
/// is none). Such positions are draw-heavy, the expensive kind to solve.
pub fn random_safe_position(variant: Variant, empties: u32, seed: u64) -> Quarto {
    random_play(variant, empties, seed, |pos, mv| !hands_over_a_win(pos, mv))
}

/// Like [`random_safe_position`] but uniform among all moves that do not end the game
/// (unsafe gives included), so wins and losses are common.
pub fn random_position(variant: Variant, empties: u32, seed: u64) -> Quarto {
    random_play(variant, empties, seed, |_, _| true)
}

/// Plays from the empty board down to `empties` empty squares, every ply uniform among
/// the moves that give a piece (the game goes on) and that `allowed` keeps; where none
/// is left, starts again (the generator runs on).
fn random_play(
    variant: Variant,
    empties: u32,
    seed: u64,
    allowed: impl Fn(&Quarto, QuartoMove) -> bool,
) -> Quarto {
    assert!((1..=15).contains(&empties), "1..=15 empty squares");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut moves = Vec::new();
    'attempt: loop {
        let mut pos = Quarto::new(variant);
        while 16 - pos.occupied().count_ones() > empties {
            pos.legal_moves_into(&mut moves);
            moves.retain(|&mv| {
                !matches!(mv, QuartoMove::Place { give: None, .. }) && allowed(&pos, mv)
            });
            if moves.is_empty() {
                continue 'attempt;
            }
            let mv = moves[below(&mut rng, moves.len() as u32) as usize];
            pos.play_unchecked(mv);
        }
        return pos;
    }
}
