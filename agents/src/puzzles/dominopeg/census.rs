//! The census of the whole puzzle: for each set of five circles, how many solutions
//! leave exactly it empty (G4: 30 pegs on 35 circles leave five), hence the number of
//! solvable sets and of solutions in all.
//!
//! Enumerating all solutions at once with five circles of slack prunes too little (it
//! did not finish in five minutes). Counting per set is fast instead: with five holes
//! every closed circle must be pegged, and the count of each partial state is memoised.
//! The board's four symmetries (mirror left-right, top-bottom, both) map solutions to
//! solutions, since every piece may be flipped and turned (G3), so each orbit of sets
//! is counted once.

use arena_core::puzzle::dominopeg::{Answer, CIRCLE_COLS, CIRCLES, Instance};

use super::super::Solver;
use super::column_scan::{ALL_CIRCLES, Bounds, Refuted, Scan, Table, slack};
use super::{ColumnScan, MirrorScan};

/// C(35, 5).
pub const FIVE_SETS: usize = 324_632;

/// Which five-circle sets are solvable, and how many solutions the puzzle has.
pub struct Census {
    /// Indexed by [`five_set_rank`].
    pub solvable: Vec<bool>,
    pub solutions: u64,
}

impl Census {
    /// How many five-circle sets some solution leaves empty.
    pub fn solvable_sets(&self) -> usize {
        self.solvable.iter().filter(|&&s| s).count()
    }

    /// Whether some solution leaves exactly `holes` (five circles) empty; `None` for
    /// another size.
    pub fn is_solvable(&self, holes: u64) -> Option<bool> {
        five_set_rank(holes).map(|r| self.solvable[r])
    }
}
/// `BINOMIAL[n][k]` for n <= 35, k <= 5.
const BINOMIAL: [[u32; 6]; CIRCLES as usize + 1] = {
    let mut t = [[0u32; 6]; CIRCLES as usize + 1];
    let mut n = 0;
    while n <= CIRCLES as usize {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 5 && k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// The colex rank of a set of five circles in `0..FIVE_SETS`, or `None` if `holes` is
/// not five circles of the grid.
pub fn five_set_rank(holes: u64) -> Option<usize> {
    if holes & !ALL_CIRCLES != 0 || holes.count_ones() != 5 {
        return None;
    }
    let (mut rank, mut rest) = (0u32, holes);
    #[allow(clippy::needless_range_loop)] // k is the size of the prefix, not an index
    for k in 1..=5 {
        let c = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        rank += BINOMIAL[c][k];
    }
    Some(rank as usize)
}

/// The board's mirror images of a circle set: left-right, top-bottom, and both.
pub(super) fn mirrors(circles: u64) -> [u64; 3] {
    let cols = u32::from(CIRCLE_COLS);
    let rows = u32::from(CIRCLES) / cols;
    let mut out = [0u64; 3];
    for c in 0..u32::from(CIRCLES) {
        if circles >> c & 1 == 1 {
            let (r, col) = (c / cols, c % cols);
            let (fr, fc) = (rows - 1 - r, cols - 1 - col);
            out[0] |= 1 << (cols * r + fc);
            out[1] |= 1 << (cols * fr + col);
            out[2] |= 1 << (cols * fr + fc);
        }
    }
    out
}

/// Solutions per five-circle set (by [`five_set_rank`]) for the sets that contain
/// `must_stay_empty`, by plain enumeration: every solution that leaves those circles
/// empty, tallied under its own five empty circles. Other sets count 0. Cheap with
/// three or more circles; a cross-check of [`census`].
pub fn census_slice(must_stay_empty: u64) -> Vec<u64> {
    let table = Table::new();
    let mut per_set = vec![0u64; FIVE_SETS];
    if let Some(slack) = slack(must_stay_empty) {
        let bounds = Bounds {
            table: &table,
            holes: must_stay_empty,
            slack,
        };
        let mut refuted = Refuted::default();
        let mut scan = Scan::new(
            bounds,
            u64::MAX,
            |_: &[_], pegs: u64| {
                let rank = five_set_rank(!pegs & ALL_CIRCLES).expect("30 pegs leave five circles");
                per_set[rank] += 1;
                true
            },
            &mut refuted,
        );
        let _finished = scan.go(0, 0, 0);
    }
    per_set
}

/// Every five-circle set, in rank order.
fn five_sets() -> impl Iterator<Item = u64> {
    let n = u32::from(CIRCLES);
    (0..n).flat_map(move |e| {
        (0..e).flat_map(move |d| {
            (0..d).flat_map(move |c| {
                (0..c).flat_map(move |b| {
                    (0..b).map(move |a| 1 << a | 1 << b | 1 << c | 1 << d | 1 << e)
                })
            })
        })
    })
}

/// The whole census. The number of solutions comes from [`ColumnScan::count`] with no
/// holes (partial fillings with the same frontier merged). Solvability comes from
/// solving one set of each symmetry orbit with [`MirrorScan`]: an enumeration of all
/// 3.5 billion solutions would take far longer, and merging states loses which circles
/// were left empty.
pub fn census() -> Census {
    let solutions = ColumnScan::default().count(0);
    let mut solver = MirrorScan::default();
    let mut decided = vec![false; FIVE_SETS];
    let mut solvable = vec![false; FIVE_SETS];
    for (rank, holes) in five_sets().enumerate() {
        if decided[rank] {
            continue;
        }
        let solved = solver
            .solve(&Instance { holes }, u64::MAX)
            .expect("no budget");
        let answer = !matches!(solved.answer, Answer::None);
        for set in [holes].into_iter().chain(mirrors(holes)) {
            let r = five_set_rank(set).expect("a mirror keeps five circles");
            decided[r] = true;
            solvable[r] = answer;
        }
    }
    Census {
        solvable,
        solutions,
    }
}
