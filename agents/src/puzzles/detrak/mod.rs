//! Détrak: the exact offline solver (T6, [`BranchAndBound`], in `exact.rs` with its
//! bound's table in `run_table.rs`) and the online players (T7): [`OnlineGreedy`] and
//! [`OnlineLookahead`].

use arena_core::puzzle::detrak::{
    self, ANTI_DIAGONAL, Answer, CELLS, DOMINOES, Detrak, Domino, Instance, LINES, Placement,
    grid_score, line_score,
};

use super::{Solved, Solver};

mod exact;
mod run_table;

pub use exact::BranchAndBound;

/// The online players' line bound: the best score each line could still reach on its
/// own if its empty cells took any symbol still available. Memo: index
/// `pattern * 64 + available symbols mask`; `i8::MIN` unknown.
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
