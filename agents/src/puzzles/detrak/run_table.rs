//! The best run score one symbol could still add to a Détrak board, tabulated once for
//! every state a row-major fill can be in (the upper bound of [`super::exact`]).
//!
//! A line's score is the sum of its runs' scores, or -5 with no run (T4); dropping the -5
//! makes it the sum over symbols of that symbol's runs, so the rows and columns of a
//! board score at most the sum over symbols of what each symbol's own cells score there.
//! For one symbol, what the cells still to fill can add depends only on where the fill
//! stands (the next cell in row-major order), the runs of that symbol still open there
//! (one per column and one in the current row, each a length 0..=4) and how many copies
//! of it are left to place. The table holds, for every such state, the maximum over
//! choosing which of the remaining cells take the symbol (at most that many): a dynamic
//! programme over the cells, about 400,000 states, built once in milliseconds. (The
//! anti-diagonal is bounded apart, over all symbols at once: see [`super::exact`].)

use std::sync::OnceLock;

use arena_core::puzzle::detrak::{CELLS, RUN_SCORE, SIZE};

/// What each anti-diagonal cell costs a symbol in the diagonal table, in the order of
/// [`DIAGONAL_CELLS`]. Any values give a sound bound; these were the best of 15 tried
/// on seeds 0..30 (total nodes: uniform 2: 5.8 M, uniform 3: 4.9 M, these: 3.3 M; the
/// last cell's penalty matters most, 0 there: 5.3 M).
pub const DIAGONAL_PENALTY: [i32; SIZE] = [1, 4, 3, 3, 1];

/// Where one symbol's runs stand before cell `pos` of a row-major fill.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Open {
    /// The open run in each column (ending at that column's last filled cell).
    pub cols: [u8; SIZE],
    /// The open run in the current row (ending at the cell before `pos`).
    pub row: u8,
    /// The open run on the anti-diagonal (diagonal table only).
    pub diagonal: u8,
}

/// The rows and columns of a row-major fill so far: their exact score (complete lines
/// in full, -5 included; open lines their runs already closed) and their open runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prefix {
    pub score: i32,
    pub(super) row: Line,
    pub(super) cols: [Line; SIZE],
    /// The anti-diagonal's closed runs, counted twice (-10 once it is complete with no
    /// run), apart from `score`: only the diagonal table's bound uses it.
    pub diagonal_score: i32,
    pub(super) diagonal: Line,
}

/// The anti-diagonal's cells in row-major order: (0,4), (1,3), (2,2), (3,1), (4,0).
pub const DIAGONAL_CELLS: [usize; SIZE] = [4, 8, 12, 16, 20];

pub fn on_diagonal(pos: usize) -> bool {
    pos / SIZE + pos % SIZE == SIZE - 1
}

/// One line's open run (symbol 0: none yet) and whether it has scored a run.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Line {
    symbol: u8,
    len: u8,
    scored: bool,
}

impl Line {
    /// Extends the line by `x`; returns the score of a run it closes.
    fn push(&mut self, x: u8) -> i32 {
        if self.symbol == x {
            self.len += 1;
            return 0;
        }
        let closed = self.close();
        self.symbol = x;
        self.len = 1;
        closed
    }

    fn close(&mut self) -> i32 {
        let len = std::mem::take(&mut self.len);
        if len >= 2 {
            self.scored = true;
        }
        run(len)
    }

    /// Closes the last run of a complete line: its score, and -5 if it has no run.
    fn finish(&mut self) -> i32 {
        let closed = self.close();
        let scored = std::mem::take(&mut self.scored);
        self.symbol = 0;
        if scored { closed } else { -5 }
    }
}

impl Prefix {
    /// Appends cell `pos` (the next in row-major order) holding symbol `x`.
    pub fn push(&mut self, pos: usize, x: u8) {
        let (r, c) = (pos / SIZE, pos % SIZE);
        self.score += self.row.push(x);
        if c == SIZE - 1 {
            self.score += self.row.finish();
        }
        self.score += self.cols[c].push(x);
        if r == SIZE - 1 {
            self.score += self.cols[c].finish();
        }
        if on_diagonal(pos) {
            self.diagonal_score += 2 * self.diagonal.push(x);
            if pos == DIAGONAL_CELLS[SIZE - 1] {
                self.diagonal_score += 2 * self.diagonal.finish();
            }
        }
    }

    /// Symbol `x`'s open runs.
    #[cfg(test)]
    pub fn open(&self, x: u8) -> Open {
        let len = |l: &Line| if l.symbol == x { l.len } else { 0 };
        Open {
            cols: std::array::from_fn(|c| len(&self.cols[c])),
            row: len(&self.row),
            diagonal: len(&self.diagonal),
        }
    }
}

/// The table: for cell `pos` (0..=25), copies `0..=25 - pos` (more copies than cells
/// left add nothing), and every [`Open`] state a fill can be in there, the best score
/// still to come. States are numbered in a mixed radix per cell (a run is no longer
/// than its line so far), which keeps the table at about 0.4 MB: it stays in cache.
pub struct RunTable {
    values: Vec<i8>,
    layouts: [Layout; CELLS + 1],
    /// The diagonal table: each symbol's anti-diagonal runs count too (twice, as in
    /// T5), and each anti-diagonal cell a symbol takes costs it this much (see
    /// [`RunTable::diagonal`]).
    diagonal_penalty: Option<[i32; SIZE]>,
}

/// How the states of one cell are numbered.
#[derive(Clone, Copy, Default)]
struct Layout {
    offset: usize,
    /// Open states at this cell (the stride of one more copy).
    states: usize,
    row_radix: u8,
    row_stride: usize,
    col_radix: [u8; SIZE],
    col_stride: [usize; SIZE],
    /// The open anti-diagonal run (diagonal table only; radix 1 otherwise).
    diagonal_radix: u8,
    diagonal_stride: usize,
}

impl Layout {
    fn of(pos: usize, offset: usize, with_diagonal: bool) -> Layout {
        let (r, c) = (pos / SIZE, pos % SIZE);
        let mut l = Layout {
            offset,
            ..Layout::default()
        };
        let mut stride = 1;
        for col in 0..SIZE {
            // Columns the fill has passed in this row hold runs up to r + 1 (closed, so
            // 0, once the last row is passed); the others up to r.
            l.col_radix[col] = match (col < c, r) {
                (_, SIZE..) => 1,
                (true, 4) => 1,
                (true, _) => r as u8 + 2,
                (false, _) => r as u8 + 1,
            };
            l.col_stride[col] = stride;
            stride *= usize::from(l.col_radix[col]);
        }
        l.row_radix = if pos == CELLS { 1 } else { c as u8 + 1 };
        l.row_stride = stride;
        stride *= usize::from(l.row_radix);
        // Diagonal cells passed: a run up to that long, closed once the last is passed.
        let passed = DIAGONAL_CELLS.iter().filter(|&&d| d < pos).count();
        l.diagonal_radix = if with_diagonal && passed < SIZE {
            passed as u8 + 1
        } else {
            1
        };
        l.diagonal_stride = stride;
        l.states = stride * usize::from(l.diagonal_radix);
        l
    }

    fn index(&self, copies: usize, open: &Open) -> usize {
        let cols: usize = (0..SIZE)
            .map(|c| usize::from(open.cols[c]) * self.col_stride[c])
            .sum();
        self.offset
            + copies * self.states
            + usize::from(open.row) * self.row_stride
            // A table without the anti-diagonal (radix 1) ignores its run.
            + usize::from(open.diagonal) * self.diagonal_stride * usize::from(self.diagonal_radix > 1)
            + cols
    }

    fn open(&self, i: usize) -> Open {
        Open {
            cols: std::array::from_fn(|c| {
                (i / self.col_stride[c] % usize::from(self.col_radix[c])) as u8
            }),
            row: (i / self.row_stride % usize::from(self.row_radix)) as u8,
            diagonal: (i / self.diagonal_stride % usize::from(self.diagonal_radix)) as u8,
        }
    }
}

fn run(len: u8) -> i32 {
    RUN_SCORE[usize::from(len)]
}

impl RunTable {
    /// The shared table, built on first use.
    pub fn get() -> &'static RunTable {
        static TABLE: OnceLock<RunTable> = OnceLock::new();
        TABLE.get_or_init(|| RunTable::build(None))
    }

    /// The shared diagonal table, built on first use: per symbol, the best its runs in
    /// rows and columns plus twice its runs on the anti-diagonal can add, less
    /// [`DIAGONAL_PENALTY`] for each anti-diagonal cell it takes. Summed over symbols,
    /// plus the penalty for every anti-diagonal cell still free, this bounds the rows,
    /// columns and anti-diagonal of any completion: there each free cell holds exactly
    /// one symbol, so the penalties cancel. Unlike a separate anti-diagonal term, a
    /// symbol cannot spend the same copies on a row and on the anti-diagonal.
    pub fn diagonal() -> &'static RunTable {
        static TABLE: OnceLock<RunTable> = OnceLock::new();
        TABLE.get_or_init(|| RunTable::build(Some(DIAGONAL_PENALTY)))
    }

    /// The penalty of the diagonal table, or `None`.
    pub fn diagonal_penalty(&self) -> Option<[i32; SIZE]> {
        self.diagonal_penalty
    }

    /// The most the symbol's runs in rows and columns can still score from cell `pos`
    /// on, with `copies` of it left to place and `open` runs (which must be a state a
    /// row-major fill can reach at `pos`). (The search sums all six: `sum_best`.)
    #[cfg(test)]
    pub fn best(&self, pos: usize, copies: usize, open: &Open) -> i32 {
        let layout = &self.layouts[pos];
        i32::from(self.values[layout.index(copies.min(CELLS - pos), open)])
    }

    /// The sum over symbols 1..=6 of [`RunTable::best`], each symbol with its copies
    /// and its open runs in `prefix`: one pass over the open lines, not six.
    pub fn sum_best(&self, pos: usize, copies: &[u8; 7], prefix: &Prefix) -> i32 {
        self.each_best(pos, copies, prefix).1
    }

    /// The terms of [`RunTable::sum_best`], symbol by symbol (index 0 unused), and
    /// their sum (added as they are looked up: summing the array once stored would
    /// wait on its stores).
    pub fn each_best(&self, pos: usize, copies: &[u8; 7], prefix: &Prefix) -> ([i32; 7], i32) {
        let layout = &self.layouts[pos];
        let cap = CELLS - pos;
        let mut at: [usize; 7] = std::array::from_fn(|x| {
            layout.offset + usize::from(copies[x]).min(cap) * layout.states
        });
        // What the open runs of a symbol with no copy left score as they stand.
        let mut closing = [0; 7];
        let mut add = |line: &Line, stride: usize, weight: i32| {
            let x = usize::from(line.symbol);
            at[x] += usize::from(line.len) * stride;
            closing[x] += weight * run(line.len);
        };
        add(&prefix.row, layout.row_stride, 1);
        for (c, line) in prefix.cols.iter().enumerate() {
            add(line, layout.col_stride[c], 1);
        }
        if layout.diagonal_radix > 1 {
            add(&prefix.diagonal, layout.diagonal_stride, 2);
        }
        let mut each = [0; 7];
        let mut sum = 0;
        for x in 1..=6 {
            each[x] = if copies[x] == 0 {
                closing[x]
            } else {
                i32::from(self.values[at[x]])
            };
            sum += each[x];
        }
        (each, sum)
    }

    /// The term of symbol `x` alone in [`RunTable::sum_best`], with `copies` of it.
    pub fn one_best(&self, pos: usize, copies: u8, prefix: &Prefix, x: u8) -> i32 {
        let layout = &self.layouts[pos];
        let mut at = layout.offset + usize::from(copies).min(CELLS - pos) * layout.states;
        let mut closing = 0;
        let mut add = |line: &Line, stride: usize, weight: i32| {
            if line.symbol == x {
                at += usize::from(line.len) * stride;
                closing += weight * run(line.len);
            }
        };
        add(&prefix.row, layout.row_stride, 1);
        for (c, line) in prefix.cols.iter().enumerate() {
            add(line, layout.col_stride[c], 1);
        }
        if layout.diagonal_radix > 1 {
            add(&prefix.diagonal, layout.diagonal_stride, 2);
        }
        if copies == 0 {
            closing
        } else {
            i32::from(self.values[at])
        }
    }

    pub(super) fn build(diagonal_penalty: Option<[i32; SIZE]>) -> RunTable {
        let mut layouts = [Layout::default(); CELLS + 1];
        let mut offset = 0;
        for (pos, layout) in layouts.iter_mut().enumerate() {
            *layout = Layout::of(pos, offset, diagonal_penalty.is_some());
            offset += (CELLS - pos + 1) * layout.states;
        }
        let mut table = RunTable {
            values: vec![0; offset],
            layouts,
            diagonal_penalty,
        };
        // Past the last cell every run has been closed where its line ended: 0. Each
        // state is decoded once; its two successors (the cell skipped or taken) differ
        // from copy count to copy count only by the count's stride, so the copies loop
        // runs outside, writing in order.
        let mut successors = Vec::new();
        for pos in (0..CELLS).rev() {
            let (r, c) = (pos / SIZE, pos % SIZE);
            let layout = table.layouts[pos];
            let next = table.layouts[pos + 1];
            let next_cap = CELLS - pos - 1;
            successors.clear();
            successors.extend((0..layout.states).map(|i| {
                let open = layout.open(i);
                let (skip_gain, skip_open) = table.skip(pos, &open, c);
                let (take_gain, take_open) = table.take(pos, &open, r, c);
                (
                    skip_gain,
                    next.index(0, &skip_open),
                    take_gain,
                    next.index(0, &take_open),
                )
            }));
            for copies in 0..=CELLS - pos {
                let skip_shift = copies.min(next_cap) * next.states;
                let take_shift = copies.saturating_sub(1).min(next_cap) * next.states;
                let at = layout.offset + copies * layout.states;
                for (i, &(skip_gain, skip_at, take_gain, take_at)) in successors.iter().enumerate()
                {
                    let skip = skip_gain + i32::from(table.values[skip_at + skip_shift]);
                    let best = if copies > 0 {
                        skip.max(take_gain + i32::from(table.values[take_at + take_shift]))
                    } else {
                        skip
                    };
                    debug_assert!(i8::try_from(best).is_ok());
                    table.values[at + i] = best as i8;
                }
            }
        }
        table
    }

    /// Cell `pos` takes another symbol: the runs through it end there. What that
    /// scores, and the runs open after it.
    fn skip(&self, pos: usize, open: &Open, c: usize) -> (i32, Open) {
        let mut next = *open;
        let mut gain = run(open.row) + run(open.cols[c]);
        next.row = 0;
        next.cols[c] = 0;
        if self.diagonal_penalty.is_some() && on_diagonal(pos) {
            gain += 2 * run(open.diagonal);
            next.diagonal = 0;
        }
        (gain, next)
    }

    /// Cell `pos` takes the symbol: its runs grow, and close where their line ends.
    /// What that scores, and the runs open after it.
    fn take(&self, pos: usize, open: &Open, r: usize, c: usize) -> (i32, Open) {
        let mut next = *open;
        let mut gain = 0;
        if c == SIZE - 1 {
            gain += run(open.row + 1);
            next.row = 0;
        } else {
            next.row = open.row + 1;
        }
        if r == SIZE - 1 {
            gain += run(open.cols[c] + 1);
            next.cols[c] = 0;
        } else {
            next.cols[c] = open.cols[c] + 1;
        }
        if let Some(penalty) = self.diagonal_penalty
            && on_diagonal(pos)
        {
            gain -= penalty[pos / SIZE];
            if pos == DIAGONAL_CELLS[SIZE - 1] {
                gain += 2 * run(open.diagonal + 1);
                next.diagonal = 0;
            } else {
                next.diagonal = open.diagonal + 1;
            }
        }
        (gain, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn open_states_round_trip_through_their_index() {
        for table in [RunTable::get(), RunTable::diagonal()] {
            for (pos, layout) in table.layouts.iter().enumerate() {
                for i in 0..layout.states {
                    assert_eq!(
                        layout.index(0, &layout.open(i)),
                        layout.offset + i,
                        "pos {pos}"
                    );
                }
            }
            assert_eq!(table.values.len(), table.layouts[CELLS].offset + 1);
        }
    }

    /// Rows and columns scored the plain way: the runs of `x` in each line of a full
    /// board where `cells` holds `x` (no -5: the table drops it).
    fn runs_of(cells: u32) -> i32 {
        (0..SIZE)
            .map(|i| {
                line_runs(std::array::from_fn(|j| cells >> (SIZE * i + j) & 1 == 1))
                    + line_runs(std::array::from_fn(|j| cells >> (SIZE * j + i) & 1 == 1))
            })
            .sum()
    }

    /// Against brute force: from cell `pos` on, with the cells before it fixed, the table
    /// is the best over every choice of at most `copies` later cells of what the rows
    /// and columns then score, minus what the closed runs before `pos` scored.
    #[test]
    fn the_table_is_the_best_choice_of_later_cells() {
        let table = RunTable::get();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for _ in 0..300 {
            let (pos, fixed, copies, prefix) = random_state(&mut rng);
            let free = CELLS - pos;
            let best = (0..1u32 << free)
                .filter(|chosen| chosen.count_ones() as usize <= copies)
                .map(|chosen| runs_of(fixed | chosen << pos))
                .max()
                .unwrap();
            // The closed runs of symbol 1 before `pos`: everything minus what is open.
            let closed_ones = runs_of(fixed) - open_tail_score(fixed, pos);
            assert_eq!(
                closed_ones + table.best(pos, copies, &prefix.open(1)),
                best,
                "pos {pos} fixed {fixed:025b} copies {copies}"
            );
        }
    }

    /// Twice the runs of the anti-diagonal of a board where `cells` holds the symbol.
    fn diagonal_runs_of(cells: u32) -> i32 {
        2 * line_runs(DIAGONAL_CELLS.map(|d| cells >> d & 1 == 1))
    }

    /// The runs of a line whose cells `bits` hold the symbol.
    fn line_runs(bits: [bool; SIZE]) -> i32 {
        let (mut total, mut len) = (0, 0);
        for b in bits.into_iter().chain([false]) {
            if b {
                len += 1;
            } else {
                total += RUN_SCORE[len];
                len = 0;
            }
        }
        total
    }

    /// A random state of a fill for the brute-force tests: the cursor `pos` (12..25),
    /// the cells before it that hold the symbol (`fixed`, the others another one), the
    /// copies left, and the prefix as the search keeps it (symbol 1 on the fixed cells).
    fn random_state(rng: &mut rand_chacha::ChaCha8Rng) -> (usize, u32, usize, Prefix) {
        let pos = 12 + arena_core::rng::below(rng, 13) as usize;
        let fixed = (0..pos).fold(0u32, |m, c| {
            m | u32::from(arena_core::rng::below(rng, 2) == 1) << c
        });
        let copies = arena_core::rng::below(rng, (CELLS - pos + 2) as u32) as usize;
        (pos, fixed, copies, prefix_of(fixed, pos))
    }

    /// The prefix of a fill up to `pos` with symbol 1 on the cells of `fixed`, 2 on the
    /// others.
    fn prefix_of(fixed: u32, pos: usize) -> Prefix {
        let mut prefix = Prefix::default();
        for c in 0..pos {
            prefix.push(c, if fixed >> c & 1 == 1 { 1 } else { 2 });
        }
        prefix
    }

    /// The diagonal table against brute force, as above: rows and columns plus twice
    /// the anti-diagonal, less the penalty for each anti-diagonal cell chosen.
    #[test]
    fn the_diagonal_table_is_the_best_choice_of_later_cells() {
        let table = RunTable::diagonal();
        let penalty = table.diagonal_penalty().unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        for _ in 0..300 {
            let (pos, fixed, copies, prefix) = random_state(&mut rng);
            let value = |cells: u32, chosen: u32| {
                runs_of(cells) + diagonal_runs_of(cells)
                    - (0..SIZE)
                        .filter(|&i| chosen >> DIAGONAL_CELLS[i] & 1 == 1)
                        .map(|i| penalty[i])
                        .sum::<i32>()
            };
            let free = CELLS - pos;
            let best = (0..1u32 << free)
                .filter(|chosen| chosen.count_ones() as usize <= copies)
                .map(|chosen| value(fixed | chosen << pos, chosen << pos))
                .max()
                .unwrap();
            let open = prefix.open(1);
            let open_diagonal = if pos <= DIAGONAL_CELLS[SIZE - 1] {
                2 * run(open.diagonal)
            } else {
                0
            };
            let closed_ones = value(fixed, 0) - open_tail_score(fixed, pos) - open_diagonal;
            assert_eq!(
                closed_ones + table.best(pos, copies, &open),
                best,
                "pos {pos} fixed {fixed:025b} copies {copies}"
            );
        }
    }

    /// What the runs still open at `pos` score if nothing more joins them.
    fn open_tail_score(fixed: u32, pos: usize) -> i32 {
        let open = prefix_of(fixed, pos).open(1);
        open.cols.iter().map(|&l| run(l)).sum::<i32>() + run(open.row)
    }
}
