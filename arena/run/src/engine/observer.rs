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

/// Stops the run when an agent that has never started in this run fails to start: a bot
/// that does not start at all is a setup error to fix, not a result (as in cutechess and
/// fastchess). The game that trips the guard is withheld ([`Flow::StopBefore`]: it goes
/// first among the observers) and a resumed run plays it again.
///
/// An agent that started in some game of the run (on disk too, for a resumed run:
/// [`StartupGuard::replay`]) never stops it: its later start-up failures are forfeits of
/// its own games, so one bot cannot stop a tournament (the runtime gives up the rest of
/// its case after `start_failures` of them in a row). Judged in game order, so the same
/// games stop a run at any concurrency.
pub struct StartupGuard {
    /// Per matchup, the plan's agent indices (a, b).
    matchups: Vec<(usize, usize)>,
    /// Per agent: whether it started in a game of this run.
    started: Vec<bool>,
    /// The agent that tripped the guard, and the reason of its failure.
    pub tripped: Option<(usize, String)>,
}

impl StartupGuard {
    pub fn new(matchups: Vec<(usize, usize)>, agents: usize) -> StartupGuard {
        StartupGuard {
            matchups,
            started: vec![false; agents],
            tripped: None,
        }
    }

    /// A game already on disk: who started in it counts, and nothing trips.
    pub fn replay(&mut self, record: &Record) {
        let (a, b) = self.matchups[usize::from(record.key.matchup)];
        let (started_a, started_b) = started_in(record);
        self.started[a] |= started_a;
        self.started[b] |= started_b;
    }
}

/// Whether agents A and B started in a game, as far as its record tells. Agent A is
/// readied first: B is asked to start only once A is ready, so a game A lost before its
/// first move (its start, or its reset) leaves B unstarted. That also counts a game A
/// lost on its first move as one B did not start in: the error is on the side of the
/// old rule (its failure stops the run), never of booking a bot that cannot start.
pub fn started_in(record: &Record) -> (bool, bool) {
    let forfeit = record.forfeiter();
    let startup = record.termination == Termination::Startup;
    let a = !(startup && forfeit == Some(Side::A));
    let b = match record.duel() {
        Some(_) => {
            let failed_to_start = startup && forfeit == Some(Side::B);
            let not_asked = forfeit == Some(Side::A) && record.plies == 0;
            !failed_to_start && !not_asked
        }
        // A one-seat matchup is `(a, a)`.
        None => a,
    };
    (a, b)
}

impl Observer for StartupGuard {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        let (a, b) = self.matchups[usize::from(record.key.matchup)];
        let failed = match record.termination {
            Termination::Startup => record.forfeiter(),
            _ => None,
        };
        let agent = match failed {
            Some(Side::A) => Some(a),
            Some(Side::B) => Some(b),
            None => None,
        };
        if let Some(agent) = agent
            && !self.started[agent]
            && self.tripped.is_none()
        {
            self.tripped = Some((agent, record.reason.clone()));
            return Ok(Flow::StopBefore);
        }
        self.replay(record);
        Ok(Flow::Continue)
    }
}
