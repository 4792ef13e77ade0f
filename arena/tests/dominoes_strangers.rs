//! `best` against opponents outside its library: two heuristic bots of our own in
//! Python (`examples/python/dominoes_heuristics.py hoarder` and `... blocker`). Reading an
//! opponent must not cost `best` against strangers: on the same games it scores within
//! the noise of `pimc`, which plays everyone as `smart` (the previous `best`).
//!
//! Slow (4 x 1,000 games, half of them through Python): `cargo test -p arena --release
//! --test dominoes_strangers -- --ignored`. docs/benchmarks.md has the figures.

mod common;

use std::path::Path;
use std::process::Command;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// `agent`'s score per 100 against the bot over all 20 cases, 50 games each.
fn score(agent: &str, bot: &str, dir: &Path) -> f64 {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/python/dominoes_heuristics.py");
    let out = dir.join(format!("{}-{bot}", agent.replace(':', "_")));
    let status = Command::new(ARENA)
        .args(["match", "--game", "dominoes", "--agent", agent, "--agent"])
        .arg(format!("exec:python3 {} {bot}", script.display()))
        .args([
            "--games-per-case",
            "50",
            "--seed",
            "16",
            "--progress",
            "never",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut reader = csv::Reader::from_path(out.join("games.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = headers.iter().position(|h| h == "score_a").unwrap();
    let (mut total, mut games) = (0.0, 0.0);
    for row in reader.records() {
        total += row.unwrap()[col].parse::<f64>().unwrap();
        games += 1.0;
    }
    assert_eq!(games, 1000.0);
    100.0 * total / games
}

#[test]
#[ignore = "slow: 4,000 games, half through Python bots"]
fn reading_costs_nothing_against_strangers() {
    if !common::have("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for bot in ["hoarder", "blocker"] {
        let best = score("best", bot, dir.path());
        let pimc = score("pimc", bot, dir.path());
        eprintln!("{bot}: best {best:.1}, pimc {pimc:.1}");
        // Both play the same 1,000 games; a score per 100 over 1,000 games has a
        // standard error near 1.5, and the two players' results are correlated.
        assert!(
            best >= pimc - 3.0,
            "{bot}: best {best:.1} < pimc {pimc:.1} - 3"
        );
    }
}
