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
    walk: Walk,
}

/// How a search below a bound ended.
enum Outcome {
    Found,
    Refuted,
    OutOfBudget,
}

/// What every IDA* here keeps while it searches: the moves down to the current board
/// and the nodes counted against the budget.
#[derive(Default)]
struct Walk {
    path: Vec<Move>,
    nodes: u64,
    max_nodes: u64,
}

impl Walk {
    fn start(&mut self, max_nodes: u64) {
        self.path.clear();
        self.nodes = 0;
        self.max_nodes = max_nodes;
    }

    /// Counts a node: `false` once past the budget.
    #[inline]
    fn enter(&mut self) -> bool {
        self.nodes += 1;
        self.nodes <= self.max_nodes
    }
}

/// An IDA* over Dust boards, as [`deepen`] drives it.
trait Deepening {
    fn walk(&mut self) -> &mut Walk;

    /// Searches for an answer of at most `bound` moves, every shorter one being refuted
    /// (so one found is optimal), from an empty path; on [`Outcome::Found`] the walk's
    /// path holds it.
    fn iterate(&mut self, instance: &Board, bound: u32) -> Outcome;

    /// The answer to give when the budget runs out, `greedy` being the greedy one.
    fn past_budget(&mut self, _instance: &Board, greedy: Vec<Move>) -> Vec<Move> {
        greedy
    }
}

/// The deepening loop the solvers share: iterations from `bound` up, while shorter than
/// the greedy answer; past the budget, the solver's fallback answer, not proven.
fn deepen(solver: &mut impl Deepening, instance: &Board, mut bound: u32) -> Solved<Answer> {
    let greedy = greedy(instance);
    let solved = |moves: Vec<Move>, optimal, nodes| Solved {
        score: moves.len() as i64,
        answer: Answer { moves },
        optimal,
        nodes,
    };
    while (bound as usize) < greedy.len() {
        solver.walk().path.clear();
        match solver.iterate(instance, bound) {
            Outcome::Found => {
                let walk = solver.walk();
                return solved(std::mem::take(&mut walk.path), true, walk.nodes);
            }
            Outcome::Refuted => bound += 1,
            Outcome::OutOfBudget => {
                let moves = solver.past_budget(instance, greedy);
                return solved(moves, false, solver.walk().nodes);
            }
        }
    }
    // Every answer shorter than the greedy one is refuted: it is optimal.
    solved(greedy, true, solver.walk().nodes)
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
        if !self.walk.enter() {
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
            self.walk.path.push(to_move(cell));
            match self.search(&next, remaining - 1) {
                Outcome::Refuted => {
                    self.walk.path.pop();
                }
                other => return other,
            }
        }
        let slot = self.refuted.entry(k).or_insert(0);
        *slot = (*slot).max(remaining as u8);
        Outcome::Refuted
    }
}

impl Deepening for Ida {
    fn walk(&mut self) -> &mut Walk {
        &mut self.walk
    }

    fn iterate(&mut self, instance: &Board, bound: u32) -> Outcome {
        self.search(instance, bound)
    }
}

impl Solver<Dust> for Ida {
    fn solve(&mut self, instance: &Board, max_nodes: u64) -> Option<Solved<Answer>> {
        self.refuted.clear();
        self.walk.start(max_nodes);
        Some(deepen(self, instance, lower_bound(instance)))
    }
}

const _: () = assert!(CELLS == 48);
