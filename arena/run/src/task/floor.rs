//! `[limits] reply_floor_ms`: every reply of an agent is held until this long after its
//! call began. Without it, the time between a bot's reply and its next call is its
//! opponent's think time, and a search agent thinks longer where it has more moves:
//! a side channel on the hidden hand (`docs/protocol.md`, "What time tells").

use std::time::{Duration, Instant};

use arena_core::{Agent, AgentError, Game};

/// An agent whose every `play` takes at least `floor` of wall time.
pub struct Floored<A> {
    pub inner: A,
    pub floor: Duration,
}

impl<G: Game, A: Agent<G>> Agent<G> for Floored<A> {
    fn init(&mut self, case: &G::Case) -> Result<(), AgentError> {
        self.inner.init(case)
    }

    fn reset(&mut self, start: &G::View<'_>) -> Result<(), AgentError> {
        self.inner.reset(start)
    }

    fn play(&mut self, view: &G::View<'_>) -> Result<G::Move, AgentError> {
        let began = Instant::now();
        let reply = self.inner.play(view);
        if let Some(rest) = self.floor.checked_sub(began.elapsed()) {
            std::thread::sleep(rest);
        }
        reply
    }
}
