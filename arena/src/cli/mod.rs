//! The command line: argument types, and for each subcommand the call into the library.
//! Nothing here plays, writes or renders by itself.

mod league;
mod puzzles;
mod run;
mod tools;

use anyhow::Result;
use clap::{Parser, Subcommand};

pub use arena_run::report::progress::ProgressMode;

pub use puzzles::{GenArgs, ScoreArgs, VisArgs};
pub use run::{MatchArgs, MergeArgs, ReplayArgs, ReportArgs, RunArgs, VerifyArgs};
pub use tools::{BookArgs, PerftArgs, ServeArgs, SolveArgs};

#[derive(Parser, Debug)]
#[command(
    name = "arena",
    version,
    about = "Seeded tournaments for TCO09 Dominoes and Quarto bots, and puzzle runs"
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
    /// Merge the shards of a run into one run directory, byte-identical to an unsharded run.
    Merge(MergeArgs),
    /// Print one game of a run, move by move, replayed from the seed.
    Replay(ReplayArgs),
    /// Write the run's report.html again (charts, standings, a game viewer) from its games.
    Report(ReportArgs),
    /// Replay a run's games from its seed and compare every column with games.csv,
    /// or every pair's of a league export (exit 0: all agree; 1: a game differs; 2: bad
    /// input).
    Verify(VerifyArgs),
    /// Count move sequences of exactly DEPTH plies from the empty board (Quarto).
    Perft(PerftArgs),
    /// Run a built-in agent as an external program over the line protocol (stdin/stdout).
    Serve(ServeArgs),
    /// Train a learned evaluator and write its weights file (docs/training.md).
    Train(crate::train::TrainArgs),
    /// Exact values and optimal moves of positions (D17 / Q9 notation), or the best
    /// answer to a puzzle instance (detrak, dominopeg, dust) and whether it is optimal.
    Solve(SolveArgs),
    /// Write puzzle instances, one file per seed (`in/0000.txt`, …).
    Gen(GenArgs),
    /// Referee a puzzle answer: prints `Score = N` or why the answer is invalid.
    Score(ScoreArgs),
    /// Draw a puzzle instance and an answer as SVG (the local tester's visualizer).
    Vis(VisArgs),
    /// Build an opening book of exact values (Quarto), or re-prove one with --verify.
    Book(BookArgs),
    /// Print what the sandbox of external agents enforces on this machine, layer by layer,
    /// as a probe observed it from inside a sandbox (exit 1 if any layer is missing).
    Doctor {
        /// One JSON object: `{"layers": {"session": true, ...}, "why": {...}}`.
        #[arg(long)]
        json: bool,
    },
    /// A league that keeps playing while bots are added: candidates judged by a GSPRT,
    /// standings, a live page (docs/league.md).
    League(league::LeagueArgs),
    /// Internal: confine this process (namespaces, limits, Landlock), then become an
    /// external agent.
    #[command(name = "__sandbox", hide = true)]
    Sandbox(arena_sandbox::SandboxArgs),
}

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => run::run_config(args),
        Command::Match(args) => run::run_match(args),
        Command::Merge(args) => run::merge(args),
        Command::Replay(args) => run::replay(args),
        Command::Report(args) => run::report(args),
        Command::Verify(args) => run::verify(args),
        Command::Perft(args) => tools::perft(args),
        Command::Serve(args) => tools::serve(args),
        Command::Train(args) => crate::train::run(args),
        Command::Solve(args) => tools::solve(args),
        Command::Book(args) => tools::book(args),
        Command::Gen(args) => puzzles::generate(args),
        Command::Score(args) => puzzles::score(args),
        Command::Vis(args) => puzzles::visualize(args),
        Command::League(args) => league::run(args),
        Command::Doctor { json } => arena_sandbox::doctor(json),
        Command::Sandbox(args) => arena_sandbox::run(args),
    }
}

/// Writes to stdout; a closed pipe (`arena replay … | head`) surfaces as an `io::Error`
/// that `main` treats as success.
pub(crate) fn emit(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
