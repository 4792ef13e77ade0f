//! The candidates' verdicts: a GSPRT on the pentanomial (`Sprt::llr_pentanomial`, as a
//! config's `[sprt]`) of each running candidate against the strongest benchmark (the
//! benchmark the Bradley–Terry fit of the whole table rates highest). `accepted` or
//! `rejected` at the league's bounds ends its evaluation; promotion stays manual.

use std::collections::HashMap;

use anyhow::Result;

use super::store::{Bot, BotId, PairStats, Role, State, Store};
use crate::stats::bradley_terry::{self, Encounter};
use crate::stats::{Pentanomial, Sprt, SprtDecision};

/// The bots a table covers, and their encounters (indices into `ids`).
pub struct Table {
    pub ids: Vec<BotId>,
    pub encounters: Vec<Encounter>,
}

impl Table {
    /// The encounters among the bots `keep` selects.
    pub fn of(bots: &[Bot], pairs: &[PairStats], keep: impl Fn(&Bot) -> bool) -> Table {
        let ids: Vec<BotId> = bots.iter().filter(|b| keep(b)).map(|b| b.id).collect();
        let index: HashMap<BotId, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let encounters = pairs
            .iter()
            .filter_map(|p| {
                Some(Encounter {
                    a: *index.get(&p.a)?,
                    b: *index.get(&p.b)?,
                    games: p.games,
                    pairs: p.pairs,
                })
            })
            .collect();
        Table { ids, encounters }
    }

    /// Bradley–Terry Elo per bot (point estimates).
    pub fn fit(&self) -> Vec<f64> {
        bradley_terry::fit(self.ids.len(), &self.encounters)
    }
}

/// The benchmark the table rates highest (ties: the first added); `None` without one.
pub fn strongest_benchmark(bots: &[Bot], pairs: &[PairStats]) -> Option<BotId> {
    let table = Table::of(bots, pairs, |b| b.plays());
    let elo = table.fit();
    let role: HashMap<BotId, &Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let mut best: Option<(f64, BotId)> = None;
    for (i, &id) in table.ids.iter().enumerate() {
        if role[&id].role != Role::Benchmark {
            continue;
        }
        if best.is_none_or(|(e, _)| elo[i] > e + 1e-9) {
            best = Some((elo[i], id));
        }
    }
    best.map(|(_, id)| id)
}

/// The pairs of `bot` against `other`, from `bot`'s side.
pub fn pentanomial(bot: BotId, other: BotId, pairs: &[PairStats]) -> Pentanomial {
    let (a, b) = (bot.min(other), bot.max(other));
    let p = pairs
        .iter()
        .find(|p| p.a == a && p.b == b)
        .map_or_else(Pentanomial::default, |p| p.pairs);
    if bot == a { p } else { p.swapped() }
}

/// What a test says now.
pub fn state_of(sprt: &Sprt, llr: f64) -> State {
    match sprt.decision(llr) {
        Some(SprtDecision::AcceptH1) => State::Accepted,
        Some(SprtDecision::AcceptH0) => State::Rejected,
        None => State::Running,
    }
}

/// Updates every running candidate's test from the table; returns the candidates that
/// reached a verdict (name, state, LLR).
pub fn evaluate(store: &Store, sprt: &Sprt) -> Result<Vec<(String, State, f64)>> {
    let bots = store.bots()?;
    let pairs = store.pairs()?;
    let Some(strongest) = strongest_benchmark(&bots, &pairs) else {
        return Ok(Vec::new());
    };
    let mut decided = Vec::new();
    for cand in bots
        .iter()
        .filter(|b| b.role == Role::Candidate && b.state == State::Running && b.plays())
    {
        let p = pentanomial(cand.id, strongest, &pairs);
        if p.pairs() == 0 || (p.pairs() == cand.verdict_pairs && cand.against == Some(strongest)) {
            continue;
        }
        let llr = sprt.llr_pentanomial(&p);
        let state = state_of(sprt, llr);
        store.set_verdict(cand.id, state, llr, p.pairs(), strongest)?;
        if state != State::Running {
            decided.push((cand.name.clone(), state, llr));
        }
    }
    Ok(decided)
}
