//! Perft: counting move sequences, the standard test of a move generator.

use super::Quarto;
use crate::Game;

/// The number of move sequences of exactly `depth` plies from `pos`. Sequences through
/// a game that ends earlier are not counted; the last ply is bulk-counted.
///
/// ```
/// use arena_core::quarto::{perft, Quarto, Variant};
///
/// let start = Quarto::new(Variant::Lines);
/// assert_eq!(perft(&start, 1), 16);
/// assert_eq!(perft(&start, 2), 3_840);
/// assert_eq!(perft(&start, 3), 806_400);
/// ```
pub fn perft(pos: &Quarto, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(pos.count_legal_moves()),
        _ => {
            let mut moves = Vec::with_capacity(256);
            pos.legal_moves_into(&mut moves);
            moves
                .iter()
                .map(|&mv| {
                    let mut child = *pos;
                    child.play_unchecked(mv);
                    if child.is_over() {
                        0
                    } else {
                        perft(&child, depth - 1)
                    }
                })
                .sum()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quarto::{Case, Variant};

    /// Perft with no shortcuts: plays and lists every move down to the leaves.
    fn slow_perft(pos: &Quarto, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if pos.is_over() {
            return 0;
        }
        pos.legal_moves()
            .into_iter()
            .map(|mv| slow_perft(&pos.play(mv).unwrap(), depth - 1))
            .sum()
    }

    #[test]
    fn bulk_counting_matches_playing_everything() {
        // Late openings, where wins and the last piece change the counts.
        for variant in Variant::ALL {
            for plies in [10, 12, 13, 14, 15] {
                for seed in 0..4 {
                    let pos = Quarto::seeded_opening(Case::new(variant, plies), seed, 0);
                    for depth in 0..=3 {
                        assert_eq!(
                            perft(&pos, depth),
                            slow_perft(&pos, depth),
                            "{variant} {} depth {depth}",
                            pos.setup()
                        );
                    }
                }
            }
        }
    }
}
