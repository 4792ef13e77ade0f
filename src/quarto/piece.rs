//! Pieces (Q1) and squares (Q2), both small numbered newtypes written in decimal.

use std::fmt;
use std::str::FromStr;

use crate::ParseError;

/// One of the 16 Quarto pieces (Q1); its number's bits are its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(u8);

impl Piece {
    /// Attribute bit 0: tall (else short).
    pub const TALL: u8 = 0b0001;
    /// Attribute bit 1: round (else square).
    pub const ROUND: u8 = 0b0010;
    /// Attribute bit 2: solid (else hollow).
    pub const SOLID: u8 = 0b0100;
    /// Attribute bit 3: dark (else light).
    pub const DARK: u8 = 0b1000;
    /// The four attribute bits, in bit order.
    pub const ATTRIBUTES: [u8; 4] = [Piece::TALL, Piece::ROUND, Piece::SOLID, Piece::DARK];
    /// Every piece, in number order.
    pub const ALL: [Piece; 16] = {
        let mut all = [Piece(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = Piece(i as u8);
            i += 1;
        }
        all
    };

    /// The piece numbered `index`.
    ///
    /// # Panics
    /// If `index > 15`.
    pub const fn new(index: u8) -> Piece {
        assert!(index < 16, "a Quarto piece is numbered 0..=15");
        Piece(index)
    }

    /// The piece numbered `index`, or `None` if `index > 15`.
    pub const fn try_new(index: u8) -> Option<Piece> {
        if index < 16 { Some(Piece(index)) } else { None }
    }

    /// The piece's number, 0..=15, which is also its attribute bits.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// This piece as a one-bit mask in a 16-bit piece set.
    pub const fn bit(self) -> u16 {
        1 << self.0
    }

    /// Whether the piece has every attribute in `attributes` (e.g. `Piece::TALL`).
    pub const fn has(self, attributes: u8) -> bool {
        self.0 & attributes == attributes
    }

    /// Tall, else short.
    pub const fn is_tall(self) -> bool {
        self.has(Piece::TALL)
    }

    /// Round, else square.
    pub const fn is_round(self) -> bool {
        self.has(Piece::ROUND)
    }

    /// Solid, else hollow.
    pub const fn is_solid(self) -> bool {
        self.has(Piece::SOLID)
    }

    /// Dark, else light.
    pub const fn is_dark(self) -> bool {
        self.has(Piece::DARK)
    }

    /// The pieces of a 16-bit piece set, in number order.
    pub fn iter_set(set: u16) -> impl Iterator<Item = Piece> {
        Bits(set).map(Piece)
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for Piece {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Piece, ParseError> {
        parse_number(s)
            .map(Piece)
            .ok_or_else(|| ParseError::new("Quarto piece", s, "expected a decimal number 0..=15"))
    }
}

/// One of the 16 squares, numbered row-major from the top-left (Q2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Every square, in number (row-major) order.
    pub const ALL: [Square; 16] = {
        let mut all = [Square(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square numbered `index`.
    ///
    /// # Panics
    /// If `index > 15`.
    pub const fn new(index: u8) -> Square {
        assert!(index < 16, "a Quarto square is numbered 0..=15");
        Square(index)
    }

    /// The square numbered `index`, or `None` if `index > 15`.
    pub const fn try_new(index: u8) -> Option<Square> {
        if index < 16 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square in `row` and `col` (both 0..=3, from the top-left).
    ///
    /// # Panics
    /// If `row` or `col` is above 3.
    pub const fn from_coords(row: u8, col: u8) -> Square {
        assert!(row < 4 && col < 4, "Quarto rows and columns are 0..=3");
        Square(4 * row + col)
    }

    /// The square's number, 0..=15.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The row, 0..=3 from the top.
    pub const fn row(self) -> u8 {
        self.0 / 4
    }

    /// The column, 0..=3 from the left.
    pub const fn col(self) -> u8 {
        self.0 % 4
    }

    /// This square as a one-bit mask in a 16-bit board.
    pub const fn bit(self) -> u16 {
        1 << self.0
    }

    /// The squares of a 16-bit board mask, in number order.
    pub fn iter_set(set: u16) -> impl Iterator<Item = Square> {
        Bits(set).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for Square {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Square, ParseError> {
        parse_number(s)
            .map(Square)
            .ok_or_else(|| ParseError::new("Quarto square", s, "expected a decimal number 0..=15"))
    }
}

/// A decimal 0..=15 made of ASCII digits only, without a leading zero (`u8::from_str`
/// would also take `+7` and `07`).
pub(crate) fn parse_number(s: &str) -> Option<u8> {
    if s.is_empty()
        || s.len() > 2
        || !s.bytes().all(|b| b.is_ascii_digit())
        || (s.len() == 2 && s.starts_with('0'))
    {
        return None;
    }
    let n: u8 = s.parse().ok()?;
    (n < 16).then_some(n)
}

/// The set bits of a 16-bit mask as indices, lowest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bits(pub(crate) u16);

impl Iterator for Bits {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(i)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bits {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_and_reject_junk() {
        for p in Piece::ALL {
            assert_eq!(p.to_string().parse::<Piece>(), Ok(p));
        }
        for s in Square::ALL {
            assert_eq!(s.to_string().parse::<Square>(), Ok(s));
            assert_eq!(Square::from_coords(s.row(), s.col()), s);
        }
        for bad in ["", "16", "+7", "-1", " 7", "7 ", "a", "007", "١"] {
            assert!(bad.parse::<Piece>().is_err(), "{bad:?}");
            assert!(bad.parse::<Square>().is_err(), "{bad:?}");
        }
        // No leading zero, as Dominoes indices (`docs/protocol.md`).
        assert!("07".parse::<Piece>().is_err());
        assert!("00".parse::<Square>().is_err());
    }

    #[test]
    fn bits_iterates_lowest_first() {
        assert_eq!(Bits(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
        assert_eq!(Bits(0).len(), 0);
        assert_eq!(Bits(u16::MAX).len(), 16);
    }
}
