//! Tiles (D2, D3): unordered tiles in hands, oriented tiles in the line of play.

use std::fmt;
use std::str::FromStr;

use crate::game::ParseError;

/// The largest N of any test case (D1).
pub const MAX_N: u8 = 9;
/// Tiles in the largest set: 9 * 10 / 2.
pub const MAX_TILES: usize = 45;

/// An unordered tile `{lo, hi}` with `lo <= hi`, stored as its index in the canonical
/// order `0-0, 0-1, 1-1, 0-2, 1-2, 2-2, ...` (index `hi*(hi+1)/2 + lo`). The set for N
/// is exactly the indices below `N(N+1)/2`, so every set is a prefix of the largest.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile(u8);

const fn tables() -> ([u8; MAX_TILES], [u8; MAX_TILES]) {
    let mut lo = [0; MAX_TILES];
    let mut hi = [0; MAX_TILES];
    let mut b = 0;
    while b < MAX_N {
        let mut a = 0;
        while a <= b {
            let i = (b * (b + 1) / 2 + a) as usize;
            lo[i] = a;
            hi[i] = b;
            a += 1;
        }
        b += 1;
    }
    (lo, hi)
}

const LO: [u8; MAX_TILES] = tables().0;
const HI: [u8; MAX_TILES] = tables().1;

const fn pip_masks() -> [u64; MAX_N as usize] {
    let mut masks = [0u64; MAX_N as usize];
    let mut i = 0;
    while i < MAX_TILES {
        masks[LO[i] as usize] |= 1 << i;
        masks[HI[i] as usize] |= 1 << i;
        i += 1;
    }
    masks
}

/// `PIP_MASKS[p]`: the set (as a bit mask of tile indices) of tiles showing `p`.
pub const PIP_MASKS: [u64; MAX_N as usize] = pip_masks();

/// The number of tiles in the set for `n` numbers: N(N+1)/2 (D2).
pub const fn set_size(n: u8) -> usize {
    n as usize * (n as usize + 1) / 2
}

impl Tile {
    /// The tile with numbers `a` and `b`, in either order.
    ///
    /// # Panics
    /// If a number is `MAX_N` or more.
    #[inline]
    pub const fn new(a: u8, b: u8) -> Tile {
        assert!(a < MAX_N && b < MAX_N, "tile number out of range");
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        Tile(hi * (hi + 1) / 2 + lo)
    }

    /// The tile with canonical index `index` (`< 45`). Inlined across crates by hand: its
    /// assert keeps the compiler from doing it unasked, and the searches call it per node
    /// (1.4 % of `best`'s time as a call, without LTO).
    #[inline]
    pub const fn from_index(index: u8) -> Tile {
        assert!((index as usize) < MAX_TILES, "tile index out of range");
        Tile(index)
    }

    /// The canonical index: `hi*(hi+1)/2 + lo`.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// This tile as a one-bit mask over tile indices.
    #[inline]
    pub const fn bit(self) -> u64 {
        1 << self.0
    }

    #[inline]
    pub const fn lo(self) -> u8 {
        LO[self.0 as usize]
    }

    #[inline]
    pub const fn hi(self) -> u8 {
        HI[self.0 as usize]
    }

    #[inline]
    pub const fn is_double(self) -> bool {
        self.lo() == self.hi()
    }

    /// The pip sum of the two halves.
    #[inline]
    pub const fn pips(self) -> u32 {
        self.lo() as u32 + self.hi() as u32
    }

    /// Whether either half shows `number`.
    #[inline]
    pub const fn has(self, number: u8) -> bool {
        self.lo() == number || self.hi() == number
    }

    /// The other half, given one half `number` that the tile shows.
    #[inline]
    pub const fn other_half(self, number: u8) -> u8 {
        if self.lo() == number {
            self.hi()
        } else {
            self.lo()
        }
    }

    /// Every tile of the set for `n` numbers, in canonical order.
    pub fn set(n: u8) -> impl Iterator<Item = Tile> {
        (0..set_size(n) as u8).map(Tile)
    }
}

/// Every tile's notation, by index, so that writers need not format one.
const NAMES: [&str; MAX_TILES] = [
    "0-0", "0-1", "1-1", "0-2", "1-2", "2-2", "0-3", "1-3", "2-3", "3-3", "0-4", "1-4", "2-4",
    "3-4", "4-4", "0-5", "1-5", "2-5", "3-5", "4-5", "5-5", "0-6", "1-6", "2-6", "3-6", "4-6",
    "5-6", "6-6", "0-7", "1-7", "2-7", "3-7", "4-7", "5-7", "6-7", "7-7", "0-8", "1-8", "2-8",
    "3-8", "4-8", "5-8", "6-8", "7-8", "8-8",
];

impl Tile {
    /// The tile's notation (`0-3`), as [`Display`](fmt::Display) writes it.
    pub fn name(self) -> &'static str {
        NAMES[self.0 as usize]
    }
}

impl fmt::Display for Tile {
    /// D3: smaller number first (`0-3`, `4-4`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.lo(), self.hi())
    }
}

impl fmt::Debug for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn parse_halves(what: &'static str, s: &str) -> Result<(u8, u8), ParseError> {
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| ParseError::new(what, s, "expected <a>-<b>"))?;
    let half = |x: &str| -> Result<u8, ParseError> {
        match x.parse::<u8>() {
            Ok(v) if v < MAX_N && x.len() == 1 => Ok(v),
            _ => Err(ParseError::new(what, s, "numbers are single digits 0..=8")),
        }
    };
    Ok((half(a)?, half(b)?))
}

impl FromStr for Tile {
    type Err = ParseError;
    /// Accepts either order (`3-1` is the tile `1-3`); `Display` writes the smaller first.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (a, b) = parse_halves("tile", s)?;
        Ok(Tile::new(a, b))
    }
}

/// A tile as it lies in the line of play: `left` touches the tile on its left.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct OrientedTile {
    pub left: u8,
    pub right: u8,
}

impl OrientedTile {
    pub fn tile(self) -> Tile {
        Tile::new(self.left, self.right)
    }

    pub fn flipped(self) -> OrientedTile {
        OrientedTile {
            left: self.right,
            right: self.left,
        }
    }
}

impl fmt::Display for OrientedTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.left, self.right)
    }
}

impl FromStr for OrientedTile {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (left, right) = parse_halves("oriented tile", s)?;
        Ok(OrientedTile { left, right })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_match_the_notation() {
        for t in super::Tile::set(super::MAX_N) {
            assert_eq!(t.name(), t.to_string());
        }
    }

    use super::*;

    #[test]
    fn canonical_indices_are_a_bijection() {
        let mut seen = [false; MAX_TILES];
        for b in 0..MAX_N {
            for a in 0..=b {
                let t = Tile::new(a, b);
                assert_eq!((t.lo(), t.hi()), (a, b));
                assert_eq!(Tile::new(b, a), t);
                assert!(!seen[t.index() as usize]);
                seen[t.index() as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn pip_masks_hold_exactly_the_tiles_showing_the_number() {
        for p in 0..MAX_N {
            for t in Tile::set(MAX_N) {
                assert_eq!(PIP_MASKS[p as usize] & t.bit() != 0, t.has(p));
            }
        }
    }

    #[test]
    fn tile_notation_round_trips_and_rejects_junk() {
        for t in Tile::set(MAX_N) {
            assert_eq!(t.to_string().parse::<Tile>().unwrap(), t);
        }
        assert_eq!("4-1".parse::<Tile>().unwrap().to_string(), "1-4");
        for bad in ["", "1", "1-", "-1", "1-9", "10-1", "a-b", "1--2", "1-2-3"] {
            let err = bad.parse::<Tile>().unwrap_err();
            assert_eq!(err.input, bad);
        }
        let o: OrientedTile = "4-1".parse().unwrap();
        assert_eq!(o.to_string(), "4-1");
        assert_eq!(o.tile().to_string(), "1-4");
    }
}
