//! The candidates' tests (schema 5): each is one GSPRT of a bot against a base (a named
//! bot, or the strongest benchmark of the moment), with its own bounds, its state, its
//! last LLR and the LLR after every batch (`test_path`, with the time, for the page's
//! games/s and ETA). A candidate's own state follows its tests: `running` while one of
//! them runs, else the verdict of the one that ended last.

use std::fmt;
use std::str::FromStr;

use anyhow::Result;
use rusqlite::{OptionalExtension, Transaction, params};
use serde::Serialize;

use super::{BotId, Store, UnknownName};
use arena_run::plan::SprtConfig;

/// A test's number: its order of creation. A bot's test from before schema 5 kept the
/// bot's id.
pub type TestId = i64;

/// Migration 5: the tests table, a test per candidate of the old schema (against the
/// strongest benchmark, at the league's bounds, with its LLR path), and the bots' own
/// verdict columns dropped. A database that has the table already (one whose version
/// was set back by hand, as the tests of older migrations do) is left as it is.
pub fn migrate(tx: &Transaction<'_>) -> Result<()> {
    let there: i64 = tx.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tests'",
        [],
        |r| r.get(0),
    )?;
    if there == 0 {
        tx.execute_batch(MIGRATION)?;
    }
    Ok(())
}

const MIGRATION: &str = "CREATE TABLE tests(
        id INTEGER PRIMARY KEY,
        subject INTEGER NOT NULL,
        base INTEGER,
        elo0 REAL, elo1 REAL, alpha REAL, beta REAL,
        state TEXT NOT NULL,
        llr REAL,
        pairs INTEGER NOT NULL DEFAULT 0,
        against INTEGER,
        started REAL NOT NULL,
        ended REAL,
        why TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE test_path(
        test INTEGER NOT NULL, pairs INTEGER NOT NULL, llr REAL NOT NULL, at REAL,
        PRIMARY KEY(test, pairs)
    ) WITHOUT ROWID;
    INSERT INTO tests(id, subject, base, state, llr, pairs, against, started, ended)
        SELECT id, id, NULL,
            CASE WHEN state IN ('running', 'accepted') THEN state
                 WHEN state = 'rejected' AND llr IS NOT NULL THEN 'rejected'
                 ELSE 'stopped' END,
            llr, verdict_pairs, against, added_at,
            CASE WHEN state = 'running' THEN NULL ELSE added_at END
        FROM bots WHERE role = 'candidate' OR llr IS NOT NULL;
    INSERT INTO test_path(test, pairs, llr, at)
        SELECT bot, pairs, llr, NULL FROM llr_path WHERE bot IN (SELECT id FROM tests);
    DROP TABLE llr_path;
    ALTER TABLE bots DROP COLUMN llr;
    ALTER TABLE bots DROP COLUMN verdict_pairs;
    ALTER TABLE bots DROP COLUMN against;";

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TestState {
    /// Its LLR is between the bounds: its pairs play on.
    Running,
    /// The LLR reached the upper bound: the bot is `elo1` better than its base.
    Accepted,
    /// The LLR reached the lower bound: it is no `elo1` better (maybe `elo0` or worse).
    Rejected,
    /// Ended without a verdict: its author rejected the bot, or a side failed.
    Stopped,
}

impl TestState {
    const ALL: [TestState; 4] = [
        TestState::Running,
        TestState::Accepted,
        TestState::Rejected,
        TestState::Stopped,
    ];

    fn name(self) -> &'static str {
        match self {
            TestState::Running => "running",
            TestState::Accepted => "accepted",
            TestState::Rejected => "rejected",
            TestState::Stopped => "stopped",
        }
    }
}

impl fmt::Display for TestState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for TestState {
    type Err = UnknownName;

    fn from_str(s: &str) -> std::result::Result<TestState, UnknownName> {
        TestState::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownName::new("test state", s))
    }
}

/// One test as the database holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    pub id: TestId,
    /// The bot under test.
    pub subject: BotId,
    /// What it is measured against: a bot, or (`None`) the strongest benchmark.
    pub base: Option<BotId>,
    /// Its own GSPRT bounds; `None`: the league's `[sprt]`.
    pub bounds: Option<SprtConfig>,
    pub state: TestState,
    /// The last LLR, the game pairs it was computed on, and the bot it was against (for
    /// a test against the strongest benchmark, the benchmark of that moment).
    pub llr: Option<f64>,
    pub pairs: u64,
    pub against: Option<BotId>,
    /// Unix seconds it began and ended.
    pub started: f64,
    pub ended: Option<f64>,
    /// Why a stopped test stopped.
    pub why: String,
}

impl Test {
    /// Its GSPRT's bounds, the league's unless it has its own.
    pub fn sprt(&self, league: &SprtConfig) -> SprtConfig {
        self.bounds.unwrap_or(*league)
    }
}

/// One point of a test's LLR path: after `pairs` game pairs, at unix time `at` (unknown
/// for a point from before schema 5).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PathPoint {
    pub pairs: u64,
    pub llr: f64,
    pub at: Option<f64>,
}

/// What a test says after a batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestUpdate {
    pub state: TestState,
    pub llr: f64,
    pub pairs: u64,
    pub against: BotId,
}

/// Unix seconds now.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

const COLUMNS: &str =
    "id, subject, base, elo0, elo1, alpha, beta, state, llr, pairs, against, started, ended, why";

fn test_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<(Test, String)> {
    let bounds = match (
        r.get::<_, Option<f64>>(3)?,
        r.get::<_, Option<f64>>(4)?,
        r.get::<_, Option<f64>>(5)?,
        r.get::<_, Option<f64>>(6)?,
    ) {
        (Some(elo0), Some(elo1), Some(alpha), Some(beta)) => Some(SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
        }),
        _ => None,
    };
    Ok((
        Test {
            id: r.get(0)?,
            subject: r.get(1)?,
            base: r.get(2)?,
            bounds,
            state: TestState::Running,
            llr: r.get(8)?,
            pairs: r.get::<_, i64>(9)? as u64,
            against: r.get(10)?,
            started: r.get(11)?,
            ended: r.get(12)?,
            why: r.get(13)?,
        },
        r.get(7)?,
    ))
}

/// The candidate's own state once its tests are as `tx` holds them: `running` while
/// one runs, else the verdict of the last to end (a stopped one: `rejected`). A
/// benchmark's state is its own.
fn settle_subject(tx: &Transaction<'_>, subject: BotId) -> Result<()> {
    let latest: Option<String> = tx
        .query_row(
            "SELECT state FROM tests WHERE subject = ?1
             ORDER BY state = 'running' DESC, coalesce(ended, started) DESC, id DESC LIMIT 1",
            [subject],
            |r| r.get(0),
        )
        .optional()?;
    let Some(latest) = latest else { return Ok(()) };
    let state = match latest.parse::<TestState>()? {
        TestState::Running => "running",
        TestState::Accepted => "accepted",
        TestState::Rejected | TestState::Stopped => "rejected",
    };
    tx.execute(
        "UPDATE bots SET state = ?2 WHERE id = ?1 AND role = 'candidate' AND state != 'failed'",
        params![subject, state],
    )?;
    Ok(())
}

/// A new running test's row.
fn insert_test(
    tx: &Transaction<'_>,
    subject: BotId,
    base: Option<BotId>,
    bounds: Option<SprtConfig>,
    at: f64,
) -> Result<TestId> {
    let b = bounds.map(|s| [s.elo0, s.elo1, s.alpha, s.beta]);
    tx.execute(
        "INSERT INTO tests(subject, base, elo0, elo1, alpha, beta, state, started)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7)",
        params![
            subject,
            base,
            b.map(|b| b[0]),
            b.map(|b| b[1]),
            b.map(|b| b[2]),
            b.map(|b| b[3]),
            at
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The bot of running test `id` (an error when it is not running).
fn running_subject(tx: &Transaction<'_>, id: TestId) -> Result<BotId> {
    Ok(tx.query_row(
        "SELECT subject FROM tests WHERE id = ?1 AND state = 'running'",
        [id],
        |r| r.get(0),
    )?)
}

impl Store {
    /// Every test, oldest first.
    pub fn tests(&self) -> Result<Vec<Test>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM tests ORDER BY id"))?;
        let rows = stmt.query_map([], test_of)?;
        let mut out = Vec::new();
        for row in rows {
            let (mut test, state) = row?;
            test.state = state.parse()?;
            out.push(test);
        }
        Ok(out)
    }

    /// Starts a test of `subject` against `base` (`None`: the strongest benchmark), at
    /// `bounds` (`None`: the league's); a candidate under test is `running`.
    pub fn add_test(
        &self,
        subject: BotId,
        base: Option<BotId>,
        bounds: Option<SprtConfig>,
    ) -> Result<TestId> {
        let tx = self.write()?;
        let id = insert_test(&tx, subject, base, bounds, now())?;
        settle_subject(&tx, subject)?;
        tx.commit()?;
        Ok(id)
    }

    /// Records a test's state after a batch (a point of its path); a verdict ends it,
    /// and its subject's state follows.
    pub fn record_test(&self, id: TestId, update: &TestUpdate) -> Result<()> {
        let at = now();
        let tx = self.write()?;
        let subject = running_subject(&tx, id)?;
        tx.execute(
            "UPDATE tests SET state = ?2, llr = ?3, pairs = ?4, against = ?5,
               ended = CASE WHEN ?2 = 'running' THEN NULL ELSE ?6 END
             WHERE id = ?1",
            params![
                id,
                update.state.to_string(),
                update.llr,
                update.pairs as i64,
                update.against,
                at
            ],
        )?;
        tx.execute(
            "INSERT OR REPLACE INTO test_path(test, pairs, llr, at) VALUES (?1, ?2, ?3, ?4)",
            params![id, update.pairs as i64, update.llr, at],
        )?;
        if update.state != TestState::Running {
            settle_subject(&tx, subject)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Stops every running test of `subject` (or the one test `only`), saying why;
    /// returns how many stopped.
    pub fn stop_tests(&self, subject: BotId, only: Option<TestId>, why: &str) -> Result<usize> {
        let tx = self.write()?;
        let n = tx.execute(
            "UPDATE tests SET state = 'stopped', ended = ?3, why = ?4
             WHERE subject = ?1 AND state = 'running' AND (?2 IS NULL OR id = ?2)",
            params![subject, only, now(), why],
        )?;
        settle_subject(&tx, subject)?;
        tx.commit()?;
        Ok(n)
    }

    /// Stops test `id` and starts, in the same transaction, a test of its bot against
    /// `base` (`said`, in words) at `bounds`; the old test's reason says `why` and which
    /// test goes on. Returns the new test's id.
    pub fn replace_test(
        &self,
        id: TestId,
        why: &str,
        base: Option<BotId>,
        said: &str,
        bounds: Option<SprtConfig>,
    ) -> Result<TestId> {
        let at = now();
        let tx = self.write()?;
        let subject = running_subject(&tx, id)?;
        let new = insert_test(&tx, subject, base, bounds, at)?;
        tx.execute(
            "UPDATE tests SET state = 'stopped', ended = ?2, why = ?3 WHERE id = ?1",
            params![id, at, format!("{why}; test {new} goes on against {said}")],
        )?;
        settle_subject(&tx, subject)?;
        tx.commit()?;
        Ok(new)
    }

    /// A test's LLR after each batch, in order of pairs.
    pub fn test_path(&self, id: TestId) -> Result<Vec<PathPoint>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT pairs, llr, at FROM test_path WHERE test = ?1 ORDER BY pairs",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok(PathPoint {
                pairs: r.get::<_, i64>(0)? as u64,
                llr: r.get(1)?,
                at: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_state_reads_back_what_it_writes() {
        for state in TestState::ALL {
            assert_eq!(state.to_string().parse::<TestState>().unwrap(), state);
            assert_eq!(serde_json::to_value(state).unwrap(), state.to_string());
        }
        let err = "paused".parse::<TestState>().unwrap_err().to_string();
        assert_eq!(err, "unknown test state \"paused\" in the database");
    }
}
