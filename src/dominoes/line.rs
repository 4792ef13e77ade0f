//! The line of play (D3), as the referee and every view see it.

use std::fmt;

use super::moves::End;
use super::tile::{MAX_TILES, OrientedTile, Tile};

/// The line of play (D3): oriented tiles, left to right, neighbours touching.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Line {
    // A deque in a fixed array: the first tile sits in the middle and the line grows
    // both ways, so no placement ever moves a tile.
    slots: [OrientedTile; 2 * MAX_TILES - 1],
    start: u8,
    end: u8,
    /// The outer numbers of the left and right ends, kept beside the slots: every turn
    /// asks for them, and a field is one load where a slot is two dependent ones.
    ends: (u8, u8),
}

impl Line {
    /// A line from oriented tiles, checked: at least one tile, neighbours touch, no tile
    /// twice, numbers below `MAX_N`.
    pub fn from_tiles(tiles: &[OrientedTile]) -> Result<Line, String> {
        let Some((&first, rest)) = tiles.split_first() else {
            return Err("the line of play is never empty".into());
        };
        if tiles.len() > MAX_TILES {
            return Err("more tiles than the largest set".into());
        }
        let mut seen = 0u64;
        for w in tiles.windows(2) {
            if w[0].right != w[1].left {
                return Err(format!("{} and {} do not touch", w[0], w[1]));
            }
        }
        for t in tiles {
            if t.left >= super::tile::MAX_N || t.right >= super::tile::MAX_N {
                return Err(format!("{t} is not a tile"));
            }
            if seen & t.tile().bit() != 0 {
                return Err(format!("{t} appears twice"));
            }
            seen |= t.tile().bit();
        }
        let mut line = Line::new(first);
        // Centre the tiles so the rest of the set fits on either side.
        let start = (MAX_TILES - 1) - tiles.len() / 2;
        line.start = start as u8;
        line.end = (start + tiles.len()) as u8;
        line.slots[start] = first;
        for (i, &t) in rest.iter().enumerate() {
            line.slots[start + 1 + i] = t;
        }
        let last = rest.last().unwrap_or(&first);
        line.ends = (first.left, last.right);
        Ok(line)
    }

    pub(super) fn new(first: OrientedTile) -> Line {
        let mid = MAX_TILES as u8 - 1;
        let mut slots = [first; 2 * MAX_TILES - 1];
        slots[mid as usize] = first;
        Line {
            slots,
            start: mid,
            end: mid + 1,
            ends: (first.left, first.right),
        }
    }

    pub fn tiles(&self) -> &[OrientedTile] {
        &self.slots[self.start as usize..self.end as usize]
    }

    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The outer number of the left end.
    pub fn left(&self) -> u8 {
        self.ends.0
    }

    /// The outer number of the right end.
    pub fn right(&self) -> u8 {
        self.ends.1
    }

    /// Places `tile`, which must show the end's number, rotated to fit (D8).
    pub(super) fn place(&mut self, end: End, tile: Tile) -> OrientedTile {
        match end {
            End::Left => {
                let touching = self.left();
                let o = OrientedTile {
                    left: tile.other_half(touching),
                    right: touching,
                };
                self.start -= 1;
                self.slots[self.start as usize] = o;
                self.ends.0 = o.left;
                o
            }
            End::Right => {
                let touching = self.right();
                let o = OrientedTile {
                    left: touching,
                    right: tile.other_half(touching),
                };
                self.slots[self.end as usize] = o;
                self.end += 1;
                self.ends.1 = o.right;
                o
            }
        }
    }
}

impl fmt::Display for Line {
    /// D3: `1-3 3-4 4-4 4-0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.tiles().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Line {
    type Err = crate::ParseError;
    /// D3: oriented tiles separated by spaces, neighbours touching.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let tiles = s
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<OrientedTile>, _>>()
            .map_err(|e| crate::ParseError::new("line of play", s, e.reason))?;
        Line::from_tiles(&tiles).map_err(|why| crate::ParseError::new("line of play", s, why))
    }
}

impl fmt::Debug for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Line({self})")
    }
}
