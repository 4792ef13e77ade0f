//! What to play next. Tests first: every running test plays its pair (its bot against
//! its base; against the strongest benchmark, every benchmark in play, since which one
//! is the strongest may change), the pair with the fewest game pairs next, until its
//! verdict. Spare capacity
//! (no candidate running) tightens the table among the benchmarks and the accepted
//! candidates: the pair whose score interval is widest next, until every interval is
//! narrow enough ([`Spare`]). A pair of bots always plays its next global pairs `g` in
//! order (every case of deal 0, then deal 1, …), so its games are always a prefix of
//! its match.
//!
//! A batch is sized by time, per pair: each pair's measured seconds per game pair
//! ([`Sizing::cost`]) fill a budget of thread-seconds, so a slow bot's batch is a few
//! games and a fast one's thousands; a pair never measured plays [`FIRST_PAIRS`] first.
//! A candidate's pair plays at most [`CANDIDATE_STEP`] game pairs plus a tenth of those
//! it has in a batch, so the test, checked between batches, stops it at most that far
//! past the point its LLR crossed a bound.

use std::collections::HashMap;

use super::play::Job;
use super::store::{Bot, BotId, PairStats, Role, Test};
use arena_stats::{PairInterval, Z_95};

/// Game pairs a pair plays before its speed is known.
const FIRST_PAIRS: u64 = 2;

/// A candidate's pair plays at most this many game pairs, plus a tenth of its pairs so
/// far, in one batch.
const CANDIDATE_STEP: u64 = 64;

/// Spare play: what the benchmarks and accepted candidates play with no candidate
/// running.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spare {
    /// None: the league idles.
    Off,
    /// Until every pair's 95 % score interval is narrower than `width` points per 100,
    /// or it has `games` games; then the league idles.
    Bounded { width: f64, games: u64 },
    /// Without end.
    Always,
}

impl Default for Spare {
    fn default() -> Self {
        Spare::Bounded {
            width: 5.0,
            games: 20_000,
        }
    }
}

/// How much a batch holds.
pub struct Sizing<'a> {
    /// Thread-seconds to fill (the game threads times the batch's target length).
    pub seconds: f64,
    /// Measured seconds per game pair of each pair that played.
    pub cost: &'a HashMap<(BotId, BotId), f64>,
    /// At most this many game pairs in all.
    pub most: usize,
    pub spare: Spare,
}

/// The pairs of bots the running tests need (each once).
pub fn test_pairs(bots: &[Bot], tests: &[Test]) -> Vec<(BotId, BotId)> {
    let by_id: HashMap<BotId, &Bot> = bots.iter().map(|b| (b.id, b)).collect();
    let key = |x: BotId, y: BotId| (x.min(y), x.max(y));
    let mut out: Vec<(BotId, BotId)> = Vec::new();
    for t in tests.iter().filter(|t| super::verdict::plays(t, &by_id)) {
        match t.base {
            Some(base) => out.push(key(t.subject, base)),
            None => out.extend(
                bots.iter()
                    .filter(|b| b.plays() && b.role() == Role::Benchmark && b.id != t.subject)
                    .map(|b| key(t.subject, b.id)),
            ),
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The game pairs to play next, at most `sizing`'s worth; none when nothing is to be
/// played (fewer than two bots, or spare play done or off).
pub fn next_jobs(
    bots: &[Bot],
    tests: &[Test],
    pairs: &[PairStats],
    sizing: &Sizing<'_>,
) -> Vec<Job> {
    let next: HashMap<(BotId, BotId), &PairStats> = pairs.iter().map(|p| ((p.a, p.b), p)).collect();
    let key = |x: BotId, y: BotId| (x.min(y), x.max(y));
    let done = |k: &(BotId, BotId)| next.get(k).map_or(0, |p| p.next_g);
    let mut assigned: HashMap<(BotId, BotId), u64> = HashMap::new();
    let mut spent = 0.0;
    let mut total = 0usize;
    // Whether `k` may take one more game pair (a pair never measured: a few).
    let room = |k: &(BotId, BotId), cap: u64, assigned: &HashMap<(BotId, BotId), u64>| {
        let cap = match sizing.cost.get(k) {
            Some(_) => cap,
            None => cap.min(FIRST_PAIRS),
        };
        assigned.get(k).copied().unwrap_or(0) < cap
    };
    // One more game pair of `k`, its cost counted.
    let mut take = |k: (BotId, BotId), assigned: &mut HashMap<(BotId, BotId), u64>| {
        spent += sizing.cost.get(&k).copied().unwrap_or(0.0);
        total += 1;
        *assigned.entry(k).or_default() += 1;
        spent < sizing.seconds && total < sizing.most
    };
    let candidate_pairs = test_pairs(bots, tests);
    if !candidate_pairs.is_empty() {
        let cap = |k: &(BotId, BotId)| CANDIDATE_STEP + done(k) / 10;
        // Fewest game pairs first: every benchmark in step.
        loop {
            let pick = candidate_pairs
                .iter()
                .filter(|k| room(k, cap(k), &assigned))
                .min_by_key(|k| (done(k) + assigned.get(k).copied().unwrap_or(0), **k));
            match pick {
                Some(&k) if take(k, &mut assigned) => {}
                _ => break,
            }
        }
    } else if sizing.spare != Spare::Off {
        let pool: Vec<&Bot> = bots.iter().filter(|b| b.spares()).collect();
        let mut slots: Vec<((BotId, BotId), f64)> = Vec::new();
        for (i, x) in pool.iter().enumerate() {
            for y in &pool[i + 1..] {
                let k = key(x.id, y.id);
                let stats = next.get(&k);
                let width = stats.map_or(1.0, |p| {
                    let i = PairInterval::from_pentanomial(&p.pairs, Z_95);
                    i.upper - i.lower
                });
                let learned = match sizing.spare {
                    Spare::Bounded { width: w, games } => {
                        100.0 * width < w || stats.is_some_and(|p| p.games.games() >= games)
                    }
                    _ => false,
                };
                if !learned {
                    slots.push((k, width));
                }
            }
        }
        // The widest interval next; each game pair assigned narrows it by the square
        // root of the pairs it adds (an unplayed pair counts as 1 wide and goes first).
        // Bounded, a pair takes no more once that projection is narrow enough or its
        // games reach the bound, so a batch (thousands of cheap games) does not overshoot.
        loop {
            let pick = slots
                .iter()
                .filter(|(k, _)| room(k, u64::MAX, &assigned))
                .filter_map(|&(k, width)| {
                    let stats = next.get(&k);
                    let m = stats.map_or(0, |p| p.pairs.pairs()) as f64;
                    let extra = assigned.get(&k).copied().unwrap_or(0);
                    let eff = if m == 0.0 {
                        1.0 + 1.0 / (1.0 + extra as f64)
                    } else {
                        width * (m / (m + extra as f64)).sqrt()
                    };
                    let learned = match sizing.spare {
                        Spare::Bounded { width: w, games } => {
                            100.0 * eff < w
                                || stats.map_or(0, |p| p.games.games()) + 2 * extra >= games
                        }
                        _ => false,
                    };
                    (!learned).then_some((eff, k))
                })
                .max_by(|x, y| x.0.total_cmp(&y.0).then(y.1.cmp(&x.1)));
            match pick {
                Some((_, k)) if take(k, &mut assigned) => {}
                _ => break,
            }
        }
    }
    let mut jobs: Vec<Job> = assigned
        .into_iter()
        .flat_map(|((a, b), n)| {
            let from = next.get(&(a, b)).map_or(0, |p| p.next_g);
            (from..from + n).map(move |g| Job { a, b, g })
        })
        .collect();
    jobs.sort();
    jobs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Standing, State};
    use arena_stats::{Pentanomial, Wdl};

    fn bot(id: BotId, role: Role, state: State) -> Bot {
        Bot {
            id,
            name: format!("b{id}"),
            spec: "random".into(),
            standing: Standing::new(role, state).unwrap(),
            archived: false,
            build_log: String::new(),
            seal: None,
        }
    }

    fn test(id: i64, subject: BotId, base: Option<BotId>) -> Test {
        Test {
            id,
            subject,
            base,
            bounds: None,
            state: crate::store::TestState::Running,
            llr: None,
            pairs: 0,
            against: None,
            started: 0.0,
            ended: None,
            why: String::new(),
        }
    }

    fn played(a: BotId, b: BotId, pairs: u64) -> PairStats {
        PairStats {
            a,
            b,
            next_g: pairs,
            games: Wdl {
                wins: pairs,
                draws: 0,
                losses: pairs,
            },
            pairs: Pentanomial([
                pairs / 4,
                pairs / 4,
                pairs - pairs / 4 * 4,
                pairs / 4,
                pairs / 4,
            ]),
        }
    }

    fn count(jobs: &[Job], a: BotId, b: BotId) -> usize {
        jobs.iter().filter(|j| (j.a, j.b) == (a, b)).count()
    }

    #[test]
    fn a_batch_is_sized_by_each_pairs_time() {
        let bots = [
            bot(1, Role::Benchmark, State::Active),
            bot(2, Role::Benchmark, State::Active),
            bot(3, Role::Candidate, State::Running),
        ];
        let tests = [test(1, 3, None)];
        let mut cost = HashMap::new();
        fn sizing(cost: &HashMap<(BotId, BotId), f64>) -> Sizing<'_> {
            Sizing {
                seconds: 2.0,
                cost,
                most: 1 << 20,
                spare: Spare::Always,
            }
        }
        // Never measured: a few game pairs each, whatever the budget.
        let jobs = next_jobs(&bots, &tests, &[], &sizing(&cost));
        assert_eq!((count(&jobs, 1, 3), count(&jobs, 2, 3)), (2, 2));
        // A slow candidate (half a second a game pair): two seconds hold four.
        cost.insert((1, 3), 0.5);
        cost.insert((2, 3), 0.5);
        let pairs = [played(1, 3, 2), played(2, 3, 2)];
        let jobs = next_jobs(&bots, &tests, &pairs, &sizing(&cost));
        assert_eq!(jobs.len(), 4, "{jobs:?}");
        // A fast one: as many as its step allows, a tenth of its pairs more than 64.
        cost.insert((1, 3), 1e-5);
        cost.insert((2, 3), 1e-5);
        let pairs = [played(1, 3, 1000), played(2, 3, 1000)];
        let jobs = next_jobs(&bots, &tests, &pairs, &sizing(&cost));
        assert_eq!((count(&jobs, 1, 3), count(&jobs, 2, 3)), (164, 164));
        assert!(jobs.iter().filter(|j| j.b == 3).all(|j| j.g >= 1000));
        // Spare play of fast benchmarks fills the budget.
        let bots = &bots[..2];
        cost.insert((1, 2), 1e-4);
        let jobs = next_jobs(bots, &[], &[played(1, 2, 10)], &sizing(&cost));
        assert!((19_999..=20_001).contains(&jobs.len()), "{}", jobs.len());
    }

    #[test]
    fn spare_play_stops_once_the_intervals_are_narrow() {
        let bots = [
            bot(1, Role::Benchmark, State::Active),
            bot(2, Role::Benchmark, State::Active),
        ];
        let cost = HashMap::from([((1, 2), 1e-4)]);
        let sizing = |spare| Sizing {
            seconds: 1.0,
            cost: &cost,
            most: 1 << 20,
            spare,
        };
        let wide = [played(1, 2, 100)];
        let narrow = [played(1, 2, 100_000)];
        let bounded = Spare::Bounded {
            width: 5.0,
            games: 1_000_000,
        };
        assert!(!next_jobs(&bots, &[], &wide, &sizing(bounded)).is_empty());
        assert!(next_jobs(&bots, &[], &narrow, &sizing(bounded)).is_empty());
        assert!(!next_jobs(&bots, &[], &narrow, &sizing(Spare::Always)).is_empty());
        assert!(next_jobs(&bots, &[], &wide, &sizing(Spare::Off)).is_empty());
        // Within a batch too: no more than the interval needs, whatever the budget.
        let jobs = next_jobs(&bots, &[], &wide, &sizing(bounded));
        let width = |m: u64| {
            let i = PairInterval::from_pentanomial(&played(1, 2, m).pairs, Z_95);
            100.0 * (i.upper - i.lower)
        };
        assert!(width(100 + jobs.len() as u64) < 5.5, "{} pairs", jobs.len());
        assert!(
            width(100 + jobs.len() as u64 / 2) > 5.0,
            "{} pairs",
            jobs.len()
        );
        let few = Spare::Bounded {
            width: 0.0,
            games: 200,
        };
        assert!(
            next_jobs(&bots, &[], &wide, &sizing(few)).is_empty(),
            "200 games"
        );
    }

    #[test]
    fn a_test_plays_its_base_only_and_the_strongest_benchmark_test_every_benchmark() {
        let bots = [
            bot(1, Role::Benchmark, State::Active),
            bot(2, Role::Benchmark, State::Active),
            bot(3, Role::Candidate, State::Rejected),
            bot(4, Role::Candidate, State::Running),
        ];
        let cost = HashMap::new();
        let sizing = Sizing {
            seconds: 1.0,
            cost: &cost,
            most: 1 << 20,
            spare: Spare::Off,
        };
        // Against its last version (rejected, which plays no spare games): that pair only.
        let jobs = next_jobs(&bots, &[test(1, 4, Some(3))], &[], &sizing);
        assert_eq!(jobs.len(), FIRST_PAIRS as usize);
        assert!(jobs.iter().all(|j| (j.a, j.b) == (3, 4)), "{jobs:?}");
        // Against the strongest benchmark: every benchmark, never itself.
        let jobs = next_jobs(&bots, &[test(1, 2, None)], &[], &sizing);
        assert!(jobs.iter().all(|j| (j.a, j.b) == (1, 2)), "{jobs:?}");
        assert_eq!(
            test_pairs(&bots, &[test(1, 4, None), test(2, 4, Some(1))]),
            vec![(1, 4), (2, 4)]
        );
        // A test whose base is archived waits; one decided plays nothing.
        let mut archived = bots.clone();
        archived[2].archived = true;
        assert!(next_jobs(&archived, &[test(1, 4, Some(3))], &[], &sizing).is_empty());
        let mut done = test(1, 4, Some(3));
        done.state = crate::store::TestState::Accepted;
        assert!(next_jobs(&bots, &[done], &[], &sizing).is_empty());
    }
}
