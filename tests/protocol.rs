//! The line protocol: calls round-trip through text, replies parse or are malformed
//! (never a panic), and a served agent's rebuilt view equals the in-process one.

use arena_core::dominoes::{Case, Deal, Dominoes, Event};
use arena_core::protocol::{
    DominoCall, MAX_REPLY_LEN, QuartoCall, ReplyError, ViewTracker, parse_dominoes_reply,
    parse_quarto_reply,
};
use arena_core::quarto::{Quarto, Variant};
use arena_core::rng::below;
use arena_core::{Game, Seat};
use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

#[test]
fn domino_calls_round_trip() {
    let g = Dominoes::new(&Deal::seeded("7,5".parse().unwrap(), 3, 0));
    let calls = [
        DominoCall::Init("7,5".parse().unwrap()),
        DominoCall::Reset(g.starter().1),
        DominoCall::play(&g.view()),
    ];
    let text: String = calls.iter().map(DominoCall::encode).collect();
    assert!(text.starts_with("init\n7\n5\nreset\n"));
    let mut it = lines(&text).into_iter();
    for call in &calls {
        assert_eq!(DominoCall::read(&mut it).unwrap().as_ref(), Some(call));
    }
    assert_eq!(DominoCall::read(&mut it).unwrap(), None);
}

#[test]
fn play_call_is_the_tco09_layout() {
    let g = Dominoes::new(&Deal::seeded("5,4".parse().unwrap(), 0, 0));
    let text = DominoCall::play(&g.view()).encode();
    let l = lines(&text);
    assert_eq!(l[0], "play");
    let hand: usize = l[1].parse().unwrap();
    assert_eq!(hand, g.hand(g.to_move()).len());
    assert_eq!(l[2 + hand], "1", "the line holds the starting tile");
    assert_eq!(l[3 + hand], g.line().to_string());
    assert_eq!(l[4 + hand], g.stock_len().to_string());
    assert_eq!(l.len(), 5 + hand);
}

#[test]
fn quarto_calls_round_trip() {
    let q = Quarto::seeded_opening("squares:4".parse().unwrap(), 5, 1);
    let calls = [
        QuartoCall::Init("squares:4".parse().unwrap()),
        QuartoCall::Reset(q.setup()),
        QuartoCall::Play(q.setup()),
    ];
    let text: String = calls.iter().map(QuartoCall::encode).collect();
    let mut it = lines(&text).into_iter();
    for call in &calls {
        assert_eq!(QuartoCall::read(&mut it).unwrap().as_ref(), Some(call));
    }
    assert_eq!(
        Quarto::from_setup(Variant::Squares, &q.setup())
            .unwrap()
            .setup(),
        q.setup()
    );
}

#[test]
fn replies_parse_or_are_named_malformed() {
    assert_eq!(parse_dominoes_reply("L3\r").unwrap().to_string(), "L3");
    assert_eq!(parse_quarto_reply("5 12\r").unwrap().to_string(), "5 12");
    let long = "L".repeat(MAX_REPLY_LEN + 1);
    assert!(
        parse_dominoes_reply(&long)
            .unwrap_err()
            .to_string()
            .contains("too long")
    );
    let err = parse_dominoes_reply("play L0").unwrap_err();
    assert!(err.to_string().contains("play L0"), "{err}");
}

/// One grammar in both games (`docs/protocol.md`): the move exactly, with at most one
/// trailing CR; no other blank, no leading zero, no sign, no tab.
#[test]
fn both_games_refuse_the_same_slack_as_malformed() {
    let malformed = |r: Result<(), ReplyError>| matches!(r, Err(ReplyError::Malformed(_)));
    for bad in [
        " R4", "R4 ", "R4  ", "R04", "r4", "R+4", "R4\r\r", "\tR4", "R\t4", "DRAW ", "draw",
        "R100", "",
    ] {
        assert!(
            malformed(parse_dominoes_reply(bad).map(drop)),
            "dominoes {bad:?}"
        );
    }
    for bad in [
        " 6 5", "6 5 ", "6  5", "06 5", "6 05", "6\t5", "+6 5", "6 5\r\r", "-7", "- 07", "- ",
        "6 5 4", "100 2", "",
    ] {
        assert!(
            malformed(parse_quarto_reply(bad).map(drop)),
            "quarto {bad:?}"
        );
    }
    for good in ["R4\r", "DRAW\r", "PASS", "L0", "L45"] {
        assert!(parse_dominoes_reply(good).is_ok(), "dominoes {good:?}");
    }
    for good in ["6 5\r", "- 7", "15", "0 0", "15 15\r"] {
        assert!(parse_quarto_reply(good).is_ok(), "quarto {good:?}");
    }
}

/// A well-formed move naming what does not exist is `illegal` in both games: Dominoes
/// leaves the index to the referee (any two-digit index parses), Quarto knows there
/// are 16 squares and pieces.
#[test]
fn well_formed_moves_out_of_range_are_illegal_not_malformed() {
    assert_eq!(parse_dominoes_reply("L99").unwrap().to_string(), "L99");
    for (reply, what) in [
        ("16 2", "square 16"),
        ("2 16", "piece 16"),
        ("- 99", "piece 99"),
        ("16", "square 16"),
    ] {
        match parse_quarto_reply(reply) {
            Err(ReplyError::OutOfRange(why)) => assert!(why.contains(what), "{reply}: {why}"),
            other => panic!("{reply}: {other:?}"),
        }
    }
}

proptest! {
    #[test]
    fn reply_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
        let text = String::from_utf8_lossy(&bytes);
        let d = parse_dominoes_reply(&text);
        let q = parse_quarto_reply(&text);
        // Whatever parses is the move written exactly, up to one trailing CR.
        let exact = text.strip_suffix('\r').unwrap_or(&text);
        if let Ok(m) = d { prop_assert_eq!(m.to_string(), exact); }
        if let Ok(m) = q { prop_assert_eq!(m.to_string(), exact); }
    }

    #[test]
    fn call_reader_never_panics(text in "(init|reset|play|[0-9]{1,2}|[0-9]-[0-9]|\\PC{0,6})(\n(init|reset|play|[0-9]{1,2}|[0-9]-[0-9]|\\PC{0,6})){0,12}") {
        let mut it = lines(&text).into_iter();
        while let Ok(Some(_)) = DominoCall::read(&mut it) {}
        let mut it = lines(&text).into_iter();
        while let Ok(Some(_)) = QuartoCall::read(&mut it) {}
    }
}

/// Mirrors seats so the tracked agent is seat A, as the tracker records it.
fn relabel(e: Event, me: Seat) -> Event {
    let s = |seat: Seat| if seat == me { Seat::A } else { Seat::B };
    match e {
        Event::Start { seat, tile } => Event::Start {
            seat: s(seat),
            tile,
        },
        Event::Place { seat, tile, end } => Event::Place {
            seat: s(seat),
            tile,
            end,
        },
        Event::Draw { seat } => Event::Draw { seat: s(seat) },
        Event::Pass { seat } => Event::Pass { seat: s(seat) },
    }
}

#[test]
fn a_tracked_view_rebuilds_the_public_history() {
    let mut checked = 0;
    for (k, case) in Case::all().enumerate() {
        for pair in 0..100u32 {
            let mut g = Dominoes::new(&Deal::seeded(case, 11, pair));
            let mut rng = ChaCha8Rng::seed_from_u64(u64::from(pair) * 31 + k as u64);
            let mut trackers = [ViewTracker::new(case), ViewTracker::new(case)];
            for t in &mut trackers {
                t.reset(g.starter().1);
            }
            while !g.is_over() {
                let seat = g.to_move();
                let view = g.view();
                let t = &mut trackers[seat.index()];
                let line = t
                    .observe(view.hand(), view.line().tiles(), view.stock())
                    .unwrap();
                assert_eq!(line.to_string(), g.line().to_string());
                let expect: Vec<Event> = g.history().iter().map(|&e| relabel(e, seat)).collect();
                assert_eq!(t.history(), &expect[..], "case {case} pair {pair}");
                checked += 1;
                let moves = g.legal_moves();
                let mv = moves[below(&mut rng, moves.len() as u32) as usize];
                t.replied(mv);
                g.play_unchecked(mv);
            }
        }
    }
    assert!(checked > 10_000);
}
