//! `arena solve`: exact values of positions, one per argument or per stdin line.
//! Dominoes endgames in D17 notation (value `1`, `0.5`, `0` for the mover); Quarto
//! positions in Q9 notation (`win`, `draw`, `loss` for the side to move). Each output
//! line is the position, its value and the optimal moves; `--json` gives JSON lines.

use std::io::{BufRead, Write};

use anyhow::{Context, Result, anyhow};
use arena_core::dominoes::Endgame;
use arena_core::quarto::{Quarto, Setup, Variant};

#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SolveGame {
    Dominoes,
    Quarto,
}

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    pub game: SolveGame,
    /// A position; without one, positions are read from stdin, one per line.
    pub position: Option<String>,
    /// Quarto variant.
    #[arg(long, default_value = "lines")]
    pub variant: Variant,
    /// JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
}

struct Solved {
    position: String,
    value: String,
    moves: Vec<String>,
}

fn solve_one(args: &SolveArgs, text: &str) -> Result<Solved> {
    match args.game {
        SolveGame::Dominoes => {
            let endgame: Endgame = text.parse()?;
            let solution = agents::dominoes::solver::solve(&endgame);
            Ok(Solved {
                position: endgame.to_string(),
                value: solution.value.to_string(),
                moves: solution.best.iter().map(ToString::to_string).collect(),
            })
        }
        SolveGame::Quarto => {
            let setup: Setup = text.parse()?;
            let pos = Quarto::from_setup(args.variant, &setup)
                .map_err(|e| anyhow!("invalid quarto position {text:?}: {e}"))?;
            let (value, moves) = agents::quarto::solver::solve_moves(&pos);
            Ok(Solved {
                position: setup.to_string(),
                value: value.to_string(),
                moves: moves.iter().map(ToString::to_string).collect(),
            })
        }
    }
}

fn format(args: &SolveArgs, s: &Solved) -> String {
    if args.json {
        serde_json::json!({"position": s.position, "value": s.value, "moves": s.moves}).to_string()
    } else {
        format!("{} {} {}", s.position, s.value, s.moves.join(","))
    }
}

pub fn run(args: SolveArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if let Some(p) = &args.position {
        let s = solve_one(&args, p.trim())?;
        writeln!(out, "{}", format(&args, &s))?;
        return Ok(());
    }
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        if line.trim().is_empty() {
            continue;
        }
        let s = solve_one(&args, line.trim()).with_context(|| format!("stdin line {}", i + 1))?;
        writeln!(out, "{}", format(&args, &s))?;
        out.flush()?;
    }
    Ok(())
}
