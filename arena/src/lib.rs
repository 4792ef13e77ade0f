//! The `arena` crate: tournaments, statistics, reports and the CLI around `arena-core`.
//! Data flows one way: config -> schedule -> game -> agents -> result row -> report.

pub mod cli;
pub mod config;
pub mod contest;
pub mod external;
pub mod progress;
pub mod runner;
pub mod sandbox;
pub mod schedule;
pub mod serve;
pub mod solve;
pub mod stats;
pub mod summary;
pub mod tournament;
pub mod train;
