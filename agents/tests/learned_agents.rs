//! The learned agents play legal, deterministic games and beat `greedy` on paired deals.

use agents::Spec;
use arena_core::dominoes::{Case, Deal, Dominoes};
use arena_core::quarto::{Case as QuartoCase, Quarto};
use arena_core::{Game, Seat};

fn dominoes_score(me: &str, opp: &str, pairs: u32) -> (f64, Vec<String>) {
    let (me, opp): (Spec, Spec) = (me.parse().unwrap(), opp.parse().unwrap());
    let mut points = 0.0;
    let mut log = Vec::new();
    for case in Case::all() {
        for pair in 0..pairs {
            let deal = Deal::seeded(case, 99, pair);
            for (deal, seat) in [(deal, Seat::A), (deal.with_hands_exchanged(), Seat::B)] {
                let mut a = agents::dominoes::build(&me, 1).unwrap();
                let mut b = agents::dominoes::build(&opp, 2).unwrap();
                let mut g = Dominoes::new(&deal);
                while !g.is_over() {
                    let v = g.view();
                    let mv = if v.seat() == seat {
                        a.play(&v)
                    } else {
                        b.play(&v)
                    }
                    .unwrap();
                    log.push(mv.to_string());
                    g = g.play(mv).expect("legal");
                }
                points += g.outcome().unwrap().score(seat);
            }
        }
    }
    (points / f64::from(2 * pairs * 20), log)
}

#[test]
fn tc_server_is_deterministic_and_beats_greedy() {
    let (score, log) = dominoes_score("tc-server", "greedy", 15);
    let (again, log2) = dominoes_score("tc-server", "greedy", 15);
    assert_eq!(log, log2);
    assert_eq!(score, again);
    assert!(score > 0.55, "tc-server scored {score} against greedy");
    let (learned, _) = dominoes_score("learned", "greedy", 15);
    assert_eq!(learned, score, "learned defaults to the built-in weights");
}

#[test]
fn tc_server_takes_no_options() {
    let spec: Spec = "tc-server:weights=x.json".parse().unwrap();
    assert!(agents::dominoes::build(&spec, 0).is_err());
}

#[test]
fn quarto_learned_beats_greedy() {
    let me: Spec = "learned".parse().unwrap();
    let opp: Spec = "greedy".parse().unwrap();
    let mut points = 0.0;
    let mut games = 0;
    for case in QuartoCase::DEFAULTS {
        for pair in 0..25 {
            let start = Quarto::seeded_opening(case, 99, pair);
            for seat in Seat::BOTH {
                let mut a = agents::quarto::build(&me, 1).unwrap();
                let mut b = agents::quarto::build(&opp, u64::from(pair)).unwrap();
                let mut g = start;
                while !g.is_over() {
                    let mv = if g.to_move() == seat {
                        a.play(&&g)
                    } else {
                        b.play(&&g)
                    }
                    .unwrap();
                    g = g.play(mv).expect("legal");
                }
                points += g.outcome().unwrap().score(seat);
                games += 1;
            }
        }
    }
    let score = points / f64::from(games);
    assert!(score > 0.55, "learned scored {score} against greedy");
}
