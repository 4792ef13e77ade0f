//! The benches' reference solver (plain alpha-beta + table, `benches/common`) agrees with
//! the naive negamax on small positions and with our solver on larger ones, so the
//! speed ratios in `docs/benchmarks.md` compare solvers that compute the same thing.

#[path = "../../tests/naive/mod.rs"]
mod naive;

#[path = "../benches/common/quarto_reference.rs"]
mod quarto_reference;

use agents::quarto::Solver;
use agents::quarto::suite::{random_position, random_safe_position};
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
