//! The rating history behind the page's chart: snapshots of every rated bot's
//! Bradley–Terry Elo, kept in a table of their own (`ratings`) and bounded to
//! [`MOST_SNAPSHOTS`] snapshot times: past that, the older half is thinned.

use std::collections::BTreeMap;

use anyhow::Result;
use rusqlite::params;

use super::{BotId, Store};

/// The migration that makes the table (`at`: unix seconds; `games`: the league's games
/// at that time). Keyed by time first: a snapshot is written and thinned as a whole.
/// `IF NOT EXISTS`: a database whose version was set back by hand (as the migration
/// tests do) keeps its history instead of failing to open.
pub const TABLE: &str = "CREATE TABLE IF NOT EXISTS ratings(
    at REAL NOT NULL,
    games INTEGER NOT NULL,
    bot INTEGER NOT NULL,
    elo REAL NOT NULL,
    PRIMARY KEY(at, bot)
) WITHOUT ROWID;";

/// The most snapshot times kept, whatever the league's age: the table stays small
/// enough for the page to read whole on every update.
pub const MOST_SNAPSHOTS: usize = 1000;

/// Every rated bot's Elo at one time.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub at: f64,
    pub games: u64,
    pub elo: Vec<(BotId, f64)>,
}

/// The snapshot times to delete from `times` (ascending) so that at most `most`
/// remain: every other one of the older half, the very first kept (the chart's origin).
/// Repeated as the table fills again, old history grows sparser while the recent stays
/// at the pace it was taken.
fn to_thin(times: &[f64], most: usize) -> Vec<f64> {
    if times.len() <= most {
        return Vec::new();
    }
    let older = &times[..times.len() / 2];
    older.iter().skip(1).step_by(2).copied().collect()
}

impl Store {
    /// Adds a snapshot (one row per bot), thinning the table past [`MOST_SNAPSHOTS`], in
    /// one transaction.
    pub fn add_snapshot(&self, snapshot: &Snapshot) -> Result<()> {
        let tx = self.write()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO ratings(at, games, bot, elo) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (bot, elo) in &snapshot.elo {
                insert.execute(params![snapshot.at, snapshot.games as i64, bot, elo])?;
            }
            let times: Vec<f64> = tx
                .prepare_cached("SELECT DISTINCT at FROM ratings ORDER BY at")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            let mut delete = tx.prepare_cached("DELETE FROM ratings WHERE at = ?1")?;
            for at in to_thin(&times, MOST_SNAPSHOTS) {
                delete.execute([at])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Each bot's stored points `(at, elo)`, in time order.
    pub fn rating_history(&self) -> Result<BTreeMap<BotId, Vec<(f64, f64)>>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT at, bot, elo FROM ratings ORDER BY at, bot")?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, f64>(0)?, r.get::<_, BotId>(1)?, r.get(2)?))
        })?;
        let mut out: BTreeMap<BotId, Vec<(f64, f64)>> = BTreeMap::new();
        for row in rows {
            let (at, bot, elo) = row?;
            out.entry(bot).or_default().push((at, elo));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_run::rundir::results::GameCells;

    /// How many snapshot times the table holds.
    fn snapshot_count(store: &Store) -> usize {
        let n: i64 = store
            .conn
            .query_row("SELECT count(DISTINCT at) FROM ratings", [], |r| r.get(0))
            .unwrap();
        n as usize
    }

    #[test]
    fn thinning_keeps_the_first_and_the_newer_half() {
        let times: Vec<f64> = (0..11).map(f64::from).collect();
        assert!(to_thin(&times, 11).is_empty());
        // Older half: 0..5; every other one after the first goes.
        assert_eq!(to_thin(&times, 10), vec![1.0, 3.0]);
    }

    #[test]
    fn the_table_stays_bounded_and_keeps_its_origin() {
        let dir = tempfile::TempDir::new().unwrap();
        let cells = GameCells::new(arena_run::task::lookup("dominoes").unwrap());
        let store = Store::open(&dir.path().join("league.db"), cells).unwrap();
        let total = 3 * MOST_SNAPSHOTS;
        for i in 0..total {
            let snapshot = Snapshot {
                at: 1000.0 + 5.0 * i as f64,
                games: 2 * i as u64,
                elo: vec![(1, i as f64), (2, -(i as f64))],
            };
            store.add_snapshot(&snapshot).unwrap();
            assert!(snapshot_count(&store) <= MOST_SNAPSHOTS);
        }
        let history = store.rating_history().unwrap();
        let one = &history[&1];
        assert_eq!(one.len(), snapshot_count(&store));
        assert_eq!(one.first(), Some(&(1000.0, 0.0)), "the origin is kept");
        let last = (total - 1) as f64;
        assert_eq!(one.last(), Some(&(1000.0 + 5.0 * last, last)));
        assert!(one.windows(2).all(|w| w[0].0 < w[1].0));
        // The newest stay at the pace they were taken.
        let recent = &one[one.len() - 100..];
        assert!(recent.windows(2).all(|w| w[1].0 - w[0].0 == 5.0));
        assert_eq!(history[&2].len(), one.len());
    }
}
