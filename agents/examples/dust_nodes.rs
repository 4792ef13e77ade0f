//! Node counts and times of the dust solvers on seeded boards, one line per seed, then
//! the proofs' median and maximum and how many are proven within each smaller budget (a
//! search is deterministic: within a budget B it proves exactly the boards whose proof
//! takes at most B nodes).
//! `cargo run --release -p agents --example dust_nodes -- SOLVER FROM TO BUDGET`, or
//! `… -- SOLVER board BOARD` for one board without a budget. SOLVER: `cone`, `slack`, `ida`.
use std::time::Instant;

use agents::puzzles::Solver;
use agents::puzzles::dust::{ConeIda, Ida, SlackIda};
use arena_core::puzzle::Puzzle;
use arena_core::puzzle::dust::{Board, Dust};

fn solve(
    solver: &str,
    board: &Board,
    budget: u64,
) -> agents::puzzles::Solved<arena_core::puzzle::dust::Answer> {
    match solver {
        "slack" => SlackIda::default().solve(board, budget),
        "cone" => ConeIda::default().solve(board, budget),
        "ida" => Ida::default().solve(board, budget),
        other => panic!("unknown solver {other}"),
    }
    .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let solver = args.get(1).map_or("cone", String::as_str);
    if args.get(2).is_some_and(|a| a == "board") {
        let board: Board = args[3].parse().unwrap();
        let t = Instant::now();
        let s = solve(solver, &board, u64::MAX);
        let elapsed = t.elapsed();
        println!(
            "{board}: {} moves, optimal {}, {} nodes, {elapsed:.3?}",
            s.score, s.optimal, s.nodes
        );
        return;
    }
    let from: u64 = args.get(2).map_or(0, |a| a.parse().unwrap());
    let to: u64 = args.get(3).map_or(10, |a| a.parse().unwrap());
    let budget: u64 = args.get(4).map_or(5_000_000, |a| a.parse().unwrap());
    let (mut total, mut proven) = (0, 0);
    let mut proofs = Vec::new();
    for seed in from..to {
        let board = Dust::generate(seed);
        let t = Instant::now();
        let s = solve(solver, &board, budget);
        total += s.nodes;
        if s.optimal {
            proofs.push((s.nodes, t.elapsed()));
        }
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
    let mut nodes: Vec<u64> = proofs.iter().map(|p| p.0).collect();
    let mut times: Vec<_> = proofs.iter().map(|p| p.1).collect();
    nodes.sort_unstable();
    times.sort_unstable();
    if let (Some(n), Some(t)) = (nodes.last(), times.last()) {
        println!(
            "proofs: nodes median {} max {n}; time median {:.3?} max {t:.3?}",
            nodes[nodes.len() / 2],
            times[times.len() / 2]
        );
    }
    for cap in [
        1_000_000u64,
        5_000_000,
        10_000_000,
        20_000_000,
        50_000_000,
        100_000_000,
    ] {
        if cap <= budget {
            let within = nodes.iter().filter(|&&n| n <= cap).count();
            println!("proven within {cap} nodes: {within}");
        }
    }
}
