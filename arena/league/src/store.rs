//! The league's database: SQLite in WAL mode, so the page and `show` read while `run`
//! writes. A versioned schema (`PRAGMA user_version`) grows by the ordered
//! [`MIGRATIONS`]; a database newer than this arena is refused. Games are written in
//! batches, one transaction each, together with the aggregates (`pairs`, `cells`) that
//! `show` and the page read, so a standing never needs a scan of the games and a game
//! counts exactly when it is committed. A batch stores each pair of bots' games as one
//! row (a chunk), not a row per game: SQLite's per-row cost was most of a cheap game's.
//! A chunk must start where its pair's games end, so a game recorded twice (or a gap)
//! is an error, never a second row.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use arena_run::record::{JobKey, Record};
use arena_run::rundir::results::GameCells;

mod chunk;
mod history;
mod tests_table;
use arena_stats::{Pentanomial, Wdl};
pub use history::{MOST_SNAPSHOTS, Snapshot};
pub use tests_table::{PathPoint, Test, TestId, TestState, TestUpdate, now};

/// A bot's number: its order of addition, never reused once it is added (a bot `add`
/// refused leaves no row, no copy and no game: its number may be given again). The
/// lower id of a pair is its agent A.
pub type BotId = i64;

/// One step of the schema: SQL, or code where rows must be rewritten (`Games`: code
/// that reads stored games, with the codec of the league's task).
pub enum Migration {
    Sql(&'static str),
    Code(fn(&rusqlite::Transaction<'_>) -> Result<()>),
    Games(fn(&rusqlite::Transaction<'_>, &GameCells) -> Result<()>),
}

/// The schema, one migration per version: version `k` is `MIGRATIONS[..k]` applied in
/// order. Append, never edit.
pub const MIGRATIONS: &[Migration] = &[
    // 1: bots, games, and the aggregates kept with every batch.
    Migration::Sql(
        "CREATE TABLE bots(
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        spec TEXT NOT NULL,
        role TEXT NOT NULL,
        state TEXT NOT NULL,
        archived INTEGER NOT NULL DEFAULT 0,
        added_at INTEGER NOT NULL,
        build_log TEXT NOT NULL DEFAULT '',
        llr REAL,
        verdict_pairs INTEGER NOT NULL DEFAULT 0,
        against INTEGER
    );
    CREATE TABLE games(
        seq INTEGER PRIMARY KEY,
        a INTEGER NOT NULL,
        b INTEGER NOT NULL,
        g INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        case_idx INTEGER NOT NULL,
        deal INTEGER NOT NULL,
        score_a REAL NOT NULL,
        termination TEXT NOT NULL,
        forfeit TEXT NOT NULL,
        first TEXT NOT NULL,
        tail TEXT NOT NULL,
        UNIQUE(a, b, g, seat)
    );
    CREATE TABLE pairs(
        a INTEGER NOT NULL, b INTEGER NOT NULL,
        next_g INTEGER NOT NULL,
        w INTEGER NOT NULL, d INTEGER NOT NULL, l INTEGER NOT NULL,
        p0 INTEGER NOT NULL, p1 INTEGER NOT NULL, p2 INTEGER NOT NULL,
        p3 INTEGER NOT NULL, p4 INTEGER NOT NULL,
        PRIMARY KEY(a, b)
    ) WITHOUT ROWID;
    CREATE TABLE cells(
        a INTEGER NOT NULL, b INTEGER NOT NULL, case_idx INTEGER NOT NULL, seat INTEGER NOT NULL,
        w INTEGER NOT NULL, d INTEGER NOT NULL, l INTEGER NOT NULL,
        PRIMARY KEY(a, b, case_idx, seat)
    ) WITHOUT ROWID;
    CREATE TABLE llr_path(
        bot INTEGER NOT NULL, pairs INTEGER NOT NULL, llr REAL NOT NULL,
        PRIMARY KEY(bot, pairs)
    ) WITHOUT ROWID;",
    ),
    // 2: the games of a pair of bots stored by chunk (one row per pair per batch), not
    // by game: a row per game cost the writer more than playing the game.
    Migration::Games(chunk::games_into_chunks),
    // 3: each bot's stored copy sealed at `add` (`league::seal`): NULL for a bot added
    // before, whose copy is not checked (nothing recorded what it was).
    Migration::Sql("ALTER TABLE bots ADD COLUMN seal TEXT;"),
    // 4: each bot's forfeits by kind (timeout, crash, startup, ...), kept with every
    // batch as the other aggregates are, filled from the stored games.
    Migration::Games(forfeits_from_games),
    // 5: the candidates' tests, each against a base of its own (a named bot or the
    // strongest benchmark) with its own bounds; a candidate's verdict moves from its
    // bot row to a test (`store/tests_table.rs`).
    Migration::Code(tests_table::migrate),
    // 6: snapshots of the bots' ratings over time, for the page's chart (none for the
    // time before: the ratings of then were never recorded).
    Migration::Sql(history::TABLE),
];

/// Migration 4: the `forfeits` aggregate, counted from every stored game.
fn forfeits_from_games(tx: &rusqlite::Transaction<'_>, cells: &GameCells) -> Result<()> {
    tx.execute_batch(
        "CREATE TABLE forfeits(
            bot INTEGER NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL,
            PRIMARY KEY(bot, kind)
        ) WITHOUT ROWID;",
    )?;
    let mut counts: BTreeMap<(BotId, String), u64> = BTreeMap::new();
    {
        let mut stmt = tx.prepare(&format!("SELECT {} FROM chunks", chunk::COLUMNS))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let c = chunk::Chunk::of(r)?;
            c.each(|i, stored| {
                let game = c.game(i, stored, cells)?;
                if let Some(bot) = forfeiter(game.a, game.b, &game.record) {
                    let kind = game.record.termination.as_str().to_owned();
                    *counts.entry((bot, kind)).or_default() += 1;
                }
                Ok(())
            })?;
        }
    }
    add_forfeits(tx, &counts)
}

/// The bot that forfeited `game` of bots `a` and `b`, if one did.
fn forfeiter(a: BotId, b: BotId, game: &Record) -> Option<BotId> {
    Some(match game.forfeiter()? {
        arena_run::record::Side::A => a,
        arena_run::record::Side::B => b,
    })
}

fn add_forfeits(
    tx: &rusqlite::Transaction<'_>,
    counts: &BTreeMap<(BotId, String), u64>,
) -> Result<()> {
    let mut upsert = tx.prepare_cached(
        "INSERT INTO forfeits(bot, kind, n) VALUES (?1, ?2, ?3)
         ON CONFLICT(bot, kind) DO UPDATE SET n = n + excluded.n",
    )?;
    for ((bot, kind), n) in counts {
        upsert.execute(params![bot, kind, *n as i64])?;
    }
    Ok(())
}

/// What a bot is in the league.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Under evaluation against the benchmarks until its verdict.
    Candidate,
    /// One of the pool every candidate is measured against.
    Benchmark,
}

/// Where a bot stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// A benchmark in play.
    Active,
    /// A candidate whose GSPRT has not decided.
    Running,
    /// A candidate the GSPRT found better than the strongest benchmark.
    Accepted,
    /// A candidate the GSPRT found no better (or its author rejected it).
    Rejected,
    /// Its build failed: it never plays (the log says why).
    Failed,
}

impl Role {
    const ALL: [Role; 2] = [Role::Candidate, Role::Benchmark];

    fn name(self) -> &'static str {
        match self {
            Role::Candidate => "candidate",
            Role::Benchmark => "benchmark",
        }
    }
}

impl State {
    const ALL: [State; 5] = [
        State::Active,
        State::Running,
        State::Accepted,
        State::Rejected,
        State::Failed,
    ];

    fn name(self) -> &'static str {
        match self {
            State::Active => "active",
            State::Running => "running",
            State::Accepted => "accepted",
            State::Rejected => "rejected",
            State::Failed => "failed",
        }
    }
}

/// A name the database holds that no variant has (a newer arena's, or a hand edit).
#[derive(Debug, thiserror::Error)]
#[error("unknown {kind} {text:?} in the database")]
pub struct UnknownName {
    kind: &'static str,
    text: String,
}

impl UnknownName {
    fn new(kind: &'static str, text: &str) -> UnknownName {
        UnknownName {
            kind,
            text: text.to_owned(),
        }
    }
}

// `pad`, not `write_str`: the tables give these a width.
impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for Role {
    type Err = UnknownName;

    fn from_str(s: &str) -> std::result::Result<Role, UnknownName> {
        Role::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownName::new("Role", s))
    }
}

impl FromStr for State {
    type Err = UnknownName;

    fn from_str(s: &str) -> std::result::Result<State, UnknownName> {
        State::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownName::new("State", s))
    }
}

/// A candidate's evaluation, as its tests leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    Running,
    Accepted,
    Rejected,
}

/// What a bot is and where it stands, as one value: only a role and a state that mean
/// something together can be written (a benchmark is never `accepted` or `running`, a
/// candidate never `active`). The database keeps the two names; [`Standing::new`]
/// refuses a pair that means nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// A benchmark in play.
    Benchmark,
    /// A candidate under evaluation, or judged.
    Candidate(Evaluation),
    /// Its copy, build or start failed: it never plays. The role is what it was added
    /// as (what `show` and the database say).
    Failed(Role),
}

/// A role and a state that mean nothing together, as a database row held them.
#[derive(Debug, thiserror::Error)]
#[error("a {role} cannot be {state}")]
pub struct Nonsense {
    role: Role,
    state: State,
}

impl Standing {
    /// The standing a role and a state name, when they mean something together.
    pub fn new(role: Role, state: State) -> std::result::Result<Standing, Nonsense> {
        Ok(match (role, state) {
            (role, State::Failed) => Standing::Failed(role),
            (Role::Benchmark, State::Active) => Standing::Benchmark,
            (Role::Candidate, State::Running) => Standing::Candidate(Evaluation::Running),
            (Role::Candidate, State::Accepted) => Standing::Candidate(Evaluation::Accepted),
            (Role::Candidate, State::Rejected) => Standing::Candidate(Evaluation::Rejected),
            (role, state) => return Err(Nonsense { role, state }),
        })
    }

    pub fn role(self) -> Role {
        match self {
            Standing::Benchmark => Role::Benchmark,
            Standing::Candidate(_) => Role::Candidate,
            Standing::Failed(role) => role,
        }
    }

    pub fn state(self) -> State {
        match self {
            Standing::Benchmark => State::Active,
            Standing::Candidate(Evaluation::Running) => State::Running,
            Standing::Candidate(Evaluation::Accepted) => State::Accepted,
            Standing::Candidate(Evaluation::Rejected) => State::Rejected,
            Standing::Failed(_) => State::Failed,
        }
    }
}

/// A bot as the database holds it.
#[derive(Clone, Debug)]
pub struct Bot {
    pub id: BotId,
    pub name: String,
    pub spec: String,
    pub standing: Standing,
    /// Put away by its author (`archive`), whatever its standing, which `archive
    /// --undo` gives back unchanged.
    pub archived: bool,
    pub build_log: String,
    /// Its stored copy's files as `add` left them (`league::seal`); `None`: nothing to
    /// check (a built-in, or a bot added before copies were sealed).
    pub seal: Option<String>,
}

impl Bot {
    pub fn role(&self) -> Role {
        self.standing.role()
    }

    pub fn state(&self) -> State {
        self.standing.state()
    }

    /// Whether it plays at all (not archived, not failed).
    pub fn plays(&self) -> bool {
        !self.archived && !matches!(self.standing, Standing::Failed(_))
    }

    /// Whether spare play pairs it: a benchmark or an accepted candidate, in play.
    pub fn spares(&self) -> bool {
        self.plays()
            && matches!(
                self.standing,
                Standing::Benchmark | Standing::Candidate(Evaluation::Accepted)
            )
    }
}

/// One pair of bots' games so far, from `a`'s point of view (`a < b`).
#[derive(Clone, Debug, Default)]
pub struct PairStats {
    pub a: BotId,
    pub b: BotId,
    /// Game pairs played: the next is global pair `next_g`.
    pub next_g: u64,
    pub games: Wdl,
    pub pairs: Pentanomial,
}

/// Both games of one global pair `g` of bots `a < b`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayedPair {
    pub a: BotId,
    pub b: BotId,
    pub g: u64,
    pub case: u16,
    pub deal: u32,
    /// The league's number of cases (`g = deal * cases + case`): stored with the games,
    /// which keep only `g`.
    pub cases: u16,
    /// Seat 0's game, then seat 1's: the records of games `2g` and `2g + 1` of the
    /// pair's match (stored as their own cells, `store/chunk.rs`).
    pub games: [Record; 2],
}

/// A stored game, for the page's list and the export: game `record.key.index` of the
/// match of bots `a < b` (global pair `index / 2`, seat `key.game`).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredGame {
    /// Its number in the order of commit, from 1.
    pub seq: i64,
    pub a: BotId,
    pub b: BotId,
    pub record: Record,
}

/// The job of game `seat` (0 or 1) of global pair `g` of a league of `cases` cases:
/// game `2g + seat` of its pair's match, deal `g / cases` of case `g % cases`.
pub fn game_key(g: u64, seat: u8, cases: u64) -> JobKey {
    JobKey {
        index: 2 * g + u64::from(seat),
        matchup: 0,
        case: (g % cases) as u16,
        pair: (g / cases) as u32,
        game: seat,
    }
}

/// One aggregate cell: bots `a < b`, case, seat order, and the counts of `a`.
pub type Cell = (BotId, BotId, u16, u8, Wdl);

/// Which games a query covers (the page's filters).
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub case: Option<u16>,
    pub seat: Option<u8>,
    pub bot: Option<BotId>,
}

/// What a batch adds to each pair of bots' counts.
pub fn pair_totals(played: &[PlayedPair]) -> Result<BTreeMap<(BotId, BotId), PairStats>> {
    let mut pairs: BTreeMap<(BotId, BotId), PairStats> = BTreeMap::new();
    for p in played {
        let stats = pairs.entry((p.a, p.b)).or_insert_with(|| PairStats {
            a: p.a,
            b: p.b,
            ..PairStats::default()
        });
        stats.next_g = stats.next_g.max(p.g + 1);
        for game in &p.games {
            stats.games.push_game_score(game.points_a())?;
        }
        stats
            .pairs
            .push_pair(p.games[0].points_a(), p.games[1].points_a())?;
    }
    Ok(pairs)
}

impl PairStats {
    /// Adds a batch's counts of the same pair.
    pub fn add(&mut self, more: &PairStats) {
        self.next_g = self.next_g.max(more.next_g);
        self.games += more.games;
        self.pairs += more.pairs;
    }
}

/// The database, open.
pub struct Store {
    conn: Connection,
    /// How a game is stored: the league task's row codec.
    cells: GameCells,
}

impl Store {
    /// Opens (creating if need be) and migrates the database at `path`, whose games are
    /// stored as `cells`.
    pub fn open(path: &Path, cells: GameCells) -> Result<Store> {
        let conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
        conn.busy_timeout(Duration::from_secs(30))?;
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            bail!("{}: SQLite refused WAL mode (got {mode})", path.display());
        }
        // WAL with NORMAL: a committed transaction survives the process being killed
        // (kill -9); only a power cut may lose the last ones (never corrupt the file).
        conn.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")?;
        let mut store = Store { conn, cells };
        store
            .migrate()
            .with_context(|| format!("migrating {}", path.display()))?;
        Ok(store)
    }

    /// Opens the database for reading only (the page, `show`, `export`): never migrates,
    /// so a reader never waits on the writer; refuses a schema it does not know.
    pub fn open_read(path: &Path, cells: GameCells) -> Result<Store> {
        if !path.exists() {
            bail!(
                "{} does not exist (make a league with `arena league init`)",
                path.display()
            );
        }
        let conn = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .with_context(|| format!("opening {}", path.display()))?;
        conn.busy_timeout(Duration::from_secs(30))?;
        let store = Store { conn, cells };
        let v = store.version()?;
        if v != MIGRATIONS.len() {
            bail!(
                "{}: schema version {v}, this arena reads {} (run any writing league command to migrate)",
                path.display(),
                MIGRATIONS.len()
            );
        }
        Ok(store)
    }

    /// The schema version this database is at.
    pub fn version(&self) -> Result<usize> {
        let v: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        Ok(v as usize)
    }

    fn migrate(&mut self) -> Result<()> {
        let cells = self.cells;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let at: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let at = at as usize;
        if at > MIGRATIONS.len() {
            bail!(
                "the league's schema is version {at}, newer than this arena's {}: use a newer arena",
                MIGRATIONS.len()
            );
        }
        for (i, step) in MIGRATIONS.iter().enumerate().skip(at) {
            let done = match step {
                Migration::Sql(sql) => tx.execute_batch(sql).map_err(anyhow::Error::from),
                Migration::Code(code) => code(&tx),
                Migration::Games(code) => code(&tx, &cells),
            };
            done.with_context(|| format!("schema migration {}", i + 1))?;
        }
        tx.pragma_update(None, "user_version", MIGRATIONS.len() as i64)?;
        tx.commit()?;
        Ok(())
    }

    // ---- bots ----

    pub fn bots(&self) -> Result<Vec<Bot>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, name, spec, role, state, archived, build_log, seal FROM bots ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, Option<String>>(7)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, name, spec, role, state, archived, build_log, seal) = row?;
            let standing = Standing::new(role.parse()?, state.parse()?)
                .with_context(|| format!("bot {name:?} in the database"))?;
            out.push(Bot {
                id,
                name,
                spec,
                standing,
                archived: archived != 0,
                build_log,
                seal,
            });
        }
        Ok(out)
    }

    pub fn bot(&self, name: &str) -> Result<Bot> {
        self.bots()?
            .into_iter()
            .find(|b| b.name == name)
            .ok_or_else(|| anyhow::anyhow!("the league has no bot named {name:?}"))
    }

    /// Adds a bot; returns its id. `spec` may be rewritten once its files are copied.
    pub fn add_bot(&self, name: &str, spec: &str, standing: Standing) -> Result<BotId> {
        let exists: Option<i64> = self
            .conn
            .query_row("SELECT id FROM bots WHERE name = ?1", [name], |r| r.get(0))
            .optional()?;
        if exists.is_some() {
            bail!("the league already has a bot named {name:?}");
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        self.conn.execute(
            "INSERT INTO bots(name, spec, role, state, added_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                name,
                spec,
                standing.role().to_string(),
                standing.state().to_string(),
                now
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Removes a bot that never played (one `add` refused): its name is free again.
    pub fn remove_unplayed(&self, id: BotId) -> Result<()> {
        let tx = self.write()?;
        let played: i64 = tx.query_row(
            "SELECT count(*) FROM pairs WHERE a = ?1 OR b = ?1",
            [id],
            |r| r.get(0),
        )?;
        if played > 0 {
            bail!("bot {id} has games: it stays in the league");
        }
        tx.execute(
            "DELETE FROM test_path WHERE test IN (SELECT id FROM tests WHERE subject = ?1)",
            [id],
        )?;
        tx.execute("DELETE FROM tests WHERE subject = ?1", [id])?;
        tx.execute("DELETE FROM bots WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(())
    }

    pub fn set_spec(&self, id: BotId, spec: &str) -> Result<()> {
        self.conn
            .execute("UPDATE bots SET spec = ?2 WHERE id = ?1", params![id, spec])?;
        Ok(())
    }

    pub fn set_standing(&self, id: BotId, standing: Standing) -> Result<()> {
        self.conn.execute(
            "UPDATE bots SET role = ?2, state = ?3 WHERE id = ?1",
            params![
                id,
                standing.role().to_string(),
                standing.state().to_string()
            ],
        )?;
        Ok(())
    }

    pub fn set_failed(&self, id: BotId, log: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE bots SET state = 'failed', build_log = ?2 WHERE id = ?1",
            params![id, log],
        )?;
        Ok(())
    }

    pub fn set_seal(&self, id: BotId, seal: &str) -> Result<()> {
        self.conn
            .execute("UPDATE bots SET seal = ?2 WHERE id = ?1", params![id, seal])?;
        Ok(())
    }

    pub fn set_build_log(&self, id: BotId, log: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE bots SET build_log = ?2 WHERE id = ?1",
            params![id, log],
        )?;
        Ok(())
    }

    pub fn set_archived(&self, id: BotId, archived: bool) -> Result<()> {
        self.conn.execute(
            "UPDATE bots SET archived = ?2 WHERE id = ?1",
            params![id, archived as i64],
        )?;
        Ok(())
    }

    pub fn rename(&self, id: BotId, name: &str) -> Result<()> {
        let taken: Option<i64> = self
            .conn
            .query_row("SELECT id FROM bots WHERE name = ?1", [name], |r| r.get(0))
            .optional()?;
        if taken.is_some() {
            bail!("the league already has a bot named {name:?}");
        }
        self.conn
            .execute("UPDATE bots SET name = ?2 WHERE id = ?1", params![id, name])?;
        Ok(())
    }

    /// A transaction that writes: `BEGIN IMMEDIATE`, so it takes the write lock first
    /// (waiting for it under the busy timeout). A deferred one reads first and must then
    /// upgrade, which WAL refuses at once (`SQLITE_BUSY_SNAPSHOT`, error 517, `database
    /// is locked`, no waiting) when another connection wrote in between: what killed a
    /// `run` when a bot was added beside it.
    fn write(&self) -> Result<rusqlite::Transaction<'_>> {
        Ok(rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?)
    }

    // ---- games ----

    /// Records a batch of finished game pairs in one transaction, with the aggregates.
    /// A game already recorded fails the whole batch (nothing of it is kept).
    pub fn commit(&mut self, played: &[PlayedPair]) -> Result<()> {
        let pairs = pair_totals(played)?;
        let mut cells: BTreeMap<(BotId, BotId, u16, u8), Wdl> = BTreeMap::new();
        for p in played {
            for (seat, game) in p.games.iter().enumerate() {
                cells
                    .entry((p.a, p.b, p.case, seat as u8))
                    .or_default()
                    .push_game_score(game.points_a())?;
            }
        }
        let mut forfeits: BTreeMap<(BotId, String), u64> = BTreeMap::new();
        for p in played {
            for game in &p.games {
                let Some(bot) = forfeiter(p.a, p.b, game) else {
                    continue;
                };
                *forfeits
                    .entry((bot, game.termination.as_str().to_owned()))
                    .or_default() += 1;
            }
        }
        let tx = self.write()?;
        {
            chunk::write(&tx, played, &self.cells)?;
            add_forfeits(&tx, &forfeits)?;
            let mut upsert = tx.prepare_cached(
                "INSERT INTO pairs(a, b, next_g, w, d, l, p0, p1, p2, p3, p4)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT(a, b) DO UPDATE SET next_g = max(next_g, excluded.next_g),
                   w = w + excluded.w, d = d + excluded.d, l = l + excluded.l,
                   p0 = p0 + excluded.p0, p1 = p1 + excluded.p1, p2 = p2 + excluded.p2,
                   p3 = p3 + excluded.p3, p4 = p4 + excluded.p4",
            )?;
            for s in pairs.values() {
                let p = s.pairs.0.map(|n| n as i64);
                upsert.execute(params![
                    s.a,
                    s.b,
                    s.next_g as i64,
                    s.games.wins as i64,
                    s.games.draws as i64,
                    s.games.losses as i64,
                    p[0],
                    p[1],
                    p[2],
                    p[3],
                    p[4],
                ])?;
            }
            let mut cell = tx.prepare_cached(
                "INSERT INTO cells(a, b, case_idx, seat, w, d, l) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT(a, b, case_idx, seat) DO UPDATE SET
                   w = w + excluded.w, d = d + excluded.d, l = l + excluded.l",
            )?;
            for ((a, b, case, seat), wdl) in &cells {
                cell.execute(params![
                    a,
                    b,
                    i64::from(*case),
                    i64::from(*seat),
                    wdl.wins as i64,
                    wdl.draws as i64,
                    wdl.losses as i64,
                ])?;
            }
        }
        arena_run::runfile::fault::point("league-commit");
        tx.commit()?;
        Ok(())
    }

    /// Each bot's forfeits by kind (`timeout`, `crash`, `startup`, ...).
    pub fn forfeits(&self) -> Result<BTreeMap<BotId, BTreeMap<String, u64>>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT bot, kind, n FROM forfeits ORDER BY bot, kind")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        let mut out: BTreeMap<BotId, BTreeMap<String, u64>> = BTreeMap::new();
        for row in rows {
            let (bot, kind, n) = row?;
            out.entry(bot).or_default().insert(kind, n as u64);
        }
        Ok(out)
    }

    /// Every pair of bots that played, with its counts.
    pub fn pairs(&self) -> Result<Vec<PairStats>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT a, b, next_g, w, d, l, p0, p1, p2, p3, p4 FROM pairs ORDER BY a, b",
        )?;
        let rows = stmt.query_map([], |r| {
            let n = |i: usize| r.get::<_, i64>(i).map(|v| v as u64);
            Ok(PairStats {
                a: r.get(0)?,
                b: r.get(1)?,
                next_g: n(2)?,
                games: Wdl {
                    wins: n(3)?,
                    draws: n(4)?,
                    losses: n(5)?,
                },
                pairs: Pentanomial([n(6)?, n(7)?, n(8)?, n(9)?, n(10)?]),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Counts per pair of bots, case and seat order, within `filter` (the heatmaps and
    /// the filtered cross table).
    pub fn cells(&self, filter: &Filter) -> Result<Vec<Cell>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT a, b, case_idx, seat, w, d, l FROM cells
             WHERE (?1 IS NULL OR case_idx = ?1) AND (?2 IS NULL OR seat = ?2)
               AND (?3 IS NULL OR a = ?3 OR b = ?3)
             ORDER BY a, b, case_idx, seat",
        )?;
        let rows = stmt.query_map(
            params![
                filter.case.map(i64::from),
                filter.seat.map(i64::from),
                filter.bot
            ],
            |r| {
                let n = |i: usize| r.get::<_, i64>(i).map(|v| v as u64);
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get::<_, i64>(2)? as u16,
                    r.get::<_, i64>(3)? as u8,
                    Wdl {
                        wins: n(4)?,
                        draws: n(5)?,
                        losses: n(6)?,
                    },
                ))
            },
        )?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// The latest games within `filter`, newest first.
    pub fn recent(&self, filter: &Filter, limit: usize) -> Result<Vec<StoredGame>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {} FROM chunks WHERE (?1 IS NULL OR a = ?1 OR b = ?1) ORDER BY seq0 DESC",
            chunk::COLUMNS
        ))?;
        let mut rows = stmt.query(params![filter.bot])?;
        let mut out = Vec::new();
        while out.len() < limit {
            let Some(r) = rows.next()? else { break };
            let c = chunk::Chunk::of(r)?;
            let mut found = Vec::new();
            c.each(|i, stored| {
                let key = c.key(i);
                if filter.case.is_none_or(|x| x == key.case)
                    && filter.seat.is_none_or(|x| x == key.game)
                {
                    found.push(c.game(i, stored, &self.cells)?);
                }
                Ok(())
            })?;
            out.extend(found.into_iter().rev().take(limit - out.len()));
        }
        Ok(out)
    }

    /// Every game of bots `a < b`, in game order (`g`, then seat): its match's rows.
    pub fn pair_games(
        &self,
        a: BotId,
        b: BotId,
        each: &mut dyn FnMut(StoredGame) -> Result<()>,
    ) -> Result<()> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {} FROM chunks WHERE a = ?1 AND b = ?2 ORDER BY g0",
            chunk::COLUMNS
        ))?;
        let mut rows = stmt.query(params![a, b])?;
        while let Some(r) = rows.next()? {
            let c = chunk::Chunk::of(r)?;
            c.each(|i, stored| each(c.game(i, stored, &self.cells)?))?;
        }
        Ok(())
    }

    /// Games recorded (from the aggregates: no scan).
    pub fn total_games(&self) -> Result<u64> {
        let n: i64 =
            self.conn
                .query_row("SELECT coalesce(sum(w + d + l), 0) FROM pairs", [], |r| {
                    r.get(0)
                })?;
        Ok(n as u64)
    }

    /// The newest game's number and the database's change counter: what the page's live
    /// updates watch.
    pub fn change_mark(&self) -> Result<(i64, i64)> {
        let seq: i64 = self
            .conn
            .query_row(
                "SELECT seq0 + 2 * pairs - 1 FROM chunks ORDER BY seq0 DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(0);
        let version: i64 = self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))?;
        Ok((seq, version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_and_state_reads_back_what_it_writes() {
        for role in Role::ALL {
            assert_eq!(role.to_string().parse::<Role>().unwrap(), role);
        }
        for state in State::ALL {
            assert_eq!(state.to_string().parse::<State>().unwrap(), state);
        }
        assert_eq!(Role::Benchmark.to_string(), "benchmark");
        assert_eq!(State::Failed.to_string(), "failed");
        assert_eq!(format!("{:<9}|", State::Active), "active   |");
    }

    #[test]
    fn an_unknown_name_is_named_in_the_error() {
        let err = "retired".parse::<State>().unwrap_err().to_string();
        assert_eq!(err, "unknown State \"retired\" in the database");
        let err = "judge".parse::<Role>().unwrap_err().to_string();
        assert_eq!(err, "unknown Role \"judge\" in the database");
    }

    #[test]
    fn a_standing_is_a_role_and_a_state_that_mean_something_together() {
        let mut meaningful = 0;
        for role in Role::ALL {
            for state in State::ALL {
                match Standing::new(role, state) {
                    Ok(standing) => {
                        meaningful += 1;
                        assert_eq!((standing.role(), standing.state()), (role, state));
                    }
                    Err(e) => assert_eq!(e.to_string(), format!("a {role} cannot be {state}")),
                }
            }
        }
        // Failed either way, an active benchmark, a running, accepted or rejected candidate.
        assert_eq!(meaningful, 6);
        for nonsense in [
            (Role::Benchmark, State::Accepted),
            (Role::Benchmark, State::Running),
            (Role::Candidate, State::Active),
        ] {
            assert!(
                Standing::new(nonsense.0, nonsense.1).is_err(),
                "{nonsense:?}"
            );
        }
    }

    #[test]
    fn a_row_whose_role_and_state_mean_nothing_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            &dir.path().join("league.db"),
            GameCells::new(arena_run::task::lookup("dominoes").unwrap()),
        )
        .unwrap();
        let id = store.add_bot("b1", "random", Standing::Benchmark).unwrap();
        assert_eq!(store.bot("b1").unwrap().standing, Standing::Benchmark);
        store
            .conn
            .execute("UPDATE bots SET state = 'accepted' WHERE id = ?1", [id])
            .unwrap();
        let err = format!("{:#}", store.bots().unwrap_err());
        assert!(
            err.contains("\"b1\"") && err.contains("a benchmark cannot be accepted"),
            "{err}"
        );
    }

    #[test]
    fn display_is_the_serde_name() {
        for role in Role::ALL {
            assert_eq!(serde_json::to_value(role).unwrap(), role.to_string());
        }
        for state in State::ALL {
            assert_eq!(serde_json::to_value(state).unwrap(), state.to_string());
        }
    }
}
