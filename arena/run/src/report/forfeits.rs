//! The first forfeits of a run, with their reasons (an observer): printed after the run
//! and written to `run.log`, each with the command that replays it.

use std::fmt::Write as _;

use anyhow::Result;

use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::{Record, Side};

/// How many forfeits are listed.
const SHOWN: usize = 5;

pub struct Forfeits {
    /// Agent names per matchup: (a, b).
    names: Vec<(String, String)>,
    first: Vec<(u64, String, String)>,
    pub total: u64,
    /// "game" or, in a puzzle run, "attempt".
    unit: &'static str,
}

impl Forfeits {
    pub fn new(plan: &Plan) -> Forfeits {
        Forfeits {
            names: plan
                .matchups()
                .iter()
                .map(|&(a, b)| (plan.agents[a].name.clone(), plan.agents[b].name.clone()))
                .collect(),
            first: Vec::new(),
            total: 0,
            unit: if plan.is_solo() { "attempt" } else { "game" },
        }
    }

    /// The list, or nothing when no game was forfeited.
    pub fn describe(&self, dir: &std::path::Path) -> String {
        if self.total == 0 {
            return String::new();
        }
        let unit = self.unit;
        let mut out = format!(
            "{} {} {unit}{}; the first {}:\n",
            self.total,
            if unit == "game" {
                "forfeited"
            } else {
                "invalid"
            },
            if self.total == 1 { "" } else { "s" },
            self.first.len()
        );
        for (game, who, why) in &self.first {
            let why = crate::shown::escape_controls(why);
            let _ = writeln!(out, "  {unit} {game}: {who}: {why}");
        }
        let _ = writeln!(
            out,
            "  replay one with `arena replay {} -n N`",
            dir.display()
        );
        out
    }
}

impl Observer for Forfeits {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        if let Some(side) = record.forfeiter() {
            self.total += 1;
            if self.first.len() < SHOWN {
                let (a, b) = &self.names[usize::from(record.key.matchup)];
                let who = if side == Side::A { a } else { b };
                self.first.push((
                    record.key.index,
                    who.clone(),
                    format!("{} ({})", record.termination, record.reason),
                ));
            }
        }
        Ok(Flow::Continue)
    }
}
