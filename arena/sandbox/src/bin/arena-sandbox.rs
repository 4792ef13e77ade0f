//! `arena-sandbox`: the sandbox's two stages (`arena __sandbox`, `docs/sandbox.md`) in a
//! binary of their own. Every start of a sandboxed bot executes the stages' binary twice,
//! and this one, holding the sandbox alone, starts faster than the whole `arena`
//! (`docs/benchmarks.md`). `arena` uses it when it lies beside it, built with it.

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "arena-sandbox",
    about = "The sandbox stages of `arena` (internal)"
)]
enum Cli {
    #[command(name = "__sandbox")]
    Sandbox(arena_sandbox::SandboxArgs),
}

fn main() -> ExitCode {
    let Cli::Sandbox(args) = Cli::parse();
    match arena_sandbox::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        // The bot's status (or the sandbox's 125): the stage has said the rest.
        Err(e) if arena_sandbox::StageExit::of(&e).is_some() => {
            ExitCode::from(arena_sandbox::StageExit::of(&e).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
