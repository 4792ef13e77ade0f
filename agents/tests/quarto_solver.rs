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

/// What `cargo run --release -p agents --example quarto_solver_speed` reports, checked
/// on its first suite (10 empty squares, seeds 1000..): the value does not depend on
/// the table's size (a tiny table overwrites entries all the time), and the counters
/// add up: nodes by empty squares within the nodes (the root's moves are tried apart,
/// so the search starts a square lower), hits within the probes, and the table probed
/// (from 7 empty squares on).
#[test]
fn the_speed_suites_counters_add_up() {
    for seed in 1000..1004 {
        let pos = random_safe_position(Variant::Lines, 10, seed);
        let mut solver = Solver::with_table_bits(22);
        let value = solver.solve(&pos);
        assert_eq!(
            Solver::with_table_bits(8).solve(&pos),
            value,
            "{}",
            pos.setup()
        );
        let stats = solver.stats();
        assert!(
            stats.nodes_at.iter().sum::<u64>() <= stats.nodes,
            "{stats:?}"
        );
        assert_eq!(stats.nodes_at[10..].iter().sum::<u64>(), 0, "{stats:?}");
        assert!(stats.nodes_at[9] >= 1, "{stats:?}");
        assert!(
            0 < stats.tt_probes && stats.tt_hits <= stats.tt_probes,
            "{stats:?}"
        );
        assert!((0.0..=1.0).contains(&stats.hit_rate()));
    }
}
