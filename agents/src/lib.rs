//! Arena's built-in players, behind `arena_core::Agent`, each seeded and deterministic.

pub mod dominoes;
pub mod learned;
pub mod puzzles;
pub mod quarto;
pub mod spec;

pub use spec::{SeedSource, Spec, SpecError};
