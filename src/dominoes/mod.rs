//! TCO09 Dominoes (D1–D18): being written.
