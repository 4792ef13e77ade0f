//! Quarto (Q1–Q10): pieces, squares, the two line variants, notation, the rules engine,
//! perft and seeded openings.
//!
//! ```
//! use arena_core::Game;
//! use arena_core::quarto::{Case, Quarto};
//!
//! let case: Case = "lines:4".parse().unwrap();
//! let mut game = Quarto::seeded_opening(case, 42, 0);
//! assert_eq!(game.ply(), 4);
//! while !game.is_over() {
//!     let mv = game.legal_moves()[0];
//!     game.play_unchecked(mv);
//! }
//! assert!(game.outcome().is_some());
//! ```

// Every public item of the rules engine is documented; keep it so.
#![warn(missing_docs)]

mod case;
mod moves;
mod notation;
mod opening;
mod perft;
mod piece;
mod position;
mod variant;

pub use case::Case;
pub use moves::QuartoMove;
pub use notation::Setup;
pub use perft::perft;
pub use piece::{Piece, Square};
pub use position::{Ending, PositionError, Quarto};
pub use variant::Variant;
