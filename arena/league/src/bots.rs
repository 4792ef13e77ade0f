//! Bots: added with their program files copied into the league (a registered version
//! never changes while its author edits the working copy), built once, and moved
//! between roles by their author (promote, reject, archive, rename) while `run` runs:
//! the run loop reads the bot table before every batch.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agents::Spec;
use anyhow::{Context, Result, bail};

use super::store::{Bot, BotId, Evaluation, Role, Standing, State, TestState};
use super::{BOTS, League};
use arena_run::plan::SprtConfig;

/// The longest bot name, in characters.
const NAME_MAX: usize = 64;

/// How long a `--build` may run.
const BUILD_LIMIT: Duration = Duration::from_secs(600);

/// The most of a build's output kept in its log.
const LOG_MAX: usize = 64 * 1024;

/// A name the league can show and export: any printable text (the page escapes it).
fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() {
        bail!("a bot name cannot be empty");
    }
    if name.chars().count() > NAME_MAX {
        bail!("bot name {name:?} is longer than {NAME_MAX} characters");
    }
    if name.chars().any(char::is_control) {
        bail!("bot name {name:?} holds a control character");
    }
    Ok(())
}

/// What `add` did.
pub struct Added {
    pub id: BotId,
    pub spec: String,
    pub failed: Option<String>,
    /// The test it started (a candidate's), said in words.
    pub test: Option<String>,
}

/// What a test measures its bot against, as its author asks.
#[derive(Clone, Debug, PartialEq)]
pub enum BaseChoice {
    /// The bot's previous version when its name ends in a number and one is in play
    /// (`mine-v3`: the highest of `mine-v2`, `mine-v1`, …), else the strongest benchmark.
    Previous,
    /// A bot of the league, by name.
    Named(String),
    /// The benchmark the table rates highest at each batch.
    Strongest,
}

/// A test as it will be made: against `base` (`None`: the strongest benchmark), at
/// `bounds` (`None`: the league's).
pub struct TestPlan {
    pub base: Option<BotId>,
    pub bounds: Option<SprtConfig>,
    /// How the base was chosen, in words (`"v1" (its previous version)`).
    pub said: String,
}

/// The version before `name`: the bot in play whose name is `name` with a smaller
/// number at its end (`v3` -> `v2`, or `v1` when `v2` is gone; `mine-10` -> `mine-9`),
/// the highest such. `None` when the name ends in no number.
pub(super) fn previous_version<'a>(name: &str, bots: &'a [Bot]) -> Option<&'a Bot> {
    let split = |n: &str| -> Option<(String, u128)> {
        let digits = n.len() - n.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (stem, number) = n.split_at(n.len() - digits);
        Some((stem.to_owned(), number.parse().ok()?))
    };
    let (stem, number) = split(name)?;
    bots.iter()
        .filter(|b| b.plays() && b.name != name)
        .filter_map(|b| {
            let (s, n) = split(&b.name)?;
            (s == stem && n < number).then_some((n, b))
        })
        .max_by_key(|(n, b)| (*n, b.id))
        .map(|(_, b)| b)
}

/// Resolves what a test of `subject` (a bot named so, maybe not added yet) is measured
/// against, refusing a base that cannot play.
fn plan_test(
    league: &League,
    subject: &str,
    base: &BaseChoice,
    bounds: Option<SprtConfig>,
) -> Result<TestPlan> {
    if let Some(b) = &bounds {
        b.sprt().map_err(|e| {
            anyhow::anyhow!(
                "--elo0 {} --elo1 {} --alpha {} --beta {}: {e}",
                b.elo0,
                b.elo1,
                b.alpha,
                b.beta
            )
        })?;
    }
    let bots = league.store.bots()?;
    let (base, said) = match base {
        BaseChoice::Strongest => (None, "the strongest benchmark".to_owned()),
        BaseChoice::Previous => match previous_version(subject, &bots) {
            Some(b) => (Some(b.id), format!("{:?} (its previous version)", b.name)),
            None => (
                None,
                "the strongest benchmark (no previous version by its name)".to_owned(),
            ),
        },
        BaseChoice::Named(name) => {
            let b = bots.iter().find(|b| &b.name == name).ok_or_else(|| {
                anyhow::anyhow!("--base {name:?}: the league has no bot so named")
            })?;
            if b.name == subject {
                bail!("--base {name:?}: a bot is not tested against itself");
            }
            if b.state() == State::Failed {
                bail!("--base {name:?}: that bot failed and cannot play");
            }
            if b.archived {
                bail!(
                    "--base {name:?}: that bot is archived (`arena league archive --undo` brings it back)"
                );
            }
            (Some(b.id), format!("{name:?}"))
        }
    };
    Ok(TestPlan { base, bounds, said })
}

/// Starts the test `plan` of bot `id`; returns it in words.
fn start_test(league: &League, id: BotId, name: &str, plan: &TestPlan) -> Result<String> {
    if let Some(running) = league
        .store
        .tests()?
        .into_iter()
        .find(|t| t.subject == id && t.state == TestState::Running && t.base == plan.base)
    {
        bail!(
            "{name:?} already has a running test against {} (test {})",
            plan.said,
            running.id
        );
    }
    let test = league.store.add_test(id, plan.base, plan.bounds)?;
    let s = plan.bounds.unwrap_or(league.config.sprt);
    Ok(format!(
        "test {test}: {name:?} against {}, GSPRT logistic Elo {} vs {} (alpha {}, beta {})",
        plan.said, s.elo0, s.elo1, s.alpha, s.beta
    ))
}

/// `arena league test`: a new test of a bot in play against a base of the author's
/// choice, beside any it has.
pub fn test(
    league: &League,
    name: &str,
    base: &BaseChoice,
    bounds: Option<SprtConfig>,
) -> Result<String> {
    let bot = league.store.bot(name)?;
    if bot.state() == State::Failed {
        bail!("bot {name:?} failed; add a fixed version instead");
    }
    if bot.archived {
        bail!("bot {name:?} is archived (`arena league archive --undo` brings it back)");
    }
    let plan = plan_test(league, name, base, bounds)?;
    Ok(format!("{}\n", start_test(league, bot.id, name, &plan)?))
}

/// `arena league add`: registers `spec` as `name`, copying its program files and
/// building the copy when `build` is given; a candidate's test starts (`test`: its
/// base and bounds; a benchmark has none).
pub fn add(
    league: &League,
    name: &str,
    spec: &str,
    build: Option<&str>,
    test: Option<(BaseChoice, Option<SprtConfig>)>,
) -> Result<Added> {
    check_name(name)?;
    let benchmark = test.is_none();
    let plan = match &test {
        Some((base, bounds)) => Some(plan_test(league, name, base, *bounds)?),
        None => None,
    };
    let parsed: Spec = spec
        .parse()
        .map_err(|e: agents::SpecError| anyhow::anyhow!("{e}"))?;
    league.config.game.check_agent(&parsed)?;
    let standing = if benchmark {
        Standing::Benchmark
    } else {
        Standing::Candidate(Evaluation::Running)
    };
    // Registered first (the name is taken at once), as failed until its files are in
    // place: a run that reads the table meanwhile never plays a half-copied bot.
    let id = league
        .store
        .add_bot(name, spec, Standing::Failed(standing.role()))?;
    let folder = league.dir.join(BOTS).join(id.to_string());
    let mut build_dir = folder.clone();
    let copied = match &parsed {
        Spec::Exec { command } => match copy_program(command, &folder, build.is_some()) {
            Ok((spec, dir)) => {
                build_dir = dir;
                spec
            }
            Err(e) => {
                league
                    .store
                    .set_failed(id, &format!("copying its files: {e:#}"))?;
                return Err(e.context(format!("bot {name:?} is recorded as failed")));
            }
        },
        Spec::Builtin { .. } => spec.to_owned(),
    };
    league.store.set_spec(id, &copied)?;
    if let Some(cmd) = build {
        std::fs::create_dir_all(&build_dir)?;
        let (ok, log) = match run_build(cmd, &build_dir, &league.config.limits) {
            Ok(done) => done,
            Err(e) => {
                league.store.set_failed(id, &format!("{e:#}"))?;
                return Err(e.context(format!("bot {name:?} is recorded as failed")));
            }
        };
        if !ok {
            league.store.set_failed(id, &log)?;
            return Ok(Added {
                id,
                spec: copied,
                failed: Some(log),
                test: None,
            });
        }
        // A link the build left that leads out of the bot's folder (`data.txt -> ../..`)
        // would open the league's folder to the bot at every game when its command
        // names it: refused, as at the start of a run.
        if let Some((link, target)) = arena_sandbox::link_out_of(&folder)? {
            let why = format!(
                "the build {cmd:?} left the link {} to {}, out of the bot's folder {}: a \
                 bot's files may link only inside its folder\n{log}",
                link.display(),
                target.display(),
                folder.display()
            );
            league.store.set_failed(id, &why)?;
            return Ok(Added {
                id,
                spec: copied,
                failed: Some(why),
                test: None,
            });
        }
        league.store.set_build_log(id, &log)?;
    }
    if matches!(parsed, Spec::Exec { .. }) {
        league.store.set_seal(id, &super::seal::seal(&folder)?)?;
        // Still `failed` in the table while it is probed: a run never plays it yet.
        if let Err(why) = probe(league, id, name, &copied) {
            league.store.remove_unplayed(id)?;
            let _ = std::fs::remove_dir_all(&folder);
            return Err(why.context(format!(
                "bot {name:?} cannot start and is not added (the name stays free)"
            )));
        }
    }
    league.store.set_standing(id, standing)?;
    let test = match &plan {
        Some(plan) => Some(start_test(league, id, name, plan)?),
        None => None,
    };
    Ok(Added {
        id,
        spec: copied,
        failed: None,
        test,
    })
}

/// The most of a refused bot's stderr shown, in lines.
const STDERR_LINES: usize = 20;

/// Starts the bot once as `run` would (its runtime, in the sandbox, with `init` for the
/// league's first case; `startup_ms` to answer) in the first game of a pair of it with
/// itself, and refuses it when it cannot start: the reason and the end of its stderr
/// (`logs/add-<id>/`), control characters written out.
fn probe(league: &League, id: BotId, name: &str, spec: &str) -> Result<()> {
    let again = format!("{name} (again)");
    let plan_bots = [name, again.as_str()].map(|n| super::store::Bot {
        id,
        name: n.to_owned(),
        spec: spec.to_owned(),
        standing: Standing::Failed(Role::Candidate),
        archived: false,
        build_log: String::new(),
        seal: None,
    });
    // A thinking budget of 1 ms: the game ends at the bot's first move, once `init` was
    // answered (start-up time is never charged to it), so the probe costs a start, not
    // a game of a slow bot.
    let mut config = league.config.clone();
    config.limits.case_budget_ms = 1;
    let player = super::play::PairPlayer::new(&config, &plan_bots[0], &plan_bots[1])?;
    let logs = league.dir.join(super::LOGS).join(format!("add-{id}"));
    let _ = std::fs::remove_dir_all(&logs);
    let rt = std::sync::Arc::new(super::play::start_runtime(&player, &logs)?);
    let record = player.first_game(Some(&rt));
    rt.shutdown();
    let record = record?;
    if record.termination != arena_run::record::Termination::Startup {
        return Ok(());
    }
    let label = arena_run::external::label(0, name);
    let stderr =
        std::fs::read_to_string(logs.join(format!("stderr-{label}.log"))).unwrap_or_default();
    let lines: Vec<&str> = stderr.lines().collect();
    let tail = lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n");
    bail!(
        "{}\nthe end of its stderr ({}):\n{}",
        arena_run::shown::escape_controls(&record.reason),
        logs.display(),
        if tail.is_empty() {
            "(nothing)".into()
        } else {
            arena_run::shown::escape_controls(&tail)
        }
    )
}

/// Copies every file or folder a relative path of `command` names into `folder`, and
/// returns the spec with those paths pointing at the copies, and the folder a build runs
/// in. Absolute paths (a system interpreter) stay as they are. Tokens are the ones
/// `external::absolutize` rewrites (`rewrite_paths`). With a build, a program that does
/// not exist yet (`cbot/bot`, which the build makes) brings its folder (`cbot/`), and
/// the build runs in that folder's copy.
fn copy_program(command: &str, folder: &Path, build: bool) -> Result<(String, PathBuf)> {
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    let folder = std::path::absolute(folder)?;
    let mut build_dir = folder.clone();
    let mut command = command.to_owned();
    if build && let Some((program, source)) = program_to_build(&command) {
        let name = source.file_name().context("a program folder")?;
        let target = folder.join(name);
        let token = source.display().to_string();
        copy_submission(&token, &source, &target)?;
        let built = target.join(Path::new(&program).file_name().context("a program")?);
        command = command.replacen(&program, &built.display().to_string(), 1);
        build_dir = target;
    }
    let rewritten = arena_run::external::rewrite_paths(&command, |token, path| {
        let base = path
            .file_name()
            .map_or_else(|| PathBuf::from("program"), PathBuf::from);
        let target = folder.join(&base);
        copy_submission(token, path, &target)?;
        Ok::<_, anyhow::Error>(target.display().to_string())
    })?;
    Ok((format!("exec:{rewritten}"), build_dir))
}

/// The program word of `command` and its folder, when the program is not there yet but
/// its folder is (named by a relative path other than `.`: never the whole current folder).
fn program_to_build(command: &str) -> Option<(String, PathBuf)> {
    let program = command.split_whitespace().next()?;
    let path = Path::new(program);
    let parent = path.parent()?;
    let named = !parent.as_os_str().is_empty() && parent != Path::new(".");
    (path.is_relative() && named && !path.exists() && parent.is_dir())
        .then(|| (program.to_owned(), parent.to_owned()))
}

/// Copies what `token` names (`path`, relative to the arena's folder) to `target`, links
/// as links: the token's own links must stay in the folder they sit in, and a link in a
/// folder it names must stay inside that folder (`arena_sandbox::copy_submission`).
fn copy_submission(token: &str, path: &Path, target: &Path) -> Result<()> {
    // Named twice (`bot.py bot.py`): copied once.
    if target.exists() {
        return Ok(());
    }
    let here = std::env::current_dir()?;
    let real = arena_sandbox::resolve_below(token, &here, path)?;
    arena_sandbox::copy_submission(&real, target).with_context(|| format!("copying {token}"))
}

/// Runs `cmd` with `sh -c` in `folder` (the bot's copy), under a time limit, in the
/// bots' sandbox (the league's `[limits]`; the folder copied into a tmpfs of its size
/// plus `disk_mb` and back when the build succeeds: what the build writes stays, capped);
/// returns whether it succeeded and its output.
fn run_build(
    cmd: &str,
    folder: &Path,
    limits: &arena_run::setup::Limits,
) -> Result<(bool, String)> {
    // Kept until the build has ended: it gives the folder back and removes the cgroups.
    let mut confined = None;
    let mut child = if limits.sandbox == arena_run::setup::SandboxMode::On {
        let read = arena_sandbox::grants(cmd)?;
        let policy = arena_run::external::policy(limits, read);
        let confined = confined.insert(
            arena_sandbox::build::in_place(&policy, folder, cmd)
                .with_context(|| format!("the build {cmd:?} cannot start"))?,
        );
        confined.spawn()?
    } else {
        // sandbox = "off": as the bots run then, with an address-space limit only.
        let memory = limits.memory_mb.saturating_mul(1024);
        let script = format!("ulimit -v {memory} 2>/dev/null; exec sh -c \"$1\"");
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg("build")
            .arg(cmd)
            .current_dir(folder)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .with_context(|| format!("starting the build {cmd:?}"))?
    };
    let began = Instant::now();
    let (out_tx, out_rx) = std::sync::mpsc::channel();
    for stream in [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let tx = out_tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = std::io::Read::read_to_end(
                &mut std::io::Read::take(stream, LOG_MAX as u64),
                &mut buf,
            );
            let _ = tx.send(buf);
        });
    }
    drop(out_tx);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if began.elapsed() > BUILD_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut log = String::new();
    for part in out_rx.iter() {
        log.push_str(&String::from_utf8_lossy(&part));
    }
    drop(confined);
    match status {
        Some(s) if s.success() => Ok((true, log)),
        Some(s) => Ok((false, format!("build {cmd:?} failed ({s}):\n{log}"))),
        None => Ok((
            false,
            format!(
                "build {cmd:?} ran past {} s and was stopped:\n{log}",
                BUILD_LIMIT.as_secs()
            ),
        )),
    }
}

/// `promote`: a candidate joins the benchmarks (its author's decision, whatever its
/// verdict). Returns what it did.
pub fn promote(league: &League, name: &str) -> Result<String> {
    let bot = league.store.bot(name)?;
    match bot.standing {
        Standing::Candidate(_) => {}
        Standing::Benchmark => bail!("bot {name:?} is a benchmark already"),
        Standing::Failed(_) => bail!("bot {name:?} failed; add a fixed version instead"),
    }
    league.store.set_standing(bot.id, Standing::Benchmark)?;
    Ok(format!(
        "promoted {name:?} (a {} candidate) to a benchmark: candidates are measured against it\n",
        bot.state()
    ))
}

/// `reject`: a candidate stops being evaluated (a benchmark becomes a rejected candidate:
/// it leaves the pool). Returns what it did, naming a benchmark as one.
pub fn reject(league: &League, name: &str) -> Result<String> {
    let bot = league.store.bot(name)?;
    // A failed bot stays failed: as a rejected candidate it would count as one that
    // plays.
    if let Standing::Failed(_) = bot.standing {
        bail!("bot {name:?} failed: it never plays, so there is nothing to reject");
    }
    let stopped = league
        .store
        .stop_tests(bot.id, None, "rejected by its author")?;
    league
        .store
        .set_standing(bot.id, Standing::Candidate(Evaluation::Rejected))?;
    Ok(if bot.standing == Standing::Benchmark {
        format!(
            "rejected benchmark {name:?}: it leaves the pool of benchmarks and plays no more (its games stay)\n"
        )
    } else {
        format!(
            "rejected candidate {name:?}: its evaluation stops ({stopped} running test{} stopped; its games stay)\n",
            if stopped == 1 { "" } else { "s" }
        )
    })
}

/// `archive`: the bot plays no more and leaves the standings; its games stay. Returns
/// what it did.
pub fn archive(league: &League, name: &str, undo: bool) -> Result<String> {
    let bot = league.store.bot(name)?;
    league.store.set_archived(bot.id, !undo)?;
    Ok(if undo {
        format!("{name:?} is back: it plays and is in the standings again\n")
    } else {
        format!("archived {name:?}: it plays no more and leaves the standings (its games stay)\n")
    })
}

/// `rename`: only the name changes (games are stored by bot id). Returns what it did.
pub fn rename(league: &League, old: &str, new: &str) -> Result<String> {
    check_name(new)?;
    let bot = league.store.bot(old)?;
    league.store.rename(bot.id, new)?;
    Ok(format!("renamed {old:?} to {new:?}\n"))
}
