pub mod dominoes;
pub mod puzzles;
pub mod quarto;
