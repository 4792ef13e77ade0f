//! Integration tests of the reports of a whole field: gauntlet mode, the console's
//! standings and cross table, and `report.html` (opened in headless Chromium).

use std::collections::BTreeSet;
use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Runs `arena` with `args`, asserting success; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = arena().args(args).assert().success().get_output().clone();
    String::from_utf8(out.stdout).unwrap()
}

/// The (agent_a, agent_b) pairings in a games.csv.
fn pairings(games_csv: &Path) -> BTreeSet<(String, String)> {
    let mut reader = csv::Reader::from_path(games_csv).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (a, b) = (col("agent_a"), col("agent_b"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[a].to_owned(), r[b].to_owned())
        })
        .collect()
}

/// A small Quarto field as `arena match` arguments, written to `out`.
fn quarto_field<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "match",
        "--game",
        "quarto",
        "--agent",
        "random",
        "--agent",
        "greedy",
        "--agent",
        "mine=greedy",
        "--agent",
        "rnd2=random",
        "--cases",
        "lines:4 squares:4",
        "--games-per-case",
        "4",
        "--concurrency",
        "2",
        "--progress",
        "never",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn a_gauntlet_plays_the_named_agent_against_the_field_only() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("g");
    ok(&quarto_field(
        out.to_str().unwrap(),
        &["--gauntlet", "mine"],
    ));
    let seen = pairings(&out.join("games.csv"));
    let expected: BTreeSet<(String, String)> = ["random", "greedy", "rnd2"]
        .iter()
        .map(|o| ("mine".to_owned(), (*o).to_owned()))
        .collect();
    assert_eq!(seen, expected);
    // 3 pairings x 2 cases x 4 games.
    let rows = read(&out.join("games.csv")).lines().count() - 1;
    assert_eq!(rows, 24);
    assert!(read(&out.join("config.toml")).contains("gauntlet = [\"mine\"]"));
    // The round robin of the same field plays all six pairings.
    let rr = dir.path().join("rr");
    ok(&quarto_field(rr.to_str().unwrap(), &[]));
    assert_eq!(pairings(&rr.join("games.csv")).len(), 6);
}

#[test]
fn a_gauntlet_of_an_unknown_agent_is_refused() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("g");
    let assert = arena()
        .args(quarto_field(
            out.to_str().unwrap(),
            &["--gauntlet", "nobody"],
        ))
        .assert()
        .code(2);
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("gauntlet") && err.contains("nobody"), "{err}");
}
