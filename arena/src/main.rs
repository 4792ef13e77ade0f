use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = arena::cli::Cli::parse();
    match arena::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stops early (`arena replay … | head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
