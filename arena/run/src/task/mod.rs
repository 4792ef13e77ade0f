//! The task registry: every game (and the puzzles) Arena runs, by name. The engine,
//! the run directory and the reports know the [`Task`] trait, never a game; a new game is
//! a folder here and one line in [`REGISTRY`] (`docs/architecture.md`).

pub mod dominoes;
pub mod duel;
mod floor;
pub mod puzzles;
pub mod quarto;
pub mod serve;

use std::sync::Arc;

use agents::Spec;
use anyhow::Result;
use arena_core::Seat;

use crate::external::ExternalRuntime;
use crate::record::{JobKey, Record, Termination};
use crate::setup::Setup;

/// A kind of run Arena knows: its cases, agents, records and tools.
pub trait Task: Send + Sync {
    /// The name configs and the command line use (`game = "dominoes"`).
    fn name(&self) -> &'static str;

    /// The cases a run plays when none are named, and what `all` expands to.
    fn default_cases(&self) -> Vec<String>;

    /// Seats per game: 2 for two-seat games (played in pairs with the seats exchanged),
    /// 1 for one-seat puzzles (each agent alone, once per seed).
    fn seats(&self) -> u8 {
        2
    }

    /// How its games end by the rules, as `games.csv` writes them (`Termination::Rules`):
    /// the forfeits are common to every task, these are its own.
    fn endings(&self) -> &'static [&'static str];

    /// Columns this task adds to `games.csv` after the common ones.
    fn extra_columns(&self) -> &'static [&'static str];

    /// What a case's two parameters are called, for the report's per-case heatmap (rows,
    /// columns); empty where its cases have none.
    fn case_axes(&self) -> (&'static str, &'static str);

    /// Whether the players see less than the referee (hands, stock), so that the report's
    /// viewer, which shows everything, says so.
    fn hides_information(&self) -> bool;

    /// What the report's viewer draws a position on, from [`ShownStep`]'s drawings;
    /// `None`: the text alone.
    fn board(&self) -> Option<Board> {
        None
    }

    /// Whether a built-in agent spec builds for this task (exec agents are checked when
    /// they start).
    fn check_agent(&self, spec: &Spec) -> Result<()>;

    /// The setup's cases (as the config writes them) parsed, once, and checked against
    /// its agents: ready to play jobs. Resolving a plan calls it; the plan holds the
    /// result.
    fn prepare(&self, setup: &Setup) -> Result<Box<dyn Prepared>, Refusal>;

    /// `arena serve`: a built-in agent over the line protocol on stdin/stdout.
    fn serve(&self, spec: &Spec, seed: u64) -> Result<()>;

    /// `arena solve`: one position's exact value and moves.
    fn solve(&self, _position: &str, _options: &SolveOptions) -> Result<Solved> {
        anyhow::bail!("arena solve has no solver for {}", self.name())
    }

    /// `arena perft`: move sequences of exactly `depth` plies from the empty board.
    fn perft(&self, _variant: Option<&str>, _depth: u32) -> Result<u64> {
        anyhow::bail!("arena perft does not count {} moves", self.name())
    }

    /// `arena book`: an opening book, solved and written as text.
    fn book(&self, _options: &BookOptions) -> Result<String> {
        anyhow::bail!("arena book has no book for {}", self.name())
    }

    /// `arena book --verify`: re-proves every entry of a book; returns how many.
    fn verify_book(&self, _text: &str, _nodes: u64) -> Result<usize> {
        anyhow::bail!("arena book has no book for {}", self.name())
    }

    /// `arena train`: the learned evaluator's kind, when this task has one.
    fn learned(&self) -> Option<agents::learned::GameKind> {
        None
    }
}

/// A task with a plan's cases parsed: plays and replays jobs. Shared by the workers.
pub trait Prepared: Send + Sync {
    /// The cases in canonical notation (`5, 4` becomes `5,4`), in the setup's order.
    fn cases(&self) -> Vec<String>;

    /// Plays one job to its record. `external` runs the plan's `exec:` agents. `timed`
    /// measures each decision's wall time into the record (`--timings`): off unless
    /// asked, since two clock reads per move would cost fast games a large share of
    /// their time.
    fn play(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
        timed: bool,
    ) -> Result<Record>;

    /// Plays one job again and draws it move by move (`arena replay`).
    fn replay(
        &self,
        job: &JobKey,
        external: Option<&Arc<ExternalRuntime>>,
    ) -> Result<(String, Record)>;

    /// Plays one job again (built-in agents only), its steps typed and each position
    /// drawn: what the report's viewer shows. Tasks without moves have none.
    fn steps(&self, _job: &JobKey) -> Result<Shown> {
        anyhow::bail!("this task has no moves to show")
    }
}

/// A picture the report's script draws a position as: one drawer per kind, named by
/// what it draws, so that no page compares a game's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Board {
    /// Sixteen cells holding pieces of four attributes, and the piece to place.
    PieceGrid,
    /// A line of domino tiles laid end to end, with the hands and the stock.
    DominoLine,
}

/// A game played again for the report's viewer ([`Prepared::steps`]).
pub struct Shown {
    /// The seat agent A sat in.
    pub seat_a: Seat,
    pub steps: Vec<ShownStep>,
    pub record: Record,
}

/// One step of a [`Shown`] game.
pub enum ShownStep {
    Start {
        drawing: String,
    },
    Move {
        seat: Seat,
        mv: String,
        /// The position after the move.
        drawing: String,
    },
    /// A forfeit: no new position.
    Forfeit {
        seat: Seat,
        kind: Termination,
        detail: String,
    },
}

/// Why a task refuses a plan's setup (`Task::prepare`).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// Case `index` of the setup, as written, is not one of the task's.
    #[error("{reason:#}")]
    Case { index: usize, reason: anyhow::Error },
    /// The setup as a whole (a solver given a puzzle it does not play).
    #[error("{0:#}")]
    Setup(anyhow::Error),
}

/// Options of `arena solve`.
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// A game variant (Quarto: `lines` or `squares`).
    pub variant: Option<String>,
    /// The value and one optimal move (cheaper) instead of every optimal move.
    pub value_only: bool,
    /// Give up past this many solver nodes.
    pub nodes: Option<u64>,
    /// Report progress on stderr during long solves.
    pub progress: bool,
}

/// Options of `arena book`.
#[derive(Clone, Debug, Default)]
pub struct BookOptions {
    pub variant: Option<String>,
    /// Plies from the start position to cover.
    pub plies: u32,
    /// Solver nodes per entry (an entry over budget is written `unknown`).
    pub nodes: u64,
    pub progress: bool,
}

/// A solved position: its canonical notation, value and optimal moves.
#[derive(Clone, Debug)]
pub struct Solved {
    pub position: String,
    pub value: String,
    pub moves: Vec<String>,
}

/// Every task, by name. One line per game or puzzle.
pub static REGISTRY: &[&dyn Task] = &[&dominoes::DOMINOES, &quarto::QUARTO, &puzzles::PUZZLES];

/// The task named `name`, or an error listing the known names.
pub fn lookup(name: &str) -> Result<&'static dyn Task, UnknownTask> {
    REGISTRY
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| UnknownTask(name.to_owned()))
}

/// The names of every task, for help texts and errors.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|t| t.name()).collect()
}

#[derive(Debug, thiserror::Error)]
#[error("unknown game {0:?}; Arena knows {names}", names = names().join(", "))]
pub struct UnknownTask(pub String);

/// A clap value parser for task names.
pub fn parse_name(s: &str) -> Result<String, String> {
    lookup(s)
        .map(|t| t.name().to_owned())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_unique_and_found() {
        let names = super::names();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "{n} registered twice");
            assert_eq!(super::lookup(n).unwrap().name(), *n);
        }
        let err = super::lookup("chess").err().unwrap().to_string();
        assert!(err.contains("chess") && err.contains("dominoes"), "{err}");
    }
}
