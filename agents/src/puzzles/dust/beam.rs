//! A beam search for a short answer, to stop [`super::ConeIda`] early.
//!
//! IDA* proves an optimum of `n` moves by refuting `n - 1` and then finding an answer
//! of `n`; on random boards that last iteration costs one to four times all the
//! refutations before it (it searches, larger clusters first, until it meets an
//! answer). Once `n - 1` moves are refuted, any answer of `n` moves is optimal, found
//! however: so before each iteration the solver runs this beam for an answer within
//! the iteration's bound, and stops when it has one.
//!
//! The beam keeps, depth by depth, the `width` boards (no two the same) with the
//! fewest moves estimated left: 100 per colour (plus 100 when no colour is one cluster:
//! the search's bound) and [`CLUSTER_WEIGHT`] per cluster beyond one per colour. A
//! board whose bound exceeds the moves left to the target is dropped. Deterministic
//! (ties broken by the order boards are made), and it only ever returns a legal answer
//! that clears the board.

use arena_core::puzzle::dust::{Board, Move};

use super::bits::Planes;
use super::slack::{NOT_LEFT, NOT_RIGHT, flood};
use super::to_move;

/// The estimate's weight of a cluster beyond one per colour (a colour's weight is
/// 100). On seeds 0..30, 30 and 60 found the same optima, 60 slightly sooner.
const CLUSTER_WEIGHT: u32 = 60;

/// The cells of `set` with no neighbour in `set`: each a cluster of its own.
pub(super) fn isolated(set: u64) -> u64 {
    set & !((set << 1 & NOT_LEFT) | (set >> 1 & NOT_RIGHT) | set << 8 | set >> 8)
}

/// Calls `each` with every cluster of the colour whose cells are `cells`.
fn for_each_cluster(cells: u64, mut each: impl FnMut(u64)) {
    let mut iso = isolated(cells);
    let mut rest = cells & !iso;
    while iso != 0 {
        each(iso & iso.wrapping_neg());
        iso &= iso - 1;
    }
    while rest != 0 {
        let cluster = flood(rest & rest.wrapping_neg(), cells);
        each(cluster);
        rest &= !cluster;
    }
}

/// The estimated moves left (scaled, [`CLUSTER_WEIGHT`]), or `None` when the search's
/// bound exceeds `moves_left`.
fn estimate(board: Planes, moves_left: u32) -> Option<u32> {
    let sets = board.colour_sets();
    let (mut colours, mut extra, mut single) = (0, 0, false);
    for &cells in &sets[1..] {
        if cells != 0 {
            let mut n = 0;
            for_each_cluster(cells, |_| n += 1);
            colours += 1;
            extra += n - 1;
            single |= n == 1;
        }
    }
    let bound = colours + u32::from(colours > 0 && !single);
    (bound <= moves_left).then_some(bound * 100 + extra * CLUSTER_WEIGHT)
}

/// A board of the beam: the board, its parent's index in the layer before, and the
/// cell clicked there.
type Entry = (Planes, u32, u8);

/// The beam's layers and scratch space, kept between runs.
#[derive(Default)]
pub(super) struct Beam {
    layers: Vec<Vec<Entry>>,
    next: Vec<(u32, Entry)>,
    seen: Vec<u64>,
}

/// The board's hash for the layer's set of boards made (never 0: 0 marks a free slot).
fn hash(board: Planes) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let (low, high) = board.key();
    (((low as u64).wrapping_mul(K) ^ (low >> 64) as u64).wrapping_mul(K) ^ u64::from(high))
        .wrapping_mul(K)
        | 1
}

impl Beam {
    /// An answer of at most `target` moves for `board`, by a beam of `width` boards a
    /// depth, if it finds one; and the boards made (the work, counted as the search's
    /// nodes). (Two boards with the same hash count as one: at worst a board is
    /// dropped, never a wrong answer made.)
    pub(super) fn run(
        &mut self,
        board: &Board,
        width: usize,
        target: u32,
    ) -> (Option<Vec<Move>>, u64) {
        let mut boards = 0;
        let found = self.search(board, width, target, &mut boards);
        (found, boards)
    }

    fn search(
        &mut self,
        board: &Board,
        width: usize,
        target: u32,
        boards: &mut u64,
    ) -> Option<Vec<Move>> {
        let bits = (width * 64).next_power_of_two().trailing_zeros();
        self.seen.clear();
        self.seen.resize(1 << bits, 0);
        let mask = (1 << bits) - 1;
        self.layers.iter_mut().for_each(Vec::clear);
        if self.layers.is_empty() {
            self.layers.push(Vec::new());
        }
        self.layers[0].push((Planes::from_board(board), 0, 0));
        for depth in 0..target as usize {
            if self.layers.len() == depth + 1 {
                self.layers.push(Vec::new());
            }
            let (done, ahead) = self.layers.split_at_mut(depth + 1);
            self.next.clear();
            if depth > 0 {
                self.seen.iter_mut().for_each(|s| *s = 0);
            }
            for (parent, &(board, _, _)) in done[depth].iter().enumerate() {
                for &cells in &board.colour_sets()[1..] {
                    let mut cleared = None;
                    for_each_cluster(cells, |cluster| {
                        let mut child = board;
                        child.remove(cluster);
                        *boards += 1;
                        let cell = cluster.trailing_zeros() as u8;
                        if child.occupied() == 0 {
                            cleared = Some(cell);
                            return;
                        }
                        let h = hash(child);
                        let mut slot = (h >> (64 - bits)) as usize;
                        while self.seen[slot] != 0 {
                            if self.seen[slot] == h {
                                return;
                            }
                            slot = (slot + 1) & mask;
                        }
                        self.seen[slot] = h;
                        if let Some(e) = estimate(child, target - depth as u32 - 1) {
                            self.next.push((e, (child, parent as u32, cell)));
                        }
                    });
                    if let Some(cell) = cleared {
                        return Some(self.answer(depth, parent, cell));
                    }
                }
            }
            if self.next.is_empty() {
                return None;
            }
            if self.next.len() > width {
                self.next.select_nth_unstable_by_key(width, |e| e.0);
                self.next.truncate(width);
            }
            ahead[0].clear();
            ahead[0].extend(self.next.iter().map(|e| e.1));
        }
        None
    }

    /// The moves to the board `parent` of layer `depth`, then the click on `cell`.
    fn answer(&self, depth: usize, mut parent: usize, cell: u8) -> Vec<Move> {
        let mut moves = vec![to_move(usize::from(cell))];
        for layer in self.layers[1..=depth].iter().rev() {
            let (_, up, cell) = layer[parent];
            moves.push(to_move(usize::from(cell)));
            parent = up as usize;
        }
        moves.reverse();
        moves
    }
}

#[cfg(test)]
mod tests {
    use arena_core::puzzle::Puzzle;
    use arena_core::puzzle::dust::Dust;

    use super::*;

    /// Answers replay and clear the board, within the target; a target below the
    /// optimum gets none.
    #[test]
    fn answers_are_legal_and_within_the_target() {
        let mut beam = Beam::default();
        let mut found = 0;
        for seed in 0..20 {
            let board = Dust::generate(seed);
            for target in [9, 12, 14] {
                if let (Some(moves), _) = beam.run(&board, 64, target) {
                    assert!(moves.len() <= target as usize);
                    let mut b = board;
                    for mv in &moves {
                        b.play(*mv).unwrap();
                    }
                    assert!(b.is_clear(), "seed {seed}");
                    found += 1;
                }
            }
            // Seed 12's optimum is 8, every other's at least 9 (`docs/benchmarks.md`).
            assert!(beam.run(&board, 256, 7).0.is_none());
        }
        assert!(found > 20, "{found}");
    }
}
