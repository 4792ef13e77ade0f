//! Games stored by chunk: one row holds a run of one pair of bots' game pairs
//! `g0 .. g0 + pairs` (both games of each, in game order), as a batch played them. A
//! row per game made SQLite's insert (two B-trees, eleven bound values) the league's
//! bottleneck; a chunk costs one insert per pair of bots per batch. Each game is kept
//! as its own cells ([`GameCells`]: the `games.csv` row less what a pair's key gives,
//! its index, case, deal and the bots' names), written and read back by the row codec,
//! each prefixed by its length, since a quoted reason may hold any byte.

use std::collections::HashMap;

use anyhow::{Context, Result, anyhow, bail};
use rusqlite::{OptionalExtension, Transaction, params};

use super::{BotId, PlayedPair, StoredGame, game_key as key};
use arena_run::record::{JobKey, Record};
use arena_run::rundir::results::GameCells;

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

/// Appends one game: its length, then its own cells.
fn encode(out: &mut Vec<u8>, cells: &GameCells, record: &Record) -> Result<()> {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    cells
        .write(record, out)
        .map_err(|e| anyhow!("storing game {}: {e}", record.key.index))?;
    let len = u32::try_from(out.len() - at - 4).unwrap_or(u32::MAX);
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
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
    /// seat `i % 2`) and its stored cells, in order.
    pub fn each(&self, mut each: impl FnMut(u64, &[u8]) -> Result<()>) -> Result<()> {
        let mut at = 0usize;
        let mut i = 0u64;
        while at < self.games.len() {
            let len = self
                .games
                .get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(|b: [u8; 4]| u32::from_le_bytes(b) as usize)
                .context("a truncated chunk of games")?;
            let cells = self
                .games
                .get(at + 4..at + 4 + len)
                .context("a truncated chunk of games")?;
            each(i, cells)?;
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

    /// The key of game `i` of the chunk.
    pub fn key(&self, i: u64) -> JobKey {
        key(self.g0 + i / 2, (i % 2) as u8, self.cases)
    }

    /// Game `i` of the chunk, read back from its stored cells.
    pub fn game(&self, i: u64, stored: &[u8], cells: &GameCells) -> Result<StoredGame> {
        let key = self.key(i);
        let record = cells.read(key, stored).map_err(|e| {
            anyhow!(
                "game {} of bots {} and {} as stored: {e}",
                key.index,
                self.a,
                self.b
            )
        })?;
        Ok(StoredGame {
            seq: self.seq0 + i as i64,
            a: self.a,
            b: self.b,
            record,
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
pub fn write(tx: &Transaction<'_>, played: &[PlayedPair], cells: &GameCells) -> Result<()> {
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
                encode(&mut games, cells, game)?;
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
/// stored `g` is below it), and each row is checked against it. Each game is read back
/// by the codec (a schema-1 row kept `first` and the rest of its own cells apart) and
/// stored as it writes it.
pub fn games_into_chunks(tx: &Transaction<'_>, cells: &GameCells) -> Result<()> {
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
        let own = format!("{},{}", r.get::<_, String>(7)?, r.get::<_, String>(8)?);
        let record = cells
            .read(key(g as u64, seat as u8, cases as u64), own.as_bytes())
            .map_err(|e| anyhow!("game pair {g} of bots {a} and {b}: {e}"))?;
        encode(&mut c.games, cells, &record)?;
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

#[cfg(test)]
mod tests {
    use super::super::{PlayedPair, Store, StoredGame, game_key};
    use crate::LeagueConfig;
    use arena_run::plan::SprtConfig;
    use arena_run::record::{Duel, Extra, Outcome, Record, Score, Side, Termination, reason};
    use arena_run::rundir::results::{Codec, GameCells, csv_cell};

    fn dominoes() -> GameCells {
        GameCells::new(arena_run::task::lookup("dominoes").unwrap())
    }

    /// Seat `seat` of global pair `g` (two cases): A forfeits with a reply a row must
    /// quote (a comma, quotes), or wins by the rules.
    fn game(g: u64, seat: u8) -> Record {
        let forfeit = seat == 0;
        Record {
            key: game_key(g, seat, 2),
            outcome: Outcome::Duel(Duel {
                score_a: if forfeit { Score::Loss } else { Score::Win },
                first: if forfeit { Side::B } else { Side::A },
                forfeit: forfeit.then_some(Side::A),
            }),
            termination: if forfeit {
                Termination::Malformed
            } else {
                Termination::Rules("domino")
            },
            reason: if forfeit {
                reason(r#"replied "6-6, 5-5", not a move"#)
            } else {
                String::new()
            },
            plies: 3 + g as u32,
            extras: [
                Extra::Text("6,6".into()),
                Extra::Int(14),
                Extra::Int(-1),
                Extra::Text("0\"7".into()),
            ]
            .into_iter()
            .collect(),
            elapsed: None,
            think: None,
        }
    }

    /// What a schema-1 league stored and later chunks kept: the row from `first` on,
    /// less the bots' names (the bytes every league written so far holds).
    const FORFEIT: &[u8] =
        br#"b,0,1,malformed,a,"replied ""6-6, 5-5"", not a move",3,"6,6",14,-1,"0""7""#;

    #[test]
    fn a_game_is_stored_as_its_row_from_first_on_less_the_names() {
        let sprt = SprtConfig {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let config = LeagueConfig::new("dominoes", Some("5,4 9,7"), "3", sprt).unwrap();
        let names = [r#"a, "the" first"#, "b"];
        let plan = config.pair_plan(names, ["random", "random"], 8).unwrap();
        let codec = Codec::new(&plan);
        let mut stored = Vec::new();
        dominoes().write(&game(0, 0), &mut stored).unwrap();
        assert_eq!(stored, FORFEIT);
        for (g, seat) in [(0, 0), (0, 1), (3, 0), (3, 1)] {
            let record = game(g, seat);
            let (mut row, mut own) = (Vec::new(), Vec::new());
            codec.write(&record, &mut row);
            dominoes().write(&record, &mut own).unwrap();
            let own = String::from_utf8(own).unwrap();
            let (first, rest) = own.split_once(',').unwrap();
            let key = record.key;
            let head = format!(
                "{},{},{},{first},\"a, \"\"the\"\" first\",b,",
                key.index,
                csv_cell(&plan.cases[usize::from(key.case)]),
                key.pair
            );
            assert_eq!(String::from_utf8(row).unwrap(), format!("{head}{rest}\n"));
            assert_eq!(dominoes().read(key, own.as_bytes()), Ok(record));
        }
    }

    #[test]
    fn games_read_back_from_the_store_as_committed_and_stored_as_before() {
        let dir = tempfile::TempDir::new().unwrap();
        let mut store = Store::open(&dir.path().join("league.db"), dominoes()).unwrap();
        let played: Vec<PlayedPair> = (0..3)
            .map(|g| PlayedPair {
                a: 1,
                b: 2,
                g,
                case: (g % 2) as u16,
                deal: (g / 2) as u32,
                cases: 2,
                games: [game(g, 0), game(g, 1)],
            })
            .collect();
        store.commit(&played).unwrap();
        let mut back = Vec::new();
        store
            .pair_games(1, 2, &mut |g| {
                back.push(g);
                Ok(())
            })
            .unwrap();
        let committed: Vec<StoredGame> = played
            .iter()
            .flat_map(|p| p.games.iter().cloned())
            .zip(1..)
            .map(|(record, seq)| StoredGame {
                seq,
                a: 1,
                b: 2,
                record,
            })
            .collect();
        assert_eq!(back, committed);
        let recent = store.recent(&Default::default(), 2).unwrap();
        assert_eq!(recent, [committed[5].clone(), committed[4].clone()]);
        assert_eq!(store.forfeits().unwrap()[&1]["malformed"], 3);
        let blob: Vec<u8> = store
            .conn
            .query_row("SELECT games FROM chunks", [], |r| r.get(0))
            .unwrap();
        let first_len = u32::from_le_bytes(blob[..4].try_into().unwrap()) as usize;
        assert_eq!(&blob[4..4 + first_len], FORFEIT);
    }

    #[test]
    fn a_damaged_stored_game_is_refused_naming_it() {
        let cells = dominoes();
        let key = game_key(5, 1, 2);
        // A forfeit without its reason, and a cell short.
        for bad in [
            &br#"b,0,1,malformed,a,,3,"6,6",14,-1,7"#[..],
            b"b,0,1,domino,,,3,x,14,-1",
        ] {
            assert!(
                cells.read(key, bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
