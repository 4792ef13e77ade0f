//! Quarto moves and their notation (Q4, Q5): `- 7`, `5 12`, `5`.

use std::fmt;
use std::str::FromStr;

use super::{Piece, Square};
use crate::ParseError;

/// One ply: the opening give, or a placement with the give that follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QuartoMove {
    /// The opening: hand `piece` to the opponent without placing (Q4). Written `- 7`.
    Give(Piece),
    /// Place the piece in hand on `square`, then give `give` (Q5). Written `5 12`, or `5`
    /// alone when the placement wins or no piece remains (`give: None`).
    Place {
        /// Where the piece in hand goes.
        square: Square,
        /// The piece handed to the opponent, if the game goes on.
        give: Option<Piece>,
    },
}

impl QuartoMove {
    /// The square placed on, if any.
    pub const fn square(self) -> Option<Square> {
        match self {
            QuartoMove::Give(_) => None,
            QuartoMove::Place { square, .. } => Some(square),
        }
    }

    /// The piece given, if any.
    pub const fn give(self) -> Option<Piece> {
        match self {
            QuartoMove::Give(piece) => Some(piece),
            QuartoMove::Place { give, .. } => give,
        }
    }
}

impl fmt::Display for QuartoMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuartoMove::Give(piece) => write!(f, "- {piece}"),
            QuartoMove::Place { square, give: None } => write!(f, "{square}"),
            QuartoMove::Place {
                square,
                give: Some(piece),
            } => write!(f, "{square} {piece}"),
        }
    }
}

impl FromStr for QuartoMove {
    type Err = ParseError;
    /// Exactly the written forms: fields separated by one space, no other blanks (the
    /// same strictness as Dominoes moves; `docs/protocol.md`).
    fn from_str(s: &str) -> Result<QuartoMove, ParseError> {
        let err = |reason: &str| ParseError::new("Quarto move", s, reason);
        let mut tokens = s.split(' ');
        let (first, second) = match (tokens.next(), tokens.next(), tokens.next()) {
            (Some(""), _, _) => return Err(err("empty move, or a blank before it")),
            (Some(first), second, None) => (first, second),
            _ => return Err(err("more than two fields, or more than one space")),
        };
        let piece = |t: &str| {
            t.parse::<Piece>()
                .map_err(|_| err(&format!("{t:?} is not a piece 0..=15")))
        };
        if first == "-" {
            let Some(given) = second else {
                return Err(err("the opening give needs a piece: - <piece>"));
            };
            return Ok(QuartoMove::Give(piece(given)?));
        }
        let square = first
            .parse::<Square>()
            .map_err(|_| err(&format!("{first:?} is not a square 0..=15 or -")))?;
        let give = second.map(piece).transpose()?;
        Ok(QuartoMove::Place { square, give })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_examples() {
        let place = |s, g: Option<u8>| QuartoMove::Place {
            square: Square::new(s),
            give: g.map(Piece::new),
        };
        for (text, mv) in [
            ("- 7", QuartoMove::Give(Piece::new(7))),
            ("5 12", place(5, Some(12))),
            ("15", place(15, None)),
            ("0 0", place(0, Some(0))),
        ] {
            assert_eq!(mv.to_string(), text);
            assert_eq!(text.parse::<QuartoMove>(), Ok(mv));
        }
        // One grammar with Dominoes: no blank but the single space between fields.
        for slack in [" 5 12", "5 12 ", "5  12", "5\t12", "5 12\r\n"] {
            assert!(slack.parse::<QuartoMove>().is_err(), "{slack:?}");
        }
    }

    #[test]
    fn malformed_moves_name_the_input() {
        for bad in [
            "", " ", "-", "- ", "- 16", "16", "5 16", "5 12 3", "a", "5,12", "-7", "- -",
        ] {
            let e = bad.parse::<QuartoMove>().unwrap_err();
            assert_eq!(e.input, bad);
        }
    }
}
