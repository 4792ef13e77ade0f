//! The one trait every player implements, built-in or external.

use crate::game::Game;

/// Why an agent produced no move. Illegal moves are not here: the referee judges those.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    #[error("timed out: {0}")]
    Timeout(String),
    #[error("crashed: {0}")]
    Crash(String),
    #[error("malformed reply: {0}")]
    Malformed(String),
    /// A reply in the grammar that names what does not exist (a Quarto square 16): the
    /// adapter's verdict before the referee's, lost as `illegal` all the same.
    #[error("illegal move: {0}")]
    Illegal(String),
    #[error("out of memory: {0}")]
    Memory(String),
    #[error("failed to start: {0}")]
    Startup(String),
    /// A limit of the sandbox other than memory: CPU time, the cap on processes.
    #[error("over a limit: {0}")]
    Limit(String),
}

/// A player. The calls follow TCO09's interface: [`Agent::init`] once per test case,
/// [`Agent::reset`] once per game, [`Agent::play`] for every decision.
///
/// Agents are deterministic functions of their construction seed and the calls they
/// receive; they own no ambient randomness or clocks (time budgets are handed in).
pub trait Agent<G: Game> {
    /// Once per test case, before its first game.
    fn init(&mut self, _case: &G::Case) -> Result<(), AgentError> {
        Ok(())
    }

    /// Once per game, with the game's public start (Dominoes: the starting tile).
    fn reset(&mut self, _start: &G::View<'_>) -> Result<(), AgentError> {
        Ok(())
    }

    /// One decision for the seat to move in `view`.
    fn play(&mut self, view: &G::View<'_>) -> Result<G::Move, AgentError>;
}

impl<G: Game, A: Agent<G> + ?Sized> Agent<G> for Box<A> {
    fn init(&mut self, case: &G::Case) -> Result<(), AgentError> {
        (**self).init(case)
    }
    fn reset(&mut self, start: &G::View<'_>) -> Result<(), AgentError> {
        (**self).reset(start)
    }
    fn play(&mut self, view: &G::View<'_>) -> Result<G::Move, AgentError> {
        (**self).play(view)
    }
}
