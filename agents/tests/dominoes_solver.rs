//! The exact endgame solver (D17, D18) against the independent naive brute force.

#[path = "../../tests/naive/mod.rs"]
mod naive;

use agents::dominoes::{Random, Solver};
use arena_core::dominoes::{Case, Deal, DominoMove, Dominoes, End, Endgame};
use arena_core::{Agent, Game};
use naive::dominoes::naive_endgame_value_str;

const VECTORS: &str = include_str!("data/dominoes_endgames.txt");

fn vectors() -> Vec<(String, f64, Vec<String>)> {
    VECTORS
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 3, "bad vector line {l:?}");
            let moves = f[2].split(',').map(str::to_owned).collect();
            (f[0].to_owned(), f[1].parse().unwrap(), moves)
        })
        .collect()
}

/// The endgame after `m` (played by the mover), with the sides swapped; `None` if
/// the mover went out.
fn child(eg: &Endgame, m: DominoMove) -> Option<Endgame> {
    let mut mover = eg.mover.clone();
    let (left, right) = match m {
        DominoMove::Place { end, index } => {
            let t = mover.remove(index as usize);
            match end {
                End::Left => (t.other_half(eg.left), eg.right),
                End::Right => (eg.left, t.other_half(eg.right)),
            }
        }
        _ => (eg.left, eg.right),
    };
    if mover.is_empty() {
        return None;
    }
    Some(Endgame {
        n: eg.n,
        left,
        right,
        mover: eg.other.clone(),
        other: mover,
        previous_was_pass: m == DominoMove::Pass,
    })
}

/// Checks the solver's value and every move value against the naive solver.
fn check(solver: &mut Solver, eg: &Endgame) {
    let s = eg.to_string();
    let sol = solver.solve(eg);
    let naive = naive_endgame_value_str(&s);
    assert_eq!(sol.value, naive, "value of {s}");
    assert_eq!(solver.value(eg), naive, "value() of {s}");
    for (&m, &v) in sol.moves.iter().zip(&sol.move_values) {
        let want = if m == DominoMove::Pass && eg.previous_was_pass {
            naive // the game ends blocked: the position's own value
        } else {
            match child(eg, m) {
                None => 1.0,
                Some(c) => 1.0 - naive_endgame_value_str(&c.to_string()),
            }
        };
        assert_eq!(v, want, "value of {m} in {s}");
        assert_eq!(sol.best.contains(&m), v == sol.value, "{m} in {s}");
    }
    assert!(!sol.best.is_empty(), "{s}");
}

#[test]
fn d18_vectors_match_solver_and_naive() {
    let mut solver = Solver::new();
    let vs = vectors();
    assert!(vs.len() >= 11);
    for (pos, value, moves) in vs {
        let eg: Endgame = pos.parse().unwrap();
        assert_eq!(naive_endgame_value_str(&pos), value, "naive on {pos}");
        let sol = solver.solve(&eg);
        assert_eq!(sol.value, value, "solver on {pos}");
        let got: Vec<String> = sol.best.iter().map(ToString::to_string).collect();
        assert_eq!(got, moves, "optimal moves of {pos}");
        check(&mut solver, &eg);
    }
}

/// Every endgame position reached in seeded random games (random vs random) of the
/// case, from the moment the stock empties to the end, up to `max_tiles` tiles in hand.
fn random_endgames(case: Case, pairs: u32, seed: u64, max_tiles: usize) -> Vec<Endgame> {
    let mut out = Vec::new();
    for pair in 0..pairs {
        let deal = Deal::seeded(case, seed, pair);
        for (g, deal) in [deal, deal.with_hands_exchanged()].iter().enumerate() {
            let mut game = Dominoes::new(deal);
            let s = seed ^ (u64::from(pair) << 8) ^ g as u64;
            let mut agents = [Random::new(s), Random::new(s ^ 0xabc)];
            while !game.is_over() {
                if let Some(eg) = Endgame::of(&game)
                    && eg.mover.len() + eg.other.len() <= max_tiles
                {
                    out.push(eg);
                }
                let seat = game.to_move().index();
                let m = agents[seat].play(&game.view()).unwrap();
                game.play_unchecked(m);
            }
        }
    }
    out
}

#[test]
fn d18_solver_matches_naive_on_random_game_endgames() {
    let mut solver = Solver::new();
    let mut total = 0;
    for case in Case::all() {
        let egs = random_endgames(case, 60, 0xd18, 13);
        total += egs.len();
        for eg in &egs {
            check(&mut solver, eg);
        }
    }
    assert!(total >= 2000, "only {total} endgames");
}

#[test]
fn d18_fresh_and_shared_tables_agree() {
    // A solver reused across many positions (persistent table) gives the same values
    // as a fresh solver per position, including large endgames the naive solver
    // cannot reach.
    let mut shared = Solver::new();
    for case in ["9,7", "8,4", "6,6", "7,5"] {
        let case: Case = case.parse().unwrap();
        for eg in random_endgames(case, 40, 7, 40).iter().step_by(3) {
            let a = shared.solve(eg);
            let b = Solver::new().solve(eg);
            assert_eq!(a, b, "{eg}");
        }
    }
}

#[test]
fn d18_node_budget_is_respected_and_aborts_leave_the_table_sound() {
    // A lopsided endgame (10 tiles against 23) that needs over 10^8 nodes in full.
    let big: Endgame = "9|4,4|4-4,1-4,6-7,3-4,0-7,1-5,1-6,3-5,1-2,0-6|1-3,6-6,3-7,0-1,1-1,3-6,1-7,0-5,0-0,5-8,5-7,1-8,5-6,7-7,2-8,3-3,0-8,2-3,5-5,3-8,6-8,0-3,2-7|0"
        .parse()
        .unwrap();
    let mut solver = Solver::new();
    for cap in [1, 100, 10_000] {
        let before = solver.nodes();
        assert!(solver.solve_within(&big, cap).is_none());
        assert!(solver.nodes() - before <= cap + 1, "cap {cap}");
    }
    // The same solver, after aborts, still agrees with fresh solvers.
    let case: Case = "9,7".parse().unwrap();
    for eg in random_endgames(case, 20, 5, 40) {
        assert_eq!(
            solver.solve_within(&eg, u64::MAX),
            Some(Solver::new().solve(&eg)),
            "{eg}"
        );
    }
}
