//! Writes `tests/data/dominoes_deals.txt`, the golden deals that `tests/dominoes_props.rs`
//! checks the seeded shuffle against (the contract: `docs/seeding.md`):
//! `cargo run --example dominoes_golden_deals > tests/data/dominoes_deals.txt`.
//!
//! The file pins the seeding contract: regenerate it only with a deliberate change of
//! that contract, never to make a test pass.

use arena_core::dominoes::{Case, Deal, starting_tile};

fn main() {
    println!(
        "# Golden deals: master seed, pair, case | the shuffled set (A's hand, B's hand, stock front first) | starting tile owner and tile."
    );
    println!(
        "# Generated once by 'cargo run --example dominoes_golden_deals > tests/data/dominoes_deals.txt'; never regenerate to make a test pass."
    );
    println!("# Contract: docs/seeding.md (ChaCha8, stream packing, Fisher-Yates over next_u32).");
    for (seed, pair) in [(0u64, 0u32), (1, 0), (42, 0), (42, 1), (2009, 7)] {
        for case in ["5,4", "7,5", "9,7"] {
            let case: Case = case.parse().expect("a valid case");
            let deal = Deal::seeded(case, seed, pair);
            let order: Vec<String> = deal.order().iter().map(|t| t.to_string()).collect();
            let (owner, tile) = starting_tile(&deal);
            println!(
                "{seed} {pair} {case} | {} | {owner} {tile}",
                order.join(" ")
            );
        }
    }
}
