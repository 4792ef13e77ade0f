//! The command line: argument types and one function per subcommand.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use arena_core::Game;
use arena_core::quarto::{Quarto, Variant};
use clap::{Parser, Subcommand, ValueEnum};

use crate::config::{Cases, Config, GameName, Plan};
use crate::contest::{Contest, DominoesContest, QuartoContest};
use crate::runner::{self, Step};
use crate::schedule;
use crate::summary::Tally;
use crate::tournament::{self, CONFIG_TOML, Execution};

#[derive(Parser, Debug)]
#[command(
    name = "arena",
    version,
    about = "Seeded tournaments for TCO09 Dominoes and Quarto bots"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the tournament a config file describes (or finish one with --resume).
    Run(RunArgs),
    /// Run an ad-hoc match between agents, with the same engine as `run`.
    Match(MatchArgs),
    /// Print one game of a run, move by move, replayed from the seed.
    Replay(ReplayArgs),
    /// Count Quarto move sequences of exactly DEPTH plies from the empty board.
    Perft(PerftArgs),
    /// Run a built-in agent as an external program over the line protocol (stdin/stdout).
    Serve(ServeArgs),
    /// Train a learned evaluator and write its weights file (docs/training.md).
    Train(crate::train::TrainArgs),
    /// Exact values and optimal moves of positions (D17 / Q9 notation).
    Solve(crate::solve::SolveArgs),
    /// Internal: confine this process with Landlock, then become an external agent.
    #[command(name = "__sandbox", hide = true)]
    Sandbox(crate::sandbox::SandboxArgs),
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// A built-in agent spec, e.g. `greedy`.
    pub spec: String,
    #[arg(long, value_enum)]
    pub game: GameName,
    /// Seeds the served agent's own randomness (the arena never sends its seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    Auto,
    Never,
}

#[derive(clap::Args, Debug)]
pub struct ExecArgs {
    /// Games played at once (default: the machine's cores); never changes results.
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Progress bars on stderr: `auto` shows them on a terminal.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The tournament config (TOML); see docs/config.md.
    #[arg(required_unless_present = "resume")]
    pub config: Option<PathBuf>,
    /// Output directory (default: the config's `out`, else results/<game>-<timestamp>).
    #[arg(long, conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Finish the interrupted run in this directory; finished games are kept.
    #[arg(long, conflicts_with = "config")]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub exec: ExecArgs,
}

#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    #[arg(long, value_enum)]
    pub game: GameName,
    /// An agent spec (`random`, `greedy`, `pimc:k=30`, `exec:<command>`); give two or more.
    #[arg(long = "agent", required = true, num_args = 1)]
    pub agents: Vec<String>,
    /// `all`, or cases separated by spaces: "5,4 9,7" or "lines:0 squares:4".
    #[arg(long)]
    pub cases: Option<String>,
    /// Games per case, even (pairs of games with the seats exchanged).
    #[arg(long)]
    pub games_per_case: Option<u32>,
    /// The master seed (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub exec: ExecArgs,
}

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A run directory (holding config.toml).
    pub dir: PathBuf,
    /// The game number (the `game` column of games.csv).
    #[arg(long = "game")]
    pub game: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PerftGame {
    Quarto,
}

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    pub game: PerftGame,
    pub depth: u32,
    #[arg(long, default_value = "lines")]
    pub variant: Variant,
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => run_config(args),
        Command::Match(args) => run_match(args),
        Command::Replay(args) => replay(args),
        Command::Perft(args) => perft(args),
        Command::Serve(args) => crate::serve::run(&args.spec, args.game, args.seed),
        Command::Train(args) => crate::train::run(args),
        Command::Solve(args) => crate::solve::run(args),
        Command::Sandbox(args) => crate::sandbox::run(args),
    }
}

fn default_cases(game: GameName) -> Vec<String> {
    match game {
        GameName::Dominoes => DominoesContest::default_cases()
            .iter()
            .map(|c| c.to_string())
            .collect(),
        GameName::Quarto => QuartoContest::default_cases()
            .iter()
            .map(|c| c.to_string())
            .collect(),
    }
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
    })
}

fn run_config(args: RunArgs) -> Result<()> {
    if let Some(dir) = &args.resume {
        let path = dir.join(CONFIG_TOML);
        if !path.exists() {
            bail!(
                "{} is not a run directory: it has no {CONFIG_TOML}",
                dir.display()
            );
        }
        let config = Config::load(&path)?;
        let mut plan = Plan::resolve(&config, &default_cases(config.game))?;
        canonicalize_cases(&mut plan)?;
        let exec = execution(&args.exec, None)?;
        tournament::log(dir, "resumed")?;
        return execute(&plan, dir, &exec);
    }
    let path = args
        .config
        .expect("clap requires a config without --resume");
    let config = Config::load(&path)?;
    let mut plan = Plan::resolve(&config, &default_cases(config.game))
        .with_context(|| format!("in config {}", path.display()))?;
    canonicalize_cases(&mut plan).with_context(|| format!("in config {}", path.display()))?;
    let exec = execution(&args.exec, config.concurrency)?;
    let dir = args
        .out
        .or(config.out.clone())
        .unwrap_or_else(|| tournament::default_out_dir(plan.game.as_str()));
    start(&plan, &dir, &exec)
}

fn run_match(args: MatchArgs) -> Result<()> {
    let config = Config {
        game: args.game,
        cases: args.cases.map(Cases::Text),
        games_per_case: args.games_per_case,
        seed: args.seed,
        agents: args
            .agents
            .into_iter()
            .map(crate::config::AgentEntry::Spec)
            .collect(),
        concurrency: None,
        out: None,
        sprt: None,
        limits: None,
    };
    let mut plan = Plan::resolve(&config, &default_cases(config.game))?;
    canonicalize_cases(&mut plan)?;
    let exec = execution(&args.exec, None)?;
    let dir = args
        .out
        .unwrap_or_else(|| tournament::default_out_dir(plan.game.as_str()));
    start(&plan, &dir, &exec)
}

/// Rewrites the plan's cases in canonical notation (`5, 4` becomes `5,4`), so rows,
/// reports and resumes agree, and refuses a case listed twice (its games would repeat).
fn canonicalize_cases(plan: &mut Plan) -> Result<()> {
    let cases: Vec<String> = match plan.game {
        GameName::Dominoes => tournament::parse_cases::<DominoesContest>(plan)?
            .iter()
            .map(ToString::to_string)
            .collect(),
        GameName::Quarto => tournament::parse_cases::<QuartoContest>(plan)?
            .iter()
            .map(ToString::to_string)
            .collect(),
    };
    for (i, case) in cases.iter().enumerate() {
        if let Some(j) = cases[..i].iter().position(|c| c == case) {
            bail!(
                "case {case} is listed twice (as {:?} and {:?}); its games would be played twice",
                plan.cases[j],
                plan.cases[i]
            );
        }
    }
    plan.cases = cases;
    Ok(())
}

/// Creates the run directory with the resolved config and seed, then runs.
fn start(plan: &Plan, dir: &Path, exec: &Execution) -> Result<()> {
    match plan.game {
        GameName::Dominoes => tournament::check_agents::<DominoesContest>(plan)?,
        GameName::Quarto => tournament::check_agents::<QuartoContest>(plan)?,
    }
    if dir.join(CONFIG_TOML).exists() {
        bail!(
            "{} already holds a run; finish it with `arena run --resume {}` or choose another --out",
            dir.display(),
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let text = toml::to_string(&plan.to_config())?;
    std::fs::write(dir.join(CONFIG_TOML), text)?;
    std::fs::write(dir.join("seed"), format!("{}\n", plan.seed))?;
    tournament::log(
        dir,
        &format!(
            "arena {} started; seed {}",
            env!("CARGO_PKG_VERSION"),
            plan.seed
        ),
    )?;
    execute(plan, dir, exec)
}

fn execute(plan: &Plan, dir: &Path, exec: &Execution) -> Result<()> {
    match plan.game {
        GameName::Dominoes => execute_game::<DominoesContest>(plan, dir, exec),
        GameName::Quarto => execute_game::<QuartoContest>(plan, dir, exec),
    }
}

fn execute_game<C: Contest>(plan: &Plan, dir: &Path, exec: &Execution) -> Result<()> {
    let began = std::time::Instant::now();
    let finished = tournament::run::<C>(plan, dir, exec)?;
    let mut tally = Tally::new(plan);
    for row in &finished.rows {
        tally.add(row);
    }
    let report = tally.report();
    std::fs::write(dir.join("summary.csv"), report.to_csv()?)?;
    std::fs::write(
        dir.join("summary.json"),
        report.to_json(C::NAME, plan.seed, finished.stopped_early)?,
    )?;
    tournament::log(
        dir,
        &format!(
            "finished {} games in {:.2} s at concurrency {}{}",
            finished.rows.len(),
            began.elapsed().as_secs_f64(),
            exec.concurrency,
            if finished.stopped_early {
                " (stopped by the SPRT)"
            } else {
                ""
            }
        ),
    )?;
    emit(&format!(
        "{} {} games, seed {}, results in {}\n\n{}",
        C::NAME,
        finished.rows.len(),
        plan.seed,
        dir.display(),
        report.to_table()
    ))
}

/// Writes to stdout; a closed pipe (`arena replay … | head`) surfaces as an
/// `io::Error` that `main` treats as success.
fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn replay(args: ReplayArgs) -> Result<()> {
    let path = args.dir.join(CONFIG_TOML);
    let config = Config::load(&path)?;
    let plan = Plan::resolve(&config, &default_cases(config.game))?;
    // Only games that were played: a run stopped by the SPRT or interrupted has fewer
    // rows than its schedule.
    let games = args.dir.join(tournament::GAMES_CSV);
    if let Ok(text) = std::fs::read_to_string(&games) {
        let played = text.lines().count().saturating_sub(1) as u64;
        if args.game >= played {
            bail!(
                "game {} was not played: {} has {played} games (0 to {})",
                args.game,
                games.display(),
                played.saturating_sub(1)
            );
        }
    }
    match plan.game {
        GameName::Dominoes => replay_game::<DominoesContest>(&plan, &args.dir, args.game),
        GameName::Quarto => replay_game::<QuartoContest>(&plan, &args.dir, args.game),
    }
}

fn replay_game<C: Contest>(plan: &Plan, dir: &Path, index: u64) -> Result<()> {
    let cases = tournament::parse_cases::<C>(plan)?;
    let jobs = schedule::jobs(plan);
    let Some(job) = jobs.get(index as usize) else {
        bail!(
            "no game {index}: this run has games 0 to {}",
            jobs.len().saturating_sub(1)
        );
    };
    let name = |seat: arena_core::Seat, seat_a: arena_core::Seat| {
        let agent = if seat == seat_a { job.a } else { job.b };
        plan.agents[agent].name.clone()
    };
    let (_, seat_a) = C::start(cases[job.case], plan.seed, job.pair, job.game);
    use std::fmt::Write as _;
    let mut out = format!(
        "game {index}: case {}, pair {}, game {} of the pair; agent a = {} (seat {seat_a}), agent b = {}\n",
        cases[job.case], job.pair, job.game, plan.agents[job.a].name, plan.agents[job.b].name
    );
    let mut ply = 0;
    let external = tournament::external_runtime(plan, dir, &jobs)?;
    let row = runner::play::<C>(plan, &cases, job, external.as_ref(), &mut |step| {
        let _ = match step {
            Step::Start(p) => write!(out, "\nstart\n{}\n", C::draw(p)),
            Step::Move { seat, mv, after } => {
                ply += 1;
                write!(
                    out,
                    "\n{ply}. {seat} ({}) plays {mv}\n{}\n",
                    name(seat, seat_a),
                    C::draw(after)
                )
            }
            Step::Forfeit { seat, kind, detail } => write!(
                out,
                "\n{seat} ({}) forfeits: {} ({detail})\n",
                name(seat, seat_a),
                kind.as_str()
            ),
        };
    })?;
    let _ = writeln!(
        out,
        "\nresult: {} {} - {} {} ({})",
        row.agent_a, row.score_a, row.score_b, row.agent_b, row.termination
    );
    emit(&out)
}

fn perft(args: PerftArgs) -> Result<()> {
    match args.game {
        PerftGame::Quarto => {
            let start = Quarto::new(args.variant);
            debug_assert!(!start.is_over());
            emit(&format!(
                "{}\n",
                arena_core::quarto::perft(&start, args.depth)
            ))?;
        }
    }
    Ok(())
}
