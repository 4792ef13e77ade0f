//! External agents end to end: served built-ins match in-process ones, sample bots play
//! clean games, and every kind of broken bot forfeits only its own games.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// The fault bot's path and a tag naming the test, so that a test checks for leftovers of
/// its own bots only (tests of this file run side by side).
fn fixture(tag: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fault_bot.py");
    format!("{} --tag={tag}", path.display())
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .display()
        .to_string()
}

fn run_config(dir: &Path, config: &str) -> (PathBuf, std::process::Output) {
    let path = dir.join("config.toml.in");
    std::fs::write(&path, config).unwrap();
    let out = dir.join("run");
    let output = Command::new(ARENA)
        .args([
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--progress",
            "never",
        ])
        .args(["--concurrency", "4"])
        .output()
        .unwrap();
    (out, output)
}

/// Runs a config that must succeed; its run directory and rows.
fn run_ok(dir: &Path, config: &str) -> (PathBuf, Vec<csv::StringRecord>) {
    let (out, output) = run_config(dir, config);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows = rows(&out);
    (out, rows)
}

fn rows(dir: &Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(dir.join("games.csv")).unwrap();
    r.records().map(Result::unwrap).collect()
}

/// Processes still running one of this test's fixtures (none may outlive a run).
fn leftover_fixture_processes(tag: &str) -> Vec<String> {
    let tag = format!("--tag={tag}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains("fault_bot.py") && cmd.contains(&tag) {
                found.push(cmd);
            }
        }
    }
    found
}

/// Runs the same deterministic built-in in-process and through `arena serve`; the two
/// `games.csv` must be identical. (Seeded agents differ by design: the arena never tells
/// a bot its seed, so a served one draws from its own.)
fn served_equals_in_process(game: &str, cases: &str, spec: &str) {
    let t = tempfile::tempdir().unwrap();
    let config = |agent: &str| {
        format!(
            "game = \"{game}\"\ncases = \"{cases}\"\ngames_per_case = 4\nseed = 5\n\
             [[agents]]\nname = \"{spec}\"\nspec = \"{agent}\"\n[[agents]]\nname = \"other\"\nspec = \"greedy\"\n"
        )
    };
    let a = t.path().join("a");
    let b = t.path().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let (ra, oa) = run_config(&a, &config(spec));
    assert!(
        oa.status.success(),
        "{}",
        String::from_utf8_lossy(&oa.stderr)
    );
    let served = format!("exec:{ARENA} serve {spec} --game {game}");
    let (rb, ob) = run_config(&b, &config(&served));
    assert!(
        ob.status.success(),
        "{}",
        String::from_utf8_lossy(&ob.stderr)
    );
    let ga = std::fs::read_to_string(ra.join("games.csv")).unwrap();
    let gb = std::fs::read_to_string(rb.join("games.csv")).unwrap();
    assert_eq!(ga, gb, "{game}: in-process and served games differ");
    assert!(ga.lines().count() > 8);
}

#[test]
fn a_served_builtin_plays_exactly_like_the_in_process_one() {
    served_equals_in_process("dominoes", "all", "greedy");
}

#[test]
fn sample_bots_play_clean_games() {
    if !common::have("python3") || !common::have("cc") {
        return;
    }
    let mut bots = vec![
        (
            "dominoes",
            format!("exec:python3 {}", repo("examples/python/dominoes_bot.py")),
            "5,4 9,7",
        ),
        (
            "quarto",
            format!("exec:python3 {}", repo("examples/python/quarto_bot.py")),
            "lines:0 squares:4",
        ),
    ];
    let t = tempfile::tempdir().unwrap();
    let binary = t.path().join("dominoes_bot");
    let cc = Command::new("cc")
        .args([
            "-O2",
            "-o",
            binary.to_str().unwrap(),
            &repo("examples/c/dominoes_bot.c"),
        ])
        .status();
    assert!(
        cc.is_ok_and(|s| s.success()),
        "the C sample bot must compile with cc"
    );
    bots.push(("dominoes", format!("exec:{}", binary.display()), "all"));
    for (i, (game, spec, cases)) in bots.iter().enumerate() {
        let dir = t.path().join(format!("bot{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let config = format!(
            "game = \"{game}\"\ncases = \"{cases}\"\ngames_per_case = 6\nagents = [\"{spec}\", \"random\"]\n"
        );
        let (out, output) = run_config(&dir, &config);
        assert!(
            output.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let rows = rows(&out);
        assert!(!rows.is_empty());
        for r in &rows {
            assert_eq!(&r[9], "", "{spec} forfeited: {r:?}");
        }
    }
}

#[test]
fn every_kind_of_broken_bot_forfeits_only_its_own_games() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("every-kind");
    // Bots that never start (`exit`, a missing program) stop the run instead: tested
    // below in `a_bot_that_cannot_start_stops_the_run`.
    let faults = [
        ("crash", "crash 1", "crash"),
        ("hang", "hang", "timeout"),
        ("sleep", "sleep", "timeout"),
        ("flood", "flood", "malformed"),
        ("stderr", "stderr", ""),
        ("garbage", "garbage", "malformed"),
        ("illegal", "illegal", "illegal"),
        ("memory", "memory", "memory"),
    ];
    let mut config = String::from(
        "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 2\nseed = 3\n\
         [limits]\ncall_ms = 1000\nstartup_ms = 3000\nmemory_mb = 64\n\
         [[agents]]\nname = \"greedy\"\nspec = \"greedy\"\n",
    );
    for (name, mode, _) in faults {
        config.push_str(&format!(
            "[[agents]]\nname = \"{name}\"\nspec = \"exec:python3 {fix} {mode}\"\n"
        ));
    }
    let expected = |name: &str| -> &str {
        match name {
            "greedy" => "",
            _ => faults.iter().find(|f| f.0 == name).unwrap().2,
        }
    };
    let t = tempfile::tempdir().unwrap();
    let (out, output) = run_config(t.path(), &config);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 9 * 8 / 2 * 2, "the whole round robin completes");
    let mut seen = std::collections::BTreeMap::new();
    for r in &rows {
        let (a, b, termination, forfeit) = (&r[4], &r[5], &r[8], &r[9]);
        let score_a: f64 = r[6].parse().unwrap();
        let score_b: f64 = r[7].parse().unwrap();
        assert_eq!(score_a + score_b, 1.0);
        match forfeit {
            "a" => {
                assert!(!r[10].is_empty(), "a forfeit says why: {r:?}");
                assert_eq!(termination, expected(a), "{r:?}");
                assert_eq!(score_a, 0.0);
                *seen.entry(a.to_owned()).or_insert(0) += 1;
            }
            "b" => {
                assert!(!r[10].is_empty(), "a forfeit says why: {r:?}");
                assert_eq!(termination, expected(b), "{r:?}");
                assert_eq!(score_b, 0.0);
                *seen.entry(b.to_owned()).or_insert(0) += 1;
            }
            _ => assert!(["domino", "blocked"].contains(&termination), "{r:?}"),
        }
    }
    // An illegal move's reason says what is wrong with it.
    for r in rows.iter().filter(|r| &r[8] == "illegal") {
        assert!(r[10].starts_with("L99: the hand holds "), "{r:?}");
    }
    for name in [
        "hang", "sleep", "flood", "garbage", "illegal", "memory", "crash",
    ] {
        assert!(
            seen.get(name).copied().unwrap_or(0) > 0,
            "{name} never forfeited: {seen:?}"
        );
    }
    assert!(
        !seen.contains_key("greedy") && !seen.contains_key("stderr"),
        "{seen:?}"
    );
    // The built-in wins every game against a bot that cannot finish one.
    for r in rows
        .iter()
        .filter(|r| &r[4] == "greedy" && !["stderr", "crash"].contains(&&r[5]))
    {
        assert_eq!(&r[6], "1", "{r:?}");
    }
    // stderr was drained into a bounded log.
    let log = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().contains("-stderr"))
        .expect("a stderr log for the chatty bot");
    let size = log.metadata().unwrap().len();
    assert!(size > 100_000 && size < (1 << 20) + 1000, "{size}");
    // Processes of one agent share its log: every line says whose it is.
    let text = String::from_utf8_lossy(&std::fs::read(log.path()).unwrap()).into_owned();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("[arena:"))
    {
        assert!(
            line.starts_with("[case 5,4 process ")
                && line.contains(" game ")
                && line.contains("] debug"),
            "{}",
            &line[..line.len().min(80)]
        );
    }
    assert!(
        leftover_fixture_processes("every-kind").is_empty(),
        "{:?}",
        leftover_fixture_processes("every-kind")
    );
}

/// Where the kernel enforces Landlock, a bot cannot read the run directory; where it does
/// not, the run log says so.
#[test]
fn a_confined_bot_cannot_read_the_run_directory() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("snoop");
    let t = tempfile::tempdir().unwrap();
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4 7,5\"\ngames_per_case = 4\n\
         agents = [\"exec:python3 {fix} snoop\", \"random\"]\n"
    );
    let Some(rows) = run_confined(t.path(), &config) else {
        return;
    };
    for r in rows {
        assert_eq!(&r[9], "", "the snooping bot read the run directory: {r:?}");
    }
}

/// Runs a config whose bots are confined (the run log says the probe saw the filesystem
/// layer hold), and returns its rows.
fn run_confined(dir: &Path, config: &str) -> Option<Vec<csv::StringRecord>> {
    let (out, output) = run_config(dir, config);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log = std::fs::read_to_string(out.join("run.log")).unwrap();
    assert!(
        log.contains("observed from inside a probe on this machine: ")
            && log.contains(" filesystem,"),
        "{log}"
    );
    Some(rows(&out))
}

/// `[limits] read_paths` lets a confined bot read a model file outside its folder; without
/// it, the bot cannot (where Landlock is enforced).
#[test]
fn read_paths_let_a_confined_bot_read_its_model() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("model");
    for allowed in [false, true] {
        let t = tempfile::tempdir().unwrap();
        let model = t.path().join("model");
        std::fs::create_dir_all(&model).unwrap();
        std::fs::write(model.join("weights.txt"), "0.5\n").unwrap();
        let limits = if allowed {
            format!("[limits]\nread_paths = [\"{}\"]\n", model.display())
        } else {
            String::new()
        };
        let config = format!(
            "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 4\n\
             agents = [\"exec:python3 {fix} model\", \"random\"]\n{limits}"
        );
        let Some(rows) = run_confined(t.path(), &config) else {
            return;
        };
        let forfeits = rows.iter().filter(|r| &r[9] == "a").count();
        if allowed {
            assert_eq!(forfeits, 0, "the model was allowed");
        } else {
            assert_eq!(forfeits, 4, "the model was out of reach");
        }
    }
}

/// TopCoder's rule: once an agent's time for a case is used up, the rest of the case is
/// lost at once. A sleeping bot with a small budget gives the same games.csv every run.
#[test]
fn a_spent_case_budget_loses_the_rest_of_the_case_identically_every_run() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("budget");
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 12\nseed = 3\n\
         concurrency = 1\n\
         agents = [\"greedy\", \"exec:python3 {fix} sleep\"]\n\
         [limits]\ncase_budget_ms = 700\n"
    );
    let mut runs = Vec::new();
    for _ in 0..3 {
        let t = tempfile::tempdir().unwrap();
        let (out, output) = run_config(t.path(), &config);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let games = std::fs::read_to_string(out.join("games.csv")).unwrap();
        let rows = rows(&out);
        assert_eq!(rows.len(), 12);
        // Every game is lost by the sleeper on time, the first one by the per-call wait,
        // every later one at once (no play from it: `plies` counts only greedy's moves).
        for r in &rows {
            assert_eq!((&r[8], &r[9]), ("timeout", "b"), "{r:?}");
        }
        runs.push(games);
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[1], runs[2]);
}

/// A bot that never answers `init` (it exits, or its program is missing) stops the run at
/// its first game with exit 2, the reason, and its stderr; the rest is not played.
#[test]
fn a_bot_that_cannot_start_stops_the_run() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("cannot-start");
    for (spec, says) in [
        (format!("exec:python3 {fix} exit"), "could not start"),
        ("exec:/nonexistent/arena-bot".to_owned(), "not found"),
    ] {
        let t = tempfile::tempdir().unwrap();
        let config = format!(
            "game = \"dominoes\"\ncases = \"5,4 6,4\"\ngames_per_case = 10\n\
             agents = [\"greedy\", \"{spec}\"]\n[limits]\nstartup_ms = 3000\n"
        );
        let (out, output) = run_config(t.path(), &config);
        assert_eq!(output.status.code(), Some(2), "{spec}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(says) && stderr.contains("--resume"),
            "{spec}: {stderr}"
        );
        // Its first game stopped the run and is no result: nothing recorded.
        let rows = rows(&out);
        assert!(rows.is_empty(), "{spec}: {} games recorded", rows.len());
        let left = leftover_fixture_processes("cannot-start");
        assert!(left.is_empty(), "{spec}: {left:?}");
    }
}

/// One reply grammar in both games (`docs/protocol.md`): in Quarto a square or piece past
/// 15 is `illegal` (as a Dominoes index past the hand is), and blanks or leading zeros
/// are `malformed` (as in Dominoes).
#[test]
fn quarto_replies_are_judged_by_the_documented_grammar() {
    if !common::have("python3") {
        return;
    }
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/quarto_reply_bot.py");
    for (mode, termination, reason) in [
        ("out-of-range", "illegal", "there is no square 16"),
        ("two-spaces", "malformed", "0  1"),
        ("leading-zero", "malformed", "00 1"),
    ] {
        let t = tempfile::tempdir().unwrap();
        let config = format!(
            "game = \"quarto\"\ncases = \"lines:0 lines:2\"\ngames_per_case = 4\n\
             agents = [\"exec:python3 {} {mode}\", \"greedy\"]\n",
            bot.display()
        );
        let (out, output) = run_config(t.path(), &config);
        assert!(
            output.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let rows = rows(&out);
        assert_eq!(rows.len(), 8, "{mode}");
        for r in &rows {
            assert_eq!((&r[8], &r[9]), (termination, "a"), "{mode}: {r:?}");
            assert!(r[10].contains(reason), "{mode}: {r:?}");
        }
    }
}

/// The bots' directories under the run directory `out`.
fn bot_dirs(out: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(out.join("agents"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// With a relative `--out` (the default `results/...` is one) a bot still gets an
/// absolute HOME and TMPDIR, both its own working folder, and may write there. The
/// folder is a private tmpfs: nothing the bot writes reaches the run directory.
#[test]
fn a_bot_writes_its_own_directory_under_a_relative_out_dir() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("home");
    let t = tempfile::tempdir().unwrap();
    let output = Command::new(ARENA)
        .current_dir(t.path())
        .args(["match", "--game", "dominoes", "--cases", "5,4"])
        .args([
            "--games-per-case",
            "4",
            "--progress",
            "never",
            "--out",
            "run",
        ])
        .args([
            "--agent",
            &format!("exec:python3 {fix} home"),
            "--agent",
            "random",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = t.path().join("run");
    let rows = rows(&out);
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(&r[9], "", "the bot could not use its directory: {r:?}");
    }
    let notes: Vec<PathBuf> = bot_dirs(&out)
        .into_iter()
        .map(|d| d.join("notes.txt"))
        .filter(|p| p.exists())
        .collect();
    assert_eq!(notes, Vec::<PathBuf>::new(), "{:?}", bot_dirs(&out));
}

/// A line the arena did not ask for (written after a reply, and there when the next call
/// is sent) forfeits the writer's game as `malformed`; it is never played as a move.
#[test]
fn output_nobody_asked_for_is_malformed() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("unasked");
    let t = tempfile::tempdir().unwrap();
    // The other bot thinks 0.1 s a move: the extra line is in the pipe well before the
    // writer's next call.
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4 7,5\"\ngames_per_case = 2\n\
         agents = [\"exec:python3 {fix} unasked\", \"exec:python3 {fix} slow\"]\n"
    );
    let (_, rows) = run_ok(t.path(), &config);
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!((&r[8], &r[9]), ("malformed", "a"), "{r:?}");
        assert!(
            r[10].contains("not asked for") && r[10].contains("hello"),
            "{r:?}"
        );
    }
}

/// `arena replay` plays a game again; when an external bot does not play it the same way,
/// the replay says so and shows both outcomes.
#[test]
fn a_replay_that_differs_from_the_record_says_so() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("once");
    let t = tempfile::tempdir().unwrap();
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 2\n\
         agents = [\"exec:python3 {fix} once\", \"greedy\"]\n\
         [limits]\nsandbox = \"off\"\n"
    );
    let path = t.path().join("config.toml.in");
    std::fs::write(&path, config).unwrap();
    let out = t.path().join("run");
    // One process plays both games (it marks its directory when it starts).
    let output = Command::new(ARENA)
        .args([
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--progress", "never", "--concurrency", "1"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(
        rows(&out).iter().all(|r| r[9].is_empty()),
        "played well at first"
    );
    let replay = Command::new(ARENA)
        .args(["replay", out.to_str().unwrap(), "--number", "0"])
        .output()
        .unwrap();
    assert!(replay.status.success());
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        text.contains("warning: this replay differs") && text.contains("illegal"),
        "{text}"
    );
    // A built-in game replays exactly, with no warning.
    let built_in = t.path().join("built-in");
    std::fs::create_dir_all(&built_in).unwrap();
    let (same, _) = run_ok(
        &built_in,
        "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 2\nagents = [\"greedy\", \"random\"]\n",
    );
    let replay = Command::new(ARENA)
        .args(["replay", same.to_str().unwrap(), "--number", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replay.status.success() && text.contains("result:"),
        "{text}"
    );
    assert!(!text.contains("warning"), "{text}");
}

/// A run directory inside the bot's own folder (readable to it) is covered in the bot's
/// view: the snooping bot cannot read the run's config there either.
#[test]
fn a_run_directory_inside_the_bots_folder_is_hidden_from_it() {
    if !common::have("python3") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let folder = t.path().join("bot");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fault_bot.py"),
        folder.join("fault_bot.py"),
    )
    .unwrap();
    for out in ["run", "../run"] {
        let output = Command::new(ARENA)
            .current_dir(&folder)
            .args(["match", "--game", "dominoes", "--cases", "5,4"])
            .args(["--games-per-case", "2", "--progress", "never", "--out", out])
            .args([
                "--agent",
                "exec:python3 fault_bot.py snoop",
                "--agent",
                "random",
            ])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        for r in rows(&folder.join(out)) {
            assert_eq!(
                &r[9], "",
                "--out {out}: the bot read the run directory: {r:?}"
            );
        }
    }
}

/// From the repository root, where `arena/` is a folder: the program word `arena` is found
/// on PATH as `sh` finds it (not rewritten into the folder), and `./target/.../arena` is a
/// path to the binary. Both play exactly like the in-process agent.
#[test]
fn exec_arena_serve_plays_from_the_repository_root() {
    let t = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let root = root.canonicalize().unwrap();
    let bin = Path::new(ARENA);
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let play = |name: &str, spec: &str| {
        let out = t.path().join(name);
        let output = Command::new(ARENA)
            .current_dir(&root)
            .env("PATH", &path)
            .args(["match", "--game", "dominoes", "--cases", "5,4 9,7"])
            .args(["--games-per-case", "4", "--progress", "never"])
            .args(["--agent", &format!("me={spec}"), "--agent", "random"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::read_to_string(out.join("games.csv")).unwrap()
    };
    let in_process = play("in-process", "greedy");
    assert_eq!(in_process.lines().count(), 9, "{in_process}");
    let on_path = play("on-path", "exec:arena serve greedy --game dominoes");
    assert_eq!(on_path, in_process, "exec:arena serve ... from the root");
    match bin.strip_prefix(&root) {
        Ok(relative) => {
            let spec = format!("exec:./{} serve greedy --game dominoes", relative.display());
            assert_eq!(play("relative", &spec), in_process, "{spec}");
        }
        Err(_) => common::skip("the arena binary is outside the repository (CARGO_TARGET_DIR)"),
    }
}

/// A crash is charged the time it took to be seen, not the per-call cap: a bot that
/// crashes in every game loses each as `crash`, and never as `timeout` for a case budget
/// that crashes could not have spent (20 crashes at a 1 s cap against a 5 s budget: once
/// the fifth crash was charged the cap, the other 15 games were lost as `timeout`).
#[test]
fn a_crash_is_charged_what_it_took_not_the_call_cap() {
    if !common::have("python3") {
        return;
    }
    let fix = fixture("crash-charge");
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 20\nseed = 4\n\
         agents = [\"exec:python3 {fix} crash 0\", \"greedy\"]\n\
         [limits]\ncall_ms = 1000\ncase_budget_ms = 5000\n"
    );
    let t = tempfile::tempdir().unwrap();
    let (_, rows) = run_ok(t.path(), &config);
    assert_eq!(rows.len(), 20);
    let terminations: Vec<&str> = rows.iter().map(|r| &r[8]).collect();
    assert!(
        terminations.iter().all(|&t| t == "crash"),
        "{terminations:?}"
    );
}

/// The cores a run's bots may use, as each bot read them from its own /proc (its stderr
/// log's lines), for a run with `extra` flags.
fn bot_cores(dir: &Path, extra: &[&str]) -> Vec<String> {
    let out = dir.join("run");
    let bot = format!(
        "exec:sh -c 'grep Cpus_allowed_list /proc/self/status >&2; exec {ARENA} serve greedy --game dominoes'"
    );
    let output = Command::new(ARENA)
        .args([
            "match", "--game", "dominoes", "--agent", &bot, "--agent", "greedy",
        ])
        .args([
            "--cases",
            "5,4 9,7",
            "--games-per-case",
            "4",
            "--progress",
            "never",
        ])
        .arg("--out")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut cores = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("stderr-") {
            let log = std::fs::read_to_string(entry.path()).unwrap();
            cores.extend(log.lines().filter_map(|l| {
                let (_, list) = l.split_once("Cpus_allowed_list:")?;
                Some(list.trim().to_owned())
            }));
        }
    }
    cores
}

/// A game thread is pinned to a core of its own when there are enough, and the bots it
/// starts run on that core (`docs/protocol.md`, *One core per game*); `--no-pin` leaves
/// them every core the arena has.
#[test]
fn bots_run_on_their_game_threads_core_unless_no_pin() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let ours = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_owned();
    let t = tempfile::tempdir().unwrap();
    let pinned = bot_cores(&t.path().join("pinned"), &["--concurrency", "1"]);
    assert_eq!(pinned.len(), 2, "one process per case: {pinned:?}");
    for list in &pinned {
        assert!(
            list.parse::<usize>().is_ok(),
            "a pinned bot may run on one core only, not {list:?}"
        );
    }
    let free = bot_cores(&t.path().join("free"), &["--concurrency", "1", "--no-pin"]);
    assert_eq!(free.len(), 2, "{free:?}");
    for list in &free {
        assert_eq!(list, &ours, "--no-pin: every core the arena may use");
    }
}

/// The arena under test: `ARENA_BIN` where set (an older build, to see a test fail).
fn arena_under_test() -> String {
    std::env::var("ARENA_BIN").unwrap_or_else(|_| ARENA.to_owned())
}

fn start_bot(options: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/start_bot.py");
    format!("exec:python3 {} {options}", path.display())
}

/// Runs (or, with `--resume`, finishes) `config` into `dir/run` at `concurrency`.
fn run_at(dir: &Path, config: &str, concurrency: usize) -> (PathBuf, std::process::Output) {
    let path = dir.join("config.toml");
    std::fs::write(&path, config).unwrap();
    let out = dir.join("run");
    let output = Command::new(arena_under_test())
        .args([
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args([
            "--progress",
            "never",
            "--concurrency",
            &concurrency.to_string(),
        ])
        .output()
        .unwrap();
    (out, output)
}

fn succeeded(output: &std::process::Output) -> bool {
    output.status.success()
}

/// A row without its running check (the last column), which depends on every row before.
fn unchecked(r: &csv::StringRecord) -> Vec<String> {
    r.iter().take(r.len() - 1).map(str::to_owned).collect()
}

/// The rows of the games `agent` played, in game order.
fn games_of<'r>(rows: &'r [csv::StringRecord], agent: &str) -> Vec<&'r csv::StringRecord> {
    rows.iter()
        .filter(|r| &r[4] == agent || &r[5] == agent)
        .collect()
}

/// Issue 41 point 7: a bot that plays its first case and then refuses to start loses its
/// own games only. The run completes; the pairing without it is played in full, row for
/// row as when that bot is healthy; the bot's games from its second case on are its own
/// `startup` forfeits, the first `start_failures` (3) of each case tried and the rest
/// given up; and the rows are the same at any concurrency.
#[test]
fn a_bot_that_stops_starting_loses_its_own_games_and_the_tournament_goes_on() {
    if !common::have("python3") {
        return;
    }
    let config = |bot: &str| {
        format!(
            "game = \"dominoes\"\ncases = \"5,4 6,4 7,4\"\ngames_per_case = 6\n\
             agents = [\"greedy\", \"random\", \"{bot}\"]\n[limits]\nstartup_ms = 5000\n"
        )
    };
    let healthy = tempfile::tempdir().unwrap();
    let (out, output) = run_at(healthy.path(), &config(&start_bot("")), 4);
    assert!(
        succeeded(&output),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let healthy_rows = rows(&out);
    let pairing = |rows: &[csv::StringRecord]| -> Vec<Vec<String>> {
        rows.iter()
            .filter(|r| (&r[4], &r[5]) == ("greedy", "random"))
            .map(unchecked)
            .collect()
    };
    assert_eq!(pairing(&healthy_rows).len(), 18);

    let bot = start_bot("--only=5,4");
    let mut files = Vec::new();
    for concurrency in [4, 1] {
        let t = tempfile::tempdir().unwrap();
        let (out, output) = run_at(t.path(), &config(&bot), concurrency);
        assert!(
            succeeded(&output),
            "concurrency {concurrency}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let rows = rows(&out);
        assert_eq!(rows.len(), 54, "every game of the run is recorded");
        assert_eq!(pairing(&rows), pairing(&healthy_rows));
        for case in ["5,4", "6,4", "7,4"] {
            let games: Vec<_> = games_of(&rows, &bot)
                .into_iter()
                .filter(|r| &r[1] == case)
                .collect();
            assert_eq!(games.len(), 12, "{case}");
            for (n, r) in games.iter().enumerate() {
                if case == "5,4" {
                    assert_eq!(&r[9], "", "{r:?}");
                    continue;
                }
                assert_eq!((&r[8], &r[9]), ("startup", "b"), "{r:?}");
                let tried = r[10].contains("no answer to init");
                let given_up = r[10].contains(&format!("gave up in case {case} after 3"));
                assert_eq!(
                    (tried, given_up),
                    (n < 3, n >= 3),
                    "game {n} of {case}: {r:?}"
                );
            }
        }
        files.push(std::fs::read_to_string(out.join("games.csv")).unwrap());
    }
    assert_eq!(files[0], files[1], "the rows differ with the concurrency");
}

/// Only a bot that never started stops the run, and "started" means answered `init`:
/// a bot whose first games never asked it to start (the other bot lost at its `reset`
/// first) still stops the run at its first failed start, which is not recorded. (Before,
/// those games counted as its first, and its failures were never three in a row.)
#[test]
fn a_bot_that_never_started_stops_the_run_even_after_games_that_did_not_start_it() {
    if !common::have("python3") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let never = start_bot("--only=none");
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4 6,4\"\ngames_per_case = 4\n\
         agents = [\"{}\", \"{never}\", \"greedy\"]\n[limits]\nstartup_ms = 5000\n",
        start_bot("--reset-crash")
    );
    let (out, output) = run_at(t.path(), &config, 4);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("could not start") && stderr.contains("--resume"),
        "{stderr}"
    );
    let rows = rows(&out);
    // The games before it, and none of its start-up failures.
    assert!(!rows.is_empty());
    for r in &rows {
        assert_ne!(&r[8], "startup", "{r:?}");
    }
}

/// A bot that started in games already on disk and fails to start after `--resume` loses
/// its own games: the resumed run finishes.
#[test]
fn a_bot_that_started_before_a_resume_does_not_stop_the_resumed_run() {
    if !common::have("python3") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (broken_x, broken_y) = (t.path().join("broken-x"), t.path().join("broken-y"));
    let x = start_bot(&format!("--fail-if={}", broken_x.display()));
    let y = start_bot(&format!("--fail-if={}", broken_y.display()));
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4 6,4\"\ngames_per_case = 4\n\
         agents = [\"{x}\", \"greedy\", \"{y}\"]\n[limits]\nsandbox = \"off\"\n\
         startup_ms = 5000\n"
    );
    // Y cannot start: the run stops at its first game, after x's first games.
    std::fs::write(&broken_y, "").unwrap();
    let (out, output) = run_at(t.path(), &config, 1);
    assert_eq!(output.status.code(), Some(2));
    let before = rows(&out);
    assert!(
        games_of(&before, &x).iter().any(|r| r[9].is_empty()),
        "x started: {before:?}"
    );
    // Y fixed, x broken: x's failures are its own forfeits.
    std::fs::remove_file(&broken_y).unwrap();
    std::fs::write(&broken_x, "").unwrap();
    let output = Command::new(arena_under_test())
        .args([
            "run",
            "--resume",
            out.to_str().unwrap(),
            "--progress",
            "never",
        ])
        .output()
        .unwrap();
    assert!(
        succeeded(&output),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows = rows(&out);
    assert_eq!(rows.len(), 24);
    for r in games_of(&rows, &x).iter().skip(before.len()) {
        assert_eq!((&r[8], &r[9]), ("startup", "a"), "{r:?}");
    }
}

/// After `start_failures` failed starts in a row in a case, the rest of the agent's games
/// there are forfeited without starting it (counted by the starts it logs); the next
/// case tries again. At concurrency 1 the count is exact; at any concurrency the rows
/// are the same.
#[test]
fn a_case_is_given_up_after_start_failures_in_a_row_and_the_next_case_tries_again() {
    if !common::have("python3") {
        return;
    }
    let mut files = Vec::new();
    // One log for both runs (its path is in the bot's name, so in the rows).
    let t = tempfile::tempdir().unwrap();
    let log = t.path().join("starts.log");
    let bot = start_bot(&format!("--only=5,4 --log={}", log.display()));
    for concurrency in [1, 4] {
        let _ = std::fs::remove_file(&log);
        let dir = t.path().join(format!("concurrency-{concurrency}"));
        std::fs::create_dir(&dir).unwrap();
        let config = format!(
            "game = \"dominoes\"\ncases = \"5,4 6,4 7,4\"\ngames_per_case = 8\n\
             agents = [\"greedy\", \"{bot}\"]\n[limits]\nsandbox = \"off\"\n\
             start_failures = 2\nstartup_ms = 5000\n"
        );
        let (out, output) = run_at(&dir, &config, concurrency);
        assert!(
            succeeded(&output),
            "concurrency {concurrency}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let rows = rows(&out);
        assert_eq!(rows.len(), 24);
        let starts = std::fs::read_to_string(&log).unwrap();
        let started_in = |case: &str| {
            starts
                .lines()
                .filter(|l| *l == format!("start {case}"))
                .count()
        };
        assert!(started_in("5,4") >= 1, "{starts}");
        for case in ["6,4", "7,4"] {
            if concurrency == 1 {
                assert_eq!(started_in(case), 2, "{case}: {starts}");
            }
            let games: Vec<_> = rows.iter().filter(|r| &r[1] == case).collect();
            for (n, r) in games.iter().enumerate() {
                assert_eq!((&r[8], &r[9]), ("startup", "b"), "{r:?}");
                assert_eq!(
                    r[10].contains("gave up"),
                    n >= 2,
                    "game {n} of {case}: {r:?}"
                );
            }
        }
        files.push(std::fs::read_to_string(out.join("games.csv")).unwrap());
    }
    assert_eq!(files[0], files[1], "the rows differ with the concurrency");
}

/// `arena replay` of a game whose case was given up starts the bot afresh and ends: a
/// replay plays one game, so it has no earlier games to count failures on (nor to wait
/// for).
#[test]
fn a_replay_of_a_given_up_game_starts_the_bot_again_and_ends() {
    if !common::have("python3") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4 6,4\"\ngames_per_case = 8\n\
         agents = [\"greedy\", \"{}\"]\n[limits]\nstart_failures = 1\nstartup_ms = 5000\n",
        start_bot("--only=5,4")
    );
    let (out, output) = run_at(t.path(), &config, 2);
    assert!(
        succeeded(&output),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows = rows(&out);
    let given_up = rows
        .iter()
        .find(|r| r[10].contains("gave up"))
        .expect("a given-up game");
    let mut replay = Command::new(arena_under_test())
        .args(["replay", out.to_str().unwrap(), "-n", &given_up[0]])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let began = std::time::Instant::now();
    while replay.try_wait().unwrap().is_none() {
        if began.elapsed() > std::time::Duration::from_secs(30) {
            replay.kill().unwrap();
            panic!("the replay of game {} did not end", &given_up[0]);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let shown = replay.wait_with_output().unwrap();
    assert!(shown.status.success());
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("no answer to init"), "{text}");
}

/// A streak of failed starts goes on across `--resume`: a run stopped (Ctrl-C) after a
/// case was given up, then resumed, writes the same `games.csv` as a run never stopped
/// (the resumed run reads how the starts went from the games on disk).
#[test]
fn a_given_up_case_stays_given_up_across_a_resume() {
    if !common::have("python3") || !common::have("kill") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    // The bot logs its starts (so `sandbox = "off"`): the cue to stop the run.
    let log = t.path().join("starts.log");
    let config = format!(
        "game = \"dominoes\"\ncases = \"5,4 6,4 7,4\"\ngames_per_case = 16\n\
         agents = [\"greedy\", \"{}\"]\n[limits]\nstartup_ms = 5000\nsandbox = \"off\"\n",
        start_bot(&format!("--only-n=5 --sleep=0.1 --log={}", log.display()))
    );
    let whole = t.path().join("whole");
    std::fs::create_dir(&whole).unwrap();
    let (out, output) = run_at(&whole, &config, 2);
    assert!(
        succeeded(&output),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(expected.contains("gave up in case 6,4"));

    std::fs::remove_file(&log).unwrap();
    let cut = t.path().join("cut");
    std::fs::create_dir(&cut).unwrap();
    std::fs::write(cut.join("config.toml"), &config).unwrap();
    let out = cut.join("run");
    let mut child = Command::new(arena_under_test())
        .args(["run", cut.join("config.toml").to_str().unwrap()])
        .args(["--out", out.to_str().unwrap(), "--progress", "never"])
        .args(["--concurrency", "2"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Stopped at its third start in case 7,4 (game 10): case 6,4 was given up at game 9,
    // and slow games of 5,4 remain.
    let began = std::time::Instant::now();
    while std::fs::read_to_string(&log)
        .unwrap_or_default()
        .matches("start 7,4")
        .count()
        < 3
    {
        assert!(child.try_wait().unwrap().is_none(), "the run ended first");
        assert!(began.elapsed() < std::time::Duration::from_secs(60));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "interrupted");
    let partial = rows(&out).len();
    assert!(partial < 48, "{partial} games before the resume");
    let on_disk = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert!(on_disk.contains("gave up in case 6,4"), "{on_disk}");
    let output = Command::new(arena_under_test())
        .args([
            "run",
            "--resume",
            out.to_str().unwrap(),
            "--progress",
            "never",
        ])
        .output()
        .unwrap();
    assert!(
        succeeded(&output),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let resumed = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(resumed, expected, "resumed after {partial} games");
}
