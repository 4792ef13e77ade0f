//! The games `report.html` embeds for its viewer: replayed from the seed (the record keeps
//! no moves), in parallel, a fixed number whatever the run's size, so the page stays small
//! and quick to write.

use anyhow::Result;
use rayon::prelude::*;

use super::html::Replayed;
use super::summary::Report;
use crate::config::Plan;

/// The first games of the run replayed for the viewer (game order interleaves the cases
/// and pairings, so these cover every case of the first pairings).
pub const FIRST_REPLAYED: usize = 40;
/// Forfeited games replayed besides, from each agent's first forfeits.
pub const FORFEITS_REPLAYED: usize = 8;

/// The games to replay: the first [`FIRST_REPLAYED`] listed, then the first forfeits,
/// leaving out games with an external agent (replaying those would start the bots again).
pub fn chosen(plan: &Plan, report: &Report) -> Vec<u64> {
    let matchups = plan.matchups();
    let builtin = |m: u16| {
        let (a, b) = matchups[usize::from(m)];
        ![a, b]
            .iter()
            .any(|&i| matches!(plan.agents[i].spec, agents::Spec::Exec { .. }))
    };
    let mut games: Vec<u64> = report
        .games
        .iter()
        .filter(|g| builtin(g.matchup))
        .take(FIRST_REPLAYED)
        .map(|g| g.index)
        .collect();
    let mut forfeits: Vec<u64> = report
        .agents
        .iter()
        .flat_map(|a| a.first_forfeits.iter().map(|f| f.game))
        .filter(|i| !games.contains(i))
        .collect();
    forfeits.sort_unstable();
    forfeits.dedup();
    let schedule = plan.schedule();
    games.extend(
        forfeits
            .into_iter()
            .filter(|&i| builtin(schedule.job(i).matchup))
            .take(FORFEITS_REPLAYED),
    );
    games.sort_unstable();
    games
}

/// Replays `games` of `plan` (built-in agents only) into the viewer's frames.
pub fn replay(plan: &Plan, games: &[u64]) -> Result<Vec<Replayed>> {
    if games.is_empty() {
        return Ok(Vec::new());
    }
    let prepared = plan.task().prepare(plan)?;
    let schedule = plan.schedule();
    games
        .par_iter()
        .map(|&i| {
            let (text, _) = prepared.replay(&schedule.job(i), None)?;
            Ok(Replayed::from_text(i, &text))
        })
        .collect()
}
