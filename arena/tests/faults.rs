//! The fault-injection suite of `docs/reliability.md`: every fault ends in a result
//! byte-identical to the uninterrupted run after `--resume`, or in a clear refusal (exit
//! 2) that names it. Never a silent difference. Faults are injected at exact points with
//! `ARENA_FAULT` (a test hook of the results writer), or by real signals at seeded random
//! moments. The long version (`--ignored`) kills a 100,000-game run at ten points.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// The files that must come out identical.
const RESULT_FILES: [&str; 3] = ["games.csv", "summary.csv", "summary.json"];

/// A small, seeded generator for the fault points (the test must be reproducible too).
struct Points(u64);

impl Points {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn arena(args: &[&str], fault: Option<&str>) -> Output {
    let mut c = Command::new(ARENA);
    c.args(args).env_remove("ARENA_FAULT");
    if let Some(f) = fault {
        c.env("ARENA_FAULT", f);
    }
    c.output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `arena match` of greedy against random over every Dominoes case: `games_per_case`
/// games each, 20 cases, written at `--concurrency concurrency`.
fn match_args(out: &Path, games_per_case: u32, concurrency: u32) -> Vec<String> {
    [
        "match",
        "--game",
        "dominoes",
        "--agent",
        "greedy",
        "--agent",
        "random",
        "--seed",
        "7",
        "--progress",
        "never",
        "--games-per-case",
        &games_per_case.to_string(),
        "--concurrency",
        &concurrency.to_string(),
        "--out",
        s(out),
    ]
    .map(str::to_owned)
    .to_vec()
}

fn run_match(out: &Path, games_per_case: u32, concurrency: u32, fault: Option<&str>) -> Output {
    let args = match_args(out, games_per_case, concurrency);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&args, fault)
}

fn resume(out: &Path) -> Output {
    arena(&["run", "--resume", s(out), "--progress", "never"], None)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn assert_identical(got: &Path, want: &Path, what: &str) {
    for f in RESULT_FILES {
        assert!(
            read(&got.join(f)) == read(&want.join(f)),
            "{what}: {f} differs from the uninterrupted run"
        );
    }
}

/// The uninterrupted run every faulty one is compared with.
fn whole(dir: &Path, games_per_case: u32) -> PathBuf {
    let out = dir.join("whole");
    let o = run_match(&out, games_per_case, 2, None);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

fn killed_by_the_fault(o: &Output) -> bool {
    use std::os::unix::process::ExitStatusExt;
    o.status.signal() == Some(6)
}

fn rows_on_disk(dir: &Path) -> usize {
    std::fs::read(dir.join("games.csv"))
        .map(|b| b.iter().filter(|&&c| c == b'\n').count().saturating_sub(1))
        .unwrap_or(0)
}

const GPC: u32 = 200; // 4,000 games: several write batches of 64 KiB

#[test]
fn aborts_between_rows_at_seeded_points_resume_identically_at_both_concurrencies() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), GPC);
    let total = u64::from(GPC) * 20;
    let mut points = Points(23);
    // The edges of a batch and of the run, then seeded random points.
    let mut ks = vec![1, 2, 900, 901, total - 1, total];
    ks.extend((0..6).map(|_| 1 + points.next(total)));
    let mut lost = 0;
    for (i, k) in ks.iter().enumerate() {
        let concurrency = 1 + (i % 2) as u32;
        let out = t.path().join(format!("abort-{k}-{concurrency}"));
        let o = run_match(
            &out,
            GPC,
            concurrency,
            Some(&format!("abort-after-rows:{k}")),
        );
        assert!(
            killed_by_the_fault(&o),
            "k {k}: {:?} {}",
            o.status,
            stderr(&o)
        );
        let kept = rows_on_disk(&out);
        assert!(kept as u64 <= *k, "k {k}: {kept} rows on disk");
        lost += *k as usize - kept;
        let r = resume(&out);
        assert!(r.status.success(), "k {k}: {}", stderr(&r));
        assert_identical(&out, &want, &format!("aborted after row {k}"));
    }
    eprintln!(
        "{} abort points, {lost} buffered rows lost at the aborts and replayed, 0 differences",
        ks.len()
    );
}

#[test]
fn a_row_torn_in_the_middle_is_cut_and_replayed() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), GPC);
    for k in [1, 777, 4000] {
        let out = t.path().join(format!("tear-{k}"));
        let o = run_match(&out, GPC, 2, Some(&format!("tear-row:{k}")));
        assert!(killed_by_the_fault(&o), "{}", stderr(&o));
        let text = read(&out.join("games.csv"));
        assert_ne!(text.last(), Some(&b'\n'), "row {k} is torn on disk");
        let r = resume(&out);
        assert!(r.status.success(), "{}", stderr(&r));
        // (A resume with no game on disk has nothing to report.)
        assert!(
            k == 1 || stderr(&r).contains(&format!("resume: {} games on disk", k - 1)),
            "{}",
            stderr(&r)
        );
        assert_identical(&out, &want, &format!("torn row {k}"));
    }
}

#[test]
fn aborts_before_the_summaries_and_before_the_report_resume_identically() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), 20);
    for point in ["summaries", "report"] {
        let out = t.path().join(point);
        let o = run_match(&out, 20, 2, Some(&format!("abort-at:{point}")));
        assert!(killed_by_the_fault(&o), "{}", stderr(&o));
        assert_eq!(rows_on_disk(&out), 400, "every game is on disk");
        let r = resume(&out);
        assert!(r.status.success(), "{}", stderr(&r));
        assert_identical(&out, &want, point);
        assert!(out.join("report.html").exists());
    }
}

#[test]
fn a_full_disk_stops_the_run_with_exit_3_and_a_resume_elsewhere_is_identical() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), GPC);
    for bytes in [0u64, 1000, 100_000] {
        let out = t.path().join(format!("full-{bytes}"));
        let o = run_match(&out, GPC, 2, Some(&format!("disk-full-after:{bytes}")));
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("No space left on device") && err.contains("games.csv"),
            "{err}"
        );
        // Moved to a bigger disk, then resumed there.
        let moved = t.path().join(format!("moved-{bytes}"));
        std::fs::rename(&out, &moved).unwrap();
        let r = resume(&moved);
        assert!(r.status.success(), "{}", stderr(&r));
        assert_identical(&moved, &want, &format!("disk full after {bytes} bytes"));
    }
}

#[test]
fn a_second_process_on_a_running_directory_is_refused_and_the_first_is_unharmed() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), GPC);
    let out = t.path().join("busy");
    let args = match_args(&out, GPC, 2);
    let mut first = Command::new(ARENA)
        .args(&args)
        .env("ARENA_FAULT", "pause-after-rows:100:4000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while rows_on_disk(&out) < 100 {
        assert!(
            Instant::now() < deadline,
            "the first run never wrote its rows"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid = format!("pid {}", first.id());
    let shard = t.path().join("shard");
    let s0 = run_match(&shard, 2, 1, None);
    assert!(s0.status.success());
    for (what, o) in [
        ("a resume", resume(&out)),
        ("a run into it", run_match(&out, GPC, 2, None)),
        ("a report", arena(&["report", s(&out)], None)),
        ("a verify", arena(&["verify", s(&out)], None)),
        (
            "a merge into it",
            arena(&["merge", s(&out), s(&shard)], None),
        ),
    ] {
        assert_eq!(o.status.code(), Some(2), "{what}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("is in use by") && err.contains(&pid) && err.contains("since"),
            "{what}: {err}"
        );
    }
    let status = first.wait().unwrap();
    assert!(status.success(), "the first run failed: {status:?}");
    assert_identical(&out, &want, "the run that was held");
}

/// An interrupted run of 4,000 games with its first 2,000 on disk, for the edits below.
fn interrupted(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let o = run_match(&out, GPC, 2, Some("tear-row:2001"));
    assert!(killed_by_the_fault(&o), "{}", stderr(&o));
    out
}

fn lines(out: &Path) -> Vec<String> {
    String::from_utf8(read(&out.join("games.csv")))
        .unwrap()
        .split_inclusive('\n')
        .map(str::to_owned)
        .collect()
}

fn write_lines(out: &Path, lines: &[String]) {
    std::fs::write(out.join("games.csv"), lines.concat()).unwrap();
}

/// Where `score_a` and `score_b` stand in a line split at every comma: after the quoted
/// case `"N,H"`, which holds one, they are the 8th and 9th pieces.
const SCORES: (usize, usize) = (7, 8);

/// Swaps `score_a` and `score_b` of a line.
fn swap_scores(line: &str) -> String {
    let mut cells: Vec<&str> = line.split(',').collect();
    cells.swap(SCORES.0, SCORES.1);
    cells.join(",")
}

/// Whether a line's game was decided (the scores differ).
fn decided(line: &str) -> bool {
    let c: Vec<&str> = line.split(',').collect();
    c[SCORES.0] != c[SCORES.1]
}

#[test]
fn edited_deleted_duplicated_moved_or_flipped_rows_are_refused_naming_the_line() {
    let t = tempfile::tempdir().unwrap();
    let base = interrupted(t.path(), "base");
    let mut original = lines(&base);
    original.pop(); // the torn row: an interruption, tested last
    // Line numbers count the header as line 1: row r (from 0) is line r + 2.
    let row = 50;
    let line = row + 1; // index into `original`
    let decisive = (line..original.len() - 1)
        .find(|&i| decided(&original[i]))
        .unwrap();
    // What each edit is to verify: a row that still parses is replayed and found out
    // (1); one that no longer fits the schedule is bad input (2).
    let edits: Vec<(&str, Vec<String>, usize, i32)> = vec![
        (
            "scores swapped",
            {
                let mut l = original.clone();
                l[decisive] = swap_scores(&l[decisive]);
                l
            },
            decisive + 1,
            1,
        ),
        (
            "a bit flipped",
            {
                let mut l = original.clone();
                let mut bytes = l[line].clone().into_bytes();
                bytes[3] ^= 0x01;
                l[line] = String::from_utf8(bytes).unwrap();
                l
            },
            line + 1,
            2,
        ),
        (
            "a row deleted",
            {
                let mut l = original.clone();
                l.remove(line);
                l
            },
            line + 1,
            2,
        ),
        (
            "a row duplicated",
            {
                let mut l = original.clone();
                l.insert(line, original[line].clone());
                l
            },
            line + 2,
            2,
        ),
        (
            "two rows moved",
            {
                let mut l = original.clone();
                l.swap(line, line + 1);
                l
            },
            line + 1,
            2,
        ),
    ];
    for (what, edited, bad_line, verify_code) in edits {
        let out = t.path().join(what.replace(' ', "-"));
        copy_dir(&base, &out);
        write_lines(&out, &edited);
        let r = resume(&out);
        assert_eq!(r.status.code(), Some(2), "{what}: {}", stderr(&r));
        let err = stderr(&r);
        assert!(
            err.contains(&format!("line {bad_line} "))
                || err.contains(&format!("line {bad_line}:")),
            "{what}: expected line {bad_line} named: {err}"
        );
        assert_eq!(
            lines(&out),
            edited,
            "{what}: a refused resume changed the file"
        );
        let report = arena(&["report", s(&out)], None);
        assert_eq!(report.status.code(), Some(2), "{what}: {}", stderr(&report));
        let v = arena(&["verify", s(&out)], None);
        assert_eq!(v.status.code(), Some(verify_code), "{what}: {}", stderr(&v));
    }
    // The torn last row of the original is still an interruption, not damage.
    let r = resume(&base);
    assert!(r.status.success(), "{}", stderr(&r));
}

#[test]
fn a_forged_row_with_recomputed_checks_passes_the_chain_but_not_verify() {
    let t = tempfile::tempdir().unwrap();
    let out = interrupted(t.path(), "forged");
    let mut l = lines(&out);
    l.pop(); // the torn row
    let decisive = (1..l.len()).find(|&i| decided(&l[i])).unwrap();
    let c: Vec<&str> = l[decisive].split(',').collect();
    let game = c[0].to_owned();
    l[decisive] = swap_scores(&l[decisive]);
    // Recompute every check with the documented formula.
    let mut chain = 0u32;
    for line in l.iter_mut().skip(1) {
        let (content, _) = line.trim_end().rsplit_once(',').unwrap();
        let content = format!("{content}\n");
        chain = arena_run::rundir::results::chain(chain, content.as_bytes());
        *line = format!("{},{chain:08x}\n", content.trim_end());
    }
    write_lines(&out, &l);
    let r = resume(&out);
    assert!(r.status.success(), "the chain holds: {}", stderr(&r));
    let v = arena(&["verify", s(&out)], None);
    assert_eq!(v.status.code(), Some(1), "{}", stderr(&v));
    let said = String::from_utf8_lossy(&v.stdout).into_owned();
    assert!(
        said.contains(&format!("game {game}: score_a")) && said.contains("1 mismatch"),
        "{said}"
    );
    assert!(
        said.contains(&format!("arena replay {} -n {game}", s(&out))),
        "{said}"
    );
}

#[test]
fn an_honest_run_verifies_whole_sampled_and_from_a_game() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), GPC);
    for (args, checked) in [
        (vec![], "4000 rows on disk, 4000 replayed"),
        (vec!["--sample", "10"], "4000 rows on disk, 10 replayed"),
        (
            vec!["--from", "3990"],
            "10 replayed and compared from game 3990",
        ),
    ] {
        let mut all = vec!["verify", s(&want)];
        all.extend(args);
        let v = arena(&all, None);
        assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
        let said = String::from_utf8_lossy(&v.stdout).into_owned();
        assert!(
            said.contains(checked) && said.contains(" 0 mismatches"),
            "{said}"
        );
    }
    let v = arena(&["verify", s(&t.path().join("nowhere"))], None);
    assert_eq!(v.status.code(), Some(2));
}

#[test]
fn a_merge_killed_midway_resumes_to_the_unsharded_run_and_bad_merges_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let want = whole(t.path(), GPC);
    let shard = |i: u32, seed: &str| {
        let out = t.path().join(format!("s{i}-{seed}"));
        let mut args = match_args(&out, GPC, 2);
        let at = args.iter().position(|a| a == "--seed").unwrap();
        args[at + 1] = seed.to_owned();
        args.extend(["--shard".into(), format!("{i}/2")]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = arena(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        out
    };
    let (s0, s1, foreign) = (shard(0, "7"), shard(1, "7"), shard(1, "8"));
    let merged = t.path().join("merged");
    let o = arena(
        &["merge", s(&merged), s(&s0), s(&s1)],
        Some("abort-after-rows:1500"),
    );
    assert!(killed_by_the_fault(&o), "{}", stderr(&o));
    let r = resume(&merged);
    assert!(r.status.success(), "{}", stderr(&r));
    assert_identical(&merged, &want, "a merge killed after 1,500 rows, resumed");
    for (what, dirs, says) in [
        ("twice", [&s0, &s0], "overlapping shards"),
        ("foreign", [&s0, &foreign], "foreign shard"),
    ] {
        let out = t.path().join(format!("bad-{what}"));
        let o = arena(&["merge", s(&out), s(dirs[0]), s(dirs[1])], None);
        assert_eq!(o.status.code(), Some(2), "{what}");
        assert!(stderr(&o).contains(says), "{what}: {}", stderr(&o));
    }
}

#[test]
fn an_edited_config_is_refused_naming_the_field() {
    let t = tempfile::tempdir().unwrap();
    let out = interrupted(t.path(), "edited-config");
    let path = out.join("config.toml");
    let text = String::from_utf8(read(&path)).unwrap();
    std::fs::write(&path, text.replace("seed = 7", "seed = 8")).unwrap();
    let r = resume(&out);
    assert_eq!(r.status.code(), Some(2));
    assert!(
        stderr(&r).contains("changed: seed (7 -> 8)"),
        "{}",
        stderr(&r)
    );
}

/// SIGTERM and SIGINT at seeded random moments of a run, each resumed.
#[test]
fn signals_at_random_moments_resume_identically() {
    if !common::have("kill") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let gpc = 2000;
    let want = whole(t.path(), gpc);
    let mut points = Points(5);
    for (i, signal) in ["TERM", "INT", "TERM"].iter().enumerate() {
        let out = t.path().join(format!("sig-{i}"));
        let args = match_args(&out, gpc, 2);
        let mut child = spawn_quietly(&args);
        let after = 1 + points.next(15_000);
        while rows_on_disk(&out) < after as usize {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status();
        let status = child.wait().unwrap();
        assert!(
            status.success() || status.code() == Some(130),
            "SIG{signal}: {status:?}"
        );
        let r = resume(&out);
        assert!(r.status.success(), "{}", stderr(&r));
        assert_identical(&out, &want, &format!("SIG{signal} after {after} rows"));
    }
}

/// The acceptance run: a 100,000-game run at `--concurrency 2`, killed with SIGKILL at
/// ten seeded points and resumed each time; then verified.
#[test]
#[ignore = "long: about a minute on 2 cores"]
fn kill_9_at_ten_points_of_a_100000_game_run() {
    let t = tempfile::tempdir().unwrap();
    let gpc = 5000;
    let want = whole(t.path(), gpc);
    let mut points = Points(100_000);
    // Ten seeded kill points, in order, each at a number of rows on disk.
    let mut at: Vec<usize> = (0..10).map(|_| 1 + points.next(99_000) as usize).collect();
    at.sort_unstable();
    let out = t.path().join("killed");
    let mut kills = 0;
    let mut kept_at_kills = Vec::new();
    for after in at {
        let args: Vec<String> = if out.join("manifest.json").exists() {
            ["run", "--resume", s(&out), "--progress", "never"]
                .map(str::to_owned)
                .to_vec()
        } else {
            match_args(&out, gpc, 2)
        };
        let mut child = spawn_quietly(&args);
        while rows_on_disk(&out) < after {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            kills += 1;
        }
        child.wait().unwrap();
        kept_at_kills.push(rows_on_disk(&out));
    }
    let r = resume(&out);
    assert!(r.status.success(), "{}", stderr(&r));
    assert_identical(&out, &want, "ten kills");
    let began = Instant::now();
    let v = arena(&["verify", s(&out)], None);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    eprintln!(
        "{kills} kills (rows on disk after each: {kept_at_kills:?}), resumed: identical; verify: {} ({:.1} s)",
        String::from_utf8_lossy(&v.stdout).trim(),
        began.elapsed().as_secs_f64()
    );
}

/// A run in the background, its output discarded, no fault injected.
fn spawn_quietly(args: &[String]) -> std::process::Child {
    Command::new(ARENA)
        .args(args)
        .env_remove("ARENA_FAULT")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_file() {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}
