//! The `arena` crate: runs, statistics, reports and the CLI around `arena-core`.
//! Data flows one way: config -> plan -> schedule -> game -> agents -> record ->
//! observers (results file, aggregate, progress, SPRT) -> reports. `docs/architecture.md` maps it.

pub mod affinity;
pub mod cli;
pub mod config;
pub mod engine;
pub mod external;
pub mod league;
pub mod plan;
pub mod record;
pub mod report;
pub mod rundir;
pub mod runfile;
pub use arena_sandbox as sandbox;
pub mod schedule;
pub mod setup;
pub mod shown;
pub use arena_stats as stats;
pub mod task;
pub mod tournament;
pub mod train;
pub mod verify;
