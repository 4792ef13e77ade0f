//! `league.toml`: what every game of the league depends on (game, cases, seed, limits)
//! and the verdicts' bounds. Written once by `init`; the seed and cases never change.

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::config::{AgentEntry, Cases, Config, NamedAgent, SeedChoice};
use crate::plan::{Plan, SprtConfig};
use crate::rundir::results::GameCells;
use crate::setup::Limits;

/// The league's config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeagueConfig {
    /// A task name: `dominoes` or `quarto`.
    pub game: String,
    /// The cases, canonical; every pair of bots plays all of them, deal by deal.
    pub cases: Vec<String>,
    /// The master seed of every deal and every agent's private randomness.
    pub seed: u64,
    /// The GSPRT each candidate runs against the strongest benchmark (logistic Elo).
    #[serde(default = "default_sprt")]
    pub sprt: SprtConfig,
    /// Limits of external (`exec:`) bots, as a config's `[limits]`.
    #[serde(default)]
    pub limits: Limits,
}

/// H0 "no better than the strongest benchmark" (Elo 0) against H1 "10 Elo better", at
/// 5 % errors each way: fishtest's habit of a small positive `elo1`.
fn default_sprt() -> SprtConfig {
    SprtConfig {
        elo0: 0.0,
        elo1: 10.0,
        alpha: 0.05,
        beta: 0.05,
    }
}

/// A pair's schedule is as long as this many games per case: far beyond any league.
pub const ENDLESS_GAMES_PER_CASE: u32 = 2_000_000_000;

impl LeagueConfig {
    /// A new league's config: cases made canonical (`None`: the task's default cases),
    /// the seed drawn when `random`.
    pub fn new(game: &str, cases: Option<&str>, seed: &str, sprt: SprtConfig) -> Result<Self> {
        let seed = match seed {
            "random" => SeedChoice::Named("random".into()),
            n => SeedChoice::Fixed(
                n.parse()
                    .map_err(|_| anyhow::anyhow!("--seed {n:?}: a number or `random`"))?,
            ),
        };
        let probe = Config {
            game: game.to_owned(),
            cases: cases.map(|c| Cases::Text(c.to_owned())),
            games_per_case: Some(2),
            seed: Some(seed),
            agents: vec![named("a", "random"), named("b", "random")],
            concurrency: None,
            out: None,
            sprt: Some(sprt),
            limits: None,
            gauntlet: Vec::new(),
        };
        let plan = Plan::resolve(&probe)?;
        if plan.is_solo() {
            bail!("a league plays two-seat games (dominoes, quarto), not {game}");
        }
        Ok(LeagueConfig {
            game: plan.task.name().to_owned(),
            cases: plan.cases.clone(),
            seed: plan.seed,
            sprt,
            limits: Limits::default(),
        })
    }

    /// Reads `league.toml`, checking what it names.
    pub fn parse(text: &str) -> Result<Self> {
        let config: LeagueConfig = toml::from_str(text)?;
        config.sprt.sprt().context("in [sprt]")?;
        if config.cases.is_empty() {
            bail!("a league needs at least one case");
        }
        // Resolves a pair to check the game and its cases.
        config.pair_plan(["a", "b"], ["random", "random"], 2)?;
        Ok(config)
    }

    /// `league.toml`'s text, without the legacy `require_sandbox = false` (it has no
    /// effect; `Limits` keeps it so old configs parse, and an old `league.toml` holding it
    /// still opens). Only here: a run directory's `config.toml`, and the hash `--resume`
    /// and `verify` compare, keep it, so they stay byte-identical.
    pub fn to_toml(&self) -> Result<String> {
        let full = toml::to_string(self)?;
        let lean = full.replacen("\nrequire_sandbox = false\n", "\n", 1);
        // Left out only where the text still reads back as this very config.
        let same = toml::from_str::<LeagueConfig>(&lean).is_ok_and(|c| c == *self);
        Ok(if same { lean } else { full })
    }

    /// The two-agent match a pair of bots plays: `names[0]` is agent A (the lower bot
    /// id). Its games do not depend on `games_per_case`, only its length does.
    pub fn pair_plan(
        &self,
        names: [&str; 2],
        specs: [&str; 2],
        games_per_case: u32,
    ) -> Result<Plan> {
        let config = Config {
            game: self.game.clone(),
            cases: Some(Cases::List(self.cases.clone())),
            games_per_case: Some(games_per_case),
            seed: Some(SeedChoice::Fixed(self.seed)),
            agents: vec![named(names[0], specs[0]), named(names[1], specs[1])],
            concurrency: None,
            out: None,
            sprt: None,
            limits: Some(self.limits.clone()),
            gauntlet: Vec::new(),
        };
        Ok(Plan::resolve(&config)?)
    }

    /// How the league stores its games: its task's own cells of a row.
    pub fn game_cells(&self) -> Result<GameCells> {
        Ok(GameCells::new(crate::task::lookup(&self.game)?))
    }
}

fn named(name: &str, spec: &str) -> AgentEntry {
    AgentEntry::Named(NamedAgent {
        name: Some(name.to_owned()),
        spec: spec.to_owned(),
    })
}
