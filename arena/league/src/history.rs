//! Rating over time, the page's chart: when the league's writer takes a snapshot of the
//! ratings ([`Cadence`]), what one holds ([`rated`]), and the series the page draws
//! ([`series`], thinned to [`CHART_POINTS`] per bot). A snapshot is written after a
//! commit, by the writer thread, from the aggregates: the game threads never wait on it.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Result;
use serde_json::{Value, json};

use super::store::{Bot, BotId, PairStats, Snapshot, Store};
use super::verdict::Table;

/// Snapshots this far apart while the field is new (see [`DENSE_FOR`]): a new bot's
/// rating moves most in its first minutes.
const DENSE_EVERY: f64 = 5.0;
/// How long a run, or a new field (a bot rated for the first time, or one no more),
/// gets snapshots every [`DENSE_EVERY`] seconds.
const DENSE_FOR: f64 = 300.0;
/// Snapshots this far apart after that.
const SPARSE_EVERY: f64 = 30.0;
/// The most points per bot the page is sent, evenly spaced in time.
const CHART_POINTS: usize = 200;

/// When the writer takes a snapshot: at a run's first commit and whenever the field
/// changes, then every [`DENSE_EVERY`] s for [`DENSE_FOR`] s, then every
/// [`SPARSE_EVERY`] s; and at the run's end if a commit came after the last one (the
/// chart ends where the standings are).
#[derive(Debug, Default)]
pub struct Cadence {
    last: Option<f64>,
    dense_since: f64,
    field: Vec<BotId>,
    behind: bool,
}

impl Cadence {
    /// Whether a snapshot of `field` (the bots rated, ascending) is due at `now` (seconds)
    /// after a commit; when it is, it counts as taken.
    pub fn due(&mut self, now: f64, field: &[BotId]) -> bool {
        if field.is_empty() {
            return false;
        }
        let due = match self.last {
            None => true,
            Some(_) if field != self.field => true,
            Some(last) => {
                let every = if now - self.dense_since < DENSE_FOR {
                    DENSE_EVERY
                } else {
                    SPARSE_EVERY
                };
                // A clock set back counts as time passed, not as none.
                now - last >= every || now < last
            }
        };
        if due {
            if self.last.is_none() || field != self.field {
                self.dense_since = now;
            }
            self.last = Some(now);
            self.field = field.to_vec();
        }
        self.behind = !due;
        due
    }

    /// Whether a commit came after the last snapshot (at the run's end: one more is due).
    pub fn behind(&self) -> bool {
        self.behind
    }
}

/// The bots rated now and their Elo: Bradley–Terry point estimates of the bots in play
/// (the standings' table, so the same numbers as the standings' Elo), those with a game.
pub fn rated(bots: &[Bot], pairs: &[PairStats]) -> Vec<(BotId, f64)> {
    let table = Table::of(bots, pairs, |b| b.plays());
    let mut played = vec![false; table.ids.len()];
    for e in &table.encounters {
        played[e.a] = true;
        played[e.b] = true;
    }
    if !played.contains(&true) {
        return Vec::new();
    }
    table
        .ids
        .iter()
        .zip(table.fit())
        .zip(played)
        .filter(|(_, p)| *p)
        .map(|((id, elo), _)| (*id, elo))
        .collect()
}

/// The writer's step after a commit (`end`: after the run's last one): a snapshot if
/// one is due. The field is found from the aggregates on every commit; the fit runs
/// only when a snapshot is taken.
pub fn after_commit(store: &Store, cadence: &mut Cadence, end: bool) -> Result<()> {
    if end && !cadence.behind() {
        return Ok(());
    }
    let bots = store.bots()?;
    let pairs = store.pairs()?;
    let table = Table::of(&bots, &pairs, |b| b.plays());
    let mut field: Vec<BotId> = table
        .encounters
        .iter()
        .flat_map(|e| [table.ids[e.a], table.ids[e.b]])
        .collect();
    field.sort_unstable();
    field.dedup();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    if !(end || cadence.due(now, &field)) {
        return Ok(());
    }
    if end {
        // Counted as taken (the run ends with it), whatever the pace.
        cadence.behind = false;
    }
    let elo = rated(&bots, &pairs);
    if elo.is_empty() {
        return Ok(());
    }
    store.add_snapshot(&Snapshot {
        at: now,
        games: pairs.iter().map(|p| p.games.games()).sum(),
        elo,
    })
}

/// At most `most` of `points` (ascending time), evenly spaced in time: the first, then
/// the last of each of `most - 1` equal spans of time after it (so the newest is kept).
fn thin(points: &[(f64, f64)], most: usize) -> Vec<(f64, f64)> {
    if points.len() <= most || most < 2 {
        return points.iter().rev().take(most).rev().copied().collect();
    }
    let (first, last) = (points[0].0, points[points.len() - 1].0);
    let span = (last - first).max(f64::MIN_POSITIVE);
    let slots = (most - 1) as f64;
    let mut out = vec![points[0]];
    let mut slot_of_last: Option<usize> = None;
    for &p in &points[1..] {
        let slot = (((p.0 - first) / span * slots) as usize).min(most - 2);
        if slot_of_last == Some(slot) {
            *out.last_mut().expect("a point") = p;
        } else {
            out.push(p);
            slot_of_last = Some(slot);
        }
    }
    out
}

/// `/api/state`'s `ratings`: the time of the first snapshot (`since`, unix seconds, or
/// null) and, per bot with points (retired ones too: their line ends where they left),
/// its points `[at, elo]` thinned to [`CHART_POINTS`].
pub fn series(store: &Store, bots: &[Bot]) -> Result<Value> {
    let history = store.rating_history()?;
    let since = history
        .values()
        .filter_map(|points| points.first())
        .map(|p| p.0)
        .reduce(f64::min);
    let lines: Vec<Value> = history
        .iter()
        .map(|(id, points)| {
            let name = bots
                .iter()
                .find(|b| b.id == *id)
                .map_or_else(|| format!("#{id}"), |b| b.name.clone());
            json!({ "bot": id, "name": name, "points": thin(points, CHART_POINTS) })
        })
        .collect();
    Ok(json!({ "since": since, "bots": lines }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot times of a run committing every `step` s for `secs` s, its field
    /// changing at `change` (a bot rated from then on).
    fn taken(step: f64, secs: f64, change: Option<f64>) -> Vec<f64> {
        let mut cadence = Cadence::default();
        let mut out = Vec::new();
        let mut now = 0.0;
        while now <= secs {
            let field: &[BotId] = match change {
                Some(t) if now >= t => &[1, 2, 3],
                _ => &[1, 2],
            };
            if cadence.due(now, field) {
                out.push(now);
            }
            now += step;
        }
        out
    }

    #[test]
    fn dense_at_first_then_sparse() {
        let times = taken(1.0, 3600.0, None);
        assert_eq!(times[0], 0.0, "the first commit");
        assert!(times.windows(2).all(|w| w[1] - w[0] >= DENSE_EVERY));
        let early = times.iter().filter(|&&t| t < DENSE_FOR).count();
        assert_eq!(early, (DENSE_FOR / DENSE_EVERY) as usize);
        let late: Vec<f64> = times.iter().copied().filter(|&t| t > DENSE_FOR).collect();
        assert!(
            late.windows(2).all(|w| w[1] - w[0] == SPARSE_EVERY),
            "{late:?}"
        );
        // About 60 + 110 snapshots in the first hour, 120 an hour after.
        assert!((165..=175).contains(&times.len()), "{}", times.len());
    }

    #[test]
    fn a_new_bot_makes_it_dense_again() {
        let times = taken(1.0, 3000.0, Some(2000.0));
        assert!(times.contains(&2000.0), "at once when the field changes");
        let after: Vec<f64> = times
            .iter()
            .copied()
            .filter(|&t| (2000.0..2000.0 + DENSE_FOR).contains(&t))
            .collect();
        assert!(after.windows(2).all(|w| w[1] - w[0] == DENSE_EVERY));
        assert_eq!(after.len(), (DENSE_FOR / DENSE_EVERY) as usize);
    }

    #[test]
    fn behind_after_a_commit_without_a_snapshot() {
        let mut cadence = Cadence::default();
        assert!(!cadence.due(0.0, &[]), "nothing rated: no snapshot");
        assert!(cadence.due(0.0, &[1, 2]));
        assert!(!cadence.behind());
        assert!(!cadence.due(1.0, &[1, 2]));
        assert!(cadence.behind());
        assert!(cadence.due(1.0 + DENSE_EVERY, &[1, 2]));
        assert!(!cadence.behind());
    }

    #[test]
    fn thinning_is_even_in_time_and_keeps_both_ends() {
        let points: Vec<(f64, f64)> = (0..1000).map(|i| (f64::from(i), f64::from(i))).collect();
        let thinned = thin(&points, CHART_POINTS);
        assert_eq!(thinned.len(), CHART_POINTS);
        assert_eq!(thinned[0], points[0]);
        assert_eq!(thinned.last(), points.last());
        let gaps: Vec<f64> = thinned.windows(2).map(|w| w[1].0 - w[0].0).collect();
        let (lo, hi) = gaps
            .iter()
            .fold((f64::MAX, 0.0f64), |(l, h), g| (l.min(*g), h.max(*g)));
        assert!(lo >= 4.0 && hi <= 6.0, "gaps from {lo} to {hi}");
        // Dense then sparse history: the sparse part keeps all its points.
        let mut mixed: Vec<(f64, f64)> = (0..900).map(|i| (f64::from(i) * 0.1, 0.0)).collect();
        mixed.extend((0..100).map(|i| (100.0 + f64::from(i) * 30.0, 1.0)));
        let thinned = thin(&mixed, CHART_POINTS);
        assert!(thinned.len() <= CHART_POINTS);
        assert_eq!(thinned.iter().filter(|p| p.1 == 1.0).count(), 100);
        let few = &points[..50];
        assert_eq!(thin(few, CHART_POINTS), few.to_vec());
    }
}
