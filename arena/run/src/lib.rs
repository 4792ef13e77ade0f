//! The `arena-run` crate: a run from its config to its reports, around `arena-core`.
//! Data flows one way: config -> plan -> schedule -> game -> agents -> record ->
//! observers (results file, aggregate, progress, SPRT) -> reports. `docs/architecture.md` maps it.
//! The statistics and the sandbox are crates of their own below this one, named here
//! `crate::stats` and `crate::sandbox` so the rooms' imports read as before.

pub mod affinity;
pub mod config;
pub mod engine;
pub mod external;
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
pub mod verify;
