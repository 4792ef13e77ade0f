use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = arena::cli::Cli::parse();
    match arena::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
