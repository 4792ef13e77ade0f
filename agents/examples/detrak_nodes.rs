//! Node counts and times of the exact Détrak solver, one line per instance, then the
//! median and maximum: `cargo run --release -p agents --example detrak_nodes -- FROM TO`
//! for seeds FROM..TO of `arena gen detrak`, or `… -- file FILE` for one instance a line.
use std::time::Instant;

use agents::puzzles::Solver;
use agents::puzzles::detrak::BranchAndBound;
use arena_core::puzzle::Puzzle;
use arena_core::puzzle::detrak::{Detrak, Instance};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let instances: Vec<(String, Instance)> = if args.get(1).is_some_and(|a| a == "file") {
        std::fs::read_to_string(&args[2])
            .expect("a readable file")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| (l.to_string(), l.parse().expect("an instance")))
            .collect()
    } else {
        let from: u64 = args.get(1).map_or(0, |a| a.parse().unwrap());
        let to: u64 = args.get(2).map_or(100, |a| a.parse().unwrap());
        (from..to)
            .map(|s| (format!("seed {s}"), Detrak::generate(s)))
            .collect()
    };
    let (mut nodes, mut times) = (Vec::new(), Vec::new());
    for (name, instance) in &instances {
        let t = Instant::now();
        let s = BranchAndBound::default().solve(instance, u64::MAX).unwrap();
        let elapsed = t.elapsed();
        println!(
            "{name}: score {} optimal {} nodes {} {:.3?}",
            s.score, s.optimal, s.nodes, elapsed
        );
        nodes.push(s.nodes);
        times.push(elapsed);
    }
    nodes.sort();
    times.sort();
    let n = nodes.len();
    println!(
        "{n} instances: nodes median {} max {} total {}; time median {:.3?} max {:.3?}",
        nodes[n / 2],
        nodes[n - 1],
        nodes.iter().sum::<u64>(),
        times[n / 2],
        times[n - 1]
    );
}
