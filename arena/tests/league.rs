//! `arena league`: the command-line flow, determinism across additions, archiving,
//! restarts and concurrency, `kill -9` and a crash inside a commit, the verdicts, the
//! export checked by `arena verify`, and the live page in headless Chromium.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

fn exe() -> PathBuf {
    assert_cmd::cargo::cargo_bin!("arena").to_owned()
}

fn ok(args: &[&str]) -> String {
    let out = arena().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "arena {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A league of `bots` (name, spec, benchmark), in this order.
fn league(dir: &Path, cases: &str, seed: &str, bots: &[(&str, &str, bool)]) {
    ok(&[
        "league",
        "init",
        s(dir),
        "--game",
        "dominoes",
        "--cases",
        cases,
        "--seed",
        seed,
    ]);
    for (name, spec, bench) in bots {
        let mut args = vec!["league", "add", s(dir), name, spec];
        if *bench {
            args.push("--benchmark");
        }
        ok(&args);
    }
}

fn run(dir: &Path, extra: &[&str]) -> String {
    let mut args = vec!["league", "run", s(dir), "--quiet"];
    args.extend_from_slice(extra);
    ok(&args)
}

fn show_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&ok(&["league", "show", s(dir), "--format", "json"])).unwrap()
}

/// Exports the league; returns each pair's games.csv by "agent_a vs agent_b".
fn export(dir: &Path, out: &Path) -> std::collections::BTreeMap<String, String> {
    ok(&["league", "export", s(dir), s(out)]);
    let index = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    index
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                format!("{} vs {}", f[1], f[2]),
                std::fs::read_to_string(out.join(f[0]).join("games.csv")).unwrap(),
            )
        })
        .collect()
}

fn rows(text: &str) -> Vec<&str> {
    text.lines().skip(1).collect()
}

/// The flow a bot author follows: init, add, run, show in three formats, export; the
/// export passes `arena verify`, is byte-identical to `arena match` with the league's
/// seed, and a tampered row fails verify.
#[test]
fn the_command_line_flow_and_an_export_that_verify_checks() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 9,7",
        "7",
        &[
            ("greedy", "greedy", true),
            ("random", "random", true),
            ("smart", "smart", false),
        ],
    );
    run(&dir, &["--games", "600", "--concurrency", "2"]);
    let table = ok(&["league", "show", s(&dir)]);
    for needle in [
        "rank",
        "greedy",
        "random",
        "smart",
        "tests (GSPRT",
        "cross table",
    ] {
        assert!(table.contains(needle), "{needle} missing from\n{table}");
    }
    let json = show_json(&dir);
    assert_eq!(json["games"].as_u64(), Some(600), "{json}");
    let standings = json["rows"].as_array().unwrap();
    assert_eq!(standings.len(), 3);
    let total: u64 = standings.iter().map(|r| r["games"].as_u64().unwrap()).sum();
    assert_eq!(total, 1200, "each game counts for both bots");
    for r in standings {
        assert!(
            r["elo_low"].as_f64() <= r["elo"].as_f64()
                && r["elo"].as_f64() <= r["elo_high"].as_f64()
        );
    }
    let csv = ok(&["league", "show", s(&dir), "--format", "csv"]);
    assert!(csv.starts_with(
        "rank,bot,role,state,games,score,elo,elo_low,elo_high,llr,verdict_pairs,against\n"
    ));
    assert_eq!(csv.lines().count(), 4, "{csv}");

    let out = tmp.path().join("out");
    let pairs = export(&dir, &out);
    // smart's verdict comes first (candidates first): its two pairs, then spare games.
    assert!(pairs.len() >= 2, "{pairs:?}");
    let mut games = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let p = entry.unwrap().path();
        if !p.is_dir() {
            continue;
        }
        let v = ok(&["verify", s(&p)]);
        assert!(v.contains("0 mismatches"), "{v}");
        games += rows(&std::fs::read_to_string(p.join("games.csv")).unwrap()).len();
        assert!(p.join("summary.csv").exists() && p.join("report.html").exists());
        ok(&["report", s(&p)]);
        let replay = ok(&["replay", s(&p), "-n", "1"]);
        assert!(replay.contains("game 1"), "{replay}");
    }
    assert_eq!(games, 600);

    // A league game is the same game of `arena match` at the league's seed: the smart
    // vs greedy pair played the first rows of this match.
    let greedy_smart = &pairs["greedy vs smart"];
    let n = rows(greedy_smart).len();
    assert!(n >= 4 && n.is_multiple_of(2), "{n} rows: whole pairs");
    let m = tmp.path().join("match");
    ok(&[
        "match",
        "--game",
        "dominoes",
        "--agent",
        "greedy",
        "--agent",
        "smart",
        "--cases",
        "5,4 9,7",
        "--games-per-case",
        &(2 * n.div_ceil(4)).to_string(),
        "--seed",
        "7",
        "--out",
        s(&m),
    ]);
    let played = std::fs::read_to_string(m.join("games.csv")).unwrap();
    assert_eq!(
        rows(&played)[..n],
        rows(greedy_smart)[..],
        "the league's games are the match's"
    );

    // Tampering: a score flipped and its check recomputed (a forger's edit) fails verify.
    tamper(&out.join("1-3").join("games.csv"));
    let out = arena()
        .args(["verify", s(&out.join("1-3"))])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A forger's edit of a `games.csv`: the first decisive score flipped, every row's
/// running check recomputed, so only a replay can tell.
fn tamper(victim: &Path) {
    let text = std::fs::read_to_string(victim).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut crc = 0u32;
    let mut changed = false;
    for line in lines.iter_mut().skip(1) {
        let (content, _) = line.rsplit_once(',').unwrap();
        let mut content = content.to_owned();
        if !changed {
            let flipped = if content.contains(",1,0,") {
                content.replacen(",1,0,", ",0,1,", 1)
            } else {
                content.replacen(",0,1,", ",1,0,", 1)
            };
            changed = flipped != content;
            content = flipped;
        }
        crc = crc32(crc, format!("{content}\n").as_bytes());
        *line = format!("{content},{crc:08x}");
    }
    assert!(changed);
    std::fs::write(victim, lines.join("\n") + "\n").unwrap();
}

/// `arena verify` on an export's root verifies every pair that `pairs.csv` lists, each
/// with its result and a total; one tampered pair fails the whole (exit 1), named.
#[test]
fn verify_on_an_export_root_checks_every_pair() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 9,7",
        "11",
        &[
            ("greedy", "greedy", true),
            ("random", "random", true),
            ("smart", "smart", false),
        ],
    );
    run(&dir, &["--games", "200"]);
    let out = tmp.path().join("out");
    let pairs = export(&dir, &out);
    let v = ok(&["verify", s(&out)]);
    for name in ["1-2", "1-3", "2-3"] {
        if out.join(name).is_dir() {
            assert!(v.contains(&format!("pair {name} (")), "{name}: {v}");
        }
    }
    assert!(
        v.contains(&format!("total: {} pairs, 200 rows", pairs.len())),
        "{v}"
    );
    assert!(v.contains("0 mismatches"), "{v}");

    tamper(&out.join("1-3").join("games.csv"));
    let failed = arena().args(["verify", s(&out)]).output().unwrap();
    let stdout = String::from_utf8_lossy(&failed.stdout);
    assert_eq!(failed.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("pair 1-3 (greedy vs smart): 1 mismatch"),
        "{stdout}"
    );
    assert!(stdout.contains("(in pair 1-3)"), "{stdout}");

    // A pairs.csv naming a folder that is not there is bad input (exit 2), named too.
    std::fs::remove_dir_all(out.join("1-3")).unwrap();
    let bad = arena().args(["verify", s(&out)]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("pair 1-3"));
}

/// zlib's crc32(data, value), bit by bit (the tests need no crate for it).
fn crc32(previous: u32, data: &[u8]) -> u32 {
    let mut crc = !previous;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One pair's rows agree wherever both leagues played them.
fn same_prefix(x: &str, y: &str) -> usize {
    let (x, y) = (rows(x), rows(y));
    let n = x.len().min(y.len());
    assert_eq!(x[..n], y[..n], "the common games differ");
    n
}

/// Adding a bot (before the others), archiving it, restarting the run and changing the
/// concurrency change no game: the greedy-random pair records identical rows.
#[test]
fn games_do_not_depend_on_other_bots_restarts_or_concurrency() {
    let tmp = TempDir::new().unwrap();
    let plain = tmp.path().join("plain");
    league(
        &plain,
        "5,4 6,5 9,7",
        "11",
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    run(
        &plain,
        &["--spare", "always", "--games", "1200", "--concurrency", "1"],
    );

    let busy = tmp.path().join("busy");
    league(
        &busy,
        "5,4 6,5 9,7",
        "11",
        &[
            ("smart", "smart", true),
            ("greedy", "greedy", true),
            ("random", "random", true),
        ],
    );
    run(
        &busy,
        &["--spare", "always", "--games", "300", "--concurrency", "3"],
    );
    ok(&["league", "archive", s(&busy), "smart"]);
    ok(&[
        "league",
        "add",
        s(&busy),
        "endgame",
        "endgame",
        "--benchmark",
    ]);
    run(
        &busy,
        &["--spare", "always", "--games", "700", "--concurrency", "2"],
    );
    ok(&["league", "rename", s(&busy), "greedy", "greedy-v1"]);
    ok(&["league", "rename", s(&busy), "greedy-v1", "greedy"]);
    run(
        &busy,
        &["--spare", "always", "--games", "900", "--concurrency", "4"],
    );

    let a = export(&plain, &tmp.path().join("a"));
    let b = export(&busy, &tmp.path().join("b"));
    let n = same_prefix(&a["greedy vs random"], &b["greedy vs random"]);
    assert!(n >= 200, "only {n} common games");
    let json = show_json(&busy);
    assert!(
        json["retired"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["bot"] == "smart"),
        "{json}"
    );
    assert!(
        json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["bot"] != "smart"),
        "an archived bot leaves the standings"
    );
}

fn spawn_run(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Child {
    let mut cmd = std::process::Command::new(exe());
    cmd.args(["league", "run", s(dir), "--quiet"]).args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `kill -9` in the middle of the writes, and an abort inside a commit: the next `run`
/// loses nothing committed, doubles nothing, and the games equal a league never killed.
#[test]
fn kill_9_during_writes_then_run_loses_and_doubles_nothing() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    let bots = [
        ("greedy", "greedy", true),
        ("random", "random", true),
        ("smart", "smart", true),
    ];
    league(&dir, "5,4 9,7", "3", &bots);
    let mut child = spawn_run(&dir, &["--spare", "always", "--concurrency", "2"], &[]);
    let began = Instant::now();
    // Until some batches are committed, then in the middle of later ones.
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let games = show_json(&dir)["games"].as_u64().unwrap();
        if games >= 2000 || began.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let after_kill = show_json(&dir)["games"].as_u64().unwrap();
    assert!(after_kill > 0);

    // An abort between a batch's inserts and its commit: that batch is not kept.
    let crashed = spawn_run(
        &dir,
        &["--spare", "always", "--games", "100"],
        &[("ARENA_FAULT", "abort-at:league-commit")],
    )
    .wait_with_output()
    .unwrap();
    assert!(!crashed.status.success(), "the fault aborts the run");
    assert_eq!(show_json(&dir)["games"].as_u64().unwrap(), after_kill);

    run(
        &dir,
        &["--spare", "always", "--games", "1000", "--concurrency", "3"],
    );
    let total = show_json(&dir)["games"].as_u64().unwrap();
    assert_eq!(total, after_kill + 1000);

    // The same pairs' games in a league that never stopped.
    let calm = tmp.path().join("calm");
    league(&calm, "5,4 9,7", "3", &bots);
    run(
        &calm,
        &[
            "--spare",
            "always",
            "--games",
            &(2 * total + 2000).to_string(),
        ],
    );
    let x = export(&dir, &tmp.path().join("x")); // refuses a pair with a gap
    let y = export(&calm, &tmp.path().join("y"));
    let mut stored = 0;
    for (pair, games) in &x {
        let n = same_prefix(games, &y[pair]);
        assert_eq!(n, rows(games).len(), "{pair}: the calm league played fewer");
        stored += n;
    }
    assert_eq!(stored as u64, total, "every stored game once");
}

/// A clearly better candidate is accepted, a clearly worse one rejected, and each
/// evaluation stops there.
#[test]
fn a_better_candidate_is_accepted_and_a_worse_one_rejected() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    ok(&[
        "league",
        "init",
        s(&dir),
        "--game",
        "dominoes",
        "--cases",
        "9,7 7,5",
        "--seed",
        "5",
        "--elo1",
        "40",
        "--alpha",
        "0.1",
        "--beta",
        "0.1",
    ]);
    for (name, spec) in [
        ("greedy", "greedy"),
        ("random", "random"),
        ("smart", "smart"),
    ] {
        ok(&["league", "add", s(&dir), name, spec, "--benchmark"]);
    }
    // `best` with a smaller search budget, so the test stays short in a debug build.
    ok(&["league", "add", s(&dir), "best", "best:iterations=150"]);
    ok(&["league", "add", s(&dir), "weak", "random"]);
    run(&dir, &["--until-decided", "--concurrency", "2"]);
    let json = show_json(&dir);
    let cand = |name: &str| {
        json["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["bot"] == name)
            .unwrap()
            .clone()
    };
    let (best, weak) = (cand("best"), cand("weak"));
    assert_eq!(best["state"], "accepted", "{best}");
    assert_eq!(weak["state"], "rejected", "{weak}");
    assert!(best["llr"].as_f64().unwrap() >= json["sprt"]["upper"].as_f64().unwrap());
    assert!(weak["llr"].as_f64().unwrap() <= json["sprt"]["lower"].as_f64().unwrap());
    assert!(!best["path"].as_array().unwrap().is_empty());
    // Decided candidates play no more; spare capacity goes to the table.
    let weak_games = |j: &serde_json::Value| {
        j["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["bot"] == "weak")
            .unwrap()["games"]
            .as_u64()
    };
    let before = weak_games(&json);
    run(&dir, &["--games", "200"]);
    assert_eq!(weak_games(&show_json(&dir)), before);
    // Promotion is the author's act.
    ok(&["league", "promote", s(&dir), "best"]);
    let table = ok(&["league", "show", s(&dir)]);
    assert!(
        table
            .lines()
            .any(|l| l.contains("best") && l.contains("benchmark")),
        "{table}"
    );
}

/// The author's everyday question, as fishtest and OpenBench ask it: is this version
/// better than my last one? Three versions of a Python bot (the walkthrough's): each is
/// tested against its previous version by default (`v2` against `v1`, `v3` against
/// `v2`), `v1` (no previous version) against the strongest benchmark, and a second
/// test of `v3` runs beside its first. A test against a base plays that pair only.
#[test]
fn each_version_is_tested_against_its_previous_one() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 7,5 9,7",
        "2026",
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league");
    let add = |name: &str, extra: &[&str]| {
        std::fs::copy(
            fixtures.join(format!("{name}.py")),
            tmp.path().join("mine.py"),
        )
        .unwrap();
        let mut args = vec!["league", "add", "lg", name, "exec:python3 mine.py"];
        args.extend_from_slice(extra);
        let out = arena()
            .current_dir(tmp.path())
            .args(&args)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, said) = add("v1", &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("against the strongest benchmark (no previous version"),
        "{said}"
    );
    let (code, said) = add("v2", &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("\"v2\" against \"v1\" (its previous version)"),
        "{said}"
    );
    // A base that is not there is refused, naming it, and nothing is added.
    let (code, said) = add("v3", &["--base", "v9"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("--base \"v9\""), "{said}");
    let (code, said) = add("v3", &[]);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("\"v3\" against \"v2\""), "{said}");
    let said = ok(&[
        "league",
        "test",
        s(&dir),
        "v3",
        "--strongest",
        "--elo1",
        "20",
    ]);
    assert!(
        said.contains("against the strongest benchmark, GSPRT logistic Elo 0 vs 20"),
        "{said}"
    );
    run(&dir, &["--until-decided", "--concurrency", "2"]);
    let json = show_json(&dir);
    let tests = json["tests"].as_array().unwrap();
    let find = |bot: &str, base: Option<&str>| {
        tests
            .iter()
            .find(|t| t["bot"] == bot && t["base"].as_str() == base)
            .unwrap_or_else(|| panic!("no test of {bot} against {base:?}: {json}"))
    };
    for (bot, base, verdict) in [
        ("v1", None, "rejected"),
        ("v2", Some("v1"), "accepted"),
        ("v3", Some("v2"), "accepted"),
        ("v3", None, "accepted"),
    ] {
        let t = find(bot, base);
        assert_eq!(t["state"], verdict, "{t}");
        let llr = t["llr"].as_f64().unwrap();
        let bound = if verdict == "accepted" {
            "upper"
        } else {
            "lower"
        };
        assert!(
            (llr - t[bound].as_f64().unwrap()) * llr.signum() >= 0.0,
            "{t}"
        );
        let path = t["path"].as_array().unwrap();
        assert_eq!(path.last().unwrap()["pairs"], t["pairs"], "{t}");
        assert!(path.iter().all(|p| p["at"].as_f64().is_some()), "{t}");
        let elo = &t["elo"];
        assert!(elo["lower"].as_f64() <= elo["elo"].as_f64(), "{t}");
        if verdict == "accepted" {
            assert!(elo["elo"].as_f64().unwrap() > 0.0, "{t}");
        }
    }
    assert_eq!(find("v3", None)["elo1"].as_f64(), Some(20.0));
    // v2 was tested against v1 only: it never met a benchmark.
    let pairs = export(&dir, &tmp.path().join("out"));
    assert!(pairs.contains_key("v1 vs v2"), "{:?}", pairs.keys());
    assert!(
        !pairs
            .keys()
            .any(|k| k.contains("v2") && (k.contains("greedy") || k.contains("random"))),
        "{:?}",
        pairs.keys()
    );
    let table = ok(&["league", "show", s(&dir)]);
    assert!(table.contains("against \"v1\""), "{table}");
    // Testing it again against the same base while a test runs is refused; after its
    // verdict a new one may start (its bot plays again).
    let again = ok(&[
        "league",
        "test",
        s(&dir),
        "v2",
        "--base",
        "v1",
        "--elo0",
        "-5",
        "--elo1",
        "5",
    ]);
    assert!(again.contains("Elo -5 vs 5"), "{again}");
    let out = arena()
        .args(["league", "test", s(&dir), "v2", "--base", "v1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already has a running test"));
    // Rejecting it stops the test.
    let said = ok(&["league", "reject", s(&dir), "v2"]);
    assert!(said.contains("1 running test stopped"), "{said}");
    let json = show_json(&dir);
    let last = json["tests"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["state"], "stopped", "{last}");
    assert_eq!(last["why"], "rejected by its author", "{last}");
}

/// A schema-4 league's candidates keep their verdicts: each becomes a test against the
/// strongest benchmark, its LLR path with it.
#[test]
fn a_version_4_verdict_becomes_a_test() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4 9,7", "3", &[]);
    for f in ["league.db", "league.db-wal", "league.db-shm"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let db = dir.join("league.db");
    version_1(&db, &[]);
    {
        use arena_league::store::{MIGRATIONS, Migration};
        let mut conn = rusqlite::Connection::open(&db).unwrap();
        let tx = conn.transaction().unwrap();
        let cells = arena_run::rundir::results::GameCells::new(
            arena_run::task::lookup("dominoes").unwrap(),
        );
        for step in &MIGRATIONS[1..4] {
            match step {
                Migration::Sql(sql) => tx.execute_batch(sql).unwrap(),
                Migration::Code(code) => code(&tx).unwrap(),
                Migration::Games(code) => code(&tx, &cells).unwrap(),
            }
        }
        tx.execute_batch(
            "PRAGMA user_version = 4;
             INSERT INTO bots(name, spec, role, state, added_at, llr, verdict_pairs, against)
               VALUES ('cand', 'random', 'candidate', 'accepted', 0, 3.1, 30, 2);
             INSERT INTO llr_path(bot, pairs, llr) VALUES (3, 10, 1.0), (3, 20, 2.0), (3, 30, 3.1);",
        )
        .unwrap();
        tx.commit().unwrap();
    }
    // Any writing command migrates.
    ok(&["league", "rename", s(&dir), "cand", "cand-1"]);
    let json = show_json(&dir);
    let t = &json["tests"][0];
    assert_eq!(t["bot"], "cand-1", "{json}");
    assert_eq!(t["state"], "accepted", "{t}");
    assert_eq!(t["llr"].as_f64(), Some(3.1));
    assert_eq!(t["pairs"].as_u64(), Some(30));
    assert_eq!(t["against"], "random");
    assert_eq!(t["base"], serde_json::Value::Null);
    let path: Vec<f64> = t["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["llr"].as_f64().unwrap())
        .collect();
    assert_eq!(path, [1.0, 2.0, 3.1]);
}

/// Bad input is refused with exit 2 and a message naming it.
#[test]
fn refusals_name_the_input() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "1", &[("greedy", "greedy", true)]);
    let none = tmp.path().join("none");
    let cases: &[(&[&str], &str)] = &[
        (
            &["league", "add", s(&dir), "greedy", "random"],
            "already has a bot named",
        ),
        (&["league", "add", s(&dir), "x", "nosuchbot"], "nosuchbot"),
        (
            &["league", "add", s(&dir), "bad\nname", "random"],
            "control character",
        ),
        (
            &["league", "promote", s(&dir), "ghost"],
            "no bot named \"ghost\"",
        ),
        (
            &["league", "init", s(&dir), "--game", "dominoes"],
            "already holds a league",
        ),
        (&["league", "show", s(&none)], "not a league"),
        (
            &["league", "run", s(&dir), "--serve", "0.0.0.0:0"],
            "--token",
        ),
    ];
    for (args, needle) in cases {
        let out = arena().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // A failed build marks the bot failed, with its log.
    let out = arena()
        .args([
            "league",
            "add",
            s(&dir),
            "broken",
            "random",
            "--build",
            "echo compiling; exit 3",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let table = ok(&["league", "show", s(&dir)]);
    assert!(
        table.contains("broken: failed") && table.contains("compiling"),
        "{table}"
    );
    // It stays failed: rejecting it (or promoting it) is refused, not a rejected
    // candidate that would count as one in play.
    for verb in ["reject", "promote"] {
        let out = arena()
            .args(["league", verb, s(&dir), "broken"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{verb}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("\"broken\" failed"), "{verb}: {err}");
    }
    assert!(ok(&["league", "show", s(&dir)]).contains("broken: failed"));
}

/// The schema is versioned: a new database is at the last migration, in WAL mode; a
/// database from a newer arena is refused.
#[test]
fn the_schema_is_versioned_and_wal() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "1", &[]);
    let db = dir.join("league.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v as usize, arena_league::store::MIGRATIONS.len());
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(conn);
    let out = arena()
        .args(["league", "add", s(&dir), "x", "random"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("newer"));
}

/// A league written before games were stored by chunk (schema version 1: a row per
/// game) is migrated by the first writing command: its games are kept, byte for byte
/// (the export equals `arena match`'s), and the league plays on from where they end.
#[test]
fn a_version_1_database_is_migrated_and_plays_on() {
    let tmp = TempDir::new().unwrap();
    let m = tmp.path().join("m");
    ok(&[
        "match",
        "--game",
        "dominoes",
        "--agent",
        "greedy",
        "--agent",
        "random",
        "--cases",
        "5,4 9,7",
        "--games-per-case",
        "8",
        "--seed",
        "3",
        "--concurrency",
        "1",
        "--progress",
        "never",
        "--out",
        s(&m),
    ]);
    let full = std::fs::read_to_string(m.join("games.csv")).unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4 9,7", "3", &[]);
    for f in ["league.db", "league.db-wal", "league.db-shm"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    // The first 3 game pairs (one case short of a deal: the migration must still give
    // every game its case and deal).
    version_1(&dir.join("league.db"), &rows(&full)[..6]);
    run(&dir, &["--games", "10", "--concurrency", "2"]);
    let conn = rusqlite::Connection::open(dir.join("league.db")).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v as usize, arena_league::store::MIGRATIONS.len());
    drop(conn);
    assert_eq!(show_json(&dir)["games"].as_u64(), Some(16));
    let pairs = export(&dir, &tmp.path().join("out"));
    assert_eq!(pairs["greedy vs random"], full);
}

/// A schema-1 league database of bots `greedy` (1) and `random` (2), both benchmarks,
/// holding `games` (rows of their `games.csv`, two cases) and their pairs' counts.
fn version_1(db: &Path, games: &[&str]) {
    use arena_league::store::{MIGRATIONS, Migration};
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let Migration::Sql(schema) = &MIGRATIONS[0] else {
        panic!("schema 1 is SQL")
    };
    conn.execute_batch(schema).unwrap();
    conn.execute_batch(
        "PRAGMA user_version = 1;
         INSERT INTO bots(name, spec, role, state, added_at) VALUES
           ('greedy', 'greedy', 'benchmark', 'active', 0),
           ('random', 'random', 'benchmark', 'active', 0);",
    )
    .unwrap();
    let tx = conn.transaction().unwrap();
    let (mut wdl, mut penta, mut pair) = ([0i64; 3], [0i64; 5], 0.0);
    for row in games {
        let index: i64 = row.split(',').next().unwrap().parse().unwrap();
        let (head, rest) = row.split_once(",greedy,random,").unwrap();
        let first = head.rsplit(',').next().unwrap();
        let tail = &rest[..rest.rfind(',').unwrap()];
        let cells: Vec<&str> = tail.split(',').collect();
        let score: f64 = cells[0].parse().unwrap();
        let (g, seat) = (index / 2, index % 2);
        tx.execute(
            "INSERT INTO games(a, b, g, seat, case_idx, deal, score_a, termination, forfeit, first, tail)
             VALUES (1, 2, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            rusqlite::params![g, seat, g % 2, g / 2, score, cells[2], cells[3], first, tail],
        )
        .unwrap();
        wdl[if score == 1.0 {
            0
        } else if score == 0.5 {
            1
        } else {
            2
        }] += 1;
        pair += score;
        if seat == 1 {
            penta[(2.0 * pair) as usize] += 1;
            pair = 0.0;
        }
    }
    tx.execute(
        "INSERT INTO pairs VALUES (1, 2, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        rusqlite::params![
            games.len() as i64 / 2,
            wdl[0],
            wdl[1],
            wdl[2],
            penta[0],
            penta[1],
            penta[2],
            penta[3],
            penta[4]
        ],
    )
    .unwrap();
    tx.commit().unwrap();
}

/// An external bot's processes live as long as the run, not a batch: over several
/// batches of one case at one game thread, its process starts once (each start writes
/// `started` to its stderr log).
#[test]
fn an_external_bot_keeps_its_process_across_batches() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league/v1.py");
    let bot = tmp.path().join("bot.py");
    std::fs::write(
        &bot,
        format!(
            "import sys\nsys.stderr.write('started\\n')\nsys.stderr.flush()\n{}",
            std::fs::read_to_string(fixture).unwrap()
        ),
    )
    .unwrap();
    league(&dir, "5,4", "5", &[("greedy", "greedy", true)]);
    // The sandbox is not what this checks (the hostile tests do): off, so the test
    // runs wherever python3 does.
    let toml = dir.join("league.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replace("sandbox = \"on\"", "sandbox = \"off\"")).unwrap();
    let spec = format!("exec:python3 {}", bot.display());
    ok(&["league", "add", s(&dir), "py", &spec, "--benchmark"]);
    // 400 games: at least 5 batches (they start at 8 game pairs and at most double).
    run(
        &dir,
        &["--spare", "always", "--games", "400", "--concurrency", "1"],
    );
    let mut starts = 0;
    for entry in std::fs::read_dir(dir.join("logs/1-2")).unwrap() {
        let log = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        starts += log.lines().filter(|l| l.ends_with("started")).count();
    }
    assert_eq!(starts, 1, "processes started");
    assert_eq!(show_json(&dir)["games"].as_u64(), Some(400));
}

/// Every command that changes the league works while `run` writes: adds and renames in
/// a loop beside a running league each succeed, and the run plays on (a deferred
/// transaction that had to upgrade to a write failed at once with `database is locked`,
/// SQLite's error 517, about one try in eight, and killed the run).
#[test]
fn adds_and_renames_work_while_run_writes() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 9,7",
        "11",
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    let mut child = spawn_run(&dir, &["--spare", "always", "--concurrency", "2"], &[]);
    let began = Instant::now();
    while show_json(&dir)["games"].as_u64().unwrap() == 0 {
        assert!(began.elapsed() < Duration::from_secs(60), "no games");
        std::thread::sleep(Duration::from_millis(100));
    }
    for i in 0..60 {
        let (name, renamed) = (format!("b{i}"), format!("c{i}"));
        let spec = ["random", "greedy", "smart"][i % 3];
        let mut args = vec!["league", "add", s(&dir), &name, spec];
        if i % 2 == 0 {
            args.push("--benchmark");
        }
        ok(&args);
        ok(&["league", "rename", s(&dir), &name, &renamed]);
        if child.try_wait().unwrap().is_some() {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("the run stopped after {} adds: {err}", i + 1);
        }
    }
    // It plays on (its next batch holds the new bots' first games).
    let before = show_json(&dir)["games"].as_u64().unwrap();
    let waited = Instant::now();
    while show_json(&dir)["games"].as_u64().unwrap() == before {
        assert!(
            waited.elapsed() < Duration::from_secs(30),
            "the run played on"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(child.try_wait().unwrap().is_none(), "the run stopped");
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("locked"), "{err}");
    let json = show_json(&dir);
    let names: Vec<&str> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["bot"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"c59") && !names.contains(&"b59"),
        "{names:?}"
    );
}

/// The seed is a string in the JSON of `show` and of the page's `/api/state`: a seed
/// above 2^53 is no exact JSON number for a browser (the page showed
/// 15182222548295963000 for 15182222548295961748).
#[test]
fn a_seed_above_2_to_the_53_is_shown_exactly() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    let seed = "15182222548295961748";
    league(
        &dir,
        "5,4",
        seed,
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    assert_eq!(show_json(&dir)["seed"].as_str(), Some(seed));
    // Playing on until killed: a run that ended would take its page with it.
    let (mut child, url) = serve(&dir, &[]);
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let state = get(port, "/api/state");
    let _ = child.kill();
    let _ = child.wait();
    let body = &state[state.find("\r\n\r\n").unwrap() + 4..];
    let json: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(json["standings"]["seed"].as_str(), Some(seed), "{body}");
}

/// A Python bot of greedy's strength (the walkthrough's v2) that sleeps `secs` before
/// each move, at `dir/slow.py`.
fn slow_bot(dir: &Path, secs: f64) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league/v2.py");
    let text = std::fs::read_to_string(fixture).unwrap();
    let text = text
        .replacen("import sys\n", "import sys\nimport time\n", 1)
        .replacen(
            "            answer = play(hand, line, stock)",
            &format!(
                "            time.sleep({secs})\n            answer = play(hand, line, stock)"
            ),
            1,
        );
    assert!(text.contains("time.sleep"), "the fixture changed");
    let bot = dir.join("slow.py");
    std::fs::write(&bot, text).unwrap();
    bot
}

/// `league.toml`'s `[limits]` edited: `edits` are (key, value) lines replaced.
fn limits(dir: &Path, edits: &[(&str, &str)]) {
    let toml = dir.join("league.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    for (key, value) in edits {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap()
            .to_owned();
        text = text.replace(&line, &format!("{key} = {value}"));
    }
    std::fs::write(&toml, text).unwrap();
}

/// A slow bot (50 ms a move) of greedy's strength against fast built-in benchmarks is
/// judged on the games it plays: a batch is sized by each pair's speed, and a game's
/// time budget is its own, never a batch's. With a budget of 0.8 s (a game of this
/// case takes the bot a few moves, about 0.2 s), the old league granted it per batch,
/// whose first held 4 game pairs of each pair: 8 games of the bot, more than 0.8 s, and
/// it lost the rest of the batch on time.
#[test]
fn a_slow_bot_is_judged_on_the_games_it_plays() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4",
        "3",
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    limits(&dir, &[("sandbox", "\"off\""), ("case_budget_ms", "800")]);
    let bot = slow_bot(tmp.path(), 0.05);
    let spec = format!("exec:python3 {}", bot.display());
    ok(&["league", "add", s(&dir), "slow", &spec]);
    let began = Instant::now();
    run(&dir, &["--games", "120", "--concurrency", "2"]);
    eprintln!("120 games of a 50 ms bot in {:?}", began.elapsed());
    let out = tmp.path().join("out");
    let pairs = export(&dir, &out);
    let mut games = 0;
    for (pair, text) in &pairs {
        assert!(pair.contains("slow"), "only the candidate's pairs: {pair}");
        assert!(
            !text.contains("time budget"),
            "{pair}: a budget forfeit:\n{text}"
        );
        assert!(!text.contains("timeout"), "{pair}: a timeout:\n{text}");
        games += rows(text).len();
    }
    assert_eq!(games, 120);
    let json = show_json(&dir);
    let row = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["bot"] == "slow")
        .unwrap()
        .clone();
    // Greedy's strength: about even against these benchmarks (the old league's forfeits
    // put it near 0).
    let score = row["score"].as_f64().unwrap();
    assert!((30.0..=70.0).contains(&score), "{row}");
}

/// A decided candidate stops at the next batch boundary: it plays at most a tenth of
/// its pairs plus 64 past the pairs its verdict was computed on (the old league played
/// a whole batch more, up to 8,192 pairs: the verdict came from the writer, a batch
/// late), and nothing once decided.
#[test]
fn a_decided_candidate_stops_at_the_next_batch() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    ok(&[
        "league",
        "init",
        s(&dir),
        "--game",
        "dominoes",
        "--cases",
        "9,7 7,5",
        "--seed",
        "8",
    ]);
    // A candidate as strong as the benchmarks: its test takes hundreds of pairs.
    for (name, spec, bench) in [
        ("greedy", "greedy", true),
        ("random", "random", true),
        ("weak", "random", false),
    ] {
        let mut args = vec!["league", "add", s(&dir), name, spec];
        if bench {
            args.push("--benchmark");
        }
        ok(&args);
    }
    run(&dir, &["--until-decided", "--concurrency", "2"]);
    let check = |when: &str| {
        let json = show_json(&dir);
        let weak = json["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["bot"] == "weak")
            .unwrap()
            .clone();
        assert_ne!(weak["state"], "running", "{weak}");
        let verdict = weak["pairs"].as_u64().unwrap();
        let against = weak["against"].as_str().unwrap().to_owned();
        let out = tmp.path().join(format!("out-{when}"));
        let pairs = export(&dir, &out);
        let played = rows(
            pairs
                .iter()
                .find(|(k, _)| k.contains("weak") && k.contains(against.as_str()))
                .unwrap()
                .1,
        )
        .len() as u64
            / 2;
        eprintln!("{when}: verdict on {verdict} pairs against {against}; {played} played");
        assert!(played >= verdict);
        assert!(
            played <= verdict + verdict / 10 + 64,
            "{when}: {played} pairs played, the verdict on {verdict}"
        );
        played
    };
    let first = check("decided");
    run(&dir, &["--games", "400", "--spare", "always"]);
    assert_eq!(check("later"), first, "a decided candidate plays no more");
}

/// Ctrl-C during a batch with an external bot: `run` abandons the batch (the games in
/// flight included) and exits 130 within 5 s, every committed game kept; the games
/// stored after are whole pairs of each pair's match (the export checks it, and
/// `verify` passes).
#[test]
fn ctrl_c_during_a_batch_exits_130_within_5_s() {
    if !common::have("python3") || !common::have("kill") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4 9,7", "4", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    // Slow enough that a game pair is in flight for seconds.
    let bot = slow_bot(tmp.path(), 0.3);
    let spec = format!("exec:python3 {}", bot.display());
    ok(&["league", "add", s(&dir), "slow", &spec, "--benchmark"]);
    let mut child = spawn_run(&dir, &["--concurrency", "2"], &[]);
    let began = Instant::now();
    while show_json(&dir)["games"].as_u64().unwrap() < 4 {
        assert!(began.elapsed() < Duration::from_secs(90), "no games");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(700));
    let committed = show_json(&dir)["games"].as_u64().unwrap();
    let sent = Instant::now();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("no exit 30 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    eprintln!("exit {status:?} {took:?} after SIGINT: {err}");
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(took < Duration::from_secs(5), "exit after {took:?}");
    let after = show_json(&dir)["games"].as_u64().unwrap();
    assert!(
        after >= committed,
        "{after} games after, {committed} before"
    );
    let out = tmp.path().join("out");
    let pairs = export(&dir, &out); // refuses a pair with a gap
    let stored: usize = pairs.values().map(|t| rows(t).len()).sum();
    assert_eq!(stored as u64, after);
    let v = ok(&["verify", s(&out)]);
    assert!(v.contains("0 mismatches"), "{v}");
}

/// `reject` takes effect within a second or two, even in the middle of a long batch:
/// the rejected bot's games in flight are given up (its processes stopped, none of its
/// games of that batch recorded), and `run --until-decided` ends at once. The old `run`
/// played the batch to its end first (a slow bot's first batch: many seconds).
#[test]
fn reject_during_a_batch_gives_up_its_games_within_seconds() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4 9,7", "4", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    // Half a second a move: its first batch (two game pairs on two threads) lasts about
    // ten seconds.
    let bot = slow_bot(tmp.path(), 0.5);
    let spec = format!("exec:python3 {}", bot.display());
    ok(&["league", "add", s(&dir), "slow", &spec]);
    let mut child = spawn_run(&dir, &["--concurrency", "2", "--until-decided"], &[]);
    std::thread::sleep(Duration::from_secs(3));
    assert!(child.try_wait().unwrap().is_none(), "the run ended early");
    let said = ok(&["league", "reject", s(&dir), "slow"]);
    assert!(said.contains("rejected candidate"), "{said}");
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("no exit 60 s after the reject");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(status.success(), "{err}");
    assert!(
        took < Duration::from_secs(4),
        "the run ended {took:?} after the reject"
    );
    // Nothing of the batch given up is recorded: no half-played forfeits.
    let json = show_json(&dir);
    assert_eq!(json["games"].as_u64(), Some(0), "{json}");
    // Played again later (here as a benchmark's pair), it is the same game.
    ok(&["league", "archive", s(&dir), "slow"]);
}

/// Spare play is bounded: built-ins alone, with the defaults, play until every pair's
/// interval is narrower than 5 points per 100, then the league idles (the database
/// stops growing, far under 64 MB), and a bot added wakes it. The old league played
/// on without end (830 MB in 4 minutes).
#[test]
fn spare_play_stops_when_the_table_is_known() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 9,7",
        "6",
        &[
            ("greedy", "greedy", true),
            ("random", "random", true),
            ("smart", "smart", true),
        ],
    );
    let mut child = spawn_run(&dir, &["--concurrency", "2"], &[]);
    let began = Instant::now();
    let games = || show_json(&dir)["games"].as_u64().unwrap();
    // Idle: the same count over three seconds, the run still there.
    let mut last = (games(), Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let now = games();
        if now != last.0 {
            last = (now, Instant::now());
        } else if now > 0 && last.1.elapsed() > Duration::from_secs(3) {
            break;
        }
        if began.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("still playing after 60 s: {now} games");
        }
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run idles, not ends"
    );
    let idle = last.0;
    let size = |p: &str| std::fs::metadata(dir.join(p)).map_or(0, |m| m.len());
    let bytes = size("league.db") + size("league.db-wal");
    eprintln!(
        "idle after {idle} games, {:?}, {bytes} bytes",
        last.1.duration_since(began)
    );
    assert!(bytes < 64 << 20, "{bytes} bytes");
    let json = show_json(&dir);
    for r in json["rows"].as_array().unwrap() {
        assert!(r["games"].as_u64().unwrap() < 2 * 20_000, "{r}");
    }
    // A new bot starts play again.
    ok(&[
        "league",
        "add",
        s(&dir),
        "endgame",
        "endgame",
        "--benchmark",
    ]);
    let woke = Instant::now();
    while games() == idle {
        assert!(
            woke.elapsed() < Duration::from_secs(10),
            "the league slept on"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn get(port: u16, path: &str) -> String {
    let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    // HTTP/1.1 keeps a connection open unless asked not to.
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    conn.read_to_string(&mut text).unwrap();
    text
}

/// Starts `run --serve` and waits for its page's address.
fn serve(dir: &Path, extra: &[&str]) -> (Child, String) {
    let port = free_port().to_string();
    let addr = format!("127.0.0.1:{port}");
    // Spare play without end: the page tests follow a league that keeps playing.
    let mut args = vec![
        "--concurrency",
        "1",
        "--spare",
        "always",
        "--serve",
        addr.as_str(),
    ];
    args.extend_from_slice(extra);
    let mut child = std::process::Command::new(exe())
        .args(["league", "run", s(dir)])
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while err.read_line(&mut line).unwrap() > 0 && !line.contains("league page: ") {
        line.clear();
    }
    let url = line.trim().trim_start_matches("league page: ").to_owned();
    assert!(url.starts_with("http://"), "{line}");
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, url)
}

/// The page, opened in headless Chromium against the running league: a standings row,
/// a verdict, a hostile name shown as text, no console message; read-only; the token.
#[test]
fn the_live_page_in_headless_chromium() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    let hostile = "<img src=x onerror=alert(1)>\"'&";
    // Above 2^53: the page must show it exactly (a JSON number would round it).
    let seed = "15182222548295961748";
    league(
        &dir,
        "5,4 9,7",
        seed,
        &[
            ("greedy", "greedy", true),
            ("random", "random", true),
            (hostile, "smart", false),
            ("gone", "random", false),
        ],
    );
    run(&dir, &["--games", "400"]);
    // A retired bot: out of the standings, in the page's table of retired bots.
    ok(&["league", "archive", s(&dir), "gone"]);
    let (mut child, url) = serve(&dir, &[]);
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let state = get(port, "/api/state?bot=greedy&seat=2&case=9,7");
    assert!(state.starts_with("HTTP/1.1 200"), "{state}");
    let body = &state[state.find("\r\n\r\n").unwrap() + 4..];
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert!(
        v["recent"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["seat"] == 2
                && g["case"] == "9,7"
                && (g["a"] == "greedy" || g["b"] == "greedy"))
    );
    let post = {
        let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            conn,
            "POST /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut t = String::new();
        conn.read_to_string(&mut t).unwrap();
        t
    };
    assert!(post.starts_with("HTTP/1.1 405"), "{post}");
    let game = get(port, "/api/game?a=1&b=2&g=0&seat=1");
    assert!(game.contains("greedy vs random"), "{game}");
    // A query string that does not read as the endpoint's: 400, the parameter named.
    for (path, needle) in [
        ("/api/state?seat=3", "seat: \\\"3\\\": 1 or 2"),
        ("/api/state?bots=greedy", "unknown field `bots`"),
        ("/api/game?a=1&b=2&g=x&seat=1", "g: invalid digit"),
    ] {
        let answer = get(port, path);
        assert!(answer.starts_with("HTTP/1.1 400"), "{path}: {answer}");
        assert!(answer.contains(needle), "{path}: {answer}");
    }

    let Some(browser) = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|n| common::find(n))
    else {
        common::have("chromium");
        let _ = child.kill();
        return;
    };
    // Over the DevTools protocol, since the page holds its event stream open
    // (`common/devtools.rs` says why `--dump-dom` cannot wait for such a page).
    let mut page = common::devtools::Browser::launch(&browser);
    page.open(&url);
    let ready = "document.body.dataset.live === 'events' && \
                 document.getElementById('status').dataset.status === 'ok'";
    let loaded = page.wait_for(ready, Duration::from_secs(20));
    let games = "Number(/: (\\d+) games/.exec(document.getElementById('status').textContent)[1])";
    let before = page.eval(games).as_u64();
    // The league keeps playing: the page follows it through the events alone (it
    // polls only when the stream is refused, and `data-live` says it is not).
    let followed = page.wait_for(
        &format!("{games} > {}", before.unwrap_or(u64::MAX)),
        Duration::from_secs(20),
    );
    // The chart: a line per bot with snapshots ("gone" too, until it was archived); the
    // bots in play have a point from the first run and one from this run's first commit.
    let chart = "Array.from(document.querySelectorAll('#chart polyline'), \
                 p => p.dataset.bot + '=' + p.getAttribute('points').split(' ').length)";
    let charted = page.wait_for(
        &format!("{chart}.length === 4 && {chart}.filter(l => !l.endsWith('=1')).length >= 3"),
        Duration::from_secs(20),
    );
    let lines: Vec<String> = page
        .eval(chart)
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let legend = page.eval("document.getElementById('chart-legend').textContent");
    let legend = legend.as_str().unwrap_or_default().to_owned();
    let retired = page.eval("document.getElementById('retired').tBodies[0].textContent");
    let retired = retired.as_str().unwrap_or_default().to_owned();
    let forfeits = page.eval(
        "Array.from(document.getElementById('standings').tBodies[0].rows, r => r.cells[9].textContent).join('|')",
    );
    let forfeits = forfeits.as_str().unwrap_or_default().to_owned();
    let dom = page.eval("document.documentElement.outerHTML");
    let dom = dom.as_str().unwrap_or_default().to_owned();
    let console = std::mem::take(&mut page.console);
    drop(page);
    let _ = child.kill();
    let _ = child.wait();
    assert!(loaded, "the page did not load and go live: {dom}");
    assert!(
        followed,
        "the page did not follow the league's games: {dom}"
    );
    assert!(console.is_empty(), "console: {console:#?}");
    assert!(charted, "the chart: {lines:?}");
    let points = |bot: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(&format!("{bot}=")))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0)
    };
    for bot in ["greedy", "random", hostile] {
        assert!(points(bot) >= 2, "{bot}'s line: {lines:?}");
    }
    assert!(points("gone") >= 1, "the archived bot's line: {lines:?}");
    assert_eq!(
        legend,
        format!("greedyrandom{hostile}gone"),
        "the chart's legend, by bot id"
    );
    assert!(dom.contains("data-status=\"ok\""), "{dom}");
    assert!(dom.contains("data-live=\"events\""), "{dom}");
    assert!(dom.contains(&format!("seed {seed}:")), "the seed: {dom}");
    assert!(
        retired.contains("gone") && retired.contains("archived"),
        "the archived bot is not among the retired: {retired:?}"
    );
    // Built-in bots never forfeit: each standings row says so in its forfeits column.
    assert!(
        !forfeits.is_empty() && forfeits.split('|').all(|f| f == "none"),
        "forfeits column: {forfeits:?}"
    );
    assert!(
        dom.contains("<td class=\"name\">greedy</td>"),
        "no standings row: {dom}"
    );
    assert!(
        dom.contains("&lt;img src=x onerror=alert(1)&gt;\"'&amp;"),
        "the hostile name is not shown as text: {dom}"
    );
    assert!(
        !dom.contains("<img src=\"x\""),
        "the hostile name became markup"
    );
    assert!(
        dom.contains("verdict accepted")
            || dom.contains("verdict rejected")
            || dom.contains("verdict running"),
        "no verdict: {dom}"
    );

    // Any other address needs the token, and every request must carry it.
    let (mut child, url) = serve(&dir, &["--token", "s3cret", "--games", "1000000"]);
    let port: u16 = url
        .split(':')
        .nth(2)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(get(port, "/api/state").starts_with("HTTP/1.1 401"));
    assert!(get(port, "/api/state?token=s3cret").starts_with("HTTP/1.1 200"));
    let _ = child.kill();
    let _ = child.wait();
}

/// Starts `run --serve` on a league that plays nothing (no candidate, spare play off):
/// the page of a league at rest. Returns the run and the page's port.
fn serve_at_rest(dir: &Path) -> (Child, u16) {
    let port = free_port();
    let mut child = std::process::Command::new(exe())
        .args(["league", "run", s(dir), "--spare", "off", "--serve"])
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while err.read_line(&mut line).unwrap() > 0 && !line.contains("league page: ") {
        line.clear();
    }
    assert!(line.contains("league page: "), "{line}");
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, port)
}

/// `/api/state` holds each bot's rating over time: a run takes a snapshot at its first
/// commit (and at its end when a commit came after the last), so two runs give each bot
/// at least two points, the last of them its Elo in the standings.
#[test]
fn the_page_state_has_each_bots_rating_over_time() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4",
        "7",
        &[
            ("greedy", "greedy", true),
            ("random", "random", true),
            ("smart", "smart", true),
        ],
    );
    run(&dir, &["--games", "60", "--concurrency", "2"]);
    run(&dir, &["--games", "60", "--concurrency", "2"]);
    let (mut child, port) = serve_at_rest(&dir);
    let state = get(port, "/api/state");
    let _ = child.kill();
    let _ = child.wait();
    assert!(state.starts_with("HTTP/1.1 200"), "{state}");
    let v: serde_json::Value =
        serde_json::from_str(&state[state.find("\r\n\r\n").unwrap() + 4..]).unwrap();
    let ratings = &v["ratings"];
    let since = ratings["since"]
        .as_f64()
        .expect("the first snapshot's time");
    let lines = ratings["bots"].as_array().expect("a line per bot");
    let names: Vec<&str> = lines.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["greedy", "random", "smart"], "{ratings}");
    let mut first = f64::MAX;
    for line in lines {
        let points: Vec<(f64, f64)> = line["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect();
        assert!(points.len() >= 2, "{line}");
        assert!(points.windows(2).all(|w| w[0].0 < w[1].0), "{line}");
        first = first.min(points[0].0);
        let row = v["standings"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["bot"] == line["name"])
            .unwrap();
        let (last, now) = (points.last().unwrap().1, row["elo"].as_f64().unwrap());
        assert!(
            (last - now).abs() < 1e-6,
            "{line}: ends at {last}, not {now}"
        );
    }
    assert_eq!(first, since, "since: the first snapshot");
}

/// A league from before the rating history (the schema one migration short) gains its
/// table at the next writing command, empty (the ratings of then were never recorded),
/// and the next run fills it.
#[test]
fn a_database_before_the_rating_history_gains_it() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4",
        "3",
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    run(&dir, &["--games", "20"]);
    let latest = arena_league::store::MIGRATIONS.len();
    let conn = rusqlite::Connection::open(dir.join("league.db")).unwrap();
    conn.execute_batch(&format!(
        "DROP TABLE ratings; PRAGMA user_version = {};",
        latest - 1
    ))
    .unwrap();
    drop(conn);
    ok(&["league", "add", s(&dir), "smart", "smart", "--benchmark"]);
    let count = |sql: &str| -> i64 {
        let conn = rusqlite::Connection::open(dir.join("league.db")).unwrap();
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    };
    assert_eq!(count("PRAGMA user_version") as usize, latest);
    assert_eq!(count("SELECT count(*) FROM ratings"), 0);
    run(&dir, &["--games", "20"]);
    assert_eq!(count("SELECT count(DISTINCT bot) FROM ratings"), 3);
    assert_eq!(show_json(&dir)["games"].as_u64(), Some(40));
}

/// `/events`, read with a plain TCP client: an event at once (the last game's seq), and
/// another when the league records games (two bots added while `run` waits for them).
#[test]
fn events_follow_the_league() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[]);
    let (mut child, url) = serve(&dir, &["--games", "1000000000"]);
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        conn,
        "GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .unwrap();
    let mut stream = BufReader::new(conn);
    let mut head = String::new();
    while stream.read_line(&mut head).unwrap() > 2 && !head.ends_with("\r\n\r\n") {}
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{head}"
    );
    assert_eq!(next_event(&mut stream), 0, "no game yet");
    ok(&["league", "add", s(&dir), "greedy", "greedy", "--benchmark"]);
    ok(&["league", "add", s(&dir), "random", "random", "--benchmark"]);
    let seq = next_event(&mut stream);
    let _ = child.kill();
    let _ = child.wait();
    assert!(seq > 0, "an event after games were recorded: {seq}");
}

/// A client that sends a request's head too slowly is cut off (5 s), and the page
/// still answers others.
#[test]
fn a_slow_client_is_cut_off() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[]);
    let (mut child, url) = serve(&dir, &["--games", "1000000000"]);
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let mut slow = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(slow, "GET / HTTP/1.1\r\nHost").unwrap();
    let began = Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    let waited = began.elapsed();
    let mut other = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        other,
        "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    other.read_to_string(&mut answer).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        waited >= Duration::from_secs(4) && waited < Duration::from_secs(20),
        "{waited:?}"
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// The data of the next event on an event stream (chunk sizes and comments skipped).
fn next_event(stream: &mut impl BufRead) -> i64 {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stream.read_line(&mut line).unwrap() > 0, "the stream ended");
        if let Some(data) = line.strip_prefix("data: ") {
            return data.trim().parse().unwrap();
        }
    }
}

/// `show` on a league of 1,000,000 stored games answers in under a second: it reads
/// the aggregates kept with every batch, never the games.
#[test]
#[ignore = "fills a database with 1,000,000 games (about 10 s in a debug build): cargo test -p arena --test league -- --ignored show_answers"]
fn show_answers_in_under_a_second_on_a_million_games() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 9,7",
        "1",
        &[
            ("a", "greedy", true),
            ("b", "random", true),
            ("c", "smart", true),
            ("d", "endgame", false),
        ],
    );
    run(&dir, &["--games", "4000"]);
    fill(&dir.join("league.db"), 1_000_000);
    let began = Instant::now();
    let json = show_json(&dir);
    let took = began.elapsed();
    assert!(json["games"].as_u64().unwrap() >= 1_000_000, "{json}");
    assert!(took < Duration::from_secs(1), "show took {took:?}");
    eprintln!("league show on {} games: {took:?}", json["games"]);
    let (mut child, url) = serve(&dir, &["--games", "1000000000"]);
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let began = Instant::now();
    let state = get(port, "/api/state");
    let took = began.elapsed();
    let _ = child.kill();
    assert!(state.starts_with("HTTP/1.1 200"));
    assert!(
        took < Duration::from_secs(1),
        "the page's state took {took:?}"
    );
    eprintln!("the page's state on 1,000,000 games: {took:?}");
}

/// Synthetic games (rows at later pairs) and aggregates scaled from the real ones, so
/// the table keeps a real league's shape.
fn fill(db: &Path, games: u64) {
    let mut conn = rusqlite::Connection::open(db).unwrap();
    let tx = conn.transaction().unwrap();
    let pairs: Vec<(i64, i64, i64)> = tx
        .prepare("SELECT a, b, next_g FROM pairs")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let per_pair = games / pairs.len() as u64 / 2;
    let mut seq: i64 = tx
        .query_row(
            "SELECT coalesce(max(seq0 + 2 * pairs), 1) FROM chunks",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Stored as the league stores a batch: a chunk of game pairs per row, each game its
    // length and `first,tail`.
    const CHUNK: u64 = 4096;
    let game = b"a,1,0,domino,,,5,0-0,0,0,0";
    for (a, b, next) in pairs {
        let mut g0 = next as u64;
        while g0 < next as u64 + per_pair {
            let n = CHUNK.min(next as u64 + per_pair - g0);
            let mut blob = Vec::new();
            for _ in 0..2 * n {
                blob.extend_from_slice(&(game.len() as u32).to_le_bytes());
                blob.extend_from_slice(game);
            }
            tx.execute(
                "INSERT INTO chunks(a, b, g0, pairs, cases, seq0, games) VALUES (?1, ?2, ?3, ?4, 2, ?5, ?6)",
                rusqlite::params![a, b, g0 as i64, n as i64, seq, blob],
            )
            .unwrap();
            seq += 2 * n as i64;
            g0 += n;
        }
        // The aggregates grow as the real games are distributed: each count scaled.
        // The next game to play lies past the synthetic rows (a scaled `next_g` could
        // fall among them, and `run` would then stop at a game recorded already).
        let scale = 1 + per_pair as i64 / next.max(1);
        tx.execute(
            "UPDATE pairs SET next_g = max(next_g * ?3, ?4), w = w * ?3, d = d * ?3,
               l = l * ?3, p0 = p0 * ?3, p1 = p1 * ?3, p2 = p2 * ?3, p3 = p3 * ?3, p4 = p4 * ?3
             WHERE a = ?1 AND b = ?2",
            rusqlite::params![a, b, scale, next + per_pair as i64],
        )
        .unwrap();
    }
    tx.commit().unwrap();
}

/// Retakes `docs/league.png`: plays the walkthrough of `docs/league.md` (the three
/// versions in `tests/fixtures/league/`, sandbox on) until every candidate is decided,
/// then serves the league, which plays on in spare time, and photographs the page in
/// headless Chromium. Ignored: it writes into the repository, and the picture is the
/// documentation's, not a check. `cargo test --release -p arena --test league --
/// --ignored walkthrough_screenshot`.
#[test]
#[ignore = "writes docs/league.png"]
fn walkthrough_screenshot() {
    let browser = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|n| common::find(n))
        .expect("a chromium to photograph the page");
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league");
    ok(&[
        "league",
        "init",
        s(&dir),
        "--game",
        "dominoes",
        "--cases",
        "5,4 7,5 9,7",
        "--seed",
        "2026",
    ]);
    ok(&["league", "add", s(&dir), "greedy", "greedy", "--benchmark"]);
    ok(&["league", "add", s(&dir), "random", "random", "--benchmark"]);
    // As the author does: one working copy, `mine.py`, registered once per version. The
    // path must be relative for `add` to copy the file (an absolute one is kept as is).
    for v in ["v1", "v2", "v3"] {
        std::fs::copy(fixtures.join(format!("{v}.py")), tmp.path().join("mine.py")).unwrap();
        arena()
            .current_dir(tmp.path())
            .args(["league", "add", "lg", v, "exec:python3 mine.py"])
            .assert()
            .success();
    }
    ok(&[
        "league",
        "run",
        s(&dir),
        "--concurrency",
        "2",
        "--until-decided",
        "--quiet",
    ]);
    let (mut child, url) = serve(&dir, &[]);
    let mut page = common::devtools::Browser::launch(&browser);
    page.call(
        "Emulation.setDeviceMetricsOverride",
        serde_json::json!({ "width": 1300, "height": 1500, "deviceScaleFactor": 1, "mobile": false }),
    );
    page.open(&url);
    let ready = "document.body.dataset.live === 'events' && \
                 document.getElementById('status').dataset.status === 'ok' && \
                 document.body.innerHTML.includes('verdict accepted')";
    let loaded = page.wait_for(ready, Duration::from_secs(30));
    // A few seconds of spare play, so the page shows a league that is alive.
    std::thread::sleep(Duration::from_secs(3));
    // The top of the page: standings, the rating chart, the tests, the cross table (the
    // rest would double the picture for more of the same).
    let shot = page.call(
        "Page.captureScreenshot",
        serde_json::json!({ "format": "png", "clip": { "x": 0, "y": 0, "width": 1300, "height": 1500, "scale": 1 } }),
    );
    drop(page);
    let _ = child.kill();
    let _ = child.wait();
    assert!(loaded, "the page did not load with a verdict");
    let png = base64(shot["data"].as_str().unwrap());
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/league.png");
    std::fs::write(&out, png).unwrap();
    eprintln!("wrote {}", out.display());
    eprintln!("{}", ok(&["league", "show", s(&dir)]));
}

/// Standard base64 (as the DevTools protocol sends binary data), padding ignored.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// The page answers only to its own address: a request whose `Host` names another
/// site (DNS rebinding: a page of that site, its name now resolving to 127.0.0.1,
/// reading the league on loopback) is refused with 421; the page's own address,
/// `localhost` and a name given with `--serve-host` are answered.
#[test]
fn the_page_refuses_a_request_for_another_host() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[]);
    let (mut child, url) = serve(
        &dir,
        &["--games", "1000000000", "--serve-host", "arena.example"],
    );
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let ask = |host: &str| {
        let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            conn,
            "GET /api/state HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        conn.read_to_string(&mut answer).unwrap();
        answer
    };
    let foreign = ask(&format!("rebind.attacker.example:{port}"));
    let answers: Vec<(String, String)> = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LOCALHOST:{port}"),
        "arena.example".to_owned(),
        format!("arena.example:{port}"),
    ]
    .into_iter()
    .map(|host| {
        let answer = ask(&host);
        (host, answer)
    })
    .collect();
    let other_port = ask(&format!("localhost:{}", port.wrapping_add(1)));
    let _ = child.kill();
    let _ = child.wait();
    assert!(foreign.starts_with("HTTP/1.1 421"), "{foreign}");
    assert!(!foreign.contains("standings"), "{foreign}");
    assert!(other_port.starts_with("HTTP/1.1 421"), "{other_port}");
    for (host, answer) in answers {
        assert!(answer.starts_with("HTTP/1.1 200"), "{host}: {answer}");
        assert!(answer.contains("standings"), "{host}: {answer}");
    }
}

/// A stored copy is sealed at `add`: a bot whose `lg/bots/<id>/` file was edited
/// afterwards is refused by the next `run` before any process of it starts (it becomes
/// `failed`, and `show` names the file), while the other bots play.
#[test]
fn an_edited_stored_copy_is_refused() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    add_copied(tmp.path(), &dir, &[("v1", "v1.py"), ("v2", "v2.py")]);
    let stored = dir.join("bots/2/v1.py");
    let text = std::fs::read_to_string(&stored).unwrap();
    std::fs::write(&stored, format!("{text}\n# edited after add\n")).unwrap();
    run(&dir, &["--games", "40", "--concurrency", "2"]);
    let json = show_json(&dir);
    let retired = json["retired"].as_array().unwrap();
    let v1 = retired
        .iter()
        .find(|r| r["bot"] == "v1")
        .expect("v1 retired");
    assert_eq!(v1["state"], "failed", "{v1}");
    assert!(
        v1["log"]
            .as_str()
            .unwrap()
            .contains("files changed since add: v1.py"),
        "{v1}"
    );
    // v2's test against its previous version, v1, could never end: it goes on against
    // what is left, the strongest benchmark.
    let tests = json["tests"].as_array().unwrap();
    let first = tests.iter().find(|t| t["base"] == "v1").unwrap();
    assert_eq!(first["state"], "stopped", "{first}");
    let why = first["why"].as_str().unwrap();
    assert!(
        why.starts_with("its base \"v1\" failed; test ")
            && why.ends_with("goes on against the strongest benchmark"),
        "{why}"
    );
    let next = tests.last().unwrap();
    assert_eq!(next["bot"], "v2", "{next}");
    assert_eq!(next["base"], serde_json::Value::Null, "{next}");
    let text = ok(&["league", "show", s(&dir)]);
    assert!(text.contains("files changed since add: v1.py"), "{text}");
    assert!(!dir.join("logs/1-2").exists(), "v1 was started");
    let pairs = export(&dir, &tmp.path().join("out"));
    assert!(
        pairs.keys().all(|p| !p.contains("v1")),
        "{:?}",
        pairs.keys()
    );
    assert_eq!(pairs.get("greedy vs v2").map(|t| rows(t).len()), Some(40));
}

/// Adds fixture bots (name, file of `tests/fixtures/league`) by a relative path from
/// `work`, so the league stores a copy of each (an absolute path is not copied).
fn add_copied(work: &Path, dir: &Path, bots: &[(&str, &str)]) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league");
    for (name, file) in bots {
        std::fs::copy(fixtures.join(file), work.join(file)).unwrap();
        let spec = format!("exec:python3 {file}");
        let out = arena()
            .current_dir(work)
            .args(["league", "add", s(dir), name, &spec])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A league from before copies were sealed (schema version 2) is migrated by the next
/// writing command (and gains the forfeit counts of schema 4): its bots keep playing
/// unchecked (nothing recorded their files), and a bot added since is sealed.
#[test]
fn a_version_2_database_gains_seals() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    add_copied(tmp.path(), &dir, &[("v1", "v1.py")]);
    let conn = rusqlite::Connection::open(dir.join("league.db")).unwrap();
    conn.execute_batch(
        "DROP TABLE forfeits; ALTER TABLE bots DROP COLUMN seal; PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(conn);
    add_copied(tmp.path(), &dir, &[("v2", "v2.py")]);
    let conn = rusqlite::Connection::open(dir.join("league.db")).unwrap();
    let v: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v as usize, arena_league::store::MIGRATIONS.len());
    let sealed: Vec<(String, bool)> = conn
        .prepare("SELECT name, seal IS NOT NULL FROM bots ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    drop(conn);
    let expect = [("greedy", false), ("v1", false), ("v2", true)];
    assert_eq!(
        sealed,
        expect.map(|(n, b)| (n.to_owned(), b)).to_vec(),
        "which bots are sealed"
    );
    // v1's copy, unsealed, is not checked: an edit does not stop it.
    let stored = dir.join("bots/2/v1.py");
    let text = std::fs::read_to_string(&stored).unwrap();
    std::fs::write(&stored, format!("{text}\n# edited\n")).unwrap();
    run(&dir, &["--games", "40", "--concurrency", "2"]);
    let json = show_json(&dir);
    assert!(json["retired"].as_array().unwrap().is_empty(), "{json}");
}

/// `add` starts an exec bot once (its `init` for the league's first case, in its
/// sandbox, as `run` would) and refuses one that cannot start, exit 2, naming why and
/// the end of its stderr: a missing file, a syntax error, a missing program. A refused
/// bot is not recorded, so its name is free for the fixed version.
#[test]
fn a_bot_that_cannot_start_is_refused_at_add() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    std::fs::write(tmp.path().join("syntax.py"), "import sys\nprint('oops'\n").unwrap();
    for (spec, said) in [
        ("exec:python3 doesnotexist.py", "No such file"),
        ("exec:python3 syntax.py", "SyntaxError"),
        ("exec:./no-such-program", "not found"),
    ] {
        let out = arena()
            .current_dir(tmp.path())
            .args(["league", "add", s(&dir), "bad", spec])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec} not refused: {err}");
        assert!(
            err.contains("cannot start")
                && err.contains("the end of its stderr")
                && err.contains(said),
            "{spec}: {err}"
        );
    }
    let json = show_json(&dir);
    assert!(json.to_string().find("\"bad\"").is_none(), "{json}");
    add_copied(tmp.path(), &dir, &[("bad", "v1.py")]);
    run(&dir, &["--games", "20", "--concurrency", "2"]);
    assert_eq!(show_json(&dir)["games"].as_u64(), Some(20));
}

/// A bot that starts at `add` (its probe is the league's first case) and then cannot
/// start in the second case is `failed` within 10 s of the run's start, after
/// `start_failures` start-up failures in a row there, with the end of its stderr on
/// `show`; it leaves the standings, and the other bots keep playing.
#[test]
fn a_bot_that_fails_to_start_while_running_is_failed_within_10_s() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4 7,5",
        "3",
        &[("greedy", "greedy", true), ("random", "random", true)],
    );
    limits(&dir, &[("sandbox", "\"off\"")]);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league/v1.py");
    let text = std::fs::read_to_string(fixture).unwrap();
    let picky = text.replacen(
        "            n, h = int(read_line()), int(read_line())\n",
        "            n, h = int(read_line()), int(read_line())\n            if (n, h) != (5, 4):\n                sys.stderr.write(f'only case 5,4, not {n},{h}\\n')\n                sys.exit(3)\n",
        1,
    );
    assert_ne!(picky, text, "the fixture changed");
    std::fs::write(tmp.path().join("picky.py"), picky).unwrap();
    let out = arena()
        .current_dir(tmp.path())
        .args(["league", "add", s(&dir), "picky", "exec:python3 picky.py"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    add_copied(tmp.path(), &dir, &[("v2", "v2.py")]);
    let began = Instant::now();
    let mut child = spawn_run(&dir, &["--games", "400", "--concurrency", "2"], &[]);
    let failed = loop {
        let json = show_json(&dir);
        let found = json["retired"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["bot"] == "picky" && r["state"] == "failed")
            .cloned();
        if let Some(row) = found {
            break row;
        }
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "picky not failed after 10 s: {json}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    eprintln!("picky failed after {:?}", began.elapsed());
    let log = failed["log"].as_str().unwrap();
    assert!(
        log.contains("start-up failures in a row in case 7,5"),
        "{log}"
    );
    assert!(log.contains("only case 5,4, not 7,5"), "{log}");
    let status = child.wait().unwrap();
    assert!(status.success(), "run: {status}");
    let json = show_json(&dir);
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["bot"] != "picky"), "{json}");
    let v2 = rows.iter().find(|r| r["bot"] == "v2").unwrap();
    assert!(v2["games"].as_u64().unwrap() > 100, "{v2}");
    let table = ok(&["league", "show", s(&dir)]);
    assert!(table.contains("only case 5,4, not 7,5"), "{table}");
    // Its forfeits by kind, counted as the games were committed.
    let retired = json["retired"].as_array().unwrap();
    let picky = retired.iter().find(|r| r["bot"] == "picky").unwrap();
    let startups = picky["forfeits"]["startup"].as_u64().unwrap_or(0);
    assert!(startups >= 3, "{picky}");
    assert!(
        table.contains(&format!("  picky: startup {startups}")),
        "{table}"
    );
    // A schema-3 league (no forfeit counts) gets the same counts from its stored games
    // at its next writing command (migration 4).
    let conn = rusqlite::Connection::open(dir.join("league.db")).unwrap();
    conn.execute_batch("DROP TABLE forfeits; PRAGMA user_version = 3;")
        .unwrap();
    drop(conn);
    ok(&["league", "rename", s(&dir), "v2", "v2b"]);
    let again = show_json(&dir);
    assert_eq!(again["retired"], json["retired"]);
    let v2b = again["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["bot"] == "v2b")
        .unwrap();
    assert_eq!(v2b["forfeits"], v2["forfeits"]);
}

/// `promote`, `reject`, `archive` and `rename` say what they did, `reject` of a
/// benchmark names it a benchmark, and `show` names the league's logs folder.
#[test]
fn commands_print_what_they_did() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(
        &dir,
        "5,4",
        "3",
        &[("greedy", "greedy", true), ("random", "random", false)],
    );
    let said = |args: &[&str]| {
        let mut all = vec!["league", args[0], s(&dir)];
        all.extend_from_slice(&args[1..]);
        ok(&all)
    };
    assert_eq!(
        said(&["reject", "greedy"]),
        "rejected benchmark \"greedy\": it leaves the pool of benchmarks and plays no more (its games stay)\n"
    );
    assert!(
        said(&["promote", "random"])
            .starts_with("promoted \"random\" (a running candidate) to a benchmark")
    );
    assert!(said(&["archive", "random"]).starts_with("archived \"random\""));
    assert!(said(&["archive", "random", "--undo"]).starts_with("\"random\" is back"));
    assert_eq!(
        said(&["rename", "random", "rnd"]),
        "renamed \"random\" to \"rnd\"\n"
    );
    let table = said(&["show"]);
    let logs = dir.join("logs").display().to_string();
    assert!(table.contains(&format!("logs: {logs}")), "{table}");
}

/// An exported pair cut short by the league (here `--games 6`: three game pairs over two
/// cases) has no SPRT in its config: its report says it has fewer games than its
/// schedule, not that an SPRT stopped it (issue 42, point 8).
#[test]
fn an_exported_pair_cut_short_credits_no_sprt() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    ok(&[
        "league",
        "init",
        s(&dir),
        "--game",
        "dominoes",
        "--cases",
        "5,4 9,7",
        "--seed",
        "3",
    ]);
    ok(&["league", "add", s(&dir), "greedy", "greedy", "--benchmark"]);
    ok(&["league", "add", s(&dir), "random", "random", "--benchmark"]);
    ok(&[
        "league",
        "run",
        s(&dir),
        "--games",
        "6",
        "--concurrency",
        "1",
    ]);
    let out = tmp.path().join("out");
    ok(&["league", "export", s(&dir), s(&out)]);
    let page = std::fs::read_to_string(out.join("1-2/report.html")).unwrap();
    let title = page.lines().find(|l| l.contains("<h1>")).unwrap();
    assert!(title.contains("6 games"), "{title}");
    assert!(!title.contains("SPRT"), "{title}");
    assert!(title.contains("fewer than its scheduled games"), "{title}");
}

/// A league of greedy (a benchmark) and `slow`, a Python bot sleeping `secs` a move,
/// with the sandbox off (the tests of progress and stops need no confinement).
fn slow_league(tmp: &Path, secs: f64) -> PathBuf {
    let dir = tmp.join("lg");
    league(&dir, "5,4", "3", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    let bot = slow_bot(tmp, secs);
    let spec = format!("exec:python3 {}", bot.display());
    ok(&["league", "add", s(&dir), "slow", &spec]);
    dir
}

/// The games counted by `run`'s progress lines ("N games in T s (R games/s)"), in order.
fn progress_counts(stderr: &str) -> Vec<u64> {
    stderr
        .lines()
        .filter(|l| l.contains(" games in ") && l.ends_with(" games/s)"))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

/// A batch of a slow bot prints progress while it plays: the run's one batch (a new
/// pair's first two game pairs, 4 games at about 2 s each, one at a time) has progress
/// lines with counts that grow before it ends. The old run printed a line only between
/// batches: none before the batch ended.
#[test]
fn a_long_batch_prints_progress_while_it_plays() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = slow_league(tmp.path(), 0.5);
    let began = Instant::now();
    let out = arena()
        .args([
            "league",
            "run",
            s(&dir),
            "--games",
            "4",
            "--concurrency",
            "1",
        ])
        .output()
        .unwrap();
    let took = began.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("recorded 4 games"),
        "one batch of 4 games: {err}"
    );
    let counts = progress_counts(&err);
    let within: Vec<u64> = counts.iter().copied().filter(|&n| n < 4).collect();
    eprintln!("batch of {took:?}; progress counts {counts:?}");
    assert!(
        within.len() >= 2,
        "fewer than two progress lines within the batch: {err}"
    );
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]),
        "counts go down: {err}"
    );
    assert!(
        within.last() > within.first(),
        "the count did not grow within the batch: {err}"
    );
    // `--quiet` prints none.
    let quiet = arena()
        .args(["league", "run", s(&dir), "--games", "4", "--quiet"])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    let err = String::from_utf8_lossy(&quiet.stderr);
    assert!(progress_counts(&err).is_empty(), "{err}");
}

/// A second Ctrl-C during `league run` exits at once (130) and says what is true of a
/// league: the committed games are kept and `arena league run DIR` plays on (the old
/// hint named `arena run --resume`, which a league does not have); and it does.
#[test]
fn a_second_ctrl_c_during_a_league_names_league_run() {
    if !common::have("python3") || !common::have("kill") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = slow_league(tmp.path(), 0.3);
    let mut child = spawn_run(&dir, &["--concurrency", "1"], &[]);
    // The pair's processes started: the handler is installed and a batch is in flight.
    let began = Instant::now();
    while !dir.join("logs/1-2").exists() {
        assert!(began.elapsed() < Duration::from_secs(60), "no batch");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    // The second soon after the first (30 ms): long before the games in flight end and
    // the first alone would stop the run.
    for _ in 0..2 {
        let kill = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        std::thread::sleep(Duration::from_millis(30));
    }
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("no exit 30 s after two SIGINTs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let said = format!(
        "stopped at once; the committed games are kept: `arena league run {}` plays on",
        dir.display()
    );
    assert!(err.contains(&said), "{err}");
    assert!(!err.contains("--resume"), "{err}");
    // And it does play on.
    run(&dir, &["--games", "4", "--concurrency", "2"]);
    assert!(show_json(&dir)["games"].as_u64().unwrap() >= 4);
}

/// A new `league.toml` leaves out the legacy `require_sandbox = false` (it sat beside
/// `sandbox = "on"`, saying the opposite); one that holds it still opens and plays. A run
/// directory's `config.toml` keeps it: its bytes (and the hash `--resume` and `verify`
/// compare) are as before.
#[test]
fn league_toml_leaves_out_require_sandbox_and_old_ones_open() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[("greedy", "greedy", true)]);
    let toml = std::fs::read_to_string(dir.join("league.toml")).unwrap();
    assert!(!toml.contains("require_sandbox"), "{toml}");
    assert!(toml.contains("sandbox = \"on\""), "{toml}");
    // An old league.toml.
    let old = toml.replacen(
        "sandbox = \"on\"",
        "require_sandbox = false\nsandbox = \"on\"",
        1,
    );
    assert!(old.contains("\nrequire_sandbox = false\n"), "{old}");
    std::fs::write(dir.join("league.toml"), &old).unwrap();
    ok(&["league", "add", s(&dir), "random", "random", "--benchmark"]);
    run(&dir, &["--games", "4"]);
    assert_eq!(show_json(&dir)["games"].as_u64(), Some(4));
    let out = tmp.path().join("match");
    ok(&[
        "match",
        "--game",
        "dominoes",
        "--agent",
        "greedy",
        "--agent",
        "random",
        "--cases",
        "5,4",
        "--games-per-case",
        "2",
        "--out",
        s(&out),
    ]);
    let config = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(config.contains("\nrequire_sandbox = false\n"), "{config}");
}

/// The walkthrough's v1, saying hello on stderr as it starts, then a line with markup
/// and a terminal escape, at `dir/chatty.py`.
fn chatty_bot(dir: &Path) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/league/v1.py");
    let text = std::fs::read_to_string(fixture).unwrap().replacen(
        "import sys\n",
        "import sys\nprint('hello from v1', file=sys.stderr, flush=True)\n\
         print('<b>bold</b> \\x1b[31mred', file=sys.stderr, flush=True)\n",
        1,
    );
    assert!(text.contains("hello from v1"), "the fixture changed");
    let bot = dir.join("chatty.py");
    std::fs::write(&bot, text).unwrap();
    bot
}

/// An external bot that plays shows its latest stderr lines: a "latest stderr" section
/// in `show`, `stderr` (its newest log and last lines, escaped) in its row of `--format
/// json` (and so of `/api/state`), text in the page's standings (never markup); found by
/// the log's seat after a `rename`; gone once the bot is archived. A built-in bot has
/// none. The old `show` gave nothing for a bot that still plays.
#[test]
fn a_playing_bots_latest_stderr_is_shown() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    league(&dir, "5,4", "3", &[("greedy", "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    let spec = format!("exec:python3 {}", chatty_bot(tmp.path()).display());
    ok(&["league", "add", s(&dir), "v1", &spec]);
    run(&dir, &["--games", "8", "--concurrency", "1"]);
    let table = ok(&["league", "show", s(&dir)]);
    assert!(table.contains("\nlatest stderr"), "{table}");
    assert!(table.contains("  v1: "), "{table}");
    assert!(table.contains("hello from v1"), "{table}");
    assert!(
        table.contains("<b>bold</b> \\x1b[31mred") && !table.contains('\u{1b}'),
        "the escape is not escaped: {table}"
    );
    let row = |json: &serde_json::Value, bot: &str| {
        json["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["bot"] == bot)
            .unwrap()
            .clone()
    };
    let json = show_json(&dir);
    let stderr = row(&json, "v1")["stderr"].clone();
    let lines: Vec<&str> = stderr["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        lines.iter().any(|l| l.ends_with("hello from v1")),
        "{stderr}"
    );
    let log = PathBuf::from(stderr["log"].as_str().unwrap());
    assert!(
        log.starts_with(dir.join("logs")) && log.is_file(),
        "{stderr}"
    );
    assert!(row(&json, "greedy")["stderr"].is_null(), "{json}");
    ok(&["league", "rename", s(&dir), "v1", "v1b"]);
    assert_eq!(row(&show_json(&dir), "v1b")["stderr"], stderr);

    if let Some(browser) = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|n| common::find(n))
    {
        let (mut child, url) = serve(&dir, &[]);
        let mut page = common::devtools::Browser::launch(&browser);
        page.open(&url);
        let loaded = page.wait_for(
            "document.getElementById('status').dataset.status === 'ok'",
            Duration::from_secs(20),
        );
        let cells = page.eval(
            "Array.from(document.getElementById('standings').tBodies[0].rows, r => r.cells[1].textContent + '=' + r.cells[10].textContent).join('|')",
        );
        let cells = cells.as_str().unwrap_or_default().to_owned();
        let dom = page.eval("document.documentElement.outerHTML");
        let dom = dom.as_str().unwrap_or_default().to_owned();
        let console = std::mem::take(&mut page.console);
        drop(page);
        let _ = child.kill();
        let _ = child.wait();
        eprintln!("the page's bot and stderr cells: {cells:?}");
        assert!(loaded, "the page did not load: {dom}");
        assert!(console.is_empty(), "console: {console:#?}");
        assert!(
            cells.contains("v1b=last ") && cells.contains("hello from v1"),
            "the stderr cell: {cells:?}"
        );
        assert!(
            cells.contains("greedy=|") || cells.ends_with("greedy="),
            "{cells:?}"
        );
        assert!(
            dom.contains("&lt;b&gt;bold&lt;/b&gt;") && !dom.contains("<b>bold"),
            "the bot's stderr became markup: {dom}"
        );
    } else {
        common::have("chromium");
    }

    ok(&["league", "archive", s(&dir), "v1b"]);
    let table = ok(&["league", "show", s(&dir)]);
    assert!(!table.contains("latest stderr"), "{table}");
}

/// A bot name and a forfeit's reason that a row must quote (commas, quotes) go through
/// the league's store and export unchanged: the exported `games.csv` holds them quoted
/// as a run writes them, `pairs.csv` names the bot quoted, and `arena verify` replays
/// every game of the export to the very row.
#[test]
fn quoted_names_and_reasons_survive_the_store_and_the_export() {
    if !common::have("python3") {
        return;
    }
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("lg");
    let greedy = r#"greedy, "the" first"#;
    league(&dir, "5,4", "3", &[(greedy, "greedy", true)]);
    limits(&dir, &[("sandbox", "\"off\"")]);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fault_bot.py");
    let text = std::fs::read_to_string(fixture).unwrap().replacen(
        r#"answer = "hello world""#,
        r#"answer = 'hello, "world"'"#,
        1,
    );
    assert!(text.contains("hello, "), "the fixture changed");
    let bot = tmp.path().join("talker.py");
    std::fs::write(&bot, text).unwrap();
    let spec = format!("exec:python3 {} garbage", bot.display());
    ok(&["league", "add", s(&dir), "talker", &spec, "--benchmark"]);
    run(&dir, &["--games", "4", "--concurrency", "1"]);
    let out = tmp.path().join("out");
    ok(&["league", "export", s(&dir), s(&out)]);
    let index = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert_eq!(
        index,
        "dir,agent_a,agent_b,games\n1-2,\"greedy, \"\"the\"\" first\",talker,4\n"
    );
    let games = std::fs::read_to_string(out.join("1-2/games.csv")).unwrap();
    assert_eq!(rows(&games).len(), 4, "{games}");
    for row in rows(&games) {
        assert!(row.contains(r#","greedy, ""the"" first",talker,"#), "{row}");
        assert!(row.contains(r#",malformed,b,"#), "{row}");
        assert!(
            row.contains(r#"move ""hello, \""world\"""": expected"#),
            "{row}"
        );
    }
    let v = ok(&["verify", s(&out)]);
    assert!(v.contains("0 mismatches"), "{v}");
}
