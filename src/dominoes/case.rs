//! Test cases (D1): the pair (N, H).

use std::fmt;
use std::str::FromStr;

use crate::game::ParseError;

use super::tile::set_size;

/// A test case: numbers 0..N-1 on each half, H tiles drawn by each player (D1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Case {
    n: u8,
    h: u8,
}

impl Case {
    pub const N_RANGE: std::ops::RangeInclusive<u8> = 5..=9;
    pub const H_RANGE: std::ops::RangeInclusive<u8> = 4..=7;

    /// `None` outside D1's ranges.
    pub fn new(n: u8, h: u8) -> Option<Case> {
        (Self::N_RANGE.contains(&n) && Self::H_RANGE.contains(&h)).then_some(Case { n, h })
    }

    /// All 20 test cases of the TCO09 suite, N-major: (5,4), (5,5), ... (9,7).
    pub fn all() -> impl Iterator<Item = Case> {
        Self::N_RANGE.flat_map(|n| Self::H_RANGE.map(move |h| Case { n, h }))
    }

    pub fn n(self) -> u8 {
        self.n
    }

    pub fn h(self) -> u8 {
        self.h
    }

    /// N(N+1)/2 (D2).
    pub fn tiles(self) -> usize {
        set_size(self.n)
    }

    /// The stock after the deal: N(N+1)/2 - 2H.
    pub fn stock(self) -> usize {
        self.tiles() - 2 * self.h as usize
    }

    /// A stable key for seeding: `16 * N + H`.
    pub fn key(self) -> u16 {
        16 * u16::from(self.n) + u16::from(self.h)
    }
}

impl fmt::Display for Case {
    /// `N,H`, e.g. `5,4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.n, self.h)
    }
}

impl FromStr for Case {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| ParseError::new("dominoes case", s, why);
        let (n, h) = s
            .split_once(',')
            .ok_or_else(|| bad("expected N,H such as 5,4"))?;
        let n: u8 = n.trim().parse().map_err(|_| bad("N is not a number"))?;
        let h: u8 = h.trim().parse().map_err(|_| bad("H is not a number"))?;
        Case::new(n, h).ok_or_else(|| bad("N must be in 5..=9 and H in 4..=7"))
    }
}
