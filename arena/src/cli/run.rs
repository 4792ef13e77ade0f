//! `arena run`, `match`, `merge` and `replay`: arguments, and the calls into
//! `tournament` and `rundir`.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use super::{ProgressMode, emit};
use arena_run::config::{AgentEntry, Cases, Config, NamedAgent, SeedChoice};
use arena_run::engine::{Execution, Shard};
use arena_run::plan::Plan;
use arena_run::report::Summarizer;
use arena_run::rundir::{self, RunDir};
use arena_run::{task, tournament};

#[derive(clap::Args, Debug)]
pub struct ExecArgs {
    /// Games played at once (default: the machine's cores); never changes results.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Progress bars on stderr: `auto` shows them on a terminal.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
    /// Measure each move's wall time: timings.csv, think.csv and a think-time table
    /// (always on when an agent is external; off otherwise, as the clock reads cost fast
    /// built-in games a large share of their time).
    #[arg(long)]
    pub timings: bool,
    /// Let the system move game threads between cores. By default, when every game
    /// thread can have a core of its own, each is pinned to one and its external bots
    /// run there too: a call's round trip then wakes no sleeping core (docs/protocol.md).
    #[arg(long)]
    pub no_pin: bool,
}

/// Which shard of the run to play (`docs/scale.md`).
#[derive(clap::Args, Debug, Default)]
pub struct ShardArgs {
    /// Play only shard INDEX/COUNT: the game pairs whose number is INDEX mod COUNT.
    #[arg(long, conflicts_with_all = ["shard_index", "shard_count"])]
    pub shard: Option<String>,
    /// The shard's index (0-based), or `env`: `JOB_COMPLETION_INDEX` (Kubernetes) or
    /// `SLURM_ARRAY_TASK_ID` (Slurm).
    #[arg(long, requires = "shard_count")]
    pub shard_index: Option<String>,
    /// The number of shards, or `env`: `SLURM_ARRAY_TASK_COUNT`.
    #[arg(long, requires = "shard_index")]
    pub shard_count: Option<String>,
}

impl ShardArgs {
    pub fn shard(&self) -> Result<Shard> {
        if let Some(s) = &self.shard {
            return s
                .parse()
                .map_err(|e: String| anyhow::anyhow!("--shard: {e}"));
        }
        let (Some(i), Some(k)) = (&self.shard_index, &self.shard_count) else {
            return Ok(Shard::WHOLE);
        };
        let index = from_env_or(i, &["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"])
            .context("--shard-index")?;
        let count = from_env_or(k, &["SLURM_ARRAY_TASK_COUNT"]).context("--shard-count")?;
        Shard::new(index, count).map_err(|e| anyhow::anyhow!("--shard-index/--shard-count: {e}"))
    }
}

/// A number, or with `env` the first of `vars` that is set.
fn from_env_or(value: &str, vars: &[&str]) -> Result<u64> {
    let (text, source) = if value == "env" {
        let Some((var, text)) = vars
            .iter()
            .find_map(|v| std::env::var(v).ok().map(|t| (*v, t)))
        else {
            bail!("`env` was given but none of {} is set", vars.join(", "));
        };
        (text, var.to_owned())
    } else {
        (value.to_owned(), "the argument".to_owned())
    };
    text.trim()
        .parse()
        .with_context(|| format!("{source} is {text:?}, not a number"))
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The tournament config (TOML); see docs/config.md.
    #[arg(required_unless_present = "resume")]
    pub config: Option<PathBuf>,
    /// Output directory (default: the config's `out`, else results/<game>-<timestamp>).
    /// A directory holding the same run (and shard) is resumed, so retries are safe.
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Finish the interrupted run in this directory; finished games are kept.
    #[arg(long, conflicts_with = "config")]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub shard: ShardArgs,
    #[command(flatten)]
    pub exec: ExecArgs,
}

#[derive(clap::Args, Debug)]
#[command(after_help = BUILT_IN_AGENTS.as_str())]
pub struct MatchArgs {
    /// The game: `dominoes`, `quarto`, or `puzzles` (solvers on seeded instances).
    #[arg(long, value_parser = task::parse_name)]
    pub game: String,
    /// An agent spec (`random`, `greedy`, `pimc:k=30`, `exec:<command>`), optionally
    /// named: `me=exec:./bot`. Give two or more (puzzles: one or more solvers).
    #[arg(long = "agent", required = true, num_args = 1)]
    pub agents: Vec<String>,
    /// `all`, or cases separated by spaces: "5,4 9,7" or "lines:0 squares:4".
    #[arg(long)]
    pub cases: Option<String>,
    /// Games per case, even (pairs of games with the seats exchanged) (default 100);
    /// puzzles: seeds per puzzle, from --seed on.
    #[arg(long)]
    pub games_per_case: Option<u32>,
    /// The master seed (default 1), or `random` (64 bits from the operating system,
    /// recorded and printed: use it for contests); puzzles: the first instance seed.
    #[arg(long)]
    pub seed: Option<SeedChoice>,
    /// Puzzles: the instance seeds `START..END` (end excluded), the same files as
    /// `arena gen --seeds`; sets --seed and --games-per-case.
    #[arg(long, value_parser = super::puzzles::parse_seeds, conflicts_with_all = ["seed", "games_per_case"])]
    pub seeds: Option<std::ops::Range<u64>>,
    /// Output directory, created (default: results/<game>-<timestamp>). A directory
    /// holding the same match (and shard) is resumed, so retries are safe.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A gauntlet: agent NAME plays every other agent, and the others do not play among
    /// themselves. Repeat for several.
    #[arg(long = "gauntlet", value_name = "NAME")]
    pub gauntlet: Vec<String>,
    #[command(flatten)]
    pub shard: ShardArgs,
    #[command(flatten)]
    pub exec: ExecArgs,
}

/// The built-in agents of each game, for `arena match --help`.
static BUILT_IN_AGENTS: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "Built-in agents (`best` is the strongest; options in docs/config.md):\n  \
         dominoes: {}\n  quarto:   {}\n  puzzles:  {} (solvers)\nAny program speaking docs/protocol.md: exec:<command line>",
        agents::dominoes::NAMES.join(", "),
        agents::quarto::NAMES.join(", "),
        agents::puzzles::registry::NAMES.join(", ")
    )
});

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The merged run directory to create.
    pub out: PathBuf,
    /// The shard directories, in any order.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A run directory.
    pub dir: PathBuf,
    /// The game number (the `game` column of games.csv).
    #[arg(long = "number", short = 'n', alias = "game")]
    pub game: u64,
}

fn execution(args: &ExecArgs, config: Option<usize>) -> Result<Execution> {
    let concurrency = match args.concurrency.or(config) {
        Some(0) => bail!("--concurrency must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    Ok(Execution {
        concurrency,
        progress: args.progress == ProgressMode::Auto,
        timings: args.timings,
        pin: !args.no_pin,
    })
}

pub fn run_config(args: RunArgs) -> Result<()> {
    if let Some(dir) = &args.resume {
        let exec = execution(&args.exec, None)?;
        return tournament::resume(dir, &exec);
    }
    let Some(path) = args.config else {
        bail!("arena run needs a config file or --resume DIR");
    };
    let config = Config::load(&path)?;
    let plan = Plan::resolve(&config).with_context(|| format!("in config {}", path.display()))?;
    let exec = execution(&args.exec, config.concurrency)?;
    let shard = args.shard.shard()?;
    let dir = args
        .out
        .or(config.out.clone())
        .unwrap_or_else(|| default_dir(&plan, shard));
    start_or_retry(&plan, dir, shard, &exec)?;
    print_drawn_seed(&config, &plan)
}

fn default_dir(plan: &Plan, shard: Shard) -> PathBuf {
    let dir = rundir::default_out_dir(plan.task.name());
    if shard.is_whole() {
        dir
    } else {
        dir.join(format!("shard-{}-of-{}", shard.index, shard.count))
    }
}

/// Starts the run, or resumes it when `dir` already holds this very run and shard (so a
/// retried array job finishes or does nothing), or refuses a different run there.
fn start_or_retry(plan: &Plan, dir: PathBuf, shard: Shard, exec: &Execution) -> Result<()> {
    if dir.join(rundir::MANIFEST).exists() {
        // A directory another process holds is refused here, with the holder named.
        let existing = RunDir::open(&dir, rundir::Access::Write)?;
        if existing.manifest.config_hash == plan.hash() && existing.shard() == shard {
            return tournament::resume_open(existing, exec);
        }
        bail!(
            "{} already holds another run; finish it with `arena run --resume {}` or choose another --out",
            dir.display(),
            dir.display()
        );
    }
    tournament::start(plan, &dir, shard, exec)
}

/// `name=spec` when the part before `=` is a plain name (a spec never has `=` before its
/// first `:`), else a bare spec.
fn agent_entry(text: String) -> AgentEntry {
    if let Some((name, spec)) = text.split_once('=')
        && !name.is_empty()
        && !name.contains(':')
        && !name.contains(char::is_whitespace)
    {
        return AgentEntry::Named(NamedAgent {
            name: Some(name.to_owned()),
            spec: spec.to_owned(),
        });
    }
    AgentEntry::Spec(text)
}

pub fn run_match(args: MatchArgs) -> Result<()> {
    let (seed, games_per_case) = match &args.seeds {
        None => (args.seed, args.games_per_case),
        Some(_) if task::lookup(&args.game)?.seats() != 1 => {
            anyhow::bail!(
                "--seeds is for puzzle runs (--game puzzles); games take --seed and --games-per-case"
            )
        }
        Some(range) => {
            let count = u32::try_from(range.end - range.start)
                .map_err(|_| anyhow::anyhow!("--seeds {range:?}: too many seeds"))?;
            (Some(SeedChoice::Fixed(range.start)), Some(count))
        }
    };
    let config = Config {
        game: args.game,
        cases: args.cases.map(Cases::Text),
        games_per_case,
        seed,
        agents: args.agents.into_iter().map(agent_entry).collect(),
        concurrency: None,
        out: None,
        sprt: None,
        limits: None,
        gauntlet: args.gauntlet,
    };
    let plan = Plan::resolve(&config)?;
    let exec = execution(&args.exec, None)?;
    let shard = args.shard.shard()?;
    let dir = args.out.unwrap_or_else(|| default_dir(&plan, shard));
    start_or_retry(&plan, dir, shard, &exec)?;
    print_drawn_seed(&config, &plan)
}

/// After a run whose seed was drawn at random: the seed, so the run can be replayed.
fn print_drawn_seed(config: &Config, plan: &Plan) -> Result<()> {
    if config.seed.as_ref().is_some_and(SeedChoice::is_random) {
        emit(&format!(
            "seed: {} (drawn at random; `--seed {}` replays the run)\n",
            plan.seed, plan.seed
        ))?;
    }
    Ok(())
}

pub fn merge(args: MergeArgs) -> Result<()> {
    let existed = args.out.exists();
    let shards = rundir::merge::Shards::open(&args.shards)?;
    let mut tally = Summarizer::new(shards.plan())?;
    let merged = match shards.merge(&args.out, &mut tally) {
        Ok(m) => m,
        Err(e) => {
            // A merge that failed half-way leaves nothing behind to be mistaken for a run.
            if !existed && args.out.join(rundir::MANIFEST).exists() {
                let _ = std::fs::remove_dir_all(&args.out);
            }
            return Err(e);
        }
    };
    let table = tournament::write_summaries(&merged.run, &tally, merged.stopped_early, None)?;
    merged.run.log(&format!(
        "merged {} games from {} shards{}",
        merged.games,
        args.shards.len(),
        if merged.stopped_early {
            " (cut by the SPRT)"
        } else {
            ""
        }
    ))?;
    emit(&format!(
        "merged {} games from {} shards into {}\n\n{table}",
        merged.games,
        args.shards.len(),
        args.out.display()
    ))
}

pub fn replay(args: ReplayArgs) -> Result<()> {
    emit(&tournament::replay(&args.dir, args.game)?)
}

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// A run directory (a whole run, a shard or a merged run), or the root of
    /// `arena league export` (every pair's run directory that its `pairs.csv` lists).
    pub dir: PathBuf,
    /// Check about K games, evenly spread over the file, instead of all of them.
    #[arg(long, value_name = "K")]
    pub sample: Option<u64>,
    /// Start at game N (the `game` column; `attempt` in a puzzle run).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub from: u64,
    /// Replay the games of `exec:` agents too (started afresh: a bot that is not
    /// deterministic will differ).
    #[arg(long)]
    pub external: bool,
    /// Games replayed at once (default: one per core).
    #[arg(long, value_name = "N")]
    pub concurrency: Option<usize>,
}

/// Exit 0 when every replayed row agrees, 1 on any mismatch, 2 on bad input.
pub fn verify(args: VerifyArgs) -> Result<()> {
    if args.concurrency == Some(0) {
        bail!("--concurrency must be at least 1");
    }
    let options = arena_run::verify::Options {
        sample: args.sample,
        from: args.from,
        external: args.external,
        concurrency: args.concurrency.unwrap_or(0),
    };
    let verified = if arena_run::verify::is_export_root(&args.dir) {
        arena_run::verify::verify_export(&args.dir, &options)?
    } else {
        arena_run::verify::verify(&args.dir, &options)?
    };
    emit(&verified.text)?;
    if verified.mismatches > 0 {
        return Err(arena_run::verify::Mismatches(verified.mismatches).into());
    }
    Ok(())
}

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A run directory.
    pub dir: PathBuf,
}

pub fn report(args: ReportArgs) -> Result<()> {
    let began = std::time::Instant::now();
    let path = tournament::report(&args.dir)?;
    emit(&format!(
        "wrote {} in {:.2} s\n",
        path.display(),
        began.elapsed().as_secs_f64()
    ))
}
