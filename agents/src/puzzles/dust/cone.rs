//! Where a click can change the board, and which colours it cannot make one cluster.
//!
//! A board is *settled* when every column is contiguous from y = 0 and every half-row
//! is contiguous against the centre (x = 3 on the left, x = 4 on the right). A full
//! board is settled, and every board after a move is (U3: the columns fall, so the
//! cells of row y + 1 stand in a subset of the columns of row y, and both rows then
//! close toward the centre, so row y + 1 is no longer than row y and lies on it).
//!
//! **Cone lemma.** On a settled board, removing a set K and settling (U3) changes only
//! cells inside `cone(K)`: the cells (x, y) of a half with a cell (x', y') of K in the
//! same half, y' <= y, and x' between x and the centre (x <= x' <= 3 on the left,
//! 4 <= x' <= x on the right). Proof: a cell falls only onto a removed cell below it in
//! its column (a settled column has no other gap). After the fall it moves sideways
//! only if its half-row, contiguous against the centre before, has a hole between it
//! and the centre at its (new) height y; a hole at column x'' means that column's
//! height h dropped to at most y, so it lost k >= h - y cells, and since only h - 1 - y
//! of its cells were above y, one removed cell was at height <= y. Every moving cell is
//! therefore in the cone. The occupied cells after the move are a subset of those
//! before (columns only shorten, rows only shorten toward the centre), so an empty
//! cell outside the cone stays empty and an occupied one keeps its cell.
//!
//! **Corollary** ([`may_leave_single_colour`]). If a cluster C of colour c, disjoint
//! from K, neither meets the cone nor touches it, then after the move C is unchanged
//! and so are its neighbours (outside the cone: not c, or empty), so C is still a whole
//! cluster; if c keeps any cell outside C and K, colour c is not one cluster.

use super::slack::{ALL, NOT_LEFT, NOT_RIGHT};

const LEFT_HALF: u64 = 0x0f0f_0f0f_0f0f;
const RIGHT_HALF: u64 = 0xf0f0_f0f0_f0f0;
const ROW_0: u64 = 0xff;
const COLUMN_3: u64 = 0x0808_0808_0808;
const COLUMN_4: u64 = 0x1010_1010_1010;

/// Whether the occupied cells `occupied` form a settled board (module docs).
pub(super) fn is_settled(occupied: u64) -> bool {
    let floating = occupied & !ROW_0 & !(occupied << 8);
    let left_gap = occupied & LEFT_HALF & !COLUMN_3 & !(occupied >> 1);
    let right_gap = occupied & RIGHT_HALF & !COLUMN_4 & !(occupied << 1);
    floating | left_gap | right_gap == 0
}

/// The cells a removal of `removed` may change on a settled board (cone lemma).
pub(super) fn cone(removed: u64) -> u64 {
    let mut up = removed;
    for _ in 1..6 {
        up |= up << 8;
    }
    up &= ALL;
    let (mut left, mut right) = (up & LEFT_HALF, up & RIGHT_HALF);
    for _ in 1..4 {
        left |= left >> 1 & LEFT_HALF;
        right |= right << 1 & RIGHT_HALF;
    }
    left | right
}

/// The cells of `set` and their four neighbours.
fn with_neighbours(set: u64) -> u64 {
    (set | (set << 1 & NOT_LEFT) | (set >> 1 & NOT_RIGHT) | set << 8 | set >> 8) & ALL
}

/// A cluster of the board before a move: its colour and cells.
#[derive(Clone, Copy, Default)]
pub(super) struct Cluster {
    pub colour: u8,
    pub cells: u64,
}

/// False only if, after removing `removed` from the settled board whose clusters are
/// `clusters`, the board is not clear and none of its colours is a single cluster
/// (corollary above). True means "maybe".
pub(super) fn may_leave_single_colour(clusters: &[Cluster], removed: u64) -> bool {
    let reach = with_neighbours(cone(removed));
    // Per colour: clusters left after the move, and those of them the move cannot touch.
    let mut left = [0u8; 6];
    let mut intact = [0u8; 6];
    for cluster in clusters {
        if cluster.cells == removed {
            continue;
        }
        let c = usize::from(cluster.colour);
        left[c] += 1;
        intact[c] += u8::from(cluster.cells & reach == 0);
    }
    let colours_left = left.iter().filter(|&&n| n > 0).count();
    colours_left == 0 || (1..6).any(|c| left[c] > 0 && (intact[c] == 0 || left[c] == 1))
}

#[cfg(test)]
mod tests {
    use arena_core::puzzle::Puzzle;
    use arena_core::puzzle::dust::{Board, CELLS, Dust};

    use super::super::slack::{colour_sets, flood};
    use super::*;

    fn clusters_of(board: &Board) -> Vec<Cluster> {
        board
            .clusters()
            .into_iter()
            .map(|(cell, cells)| Cluster {
                colour: board.cells[cell],
                cells,
            })
            .collect()
    }

    fn single_colour_or_clear(board: &Board) -> bool {
        let sets = colour_sets(board);
        board.is_clear()
            || sets[1..]
                .iter()
                .any(|&s| s != 0 && flood(s & s.wrapping_neg(), s) == s)
    }

    /// Every click of every board met in random games: the board is settled, cells
    /// outside the cone keep their colour, and a "no" from the corollary is right.
    #[test]
    fn cone_lemma_and_corollary_hold_on_random_games() {
        let (mut clicks, mut refused) = (0, 0);
        let mut pick = 11u64;
        for seed in 0..150 {
            let mut board = Dust::generate(seed);
            while !board.is_clear() {
                let occupied = (0..CELLS)
                    .filter(|&c| board.cells[c] != 0)
                    .fold(0u64, |o, c| o | 1 << c);
                assert!(is_settled(occupied), "{board}");
                let clusters = clusters_of(&board);
                for cluster in &clusters {
                    let mut after = board;
                    after.remove(cluster.cells);
                    let outside = !cone(cluster.cells) & ALL;
                    for c in (0..CELLS).filter(|&c| outside >> c & 1 == 1) {
                        assert_eq!(after.cells[c], board.cells[c], "{board} cell {c}");
                    }
                    if !may_leave_single_colour(&clusters, cluster.cells) {
                        assert!(!single_colour_or_clear(&after), "{board}");
                        refused += 1;
                    }
                    clicks += 1;
                }
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                board.remove(clusters[(pick >> 33) as usize % clusters.len()].cells);
            }
        }
        assert!(clicks > 30_000 && refused > 5_000, "{clicks} {refused}");
    }

    #[test]
    fn a_hole_or_a_floating_cell_is_not_settled() {
        let full = ALL;
        assert!(is_settled(full) && is_settled(0));
        assert!(!is_settled(full & !1 << 3), "hole at (3, 0)");
        assert!(!is_settled(
            full & !(1 << 2 | 1 << 10 | 1 << 18 | 1 << 26 | 1 << 34 | 1 << 42)
        ));
        assert!(!is_settled(1 << 11), "floating cell at (3, 1)");
        assert!(is_settled(1 << 3 | 1 << 11 | 1 << 4));
    }
}
