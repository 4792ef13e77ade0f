//! Dust matching by [`super::SlackIda`]'s search, with children pruned by the cone
//! lemma ([`super::cone`]) before they are made.
//!
//! A child whose slack is zero (a move that does not clear its colour, from slack one;
//! or a move that clears its colour, from slack zero) is refuted at once unless it is
//! clear or has a colour in one cluster: its bound is one more than its colours, its
//! depth left exactly its colours. On a settled board, the cone lemma proves for most
//! such moves, from the parent's clusters alone, that no colour can be one cluster
//! after them; those children are skipped without settling them. The search visits
//! the same boards in the same order otherwise, so it proves the same optima.

use arena_core::puzzle::dust::{Answer, Board, CELLS, Dust, Move};

use super::super::{FoldMap, Solved, Solver};
use super::cone::{Cluster, is_settled, may_leave_single_colour};
use super::slack::{TABLE_DEPTH, colour_sets, flood, lower_bound, remove_and_settle};
use super::{greedy, key, to_move};

/// The exact solver: proves the fewest moves.
#[derive(Default)]
pub struct ConeIda {
    refuted: FoldMap<(u128, u32), u8>,
    path: Vec<Move>,
    nodes: u64,
    max_nodes: u64,
}

enum Outcome {
    Found,
    Refuted,
    OutOfBudget,
}

impl ConeIda {
    fn search(&mut self, board: &Board, remaining: u32) -> Outcome {
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
        if k.is_some_and(|k| {
            self.refuted
                .get(&k)
                .is_some_and(|&r| u32::from(r) >= remaining)
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
                };
                count += 1;
            }
        }
        let clusters = &clusters[..count];
        let settled = is_settled(sets[1..].iter().fold(0, |o, &s| o | s));
        // (clears its colour, size, lowest cell, cells)
        let mut moves = [(false, 0u32, 0usize, 0u64); CELLS];
        let mut count = 0;
        for cluster in clusters {
            let clears = cluster.cells == sets[usize::from(cluster.colour)];
            let child_slack_zero = if clears { slack == 0 } else { slack == 1 };
            if slack == 0 && !clears
                || settled && child_slack_zero && !may_leave_single_colour(clusters, cluster.cells)
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
            match self.search(&next, remaining - 1) {
                Outcome::Refuted => {
                    self.path.pop();
                }
                other => return other,
            }
        }
        if let Some(k) = k {
            let slot = self.refuted.entry(k).or_insert(0);
            *slot = (*slot).max(remaining as u8);
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
            match self.search(instance, bound) {
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
