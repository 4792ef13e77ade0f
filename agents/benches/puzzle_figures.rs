//! The puzzle figures of `docs/benchmarks.md` (single thread): a plain program, not a
//! criterion harness, because a proof is one long run, not a hot loop.
//! `cargo bench -p agents --bench puzzle_figures` (about seven minutes); pass `quick` to
//! leave out the old solvers and the DominoPeg census; pass `every-set` for only the
//! DominoPeg timing of all 324,632 five-circle sets one by one (about a minute), or
//! `detrak` for only the Détrak proofs of seeds 0..100 (about ten seconds; a minute and a half before issue 25).

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

/// Every five-circle hole set solved or refuted one by one, each timed (the census
/// classifies them by orbit and does not time them one by one).
fn dominopeg_every_set() {
    let mut solver = MirrorScan::default();
    let (mut times, mut over) = (Vec::with_capacity(324_632), 0);
    let (mut worst, mut worst_holes) = (Duration::ZERO, 0);
    let t = Instant::now();
    for a in 0..35u64 {
        for b in a + 1..35 {
            for c in b + 1..35 {
                for d in c + 1..35 {
                    for e in d + 1..35 {
                        let holes = 1 << a | 1 << b | 1 << c | 1 << d | 1 << e;
                        let start = Instant::now();
                        solver.solve(&Instance { holes }, u64::MAX).unwrap();
                        let took = start.elapsed();
                        over += usize::from(took >= Duration::from_millis(10));
                        if took > worst {
                            (worst, worst_holes) = (took, holes);
                        }
                        times.push(took);
                    }
                }
            }
        }
    }
    times.sort();
    println!(
        "dominopeg MirrorScan, all {} five-circle sets one by one: median {:.3?}, p99.9 {:.3?}, max {:.3?} (holes {:?}), {} at 10 ms or more; {:.1?} in all",
        times.len(),
        times[times.len() / 2],
        times[times.len() * 999 / 1000],
        worst,
        (0..35)
            .filter(|i| worst_holes >> i & 1 == 1)
            .collect::<Vec<_>>(),
        over,
        t.elapsed()
    );
}

/// Détrak offline (T6): every instance of seeds 0..100 solved to a proof, a fresh
/// solver for each, as `arena run` does.
fn detrak_figures() {
    let (mut times, mut proven, mut nodes, mut total) = (Vec::new(), 0, Vec::new(), 0);
    for seed in 0..100 {
        let t = Instant::now();
        let s = BranchAndBound::default()
            .solve(&Detrak::generate(seed), u64::MAX)
            .unwrap();
        times.push(t.elapsed());
        proven += usize::from(s.optimal);
        nodes.push(s.nodes);
        total += s.score;
    }
    nodes.sort();
    println!(
        "detrak: mean optimum {:.2}; nodes median {}, max {}",
        total as f64 / 100.0,
        nodes[50],
        nodes[99]
    );
    summary("detrak, seeds 0..100, proofs", times, proven);
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    if std::env::args().any(|a| a == "every-set") {
        dominopeg_every_set();
        return;
    }
    if std::env::args().any(|a| a == "detrak") {
        detrak_figures();
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

    detrak_figures();
}
