//! The games `report.html` embeds for its viewer: replayed from the seed (the record keeps
//! no moves), in parallel, a fixed number whatever the run's size, so the page stays small
//! and quick to write.

use anyhow::Result;
use rayon::prelude::*;
use serde::Serialize;

use super::summary::Report;
use crate::plan::Plan;
use crate::record::JobKey;
use crate::task::{Shown, ShownStep};

/// One game replayed move by move for the viewer.
#[derive(Clone, Debug, Serialize)]
pub struct Replayed {
    pub game: u64,
    /// The game's title (case, pair, who is who).
    pub title: String,
    /// (caption, drawing) per position: the start, then after each move.
    pub frames: Vec<(String, String)>,
    /// The closing line (result and termination).
    pub result: String,
}

impl Replayed {
    /// The viewer's frames of game `job` of `plan`, from its typed steps (worded as
    /// `arena replay` words them).
    pub fn new(plan: &Plan, job: &JobKey, shown: &Shown) -> Replayed {
        let (a, b) = plan.matchups()[usize::from(job.matchup)];
        let (name_a, name_b) = (&plan.agents[a].name, &plan.agents[b].name);
        let name = |seat| if seat == shown.seat_a { name_a } else { name_b };
        let mut frames: Vec<(String, String)> = Vec::with_capacity(shown.steps.len());
        let mut ply = 0;
        for step in &shown.steps {
            frames.push(match step {
                ShownStep::Start { drawing } => ("start".to_owned(), drawing.clone()),
                ShownStep::Move { seat, mv, drawing } => {
                    ply += 1;
                    let caption = format!("{ply}. {seat} ({}) plays {mv}", name(*seat));
                    (caption, drawing.clone())
                }
                ShownStep::Forfeit { seat, kind, detail } => {
                    let detail = crate::shown::escape_controls(detail);
                    let caption = format!("{seat} ({}) forfeits: {kind} ({detail})", name(*seat));
                    // No new position: the last one is shown again.
                    (
                        caption,
                        frames.last().map_or(String::new(), |f| f.1.clone()),
                    )
                }
            });
        }
        let result = shown.record.duel().map_or(String::new(), |d| {
            format!(
                "result: {name_a} {} - {} {name_b} ({})",
                d.score_a.as_str(),
                d.score_a.flipped().as_str(),
                shown.record.termination
            )
        });
        Replayed {
            game: job.index,
            title: format!(
                "game {}: case {}, pair {}, game {} of the pair; agent a = {name_a} (seat {}), agent b = {name_b}",
                job.index,
                plan.cases[usize::from(job.case)],
                job.pair,
                job.game,
                shown.seat_a
            ),
            frames,
            result,
        }
    }
}

/// The first games of the run replayed for the viewer (game order interleaves the cases
/// and pairings, so these cover every case of the first pairings).
const FIRST_REPLAYED: usize = 40;
/// Forfeited games replayed besides, from each agent's first forfeits.
const FORFEITS_REPLAYED: usize = 8;

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
    let schedule = plan.schedule;
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
    games
        .par_iter()
        .map(|&i| {
            let job = plan.schedule.job(i);
            Ok(Replayed::new(plan, &job, &plan.prepared.steps(&job)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Termination;

    fn plan() -> Plan {
        let text = "game = \"quarto\"\nseed = 5\ncases = [\"lines:0\"]\ngames_per_case = 2\nagents = [\"greedy\", \"random\"]\n";
        let config = crate::config::Config::parse(text, "test.toml".as_ref()).unwrap();
        Plan::resolve(&config).unwrap()
    }

    /// A game's frames say what `arena replay` prints, block by block.
    #[test]
    fn frames_are_worded_as_the_replay_prints_them() {
        let plan = plan();
        let prepared = &plan.prepared;
        let job = plan.schedule.job(1);
        let r = Replayed::new(&plan, &job, &prepared.steps(&job).unwrap());
        let (printed, record) = prepared.replay(&job, None).unwrap();
        assert_eq!(r.frames.len(), record.plies as usize + 1);
        let mut blocks = printed.split("\n\n").map(str::trim_end);
        assert_eq!(blocks.next(), Some(r.title.as_str()));
        for (caption, drawing) in &r.frames {
            assert_eq!(
                blocks.next(),
                Some(format!("{caption}\n{drawing}").as_str())
            );
        }
        assert_eq!(blocks.next(), Some(r.result.as_str()));
        assert_eq!(blocks.next(), None);
    }

    /// A forfeit adds a frame on the last position.
    #[test]
    fn a_forfeit_is_shown_on_the_last_position() {
        let plan = plan();
        let prepared = &plan.prepared;
        let job = plan.schedule.job(0);
        let mut shown = prepared.steps(&job).unwrap();
        shown.steps.truncate(2);
        shown.steps.push(ShownStep::Forfeit {
            seat: shown.seat_a.other(),
            kind: Termination::Timeout,
            detail: "slow".into(),
        });
        let r = Replayed::new(&plan, &job, &shown);
        assert_eq!(r.frames.len(), 3);
        assert_eq!(r.frames[0].0, "start");
        assert!(r.frames[1].0.starts_with("1. "), "{:?}", r.frames[1]);
        assert_eq!(r.frames[2].1, r.frames[1].1);
        assert_eq!(
            r.frames[2].0,
            format!("{} (random) forfeits: timeout (slow)", shown.seat_a.other())
        );
    }
}
