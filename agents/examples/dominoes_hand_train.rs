//! Trains the learned hand model (`agents::dominoes::hand`) and writes its weights.
//!
//! ```sh
//! cargo run --release -p agents --example dominoes_hand_train -- 1 4000 agents/weights/dominoes-hand-v1.json
//! ```
//! Arguments: the seed (default 1), the games (default 4000), the output file (default:
//! print to stdout). Same seed, same games: byte-identical weights (docs/training.md).

use agents::dominoes::hand::{HandTrainParams, train};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let d = HandTrainParams::default();
    let params = HandTrainParams {
        seed: args.get(1).map_or(d.seed, |s| s.parse().expect("a seed")),
        games: args
            .get(2)
            .map_or(d.games, |s| s.parse().expect("a number of games")),
        ..d
    };
    let (model, report) = train(&params);
    eprintln!(
        "{} training samples, {} held out; held-out log loss per tile: uniform {:.4}, consistency prior {:.4}, reading {:.4}, model {:.4}",
        report.train_samples,
        report.held_out_samples,
        report.held_out_uniform,
        report.held_out_prior,
        report.held_out_reading,
        report.held_out_model
    );
    let text = model.to_json();
    match args.get(3) {
        Some(path) => std::fs::write(path, text).expect("writable output"),
        None => print!("{text}"),
    }
}
