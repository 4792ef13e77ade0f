//! TCO09 Dominoes in the arena: cases, deals, agents, records, drawing and tools.

mod serve;
mod wire;

use agents::{Spec, SpecError};
use anyhow::Result;
use arena_core::dominoes::{Case, Deal, Dominoes, EndReason, Endgame};
use arena_core::rng::Family;
use arena_core::{Agent, Seat};

use super::duel::{DuelGame, DuelTask};
use super::{SolveOptions, Solved};
use crate::record::{Extra, Termination};

pub struct DominoesGame;

pub static DOMINOES: DuelTask<DominoesGame> = DuelTask::new();

impl DuelGame for DominoesGame {
    type G = Dominoes;
    const NAME: &'static str = "dominoes";
    const FAMILY: Family = Family::Dominoes;
    const EXTRA_COLUMNS: &'static [&'static str] = &["start", "stock_left", "pips_a", "pips_b"];

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

    fn build(spec: &Spec, seed: u64) -> Result<Box<dyn Agent<Dominoes> + Send>, SpecError> {
        agents::dominoes::build(spec, seed)
    }

    fn first(start: &Dominoes) -> Seat {
        start.starter().0
    }

    fn termination(end: &Dominoes) -> Termination {
        match end.end_reason() {
            Some(EndReason::Domino) => Termination::Domino,
            // The engine only asks once the game is over.
            Some(EndReason::Blocked) | None => Termination::Blocked,
        }
    }

    fn start_extras(start: &Dominoes, extras: &mut Vec<Extra>) {
        extras.push(Extra::Text(start.starter().1.to_string()));
    }

    fn end_extras(end: &Dominoes, seat_a: Seat, extras: &mut Vec<Extra>) {
        extras.extend([
            Extra::Int(end.stock_len() as i64),
            Extra::Int(i64::from(end.hand(seat_a).pips())),
            Extra::Int(i64::from(end.hand(seat_a.other()).pips())),
        ]);
    }

    fn draw(position: &Dominoes) -> String {
        position.to_string()
    }

    fn serve(spec: &Spec, seed: u64) -> Result<()> {
        serve::run(spec, seed)
    }

    /// Endgames in D17 notation; the value is `1`, `0.5` or `0` for the side to move.
    fn solve(position: &str, options: &SolveOptions) -> Result<Option<Solved>> {
        let endgame: Endgame = position.parse()?;
        let solution = agents::dominoes::solver::solve(&endgame);
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
