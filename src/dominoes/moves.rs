//! Moves (D8): `L<i>`, `R<i>`, `DRAW`, `PASS`.

use std::fmt;
use std::str::FromStr;

use crate::game::ParseError;

/// Which end of the line of play.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum End {
    Left,
    Right,
}

/// One decision (D8). `Place` refers to a hand index in D7's hand order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DominoMove {
    /// `L<i>` or `R<i>`: put `hand[index]` at `end`; rotation is automatic.
    Place { end: End, index: u8 },
    /// `DRAW`: take the stock's front tile (D10).
    Draw,
    /// `PASS`: nothing fits and the stock is empty (D11).
    Pass,
}

impl DominoMove {
    pub const fn left(index: u8) -> DominoMove {
        DominoMove::Place {
            end: End::Left,
            index,
        }
    }

    pub const fn right(index: u8) -> DominoMove {
        DominoMove::Place {
            end: End::Right,
            index,
        }
    }
}

impl fmt::Display for DominoMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DominoMove::Place {
                end: End::Left,
                index,
            } => write!(f, "L{index}"),
            DominoMove::Place {
                end: End::Right,
                index,
            } => write!(f, "R{index}"),
            DominoMove::Draw => f.write_str("DRAW"),
            DominoMove::Pass => f.write_str("PASS"),
        }
    }
}

impl FromStr for DominoMove {
    type Err = ParseError;
    /// Exactly the D8 forms: no spaces, upper case, a plain decimal index.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseError::new("dominoes move", s, "expected L<i>, R<i>, DRAW or PASS");
        match s {
            "DRAW" => return Ok(DominoMove::Draw),
            "PASS" => return Ok(DominoMove::Pass),
            _ => {}
        }
        let end = match s.as_bytes().first() {
            Some(b'L') => End::Left,
            Some(b'R') => End::Right,
            _ => return Err(bad()),
        };
        let digits = &s[1..];
        let valid = !digits.is_empty()
            && digits.len() <= 2
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !(digits.len() > 1 && digits.starts_with('0'));
        if !valid {
            return Err(bad());
        }
        let index = digits.parse().map_err(|_| bad())?;
        Ok(DominoMove::Place { end, index })
    }
}
