//! Games stored by chunk: one row holds a run of one pair of bots' game pairs
//! `g0 .. g0 + pairs` (both games of each, in game order), as a batch played them. A
//! row per game made SQLite's insert (two B-trees, eleven bound values) the league's
//! bottleneck; a chunk costs one insert per pair of bots per batch. Each game is kept
//! as `first,tail` (the `games.csv` row less what a pair's key gives: its index, case,
//! deal and the bots' names), prefixed by its length, since a tail's quoted reason may
//! hold any byte.

use std::collections::HashMap;

use anyhow::{Context, Result, bail};
use rusqlite::{OptionalExtension, Transaction, params};

use super::{BotId, PlayedPair, StoredGame};

/// The table, its order of commit (`seq0`: the page's newest games) indexed.
const SCHEMA: &str = "CREATE TABLE chunks(
        a INTEGER NOT NULL, b INTEGER NOT NULL,
        g0 INTEGER NOT NULL,
        pairs INTEGER NOT NULL,
        cases INTEGER NOT NULL,
        seq0 INTEGER NOT NULL,
        games BLOB NOT NULL,
        PRIMARY KEY(a, b, g0)
    ) WITHOUT ROWID;
    CREATE INDEX chunks_by_seq ON chunks(seq0);";

/// The longest chunk the migration writes (a batch writes what it played).
const MIGRATED_PAIRS: u64 = 4096;

/// Appends one game: its length, then `first,tail`.
fn encode(out: &mut Vec<u8>, first: &str, tail: &str) {
    let len = u32::try_from(first.len() + 1 + tail.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(first.as_bytes());
    out.push(b',');
    out.extend_from_slice(tail.as_bytes());
}

/// A stored chunk, as read.
pub struct Chunk {
    pub a: BotId,
    pub b: BotId,
    pub g0: u64,
    pub pairs: u64,
    pub cases: u64,
    pub seq0: i64,
    pub games: Vec<u8>,
}

/// The columns [`Chunk::of`] reads, in order.
pub const COLUMNS: &str = "a, b, g0, pairs, cases, seq0, games";

impl Chunk {
    pub fn of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Chunk> {
        let n = |i: usize| r.get::<_, i64>(i).map(|v| v as u64);
        Ok(Chunk {
            a: r.get(0)?,
            b: r.get(1)?,
            g0: n(2)?,
            pairs: n(3)?,
            cases: n(4)?.max(1),
            seq0: r.get(5)?,
            games: r.get(6)?,
        })
    }

    /// Calls `each` with every game's number in the chunk (`i`: game pair `g0 + i / 2`,
    /// seat `i % 2`) and its stored text, in order.
    pub fn each(&self, mut each: impl FnMut(u64, &str) -> Result<()>) -> Result<()> {
        let mut at = 0usize;
        let mut i = 0u64;
        while at < self.games.len() {
            let len = self
                .games
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(|b: [u8; 4]| u32::from_le_bytes(b) as usize)
                .context("a truncated chunk of games")?;
            let text = self
                .games
                .get(at + 4..at + 4 + len)
                .context("a truncated chunk of games")?;
            each(
                i,
                std::str::from_utf8(text).context("a stored game not UTF-8")?,
            )?;
            at += 4 + len;
            i += 1;
        }
        if i != 2 * self.pairs {
            bail!(
                "a chunk of bots {} and {} holds {i} games, not {}",
                self.a,
                self.b,
                2 * self.pairs
            );
        }
        Ok(())
    }

    /// Game `i` of the chunk, from its stored text.
    pub fn game(&self, i: u64, text: &str) -> Result<StoredGame> {
        let g = self.g0 + i / 2;
        let (first, tail) = text
            .split_once(',')
            .context("a stored game without its tail")?;
        // The tail begins `score_a,score_b,termination,forfeit,`: none of them quoted.
        let mut cells = tail.splitn(5, ',');
        let score_a: f64 = cells
            .next()
            .and_then(|c| c.parse().ok())
            .context("a stored game without its score")?;
        let termination = cells.nth(1).context("a stored game without its ending")?;
        let forfeit = cells.next().context("a stored game without its forfeit")?;
        Ok(StoredGame {
            seq: self.seq0 + i as i64,
            a: self.a,
            b: self.b,
            g,
            seat: (i % 2) as u8,
            case: (g % self.cases) as u16,
            deal: (g / self.cases) as u32,
            score_a,
            termination: termination.to_owned(),
            forfeit: forfeit.to_owned(),
            first: first.to_owned(),
            tail: tail.to_owned(),
        })
    }
}

/// The number the next committed game gets (games are numbered from 1 in the order
/// of commit).
fn next_seq(tx: &Transaction<'_>) -> Result<i64> {
    let last: Option<i64> = tx
        .query_row(
            "SELECT seq0 + 2 * pairs - 1 FROM chunks ORDER BY seq0 DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(last.unwrap_or(0) + 1)
}

/// Writes `played` as chunks: each run of one pair's consecutive game pairs is one row,
/// which must start where the pair's stored games end (`pairs.next_g`, before this
/// batch's counts are added): a game recorded twice, or a gap, fails the batch.
pub fn write(tx: &Transaction<'_>, played: &[PlayedPair]) -> Result<()> {
    let mut seq = next_seq(tx)?;
    let mut next: HashMap<(BotId, BotId), u64> = HashMap::new();
    let mut insert = tx.prepare_cached(
        "INSERT INTO chunks(a, b, g0, pairs, cases, seq0, games) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut stored_next = tx.prepare_cached("SELECT next_g FROM pairs WHERE a = ?1 AND b = ?2")?;
    let mut games = Vec::new();
    for run in played.chunk_by(|x, y| (x.a, x.b) == (y.a, y.b) && x.g + 1 == y.g) {
        let p = &run[0];
        let expected = match next.get(&(p.a, p.b)) {
            Some(&n) => n,
            None => stored_next
                .query_row(params![p.a, p.b], |r| r.get::<_, i64>(0))
                .optional()?
                .map_or(0, |n| n as u64),
        };
        if p.g != expected {
            bail!(
                "recording game pair {} of bots {} and {}, whose next is {expected} (recorded already?)",
                p.g,
                p.a,
                p.b
            );
        }
        games.clear();
        for q in run {
            for game in &q.games {
                encode(&mut games, game.first.as_str(), &game.tail);
            }
        }
        let n = run.len() as i64;
        insert.execute(params![
            p.a,
            p.b,
            p.g as i64,
            n,
            i64::from(p.cases),
            seq,
            games
        ])?;
        seq += 2 * n;
        next.insert((p.a, p.b), p.g + run.len() as u64);
    }
    Ok(())
}

/// A chunk the migration is filling.
struct Building {
    a: i64,
    b: i64,
    g0: i64,
    seq0: i64,
    count: i64,
    games: Vec<u8>,
}

impl Building {
    fn insert(&self, tx: &Transaction<'_>, cases: i64) -> Result<()> {
        if self.count % 2 != 0 {
            bail!(
                "bots {} and {}: game pair {} lacks its second game",
                self.a,
                self.b,
                self.g0 + self.count / 2
            );
        }
        tx.execute(
            "INSERT INTO chunks(a, b, g0, pairs, cases, seq0, games) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![self.a, self.b, self.g0, self.count / 2, cases, self.seq0, self.games],
        )?;
        Ok(())
    }
}

/// Migration 2: the `games` table (a row per game) becomes chunks, its rows' numbers
/// (`seq`) kept, then goes. The number of cases is not in the database: the largest
/// case index stored plus one gives every stored game its case and deal back (a pair's
/// games are a prefix of its match, so either some pair played every case, or every
/// stored `g` is below it), and each row is checked against it.
pub fn games_into_chunks(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(SCHEMA)?;
    let cases: i64 = tx.query_row(
        "SELECT coalesce(max(case_idx), 0) + 1 FROM games",
        [],
        |r| r.get(0),
    )?;
    let mut stmt = tx.prepare(
        "SELECT a, b, g, seat, case_idx, deal, seq, first, tail FROM games ORDER BY a, b, g, seat",
    )?;
    let mut rows = stmt.query([])?;
    let mut open: Option<Building> = None;
    while let Some(r) = rows.next()? {
        let (a, b, g, seat): (i64, i64, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
        let (case, deal, seq): (i64, i64, i64) = (r.get(4)?, r.get(5)?, r.get(6)?);
        if case != g % cases || deal != g / cases {
            bail!(
                "game pair {g} of bots {a} and {b}: case {case}, deal {deal} do not follow from {cases} cases"
            );
        }
        let follows = open.as_ref().is_some_and(|c| {
            (c.a, c.b) == (a, b)
                && 2 * c.g0 + c.count == 2 * g + seat
                && c.seq0 + c.count == seq
                && (c.count as u64) < 2 * MIGRATED_PAIRS
        });
        if !follows {
            if let Some(c) = open.take() {
                c.insert(tx, cases)?;
            }
            if seat != 0 {
                bail!("game pair {g} of bots {a} and {b} lacks its first game");
            }
            open = Some(Building {
                a,
                b,
                g0: g,
                seq0: seq,
                count: 0,
                games: Vec::new(),
            });
        }
        let c = open.as_mut().context("an open chunk")?;
        encode(
            &mut c.games,
            &r.get::<_, String>(7)?,
            &r.get::<_, String>(8)?,
        );
        c.count += 1;
    }
    if let Some(c) = open.take() {
        c.insert(tx, cases)?;
    }
    drop(rows);
    drop(stmt);
    tx.execute_batch("DROP TABLE games;")?;
    Ok(())
}
