//! Self-tests of the naive cross-check implementations in `tests/naive/`,
//! against hand-verified scenarios only (nothing from `arena_core`).

mod naive;

use naive::dominoes::{NaiveDominoes, Tile, naive_endgame_value, naive_endgame_value_str};
use naive::quarto::{NaiveQuarto, lines, naive_perft, naive_value};

// ---------------------------------------------------------------- dominoes

fn t(s: &str) -> Tile {
    let (a, b) = s.split_once('-').unwrap();
    (a.parse().unwrap(), b.parse().unwrap())
}

fn tiles(s: &str) -> Vec<Tile> {
    s.split_whitespace().map(t).collect()
}

fn mv(g: &mut NaiveDominoes, m: &str) {
    g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
}

/// Swap the two hands of a deal (D5's second game of a pair).
fn swap_hands(h: usize, sh: &[Tile]) -> Vec<Tile> {
    let mut v = sh[h..2 * h].to_vec();
    v.extend_from_slice(&sh[0..h]);
    v.extend_from_slice(&sh[2 * h..]);
    v
}

#[test]
fn dom_d6_highest_double_starts_other_moves_first() {
    // A: 0-1 2-2 1-3 0-4 | B: 3-3 0-2 1-4 2-3 | stock holds 4-4 (not drawn).
    let sh = tiles("0-1 2-2 1-3 0-4  3-3 0-2 1-4 2-3  4-4 0-0 1-1 0-3 1-2 2-4 3-4");
    let g = NaiveDominoes::new(5, 4, &sh);
    assert_eq!(g.starter(), (1, (3, 3)));
    assert_eq!(g.to_move(), 0);
    assert_eq!(g.line(), "3-3");
    assert_eq!(g.ends(), (3, 3));
    assert_eq!(g.hand(0), tiles("0-1 2-2 1-3 0-4"));
    assert_eq!(
        g.hand(1),
        tiles("0-2 1-4 2-3"),
        "D7: others keep their order"
    );
    assert_eq!(g.stock_len(), 7);
    assert_eq!(g.legal_moves(), vec!["L2", "R2"]);
}

#[test]
fn dom_d6_no_double_highest_sum_tie_broken_by_greatest_number() {
    // Drawn: sums 1,5,2,3 | 5,3,4,4; 2-3 and 1-4 both sum 5, 1-4 has the higher number.
    let sh = tiles("0-1 2-3 0-2 1-2  1-4 0-3 0-4 1-3  0-0 1-1 2-2 3-3 4-4 2-4 3-4");
    let g = NaiveDominoes::new(5, 4, &sh);
    assert_eq!(g.starter(), (1, (1, 4)));
    assert_eq!(g.to_move(), 0);
    assert_eq!(g.ends(), (1, 4));
    assert_eq!(g.hand(1), tiles("0-3 0-4 1-3"));
    // A: 0-1 fits left (1); 1-2 fits left.
    assert_eq!(g.legal_moves(), vec!["L0", "L3"]);

    // Same with the hands exchanged: A owns the starter, B moves first.
    let g2 = NaiveDominoes::new(5, 4, &swap_hands(4, &sh));
    assert_eq!(g2.starter(), (0, (1, 4)));
    assert_eq!(g2.to_move(), 1);

    // No double, plain highest sum: A holds 3-4 (7).
    let sh = tiles("0-1 3-4 0-2 1-2  1-4 0-3 0-4 1-3  0-0 1-1 2-2 3-3 4-4 2-4 2-3");
    let g = NaiveDominoes::new(5, 4, &sh);
    assert_eq!(g.starter(), (0, (3, 4)));
    assert_eq!(g.to_move(), 1);
    assert_eq!(g.hand(0), tiles("0-1 0-2 1-2"));
}

#[test]
fn dom_d9_d10_draw_sequence_then_place_and_orientation() {
    // A: 4-4 0-0 1-3 2-4 | B: 0-1 0-2 1-2 2-3 | stock: 0-3 1-1 3-4 0-4 1-4 2-2 3-3
    let sh = tiles("4-4 0-0 1-3 2-4  0-1 0-2 1-2 2-3  0-3 1-1 3-4 0-4 1-4 2-2 3-3");
    let mut g = NaiveDominoes::new(5, 4, &sh);
    assert_eq!(g.starter(), (0, (4, 4)));
    assert_eq!(g.to_move(), 1);
    // B holds no 4: only DRAW.
    assert_eq!(g.legal_moves(), vec!["DRAW"]);
    assert!(
        g.play("PASS").is_err(),
        "PASS illegal while stock non-empty"
    );
    assert!(g.play("L0").is_err(), "0-1 does not fit");
    mv(&mut g, "DRAW"); // 0-3
    assert_eq!(g.to_move(), 1, "D10: same player again");
    assert_eq!(g.hand(1), tiles("0-1 0-2 1-2 2-3 0-3"));
    assert_eq!(g.legal_moves(), vec!["DRAW"]);
    mv(&mut g, "DRAW"); // 1-1
    assert_eq!(g.legal_moves(), vec!["DRAW"]);
    mv(&mut g, "DRAW"); // 3-4 fits both (equal) ends
    assert_eq!(g.hand(1), tiles("0-1 0-2 1-2 2-3 0-3 1-1 3-4"));
    assert_eq!(g.stock_len(), 4);
    assert_eq!(g.legal_moves(), vec!["L6", "R6"]);
    assert!(g.play("DRAW").is_err(), "DRAW illegal when a tile fits");
    mv(&mut g, "R6");
    assert_eq!(g.line(), "4-4 4-3");
    assert_eq!(g.ends(), (4, 3));
    assert_eq!(g.to_move(), 0);
    // A: 0-0 1-3 2-4; 1-3 fits the right (3), 2-4 the left (4).
    assert_eq!(g.legal_moves(), vec!["L2", "R1"]);
    mv(&mut g, "L2");
    assert_eq!(g.line(), "2-4 4-4 4-3");
    assert_eq!(g.ends(), (2, 3));
    assert_eq!(g.hand(0), tiles("0-0 1-3"));
    // B: 0-1 0-2 1-2 2-3 0-3 1-1
    assert_eq!(
        g.legal_moves(),
        vec!["L1", "L2", "L3", "R3", "R4"],
        "2-3 matches both ends"
    );
    mv(&mut g, "L3"); // 2-3 at left end 2 -> oriented 3-2
    assert_eq!(g.line(), "3-2 2-4 4-4 4-3");
    assert_eq!(g.ends(), (3, 3));
}

#[test]
fn dom_malformed_moves_refused() {
    let sh = tiles("4-4 0-0 1-3 2-4  3-4 0-2 1-2 2-3  0-3 1-1 0-1 0-4 1-4 2-2 3-3");
    let mut g = NaiveDominoes::new(5, 4, &sh);
    assert_eq!(g.legal_moves(), vec!["L0", "R0"]);
    for bad in [
        "", "L", "L00", "l0", "L 0", "L-0", "R9", "L1", "DRAW", "PASS", "draw", "X",
    ] {
        assert!(g.play(bad).is_err(), "{bad:?} should be refused");
    }
    assert_eq!(
        g.hand(1),
        tiles("3-4 0-2 1-2 2-3"),
        "refusals change nothing"
    );
    mv(&mut g, "L0");
    assert_eq!(g.line(), "3-4 4-4");
}

#[test]
fn dom_d12_last_tile_wins() {
    // A: 4-4 0-0 1-1 2-2 | B: 0-4 0-1 1-3 3-4 | stock: 3-3 0-2 0-3 1-2 1-4 2-3 2-4
    let sh = tiles("4-4 0-0 1-1 2-2  0-4 0-1 1-3 3-4  3-3 0-2 0-3 1-2 1-4 2-3 2-4");
    let mut g = NaiveDominoes::new(5, 4, &sh);
    assert_eq!(g.starter(), (0, (4, 4)));
    assert_eq!(g.to_move(), 1);
    mv(&mut g, "L0"); // B 0-4
    assert_eq!(g.line(), "0-4 4-4");
    assert_eq!(g.legal_moves(), vec!["L0"]); // A 0-0
    mv(&mut g, "L0");
    assert_eq!(g.line(), "0-0 0-4 4-4");
    assert_eq!(g.legal_moves(), vec!["L0", "R2"]); // B 0-1 left, 3-4 right
    mv(&mut g, "L0");
    assert_eq!(g.line(), "1-0 0-0 0-4 4-4");
    assert_eq!(g.legal_moves(), vec!["L0"]); // A 1-1
    mv(&mut g, "L0");
    assert_eq!(g.legal_moves(), vec!["L0", "R1"]); // B 1-3 left, 3-4 right
    mv(&mut g, "L0");
    assert_eq!(g.line(), "3-1 1-1 1-0 0-0 0-4 4-4");
    assert_eq!(g.hand(0), tiles("2-2"));
    assert_eq!(g.legal_moves(), vec!["DRAW"]);
    mv(&mut g, "DRAW"); // 3-3
    assert_eq!(g.legal_moves(), vec!["L1"]);
    mv(&mut g, "L1");
    assert_eq!(g.ends(), (3, 4));
    assert_eq!(g.outcome(), None);
    assert_eq!(g.legal_moves(), vec!["L0", "R0"]); // B's last tile 3-4
    mv(&mut g, "R0");
    assert_eq!(g.line(), "3-3 3-1 1-1 1-0 0-0 0-4 4-4 4-3");
    assert_eq!(g.outcome(), Some(Some(1)));
    assert!(g.legal_moves().is_empty());
    assert!(g.play("L0").is_err() && g.play("PASS").is_err());
}

/// A blocked game: the moves, hand-checked step by step.
fn block_game(sh: &str, moves: &[(&str, &[&str])]) -> NaiveDominoes {
    let sh = tiles(sh);
    let mut g = NaiveDominoes::new(5, 7, &sh);
    for (m, legal) in moves {
        assert_eq!(g.outcome(), None);
        assert_eq!(&g.legal_moves(), legal, "before {m}");
        mv(&mut g, m);
    }
    g
}

#[test]
fn dom_d11_d13_block_lower_pips_wins() {
    let sh = "1-2 1-4 2-2 0-4 2-3 1-1 0-2  3-3 3-4 0-0 0-1 1-3 4-4 0-3  2-4";
    let g0 = NaiveDominoes::new(5, 7, &tiles(sh));
    assert_eq!(g0.starter(), (1, (4, 4)));
    assert_eq!(g0.to_move(), 0);
    let moves: &[(&str, &[&str])] = &[
        ("L1", &["L1", "L3", "R1", "R3"]), // A 1-4
        ("L3", &["L3", "L4", "R1"]),       // B 0-1
        ("L2", &["L2", "L5", "R2"]),       // A 0-4 -> 4-0
        ("L1", &["L1", "R1"]),             // B 3-4
        ("L2", &["L2"]),                   // A 2-3
        ("DRAW", &["DRAW"]),               // B draws 2-4
        ("L4", &["L4", "R4"]),             // B 2-4 -> 4-2
        ("PASS", &["PASS"]),               // A
    ];
    let mut g = block_game(sh, moves);
    assert_eq!(g.line(), "4-2 2-3 3-4 4-0 0-1 1-4 4-4");
    assert_eq!(g.stock_len(), 0);
    assert_eq!(g.to_move(), 1);
    assert_eq!(g.legal_moves(), vec!["PASS"]);
    mv(&mut g, "PASS");
    // A: 1-2 2-2 1-1 0-2 = 11; B: 3-3 0-0 1-3 0-3 = 13.
    assert_eq!(g.hand(0), tiles("1-2 2-2 1-1 0-2"));
    assert_eq!(g.hand(1), tiles("3-3 0-0 1-3 0-3"));
    assert_eq!(g.outcome(), Some(Some(0)));
    assert!(g.legal_moves().is_empty());

    // D5 mirror: hands exchanged, same move strings, the other seat wins.
    let sw = swap_hands(7, &tiles(sh));
    let mut h = NaiveDominoes::new(5, 7, &sw);
    assert_eq!(h.starter(), (0, (4, 4)));
    for (m, _) in moves {
        mv(&mut h, m);
    }
    mv(&mut h, "PASS");
    assert_eq!(h.outcome(), Some(Some(1)));
}

#[test]
fn dom_d11_pass_then_play_resets_then_block_b_wins() {
    let sh = "0-1 4-4 0-2 2-3 2-2 1-1 1-2  0-4 3-3 3-4 1-4 1-3 0-0 2-4  0-3";
    let moves: &[(&str, &[&str])] = &[
        ("L0", &["L0", "L2", "L3", "L6", "R0", "R2", "R3", "R6"]), // B 0-4
        ("L0", &["L0", "L1"]),                                     // A 0-1 -> 1-0
        ("L2", &["L2", "L3", "R1", "R2", "R5"]),                   // B 1-4 -> 4-1
        ("DRAW", &["DRAW"]),                                       // A draws 0-3
        ("PASS", &["PASS"]),                                       // A: still nothing
        ("L1", &["L1", "L4", "R1", "R4"]),                         // B 3-4
        ("L1", &["L1", "L5"]),                                     // A 2-3
        ("L3", &["L3", "R3"]),                                     // B 2-4 -> 4-2
        ("PASS", &["PASS"]),                                       // A
    ];
    let g0 = NaiveDominoes::new(5, 7, &tiles(sh));
    assert_eq!(g0.starter(), (0, (4, 4)));
    let mut g = block_game(sh, moves);
    assert_eq!(g.line(), "4-2 2-3 3-4 4-1 1-0 0-4 4-4");
    assert_eq!(g.outcome(), None);
    mv(&mut g, "PASS");
    // A: 0-2 2-2 1-1 1-2 0-3 = 14; B: 3-3 1-3 0-0 = 10.
    assert_eq!(g.hand(0), tiles("0-2 2-2 1-1 1-2 0-3"));
    assert_eq!(g.outcome(), Some(Some(1)));
}

#[test]
fn dom_d13_block_tie() {
    let sh = "0-4 3-4 2-2 1-2 2-3 0-0 0-1  1-3 0-3 4-4 3-3 1-4 2-4 0-2  1-1";
    let moves: &[(&str, &[&str])] = &[
        ("L0", &["L0", "L1", "R0", "R1"]), // A 0-4
        ("L1", &["L1", "L5", "R3", "R4"]), // B 0-3 -> 3-0
        ("L0", &["L0", "L3", "R0"]),       // A 3-4 -> 4-3
        ("L2", &["L2", "L3", "R2", "R3"]), // B 1-4
        ("L1", &["L1", "L4"]),             // A 1-2 -> 2-1
        ("L2", &["L2", "L3", "R2"]),       // B 2-4 -> 4-2
        ("DRAW", &["DRAW"]),               // A draws 1-1 (does not fit)
        ("PASS", &["PASS"]),               // A
    ];
    let mut g = block_game(sh, moves);
    assert_eq!(g.line(), "4-2 2-1 1-4 4-3 3-0 0-4 4-4");
    assert_eq!(
        g.endgame_notation().unwrap(),
        "5|4,4|1-3,3-3,0-2|2-2,2-3,0-0,0-1,1-1|1"
    );
    mv(&mut g, "PASS");
    // A: 2-2 2-3 0-0 0-1 1-1 = 12; B: 1-3 3-3 0-2 = 12.
    assert_eq!(g.outcome(), Some(None));
}

#[test]
fn dom_d17_endgame_values_by_hand() {
    // One tile that fits: placing the last tile wins.
    assert_eq!(naive_endgame_value_str("5|2,4|1-2|0-0,3-3|0"), 1.0);
    // Stuck after a pass: block, pips decide (0 vs 2, 6 vs 2, 3 vs 3).
    assert_eq!(naive_endgame_value_str("5|2,4|0-0|1-1|1"), 1.0);
    assert_eq!(naive_endgame_value_str("5|2,4|3-3|1-1|1"), 0.0);
    assert_eq!(naive_endgame_value_str("5|2,4|0-3|0-1,1-1|1"), 0.5);
    // Both stuck, no previous pass: mover passes, other passes, 3 vs 2.
    assert_eq!(naive_endgame_value_str("5|2,4|0-3|1-1|0"), 0.0);
    // Mover stuck, other places its last tile.
    assert_eq!(naive_endgame_value_str("5|2,4|0-0|2-3|0"), 0.0);
    // Choice matters: 3-4 right lets 3-3 out; 0-1 left first wins.
    assert_eq!(naive_endgame_value_str("5|0,4|0-1,3-4|3-3|0"), 1.0);
    // Forced: only 3-4 fits (right), then the other places 3-3.
    assert_eq!(naive_endgame_value_str("5|0,4|3-4,1-2|3-3|0"), 0.0);
    // The D17 example. Mover's only move: 2-3 at the left (ends 3,4). The other
    // must place 4-4 (ends stay 3,4), keeping 0-0. Mover's 1-1 is stuck: pass;
    // the other's 0-0 is stuck: pass -> block, 2 pips vs 0: the mover loses.
    assert_eq!(naive_endgame_value_str("5|2,4|1-1,2-3|0-0,4-4|0"), 0.0);
    // Same via the function form, and equal ends offer both sides (same value).
    assert_eq!(
        naive_endgame_value(5, (1, 1), &[(1, 2)], &[(3, 3)], false),
        1.0
    );
    assert_eq!(
        naive_endgame_value(5, (3, 3), &[(1, 2)], &[(0, 0)], true),
        0.0
    ); // 3 vs 0
}

#[test]
fn dom_d17_parse_errors() {
    use naive::dominoes::parse_endgame;
    assert!(parse_endgame("5|2,4|1-2|0-0|0").is_ok());
    assert!(parse_endgame("5|2,4|1-2|0-0").is_err());
    assert!(parse_endgame("5|2,5|1-2|0-0|0").is_err());
    assert!(parse_endgame("5|2,4|1-7|0-0|0").is_err());
    assert!(parse_endgame("5|2,4|1-2|1-2|0").is_err());
    assert!(parse_endgame("5|2,4|1-2|0-0|2").is_err());
    assert!(parse_endgame("5|2;4|1-2|0-0|0").is_err());
}

// ------------------------------------------------------------------ quarto

fn q(squares: bool, s: &str) -> NaiveQuarto {
    NaiveQuarto::from_notation(squares, s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn quarto_lines_enumeration() {
    let l = lines(false);
    assert_eq!(l.len(), 10);
    assert!(l.contains(&[0, 1, 2, 3]) && l.contains(&[3, 7, 11, 15]));
    assert!(l.contains(&[0, 5, 10, 15]) && l.contains(&[3, 6, 9, 12]));
    let s = lines(true);
    assert_eq!(s.len(), 19);
    for b in [
        [0, 1, 4, 5],
        [1, 2, 5, 6],
        [2, 3, 6, 7],
        [4, 5, 8, 9],
        [5, 6, 9, 10],
        [6, 7, 10, 11],
        [8, 9, 12, 13],
        [9, 10, 13, 14],
        [10, 11, 14, 15],
    ] {
        assert!(s.contains(&b), "{b:?}");
        assert!(!l.contains(&b));
    }
}

#[test]
fn quarto_opening_and_notation() {
    let mut g = NaiveQuarto::new(false);
    assert_eq!(g.notation(), "................:-");
    assert_eq!(g.to_move(), 0);
    let m = g.legal_moves();
    assert_eq!(m.len(), 16);
    assert_eq!(&m[0..3], ["- 0", "- 1", "- 10"]);
    for bad in ["- 16", "-  5", "5", "0 5", "- a", "-5", ""] {
        assert!(g.play(bad).is_err(), "{bad:?}");
    }
    g.play("- 10").unwrap();
    assert_eq!(g.notation(), "................:a");
    assert_eq!(g.to_move(), 1);
    assert_eq!(g.legal_moves().len(), 16 * 15);
    assert!(g.play("0 10").is_err(), "cannot give the placed piece");
    assert!(g.play("0").is_err(), "must give while pieces remain");
    g.play("5 15").unwrap();
    assert_eq!(g.notation(), ".....a..........:f");
    assert_eq!(g.to_move(), 0);
    g.play("15 0").unwrap();
    assert_eq!(g.notation(), ".....a.........f:0");
    assert_eq!(g.to_move(), 1);
    assert!(g.play("5 1").is_err(), "square taken");
    for s in [
        "................:-",
        "................:a",
        ".....a..........:f",
        ".....a.........f:0",
    ] {
        let p = q(false, s);
        assert_eq!(p.notation(), s);
    }
    assert_eq!(q(false, ".....a.........f:0"), g);
    assert_eq!(q(false, "................:a").to_move(), 1);
    assert_eq!(q(false, ".....a..........:f").to_move(), 0);
}

#[test]
fn quarto_from_notation_errors() {
    for bad in [
        "................",
        "................:",
        "................:g",
        "A...............:1",
        "11..............:2",
        "1...............:1",
        "1...............:-",
        "................;-",
        "................:-x",
    ] {
        assert!(NaiveQuarto::from_notation(false, bad).is_err(), "{bad:?}");
    }
    // A won line with a piece still in hand is unreachable.
    assert!(NaiveQuarto::from_notation(false, "1357............:9").is_err());
}

#[test]
fn quarto_row_wins_all_tall_and_all_short() {
    // 1, 3, 5 are tall (bit 0 set); 7 too.
    let g = q(false, "135.............:7");
    assert_eq!(g.to_move(), 0);
    let m = g.legal_moves();
    assert!(m.contains(&"3".to_string()));
    assert!(!m.iter().any(|x| x.starts_with("3 ")));
    // 12 other squares x 12 remaining pieces, plus the winning "3".
    assert_eq!(m.len(), 12 * 12 + 1);
    let mut w = g.clone();
    w.play("3").unwrap();
    assert_eq!(w.outcome(), Some(Some(0)));
    assert_eq!(w.notation(), "1357............:-");
    assert!(w.legal_moves().is_empty());
    let back = q(false, "1357............:-");
    assert_eq!(back.outcome(), Some(Some(0)));
    assert_eq!(back, w);
    // 0, 2, 4, 6: all short (bit 0 clear).
    let mut s = q(false, "024.............:6");
    s.play("3").unwrap();
    assert_eq!(s.outcome(), Some(Some(0)));
    // 0, 15, 1, then 14: no shared attribute, no win.
    let mut n = q(false, "0f1.............:e");
    assert!(!n.legal_moves().contains(&"3".to_string()));
    n.play("3 2").unwrap();
    assert_eq!(n.outcome(), None);
}

#[test]
fn quarto_column_and_diagonal_wins() {
    // Column 0: 8, 9, a dark (bit 3), b at square 12.
    let mut c = q(false, "8...9...a.......:b");
    c.play("12").unwrap();
    assert_eq!(c.outcome(), Some(Some(0)));
    // Main diagonal 0,5,10,15: 1,3,5 + 7.
    let mut d = q(false, "1....3....5.....:7");
    d.play("15").unwrap();
    assert_eq!(d.outcome(), Some(Some(0)));
    // Anti-diagonal 3,6,9,12: 2,6,e (round, bit 1) + a; 3 pieces + hand -> player 0.
    let mut a = q(false, "...2..6..e......:a");
    assert!(a.legal_moves().contains(&"12".to_string()));
    a.play("12").unwrap();
    assert_eq!(a.outcome(), Some(Some(0)));
    // After a give, 4 pieces + hand -> player 1 wins.
    let mut b = q(false, "135...........8.:7");
    assert_eq!(b.to_move(), 1);
    b.play("3").unwrap();
    assert_eq!(b.outcome(), Some(Some(1)));
}

#[test]
fn quarto_blocks_only_in_squares_variant() {
    // 1, 3, 5 on squares 0, 1, 4; placing tall 7 at 5 fills the block {0,1,4,5}.
    let lines_v = q(false, "13..5...........:7");
    let sq_v = q(true, "13..5...........:7");
    assert!(!lines_v.legal_moves().contains(&"5".to_string()));
    assert!(lines_v.legal_moves().contains(&"5 0".to_string()));
    assert!(sq_v.legal_moves().contains(&"5".to_string()));
    assert!(!sq_v.legal_moves().contains(&"5 0".to_string()));
    let mut g = sq_v.clone();
    g.play("5").unwrap();
    assert_eq!(g.outcome(), Some(Some(0)));
    // Bottom-right block {10,11,14,15}.
    let mut br = q(true, "..........13..5.:7");
    br.play("15").unwrap();
    assert_eq!(br.outcome(), Some(Some(0)));
    // No wrap-around: squares 3, 4, 7, 8 are not a block.
    let mut wrap = q(true, "...13..5........:7");
    assert!(!wrap.legal_moves().contains(&"8".to_string()));
    wrap.play("8 0").unwrap();
    assert_eq!(wrap.outcome(), None);
}

/// A full arrangement with no winning line in the lines variant.
const DRAW_LINES: &str = "4badc3601fe52897";
/// A full arrangement with no winning line in the squares variant.
const DRAW_SQUARES: &str = "14af7d0569e8c2b3";

#[test]
fn quarto_last_piece_draw() {
    for (squares, full) in [(false, DRAW_LINES), (true, DRAW_SQUARES)] {
        for hole in 0..16 {
            let mut b: Vec<char> = full.chars().collect();
            let p = b[hole];
            b[hole] = '.';
            let s = format!("{}:{}", b.iter().collect::<String>(), p);
            let g = q(squares, &s);
            assert_eq!(g.to_move(), 0, "15 pieces + hand = 16 plies");
            assert_eq!(g.legal_moves(), vec![hole.to_string()]);
            assert_eq!(naive_value(&g), 0);
            let mut h = g.clone();
            h.play(&hole.to_string()).unwrap();
            assert_eq!(h.outcome(), Some(None));
            assert_eq!(h.notation(), format!("{full}:-"));
            assert_eq!(q(squares, &h.notation()), h);
        }
    }
    // DRAW_SQUARES has no winning line in the lines variant either.
    assert!(!q(false, &format!("{DRAW_SQUARES}:-")).has_winning_line());
}

#[test]
fn quarto_values_small_positions() {
    // e937 / f5ad / 4.c. / 2b61, 0 in hand, 8 left: 0 at 9 lets 8 complete row 2
    // (4,0,c,8 all short) and 0 at 11 lets 8 at 9 do the same: loss.
    let cases: [(&str, i8, i8); 12] = [
        ("e937f5ad4.c.2b61:0", -1, -1),
        ("56.c2af187d0b9e.:3", -1, 1),
        ("390cd.1687ab2e5.:f", 0, 1),
        ("5ad3fc.64b19870.:e", 1, 1),
        ("8fe3b1c560..94.a:7", 0, -1),
        (".bd687e3.c0a1.49:f", 0, 0),
        ("f8.936...b0d45ca:1", -1, -1),
        ("1cb6.7f59.43..08:2", 1, -1),
        ("958.1a2f.6.3.cb.:7", -1, 1),
        ("d7a.864..c9.b12.:5", 0, 0),
        (".82.b5..e69f0.d4:3", 1, 0),
        ("d704c81.5....26b:9", 1, 1),
    ];
    for (s, vl, vs) in cases {
        assert_eq!(naive_value(&q(false, s)), vl, "lines {s}");
        assert_eq!(naive_value(&q(true, s)), vs, "squares {s}");
    }
    // Immediate win available.
    assert_eq!(naive_value(&q(false, "135.............:7")), 1);
}

#[test]
fn quarto_perft_lines_1_to_3() {
    let g = NaiveQuarto::new(false);
    assert_eq!(naive_perft(&g, 0), 1);
    assert_eq!(naive_perft(&g, 1), 16);
    assert_eq!(naive_perft(&g, 2), 3840);
    assert_eq!(naive_perft(&g, 3), 806_400);
}

#[test]
fn quarto_perft_squares_1_to_3() {
    // No line can be full before the 4th placement (ply 5), so equal to lines.
    let g = NaiveQuarto::new(true);
    assert_eq!(naive_perft(&g, 1), 16);
    assert_eq!(naive_perft(&g, 2), 3840);
    assert_eq!(naive_perft(&g, 3), 806_400);
}

#[test]
fn quarto_perft_counts_only_unfinished_sequences() {
    // "135.............:7": 145 moves, one of which ("3") ends the game.
    let g = q(false, "135.............:7");
    assert_eq!(naive_perft(&g, 1), 145);
    let mut after = 0;
    for m in g.legal_moves() {
        let mut c = g.clone();
        c.play(&m).unwrap();
        after += c.legal_moves().len() as u64 * u64::from(c.outcome().is_none());
    }
    assert_eq!(naive_perft(&g, 2), after);
}

#[test]
#[ignore = "146,764,800 leaves: about 25 s for both in release on 2 cores, many minutes in debug; cargo test --release --test naive_selftest -- --ignored"]
fn quarto_perft_lines_4() {
    assert_eq!(naive_perft(&NaiveQuarto::new(false), 4), 146_764_800);
}

#[test]
#[ignore = "146,764,800 leaves: about 25 s for both in release on 2 cores, many minutes in debug; cargo test --release --test naive_selftest -- --ignored"]
fn quarto_perft_squares_4() {
    assert_eq!(naive_perft(&NaiveQuarto::new(true), 4), 146_764_800);
}

/// Mid-game perft, both variants, depths 1-3. The numbers agree with a
/// separate throwaway Python implementation written from the same spec.
#[test]
fn quarto_perft_midgame_both_variants() {
    let cases: [(&str, [u64; 3], [u64; 3]); 4] = [
        (
            "135.............:7",
            [145, 18048, 1862184],
            [145, 17728, 1781128],
        ),
        (
            "13..5...........:7",
            [156, 20272, 2165056],
            [145, 17728, 1781200],
        ),
        ("4bad..36........:0", [90, 6368, 338000], [82, 5272, 252400]),
        ("0.89a576.3e.24db:f", [6, 12, 4], [5, 8, 2]),
    ];
    for (s, want_lines, want_squares) in cases {
        for (squares, want) in [(false, want_lines), (true, want_squares)] {
            let g = q(squares, s);
            let got: Vec<u64> = (1..=3).map(|d| naive_perft(&g, d)).collect();
            assert_eq!(got, want, "squares={squares} {s}");
        }
    }
}
