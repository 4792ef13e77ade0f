//! Run-directory integrity: every file of a run directory edited, truncated or corrupted,
//! then `--resume`, `replay` and `merge`: exit 2 with the file named, never a panic, and
//! never a run with two configs mixed.

use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// A finished run: greedy (named g) vs random, 2 cases x 12 games, seed 4.
fn finished_run(root: &Path, name: &str) -> PathBuf {
    seeded_run(root, name, "4")
}

fn seeded_run(root: &Path, name: &str, seed: &str) -> PathBuf {
    let out = root.join(name);
    arena()
        .args([
            "match", "--game", "dominoes", "--agent", "g=greedy", "--agent", "random",
        ])
        .args([
            "--cases",
            "5,4 9,7",
            "--games-per-case",
            "12",
            "--seed",
            seed,
        ])
        .args(["--out", s(&out), "--progress", "never"])
        .assert()
        .success();
    out
}

/// `arena ARGS` must exit 2 and name every needle; returns stderr.
fn refused(args: &[&str], needles: &[&str]) -> String {
    let got = arena().args(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8(got.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(
            stderr.contains(n),
            "`arena {}` should say {n:?}:\n{stderr}",
            args.join(" ")
        );
    }
    stderr
}

fn edit(path: &Path, f: impl Fn(&str) -> String) {
    let text = read(path);
    let new = f(&text);
    assert_ne!(new, text, "the edit changed nothing in {}", path.display());
    std::fs::write(path, new).unwrap();
}

#[test]
fn an_edited_config_is_refused_on_resume_naming_the_file() {
    let t = tempfile::tempdir().unwrap();
    for (what, change) in [
        ("seed", ("seed = 4", "seed = 5")),
        // A renamed agent once panicked ("rows come from the plan").
        ("agent name", ("name = \"g\"", "name = \"h\"")),
        (
            "games per case",
            ("games_per_case = 12", "games_per_case = 14"),
        ),
    ] {
        let run = finished_run(t.path(), what);
        let config = run.join("config.toml");
        edit(&config, |t| t.replacen(change.0, change.1, 1));
        let err = refused(&["run", "--resume", s(&run)], &["config.toml", "edited"]);
        assert!(err.contains("changed: "), "{what}: {err}");
        refused(&["replay", s(&run), "--game", "0"], &["config.toml"]);
    }
    // Broken TOML and an unknown field are named too.
    let run = finished_run(t.path(), "syntax");
    edit(&run.join("config.toml"), |t| format!("{t}\nsed = 3\n"));
    refused(&["run", "--resume", s(&run)], &["config.toml", "sed"]);
    let run = finished_run(t.path(), "gone");
    std::fs::remove_file(run.join("config.toml")).unwrap();
    refused(&["run", "--resume", s(&run)], &["config.toml"]);
}

#[test]
fn a_torn_or_edited_manifest_is_refused_naming_the_file() {
    let t = tempfile::tempdir().unwrap();
    let run = finished_run(t.path(), "torn");
    let manifest = run.join("manifest.json");
    edit(&manifest, |t| t[..t.len() / 2].to_owned());
    refused(&["run", "--resume", s(&run)], &["manifest.json"]);
    for (name, from, to) in [
        ("shard", "\"shard_count\": 1", "\"shard_count\": 2"),
        ("games", "\"games\": 24", "\"games\": 26"),
        ("schema", "\"schema\": 3", "\"schema\": 1"),
        ("unknown", "\"seed\": 4", "\"seed\": 4, \"extra\": 1"),
        ("hash", "fnv1a64:", "fnv1a64:0"),
    ] {
        let run = finished_run(t.path(), name);
        edit(&run.join("manifest.json"), |t| t.replacen(from, to, 1));
        refused(&["run", "--resume", s(&run)], &["manifest.json"]);
    }
    let run = finished_run(t.path(), "no-manifest");
    std::fs::remove_file(run.join("manifest.json")).unwrap();
    refused(&["run", "--resume", s(&run)], &["manifest.json"]);
}

/// A name, an edit of `games.csv`, and what the error must say.
type Damage<'a> = (&'a str, &'a dyn Fn(&str) -> String, &'a [&'a str]);

#[test]
fn a_corrupt_or_foreign_results_file_is_refused_naming_file_and_line() {
    let t = tempfile::tempdir().unwrap();
    let cases: [Damage; 8] = [
        (
            "garbage row",
            &|t| t.replacen(",domino,", ",resigned,", 1),
            &["games.csv line", "resigned"],
        ),
        (
            "extra cell",
            &|t| t.replacen(",g,random,", ",g,random,0.7,", 1),
            &["games.csv line 2", "columns"],
        ),
        (
            "header",
            &|t| t.replacen("pips_b", "pips_c", 1),
            &["games.csv line 1", "header"],
        ),
        (
            "swapped rows",
            &|t| {
                let mut lines: Vec<&str> = t.split_inclusive('\n').collect();
                lines.swap(3, 4);
                lines.concat()
            },
            &["games.csv line 4", "belongs"],
        ),
        (
            "wrong agent",
            &|t| t.replacen("g,random", "x,random", 1),
            &["games.csv line 2", "not from this run"],
        ),
        (
            "extra rows",
            &|t| {
                let last = t.lines().last().unwrap().to_owned();
                format!("{t}{last}\n")
            },
            &["games.csv line 26"],
        ),
        (
            "binary",
            &|t| format!("{t}\u{0}\u{1}\u{2}\n"),
            &["games.csv line 26"],
        ),
        (
            "empty cell",
            &|t| t.replacen(",domino,,", ",,,", 1),
            &["games.csv line"],
        ),
    ];
    for (name, f, needles) in cases {
        let run = finished_run(t.path(), &name.replace(' ', "-"));
        let games = run.join("games.csv");
        edit(&games, f);
        let before = read(&games);
        refused(&["run", "--resume", s(&run)], needles);
        refused(&["replay", s(&run), "--game", "23"], &["games.csv"]);
        assert_eq!(
            read(&games),
            before,
            "{name}: a refused file is left as it was"
        );
    }
    // A results file from another run of the same game (another seed).
    let run = finished_run(t.path(), "foreign");
    let other = seeded_run(t.path(), "other", "5");
    let other_games = read(&other.join("games.csv"));
    std::fs::write(run.join("games.csv"), other_games.replacen("5,4", "6,4", 1)).unwrap();
    refused(
        &["run", "--resume", s(&run)],
        &["games.csv line 2", "not from this run"],
    );
}

#[test]
fn a_truncated_results_file_is_resumed_and_a_deleted_one_replayed() {
    let t = tempfile::tempdir().unwrap();
    let run = finished_run(t.path(), "truncated");
    let games = run.join("games.csv");
    let whole = read(&games);
    for cut in [whole.len() - 3, whole.len() / 2, 10, 0] {
        std::fs::write(&games, &whole[..cut]).unwrap();
        arena()
            .args(["run", "--resume", s(&run), "--progress", "never"])
            .assert()
            .success();
        assert_eq!(read(&games), whole, "cut at {cut}");
    }
    std::fs::remove_file(&games).unwrap();
    arena()
        .args(["run", "--resume", s(&run), "--progress", "never"])
        .assert()
        .success();
    assert_eq!(read(&games), whole);
}
