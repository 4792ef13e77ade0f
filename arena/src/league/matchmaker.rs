//! What to play next. Candidates first: every running candidate plays every benchmark
//! in play, the pair with the fewest game pairs next, until its verdict. Spare capacity
//! (no candidate running) tightens the table among the benchmarks and the accepted
//! candidates: the pair whose score interval is widest next. A pair of bots always
//! plays its next global pairs `g` in order (every case of deal 0, then deal 1, …), so
//! its games are always a prefix of its match.

use std::collections::HashMap;

use super::play::Job;
use super::store::{Bot, BotId, PairStats, Role, State};
use crate::stats::{PairInterval, Z_95};

/// Up to `want` game pairs to play next (fewer only when no two bots can play).
pub fn next_jobs(bots: &[Bot], pairs: &[PairStats], want: usize) -> Vec<Job> {
    let next: HashMap<(BotId, BotId), &PairStats> = pairs.iter().map(|p| ((p.a, p.b), p)).collect();
    let key = |x: BotId, y: BotId| (x.min(y), x.max(y));
    let benchmarks: Vec<&Bot> = bots
        .iter()
        .filter(|b| b.plays() && b.role == Role::Benchmark)
        .collect();
    let running: Vec<&Bot> = bots
        .iter()
        .filter(|b| b.plays() && b.role == Role::Candidate && b.state == State::Running)
        .collect();
    let mut slots: Vec<((BotId, BotId), f64)> = Vec::new();
    let mut assigned: HashMap<(BotId, BotId), u64> = HashMap::new();
    let candidate_pairs: Vec<(BotId, BotId)> = running
        .iter()
        .flat_map(|c| benchmarks.iter().map(|b| key(c.id, b.id)))
        .collect();
    if !candidate_pairs.is_empty() {
        // Fewest game pairs first: every benchmark in step.
        for _ in 0..want {
            let pick = candidate_pairs
                .iter()
                .min_by_key(|k| {
                    let done = next.get(k).map_or(0, |p| p.next_g);
                    (done + assigned.get(k).copied().unwrap_or(0), **k)
                })
                .copied();
            if let Some(k) = pick {
                *assigned.entry(k).or_default() += 1;
            }
        }
    } else {
        let pool: Vec<&Bot> = bots
            .iter()
            .filter(|b| {
                b.plays()
                    && (b.role == Role::Benchmark
                        || (b.role == Role::Candidate && b.state == State::Accepted))
            })
            .collect();
        for (i, x) in pool.iter().enumerate() {
            for y in &pool[i + 1..] {
                let k = key(x.id, y.id);
                let width = next.get(&k).map_or(1.0, |p| {
                    let i = PairInterval::from_pentanomial(&p.pairs, Z_95);
                    i.upper - i.lower
                });
                slots.push((k, width));
            }
        }
        // The widest interval next; each game pair assigned narrows it by the square
        // root of the pairs it adds (an unplayed pair counts as 1 wide and goes first).
        for _ in 0..want {
            let pick = slots
                .iter()
                .map(|&(k, width)| {
                    let m = next.get(&k).map_or(0, |p| p.pairs.pairs()) as f64;
                    let extra = assigned.get(&k).copied().unwrap_or(0) as f64;
                    let eff = if m == 0.0 {
                        1.0 + 1.0 / (1.0 + extra)
                    } else {
                        width * (m / (m + extra)).sqrt()
                    };
                    (eff, k)
                })
                .max_by(|x, y| x.0.total_cmp(&y.0).then(y.1.cmp(&x.1)));
            if let Some((_, k)) = pick {
                *assigned.entry(k).or_default() += 1;
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
