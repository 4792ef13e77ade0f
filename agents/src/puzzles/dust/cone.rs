//! Where a click can change the board, and what it cannot change.
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
//! **Corollary.** If a cluster C of colour c, disjoint from K, neither meets the cone
//! nor touches it, then after the move C is unchanged and so are its neighbours
//! (outside the cone: not c, or empty), so C is still a whole cluster; if c keeps any
//! cell outside C and K, colour c is not one cluster. Over several removals the cells
//! changed stay inside the cone of all the removed cells taken where they were on the
//! first board ([`may_clear_colour_by_colour`]).
//!
//! **Commuting moves.** On a settled board P, let A be a cluster inside columns 5..=7
//! and B a cluster of P·A inside the left half. The cone of A lies in columns 5..=7,
//! so P·A has P's left half and P's column 4; B meets the right half only across
//! column 4, so B is a cluster of P too, and A (not in column 4) touches no left-half
//! cell, so A is a cluster of P·B. Both halves settle on their own (each cone stays in
//! its half, P·B is settled), so P·A·B = P·B·A. Any answer can thus be reordered, one
//! swap of such a pair at a time (each swap puts a left-half move before a far-right
//! one, so it ends), into one where no left-half move directly follows a far-right
//! move played from a settled board.
//!
//! **Mirrored.** The same holds with the halves exchanged: A a cluster inside the
//! right half and B a cluster of P·A inside columns 0..=2 (A's cone stays in the right
//! half, so B and its neighbours, all in columns 0..=3, are as in P; B's cone stays in
//! columns 0..=2, and A's neighbours are all in columns 3..=7). Both swaps put a
//! left-half move before a right-half one, so the pairs in the other order drop by one
//! a swap and reordering still ends: every answer has an order where neither a
//! left-half move directly follows a far-right one nor a move inside columns 0..=2 a
//! right-half one, each played from a settled board. (The search skips only the
//! first kind: `cone_ida`'s contexts say why.)

use arena_core::puzzle::dust::CELLS;

use super::slack::{ALL, NOT_LEFT, NOT_RIGHT};

pub(super) const LEFT_HALF: u64 = 0x0f0f_0f0f_0f0f;
/// Columns 5..=7.
pub(super) const FAR_RIGHT: u64 = 0xe0e0_e0e0_e0e0;
/// Columns 0..=2.
#[cfg(test)]
const FAR_LEFT: u64 = 0x0707_0707_0707;
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

/// The cells a removal of `removed` may change on a settled board (cone lemma): up
/// the columns, then away from the centre, each by doubling.
fn cone(removed: u64) -> u64 {
    let mut up = removed;
    up |= up << 8;
    up |= up << 16;
    up |= up << 32;
    up &= ALL;
    let (mut left, mut right) = (up & LEFT_HALF, up & RIGHT_HALF);
    left |= left >> 1 & LEFT_HALF;
    left |= left >> 2 & LEFT_HALF;
    right |= right << 1 & RIGHT_HALF;
    right |= right << 2 & RIGHT_HALF;
    left | right
}

/// The cells that a removal of `removed` may change, and their neighbours: a cluster
/// meets it exactly when `removed` meets the cluster's [`touched_by`].
pub(super) fn forward(removed: u64) -> u64 {
    with_neighbours(cone(removed))
}

/// The cells whose removal may change a cell of `set` or a neighbour of one: the cells
/// below them and toward the centre, in the same half (`cone` read backwards).
pub(super) fn touched_by(set: u64) -> u64 {
    let mut down = with_neighbours(set);
    down |= down >> 8;
    down |= down >> 16;
    down |= down >> 32;
    // Toward the centre, by doubling: 1 then 2 columns (the masks stop each half at
    // the centre, and no shift of at most 3 crosses a row's end from inside a half).
    let (mut left, mut right) = (down & LEFT_HALF, down & RIGHT_HALF);
    left |= left << 1 & LEFT_HALF;
    left |= left << 2 & LEFT_HALF;
    right |= right >> 1 & RIGHT_HALF;
    right |= right >> 2 & RIGHT_HALF;
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

/// Sets of colours are 5-bit masks, bit `c - 1` for colour `c`; a *family* of such sets
/// is a 32-bit mask, bit `s` for the set `s`. `MEETS[t]`: the sets that meet `t`.
const MEETS: [u32; 32] = {
    let mut meets = [0u32; 32];
    let mut t = 0;
    while t < 32 {
        let mut s = 0;
        while s < 32 {
            if s & t != 0 {
                meets[t] |= 1 << s;
            }
            s += 1;
        }
        t += 1;
    }
    meets
};

/// Per colour (bit `c - 1`), the sets that do not hold it.
const WITHOUT: [u32; 5] = {
    let mut without = [0u32; 5];
    let mut c = 0;
    while c < 5 {
        let mut s = 0;
        while s < 32 {
            if s >> c & 1 == 0 {
                without[c] |= 1 << s;
            }
            s += 1;
        }
        c += 1;
    }
    without
};

/// False only if, after removing `removed` (possibly nothing) from the settled board
/// whose clusters are `clusters`, the board cannot be cleared with one click per colour
/// left, by the corollary applied to every order of the colours: the cells changed by
/// removing `removed` and then colours C1..Cj are inside `cone(removed ∪ C1 ∪ … ∪ Cj)`
/// taken on this board (a cone contains the cone of any set inside it, and each
/// colour's cells lie, after the earlier removals, either where they were or inside
/// the earlier removals' cone). True means "maybe".
///
/// Colour c may be one cluster once `removed` and the colours of a set S are gone when
/// it has one cluster left, or every cluster left is touched by `removed` or by a colour
/// of S. So, per colour, the family of such S is an AND over its clusters, and the
/// orders are searched all at once: the sets of colours that can be cleared one by one
/// in some order grow one colour a round, as bits of a 32-bit family.
#[allow(clippy::needless_range_loop)] // `c` indexes several per-colour arrays
pub(super) fn may_clear_colour_by_colour(clusters: &Clusters<'_>, removed: u64) -> bool {
    // The first round fails at once when no colour has one cluster, the removal's colour
    // keeps two, and every colour's first cluster is left untouched ([`Clusters`]).
    if clusters.quick && removed & clusters.quick_spoilers == 0 {
        return false;
    }
    // The clusters touched by the removal: those that meet `reach`.
    let reach = forward(removed);
    let list = clusters.clusters;
    // At most one cluster of colour `c` left.
    let at_most_one_left =
        |c: usize| clusters.count[c] - u32::from(clusters.cells[c] & removed != 0) <= 1;
    // Then the first round alone: whether some colour left may be one cluster with no
    // colour cleared before it (nine tests in ten end here on random boards). A
    // colour's first cluster holds its lowest cell, whose cone rarely meets the others:
    // the scan for an untouched cluster mostly stops there.
    let mut any_left = false;
    let first_round = (0..5).any(|c| {
        if clusters.cells[c] & !removed == 0 {
            return false;
        }
        any_left = true;
        if at_most_one_left(c) {
            return true;
        }
        if clusters.first[c] & reach == 0 {
            return false;
        }
        let members = clusters.members[c];
        let mut rest = members & (members - 1);
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if list[j].cells & reach == 0 {
                return false;
            }
        }
        true
    });
    if !first_round {
        return !any_left;
    }
    let meets = clusters.meets();
    let mut may_be_single = [0u32; 5];
    let mut present = 0u32;
    for c in 0..5 {
        if clusters.cells[c] & !removed == 0 {
            continue;
        }
        present |= 1 << c;
        let mut family = WITHOUT[c];
        if !at_most_one_left(c) {
            let mut rest = clusters.members[c];
            while rest != 0 {
                let j = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let touched = list[j].cells & reach != 0;
                family &= meets[j] | 0u32.wrapping_sub(u32::from(touched));
            }
            // No set of other colours cleared first makes this colour one cluster.
            if family == 0 {
                return false;
            }
        }
        may_be_single[c] = family;
    }
    let mut reached = 1u32;
    loop {
        let mut next = reached;
        let mut rest = present;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            next |= (reached & may_be_single[c]) << (1 << c);
        }
        if next >> present & 1 == 1 {
            return true;
        }
        if next == reached {
            return false;
        }
        reached = next;
    }
}

/// The clusters of a board, with what the cone test needs of them.
pub(super) struct Clusters<'a> {
    clusters: &'a [Cluster],
    /// Per colour (index `c - 1`): its cells, its clusters as bits of their indices,
    /// their number, and the cells of its first (the one with its lowest cell).
    cells: [u64; 5],
    members: [u64; 5],
    count: [u32; 5],
    first: [u64; 5],
    /// Per cluster, the sets of colours one of which touches it ([`MEETS`]), made by the
    /// first test that needs them.
    meets: std::cell::OnceCell<[u32; CELLS]>,
    /// No colour is one cluster; and the cells of the colours with two clusters, and
    /// those whose removal touches a colour's first cluster: a removal that meets none
    /// of them leaves every colour with two clusters or more, one of them untouched.
    quick: bool,
    quick_spoilers: u64,
}

impl<'a> Clusters<'a> {
    /// `clusters`: each colour's first cluster before its others.
    #[allow(clippy::needless_range_loop)] // `c` indexes several per-colour arrays
    pub(super) fn new(clusters: &'a [Cluster]) -> Self {
        let mut grouped = Clusters {
            clusters,
            cells: [0; 5],
            members: [0; 5],
            count: [0; 5],
            first: [0; 5],
            meets: std::cell::OnceCell::new(),
            quick: true,
            quick_spoilers: 0,
        };
        for (i, cluster) in clusters.iter().enumerate() {
            let c = usize::from(cluster.colour) - 1;
            if grouped.count[c] == 0 {
                grouped.first[c] = cluster.cells;
            }
            grouped.cells[c] |= cluster.cells;
            grouped.members[c] |= 1 << i;
            grouped.count[c] += 1;
        }
        for c in 0..5 {
            match grouped.count[c] {
                0 => {}
                1 => grouped.quick = false,
                n => {
                    if n == 2 {
                        grouped.quick_spoilers |= grouped.cells[c];
                    }
                    grouped.quick_spoilers |= touched_by(grouped.first[c]);
                }
            }
        }
        grouped
    }

    fn meets(&self) -> &[u32; CELLS] {
        self.meets.get_or_init(|| {
            // A colour touches a cluster when the colour's removal may change the cluster
            // or a neighbour of it.
            let reach = self.cells.map(forward);
            let mut meets = [0; CELLS];
            for (cluster, meets) in self.clusters.iter().zip(&mut meets) {
                let touching = (0..5).fold(0, |t, c| {
                    t | usize::from(cluster.cells & reach[c] != 0) << c
                });
                *meets = MEETS[touching];
            }
            meets
        })
    }
}

#[cfg(test)]
mod tests {
    use arena_core::puzzle::Puzzle;
    use arena_core::puzzle::dust::{Board, CELLS, Dust};

    use super::super::slack::{colour_sets, flood};
    use super::*;

    fn clusters_of(board: &Board) -> Vec<Cluster> {
        let mut clusters: Vec<Cluster> = board
            .clusters()
            .into_iter()
            .map(|(cell, cells)| Cluster {
                colour: board.cells[cell],
                cells,
            })
            .collect();
        clusters.sort_by_key(|c| c.colour);
        clusters
    }

    /// Whether some order of the colours clears `board` with one click each, by trying
    /// them all.
    fn clears_colour_by_colour(board: &Board) -> bool {
        let sets = colour_sets(board);
        board.is_clear()
            || sets[1..].iter().any(|&s| {
                s != 0 && flood(s & s.wrapping_neg(), s) == s && {
                    let mut next = *board;
                    next.remove(s);
                    clears_colour_by_colour(&next)
                }
            })
    }

    /// The corollary's rule applied order by order, one colour at a time (what the
    /// subset families of [`may_clear_colour_by_colour`] compute all at once).
    fn clears_in_some_order(clusters: &[Cluster], removed: u64, cleared: u8) -> bool {
        let colours = |c: u8| clusters.iter().filter(move |k| k.colour == c);
        let gone = (1..6u8)
            .filter(|&c| cleared >> c & 1 == 1)
            .flat_map(colours)
            .fold(removed, |g, k| g | k.cells);
        let left = |c: u8| colours(c).filter(|k| k.cells != removed);
        let present: Vec<u8> = (1..6u8)
            .filter(|&c| cleared >> c & 1 == 0 && colours(c).any(|k| k.cells & !removed != 0))
            .collect();
        present.is_empty()
            || present.iter().any(|&c| {
                let single =
                    left(c).count() <= 1 || left(c).all(|k| touched_by(k.cells) & gone != 0);
                single && clears_in_some_order(clusters, removed, cleared | 1 << c)
            })
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
                    let may = may_clear_colour_by_colour(&Clusters::new(&clusters), cluster.cells);
                    assert_eq!(may, clears_in_some_order(&clusters, cluster.cells, 0));
                    if !may {
                        assert!(!clears_colour_by_colour(&after), "{board}");
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

    /// The commuting-moves lemma and its mirror on every such pair of random games'
    /// boards.
    #[test]
    fn right_then_left_moves_commute() {
        for (first_in, then_in) in [(FAR_RIGHT, LEFT_HALF), (RIGHT_HALF, FAR_LEFT)] {
            let mut pairs = 0;
            let mut pick = 13u64;
            for seed in 0..60 {
                let mut board = Dust::generate(seed);
                while !board.is_clear() {
                    let clusters = board.clusters();
                    for &(_, first) in clusters.iter().filter(|(_, k)| k & !first_in == 0) {
                        let mut after = board;
                        after.remove(first);
                        for (cell, then) in after.clusters() {
                            if then & !then_in != 0 {
                                continue;
                            }
                            assert_eq!(board.cluster(cell), then, "{board}");
                            let (mut one, mut other) = (after, board);
                            one.remove(then);
                            other.remove(then);
                            let first_cell = first.trailing_zeros() as usize;
                            assert_eq!(other.cluster(first_cell), first, "{board}");
                            other.remove(first);
                            assert_eq!(one, other, "{board}");
                            pairs += 1;
                        }
                    }
                    pick = pick
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    board.remove(clusters[(pick >> 33) as usize % clusters.len()].1);
                }
            }
            assert!(pairs > 10_000, "{pairs}");
        }
    }

    /// `touched_by` is the cone read backwards: `touched_by(J)` meets G exactly when
    /// the cone of G meets J or touches it.
    #[test]
    fn touched_by_reads_the_cone_backwards() {
        let mut pick = 17u64;
        for _ in 0..20_000 {
            let mut sets = [0u64; 2];
            for set in &mut sets {
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Sparse random sets: a few cells each.
                *set = (pick >> 16) & (pick >> 7) & (pick << 3) & ALL;
            }
            let [g, j] = sets;
            assert_eq!(
                touched_by(j) & g != 0,
                with_neighbours(cone(g)) & j != 0,
                "{g:x} {j:x}"
            );
        }
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
