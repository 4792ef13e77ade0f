//! The Quarto position and its rules (Q4–Q6), on bitboards.

use std::fmt;

use super::piece::Bits;
use super::{Case, Piece, QuartoMove, Setup, Square, Variant};
use crate::{Game, Outcome, Seat};

/// A Quarto position: board, piece in hand, pieces left, and the result once over.
///
/// The board is one 16-bit square mask per attribute plus the occupied mask, so a line
/// check is a few shifts and the whole position is a cheap `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quarto {
    case: Case,
    /// `attributes[a]`: the squares holding a piece with attribute bit `a`.
    attributes: [u16; 4],
    occupied: u16,
    /// Pieces neither on the board nor in hand.
    available: u16,
    /// The piece to place, or `NO_PIECE`.
    hand: u8,
    ply: u8,
    outcome: Option<Outcome>,
}

const NO_PIECE: u8 = 16;

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// A placement completed `line` (a square mask from [`Variant::lines`]) and won.
    Line(u16),
    /// The board filled up with no winning line (Q6): a draw.
    Full,
}

/// Why a [`Setup`] is not a position of a game in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The same piece stands on two squares.
    #[error("piece {piece} is on both square {first} and square {second}")]
    DuplicatePiece {
        /// The repeated piece.
        piece: Piece,
        /// Where it first stands.
        first: Square,
        /// Where it stands again.
        second: Square,
    },
    /// The piece in hand is also on the board.
    #[error("piece {piece} is in hand and also on square {square}")]
    HandOnBoard {
        /// The piece in hand.
        piece: Piece,
        /// Where it also stands.
        square: Square,
    },
    /// The board already has a winning line, so the game is over.
    #[error("the board is already won: the line on squares {} is complete", squares(*.line))]
    AlreadyWon {
        /// The first complete line, as a square mask.
        line: u16,
    },
    /// Pieces are on the board, it is not full, yet no piece is in hand.
    #[error("{pieces} pieces are on the board but no piece is in hand")]
    HandMissing {
        /// How many pieces are on the board.
        pieces: u8,
    },
}

/// The squares of a mask, for messages: `0 1 2 3`.
fn squares(mask: u16) -> String {
    let names: Vec<String> = Square::iter_set(mask).map(|s| s.to_string()).collect();
    names.join(" ")
}

impl Quarto {
    /// The empty board, seat A to make the opening give (Q4). Takes a [`Case`] or a
    /// [`Variant`]; the case's opening plies are not played here (see
    /// [`Quarto::seeded_opening`]).
    pub fn new(case: impl Into<Case>) -> Quarto {
        Quarto {
            case: case.into(),
            attributes: [0; 4],
            occupied: 0,
            available: u16::MAX,
            hand: NO_PIECE,
            ply: 0,
            outcome: None,
        }
    }

    /// The position a [`Setup`] describes, if a game in progress can reach it.
    ///
    /// Plies played are the pieces on the board plus one for the opening give once it is
    /// made, so A is to move when that count is even. A full board without a line is
    /// accepted (a drawn, finished game); a won board is refused, because the notation
    /// cannot say whose win it was.
    pub fn from_setup(case: impl Into<Case>, setup: &Setup) -> Result<Quarto, PositionError> {
        let mut pos = Quarto::new(case);
        // Where each piece stands, to name both squares of a duplicate.
        let mut seen: [Option<Square>; 16] = [None; 16];
        for (square, piece) in Square::ALL.into_iter().zip(setup.board) {
            let Some(piece) = piece else { continue };
            if let Some(first) = seen[usize::from(piece.index())] {
                return Err(PositionError::DuplicatePiece {
                    piece,
                    first,
                    second: square,
                });
            }
            seen[usize::from(piece.index())] = Some(square);
            pos.put(square, piece);
            pos.available &= !piece.bit();
        }
        if let Some(line) = pos.complete_line() {
            return Err(PositionError::AlreadyWon { line });
        }
        let pieces = pos.occupied.count_ones() as u8;
        match setup.hand {
            Some(piece) => {
                if let Some(square) = seen[usize::from(piece.index())] {
                    return Err(PositionError::HandOnBoard { piece, square });
                }
                pos.hand = piece.index();
                pos.available &= !piece.bit();
            }
            None if pieces == 16 => pos.outcome = Some(Outcome::Draw),
            None if pieces > 0 => return Err(PositionError::HandMissing { pieces }),
            None => {}
        }
        pos.ply = pieces + u8::from(setup.hand.is_some() || pieces > 0);
        Ok(pos)
    }

    /// The Q9 notation of this position (a won board shows `-` in hand).
    pub fn setup(&self) -> Setup {
        let mut setup = Setup {
            hand: self.in_hand(),
            ..Setup::EMPTY
        };
        for square in Square::iter_set(self.occupied) {
            setup.board[usize::from(square.index())] = self.piece_at(square);
        }
        setup
    }

    /// The rule variant.
    pub fn variant(&self) -> Variant {
        self.case.variant
    }

    /// The piece on `square`, read back from the attribute masks.
    #[inline]
    pub fn piece_at(&self, square: Square) -> Option<Piece> {
        let i = square.index();
        if self.occupied >> i & 1 == 0 {
            return None;
        }
        let bits = self
            .attributes
            .iter()
            .enumerate()
            .fold(0, |acc, (a, m)| acc | ((m >> i & 1) as u8) << a);
        Some(Piece::new(bits))
    }

    /// The piece the side to move must place; `None` before the opening give and once
    /// the game is over.
    pub fn in_hand(&self) -> Option<Piece> {
        Piece::try_new(self.hand)
    }

    /// The pieces neither on the board nor in hand, as a piece mask (bit = piece number).
    pub fn available(&self) -> u16 {
        self.available
    }

    /// The occupied squares, as a square mask.
    pub fn occupied(&self) -> u16 {
        self.occupied
    }

    /// The squares holding a piece with every attribute in `attributes` (e.g.
    /// `Piece::TALL | Piece::DARK`); for solvers that work on masks.
    pub fn squares_with(&self, attributes: u8) -> u16 {
        Bits(u16::from(attributes & 0xf))
            .fold(self.occupied, |m, a| m & self.attributes[usize::from(a)])
    }

    /// Plies played so far, the opening give included.
    pub fn ply(&self) -> u8 {
        self.ply
    }

    /// The line the winning placement completed, if the game was won (the first in
    /// [`Variant::lines`] order when it completed several).
    pub fn winning_line(&self) -> Option<u16> {
        match self.outcome {
            Some(Outcome::Winner(_)) => self.complete_line(),
            _ => None,
        }
    }

    /// How the game ended, once it is over.
    pub fn ending(&self) -> Option<Ending> {
        match self.outcome? {
            Outcome::Draw => Some(Ending::Full),
            Outcome::Winner(_) => self.complete_line().map(Ending::Line),
        }
    }

    /// The empty squares where placing `piece` now completes a winning line.
    pub fn winning_squares(&self, piece: Piece) -> u16 {
        let boards = self.value_boards(piece);
        let empty = !self.occupied;
        let mut wins = 0;
        for &line in self.variant().lines() {
            let hole = line & empty;
            if hole.is_power_of_two() {
                let rest = line ^ hole;
                if boards.iter().any(|&b| b & rest == rest) {
                    wins |= hole;
                }
            }
        }
        wins
    }

    /// The number of legal moves, without listing them (for perft's bulk counting).
    pub fn count_legal_moves(&self) -> u32 {
        if self.outcome.is_some() {
            return 0;
        }
        let Some(hand) = self.in_hand() else {
            return self.available.count_ones();
        };
        let empty = !self.occupied;
        let wins = self.winning_squares(hand).count_ones();
        let gives = self.available.count_ones().max(1);
        wins + (empty.count_ones() - wins) * gives
    }

    /// For each attribute, the squares whose piece shares `piece`'s value of it: the
    /// masks in which a full line means four pieces agree with `piece`.
    #[inline]
    fn value_boards(&self, piece: Piece) -> [u16; 4] {
        std::array::from_fn(|a| {
            if piece.index() >> a & 1 == 1 {
                self.attributes[a]
            } else {
                self.occupied & !self.attributes[a]
            }
        })
    }

    /// The first line of the variant whose four pieces share an attribute value.
    fn complete_line(&self) -> Option<u16> {
        self.variant().lines().iter().copied().find(|&line| {
            self.occupied & line == line
                && self
                    .attributes
                    .iter()
                    .any(|&m| m & line == line || m & line == 0)
        })
    }

    #[inline]
    fn put(&mut self, square: Square, piece: Piece) {
        self.occupied |= square.bit();
        for (a, m) in self.attributes.iter_mut().enumerate() {
            *m |= u16::from(piece.index() >> a & 1) << square.index();
        }
    }
}

impl Game for Quarto {
    type Move = QuartoMove;
    type Case = Case;
    /// Quarto hides nothing, so every seat sees the whole position.
    type View<'a> = &'a Quarto;

    fn case(&self) -> Case {
        self.case
    }

    fn to_move(&self) -> Seat {
        if self.ply.is_multiple_of(2) {
            Seat::A
        } else {
            Seat::B
        }
    }

    /// Gives in piece order; placements by square, then by given piece.
    fn legal_moves_into(&self, moves: &mut Vec<QuartoMove>) {
        moves.clear();
        if self.outcome.is_some() {
            return;
        }
        let Some(hand) = self.in_hand() else {
            moves.extend(Piece::iter_set(self.available).map(QuartoMove::Give));
            return;
        };
        let wins = self.winning_squares(hand);
        for square in Square::iter_set(!self.occupied) {
            if wins & square.bit() != 0 || self.available == 0 {
                moves.push(QuartoMove::Place { square, give: None });
            } else {
                moves.extend(
                    Piece::iter_set(self.available).map(|give| QuartoMove::Place {
                        square,
                        give: Some(give),
                    }),
                );
            }
        }
    }

    /// A winning placement takes precedence: its give, if any, is ignored.
    fn play_unchecked(&mut self, mv: QuartoMove) {
        let mover = self.to_move();
        self.ply += 1;
        match mv {
            QuartoMove::Give(piece) => {
                self.hand = piece.index();
                self.available &= !piece.bit();
            }
            QuartoMove::Place { square, give } => {
                let piece = self
                    .in_hand()
                    .expect("play_unchecked: a placement with no piece in hand");
                self.put(square, piece);
                let variant = self.variant();
                if self
                    .value_boards(piece)
                    .iter()
                    .any(|&b| variant.has_line(b))
                {
                    self.hand = NO_PIECE;
                    self.outcome = Some(Outcome::Winner(mover));
                    return;
                }
                match give {
                    Some(next) => {
                        self.hand = next.index();
                        self.available &= !next.bit();
                    }
                    None => {
                        self.hand = NO_PIECE;
                        if self.occupied == u16::MAX {
                            self.outcome = Some(Outcome::Draw);
                        }
                    }
                }
            }
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn view_of(&self, _seat: Seat) -> &Quarto {
        self
    }

    /// A direct check of Q4/Q5, in step with `legal_moves_into`.
    fn is_legal(&self, mv: QuartoMove) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        match (self.in_hand(), mv) {
            (None, QuartoMove::Give(piece)) => self.available & piece.bit() != 0,
            (Some(hand), QuartoMove::Place { square, give }) => {
                if self.occupied & square.bit() != 0 {
                    return false;
                }
                let wins = self.winning_squares(hand) & square.bit() != 0;
                match give {
                    None => wins || self.available == 0,
                    Some(next) => !wins && self.available & next.bit() != 0,
                }
            }
            _ => false,
        }
    }
}

impl fmt::Debug for Quarto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Quarto")
            .field("case", &format_args!("{}", self.case))
            .field("setup", &format_args!("{}", self.setup()))
            .field("ply", &self.ply)
            .field("outcome", &self.outcome)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(variant: Variant, s: &str) -> Quarto {
        Quarto::from_setup(variant, &s.parse().unwrap()).unwrap()
    }

    #[test]
    fn pieces_read_back_from_the_masks() {
        let p = pos(Variant::Lines, "0f3.....a.......:7");
        assert_eq!(p.setup().to_string(), "0f3.....a.......:7");
        assert_eq!(p.piece_at(Square::new(1)), Some(Piece::new(15)));
        assert_eq!(p.piece_at(Square::new(3)), None);
        assert_eq!(p.ply(), 5);
        assert_eq!(p.to_move(), Seat::B);
        assert_eq!(p.squares_with(Piece::TALL), 0b110);
        assert_eq!(p.squares_with(Piece::TALL | Piece::DARK), 0b010);
        assert_eq!(p.squares_with(0), p.occupied());
    }

    #[test]
    fn setup_errors() {
        let err = |s: &str| Quarto::from_setup(Variant::Lines, &s.parse().unwrap()).unwrap_err();
        assert!(matches!(
            err("0.0.............:1"),
            PositionError::DuplicatePiece { .. }
        ));
        assert!(matches!(
            err("01..............:1"),
            PositionError::HandOnBoard { .. }
        ));
        assert!(matches!(
            err("0123............:4"),
            PositionError::AlreadyWon { line: 0x000f }
        ));
        assert!(matches!(
            err("01..............:-"),
            PositionError::HandMissing { pieces: 2 }
        ));
        // A 2x2 block only wins in the squares variant.
        let block = "13..57..........:8".parse().unwrap();
        assert!(Quarto::from_setup(Variant::Lines, &block).is_ok());
        assert_eq!(
            Quarto::from_setup(Variant::Squares, &block),
            Err(PositionError::AlreadyWon { line: 0x0033 })
        );
    }

    #[test]
    fn winning_squares_and_counts() {
        // Row 0 holds 1, 3 and 13, which share only "tall": tall 7 wins on square 3,
        // short 6 wins nowhere.
        let p = pos(Variant::Lines, "13d.............:7");
        assert_eq!(p.winning_squares(Piece::new(7)), 1 << 3);
        assert_eq!(p.winning_squares(Piece::new(6)), 0);
        assert_eq!(p.count_legal_moves(), 1 + 12 * 12);
        assert_eq!(p.count_legal_moves() as usize, p.legal_moves().len());
    }
}
