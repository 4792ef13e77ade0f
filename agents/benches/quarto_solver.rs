//! Exact Quarto solves, side by side with a plain reference solver (alpha-beta with a
//! transposition table, no symmetry, value only: `common/quarto_reference.rs`).
//!
//! Held-out suites (seeds never used for tuning): `lines` positions reached by random
//! safe play (draw-heavy, the expensive kind), 6 at 12 empties (seeds 7000..) and 6 at 14
//! (seeds 7100..). Before criterion runs, one timed pass prints, per 12-empty position,
//! our "value and every optimal move", our value alone and the reference's value, then
//! the ratios, and the 14-empty value-only times and median. Every solve checks that the
//! solvers agree.
//!
//! Run: `cargo bench -p agents --bench quarto_solver` (report + criterion on ours);
//! `-- moves_12`, `-- value_12`, `-- value_14` for one criterion group; `-- reference_12`
//! adds the reference to criterion (slow: ~10 s a solve). `QUARTO_BENCH_REPORT=0` skips
//! the timed pass, `QUARTO_BENCH_REPORT=only` runs only the timed pass. The criterion
//! group `value_14` takes the first 14-empty position only (the timed pass has all six).

#[path = "common/quarto_reference.rs"]
mod quarto_reference;

use std::hint::black_box;
use std::time::{Duration, Instant};

use agents::quarto::Solver;
use agents::quarto::suite::random_safe_position;
use arena_core::quarto::{Quarto, Variant};
use criterion::{Criterion, SamplingMode};
use quarto_reference::Reference;

const N: u64 = 6;

fn suite(empties: u32, seed0: u64) -> Vec<Quarto> {
    (0..N)
        .map(|i| random_safe_position(Variant::Lines, empties, seed0 + i))
        .collect()
}

fn held_out_12() -> Vec<Quarto> {
    suite(12, 7000)
}

fn held_out_14() -> Vec<Quarto> {
    suite(14, 7100)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn report() {
    let (mut t_moves, mut t_value, mut t_ref) = (Vec::new(), Vec::new(), Vec::new());
    for pos in held_out_12() {
        let ((v, moves), a) = timed(|| Solver::new().solve_moves(&pos));
        let (v2, b) = timed(|| Solver::new().solve(&pos));
        let mut reference = Reference::new(Variant::Lines);
        let (r, c) = timed(|| reference.value(&pos));
        assert_eq!(v, v2, "{}", pos.setup());
        assert_eq!(v.score(), r, "{}", pos.setup());
        println!(
            "12 empties {}: {v}, {} optimal moves; all moves {a:.3} s, value {b:.3} s, reference {c:.3} s ({} nodes): x{:.1} / x{:.1}",
            pos.setup(),
            moves.len(),
            reference.nodes,
            c / a,
            c / b
        );
        t_moves.push(a);
        t_value.push(b);
        t_ref.push(c);
    }
    let sum = |v: &[f64]| v.iter().sum::<f64>();
    println!(
        "12 empties, {N} positions: all moves {:.3} s, value {:.3} s, reference value {:.3} s in total; reference/ours: x{:.1} (all moves), x{:.1} (value); medians {:.3} / {:.3} / {:.3} s",
        sum(&t_moves),
        sum(&t_value),
        sum(&t_ref),
        sum(&t_ref) / sum(&t_moves),
        sum(&t_ref) / sum(&t_value),
        median(t_moves.clone()),
        median(t_value.clone()),
        median(t_ref.clone())
    );
    let mut t14 = Vec::new();
    for pos in held_out_14() {
        let mut solver = Solver::new();
        let (v, t) = timed(|| solver.solve(&pos));
        println!(
            "14 empties {}: {v} (value only) {t:.3} s, {} nodes",
            pos.setup(),
            solver.stats().nodes
        );
        t14.push(t);
    }
    println!(
        "14 empties, {N} positions, value only: median {:.3} s, max {:.3} s",
        median(t14.clone()),
        t14.iter().cloned().fold(0.0, f64::max)
    );
}

fn bench(c: &mut Criterion, with_reference: bool) {
    let mut group = c.benchmark_group("moves_12");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (i, pos) in held_out_12().into_iter().enumerate() {
        group.bench_function(format!("{i}"), |b| {
            b.iter(|| Solver::new().solve_moves(black_box(&pos)))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("value_12");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (i, pos) in held_out_12().into_iter().enumerate() {
        group.bench_function(format!("{i}"), |b| {
            b.iter(|| Solver::new().solve(black_box(&pos)))
        });
    }
    group.finish();
    let mut group = c.benchmark_group("value_14");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    for (i, pos) in held_out_14().into_iter().take(1).enumerate() {
        group.bench_function(format!("{i}"), |b| {
            b.iter(|| Solver::new().solve(black_box(&pos)))
        });
    }
    group.finish();
    if with_reference {
        let mut group = c.benchmark_group("reference_12");
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_millis(1))
            .measurement_time(Duration::from_secs(1));
        for (i, pos) in held_out_12().into_iter().enumerate() {
            group.bench_function(format!("{i}"), |b| {
                b.iter(|| Reference::new(Variant::Lines).value(black_box(&pos)))
            });
        }
        group.finish();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filtered = args.iter().any(|a| !a.starts_with('-'));
    let with_reference = args.iter().any(|a| a.contains("reference"));
    let mode = std::env::var("QUARTO_BENCH_REPORT").unwrap_or_default();
    if !filtered && mode != "0" {
        report();
    }
    if mode == "only" {
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, with_reference);
    c.final_summary();
}
