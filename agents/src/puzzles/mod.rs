//! Built-in puzzle solvers (`specs/puzzles.md`), each behind [`Solver`] with a node
//! budget (never a clock), so every run reproduces.

pub mod detrak;
pub mod dominopeg;
pub mod dust;
pub mod registry;

use arena_core::puzzle::Puzzle;

/// What a solver returns: its best answer, that answer's raw score, whether the search
/// proved it optimal (DominoPeg: proved right), and the nodes it searched.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved<A> {
    pub answer: A,
    pub score: i64,
    pub optimal: bool,
    pub nodes: u64,
}

/// A solver for puzzle `P`. `max_nodes` bounds the search; past it the solver returns
/// the best answer found so far with `optimal: false`, or `None` if it has none.
pub trait Solver<P: Puzzle> {
    fn solve(&mut self, instance: &P::Instance, max_nodes: u64) -> Option<Solved<P::Answer>>;
}

/// A tiny multiplicative hasher for transposition tables keyed by packed boards (the
/// std SipHash is several times slower here, and the keys are not adversarial).
#[derive(Default, Clone, Copy)]
pub struct FoldHasher(u64);

impl std::hash::Hasher for FoldHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
}

pub type FoldMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<FoldHasher>>;
