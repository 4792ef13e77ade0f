//! `arena perft`, `serve` and `solve`: per-task tools, looked up in the registry.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};

use super::emit;
use arena_run::task::{self, SolveOptions, Solved};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// A built-in agent spec, e.g. `greedy`.
    pub spec: String,
    /// The game: `dominoes` or `quarto`.
    #[arg(long, value_parser = task::parse_name)]
    pub game: String,
    /// Seeds the served agent's own randomness (the arena never sends its seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    /// The game (Quarto; Dominoes deals are hidden information).
    #[arg(value_parser = task::parse_name)]
    pub game: String,
    /// Plies to count, at most the game's length (16 for Quarto).
    pub depth: u32,
    /// The variant (Quarto: `lines` or `squares`).
    #[arg(long)]
    pub variant: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// A game (dominoes: D17 endgames; quarto: Q9 positions) or a puzzle (detrak,
    /// dominopeg, dust).
    #[arg(value_parser = parse_game_or_puzzle)]
    pub game: String,
    /// A position; without one, positions are read from stdin, one per line.
    pub position: Option<String>,
    /// The variant (Quarto: `lines` or `squares`).
    #[arg(long)]
    pub variant: Option<String>,
    /// JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
    /// The value and one optimal move (much cheaper) instead of every optimal move.
    #[arg(long)]
    pub value_only: bool,
    /// Give up past this many solver nodes (default: no limit).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Progress on stderr during long solves: `auto` shows it on a terminal.
    #[arg(long, value_enum, default_value_t = super::ProgressMode::Auto)]
    pub progress: super::ProgressMode,
}

#[derive(clap::Args, Debug)]
pub struct BookArgs {
    /// The game (Quarto).
    #[arg(value_parser = task::parse_name)]
    pub game: String,
    /// The variant (Quarto: `lines` or `squares`).
    #[arg(long)]
    pub variant: Option<String>,
    /// Plies from the empty board to cover (one entry per symmetry class).
    #[arg(long, default_value_t = 2)]
    pub plies: u32,
    /// Solver nodes per entry; an entry over budget is written `unknown`.
    #[arg(long, default_value_t = 50_000_000)]
    pub nodes: u64,
    /// The book file to write.
    #[arg(long, required_unless_present = "verify")]
    pub out: Option<std::path::PathBuf>,
    /// Re-prove every entry of this book file instead of building one.
    #[arg(long, conflicts_with = "out")]
    pub verify: Option<std::path::PathBuf>,
    #[arg(long, value_enum, default_value_t = super::ProgressMode::Auto)]
    pub progress: super::ProgressMode,
}

pub fn book(args: BookArgs) -> Result<()> {
    use std::io::IsTerminal;
    let task = task::lookup(&args.game)?;
    let progress = args.progress == super::ProgressMode::Auto && std::io::stderr().is_terminal();
    if let Some(path) = &args.verify {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let checked = task
            .verify_book(&text, args.nodes)
            .with_context(|| format!("in {}", path.display()))?;
        return emit(&format!(
            "{}: {checked} entries re-proved\n",
            path.display()
        ));
    }
    let Some(out) = &args.out else {
        anyhow::bail!("arena book needs --out FILE or --verify FILE");
    };
    let text = task.book(&task::BookOptions {
        variant: args.variant.clone(),
        plies: args.plies,
        nodes: args.nodes,
        progress,
    })?;
    std::fs::write(out, &text).with_context(|| format!("writing {}", out.display()))?;
    let unknown = text.lines().filter(|l| l.contains(" unknown")).count();
    emit(&format!(
        "{}: {} entries, {unknown} over budget\n",
        out.display(),
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count()
    ))
}

pub fn perft(args: PerftArgs) -> Result<()> {
    let count = task::lookup(&args.game)?.perft(args.variant.as_deref(), args.depth)?;
    emit(&format!("{count}\n"))
}

pub fn serve(args: ServeArgs) -> Result<()> {
    let spec: agents::Spec = args.spec.parse()?;
    task::lookup(&args.game)?.serve(&spec, args.seed)
}

fn format(json: bool, s: &Solved) -> String {
    if json {
        serde_json::json!({"position": s.position, "value": s.value, "moves": s.moves}).to_string()
    } else {
        format!("{} {} {}", s.position, s.value, s.moves.join(","))
    }
}

fn parse_game_or_puzzle(s: &str) -> Result<String, String> {
    if s.parse::<arena_core::puzzle::PuzzleKind>().is_ok() {
        return Ok(s.to_owned());
    }
    match task::parse_name(s) {
        // `puzzles` is a run's game, not something to solve: name the puzzles instead.
        Ok(name) if name != "puzzles" => Ok(name),
        _ => Err(format!(
            "unknown game {s:?}; arena solve knows dominoes, quarto and the puzzles detrak, dominopeg, dust"
        )),
    }
}

pub fn solve(args: SolveArgs) -> Result<()> {
    if let Ok(kind) = args.game.parse::<arena_core::puzzle::PuzzleKind>() {
        return super::puzzles::solve(kind, args.position.as_deref(), args.json, args.nodes);
    }
    let task = task::lookup(&args.game)?;
    let options = SolveOptions {
        variant: args.variant.clone(),
        value_only: args.value_only,
        nodes: args.nodes,
        progress: args.progress == super::ProgressMode::Auto && {
            use std::io::IsTerminal;
            std::io::stderr().is_terminal()
        },
    };
    let mut out = std::io::stdout().lock();
    if let Some(p) = &args.position {
        let s = task.solve(p.trim(), &options)?;
        writeln!(out, "{}", format(args.json, &s))?;
        return Ok(());
    }
    // A batch goes to its end: a position that cannot be solved gets an error line of
    // its own (and its chain on stderr), and the exit code says so once all are done.
    let (mut failed, mut total) = (0u64, 0u64);
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        let position = line.trim();
        if position.is_empty() {
            continue;
        }
        total += 1;
        match task.solve(position, &options) {
            Ok(s) => writeln!(out, "{}", format(args.json, &s))?,
            Err(e) => {
                failed += 1;
                eprintln!("arena: stdin line {}: {e:#}", i + 1);
                let why = format!("{e:#}");
                if args.json {
                    let line = serde_json::json!({"position": position, "error": why});
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "{position} error: {why}")?;
                }
            }
        }
        out.flush()?;
    }
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {total} positions on stdin could not be solved (their lines say why)"
        );
    }
    Ok(())
}
