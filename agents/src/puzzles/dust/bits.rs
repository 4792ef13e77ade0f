//! A dust board as three bit planes (a cell's colour `1..=5` written in binary across
//! them), so that a move is a few dozen word operations: the colours' cell sets come
//! from the planes by a handful of ANDs, and the fall and the closing of half-rows (U3)
//! are each a bit-parallel *compress* (Hacker's Delight, 7-4) run in every lane at
//! once: a column is a lane of six cells 8 bits apart, compressed toward y = 0; a
//! half-row is a lane of four adjacent bits, compressed toward the centre. The cell
//! layout is the referee's (`x + 8 * y`), so cell sets mean the same everywhere.
//!
//! The byte board ([`Board`]) settled cell by cell was half of the search's time.

use arena_core::puzzle::dust::{Board, CELLS};

use super::slack::ALL;

/// Row 0 (the bottom), where no column lane receives from below.
const ROW_0: u64 = 0xff;
const LEFT_HALF: u64 = 0x0f0f_0f0f_0f0f;
const RIGHT_HALF: u64 = 0xf0f0_f0f0_f0f0;
const COLUMN_3: u64 = 0x0808_0808_0808;
const COLUMN_4: u64 = 0x1010_1010_1010;
/// Columns 0..=1 and 6..=7: the lane positions two or more from the centre.
const COLUMNS_0_1: u64 = 0x0303_0303_0303;
const COLUMNS_6_7: u64 = 0xc0c0_c0c0_c0c0;

/// A board: bit `c` of plane `i` is bit `i` of cell `c`'s colour (0: empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Planes([u64; 3]);

impl Planes {
    pub(super) fn from_board(board: &Board) -> Self {
        let mut planes = [0u64; 3];
        for (c, &colour) in board.cells.iter().enumerate() {
            for (i, plane) in planes.iter_mut().enumerate() {
                *plane |= u64::from(colour >> i & 1) << c;
            }
        }
        Planes(planes)
    }

    #[cfg(test)]
    pub(super) fn to_board(self) -> Board {
        let mut board = Board { cells: [0; CELLS] };
        for (c, cell) in board.cells.iter_mut().enumerate() {
            *cell = (0..3).fold(0, |v, i| v | ((self.0[i] >> c & 1) as u8) << i);
        }
        board
    }

    /// The occupied cells.
    pub(super) fn occupied(self) -> u64 {
        self.0[0] | self.0[1] | self.0[2]
    }

    /// The cells of each colour `1..=5` (index 0 unused).
    pub(super) fn colour_sets(self) -> [u64; 6] {
        let [a, b, c] = self.0;
        [
            0,
            a & !b & !c,
            !a & b & !c,
            a & b & !c,
            !a & !b & c,
            a & !b & c,
        ]
    }

    /// The board exactly, packed (144 bits: 48 per plane), for the transposition table.
    pub(super) fn key(self) -> (u128, u16) {
        let [a, b, c] = self.0;
        (
            u128::from(a) | u128::from(b) << 48 | u128::from(c & 0xffff_ffff) << 96,
            (c >> 32) as u16,
        )
    }

    /// Removes the cells `set`, then the columns fall and the half-rows close toward the
    /// centre (U3), as [`Board::remove`] does.
    pub(super) fn remove(&mut self, set: u64) {
        let kept = self.occupied() & !set;
        for plane in &mut self.0 {
            *plane &= kept;
        }
        let kept = self.fall(kept);
        self.close_rows(kept);
    }

    /// Every column's cells `kept` fall toward y = 0, keeping their order; returns the
    /// occupied cells after. A compress per column lane, moving 1, 2, then 4 rows.
    fn fall(&mut self, mut kept: u64) -> u64 {
        // Bit set where the cell below is empty (to be counted by each cell above it).
        let mut below = !kept << 8 & ALL;
        for step in [8, 16, 32] {
            // Parity of the empty cells below, up the column (a prefix XOR).
            let mut parity = below ^ below << 8;
            parity ^= parity << 16;
            parity ^= parity << 32;
            let moving = parity & kept;
            kept = kept ^ moving | moving >> step;
            for plane in &mut self.0 {
                let t = *plane & moving;
                *plane = *plane ^ t | t >> step;
            }
            below &= !parity;
        }
        kept
    }

    /// Every half-row's cells `kept` close toward the centre, keeping their order: a
    /// compress per half-row lane, toward x = 4 on the right and toward x = 3 on the
    /// left (the same steps mirrored), moving 1 then 2 cells.
    fn close_rows(&mut self, mut kept: u64) {
        let mut right_gap = !kept << 1 & RIGHT_HALF & !COLUMN_4;
        let mut left_gap = !kept >> 1 & LEFT_HALF & !COLUMN_3;
        for step in [1, 2] {
            let mut right = right_gap ^ (right_gap << 1 & RIGHT_HALF & !COLUMN_4);
            right ^= right << 2 & COLUMNS_6_7;
            let mut left = left_gap ^ (left_gap >> 1 & LEFT_HALF & !COLUMN_3);
            left ^= left >> 2 & COLUMNS_0_1;
            let (right_moving, left_moving) = (right & kept, left & kept);
            kept = kept ^ right_moving ^ left_moving | right_moving >> step | left_moving << step;
            for plane in &mut self.0 {
                let (r, l) = (*plane & right_moving, *plane & left_moving);
                *plane = *plane ^ r ^ l | r >> step | l << step;
            }
            right_gap &= !right;
            left_gap &= !left;
        }
    }
}

const _: () = assert!(CELLS == 48 && ALL == (1 << 48) - 1 && ROW_0 == 0xff);

#[cfg(test)]
mod tests {
    use arena_core::puzzle::Puzzle;
    use arena_core::puzzle::dust::Dust;

    use super::*;

    fn next(pick: &mut u64) -> u64 {
        *pick = pick
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *pick >> 17
    }

    /// Removing any set from any board, holes anywhere, settles as the referee does.
    #[test]
    fn remove_matches_the_referee_on_random_boards_and_sets() {
        let mut pick = 5u64;
        for _ in 0..20_000 {
            let mut board = Board { cells: [0; CELLS] };
            let density = next(&mut pick) % 4;
            for cell in &mut board.cells {
                let r = next(&mut pick);
                *cell = if r % 4 < density {
                    0
                } else {
                    (r / 4 % 5) as u8 + 1
                };
            }
            let set = next(&mut pick) & next(&mut pick) & ALL;
            let mut planes = Planes::from_board(&board);
            assert_eq!(planes.to_board(), board);
            planes.remove(set);
            board.remove(set);
            assert_eq!(planes.to_board(), board, "removing {set:x}");
        }
    }

    /// Clicking clusters through whole random games, as the search does.
    #[test]
    fn remove_matches_the_referee_through_random_games() {
        let mut pick = 7u64;
        let mut clicks = 0;
        for seed in 0..200 {
            let mut board = Dust::generate(seed);
            let mut planes = Planes::from_board(&board);
            while !board.is_clear() {
                let clusters = board.clusters();
                let (_, set) = clusters[next(&mut pick) as usize % clusters.len()];
                board.remove(set);
                planes.remove(set);
                assert_eq!(planes.to_board(), board);
                assert_eq!(planes, Planes::from_board(&board));
                clicks += 1;
            }
            assert_eq!(planes.occupied(), 0);
        }
        assert!(clicks > 2000);
    }

    #[test]
    fn colour_sets_and_key_are_the_board() {
        let board = Dust::generate(3);
        let planes = Planes::from_board(&board);
        let sets = planes.colour_sets();
        for (c, &colour) in board.cells.iter().enumerate() {
            for (k, &set) in sets.iter().enumerate().skip(1) {
                assert_eq!(set >> c & 1 == 1, usize::from(colour) == k);
            }
        }
        let mut other = board;
        other.remove(board.cluster(47));
        assert_ne!(planes.key(), Planes::from_board(&other).key());
        assert_eq!(planes.key(), Planes::from_board(&board).key());
    }
}
