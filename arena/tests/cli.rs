//! Integration tests of the `arena` binary: every subcommand, every error path, a
//! snapshot of a fixed-seed run, determinism across concurrency, resume after SIGKILL,
//! and SPRT early stopping.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use tempfile::TempDir;

const COMMON_HEADER: &str =
    "game,case,pair,first,agent_a,agent_b,score_a,score_b,termination,forfeit,reason,plies";

/// `games.csv`'s header (schema 3): the common columns, the game's own, then `check`.
fn games_header(game: &str) -> String {
    match game {
        "dominoes" => format!("{COMMON_HEADER},start,stock_left,pips_a,pips_b,check"),
        _ => format!("{COMMON_HEADER},start,check"),
    }
}

/// Everything `arena run` and `arena match` write into a run directory.
const RUN_FILES: [&str; 7] = [
    "config.toml",
    "manifest.json",
    "games.csv",
    "summary.csv",
    "summary.json",
    "run.log",
    "lock",
];

/// The outcome files that must not depend on how a run was carried out.
const RESULT_FILES: [&str; 3] = ["games.csv", "summary.csv", "summary.json"];

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

fn tmp() -> TempDir {
    tempfile::tempdir().expect("a temporary directory")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn write_config(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `arena` with `args`, asserting success; returns stdout.
fn ok(args: &[&str]) -> String {
    let out = arena().args(args).assert().success().get_output().clone();
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `arena` with `args`, asserting exit code 2 and a stderr holding every needle.
fn fails(args: &[&str], needles: &[&str]) -> String {
    let out = arena().args(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "stderr of `arena {}` should name {needle:?}:\n{stderr}",
            args.join(" ")
        );
    }
    stderr
}

/// `arena match` arguments writing into `out`, progress bars off.
fn match_args<'a>(
    game: &'a str,
    agents: &[&'a str],
    cases: &'a str,
    games_per_case: &'a str,
    out: &'a str,
) -> Vec<&'a str> {
    let mut args = vec!["match", "--game", game];
    for a in agents {
        args.extend(["--agent", a]);
    }
    args.extend([
        "--cases",
        cases,
        "--games-per-case",
        games_per_case,
        "--out",
        out,
        "--progress",
        "never",
    ]);
    args
}

fn s(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

/// A CSV file as rows of column name -> value.
fn table(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(r.len(), header.len(), "a ragged row: {r:?}");
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

fn num(row: &BTreeMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col} is not a number in {row:?}"))
}

/// Checks a finished run directory: every file present, `games.csv` well formed, with
/// `expect_rows` rows between `agent_a` and `agent_b` over `cases`, every row
/// consistent with the rules of `game`; the summary agrees with the rows.
fn check_run(
    dir: &Path,
    game: &str,
    agents: (&str, &str),
    cases: &[&str],
    games_per_case: usize,
) -> Vec<BTreeMap<String, String>> {
    for f in RUN_FILES {
        assert!(
            dir.join(f).is_file(),
            "{} is missing",
            dir.join(f).display()
        );
    }
    let text = read(&dir.join("games.csv"));
    assert_eq!(text.lines().next(), Some(games_header(game).as_str()));
    let rows = table(&text);
    assert_eq!(rows.len(), cases.len() * games_per_case, "{text}");
    for (i, row) in rows.iter().enumerate() {
        let ctx = format!("row {i}: {row:?}");
        // Schema 2 order: pairs interleave the cases (one matchup here).
        assert_eq!(row["game"], i.to_string(), "{ctx}");
        assert_eq!(row["case"], cases[i / 2 % cases.len()], "{ctx}");
        assert_eq!(row["pair"], (i / 2 / cases.len()).to_string(), "{ctx}");
        assert!(row["first"] == "a" || row["first"] == "b", "{ctx}");
        assert_eq!((row["agent_a"].as_str(), row["agent_b"].as_str()), agents);
        let (sa, sb) = (num(row, "score_a"), num(row, "score_b"));
        assert!([0.0, 0.5, 1.0].contains(&sa), "{ctx}");
        assert_eq!(sa + sb, 1.0, "{ctx}");
        assert_eq!(row["forfeit"], "", "{ctx}");
        assert_eq!(row["reason"], "", "{ctx}");
        assert!(num(row, "plies") >= 1.0, "{ctx}");
        assert!(!row["start"].is_empty(), "{ctx}");
        match game {
            "dominoes" => {
                for col in ["stock_left", "pips_a", "pips_b"] {
                    num(row, col);
                }
                match row["termination"].as_str() {
                    // The winner went out: an empty hand.
                    "domino" => {
                        assert_ne!(sa, 0.5, "{ctx}");
                        let winner = if sa == 1.0 { "pips_a" } else { "pips_b" };
                        assert_eq!(row[winner], "0", "{ctx}");
                    }
                    "blocked" => {}
                    t => panic!("termination {t:?} in {ctx}"),
                }
            }
            "quarto" => {
                for col in ["stock_left", "pips_a", "pips_b"] {
                    assert!(!row.contains_key(col), "{ctx}");
                }
                match row["termination"].as_str() {
                    "line" => assert_ne!(sa, 0.5, "{ctx}"),
                    "full" => assert_eq!(sa, 0.5, "{ctx}"),
                    t => panic!("termination {t:?} in {ctx}"),
                }
            }
            _ => unreachable!(),
        }
    }
    // The summary's `all` row agrees with the games.
    let summary = table(&read(&dir.join("summary.csv")));
    let all = summary
        .iter()
        .find(|r| r["case"] == "all")
        .expect("an `all` row");
    let count = |score: f64| rows.iter().filter(|r| num(r, "score_a") == score).count();
    assert_eq!(num(all, "games") as usize, rows.len());
    assert_eq!(num(all, "wins") as usize, count(1.0));
    assert_eq!(num(all, "draws") as usize, count(0.5));
    assert_eq!(num(all, "losses") as usize, count(0.0));
    let points: f64 = rows.iter().map(|r| num(r, "score_a")).sum();
    assert_eq!(num(all, "points"), points);
    assert_eq!(
        summary.len(),
        cases.len() + 1,
        "one row per case, then `all`"
    );
    let json: serde_json::Value = serde_json::from_str(&read(&dir.join("summary.json"))).unwrap();
    assert_eq!(json["game"], game);
    assert_eq!(json["stopped_early"], false);
    assert_eq!(json["matchups"][0]["overall"]["games"], rows.len());
    rows
}

// ---------------------------------------------------------------------------------
// Every subcommand works.

#[test]
fn match_dominoes_writes_a_complete_run_directory() {
    let t = tmp();
    let out = t.path().join("run");
    let stdout = ok(&match_args(
        "dominoes",
        &["greedy", "random"],
        "5,4 9,7",
        "4",
        s(&out),
    ));
    assert!(stdout.contains("dominoes 8 games, seed 1"), "{stdout}");
    assert!(stdout.contains("greedy vs random"), "{stdout}");
    let rows = check_run(&out, "dominoes", ("greedy", "random"), &["5,4", "9,7"], 4);
    assert_eq!(rows.len(), 8);
    let manifest: serde_json::Value =
        serde_json::from_str(&read(&out.join("manifest.json"))).unwrap();
    assert_eq!(manifest["seed"], 1);
    assert_eq!(manifest["schema"], 3);
    assert_eq!(manifest["games"], 8);
    let config = read(&out.join("config.toml"));
    assert!(config.contains("game = \"dominoes\""), "{config}");
    assert!(config.contains("\"5,4\""), "{config}");
    assert!(config.contains("games_per_case = 4"), "{config}");
}

#[test]
fn match_quarto_writes_a_complete_run_directory() {
    let t = tmp();
    let out = t.path().join("run");
    let stdout = ok(&match_args(
        "quarto",
        &["greedy", "random"],
        "lines:0 squares:4",
        "4",
        s(&out),
    ));
    assert!(stdout.contains("quarto 8 games, seed 1"), "{stdout}");
    let rows = check_run(
        &out,
        "quarto",
        ("greedy", "random"),
        &["lines:0", "squares:4"],
        4,
    );
    // Both games of a pair start from the same opening, with the seats exchanged.
    for pair in rows.chunks(2) {
        assert_eq!(pair[0]["start"], pair[1]["start"]);
        assert_ne!(pair[0]["first"], pair[1]["first"]);
    }
    // Without an opening, the board is empty at the start.
    assert!(
        rows[0]["start"].starts_with("................:"),
        "{rows:?}"
    );
}

#[test]
fn run_config_uses_named_agents_and_the_configured_seed() {
    let t = tmp();
    let config = write_config(
        t.path(),
        "small.toml",
        r#"
game = "dominoes"
cases = ["6,5", "7,4"]
games_per_case = 2
seed = 42
agents = [{ name = "g", spec = "greedy" }, "random"]
"#,
    );
    let out = t.path().join("run");
    let stdout = ok(&["run", s(&config), "--out", s(&out), "--progress", "never"]);
    assert!(stdout.contains("dominoes 4 games, seed 42"), "{stdout}");
    check_run(&out, "dominoes", ("g", "random"), &["6,5", "7,4"], 2);
    assert!(read(&out.join("manifest.json")).contains("\"seed\": 42"));
    let stored = read(&out.join("config.toml"));
    assert!(stored.contains("seed = 42"), "{stored}");
    assert!(stored.contains("name = \"g\""), "{stored}");
}

#[test]
fn run_config_writes_to_its_out_when_no_out_is_given() {
    let t = tmp();
    let out = t.path().join("from-config");
    let config = write_config(
        t.path(),
        "c.toml",
        &format!(
            "game = \"quarto\"\ncases = \"lines:4\"\ngames_per_case = 2\nagents = [\"random\", \"greedy\"]\nout = {:?}\n",
            s(&out)
        ),
    );
    ok(&["run", s(&config), "--progress", "never"]);
    check_run(&out, "quarto", ("random", "greedy"), &["lines:4"], 2);
}

#[test]
fn resume_of_a_finished_run_changes_no_result() {
    let t = tmp();
    let out = t.path().join("run");
    ok(&match_args(
        "dominoes",
        &["greedy", "random"],
        "5,4 9,7",
        "4",
        s(&out),
    ));
    let before: Vec<String> = ["games.csv", "summary.csv", "summary.json", "manifest.json"]
        .iter()
        .map(|f| read(&out.join(f)))
        .collect();
    let stdout = ok(&["run", "--resume", s(&out), "--progress", "never"]);
    assert!(stdout.contains("nothing to do"), "{stdout}");
    let after: Vec<String> = ["games.csv", "summary.csv", "summary.json", "manifest.json"]
        .iter()
        .map(|f| read(&out.join(f)))
        .collect();
    assert_eq!(before, after, "no game replayed, no file changed");
    let log = read(&out.join("run.log"));
    assert!(log.contains("resumed"), "{log}");
}

/// Replays game 3 of a run and checks the printout against row 3 of `games.csv`.
fn check_replay(game: &str, cases: &str) {
    let t = tmp();
    let out = t.path().join("run");
    ok(&match_args(
        game,
        &["greedy", "random"],
        cases,
        "4",
        s(&out),
    ));
    let rows = table(&read(&out.join("games.csv")));
    let row = &rows[3];
    let stdout = ok(&["replay", s(&out), "--game", "3"]);
    let lines: Vec<&str> = stdout.lines().collect();

    let head = lines[0];
    assert!(head.starts_with("game 3: "), "{stdout}");
    assert!(
        head.contains(&format!("case {}, pair {}", row["case"], row["pair"])),
        "{head} vs {row:?}"
    );
    let seat_a = head
        .split("(seat ")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .expect("agent A's seat in the header");

    // Every move names its seat and the agent in that seat.
    let moves: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| {
            l.split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    assert_eq!(
        moves.len().to_string(),
        row["plies"],
        "one printed move per ply:\n{stdout}"
    );
    for (i, mv) in moves.iter().enumerate() {
        let (n, rest) = mv.split_once(". ").unwrap();
        assert_eq!(n, (i + 1).to_string(), "{mv}");
        let (seat, rest) = rest.split_once(" (").unwrap();
        let name = rest.split_once(") plays ").expect("`plays`").0;
        let expected = if seat == seat_a {
            &row["agent_a"]
        } else {
            &row["agent_b"]
        };
        assert_eq!(name, expected, "{mv}");
    }

    // The last line is the result, as in the row.
    let result = lines
        .iter()
        .rev()
        .find(|l| !l.is_empty())
        .unwrap()
        .strip_prefix("result: ")
        .unwrap_or_else(|| panic!("no final result line:\n{stdout}"));
    let words: Vec<&str> = result.split_whitespace().collect();
    assert_eq!(words.len(), 6, "{result}");
    assert_eq!(words[0], row["agent_a"]);
    assert_eq!(words[1].parse::<f64>().unwrap(), num(row, "score_a"));
    assert_eq!(words[2], "-");
    assert_eq!(words[3].parse::<f64>().unwrap(), num(row, "score_b"));
    assert_eq!(words[4], row["agent_b"]);
    assert_eq!(words[5], format!("({})", row["termination"]));
}

#[test]
fn replay_dominoes_game_matches_its_row() {
    check_replay("dominoes", "5,4 9,7");
}

#[test]
fn replay_quarto_game_matches_its_row() {
    check_replay("quarto", "lines:0 squares:4");
}

#[test]
fn perft_counts_quarto_move_sequences() {
    arena()
        .args(["perft", "quarto", "2"])
        .assert()
        .success()
        .stdout("3840\n");
    arena()
        .args(["perft", "quarto", "3", "--variant", "lines"])
        .assert()
        .success()
        .stdout("806400\n");
    arena()
        .args(["perft", "quarto", "1", "--variant", "squares"])
        .assert()
        .success()
        .stdout("16\n");
}

// ---------------------------------------------------------------------------------
// Every error path exits with code 2 and names the offending input.

#[test]
fn config_with_an_unknown_field_names_the_field_and_the_file() {
    let t = tmp();
    let config = write_config(
        t.path(),
        "typo.toml",
        "game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\nsed = 3\n",
    );
    let out = t.path().join("run");
    fails(&["run", s(&config), "--out", s(&out)], &["sed", s(&config)]);
    assert!(!out.exists(), "no run directory for a bad config");
}

#[test]
fn bad_agent_specs_are_named() {
    for (spec, why) in [
        ("Random", "lower-case"),
        ("nosuch", "unknown agent"),
        ("pimc:k", "key=value"),
    ] {
        for game in ["dominoes", "quarto"] {
            let t = tmp();
            let out = t.path().join("run");
            let cases = if game == "dominoes" { "5,4" } else { "lines:0" };
            fails(
                &match_args(game, &[spec, "greedy"], cases, "2", s(&out)),
                &[&format!("{spec:?}"), why],
            );
            assert!(!out.exists(), "no run directory for agent {spec}");
        }
    }
}

#[test]
fn odd_games_per_case_is_refused() {
    let t = tmp();
    let out = t.path().join("run");
    fails(
        &match_args("dominoes", &["random", "greedy"], "5,4", "3", s(&out)),
        &["games per case", "got 3"],
    );
    assert!(!out.exists());
}

#[test]
fn missing_config_file_is_named() {
    let t = tmp();
    let missing = t.path().join("no-such.toml");
    fails(&["run", s(&missing)], &[s(&missing)]);
}

#[test]

fn missing_config_error_says_why_once() {
    let t = tmp();
    let missing = t.path().join("no-such.toml");
    let stderr = fails(&["run", s(&missing)], &[s(&missing)]);
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
}

/// A case the parser accepts but does not write canonically must not crash the run.
#[test]

fn non_canonical_case_notation_is_accepted_or_refused_cleanly() {
    let t = tmp();
    let spaced = write_config(
        t.path(),
        "spaced.toml",
        "game = \"dominoes\"\ncases = [\"5, 4\"]\ngames_per_case = 2\nagents = [\"random\", \"greedy\"]\n",
    );
    let (dominoes, quarto) = (t.path().join("dominoes"), t.path().join("quarto"));
    for (args, game, written, canonical) in [
        (
            vec![
                "run",
                s(&spaced),
                "--out",
                s(&dominoes),
                "--progress",
                "never",
            ],
            "dominoes",
            "5, 4",
            "5,4",
        ),
        (
            match_args("quarto", &["random", "greedy"], "lines:04", "2", s(&quarto)),
            "quarto",
            "lines:04",
            "lines:4",
        ),
    ] {
        let out = arena().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{game}: {stderr}");
        match out.status.code() {
            Some(0) => {
                let rows = table(&read(&Path::new(args[args.len() - 3]).join("games.csv")));
                assert!(rows.iter().all(|r| r["case"] == canonical), "{rows:?}");
            }
            Some(2) => assert!(stderr.contains(written), "{stderr}"),
            code => panic!("{game} case {written:?}: exit code {code:?}\n{stderr}"),
        }
    }
}

/// Listing a case twice would play the very same seeded games twice and count them as
/// independent samples.
#[test]

fn a_duplicated_case_is_refused_or_played_once() {
    let t = tmp();
    let out = t.path().join("run");
    let output = arena()
        .args(match_args(
            "dominoes",
            &["greedy", "random"],
            "5,4 5,4",
            "2",
            s(&out),
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(2) => assert!(stderr.contains("5,4"), "{stderr}"),
        Some(0) => {
            check_run(&out, "dominoes", ("greedy", "random"), &["5,4"], 2);
        }
        code => panic!("exit code {code:?}: {stderr}"),
    };
}

#[test]
fn bad_cases_are_named() {
    for (game, case) in [("dominoes", "4,4"), ("quarto", "lines:99")] {
        let t = tmp();
        let out = t.path().join("run");
        fails(
            &match_args(game, &["random", "greedy"], case, "2", s(&out)),
            &[&format!("{case:?}"), game],
        );
        assert!(!out.exists(), "no run directory for case {case}");
    }
}

#[test]
fn an_empty_exec_spec_is_refused_clearly() {
    let t = tmp();
    let out = t.path().join("run");
    fails(
        &match_args("dominoes", &["exec:", "random"], "5,4", "2", s(&out)),
        &["exec:", "needs a command line"],
    );
    assert!(!out.exists());
}

#[test]
fn a_missing_external_program_stops_the_run_and_says_why() {
    let t = tmp();
    let out = t.path().join("run");
    let mut args = match_args(
        "dominoes",
        &["exec:./no-such-bot", "random"],
        "5,4",
        "6",
        s(&out),
    );
    args.extend(["--concurrency", "1"]);
    let stderr = fails(&args, &["could not start", "no-such-bot", "--resume"]);
    // The shell's complaint, from the bot's stderr log.
    assert!(stderr.contains("not found"), "{stderr}");
    // The run stopped at its first game, which is no result: not recorded, but named
    // with its reason in the run log.
    let rows = table(&read(&out.join("games.csv")));
    assert!(rows.is_empty(), "{rows:?}");
    let log = read(&out.join("run.log"));
    assert!(
        log.contains("could not start") && log.contains("no-such-bot"),
        "{log}"
    );
}

/// Fixed, the bot plays the game that stopped the run: `--resume` leaves no trace of the
/// start-up failure in the results.
#[test]
fn a_run_stopped_by_a_bot_that_could_not_start_resumes_cleanly_once_it_is_fixed() {
    let t = tmp();
    let out = t.path().join("run");
    let bot = t.path().join("bot.sh");
    // The arena binary named on the command line, so that a confined bot may run it.
    let spec = format!("exec:sh {} {}", bot.display(), env!("CARGO_BIN_EXE_arena"));
    let mut args = match_args("dominoes", &[&spec, "random"], "5,4", "4", s(&out));
    args.extend(["--concurrency", "1"]);
    fails(&args, &["could not start", "--resume"]);
    // The "fix": the bot, served greedy.
    std::fs::write(&bot, "exec \"$1\" serve greedy --game dominoes\n").unwrap();
    ok(&["run", "--resume", s(&out), "--progress", "never"]);
    let rows = table(&read(&out.join("games.csv")));
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in &rows {
        assert_eq!(row["forfeit"], "", "{row:?}");
    }
}

#[test]
fn a_second_run_into_a_run_directory_resumes_the_same_run_and_refuses_another() {
    let t = tmp();
    let out = t.path().join("run");
    let args = match_args("dominoes", &["greedy", "random"], "5,4", "2", s(&out));
    ok(&args);
    let games = read(&out.join("games.csv"));
    // The same run again (a retried array job) has nothing to do.
    let again = ok(&args);
    assert!(again.contains("nothing to do"), "{again}");
    let log = read(&out.join("run.log"));
    // Another run into the same directory is refused: another seed, another game.
    let mut seeded = args.clone();
    seeded.extend(["--seed", "9"]);
    fails(&seeded, &[s(&out), "--resume"]);
    fails(
        &match_args("quarto", &["greedy", "random"], "lines:0", "2", s(&out)),
        &[s(&out)],
    );
    assert_eq!(
        read(&out.join("games.csv")),
        games,
        "the first run is intact"
    );
    assert_eq!(read(&out.join("run.log")), log);
}

#[test]
fn replay_past_the_last_game_is_refused() {
    let t = tmp();
    let out = t.path().join("run");
    ok(&match_args(
        "dominoes",
        &["greedy", "random"],
        "5,4 9,7",
        "4",
        s(&out),
    ));
    fails(
        &["replay", s(&out), "--game", "8"],
        &["game 8 was not played", "0 to 7"],
    );
    ok(&["replay", s(&out), "--game", "7"]);
}

#[test]
fn resume_of_a_directory_without_config_is_refused() {
    let t = tmp();
    let dir = t.path().join("not-a-run");
    std::fs::create_dir(&dir).unwrap();
    fails(&["run", "--resume", s(&dir)], &[s(&dir), "config.toml"]);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written into a directory that is not a run"
    );
}

#[test]
fn other_usage_errors_exit_with_2() {
    let t = tmp();
    let out = t.path().join("run");
    // Zero workers.
    let mut args = match_args("dominoes", &["greedy", "random"], "5,4", "2", s(&out));
    args.extend(["--concurrency", "0"]);
    fails(&args, &["concurrency"]);
    // An SPRT needs exactly two agents.
    let config = write_config(
        t.path(),
        "sprt3.toml",
        "game = \"quarto\"\nagents = [\"random\", \"greedy\", \"best\"]\n[sprt]\nelo0 = 0\nelo1 = 50\n",
    );
    fails(
        &["run", s(&config), "--out", s(&out)],
        &["sprt", s(&config)],
    );
    // Clap's own usage errors.
    fails(
        &["match", "--game", "chess", "--agent", "random"],
        &["chess"],
    );
    arena()
        .args(["perft", "quarto", "many"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("many"));
    assert!(!out.exists());
}

// ---------------------------------------------------------------------------------
// A fixed-seed run, snapshotted.

#[test]
fn snapshot_of_a_fixed_seed_dominoes_run() {
    let t = tmp();
    let out = t.path().join("run");
    let mut args = match_args("dominoes", &["greedy", "random"], "5,4 9,7", "4", s(&out));
    args.extend(["--seed", "7"]);
    ok(&args);
    check_run(&out, "dominoes", ("greedy", "random"), &["5,4", "9,7"], 4);
    insta::assert_snapshot!("dominoes_seed7_games_csv", read(&out.join("games.csv")));
    insta::assert_snapshot!("dominoes_seed7_summary_csv", read(&out.join("summary.csv")));
}

// ---------------------------------------------------------------------------------
// Results never depend on concurrency.

/// Runs `config` at concurrency 1 and 4; asserts identical result files; returns the
/// first run's directory.
fn run_at_concurrency_1_and_4(t: &TempDir, config_text: &str) -> PathBuf {
    let config = write_config(t.path(), "det.toml", config_text);
    let dirs: Vec<PathBuf> = ["1", "4"]
        .iter()
        .map(|c| {
            let out = t.path().join(format!("c{c}"));
            ok(&[
                "run",
                s(&config),
                "--out",
                s(&out),
                "--concurrency",
                c,
                "--progress",
                "never",
            ]);
            out
        })
        .collect();
    for f in RESULT_FILES {
        assert!(
            read(&dirs[0].join(f)) == read(&dirs[1].join(f)),
            "{f} differs between concurrency 1 and 4"
        );
    }
    dirs[0].clone()
}

#[test]
fn dominoes_results_do_not_depend_on_concurrency() {
    let t = tmp();
    let dir = run_at_concurrency_1_and_4(
        &t,
        "game = \"dominoes\"\ncases = \"all\"\ngames_per_case = 10\nseed = 11\nagents = [\"greedy\", \"random\"]\n",
    );
    let rows = table(&read(&dir.join("games.csv")));
    assert_eq!(rows.len(), 200, "20 cases x 10 games");
    let cases: BTreeSet<&str> = rows.iter().map(|r| r["case"].as_str()).collect();
    assert_eq!(cases.len(), 20);
}

#[test]
fn quarto_results_do_not_depend_on_concurrency() {
    let t = tmp();
    let dir = run_at_concurrency_1_and_4(
        &t,
        "game = \"quarto\"\ncases = \"all\"\ngames_per_case = 20\nseed = 5\nagents = [\"greedy\", \"random\"]\n",
    );
    check_run(
        &dir,
        "quarto",
        ("greedy", "random"),
        &["lines:0", "lines:4", "squares:0", "squares:4"],
        20,
    );
}

#[test]
fn round_robin_results_do_not_depend_on_concurrency() {
    for (game, cases) in [
        ("dominoes", "\"5,4 7,6 9,7\""),
        ("quarto", "\"lines:2 squares:0\""),
    ] {
        let t = tmp();
        let dir = run_at_concurrency_1_and_4(
            &t,
            &format!(
                "game = \"{game}\"\ncases = {cases}\ngames_per_case = 6\nagents = [\"random\", \"greedy\", \"best\"]\n"
            ),
        );
        let rows = table(&read(&dir.join("games.csv")));
        let n_cases = cases.split_whitespace().count();
        assert_eq!(rows.len(), 3 * n_cases * 6, "{game}");
        // Schema 2: pairs interleave the matchups, (0,1), (0,2), (1,2), then the cases.
        let expected = [("random", "greedy"), ("random", "best"), ("greedy", "best")];
        let mut per_matchup: Vec<Vec<[String; 4]>> = vec![Vec::new(); 3];
        let deal =
            |r: &BTreeMap<String, String>| ["case", "pair", "first", "start"].map(|c| r[c].clone());
        for (i, r) in rows.iter().enumerate() {
            let m = i / 2 % 3;
            assert_eq!(
                (r["agent_a"].as_str(), r["agent_b"].as_str()),
                expected[m],
                "{game} row {i}"
            );
            per_matchup[m].push(deal(r));
        }
        // Every pairing plays the same deals or openings (duplicate play).
        assert_eq!(per_matchup[0].len(), n_cases * 6, "{game}");
        assert_eq!(per_matchup[0], per_matchup[1], "{game}");
        assert_eq!(per_matchup[0], per_matchup[2], "{game}");
        let summary = table(&read(&dir.join("summary.csv")));
        assert_eq!(summary.len(), 3 * (n_cases + 1), "{game}");
    }
}

#[test]
fn a_case_plays_the_same_games_alone_or_in_a_suite() {
    for (game, suite, alone) in [
        ("dominoes", "5,4 8,6 9,7", "8,6"),
        ("quarto", "lines:0 squares:3 lines:4", "squares:3"),
    ] {
        let t = tmp();
        let (big, small) = (t.path().join("suite"), t.path().join("alone"));
        ok(&match_args(
            game,
            &["greedy", "random"],
            suite,
            "6",
            s(&big),
        ));
        ok(&match_args(
            game,
            &["greedy", "random"],
            alone,
            "6",
            s(&small),
        ));
        let without_number = |dir: &Path| -> Vec<BTreeMap<String, String>> {
            table(&read(&dir.join("games.csv")))
                .into_iter()
                .filter(|r| r["case"] == alone)
                .map(|mut r| {
                    // Where the game stands in the run: its number and the check that
                    // chains it to the rows before it.
                    r.remove("game");
                    r.remove("check");
                    r
                })
                .collect()
        };
        let (in_suite, by_itself) = (without_number(&big), without_number(&small));
        assert_eq!(by_itself.len(), 6, "{game}");
        assert_eq!(
            in_suite, by_itself,
            "{game}: case {alone} alone and in a suite"
        );
    }
}

#[test]
fn the_default_seed_is_1_and_the_seed_changes_the_deals() {
    let t = tmp();
    let run = |name: &str, seed: Option<&str>| -> String {
        let out = t.path().join(name);
        let mut args = match_args("dominoes", &["greedy", "random"], "all", "2", s(&out));
        if let Some(seed) = seed {
            args.extend(["--seed", seed]);
        }
        ok(&args);
        read(&out.join("games.csv"))
    };
    let default = run("default", None);
    assert_eq!(default, run("one", Some("1")));
    assert_ne!(default, run("two", Some("2")));
}

// ---------------------------------------------------------------------------------
// Resume.

#[cfg(unix)]
fn complete_lines(text: &str) -> &str {
    match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    }
}

/// One attempt: a run of `games_per_case` killed (SIGKILL) once `games.csv` has rows,
/// resumed, and compared with an uninterrupted run. Returns whether the kill came in time.
#[cfg(unix)]
fn kill_and_resume(games_per_case: u32) -> bool {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let t = tmp();
    let killed = t.path().join("killed");
    let whole = t.path().join("whole");
    let gpc = games_per_case.to_string();
    let args = |out: &Path| -> Vec<String> {
        let mut a: Vec<String> = match_args("quarto", &["greedy", "random"], "all", &gpc, s(out))
            .into_iter()
            .map(str::to_owned)
            .collect();
        a.extend(["--concurrency".into(), "2".into()]);
        a
    };

    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("arena"))
        .args(args(&killed))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let games = killed.join("games.csv");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut finished_first = false;
    loop {
        let lines = std::fs::read(&games)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0);
        if lines > 50 {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            finished_first = true;
            break;
        }
        assert!(Instant::now() < deadline, "games.csv never filled");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    let was_killed = !finished_first && status.signal() == Some(9);
    if !finished_first && !was_killed {
        assert!(status.success(), "the run failed on its own: {status:?}");
    }

    let before = read(&games);
    let kept = complete_lines(&before).to_owned();
    let kept_games = kept.lines().count().saturating_sub(1);
    eprintln!(
        "games per case {games_per_case}: {kept_games} of {} games on disk when {}",
        4 * games_per_case,
        if was_killed {
            "killed"
        } else {
            "the run ended"
        }
    );
    ok(&["run", "--resume", s(&killed), "--progress", "never"]);
    arena().args(args(&whole)).assert().success();

    for f in RESULT_FILES {
        assert!(
            read(&killed.join(f)) == read(&whole.join(f)),
            "{f} of the resumed run differs from the uninterrupted run \
             (games per case {games_per_case}, {kept_games} games on disk at the kill)"
        );
    }
    let total = 4 * games_per_case as usize;
    assert_eq!(table(&read(&killed.join("games.csv"))).len(), total);
    // What was on disk was kept: the resume only appended.
    assert!(
        read(&games).starts_with(&kept),
        "the resume rewrote games.csv"
    );
    if was_killed {
        assert!(kept_games < total, "killed before the end");
        let log = read(&killed.join("run.log"));
        assert!(
            log.contains(&format!("resume: {kept_games} games on disk")),
            "{log}"
        );
    }
    was_killed
}

#[cfg(unix)]
#[test]
fn resume_after_sigkill_matches_an_uninterrupted_run() {
    let mut games_per_case = 8000;
    for _ in 0..3 {
        if kill_and_resume(games_per_case) {
            return;
        }
        games_per_case *= 4;
    }
    eprintln!("warning: the run always finished before the kill; only equality was checked");
}

#[test]
fn resume_cuts_a_torn_last_line_and_replays_the_rest() {
    let t = tmp();
    let out = t.path().join("run");
    ok(&match_args(
        "dominoes",
        &["greedy", "random"],
        "5,4 9,7",
        "6",
        s(&out),
    ));
    let expected: Vec<String> = RESULT_FILES.iter().map(|f| read(&out.join(f))).collect();
    // As if killed mid-write: the header, five whole rows and half of the sixth.
    let games = read(&out.join("games.csv"));
    let lines: Vec<&str> = games.split_inclusive('\n').collect();
    let torn = format!("{}{}", lines[..6].concat(), &lines[6][..lines[6].len() / 2]);
    std::fs::write(out.join("games.csv"), &torn).unwrap();
    std::fs::remove_file(out.join("summary.csv")).unwrap();
    ok(&["run", "--resume", s(&out), "--progress", "never"]);
    let got: Vec<String> = RESULT_FILES.iter().map(|f| read(&out.join(f))).collect();
    assert_eq!(got, expected);
    let log = read(&out.join("run.log"));
    assert!(
        log.contains("resume: 5 games on disk, 7 games to play"),
        "{log}"
    );
}

// ---------------------------------------------------------------------------------
// SPRT early stopping.

#[test]
fn sprt_stops_early_and_identically_at_any_concurrency() {
    let t = tmp();
    let config = write_config(
        t.path(),
        "sprt.toml",
        "game = \"quarto\"\ngames_per_case = 1000\nseed = 3\nagents = [\"greedy\", \"random\"]\n\n[sprt]\nelo0 = 0\nelo1 = 50\n",
    );
    let scheduled = 4 * 1000;
    let mut dirs = Vec::new();
    for c in ["1", "2"] {
        let out = t.path().join(format!("c{c}"));
        let stdout = ok(&[
            "run",
            s(&config),
            "--out",
            s(&out),
            "--concurrency",
            c,
            "--progress",
            "never",
        ]);
        assert!(stdout.contains("SPRT"), "{stdout}");
        let json: serde_json::Value =
            serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
        assert_eq!(json["stopped_early"], true, "{json}");
        assert_eq!(json["matchups"][0]["sprt"]["decision"], "H1", "{json}");
        let rows = table(&read(&out.join("games.csv")));
        assert!(
            !rows.is_empty() && rows.len().is_multiple_of(2),
            "{} rows",
            rows.len()
        );
        assert!(rows.len() < scheduled, "{} rows", rows.len());
        // Cases are interleaved: a run stopped early has sampled every case.
        let cases: BTreeSet<&str> = rows.iter().map(|r| r["case"].as_str()).collect();
        assert_eq!(cases.len(), 4, "{cases:?} after {} games", rows.len());
        assert_eq!(json["matchups"][0]["overall"]["games"], rows.len());
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(r["game"], i.to_string());
        }
        let log = read(&out.join("run.log"));
        assert!(log.contains("stopped by the SPRT"), "{log}");
        dirs.push(out);
    }
    for f in RESULT_FILES {
        assert!(
            read(&dirs[0].join(f)) == read(&dirs[1].join(f)),
            "{f} differs between concurrency 1 and 2"
        );
    }
    // Resuming a stopped run plays nothing more.
    let games = read(&dirs[1].join("games.csv"));
    ok(&["run", "--resume", s(&dirs[1]), "--progress", "never"]);
    assert_eq!(read(&dirs[1].join("games.csv")), games);
}

#[test]
fn solve_prints_values_and_moves_and_names_bad_lines() {
    let out = arena()
        .args(["solve", "dominoes", "5|2,4|1-2|0-0,3-3|0"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "5|2,4|1-2|0-0,3-3|0 1 L0\n"
    );
    // The notes' trap position: the only win is (6, 5).
    let out = arena()
        .args(["solve", "quarto", ".8f.eb..1d2.....:7", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], "win");
    assert_eq!(v["moves"], serde_json::json!(["6 5"]));
    let out = arena()
        .args(["solve", "dominoes"])
        .write_stdin("5|0,4|0-1,3-4|3-3|0\nnonsense\n5|2,4||1-1|0\n5|2,4|0-3|1-1|0\n")
        .output()
        .unwrap();
    // A bad line does not stop the batch: it gets an error line, and the exit code 2
    // comes at the end.
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[1].starts_with("nonsense error: "), "{stdout}");
    assert!(lines[2].contains("the game is over"), "{stdout}");
    assert!(lines[3].starts_with("5|2,4|0-3|1-1|0 0 "), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 2") && stderr.contains("nonsense") && stderr.contains("2 of 4"),
        "{stderr}"
    );
    // Finished games are refused: nobody is to move.
    for (game, position) in [
        ("quarto", "7938a2bdf5c01e46:-"),
        ("dominoes", "8|3,5|3-3||0"),
    ] {
        let out = arena().args(["solve", game, position]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{position}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(position) && stderr.contains("the game is over"),
            "{stderr}"
        );
    }
}

#[test]
fn careless_inputs_get_errors_that_say_what_to_do() {
    let t = tmp();
    // Cases written with commas only.
    fails(
        &match_args(
            "dominoes",
            &["greedy", "random"],
            "5,4,9,7",
            "2",
            s(&t.path().join("r")),
        ),
        &["5,4,9,7", "separated by spaces"],
    );
    // Resuming a directory that is not there.
    let missing = t.path().join("nowhere");
    fails(
        &["run", "--resume", s(&missing)],
        &[s(&missing), "does not exist"],
    );
    // A perft past the end of the game.
    fails(&["perft", "quarto", "18"], &["at most 17 plies"]);
    // Replay takes the game number as -n / --number.
    let out = t.path().join("run");
    ok(&match_args(
        "dominoes",
        &["greedy", "random"],
        "5,4",
        "2",
        s(&out),
    ));
    let a = ok(&["replay", s(&out), "-n", "1"]);
    let b = ok(&["replay", s(&out), "--number", "1"]);
    assert_eq!(a, b);
    assert!(a.starts_with("game 1:"), "{a}");
}

#[test]
fn solve_quarto_value_only_with_a_node_budget_and_books_that_are_re_proved() {
    // The trap position: the only win is (6, 5); value-only names one optimal move.
    let v = ok(&[
        "solve",
        "quarto",
        ".8f.eb..1d2.....:7",
        "--value-only",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&v).unwrap();
    assert_eq!(v["value"], "win");
    assert_eq!(v["moves"], serde_json::json!(["6 5"]));
    // A budget too small for a 12-empty position is refused, not ignored.
    fails(
        &["solve", "quarto", ".8f.eb..1d2.....:7", "--nodes", "1"],
        &["node budget", "--nodes"],
    );
    let t = tmp();
    // A book file is re-proved entry by entry; a wrong entry is named by its line.
    let good = t.path().join("good.txt");
    std::fs::write(
        &good,
        "# variant position value move\nlines .8f.eb..1d2.....:7 win 6 5\n",
    )
    .unwrap();
    let said = ok(&["book", "quarto", "--verify", s(&good)]);
    assert!(said.contains("1 entries re-proved"), "{said}");
    let bad = t.path().join("bad.txt");
    std::fs::write(&bad, "lines .8f.eb..1d2.....:7 draw 6 5\n").unwrap();
    fails(
        &["book", "quarto", "--verify", s(&bad)],
        &["bad.txt", "line 1"],
    );
    // Building: every entry within 1 ply of the empty board, each within its budget.
    let out = t.path().join("book.txt");
    ok(&[
        "book",
        "quarto",
        "--plies",
        "1",
        "--nodes",
        "1000",
        "--out",
        s(&out),
    ]);
    let text = read(&out);
    let entries: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!entries.is_empty(), "{text}");
    assert!(entries.iter().all(|l| l.starts_with("lines ")), "{text}");
    ok(&["book", "quarto", "--verify", s(&out), "--nodes", "1000"]);
    fails(
        &["book", "dominoes", "--out", s(&out)],
        &["no book for dominoes"],
    );
}

/// Every option of every subcommand says what it does (`--help`), and `match --help`
/// lists the built-in agents of each game.
#[test]
fn every_option_has_help_and_match_lists_the_built_ins() {
    for sub in [
        "run", "match", "merge", "replay", "report", "perft", "serve", "train", "solve", "book",
        "gen", "score", "vis",
    ] {
        let out = arena().args([sub, "--help"]).output().unwrap();
        assert!(out.status.success(), "{sub}");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let flag = line.trim_start();
            // Options (`-x`, `--name`) and positional arguments (`<NAME>`, `[NAME]`).
            if line.starts_with("  ")
                && (flag.starts_with('-') || flag.starts_with('<') || flag.starts_with('['))
            {
                // The help follows on the same line (after a run of blanks) or below.
                let inline = flag.split("  ").filter(|p| !p.trim().is_empty()).count() > 1;
                let next = lines.get(i + 1).map_or("", |l| l.trim());
                let below = !next.is_empty() && !next.starts_with(['-', '<', '[']);
                assert!(inline || below, "{sub}: {flag} has no help");
            }
        }
    }
    let out = arena().args(["match", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for names in [agents::dominoes::NAMES, agents::quarto::NAMES] {
        for name in names {
            assert!(text.contains(name), "{name} missing from match --help");
        }
    }
    assert!(text.contains("dominoes: ") && text.contains("quarto: "));
}

/// Training that diverges (a huge step) writes no weights file the loader would refuse:
/// it says why and exits 2.
#[test]
fn training_that_diverges_writes_nothing() {
    let t = tmp();
    let out = t.path().join("huge.json");
    fails(
        &[
            "train",
            "dominoes",
            "--games",
            "40",
            "--generations",
            "1",
            "--learning-rate",
            "1e9",
            "--progress",
            "never",
            "--out",
            s(&out),
        ],
        &["not written", "--learning-rate"],
    );
    assert!(!out.exists());
}

/// `arena doctor` where layers are missing (here: as an unprivileged user, who has no
/// cgroup of its own) prints its table, or its JSON, with the missing layers on stdout,
/// nothing on stderr, and exits 1, for a contest's setup script to check. Needs root (to
/// become `nobody`) and `setpriv`; skipped otherwise.
#[test]
fn doctor_exits_1_naming_the_missing_layers() {
    let as_nobody = || {
        let mut cmd = std::process::Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_arena"))
            .current_dir("/");
        cmd
    };
    let can_run = nix::unistd::geteuid().is_root()
        && as_nobody()
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !can_run {
        eprintln!("SKIPPED: needs root, setpriv and a binary `nobody` may run");
        return;
    }
    for json in [false, true] {
        let mut cmd = as_nobody();
        cmd.arg("doctor");
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{stdout}");
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if json {
            let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            let layers = report["layers"].as_object().expect("layers");
            let missing: Vec<&String> = layers
                .iter()
                .filter(|(_, held)| **held == serde_json::Value::Bool(false))
                .map(|(id, _)| id)
                .collect();
            assert!(!missing.is_empty(), "{stdout}");
            for id in missing {
                assert!(report["why"][id].is_string(), "{stdout}");
            }
        } else {
            let last = stdout.lines().last().unwrap_or_default();
            let ids = last
                .strip_prefix("missing: ")
                .expect("a last line naming them");
            for id in ids.split(", ") {
                assert!(stdout.contains(&format!("NO  {id:<10}")), "{stdout}");
            }
        }
    }
}
