//! Plays a batch of game pairs on the task's own engine: each pair of bots is the
//! two-agent match of [`LeagueConfig::pair_plan`], and game pair `g` of it is games
//! `2g` and `2g + 1` of that match (`Prepared::play`), so a league game and the same
//! game of `arena match --seed S` are one and the same.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::config::{ENDLESS_GAMES_PER_CASE, LeagueConfig};
use super::store::{Bot, BotId, GameRow, PlayedPair};
use crate::external::{ExecAgent, ExternalRuntime};
use crate::plan::Plan;
use crate::record::{JobKey, Outcome};
use crate::rundir::results::{Codec, csv_cell};
use crate::task::Prepared;

/// One game pair to play: global pair `g` of bots `a < b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Job {
    pub a: BotId,
    pub b: BotId,
    pub g: u64,
}

/// A pair of bots, ready to play: its match's plan, prepared, and the row codec.
pub struct PairPlayer {
    pub plan: Plan,
    prepared: Arc<dyn Prepared>,
    codec: Codec,
    /// Each case as a `games.csv` cell.
    case_cells: Vec<String>,
    exec: bool,
}

impl PairPlayer {
    pub fn new(config: &LeagueConfig, a: &Bot, b: &Bot) -> Result<PairPlayer> {
        let plan = config.pair_plan(
            [a.name.as_str(), b.name.as_str()],
            [a.spec.as_str(), b.spec.as_str()],
            ENDLESS_GAMES_PER_CASE,
        )?;
        let prepared = plan.prepared.clone();
        let codec = Codec::new(&plan);
        let case_cells = plan.cases.iter().map(|c| csv_cell(c)).collect();
        let exec = plan
            .agents
            .iter()
            .any(|a| matches!(a.spec, agents::Spec::Exec { .. }));
        Ok(PairPlayer {
            plan,
            prepared,
            codec,
            case_cells,
            exec,
        })
    }

    /// The job of game `seat` (0 or 1) of global pair `g`.
    pub fn key(&self, g: u64, seat: u8) -> JobKey {
        let cases = self.plan.cases.len() as u64;
        JobKey {
            index: 2 * g + u64::from(seat),
            matchup: 0,
            case: (g % cases) as u16,
            pair: (g / cases) as u32,
            game: seat,
        }
    }

    /// Plays global pair `g`.
    pub fn play(&self, job: Job, external: Option<&Arc<ExternalRuntime>>) -> Result<PlayedPair> {
        let mut rows = Vec::with_capacity(2);
        let mut line = Vec::with_capacity(160);
        for seat in 0..2u8 {
            let key = self.key(job.g, seat);
            let record = self.prepared.play(&key, external, false)?;
            let Outcome::Duel(duel) = record.outcome else {
                bail!("a league plays two-seat games");
            };
            line.clear();
            self.codec.write(&record, &mut line);
            let tail = self.tail(&key, duel.first, &line)?;
            rows.push(GameRow {
                score_a: duel.score_a,
                termination: record.termination,
                forfeit: duel.forfeit,
                first: duel.first,
                tail,
            });
        }
        let key = self.key(job.g, 0);
        let second = rows.pop().context("two games")?;
        let first = rows.pop().context("two games")?;
        Ok(PlayedPair {
            a: job.a,
            b: job.b,
            g: job.g,
            case: key.case,
            deal: key.pair,
            games: [first, second],
        })
    }

    /// Game `seat` of global pair `g` again, drawn move by move (the page's viewer);
    /// `None` for a pair with an external bot (a stranger's bot need not play the same
    /// game twice, and the page starts no process).
    pub fn replay(&self, g: u64, seat: u8) -> Result<Option<String>> {
        if self.exec {
            return Ok(None);
        }
        let (text, _) = self.prepared.replay(&self.key(g, seat), None)?;
        Ok(Some(text))
    }

    /// The row from `score_a` on: what follows `game,case,pair,first,agent_a,agent_b,`.
    fn tail(&self, key: &JobKey, first: crate::record::Side, line: &[u8]) -> Result<String> {
        let names = &self.plan.agents;
        let head = format!(
            "{},{},{},{},{},{},",
            key.index,
            self.case_cells[usize::from(key.case)],
            key.pair,
            first.as_str(),
            csv_cell(&names[0].name),
            csv_cell(&names[1].name),
        );
        let text = std::str::from_utf8(line).context("a row that is not UTF-8")?;
        let Some(tail) = text.strip_prefix(&head) else {
            bail!("the games.csv row {text:?} does not start as the league expects ({head:?})");
        };
        Ok(tail.trim_end_matches('\n').to_owned())
    }
}

/// Builds the pairs' players once and keeps them (a bot's spec never changes).
#[derive(Default)]
pub struct Players {
    players: HashMap<(BotId, BotId), Arc<PairPlayer>>,
}

impl Players {
    pub fn get(&mut self, config: &LeagueConfig, a: &Bot, b: &Bot) -> Result<Arc<PairPlayer>> {
        if let Some(p) = self.players.get(&(a.id, b.id)) {
            return Ok(Arc::clone(p));
        }
        let p = Arc::new(
            PairPlayer::new(config, a, b)
                .with_context(|| format!("bots {:?} and {:?}", a.name, b.name))?,
        );
        self.players.insert((a.id, b.id), Arc::clone(&p));
        Ok(p)
    }
}

/// Plays `jobs` on `pool`, in any order, and returns them in the order given.
/// External bots get a runtime per pair for this batch (its processes end with it).
pub fn play_batch(
    pool: &rayon::ThreadPool,
    players: &HashMap<(BotId, BotId), Arc<PairPlayer>>,
    jobs: &[Job],
    logs: &std::path::Path,
) -> Result<Vec<PlayedPair>> {
    let mut runtimes: HashMap<(BotId, BotId), Arc<ExternalRuntime>> = HashMap::new();
    for job in jobs {
        let player = &players[&(job.a, job.b)];
        if !player.exec || runtimes.contains_key(&(job.a, job.b)) {
            continue;
        }
        let mut games: HashMap<(usize, String), usize> = HashMap::new();
        for j in jobs.iter().filter(|j| (j.a, j.b) == (job.a, job.b)) {
            let case = player.plan.cases[(j.g % player.plan.cases.len() as u64) as usize].clone();
            for agent in 0..2 {
                *games.entry((agent, case.clone())).or_default() += 2;
            }
        }
        let agents = player
            .plan
            .agents
            .iter()
            .map(|a| match &a.spec {
                agents::Spec::Exec { command } => Some(ExecAgent {
                    name: a.name.clone(),
                    command: command.clone(),
                }),
                _ => None,
            })
            .collect();
        let dir = logs.join(format!("{}-{}", job.a, job.b));
        std::fs::create_dir_all(&dir)?;
        let rt = ExternalRuntime::new(agents, &dir, player.plan.limits.clone(), games)
            .context("starting the runtime for external bots")?;
        crate::sandbox::report::announce(
            rt.enforcement(),
            &crate::external::policy(&player.plan.limits, Vec::new()),
            player.plan.seed,
            |_| Ok(()),
        )?;
        runtimes.insert((job.a, job.b), Arc::new(rt));
    }
    let played = pool.install(|| {
        jobs.par_iter()
            .map(|job| players[&(job.a, job.b)].play(*job, runtimes.get(&(job.a, job.b))))
            .collect::<Result<Vec<_>>>()
    });
    for rt in runtimes.values() {
        rt.shutdown();
    }
    played
}
