//! Writes `agents/tests/data/quarto_solver.txt`, the exact values and optimal moves that
//! `agents/tests/quarto_solver.rs` checks the solver against (and, up to 5 empty
//! squares, the naive negamax):
//! `cargo run --release -p agents --example quarto_solver_vectors > agents/tests/data/quarto_solver.txt`.
//!
//! The positions: the six of `shared/notes/quarto.md` §3.4, the last-piece class (the
//! only win is with the last piece, or the last piece given loses), then seeded random
//! positions. The values come from the solver itself: regenerate only to add positions,
//! and check a changed line against the naive negamax, never to make a test pass.

use agents::quarto::solver::{Value, solve, solve_moves};
use agents::quarto::suite::{random_position, random_safe_position};
use arena_core::quarto::{Quarto, Variant};

/// The six positions of `shared/notes/quarto.md` §3.4.
const NOTES: [&str; 6] = [
    ".8f.eb..1d2.....:7",
    ".4.7..e.f..d.b1.:6",
    "9...a7...2..6c.b:0",
    ".95..a87.10c4f..:b",
    "....f.47..a912..:8",
    "8.97..4b..a....3:c",
];

/// The vector line of `pos`: variant | position | value | every optimal move.
fn line(pos: &Quarto) {
    let (value, moves) = solve_moves(pos);
    let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    println!(
        "{} | {} | {} | {}",
        pos.variant(),
        pos.setup(),
        value,
        moves.join("; ")
    );
}

/// The first `count` positions of `variant` with `empties` empty squares (seeds 90,000
/// on) whose value is `want`, passing over those (above one empty square) where the
/// piece in hand wins at once.
fn last_piece_class(variant: Variant, empties: u32, want: Value, count: usize) -> Vec<Quarto> {
    let immediate = |pos: &Quarto| pos.winning_squares(pos.in_hand().unwrap()) != 0;
    (0..)
        .map(|seed| random_position(variant, empties, 90_000 + seed))
        .filter(|pos| !(empties > 1 && immediate(pos)) && solve(pos) == want)
        .take(count)
        .collect()
}

fn main() {
    println!(
        "# Exact Quarto values: variant | Q9 position | value for the side to move | every move"
    );
    println!("# achieving it (all moves when lost), `;`-separated, moves as `<square> <give>`.");
    println!("# Positions with <= 5 empties are checked against tests/naive/quarto.rs.");
    println!("#");
    println!("# The six positions of shared/notes/quarto.md §3.4 (two independent solvers agree).");
    for setup in NOTES {
        let setup = setup.parse().expect("a Q9 position");
        line(&Quarto::from_setup(Variant::Lines, &setup).expect("a legal position"));
    }
    println!("# The last-piece class, then random positions.");
    for (variant, empties, want, count) in [
        (Variant::Lines, 1, Value::Win, 4),
        (Variant::Squares, 1, Value::Win, 3),
        (Variant::Lines, 2, Value::Loss, 3),
        (Variant::Squares, 2, Value::Loss, 3),
        (Variant::Lines, 3, Value::Win, 3),
        (Variant::Squares, 3, Value::Win, 3),
    ] {
        last_piece_class(variant, empties, want, count)
            .iter()
            .for_each(line);
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
