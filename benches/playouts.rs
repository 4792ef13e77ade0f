//! Random-vs-random playouts through the referee: how many whole games per second the
//! rules core sustains (deal included), and Quarto random playouts from the empty board.
//! Run: `cargo bench -p arena-core --bench playouts`.

use std::hint::black_box;

use arena_core::Game;
use arena_core::dominoes::{Case, Deal, Dominoes};
use arena_core::quarto::{Quarto, QuartoMove, Variant};
use arena_core::rng::below;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

/// Plays one game per case with uniformly random legal moves; returns the plies played.
fn dominoes_round(
    cases: &[Case],
    pair: u32,
    rng: &mut ChaCha8Rng,
    moves: &mut Vec<arena_core::dominoes::DominoMove>,
) -> u64 {
    let mut plies = 0;
    for &case in cases {
        let mut g = Dominoes::new(&Deal::seeded(case, 1, pair));
        while !g.is_over() {
            g.legal_moves_into(moves);
            let m = moves[below(rng, moves.len() as u32) as usize];
            g.play_unchecked(m);
            plies += 1;
        }
    }
    plies
}

fn dominoes(c: &mut Criterion) {
    let cases: Vec<Case> = Case::all().collect();
    let mut group = c.benchmark_group("dominoes");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("random_games_all_20_cases", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut moves = Vec::with_capacity(64);
        let mut pair = 0u32;
        b.iter(|| {
            pair = pair.wrapping_add(1);
            black_box(dominoes_round(&cases, pair, &mut rng, &mut moves))
        });
    });
    group.bench_function("deal_only_all_20_cases", |b| {
        let mut pair = 0u32;
        b.iter(|| {
            pair = pair.wrapping_add(1);
            for &case in &cases {
                black_box(Dominoes::new(&Deal::seeded(case, 1, pair)));
            }
        });
    });
    group.finish();
}

/// One random playout per variant from the empty board; returns the plies played.
fn quarto_round(rng: &mut ChaCha8Rng, moves: &mut Vec<QuartoMove>) -> u64 {
    let mut plies = 0;
    for variant in [Variant::Lines, Variant::Squares] {
        let mut g = Quarto::new(variant);
        while !g.is_over() {
            g.legal_moves_into(moves);
            let m = moves[below(rng, moves.len() as u32) as usize];
            g.play_unchecked(m);
            plies += 1;
        }
    }
    plies
}

fn quarto(c: &mut Criterion) {
    let mut group = c.benchmark_group("quarto");
    group.throughput(Throughput::Elements(2));
    group.bench_function("random_playouts_both_variants", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut moves = Vec::with_capacity(256);
        b.iter(|| black_box(quarto_round(&mut rng, &mut moves)));
    });
    group.finish();
}

criterion_group!(benches, dominoes, quarto);
criterion_main!(benches);
