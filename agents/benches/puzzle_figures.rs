//! The puzzle figures of `docs/benchmarks.md` (single thread): a plain program, not a
//! criterion harness, because a proof is one long run, not a hot loop.
//! `cargo bench -p agents --bench puzzle_figures` (about five minutes); pass `quick` to
//! leave out the old solvers and the DominoPeg census.

use std::time::{Duration, Instant};

use agents::puzzles::Solver;
use agents::puzzles::detrak::BranchAndBound;
use agents::puzzles::dominopeg::{ColumnScan, ExactCover, MirrorScan, census};
use agents::puzzles::dust::{ConeIda, Ida, SlackIda};
use arena_core::puzzle::Puzzle;
use arena_core::puzzle::detrak::Detrak;
use arena_core::puzzle::dominopeg::{self, DominoPeg, Instance};
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

fn dominopeg_figures<S: Solver<DominoPeg>>(name: &str, solver: &mut S, seeds: u64) {
    for text in ["0 10 20 24 28", "0 7 14 21 28", "25 26 27 32 33 34"] {
        let i: Instance = text.parse().unwrap();
        let t = Instant::now();
        let s = solver.solve(&i, u64::MAX).unwrap();
        println!(
            "dominopeg {name} {text}: {} in {:.3?} ({} nodes)",
            if s.answer == dominopeg::Answer::None {
                "none"
            } else {
                "solved"
            },
            t.elapsed(),
            s.nodes
        );
    }
    let mut times = Vec::new();
    for seed in 0..seeds {
        let i = DominoPeg::generate(seed);
        let t = Instant::now();
        solver.solve(&i, u64::MAX).unwrap();
        times.push(t.elapsed());
    }
    summary(
        &format!("dominopeg {name}, seeds 0..{seeds}"),
        times,
        seeds as usize,
    );
}

fn dust_figures<S: Solver<Dust> + Default>(name: &str, budget: u64) {
    let board: Board = "GGGGBOYO,RORGYGBY,RRBGOORG,BRBOBYRG,BRYBBRGG,OYGGRORG"
        .parse()
        .unwrap();
    let t = Instant::now();
    let s = S::default().solve(&board, u64::MAX).unwrap();
    println!(
        "dust {name} seed board: {} moves, optimal {}, {:.3?}, {} nodes",
        s.score,
        s.optimal,
        t.elapsed(),
        s.nodes
    );
    let (mut times, mut proven) = (Vec::new(), 0);
    for seed in 0..100 {
        let t = Instant::now();
        let s = S::default().solve(&Dust::generate(seed), budget).unwrap();
        times.push(t.elapsed());
        proven += usize::from(s.optimal);
    }
    summary(
        &format!("dust {name}, seeds 0..100, {budget} nodes each"),
        times,
        proven,
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let quick = std::env::args().any(|a| a == "quick");
    dominopeg_figures("MirrorScan", &mut MirrorScan::default(), 2000);
    dominopeg_figures("ColumnScan", &mut ColumnScan::default(), 2000);
    if !quick {
        dominopeg_figures("ExactCover", &mut ExactCover::default(), 100);
        let t = Instant::now();
        let c = census();
        println!(
            "dominopeg census: {} of 324632 five-circle sets solvable, {} solutions, {:.3?}",
            c.solvable_sets(),
            c.solutions,
            t.elapsed()
        );
    }
    dust_figures::<ConeIda>("ConeIda", 5_000_000);
    if !quick {
        dust_figures::<SlackIda>("SlackIda", 5_000_000);
        dust_figures::<Ida>("Ida", 1_000_000);
    }

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
