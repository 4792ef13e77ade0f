mod cli;
mod train;

use std::process::ExitCode;

use clap::Parser;

/// Exit codes: 0 done; 1 `verify` found games that differ, or `doctor` a missing sandbox
/// layer; 2 bad input (a config, a run directory, an argument: fix it);
/// 3 the harness failed (a write, a thread: retrying may help); 130 interrupted
/// (`arena run --resume` finishes the run). Array jobs retry only 3 and 130.
fn main() -> ExitCode {
    // This binary confines the bots it starts by re-executing itself (`arena __sandbox`).
    if let Ok(exe) = std::env::current_exe() {
        arena_sandbox::set_launcher(exe);
    }
    arena_run::engine::stop::on_second_stop(interrupted_at_once);
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A sandbox stage (`arena __sandbox`) ends with its bot's status, and has said the rest.
        Err(e) if arena_sandbox::StageExit::of(&e).is_some() => {
            ExitCode::from(arena_sandbox::StageExit::of(&e).unwrap_or(1))
        }
        // A reader that stops early (`arena replay … | head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        // `arena doctor` printed its table and the missing layers: the code says the rest.
        Err(e) if e.downcast_ref::<arena_sandbox::LayersMissing>().is_some() => ExitCode::from(1),
        Err(e) => {
            // An error may quote a bot or a build (its stderr, a forfeit's reason).
            eprintln!(
                "error: {}",
                arena_run::shown::escape_controls(&format!("{e:#}"))
            );
            if e.downcast_ref::<arena_run::tournament::Interrupted>()
                .is_some()
                || e.downcast_ref::<arena_league::run::Stopped>().is_some()
            {
                ExitCode::from(130)
            } else if e.downcast_ref::<arena_run::verify::Mismatches>().is_some() {
                ExitCode::from(1)
            } else if e
                .downcast_ref::<arena_run::tournament::HarnessFailure>()
                .is_some()
            {
                ExitCode::from(3)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

/// A second Ctrl-C during a run or a league: the games on disk stay (the handler has
/// said how to go on), the games in play are replayed from the seed.
fn interrupted_at_once() -> ! {
    std::process::exit(130)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
