//! `arena perft`, `serve` and `solve`: per-task tools, looked up in the registry.

use std::io::{BufRead, Write};

use anyhow::{Context, Result};

use super::emit;
use crate::task::{self, SolveOptions, Solved};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// A built-in agent spec, e.g. `greedy`.
    pub spec: String,
    #[arg(long, value_parser = task::parse_name)]
    pub game: String,
    /// Seeds the served agent's own randomness (the arena never sends its seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args, Debug)]
pub struct PerftArgs {
    #[arg(value_parser = task::parse_name)]
    pub game: String,
    pub depth: u32,
    /// The variant (Quarto: `lines` or `squares`).
    #[arg(long)]
    pub variant: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    #[arg(value_parser = task::parse_name)]
    pub game: String,
    /// A position; without one, positions are read from stdin, one per line.
    pub position: Option<String>,
    /// The variant (Quarto: `lines` or `squares`).
    #[arg(long)]
    pub variant: Option<String>,
    /// JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
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

pub fn solve(args: SolveArgs) -> Result<()> {
    let task = task::lookup(&args.game)?;
    let options = SolveOptions {
        variant: args.variant.clone(),
    };
    let mut out = std::io::stdout().lock();
    if let Some(p) = &args.position {
        let s = task.solve(p.trim(), &options)?;
        writeln!(out, "{}", format(args.json, &s))?;
        return Ok(());
    }
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let s = task
            .solve(line.trim(), &options)
            .with_context(|| format!("stdin line {}", i + 1))?;
        writeln!(out, "{}", format(args.json, &s))?;
        out.flush()?;
    }
    Ok(())
}
