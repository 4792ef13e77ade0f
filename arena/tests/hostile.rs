//! Hostile bots against the sandbox (`docs/protocol.md`, "Security"): each attack, in
//! both games, either fails (the attacker's games are byte-identical to a run where it
//! does not attack) or loses only the attacker's own games with the right reason; the
//! other bots' games are unchanged, the run completes and nothing is left running.
//!
//! A bot whose attack works plays an illegal move (`tests/fixtures/hostile_bot.py`), so
//! a hole shows in games.csv. An attack is skipped, with the reason printed, only where
//! this machine cannot enforce the layer that stops it; with `CI` set it fails instead.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use arena::sandbox::{Enforcement, Layer};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const SEED: &str = "424242";

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile_bot.py")
        .display()
        .to_string()
}

/// What the sandbox enforces here, asked once.
fn enforced() -> &'static Enforcement {
    static PROBE: OnceLock<Enforcement> = OnceLock::new();
    PROBE.get_or_init(|| {
        let out = Command::new(ARENA)
            .args(["doctor", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or_default()
    })
}

/// Whether a test may go on: the layer it needs is enforced here. Where it is not, the
/// test is skipped with the reason printed, except under CI, which requires every layer.
fn needs(layer: bool, what: &str) -> bool {
    if layer {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI requires {what}; this machine does not enforce it (`arena doctor`)"
    );
    eprintln!("skipped: this kernel or host does not enforce {what} (`arena doctor`)");
    false
}

struct Match {
    game: &'static str,
    attack: &'static str,
    tag: String,
    port: u16,
    /// Limits: `arena run` with a config when set, else `arena match` (whose command
    /// line holds the seed, as in the attack this suite started from).
    limits: Option<&'static str>,
}

impl Match {
    fn new(game: &'static str, attack: &'static str) -> Match {
        Match {
            game,
            attack,
            tag: format!("{game}-{attack}-{}", std::process::id()),
            port: 0,
            limits: None,
        }
    }

    fn agents(&self) -> [(String, String); 3] {
        let sample = match self.game {
            "dominoes" => repo("examples/python/dominoes_bot.py"),
            _ => repo("examples/python/quarto_bot.py"),
        };
        let quarto_bot = repo("examples/python/quarto_bot.py");
        [
            (
                "hostile".into(),
                format!(
                    "exec:python3 {} {} {} {quarto_bot} {} --tag={}",
                    fixture(),
                    self.game,
                    self.attack,
                    self.port,
                    self.tag
                ),
            ),
            (
                "victim".into(),
                format!("exec:python3 {sample} --tag={}", self.tag),
            ),
            ("greedy".into(), "greedy".into()),
        ]
    }

    fn cases(&self) -> &'static str {
        if self.game == "dominoes" {
            "5,4"
        } else {
            "lines:0"
        }
    }

    /// Plays the match in `dir`; the run directory and how the arena ended.
    fn play(&self, dir: &Path) -> (PathBuf, Output) {
        let out = dir.join("run");
        let mut cmd = Command::new(ARENA);
        match self.limits {
            None => {
                cmd.args(["match", "--game", self.game, "--cases", self.cases()]);
                cmd.args(["--games-per-case", "2", "--seed", SEED]);
                for (name, spec) in self.agents() {
                    cmd.arg("--agent").arg(format!("{name}={spec}"));
                }
            }
            Some(limits) => {
                let mut config = format!(
                    "game = \"{}\"\ncases = \"{}\"\ngames_per_case = 2\nseed = {SEED}\n",
                    self.game,
                    self.cases()
                );
                for (name, spec) in self.agents() {
                    config += &format!("[[agents]]\nname = \"{name}\"\nspec = \"{spec}\"\n");
                }
                config += &format!("[limits]\n{limits}\n");
                let path = dir.join("config.toml.in");
                std::fs::write(&path, config).unwrap();
                cmd.arg("run").arg(&path);
            }
        }
        let output = cmd
            .arg("--out")
            .arg(&out)
            .args(["--progress", "never", "--concurrency", "3"])
            .output()
            .unwrap();
        (out, output)
    }
}

impl Match {
    /// Plays the match, which must complete; its run directory and games.csv.
    fn play_through(&self, dir: &Path) -> (PathBuf, String) {
        let (run, output) = self.play(dir);
        assert!(
            output.status.success(),
            "{} {}: the run failed: {}",
            self.game,
            self.attack,
            stderr(&output)
        );
        let games = std::fs::read_to_string(run.join("games.csv")).unwrap();
        (run, games)
    }
}

/// games.csv of the run where the hostile bot does not attack, per game and limits.
fn baseline(game: &'static str, limits: Option<&'static str>) -> String {
    static RUNS: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let key = format!("{game} {limits:?}");
    let runs = RUNS.get_or_init(Default::default);
    if let Some(csv) = runs.lock().unwrap().get(&key) {
        return csv.clone();
    }
    let t = tempfile::tempdir().unwrap();
    let mut m = Match::new(game, "none");
    m.limits = limits;
    let (run, output) = m.play(t.path());
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = std::fs::read_to_string(run.join("games.csv")).unwrap();
    runs.lock().unwrap().insert(key, csv.clone());
    csv
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Processes of this test still running (none may outlive its run): bots in their own
/// PID namespaces and the sandbox's stages included, since this test's /proc sees them all.
fn leftovers(tag: &str) -> Vec<String> {
    let needle = format!("--tag={tag}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(entry.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(&needle) {
                found.push(cmd);
            }
        }
    }
    found
}

fn assert_nothing_left(tag: &str) {
    // A killed namespace takes a moment to go.
    for _ in 0..50 {
        if leftovers(tag).is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("left running: {:?}", leftovers(tag));
}

/// The attack fails: the run succeeds and its games are byte-identical to the baseline's
/// (an attack that worked would have played an illegal move).
fn attack_fails(m: &Match) {
    let t = tempfile::tempdir().unwrap();
    let (run, games) = m.play_through(t.path());
    let log = std::fs::read_to_string(run.join("stderr-0-hostile.log")).unwrap_or_default();
    assert_eq!(
        games,
        baseline(m.game, m.limits),
        "{} {}: the games differ from a run without the attack; the bot's stderr:\n{log}",
        m.game,
        m.attack
    );
    assert!(!log.contains("SUCCEEDED"), "{log}");
    assert_nothing_left(&m.tag);
}

/// The attack loses the attacker's games, each with `termination` and a reason holding
/// `why`; every other game is byte-identical to the baseline's.
fn attack_loses_its_games(m: &Match, termination: &str, why: &str) {
    let t = tempfile::tempdir().unwrap();
    let (_, games) = m.play_through(t.path());
    let base = baseline(m.game, m.limits);
    // Rows without their `check`: it chains every row to the ones before it, the
    // attacker's included.
    let others = |csv: &str| -> Vec<String> {
        csv.lines()
            .filter(|l| !l.contains("hostile"))
            .map(|l| {
                l.rsplit_once(',')
                    .map_or(l, |(content, _)| content)
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(others(&games), others(&base), "{} {}", m.game, m.attack);
    let hostile: Vec<&str> = games.lines().filter(|l| l.contains("hostile")).collect();
    assert!(!hostile.is_empty());
    for row in hostile {
        assert!(
            row.contains(&format!(",{termination},")) && row.contains(why),
            "{} {}: expected {termination} ({why}): {row}",
            m.game,
            m.attack
        );
    }
    assert_nothing_left(&m.tag);
}

const GAMES: [&str; 2] = ["dominoes", "quarto"];

/// Runs `attack` in both games where the machine enforces `layer`, named `what`.
fn fails_in_both_games(attack: &'static str, layer: bool, what: &str) {
    if needs(layer, what) {
        for game in GAMES {
            attack_fails(&Match::new(game, attack));
        }
    }
}

#[test]
fn a_bot_cannot_read_the_seed_in_proc() {
    fails_in_both_games(
        "seed",
        enforced().holds(Layer::Pid),
        "a PID namespace with its own /proc",
    );
}

#[test]
fn a_bot_cannot_signal_or_trace_the_arena_or_its_opponent() {
    fails_in_both_games(
        "kill",
        enforced().holds(Layer::Pid),
        "a PID namespace with its own /proc",
    );
}

#[test]
fn a_bot_cannot_connect_to_a_tcp_server_on_localhost() {
    if !needs(enforced().holds(Layer::Network), "a network namespace") {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    for game in GAMES {
        let mut m = Match::new(game, "tcp");
        m.port = listener.local_addr().unwrap().port();
        attack_fails(&m);
    }
    assert!(listener.accept().is_err(), "a bot connected");
}

#[test]
fn a_bot_cannot_connect_to_an_abstract_unix_socket() {
    use std::os::linux::net::SocketAddrExt;
    if !needs(enforced().holds(Layer::Network), "a network namespace") {
        return;
    }
    for game in GAMES {
        let m = Match::new(game, "unix");
        let name = format!("arena-hostile-{}", m.tag);
        let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
        let listener = std::os::unix::net::UnixListener::bind_addr(&addr).unwrap();
        listener.set_nonblocking(true).unwrap();
        attack_fails(&m);
        if let Ok((mut s, _)) = listener.accept() {
            let mut said = String::new();
            let _ = s.read_to_string(&mut said);
            panic!("a bot connected: {said:?}");
        }
    }
}

#[test]
fn a_bot_cannot_read_the_run_the_configs_or_another_bot_nor_write_outside() {
    if needs(enforced().holds(Layer::Filesystem), "Landlock file rules") {
        for game in GAMES {
            let m = Match::new(game, "files");
            attack_fails(&m);
            assert!(!Path::new(&format!("/tmp/evil-{}.txt", m.tag)).exists());
        }
    }
}

#[test]
fn a_bot_that_leaves_a_child_behind_leaves_nothing_running() {
    fails_in_both_games("orphan", enforced().holds(Layer::Pid), "a PID namespace");
}

/// Runs `attack` in both games under `limits`; the attacker must lose each of its games
/// as `termination` with `why` in the reason.
fn loses_in_both_games(attack: &'static str, limits: &'static str, termination: &str, why: &str) {
    for game in GAMES {
        let mut m = Match::new(game, attack);
        m.limits = Some(limits);
        attack_loses_its_games(&m, termination, why);
    }
}

#[test]
fn a_fork_bomb_loses_only_its_own_games() {
    if needs(enforced().holds(Layer::Processes), "a cap on processes") {
        let limits = "call_ms = 3000\nprocesses = 64";
        loses_in_both_games("fork", limits, "limit", "cap of 64 processes");
    }
}

#[test]
fn a_cpu_spinner_loses_only_its_own_games() {
    // A lost call is charged its whole cap: a budget that four such calls cannot spend,
    // so each game is lost to the CPU limit and not to the case budget.
    let limits = "call_ms = 30000\ncase_budget_ms = 1000000\ncpu_s = 1";
    loses_in_both_games("spin", limits, "limit", "1 s of CPU time");
}

#[test]
fn a_bot_allocating_past_its_limit_loses_only_its_own_games() {
    let limits = "memory_mb = 512";
    loses_in_both_games("memory", limits, "memory", "ran out of memory");
}

/// `arena match` with `--seed random` and an external bot; its console and run dir.
fn match_with_seed(dir: &Path, seed: &str) -> (PathBuf, Output) {
    let out = dir.join("run");
    let output = Command::new(ARENA)
        .args(["match", "--game", "dominoes", "--cases", "5,4"])
        .args(["--games-per-case", "4", "--seed", seed])
        .arg("--agent")
        .arg(format!(
            "bot=exec:python3 {}",
            repo("examples/python/dominoes_bot.py")
        ))
        .args(["--agent", "greedy", "--progress", "never", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    (out, output)
}

/// A seed no bot can guess: `--seed random` draws one, records it in the manifest,
/// prints it after the run, and replays from it; a small seed warns, a drawn one not.
#[test]
fn a_random_seed_is_recorded_printed_and_replays() {
    let t = tempfile::tempdir().unwrap();
    let (drawn, output) = match_with_seed(&t.path().join("a"), "random");
    let console = String::from_utf8_lossy(&output.stdout);
    let line = console
        .lines()
        .find(|l| l.starts_with("seed: "))
        .unwrap_or_else(|| panic!("no seed printed: {console}"));
    let seed: u64 = line["seed: ".len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(drawn.join("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["seed"], seed, "{line}");
    // The manifest also records what the sandbox enforced.
    let recorded: Enforcement = serde_json::from_value(manifest["sandbox"].clone()).unwrap();
    assert_eq!(&recorded, enforced());
    assert!(
        !stderr(&output).contains("small enough"),
        "{}",
        stderr(&output)
    );

    let (replayed, output) = match_with_seed(&t.path().join("b"), &seed.to_string());
    let games = |dir: &Path| std::fs::read_to_string(dir.join("games.csv")).unwrap();
    assert_eq!(games(&drawn), games(&replayed));
    // Drawn anew, 64 bits: almost surely another seed, other deals.
    let (again, _) = match_with_seed(&t.path().join("c"), "random");
    assert_ne!(games(&drawn), games(&again));
    // Explicit, the same seed is small only with probability 2^-32: no warning either.
    assert!(!stderr(&output).contains("small enough"));
}

#[test]
fn a_run_of_an_external_bot_under_a_small_seed_warns() {
    let t = tempfile::tempdir().unwrap();
    let (run, output) = match_with_seed(t.path(), "1");
    let warning = "seed 1 is small enough for a bot to guess";
    assert!(stderr(&output).contains(warning), "{}", stderr(&output));
    let log = std::fs::read_to_string(run.join("run.log")).unwrap();
    assert!(log.contains(warning), "{log}");
}

#[test]
fn a_seed_that_is_neither_a_number_nor_random_is_refused() {
    let output = Command::new(ARENA)
        .args(["match", "--game", "dominoes", "--seed", "randm"])
        .args(["--agent", "greedy", "--agent", "random"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("randm"), "{}", stderr(&output));
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("c.toml");
    std::fs::write(
        &path,
        "game = \"dominoes\"\nseed = \"often\"\nagents = [\"greedy\", \"random\"]\n",
    )
    .unwrap();
    let output = Command::new(ARENA).arg("run").arg(&path).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("often"), "{}", stderr(&output));
}

/// `[limits] require_sandbox` runs where every layer is enforced, and `arena doctor`
/// says so; where one is missing, the run is refused (checked where that is the case).
#[test]
fn require_sandbox_runs_only_with_every_layer() {
    let doctor = Command::new(ARENA).arg("doctor").output().unwrap();
    let table = String::from_utf8_lossy(&doctor.stdout);
    let complete = enforced().missing().is_empty();
    assert_eq!(doctor.status.success(), complete, "{table}");
    assert!(table.contains(" filesystem "), "{table}");
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("c.toml");
    std::fs::write(
        &path,
        format!(
            "game = \"dominoes\"\ncases = \"5,4\"\ngames_per_case = 2\nseed = \"random\"\n\
             agents = [\"exec:python3 {}\", \"random\"]\n[limits]\nrequire_sandbox = true\n",
            repo("examples/python/dominoes_bot.py")
        ),
    )
    .unwrap();
    let output = Command::new(ARENA)
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(t.path().join("run"))
        .args(["--progress", "never"])
        .output()
        .unwrap();
    if complete {
        assert!(output.status.success(), "{}", stderr(&output));
    } else {
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(stderr(&output).contains("require_sandbox"));
    }
}
