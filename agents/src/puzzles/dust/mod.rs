//! Dust matching: iterative deepening A* (IDA*) over cluster clicks. The bound is the
//! number of colours left (each move removes cells of one colour only, so it is
//! admissible); a transposition table remembers, per board, the largest number of
//! moves proven not to clear it, so boards reached by moves in another order are not
//! searched twice. Larger clusters are tried first.

use arena_core::puzzle::dust::{Answer, Board, CELLS, Dust, Move, WIDTH};

mod beam;
mod bits;
mod cone;
mod cone_ida;
mod slack;
mod table;

pub use cone_ida::ConeIda;
pub use slack::SlackIda;

use super::{FoldMap, Solved, Solver};

#[derive(Default)]
pub struct Ida {
    /// Board -> moves proven insufficient to clear it.
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

pub(super) fn key(board: &Board) -> (u128, u32) {
    let mut low = 0u128;
    for &c in &board.cells[..42] {
        low = low << 3 | u128::from(c);
    }
    let high = board.cells[42..]
        .iter()
        .fold(0u32, |k, &c| k << 3 | u32::from(c));
    (low, high)
}

fn lower_bound(board: &Board) -> u32 {
    board.colours().count_ones()
}

pub(super) fn to_move(cell: usize) -> Move {
    Move {
        x: (cell % WIDTH) as u8,
        y: (cell / WIDTH) as u8,
    }
}

/// Clicks the largest cluster until the board is clear: a quick first answer.
pub fn greedy(board: &Board) -> Vec<Move> {
    let mut board = *board;
    let mut moves = Vec::new();
    while !board.is_clear() {
        let (cell, set) = board
            .clusters()
            .into_iter()
            .max_by_key(|&(cell, set)| (set.count_ones(), std::cmp::Reverse(cell)))
            .expect("a board that is not clear has a cluster");
        board.remove(set);
        moves.push(to_move(cell));
    }
    moves
}

impl Ida {
    fn search(&mut self, board: &Board, remaining: u32) -> Outcome {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return Outcome::OutOfBudget;
        }
        if board.is_clear() {
            return Outcome::Found;
        }
        if lower_bound(board) > remaining {
            return Outcome::Refuted;
        }
        let k = key(board);
        if self
            .refuted
            .get(&k)
            .is_some_and(|&r| u32::from(r) >= remaining)
        {
            return Outcome::Refuted;
        }
        let mut children: Vec<(u32, usize, Board)> = board
            .clusters()
            .into_iter()
            .map(|(cell, set)| {
                let mut next = *board;
                next.remove(set);
                (set.count_ones(), cell, next)
            })
            .collect();
        children.sort_by_key(|&(size, cell, _)| (std::cmp::Reverse(size), cell));
        for (_, cell, next) in children {
            self.path.push(to_move(cell));
            match self.search(&next, remaining - 1) {
                Outcome::Refuted => {
                    self.path.pop();
                }
                other => return other,
            }
        }
        let slot = self.refuted.entry(k).or_insert(0);
        *slot = (*slot).max(remaining as u8);
        Outcome::Refuted
    }
}

impl Solver<Dust> for Ida {
    fn solve(&mut self, instance: &Board, max_nodes: u64) -> Option<Solved<Answer>> {
        self.refuted.clear();
        self.nodes = 0;
        self.max_nodes = max_nodes;
        let fallback = greedy(instance);
        let mut bound = lower_bound(instance);
        loop {
            if bound as usize >= fallback.len() {
                break;
            }
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
        // Every shorter answer is refuted: the greedy one is optimal.
        Some(Solved {
            score: fallback.len() as i64,
            answer: Answer { moves: fallback },
            optimal: true,
            nodes: self.nodes,
        })
    }
}

const _: () = assert!(CELLS == 48);
