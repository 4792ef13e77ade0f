//! DominoPeg by filling the board column by column (G3–G5), with a bound on the circles
//! left behind.
//!
//! The unit squares are filled in a fixed scan order, column by column and top to bottom
//! in each column; the first empty square must be the top-left square of the piece that
//! covers it (everything before it is covered), so each node tries only the placements
//! anchored there. Once the scan has passed a circle, no later placement can reach it
//! (`closed`, computed from the placement table itself, not from geometry). A solution
//! pegs 30 circles of 35, so at most `35 - 30 - holes` non-hole circles stay empty: as
//! soon as more closed ones are empty, the branch is dead. With five holes that is an
//! exact-cover check on every closed circle, which refutes most branches a column after
//! they go wrong. States refuted at every other scan position are remembered (squares
//! covered, pieces used, pegs on circles still open) in a small open-addressing table:
//! the hardest refutations meet the same states again through other placement orders
//! (all 324,632 five-circle sets timed one by one: worst 42 ms without the memo, 8.2 ms
//! with it).

use super::super::FoldMap;
use arena_core::puzzle::dominopeg::{
    CIRCLES, PIECES, Placement, SQUARE_COLS, SQUARE_ROWS, SQUARES, placements_by_square,
};

const SQUARE_COUNT: usize = SQUARES as usize;
/// Every square covered, in scan-order bits.
pub(super) const FULL: u32 = (1 << SQUARE_COUNT) - 1;
/// Every circle, as bits.
pub(super) const ALL_CIRCLES: u64 = (1 << CIRCLES) - 1;
/// Pegs on the board in any solution: 6 pieces with 2, 6 with 3.
pub(super) const PEGS: u32 = 30;

/// The square at scan position `k`: column `k / 4`, row `k % 4`.
fn square_at(k: usize) -> u8 {
    let rows = usize::from(SQUARE_ROWS);
    (usize::from(SQUARE_COLS) * (k % rows) + k / rows) as u8
}

/// One way to put a piece down, in the search's terms.
#[derive(Clone, Copy, Debug)]
pub(super) struct Anchored {
    pub piece: u16,
    /// Scan-order bits.
    pub squares: u32,
    pub pegs: u64,
    pub placement: Placement,
}

/// The placement table in scan order, shared by the solver and the census.
pub(super) struct Table {
    /// `options[k]`: the placements whose top-left square is at scan position `k`.
    pub options: Vec<Vec<Anchored>>,
    /// `closed[k]`: circles no placement anchored at scan position `k` or later reaches.
    pub closed: [u64; SQUARE_COUNT + 1],
}

impl Table {
    pub fn new() -> Self {
        let by_square = placements_by_square();
        let mut scan_bit = [0u32; SQUARE_COUNT];
        for k in 0..SQUARE_COUNT {
            scan_bit[usize::from(square_at(k))] = 1 << k;
        }
        let options: Vec<Vec<Anchored>> = (0..SQUARE_COUNT)
            .map(|k| {
                by_square[usize::from(square_at(k))]
                    .iter()
                    .map(|&(p, f)| Anchored {
                        piece: 1 << p.piece,
                        squares: (0..SQUARE_COUNT)
                            .filter(|&s| f.squares >> s & 1 == 1)
                            .fold(0, |m, s| m | scan_bit[s]),
                        pegs: f.pegs,
                        placement: p,
                    })
                    .collect()
            })
            .collect();
        Table::closing(options)
    }

    /// The table with the reach of each scan position worked out.
    fn closing(options: Vec<Vec<Anchored>>) -> Self {
        let mut closed = [ALL_CIRCLES; SQUARE_COUNT + 1];
        let mut reachable = 0u64;
        for k in (0..SQUARE_COUNT).rev() {
            reachable |= options[k].iter().fold(0, |m, o| m | o.pegs);
            closed[k] = ALL_CIRCLES & !reachable;
        }
        Table { options, closed }
    }

    /// The placements that keep `holes` empty: each node then skips fewer, and circles
    /// reachable only through a hole close earlier.
    pub fn avoiding(&self, holes: u64) -> Self {
        Table::closing(
            self.options
                .iter()
                .map(|list| {
                    list.iter()
                        .filter(|o| o.pegs & holes == 0)
                        .copied()
                        .collect()
                })
                .collect(),
        )
    }
}

/// The state of a partial filling: what is covered, pegged and used fixes every way to
/// complete it (for given holes), so refuted states and counts are memoised by it.
fn state_key(covered: u32, pegs: u64, pieces: u16) -> u128 {
    u128::from(covered) | u128::from(pieces) << 24 | u128::from(pegs) << 36
}

/// One hole set over one table: `holes` stay empty, and at most `slack` other circles.
#[derive(Clone, Copy)]
pub(super) struct Bounds<'a> {
    pub table: &'a Table,
    pub holes: u64,
    pub slack: u32,
}

impl<'a> Bounds<'a> {
    /// What fixes a partial filling's completions: squares covered, pieces used, pegs on
    /// circles still open, and how many closed circles were left empty.
    pub(super) fn key(self, covered: u32, pegs: u64, pieces: u16) -> u128 {
        let closed = self.table.closed[(!covered).trailing_zeros() as usize];
        let missed = (closed & !pegs & !self.holes).count_ones();
        state_key(covered, pegs & !closed, pieces) | u128::from(missed) << 72
    }

    /// The placements that fit a state, each with the state it leads to; those that
    /// leave more closed circles empty than the slack allows are cut here.
    pub(super) fn children(
        self,
        covered: u32,
        pegs: u64,
        pieces: u16,
    ) -> impl Iterator<Item = (&'a Anchored, u32, u64)> {
        let k = (!covered).trailing_zeros() as usize;
        let taken = pegs | self.holes;
        self.table.options[k].iter().filter_map(move |o| {
            if pieces & o.piece != 0 || covered & o.squares != 0 || taken & o.pegs != 0 {
                return None;
            }
            let (covered, pegs) = (covered | o.squares, pegs | o.pegs);
            let next = (!covered).trailing_zeros() as usize;
            let missed = self.table.closed[next] & !pegs & !self.holes;
            (missed.count_ones() <= self.slack).then_some((o, covered, pegs))
        })
    }
}

/// The search for solutions of one hole set.
pub(super) struct Scan<'a, V: FnMut(&[Placement], u64) -> bool> {
    pub bounds: Bounds<'a>,
    pub stack: Vec<Placement>,
    pub nodes: u64,
    pub max_nodes: u64,
    /// Sees each solution and the circles it pegs; `false` stops the search.
    pub visit: V,
    /// States proven to have no completion (keyed as [`Counter`] keys them): a
    /// refutation revisits the same partial fillings through many placement orders.
    refuted: &'a mut Refuted,
}

/// A set of refuted states: open addressing over a fixed table, so a lookup is one
/// multiply and usually one load. Entries carry the generation they were stored in, so
/// emptying the set for the next solve is one increment. When it is half full it takes
/// no more (the memo only saves work; forgetting a state never changes an answer).
pub(super) struct Refuted {
    slots: Vec<u128>,
    generation: u128,
    len: usize,
}

impl Default for Refuted {
    fn default() -> Self {
        Refuted {
            slots: Vec::new(),
            generation: 1,
            len: 0,
        }
    }
}

impl Refuted {
    const BITS: u32 = 16;
    /// Keys use the low 75 bits; the generation sits above bit 96.
    const GENERATION_SHIFT: u32 = 96;

    /// Forgets every state (a new hole set).
    pub fn clear(&mut self) {
        self.generation += 1;
        self.len = 0;
        if self.generation >> (128 - Self::GENERATION_SHIFT) != 0 {
            self.generation = 1;
            self.slots.iter_mut().for_each(|s| *s = 0);
        }
    }

    fn slot(key: u128) -> usize {
        let h = ((key as u64) ^ ((key >> 64) as u64).rotate_left(29))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> (64 - Self::BITS)) as usize
    }

    fn live(&self, entry: u128) -> bool {
        entry >> Self::GENERATION_SHIFT == self.generation
    }

    fn contains(&self, key: u128) -> bool {
        if self.slots.is_empty() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let stored = key | self.generation << Self::GENERATION_SHIFT;
        let mut i = Self::slot(key);
        while self.live(self.slots[i]) {
            if self.slots[i] == stored {
                return true;
            }
            i = (i + 1) & mask;
        }
        false
    }

    fn insert(&mut self, key: u128) {
        if self.slots.is_empty() {
            self.slots = vec![0; 1 << Self::BITS];
        }
        if 2 * self.len >= self.slots.len() {
            return;
        }
        let mask = self.slots.len() - 1;
        let stored = key | self.generation << Self::GENERATION_SHIFT;
        let mut i = Self::slot(key);
        while self.live(self.slots[i]) {
            if self.slots[i] == stored {
                return;
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = stored;
        self.len += 1;
    }
}

impl<'a, V: FnMut(&[Placement], u64) -> bool> Scan<'a, V> {
    /// A scan that keeps its refuted states in `refuted` (emptied first).
    pub fn new(bounds: Bounds<'a>, max_nodes: u64, visit: V, refuted: &'a mut Refuted) -> Self {
        refuted.clear();
        Scan {
            bounds,
            stack: Vec::with_capacity(12),
            nodes: 0,
            max_nodes,
            visit,
            refuted,
        }
    }

    /// Visits solutions; `Ok(false)` when the state has none, `Err` once stopped by
    /// the visitor or the budget.
    pub fn go(&mut self, covered: u32, pegs: u64, pieces: u16) -> Result<bool, ()> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Err(());
        }
        if covered == FULL {
            return if (self.visit)(&self.stack, pegs) {
                Ok(true)
            } else {
                Err(())
            };
        }
        // At every other scan position (the top and the middle of a column): at every
        // one, the hardest refutations fill the table past its cap (measured: all
        // five-circle sets, worst 8.2 ms this way, 16 ms at every node, 9.9 ms at column
        // starts only).
        let key = ((!covered).trailing_zeros().is_multiple_of(2))
            .then(|| self.bounds.key(covered, pegs, pieces));
        if let Some(key) = key
            && self.refuted.contains(key)
        {
            return Ok(false);
        }
        let mut any = false;
        for (o, covered, pegs) in self.bounds.children(covered, pegs, pieces) {
            self.stack.push(o.placement);
            let found = self.go(covered, pegs, pieces | o.piece);
            self.stack.pop();
            any |= found?;
        }
        if !any && let Some(key) = key {
            self.refuted.insert(key);
        }
        Ok(any)
    }
}

/// Counts solutions, memoising the count of every state. Two partial fillings with the
/// same squares covered, pieces used, pegs on circles still open and number of closed
/// circles left empty have the same completions, so the memo merges them.
pub(super) struct Counter<'a> {
    pub bounds: Bounds<'a>,
    pub counts: FoldMap<u128, u64>,
}

impl Counter<'_> {
    pub fn count(&mut self, covered: u32, pegs: u64, pieces: u16) -> u64 {
        if covered == FULL {
            return 1;
        }
        let key = self.bounds.key(covered, pegs, pieces);
        if let Some(&n) = self.counts.get(&key) {
            return n;
        }
        let mut n = 0;
        for (o, covered, pegs) in self.bounds.children(covered, pegs, pieces) {
            n += self.count(covered, pegs, pieces | o.piece);
        }
        self.counts.insert(key, n);
        n
    }
}

/// How many non-hole circles may stay empty, or `None` when the 30 pegs cannot fit.
pub(super) fn slack(holes: u64) -> Option<u32> {
    (CIRCLES as u32 - (holes & ALL_CIRCLES).count_ones()).checked_sub(PEGS)
}

const _: () = assert!(PIECES == 12);
