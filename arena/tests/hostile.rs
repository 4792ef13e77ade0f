//! Hostile bots against the sandbox (`docs/protocol.md`, "Security"): each attack, in
//! both games, either fails (the attacker's games are byte-identical to a run where it
//! does not attack) or loses only the attacker's own games with the right reason; the
//! other bots' games are unchanged, the run completes and nothing is left running.
//!
//! A bot whose attack works plays an illegal move (`tests/fixtures/hostile_bot.py`), so
//! a hole shows in games.csv. Nothing may outlive a run: no process, no file of a bot's
//! outside its folder (the host's /dev/shm, /tmp), no loop device attached.
//!
//! Where this machine does not enforce every layer of the sandbox (`arena doctor
//! --json`), a run with external bots is refused, so each such test is skipped with the
//! reason printed (`SKIPPED:`); with `CI` set it fails instead, unless
//! `ARENA_UNPRIVILEGED` is set too, where it checks that the run is refused, naming
//! the missing layer. `ARENA_BIN` runs the suite against another arena binary (an older
//! one, to see what it lets through).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

const SEED: &str = "424242";

/// The arena under test: `ARENA_BIN` where set (an older build, to see a test fail), else
/// this package's.
fn arena() -> String {
    std::env::var("ARENA_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_arena").to_owned())
}

/// Whether an environment variable is set to something (`CI=` is not).
fn set(var: &str) -> bool {
    std::env::var_os(var).is_some_and(|v| !v.is_empty())
}

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

/// The sandbox's layers, by the ids of `arena doctor` and `[limits] sandbox_without`.
const LAYERS: [&str; 12] = [
    "session",
    "identity",
    "filesystem",
    "pid",
    "network",
    "ipc",
    "seccomp",
    "memory",
    "processes",
    "cpu",
    "io",
    "freezer",
];

/// Which layers the sandbox enforces here, asked once: `arena doctor --json`
/// (`{"layers": {"session": true, ...}}`), or, from an arena that predates it, the old
/// probe.
fn layers() -> &'static BTreeMap<String, bool> {
    static LAYERS_HERE: OnceLock<BTreeMap<String, bool>> = OnceLock::new();
    LAYERS_HERE.get_or_init(|| doctor_json().or_else(old_probe).unwrap_or_default())
}

fn doctor_json() -> Option<BTreeMap<String, bool>> {
    let out = Command::new(arena())
        .args(["doctor", "--json"])
        .output()
        .ok()?;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let layers = json.get("layers")?.as_object()?;
    Some(
        layers
            .iter()
            .map(|(id, on)| (id.clone(), on.as_bool().unwrap_or(false)))
            .collect(),
    )
}

/// `arena __sandbox --probe` of an arena from before `doctor --json`. It knows fewer
/// layers: those it names map to their ids; the others (session, identity, seccomp,
/// memory, cpu, freezer) it is taken to claim wherever it claims its full set, so the
/// tests run against it (and show what it lets through) rather than skip.
fn old_probe() -> Option<BTreeMap<String, bool>> {
    let out = Command::new(arena())
        .args(["__sandbox", "--probe", "--processes", "64", "--cpu-s", "10"])
        .output()
        .ok()?;
    let probe: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let on = |key: &str| probe[key].as_bool().unwrap_or(false);
    let known = [
        ("filesystem", on("files")),
        ("pid", on("own_processes")),
        (
            "network",
            on("no_network") && on("tcp_rules") && on("scoped"),
        ),
        ("ipc", on("own_ipc")),
        ("processes", !probe["process_cap"].is_null()),
    ];
    let complete = known.iter().all(|(_, on)| *on);
    let mut layers: BTreeMap<String, bool> =
        LAYERS.iter().map(|id| (id.to_string(), complete)).collect();
    layers.extend(known.map(|(id, on)| (id.to_owned(), on)));
    Some(layers)
}

/// The layers not enforced here (`sandbox`: none can be asked about at all).
fn missing_layers() -> Vec<String> {
    if layers().is_empty() {
        return vec!["sandbox".into()];
    }
    layers()
        .iter()
        .filter(|(_, on)| !**on)
        .map(|(id, _)| id.clone())
        .collect()
}

/// Whether a test that runs external bots may go on: every layer is enforced here. Where
/// one is missing: without `CI` the test is skipped (`SKIPPED:` on stderr); under `CI`
/// with `ARENA_UNPRIVILEGED` set, `m`'s run must be refused (exit 2, naming a missing
/// layer) and the test ends there; under `CI` otherwise, it fails.
fn sandboxed(m: &Match) -> bool {
    let missing = missing_layers();
    if missing.is_empty() {
        return true;
    }
    if !set("CI") {
        eprintln!(
            "SKIPPED: this machine does not enforce the sandbox's {} (`arena doctor`)",
            missing.join(", ")
        );
        return false;
    }
    assert!(
        set("ARENA_UNPRIVILEGED"),
        "CI requires every layer of the sandbox; this machine lacks {} (`arena doctor`)",
        missing.join(", ")
    );
    let t = tempfile::tempdir().unwrap();
    let (_, output) = m.play(t.path());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "not refused: {err}");
    assert!(
        missing.iter().any(|id| err.contains(id.as_str())),
        "the refusal names none of {missing:?}: {err}"
    );
    false
}

/// The second external agent, `victim`.
#[derive(Clone, Debug, PartialEq)]
enum Victim {
    /// The game's example bot (`examples/python/`).
    Sample,
    /// A second hostile bot, making this attack (`slow`: none, but slow to reply).
    Hostile(&'static str),
}

impl Victim {
    /// The victim of the run without the attack: a hostile accomplice attacks nothing
    /// there; a slow one stays slow (that is how it plays, not an attack).
    fn in_baseline(&self) -> Victim {
        match self {
            Victim::Hostile(attack) if *attack != "slow" => Victim::Hostile("none"),
            other => other.clone(),
        }
    }
}

/// How the test starts the arena.
enum Start {
    Plain,
    /// In a session of its own whose controlling terminal is a new pseudo-terminal (so
    /// the test needs no terminal of its own).
    Terminal,
    /// With fd 7 open for appending to this file, as a shell leaves it: inherited.
    Fd7(PathBuf),
}

/// Runs `argv[1:]` with a new pseudo-terminal as its controlling terminal, its stdout
/// and stderr; copies what it wrote there to stderr and exits as it did.
const IN_A_TERMINAL: &str = r#"
import os, pty, sys
pid, master = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        data = os.read(master, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
sys.stderr.buffer.write(out)
sys.exit(os.waitstatus_to_exitcode(status))
"#;

struct Match {
    game: &'static str,
    attack: &'static str,
    tag: String,
    /// What the attack needs (hostile_bot.py's ARG): a port, a path.
    arg: String,
    /// Limits: `arena run` with a config when set, else `arena match` (whose command
    /// line holds the seed, as in the attack this suite started from).
    limits: Option<String>,
    victim: Victim,
    /// A folder holding hostile_bot.py and quarto_bot.py, where the bot runs from
    /// instead of the fixtures and the examples.
    bin: Option<PathBuf>,
    start: Start,
    /// The arena's environment beside the test's (`ARENA_FAULT`).
    env: Vec<(&'static str, String)>,
}

impl Match {
    fn new(game: &'static str, attack: &'static str) -> Match {
        Match {
            game,
            attack,
            tag: format!("{game}-{attack}-{}", std::process::id()),
            arg: "0".into(),
            limits: None,
            victim: Victim::Sample,
            bin: None,
            start: Start::Plain,
            env: Vec::new(),
        }
    }

    fn with_limits(mut self, limits: &str) -> Match {
        self.limits = Some(limits.into());
        self
    }

    fn hostile(&self, attack: &str) -> String {
        let (script, quarto_bot) = match &self.bin {
            Some(bin) => (
                bin.join("bot.py").display().to_string(),
                bin.join("quarto_bot.py").display().to_string(),
            ),
            None => (fixture(), repo("examples/python/quarto_bot.py")),
        };
        format!(
            "exec:python3 {script} {} {attack} {quarto_bot} {} --tag={}",
            self.game, self.arg, self.tag
        )
    }

    fn agents(&self) -> [(String, String); 3] {
        let sample = match self.game {
            "dominoes" => repo("examples/python/dominoes_bot.py"),
            _ => repo("examples/python/quarto_bot.py"),
        };
        let victim = match self.victim {
            Victim::Sample => format!("exec:python3 {sample} --tag={}", self.tag),
            Victim::Hostile(attack) => self.hostile(attack),
        };
        [
            ("hostile".into(), self.hostile(self.attack)),
            ("victim".into(), victim),
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

    /// The arena, started as `self.start` says.
    fn command(&self) -> Command {
        match &self.start {
            Start::Plain => Command::new(arena()),
            Start::Terminal => {
                let mut cmd = Command::new("python3");
                cmd.args(["-I", "-c", IN_A_TERMINAL, &arena()]);
                cmd
            }
            Start::Fd7(file) => {
                let mut cmd = Command::new("sh");
                cmd.args(["-c", r#"exec 7>>"$0"; exec "$@""#])
                    .arg(file)
                    .arg(arena());
                cmd
            }
        }
    }

    /// Plays the match in `dir`; the run directory and how the arena ended.
    fn play(&self, dir: &Path) -> (PathBuf, Output) {
        let out = dir.join("run");
        let mut cmd = self.command();
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        match &self.limits {
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

/// games.csv of the run where the hostile bot does not attack, per game, limits and
/// victim.
fn baseline(m: &Match) -> String {
    static RUNS: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let victim = m.victim.in_baseline();
    let key = format!("{} {:?} {victim:?}", m.game, m.limits);
    let runs = RUNS.get_or_init(Default::default);
    if let Some(csv) = runs.lock().unwrap().get(&key) {
        return csv.clone();
    }
    let t = tempfile::tempdir().unwrap();
    let mut b = Match::new(m.game, "none");
    b.limits = m.limits.clone();
    b.victim = victim;
    let (_, csv) = b.play_through(t.path());
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

/// Files of this test's bots outside their folders: in the host's /dev/shm and /tmp
/// (`/tmp/evil-*`, a disk filler's), by their names, which hold the tag.
fn files_outside(tag: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in ["/dev/shm", "/tmp"] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if entry.file_name().to_string_lossy().contains(tag) {
                found.push(entry.path());
            }
        }
    }
    found
}

/// Loop devices attached on this machine (a bot must attach none).
fn loop_devices() -> usize {
    std::fs::read_dir("/sys/block")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("loop"))
        .filter(|e| e.path().join("loop/backing_file").exists())
        .count()
}

/// What a run left behind, which nothing may: processes, files outside the bots'
/// folders (removed here), loop devices beside the `loops` attached before it.
fn left_behind(tag: &str, loops: usize) -> Vec<String> {
    let mut left = Vec::new();
    let files = files_outside(tag);
    for file in &files {
        let _ = std::fs::remove_file(file).or_else(|_| std::fs::remove_dir_all(file));
    }
    if !files.is_empty() {
        left.push(format!("files outside the bots' folders: {files:?}"));
    }
    if loop_devices() != loops {
        left.push(format!(
            "loop devices attached: {loops} before the run, {} after",
            loop_devices()
        ));
    }
    // A killed namespace takes a moment to go.
    for _ in 0..50 {
        if leftovers(tag).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let running = leftovers(tag);
    if !running.is_empty() {
        left.push(format!("left running: {running:?}"));
    }
    left
}

/// A finished run: its folder (kept until this is dropped), games.csv, the attacker's
/// stderr log and what the run left behind.
struct Played {
    _dir: tempfile::TempDir,
    run: PathBuf,
    games: String,
    log: String,
    left: Vec<String>,
}

impl Played {
    fn assert_nothing_left(&self) {
        assert!(
            self.left.is_empty(),
            "{:?}\nthe bot's stderr:\n{}",
            self.left,
            self.log
        );
    }
}

/// Plays `m`, which must complete, and cleans up after it, even where it does not.
fn play_checked(m: &Match) -> Played {
    let loops = loop_devices();
    let dir = tempfile::tempdir().unwrap();
    let played =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| m.play_through(dir.path())));
    let left = left_behind(&m.tag, loops);
    let (run, games) = played.unwrap_or_else(|e| {
        eprintln!("left behind: {left:?}");
        std::panic::resume_unwind(e)
    });
    let log = std::fs::read_to_string(run.join("stderr-0-hostile.log")).unwrap_or_default();
    Played {
        _dir: dir,
        run,
        games,
        log,
        left,
    }
}

/// The attack fails: the run succeeds and its games are byte-identical to the baseline's
/// (an attack that worked would have played an illegal move), and nothing is left.
fn attack_fails(m: &Match) -> Played {
    let base = baseline(m);
    let played = play_checked(m);
    assert_eq!(
        played.games, base,
        "{} {}: the games differ from a run without the attack; the bot's stderr:\n{}",
        m.game, m.attack, played.log
    );
    assert!(!played.log.contains("SUCCEEDED"), "{}", played.log);
    played.assert_nothing_left();
    played
}

/// Rows of games.csv without their `check`: it chains every row to the ones before it,
/// the attacker's included.
fn rows(csv: &str) -> Vec<String> {
    csv.lines()
        .map(|l| {
            l.rsplit_once(',')
                .map_or(l, |(content, _)| content)
                .to_owned()
        })
        .collect()
}

/// Every game without the attacker is byte-identical to the baseline's (`check` aside);
/// each of the attacker's passes `ok`.
fn others_unchanged(m: &Match, games: &str, log: &str, ok: impl Fn(&str, &str) -> bool) {
    let base = rows(&baseline(m));
    let mine = rows(games);
    assert_eq!(mine.len(), base.len(), "{} {}: {games}", m.game, m.attack);
    let mut hostile = 0;
    for (row, was) in mine.iter().zip(&base) {
        if row.contains("hostile") {
            hostile += 1;
            assert!(
                ok(row, was),
                "{} {}: {row}\nbaseline: {was}\nthe bot's stderr:\n{log}",
                m.game,
                m.attack
            );
        } else {
            assert_eq!(row, was, "{} {}", m.game, m.attack);
        }
    }
    assert!(hostile > 0);
}

/// The attack loses the attacker's games, each with `termination` and a reason holding
/// `why`; every other game is byte-identical to the baseline's, and nothing is left.
fn attack_loses_its_games(m: &Match, termination: &str, why: &str) {
    let played = play_checked(m);
    others_unchanged(m, &played.games, &played.log, |row, _| {
        row.contains(&format!(",{termination},")) && row.contains(why)
    });
    played.assert_nothing_left();
}

/// Each of the attacker's games is either as in the baseline (the attack failed) or
/// lost with `termination` and `why`; every other game is byte-identical, and nothing
/// is left.
fn attack_fails_or_loses(m: &Match, termination: &str, why: &str) {
    let played = play_checked(m);
    assert!(!played.log.contains("SUCCEEDED"), "{}", played.log);
    others_unchanged(m, &played.games, &played.log, |row, was| {
        row == was || (row.contains(&format!(",{termination},")) && row.contains(why))
    });
    played.assert_nothing_left();
}

const GAMES: [&str; 2] = ["dominoes", "quarto"];

/// Runs `attack` in both games where the machine enforces the sandbox.
fn fails_in_both_games(attack: &'static str) {
    for game in GAMES {
        let m = Match::new(game, attack);
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

#[test]
fn a_bot_cannot_read_the_seed_in_proc() {
    fails_in_both_games("seed");
}

#[test]
fn a_bot_cannot_signal_or_trace_the_arena_or_its_opponent() {
    fails_in_both_games("kill");
}

#[test]
fn a_bot_cannot_connect_to_a_tcp_server_on_localhost() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    for game in GAMES {
        let mut m = Match::new(game, "tcp");
        m.arg = listener.local_addr().unwrap().port().to_string();
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
    assert!(listener.accept().is_err(), "a bot connected");
}

#[test]
fn a_bot_cannot_connect_to_an_abstract_unix_socket() {
    use std::os::linux::net::SocketAddrExt;
    for game in GAMES {
        let m = Match::new(game, "unix");
        if !sandboxed(&m) {
            return;
        }
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
    // Its /tmp/evil-<tag>.txt would be left outside its folder: `attack_fails` looks.
    fails_in_both_games("files");
}

#[test]
fn a_bot_that_leaves_a_child_behind_leaves_nothing_running() {
    fails_in_both_games("orphan");
}

/// Runs `attack` in both games under `limits`; the attacker must lose each of its games
/// as `termination` with `why` in the reason.
fn loses_in_both_games(attack: &'static str, limits: &str, termination: &str, why: &str) {
    for game in GAMES {
        let m = Match::new(game, attack).with_limits(limits);
        if !sandboxed(&m) {
            return;
        }
        attack_loses_its_games(&m, termination, why);
    }
}

#[test]
fn a_fork_bomb_loses_only_its_own_games() {
    let limits = "call_ms = 3000\nprocesses = 64";
    loses_in_both_games("fork", limits, "limit", "cap of 64 processes");
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

// Issue 33: what today's sandbox still let through.

/// The bot has no controlling terminal (its own session): it cannot open /dev/tty nor
/// push input into the operator's terminal with TIOCSTI (`dev.tty.legacy_tiocsti`).
#[test]
fn a_bot_cannot_push_input_into_the_operators_terminal() {
    for game in GAMES {
        let mut m = Match::new(game, "terminal");
        m.start = Start::Terminal;
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

/// Two bots, each writing /dev/shm and looking there for the other's file, find none:
/// each has a /dev/shm of its own, gone with it (none of their files in the host's).
#[test]
fn two_bots_cannot_collude_through_dev_shm() {
    for game in GAMES {
        let mut m = Match::new(game, "shm");
        m.victim = Victim::Hostile("shm");
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

/// A pathname unix socket of the host (in a 0700 folder of root's) is out of reach.
#[test]
fn a_bot_cannot_connect_to_a_unix_socket_outside() {
    for game in GAMES {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("s");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        listener.set_nonblocking(true).unwrap();
        let mut m = Match::new(game, "socket");
        m.arg = path.display().to_string();
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
        if let Ok((mut s, _)) = listener.accept() {
            let mut said = String::new();
            let _ = s.read_to_string(&mut said);
            panic!("a bot connected: {said:?}");
        }
    }
}

/// A descriptor the arena inherited (fd 7, left open by the shell that started it) does
/// not reach the bot, which would write a line there.
#[test]
fn a_bot_inherits_no_file_descriptor_of_the_arena() {
    for game in GAMES {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("fd7");
        let mut m = Match::new(game, "fds");
        m.start = Start::Fd7(file.clone());
        if !sandboxed(&m) {
            return;
        }
        let played = std::panic::catch_unwind(|| attack_fails(&m));
        let written = std::fs::read_to_string(&file).unwrap_or_default();
        assert_eq!(written, "", "{game}: a bot wrote to the arena's fd 7");
        drop(played.unwrap_or_else(|e| std::panic::resume_unwind(e)));
    }
}

/// The bot is not root, and its /dev holds only what a bot needs: no console, terminal,
/// KVM, loop or memory device to open.
#[test]
fn a_bot_is_not_root_and_opens_no_device() {
    fails_in_both_games("root");
}

/// A root-only file of the host's, removed when dropped.
struct Secret(PathBuf);

impl Drop for Secret {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// The bot reads neither the contest's config beside its `bin/` folder, nor a file only
/// root may read, nor the arena's cgroups (its own `arena-bot*` among them), nor the
/// machine's load (/proc/loadavg, /proc/stat).
#[test]
fn a_bot_cannot_read_its_contests_config_a_root_only_file_cgroups_or_the_load() {
    for game in GAMES {
        // Where a contest keeps its bots: not /tmp, which the bot's own replaces; as a
        // user who cannot write the build's folder (CI's unprivileged run), its home.
        let contest = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .or_else(|_| tempfile::tempdir_in(std::env::var("HOME").unwrap_or_default()))
            .unwrap();
        let bin = contest.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::copy(fixture(), bin.join("bot.py")).unwrap();
        std::fs::copy(
            repo("examples/python/quarto_bot.py"),
            bin.join("quarto_bot.py"),
        )
        .unwrap();
        std::fs::write(contest.path().join("config.toml"), "seed = 1\n").unwrap();
        let mut m = Match::new(game, "read");
        m.bin = Some(bin);
        m.arg = "-".into();
        // Only root can make a file that only root may read.
        let _secret = running_as_root().then(|| {
            use std::os::unix::fs::OpenOptionsExt;
            let path = PathBuf::from(format!("/etc/arena-hostile-secret-{}", m.tag));
            let secret = Secret(path.clone());
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, b"secret\n"))
                .unwrap();
            m.arg = path.display().to_string();
            secret
        });
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

/// A bot cannot make a user namespace (each one it could make costs the host's quota).
#[test]
fn a_bot_cannot_make_a_user_namespace() {
    fails_in_both_games("userns");
}

/// Between its calls the bot is frozen: 24 spinning children, against an opponent that
/// takes 100 ms a move, make no progress while it waits. One game: the attack does not
/// depend on it.
#[test]
fn a_bots_children_cannot_run_between_its_calls() {
    let mut m = Match::new("quarto", "cpu");
    m.victim = Victim::Hostile("slow");
    if sandboxed(&m) {
        attack_fails(&m);
    }
}

/// The bot's folder and /tmp are small tmpfs (`disk_mb`): a bot filling them gets ENOSPC
/// and plays on; nothing of it stays in the run directory.
#[test]
fn a_bot_cannot_fill_the_disk() {
    for game in GAMES {
        let m = Match::new(game, "disk").with_limits("disk_mb = 16");
        if !sandboxed(&m) {
            return;
        }
        let played = attack_fails(&m);
        let rows = played.games.lines().count() - 1;
        assert_eq!(
            rows, 6,
            "{game}: games.csv is not complete: {}",
            played.games
        );
        let agents = played.run.join("agents");
        let size = disk_usage(&agents);
        assert!(
            size < 1 << 20,
            "{game}: {} holds {size} bytes",
            agents.display()
        );
    }
}

/// Bytes of the files under `dir` (none where it does not exist).
fn disk_usage(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_usage(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// `memory_mb` caps all of a bot's processes together, tmpfs included: children that
/// fill 100 MB each, or a file in /dev/shm, cannot take more. The attacker's games are
/// as without the attack or lost as `memory`; its /dev/shm file is not the host's.
#[test]
fn a_bot_cannot_exceed_its_memory_with_children_or_dev_shm() {
    for game in GAMES {
        let m = Match::new(game, "memsum").with_limits("memory_mb = 128");
        if !sandboxed(&m) {
            return;
        }
        attack_fails_or_loses(&m, "memory", "ran out of memory");
    }
}

/// A bot that writes the sandbox's limit marker and `MemoryError` on its stderr, then
/// exits, has crashed: it cannot pick its verdict.
#[test]
fn a_bot_cannot_forge_its_verdict_on_stderr() {
    for game in GAMES {
        let m = Match::new(game, "forge");
        if !sandboxed(&m) {
            return;
        }
        attack_loses_its_games(&m, "crash", "");
    }
}

/// A reply ending `\r\r\n` is malformed: one carriage return is forgiven, not two.
#[test]
fn a_reply_ending_in_two_carriage_returns_is_malformed() {
    for game in GAMES {
        let m = Match::new(game, "crlf");
        if !sandboxed(&m) {
            return;
        }
        attack_loses_its_games(&m, "malformed", "");
    }
}

/// A bot that closes its stdout and sleeps has crashed, seen at once: no stage of the
/// sandbox holds its stdout open, so the call does not wait for its cap.
#[test]
fn a_bot_that_closes_its_stdout_crashes_at_once() {
    for game in GAMES {
        let m = Match::new(game, "hangup").with_limits("call_ms = 20000");
        if !sandboxed(&m) {
            return;
        }
        attack_loses_its_games(&m, "crash", "");
    }
}

/// `reply_floor_ms` holds each reply until that long after its call began, so a bot
/// cannot time its opponent by the gap before its next call.
#[test]
fn replies_are_held_to_the_reply_floor() {
    for game in GAMES {
        let m = Match::new(game, "floor").with_limits("reply_floor_ms = 30");
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

/// Without a floor the same bot sees its opponent's pace (so the test above can fail):
/// most of its calls come at once, and it gives the win away with an illegal move.
#[test]
fn without_a_floor_the_gaps_between_calls_are_the_opponents_pace() {
    for game in GAMES {
        let m = Match::new(game, "floor");
        if !sandboxed(&m) {
            return;
        }
        let played = play_checked(&m);
        assert!(played.log.contains("SUCCEEDED"), "{game}: {}", played.log);
        assert!(
            played.games.contains(",illegal,"),
            "{game}: {}",
            played.games
        );
        played.assert_nothing_left();
    }
}

/// `arena match` with `--seed random` and an external bot; its console and run dir.
fn match_with_seed(dir: &Path, seed: &str) -> (PathBuf, Output) {
    let out = dir.join("run");
    let output = Command::new(arena())
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
    if !sandboxed(&Match::new("dominoes", "none")) {
        return;
    }
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
    assert!(manifest["sandbox"].is_object(), "{manifest}");
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
    if !sandboxed(&Match::new("dominoes", "none")) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (run, output) = match_with_seed(t.path(), "1");
    let warning = "seed 1 is small enough for a bot to guess";
    assert!(stderr(&output).contains(warning), "{}", stderr(&output));
    let log = std::fs::read_to_string(run.join("run.log")).unwrap();
    assert!(log.contains(warning), "{log}");
}

#[test]
fn a_seed_that_is_neither_a_number_nor_random_is_refused() {
    let output = Command::new(arena())
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
    let output = Command::new(arena())
        .arg("run")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("often"), "{}", stderr(&output));
}

/// `[limits] require_sandbox` (now the default, still accepted) runs where every layer
/// is enforced, and `arena doctor` says so; where one is missing, the run is refused,
/// naming it (checked where that is the case).
#[test]
fn require_sandbox_runs_only_with_every_layer() {
    let doctor = Command::new(arena()).arg("doctor").output().unwrap();
    let table = String::from_utf8_lossy(&doctor.stdout);
    let missing = missing_layers();
    let complete = missing.is_empty();
    assert_eq!(doctor.status.success(), complete, "{table}");
    // The filesystem layer, by its id or (before it) by its name.
    assert!(
        table.contains("filesystem") || table.contains("files: Landlock"),
        "{table}"
    );
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
    let output = Command::new(arena())
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
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert!(
            err.contains("require_sandbox") || missing.iter().any(|id| err.contains(id.as_str())),
            "{err}"
        );
    }
}

// Issue 41: what all bots shared on the host.

/// As a plain user the arena can map no user but its own: every bot is that user on the
/// host, and per-user counts stay shared (docs/sandbox.md, "What remains"). Says so.
fn bots_have_users_of_their_own() -> bool {
    if !running_as_root() {
        eprintln!("SKIPPED: as a plain user every bot is this user on the host (docs/sandbox.md)");
    }
    running_as_root()
}

/// Each bot is a host user of its own: one bot that spends its user's pipe pages
/// (`fs.pipe-user-pages-soft`) leaves the other bot's new pipes their 64 KiB (they were
/// 8 KiB when every bot was `nobody` on the host).
#[test]
fn one_bots_pipes_do_not_shrink_another_bots() {
    for game in GAMES {
        let mut m = Match::new(game, "pipes");
        m.victim = Victim::Hostile("pipesize");
        if !sandboxed(&m) || !bots_have_users_of_their_own() {
            return;
        }
        attack_fails(&m);
    }
}

/// The host uid of each of this test's bots running now (root's, the sandbox's stages,
/// aside), by the PID namespace its processes share: one entry per sandbox.
fn bot_uids(tag: &str) -> BTreeMap<String, std::collections::BTreeSet<u32>> {
    let needle = format!("--tag={tag}");
    let mut found: BTreeMap<String, std::collections::BTreeSet<u32>> = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if entry.file_name().to_string_lossy().parse::<u32>().is_err() {
            continue;
        }
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if !cmd.contains("hostile_bot.py") || cmd.contains("__sandbox") || !cmd.contains(&needle) {
            continue;
        }
        let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let uid = status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().next()?.parse().ok());
        let sandbox = std::fs::read_link(entry.path().join("ns/pid"));
        if let (Some(uid), Ok(sandbox)) = (uid.filter(|&u| u != 0), sandbox) {
            found
                .entry(sandbox.display().to_string())
                .or_default()
                .insert(uid);
        }
    }
    found
}

/// As root, each bot process runs as a host uid of its own, from the arena's range
/// (2,100,000,000 and up, docs/sandbox.md): seen from outside while two bots play each
/// other, their uids differ and lie in the range.
#[test]
fn each_bot_is_a_host_user_of_its_own() {
    let mut m = Match::new("quarto", "slow");
    m.victim = Victim::Hostile("slow");
    if !sandboxed(&m) || !bots_have_users_of_their_own() {
        return;
    }
    let loops = loop_devices();
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(arena());
    cmd.args(["match", "--game", m.game, "--cases", m.cases()])
        .args(["--games-per-case", "2", "--seed", SEED]);
    for (name, spec) in m.agents() {
        cmd.arg("--agent").arg(format!("{name}={spec}"));
    }
    let mut arena = cmd
        .arg("--out")
        .arg(dir.path().join("run"))
        .args(["--progress", "never", "--concurrency", "3"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut seen = Vec::new();
    let status = loop {
        if let Some(status) = arena.try_wait().unwrap() {
            break status;
        }
        let now = bot_uids(&m.tag);
        if !now.is_empty() {
            seen.push(now);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert!(status.success(), "the run failed");
    let range = 2_100_000_000u32..2_100_004_096;
    let mut together = 0;
    for now in &seen {
        let mut all = std::collections::BTreeSet::new();
        for uids in now.values() {
            assert_eq!(
                uids.len(),
                1,
                "a bot's processes are several host users: {now:?}"
            );
            all.extend(uids);
        }
        assert_eq!(all.len(), now.len(), "bots share a host user: {now:?}");
        assert!(
            all.iter().all(|u| range.contains(u)),
            "a bot's host uid is outside the arena's range: {now:?}"
        );
        together = together.max(now.len());
    }
    assert!(together >= 2, "never saw two bots at once: {seen:?}");
    let left = left_behind(&m.tag, loops);
    assert!(left.is_empty(), "{left:?}");
}

/// `arena doctor` names the io layer (`blkio` or `io` cgroup), and it holds here.
#[test]
fn the_io_layer_is_reported_and_holds() {
    if !sandboxed(&Match::new("dominoes", "none")) {
        return;
    }
    assert_eq!(layers().get("io"), Some(&true), "{:?}", layers());
    let doctor = Command::new(arena()).arg("doctor").output().unwrap();
    let table = String::from_utf8_lossy(&doctor.stdout);
    assert!(table.lines().any(|l| l.starts_with("yes io ")), "{table}");
}

/// A bot reading the host's disk with O_DIRECT (past the page cache) is refused by the
/// filter (EINVAL), and the io layer's 50 MiB/s stands behind it (it read 490-656 MiB/s
/// here before, 49 MiB/s with the throttle alone); its games are unchanged.
#[test]
fn a_bot_reading_the_disk_directly_is_throttled() {
    for game in GAMES {
        let m = Match::new(game, "directio");
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

// Issue 41: the kernel's surface a bot reaches (an allowlist of system calls, socket
// families and rlimits on what bots share with the host).

/// Two bots, each opening an AF_VSOCK socket and binding a port named by the test, find
/// no vsock at all: its ports are one space for the machine, across network namespaces.
#[test]
fn two_bots_cannot_talk_over_vsock() {
    for game in GAMES {
        let mut m = Match::new(game, "vsock");
        m.victim = Victim::Hostile("vsock");
        if !sandboxed(&m) {
            return;
        }
        attack_fails(&m);
    }
}

/// Only unix and inet sockets open: no netlink (route, uevent), packet or vsock socket.
#[test]
fn a_bot_opens_no_netlink_packet_or_vsock_socket() {
    fails_in_both_games("families");
}

/// inotify and fanotify (other processes' opens of the host's files, instances charged
/// to the host's user), AIO (the machine's pool of events), io_uring, memfd_secret,
/// userfaultfd and POSIX message queues are all refused.
#[test]
fn a_bot_cannot_use_inotify_aio_io_uring_or_message_queues() {
    fails_in_both_games("pools");
}

/// `personality` answers the query only: no PER_LINUX32, no ADDR_NO_RANDOMIZE; no LDT.
#[test]
fn a_bot_cannot_change_its_personality_or_read_its_ldt() {
    fails_in_both_games("personality");
}

/// O_DIRECT is refused (by openat, open and fcntl): a bot's reads of the host's disk come
/// through the page cache.
#[test]
fn a_bot_cannot_read_the_host_disk_with_o_direct() {
    fails_in_both_games("direct");
}

/// `sync` and `syncfs` return at once without flushing the host's disks.
#[test]
fn a_bot_cannot_sync_the_hosts_disks() {
    fails_in_both_games("sync");
}

/// RLIMIT_NOFILE is 1024, soft and hard: a bot cannot take thousands of the host's open
/// files.
#[test]
fn a_bot_cannot_open_thousands_of_files() {
    fails_in_both_games("nofile");
}

/// A contest folder holding `bin/` with the hostile bot and the Quarto bot, and
/// `config.toml` (the seed) beside it: where a test's bots run from (`Match::bin`).
fn contest_with_bin() -> (tempfile::TempDir, PathBuf) {
    // Not /tmp, which the bot's own replaces; as a user who cannot write the build's
    // folder (CI's unprivileged run), its home.
    let contest = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .or_else(|_| tempfile::tempdir_in(std::env::var("HOME").unwrap_or_default()))
        .unwrap();
    let bin = contest.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::copy(fixture(), bin.join("bot.py")).unwrap();
    std::fs::copy(
        repo("examples/python/quarto_bot.py"),
        bin.join("quarto_bot.py"),
    )
    .unwrap();
    std::fs::write(contest.path().join("config.toml"), "seed = 1\n").unwrap();
    (contest, bin)
}

/// A link an author ships beside its script (`bin/weights -> ..`), named on the
/// operator's command line, grants what it names and nothing more: the run is refused
/// before any bot starts (exit 2), naming the token, the link and where it leads;
/// before, the folder it points to (the contest, its config's seed) was bound into the
/// bot's view, and the bot read it. Named relative to the contest's folder, where the
/// arena runs (as in the attack), and by its absolute path.
#[test]
fn a_link_named_on_the_command_line_cannot_open_the_folder_above_it() {
    use std::os::unix::fs::PermissionsExt;
    for game in GAMES {
        if !sandboxed(&Match::new(game, "none")) {
            return;
        }
        let (contest, bin) = contest_with_bin();
        // Readable by all, as a contest folder is: what the link would open.
        std::fs::set_permissions(contest.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("..", bin.join("weights")).unwrap();
        let t = tempfile::tempdir().unwrap();
        let run = t.path().join(format!("{game}-relative"));
        let output = Command::new(arena())
            .current_dir(contest.path())
            .args(["match", "--game", game, "--cases"])
            .arg(Match::new(game, "none").cases())
            .args(["--games-per-case", "2", "--seed", SEED, "--progress", "never"])
            .arg("--agent")
            .arg(format!(
                "a=exec:python3 bin/bot.py {game} linked bin/quarto_bot.py bin/weights --tag=linked-{}",
                std::process::id()
            ))
            .args(["--agent", "greedy", "--out"])
            .arg(&run)
            .output()
            .unwrap();
        let err = stderr(&output);
        let games = std::fs::read_to_string(run.join("games.csv")).unwrap_or_default();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{game}: not refused: {err}\n{games}"
        );
        assert!(
            err.contains("\"bin/weights\"")
                && err.contains("leads to ..")
                && err.contains("out of the folder it is in"),
            "{game}: the refusal names neither the link nor why: {err}"
        );
        // By its absolute path.
        let mut m = Match::new(game, "linked");
        m.arg = bin.join("weights").display().to_string();
        m.bin = Some(bin.clone());
        let (_, output) = m.play(&t.path().join(format!("{game}-absolute")));
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{game}: not refused: {err}");
        assert!(
            err.contains(&m.arg) && err.contains("out of the folder it is in"),
            "{game}: {err}"
        );
    }
}

/// A bot's stderr is shown escaped on the operator's console: a bot that writes escape
/// sequences (a window title, a screen clear, an OSC 52 clipboard write) and fails to
/// start stops the run with its stderr's tail quoted, `ESC` written out as `\x1b`.
#[test]
fn a_bots_escape_sequences_reach_the_console_escaped() {
    let m = Match::new("dominoes", "escape");
    if !sandboxed(&Match::new("dominoes", "none")) {
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let (_, output) = m.play(t.path());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        !output.stderr.contains(&0x1b) && !output.stdout.contains(&0x1b),
        "a raw ESC reached the console: {err:?}"
    );
    assert!(
        err.contains("before \\x1b]0;owned\\x07\\x1b[2J\\x1b]52;c;") && err.contains("\\x0d after"),
        "the stderr tail is not quoted escaped: {err}"
    );
}

/// A bot file the sandbox's user cannot read (its folder `0700`, as `mktemp -d` makes)
/// stops the run before the first bot starts, naming the folder, its owner and mode
/// and the fix; before, the run stopped with the interpreter's bare "Permission
/// denied". Only as root: a plain user's bot is that user outside.
#[test]
fn an_unreadable_bot_folder_is_refused_with_the_fix() {
    if !running_as_root() || !sandboxed(&Match::new("dominoes", "none")) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let (_contest, bin) = contest_with_bin();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut m = Match::new("dominoes", "none");
    m.bin = Some(bin.clone());
    let t = tempfile::tempdir().unwrap();
    let (_, output) = m.play(t.path());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    let folder = bin.display().to_string();
    assert!(
        err.contains(&format!("{folder} is owned by root with mode 0700"))
            && err.contains(&format!("chmod -R a+rX {folder}"))
            && err.contains("run the arena as a plain user"),
        "{err}"
    );
    assert!(
        !t.path().join("run/games.csv").exists() || {
            std::fs::read_to_string(t.path().join("run/games.csv"))
                .unwrap()
                .lines()
                .count()
                <= 1
        }
    );
}

/// A bot that passes its own failure off as the sandbox's (it prints the stages' words and
/// exits 125 before it answers `init`) is a bot that did not start: its own failure, the
/// run stopped as for any bot that never started (exit 2), never retried or blamed on the
/// arena. A stage that really fails (injected) reports it on its status pipe, which the
/// bot cannot write: the arena builds the sandbox again, and when it keeps failing, stops
/// the run with its own error (exit 3), recording no forfeit; a failure that passes is
/// retried and changes no game.
#[test]
fn a_bot_cannot_pass_for_the_sandbox_and_the_sandboxs_failures_are_the_arenas() {
    let forger = Match::new("dominoes", "setup125");
    if !sandboxed(&forger) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (run, output) = forger.play(dir.path());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(
        err.contains("\"hostile\" could not start") && err.contains("no answer to init"),
        "{err}"
    );
    assert!(!err.contains("harness"), "blamed on the arena: {err}");
    let log = std::fs::read_to_string(run.join("stderr-0-hostile.log")).unwrap_or_default();
    assert!(!log.contains("could not be built"), "retried: {log}");
    assert!(left_behind(&forger.tag, loop_devices()).is_empty());

    let mut failing = Match::new("dominoes", "none");
    failing.env = vec![("ARENA_FAULT", "stage-setup:always".into())];
    let dir = tempfile::tempdir().unwrap();
    let (run, output) = failing.play(dir.path());
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(3), "{err}");
    assert!(
        err.contains("could not be built (3 tries)") && err.contains("a fault injected"),
        "{err}"
    );
    let games = std::fs::read_to_string(run.join("games.csv")).unwrap_or_default();
    assert_eq!(games.lines().count(), 1, "a game recorded: {games}");
    assert!(left_behind(&failing.tag, loop_devices()).is_empty());

    let mut passing = Match::new("dominoes", "none");
    passing.env = vec![("ARENA_FAULT", "stage-setup:2".into())];
    let played = play_checked(&passing);
    assert_eq!(played.games, baseline(&passing));
    let logs: String = ["stderr-0-hostile.log", "stderr-1-victim.log"]
        .iter()
        .map(|f| std::fs::read_to_string(played.run.join(f)).unwrap_or_default())
        .collect();
    assert_eq!(logs.matches("trying again").count(), 2, "{logs}");
    played.assert_nothing_left();
}

/// The folders of cgroups named for arena `pid` (`arena-PID-*`), under every controller.
fn cgroups_of(pid: u32) -> Vec<PathBuf> {
    fn walk(dir: &Path, prefix: &str, depth: u32, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            if entry.file_name().to_string_lossy().starts_with(prefix) {
                found.push(path);
            } else if depth > 0 {
                walk(&path, prefix, depth - 1, found);
            }
        }
    }
    let mut found = Vec::new();
    walk(
        Path::new("/sys/fs/cgroup"),
        &format!("arena-{pid}-"),
        6,
        &mut found,
    );
    found
}

/// This process's freezer cgroup (a child arena's too): its folder, and whether it is
/// cgroup v2's.
fn own_freezer() -> Option<(PathBuf, bool)> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, list, path) = (parts.next()?, parts.next()?, parts.next()?);
        if list.split(',').any(|c| c == "freezer") {
            let base = Path::new("/sys/fs/cgroup/freezer");
            return Some((base.join(path.trim_start_matches('/')), false));
        }
    }
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    Some((
        Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/')),
        true,
    ))
}

/// `kill -9` of the arena while its bots are frozen between calls: within seconds no
/// process of its bots is left (their outer stages see the arena's lifeline close, kill
/// the namespace and thaw it), and no cgroup named for it. And an arena that starts
/// clears what a dead one left: here a frozen process in a cgroup named for a pid that no
/// longer runs, made by hand.
#[test]
fn a_killed_arena_leaves_no_bot_and_the_next_run_clears_what_a_dead_one_left() {
    let m = Match::new("dominoes", "none");
    if !sandboxed(&m) {
        return;
    }
    let tag = format!("killed-{}", std::process::id());
    let left = DeadArenaCgroup::make(&tag);
    let t = tempfile::tempdir().unwrap();
    let bot = repo("examples/python/dominoes_bot.py");
    let mut arena_run = Command::new(arena())
        .args(["match", "--game", "dominoes", "--cases", "all"])
        .args([
            "--games-per-case",
            "400",
            "--seed",
            SEED,
            "--concurrency",
            "2",
        ])
        .arg("--agent")
        .arg(format!("a=exec:python3 {bot} --tag={tag}"))
        .arg("--agent")
        .arg(format!("b=exec:python3 {bot} --tag={tag}"))
        .arg("--out")
        .arg(t.path().join("run"))
        .args(["--progress", "never"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = arena_run.id();
    // Mid-run: bots started, frozen between their calls.
    let began = std::time::Instant::now();
    while leftovers(&tag).len() < 3 && began.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        arena_run.try_wait().unwrap().is_none(),
        "the run ended early"
    );
    assert!(
        !cgroups_of(pid).is_empty(),
        "no cgroup of the arena while it ran"
    );
    arena_run.kill().unwrap();
    arena_run.wait().unwrap();
    let killed = std::time::Instant::now();
    while (!leftovers(&tag).is_empty() || !cgroups_of(pid).is_empty())
        && killed.elapsed().as_secs() < 5
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let running = leftovers(&tag);
    let cgroups = cgroups_of(pid);
    let cleared_by_arena = !left.dir.exists();
    drop(left);
    for p in &running {
        eprintln!("left running: {p}");
    }
    assert!(
        running.is_empty(),
        "{} processes left: {running:?}",
        running.len()
    );
    assert!(cgroups.is_empty(), "cgroups left: {cgroups:?}");
    assert!(cleared_by_arena, "a dead arena's cgroup was left");
}

/// A cgroup named for an arena that no longer runs, holding a frozen process, as a
/// killed arena left them; the test's own leftovers are cleared when it is dropped.
struct DeadArenaCgroup {
    dir: PathBuf,
    v2: bool,
    frozen: std::process::Child,
}

impl DeadArenaCgroup {
    fn make(tag: &str) -> DeadArenaCgroup {
        let mut gone = Command::new("true").spawn().unwrap();
        let dead = gone.id();
        gone.wait().unwrap();
        let (freezer, v2) = own_freezer().expect("a freezer cgroup");
        let dir = freezer.join(format!("arena-{dead}-0"));
        let frozen = Command::new("python3")
            .args([
                "-c",
                "import time; time.sleep(1000)",
                &format!("--tag={tag}"),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let made = DeadArenaCgroup { dir, v2, frozen };
        // An arena starting meanwhile (another test's) removes it while it is empty.
        for _ in 0..50 {
            let _ = std::fs::create_dir(&made.dir);
            if std::fs::write(made.dir.join("cgroup.procs"), made.frozen.id().to_string()).is_ok() {
                break;
            }
        }
        let (file, text) = made.state(true);
        std::fs::write(made.dir.join(file), text).unwrap();
        made
    }

    fn state(&self, frozen: bool) -> (&'static str, &'static str) {
        match (self.v2, frozen) {
            (true, true) => ("cgroup.freeze", "1"),
            (true, false) => ("cgroup.freeze", "0"),
            (false, true) => ("freezer.state", "FROZEN"),
            (false, false) => ("freezer.state", "THAWED"),
        }
    }
}

impl Drop for DeadArenaCgroup {
    fn drop(&mut self) {
        let _ = self.frozen.kill();
        let (file, text) = self.state(false);
        let _ = std::fs::write(self.dir.join(file), text);
        let _ = self.frozen.wait();
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// Processes that keep every core busy until dropped.
struct Spinners(Vec<std::process::Child>);

impl Spinners {
    fn start(n: usize) -> Spinners {
        Spinners(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Under load (four spinning processes per core, eight games at once, two external
/// bots: the arena serving `greedy`), the arena books no forfeit: the bot causes none, so
/// any would be the arena's. Short runs (4 games per case, 20 cases), so that most games
/// start their bots' processes: 2,000 games by default (`ARENA_LOAD_GAMES`: more), a few
/// minutes: `cargo test -p arena --release --test hostile under_load -- --ignored
/// --nocapture`.
#[test]
#[ignore = "minutes of a loaded machine"]
fn under_load_the_arena_books_no_forfeit_the_bot_did_not_cause() {
    let m = Match::new("dominoes", "none");
    if !sandboxed(&m) {
        return;
    }
    let games: u64 = std::env::var("ARENA_LOAD_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(2000);
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let spinners = Spinners::start(4 * cores);
    let served = format!("exec:{} serve --game dominoes greedy", arena());
    let began = std::time::Instant::now();
    let (mut rows, mut runs, mut forfeits, mut failed) = (0, 0, Vec::new(), Vec::new());
    while rows < games {
        runs += 1;
        let t = tempfile::tempdir().unwrap();
        let output = Command::new(arena())
            .args(["match", "--game", "dominoes", "--cases", "all"])
            .args(["--games-per-case", "4", "--seed", &runs.to_string()])
            .args(["--concurrency", "8"])
            .arg("--agent")
            .arg(format!("a={served}"))
            .arg("--agent")
            .arg(format!("b={served} --seed 2"))
            .arg("--out")
            .arg(t.path().join("run"))
            .args(["--progress", "never"])
            .output()
            .unwrap();
        if !output.status.success() {
            failed.push(stderr(&output));
        }
        let csv = std::fs::read_to_string(t.path().join("run/games.csv")).unwrap_or_default();
        let header: Vec<&str> = csv.lines().next().unwrap_or("").split(',').collect();
        let column = header.iter().position(|c| *c == "forfeit");
        for line in csv.lines().skip(1) {
            rows += 1;
            // The quoted case ("5,4") holds a comma: count fields from the end.
            let fields: Vec<&str> = line.split(',').collect();
            let from_end = header.len() - column.expect("a forfeit column");
            if !fields[fields.len() - from_end].is_empty() {
                forfeits.push(line.to_owned());
            }
        }
        if failed.len() > 3 {
            break;
        }
    }
    drop(spinners);
    eprintln!(
        "under load: {rows} games in {runs} runs, {:.0} s, {} forfeits, {} runs failed",
        began.elapsed().as_secs_f64(),
        forfeits.len(),
        failed.len()
    );
    assert!(failed.is_empty(), "runs failed: {failed:?}");
    assert!(
        forfeits.is_empty(),
        "{} forfeits: {forfeits:?}",
        forfeits.len()
    );
}
