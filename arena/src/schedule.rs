//! The schedule: every game of a run, in the fixed order that numbers it.
//! Order: matchup, then case, then pair, then the pair's two games.

use crate::config::Plan;

/// One game to play. `index` is its row number in `games.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub index: u64,
    pub matchup: u8,
    /// Agent indices into the plan: `a` is agent A of the row.
    pub a: usize,
    pub b: usize,
    /// Index into the plan's cases.
    pub case: usize,
    pub pair: u32,
    /// 0 or 1: which game of the pair.
    pub game: u8,
}

pub fn jobs(plan: &Plan) -> Vec<Job> {
    let pairs = plan.games_per_case / 2;
    let mut jobs = Vec::new();
    for (m, (a, b)) in plan.matchups().into_iter().enumerate() {
        for case in 0..plan.cases.len() {
            for pair in 0..pairs {
                for game in 0..2 {
                    jobs.push(Job {
                        index: jobs.len() as u64,
                        matchup: m as u8,
                        a,
                        b,
                        case,
                        pair,
                        game,
                    });
                }
            }
        }
    }
    jobs
}
