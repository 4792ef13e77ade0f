//! Endgame solve times over a fixed seeded suite: every endgame reached when the stock
//! empties in random-vs-random games of all 20 cases (pairs 0..40, seed 2009), plus
//! the hand-checked vector `5|0,4|0-1,3-4|3-3|0` (a win).

use agents::dominoes::{Random, Solver};
use arena_core::dominoes::{Case, Deal, Dominoes, Endgame};
use arena_core::{Agent, Game};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

/// The first endgame of each seeded random game (when the stock empties), if any.
fn suite() -> Vec<Endgame> {
    let mut out = Vec::new();
    for case in Case::all() {
        for pair in 0..40 {
            let deal = Deal::seeded(case, 2009, pair);
            let mut game = Dominoes::new(&deal);
            let mut agents = [Random::new(u64::from(pair)), Random::new(99)];
            while !game.is_over() {
                if let Some(eg) = Endgame::of(&game) {
                    out.push(eg);
                    break;
                }
                let m = agents[game.to_move().index()].play(&game.view()).unwrap();
                game.play_unchecked(m);
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let known: Endgame = "5|0,4|0-1,3-4|3-3|0".parse().unwrap();
    let sol = Solver::new().solve(&known);
    assert_eq!(sol.value, 1.0);
    assert_eq!(
        sol.best.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["L0"]
    );

    let suite = suite();
    // A fixed suite: its size and its total value are known results.
    let total: f64 = suite.iter().map(|eg| Solver::new().value(eg)).sum();
    println!("suite: {} endgames, total value {total}", suite.len());
    assert_eq!(suite.len(), SUITE_LEN);
    assert_eq!(total, SUITE_TOTAL);

    c.bench_function("solve known 5|0,4|0-1,3-4|3-3|0", |b| {
        b.iter(|| Solver::new().solve(black_box(&known)).value)
    });
    c.bench_function("value, seeded suite, fresh table each", |b| {
        b.iter(|| {
            suite
                .iter()
                .map(|eg| Solver::new().value(black_box(eg)))
                .sum::<f64>()
        })
    });
    c.bench_function(
        "solve (all move values), seeded suite, fresh table each",
        |b| {
            b.iter(|| {
                suite
                    .iter()
                    .map(|eg| Solver::new().solve(black_box(eg)).best.len())
                    .sum::<usize>()
            })
        },
    );
}

const SUITE_LEN: usize = 242;
const SUITE_TOTAL: f64 = 76.5;

criterion_group!(benches, bench);
criterion_main!(benches);
