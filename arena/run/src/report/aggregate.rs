//! The aggregate: per-matchup, per-case counts built record by record in game order
//! (an observer), from which every exporter reads the same [`Report`].

use anyhow::{Context, Result};

use super::summary::{
    AgentOutcomes, CellReport, FieldReport, ForfeitNote, GameNote, MatchupReport, Report,
    SprtReport, Standing,
};
use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::{Duel, Record, Score, Side, Termination};
use crate::stats::bradley_terry::{self, Encounter};
use crate::stats::{Pentanomial, Sprt, SprtDecision, Wdl};

/// Running counts for one cell (a matchup, over one case or over all).
#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub wdl: Wdl,
    pub pairs: Pentanomial,
    /// Forfeits by agent A and by agent B, per kind (in `Termination::FORFEITS` order).
    pub forfeits: [[u64; Termination::FORFEITS.len()]; 2],
    /// The open pair's first game, in half points.
    open_pair: Option<u8>,
}

impl Cell {
    /// Its row of the report.
    fn report(&self, a: &str, b: &str, case: &str) -> CellReport {
        CellReport::new((a, b, case), &self.wdl, &self.pairs, &self.forfeits)
    }

    /// Counts one game. Scores are counted as the enum they are (no floats): this runs
    /// once per game on the engine's ordering thread, which fast games keep busy.
    fn add(&mut self, duel: &Duel, termination: Termination) {
        let halves = match duel.score_a {
            Score::Loss => {
                self.wdl.losses += 1;
                0
            }
            Score::Draw => {
                self.wdl.draws += 1;
                1
            }
            Score::Win => {
                self.wdl.wins += 1;
                2
            }
        };
        match self.open_pair.take() {
            None => self.open_pair = Some(halves),
            // The pair's score in quarters is the sum of its games' halves.
            Some(first) => self.pairs.0[usize::from(first + halves)] += 1,
        }
        if let Some(who) = duel.forfeit
            && let Some(kind) = Termination::FORFEITS.iter().position(|&f| f == termination)
        {
            self.forfeits[usize::from(who == Side::B)][kind] += 1;
        }
    }

    pub fn games(&self) -> u64 {
        self.wdl.wins + self.wdl.draws + self.wdl.losses
    }
}

/// Everything the reports need, built record by record in game order.
pub struct Tally {
    /// Plan indices of each matchup's agents.
    pairings: Vec<(usize, usize)>,
    agents: Vec<String>,
    gauntlet: bool,
    seed: u64,
    names: Vec<(String, String)>,
    cases: Vec<String>,
    /// Records seen.
    pub games: u64,
    /// `cells[matchup][case]`; the overall cell is kept separately.
    cells: Vec<Vec<Cell>>,
    overall: Vec<Cell>,
    sprt: Option<Sprt>,
    /// Per agent: how its games ended, and its forfeits.
    outcomes: Vec<AgentOutcomes>,
    /// The first [`GAMES_LISTED`] games, for the report's game list.
    notes: Vec<GameNote>,
}

/// Games listed one by one in `report.html`; later ones are only counted.
pub const GAMES_LISTED: usize = 5_000;
/// Forfeits whose reason is kept, per agent.
const FORFEITS_KEPT: usize = 5;

impl Tally {
    pub fn new(plan: &Plan) -> Result<Tally> {
        let names: Vec<(String, String)> = plan
            .matchups()
            .iter()
            .map(|&(a, b)| (plan.agents[a].name.clone(), plan.agents[b].name.clone()))
            .collect();
        let sprt = match plan.sprt {
            Some(s) => Some(s.sprt()?),
            None => None,
        };
        Ok(Tally {
            pairings: plan.matchups(),
            agents: plan.agents.iter().map(|a| a.name.clone()).collect(),
            gauntlet: plan.is_gauntlet(),
            seed: plan.seed,
            cells: vec![vec![Cell::default(); plan.cases.len()]; names.len()],
            overall: vec![Cell::default(); names.len()],
            names,
            cases: plan.cases.clone(),
            games: 0,
            sprt,
            outcomes: plan
                .agents
                .iter()
                .map(|a| AgentOutcomes {
                    name: a.name.clone(),
                    ended: Termination::all(plan.task.endings())
                        .into_iter()
                        .map(|t| (t, 0))
                        .collect(),
                    ..AgentOutcomes::default()
                })
                .collect(),
            notes: Vec::new(),
        })
    }

    pub fn add(&mut self, record: &Record) -> Result<()> {
        let Some(duel) = record.duel() else {
            anyhow::bail!("a puzzle attempt in a games run");
        };
        let (m, c) = (
            usize::from(record.key.matchup),
            usize::from(record.key.case),
        );
        self.cells[m][c].add(duel, record.termination);
        self.overall[m].add(duel, record.termination);
        self.games += 1;
        let kind = self.outcomes[0]
            .ended
            .iter()
            .position(|&(t, _)| t == record.termination)
            .context("a termination of another task")?;
        let (a, b) = self.pairings[m];
        self.outcomes[a].ended[kind].1 += 1;
        self.outcomes[b].ended[kind].1 += 1;
        if let Some(side) = duel.forfeit {
            let who = &mut self.outcomes[if side == Side::A { a } else { b }];
            who.forfeited += 1;
            if who.first_forfeits.len() < FORFEITS_KEPT {
                who.first_forfeits.push(ForfeitNote {
                    game: record.key.index,
                    kind: record.termination,
                    reason: record.reason.clone(),
                });
            }
        }
        if self.notes.len() < GAMES_LISTED {
            self.notes.push(GameNote {
                index: record.key.index,
                matchup: record.key.matchup,
                case: record.key.case,
                score_a: duel.score_a.as_f64(),
                termination: record.termination,
                forfeit: duel.forfeit,
                plies: record.plies,
            });
        }
        Ok(())
    }

    fn sprt_llr(&self) -> Option<(f64, Sprt)> {
        let sprt = self.sprt?;
        Some((sprt.llr_pentanomial(&self.overall[0].pairs), sprt))
    }

    pub fn report(&self) -> Report {
        let matchups = self
            .names
            .iter()
            .enumerate()
            .map(|(m, (a, b))| {
                let mut cases: Vec<CellReport> = self.cells[m]
                    .iter()
                    .zip(&self.cases)
                    .filter(|(cell, _)| cell.games() > 0)
                    .map(|(cell, case)| cell.report(a, b, case))
                    .collect();
                let overall = self.overall[m].report(a, b, "all");
                let sprt = (m == 0)
                    .then(|| self.sprt_llr())
                    .flatten()
                    .map(|(llr, sprt)| {
                        let (lower, upper) = sprt.bounds();
                        SprtReport {
                            elo0: sprt.elo0,
                            elo1: sprt.elo1,
                            alpha: sprt.alpha,
                            beta: sprt.beta,
                            llr,
                            lower,
                            upper,
                            decision: match sprt.decision(llr) {
                                Some(SprtDecision::AcceptH1) => "H1",
                                Some(SprtDecision::AcceptH0) => "H0",
                                None => "none",
                            },
                        }
                    });
                cases.shrink_to_fit();
                MatchupReport {
                    a: self.pairings[m].0,
                    b: self.pairings[m].1,
                    agent_a: a.clone(),
                    agent_b: b.clone(),
                    overall,
                    cases,
                    sprt,
                }
            })
            .collect();
        Report {
            matchups,
            field: (self.agents.len() > 2).then(|| self.field()),
            cases: self.cases.clone(),
            agents: self.outcomes.clone(),
            games: self.notes.clone(),
            games_total: self.games,
        }
    }

    /// Standings from one Bradley–Terry fit over every pairing's games, intervals from
    /// the bootstrap over pairs seeded with the run seed. Read from the per-pairing
    /// counts, so the order the games came in does not matter.
    fn field(&self) -> FieldReport {
        let encounters: Vec<Encounter> = self
            .pairings
            .iter()
            .zip(&self.overall)
            .map(|(&(a, b), cell)| Encounter {
                a,
                b,
                games: cell.wdl,
                pairs: cell.pairs,
            })
            .collect();
        let ratings = bradley_terry::rate(self.agents.len(), &encounters, self.seed);
        let mut standings: Vec<Standing> = ratings
            .iter()
            .enumerate()
            .map(|(agent, r)| {
                let mut wdl = Wdl::default();
                for e in encounters.iter() {
                    if e.a == agent {
                        wdl += e.games;
                    } else if e.b == agent {
                        wdl += Wdl::new(e.games.losses, e.games.draws, e.games.wins);
                    }
                }
                Standing {
                    agent,
                    name: self.agents[agent].clone(),
                    games: wdl.games(),
                    points: wdl.points(),
                    score: super::summary::round(100.0 * wdl.score(), 2),
                    elo: super::summary::round(r.elo, 1),
                    elo_low: super::summary::round(r.low, 1),
                    elo_high: super::summary::round(r.high, 1),
                }
            })
            .collect();
        standings.sort_by(|x, y| y.elo.total_cmp(&x.elo).then(x.agent.cmp(&y.agent)));
        FieldReport {
            agents: self.agents.clone(),
            gauntlet: self.gauntlet,
            standings,
        }
    }
}

impl Observer for Tally {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        self.add(record)?;
        Ok(Flow::Continue)
    }
}
