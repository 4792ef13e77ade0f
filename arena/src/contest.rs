//! What the tournament engine needs to know about a game: its cases, how a pair's two
//! games start, how agents are built, and what a finished game adds to its result row.

use std::fmt::Write as _;

use agents::{Spec, SpecError};
use arena_core::dominoes::{Case as DominoCase, Deal, Dominoes, EndReason};
use arena_core::quarto::{Case as QuartoCase, Ending, Quarto, Square};
use arena_core::rng::Family;
use arena_core::{Agent, Game, Seat};

/// Per-game facts beyond the result, as strings for `games.csv` (empty when not
/// applicable to the game).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Details {
    /// Dominoes: the starting tile (D6). Quarto: the position after the opening (Q9).
    pub start: String,
    /// Dominoes: tiles left in the stock at the end.
    pub stock_left: String,
    /// Dominoes: pip sums left in agent A's and agent B's hands.
    pub pips_a: String,
    pub pips_b: String,
}

/// A game the tournament engine can run.
pub trait Contest: Sync + 'static {
    type G: Game<Case: Send + Sync> + Send + crate::external::Wire;
    /// `dominoes` or `quarto`.
    const NAME: &'static str;
    const FAMILY: Family;

    /// The cases a run uses when none are named.
    fn default_cases() -> Vec<<Self::G as Game>::Case>;
    /// Every case `all` expands to.
    fn all_cases() -> Vec<<Self::G as Game>::Case>;
    fn case_key(case: <Self::G as Game>::Case) -> u16;

    /// Game `game` (0 or 1) of pair `pair`: the start position and the seat agent A sits
    /// in. The two games share the deal or opening with the seats exchanged (D5, Q8).
    fn start(case: <Self::G as Game>::Case, seed: u64, pair: u32, game: u8) -> (Self::G, Seat);

    fn build(spec: &Spec, seed: u64) -> Result<Box<dyn Agent<Self::G> + Send>, SpecError>;

    /// The seat whose side opened the game (Dominoes: the starting tile's owner, D6;
    /// Quarto: the side to move after the opening).
    fn first(start: &Self::G) -> Seat;

    /// The termination name of a game that ended by the rules.
    fn termination(position: &Self::G) -> &'static str;

    fn details(start: &Self::G, end: &Self::G, seat_a: Seat) -> Details;

    /// A text drawing of a position, for `arena replay`.
    fn draw(position: &Self::G) -> String;
}

/// TCO09 Dominoes.
pub struct DominoesContest;

impl Contest for DominoesContest {
    type G = Dominoes;
    const NAME: &'static str = "dominoes";
    const FAMILY: Family = Family::Dominoes;

    fn default_cases() -> Vec<DominoCase> {
        DominoCase::all().collect()
    }

    fn all_cases() -> Vec<DominoCase> {
        DominoCase::all().collect()
    }

    fn case_key(case: DominoCase) -> u16 {
        case.key()
    }

    /// Agent A always holds seat A; the second game exchanges the hands (D5).
    fn start(case: DominoCase, seed: u64, pair: u32, game: u8) -> (Dominoes, Seat) {
        let deal = Deal::seeded(case, seed, pair);
        let deal = if game == 0 {
            deal
        } else {
            deal.with_hands_exchanged()
        };
        (Dominoes::new(&deal), Seat::A)
    }

    fn build(spec: &Spec, seed: u64) -> Result<Box<dyn Agent<Dominoes> + Send>, SpecError> {
        agents::dominoes::build(spec, seed)
    }

    fn first(start: &Dominoes) -> Seat {
        start.starter().0
    }

    fn termination(position: &Dominoes) -> &'static str {
        match position.end_reason() {
            Some(EndReason::Domino) => "domino",
            Some(EndReason::Blocked) => "blocked",
            None => "unfinished",
        }
    }

    fn details(start: &Dominoes, end: &Dominoes, seat_a: Seat) -> Details {
        Details {
            start: start.starter().1.to_string(),
            stock_left: end.stock_len().to_string(),
            pips_a: end.hand(seat_a).pips().to_string(),
            pips_b: end.hand(seat_a.other()).pips().to_string(),
        }
    }

    fn draw(position: &Dominoes) -> String {
        position.to_string()
    }
}

/// Quarto, both variants.
pub struct QuartoContest;

impl Contest for QuartoContest {
    type G = Quarto;
    const NAME: &'static str = "quarto";
    const FAMILY: Family = Family::Quarto;

    fn default_cases() -> Vec<QuartoCase> {
        QuartoCase::DEFAULTS.to_vec()
    }

    fn all_cases() -> Vec<QuartoCase> {
        QuartoCase::DEFAULTS.to_vec()
    }

    fn case_key(case: QuartoCase) -> u16 {
        case.key()
    }

    /// Both games start from the same seeded opening (Q8); agent A takes seat A in the
    /// first game and seat B in the second.
    fn start(case: QuartoCase, seed: u64, pair: u32, game: u8) -> (Quarto, Seat) {
        let seat_a = if game == 0 { Seat::A } else { Seat::B };
        (Quarto::seeded_opening(case, seed, pair), seat_a)
    }

    fn build(spec: &Spec, seed: u64) -> Result<Box<dyn Agent<Quarto> + Send>, SpecError> {
        agents::quarto::build(spec, seed)
    }

    fn first(start: &Quarto) -> Seat {
        start.to_move()
    }

    fn termination(position: &Quarto) -> &'static str {
        match position.ending() {
            Some(Ending::Line(_)) => "line",
            Some(Ending::Full) => "full",
            None => "unfinished",
        }
    }

    fn details(start: &Quarto, _end: &Quarto, _seat_a: Seat) -> Details {
        Details {
            start: start.setup().to_string(),
            ..Details::default()
        }
    }

    fn draw(position: &Quarto) -> String {
        let mut out = String::new();
        for row in 0..4u8 {
            for col in 0..4u8 {
                let sq = Square::from_coords(row, col);
                match position.piece_at(sq) {
                    Some(p) => write!(out, " {:x}", p.index()).unwrap(),
                    None => out.push_str(" ."),
                }
            }
            out.push('\n');
        }
        let hand = position.in_hand().map_or("-".into(), |p| p.to_string());
        write!(out, "in hand: {hand}   notation: {}", position.setup()).unwrap();
        out
    }
}
