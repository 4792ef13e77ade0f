//! Quarto (Q1–Q10): being written.
