//! Dust matching by [`super::SlackIda`]'s search (IDA* that counts its slack, the
//! same bound), with two prunings from [`super::cone`], both sound:
//!
//! - **Zero slack.** A child with no slack left (a move that does not clear its
//!   colour, from slack one; or one that clears its colour, from slack zero) can only
//!   be cleared by one click per colour, each clearing a colour. On a settled board,
//!   [`may_clear_colour_by_colour`] proves from the parent's clusters alone, for most
//!   such moves, that no order of the colours can do it; those children are never made
//!   (about four in five of them on random boards).
//! - **Commuting moves.** A move inside columns 5..=7 and a next move inside the left
//!   half commute (same board after both orders, both legal in both), so after a move
//!   inside columns 5..=7, moves inside the left half are not tried: the other order
//!   is searched from the parent. Since what a board's search tries then depends on how
//!   it was reached, the transposition table keeps a board's refutations per context
//!   (every move tried, or left-half moves left out); one with every move tried holds
//!   in both.
//!
//! Otherwise the search is `SlackIda`'s: larger clusters first, colour-clearing moves
//! before them; a transposition table from five moves left up.

use arena_core::puzzle::dust::{Answer, Board, CELLS, Dust, Move};

use super::super::{FoldMap, Solved, Solver};
use super::cone::{
    Cluster, Clusters, FAR_RIGHT, LEFT_HALF, is_settled, may_clear_colour_by_colour, touched_by,
};
use super::slack::{colour_sets, flood, lower_bound, remove_and_settle};
use super::{greedy, key, to_move};

/// The exact solver: proves the fewest moves.
#[derive(Default)]
pub struct ConeIda {
    /// Board -> the most moves proven not to clear it: with every move, and with no
    /// left-half move first (the search's context after a far-right move).
    refuted: FoldMap<(u128, u32), [u8; 2]>,
    path: Vec<Move>,
    nodes: u64,
    max_nodes: u64,
}

/// The fewest moves left at which boards go in the transposition table (below it, a
/// lookup, a cache miss in a large table, costs more than the subtree it could save).
const TABLE_DEPTH: u32 = 5;

/// Boards the transposition table holds at most (about 0.8 GB at its peak); past it,
/// only boards already in it are updated, so a run stays deterministic.
const MAX_ENTRIES: usize = 12 << 20;

enum Outcome {
    Found,
    Refuted,
    OutOfBudget,
}

impl ConeIda {
    /// `after_far_right`: the move that led here removed cells of columns 5..=7 only,
    /// from a settled board, so moves inside the left half are not tried first
    /// ([`super::cone`], commuting moves).
    fn search(&mut self, board: &Board, remaining: u32, after_far_right: bool) -> Outcome {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
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
        let k = (remaining >= TABLE_DEPTH).then(|| key(board));
        let context = usize::from(after_far_right);
        if k.is_some_and(|k| {
            self.refuted.get(&k).is_some_and(|r| {
                // A refutation with every move tried holds in either context.
                u32::from(r[0].max(r[context])) >= remaining
            })
        }) {
            return Outcome::Refuted;
        }
        let mut clusters = [Cluster::default(); CELLS];
        let mut count = 0;
        for (colour, &cells) in (0u8..).zip(&sets).skip(1) {
            let mut rest = cells;
            while rest != 0 {
                let cluster = flood(rest & rest.wrapping_neg(), cells);
                rest &= !cluster;
                clusters[count] = Cluster {
                    colour,
                    cells: cluster,
                    touched_by: if slack <= 1 { touched_by(cluster) } else { 0 },
                };
                count += 1;
            }
        }
        let clusters = &clusters[..count];
        let grouped = Clusters::new(clusters);
        let settled = is_settled(sets[1..].iter().fold(0, |o, &s| o | s));
        // (clears its colour, size, lowest cell, cells)
        let mut moves = [(false, 0u32, 0usize, 0u64); CELLS];
        let mut count = 0;
        for cluster in clusters {
            let clears = cluster.cells == sets[usize::from(cluster.colour)];
            let child_slack_zero = if clears { slack == 0 } else { slack == 1 };
            if slack == 0 && !clears
                || after_far_right && cluster.cells & !LEFT_HALF == 0
                || settled
                    && child_slack_zero
                    && !may_clear_colour_by_colour(&grouped, cluster.cells)
            {
                continue;
            }
            let cell = cluster.cells.trailing_zeros() as usize;
            moves[count] = (clears, cluster.cells.count_ones(), cell, cluster.cells);
            count += 1;
        }
        let moves = &mut moves[..count];
        moves.sort_unstable_by_key(|&(clears, size, cell, _)| {
            (std::cmp::Reverse((clears, size)), cell)
        });
        for &(_, _, cell, cluster) in moves.iter() {
            let mut next = *board;
            remove_and_settle(&mut next, cluster);
            self.path.push(to_move(cell));
            let far_right = settled && cluster & !FAR_RIGHT == 0;
            match self.search(&next, remaining - 1, far_right) {
                Outcome::Refuted => {
                    self.path.pop();
                }
                other => return other,
            }
        }
        if let Some(k) = k {
            let slots = if self.refuted.len() < MAX_ENTRIES {
                Some(self.refuted.entry(k).or_insert([0; 2]))
            } else {
                self.refuted.get_mut(&k)
            };
            if let Some(slot) = slots.map(|slots| &mut slots[context]) {
                *slot = (*slot).max(remaining as u8);
            }
        }
        Outcome::Refuted
    }
}

impl Solver<Dust> for ConeIda {
    fn solve(&mut self, instance: &Board, max_nodes: u64) -> Option<Solved<Answer>> {
        self.refuted.clear();
        self.nodes = 0;
        self.max_nodes = max_nodes;
        let fallback = greedy(instance);
        let mut bound = lower_bound(&colour_sets(instance));
        while (bound as usize) < fallback.len() {
            self.path.clear();
            match self.search(instance, bound, false) {
                Outcome::Found => {
                    let moves = std::mem::take(&mut self.path);
                    return Some(Solved {
                        score: moves.len() as i64,
                        answer: Answer { moves },
                        optimal: true,
                        nodes: self.nodes,
                    });
                }
                Outcome::Refuted => bound += 1,
                Outcome::OutOfBudget => {
                    return Some(Solved {
                        score: fallback.len() as i64,
                        answer: Answer { moves: fallback },
                        optimal: false,
                        nodes: self.nodes,
                    });
                }
            }
        }
        Some(Solved {
            score: fallback.len() as i64,
            answer: Answer { moves: fallback },
            optimal: true,
            nodes: self.nodes,
        })
    }
}
