//! Stopping: bots get EOF then a grace period, then are killed and reaped; Ctrl-C (SIGINT)
//! stops a run cleanly, reaps every bot, says how to resume, and the resumed run equals
//! an uninterrupted one.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::cargo_bin_cmd;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn arena_bin() -> String {
    assert_cmd::cargo::cargo_bin!("arena").display().to_string()
}

/// Processes whose command line holds `marker`.
fn alive(marker: &str) -> usize {
    let out = Command::new("pgrep").args(["-f", marker]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().count()
}

#[test]
fn a_bot_gets_eof_at_the_end_of_its_games_and_a_deaf_one_is_killed_after_the_grace() {
    if !common::have("pgrep") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("run");
    let arena = arena_bin();
    // Wrapper scripts, with the arena binary as an argument: a token naming a file is
    // what lets a confined bot read and run it (docs/protocol.md, Landlock).
    let script = |name: &str, body: &str| -> String {
        let path = t.path().join(name);
        std::fs::write(&path, body).unwrap();
        s(&path).to_owned()
    };
    // Polite: serves greedy, and once its stdin closes says so on stderr (its working
    // folder is private: a mark there would not outlive it).
    let polite = format!(
        "exec:sh {} {arena}",
        script(
            "polite.sh",
            "\"$1\" serve greedy --game dominoes --seed 7\necho eof-seen >&2\n"
        )
    );
    // Deaf: after its stdin closes it sleeps on; the grace period ends that.
    let deaf = format!(
        "exec:sh {} {arena}",
        script(
            "deaf.sh",
            "\"$1\" serve random --game dominoes --seed 8\nexec sleep 31.5\n"
        )
    );
    let began = Instant::now();
    cargo_bin_cmd!("arena")
        .args([
            "match",
            "--game",
            "dominoes",
            "--cases",
            "5,4",
            "--games-per-case",
            "4",
        ])
        .args([
            "--agent",
            &format!("polite={polite}"),
            "--agent",
            &format!("deaf={deaf}"),
        ])
        .args(["--out", s(&out), "--progress", "never"])
        .assert()
        .success();
    let log = std::fs::read_to_string(out.join("stderr-0-polite.log")).unwrap_or_default();
    assert!(
        log.contains("eof-seen"),
        "the polite bot saw EOF and exited on its own: {log}"
    );
    assert_eq!(alive("sleep 31.5"), 0, "the deaf bot was killed and reaped");
    assert!(
        began.elapsed() < Duration::from_secs(25),
        "the run waited out the deaf bot instead of killing it"
    );
    let games = std::fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(games.lines().count(), 5, "{games}");
    assert!(
        !games.contains("crash") && !games.contains("startup"),
        "{games}"
    );
}

#[test]
fn ctrl_c_stops_cleanly_reaps_the_bots_and_resumes_identically() {
    if !common::have("pgrep") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (stopped, whole) = (t.path().join("stopped"), t.path().join("whole"));
    // A served deterministic agent (served randomized ones draw from their own seed in
    // the order games reach their process, which concurrency changes).
    let served = format!(
        "exec:{} serve greedy --game dominoes --seed 424242",
        arena_bin()
    );
    let args = |out: &Path| -> Vec<String> {
        [
            "match",
            "--game",
            "dominoes",
            "--cases",
            "all",
            "--games-per-case",
            "200",
            "--agent",
            &served,
            "--agent",
            "random",
            "--concurrency",
            "2",
            "--progress",
            "never",
            "--out",
            s(out),
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let mut child = Command::new(arena_bin())
        .args(args(&stopped))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until games are on disk, then Ctrl-C.
    let games = stopped.join("games.csv");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let rows = std::fs::read(&games)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0);
        if rows > 1 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the signal"
        );
        assert!(Instant::now() < deadline, "no games were written");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.code() == Some(0) {
        eprintln!("the run finished before the signal arrived; only equality is checked");
    } else {
        assert_eq!(output.status.code(), Some(130), "{stderr}");
        assert!(stderr.contains("arena run --resume"), "{stderr}");
        let log = std::fs::read_to_string(stopped.join("run.log")).unwrap();
        assert!(log.contains("interrupted after"), "{log}");
    }
    assert_eq!(alive("--seed 424242"), 0, "every bot was reaped");
    cargo_bin_cmd!("arena")
        .args(["run", "--resume", s(&stopped), "--progress", "never"])
        .assert()
        .success();
    cargo_bin_cmd!("arena")
        .args(args(&whole))
        .assert()
        .success();
    for f in ["games.csv", "summary.csv", "summary.json"] {
        assert!(
            std::fs::read(stopped.join(f)).unwrap() == std::fs::read(whole.join(f)).unwrap(),
            "{f} of the resumed run differs"
        );
    }
}
