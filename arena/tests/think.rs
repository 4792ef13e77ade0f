//! Think time (`--timings`): every decision timed into `timings.csv` and summarised in
//! `think.csv`, the console and `report.html`, without touching `games.csv`.

use std::path::Path;
use std::process::Command;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn matched(out: &Path, extra: &[&str]) {
    let o = Command::new(ARENA)
        .args([
            "match",
            "--game",
            "dominoes",
            "--cases",
            "5,4 9,7",
            "--agent",
            "greedy",
            "--agent",
            "smart",
            "--games-per-case",
            "6",
            "--progress",
            "never",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Per game: the plies in `games.csv`.
fn plies(dir: &Path) -> Vec<(u64, u64)> {
    let mut r = csv::Reader::from_path(dir.join("games.csv")).unwrap();
    let col = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "plies")
        .unwrap();
    r.records()
        .map(|row| {
            let row = row.unwrap();
            (row[0].parse().unwrap(), row[col].parse().unwrap())
        })
        .collect()
}

/// Per game: the decisions timed in `timings.csv` (both agents).
fn timed(dir: &Path) -> Vec<(u64, u64)> {
    let mut per_game = std::collections::BTreeMap::new();
    for line in read(&dir.join("timings.csv")).lines().skip(1) {
        let mut cells = line.splitn(3, ',');
        let game: u64 = cells.next().unwrap().parse().unwrap();
        let moves = cells.nth(1).unwrap().split_whitespace().count() as u64;
        *per_game.entry(game).or_insert(0) += moves;
    }
    per_game.into_iter().collect()
}

#[test]
fn timings_cover_every_decision_and_leave_games_csv_alone() {
    let t = tempfile::tempdir().unwrap();
    let (plain, timed_dir) = (t.path().join("plain"), t.path().join("timed"));
    matched(&plain, &[]);
    matched(&timed_dir, &["--timings"]);
    assert_eq!(
        read(&plain.join("games.csv")),
        read(&timed_dir.join("games.csv"))
    );
    assert!(!plain.join("timings.csv").exists() && !plain.join("think.csv").exists());
    assert!(!read(&plain.join("report.html")).contains("id=\"think\""));

    // One timed decision per ply (built-ins never forfeit).
    assert_eq!(timed(&timed_dir), plies(&timed_dir));
    let think = read(&timed_dir.join("think.csv"));
    let moves: u64 = think
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(moves, plies(&timed_dir).iter().map(|p| p.1).sum::<u64>());
    for line in think.lines().skip(1) {
        let v: Vec<f64> = line
            .split(',')
            .skip(2)
            .map(|x| x.parse().unwrap())
            .collect();
        let (mean, median, p99, max) = (v[0], v[1], v[2], v[3]);
        assert!(median <= p99 && p99 <= max && mean <= max, "{line}");
    }
    assert!(read(&timed_dir.join("report.html")).contains("id=\"think\""));
}

#[test]
fn a_resumed_timed_run_keeps_one_timing_row_per_game_and_agent() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    matched(&dir, &["--timings"]);
    let full = plies(&dir);
    // Cut games.csv after 5 games; timings.csv still holds all of them.
    let games = read(&dir.join("games.csv"));
    let cut: String = games.lines().take(6).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("games.csv"), cut).unwrap();
    let o = Command::new(ARENA)
        .args([
            "run",
            "--resume",
            dir.to_str().unwrap(),
            "--timings",
            "--progress",
            "never",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(plies(&dir), full);
    assert_eq!(timed(&dir), full);
    assert_eq!(
        read(&dir.join("timings.csv")).lines().count() - 1,
        2 * full.len(),
        "one row per game and agent"
    );
}

/// An agent's name may hold a comma (`pimc:k=2,opp=greedy`, its spec): `timings.csv`
/// writes it quoted, and a resumed run reads it back as a CSV field (it split the line
/// on commas before, and stopped: "unknown agent \"\\\"pimc:k=2\"").
#[test]
fn a_resumed_timed_run_reads_back_a_name_with_a_comma() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("run");
    let run = |args: &[&str]| {
        let o = Command::new(ARENA).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(&[
        "match",
        "--game",
        "dominoes",
        "--cases",
        "5,4",
        "--agent",
        "greedy",
        "--agent",
        "pimc:k=2,opp=greedy",
        "--games-per-case",
        "4",
        "--progress",
        "never",
        "--timings",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(read(&dir.join("timings.csv")).contains("\"pimc:k=2,opp=greedy\""));
    let full = plies(&dir);
    let games = read(&dir.join("games.csv"));
    let cut: String = games.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("games.csv"), cut).unwrap();
    run(&[
        "run",
        "--resume",
        dir.to_str().unwrap(),
        "--timings",
        "--progress",
        "never",
    ]);
    assert_eq!(plies(&dir), full);
    assert_eq!(timed(&dir), full);
}
