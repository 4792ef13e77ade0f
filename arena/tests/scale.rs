//! Shards and merge: shards merged are byte-identical to the unsharded run; `merge`
//! refuses overlapping, missing, foreign, torn and incomplete shards, each with its own
//! error; the GNU parallel, Slurm and Kubernetes recipes in `scale/` run as written, the
//! Slurm one also through a real `sbatch --array` on a single-node cluster.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

/// Files that must be byte-identical between a merged and an unsharded run.
const SAME: [&str; 5] = [
    "config.toml",
    "manifest.json",
    "games.csv",
    "summary.csv",
    "summary.json",
];

const CONFIG: &str = "game = \"dominoes\"\ncases = \"5,4 7,6 9,7\"\ngames_per_case = 10\nseed = 5\nagents = [\"greedy\", \"random\", \"smart\"]\n";

fn arena() -> assert_cmd::Command {
    cargo_bin_cmd!("arena")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
}

fn config(t: &TempDir, text: &str) -> PathBuf {
    let path = t.path().join("run.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(args: &[&str]) {
    arena()
        .args(args)
        .args(["--progress", "never"])
        .assert()
        .success();
}

fn whole(t: &TempDir, cfg: &Path) -> PathBuf {
    let out = t.path().join("whole");
    run(&["run", s(cfg), "--out", s(&out), "--concurrency", "2"]);
    out
}

fn shards(t: &TempDir, cfg: &Path, k: u64) -> Vec<PathBuf> {
    (0..k)
        .map(|i| {
            let out = t.path().join(format!("shard-{i}"));
            let shard = format!("{i}/{k}");
            run(&["run", s(cfg), "--shard", &shard, "--out", s(&out)]);
            out
        })
        .collect()
}

fn assert_same(a: &Path, b: &Path) {
    for f in SAME {
        assert!(
            read(&a.join(f)) == read(&b.join(f)),
            "{f} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

fn merge_fails(out: &Path, dirs: &[&Path], needles: &[&str]) {
    let mut args = vec!["merge".to_owned(), s(out).to_owned()];
    args.extend(dirs.iter().map(|d| s(d).to_owned()));
    let got = arena().args(&args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8(got.stderr).unwrap();
    for n in needles {
        assert!(stderr.contains(n), "merge should say {n:?}:\n{stderr}");
    }
    assert!(!out.exists(), "a failed merge leaves no run behind");
}

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(&t, CONFIG);
    let whole = whole(&t, &cfg);
    let parts = shards(&t, &cfg, 3);
    // Each shard holds only its pairs, dealt round robin with a rotation per round of
    // 9 pairs (3 cases x 3 matchups): pair g goes to shard (g % 9 + g / 9) % 3. So every
    // shard holds every case.
    for (i, dir) in parts.iter().enumerate() {
        let games = read(&dir.join("games.csv"));
        let mut cases = std::collections::BTreeSet::new();
        for line in games.lines().skip(1) {
            let game: u64 = line.split(',').next().unwrap().parse().unwrap();
            let g = game / 2;
            assert_eq!((g % 9 + g / 9) % 3, i as u64, "{line}");
            cases.insert(line.split('"').nth(1).unwrap().to_owned());
        }
        assert_eq!(cases.len(), 3, "shard {i} holds every case: {cases:?}");
    }
    let merged = t.path().join("merged");
    // Shards in any order.
    let mut args = vec!["merge", s(&merged)];
    args.extend(parts.iter().rev().map(|p| s(p)));
    arena().args(&args).assert().success();
    assert_same(&whole, &merged);
}

#[test]
fn merge_refuses_overlapping_missing_foreign_torn_and_incomplete_shards() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(&t, CONFIG);
    let parts = shards(&t, &cfg, 3);
    let out = t.path().join("merged");
    let (a, b, c) = (&parts[0], &parts[1], &parts[2]);

    merge_fails(&out, &[a, b, c, b], &["overlapping shards", "given twice"]);
    merge_fails(&out, &[a, c], &["missing shards: 1/3"]);

    // A shard of another experiment (another seed).
    let other_cfg = t.path().join("other.toml");
    std::fs::write(&other_cfg, CONFIG.replace("seed = 5", "seed = 6")).unwrap();
    let foreign = t.path().join("foreign-1");
    run(&["run", s(&other_cfg), "--shard", "1/3", "--out", s(&foreign)]);
    merge_fails(&out, &[a, &foreign, c], &["foreign shard", s(&foreign)]);
    // A shard of another split.
    let split = t.path().join("split-1");
    run(&["run", s(&cfg), "--shard", "1/4", "--out", s(&split)]);
    merge_fails(&out, &[a, &split, c], &["foreign shard", "1/4"]);

    // Torn: the last line cut in half, as by a kill -9.
    let torn = t.path().join("torn");
    copy_dir(b, &torn);
    let games = read(&b.join("games.csv"));
    std::fs::write(torn.join("games.csv"), &games[..games.len() - 5]).unwrap();
    merge_fails(&out, &[a, &torn, c], &["torn", "games.csv"]);

    // Incomplete: whole lines missing at the end (an interrupted shard).
    let short = t.path().join("short");
    copy_dir(b, &short);
    let lines: Vec<&str> = games.split_inclusive('\n').collect();
    std::fs::write(short.join("games.csv"), lines[..lines.len() - 2].concat()).unwrap();
    merge_fails(
        &out,
        &[a, &short, c],
        &["missing games", "shard 1/3", "--resume"],
    );

    // The real shards still merge.
    arena()
        .args(["merge", s(&out), s(a), s(b), s(c)])
        .assert()
        .success();
}

#[test]
fn an_sprt_over_shards_is_applied_at_merge_where_the_whole_run_stops() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(
        &t,
        "game = \"quarto\"\ngames_per_case = 200\nseed = 3\nagents = [\"greedy\", \"random\"]\n\n[sprt]\nelo0 = 0\nelo1 = 50\n",
    );
    let whole = whole(&t, &cfg);
    let json: serde_json::Value = serde_json::from_str(&read(&whole.join("summary.json"))).unwrap();
    assert_eq!(json["stopped_early"], true, "the SPRT must stop this run");
    let parts = shards(&t, &cfg, 2);
    // Shards play all their games: the SPRT is not theirs to decide.
    for p in &parts {
        assert_eq!(read(&p.join("games.csv")).lines().count() - 1, 400);
    }
    let merged = t.path().join("merged");
    arena()
        .args(["merge", s(&merged), s(&parts[0]), s(&parts[1])])
        .assert()
        .success();
    assert_same(&whole, &merged);
}

#[test]
fn shard_indices_come_from_the_arguments_or_the_engines_variables() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(&t, CONFIG);
    let explicit = shards(&t, &cfg, 3);
    for (i, vars) in [
        (0, vec![("JOB_COMPLETION_INDEX", "0")]),
        (
            1,
            vec![
                ("SLURM_ARRAY_TASK_ID", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "3"),
            ],
        ),
    ] {
        let out = t.path().join(format!("env-{i}"));
        let count = if i == 0 { "3" } else { "env" };
        let mut cmd = arena();
        cmd.env_remove("JOB_COMPLETION_INDEX")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("SLURM_ARRAY_TASK_COUNT");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.args([
            "run",
            s(&cfg),
            "--shard-index",
            "env",
            "--shard-count",
            count,
        ])
        .args(["--out", s(&out), "--progress", "never"])
        .assert()
        .success();
        assert_eq!(
            read(&out.join("games.csv")),
            read(&explicit[i].join("games.csv"))
        );
    }
    // Out of range, or asked for and not set: bad input, exit 2, named.
    let bad = t.path().join("bad");
    for (args, needle) in [
        (vec!["--shard", "3/3"], "out of range"),
        (vec!["--shard", "1/0"], "at least 1"),
        (
            vec!["--shard-index", "env", "--shard-count", "2"],
            "JOB_COMPLETION_INDEX",
        ),
    ] {
        let got = arena()
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .args(["run", s(&cfg), "--out", s(&bad)])
            .args(&args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let stderr = String::from_utf8(got.stderr).unwrap();
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The directory holding the `arena` binary, to put on PATH for the recipes.
fn bin_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin!("arena")
        .parent()
        .unwrap()
        .to_owned()
}

fn path_with_arena() -> String {
    format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn the_gnu_parallel_recipe_equals_the_unsharded_run() {
    if !common::have("parallel") {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let cfg = config(&t, CONFIG);
    let whole = whole(&t, &cfg);
    let out = t.path().join("par");
    let status = std::process::Command::new("bash")
        .arg(repo().join("scale/parallel.sh"))
        .args([s(&cfg), s(&out), "4", "2"])
        .env("PATH", path_with_arena())
        .status()
        .expect("bash runs scale/parallel.sh (GNU parallel is installed by .ci/run)");
    assert!(status.success(), "scale/parallel.sh failed: {status}");
    assert_same(&whole, &out.join("merged"));
    let joblog = read(&out.join("joblog"));
    assert_eq!(
        joblog.lines().count(),
        5,
        "a header and 4 shards:\n{joblog}"
    );
    // Run again (the default 4 shards and 2 jobs, an option for parallel after `--`):
    // every shard is done, nothing is replayed, the merge is the same.
    let before = read(&out.join("shard-2/games.csv"));
    let status = std::process::Command::new("bash")
        .arg(repo().join("scale/parallel.sh"))
        .args([s(&cfg), s(&out), "--", "--halt", "now,fail=1"])
        .env("PATH", path_with_arena())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(read(&out.join("shard-2/games.csv")), before);
    assert_same(&whole, &out.join("merged"));
}

#[test]
fn the_slurm_recipe_runs_each_array_task_locally() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(&t, CONFIG);
    let whole = whole(&t, &cfg);
    let out = t.path().join("slurm");
    let script = repo().join("scale/slurm.sbatch");
    let text = read(&script);
    assert!(
        text.contains("--shard-index env --shard-count \"$shards\""),
        "{text}"
    );
    for i in 0..3 {
        let status = std::process::Command::new("bash")
            .arg(&script)
            .args([s(&cfg), s(&out)])
            .env("PATH", path_with_arena())
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .env("SLURM_CPUS_PER_TASK", "1")
            .status()
            .unwrap();
        assert!(status.success(), "array task {i}: {status}");
    }
    // A retried id is an array of its own: its count is not the run's, so the shard
    // count is given. The shard resumes (here: has nothing to do).
    let status = std::process::Command::new("bash")
        .arg(&script)
        .args([s(&cfg), s(&out), "3"])
        .env("PATH", path_with_arena())
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_COUNT", "1")
        .status()
        .unwrap();
    assert!(status.success(), "the retried task: {status}");
    let merged = t.path().join("merged");
    let mut args = vec!["merge".to_owned(), s(&merged).to_owned()];
    args.extend((0..3).map(|i| s(&out.join(format!("shard-{i}"))).to_owned()));
    arena().args(&args).assert().success();
    assert_same(&whole, &merged);
}

/// Why a real Slurm cannot be used here, or `None` when `sinfo` answers with a node ready.
fn slurm_missing() -> Option<String> {
    let start = "start one with `scale/slurm-local.sh start` (as root)";
    for p in ["sbatch", "sinfo", "scancel", "timeout"] {
        if common::find(p).is_none() {
            return Some(format!(
                "`{p}` is not installed (apt-get install --no-install-recommends slurmctld slurmd slurm-client munge; {start})"
            ));
        }
    }
    let out = match std::process::Command::new("timeout")
        .args(["10", "sinfo", "-h", "-N", "-o", "%T"])
        .output()
    {
        Ok(out) => out,
        Err(e) => return Some(format!("sinfo does not run: {e}")),
    };
    let state = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let ready = ["idle", "mixed", "alloc", "completing"];
    if out.status.success() && ready.iter().any(|r| state.starts_with(r)) {
        return None;
    }
    Some(format!(
        "no Slurm cluster answers with a node ready (sinfo: {:?} {}); {start}",
        state,
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .unwrap_or_default()
    ))
}

/// Cancels the test's jobs by name however the test ends: nothing stays queued.
struct Cancel(String);

impl Drop for Cancel {
    fn drop(&mut self) {
        let _ = std::process::Command::new("timeout")
            .args(["10", "scancel", "--name", &self.0])
            .status();
    }
}

/// `sbatch --wait` the recipe in `dir`, bounded; panics with the tasks' output on failure.
fn sbatch(dir: &Path, name: &str, array: &str, args: &[&str]) -> String {
    let script = repo().join("scale/slurm.sbatch");
    let got = std::process::Command::new("timeout")
        .args(["--kill-after=10", "300", "sbatch", "--wait", "--time=5"])
        .arg(format!("--job-name={name}"))
        .arg(format!("--array={array}"))
        .arg(&script)
        .args(args)
        .current_dir(dir)
        .env("ARENA", assert_cmd::cargo::cargo_bin!("arena"))
        .output()
        .expect("timeout runs sbatch");
    let stdout = String::from_utf8_lossy(&got.stdout).into_owned();
    let job = stdout
        .trim()
        .strip_prefix("Submitted batch job ")
        .unwrap_or_default()
        .to_owned();
    if !got.status.success() {
        let mut logs = String::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "out") {
                logs += &format!("--- {}\n{}", p.display(), read(&p));
            }
        }
        panic!(
            "sbatch --array={array} (job {job:?}): {} (124: still running after 300 s)\n{}\n{logs}",
            got.status,
            String::from_utf8_lossy(&got.stderr)
        );
    }
    assert!(!job.is_empty(), "sbatch printed {stdout:?}");
    job
}

/// The recipe through a real `sbatch --array` on a single-node Slurm (`.ci/run` starts
/// one with `scale/slurm-local.sh`): four array tasks, then a retry of two ids as a new
/// array with the shard count named (one shard cut short as by a lost node, which
/// resumes; one finished, which has nothing to do); the merge equals the unsharded run.
#[test]
fn the_slurm_recipe_runs_as_a_real_array_job() {
    if let Some(why) = slurm_missing() {
        assert!(std::env::var_os("CI").is_none(), "CI is set but {why}");
        common::skip(&why);
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let cfg = config(
        &t,
        "game = \"dominoes\"\ncases = \"5,4 7,6\"\ngames_per_case = 8\nseed = 5\nagents = [\"greedy\", \"random\"]\n",
    );
    let whole = whole(&t, &cfg);
    let out = t.path().join("slurm");
    let name = format!("arena-test-{}", std::process::id());
    let _cancel = Cancel(name.clone());
    let job = sbatch(t.path(), &name, "0-3", &[s(&cfg), s(&out)]);
    for i in 0..4 {
        let log = read(&t.path().join(format!("{name}-{job}_{i}.out")));
        assert!(log.contains(&format!("shard {i}/4")), "task {i}:\n{log}");
    }
    // A retry: task 1 as if its node died mid-game (a torn last line), task 2 finished.
    let shard1 = out.join("shard-1/games.csv");
    let shard2 = out.join("shard-2/games.csv");
    let (games1, games2) = (read(&shard1), read(&shard2));
    let keep = games1
        .split_inclusive('\n')
        .take(2)
        .map(str::len)
        .sum::<usize>()
        + 10;
    std::fs::write(&shard1, &games1[..keep]).unwrap();
    let retry = sbatch(t.path(), &name, "1,2", &[s(&cfg), s(&out), "4"]);
    assert_eq!(
        read(&shard1),
        games1,
        "the cut shard resumed to the same games"
    );
    assert_eq!(read(&shard2), games2, "the finished shard played nothing");
    let log = read(&t.path().join(format!("{name}-{retry}_2.out")));
    assert!(log.contains("nothing to do"), "{log}");
    let merged = t.path().join("merged");
    let mut args = vec!["merge".to_owned(), s(&merged).to_owned()];
    args.extend((0..4).map(|i| s(&out.join(format!("shard-{i}"))).to_owned()));
    arena().args(&args).assert().success();
    assert_same(&whole, &merged);
}

#[test]
fn the_kubernetes_recipe_runs_each_index_locally() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(&t, CONFIG);
    let whole = whole(&t, &cfg);
    let manifest = read(&repo().join("scale/k8s-indexed-job.yaml"));
    let completions: u64 = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("completions:"))
        .expect("a completions: line")
        .trim()
        .parse()
        .unwrap();
    // The container's command, a YAML flow sequence of quoted strings (valid JSON).
    let command: Vec<String> = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("command:"))
        .map(|c| serde_json::from_str(c.trim()).expect("command: is a JSON-style list"))
        .expect("a command: line");
    assert_eq!(command[0], "arena");
    assert!(command.contains(&"--shard-index".to_owned()));
    let results = t.path().join("results");
    for index in 0..completions {
        // What the kubelet does: expand $(JOB_COMPLETION_INDEX), set the variable.
        let args: Vec<String> = command[1..]
            .iter()
            .map(|a| {
                a.replace("/config/run.toml", s(&cfg))
                    .replace("/results", s(&results))
                    .replace("$(JOB_COMPLETION_INDEX)", &index.to_string())
            })
            .collect();
        arena()
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .args(&args)
            .assert()
            .success();
    }
    // The merge Job's command, on the same volume.
    let merge = read(&repo().join("scale/k8s-merge-job.yaml"));
    let command: Vec<String> = merge
        .lines()
        .find_map(|l| l.trim().strip_prefix("command:"))
        .map(|c| serde_json::from_str(c.trim()).expect("command: is a JSON-style list"))
        .expect("a command: line");
    let status = std::process::Command::new(&command[0])
        .args(
            command[1..]
                .iter()
                .map(|a| a.replace("/results", s(&results))),
        )
        .env("PATH", path_with_arena())
        .status()
        .unwrap();
    assert!(status.success(), "the merge Job's command: {status}");
    assert_same(&whole, &results.join("merged"));
}

/// More shards than pairs: the empty shards still merge, byte-identical to the whole run.
#[test]
fn shards_without_games_merge_all_the_same() {
    let t = tempfile::tempdir().unwrap();
    let cfg = config(
        &t,
        "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 4\nseed = 5\nagents = [\"greedy\", \"random\"]\n",
    );
    let whole = whole(&t, &cfg);
    let parts = shards(&t, &cfg, 5);
    let rows = |p: &PathBuf| read(&p.join("games.csv")).lines().count() - 1;
    assert_eq!(parts.iter().map(rows).collect::<Vec<_>>(), [2, 2, 0, 0, 0]);
    let merged = t.path().join("merged");
    let mut args = vec!["merge", s(&merged)];
    args.extend(parts.iter().map(|p| s(p)));
    arena().args(&args).assert().success();
    assert_same(&whole, &merged);
}
