//! The `arena` crate: tournaments, statistics, reports and the CLI around `arena-core`.

pub mod stats;
