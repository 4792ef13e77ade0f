//! The built-in puzzle solvers: the seeds' cases (DominoPeg's three, dust's worked
//! example), T6 (the offline Détrak optimum) and T7 (online play and its regret).

use agents::puzzles::detrak::{BranchAndBound, OnlineGreedy, OnlineLookahead};
use agents::puzzles::dominopeg::{
    ColumnScan, ExactCover, FIVE_SETS, MirrorScan, census, census_slice, five_set_rank,
};
use agents::puzzles::dust::{ConeIda, Ida, SlackIda, greedy};
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

/// The seed's board proven at 11 without a budget, and a valid unproven answer with a
/// tiny one.
fn proves_the_seed_board_at_eleven<S: Solver<Dust> + Default>() {
    let board: Board = "GGGGBOYO,RORGYGBY,RRBGOORG,BRBOBYRG,BRYBBRGG,OYGGRORG"
        .parse()
        .unwrap();
    let solved = S::default().solve(&board, UNLIMITED).unwrap();
    assert_eq!(solved.score, 11);
    assert!(solved.optimal);
    checked::<Dust>(&board, &solved);
    let quick = S::default().solve(&board, 1000).unwrap();
    assert!(!quick.optimal);
    checked::<Dust>(&board, &quick);
}

#[test]
fn dust_slack_ida_proves_the_seed_board_optimal_at_eleven() {
    proves_the_seed_board_at_eleven::<SlackIda>();
}

/// Both exact solvers on boards thinned by random clicks to about 20 cells: the same
/// optimum, and each answer valid.
#[test]
fn dust_slack_ida_agrees_with_ida_on_small_boards() {
    let mut pick = 7u64;
    for seed in 0..40 {
        let mut board = Dust::generate(seed);
        while board.cells.iter().filter(|&&c| c != 0).count() > 20 {
            let clusters = board.clusters();
            pick = pick
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            board.remove(clusters[(pick >> 33) as usize % clusters.len()].1);
        }
        let slack = SlackIda::default().solve(&board, UNLIMITED).unwrap();
        let plain = Ida::default().solve(&board, UNLIMITED).unwrap();
        assert!(slack.optimal && plain.optimal);
        assert_eq!(slack.score, plain.score, "{board}");
        checked::<Dust>(&board, &slack);
    }
}

#[test]
fn dust_cone_ida_proves_the_seed_board_optimal_at_eleven() {
    proves_the_seed_board_at_eleven::<ConeIda>();
}

/// Full random boards that `SlackIda` proves within 10 M nodes: the same optimum.
#[test]
#[ignore = "about a minute in release: run with --release -- --ignored"]
fn dust_cone_ida_agrees_with_slack_ida_on_full_boards() {
    let mut compared = 0;
    for seed in 0..40 {
        let board = Dust::generate(seed);
        let slack = SlackIda::default().solve(&board, 10_000_000).unwrap();
        if !slack.optimal {
            continue;
        }
        let cone = ConeIda::default().solve(&board, UNLIMITED).unwrap();
        assert!(cone.optimal);
        assert_eq!(cone.score, slack.score, "seed {seed}");
        assert!(cone.nodes < slack.nodes, "seed {seed}");
        checked::<Dust>(&board, &cone);
        compared += 1;
    }
    assert!(compared >= 10, "{compared}");
}

/// A board thinned by random clicks (seeded) to at most `cells` cells: its optimum is
/// cheap for the plain solvers.
fn thinned_dust_board(seed: u64, cells: usize, pick: &mut u64) -> Board {
    let mut board = Dust::generate(seed);
    while board.cells.iter().filter(|&&c| c != 0).count() > cells {
        let clusters = board.clusters();
        *pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        board.remove(clusters[(*pick >> 33) as usize % clusters.len()].1);
    }
    board
}

/// The cone-pruned solver against `SlackIda` on 300 boards thinned to 18..=30 cells,
/// and against `Ida` on the smallest: the same proven optimum, and a valid answer.
#[test]
fn dust_cone_ida_agrees_with_the_plain_solvers_on_thinned_boards() {
    let mut pick = 3u64;
    let mut shorter_than_greedy = 0;
    for seed in 0..300 {
        let cells = 18 + (seed as usize % 13);
        let board = thinned_dust_board(seed, cells, &mut pick);
        let cone = ConeIda::default().solve(&board, UNLIMITED).unwrap();
        let slack = SlackIda::default().solve(&board, UNLIMITED).unwrap();
        assert!(cone.optimal && slack.optimal);
        assert_eq!(cone.score, slack.score, "{board}");
        checked::<Dust>(&board, &cone);
        if cells <= 20 {
            let plain = Ida::default().solve(&board, UNLIMITED).unwrap();
            assert_eq!(cone.score, plain.score, "{board}");
        }
        shorter_than_greedy += usize::from(cone.score < greedy(&board).len() as i64);
    }
    assert!(shorter_than_greedy > 50, "{shorter_than_greedy}");
}

/// Boards with holes anywhere (not settled: the cone lemma does not apply) against
/// `SlackIda`.
#[test]
fn dust_cone_ida_agrees_on_unsettled_boards() {
    let mut pick = 5u64;
    for seed in 0..100 {
        let mut board = thinned_dust_board(seed, 30, &mut pick);
        for _ in 0..6 {
            pick = pick
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            board.cells[(pick >> 33) as usize % board.cells.len()] = 0;
        }
        let cone = ConeIda::default().solve(&board, UNLIMITED).unwrap();
        let slack = SlackIda::default().solve(&board, UNLIMITED).unwrap();
        assert!(cone.optimal && slack.optimal);
        assert_eq!(cone.score, slack.score, "{board}");
        checked::<Dust>(&board, &cone);
    }
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
fn t6_seeded_instances_are_proven_and_no_online_answer_beats_the_proof() {
    for seed in [7, 8] {
        let instance = Detrak::generate(seed);
        let proof = BranchAndBound::default()
            .solve(&instance, UNLIMITED)
            .unwrap();
        assert!(proof.optimal, "seed {seed}");
        checked::<Detrak>(&instance, &proof);
        // A smaller budget never finds more than the proof, and the online players
        // (T7) have a non-negative regret against it.
        let quick = BranchAndBound::default().solve(&instance, 50_000).unwrap();
        checked::<Detrak>(&instance, &quick);
        assert!(quick.score <= proof.score, "seed {seed}");
        for played in [
            OnlineGreedy::default().solve(&instance, UNLIMITED),
            OnlineLookahead::new(4).solve(&instance, UNLIMITED),
        ] {
            let played = played.unwrap();
            checked::<Detrak>(&instance, &played);
            assert!(played.score <= proof.score, "seed {seed}");
        }
    }
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

/// The five-circle sets of the first `n` seeds.
fn seeded_hole_sets(n: u64) -> Vec<dominopeg::Instance> {
    (0..n).map(DominoPeg::generate).collect()
}

#[test]
fn dominopeg_column_scan_agrees_with_algorithm_x_and_the_referee() {
    let mut scan = ColumnScan::default();
    let mut mirror = MirrorScan::default();
    let mut cover = ExactCover::default();
    let mut unsolvable = 0;
    let mut instances = seeded_hole_sets(120);
    for text in [
        "0 10 20 24 28",
        "0 7 14 21 28",
        "25 26 27 32 33 34",
        "",
        "3 17",
    ] {
        instances.push(text.parse().unwrap());
    }
    for instance in &instances {
        let fast = scan.solve(instance, UNLIMITED).unwrap();
        let slow = cover.solve(instance, UNLIMITED).unwrap();
        let mirrored = mirror.solve(instance, UNLIMITED).unwrap();
        assert!(fast.optimal && mirrored.optimal);
        checked::<DominoPeg>(instance, &fast);
        checked::<DominoPeg>(instance, &mirrored);
        let none = |a: &dominopeg::Answer| *a == dominopeg::Answer::None;
        assert_eq!(none(&fast.answer), none(&slow.answer), "{instance}");
        assert_eq!(none(&mirrored.answer), none(&slow.answer), "{instance}");
        unsolvable += usize::from(none(&fast.answer));
    }
    assert!(unsolvable > 0 && unsolvable < 20, "{unsolvable}");
    let hard = DominoPeg::generate(178);
    assert!(scan.solve(&hard, 10).is_none(), "over budget: nothing");
    assert!(mirror.solve(&hard, 10).is_none(), "over budget: nothing");
}

/// Counts every solution with Algorithm X (no memo), for sets with few solutions.
fn algorithm_x_count(holes: u64) -> u64 {
    let mut n = 0;
    dominopeg::search(holes, &mut |_| {
        n += 1;
        true
    });
    n
}

#[test]
fn dominopeg_memoised_counts_match_plain_enumeration() {
    let scan = ColumnScan::default();
    // Seeds whose sets have few solutions (0 to 311), so plain enumeration is quick.
    for seed in [4, 7, 9, 14, 18] {
        let holes = DominoPeg::generate(seed).holes;
        assert_eq!(scan.count(holes), algorithm_x_count(holes), "seed {seed}");
    }
}

/// Circles of the board's mirror images: left-right, top-bottom, both.
fn mirrored(holes: u64) -> [u64; 3] {
    let mut out = [0; 3];
    for c in 0..35 {
        if holes >> c & 1 == 1 {
            let (r, col) = (c / 7, c % 7);
            out[0] |= 1 << (7 * r + 6 - col);
            out[1] |= 1 << (7 * (4 - r) + col);
            out[2] |= 1 << (7 * (4 - r) + 6 - col);
        }
    }
    out
}

/// The census solves each symmetry orbit once: check that mirror images of a set are
/// solvable alike, and (for sets with few solutions) have as many solutions by
/// Algorithm X.
#[test]
fn dominopeg_mirror_images_are_solvable_alike() {
    let mut scan = ColumnScan::default();
    let none = |s: &mut ColumnScan, holes| {
        s.solve(&dominopeg::Instance { holes }, UNLIMITED)
            .unwrap()
            .answer
            == dominopeg::Answer::None
    };
    for instance in seeded_hole_sets(60) {
        let n = none(&mut scan, instance.holes);
        for image in mirrored(instance.holes) {
            assert_eq!(none(&mut scan, image), n, "{instance}");
        }
    }
    for seed in [4, 7, 9, 18] {
        let holes = DominoPeg::generate(seed).holes;
        let n = scan.count(holes);
        for image in mirrored(holes) {
            assert_eq!(algorithm_x_count(image), n, "seed {seed}");
        }
    }
}

/// A slice of the census by plain enumeration (every solution leaving circles 10, 16,
/// 17 and 18 empty, tallied by its five empty circles) against per-set memoised counts
/// and per-set solving.
#[test]
fn dominopeg_census_slice_agrees_with_per_set_counts() {
    let must: u64 = 1 << 10 | 1 << 16 | 1 << 17 | 1 << 18;
    let slice = census_slice(must);
    let mut scan = ColumnScan::default();
    let mut sets = 0;
    for a in (0..35).filter(|a| must >> a & 1 == 0) {
        let holes = must | 1 << a;
        sets += 1;
        let n = slice[five_set_rank(holes).unwrap()];
        assert_eq!(n, scan.count(holes), "{a}");
        let solved = scan
            .solve(&dominopeg::Instance { holes }, UNLIMITED)
            .unwrap();
        assert_eq!(n > 0, solved.answer != dominopeg::Answer::None, "{a}");
    }
    assert_eq!(sets, 31);
    let total = slice.iter().sum::<u64>();
    assert!(total > 0);
    assert_eq!(total, scan.count(must));
}

/// The full census (`docs/benchmarks.md`): 318,685 of the 324,632 five-circle sets are
/// solvable, and the puzzle has 3,506,772,316 solutions. Run with `cargo test --release
/// -p agents --test puzzles -- --ignored --nocapture dominopeg_census`.
#[test]
#[ignore = "about a minute: the whole census"]
fn dominopeg_census_of_every_five_circle_set() {
    let census = census();
    println!(
        "solutions {}, solvable five-circle sets {} of {FIVE_SETS}",
        census.solutions,
        census.solvable_sets()
    );
    assert_eq!(census.solvable_sets(), 318_685);
    assert_eq!(census.solutions, 3_506_772_316);
    let mut cover = ExactCover::default();
    for instance in seeded_hole_sets(50) {
        let none = cover.solve(&instance, UNLIMITED).unwrap().answer == dominopeg::Answer::None;
        assert_eq!(
            census.is_solvable(instance.holes),
            Some(!none),
            "{instance}"
        );
    }
}

/// T7 for expected score: the look-ahead never sees a domino before its turn (its play of
/// the first k dominoes does not depend on the rest), is deterministic, gives valid
/// answers, and beats the greedy online player on average.
#[test]
fn t7_lookahead_plays_online_for_expected_score_and_beats_greedy() {
    let (mut greedy_total, mut lookahead_total) = (0, 0);
    for seed in 0..12 {
        let instance = Detrak::generate(seed);
        let a = OnlineLookahead::new(8).solve(&instance, u64::MAX).unwrap();
        assert_eq!(Detrak::score(&instance, &a.answer), Ok(a.score));
        assert_eq!(
            OnlineLookahead::new(8).solve(&instance, u64::MAX).unwrap(),
            a
        );
        // Change the last six dominoes: the first six placements stay.
        let mut other = instance.clone();
        for d in other.dominoes.iter_mut().skip(6) {
            *d = detrak::Domino(7 - d.0, 7 - d.1);
        }
        let b = OnlineLookahead::new(8).solve(&other, u64::MAX).unwrap();
        assert_eq!(a.answer.placements[..6], b.answer.placements[..6]);
        lookahead_total += a.score;
        greedy_total += OnlineGreedy::default().solve(&instance, 0).unwrap().score;
    }
    assert!(
        lookahead_total > greedy_total,
        "{lookahead_total} vs {greedy_total}"
    );
}

/// Optima proven by the exact solver as it was before issue 25's diagonal table (its
/// bound: the run table plus the anti-diagonal's best fill, a different argument), one
/// `instance = optimum` a line: seeds of `arena gen detrak` (from 0 on), and the
/// adversarial instances of `tests/data/detrak_adversarial.txt`.
fn detrak_optima() -> Vec<(detrak::Instance, i64)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/detrak_optima.txt"
    );
    std::fs::read_to_string(path)
        .expect("the optima file")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (instance, optimum) = l.split_once('=').expect("instance = optimum");
            (
                instance.trim().parse().expect("an instance"),
                optimum.trim().parse().expect("an optimum"),
            )
        })
        .collect()
}

fn proves_the_recorded_optimum(instance: &detrak::Instance, optimum: i64) {
    let solved = BranchAndBound::default()
        .solve(instance, UNLIMITED)
        .unwrap();
    assert!(solved.optimal, "{instance}");
    checked::<Detrak>(instance, &solved);
    assert_eq!(solved.score, optimum, "{instance}");
}

/// The solver's proofs agree with the old solver's on a few of the recorded instances
/// (quick ones; all of them with `--ignored`).
#[test]
fn t6_proofs_agree_with_the_previous_solver() {
    let optima = detrak_optima();
    assert!(optima.len() >= 30, "{} recorded optima", optima.len());
    for text in [
        "2 | 11 22 33 44 55 66 12 34 56 61 23 45",
        "3 | 11 22 12 21 13 24 35 46 11 22 56 12",
        "1 | 11 22 33 44 55 66 12 34 56 21 43 65",
    ] {
        let instance: detrak::Instance = text.parse().unwrap();
        let &(_, optimum) = optima
            .iter()
            .find(|(i, _)| *i == instance)
            .expect("a recorded instance");
        proves_the_recorded_optimum(&instance, optimum);
    }
    for seed in [7, 10] {
        let instance = Detrak::generate(seed);
        let &(_, optimum) = optima
            .iter()
            .find(|(i, _)| *i == instance)
            .expect("a recorded seed");
        proves_the_recorded_optimum(&instance, optimum);
    }
}

#[test]
#[ignore = "every recorded optimum (113): about 20 s in release"]
fn t6_proofs_agree_with_the_previous_solver_everywhere() {
    for (instance, optimum) in detrak_optima() {
        proves_the_recorded_optimum(&instance, optimum);
    }
}
