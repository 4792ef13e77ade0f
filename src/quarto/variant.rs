//! The two rule variants and their winning lines (Q3).

use std::fmt;
use std::str::FromStr;

use crate::ParseError;

/// Which lines win (Q3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// 4 rows, 4 columns and the 2 diagonals: 10 lines.
    Lines,
    /// The 10 lines plus the nine 2x2 blocks of adjacent squares: 19 lines.
    Squares,
}

/// Rows, then columns, then the main and the anti diagonal, as square masks.
const LINES: [u16; 10] = [
    0x000f, 0x00f0, 0x0f00, 0xf000, // rows
    0x1111, 0x2222, 0x4444, 0x8888, // columns
    0x8421, 0x1248, // diagonals
];

/// `LINES`, then the 2x2 blocks by their top-left square, row-major.
const LINES_AND_SQUARES: [u16; 19] = {
    let mut all = [0u16; 19];
    let mut i = 0;
    while i < 10 {
        all[i] = LINES[i];
        i += 1;
    }
    let mut top_left = 0;
    while top_left < 11 {
        if top_left % 4 < 3 {
            all[i] = 0b11_0011 << top_left;
            i += 1;
        }
        top_left += 1;
    }
    all
};

impl Variant {
    /// Both variants, in key order.
    pub const ALL: [Variant; 2] = [Variant::Lines, Variant::Squares];

    /// 0 for `Lines`, 1 for `Squares`: part of the stable case key.
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The winning lines as square masks: rows, columns, diagonals, then (for
    /// `Squares`) the 2x2 blocks by top-left square.
    pub const fn lines(self) -> &'static [u16] {
        match self {
            Variant::Lines => &LINES,
            Variant::Squares => &LINES_AND_SQUARES,
        }
    }

    /// The notation name, `lines` or `squares`.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Lines => "lines",
            Variant::Squares => "squares",
        }
    }

    /// Whether the board mask `b` covers a whole line. Shift-and-mask instead of a loop
    /// over `lines()` because this runs on every placement of every playout.
    #[inline]
    pub(crate) fn has_line(self, b: u16) -> bool {
        let rows = b & (b >> 1) & (b >> 2) & (b >> 3) & 0x1111;
        let cols = b & (b >> 4) & (b >> 8) & (b >> 12) & 0x000f;
        let diagonals = (b & 0x8421 == 0x8421) | (b & 0x1248 == 0x1248);
        let blocks = match self {
            Variant::Lines => 0,
            // Bit i set iff the block with top-left i is full; 0x0777 keeps the nine
            // top-left squares whose block stays on the board.
            Variant::Squares => b & (b >> 1) & (b >> 4) & (b >> 5) & 0x0777,
        };
        (rows | cols | blocks) != 0 || diagonals
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Variant, ParseError> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| ParseError::new("Quarto variant", s, "expected lines or squares"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_line_agrees_with_the_line_list() {
        for variant in Variant::ALL {
            for b in 0..=u16::MAX {
                let listed = variant.lines().iter().any(|&l| l & !b == 0);
                assert_eq!(variant.has_line(b), listed, "{variant} {b:#06x}");
            }
        }
    }

    #[test]
    fn blocks_are_the_nine_adjacent_2x2() {
        let blocks = &Variant::Squares.lines()[10..];
        assert_eq!(blocks.len(), 9);
        assert_eq!(blocks[0], 0x0033);
        assert_eq!(blocks[8], 0xcc00);
        assert!(blocks.iter().all(|b| b.count_ones() == 4));
    }

    #[test]
    fn names_round_trip() {
        for v in Variant::ALL {
            assert_eq!(v.to_string().parse::<Variant>(), Ok(v));
        }
        assert!("Lines".parse::<Variant>().is_err());
    }
}
