//! The TCO09 Dominoes draw game (rules D1–D18 in `docs/rules.md`).
//!
//! [`Deal`] shuffles a [`Case`]'s set from a seeded stream (D4, D5); [`Dominoes`] is the
//! referee's position, implementing [`crate::Game`]; agents get a [`DominoView`].

mod case;
mod deal;
mod endgame;
mod line;
mod moves;
mod position;
mod tile;
mod view;

pub use case::Case;
pub use deal::{Deal, DealError};
pub use endgame::Endgame;
pub use line::Line;
pub use moves::{DominoMove, End};
pub use position::{Dominoes, EndReason, Hand, starting_tile};
pub use tile::{MAX_N, MAX_TILES, OrientedTile, PIP_MASKS, Tile, set_size};
pub use view::{DominoView, Event, MoveList};
