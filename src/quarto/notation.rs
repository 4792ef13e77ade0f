//! The position notation of Q9, `<16 board chars>:<piece>`, as plain data.

use std::fmt;
use std::str::FromStr;

use super::Piece;
use crate::ParseError;

/// A parsed Q9 position string: the board and the piece in hand, unchecked. Like
/// shakmaty's `Fen`, it is only notation; [`super::Quarto::from_setup`] validates it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Setup {
    /// The piece on each square, row-major.
    pub board: [Option<Piece>; 16],
    /// The piece the side to move must place; `None` before the opening give.
    pub hand: Option<Piece>,
}

impl Setup {
    /// The empty board before the opening give: `................:-`.
    pub const EMPTY: Setup = Setup {
        board: [None; 16],
        hand: None,
    };
}

fn hex(piece: Piece) -> char {
    char::from(b"0123456789abcdef"[usize::from(piece.index())])
}

fn from_hex(c: char) -> Option<Piece> {
    c.to_digit(16).map(|d| Piece::new(d as u8))
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(18);
        s.extend(self.board.iter().map(|p| p.map_or('.', hex)));
        s.push(':');
        s.push(self.hand.map_or('-', hex));
        f.write_str(&s)
    }
}

impl FromStr for Setup {
    type Err = ParseError;
    /// Accepts upper- or lower-case hex digits; writes lower case.
    fn from_str(s: &str) -> Result<Setup, ParseError> {
        let err = |reason: String| ParseError::new("Quarto position", s, reason);
        let (board, hand) = s
            .split_once(':')
            .ok_or_else(|| err("expected <16 board chars>:<piece>".into()))?;
        let mut setup = Setup::EMPTY;
        let mut chars = board.chars();
        for (i, cell) in setup.board.iter_mut().enumerate() {
            *cell = match chars.next() {
                Some('.') => None,
                Some(c) => Some(from_hex(c).ok_or_else(|| {
                    err(format!("square {i}: {c:?} is neither '.' nor a hex digit"))
                })?),
                None => return Err(err(format!("the board has {i} squares, not 16"))),
            };
        }
        if chars.next().is_some() {
            return Err(err(format!(
                "the board has {} squares, not 16",
                board.chars().count()
            )));
        }
        let mut hand_chars = hand.chars();
        setup.hand = match (hand_chars.next(), hand_chars.next()) {
            (Some('-'), None) => None,
            (Some(c), None) if c.is_ascii_hexdigit() => from_hex(c),
            _ => {
                return Err(err(format!(
                    "the piece in hand {hand:?} is neither '-' nor one hex digit"
                )));
            }
        };
        Ok(setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_round_trips() {
        let setup: Setup = "0f3.....a.......:7".parse().unwrap();
        assert_eq!(setup.board[0], Some(Piece::new(0)));
        assert_eq!(setup.board[1], Some(Piece::new(15)));
        assert_eq!(setup.board[3], None);
        assert_eq!(setup.board[8], Some(Piece::new(10)));
        assert_eq!(setup.hand, Some(Piece::new(7)));
        assert_eq!(setup.to_string(), "0f3.....a.......:7");
        assert_eq!("0F3.....A.......:7".parse::<Setup>(), Ok(setup));
        assert_eq!(Setup::EMPTY.to_string(), "................:-");
    }

    #[test]
    fn malformed_setups_name_the_input() {
        for bad in [
            "",
            "................",
            "...............:-",
            ".................:-",
            "...............g:-",
            "................:",
            "................:10",
            "................:x",
            "...............é:-",
        ] {
            let e = bad.parse::<Setup>().unwrap_err();
            assert_eq!(e.input, bad);
        }
    }
}
