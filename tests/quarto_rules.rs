//! Quarto rules Q1–Q10 (`/work/shared/specs/quarto.md`), one test per rule, plus the
//! perft and golden-opening vectors in `tests/data/quarto_*.txt`.

use std::collections::HashSet;

use arena_core::quarto::{
    Case, Ending, Piece, PositionError, Quarto, QuartoMove, Setup, Square, Variant, perft,
};
use arena_core::rng::below;
use arena_core::{Game, Outcome, ParseError, Seat};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

fn setup(s: &str) -> Setup {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn pos(variant: Variant, s: &str) -> Quarto {
    Quarto::from_setup(variant, &setup(s)).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn mv(s: &str) -> QuartoMove {
    s.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn square_mask(squares: impl IntoIterator<Item = u8>) -> u16 {
    squares.into_iter().fold(0, |m, s| m | 1 << s)
}

/// A position reached by `plies` uniformly random legal plies (fewer if the game ends).
fn random_position(variant: Variant, seed: u64, plies: u8) -> Quarto {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Quarto::new(variant);
    let mut moves = Vec::new();
    while !pos.is_over() && pos.ply() < plies {
        pos.legal_moves_into(&mut moves);
        let i = below(&mut rng, moves.len() as u32) as usize;
        pos.play_unchecked(moves[i]);
    }
    pos
}

/// Every move the notation can write: 16 gives and 16 x 17 placements.
fn every_move() -> Vec<QuartoMove> {
    let gives = Piece::ALL.map(QuartoMove::Give);
    let places = Square::ALL.into_iter().flat_map(|square| {
        std::iter::once(None)
            .chain(Piece::ALL.map(Some))
            .map(move |give| QuartoMove::Place { square, give })
    });
    gives.into_iter().chain(places).collect()
}

#[test]
fn q1_sixteen_distinct_pieces_with_four_attributes() {
    let attrs = Piece::ATTRIBUTES;
    assert_eq!(
        attrs,
        [Piece::TALL, Piece::ROUND, Piece::SOLID, Piece::DARK]
    );
    assert_eq!(attrs, [1, 2, 4, 8], "bit 0 tall, 1 round, 2 solid, 3 dark");
    let combos: HashSet<[bool; 4]> = Piece::ALL
        .iter()
        .map(|p| [p.is_tall(), p.is_round(), p.is_solid(), p.is_dark()])
        .collect();
    assert_eq!(combos.len(), 16, "every combination exactly once");
    for (i, p) in Piece::ALL.into_iter().enumerate() {
        assert_eq!(usize::from(p.index()), i);
        for a in attrs {
            assert_eq!(p.has(a), i as u8 & a != 0);
        }
        assert_eq!(p.to_string(), i.to_string());
        assert_eq!(i.to_string().parse::<Piece>(), Ok(p));
    }
    assert_eq!(Piece::new(12).to_string(), "12");
    let twelve = Piece::new(12);
    assert!(twelve.is_solid() && twelve.is_dark() && !twelve.is_tall() && !twelve.is_round());
    assert_eq!(Piece::try_new(16), None);
    assert_eq!("16".parse::<Piece>().unwrap_err().input, "16");
}

#[test]
fn q2_squares_row_major() {
    for row in 0..4 {
        for col in 0..4 {
            let sq = Square::from_coords(row, col);
            assert_eq!(sq.index(), 4 * row + col);
            assert_eq!((sq.row(), sq.col()), (row, col));
            assert_eq!(sq.bit(), 1 << (4 * row + col));
        }
    }
    assert_eq!(Square::new(0), Square::from_coords(0, 0), "top-left");
    assert_eq!(Square::new(3), Square::from_coords(0, 3), "top-right");
    assert_eq!(Square::new(12), Square::from_coords(3, 0), "bottom-left");
    assert_eq!("15".parse::<Square>(), Ok(Square::new(15)));
    // The notation reads the board in the same order.
    let p = pos(Variant::Lines, "0f3.....a.......:7");
    assert_eq!(p.piece_at(Square::from_coords(0, 1)), Some(Piece::new(15)));
    assert_eq!(p.piece_at(Square::from_coords(2, 0)), Some(Piece::new(10)));
    assert_eq!(p.piece_at(Square::from_coords(2, 1)), None);
}

#[test]
fn q3_lines_per_variant() {
    // The lines, rebuilt from coordinates.
    let rows = (0..4).map(|r| square_mask((0..4).map(|c| 4 * r + c)));
    let cols = (0..4).map(|c| square_mask((0..4).map(|r| 4 * r + c)));
    let diagonals = [
        square_mask((0..4).map(|i| 5 * i)),
        square_mask((0..4).map(|i| 4 * i + 3 - i)),
    ];
    let lines: HashSet<u16> = rows.chain(cols).chain(diagonals).collect();
    let blocks: HashSet<u16> = (0..3)
        .flat_map(|r| (0..3).map(move |c| square_mask([0, 1, 4, 5].map(|d| 4 * r + c + d))))
        .collect();
    assert_eq!((lines.len(), blocks.len()), (10, 9));
    let listed = |v: Variant| v.lines().iter().copied().collect::<HashSet<u16>>();
    assert_eq!(Variant::Lines.lines().len(), 10);
    assert_eq!(Variant::Squares.lines().len(), 19);
    assert_eq!(listed(Variant::Lines), lines);
    assert_eq!(listed(Variant::Squares), &lines | &blocks);

    // Brute force: 536 of the 1820 4-subsets of pieces share an attribute value.
    let shares = |ps: [u8; 4]| {
        (0..4).any(|a| ps.iter().all(|p| p >> a & 1 == 1) || ps.iter().all(|p| p >> a & 1 == 0))
    };
    let mut subsets = Vec::new();
    for a in 0..16u8 {
        for b in a + 1..16 {
            for c in b + 1..16 {
                for d in c + 1..16 {
                    subsets.push([a, b, c, d]);
                }
            }
        }
    }
    assert_eq!(subsets.len(), 1820);
    assert_eq!(subsets.iter().filter(|&&s| shares(s)).count(), 536);

    // Three pieces on a line and the fourth in hand: placing it wins iff the four
    // share an attribute value, on every line of the variant and on no other square.
    for variant in Variant::ALL {
        for &line in variant.lines() {
            let squares: Vec<u8> = Square::iter_set(line).map(Square::index).collect();
            for &subset in &subsets {
                let mut s = Setup::EMPTY;
                for (&sq, &p) in squares[..3].iter().zip(&subset[..3]) {
                    s.board[usize::from(sq)] = Some(Piece::new(p));
                }
                s.hand = Some(Piece::new(subset[3]));
                let p = Quarto::from_setup(variant, &s).unwrap();
                let hole = Square::new(squares[3]);
                let expected = if shares(subset) { hole.bit() } else { 0 };
                assert_eq!(p.winning_squares(Piece::new(subset[3])), expected, "{s}");
                let win = QuartoMove::Place {
                    square: hole,
                    give: None,
                };
                assert_eq!(p.is_legal(win), shares(subset), "{variant} {s}");
                if shares(subset) {
                    let after = p.play(win).unwrap();
                    assert_eq!(after.outcome(), Some(Outcome::Winner(Seat::A)));
                    assert_eq!(after.winning_line(), Some(line));
                }
            }
        }
    }

    // A 2x2 block of four tall pieces wins only in `squares`.
    for (variant, wins) in [(Variant::Lines, false), (Variant::Squares, true)] {
        let p = pos(variant, "13..5...........:7");
        assert_eq!(p.is_legal(mv("5")), wins, "{variant}");
        assert_eq!(p.is_legal(mv("5 0")), !wins, "{variant}");
    }
}

#[test]
fn q4_opening_is_a_give() {
    for variant in Variant::ALL {
        let start = Quarto::new(variant);
        assert_eq!(
            (start.to_move(), start.ply(), start.in_hand()),
            (Seat::A, 0, None)
        );
        assert_eq!(start.available(), u16::MAX);
        assert_eq!(start.setup(), Setup::EMPTY);
        let moves = start.legal_moves();
        assert_eq!(
            moves,
            Piece::ALL.map(QuartoMove::Give).to_vec(),
            "any of the 16"
        );
        assert!(!start.is_legal(mv("0")));
        assert!(!start.is_legal(mv("0 7")));

        let after = start.play(mv("- 7")).unwrap();
        assert_eq!(after.to_move(), Seat::B);
        assert_eq!(after.in_hand(), Some(Piece::new(7)));
        assert_eq!(after.available(), !(1 << 7));
        assert_eq!(after.occupied(), 0);
        assert_eq!(after.setup().to_string(), "................:7");
        // Only the first turn is a bare give.
        assert!(after.legal_moves().iter().all(|m| m.square().is_some()));
        assert!(!after.is_legal(mv("- 3")));
    }
}

#[test]
fn q5_place_then_give() {
    let start = Quarto::new(Variant::Lines).play(mv("- 7")).unwrap();
    assert_eq!(start.legal_moves().len(), 16 * 15);
    assert!(!start.is_legal(mv("5 7")), "the piece just given is gone");
    assert!(
        !start.is_legal(mv("5")),
        "a non-winning placement must give"
    );
    let p = start.play(mv("5 12")).unwrap();
    assert_eq!(p.piece_at(Square::new(5)), Some(Piece::new(7)));
    assert_eq!(
        (p.in_hand(), p.to_move(), p.ply()),
        (Some(Piece::new(12)), Seat::A, 2)
    );
    assert!(!p.is_legal(mv("5 0")), "occupied square");
    assert_eq!(p.setup().to_string(), ".....7..........:c");

    // A placement completing a line wins at once and gives nothing: 1, 3 and 13 on
    // row 0 share only "tall", and 7 is tall.
    let threat = pos(Variant::Lines, "13d.............:7");
    assert_eq!(
        threat.to_move(),
        Seat::A,
        "plies: the give and three placements"
    );
    assert!(threat.is_legal(mv("3")));
    assert!(!threat.is_legal(mv("3 0")), "no give after a win");
    assert!(!threat.is_legal(mv("4")), "other squares still give");
    assert_eq!(threat.legal_moves().len(), 1 + 12 * 12);
    let won = threat.play(mv("3")).unwrap();
    assert_eq!(won.outcome(), Some(Outcome::Winner(Seat::A)));
    assert_eq!(won.winning_line(), Some(0x000f));
    assert_eq!(won.ending(), Some(Ending::Line(0x000f)));
    assert!(won.legal_moves().is_empty());
    assert_eq!(won.in_hand(), None);
    // One more piece on the board: the same win is B's.
    let won = pos(Variant::Lines, "13d.5...........:7")
        .play(mv("3"))
        .unwrap();
    assert_eq!(won.outcome(), Some(Outcome::Winner(Seat::B)));
    // Short 6 does not complete it.
    let no_threat = pos(Variant::Lines, "13d.............:6");
    assert!(!no_threat.is_legal(mv("3")));
    assert!(no_threat.is_legal(mv("3 0")));

    // The last piece is placed without a give; here it completes row 3.
    let last = pos(Variant::Lines, "e15cf890d4ab367.:2");
    assert_eq!(last.available(), 0);
    assert_eq!(last.legal_moves(), vec![mv("15")]);
    assert!(!last.is_legal(mv("15 2")));
    let won = last.play(mv("15")).unwrap();
    assert_eq!(won.outcome(), Some(Outcome::Winner(Seat::A)));
    assert_eq!(won.winning_line(), Some(0xf000));
}

#[test]
fn q6_full_board_is_a_draw() {
    for (variant, board) in [
        (Variant::Lines, "e4bf056cd8a13297"),
        (Variant::Squares, "bd6e5a9302c7f184"),
    ] {
        let pieces: Vec<Piece> = board
            .chars()
            .map(|c| Piece::new(c.to_digit(16).unwrap() as u8))
            .collect();
        // Fill the board square by square; no line ever completes, so no ply ends it early.
        let mut game = Quarto::new(variant)
            .play(QuartoMove::Give(pieces[0]))
            .unwrap();
        for (i, square) in Square::ALL.into_iter().enumerate() {
            assert!(!game.is_over(), "{variant} ended early at {square}");
            let give = pieces.get(i + 1).copied();
            game = game.play(QuartoMove::Place { square, give }).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw), "{variant}");
        assert_eq!(game.ending(), Some(Ending::Full));
        assert_eq!(game.winning_line(), None);
        assert!(game.legal_moves().is_empty());
        assert_eq!(game.setup().to_string(), format!("{board}:-"));
        assert_eq!(game.ply(), 17);
        // The same finished position from notation.
        let parsed = Quarto::from_setup(variant, &game.setup()).unwrap();
        assert_eq!(parsed, game);
    }
    // A full `lines` draw may still hold a 2x2 block: it is a `squares` win.
    assert_eq!(
        Quarto::from_setup(Variant::Squares, &setup("e4bf056cd8a13297:-")),
        Err(PositionError::AlreadyWon { line: 0x0330 })
    );
}

#[test]
fn q7_illegal_moves_refused_and_malformed_moves_named() {
    let p = pos(Variant::Lines, "13d.............:7");
    for bad in ["3 0", "4", "0 2", "- 2", "4 7", "4 1"] {
        let err = p.play(mv(bad)).unwrap_err();
        assert_eq!(err.mv, mv(bad));
        assert_eq!(err.seat, Seat::A);
        assert_eq!(err.position, p, "handed back untouched");
        assert_eq!(err.to_string(), format!("illegal move {bad} for seat A"));
        let mut q = p;
        assert!(q.try_play(mv(bad)).is_err());
        assert_eq!(q, p);
    }
    // Nothing is legal once the game is over.
    let over = p.play(mv("3")).unwrap();
    let err = over.play(mv("4 0")).unwrap_err();
    assert_eq!(err.position, over);
    assert!(every_move().into_iter().all(|m| !over.is_legal(m)));

    for bad in [
        "", "x", "5 16", "16", "- ", "-", "-7", "5 12 3", "5,12", "+5", "5 a",
    ] {
        let err: ParseError = bad.parse::<QuartoMove>().unwrap_err();
        assert_eq!(err.input, bad);
        assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
    }
    for bad in [
        "",
        "0f3.....a.......",
        "0f3.....a......:7",
        "0f3.....a.......:g",
    ] {
        assert_eq!(bad.parse::<Setup>().unwrap_err().input, bad);
    }
    for bad in ["lines", "lines:16", "cubes:4", "squares:-1"] {
        assert_eq!(bad.parse::<Case>().unwrap_err().input, bad);
    }
}

#[test]
fn q8_seeded_openings_end_no_game_and_repeat_per_seed() {
    let mut cases = Case::DEFAULTS.to_vec();
    cases.extend(
        ["lines:8", "squares:8", "lines:15", "squares:15"].map(|c| c.parse::<Case>().unwrap()),
    );
    for case in cases {
        let mut distinct = HashSet::new();
        for pair in 0..100 {
            let opening = Quarto::seeded_opening(case, 7, pair);
            assert_eq!(opening.ply(), case.opening_plies, "{case} {pair}");
            assert!(!opening.is_over(), "{case} {pair}");
            assert_eq!(opening.case(), case);
            assert_eq!(opening, Quarto::seeded_opening(case, 7, pair), "repeats");
            distinct.insert(opening.setup());
        }
        let expected = if case.opening_plies == 0 { 1 } else { 100 };
        assert_eq!(distinct.len(), expected, "{case}");
    }
    // Another master seed gives other openings; an empty opening is the empty board.
    let case: Case = "lines:4".parse().unwrap();
    assert_ne!(
        Quarto::seeded_opening(case, 7, 0).setup(),
        Quarto::seeded_opening(case, 8, 0).setup()
    );
    let empty = Quarto::seeded_opening("squares:0".parse().unwrap(), 7, 3);
    assert_eq!(empty.setup(), Setup::EMPTY);
    // The first ply is a uniform give: every piece shows up over enough pairs.
    let gives: HashSet<Option<Piece>> = (0..400)
        .map(|pair| Quarto::seeded_opening("lines:1".parse().unwrap(), 1, pair).in_hand())
        .collect();
    assert_eq!(gives.len(), 16);
}

#[test]
fn q8_golden_openings() {
    let data = include_str!("data/quarto_openings.txt");
    let mut checked = 0;
    for line in data
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [case, seed, pair, expected] = fields[..] else {
            panic!("bad line {line:?}");
        };
        let case: Case = case.parse().unwrap();
        let opening = Quarto::seeded_opening(case, seed.parse().unwrap(), pair.parse().unwrap());
        assert_eq!(opening.setup().to_string(), expected, "{line}");
        checked += 1;
    }
    assert!(checked >= 20);
}

fn reachable() -> impl Strategy<Value = Quarto> {
    (
        prop_oneof![Just(Variant::Lines), Just(Variant::Squares)],
        any::<u64>(),
        0..=17u8,
    )
        .prop_map(|(variant, seed, plies)| random_position(variant, seed, plies))
}

proptest! {
    #[test]
    fn q9_notation_round_trips(p in reachable()) {
        let s = p.setup();
        let text = s.to_string();
        prop_assert_eq!(text.len(), 18);
        prop_assert_eq!(text.parse::<Setup>(), Ok(s));
        prop_assert_eq!(text.to_uppercase().parse::<Setup>(), Ok(s));
        match (Quarto::from_setup(p.variant(), &s), p.outcome()) {
            (Err(PositionError::AlreadyWon { line }), Some(Outcome::Winner(_))) => {
                prop_assert_eq!(Some(line), p.winning_line());
            }
            (Ok(q), _) => prop_assert_eq!(q, p),
            (other, outcome) => prop_assert!(false, "{} {:?}: {:?}", text, outcome, other),
        }
        for m in p.legal_moves() {
            prop_assert_eq!(m.to_string().parse::<QuartoMove>(), Ok(m));
        }
    }

    #[test]
    fn legal_moves_are_exactly_the_is_legal_ones(p in reachable()) {
        let legal: HashSet<QuartoMove> = p.legal_moves().into_iter().collect();
        prop_assert_eq!(legal.len(), p.count_legal_moves() as usize);
        for m in every_move() {
            prop_assert_eq!(p.is_legal(m), legal.contains(&m), "{} {}", p.setup(), m);
        }
        for &m in &legal {
            let after = p.play(m).unwrap();
            let ends = matches!(m, QuartoMove::Place { give: None, .. });
            prop_assert_eq!(after.is_over(), ends, "{} {}", p.setup(), m);
            if ends && p.available() != 0 {
                prop_assert_eq!(after.outcome(), Some(Outcome::Winner(p.to_move())));
            }
        }
    }
}

/// Plain negamax: 1 win, 0 draw, -1 loss for the side to move (Q10). Tiny on purpose,
/// for positions with a handful of empty squares.
fn negamax(p: &Quarto) -> i8 {
    let mover = p.to_move();
    let mut best = -1;
    for m in p.legal_moves() {
        let mut child = *p;
        child.play_unchecked(m);
        let v = match child.outcome() {
            Some(Outcome::Winner(w)) if w == mover => 1,
            Some(Outcome::Winner(_)) => -1,
            Some(Outcome::Draw) => 0,
            None => -negamax(&child),
        };
        best = best.max(v);
    }
    best
}

#[test]
fn q10_values_for_the_side_to_move() {
    // Values checked when written against an independent brute-force solver that
    // shares no code with the engine (a throwaway Python script, not in the repo).
    let cases = [
        // Wins at once on square 2 or 11.
        (Variant::Lines, "3b.821fc.7d.e69a:0", 1),
        (Variant::Lines, "0.1c5.72.8.4d6e9:3", 1),
        (Variant::Lines, "1348d..bce.9f527:0", -1),
        (Variant::Lines, "8..250ec.f1d4ba.:6", -1),
        (Variant::Lines, "2c10.b.e7649.d83:f", 0),
        (Variant::Lines, ".bac5f0d814.7.9.:2", 0),
        // No win now: the win comes with the mover's placement of the last piece.
        (Variant::Lines, ".e0d57a9.c.b21f4:3", 1),
        (Variant::Lines, "1e468f735..ab.c.:9", 1),
        // One empty square: the last piece wins, or it draws.
        (Variant::Lines, "e15cf890d4ab367.:2", 1),
        (Variant::Lines, "e4bf056cd8a1329.:7", 0),
        (Variant::Squares, "dc1f.b.20a4967e.:8", 1),
        (Variant::Squares, "b61f35e7.40..92d:a", -1),
        (Variant::Squares, "1d.72b8f5..4ae3.:0", -1),
        (Variant::Squares, "9b41c2ad38.f..60:5", 0),
        (Variant::Squares, ".e.cf4.90.a62d15:b", 0),
        (Variant::Squares, "3f864c70a.9..bed:1", 1),
        (Variant::Squares, "2b.6...c3fa1704d:8", 1),
        (Variant::Squares, "8d62e04f5a793cb.:1", 1),
        (Variant::Squares, "bd6e5a9302c7f18.:4", 0),
    ];
    for (variant, s, value) in cases {
        let p = pos(variant, s);
        let empties = 16 - p.occupied().count_ones();
        assert!((1..=4).contains(&empties), "{s}");
        assert_eq!(negamax(&p), value, "{variant} {s}");
    }
    // The last-piece wins really need it: no immediate win, and three empties leave the
    // mover only the 16th placement to win with.
    for (variant, s) in [
        (Variant::Lines, ".e0d57a9.c.b21f4:3"),
        (Variant::Squares, "3f864c70a.9..bed:1"),
    ] {
        let p = pos(variant, s);
        assert_eq!(p.winning_squares(p.in_hand().unwrap()), 0, "{s}");
        assert_eq!(p.available().count_ones(), 2, "{s}");
    }
}

/// Parses `tests/data/quarto_perft.txt` into (variant, depth, count).
fn perft_vectors() -> Vec<(Variant, u32, u64)> {
    include_str!("data/quarto_perft.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [variant, depth, count] = fields[..] else {
                panic!("bad line {line:?}");
            };
            (
                variant.parse().unwrap(),
                depth.parse().unwrap(),
                count.parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn perft_vectors_up_to_depth_4() {
    let vectors = perft_vectors();
    assert_eq!(vectors.iter().filter(|v| v.1 <= 4).count(), 8);
    for (variant, depth, count) in vectors.into_iter().filter(|v| v.1 <= 4) {
        assert_eq!(
            perft(&Quarto::new(variant), depth),
            count,
            "{variant} {depth}"
        );
    }
}

#[test]
#[ignore = "seconds per variant; run with --ignored"]
fn perft_vectors_deep() {
    for (variant, depth, count) in perft_vectors().into_iter().filter(|v| v.1 > 4) {
        assert_eq!(
            perft(&Quarto::new(variant), depth),
            count,
            "{variant} {depth}"
        );
    }
}
