//! `arena train`: fits the learned evaluator of a game and writes its weights file.
//! Deterministic: the same arguments give a byte-identical file (docs/training.md).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use agents::learned::{self, GameKind, TrainEvent, TrainParams};
use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use arena_run::report::progress::ProgressMode;

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// The game whose evaluator to train.
    #[arg(value_parser = arena_run::task::parse_name)]
    pub game: String,
    /// The master seed of the training games (default 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Games per generation (default: 4000 Dominoes, 5000 Quarto).
    #[arg(long)]
    pub games: Option<u32>,
    /// Generations of play-then-fit (default: 4 Dominoes, 6 Quarto).
    #[arg(long)]
    pub generations: Option<u32>,
    /// SGD passes over the samples after each generation (default 2).
    #[arg(long)]
    pub epochs: Option<u32>,
    /// Hidden units of the MLP; 0 is a logistic regression (default 16).
    #[arg(long)]
    pub hidden: Option<u32>,
    /// The SGD step size (default 0.01).
    #[arg(long)]
    pub learning_rate: Option<f64>,
    /// L2 weight decay per step (default 1e-6).
    #[arg(long)]
    pub l2: Option<f64>,
    /// The learner's chance of a random move (default 0.05).
    #[arg(long)]
    pub epsilon: Option<f64>,
    /// The weights file to write (JSON).
    #[arg(long)]
    pub out: PathBuf,
    /// A progress bar on stderr: `auto` shows it on a terminal.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}

impl TrainArgs {
    /// The learned evaluator of the named task.
    fn kind(&self) -> Result<GameKind> {
        arena_run::task::lookup(&self.game)?
            .learned()
            .ok_or_else(|| anyhow!("{} has no learned evaluator to train", self.game))
    }

    /// The training parameters: the game's defaults with the flags given.
    pub fn params(&self) -> Result<TrainParams> {
        let kind = self.kind()?;
        let mut p = TrainParams::default_for(kind);
        p.seed = self.seed.unwrap_or(p.seed);
        p.games = self.games.unwrap_or(p.games);
        p.generations = self.generations.unwrap_or(p.generations);
        p.epochs = self.epochs.unwrap_or(p.epochs);
        p.hidden = self.hidden.unwrap_or(p.hidden);
        p.learning_rate = self.learning_rate.unwrap_or(p.learning_rate);
        p.l2 = self.l2.unwrap_or(p.l2);
        p.epsilon = self.epsilon.unwrap_or(p.epsilon);
        if p.games == 0 || p.generations == 0 {
            bail!("--games and --generations must be at least 1");
        }
        if !(p.learning_rate > 0.0 && p.learning_rate.is_finite()) {
            bail!("--learning-rate must be a positive number");
        }
        if !(p.l2 >= 0.0 && p.l2.is_finite()) {
            bail!("--l2 must be zero or a positive number");
        }
        if !(0.0..=1.0).contains(&p.epsilon) {
            bail!("--epsilon must be in [0, 1]");
        }
        Ok(p)
    }
}

pub fn run(args: TrainArgs) -> Result<()> {
    let params = args.params()?;
    let visible = args.progress == ProgressMode::Auto && std::io::stderr().is_terminal();
    let bar = ProgressBar::with_draw_target(
        Some(learned::total_steps(&params)),
        if visible {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template("{prefix:>8} {bar:30} {pos:>7}/{len:7} {msg} ETA {eta}")
            .expect("a valid template"),
    );
    bar.set_prefix("train");
    let started = Instant::now();
    let mut on_event = |e: &TrainEvent| match *e {
        TrainEvent::Game { generation, .. } => {
            bar.set_message(format!("generation {}: playing", generation + 1));
            bar.inc(1);
        }
        TrainEvent::Epoch {
            generation,
            epoch,
            heldout_loss,
            ..
        } => {
            bar.set_message(format!(
                "generation {} epoch {epoch}: held-out loss {heldout_loss:.4}",
                generation + 1
            ));
            if epoch > 0 {
                bar.inc(1);
            }
        }
    };
    let weights = match args.kind()? {
        GameKind::Dominoes => agents::dominoes::train_learned(&params, &mut on_event),
        GameKind::Quarto => agents::quarto::train_learned(&params, &mut on_event),
    };
    bar.finish_and_clear();
    if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    weights.save(&args.out)?;
    let s = &weights.stats;
    eprintln!(
        "wrote {}: {} positions ({} held out), held-out loss {:.4} (constant predictor {:.4}), {:.1} s",
        args.out.display(),
        s.samples,
        s.heldout_samples,
        s.heldout_loss,
        s.heldout_baseline_loss,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
