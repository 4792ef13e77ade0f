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
//! before them; a transposition table ([`super::table`]) from five moves left up.

use arena_core::puzzle::dust::{Answer, Board, CELLS, Dust, Move};

use super::super::{Solved, Solver};
use super::bits::Planes;
use super::cone::{
    Cluster, Clusters, FAR_RIGHT, LEFT_HALF, is_settled, may_clear_colour_by_colour, touched_by,
};
use super::slack::{colour_sets, flood, lower_bound};
use super::table::{CONTEXTS, RefutationTable};
use super::{greedy, to_move};

/// The exact solver: proves the fewest moves.
#[derive(Default)]
pub struct ConeIda {
    /// Board -> the most moves proven not to clear it, per context.
    refuted: RefutationTable,
    path: Vec<Move>,
    nodes: u64,
    max_nodes: u64,
}

/// The fewest moves left at which boards go in the transposition table (below it, a
/// lookup, a cache miss in a large table, costs more than the subtree it could save).
const TABLE_DEPTH: u32 = 5;

/// Search contexts (what the move that led here allows to skip, [`super::cone`],
/// commuting moves), and the moves skipped in each: none; after a move inside columns
/// 5..=7, moves inside the left half. Each tries a subset of the moves of the one
/// before. (The mirrored pair, skipping moves inside columns 0..=2 after a right-half
/// move, is sound too but was not kept: it changes which answer the last iteration
/// meets first, and on seeds 0..12 it cost up to half as many nodes again as it saved.)
const EVERY_MOVE: usize = 0;
const AFTER_FAR_RIGHT: usize = 1;
const SKIPPED_AFTER: [u64; CONTEXTS] = [0, LEFT_HALF];

enum Outcome {
    Found,
    Refuted,
    OutOfBudget,
}

impl ConeIda {
    /// `context`: what the move that led here lets this board's search skip
    /// ([`SKIPPED_AFTER`]).
    fn search(&mut self, board: Planes, remaining: u32, context: usize) -> Outcome {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Outcome::OutOfBudget;
        }
        let sets = board.colour_sets();
        let colours = sets[1..].iter().filter(|&&s| s != 0).count() as u32;
        if colours == 0 {
            return Outcome::Found;
        }
        if colours > remaining {
            return Outcome::Refuted;
        }
        // Where the bound cannot refute, the table is read first: its cache miss then
        // overlaps the floods below, which do not depend on it.
        let in_table = remaining >= TABLE_DEPTH;
        let early = in_table && colours < remaining;
        let stored = if early { self.refuted.get(board) } else { None };
        // Each colour's first cluster: whether one is the whole colour gives the bound
        // (`slack::lower_bound`), and the enumeration below starts from them.
        let mut first = [0u64; 6];
        let mut one_cluster = false;
        for c in 1..6 {
            let cells = sets[c];
            if cells != 0 {
                first[c] = flood(cells & cells.wrapping_neg(), cells);
                one_cluster |= first[c] == cells;
            }
        }
        if colours == remaining && !one_cluster {
            return Outcome::Refuted;
        }
        let slack = remaining - colours;
        let stored = if in_table && !early {
            self.refuted.get(board)
        } else {
            stored
        };
        // A refutation holds in every context that tries fewer moves.
        if stored.is_some_and(|r| r[..=context].iter().any(|&r| u32::from(r) >= remaining)) {
            return Outcome::Refuted;
        }
        let mut clusters = [Cluster::default(); CELLS];
        let mut count = 0;
        for (colour, &cells) in (0u8..).zip(&sets).skip(1) {
            let mut cluster = first[usize::from(colour)];
            let mut rest = cells;
            while rest != 0 {
                rest &= !cluster;
                clusters[count] = Cluster {
                    colour,
                    cells: cluster,
                    touched_by: if slack <= 1 { touched_by(cluster) } else { 0 },
                };
                count += 1;
                if rest != 0 {
                    cluster = flood(rest & rest.wrapping_neg(), cells);
                }
            }
        }
        let clusters = &clusters[..count];
        let settled = is_settled(board.occupied());
        // The cone test runs only for children left with no slack.
        let grouped = (settled && slack <= 1).then(|| Clusters::new(clusters));
        // Larger clusters first, colour-clearing ones before all; ties by lowest cell.
        // Packed: clears (1 bit), size (6), 63 - lowest cell (6), cluster index (6).
        let mut order = [0u32; CELLS];
        let mut count = 0;
        for (index, cluster) in clusters.iter().enumerate() {
            let clears = cluster.cells == sets[usize::from(cluster.colour)];
            let child_slack_zero = if clears { slack == 0 } else { slack == 1 };
            if slack == 0 && !clears
                || cluster.cells & !SKIPPED_AFTER[context] == 0
                || child_slack_zero
                    && grouped
                        .as_ref()
                        .is_some_and(|grouped| !may_clear_colour_by_colour(grouped, cluster.cells))
            {
                continue;
            }
            let lowest = cluster.cells.trailing_zeros();
            order[count] =
                (u32::from(clears) << 12 | cluster.cells.count_ones() << 6 | (63 - lowest)) << 6
                    | index as u32;
            count += 1;
        }
        let order = &mut order[..count];
        order.sort_unstable_by(|a, b| b.cmp(a));
        for &packed in order.iter() {
            let cluster = clusters[(packed & 63) as usize].cells;
            let mut next = board;
            next.remove(cluster);
            self.path.push(to_move(cluster.trailing_zeros() as usize));
            let next_context = if settled && cluster & !FAR_RIGHT == 0 {
                AFTER_FAR_RIGHT
            } else {
                EVERY_MOVE
            };
            match self.search(next, remaining - 1, next_context) {
                Outcome::Refuted => {
                    self.path.pop();
                }
                other => return other,
            }
        }
        if in_table {
            self.refuted.refute(board, context, remaining as u8);
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
            match self.search(Planes::from_board(instance), bound, EVERY_MOVE) {
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
