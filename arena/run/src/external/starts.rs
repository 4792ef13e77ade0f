//! Start-up failures in a row, per agent and case, counted in game order: after
//! `start_failures` of them the rest of the agent's games in that case are forfeited
//! without starting it again (the next case tries again).
//!
//! Counted by game index, never by time, so that the same bot gives the same rows at any
//! concurrency: game `i` gives up when the agent's previous `start_failures` games of the
//! case that tried to start it (by index) all failed. Under concurrency those games may
//! still be under way; a game only waits for them after its own start failed (to tell
//! which reason its row gets), so a healthy bot never waits.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Condvar, Mutex};

/// Where an agent's games of one case lie in the games the runtime plays.
pub trait GameOrder: Send + Sync {
    /// The game of `agent` in the same case just before game `index` (`None`: `index`
    /// is its first).
    fn previous(&self, agent: usize, index: u64) -> Option<u64>;
}

/// How a game went for one agent, as far as starting it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// It answered `init` (or an idle process of it took the game).
    Started,
    /// It could not start (or its case was given up).
    Failed,
    /// No start was tried (the other agent failed first, a spent budget) or it ended
    /// otherwise (a limit hit while starting): it neither counts nor breaks a streak.
    Neutral,
}

/// What the games before a game say about it.
enum Verdict {
    GiveUp(bool),
    /// Game `index`, one of those it depends on, has not tried its start yet.
    Pending(u64),
}

/// An agent and a case.
type Key = (usize, String);

#[derive(Default)]
struct Ledger {
    /// Every outcome from `settled` on; below it only what a count can still reach
    /// (back to a `Started` or `limit` failures), so memory stays bounded by the games
    /// in flight.
    outcomes: HashMap<Key, BTreeMap<u64, Start>>,
    /// Every game below this index is over (its outcome is in).
    settled: u64,
    /// Games the engine will not play (the run stopped): nothing waits for them.
    abandoned: HashSet<u64>,
}

pub struct Starts {
    order: Box<dyn GameOrder>,
    limit: u32,
    ledger: Mutex<Ledger>,
    changed: Condvar,
}

impl Starts {
    pub fn new(order: Box<dyn GameOrder>, limit: u32) -> Starts {
        Starts {
            order,
            limit: limit.max(1),
            ledger: Mutex::new(Ledger::default()),
            changed: Condvar::new(),
        }
    }

    pub fn limit(&self) -> u32 {
        self.limit
    }

    pub fn record(&self, key: &Key, index: u64, start: Start) {
        let mut ledger = self.ledger.lock().expect("not poisoned");
        ledger
            .outcomes
            .entry(key.clone())
            .or_default()
            .insert(index, start);
        drop(ledger);
        self.changed.notify_all();
    }

    /// Whether game `index` gives up `key` without trying, if that is known already.
    pub fn gives_up_now(&self, key: &Key, index: u64) -> bool {
        let ledger = self.ledger.lock().expect("not poisoned");
        matches!(self.verdict(&ledger, key, index), Verdict::GiveUp(true))
    }

    /// Whether game `index` (whose start failed) ends the streak's patience: waits for
    /// the games it depends on. A game the engine abandoned ends no streak (the run
    /// stopped before it, so this game's row is never written).
    pub fn gives_up(&self, key: &Key, index: u64) -> bool {
        let mut ledger = self.ledger.lock().expect("not poisoned");
        loop {
            match self.verdict(&ledger, key, index) {
                Verdict::GiveUp(answer) => return answer,
                Verdict::Pending(at) if ledger.abandoned.contains(&at) => return false,
                Verdict::Pending(_) => {
                    ledger = self.changed.wait(ledger).expect("not poisoned");
                }
            }
        }
    }

    fn verdict(&self, ledger: &Ledger, key: &Key, index: u64) -> Verdict {
        let outcomes = ledger.outcomes.get(key);
        let mut failed = 0;
        let mut counts = |start: Start| -> Option<bool> {
            match start {
                Start::Started => Some(false),
                Start::Failed => {
                    failed += 1;
                    (failed >= self.limit).then_some(true)
                }
                Start::Neutral => None,
            }
        };
        let mut at = self.order.previous(key.0, index);
        while let Some(game) = at.filter(|&g| g >= ledger.settled) {
            match outcomes.and_then(|o| o.get(&game)) {
                Some(&start) => {
                    if let Some(answer) = counts(start) {
                        return Verdict::GiveUp(answer);
                    }
                }
                None => return Verdict::Pending(game),
            }
            at = self.order.previous(key.0, game);
        }
        // Below `settled` only the reachable tail is kept, in order.
        if let (Some(game), Some(outcomes)) = (at, outcomes) {
            for (_, &start) in outcomes.range(..=game).rev() {
                if let Some(answer) = counts(start) {
                    return Verdict::GiveUp(answer);
                }
            }
        }
        Verdict::GiveUp(false)
    }

    /// Every game below `index` is over: drops the outcomes no count can reach.
    pub fn settle(&self, index: u64) {
        let mut ledger = self.ledger.lock().expect("not poisoned");
        if index <= ledger.settled {
            return;
        }
        ledger.settled = index;
        ledger.abandoned.retain(|&g| g >= index);
        for outcomes in ledger.outcomes.values_mut() {
            let newer = outcomes.split_off(&index);
            let mut kept = BTreeMap::new();
            let mut failed = 0;
            for (&game, &start) in outcomes.iter().rev() {
                match start {
                    Start::Neutral => continue,
                    Start::Started => {
                        kept.insert(game, start);
                        break;
                    }
                    Start::Failed => {
                        kept.insert(game, start);
                        failed += 1;
                        if failed >= self.limit {
                            break;
                        }
                    }
                }
            }
            kept.extend(newer);
            *outcomes = kept;
        }
    }

    /// The engine will not play game `index`: whoever waits for it stops waiting.
    pub fn abandon(&self, index: u64) {
        self.ledger
            .lock()
            .expect("not poisoned")
            .abandoned
            .insert(index);
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One agent, one case: its games are 0, 1, 2, ….
    struct Consecutive;

    impl GameOrder for Consecutive {
        fn previous(&self, _agent: usize, index: u64) -> Option<u64> {
            index.checked_sub(1)
        }
    }

    fn key() -> Key {
        (0, "5,4".into())
    }

    #[test]
    fn gives_up_after_the_limit_in_a_row_and_not_before() {
        let starts = Starts::new(Box::new(Consecutive), 3);
        starts.record(&key(), 0, Start::Started);
        for game in 1..=3 {
            assert!(!starts.gives_up_now(&key(), game));
            starts.record(&key(), game, Start::Failed);
        }
        // Neutral games between failures neither count nor break the streak.
        starts.record(&key(), 4, Start::Neutral);
        assert!(starts.gives_up_now(&key(), 5));
        assert!(starts.gives_up(&key(), 5));
    }

    #[test]
    fn a_start_between_failures_breaks_the_streak() {
        let starts = Starts::new(Box::new(Consecutive), 2);
        starts.record(&key(), 0, Start::Failed);
        starts.record(&key(), 1, Start::Started);
        starts.record(&key(), 2, Start::Failed);
        assert!(!starts.gives_up(&key(), 3));
    }

    #[test]
    fn settling_keeps_what_a_count_reaches() {
        let starts = Starts::new(Box::new(Consecutive), 2);
        for game in 0..100 {
            starts.record(&key(), game, Start::Started);
        }
        starts.record(&key(), 100, Start::Failed);
        starts.record(&key(), 101, Start::Neutral);
        starts.record(&key(), 102, Start::Failed);
        starts.settle(103);
        let kept = |starts: &Starts| starts.ledger.lock().unwrap().outcomes[&key()].len();
        assert_eq!(kept(&starts), 2, "the two failures: a count stops there");
        assert!(starts.gives_up_now(&key(), 103));
        starts.record(&key(), 103, Start::Started);
        starts.settle(104);
        assert_eq!(kept(&starts), 1, "the start: a count stops there");
        assert!(!starts.gives_up_now(&key(), 104));
        starts.record(&key(), 104, Start::Failed);
        starts.settle(105);
        assert_eq!(kept(&starts), 2, "the failure and the start before it");
        assert!(!starts.gives_up_now(&key(), 105));
    }

    #[test]
    fn a_failed_start_waits_for_the_games_before_it() {
        let starts = std::sync::Arc::new(Starts::new(Box::new(Consecutive), 2));
        starts.record(&key(), 0, Start::Failed);
        let waiting = {
            let starts = std::sync::Arc::clone(&starts);
            std::thread::spawn(move || starts.gives_up(&key(), 2))
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiting.is_finished(), "game 1 is still under way");
        starts.record(&key(), 1, Start::Failed);
        assert!(waiting.join().unwrap());
        // An abandoned game ends the wait.
        let starts = std::sync::Arc::new(Starts::new(Box::new(Consecutive), 2));
        let waiting = {
            let starts = std::sync::Arc::clone(&starts);
            std::thread::spawn(move || starts.gives_up(&key(), 2))
        };
        starts.abandon(1);
        assert!(!waiting.join().unwrap());
    }
}
