//! Books: the walk keeps one position per symmetry class, entries are exact, the text
//! form round-trips, and the checker re-proves entries and catches a wrong one.

use agents::quarto::book::{self, Book, BookConfig};
use agents::quarto::solver::{Value, canonical_key, solve_moves};
use agents::quarto::suite::random_safe_position;
use arena_core::Game;
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
    // The line of the book's text: the first entry follows the header line.
    assert_eq!(err.line, 2);
    assert!(
        text.lines()
            .nth(err.line - 1)
            .unwrap()
            .contains(&mv.to_string())
    );
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

/// Every symmetric image of every solved entry finds the entry, with the entry's move
/// carried over: playing it in the image leads to the stored child's symmetry class.
fn lookups_carry_moves_over(index: &book::BookIndex, images_per_entry: usize) -> usize {
    use agents::quarto::symmetry::{board_group, piece_group, transform};
    let mut checked = 0;
    for (i, e) in index.book().entries.iter().enumerate() {
        // The opening position (no piece in hand) has no key: every give is equivalent.
        let (Some((value, mv)), Some(_)) = (e.solved, e.position.in_hand()) else {
            continue;
        };
        let boards = board_group(e.position.variant());
        let pieces = piece_group();
        for k in 0..images_per_entry {
            let (b, p) = (
                &boards[(i * 7 + k * 13) % boards.len()],
                &pieces[(i * 31 + k * 97) % pieces.len()],
            );
            let image = transform(&e.position, b, p);
            let (v, image_mv) = index.lookup(&image).expect("a stored class");
            assert_eq!(v, value, "{}", image.setup());
            let (mut stored_child, mut image_child) = (e.position, image);
            stored_child.play_unchecked(mv);
            image_child.play_unchecked(image_mv);
            match stored_child.outcome() {
                Some(outcome) => assert_eq!(image_child.outcome(), Some(outcome)),
                // The same class (a stored position with symmetries of its own may map
                // the move by another of them: an equally good move).
                None => assert_eq!(
                    canonical_key(&stored_child),
                    canonical_key(&image_child),
                    "{} {mv} -> {image_mv}",
                    e.position.setup()
                ),
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn a_book_index_finds_every_image_and_carries_its_move_over() {
    for variant in Variant::ALL {
        let root = random_safe_position(variant, 7, 12);
        let config = BookConfig {
            plies: 2,
            max_nodes: 1_000_000,
            table_bits: 18,
        };
        let index = book::BookIndex::new(book::build(&root, config, |_| {}));
        assert!(lookups_carry_moves_over(&index, 6) > 100);
        // A position outside the book has no entry.
        assert_eq!(index.lookup(&random_safe_position(variant, 9, 3)), None);
    }
}

#[test]
fn the_shipped_books_cover_three_plies_and_carry_moves_over() {
    for variant in Variant::ALL {
        let index = book::shipped(variant).expect("a shipped book");
        let expected = book::positions(&Quarto::new(variant), 3);
        assert_eq!(index.book().entries.len(), expected.len(), "{variant}");
        for (e, pos) in index.book().entries.iter().zip(&expected) {
            assert_eq!(e.position.setup(), pos.setup());
            assert!(e.solved.is_some(), "{variant} {} unknown", pos.setup());
        }
        assert!(lookups_carry_moves_over(index, 4) >= 4 * (expected.len() - 1));
    }
}
