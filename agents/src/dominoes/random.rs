use arena_core::dominoes::{DominoMove, DominoView, Dominoes};
use arena_core::rng::below;
use arena_core::{Agent, AgentError};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// A uniformly random legal move, from its own seeded stream.
pub struct Random {
    rng: ChaCha8Rng,
}

impl Random {
    pub fn new(seed: u64) -> Random {
        Random {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Agent<Dominoes> for Random {
    fn play(&mut self, view: &DominoView<'_>) -> Result<DominoMove, AgentError> {
        let moves = view.legal_move_list();
        let k = below(&mut self.rng, moves.len() as u32) as usize;
        moves
            .get(k)
            .ok_or_else(|| AgentError::Crash("no legal move".into()))
    }
}
