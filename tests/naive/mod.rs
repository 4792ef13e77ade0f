pub mod dominoes;
pub mod quarto;
