// TEMPORARY: exercises arena/src/train.rs until `arena train` is wired in. Delete me.
mod cli {
    pub use arena::cli::ProgressMode;
}
#[path = "../src/train.rs"]
mod train;

use clap::Parser;

#[derive(Parser)]
struct Top {
    #[command(flatten)]
    args: train::TrainArgs,
}

fn main() -> anyhow::Result<()> {
    train::run(Top::parse().args)
}
