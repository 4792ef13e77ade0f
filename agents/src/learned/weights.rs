//! The weights file: versioned JSON holding the training parameters, the feature names,
//! the standardization and the model. `serde_json` writes floats with the shortest
//! round-trip representation, so the same training arguments give a byte-identical file.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::model::Model;

/// The `format` field of every weights file.
pub const FORMAT: &str = "arena-learned-weights";
/// The only version this build reads and writes.
pub const VERSION: u32 = 1;

/// Which game a weights file evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    Dominoes,
    Quarto,
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameKind::Dominoes => "dominoes",
            GameKind::Quarto => "quarto",
        })
    }
}

/// Everything that decides a training run; stored in the weights file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainParams {
    /// The master seed of the training deals/openings and of exploration.
    pub seed: u64,
    /// Games played per generation.
    pub games: u32,
    /// Generations: play `games` games with the current model, then fit.
    pub generations: u32,
    /// Passes over all samples gathered so far, after each generation.
    pub epochs: u32,
    /// The SGD step size.
    pub learning_rate: f64,
    /// L2 weight decay per step.
    pub l2: f64,
    /// Hidden tanh units; 0 is a logistic regression.
    pub hidden: u32,
    /// The chance that a learning player makes a uniformly random move (exploration).
    pub epsilon: f64,
}

impl TrainParams {
    /// The parameters of the committed `dominoes-v1.json` (see docs/training.md).
    pub fn dominoes_default() -> TrainParams {
        TrainParams {
            seed: 1,
            games: 4000,
            generations: 4,
            epochs: 2,
            learning_rate: 0.01,
            l2: 1e-6,
            hidden: 16,
            epsilon: 0.05,
        }
    }

    /// The parameters of the committed `quarto-v1.json` (see docs/training.md).
    pub fn quarto_default() -> TrainParams {
        TrainParams {
            seed: 1,
            games: 5000,
            generations: 6,
            epochs: 2,
            learning_rate: 0.01,
            l2: 1e-6,
            hidden: 16,
            epsilon: 0.05,
        }
    }

    pub fn default_for(game: GameKind) -> TrainParams {
        match game {
            GameKind::Dominoes => TrainParams::dominoes_default(),
            GameKind::Quarto => TrainParams::quarto_default(),
        }
    }
}

/// Figures from the end of training, for the record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainStats {
    /// Training positions gathered over all generations.
    pub samples: u64,
    /// Held-out positions (every tenth game), never trained on.
    pub heldout_samples: u64,
    /// Mean cross-entropy on the held-out positions after training.
    pub heldout_loss: f64,
    /// The same for the constant predictor (the held-out mean outcome).
    pub heldout_baseline_loss: f64,
}

/// A trained evaluator, as stored on disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    pub format: String,
    pub version: u32,
    pub game: GameKind,
    pub params: TrainParams,
    /// Feature names, in input order; a file whose names differ from this build's is refused.
    pub features: Vec<String>,
    /// Standardization: input `i` is `(raw[i] - mean[i]) / scale[i]`.
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub model: Model,
    pub stats: TrainStats,
}

/// A weights file that cannot be used; the message names the file.
#[derive(Debug, thiserror::Error)]
#[error("weights file {file}: {reason}")]
pub struct WeightsError {
    pub file: String,
    pub reason: String,
}

/// `x` rounded to 12 significant digits (0 below 1e-10 in magnitude). serde_json's
/// default parser reads a decimal exactly when its significand has at most 15 digits and
/// its exponent at most 22 in magnitude, so a canonical value survives a trip through
/// the file bit for bit.
pub(crate) fn canonical(x: f64) -> f64 {
    if x.abs() < 1e-10 {
        0.0
    } else {
        format!("{x:.11e}")
            .parse()
            .expect("a formatted float parses")
    }
}

impl Weights {
    /// Rounds every stored float with [`canonical`], so that the weights in memory are
    /// exactly the weights read back from the file.
    pub(crate) fn canonicalize(&mut self) {
        let all = |v: &mut Vec<f64>| v.iter_mut().for_each(|x| *x = canonical(*x));
        all(&mut self.mean);
        all(&mut self.scale);
        match &mut self.model {
            Model::Logistic { w } => all(w),
            Model::Mlp { w1, w2, .. } => {
                all(w1);
                all(w2);
            }
        }
        let s = &mut self.stats;
        s.heldout_loss = canonical(s.heldout_loss);
        s.heldout_baseline_loss = canonical(s.heldout_baseline_loss);
    }

    /// The file's text: pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("weights serialize");
        s.push('\n');
        s
    }

    /// Writes [`Weights::to_json`] to `path`, unless the loader would refuse the file
    /// (weights that are not finite: a training run that diverged).
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        let text = self.to_json();
        let features: Vec<&str> = self.features.iter().map(String::as_str).collect();
        Weights::parse(&text, &path.display().to_string(), self.game, &features).map_err(|e| {
            WeightsError {
                file: e.file,
                reason: format!(
                    "not written, since it could not be loaded: {} (did training diverge? \
                     try a lower --learning-rate)",
                    e.reason
                ),
            }
        })?;
        std::fs::write(path, text).map_err(|e| WeightsError {
            file: path.display().to_string(),
            reason: format!("cannot write: {e}"),
        })
    }

    /// Reads and checks a weights file for `game` with `features`.
    pub fn load(path: &Path, game: GameKind, features: &[&str]) -> Result<Weights, WeightsError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| WeightsError {
            file: file.clone(),
            reason: format!("cannot read: {e}"),
        })?;
        Weights::parse(&text, &file, game, features)
    }

    /// Parses and checks weights text; `file` names its source in errors.
    pub fn parse(
        text: &str,
        file: &str,
        game: GameKind,
        features: &[&str],
    ) -> Result<Weights, WeightsError> {
        let fail = |reason: String| WeightsError {
            file: file.to_owned(),
            reason,
        };
        // Check format and version first, so an old or foreign file gets that message
        // rather than a complaint about some field.
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| fail(format!("not valid JSON: {e}")))?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(FORMAT) => {}
            Some(other) => return Err(fail(format!("format {other:?}, expected {FORMAT:?}"))),
            None => return Err(fail(format!("no \"format\": {FORMAT:?} field"))),
        }
        match value.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(VERSION) => {}
            Some(v) => {
                return Err(fail(format!(
                    "version {v} is not supported (this build reads version {VERSION})"
                )));
            }
            None => return Err(fail("no numeric \"version\" field".into())),
        }
        let w: Weights = serde_json::from_value(value)
            .map_err(|e| fail(format!("corrupt version {VERSION} file: {e}")))?;
        if w.game != game {
            return Err(fail(format!("weights for {}, not {game}", w.game)));
        }
        if w.features != features {
            return Err(fail(format!(
                "features {:?} do not match this build's {:?}",
                w.features, features
            )));
        }
        let n = features.len();
        if w.mean.len() != n || w.scale.len() != n {
            return Err(fail(format!(
                "standardization has {} means and {} scales for {n} features",
                w.mean.len(),
                w.scale.len()
            )));
        }
        if w.mean
            .iter()
            .chain(&w.scale)
            .any(|x| !x.is_finite() || x.is_nan())
            || w.scale.iter().any(|&s| s <= 0.0)
        {
            return Err(fail(
                "standardization values must be finite, scales positive".into(),
            ));
        }
        w.model.check(n).map_err(fail)?;
        Ok(w)
    }

    /// The evaluator these weights describe.
    pub fn evaluator(&self) -> Evaluator {
        Evaluator {
            mean: self.mean.clone(),
            scale: self.scale.clone(),
            model: self.model.clone(),
            buf: Vec::new(),
        }
    }
}

/// The most features [`Evaluator::value_of`] takes.
pub const MAX_INPUTS: usize = 64;

/// A model with its standardization: raw features in, chance of winning out.
#[derive(Clone, Debug)]
pub struct Evaluator {
    pub(crate) mean: Vec<f64>,
    pub(crate) scale: Vec<f64>,
    pub(crate) model: Model,
    buf: Vec<f64>,
}

impl Evaluator {
    pub(crate) fn new(mean: Vec<f64>, scale: Vec<f64>, model: Model) -> Evaluator {
        Evaluator {
            mean,
            scale,
            model,
            buf: Vec::new(),
        }
    }

    /// Standardizes `raw` into `out`.
    pub(crate) fn standardize(&self, raw: &[f64], out: &mut Vec<f64>) {
        out.clear();
        out.extend(
            raw.iter()
                .zip(self.mean.iter().zip(&self.scale))
                .map(|(x, (m, s))| (x - m) / s),
        );
    }

    /// [`Evaluator::value`] without a buffer (at most [`MAX_INPUTS`] features), for
    /// callers that share the evaluator: the same value, bit for bit.
    pub fn value_of(&self, raw: &[f64]) -> f64 {
        let mut x = [0.0; MAX_INPUTS];
        let x = &mut x[..raw.len()];
        for (i, v) in x.iter_mut().enumerate() {
            *v = (raw[i] - self.mean[i]) / self.scale[i];
        }
        self.model.predict(x)
    }

    /// The predicted chance that the player who just moved wins.
    pub fn value(&mut self, raw: &[f64]) -> f64 {
        let mut buf = std::mem::take(&mut self.buf);
        self.standardize(raw, &mut buf);
        let v = self.model.predict(&buf);
        self.buf = buf;
        v
    }
}
