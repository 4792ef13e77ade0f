//! The tests' verdicts: a GSPRT on the pentanomial (`Sprt::llr_pentanomial`, as a
//! config's `[sprt]`) of each running test's bot against its base: a bot it names (the
//! author's last version, by default), or the strongest benchmark (the benchmark the
//! Bradley–Terry fit of the whole table rates highest at that moment). `accepted` or
//! `rejected` at the test's bounds ends it; promotion stays manual.

use std::collections::HashMap;

use anyhow::Result;

use super::store::{Bot, BotId, PairStats, Role, Store, Test, TestId, TestState, TestUpdate};
use arena_run::plan::SprtConfig;
use arena_stats::bradley_terry::{self, Encounter};
use arena_stats::{Pentanomial, Sprt, SprtDecision};

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

/// The benchmark the table rates highest (ties: the first added), other than `except`
/// (a benchmark under test is not its own base); `None` without one.
pub fn strongest_benchmark(
    bots: &[Bot],
    pairs: &[PairStats],
    except: Option<BotId>,
) -> Option<BotId> {
    let table = Table::of(bots, pairs, |b| b.plays());
    let elo = table.fit();
    let role: HashMap<BotId, &Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let mut best: Option<(f64, BotId)> = None;
    for (i, &id) in table.ids.iter().enumerate() {
        if role[&id].role() != Role::Benchmark || Some(id) == except {
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

/// What an LLR says at `sprt`'s bounds.
fn state_of(sprt: &Sprt, llr: f64) -> TestState {
    match sprt.decision(llr) {
        Some(SprtDecision::AcceptH1) => TestState::Accepted,
        Some(SprtDecision::AcceptH0) => TestState::Rejected,
        None => TestState::Running,
    }
}

/// Whether a test's pairs can be played now: it runs, and its bot and its base (a named
/// one) play. An archived side pauses it; a failed one stops it ([`blocked`]).
pub fn plays(test: &Test, bots: &HashMap<BotId, &Bot>) -> bool {
    let playing = |id: BotId| bots.get(&id).is_some_and(|b| b.plays());
    test.state == TestState::Running && playing(test.subject) && test.base.is_none_or(playing)
}

/// The running tests that can never end: their bot or their base failed (why).
pub fn blocked(tests: &[Test], bots: &[Bot]) -> Vec<(TestId, BotId, String)> {
    let by_id: HashMap<BotId, &Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let failed = |id: BotId| {
        by_id
            .get(&id)
            .is_none_or(|b| b.state() == super::store::State::Failed)
    };
    tests
        .iter()
        .filter(|t| t.state == TestState::Running)
        .filter_map(|t| {
            let why = if failed(t.subject) {
                "its bot failed".to_owned()
            } else if let Some(base) = t.base.filter(|&b| failed(b)) {
                let name = by_id.get(&base).map_or("?", |b| b.name.as_str());
                format!("its base {name:?} failed")
            } else {
                return None;
            };
            Some((t.id, t.subject, why))
        })
        .collect()
}

/// Each playable running test's state on `pairs` (exact counts): its LLR against its
/// base (for the strongest benchmark, the one of this table), at its bounds. A test
/// with no game pairs yet says nothing.
pub fn judge(
    bots: &[Bot],
    tests: &[Test],
    pairs: &[PairStats],
    league: &SprtConfig,
) -> Vec<(TestId, TestUpdate)> {
    let by_id: HashMap<BotId, &Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let mut out = Vec::new();
    for test in tests.iter().filter(|t| plays(t, &by_id)) {
        let against = match test.base {
            Some(b) => b,
            None => match strongest_benchmark(bots, pairs, Some(test.subject)) {
                Some(b) => b,
                None => continue,
            },
        };
        let p = pentanomial(test.subject, against, pairs);
        let Ok(sprt) = test.sprt(league).sprt() else {
            continue;
        };
        if p.pairs() == 0 {
            continue;
        }
        let llr = sprt.llr_pentanomial(&p);
        out.push((
            test.id,
            TestUpdate {
                state: state_of(&sprt, llr),
                llr,
                pairs: p.pairs(),
                against,
            },
        ));
    }
    out
}

/// A test that reached its verdict (or stopped), for the run's lines.
#[derive(Clone, Debug)]
pub struct Decided {
    pub bot: String,
    /// `"v1"`, or `the strongest benchmark ("random")`.
    pub base: String,
    pub state: TestState,
    pub llr: Option<f64>,
    pub pairs: u64,
    /// Why a stopped test stopped.
    pub why: String,
}

/// How a test's base reads: its name, or the strongest benchmark with the one it was
/// last against.
pub fn base_name(test: &Test, name: impl Fn(BotId) -> Option<String>) -> String {
    match test.base {
        Some(b) => format!("{:?}", name(b).unwrap_or_else(|| "?".into())),
        None => match test.against.and_then(&name) {
            Some(a) => format!("the strongest benchmark ({a:?})"),
            None => "the strongest benchmark".into(),
        },
    }
}

/// Stops the running tests that can never end (their bot or their base failed). A bot
/// that still plays goes on in a new test at the same bounds, against its previous
/// version in play or else the strongest benchmark: an author's broken last version
/// must not leave the next one unjudged. Returns what changed, for the run's lines. Only
/// the run loop calls it (one writer of tests' lives), before each batch.
pub fn settle_blocked(store: &Store) -> Result<Vec<Decided>> {
    let bots = store.bots()?;
    let tests = store.tests()?;
    let name = |id: BotId| bots.iter().find(|b| b.id == id).map(|b| b.name.clone());
    let mut out = Vec::new();
    for (id, subject, why) in blocked(&tests, &bots) {
        let test = tests.iter().find(|t| t.id == id).expect("a listed test");
        let bot = bots.iter().find(|b| b.id == subject);
        let mut why = why;
        if let Some(bot) = bot.filter(|b| b.plays()) {
            let base = super::bots::previous_version(&bot.name, &bots).map(|b| b.id);
            let mut next = test.clone();
            next.base = base;
            next.against = None;
            let said = base_name(&next, name);
            let replaced = store.replace_test(id, &why, base, &said, test.bounds)?;
            why = format!("{why}; test {replaced} goes on against {said}");
        } else {
            store.stop_tests(subject, Some(id), &why)?;
        }
        out.push(Decided {
            bot: name(subject).unwrap_or_default(),
            base: base_name(test, name),
            state: TestState::Stopped,
            llr: test.llr,
            pairs: test.pairs,
            why,
        });
    }
    Ok(out)
}

/// Updates every running test from the stored table; returns the tests that ended.
pub fn evaluate(store: &Store, league: &SprtConfig) -> Result<Vec<Decided>> {
    let bots = store.bots()?;
    let name = |id: BotId| bots.iter().find(|b| b.id == id).map(|b| b.name.clone());
    let mut decided = Vec::new();
    let tests = store.tests()?;
    let pairs = store.pairs()?;
    for (id, update) in judge(&bots, &tests, &pairs, league) {
        let test = tests.iter().find(|t| t.id == id).expect("a judged test");
        if test.pairs == update.pairs && test.against == Some(update.against) {
            continue;
        }
        store.record_test(id, &update)?;
        if update.state != TestState::Running {
            let mut ended = test.clone();
            ended.against = Some(update.against);
            decided.push(Decided {
                bot: name(test.subject).unwrap_or_default(),
                base: base_name(&ended, name),
                state: update.state,
                llr: Some(update.llr),
                pairs: update.pairs,
                why: String::new(),
            });
        }
    }
    Ok(decided)
}
