//! External-agent overhead: the round trip of one `play` call through the pipe to a
//! served built-in (`arena serve greedy`), as median and p99; the start of a sandboxed
//! bot process (to its answer to `init`), with the sandbox and without; and whole games
//! per second with the served agent against the same agent in-process.
//! Run: `cargo bench -p arena --bench protocol`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use arena_core::dominoes::{Case, Deal, Dominoes};
use arena_core::{Agent, Game};
use arena_run::external::{ExecAgent, ExternalRuntime};
use arena_run::setup::{Limits, SandboxMode};
use criterion::{Criterion, Throughput};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn runtime(dir: &std::path::Path) -> Arc<ExternalRuntime> {
    runtime_with(dir, Limits::default(), usize::MAX)
}

/// A runtime for the served greedy whose processes serve `games` games per case.
fn runtime_with(dir: &std::path::Path, limits: Limits, games: usize) -> Arc<ExternalRuntime> {
    let agents = vec![Some(ExecAgent {
        name: "served".into(),
        command: format!("{ARENA} serve greedy --game dominoes"),
    })];
    let games: HashMap<(usize, String), usize> =
        Case::all().map(|c| ((0, c.to_string()), games)).collect();
    Arc::new(ExternalRuntime::new(agents, dir, limits, games).unwrap())
}

/// Median and p99 of a process's start, to its answer to `init`: each game gets a fresh
/// process (one game per process), with the sandbox and with `sandbox = "off"`; the
/// calling thread pinned, as a run's game thread is by default.
fn startup(dir: &std::path::Path) {
    let _pin = arena_run::affinity::plan(1).and_then(|c| arena_run::affinity::pin(c[0]));
    for (label, mode) in [("sandboxed", SandboxMode::On), ("off", SandboxMode::Off)] {
        let limits = Limits {
            sandbox: mode,
            ..Limits::default()
        };
        let rt = runtime_with(&dir.join(label), limits, 1);
        let case: Case = "9,7".parse().unwrap();
        let mut times = Vec::with_capacity(200);
        for i in 0..200 {
            let mut agent = rt.agent::<Dominoes>(0, case.to_string(), i);
            let t = Instant::now();
            agent.init(&case).unwrap();
            times.push(t.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        let p99 = times[times.len() * 99 / 100];
        println!("protocol/start_{label}  median {median:?}  p99 {p99:?}  (200 processes)");
    }
}

/// Median and p99 of single `play` round trips (the same position), through the
/// sandbox (frozen between calls) and with `sandbox = "off"`, in interleaved blocks of
/// 1,000 calls so both see the same machine; and the ratio of the medians. `pinned`:
/// as a game thread of a run is by default (`arena::affinity`), the calling thread on
/// one core, where the bots it starts run too; else where the system puts them
/// (`--no-pin`, or more games at once than cores).
fn latency(dir: &std::path::Path, pinned: bool) {
    let pin = pinned
        .then(|| arena_run::affinity::plan(1).and_then(|c| arena_run::affinity::pin(c[0])))
        .flatten();
    assert_eq!(
        pin.is_some(),
        pinned,
        "the bench thread could not be pinned"
    );
    let tag = if pinned { "" } else { "_unpinned" };
    let case: Case = "9,7".parse().unwrap();
    let game = Dominoes::new(&Deal::seeded(case, 1, 0));
    let modes = [("sandboxed", SandboxMode::On), ("off", SandboxMode::Off)];
    let mut agents: Vec<_> = modes
        .iter()
        .map(|(label, mode)| {
            let limits = Limits {
                sandbox: *mode,
                ..Limits::default()
            };
            let rt = runtime_with(&dir.join(format!("rt-{label}{tag}")), limits, usize::MAX);
            let mut agent = rt.agent::<Dominoes>(0, case.to_string(), 0);
            agent.init(&case).unwrap();
            (rt, agent)
        })
        .collect();
    let mut times = vec![Vec::with_capacity(20_000); modes.len()];
    for _ in 0..20 {
        for (i, (_, agent)) in agents.iter_mut().enumerate() {
            for _ in 0..1_000 {
                // A fresh game each call: the served tracker expects a new game after reset.
                agent.reset(&game.view()).unwrap();
                let t = Instant::now();
                agent.play(&game.view()).unwrap();
                times[i].push(t.elapsed());
            }
        }
    }
    let mut medians = Vec::new();
    for ((label, _), times) in modes.iter().zip(&mut times) {
        times.sort();
        let median = times[times.len() / 2];
        let p99 = times[times.len() * 99 / 100];
        medians.push(median.as_secs_f64());
        println!(
            "protocol/play_round_trip_{label}{tag}  median {median:?}  p99 {p99:?}  (20,000 calls)"
        );
    }
    println!(
        "protocol/play_round_trip{tag}  sandboxed / off = {:.3}",
        medians[0] / medians[1]
    );
}

fn games(c: &mut Criterion, dir: &std::path::Path) {
    let cases: Vec<Case> = Case::all().collect();
    let mut group = c.benchmark_group("protocol");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.sample_size(10);
    let rt = runtime(dir);
    group.bench_function("served_greedy_vs_greedy_20_cases", |b| {
        let mut pair = 0;
        b.iter(|| {
            pair += 1;
            for &case in &cases {
                let mut g = Dominoes::new(&Deal::seeded(case, 1, pair));
                let mut served = rt.agent::<Dominoes>(0, case.to_string(), 0);
                let mut local = agents::dominoes::Greedy;
                served.init(&case).unwrap();
                served.reset(&g.view_of(arena_core::Seat::A)).unwrap();
                while !g.is_over() {
                    let mv = if g.to_move() == arena_core::Seat::A {
                        served.play(&g.view()).unwrap()
                    } else {
                        local.play(&g.view()).unwrap()
                    };
                    g.play_unchecked(mv);
                }
            }
        })
    });
    group.bench_function("in_process_greedy_vs_greedy_20_cases", |b| {
        let mut pair = 0;
        b.iter(|| {
            pair += 1;
            for &case in &cases {
                let mut g = Dominoes::new(&Deal::seeded(case, 1, pair));
                let (mut x, mut y) = (agents::dominoes::Greedy, agents::dominoes::Greedy);
                while !g.is_over() {
                    let mv = if g.to_move() == arena_core::Seat::A {
                        x.play(&g.view()).unwrap()
                    } else {
                        y.play(&g.view()).unwrap()
                    };
                    g.play_unchecked(mv);
                }
            }
        })
    });
    group.finish();
}

fn main() {
    // Confined like a run's bots: by the arena binary (this bench's own executable is not
    // one, and re-executing it would start the bench over).
    arena_sandbox::set_launcher(ARENA.into());
    let dir = tempfile::tempdir().unwrap();
    latency(dir.path(), true);
    latency(dir.path(), false);
    startup(dir.path());
    let mut c = Criterion::default().configure_from_args();
    games(&mut c, dir.path());
    c.final_summary();
}
