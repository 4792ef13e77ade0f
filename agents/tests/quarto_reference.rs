//! The benches' reference solver (plain alpha-beta + table, `benches/common`) agrees with
//! the naive negamax on small positions and with our solver on larger ones, so the
//! speed ratios in `docs/benchmarks.md` compare solvers that compute the same thing.

#[path = "../../tests/naive/mod.rs"]
mod naive;

#[path = "../benches/common/quarto_reference.rs"]
mod quarto_reference;

use agents::quarto::Solver;
use agents::quarto::suite::{random_position, random_safe_position};
use arena_core::Game;
use arena_core::quarto::Variant;
use naive::quarto::{NaiveQuarto, naive_value};
use quarto_reference::Reference;

#[test]
fn the_reference_agrees_with_the_naive_negamax_and_the_solver() {
    for variant in Variant::ALL {
        let mut reference = Reference::new(variant);
        for seed in 0..60u64 {
            let pos = random_position(variant, 2 + (seed % 4) as u32, 40 + seed);
            let naive =
                NaiveQuarto::from_notation(variant == Variant::Squares, &pos.setup().to_string())
                    .unwrap();
            assert_eq!(
                reference.value(&pos),
                naive_value(&naive),
                "{}",
                pos.setup()
            );
        }
        let mut solver = Solver::with_table_bits(18);
        for seed in 0..8u64 {
            let pos = random_safe_position(variant, 8, 70 + seed);
            assert_eq!(
                reference.value(&pos),
                solver.solve(&pos).score(),
                "{}",
                pos.setup()
            );
        }
    }
}

/// The solver's shortcuts (only safe gives searched, strangled children scored without
/// a search, "no win possible" cut-offs near the end, the symmetric table) checked
/// against the plain reference on many seeded middle-game positions: the value, and in
/// the all-moves mode every move's value.
#[test]
fn the_solver_matches_the_reference_move_by_move_on_many_positions() {
    let mut counts = [0usize; 3];
    for variant in Variant::ALL {
        let mut reference = Reference::new(variant);
        let mut solver = Solver::with_table_bits(18);
        for empties in 5..=9u32 {
            for seed in 0..20u64 {
                for pos in [
                    random_position(variant, empties, 900 + seed),
                    random_safe_position(variant, empties, 950 + seed),
                ] {
                    let value = reference.value(&pos);
                    assert_eq!(solver.solve(&pos).score(), value, "{}", pos.setup());
                    let (v, moves) = solver.solve_moves(&pos);
                    assert_eq!(v.score(), value, "{}", pos.setup());
                    let expected: Vec<_> = pos
                        .legal_moves()
                        .into_iter()
                        .filter(|&mv| {
                            let mut child = pos;
                            child.play_unchecked(mv);
                            let mover = match child.outcome() {
                                Some(arena_core::Outcome::Draw) => 0,
                                Some(_) => 1,
                                None => -reference.value(&child),
                            };
                            mover == value
                        })
                        .collect();
                    assert_eq!(moves, expected, "{}", pos.setup());
                    counts[(value + 1) as usize] += 1;
                }
            }
        }
    }
    assert!(counts.iter().all(|&c| c > 10), "loss/draw/win {counts:?}");
}
