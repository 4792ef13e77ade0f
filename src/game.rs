//! The rules surface every game implements, in the style of shakmaty's `Position`:
//! a small required core (`to_move`, `legal_moves_into`, `play_unchecked`, `outcome`,
//! `view_of`) and checked play built on top of it.

use std::fmt::{self, Debug, Display};
use std::str::FromStr;

/// A side of the table. Seat `A` is the side the deal or the opening names first:
/// in Dominoes the player who draws the first H tiles (D4), in Quarto the player who
/// makes the opening give (Q4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    A,
    B,
}

impl Seat {
    pub const BOTH: [Seat; 2] = [Seat::A, Seat::B];

    pub fn other(self) -> Seat {
        match self {
            Seat::A => Seat::B,
            Seat::B => Seat::A,
        }
    }

    /// 0 for `A`, 1 for `B`: the index into per-seat arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Seat::A => "A",
            Seat::B => "B",
        })
    }
}

impl FromStr for Seat {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "A" | "a" => Ok(Seat::A),
            "B" | "b" => Ok(Seat::B),
            _ => Err(ParseError::new("seat", s, "expected A or B")),
        }
    }
}

/// How a finished game ended, from the referee's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Winner(Seat),
    Draw,
}

impl Outcome {
    /// The score of `seat`: 1 for a win, 0.5 for a draw (a tie), 0 for a loss (D15).
    pub fn score(self, seat: Seat) -> f64 {
        match self {
            Outcome::Winner(w) if w == seat => 1.0,
            Outcome::Winner(_) => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

impl Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Winner(s) => write!(f, "{s} wins"),
            Outcome::Draw => f.write_str("draw"),
        }
    }
}

/// A notation string that could not be parsed. It names what was being parsed, the
/// offending input, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} {input:?}: {reason}")]
pub struct ParseError {
    pub what: &'static str,
    pub input: String,
    pub reason: String,
}

impl ParseError {
    pub fn new(what: &'static str, input: &str, reason: impl Into<String>) -> Self {
        ParseError {
            what,
            input: input.to_owned(),
            reason: reason.into(),
        }
    }
}

/// A move the rules refuse, with the position it was tried in, untouched.
#[derive(Clone, thiserror::Error)]
#[error("illegal move {mv} for seat {seat}")]
pub struct PlayError<G: Game> {
    pub mv: G::Move,
    pub seat: Seat,
    pub position: G,
}

impl<G: Game> Debug for PlayError<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlayError")
            .field("mv", &self.mv)
            .field("seat", &self.seat)
            .finish_non_exhaustive()
    }
}

/// A position of a two-player game with a referee: full information, hidden parts
/// included. Agents never see it; they see [`Game::view`].
pub trait Game: Clone {
    /// A move, written in the game's notation.
    type Move: Copy + Eq + Debug + Display + FromStr<Err = ParseError>;
    /// A test case: the parameters that stay fixed over many games.
    type Case: Copy + Eq + Debug + Display + FromStr<Err = ParseError>;
    /// What the seat to move may know, and nothing more.
    type View<'a>
    where
        Self: 'a;

    /// The test case this game belongs to.
    fn case(&self) -> Self::Case;

    /// The seat whose decision is next. Meaningless once the game is over.
    fn to_move(&self) -> Seat;

    /// Appends the legal moves to `moves` (cleared first). Empty once the game is over.
    fn legal_moves_into(&self, moves: &mut Vec<Self::Move>);

    /// Plays a move without checking it.
    ///
    /// # Panics
    /// An illegal move may panic or leave the position corrupt; use [`Game::play`]
    /// or [`Game::try_play`] for moves from untrusted sources.
    fn play_unchecked(&mut self, mv: Self::Move);

    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// The information `seat` is entitled to, and nothing more.
    fn view_of(&self, seat: Seat) -> Self::View<'_>;

    /// The view of the seat to move.
    fn view(&self) -> Self::View<'_> {
        self.view_of(self.to_move())
    }

    /// Whether `mv` is legal now. Games override this with a direct check.
    fn is_legal(&self, mv: Self::Move) -> bool {
        self.legal_moves().contains(&mv)
    }

    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut moves = Vec::new();
        self.legal_moves_into(&mut moves);
        moves
    }

    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// Checked play that consumes the position and hands it back untouched on error.
    fn play(mut self, mv: Self::Move) -> Result<Self, PlayError<Self>> {
        if self.is_over() || !self.is_legal(mv) {
            let seat = self.to_move();
            return Err(PlayError {
                mv,
                seat,
                position: self,
            });
        }
        self.play_unchecked(mv);
        Ok(self)
    }

    /// Checked play in place: on error the position is unchanged.
    fn try_play(&mut self, mv: Self::Move) -> Result<(), IllegalMove<Self::Move>> {
        if self.is_over() || !self.is_legal(mv) {
            return Err(IllegalMove {
                mv,
                seat: self.to_move(),
            });
        }
        self.play_unchecked(mv);
        Ok(())
    }
}

/// A refused move, without the position (for referees that keep playing on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv} for seat {seat}")]
pub struct IllegalMove<M: Display + Debug> {
    pub mv: M,
    pub seat: Seat,
}
