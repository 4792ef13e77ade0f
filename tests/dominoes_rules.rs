//! One test per numbered rule of `docs/rules-dominoes.md` (D1–D17; D18 is the
//! solver's, tested with the agents).

use arena_core::dominoes::{
    Case, Deal, DominoMove, Dominoes, EndReason, Endgame, Event, OrientedTile, Tile, set_size,
    starting_tile,
};
use arena_core::{Game, Outcome, Seat};

fn tiles(s: &str) -> Vec<Tile> {
    s.split_whitespace().map(|t| t.parse().unwrap()).collect()
}

/// A deal with the given hands and stock front; the rest of the set follows in the
/// stock in canonical order.
fn deal(case: &str, a: &str, b: &str, stock_front: &str) -> Deal {
    let case: Case = case.parse().unwrap();
    let mut order = tiles(a);
    order.extend(tiles(b));
    order.extend(tiles(stock_front));
    let rest: Vec<Tile> = Tile::set(case.n()).filter(|t| !order.contains(t)).collect();
    order.extend(rest);
    Deal::from_order(case, order).unwrap()
}

fn mv(s: &str) -> DominoMove {
    s.parse().unwrap()
}

fn legal(game: &Dominoes) -> Vec<String> {
    game.legal_moves().iter().map(|m| m.to_string()).collect()
}

fn hand(game: &Dominoes, seat: Seat) -> String {
    let t: Vec<String> = game
        .hand(seat)
        .tiles()
        .iter()
        .map(|t| t.to_string())
        .collect();
    t.join(" ")
}

#[test]
fn d1_twenty_cases_n_5_to_9_h_4_to_7() {
    let cases: Vec<Case> = Case::all().collect();
    assert_eq!(cases.len(), 20);
    assert_eq!(cases[0].to_string(), "5,4");
    assert_eq!(cases[19].to_string(), "9,7");
    for c in &cases {
        assert!((5..=9).contains(&c.n()) && (4..=7).contains(&c.h()));
        assert_eq!(c.to_string().parse::<Case>().unwrap(), *c);
    }
    for bad in ["4,4", "10,4", "5,3", "5,8", "5", "5;4", "x,4", ""] {
        let err = bad.parse::<Case>().unwrap_err();
        assert_eq!(err.input, bad, "{err}");
    }
}

#[test]
fn d2_set_holds_every_unordered_pair_once() {
    for n in 5..=9u8 {
        let set: Vec<Tile> = Tile::set(n).collect();
        assert_eq!(set.len(), n as usize * (n as usize + 1) / 2);
        assert_eq!(set.len(), set_size(n));
        assert_eq!(set.iter().filter(|t| t.is_double()).count(), n as usize);
        for a in 0..n {
            for b in a..n {
                assert_eq!(set.iter().filter(|t| (t.lo(), t.hi()) == (a, b)).count(), 1);
            }
        }
    }
    assert_eq!(Tile::set(5).count(), 15);
    assert_eq!(Tile::set(9).count(), 45);
}

#[test]
fn d3_hands_write_smaller_first_and_the_line_is_oriented() {
    let t: Tile = "3-0".parse().unwrap();
    assert_eq!(t.to_string(), "0-3");
    // Start 4-4 (A holds it), then B: 4-3 to the left, A: 3-1 to the left, B: 4-0 right.
    let d = deal("5,4", "4-4 1-3 0-0 2-2", "3-4 0-4 1-1 0-1", "");
    let mut g = Dominoes::new(&d);
    assert_eq!(g.line().to_string(), "4-4");
    for m in ["L0", "L0", "R0"] {
        g.play_unchecked(mv(m));
    }
    assert_eq!(g.line().to_string(), "1-3 3-4 4-4 4-0");
    let line = g.line().tiles();
    assert!(line.windows(2).all(|w| w[0].right == w[1].left));
    let o: OrientedTile = "4-0".parse().unwrap();
    assert_eq!(line[3], o);
    assert_eq!((g.line().left(), g.line().right()), (1, 0));
}

#[test]
fn d4_deal_gives_a_then_b_then_the_stock_from_a_seeded_shuffle() {
    let case: Case = "7,5".parse().unwrap();
    let d = Deal::seeded(case, 42, 3);
    assert_eq!(d, Deal::seeded(case, 42, 3), "same seed, same deal");
    assert_ne!(d, Deal::seeded(case, 42, 4), "another pair, another deal");
    assert_ne!(d, Deal::seeded(case, 43, 3), "another seed, another deal");
    assert_eq!(d.hand(Seat::A), &d.order()[0..5]);
    assert_eq!(d.hand(Seat::B), &d.order()[5..10]);
    assert_eq!(d.stock(), &d.order()[10..]);
    assert_eq!(d.stock().len(), case.stock());
    let mut sorted = d.order().to_vec();
    sorted.sort();
    assert_eq!(sorted, Tile::set(7).collect::<Vec<_>>());
    // Draws take from the stock's front.
    let g = Dominoes::new(&d);
    assert_eq!(g.stock(), d.stock());
}

#[test]
fn d5_the_partner_game_exchanges_the_hands_and_keeps_the_stock() {
    for case in Case::all() {
        let d = Deal::seeded(case, 7, 0);
        let p = d.with_hands_exchanged();
        assert_eq!(p.hand(Seat::A), d.hand(Seat::B));
        assert_eq!(p.hand(Seat::B), d.hand(Seat::A));
        assert_eq!(p.stock(), d.stock());
        assert_eq!(p.with_hands_exchanged(), d);
        let (owner, tile) = starting_tile(&d);
        assert_eq!(starting_tile(&p), (owner.other(), tile));
    }
}

#[test]
fn d6_starting_tile_is_the_highest_double_else_the_heaviest_single() {
    // Highest double wins even against heavier singles.
    let d = deal("6,4", "5-4 1-1 0-5 2-3", "3-3 5-5 0-1 0-2", "");
    assert_eq!(starting_tile(&d), (Seat::B, "5-5".parse().unwrap()));
    let g = Dominoes::new(&d);
    assert_eq!(g.line().to_string(), "5-5");
    assert_eq!(
        g.to_move(),
        Seat::A,
        "the owner's opponent makes the first real move"
    );
    assert_eq!(
        hand(&g, Seat::B),
        "3-3 0-1 0-2",
        "placed from its owner's hand"
    );
    assert_eq!(
        g.history()[0],
        Event::Start {
            seat: Seat::B,
            tile: "5-5".parse().unwrap()
        }
    );
    // No double: highest pip sum; 1-5 and 2-4 tie on 6, the higher greatest number wins.
    let d = deal("6,4", "2-4 0-1 0-2 0-3", "1-5 0-4 1-2 1-3", "");
    assert_eq!(starting_tile(&d), (Seat::B, "1-5".parse().unwrap()));
    let g = Dominoes::new(&d);
    assert_eq!(
        g.line().to_string(),
        "1-5",
        "a single starts smaller number left"
    );
    assert_eq!(g.to_move(), Seat::A);
    // Only doubles count before pips: 0-0 beats 4-5.
    let d = deal("6,4", "4-5 0-1 0-2 0-3", "0-0 1-2 1-3 1-4", "");
    assert_eq!(starting_tile(&d), (Seat::B, "0-0".parse().unwrap()));
}

#[test]
fn d7_hands_keep_draw_order() {
    // B starts 4-4; A holds nothing with a 4 and must draw 2-3 then 0-4.
    let d = deal("5,4", "0-0 1-1 2-2 3-3", "4-4 0-1 0-2 0-3", "2-3 0-4");
    let mut g = Dominoes::new(&d);
    assert_eq!(g.to_move(), Seat::A);
    assert_eq!(legal(&g), ["DRAW"]);
    g.play_unchecked(DominoMove::Draw);
    assert_eq!(
        hand(&g, Seat::A),
        "0-0 1-1 2-2 3-3 2-3",
        "a drawn tile is appended"
    );
    g.play_unchecked(DominoMove::Draw);
    assert_eq!(hand(&g, Seat::A), "0-0 1-1 2-2 3-3 2-3 0-4");
    assert_eq!(legal(&g), ["L5", "R5"]);
    g.play_unchecked(mv("L5"));
    assert_eq!(
        hand(&g, Seat::A),
        "0-0 1-1 2-2 3-3 2-3",
        "the others keep their order"
    );
    // Removing from the middle keeps order too: B plays 0-2 (index 1) on the 0 end.
    assert_eq!(g.line().to_string(), "0-4 4-4");
    assert_eq!(hand(&g, Seat::B), "0-1 0-2 0-3");
    g.play_unchecked(mv("L1"));
    assert_eq!(hand(&g, Seat::B), "0-1 0-3");
}

#[test]
fn d8_move_notation_round_trips_and_refuses_anything_else() {
    for s in ["L0", "R0", "L7", "R44", "DRAW", "PASS"] {
        assert_eq!(mv(s).to_string(), s);
    }
    for bad in [
        "", "L", "R", "l0", "r1", "L01", "L-1", "L 1", " DRAW", "draw", "Pass", "X1", "L100",
    ] {
        let err = bad.parse::<DominoMove>().unwrap_err();
        assert_eq!(err.input, bad);
        assert!(err.to_string().contains("dominoes move"), "{err}");
    }
}

#[test]
fn d9_a_tile_goes_to_an_end_showing_one_of_its_numbers() {
    // Line 3-4 (A started with the heaviest single); B holds 1-4 and 2-4 (right end
    // only) and 2-3 and 0-3 (left end only).
    let d = deal("5,4", "3-4 0-1 0-2 1-2", "1-4 2-3 0-3 2-4", "");
    let g = Dominoes::new(&d);
    assert_eq!(g.line().to_string(), "3-4");
    assert_eq!(legal(&g), ["R0", "L1", "L2", "R3"]);
    for bad in ["L0", "R1", "R2", "L3", "L9"] {
        assert!(!g.is_legal(mv(bad)), "{bad}");
    }
    let placed = g.clone().play(mv("L1")).unwrap();
    assert_eq!(placed.line().to_string(), "2-3 3-4", "rotated to touch");
    // A tile matching both ends may go to either end: line 4-4 ... both ends 4.
    let d = deal("5,4", "4-4 0-0 1-1 2-2", "0-4 1-2 1-3 0-1", "");
    let g = Dominoes::new(&d);
    assert_eq!(legal(&g), ["L0", "R0"]);
    let left = g.clone().play(mv("L0")).unwrap();
    let right = g.play(mv("R0")).unwrap();
    assert_eq!(left.line().to_string(), "0-4 4-4");
    assert_eq!(right.line().to_string(), "4-4 4-0");
}

#[test]
fn d10_draw_only_when_nothing_fits_and_the_stock_is_not_empty() {
    let d = deal("5,4", "0-0 1-1 2-2 3-3", "4-4 0-1 0-2 0-3", "1-2 2-4");
    let mut g = Dominoes::new(&d);
    assert_eq!(legal(&g), ["DRAW"]);
    assert!(
        !g.is_legal(DominoMove::Pass),
        "no pass while the stock has tiles"
    );
    g.play_unchecked(DominoMove::Draw);
    assert_eq!(g.to_move(), Seat::A, "the drawer moves again");
    assert_eq!(g.stock_len(), d.stock().len() - 1);
    assert_eq!(legal(&g), ["DRAW"], "1-2 does not fit 4: draw again");
    g.play_unchecked(DominoMove::Draw);
    assert_eq!(legal(&g), ["L5", "R5"], "2-4 fits: must place it");
    assert!(!g.is_legal(DominoMove::Draw), "no draw when a tile fits");
    assert_eq!(g.history()[1], Event::Draw { seat: Seat::A });
}

#[test]
fn d11_pass_only_when_nothing_fits_and_the_stock_is_empty() {
    // N=5,H=7: the stock holds 1 tile. A starts 4-4; B has no 4, draws the last tile.
    let d = deal(
        "5,7",
        "4-4 0-4 1-4 2-4 3-4 0-0 1-1",
        "0-1 0-2 0-3 1-2 1-3 2-2 2-3",
        "3-3",
    );
    let mut g = Dominoes::new(&d);
    assert_eq!(g.to_move(), Seat::B);
    assert_eq!(legal(&g), ["DRAW"]);
    g.play_unchecked(DominoMove::Draw);
    assert_eq!(g.stock_len(), 0);
    assert_eq!(legal(&g), ["PASS"]);
    assert!(!g.is_legal(DominoMove::Draw), "no draw from an empty stock");
    g.play_unchecked(DominoMove::Pass);
    assert_eq!(g.to_move(), Seat::A, "a pass hands the turn over");
    assert!(g.previous_was_pass());
    assert!(!g.is_over());
}

#[test]
fn d12_placing_the_last_tile_wins_at_once() {
    let d = deal("5,4", "4-4 0-4 1-1 2-2", "3-4 0-1 0-2 0-3", "");
    let mut g = Dominoes::new(&d);
    // B: 3-4 right; A: 0-4 left; B: 0-3 right; then first legal moves to the end.
    for m in ["R0", "L0"] {
        g.play_unchecked(mv(m));
    }
    assert_eq!(g.line().to_string(), "0-4 4-4 4-3");
    g.play_unchecked(mv("R2"));
    assert_eq!(g.line().right(), 0);
    while !g.is_over() {
        let m = g.legal_moves()[0];
        g.play_unchecked(m);
    }
    assert_eq!(g.end_reason(), Some(EndReason::Domino));
    let Some(Outcome::Winner(w)) = g.outcome() else {
        panic!("a domino win")
    };
    assert!(g.hand(w).is_empty());
    assert!(!g.hand(w.other()).is_empty());
    assert!(g.legal_moves().is_empty());
}

#[test]
fn d13_blocked_game_goes_to_the_lower_pip_sum_and_equal_sums_tie() {
    // N=5,H=7, stock 1. After the start nobody can ever follow a 4-4 line that
    // nobody holds 4s for... build: A starts 4-4 and holds every other 4.
    let d = deal(
        "5,7",
        "4-4 0-4 1-4 2-4 3-4 0-0 1-1",
        "0-1 0-2 0-3 1-2 1-3 2-2 2-3",
        "3-3",
    );
    let mut g = Dominoes::new(&d);
    let mut moves = 0;
    while !g.is_over() {
        let m = g.legal_moves()[0];
        g.play_unchecked(m);
        moves += 1;
        assert!(moves < 200);
    }
    if g.end_reason() == Some(EndReason::Blocked) {
        let (a, b) = (g.hand(Seat::A).pips(), g.hand(Seat::B).pips());
        let expect = match a.cmp(&b) {
            std::cmp::Ordering::Less => Outcome::Winner(Seat::A),
            std::cmp::Ordering::Greater => Outcome::Winner(Seat::B),
            std::cmp::Ordering::Equal => Outcome::Draw,
        };
        assert_eq!(g.outcome(), Some(expect));
        let n = g.history().len();
        assert!(matches!(g.history()[n - 1], Event::Pass { .. }));
        assert!(matches!(g.history()[n - 2], Event::Pass { .. }));
    }
    // A hand-made block: ends 0 and 0 nobody can follow, empty stock.
    let e: Endgame = "5|0,0|1-1,2-2|3-3,1-2|0".parse().unwrap();
    assert_eq!(e.mover.len(), 2);
    let mut blocked_ties = 0;
    let mut blocked_wins = 0;
    for seed in 0..2000 {
        let case: Case = "5,7".parse().unwrap();
        let mut g = Dominoes::new(&Deal::seeded(case, seed, 0));
        while !g.is_over() {
            let m = g.legal_moves()[0];
            g.play_unchecked(m);
        }
        if g.end_reason() == Some(EndReason::Blocked) {
            let (a, b) = (g.hand(Seat::A).pips(), g.hand(Seat::B).pips());
            match g.outcome().unwrap() {
                Outcome::Draw => {
                    assert_eq!(a, b);
                    blocked_ties += 1;
                }
                Outcome::Winner(w) => {
                    assert!(g.hand(w).pips() < g.hand(w.other()).pips());
                    blocked_wins += 1;
                }
            }
        }
    }
    assert!(
        blocked_wins > 0 && blocked_ties > 0,
        "{blocked_wins} {blocked_ties}"
    );
}

#[test]
fn d14_illegal_or_malformed_replies_are_refused_and_named() {
    let d = deal("5,4", "3-4 0-1 0-2 1-2", "1-4 2-3 0-3 2-4", "");
    let g = Dominoes::new(&d);
    for bad in ["L0", "R1", "L4", "DRAW", "PASS"] {
        let err = g.clone().play(mv(bad)).unwrap_err();
        assert_eq!(err.mv, mv(bad));
        assert_eq!(err.seat, Seat::B);
        assert!(err.to_string().contains(bad), "{err}");
        assert_eq!(err.position.line().to_string(), "3-4", "position untouched");
        assert_eq!(err.position.hand(Seat::B).len(), 4);
    }
    let mut g2 = g.clone();
    assert!(g2.try_play(mv("L0")).is_err());
    assert_eq!(legal(&g2), legal(&g));
    assert!(
        "L 0"
            .parse::<DominoMove>()
            .unwrap_err()
            .to_string()
            .contains("\"L 0\"")
    );
}

#[test]
fn d15_a_case_scores_wins_plus_half_ties() {
    let outcomes = [
        Outcome::Winner(Seat::A),
        Outcome::Draw,
        Outcome::Winner(Seat::B),
        Outcome::Winner(Seat::A),
    ];
    let a: f64 = outcomes.iter().map(|o| o.score(Seat::A)).sum();
    let b: f64 = outcomes.iter().map(|o| o.score(Seat::B)).sum();
    assert_eq!(a, 2.5);
    assert_eq!(b, 1.5);
    assert_eq!(a + b, outcomes.len() as f64);
}

#[test]
fn d17_endgame_notation_round_trips_and_matches_the_position() {
    let s = "5|2,4|1-1,2-3|0-0,4-4|0";
    let e: Endgame = s.parse().unwrap();
    assert_eq!(e.to_string(), s);
    assert_eq!((e.left, e.right), (2, 4));
    assert_eq!(e.mover, tiles("1-1 2-3"));
    assert!(!e.previous_was_pass);
    assert_eq!(
        "9|0,8||8-8|1".parse::<Endgame>().unwrap().to_string(),
        "9|0,8||8-8|1"
    );
    for bad in [
        "",
        "5|2,4|1-1|0-0",
        "4|2,4|1-1|0-0|0",
        "5|2,5|1-1|0-0|0",
        "5|2,4|1-1,1-1|0-0|0",
        "5|2,4|1-5|0-0|0",
        "5|2,4|1-1|0-0|2",
        "5|24|1-1|0-0|0",
    ] {
        let err = bad.parse::<Endgame>().unwrap_err();
        assert_eq!(err.input, bad);
    }
    // From a real game: the first position with an empty stock.
    let case: Case = "5,7".parse().unwrap();
    let mut found = 0;
    for seed in 0..50 {
        let mut g = Dominoes::new(&Deal::seeded(case, seed, 0));
        while !g.is_over() {
            if let Some(e) = Endgame::of(&g) {
                let text = e.to_string();
                assert_eq!(text.parse::<Endgame>().unwrap(), e);
                assert_eq!(e.mover, g.hand(g.to_move()).tiles());
                assert_eq!(e.other, g.hand(g.to_move().other()).tiles());
                assert_eq!((e.left, e.right), (g.line().left(), g.line().right()));
                assert_eq!(e.previous_was_pass, g.previous_was_pass());
                found += 1;
                break;
            }
            let m = g.legal_moves()[0];
            g.play_unchecked(m);
        }
    }
    assert!(found > 10);
}
