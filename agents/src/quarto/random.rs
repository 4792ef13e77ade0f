use arena_core::quarto::{Quarto, QuartoMove};
use arena_core::rng::below;
use arena_core::{Agent, AgentError, Game};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// A uniformly random legal move, from its own seeded stream.
pub struct Random {
    rng: ChaCha8Rng,
    moves: Vec<QuartoMove>,
}

impl Random {
    pub fn new(seed: u64) -> Random {
        Random {
            rng: ChaCha8Rng::seed_from_u64(seed),
            moves: Vec::new(),
        }
    }
}

impl Agent<Quarto> for Random {
    fn play(&mut self, view: &&Quarto) -> Result<QuartoMove, AgentError> {
        view.legal_moves_into(&mut self.moves);
        Ok(self.moves[below(&mut self.rng, self.moves.len() as u32) as usize])
    }
}
