//! The value model: a logistic regression or a one-hidden-layer MLP over standardized
//! features, predicting the chance that the player who just moved wins (a tie counts
//! 0.5). Hand-written (forward pass, cross-entropy gradient, plain SGD): a few dozen
//! lines, smaller than any dependency. Everything is sequential `f64` arithmetic in a
//! fixed order, so the same inputs give bit-identical weights.

use serde::{Deserialize, Serialize};

/// Model parameters. `Logistic`: `w` holds one weight per feature, then the bias.
/// `Mlp`: `hidden` tanh units; `w1` is `hidden` rows of (features + bias), `w2` is
/// `hidden` output weights then the output bias.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Model {
    Logistic {
        w: Vec<f64>,
    },
    Mlp {
        hidden: usize,
        w1: Vec<f64>,
        w2: Vec<f64>,
    },
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl Model {
    /// A fresh model for `inputs` features: zeros for the logistic regression; small
    /// weights from `init` (a deterministic stream of values in [-1, 1)) for the MLP.
    pub fn new(inputs: usize, hidden: usize, mut init: impl FnMut() -> f64) -> Model {
        if hidden == 0 {
            return Model::Logistic {
                w: vec![0.0; inputs + 1],
            };
        }
        let scale = 1.0 / ((inputs + 1) as f64).sqrt();
        let w1 = (0..hidden * (inputs + 1))
            .map(|_| init() * scale)
            .collect::<Vec<_>>();
        let w2 = (0..hidden + 1)
            .map(|i| {
                if i == hidden {
                    0.0
                } else {
                    init() / (hidden as f64).sqrt()
                }
            })
            .collect();
        Model::Mlp { hidden, w1, w2 }
    }

    /// The number of input features the model expects.
    pub fn inputs(&self) -> usize {
        match self {
            Model::Logistic { w } => w.len() - 1,
            Model::Mlp { hidden, w1, .. } => w1.len() / hidden - 1,
        }
    }

    /// Whether the parameter vectors have consistent lengths and finite values.
    pub fn check(&self, inputs: usize) -> Result<(), String> {
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        match self {
            Model::Logistic { w } => {
                if w.len() != inputs + 1 {
                    return Err(format!(
                        "logistic model has {} weights, expected {}",
                        w.len(),
                        inputs + 1
                    ));
                }
                if !finite(w) {
                    return Err("a weight is not finite".into());
                }
            }
            Model::Mlp { hidden, w1, w2 } => {
                if *hidden == 0 || w1.len() != hidden * (inputs + 1) || w2.len() != hidden + 1 {
                    return Err(format!(
                        "mlp with {hidden} hidden units has {} + {} weights, expected {} + {}",
                        w1.len(),
                        w2.len(),
                        hidden * (inputs + 1),
                        hidden + 1
                    ));
                }
                if !finite(w1) || !finite(w2) {
                    return Err("a weight is not finite".into());
                }
            }
        }
        Ok(())
    }

    /// The predicted chance of winning for standardized features `x`. Allocates
    /// nothing, so rollouts can call it millions of times; the arithmetic is the same,
    /// in the same order, as [`Model::logit`]'s, so the value is bit-identical.
    pub fn predict(&self, x: &[f64]) -> f64 {
        let z = match self {
            Model::Logistic { .. } => self.logit(x, &mut Vec::new()),
            Model::Mlp { hidden, w1, w2 } => {
                let n = x.len() + 1;
                let mut out = w2[*hidden];
                // Four units at a time: each sum keeps its own order (so its value), but
                // the four chains of additions overlap in the processor.
                let mut j = 0;
                while j + 4 <= *hidden {
                    let rows = [0, 1, 2, 3].map(|u| &w1[(j + u) * n..(j + u + 1) * n]);
                    let mut z = rows.map(|row| row[n - 1]);
                    for (i, a) in x.iter().enumerate() {
                        for u in 0..4 {
                            z[u] += a * rows[u][i];
                        }
                    }
                    for (u, z) in z.iter().enumerate() {
                        out += z.tanh() * w2[j + u];
                    }
                    j += 4;
                }
                for j in j..*hidden {
                    let row = &w1[j * n..(j + 1) * n];
                    let z = x.iter().zip(row).fold(row[n - 1], |z, (a, b)| z + a * b);
                    out += z.tanh() * w2[j];
                }
                out
            }
        };
        sigmoid(z)
    }

    /// The pre-sigmoid output; `act` receives the hidden activations (MLP only).
    fn logit(&self, x: &[f64], act: &mut Vec<f64>) -> f64 {
        match self {
            Model::Logistic { w } => {
                let n = x.len();
                x.iter().zip(w).fold(w[n], |z, (a, b)| z + a * b)
            }
            Model::Mlp { hidden, w1, w2 } => {
                let n = x.len() + 1;
                act.clear();
                for j in 0..*hidden {
                    let row = &w1[j * n..(j + 1) * n];
                    let z = x.iter().zip(row).fold(row[n - 1], |z, (a, b)| z + a * b);
                    act.push(z.tanh());
                }
                act.iter().zip(w2).fold(w2[*hidden], |z, (a, b)| z + a * b)
            }
        }
    }

    /// One SGD step on the cross-entropy loss of target `y` in [0, 1], with L2 decay
    /// `l2` on the non-bias weights. Returns the prediction before the step.
    pub fn sgd_step(&mut self, x: &[f64], y: f64, lr: f64, l2: f64, act: &mut Vec<f64>) -> f64 {
        let p = sigmoid(self.logit(x, act));
        // d(cross-entropy)/d(logit) = p - y.
        let g = p - y;
        match self {
            Model::Logistic { w } => {
                let n = x.len();
                for (wi, xi) in w.iter_mut().zip(x) {
                    *wi -= lr * (g * xi + l2 * *wi);
                }
                w[n] -= lr * g;
            }
            Model::Mlp { hidden, w1, w2 } => {
                let n = x.len() + 1;
                for j in 0..*hidden {
                    let a = act[j];
                    let back = g * w2[j] * (1.0 - a * a);
                    w2[j] -= lr * (g * a + l2 * w2[j]);
                    let row = &mut w1[j * n..(j + 1) * n];
                    for (wi, xi) in row.iter_mut().zip(x) {
                        *wi -= lr * (back * xi + l2 * *wi);
                    }
                    row[n - 1] -= lr * back;
                }
                w2[*hidden] -= lr * g;
            }
        }
        p
    }
}

/// The cross-entropy of prediction `p` for target `y`, clamped away from log(0).
pub fn log_loss(p: f64, y: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}
