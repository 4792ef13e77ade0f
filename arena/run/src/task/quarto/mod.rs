//! Quarto (both variants) in the arena: cases, openings, agents, records, drawing, tools.

mod serve;
mod wire;

use std::fmt::Write as _;

use agents::quarto::book;
use agents::quarto::solver::Solver;
use agents::{Spec, SpecError};
use anyhow::{Result, anyhow};
use arena_core::quarto::{Case, Ending, Piece, Quarto, QuartoMove, Setup, Square, Variant};
use arena_core::rng::Family;
use arena_core::{Agent, Game, Seat};

use super::duel::{DuelGame, DuelTask};
use super::{Board, BookOptions, SolveOptions, Solved};
use crate::record::{Extra, Extras};

pub struct QuartoGame;

/// A line of four sharing an attribute.
const LINE: &str = "line";
/// The board filled with no line (a draw).
const FULL: &str = "full";

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
    const CASE_AXES: (&'static str, &'static str) = ("variant", "opening plies");
    const HIDES_INFORMATION: bool = false;
    const BOARD: Board = Board::PieceGrid;
    const ENDINGS: &'static [&'static str] = &[LINE, FULL];

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

    fn build(
        spec: &Spec,
        seed: &dyn Fn() -> u64,
    ) -> Result<Box<dyn Agent<Quarto> + Send>, SpecError> {
        agents::quarto::build(spec, seed)
    }

    fn first(start: &Quarto) -> Seat {
        start.to_move()
    }

    fn ending(end: &Quarto) -> &'static str {
        match end.ending() {
            Some(Ending::Line(_)) => LINE,
            // The engine only asks once the game is over.
            Some(Ending::Full) | None => FULL,
        }
    }

    fn start_extras(start: &Quarto, extras: &mut Extras) {
        extras.push(Extra::Text(start.setup().to_string().into()));
    }

    fn end_extras(_end: &Quarto, _seat_a: Seat, _extras: &mut Extras) {}

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
        // Hex like the board above it and the notation beside it.
        let hand = position
            .in_hand()
            .map_or("-".into(), |p| format!("{:x}", p.index()));
        let _ = write!(out, "in hand: {hand}   notation: {}", position.setup());
        out
    }

    fn explain_illegal(position: &Quarto, mv: QuartoMove) -> String {
        let used = |p: Piece| position.available() & (1 << p.index()) == 0;
        match mv {
            QuartoMove::Give(_) if position.in_hand().is_some() => format!(
                "{mv}: a piece is in hand ({}); place it first",
                position
                    .in_hand()
                    .map_or(String::new(), |h| h.index().to_string())
            ),
            QuartoMove::Give(p) if used(p) => format!("{mv}: piece {} is already used", p.index()),
            QuartoMove::Give(_) => format!("{mv} is not legal here"),
            QuartoMove::Place { .. } if position.in_hand().is_none() => {
                format!("{mv}: no piece in hand; the opening move is a give (- <piece>)")
            }
            QuartoMove::Place { square, .. } if position.piece_at(square).is_some() => {
                format!("{mv}: square {} is taken", square.index())
            }
            QuartoMove::Place { give: Some(p), .. } if used(p) => {
                format!("{mv}: piece {} is already used or in play", p.index())
            }
            QuartoMove::Place { give: Some(_), .. } => {
                format!("{mv}: a winning placement, or the last piece, is written without a give")
            }
            QuartoMove::Place { give: None, .. } => {
                format!("{mv}: a placement that does not win must give a piece")
            }
        }
    }

    fn serve(spec: &Spec, seed: u64) -> Result<()> {
        serve::run(spec, seed)
    }

    /// Positions in Q9 notation; the value is `win`, `draw` or `loss` for the side to move.
    fn solve(position: &str, options: &SolveOptions) -> Result<Option<Solved>> {
        let setup: Setup = position.parse()?;
        let pos = Quarto::from_setup(variant(options.variant.as_deref())?, &setup)
            .map_err(|e| anyhow!("invalid Quarto position {position:?}: {e}"))?;
        if let Some(outcome) = pos.outcome() {
            anyhow::bail!(
                "invalid Quarto position {position:?}: the game is over ({outcome:?}), so nobody is to move"
            );
        }
        let mut solver = Solver::new();
        if options.progress {
            solver.set_progress(1 << 22, |p| {
                eprint!(
                    "\r{} M nodes, root move {}/{}   ",
                    p.nodes >> 20,
                    p.root_done,
                    p.root_moves
                );
            });
        }
        let advice = if options.value_only {
            "raise --nodes"
        } else {
            "raise --nodes, or ask --value-only"
        };
        let over =
            |e: agents::quarto::solver::BudgetExhausted| anyhow!("{position}: {e}; {advice}");
        let (value, moves) = match (options.value_only, options.nodes) {
            (true, None) => {
                let (v, m) = solver.solve_best(&pos);
                (v, m.into_iter().collect())
            }
            (true, Some(n)) => {
                let (v, m) = solver.solve_best_within(&pos, n).map_err(over)?;
                (v, m.into_iter().collect())
            }
            (false, None) => solver.solve_moves(&pos),
            (false, Some(n)) => solver.solve_moves_budget(&pos, n).map_err(over)?,
        };
        if options.progress {
            eprint!("\r{:60}\r", "");
        }
        Ok(Some(Solved {
            position: setup.to_string(),
            value: value.to_string(),
            moves: moves.iter().map(ToString::to_string).collect::<Vec<_>>(),
        }))
    }

    /// One entry per symmetry class within `plies` of the empty board, each solved
    /// within its node budget (`docs/benchmarks.md`).
    fn book(options: &BookOptions) -> Result<Option<String>> {
        let root = Quarto::new(variant(options.variant.as_deref())?);
        let config = book::BookConfig {
            plies: options.plies,
            max_nodes: options.nodes,
            ..book::BookConfig::default()
        };
        let show = options.progress;
        let built = book::build(&root, config, |p| {
            if show {
                eprint!(
                    "\r{}/{} entries, {} M nodes   ",
                    p.done,
                    p.total,
                    p.nodes >> 20
                );
            }
        });
        if show {
            eprintln!();
        }
        Ok(Some(built.to_string()))
    }

    fn verify_book(text: &str, nodes: u64) -> Result<Option<usize>> {
        let parsed: book::Book = text.parse()?;
        Ok(Some(book::verify(
            &parsed,
            nodes,
            book::BookConfig::default().table_bits,
        )?))
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
