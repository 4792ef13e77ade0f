//! Détrak: an exact branch and bound for the offline mode (T6), and a greedy online
//! player (T7).
//!
//! The search fills the first empty cell (row-major) with every remaining domino kind
//! (identical dominoes are one kind), rightward or downward, in both orientations. The
//! upper bound sums, over the 11 lines (the anti-diagonal twice), the best score each
//! line could still reach on its own if its empty cells took any symbol still on a
//! remaining domino: sound, since the real fill is one such choice for every line at
//! once. Per-line bounds are memoised by (line contents, symbols available). Symmetry:
//! transposing a board keeps the start cell, maps rows to columns and the anti-diagonal
//! to itself, so it keeps the score; only boards with `(0,1) <= (1,0)` are searched.

use arena_core::puzzle::detrak::{
    self, ANTI_DIAGONAL, Answer, CELLS, DOMINOES, Detrak, Domino, Instance, LINES, Placement,
    grid_score, line_score,
};

use super::{Solved, Solver};

/// Per-line bound memo: index `pattern * 64 + available symbols mask`; `i8::MIN` unknown.
struct LineBounds(Vec<i8>);

const PATTERNS: usize = 7 * 7 * 7 * 7 * 7;

impl LineBounds {
    fn new() -> Self {
        LineBounds(vec![i8::MIN; PATTERNS * 64])
    }

    /// The best score of a line whose cells are `line` (0 empty), filling the empty ones
    /// with symbols in `available` (bit `s - 1` for symbol `s`).
    fn get(&mut self, line: [u8; 5], available: u8) -> i32 {
        let pattern = line.iter().fold(0usize, |p, &c| p * 7 + c as usize);
        let slot = &mut self.0[pattern * 64 + available as usize];
        if *slot == i8::MIN {
            *slot = best_fill(line, available) as i8;
        }
        i32::from(*slot)
    }
}

fn best_fill(mut line: [u8; 5], available: u8) -> i32 {
    let Some(at) = line.iter().position(|&c| c == 0) else {
        return line_score(line);
    };
    if available == 0 {
        // Nothing can fill it: the real search never completes this line.
        return i32::from(i8::MAX);
    }
    let mut best = i32::MIN;
    for s in 1..=6u8 {
        if available & 1 << (s - 1) != 0 {
            line[at] = s;
            best = best.max(best_fill(line, available));
        }
    }
    best
}

/// The exact offline solver.
pub struct BranchAndBound {
    bounds: LineBounds,
}

impl Default for BranchAndBound {
    fn default() -> Self {
        BranchAndBound {
            bounds: LineBounds::new(),
        }
    }
}

struct Search<'a> {
    bounds: &'a mut LineBounds,
    kinds: Vec<(u8, u8)>,
    left: Vec<u8>,
    grid: [u8; CELLS],
    /// (cell of kind.0, cell of kind.1, kind) for each domino down.
    placed: Vec<(u8, u8, usize)>,
    best: i32,
    best_placed: Vec<(u8, u8, usize)>,
    nodes: u64,
    max_nodes: u64,
}

impl Search<'_> {
    fn available(&self) -> u8 {
        self.kinds
            .iter()
            .zip(&self.left)
            .filter(|(_, n)| **n > 0)
            .fold(0, |m, ((a, b), _)| m | 1 << (a - 1) | 1 << (b - 1))
    }

    fn upper_bound(&mut self) -> i32 {
        let available = self.available();
        let mut total = 0;
        for (i, line) in LINES.iter().enumerate() {
            let b = self.bounds.get(line.map(|c| self.grid[c]), available);
            total += if i == ANTI_DIAGONAL { 2 * b } else { b };
        }
        total
    }

    /// `false` once the budget is spent.
    fn go(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return false;
        }
        let Some(cell) = self.grid.iter().position(|&c| c == 0) else {
            let score = grid_score(&self.grid);
            if score > self.best {
                self.best = score;
                self.best_placed = self.placed.clone();
            }
            return true;
        };
        let (row, col) = (cell / 5, cell % 5);
        let mut children = Vec::new();
        for partner in [(col < 4).then(|| cell + 1), (row < 4).then(|| cell + 5)]
            .into_iter()
            .flatten()
        {
            if self.grid[partner] != 0 {
                continue;
            }
            for k in 0..self.kinds.len() {
                if self.left[k] == 0 {
                    continue;
                }
                let (a, b) = self.kinds[k];
                let flips: &[(u8, u8)] = if a == b { &[(a, b)] } else { &[(a, b), (b, a)] };
                for &(x, y) in flips {
                    self.grid[cell] = x;
                    self.grid[partner] = y;
                    self.left[k] -= 1;
                    let symmetric_twin =
                        self.grid[1] != 0 && self.grid[5] != 0 && self.grid[1] > self.grid[5];
                    if !symmetric_twin {
                        let bound = self.upper_bound();
                        if bound > self.best {
                            let (first, second) = if (x, y) == (a, b) {
                                (cell, partner)
                            } else {
                                (partner, cell)
                            };
                            children.push((
                                bound,
                                cell,
                                partner,
                                x,
                                y,
                                k,
                                first as u8,
                                second as u8,
                            ));
                        }
                    }
                    self.left[k] += 1;
                    self.grid[cell] = 0;
                    self.grid[partner] = 0;
                }
            }
        }
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        for (bound, cell, partner, x, y, k, first, second) in children {
            if bound <= self.best {
                break;
            }
            self.grid[cell] = x;
            self.grid[partner] = y;
            self.left[k] -= 1;
            self.placed.push((first, second, k));
            let go_on = self.go();
            self.placed.pop();
            self.left[k] += 1;
            self.grid[cell] = 0;
            self.grid[partner] = 0;
            if !go_on {
                return false;
            }
        }
        true
    }
}

/// The dominoes of `instance` grouped by kind (unordered pair, smaller symbol first).
fn kinds(instance: &Instance) -> (Vec<(u8, u8)>, Vec<u8>) {
    let mut kinds: Vec<(u8, u8)> = Vec::new();
    let mut left = Vec::new();
    for d in &instance.dominoes {
        let kind = (d.0.min(d.1), d.0.max(d.1));
        match kinds.iter().position(|&k| k == kind) {
            Some(i) => left[i] += 1,
            None => {
                kinds.push(kind);
                left.push(1);
            }
        }
    }
    (kinds, left)
}

/// Gives each placed kind an instance domino of that kind, oriented so the first cell
/// holds the domino's first symbol.
fn answer_of(instance: &Instance, kinds: &[(u8, u8)], placed: &[(u8, u8, usize)]) -> Answer {
    let mut slots: [Option<Placement>; DOMINOES] = [None; DOMINOES];
    for &(first, second, k) in placed {
        let (a, _) = kinds[k];
        let i = (0..DOMINOES)
            .find(|&i| {
                slots[i].is_none() && {
                    let d = instance.dominoes[i];
                    (d.0.min(d.1), d.0.max(d.1)) == kinds[k]
                }
            })
            .expect("each kind is placed as often as it occurs");
        // `first` holds the kind's smaller symbol `a`.
        let d = instance.dominoes[i];
        slots[i] = Some(if d.0 == a {
            Placement { first, second }
        } else {
            Placement {
                first: second,
                second: first,
            }
        });
    }
    Answer {
        placements: slots.map(|s| s.expect("all 12 dominoes placed")),
    }
}

impl Solver<Detrak> for BranchAndBound {
    fn solve(&mut self, instance: &Instance, max_nodes: u64) -> Option<Solved<Answer>> {
        let (kinds, left) = kinds(instance);
        let mut grid = [0; CELLS];
        grid[0] = instance.start;
        let mut s = Search {
            bounds: &mut self.bounds,
            kinds,
            left,
            grid,
            placed: Vec::with_capacity(DOMINOES),
            best: i32::MIN,
            best_placed: Vec::new(),
            nodes: 0,
            max_nodes,
        };
        let finished = s.go();
        if s.best_placed.is_empty() {
            return None;
        }
        Some(Solved {
            answer: answer_of(instance, &s.kinds, &s.best_placed),
            score: i64::from(s.best),
            optimal: finished,
            nodes: s.nodes,
        })
    }
}

/// Online play (T7): each domino is placed before the next is seen, where the line
/// bound (every symbol still possible) is highest, among placements that leave the
/// empty cells tileable by dominoes. Ties go to the first placement in cell order.
pub struct OnlineGreedy {
    bounds: LineBounds,
}

impl Default for OnlineGreedy {
    fn default() -> Self {
        OnlineGreedy {
            bounds: LineBounds::new(),
        }
    }
}

/// Whether the empty cells of `grid` can be covered by dominoes.
fn tileable(grid: &[u8; CELLS]) -> bool {
    let empty = (0..CELLS)
        .filter(|&c| grid[c] == 0)
        .fold(0u32, |m, c| m | 1 << c);
    tiles(empty, &mut Vec::new())
}

/// Covers the lowest cell of `empty` first; `dead` remembers sets proven untileable
/// (without it, an untileable region is explored once per partial tiling).
fn tiles(empty: u32, dead: &mut Vec<u32>) -> bool {
    if empty == 0 {
        return true;
    }
    if dead.contains(&empty) {
        return false;
    }
    let cell = empty.trailing_zeros() as usize;
    for partner in [
        (cell % 5 < 4).then(|| cell + 1),
        (cell / 5 < 4).then(|| cell + 5),
    ]
    .into_iter()
    .flatten()
    {
        if empty & 1 << partner != 0 && tiles(empty & !(1 << cell) & !(1 << partner), dead) {
            return true;
        }
    }
    dead.push(empty);
    false
}

impl OnlineGreedy {
    /// Where the greedy rule puts domino `d` on `grid` (the highest line bound among
    /// tileable placements; ties to the first in cell order), and how many placements it
    /// weighed.
    fn place(&mut self, grid: &mut [u8; CELLS], d: Domino) -> (Option<Placement>, u64) {
        let mut best: Option<(i32, Placement)> = None;
        let mut weighed = 0;
        let (all, n) = placements(grid);
        for &p in &all[..n] {
            weighed += 1;
            grid[p.first as usize] = d.0;
            grid[p.second as usize] = d.1;
            if tileable(grid) {
                let bound: i32 = LINES
                    .iter()
                    .enumerate()
                    .map(|(i, line)| {
                        let b = self.bounds.get(line.map(|c| grid[c]), 0b11_1111);
                        if i == ANTI_DIAGONAL { 2 * b } else { b }
                    })
                    .sum();
                if best.is_none_or(|(b, _)| bound > b) {
                    best = Some((bound, p));
                }
            }
            grid[p.first as usize] = 0;
            grid[p.second as usize] = 0;
        }
        (best.map(|(_, p)| p), weighed)
    }
}

/// Every placement of a domino on two adjacent empty cells of `grid`, in cell order
/// (first cell, then right, down, left, up): at most 80 (40 adjacent pairs, both ways).
fn placements(grid: &[u8; CELLS]) -> ([Placement; 80], usize) {
    let mut out = [Placement {
        first: 0,
        second: 0,
    }; 80];
    let mut n = 0;
    for first in 0..CELLS {
        if grid[first] != 0 {
            continue;
        }
        for second in [
            first + 1,
            first + 5,
            first.wrapping_sub(1),
            first.wrapping_sub(5),
        ] {
            if second < CELLS && detrak::adjacent(first as u8, second as u8) && grid[second] == 0 {
                out[n] = Placement {
                    first: first as u8,
                    second: second as u8,
                };
                n += 1;
            }
        }
    }
    (out, n)
}

/// Plays `instance` online: `choose(grid, step, domino)` places each domino seeing only
/// the board so far, and says how many placements it weighed.
fn play_online(
    instance: &Instance,
    mut choose: impl FnMut(&mut [u8; CELLS], usize, Domino) -> (Option<Placement>, u64),
) -> Option<Solved<Answer>> {
    let mut grid = [0u8; CELLS];
    grid[0] = instance.start;
    let mut chosen = Vec::with_capacity(DOMINOES);
    let mut nodes = 0;
    for (step, &d) in instance.dominoes.iter().enumerate() {
        let (p, weighed) = choose(&mut grid, step, d);
        nodes += weighed;
        let p = p?;
        grid[p.first as usize] = d.0;
        grid[p.second as usize] = d.1;
        chosen.push(p);
    }
    Some(Solved {
        score: i64::from(grid_score(&grid)),
        answer: Answer {
            placements: chosen.try_into().ok()?,
        },
        optimal: false,
        nodes,
    })
}

impl Solver<Detrak> for OnlineGreedy {
    fn solve(&mut self, instance: &Instance, _max_nodes: u64) -> Option<Solved<Answer>> {
        play_online(instance, |grid, _, d| self.place(grid, d))
    }
}

/// Online play (T7) for expected score: each domino, before the next is seen, goes where
/// the mean final score of `rollouts` sampled futures is highest. A future draws the
/// dominoes still to come as fair dice (never the instance's: they are unseen) and plays
/// them by the greedy rule; every candidate placement is scored on the same futures
/// (common random numbers), drawn from a fixed seed, so the player is deterministic.
pub struct OnlineLookahead {
    greedy: OnlineGreedy,
    rollouts: u32,
}

impl OnlineLookahead {
    pub const DEFAULT_ROLLOUTS: u32 = 16;

    pub fn new(rollouts: u32) -> Self {
        OnlineLookahead {
            greedy: OnlineGreedy::default(),
            rollouts: rollouts.max(1),
        }
    }
}

impl Default for OnlineLookahead {
    fn default() -> Self {
        OnlineLookahead::new(OnlineLookahead::DEFAULT_ROLLOUTS)
    }
}

impl OnlineLookahead {
    /// The placement of `d` with the best total final score over sampled futures.
    fn place(
        &mut self,
        grid: &mut [u8; CELLS],
        step: usize,
        d: Domino,
    ) -> (Option<Placement>, u64) {
        use rand::SeedableRng;
        let left = DOMINOES - step - 1;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xDE7A_u64 << 8 | step as u64);
        let mut die = || 1 + arena_core::rng::below(&mut rng, 6) as u8;
        let futures: Vec<Vec<Domino>> = (0..self.rollouts)
            .map(|_| (0..left).map(|_| Domino(die(), die())).collect())
            .collect();
        let mut best: Option<(i64, Placement)> = None;
        let mut nodes = 0;
        let (all, n) = placements(grid);
        for &p in &all[..n] {
            grid[p.first as usize] = d.0;
            grid[p.second as usize] = d.1;
            if tileable(grid) {
                let mut total = 0i64;
                for future in &futures {
                    let mut g = *grid;
                    for &f in future {
                        let (q, weighed) = self.greedy.place(&mut g, f);
                        nodes += weighed;
                        let q = q.expect("a tileable board has a tileable placement");
                        g[q.first as usize] = f.0;
                        g[q.second as usize] = f.1;
                    }
                    total += i64::from(grid_score(&g));
                }
                if best.is_none_or(|(b, _)| total > b) {
                    best = Some((total, p));
                }
            }
            grid[p.first as usize] = 0;
            grid[p.second as usize] = 0;
        }
        (best.map(|(_, p)| p), nodes)
    }
}

impl Solver<Detrak> for OnlineLookahead {
    fn solve(&mut self, instance: &Instance, _max_nodes: u64) -> Option<Solved<Answer>> {
        play_online(instance, |grid, step, d| self.place(grid, step, d))
    }
}
