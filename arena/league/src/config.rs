//! `league.toml`: what every game of the league depends on (game, cases, seed, limits)
//! and the verdicts' bounds. Written once by `init`; the seed and cases never change.
//! Read into the task's own handle and its checked cases once, when the league opens:
//! a pair's plan is built from them directly.

use std::fmt;
use std::ops::Deref;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use arena_run::config::{Cases, SeedChoice, resolve_limits};
use arena_run::plan::{Plan, PlanAgent, Setup, SprtConfig};
use arena_run::rundir::results::GameCells;
use arena_run::setup::Limits;
use arena_run::task::{self, Task};

/// The league's config, checked: a two-seat task, its cases in canonical notation, valid
/// bounds and limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "LeagueToml", into = "LeagueToml")]
pub struct LeagueConfig {
    /// The game every pair of bots plays.
    pub game: LeagueGame,
    /// The cases, canonical and checked by the task; every pair of bots plays all of
    /// them, deal by deal.
    pub cases: Vec<String>,
    /// The master seed of every deal and every agent's private randomness.
    pub seed: u64,
    /// The GSPRT each candidate runs against the strongest benchmark (logistic Elo).
    pub sprt: SprtConfig,
    /// Limits of external (`exec:`) bots, as a config's `[limits]`, resolved (its
    /// `read_paths` absolute and present).
    pub limits: Limits,
}

/// `league.toml` as the file holds it.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LeagueToml {
    /// A task name: `dominoes` or `quarto`.
    game: String,
    cases: Vec<String>,
    seed: u64,
    #[serde(default = "default_sprt")]
    sprt: SprtConfig,
    #[serde(default)]
    limits: Limits,
}

/// A two-seat task of the registry: the game of a league.
#[derive(Clone, Copy)]
pub struct LeagueGame(&'static dyn Task);

impl LeagueGame {
    /// The task named `name`, which must have two seats.
    fn named(name: &str) -> Result<LeagueGame> {
        let task = task::lookup(name)?;
        if task.seats() != 2 {
            bail!("a league plays two-seat games (dominoes, quarto), not {name}");
        }
        Ok(LeagueGame(task))
    }
}

impl Deref for LeagueGame {
    type Target = dyn Task;
    fn deref(&self) -> &(dyn Task + 'static) {
        self.0
    }
}

impl PartialEq for LeagueGame {
    fn eq(&self, other: &LeagueGame) -> bool {
        self.0.name() == other.0.name()
    }
}

impl fmt::Debug for LeagueGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.name())
    }
}

impl TryFrom<LeagueToml> for LeagueConfig {
    /// Every cause, as one line (serde keeps only the text).
    type Error = String;

    fn try_from(file: LeagueToml) -> Result<LeagueConfig, String> {
        LeagueConfig::check(file).map_err(|e| format!("{e:#}"))
    }
}

impl From<LeagueConfig> for LeagueToml {
    fn from(config: LeagueConfig) -> LeagueToml {
        LeagueToml {
            game: config.game.name().to_owned(),
            cases: config.cases,
            seed: config.seed,
            sprt: config.sprt,
            limits: config.limits,
        }
    }
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
        let seed: SeedChoice = seed
            .parse()
            .map_err(|_| anyhow::anyhow!("--seed {seed:?}: a number or `random`"))?;
        let game = LeagueGame::named(game)?;
        LeagueConfig::check(LeagueToml {
            game: game.name().to_owned(),
            cases: Cases::listed(cases.map(|c| Cases::Text(c.to_owned())).as_ref(), game.0),
            seed: seed.resolve()?,
            sprt,
            limits: Limits::default(),
        })
    }

    /// Reads `league.toml`, checking what it names.
    pub fn parse(text: &str) -> Result<Self> {
        Ok(toml::from_str(text)?)
    }

    /// The file's config, checked once: the game looked up, the bounds, the limits, and
    /// the cases as the task parses them (named canonically).
    fn check(file: LeagueToml) -> Result<LeagueConfig> {
        file.sprt.sprt().context("in [sprt]")?;
        if file.cases.is_empty() {
            bail!("a league needs at least one case");
        }
        let mut config = LeagueConfig {
            game: LeagueGame::named(&file.game)?,
            cases: file.cases,
            seed: file.seed,
            sprt: file.sprt,
            limits: resolve_limits(file.limits)?,
        };
        config.cases = config
            .pair_plan(["a", "b"], ["random", "random"], 2)?
            .setup
            .cases;
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

    /// How the league stores its games: its task's own cells of a row.
    pub fn game_cells(&self) -> GameCells {
        GameCells::new(self.game.0)
    }

    /// The two-agent match a pair of bots plays: `names[0]` is agent A (the lower bot
    /// id). Its games do not depend on `games_per_case`, only its length does. The same
    /// plan as `arena match` resolves from the config it stores (`config.toml`).
    pub fn pair_plan(
        &self,
        names: [&str; 2],
        specs: [&str; 2],
        games_per_case: u32,
    ) -> Result<Plan> {
        let agents = names
            .into_iter()
            .zip(specs)
            .map(|(name, spec)| {
                Ok(PlanAgent {
                    name: name.to_owned(),
                    spec: spec.parse()?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let setup = Setup {
            cases: self.cases.clone(),
            games_per_case,
            seed: self.seed,
            agents,
            sprt: None,
            limits: self.limits.clone(),
            gauntlet: Vec::new(),
            seats: self.game.seats(),
        };
        Ok(Plan::prepare(self.game.0, setup)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_run::config::Config;

    fn parse(text: &str) -> Result<LeagueConfig> {
        LeagueConfig::parse(text)
    }

    #[test]
    fn league_toml_reads_into_the_task_and_its_canonical_cases() {
        let config = parse("game = \"dominoes\"\ncases = [\"5, 4\", \"9,7\"]\nseed = 3\n").unwrap();
        assert_eq!(config.game.name(), "dominoes");
        assert_eq!(config.cases, ["5,4", "9,7"]);
        assert_eq!(config.sprt, default_sprt());
        // Written and read back: the same config, the same text.
        let text = config.to_toml().unwrap();
        assert_eq!(parse(&text).unwrap(), config);
        assert_eq!(parse(&text).unwrap().to_toml().unwrap(), text);
        for (text, needle) in [
            ("game = \"chess\"\ncases = [\"5,4\"]\nseed = 3\n", "chess"),
            (
                "game = \"puzzles\"\ncases = [\"dust\"]\nseed = 3\n",
                "two-seat",
            ),
            ("game = \"dominoes\"\ncases = [\"4,5\"]\nseed = 3\n", "4,5"),
            (
                "game = \"dominoes\"\ncases = [\"5,4\", \"5, 4\"]\nseed = 3\n",
                "twice",
            ),
            (
                "game = \"dominoes\"\ncases = []\nseed = 3\n",
                "at least one case",
            ),
            (
                "game = \"dominoes\"\ncases = [\"5,4\"]\nseed = 3\nsed = 4\n",
                "sed",
            ),
            (
                "game = \"quarto\"\ncases = [\"lines:0\"]\nseed = 3\n[sprt]\nelo0 = 5.0\nelo1 = 0.0\nalpha = 0.05\nbeta = 0.05\n",
                "[sprt]",
            ),
        ] {
            let err = format!("{:#}", parse(text).unwrap_err());
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    /// A pair's plan, built from the typed config, is the plan `arena match` resolves
    /// from the config a run directory of it stores: the same setup, so the same hash.
    #[test]
    fn a_pair_plan_is_the_plan_its_stored_config_resolves_to() {
        let config =
            LeagueConfig::new("quarto", Some("lines:0 squares:2"), "11", default_sprt()).unwrap();
        let plan = config
            .pair_plan(["v1", "random"], ["greedy", "random"], 6)
            .unwrap();
        assert_eq!(plan.cases, config.cases);
        let stored = Config::parse(&plan.to_toml(), std::path::Path::new("config.toml")).unwrap();
        let resolved = Plan::resolve(&stored).unwrap();
        assert_eq!(resolved, plan);
        assert_eq!(resolved.hash(), plan.hash());
        let err = config
            .pair_plan(["a", "b"], ["greedy", "Non sense"], 2)
            .unwrap_err();
        assert!(format!("{err:#}").contains("Non sense"), "{err:#}");
    }
}
