//! Quarto (both variants) in the arena: cases, openings, agents, records, drawing, tools.

mod serve;
mod wire;

use std::fmt::Write as _;

use agents::{Spec, SpecError};
use anyhow::{Result, anyhow};
use arena_core::quarto::{Case, Ending, Quarto, Setup, Square, Variant};
use arena_core::rng::Family;
use arena_core::{Agent, Game, Seat};

use super::duel::{DuelGame, DuelTask};
use super::{SolveOptions, Solved};
use crate::record::{Extra, Termination};

pub struct QuartoGame;

pub static QUARTO: DuelTask<QuartoGame> = DuelTask::new();

fn variant(name: Option<&str>) -> Result<Variant> {
    name.unwrap_or("lines")
        .parse()
        .map_err(|e| anyhow!("--variant: {e}"))
}

impl DuelGame for QuartoGame {
    type G = Quarto;
    const NAME: &'static str = "quarto";
    const FAMILY: Family = Family::Quarto;
    const EXTRA_COLUMNS: &'static [&'static str] = &["start"];

    fn default_cases() -> Vec<Case> {
        Case::DEFAULTS.to_vec()
    }

    fn case_key(case: Case) -> u16 {
        case.key()
    }

    /// Both games start from the same seeded opening (Q8); agent A takes seat A in the
    /// first game and seat B in the second.
    fn start(case: Case, seed: u64, pair: u32, game: u8) -> (Quarto, Seat) {
        let seat_a = if game == 0 { Seat::A } else { Seat::B };
        (Quarto::seeded_opening(case, seed, pair), seat_a)
    }

    fn build(spec: &Spec, seed: u64) -> Result<Box<dyn Agent<Quarto> + Send>, SpecError> {
        agents::quarto::build(spec, seed)
    }

    fn first(start: &Quarto) -> Seat {
        start.to_move()
    }

    fn termination(end: &Quarto) -> Termination {
        match end.ending() {
            Some(Ending::Line(_)) => Termination::Line,
            // The engine only asks once the game is over.
            Some(Ending::Full) | None => Termination::Full,
        }
    }

    fn start_extras(start: &Quarto, extras: &mut Vec<Extra>) {
        extras.push(Extra::Text(start.setup().to_string()));
    }

    fn end_extras(_end: &Quarto, _seat_a: Seat, _extras: &mut Vec<Extra>) {}

    fn draw(position: &Quarto) -> String {
        let mut out = String::new();
        for row in 0..4u8 {
            for col in 0..4u8 {
                let sq = Square::from_coords(row, col);
                match position.piece_at(sq) {
                    Some(p) => {
                        let _ = write!(out, " {:x}", p.index());
                    }
                    None => out.push_str(" ."),
                }
            }
            out.push('\n');
        }
        let hand = position.in_hand().map_or("-".into(), |p| p.to_string());
        let _ = write!(out, "in hand: {hand}   notation: {}", position.setup());
        out
    }

    fn serve(spec: &Spec, seed: u64) -> Result<()> {
        serve::run(spec, seed)
    }

    /// Positions in Q9 notation; the value is `win`, `draw` or `loss` for the side to move.
    fn solve(position: &str, options: &SolveOptions) -> Result<Option<Solved>> {
        let setup: Setup = position.parse()?;
        let pos = Quarto::from_setup(variant(options.variant.as_deref())?, &setup)
            .map_err(|e| anyhow!("invalid quarto position {position:?}: {e}"))?;
        let (value, moves) = agents::quarto::solver::solve_moves(&pos);
        Ok(Some(Solved {
            position: setup.to_string(),
            value: value.to_string(),
            moves: moves.iter().map(ToString::to_string).collect(),
        }))
    }

    fn perft(variant_name: Option<&str>, depth: u32) -> Result<Option<u64>> {
        // The opening give is a ply, then sixteen placements.
        if depth > 17 {
            anyhow::bail!("a Quarto game has at most 17 plies; depth {depth} counts nothing");
        }
        let start = Quarto::new(variant(variant_name)?);
        Ok(Some(arena_core::quarto::perft(&start, depth)))
    }

    fn learned() -> Option<agents::learned::GameKind> {
        Some(agents::learned::GameKind::Quarto)
    }
}
