//! What receives records, in game order, as the engine produces them.

use anyhow::Result;

use crate::config::SprtConfig;
use crate::record::Record;
use crate::stats::{Pentanomial, Sprt};

/// Whether the run goes on after a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// A consumer of records in game order. The only thing it can say back is [`Flow::Stop`].
pub trait Observer {
    fn record(&mut self, record: &Record) -> Result<Flow>;
}

/// Stops a two-agent run once its SPRT (on the pairs, in game order) decides. Checked at
/// pair ends only, so the decision point is a pair boundary and never depends on
/// concurrency.
pub struct SprtMonitor {
    sprt: Sprt,
    pairs: Pentanomial,
    open: Option<f64>,
    decided: bool,
}

impl SprtMonitor {
    pub fn new(config: &SprtConfig) -> Result<SprtMonitor> {
        Ok(SprtMonitor {
            sprt: Sprt::new(config.elo0, config.elo1, config.alpha, config.beta)?,
            pairs: Pentanomial::default(),
            open: None,
            decided: false,
        })
    }

    pub fn decided(&self) -> bool {
        self.decided
    }
}

impl Observer for SprtMonitor {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        let score = record.outcome.score_a.as_f64();
        match self.open.take() {
            None => self.open = Some(score),
            Some(first) => {
                self.pairs.push_pair(first, score)?;
                let llr = self.sprt.llr_pentanomial(&self.pairs);
                self.decided = self.sprt.decision(llr).is_some();
            }
        }
        Ok(if self.decided {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }
}
