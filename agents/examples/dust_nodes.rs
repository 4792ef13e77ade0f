//! Node counts of the dust solvers on seeded boards (a development tool; the figures of
//! `docs/benchmarks.md` come from `benches/puzzle_figures.rs`).
//! `cargo run --release -p agents --example dust_nodes -- SOLVER FROM TO BUDGET`
use std::time::Instant;

use agents::puzzles::Solver;
use agents::puzzles::dust::{ConeIda, Ida, SlackIda};
use arena_core::puzzle::Puzzle;
use arena_core::puzzle::dust::Dust;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let solver = args.get(1).map_or("slack", String::as_str);
    let from: u64 = args.get(2).map_or(0, |a| a.parse().unwrap());
    let to: u64 = args.get(3).map_or(10, |a| a.parse().unwrap());
    let budget: u64 = args.get(4).map_or(5_000_000, |a| a.parse().unwrap());
    let (mut total, mut proven) = (0, 0);
    for seed in from..to {
        let board = Dust::generate(seed);
        let t = Instant::now();
        let s = match solver {
            "slack" => SlackIda::default().solve(&board, budget),
            "cone" => ConeIda::default().solve(&board, budget),
            "ida" => Ida::default().solve(&board, budget),
            other => panic!("unknown solver {other}"),
        }
        .unwrap();
        total += s.nodes;
        proven += usize::from(s.optimal);
        println!(
            "seed {seed}: {} moves, optimal {}, {} nodes, {:.3?}",
            s.score,
            s.optimal,
            s.nodes,
            t.elapsed()
        );
    }
    println!("{solver}: {proven} proven, {total} nodes in all");
}
