//! What receives records, in game order, as the engine produces them.

use anyhow::Result;

use crate::record::{Record, Side, Termination};
use crate::setup::SprtConfig;
use crate::stats::{Pentanomial, Sprt};

/// Whether the run goes on after a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
    /// Stop before this record: it is no result (a bot that could not start). The
    /// observers after the one that says so never see it, so it is not written and
    /// `--resume` plays the game again.
    StopBefore,
}

/// A consumer of records in game order. All it can say back is whether the run goes on.
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
            sprt: config.sprt()?,
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
        // Plans with an SPRT are two-seat (`Plan::resolve`).
        let Some(duel) = record.duel() else {
            return Ok(Flow::Continue);
        };
        let score = duel.score_a.as_f64();
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

/// Stops the run when an agent cannot start: its first game, or `limit` of its games in
/// a row (in game order), forfeited at start-up. Like cutechess and fastchess: a bot that
/// does not start is a setup error to fix, not a result, so the game that trips the guard
/// is withheld ([`Flow::StopBefore`]: it goes first among the observers) and a resumed
/// run plays it again. Earlier start-up forfeits of a streak stay recorded.
pub struct StartupGuard {
    /// Per matchup, the plan's agent indices (a, b).
    matchups: Vec<(usize, usize)>,
    /// Per agent: games seen, and start-up failures in a row.
    seen: Vec<(u64, u32)>,
    limit: u32,
    /// The agent that tripped the guard, and the reason of its last failure.
    pub tripped: Option<(usize, String)>,
}

impl StartupGuard {
    pub fn new(matchups: Vec<(usize, usize)>, agents: usize, limit: u32) -> StartupGuard {
        StartupGuard {
            matchups,
            seen: vec![(0, 0); agents],
            limit: limit.max(1),
            tripped: None,
        }
    }
}

impl StartupGuard {
    fn count(&mut self, agent: usize, failed: bool, record: &Record) {
        let (games, in_a_row) = &mut self.seen[agent];
        *games += 1;
        *in_a_row = if failed { *in_a_row + 1 } else { 0 };
        if failed && (*games == 1 || *in_a_row >= self.limit) && self.tripped.is_none() {
            self.tripped = Some((agent, record.reason.clone()));
        }
    }
}

impl Observer for StartupGuard {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        let (a, b) = self.matchups[usize::from(record.key.matchup)];
        let failed = match record.termination {
            Termination::Startup => record.forfeiter(),
            _ => None,
        };
        self.count(a, failed == Some(Side::A), record);
        // A one-seat matchup is `(a, a)`: its agent is counted once.
        if a != b {
            self.count(b, failed == Some(Side::B), record);
        }
        Ok(if self.tripped.is_some() {
            Flow::StopBefore
        } else {
            Flow::Continue
        })
    }
}
