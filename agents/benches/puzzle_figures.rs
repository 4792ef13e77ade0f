//! The puzzle figures of `docs/benchmarks.md` (single thread): a plain program, not a
//! criterion harness, because a proof is one long run, not a hot loop.
//! `cargo bench -p agents --bench puzzle_figures` (about two minutes).

use std::time::{Duration, Instant};

use agents::puzzles::Solver;
use agents::puzzles::detrak::BranchAndBound;
use agents::puzzles::dominopeg::ExactCover;
use agents::puzzles::dust::Ida;
use arena_core::puzzle::Puzzle;
use arena_core::puzzle::detrak::Detrak;
use arena_core::puzzle::dominopeg::{DominoPeg, Instance};
use arena_core::puzzle::dust::{Board, Dust};

fn summary(label: &str, mut times: Vec<Duration>, proven: usize) {
    times.sort();
    let n = times.len();
    println!(
        "{label}: {proven}/{n} proven; median {:.3?}, max {:.3?}",
        times[n / 2],
        times[n - 1]
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut peg = ExactCover::default();
    for text in ["0 10 20 24 28", "0 7 14 21 28", "25 26 27 32 33 34"] {
        let i: Instance = text.parse().unwrap();
        let t = Instant::now();
        let s = peg.solve(&i, u64::MAX).unwrap();
        println!(
            "dominopeg {text}: {} in {:.3?} ({} nodes)",
            s.answer.to_string().len() > 4,
            t.elapsed(),
            s.nodes
        );
    }
    let mut times = Vec::new();
    for seed in 0..100 {
        let i = DominoPeg::generate(seed);
        let t = Instant::now();
        peg.solve(&i, u64::MAX).unwrap();
        times.push(t.elapsed());
    }
    summary("dominopeg, seeds 0..100", times, 100);

    let board: Board = "GGGGBOYO,RORGYGBY,RRBGOORG,BRBOBYRG,BRYBBRGG,OYGGRORG"
        .parse()
        .unwrap();
    let t = Instant::now();
    let s = Ida::default().solve(&board, u64::MAX).unwrap();
    println!(
        "dust seed board: {} moves, optimal {}, {:.3?}, {} nodes",
        s.score,
        s.optimal,
        t.elapsed(),
        s.nodes
    );
    let (mut times, mut proven) = (Vec::new(), 0);
    for seed in 0..100 {
        let t = Instant::now();
        let s = Ida::default()
            .solve(&Dust::generate(seed), 1_000_000)
            .unwrap();
        times.push(t.elapsed());
        proven += usize::from(s.optimal);
    }
    summary("dust, seeds 0..100, 1M nodes each", times, proven);

    let (mut times, mut proven) = (Vec::new(), 0);
    let mut solver = BranchAndBound::default();
    for seed in 0..20 {
        let t = Instant::now();
        let s = solver.solve(&Detrak::generate(seed), 2_000_000).unwrap();
        times.push(t.elapsed());
        proven += usize::from(s.optimal);
    }
    summary("detrak, seeds 0..20, 2M nodes each", times, proven);
}
