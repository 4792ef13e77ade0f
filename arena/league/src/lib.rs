//! `arena league`: a league in a folder that keeps playing while bots are added, judged
//! and retired (`docs/league.md`). A game of the league is game `2g + seat` of the
//! two-agent match of its pair of bots (`arena match --seed S`, the lower bot id as agent
//! A, global pair `g = deal * cases + case`): a pure function of the league seed, the
//! case, the deal, the seat order and the two bots, so adding or archiving bots never
//! changes another game, and every pair of a pair of bots is a prefix of that match
//! (what `export` hands to `arena verify`).
//!
//! One module per concern: `config` (league.toml), `store` (SQLite: schema, migrations,
//! the one writer's batches, aggregates kept in the same transactions), `bots` (add,
//! copy, build, roles), `seal` (a stored copy's files, checked before it runs), `matchmaker` (what to play next), `play` (a batch on the task's
//! own engine), `verdict` (the GSPRT of each candidate), `standings` (`show`),
//! `history` (the ratings over time, the page's chart), `export` (run directories),
//! `page` (the live page), `run` (the loop).

pub mod bots;
pub mod config;
pub mod export;
pub mod history;
pub mod matchmaker;
pub mod page;
pub mod play;
pub mod run;
pub mod seal;
pub mod standings;
pub mod store;
pub mod verdict;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

pub use config::LeagueConfig;
pub use store::Store;

use arena_run::rundir::results::GameCells;

/// The league's files.
pub const CONFIG: &str = "league.toml";
pub const DATABASE: &str = "league.db";
pub const BOTS: &str = "bots";
pub const LOGS: &str = "logs";

/// An open league: its folder, config and database.
pub struct League {
    pub dir: PathBuf,
    pub config: LeagueConfig,
    pub store: Store,
}

impl League {
    /// Opens the league in `dir` (made by `arena league init`).
    pub fn open(dir: &Path) -> Result<League> {
        Self::open_with(dir, Store::open)
    }

    /// Opens it for reading only (`show`, `export`, the page).
    pub fn open_read(dir: &Path) -> Result<League> {
        Self::open_with(dir, Store::open_read)
    }

    fn open_with(dir: &Path, store: fn(&Path, GameCells) -> Result<Store>) -> Result<League> {
        let path = dir.join(CONFIG);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{} is not a league (no {CONFIG}; make one with `arena league init`)",
                dir.display()
            )
        })?;
        let config =
            LeagueConfig::parse(&text).with_context(|| format!("in {}", path.display()))?;
        let store = store(&dir.join(DATABASE), config.game_cells())?;
        Ok(League {
            dir: dir.to_owned(),
            config,
            store,
        })
    }
}
