//! Seeded deals (D4) and their pairing (D5).

use crate::rng::{self, Family, Purpose, StreamId};

use super::case::Case;
use super::tile::{MAX_TILES, Tile};

/// A shuffled set: seat A's hand, then seat B's, then the stock in draw order (D4).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Deal {
    case: Case,
    // A fixed array, not a Vec: dealing is on the hot path of every game.
    order: [Tile; MAX_TILES],
}

/// A tile order that is not a permutation of the case's set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a deal for case {case}: {reason}")]
pub struct DealError {
    pub case: Case,
    pub reason: String,
}

impl Deal {
    /// The deal of pair `pair` under `master_seed`: the set in canonical order, shuffled
    /// by [`rng::shuffle`] on the stream `(Dominoes, case.key(), matchup 0, pair, Deal)`.
    pub fn seeded(case: Case, master_seed: u64, pair: u32) -> Deal {
        let mut order = [Tile::from_index(0); MAX_TILES];
        for (slot, tile) in order.iter_mut().zip(Tile::set(case.n())) {
            *slot = tile;
        }
        let mut stream = StreamId {
            family: Family::Dominoes,
            case_key: case.key(),
            matchup: 0,
            pair,
            purpose: Purpose::Deal,
        }
        .rng(master_seed);
        rng::shuffle(&mut stream, &mut order[..case.tiles()]);
        Deal { case, order }
    }

    /// A deal from an explicit order (for tests and replays).
    pub fn from_order(case: Case, order: Vec<Tile>) -> Result<Deal, DealError> {
        let fail = |reason: String| DealError { case, reason };
        if order.len() != case.tiles() {
            return Err(fail(format!(
                "{} tiles given, the set has {}",
                order.len(),
                case.tiles()
            )));
        }
        let mut seen = 0u64;
        for &t in &order {
            if t.hi() >= case.n() {
                return Err(fail(format!("tile {t} is not in the set")));
            }
            if seen & t.bit() != 0 {
                return Err(fail(format!("tile {t} appears twice")));
            }
            seen |= t.bit();
        }
        let mut fixed = [Tile::from_index(0); MAX_TILES];
        fixed[..order.len()].copy_from_slice(&order);
        Ok(Deal { case, order: fixed })
    }

    /// The partner deal of a pair (D5): the same shuffle with the two hands exchanged;
    /// the stock is unchanged.
    pub fn with_hands_exchanged(&self) -> Deal {
        let h = self.case.h() as usize;
        let mut order = self.order;
        let (a, rest) = order.split_at_mut(h);
        a.swap_with_slice(&mut rest[..h]);
        Deal {
            case: self.case,
            order,
        }
    }

    pub fn case(&self) -> Case {
        self.case
    }

    /// The whole order: A's hand, B's hand, the stock front first.
    pub fn order(&self) -> &[Tile] {
        &self.order[..self.case.tiles()]
    }

    pub fn hand(&self, seat: crate::Seat) -> &[Tile] {
        let h = self.case.h() as usize;
        &self.order[seat.index() * h..(seat.index() + 1) * h]
    }

    pub fn stock(&self) -> &[Tile] {
        &self.order[2 * self.case.h() as usize..self.case.tiles()]
    }
}
