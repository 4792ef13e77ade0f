//! The exact Quarto solver's speed report: per position of the benchmark suites, the
//! value, the time, the nodes and the table's hit rate; per suite, the median and
//! maximum time, the values, the nodes per second and the nodes by empty squares. A
//! report, not a check (the criterion groups are in `agents/benches/quarto_solver.rs`,
//! the counters' consistency in `agents/tests/quarto_solver.rs`). Writes no file.
//!
//! `cargo run --release -p agents --example quarto_solver_speed` (optionally
//! `QUARTO_SPEED_EMPTIES=12 QUARTO_SPEED_COUNT=20 QUARTO_SPEED_VARIANT=lines
//! QUARTO_SPEED_TT=22`, the last the log2 of the table's entries).

use std::time::Instant;

use agents::quarto::suite::random_safe_position;
use agents::quarto::{Solver, Stats};
use arena_core::quarto::Variant;

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Adds the counters of one solve to the suite's.
fn add(total: &mut Stats, s: &Stats) {
    total.nodes += s.nodes;
    total.tt_probes += s.tt_probes;
    total.tt_hits += s.tt_hits;
    for (t, n) in total.nodes_at.iter_mut().zip(s.nodes_at) {
        *t += n;
    }
}

fn main() {
    let variant: Variant = env("QUARTO_SPEED_VARIANT", Variant::Lines);
    let suites: Vec<(u32, u64)> = match std::env::var("QUARTO_SPEED_EMPTIES") {
        Ok(e) => vec![(
            e.parse()
                .expect("QUARTO_SPEED_EMPTIES: a number of empty squares"),
            env("QUARTO_SPEED_COUNT", 20),
        )],
        Err(_) => vec![(10, 20), (11, 20), (12, 20), (13, 6), (14, 3)],
    };
    for (empties, count) in suites {
        let mut times = Vec::new();
        let mut total = Stats::default();
        let mut values = [0usize; 3];
        for i in 0..count {
            let pos = random_safe_position(variant, empties, 1000 + i);
            let mut solver = Solver::with_table_bits(env("QUARTO_SPEED_TT", 22));
            let t = Instant::now();
            let v = solver.solve(&pos);
            let dt = t.elapsed().as_secs_f64();
            times.push(dt);
            values[(v.score() + 1) as usize] += 1;
            let s = solver.stats();
            add(&mut total, &s);
            println!(
                "{variant} e={empties} #{i} {} {v} {:.3}s nodes={} hit={:.1}%",
                pos.setup(),
                dt,
                s.nodes,
                100.0 * s.hit_rate()
            );
        }
        times.sort_by(f64::total_cmp);
        let sum: f64 = times.iter().sum();
        println!(
            "{variant} empties={empties} n={count} median={:.4}s max={:.4}s  loss/draw/win={values:?}  {:.2} Mnodes/s  TT hit rate {:.1}%",
            times[times.len() / 2],
            times[times.len() - 1],
            total.nodes as f64 / sum / 1e6,
            100.0 * total.hit_rate()
        );
        println!("  nodes {} by empties {:?}", total.nodes, total.nodes_at);
    }
}
