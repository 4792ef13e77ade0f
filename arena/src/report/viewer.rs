//! The games `report.html` embeds for its viewer: replayed from the seed (the record keeps
//! no moves), in parallel, a fixed number whatever the run's size, so the page stays small
//! and quick to write.

use anyhow::Result;
use rayon::prelude::*;

use super::summary::Report;
use crate::plan::Plan;
use serde::Serialize;

/// One game replayed move by move for the viewer.
#[derive(Clone, Debug, Serialize)]
pub struct Replayed {
    pub game: u64,
    /// The replay's first line (case, pair, who is who).
    pub title: String,
    /// (caption, drawing) per position: the start, then after each move.
    pub frames: Vec<(String, String)>,
    /// The closing line (result and termination).
    pub result: String,
}

impl Replayed {
    /// Splits the text of `arena replay` (blocks separated by blank lines: the header,
    /// `start` and a drawing, one block per move, an optional forfeit, the result).
    pub fn from_text(game: u64, text: &str) -> Replayed {
        let mut blocks = text.split("\n\n").map(str::trim_end);
        let title = blocks.next().unwrap_or_default().to_owned();
        let mut frames: Vec<(String, String)> = Vec::new();
        let mut result = String::new();
        for block in blocks.filter(|b| !b.is_empty()) {
            let (caption, drawing) = block.split_once('\n').unwrap_or((block, ""));
            if caption.starts_with("result:") {
                result = caption.to_owned();
            } else if drawing.is_empty() {
                // A forfeit: no new position; shown on the last frame.
                let last = frames.last().map_or(String::new(), |f| f.1.clone());
                frames.push((caption.to_owned(), last));
            } else {
                frames.push((caption.to_owned(), drawing.to_owned()));
            }
        }
        Replayed {
            game,
            title,
            frames,
            result,
        }
    }
}

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
            let (text, _) = plan.prepared.replay(&plan.schedule.job(i), None)?;
            Ok(Replayed::from_text(i, &text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_text_splits_into_frames() {
        let text = "game 3: case 5,4, pair 1\n\nstart\nline: [1|2]\n A: x\n\n1. A (me) plays L0\nline: [2|2]\n\nB (you) forfeits: timeout (slow)\n\nresult: me 1 - 0 you (timeout)\n";
        let r = Replayed::from_text(3, text);
        assert_eq!(r.title, "game 3: case 5,4, pair 1");
        assert_eq!(r.frames.len(), 3);
        assert_eq!(r.frames[0], ("start".into(), "line: [1|2]\n A: x".into()));
        assert_eq!(r.frames[1].0, "1. A (me) plays L0");
        assert_eq!(
            r.frames[2],
            (
                "B (you) forfeits: timeout (slow)".into(),
                "line: [2|2]".into()
            )
        );
        assert_eq!(r.result, "result: me 1 - 0 you (timeout)");
    }
}
