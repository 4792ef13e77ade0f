//! The built-in puzzle solvers: the seeds' cases (DominoPeg's three, dust's worked
//! example), T6 (the offline Détrak optimum) and T7 (online play and its regret).

use agents::puzzles::detrak::{BranchAndBound, OnlineGreedy};
use agents::puzzles::dominopeg::ExactCover;
use agents::puzzles::dust::{Ida, greedy};
use agents::puzzles::{Solved, Solver};
use arena_core::puzzle::Puzzle;
use arena_core::puzzle::detrak::{self, Detrak};
use arena_core::puzzle::dominopeg::{self, DominoPeg};
use arena_core::puzzle::dust::{Board, Dust};

const UNLIMITED: u64 = u64::MAX;

fn checked<P: Puzzle>(instance: &P::Instance, solved: &Solved<P::Answer>) {
    assert_eq!(
        P::score(instance, &solved.answer),
        Ok(solved.score),
        "{}",
        solved.answer
    );
}

#[test]
fn dominopeg_solves_the_seeds_two_cases_and_refutes_the_six_circle_one() {
    let mut solver = ExactCover::default();
    for text in ["0 10 20 24 28", "0 7 14 21 28"] {
        let instance: dominopeg::Instance = text.parse().unwrap();
        let solved = solver.solve(&instance, UNLIMITED).unwrap();
        assert!(
            matches!(solved.answer, dominopeg::Answer::Solution(_)),
            "{text}"
        );
        checked::<DominoPeg>(&instance, &solved);
    }
    let six: dominopeg::Instance = "25 26 27 32 33 34".parse().unwrap();
    let solved = solver.solve(&six, UNLIMITED).unwrap();
    assert_eq!(solved.answer, dominopeg::Answer::None);
    assert!(solved.optimal);
}

#[test]
fn dominopeg_over_budget_answers_nothing() {
    let instance: dominopeg::Instance = "2 9 15 18 24".parse().unwrap(); // seed 4: no solution
    assert!(ExactCover::default().solve(&instance, 100).is_none());
    let solved = ExactCover::default().solve(&instance, UNLIMITED).unwrap();
    assert_eq!(solved.answer, dominopeg::Answer::None);
}

#[test]
#[ignore = "about 20 s: measured in docs/benchmarks.md"]
fn dust_proves_the_seed_board_optimal_at_eleven() {
    let board: Board = "GGGGBOYO,RORGYGBY,RRBGOORG,BRBOBYRG,BRYBBRGG,OYGGRORG"
        .parse()
        .unwrap();
    let solved = Ida::default().solve(&board, UNLIMITED).unwrap();
    assert_eq!(solved.score, 11);
    assert!(solved.optimal);
    checked::<Dust>(&board, &solved);
}

#[test]
fn dust_optimum_is_never_worse_than_greedy_and_a_tiny_budget_falls_back() {
    let board = Dust::generate(0);
    let solved = Ida::default().solve(&board, UNLIMITED).unwrap();
    checked::<Dust>(&board, &solved);
    assert!(solved.optimal);
    assert!(solved.score < greedy(&board).len() as i64);
    for seed in 0..3 {
        let board = Dust::generate(seed);
        let quick = Ida::default().solve(&board, 10).unwrap();
        assert!(!quick.optimal);
        checked::<Dust>(&board, &quick);
    }
}

/// The maximum by plain enumeration of every tiling and every assignment of the
/// dominoes (no bound): feasible only for instances with few kinds of domino.
fn brute_force_maximum(instance: &detrak::Instance) -> i32 {
    fn go(grid: &mut [u8; 25], left: &mut Vec<(u8, u8)>) -> i32 {
        let Some(cell) = grid.iter().position(|&c| c == 0) else {
            return detrak::grid_score(grid);
        };
        let mut best = i32::MIN;
        for partner in [cell + 1, cell + 5] {
            if partner >= 25 || (partner == cell + 1 && cell % 5 == 4) || grid[partner] != 0 {
                continue;
            }
            let mut tried = Vec::new();
            for k in 0..left.len() {
                let d = left[k];
                if tried.contains(&d) {
                    continue;
                }
                tried.push(d);
                left.swap_remove(k);
                let flips = if d.0 == d.1 { 1 } else { 2 };
                for &(x, y) in [(d.0, d.1), (d.1, d.0)].iter().take(flips) {
                    grid[cell] = x;
                    grid[partner] = y;
                    best = best.max(go(grid, left));
                }
                grid[cell] = 0;
                grid[partner] = 0;
                left.push(d);
                let last = left.len() - 1;
                left.swap(k, last);
            }
        }
        best
    }
    let mut grid = [0u8; 25];
    grid[0] = instance.start;
    let mut left: Vec<(u8, u8)> = instance.dominoes.iter().map(|d| (d.0, d.1)).collect();
    go(&mut grid, &mut left)
}

#[test]
fn t6_the_offline_solver_proves_the_maximum() {
    let mut solver = BranchAndBound::default();
    for text in [
        "4 | 44 44 44 44 44 44 44 44 44 44 44 44",
        "1 | 11 11 11 11 11 11 22 22 22 22 22 22",
        "3 | 33 33 33 33 33 33 33 33 33 33 33 36",
    ] {
        let instance: detrak::Instance = text.parse().unwrap();
        let solved = solver.solve(&instance, UNLIMITED).unwrap();
        assert!(solved.optimal, "{text}");
        checked::<Detrak>(&instance, &solved);
        assert_eq!(
            solved.score,
            i64::from(brute_force_maximum(&instance)),
            "{text}"
        );
    }
    // Random instances: a small budget gives a valid answer, not yet proven.
    let instance = Detrak::generate(0);
    let solved = solver.solve(&instance, 20_000).unwrap();
    checked::<Detrak>(&instance, &solved);
    assert!(!solved.optimal);
}

#[test]
fn t7_online_play_sees_dominoes_one_at_a_time_and_has_nonnegative_regret() {
    let instance: detrak::Instance = "1 | 11 22 11 22 11 22 11 22 11 22 11 22".parse().unwrap();
    let offline = BranchAndBound::default()
        .solve(&instance, UNLIMITED)
        .unwrap()
        .score;
    let mut online = OnlineGreedy::default();
    let played = online.solve(&instance, UNLIMITED).unwrap();
    checked::<Detrak>(&instance, &played);
    assert!(
        offline - played.score >= 0,
        "regret {}",
        offline - played.score
    );
    // Online: the placement of domino k does not depend on the dominoes after it.
    let mut changed = instance.clone();
    changed.dominoes[11] = detrak::Domino(5, 6);
    let replayed = online.solve(&changed, UNLIMITED).unwrap();
    assert_eq!(
        replayed.answer.placements[..11],
        played.answer.placements[..11]
    );
}

/// Classifies all C(35,5) = 324,632 five-circle sets by enumerating every solution
/// once: each leaves exactly five circles empty (30 pegs on 35 circles), and a set is
/// solvable iff some solution leaves it empty. Prints the counts for
/// `docs/benchmarks.md`; run with `cargo test --release -p agents --test puzzles --
/// --ignored --nocapture dominopeg_counts`.
#[test]
#[ignore = "enumerates every solution of the puzzle"]
fn dominopeg_counts_every_solution_and_solvable_five_circle_set() {
    let mut total = 0u64;
    let mut empty_sets = std::collections::HashSet::new();
    dominopeg::search(0, &mut |s| {
        total += 1;
        let pegs = s.iter().fold(0u64, |m, p| m | p.footprint().unwrap().pegs);
        empty_sets.insert(!pegs & ((1 << 35) - 1));
        true
    });
    assert!(empty_sets.iter().all(|m| m.count_ones() == 5));
    println!(
        "solutions {total}, solvable five-circle sets {} of 324632",
        empty_sets.len()
    );
    for text in ["0 10 20 24 28", "0 7 14 21 28"] {
        let i: dominopeg::Instance = text.parse().unwrap();
        assert!(empty_sets.contains(&i.holes), "{text}");
    }
    let seed4: dominopeg::Instance = "2 9 15 18 24".parse().unwrap();
    assert!(!empty_sets.contains(&seed4.holes));
}
