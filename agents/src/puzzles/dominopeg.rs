//! DominoPeg: Algorithm X over bit sets (`arena_core::puzzle::dominopeg::Searcher`),
//! which the referee also uses to check `none`.

use arena_core::puzzle::dominopeg::{Answer, DominoPeg, Instance, Searcher};

use super::{Solved, Solver};

/// Finds a solution or proves there is none.
#[derive(Default)]
pub struct ExactCover {
    searcher: Searcher,
}

impl Solver<DominoPeg> for ExactCover {
    fn solve(&mut self, instance: &Instance, max_nodes: u64) -> Option<Solved<Answer>> {
        let mut found = None;
        let (nodes, finished) = self
            .searcher
            .search_within(instance.holes, max_nodes, &mut |s| {
                found = Some(s.to_vec());
                false
            });
        match found {
            Some(s) => Some(Solved {
                answer: Answer::Solution(s),
                score: 1,
                optimal: true,
                nodes,
            }),
            None if finished => Some(Solved {
                answer: Answer::None,
                score: 1,
                optimal: true,
                nodes,
            }),
            None => None,
        }
    }
}
