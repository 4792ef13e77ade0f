//! Dust matching by IDA* that counts its slack (U2–U4).
//!
//! Every move removes cells of one colour, so a board needs at least one move per
//! colour left; a move that does not remove the last cells of its colour spends one
//! move of slack (the depth left minus the colours left). At zero slack only moves that
//! clear a whole colour are tried, and a board none of whose colours is a single
//! cluster needs one move more than its colours (its next move cannot clear a colour):
//! both prune the deepest levels, where [`super::Ida`] spends most of its nodes.
//! Clusters are found with bit sets per colour. A transposition table keeps, per board,
//! the most moves proven not to clear it.

use arena_core::puzzle::dust::{Answer, Board, CELLS, Dust, HEIGHT, WIDTH};

use super::super::{FoldMap, Solved, Solver};
use super::{Deepening, Outcome, Walk, deepen, key, to_move};

/// Cells not in column 0 / not in column 7.
pub(super) const NOT_LEFT: u64 = !0x0101_0101_0101 & ALL;
pub(super) const NOT_RIGHT: u64 = !0x8080_8080_8080 & ALL;
pub(super) const ALL: u64 = (1 << CELLS) - 1;

/// The cluster of `seed` within `colour` (U2), by repeated one-step growth.
pub(super) fn flood(seed: u64, colour: u64) -> u64 {
    let mut cluster = seed;
    loop {
        let grown = (cluster
            | (cluster << 1 & NOT_LEFT)
            | (cluster >> 1 & NOT_RIGHT)
            | cluster << 8
            | cluster >> 8)
            & colour;
        if grown == cluster {
            return cluster;
        }
        cluster = grown;
    }
}

/// The cells of each colour `1..=5` (index 0 unused).
pub(super) fn colour_sets(board: &Board) -> [u64; 6] {
    let mut sets = [0u64; 6];
    for (c, &colour) in board.cells.iter().enumerate() {
        sets[usize::from(colour)] |= 1 << c;
    }
    sets
}

/// [`Board::remove`] without branches on the cells' contents (random boards make
/// those unpredictable, and settling was half of the search's time).
pub(super) fn remove_and_settle(board: &mut Board, mut set: u64) {
    let cells = &mut board.cells;
    while set != 0 {
        cells[set.trailing_zeros() as usize] = 0;
        set &= set - 1;
    }
    for x in 0..WIDTH {
        let mut column = [0u8; HEIGHT];
        let mut to = 0;
        for y in 0..HEIGHT {
            let c = cells[x + WIDTH * y];
            column[to] = c;
            to += usize::from(c != 0);
        }
        for (y, &c) in column.iter().enumerate() {
            cells[x + WIDTH * y] = c;
        }
    }
    let half = WIDTH / 2;
    for row in cells.chunks_exact_mut(WIDTH) {
        // Left half toward x = 3: slot 0 of `left` only ever takes empties.
        let mut left = [0u8; 5];
        let mut to = 4;
        for x in (0..half).rev() {
            let c = row[x];
            left[to] = c;
            to -= usize::from(c != 0);
        }
        row[..half].copy_from_slice(&left[1..]);
        let mut right = [0u8; 4];
        let mut to = 0;
        for &c in &row[half..] {
            right[to] = c;
            to += usize::from(c != 0);
        }
        row[half..].copy_from_slice(&right);
    }
}

/// Moves at least needed to clear a board with these colour sets.
pub(super) fn lower_bound(sets: &[u64; 6]) -> u32 {
    let present = sets[1..].iter().filter(|&&s| s != 0);
    let colours = present.clone().count() as u32;
    let one_cluster = present
        .clone()
        .any(|&s| flood(s & s.wrapping_neg(), s) == s);
    colours + u32::from(colours > 0 && !one_cluster)
}

/// The fewest moves left at which boards go in the transposition table.
pub(super) const TABLE_DEPTH: u32 = 3;

/// The exact solver: proves the fewest moves.
#[derive(Default)]
pub struct SlackIda {
    refuted: FoldMap<(u128, u32), u8>,
    walk: Walk,
}

impl SlackIda {
    fn search(&mut self, board: &Board, remaining: u32) -> Outcome {
        if !self.walk.enter() {
            return Outcome::OutOfBudget;
        }
        let sets = colour_sets(board);
        let bound = lower_bound(&sets);
        if bound == 0 {
            return Outcome::Found;
        }
        if bound > remaining {
            return Outcome::Refuted;
        }
        let slack = remaining - sets[1..].iter().filter(|&&s| s != 0).count() as u32;
        // Near the leaves a lookup costs more than the subtree it could save.
        let k = (remaining >= TABLE_DEPTH).then(|| key(board));
        if k.is_some_and(|k| {
            self.refuted
                .get(&k)
                .is_some_and(|&r| u32::from(r) >= remaining)
        }) {
            return Outcome::Refuted;
        }
        // (clears its colour, size, lowest cell, cells)
        let mut moves = [(false, 0u32, 0usize, 0u64); CELLS];
        let mut count = 0;
        for &colour in &sets[1..] {
            let mut rest = colour;
            while rest != 0 {
                let cluster = flood(rest & rest.wrapping_neg(), colour);
                rest &= !cluster;
                let clears = cluster == colour;
                if slack > 0 || clears {
                    let cell = cluster.trailing_zeros() as usize;
                    moves[count] = (clears, cluster.count_ones(), cell, cluster);
                    count += 1;
                }
            }
        }
        let moves = &mut moves[..count];
        moves.sort_unstable_by_key(|&(clears, size, cell, _)| {
            (std::cmp::Reverse((clears, size)), cell)
        });
        for &(_, _, cell, cluster) in moves.iter() {
            let mut next = *board;
            remove_and_settle(&mut next, cluster);
            self.walk.path.push(to_move(cell));
            match self.search(&next, remaining - 1) {
                Outcome::Refuted => {
                    self.walk.path.pop();
                }
                other => return other,
            }
        }
        if let Some(k) = k {
            let slot = self.refuted.entry(k).or_insert(0);
            *slot = (*slot).max(remaining as u8);
        }
        Outcome::Refuted
    }
}

impl Deepening for SlackIda {
    fn walk(&mut self) -> &mut Walk {
        &mut self.walk
    }

    fn iterate(&mut self, instance: &Board, bound: u32) -> Outcome {
        self.search(instance, bound)
    }
}

impl Solver<Dust> for SlackIda {
    fn solve(&mut self, instance: &Board, max_nodes: u64) -> Option<Solved<Answer>> {
        self.refuted.clear();
        self.walk.start(max_nodes);
        Some(deepen(self, instance, lower_bound(&colour_sets(instance))))
    }
}

const _: () = assert!(WIDTH == 8);

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free settle against the referee's, over random clicks.
    #[test]
    fn remove_and_settle_matches_the_referee() {
        let mut moves = 0;
        for seed in 0..200 {
            let mut board = <Dust as arena_core::puzzle::Puzzle>::generate(seed);
            let mut pick = seed;
            while !board.is_clear() {
                let clusters = board.clusters();
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (_, set) = clusters[(pick >> 33) as usize % clusters.len()];
                let mut fast = board;
                remove_and_settle(&mut fast, set);
                board.remove(set);
                assert_eq!(fast, board);
                moves += 1;
            }
        }
        assert!(moves > 2000);
    }
}
