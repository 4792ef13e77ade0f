//! Exact Quarto solves of fixed seeded suites of non-won `lines` positions reached by
//! random safe play (draw-heavy, the expensive kind): 10 positions at 12 empties and 2 at
//! 14. Before criterion runs, one timed pass prints each suite's median and max solve
//! time, nodes per second and the table hit rate. Every solve asserts its known value.
//!
//! Run: `cargo bench -p agents --bench quarto_solver` (add `-- solve_12` for the 12-empty
//! suite only).

use std::hint::black_box;
use std::time::{Duration, Instant};

use agents::quarto::suite::random_safe_position;
use agents::quarto::{Solver, Value};
use arena_core::quarto::{Quarto, Variant};
use criterion::Criterion;

/// (empties, seeds 1000.., known values).
const SUITES: [(u32, &[Value]); 2] = [(12, &[Value::Draw; 10]), (14, &[Value::Draw; 2])];

fn suite(empties: u32, values: &[Value]) -> Vec<(Quarto, Value)> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            (
                random_safe_position(Variant::Lines, empties, 1000 + i as u64),
                v,
            )
        })
        .collect()
}

fn report() {
    for (empties, values) in SUITES {
        let mut times = Vec::new();
        let (mut nodes, mut probes, mut hits) = (0u64, 0u64, 0u64);
        for (pos, value) in suite(empties, values) {
            let mut solver = Solver::new();
            let t = Instant::now();
            assert_eq!(solver.solve(&pos), value, "{}", pos.setup());
            times.push(t.elapsed().as_secs_f64());
            let s = solver.stats();
            nodes += s.nodes;
            probes += s.tt_probes;
            hits += s.tt_hits;
        }
        let total: f64 = times.iter().sum();
        times.sort_by(f64::total_cmp);
        println!(
            "lines, {empties} empties, {} positions: median {:.3} s, max {:.3} s, {:.2} M nodes/s, TT hit rate {:.1}%",
            times.len(),
            times[times.len() / 2],
            times[times.len() - 1],
            nodes as f64 / total / 1e6,
            100.0 * hits as f64 / probes.max(1) as f64
        );
    }
}

fn bench(c: &mut Criterion) {
    for (empties, values) in SUITES {
        let mut group = c.benchmark_group(format!("solve_{empties}"));
        group.sample_size(10);
        if empties >= 14 {
            group.measurement_time(Duration::from_secs(1));
            group.warm_up_time(Duration::from_millis(1));
        }
        for (i, (pos, value)) in suite(empties, values).into_iter().enumerate() {
            group.bench_function(format!("{i}"), |b| {
                b.iter(|| {
                    let mut solver = Solver::new();
                    let v = solver.solve(black_box(&pos));
                    assert_eq!(v, value);
                    v
                })
            });
        }
        group.finish();
    }
}

fn main() {
    let filtered = std::env::args().skip(1).any(|a| !a.starts_with('-'));
    if !filtered {
        report();
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
