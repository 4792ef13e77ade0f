//! Puzzle runs end to end (`docs/puzzles.md`): built-in and external solvers through the
//! engine, relative scores in the summary, determinism at any concurrency, shards merged
//! byte-identical, resume, and broken solvers that lose only their own attempts.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

fn config(seeds: u32, solvers: &[(&str, &str)], limits: &str) -> String {
    let mut text = format!("game = \"puzzles\"\ngames_per_case = {seeds}\nseed = 3\n");
    for (name, spec) in solvers {
        text.push_str(&format!("[[agents]]\nname = \"{name}\"\nspec = '{spec}'\n"));
    }
    text.push_str(limits);
    text
}

fn arena(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .args(["--progress", "never"])
        .output()
        .unwrap()
}

fn run(dir: &Path, name: &str, text: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    let out = dir.join(name);
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = arena(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn rows(path: &Path) -> Vec<csv::StringRecord> {
    csv::Reader::from_path(path)
        .unwrap()
        .records()
        .map(Result::unwrap)
        .collect()
}

fn python_sample() -> String {
    format!("exec:python3 {}", repo("examples/python/puzzle_solver.py"))
}

#[test]
fn builtin_and_external_solvers_are_refereed_and_scored_relative_to_each_other() {
    if !common::have("python3") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let sample = python_sample();
    let text = config(
        3,
        &[
            ("exact", "exact:nodes=200000"),
            ("greedy", "greedy"),
            ("sample", &sample),
        ],
        "",
    );
    let out = run(t.path(), "run", &text, &["--concurrency", "2"]);
    let games = rows(&out.join("games.csv"));
    assert_eq!(games.len(), 3 * 3 * 3);
    for g in &games {
        let (puzzle, seed, solver, valid) = (&g[1], &g[2], &g[3], &g[4]);
        assert!(["3", "4", "5"].contains(&seed), "{g:?}");
        // Every answer kept in games.csv is refereed again, by the commands a contestant
        // would use: the same verdict and score.
        let inputs = t.path().join(format!("in-{puzzle}"));
        let seed_n: u64 = seed.parse().unwrap();
        let o = Command::new(ARENA)
            .args([
                "gen",
                puzzle,
                "--seeds",
                &format!("{seed_n}..{}", seed_n + 1),
                "--dir",
            ])
            .arg(&inputs)
            .output()
            .unwrap();
        assert!(o.status.success());
        let answer = t.path().join("answer.txt");
        std::fs::write(&answer, format!("{}\n", &g[10])).unwrap();
        if !g[10].is_empty() {
            let o = Command::new(ARENA)
                .args(["score", puzzle])
                .arg(inputs.join(format!("{seed_n:04}.txt")))
                .arg(&answer)
                .output()
                .unwrap();
            let verdict = String::from_utf8_lossy(&o.stdout).trim().to_owned();
            match valid {
                "1" => assert_eq!(verdict, format!("Score = {}", &g[5]), "{g:?}"),
                _ if &g[6] == "illegal" => assert!(verdict.starts_with("Invalid"), "{g:?}"),
                _ => assert_eq!(o.status.code(), Some(2), "{g:?}"),
            }
        }
        if valid == "1" {
            assert_eq!(&g[6], "answer");
        } else {
            assert!(!g[7].is_empty(), "an invalid attempt says why: {g:?}");
        }
        // The sample's Détrak and dust answers are always valid; exact's too.
        if puzzle != "dominopeg" && (solver == "sample" || solver == "exact") {
            assert_eq!(valid, "1", "{g:?}");
        }
    }
    // Relative scores: per seed, the best valid answer gets 1.
    let scores = rows(&out.join("scores.csv"));
    assert_eq!(scores.len(), games.len());
    for chunk in scores.chunks(3) {
        let best = chunk
            .iter()
            .map(|r| r[5].parse::<f64>().unwrap())
            .fold(0.0, f64::max);
        assert!(chunk.iter().any(|r| &r[3] == "true"));
        assert_eq!(best, 1.0, "{chunk:?}");
        for r in chunk {
            if &r[3] == "false" {
                assert_eq!(r[5].parse::<f64>().unwrap(), 0.0, "invalid scores 0: {r:?}");
            }
        }
    }
    let summary = rows(&out.join("summary.csv"));
    let row = |puzzle: &str, solver: &str| {
        summary
            .iter()
            .find(|r| &r[0] == puzzle && &r[1] == solver)
            .unwrap_or_else(|| panic!("no {puzzle} {solver} row"))
            .clone()
    };
    let total = |r: &csv::StringRecord| r[5].parse::<f64>().unwrap();
    for puzzle in ["detrak", "dust", "all"] {
        assert!(total(&row(puzzle, "exact")) >= total(&row(puzzle, "greedy")));
    }
    // The `all` row sums the puzzles'.
    for solver in ["exact", "greedy", "sample"] {
        let parts: f64 = ["detrak", "dominopeg", "dust"]
            .iter()
            .map(|p| total(&row(p, solver)))
            .sum();
        assert!((parts - total(&row("all", solver))).abs() < 1e-3);
    }
    // Wall times go to their own file, never into games.csv.
    let times = rows(&out.join("times.csv"));
    assert_eq!(times.len(), games.len());
    assert!(times.iter().all(|r| &r[5] == "2"));
    let o = Command::new(ARENA)
        .args(["replay", out.to_str().unwrap(), "-n", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && text.contains("instance") && text.contains("answer"));
}

#[test]
fn results_do_not_depend_on_concurrency_shards_or_resume() {
    let t = tempfile::tempdir().unwrap();
    let text = config(
        4,
        &[("exact", "exact:nodes=50000"), ("greedy", "greedy")],
        "",
    );
    let one = run(t.path(), "one", &text, &["--concurrency", "1"]);
    let four = run(t.path(), "four", &text, &["--concurrency", "4"]);
    let games = |d: &Path| std::fs::read(d.join("games.csv")).unwrap();
    assert_eq!(games(&one), games(&four));
    let summary = |d: &Path| std::fs::read(d.join("summary.csv")).unwrap();
    assert_eq!(summary(&one), summary(&four));

    let s0 = run(t.path(), "s0", &text, &["--shard", "0/2"]);
    let s1 = run(t.path(), "s1", &text, &["--shard", "1/2"]);
    let merged = t.path().join("merged");
    let o = Command::new(ARENA)
        .arg("merge")
        .arg(&merged)
        .arg(&s1)
        .arg(&s0)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(games(&merged), games(&one));
    assert_eq!(summary(&merged), summary(&one));
    assert_eq!(
        std::fs::read(merged.join("scores.csv")).unwrap(),
        std::fs::read(one.join("scores.csv")).unwrap()
    );

    // A run cut after 7 attempts finishes identically.
    let csv = std::fs::read_to_string(one.join("games.csv")).unwrap();
    let cut: String = csv.lines().take(8).map(|l| format!("{l}\n")).collect();
    std::fs::write(one.join("games.csv"), cut).unwrap();
    let o = arena(&["run", "--resume", one.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(games(&one), games(&four));
}

/// A solver script that misbehaves in the way its argument names.
const FAULTY: &str = r#"
import sys, time
mode = sys.argv[1]
line = sys.stdin.readline()
if mode == "crash":
    sys.exit(3)
if mode == "hang":
    time.sleep(30)
if mode == "flood":
    sys.stdout.write("1,1 " * 100000)
if mode == "garbage":
    print("hello world", flush=True)
if mode == "wrong":
    print("0,0", flush=True)
"#;

#[test]
fn broken_solvers_lose_only_their_own_attempts() {
    if !common::have("python3") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let script = t.path().join("faulty.py");
    std::fs::write(&script, FAULTY).unwrap();
    let spec = |mode: &str| format!("exec:python3 {} {mode}", script.display());
    let (crash, hang, flood, garbage, wrong) = (
        spec("crash"),
        spec("hang"),
        spec("flood"),
        spec("garbage"),
        spec("wrong"),
    );
    let mut text = config(
        1,
        &[
            ("greedy", "greedy"),
            ("crash", &crash),
            ("hang", &hang),
            ("flood", &flood),
            ("garbage", &garbage),
            ("wrong", &wrong),
        ],
        "[limits]\ncall_ms = 1500\nmax_line = 4096\nstart_failures = 1000\n",
    );
    text = text.replace(
        "game = \"puzzles\"\n",
        "game = \"puzzles\"\ncases = \"dust\"\n",
    );
    let out = run(t.path(), "faults", &text, &["--concurrency", "3"]);
    let games = rows(&out.join("games.csv"));
    let by = |solver: &str| games.iter().find(|r| &r[3] == solver).unwrap().clone();
    assert_eq!(&by("greedy")[4], "1");
    for (solver, termination) in [
        ("crash", "crash"),
        ("hang", "timeout"),
        ("flood", "malformed"),
        ("garbage", "malformed"),
        ("wrong", "illegal"),
    ] {
        let r = by(solver);
        assert_eq!((&r[4], &r[6]), ("0", termination), "{r:?}");
        assert!(!r[7].is_empty(), "{r:?}");
    }
    let scores = rows(&out.join("scores.csv"));
    let greedy = scores.iter().find(|r| &r[2] == "greedy").unwrap();
    assert_eq!(greedy[5].parse::<f64>().unwrap(), 1.0);
}

#[test]
fn a_served_builtin_solver_answers_like_the_builtin() {
    let t = tempfile::tempdir().unwrap();
    let served = format!("exec:{ARENA} serve --game puzzles greedy");
    let text = config(2, &[("greedy", "greedy"), ("served", &served)], "");
    let out = run(t.path(), "served", &text, &[]);
    let games = rows(&out.join("games.csv"));
    for pair in games.chunks(2) {
        assert_eq!(&pair[0][3], "greedy");
        assert_eq!(&pair[1][3], "served");
        // Same answers, so the same validity and raw score.
        assert_eq!((&pair[0][4], &pair[0][5]), (&pair[1][4], &pair[1][5]));
    }
}

#[test]
fn puzzle_configs_are_checked() {
    let t = tempfile::tempdir().unwrap();
    let bad = [
        ("cases = \"chess\"\n", "chess"),
        ("cases = \"dust dust\"\n", "twice"),
        ("[sprt]\nelo0 = 0.0\nelo1 = 5.0\n", "SPRT"),
    ];
    for (extra, needle) in bad {
        let base = config(2, &[("g", "greedy")], "");
        let text = if extra.starts_with('[') {
            format!("{base}{extra}")
        } else {
            base.replacen(
                "game = \"puzzles\"\n",
                &format!("game = \"puzzles\"\n{extra}"),
                1,
            )
        };
        let path = t.path().join("bad.toml");
        std::fs::write(&path, text).unwrap();
        let o = arena(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            t.path().join("x").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{err}");
    }
    // A Détrak-only solver in a run of every puzzle is refused before anything is
    // written: the fixed config may then use the same directory.
    let text = config(2, &[("g", "greedy"), ("l", "lookahead")], "");
    let path = t.path().join("lookahead.toml");
    std::fs::write(&path, text).unwrap();
    let z = t.path().join("z");
    let o = arena(&["run", path.to_str().unwrap(), "--out", z.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not play dominopeg"));
    assert!(!z.exists(), "a refused plan left {}", z.display());
    let text = config(2, &[("a", "astar")], "");
    let path = t.path().join("unknown.toml");
    std::fs::write(&path, text).unwrap();
    let o = arena(&[
        "run",
        path.to_str().unwrap(),
        "--out",
        t.path().join("y").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("astar"));
}

#[test]
fn match_takes_a_seed_range_for_puzzles_only() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("m");
    let o = arena(&[
        "match",
        "--game",
        "puzzles",
        "--cases",
        "dust",
        "--agent",
        "greedy",
        "--seeds",
        "10..13",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let seeds: Vec<String> = rows(&out.join("games.csv"))
        .iter()
        .map(|r| r[2].to_owned())
        .collect();
    assert_eq!(seeds, ["10", "11", "12"]);
    let o = arena(&[
        "match",
        "--game",
        "dominoes",
        "--agent",
        "greedy",
        "--agent",
        "random",
        "--seeds",
        "0..4",
        "--out",
        t.path().join("d").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seeds is for puzzle runs"));
}

/// A solver that cannot start loses every attempt with one reason, whichever end of its
/// pipes the arena finds closed first: three runs, one `games.csv`.
#[test]
fn an_unstartable_solver_gives_the_same_file_every_run() {
    let t = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..3)
        .map(|i| {
            let out = t.path().join(format!("run{i}"));
            let o = arena(&[
                "match",
                "--game",
                "puzzles",
                "--cases",
                "dust",
                "--agent",
                "exec:no-such-solver-anywhere",
                "--games-per-case",
                "8",
                "--concurrency",
                "4",
                "--out",
                out.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            std::fs::read_to_string(out.join("games.csv")).unwrap()
        })
        .collect();
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0], files[2]);
    let rows: Vec<&str> = files[0].lines().skip(1).collect();
    assert_eq!(rows.len(), 8);
    assert!(
        rows.iter()
            .all(|r| r.contains(",crash,") && r.contains("not found")),
        "{files:?}"
    );
}
