//! TCO09 Dominoes in the arena: cases, deals, agents, records, drawing and tools.

mod serve;
mod wire;

use agents::{Spec, SpecError};
use anyhow::Result;
use arena_core::dominoes::{Case, Deal, DominoMove, Dominoes, End, EndReason, Endgame};
use arena_core::rng::Family;
use arena_core::{Agent, Game, Seat};

use super::duel::{DuelGame, DuelTask};
use super::{Board, SolveOptions, Solved};
use crate::record::{Extra, Extras};

pub struct DominoesGame;

/// A hand emptied (D12).
const DOMINO: &str = "domino";
/// Two passes in a row (D13).
const BLOCKED: &str = "blocked";

pub static DOMINOES: DuelTask<DominoesGame> = DuelTask::new();

impl DuelGame for DominoesGame {
    type G = Dominoes;
    const NAME: &'static str = "dominoes";
    const FAMILY: Family = Family::Dominoes;
    const EXTRA_COLUMNS: &'static [&'static str] = &["start", "stock_left", "pips_a", "pips_b"];
    const CASE_AXES: (&'static str, &'static str) = ("N", "H");
    // Each player sees its own hand; the other hand and the stock are hidden.
    const HIDES_INFORMATION: bool = true;
    const BOARD: Board = Board::DominoLine;
    const ENDINGS: &'static [&'static str] = &[DOMINO, BLOCKED];

    fn default_cases() -> Vec<Case> {
        Case::all().collect()
    }

    fn case_key(case: Case) -> u16 {
        case.key()
    }

    /// Agent A always holds seat A; the second game exchanges the hands (D5).
    fn start(case: Case, seed: u64, pair: u32, game: u8) -> (Dominoes, Seat) {
        // A worker usually plays both games of a pair in a row: shuffle once.
        thread_local! {
            static LAST: std::cell::Cell<Option<(Case, u64, u32, Deal)>> =
                const { std::cell::Cell::new(None) };
        }
        let deal = LAST.with(|last| match last.get() {
            Some((c, s, p, deal)) if (c, s, p) == (case, seed, pair) => deal,
            _ => {
                let deal = Deal::seeded(case, seed, pair);
                last.set(Some((case, seed, pair, deal)));
                deal
            }
        });
        let deal = if game == 0 {
            deal
        } else {
            deal.with_hands_exchanged()
        };
        (Dominoes::new(&deal), Seat::A)
    }

    fn build(
        spec: &Spec,
        seed: &dyn Fn() -> u64,
    ) -> Result<Box<dyn Agent<Dominoes> + Send>, SpecError> {
        agents::dominoes::build(spec, seed)
    }

    fn first(start: &Dominoes) -> Seat {
        start.starter().0
    }

    fn ending(end: &Dominoes) -> &'static str {
        match end.end_reason() {
            Some(EndReason::Domino) => DOMINO,
            // The engine only asks once the game is over.
            Some(EndReason::Blocked) | None => BLOCKED,
        }
    }

    fn start_extras(start: &Dominoes, extras: &mut Extras) {
        extras.push(Extra::Text(start.starter().1.name().into()));
    }

    fn end_extras(end: &Dominoes, seat_a: Seat, extras: &mut Extras) {
        extras.extend([
            Extra::Int(end.stock_len() as i64),
            Extra::Int(i64::from(end.hand(seat_a).pips())),
            Extra::Int(i64::from(end.hand(seat_a.other()).pips())),
        ]);
    }

    fn draw(position: &Dominoes) -> String {
        position.to_string()
    }

    fn explain_illegal(position: &Dominoes, mv: DominoMove) -> String {
        let hand = position.hand(position.to_move()).tiles();
        let (l, r) = (position.line().left(), position.line().right());
        let fitting = hand.iter().find_map(|t| {
            if t.has(l) {
                Some(format!("{t}, which fits the left end ({l})"))
            } else if t.has(r) {
                Some(format!("{t}, which fits the right end ({r})"))
            } else {
                None
            }
        });
        match mv {
            DominoMove::Place { end, index } => match hand.get(usize::from(index)) {
                None => format!(
                    "{mv}: the hand holds {} tiles (indices 0 to {})",
                    hand.len(),
                    hand.len().saturating_sub(1)
                ),
                Some(t) => {
                    let (side, n) = match end {
                        End::Left => ("left", l),
                        End::Right => ("right", r),
                    };
                    format!("{mv}: {t} does not fit the {side} end ({n})")
                }
            },
            DominoMove::Draw => match fitting {
                Some(f) => format!("DRAW while holding {f}"),
                None => "DRAW with the stock empty (PASS instead)".to_owned(),
            },
            DominoMove::Pass => match fitting {
                Some(f) => format!("PASS while holding {f}"),
                None => format!(
                    "PASS with {} tiles in the stock (DRAW instead)",
                    position.stock_len()
                ),
            },
        }
    }

    fn serve(spec: &Spec, seed: u64) -> Result<()> {
        serve::run(spec, seed)
    }

    /// Endgames in D17 notation; the value is `1`, `0.5` or `0` for the side to move.
    fn solve(position: &str, options: &SolveOptions) -> Result<Option<Solved>> {
        let endgame: Endgame = position.parse()?;
        if endgame.is_over() {
            anyhow::bail!(
                "invalid Dominoes endgame {position:?}: the game is over (a player with no \
                 tile left placed its last one and won, D12), so nobody is to move"
            );
        }
        if let Some(v) = &options.variant {
            anyhow::bail!(
                "--variant {v:?}: Dominoes has no variants (the case is in the position: N)"
            );
        }
        let solution = match options.nodes {
            None => agents::dominoes::solver::solve(&endgame),
            Some(n) => agents::dominoes::solver::Solver::new()
                .solve_within(&endgame, n)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{position}: the solver's node budget ({n}) ran out; raise --nodes"
                    )
                })?,
        };
        let keep = if options.value_only { 1 } else { usize::MAX };
        Ok(Some(Solved {
            position: endgame.to_string(),
            value: solution.value.to_string(),
            moves: solution
                .best
                .iter()
                .take(keep)
                .map(ToString::to_string)
                .collect(),
        }))
    }

    fn learned() -> Option<agents::learned::GameKind> {
        Some(agents::learned::GameKind::Dominoes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::dominoes::Tile;

    /// N=5, H=4: A holds 3-4 (the start) 0-1 0-2 1-2; B holds 1-4 2-3 0-3 2-4.
    fn game() -> Dominoes {
        let t = |s: &str| s.parse::<Tile>().unwrap();
        let mut order = vec![t("3-4"), t("0-1"), t("0-2"), t("1-2")];
        order.extend([t("1-4"), t("2-3"), t("0-3"), t("2-4")]);
        let case: Case = "5,4".parse().unwrap();
        order.extend(
            Tile::set(5)
                .filter(|x| !order.contains(x))
                .collect::<Vec<_>>(),
        );
        Dominoes::new(&Deal::from_order(case, order).unwrap())
    }

    #[test]
    fn illegal_moves_are_explained() {
        // B moves first (A owned 3-4): the line is 3-4, B holds 1-4 2-3 0-3 2-4.
        let g = game();
        let explain = |m: &str| DominoesGame::explain_illegal(&g, m.parse().unwrap());
        assert_eq!(explain("L9"), "L9: the hand holds 4 tiles (indices 0 to 3)");
        assert_eq!(explain("L0"), "L0: 1-4 does not fit the left end (3)");
        assert_eq!(
            explain("DRAW"),
            "DRAW while holding 1-4, which fits the right end (4)"
        );
        assert_eq!(
            explain("PASS"),
            "PASS while holding 1-4, which fits the right end (4)"
        );
    }
}
