//! # arena-core
//!
//! The pure, synchronous heart of Arena: exact referees for the TCO09 Dominoes draw
//! game and Quarto, their notations, the [`Agent`] trait and seeded streams. No I/O,
//! clocks, threads or ambient randomness live here.
//!
//! ```
//! use arena_core::{Game, Seat};
//! use arena_core::dominoes::{Case, Deal, Dominoes};
//!
//! let case: Case = "5,4".parse().unwrap();
//! let deal = Deal::seeded(case, 42, 0);
//! let mut game = Dominoes::new(&deal);
//! while !game.is_over() {
//!     let mv = game.legal_moves()[0];
//!     game.play_unchecked(mv);
//! }
//! assert!(game.outcome().is_some());
//! ```

pub mod agent;
pub mod dominoes;
pub mod game;
pub mod protocol;
pub mod puzzle;
pub mod quarto;
pub mod rng;

pub use agent::{Agent, AgentError};
pub use game::{Game, IllegalMove, Outcome, ParseError, PlayError, Seat};
