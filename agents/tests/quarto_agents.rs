//! The Quarto agents: registry, node budgets (counted, not timed), determinism, and
//! exact play where the solver applies.

use agents::quarto::solver::{Solver, Value, solve_moves};
use agents::quarto::suite::random_safe_position;
use agents::quarto::{Greedy, SolverAgent, Strangler, StranglerConfig, build};
use arena_core::quarto::{Quarto, QuartoMove, Variant};
use arena_core::{Agent, Game, Outcome};

fn small() -> StranglerConfig {
    StranglerConfig {
        nodes: 4_000,
        solve: 30_000,
        exact: 11,
        depth: 6,
        tt_bits: 14,
        book: false,
    }
}

#[test]
fn registry_builds_every_agent_and_checks_options() {
    for spec in [
        "random",
        "greedy",
        "solver",
        "strangler",
        "best",
        "strangler:nodes=1000,solve=5000,exact=9,depth=3,tt=12,book=false",
        "solver:solve=1000",
    ] {
        assert!(build(&spec.parse().unwrap(), 1).is_ok(), "{spec}");
    }
    for bad in [
        "strangler:foo=1",
        "strangler:nodes=lots",
        "strangler:tt=40",
        "best:book=2",
        "greedy:nodes=1",
    ] {
        assert!(build(&bad.parse().unwrap(), 1).is_err(), "{bad}");
    }
    let c = StranglerConfig::from_spec(&"strangler:exact=9".parse().unwrap(), small()).unwrap();
    assert_eq!(c.exact, 9);
    assert_eq!(c.nodes, small().nodes);
}

/// Plays `a` (the side to move at `start`) against greedy; returns the outcome from
/// `a`'s side (`Winner(A)` means `a` won), every node count `a` reported, and the moves.
fn game(start: Quarto, a: &mut Strangler, seed: u64) -> (Outcome, Vec<u64>, Vec<QuartoMove>) {
    let mut b = Greedy::new(seed);
    let mut pos = start;
    let mut used = Vec::new();
    let mut moves = Vec::new();
    let me = pos.to_move();
    a.reset(&&pos).unwrap();
    while !pos.is_over() {
        let mv = if pos.to_move() == me {
            let mv = a.play(&&pos).unwrap();
            used.push(a.last_move_nodes());
            mv
        } else {
            b.play(&&pos).unwrap()
        };
        assert!(pos.is_legal(mv), "{mv} in {}", pos.setup());
        moves.push(mv);
        pos.play_unchecked(mv);
    }
    let outcome = match pos.outcome().unwrap() {
        Outcome::Winner(w) if w == me => Outcome::Winner(arena_core::Seat::A),
        Outcome::Winner(_) => Outcome::Winner(arena_core::Seat::B),
        Outcome::Draw => Outcome::Draw,
    };
    (outcome, used, moves)
}

#[test]
fn agents_stay_within_their_node_budgets() {
    let config = small();
    for variant in Variant::ALL {
        for seed in 0..3 {
            let mut a = Strangler::new(config, seed);
            let (_, used, _) = game(Quarto::new(variant), &mut a, seed);
            assert!(!used.is_empty());
            for &n in &used {
                assert!(n <= config.nodes + config.solve, "{n} nodes");
            }
            // The budgets are really used: some move spends midgame nodes up to the cap.
            assert!(used.iter().any(|&n| n >= config.nodes / 2), "{used:?}");
        }
    }
    // The solver agent spends only solver nodes.
    let mut s = SolverAgent::new(config, 5);
    let pos = random_safe_position(Variant::Lines, 12, 5);
    s.play(&&pos).unwrap();
    assert!(s.last_move_nodes() <= config.solve);
}

#[test]
fn play_is_a_deterministic_function_of_the_seed() {
    let run = |seed| {
        game(
            Quarto::new(Variant::Squares),
            &mut Strangler::new(small(), seed),
            9,
        )
    };
    assert_eq!(run(4).2, run(4).2);
}

#[test]
fn the_strangler_plays_a_winning_move_when_one_exists() {
    let mut checked = 0;
    for seed in 0..40 {
        let pos = random_safe_position(Variant::Lines, 8, 300 + seed);
        let (value, wins) = solve_moves(&pos);
        if value != Value::Win {
            continue;
        }
        let mut a = Strangler::new(small(), seed);
        let mv = a.play(&&pos).unwrap();
        assert!(wins.contains(&mv), "{mv} in {}", pos.setup());
        checked += 1;
    }
    assert!(checked >= 3, "{checked}");
}

#[test]
fn the_strangler_beats_greedy_from_exact_range() {
    // From 10 empties the Strangler solves exactly, so it never loses a position the
    // solver calls a draw or a win for it.
    for seed in 0..6 {
        let start = random_safe_position(Variant::Lines, 10, 700 + seed);
        let (value, _) = solve_moves(&start);
        let mut a = Strangler::new(small(), seed);
        let (outcome, _, _) = game(start, &mut a, seed);
        if value >= Value::Draw {
            assert_ne!(
                outcome,
                Outcome::Winner(arena_core::Seat::B),
                "{}",
                start.setup()
            );
        }
        if value == Value::Win {
            assert_eq!(
                outcome,
                Outcome::Winner(arena_core::Seat::A),
                "{}",
                start.setup()
            );
        }
    }
}

/// The value of the position after `mv` for the side that played it.
fn value_after(judge: &mut Solver, pos: &Quarto, mv: QuartoMove) -> Value {
    let mut next = *pos;
    next.play_unchecked(mv);
    match next.outcome() {
        Some(Outcome::Winner(w)) if w == pos.to_move() => Value::Win,
        Some(Outcome::Winner(_)) => Value::Loss,
        Some(Outcome::Draw) => Value::Draw,
        None => match judge.solve(&next) {
            Value::Win => Value::Loss,
            Value::Draw => Value::Draw,
            Value::Loss => Value::Win,
        },
    }
}

/// `best` to move at `pos`; then the adversary tries every legal reply, `turns` of its
/// turns deep. At each of `best`'s moves the solver checks that the move keeps the
/// position's value. Returns the number of `best` moves checked.
fn never_gives_away(best: &mut Strangler, judge: &mut Solver, pos: Quarto, turns: u32) -> usize {
    if pos.is_over() {
        return 0;
    }
    let value = judge.solve(&pos);
    let mv = best.choose(&pos);
    assert!(pos.is_legal(mv));
    let after = value_after(judge, &pos, mv);
    assert_eq!(after, value, "{} played {mv}", pos.setup());
    let mut next = pos;
    next.play_unchecked(mv);
    let mut checked = 1;
    if turns > 0 && !next.is_over() {
        for reply in next.legal_moves() {
            let mut p = next;
            p.play_unchecked(reply);
            checked += never_gives_away(best, judge, p, turns - 1);
        }
    }
    checked
}

fn never_gives_away_from(empties: u32, seeds: std::ops::Range<u64>, turns: u32) -> usize {
    let mut checked = 0;
    for variant in Variant::ALL {
        for seed in seeds.clone() {
            let start = random_safe_position(variant, empties, 50_000 + seed);
            let mut best = Strangler::new(StranglerConfig::default(), seed);
            let mut judge = Solver::with_table_bits(20);
            checked += never_gives_away(&mut best, &mut judge, start, turns);
        }
    }
    checked
}

#[test]
fn best_never_gives_away_the_value_against_every_reply() {
    // Seeded safe-play positions at 10 empties, every adversary reply two turns deep.
    let checked = never_gives_away_from(10, 0..4, 2);
    assert!(checked > 3_000, "{checked}");
}

/// The heavy version: `cargo test --release -p agents --test quarto_agents -- --ignored
/// heavy --nocapture` (12 empties, every adversary reply, then `best` again; set
/// `QUARTO_HEAVY_EMPTIES`, `QUARTO_HEAVY_SEEDS` and `QUARTO_HEAVY_TURNS` to change it).
#[test]
#[ignore = "heavy: minutes in release"]
fn heavy_best_never_gives_away_the_value_against_every_reply() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (empties, seeds, turns) = (
        env("QUARTO_HEAVY_EMPTIES", 12) as u32,
        env("QUARTO_HEAVY_SEEDS", 6),
        env("QUARTO_HEAVY_TURNS", 1) as u32,
    );
    let checked = never_gives_away_from(empties, 0..seeds, turns);
    println!(
        "{empties} empties, {seeds} openings per variant, {turns} adversary turns: {checked} moves of best checked"
    );
}

#[test]
fn best_plays_the_shipped_book_near_the_empty_board() {
    for variant in Variant::ALL {
        let index = agents::quarto::book::shipped(variant).expect("a shipped book");
        let mut best = Strangler::new(StranglerConfig::default(), 3);
        let mut checked = 0;
        for e in &index.book().entries {
            if e.position.in_hand().is_none() {
                continue;
            }
            let (_, mv) = index.lookup(&e.position).expect("an entry of its own");
            assert_eq!(best.choose(&e.position), mv, "{}", e.position.setup());
            // No solver or midgame node is spent on a book move.
            assert_eq!(best.last_move_nodes(), 0);
            checked += 1;
        }
        assert_eq!(checked, index.book().entries.len() - 1, "{variant}");
    }
}
