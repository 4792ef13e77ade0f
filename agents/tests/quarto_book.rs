//! Books: the walk keeps one position per symmetry class, entries are exact, the text
//! form round-trips, and the checker re-proves entries and catches a wrong one.

use agents::quarto::book::{self, Book, BookConfig};
use agents::quarto::solver::{Value, solve_moves};
use agents::quarto::suite::random_safe_position;
use arena_core::quarto::{Quarto, Variant};

#[test]
fn the_walk_from_the_empty_board_counts_the_symmetry_classes() {
    // Orbits of (board, hand) under the 12,288 symmetries (research notes §3.2): one
    // opening, one class after the give, 8 with one piece placed, 148 with two.
    let empty = Quarto::new(Variant::Lines);
    assert_eq!(book::positions(&empty, 1).len(), 2);
    assert_eq!(book::positions(&empty, 2).len(), 1 + 1 + 8);
    assert_eq!(book::positions(&empty, 3).len(), 1 + 1 + 8 + 148);
}

#[test]
fn a_book_is_exact_round_trips_and_is_reproved() {
    let root = random_safe_position(Variant::Lines, 7, 11);
    let config = BookConfig {
        plies: 2,
        max_nodes: 1_000_000,
        table_bits: 18,
    };
    let mut calls = 0;
    let built = book::build(&root, config, |p| {
        calls += 1;
        assert!(p.done <= p.total);
    });
    assert_eq!(calls, built.entries.len());
    assert!(built.entries.len() > 10);
    for e in &built.entries {
        let (value, moves) = solve_moves(&e.position);
        let (v, mv) = e.solved.expect("small positions fit the budget");
        assert_eq!(v, value, "{}", e.position.setup());
        assert!(moves.contains(&mv), "{}", e.position.setup());
    }
    let text = built.to_string();
    let parsed: Book = text.parse().unwrap();
    assert_eq!(parsed, built);
    assert_eq!(
        book::verify(&parsed, 1_000_000, 18).unwrap(),
        built.entries.len()
    );
    // A wrong value is caught, with its line.
    let mut wrong = built.clone();
    let (v, mv) = wrong.entries[0].solved.unwrap();
    let flipped = if v == Value::Win {
        Value::Draw
    } else {
        Value::Win
    };
    wrong.entries[0].solved = Some((flipped, mv));
    let err = book::verify(&wrong, 1_000_000, 18).unwrap_err();
    assert_eq!(err.line, 1);
    // Over budget: unknown, skipped by the checker.
    let tiny = book::build(
        &root,
        BookConfig {
            max_nodes: 1,
            ..config
        },
        |_| {},
    );
    assert!(tiny.entries.iter().any(|e| e.solved.is_none()));
    let reparsed: Book = tiny.to_string().parse().unwrap();
    assert_eq!(reparsed, tiny);
    assert!("lines ................:- win".parse::<Book>().is_err());
}
