//! DominoPeg: Algorithm X over bit sets (`arena_core::puzzle::dominopeg::Searcher`),
//! which the referee also uses to check `none`; a column-by-column scan that is much
//! faster on every hole set ([`ColumnScan`]); and the census of the whole puzzle
//! ([`census`]).

mod census;
mod column_scan;
mod mirror_scan;

use arena_core::puzzle::dominopeg::{Answer, DominoPeg, Instance, Placement, Searcher};

pub use census::{Census, FIVE_SETS, census, census_slice, five_set_rank};
pub use mirror_scan::MirrorScan;

use super::FoldMap;
use super::{Solved, Solver};
use column_scan::{Bounds, Counter, Refuted, Scan, Table, slack};

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
        answered(found, finished, nodes)
    }
}

/// What a finished (or stopped) search answers: its solution, else `none` if it
/// finished, else nothing.
fn answered(found: Option<Vec<Placement>>, finished: bool, nodes: u64) -> Option<Solved<Answer>> {
    let answer = match found {
        Some(s) => Answer::Solution(s),
        None if finished => Answer::None,
        None => return None,
    };
    Some(Solved {
        answer,
        score: 1,
        optimal: true,
        nodes,
    })
}

/// Finds a solution or proves there is none, filling the board column by column and
/// refuting a branch as soon as a circle the scan has passed is empty and may not be
/// (`column_scan`). Same answers as [`ExactCover`], in far fewer nodes.
pub struct ColumnScan {
    table: Table,
    /// Refuted states, kept from solve to solve (emptied by a generation bump).
    refuted: Refuted,
}

impl Default for ColumnScan {
    fn default() -> Self {
        ColumnScan {
            table: Table::new(),
            refuted: Refuted::default(),
        }
    }
}

impl Solver<DominoPeg> for ColumnScan {
    fn solve(&mut self, instance: &Instance, max_nodes: u64) -> Option<Solved<Answer>> {
        let Some(slack) = slack(instance.holes) else {
            return answered(None, true, 0);
        };
        let mut found = None;
        let table = self.table.avoiding(instance.holes);
        let bounds = Bounds {
            table: &table,
            holes: instance.holes,
            slack,
        };
        let mut scan = Scan::new(
            bounds,
            max_nodes,
            |s: &[Placement], _| {
                found = Some(s.to_vec());
                false
            },
            &mut self.refuted,
        );
        let finished = scan.go(0, 0, 0).is_ok();
        let nodes = scan.nodes;
        let finished = finished || found.is_some();
        answered(found, finished, nodes)
    }
}

impl ColumnScan {
    /// The number of solutions leaving every circle of `holes` empty (and, with fewer
    /// than five holes, any others), by the same scan with every state's count
    /// memoised.
    pub fn count(&self, holes: u64) -> u64 {
        let Some(slack) = slack(holes) else {
            return 0;
        };
        let table = self.table.avoiding(holes);
        let mut counter = Counter {
            bounds: Bounds {
                table: &table,
                holes,
                slack,
            },
            counts: FoldMap::default(),
        };
        counter.count(0, 0, 0)
    }
}
