use arena_core::quarto::{Quarto, QuartoMove};
use arena_core::rng::below;
use arena_core::{Agent, AgentError, Game};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// Wins at once when it can; otherwise never gives a piece that lets the opponent win
/// at once when a safe move exists; otherwise a seeded uniform choice.
pub struct Greedy {
    rng: ChaCha8Rng,
    moves: Vec<QuartoMove>,
}

impl Greedy {
    pub fn new(seed: u64) -> Greedy {
        Greedy {
            rng: ChaCha8Rng::seed_from_u64(seed),
            moves: Vec::new(),
        }
    }
}

/// Whether `mv` ends the game at once (a winning placement) in `pos`.
fn wins_at_once(pos: &Quarto, mv: QuartoMove) -> bool {
    let mut next = *pos;
    next.play_unchecked(mv);
    next.outcome() == Some(arena_core::Outcome::Winner(pos.to_move()))
}

/// Whether after `mv` the opponent can win at once with the piece given.
fn hands_over_a_win(pos: &Quarto, mv: QuartoMove) -> bool {
    let Some(give) = mv.give() else {
        return false;
    };
    let mut next = *pos;
    next.play_unchecked(mv);
    !next.is_over() && next.winning_squares(give) != 0
}

impl Agent<Quarto> for Greedy {
    fn play(&mut self, view: &&Quarto) -> Result<QuartoMove, AgentError> {
        let pos = *view;
        pos.legal_moves_into(&mut self.moves);
        if let Some(&win) = self.moves.iter().find(|&&m| wins_at_once(pos, m)) {
            return Ok(win);
        }
        let safe: Vec<QuartoMove> = self
            .moves
            .iter()
            .copied()
            .filter(|&m| !hands_over_a_win(pos, m))
            .collect();
        let pool = if safe.is_empty() { &self.moves } else { &safe };
        Ok(pool[below(&mut self.rng, pool.len() as u32) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::quarto::{Setup, Variant};

    #[test]
    fn greedy_takes_a_win_and_avoids_handing_one_over() {
        // Row 0 holds three tall pieces (1, 3, 5); piece 7 (tall) in hand wins at square 3.
        let setup: Setup = "135.............:7".parse().unwrap();
        let pos = Quarto::from_setup(Variant::Lines, &setup).unwrap();
        let mut g = Greedy::new(1);
        assert_eq!(g.play(&&pos).unwrap().to_string(), "3");
        // With a short piece in hand (0), no win: it must not give a tall piece while
        // square 3 stays open... unless it fills square 3 itself.
        let setup: Setup = "135.............:0".parse().unwrap();
        let pos = Quarto::from_setup(Variant::Lines, &setup).unwrap();
        for seed in 0..20 {
            let mv = Greedy::new(seed).play(&&pos).unwrap();
            assert!(!hands_over_a_win(&pos, mv), "{mv}");
        }
    }
}
