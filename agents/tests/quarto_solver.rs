//! The exact solver against the vectors file and the independent naive negamax.

#[path = "../../tests/naive/mod.rs"]
mod naive;

use agents::quarto::solver::{Solver, Value, solve, solve_moves};
use agents::quarto::suite::{random_position, random_safe_position};
use arena_core::Game;
use arena_core::quarto::{Quarto, QuartoMove, Variant};
use naive::quarto::{NaiveQuarto, naive_value};

const VECTORS: &str = include_str!("data/quarto_solver.txt");

fn naive_of(pos: &Quarto) -> NaiveQuarto {
    NaiveQuarto::from_notation(pos.variant() == Variant::Squares, &pos.setup().to_string()).unwrap()
}

/// The naive value of every legal move: (move, value for the mover).
fn naive_moves(pos: &Quarto) -> Vec<(QuartoMove, i8)> {
    let n = naive_of(pos);
    pos.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = n.clone();
            child.play(&mv.to_string()).unwrap();
            (mv, -naive_value(&child))
        })
        .collect()
}

struct Vector {
    line: String,
    pos: Quarto,
    value: Value,
    moves: Vec<QuartoMove>,
}

fn vectors() -> Vec<Vector> {
    VECTORS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            assert_eq!(f.len(), 4, "{l}");
            let variant: Variant = f[0].parse().unwrap();
            let pos = Quarto::from_setup(variant, &f[1].parse().unwrap()).unwrap();
            let moves = f[3]
                .split(';')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(|m| m.parse().unwrap())
                .collect();
            Vector {
                line: l.to_owned(),
                pos,
                value: f[2].parse().unwrap(),
                moves,
            }
        })
        .collect()
}

#[test]
fn vectors_file_values_and_best_moves() {
    let vs = vectors();
    assert!(vs.len() >= 40, "{} vectors", vs.len());
    let mut solver = Solver::with_table_bits(20);
    for v in &vs {
        let (value, mut moves) = solver.solve_moves(&v.pos);
        assert_eq!(value, v.value, "{}", v.line);
        let mut expected = v.moves.clone();
        moves.sort();
        expected.sort();
        assert_eq!(moves, expected, "{}", v.line);
        // A fresh solver agrees (no help from the table).
        assert_eq!(solve(&v.pos), v.value, "{}", v.line);
    }
}

#[test]
fn vectors_with_few_empties_match_the_naive_negamax() {
    let mut checked = 0;
    for v in vectors() {
        if 16 - v.pos.occupied().count_ones() > 5 {
            continue;
        }
        let naive = naive_of(&v.pos);
        assert_eq!(v.value.score(), naive_value(&naive), "{}", v.line);
        let mut best: Vec<QuartoMove> = naive_moves(&v.pos)
            .into_iter()
            .filter(|&(_, x)| x == v.value.score())
            .map(|(m, _)| m)
            .collect();
        let mut listed = v.moves.clone();
        best.sort();
        listed.sort();
        assert_eq!(best, listed, "{}", v.line);
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
}

/// The six positions of the research notes (§3.4), whatever the file says.
#[test]
fn the_notes_positions() {
    let cases = [
        (".8f.eb..1d2.....:7", Value::Win, "6 5"),
        (".4.7..e.f..d.b1.:6", Value::Win, "9 0;9 8;9 9"),
        ("9...a7...2..6c.b:0", Value::Win, "8 4"),
        (".95..a87.10c4f..:b", Value::Win, "4 2"),
        ("....f.47..a912..:8", Value::Draw, ""),
        ("8.97..4b..a....3:c", Value::Draw, ""),
    ];
    for (s, value, wins) in cases {
        let pos = Quarto::from_setup(Variant::Lines, &s.parse().unwrap()).unwrap();
        let (v, moves) = solve_moves(&pos);
        assert_eq!(v, value, "{s}");
        if value == Value::Win {
            let expected: Vec<QuartoMove> = wins.split(';').map(|m| m.parse().unwrap()).collect();
            assert_eq!(moves, expected, "{s}");
        }
    }
}

#[test]
fn a_win_with_the_last_piece_is_a_win() {
    // One empty square (15); the piece in hand, 15 (all attributes), completes the
    // last column whose other pieces are 7, 11, 13... any sharing line works: checked
    // against the naive negamax rather than by hand.
    let mut found = 0;
    for seed in 0..400 {
        let pos = random_position(Variant::Lines, 1, seed);
        let naive = naive_value(&naive_of(&pos));
        assert_eq!(solve(&pos).score(), naive, "{}", pos.setup());
        if naive == 1 {
            found += 1;
        }
    }
    assert!(found > 10, "{found} last-piece wins");
    // Two empties: the side to move loses when the last piece wins on both squares.
    let mut losses = 0;
    for seed in 0..400 {
        let pos = random_position(Variant::Squares, 2, seed);
        let naive = naive_value(&naive_of(&pos));
        assert_eq!(solve(&pos).score(), naive, "{}", pos.setup());
        losses += usize::from(naive == -1);
    }
    assert!(losses > 5, "{losses} last-piece losses");
}

#[test]
fn random_positions_with_few_empties_match_the_naive_negamax() {
    let mut solver = Solver::with_table_bits(18);
    let mut counts = [0usize; 3];
    for variant in Variant::ALL {
        for empties in 1..=5u32 {
            let n = if empties == 5 { 60 } else { 150 };
            for seed in 0..n {
                for pos in [
                    random_position(variant, empties, seed),
                    random_safe_position(variant, empties, 10_000 + seed),
                ] {
                    let naive = naive_value(&naive_of(&pos));
                    let v = solver.solve(&pos).score();
                    assert_eq!(v, naive, "{variant} {}", pos.setup());
                    counts[(naive + 1) as usize] += 1;
                }
            }
        }
    }
    assert!(counts.iter().all(|&c| c > 100), "loss/draw/win {counts:?}");
}

#[test]
fn best_moves_match_the_naive_negamax() {
    for variant in Variant::ALL {
        for seed in 0..60 {
            let empties = 2 + (seed % 3) as u32;
            let pos = random_position(variant, empties, 500 + seed);
            let (value, mut moves) = solve_moves(&pos);
            let mut best: Vec<QuartoMove> = naive_moves(&pos)
                .into_iter()
                .filter(|&(_, x)| x == value.score())
                .map(|(m, _)| m)
                .collect();
            moves.sort();
            best.sort();
            assert_eq!(moves, best, "{variant} {}", pos.setup());
        }
    }
}

#[test]
fn finished_games_and_budgets() {
    // A node budget too small gives up with None and leaves the table exact.
    let pos = random_safe_position(Variant::Lines, 10, 3);
    let mut solver = Solver::with_table_bits(18);
    assert_eq!(solver.solve_within(&pos, 50), None);
    assert!(solver.stats().nodes <= 50);
    let full = solver.solve(&pos);
    assert_eq!(Solver::with_table_bits(18).solve(&pos), full);
    // Solving again is one table hit.
    solver.reset_stats();
    assert_eq!(solver.solve(&pos), full);
    assert_eq!(solver.stats().nodes, 1);
    assert_eq!(solver.stats().tt_hits, 1);
    // A finished game: the side to move has lost.
    let mut won =
        Quarto::from_setup(Variant::Lines, &"135.............:7".parse().unwrap()).unwrap();
    won.play_unchecked("3".parse().unwrap());
    assert_eq!(solve(&won), Value::Loss);
}

/// Prints the generated part of `data/quarto_solver.txt`:
/// `cargo test -p agents --test quarto_solver -- --ignored print_vectors --nocapture`.
#[test]
#[ignore = "generator for the vectors file"]
fn print_vectors() {
    let line = |pos: &Quarto| {
        let (v, moves) = solve_moves(pos);
        let ms: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        println!(
            "{} | {} | {} | {}",
            pos.variant(),
            pos.setup(),
            v,
            ms.join("; ")
        );
    };
    let immediate = |pos: &Quarto| pos.winning_squares(pos.in_hand().unwrap()) != 0;
    for s in [
        ".8f.eb..1d2.....:7",
        ".4.7..e.f..d.b1.:6",
        "9...a7...2..6c.b:0",
        ".95..a87.10c4f..:b",
        "....f.47..a912..:8",
        "8.97..4b..a....3:c",
    ] {
        line(&Quarto::from_setup(Variant::Lines, &s.parse().unwrap()).unwrap());
    }
    println!("# The last-piece class, then random positions.");
    // The last-piece class: the only win is with the last piece, or the last piece
    // given loses.
    for (variant, empties, want, count) in [
        (Variant::Lines, 1, Value::Win, 4),
        (Variant::Squares, 1, Value::Win, 3),
        (Variant::Lines, 2, Value::Loss, 3),
        (Variant::Squares, 2, Value::Loss, 3),
        (Variant::Lines, 3, Value::Win, 3),
        (Variant::Squares, 3, Value::Win, 3),
    ] {
        let mut n = 0;
        for seed in 0.. {
            let pos = random_position(variant, empties, 90_000 + seed);
            if empties > 1 && immediate(&pos) {
                continue;
            }
            if solve(&pos) == want {
                line(&pos);
                n += 1;
                if n == count {
                    break;
                }
            }
        }
    }
    for variant in Variant::ALL {
        for (empties, count) in [(4, 4), (5, 6)] {
            for seed in 0..count {
                line(&random_position(variant, empties, 70_000 + seed));
            }
        }
    }
    for seed in 0..4 {
        line(&random_safe_position(Variant::Squares, 8, 80_000 + seed));
    }
    for seed in 0..2 {
        line(&random_safe_position(Variant::Lines, 9, 80_000 + seed));
    }
}

#[test]
fn value_only_mode_gives_the_value_and_an_optimal_move() {
    let mut solver = Solver::with_table_bits(18);
    let mut checked = 0;
    for variant in Variant::ALL {
        for seed in 0..80u64 {
            let empties = 2 + (seed % 4) as u32;
            for pos in [
                random_position(variant, empties, 900 + seed),
                random_safe_position(variant, empties, 1_900 + seed),
            ] {
                let (value, best) = solver.solve_best(&pos);
                let naive = naive_moves(&pos);
                let naive_value = naive.iter().map(|m| m.1).max().unwrap();
                assert_eq!(value.score(), naive_value, "{variant} {}", pos.setup());
                let best = best.expect("a move");
                let mine = naive.iter().find(|m| m.0 == best).unwrap().1;
                assert_eq!(mine, naive_value, "{variant} {} {best}", pos.setup());
                checked += 1;
            }
        }
    }
    assert!(checked >= 300);
    // Deeper: the move is among the all-moves mode's optimal moves.
    for seed in 0..12u64 {
        let pos = random_safe_position(Variant::Lines, 7 + (seed % 3) as u32, 3_000 + seed);
        let (value, best) = Solver::with_table_bits(18).solve_best(&pos);
        let (all_value, moves) = solve_moves(&pos);
        assert_eq!(value, all_value, "{}", pos.setup());
        assert!(moves.contains(&best.unwrap()), "{}", pos.setup());
    }
}

#[test]
fn budgets_and_progress_hooks() {
    use std::sync::{Arc, Mutex};
    let pos = random_safe_position(Variant::Lines, 10, 3);
    let mut solver = Solver::with_table_bits(18);
    let err = solver.solve_best_within(&pos, 100).unwrap_err();
    assert!(err.nodes <= 100, "{err}");
    let err = solver.solve_moves_budget(&pos, 100).unwrap_err();
    assert!(err.nodes <= 100, "{err}");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    solver.set_progress(500, move |p| log.lock().unwrap().push(*p));
    let (value, moves) = solver.solve_moves_budget(&pos, u64::MAX).unwrap();
    let (fresh_value, fresh_moves) = solve_moves(&pos);
    assert_eq!((value, &moves), (fresh_value, &fresh_moves));
    let seen = seen.lock().unwrap();
    assert!(!seen.is_empty());
    assert!(seen.windows(2).all(|w| w[0].nodes < w[1].nodes));
    assert!(
        seen.iter()
            .all(|p| p.root_moves > 0 && p.root_done < p.root_moves)
    );
    solver.clear_progress();
}
