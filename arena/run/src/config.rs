//! Tournament configs: the TOML file format (`docs/config.md`) and its resolution into
//! a fully explicit plan, which is what a run directory stores and `--resume` reads.

use std::path::{Path, PathBuf};

use agents::Spec;
use serde::{Deserialize, Serialize};

pub use crate::plan::Plan;
pub use crate::setup::{Limits, PlanAgent, Setup, SprtConfig};
use crate::task::{Refusal, Task};

/// The master seed when a config or `arena match` names none: fixed, so two runs of
/// the same command are the same experiment.
const DEFAULT_SEED: u64 = 1;
const DEFAULT_GAMES_PER_CASE: u32 = 100;

/// A master seed as written in a config or on the command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SeedChoice {
    Fixed(u64),
    /// Only `"random"` is valid (checked when the plan is resolved).
    Named(String),
}

impl SeedChoice {
    /// Whether the seed is drawn from the operating system.
    pub fn is_random(&self) -> bool {
        matches!(self, SeedChoice::Named(s) if s == "random")
    }

    /// The seed: the number, or 64 bits drawn from the operating system.
    pub fn resolve(&self) -> Result<u64, ConfigError> {
        match self {
            SeedChoice::Fixed(n) => Ok(*n),
            SeedChoice::Named(s) if s == "random" => {
                let mut bytes = [0u8; 8];
                std::fs::File::open("/dev/urandom")
                    .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
                    .map_err(|e| ConfigError::Seed(format!("cannot draw a random seed: {e}")))?;
                Ok(u64::from_le_bytes(bytes))
            }
            SeedChoice::Named(s) => Err(ConfigError::Seed(format!(
                "{s:?}: expected a number or \"random\""
            ))),
        }
    }
}

impl std::str::FromStr for SeedChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<SeedChoice, String> {
        match s.parse::<u64>() {
            Ok(n) => Ok(SeedChoice::Fixed(n)),
            Err(_) if s == "random" => Ok(SeedChoice::Named(s.to_owned())),
            Err(e) => Err(format!("{s:?}: a number or `random` ({e})")),
        }
    }
}

/// A config file as written by a user. Everything optional has a documented default.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A task name from the registry: `dominoes` or `quarto`.
    pub game: String,
    /// `"all"`, one string of cases separated by spaces (`"5,4 9,7"`), or a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<Cases>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_per_case: Option<u32>,
    /// A number, or `"random"`: 64 bits from the operating system, drawn when the plan
    /// is resolved and stored in the run (a seed no bot can guess).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<SeedChoice>,
    /// Two or more; more than two play a round robin.
    pub agents: Vec<AgentEntry>,
    /// Games played at once; never changes results. Default: the machine's cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Output directory; default `results/<game>-<timestamp>/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<PathBuf>,
    /// Stop a two-agent match early once the SPRT decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtConfig>,
    /// Limits for external (`exec:`) agents; TCO09's by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// Agent names that play every other agent; the others do not play among themselves.
    /// Empty or absent: a round robin.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauntlet: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cases {
    Text(String),
    List(Vec<String>),
}

impl Cases {
    /// The cases `cases` lists for `task`: its defaults when absent or `"all"`; a text
    /// split on spaces. Not yet checked: the task does that.
    pub fn listed(cases: Option<&Cases>, task: &dyn Task) -> Vec<String> {
        match cases {
            None => task.default_cases(),
            Some(Cases::Text(t)) if t.trim() == "all" => task.default_cases(),
            Some(Cases::Text(t)) => t.split_whitespace().map(str::to_owned).collect(),
            Some(Cases::List(l)) => l.clone(),
        }
    }
}

/// An agent: a bare spec string, or a table naming it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentEntry {
    Spec(String),
    Named(NamedAgent),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamedAgent {
    /// The name used in `games.csv` and reports; defaults to the spec string.
    pub name: Option<String>,
    pub spec: String,
}

/// A config that cannot run; each names the input at fault.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {reason}")]
    Read {
        path: PathBuf,
        reason: std::io::Error,
    },
    #[error("invalid config {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("games per case must be a positive even number (games come in pairs), got {0}")]
    GamesPerCase(u32),
    #[error("a tournament needs at least two agents, got {0}")]
    TooFewAgents(usize),
    #[error("agent name {0:?} is used twice; give each agent a distinct name")]
    DuplicateName(String),
    #[error("at most 255 matchups (23 agents) per run, got {0} agents")]
    TooManyAgents(usize),
    #[error(transparent)]
    Spec(#[from] agents::SpecError),
    #[error("invalid case list {input:?}: {reason}")]
    Cases { input: String, reason: String },
    #[error("invalid sprt: {0}")]
    Sprt(String),
    #[error("concurrency must be at least 1")]
    Concurrency,
    #[error("seed {0}")]
    Seed(String),
    #[error(
        "limits.read_paths: {0} does not exist (relative paths are taken from the directory arena runs in)"
    )]
    ReadPath(PathBuf),
    #[error(
        "limits.sandbox_without: the {0} layer comes with user namespaces and cannot be given up alone (only seccomp, memory, processes, cpu, io and freezer can; or sandbox = \"off\")"
    )]
    SandboxLayer(crate::sandbox::Layer),
    #[error(transparent)]
    Game(#[from] crate::task::UnknownTask),
    /// The task refuses the plan as a whole (a solver given a puzzle it does not play).
    #[error("{0:#}")]
    Refused(anyhow::Error),
    #[error("gauntlet: {0}")]
    Gauntlet(String),
    #[error(
        "case {case} is listed twice (as {first:?} and {second:?}); its games would be played twice"
    )]
    DuplicateCase {
        case: String,
        first: String,
        second: String,
    },
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|reason| ConfigError::Read {
            path: path.to_owned(),
            reason,
        })?;
        Config::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: path.to_owned(),
            message: e.to_string().trim_end().to_owned(),
        })
    }
}

/// The longest answer line a puzzle run accepts by default (a dust answer can run to a
/// few hundred bytes; a game's move fits in the default 64).
const PUZZLE_MAX_LINE: usize = 4096;

/// A puzzle run raises the default `max_line` to [`PUZZLE_MAX_LINE`] (a value set in the
/// config stays, unless it is the games' default).
fn puzzle_limits(solo: bool, mut limits: Limits) -> Limits {
    if solo && limits.max_line == Limits::default().max_line {
        limits.max_line = PUZZLE_MAX_LINE;
    }
    limits
}

/// Resolving a config into a plan, and a plan back into the config a run directory
/// stores.
impl Plan {
    /// Resolves defaults and checks everything, cases in the task's notation included
    /// (rewritten canonically: `5, 4` becomes `5,4`).
    pub fn resolve(config: &Config) -> Result<Plan, ConfigError> {
        let task = crate::task::lookup(&config.game)?;
        let games_per_case = config.games_per_case.unwrap_or(DEFAULT_GAMES_PER_CASE);
        let solo = task.seats() == 1;
        if games_per_case == 0 || (!solo && games_per_case % 2 == 1) {
            return Err(ConfigError::GamesPerCase(games_per_case));
        }
        if config.agents.len() < if solo { 1 } else { 2 } {
            return Err(ConfigError::TooFewAgents(config.agents.len()));
        }
        if solo && config.sprt.is_some() {
            return Err(ConfigError::Sprt(
                "puzzle runs have no SPRT (an SPRT compares two agents' games)".into(),
            ));
        }
        if solo && !config.gauntlet.is_empty() {
            return Err(ConfigError::Gauntlet(
                "puzzle runs have no gauntlet: every solver attempts every seed".into(),
            ));
        }
        if config.agents.len() > 23 {
            return Err(ConfigError::TooManyAgents(config.agents.len()));
        }
        if config.concurrency == Some(0) {
            return Err(ConfigError::Concurrency);
        }
        let mut agents: Vec<PlanAgent> = Vec::new();
        for entry in &config.agents {
            let (name, spec) = match entry {
                AgentEntry::Spec(s) => (None, s),
                AgentEntry::Named(n) => (n.name.clone(), &n.spec),
            };
            let spec: Spec = spec.parse()?;
            let name = name.unwrap_or_else(|| spec.to_string());
            if agents.iter().any(|a| a.name == name) {
                return Err(ConfigError::DuplicateName(name));
            }
            agents.push(PlanAgent { name, spec });
        }
        let cases = Cases::listed(config.cases.as_ref(), task);
        if cases.is_empty() {
            return Err(ConfigError::Cases {
                input: String::new(),
                reason: "no cases".into(),
            });
        }
        if cases.len() > usize::from(u16::MAX) {
            return Err(ConfigError::Cases {
                input: String::new(),
                reason: format!("at most {} cases per run", u16::MAX),
            });
        }
        let gauntlet = resolve_gauntlet(&config.gauntlet, &agents)?;
        if let Some(s) = &config.sprt {
            if config.agents.len() != 2 {
                return Err(ConfigError::Sprt("an SPRT needs exactly two agents".into()));
            }
            crate::stats::Sprt::new(s.elo0, s.elo1, s.alpha, s.beta)
                .map_err(|e| ConfigError::Sprt(e.to_string()))?;
        }
        let setup = Setup {
            cases,
            games_per_case,
            seed: config
                .seed
                .as_ref()
                .map_or(Ok(DEFAULT_SEED), SeedChoice::resolve)?,
            agents,
            sprt: config.sprt,
            limits: resolve_limits(puzzle_limits(
                solo,
                config.limits.clone().unwrap_or_default(),
            ))?,
            gauntlet,
            seats: task.seats(),
        };
        Plan::prepare(task, setup)
    }

    /// A plan of `task` for `setup` (resolved, or built in code: a league's pair of
    /// bots): the one parse of its cases, which the task keeps parsed and names
    /// canonically for the setup.
    pub fn prepare(task: &'static dyn Task, mut setup: Setup) -> Result<Plan, ConfigError> {
        let prepared = task
            .prepare(&setup)
            .map_err(|refusal| refused(refusal, &setup.cases))?;
        setup.cases = canonical(&setup.cases, prepared.cases())?;
        Ok(Plan::new(task, prepared, setup))
    }

    /// The plan as an explicit config (what a run directory stores as `config.toml`).
    fn to_config(&self) -> Config {
        Config {
            game: self.task.name().to_owned(),
            cases: Some(Cases::List(self.cases.clone())),
            games_per_case: Some(self.games_per_case),
            seed: Some(SeedChoice::Fixed(self.seed)),
            agents: self
                .agents
                .iter()
                .map(|a| {
                    AgentEntry::Named(NamedAgent {
                        name: Some(a.name.clone()),
                        spec: a.spec.to_string(),
                    })
                })
                .collect(),
            concurrency: None,
            out: None,
            sprt: self.sprt,
            limits: Some(self.limits.clone()),
            gauntlet: self
                .gauntlet
                .iter()
                .map(|&i| self.agents[i].name.clone())
                .collect(),
        }
    }

    /// The resolved config as stored in a run directory (`config.toml`).
    pub fn to_toml(&self) -> String {
        // A plain struct of strings, numbers and tables always serializes.
        toml::to_string(&self.to_config()).unwrap_or_default()
    }

    /// A hash of the resolved config: what makes two run directories (or shards) the
    /// same experiment. FNV-1a 64 over `to_toml()`; it detects edits, it is not a
    /// defence against forgery.
    pub fn hash(&self) -> String {
        format!("fnv1a64:{:016x}", fnv1a64(self.to_toml().as_bytes()))
    }
}

/// A task's refusal of a setup as the config error that names the input at fault.
fn refused(refusal: Refusal, written: &[String]) -> ConfigError {
    match refusal {
        Refusal::Case { index, reason } => {
            let text = written.get(index).cloned().unwrap_or_default();
            ConfigError::Cases {
                reason: if text.matches(',').count() > 1 {
                    format!("{reason:#} (cases are separated by spaces: \"5,4 9,7\")")
                } else {
                    format!("{reason:#}")
                },
                input: text,
            }
        }
        Refusal::Setup(e) => ConfigError::Refused(e),
    }
}

/// The cases in canonical notation (`5, 4` becomes `5,4`), each once: a case written
/// twice (`5,4` and `5, 4`) would be played twice.
fn canonical(written: &[String], cases: Vec<String>) -> Result<Vec<String>, ConfigError> {
    for (i, case) in cases.iter().enumerate() {
        if let Some(j) = cases[..i].iter().position(|c| c == case) {
            return Err(ConfigError::DuplicateCase {
                case: case.clone(),
                first: written[j].clone(),
                second: written[i].clone(),
            });
        }
    }
    Ok(cases)
}

/// The gauntlet's agent indices (ascending) from their names; every name must be an
/// agent's, once, and at least one agent must stay outside the gauntlet.
fn resolve_gauntlet(names: &[String], agents: &[PlanAgent]) -> Result<Vec<usize>, ConfigError> {
    let mut indices = Vec::with_capacity(names.len());
    for name in names {
        let Some(i) = agents.iter().position(|a| a.name == *name) else {
            let known: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
            return Err(ConfigError::Gauntlet(format!(
                "{name:?} is not an agent of this run; the agents are {}",
                known.join(", ")
            )));
        };
        if indices.contains(&i) {
            return Err(ConfigError::Gauntlet(format!("{name:?} is named twice")));
        }
        indices.push(i);
    }
    if !indices.is_empty() && indices.len() == agents.len() {
        return Err(ConfigError::Gauntlet(
            "every agent is in the gauntlet; leave at least one out (or drop `gauntlet` for a round robin)".into(),
        ));
    }
    indices.sort_unstable();
    Ok(indices)
}

/// FNV-1a, 64 bits (the published offset basis and prime).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Limits with every `read_paths` entry made absolute and checked to exist: a bot's
/// confinement must not depend on where a resumed run is started from.
pub fn resolve_limits(mut limits: Limits) -> Result<Limits, ConfigError> {
    for path in &mut limits.read_paths {
        let absolute = std::env::current_dir()
            .map(|d| d.join(&*path))
            .unwrap_or_else(|_| path.clone());
        if !absolute.exists() {
            return Err(ConfigError::ReadPath(path.clone()));
        }
        *path = absolute;
    }
    if let Some(layer) = limits.sandbox_without.iter().find(|l| !l.may_be_lost()) {
        return Err(ConfigError::SandboxLayer(*layer));
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("test.toml"))
    }

    #[test]
    fn unknown_fields_are_refused_with_their_name() {
        let err =
            parse("game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\nsed = 3\n").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("test.toml") && msg.contains("sed"), "{msg}");
    }

    #[test]
    fn defaults_resolve_and_round_trip() {
        let c = parse(
            "game = \"dominoes\"\nagents = [\"random\", { name = \"g\", spec = \"greedy\" }]\n",
        )
        .unwrap();
        let plan = Plan::resolve(&c).unwrap();
        assert_eq!(plan.games_per_case, 100);
        assert_eq!(plan.seed, DEFAULT_SEED);
        assert_eq!(plan.agents[1].name, "g");
        assert_eq!(plan.cases.len(), 20);
        let back = toml::to_string(&plan.to_config()).unwrap();
        let again = Plan::resolve(&parse(&back).unwrap()).unwrap();
        assert_eq!(again, plan);
    }

    #[test]
    fn only_the_layers_a_host_may_lack_can_be_given_up() {
        let with = |layers: &str| {
            parse(&format!(
                "game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\n[limits]\nsandbox_without = [{layers}]\n"
            ))
            .and_then(|c| Plan::resolve(&c))
        };
        let plan = with("\"freezer\", \"memory\"").unwrap();
        assert_eq!(plan.limits.sandbox_without.len(), 2);
        let err = with("\"pid\"").unwrap_err().to_string();
        assert!(err.contains("the pid layer"), "{err}");
        let err = parse("game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\n[limits]\nsandbox_without = [\"frezer\"]\n")
            .map(drop)
            .unwrap_err()
            .to_string();
        assert!(err.contains("frezer"), "{err}");
    }

    #[test]
    fn read_paths_are_made_absolute_and_a_missing_one_is_named() {
        let here = std::env::current_dir().unwrap();
        let c = parse(
            "game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\n[limits]\nread_paths = [\"src\"]\n",
        )
        .unwrap();
        let plan = Plan::resolve(&c).unwrap();
        assert_eq!(plan.limits.read_paths, vec![here.join("src")]);
        let c = parse(
            "game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\n[limits]\nread_paths = [\"no/such/models\"]\n",
        )
        .unwrap();
        let err = Plan::resolve(&c).unwrap_err();
        assert!(err.to_string().contains("no/such/models"), "{err}");
    }

    #[test]
    fn odd_games_and_lonely_agents_are_refused() {
        let c = parse("game = \"quarto\"\ngames_per_case = 3\nagents = [\"random\", \"greedy\"]\n")
            .unwrap();
        assert!(matches!(
            Plan::resolve(&c),
            Err(ConfigError::GamesPerCase(3))
        ));
        let c = parse("game = \"quarto\"\nagents = [\"random\"]\n").unwrap();
        assert!(matches!(
            Plan::resolve(&c),
            Err(ConfigError::TooFewAgents(1))
        ));
        let c = parse("game = \"quarto\"\nagents = [\"random\", \"random\"]\n").unwrap();
        assert!(matches!(
            Plan::resolve(&c),
            Err(ConfigError::DuplicateName(_))
        ));
    }

    #[test]
    fn shipped_configs_parse_and_resolve() {
        for (name, text, game, cases) in [
            (
                "tco09.toml",
                include_str!("../../../configs/tco09.toml"),
                "dominoes",
                20,
            ),
            (
                "quarto.toml",
                include_str!("../../../configs/quarto.toml"),
                "quarto",
                4,
            ),
            (
                "puzzles.toml",
                include_str!("../../../configs/puzzles.toml"),
                "puzzles",
                3,
            ),
        ] {
            let c = Config::parse(text, Path::new(name)).unwrap();
            let plan = Plan::resolve(&c).unwrap();
            assert_eq!(plan.task.name(), game, "{name}");
            assert_eq!(plan.cases.len(), cases, "{name}");
            assert_eq!(plan.games_per_case, 100, "{name}");
            assert!(plan.agents.len() >= 2, "{name}");
            for a in &plan.agents {
                plan.task.check_agent(&a.spec).unwrap();
            }
        }
    }

    #[test]
    fn fnv1a64_matches_published_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn the_hash_follows_every_field_that_changes_results() {
        let c = parse("game = \"dominoes\"\nagents = [\"random\", \"greedy\"]\n").unwrap();
        let plan = Plan::resolve(&c).unwrap();
        let mut seeded = plan.clone();
        seeded.setup.seed += 1;
        let mut renamed = plan.clone();
        renamed.setup.agents[0].name = "r".into();
        let mut fewer = plan.clone();
        fewer.setup.cases.pop();
        for other in [seeded, renamed, fewer] {
            assert_ne!(other.hash(), plan.hash());
        }
        assert_eq!(plan.clone().hash(), plan.hash());
    }

    #[test]
    fn unknown_games_and_bad_cases_are_named() {
        let c = parse("game = \"chess\"\nagents = [\"random\", \"greedy\"]\n").unwrap();
        assert!(Plan::resolve(&c).unwrap_err().to_string().contains("chess"));
        let c =
            parse("game = \"dominoes\"\ncases = \"5,4 4,5\"\nagents = [\"random\", \"greedy\"]\n")
                .unwrap();
        assert!(Plan::resolve(&c).unwrap_err().to_string().contains("4,5"));
        let c = parse(
            "game = \"dominoes\"\ncases = [\"5,4\", \"5, 4\"]\nagents = [\"random\", \"greedy\"]\n",
        )
        .unwrap();
        assert!(matches!(
            Plan::resolve(&c),
            Err(ConfigError::DuplicateCase { .. })
        ));
    }

    #[test]
    fn a_gauntlet_plays_its_agents_against_the_field_only() {
        let c = parse(
            "game = \"quarto\"\nagents = [\"random\", \"greedy\", \"best\", { name = \"mine\", spec = \"learned\" }]\ngauntlet = [\"mine\"]\n",
        )
        .unwrap();
        let plan = Plan::resolve(&c).unwrap();
        assert_eq!(plan.gauntlet, [3]);
        assert_eq!(plan.matchups(), [(3, 0), (3, 1), (3, 2)]);
        assert_eq!(plan.schedule.matchups, 3);
        // Two gauntlet agents meet once, and each meets the field.
        let mut two = plan.clone();
        two.setup.gauntlet = vec![1, 3];
        assert_eq!(two.matchups(), [(1, 0), (1, 2), (1, 3), (3, 0), (3, 2)]);
        // Stored and read back as a config, the gauntlet survives and changes the hash.
        let again = Plan::resolve(&parse(&plan.to_toml()).unwrap()).unwrap();
        assert_eq!(again, plan);
        let mut round_robin = plan.clone();
        round_robin.setup.gauntlet.clear();
        assert_ne!(round_robin.hash(), plan.hash());
        assert_eq!(round_robin.matchups().len(), 6);
    }

    #[test]
    fn a_gauntlet_names_agents_of_the_run() {
        for (list, needle) in [
            ("[\"nobody\"]", "nobody"),
            ("[\"random\", \"random\"]", "twice"),
            ("[\"random\", \"greedy\"]", "every agent"),
        ] {
            let c = parse(&format!(
                "game = \"quarto\"\nagents = [\"random\", \"greedy\"]\ngauntlet = {list}\n"
            ))
            .unwrap();
            let msg = Plan::resolve(&c).unwrap_err().to_string();
            assert!(msg.contains("gauntlet") && msg.contains(needle), "{msg}");
        }
    }

    #[test]
    fn round_robin_matchups() {
        let c = parse("game = \"quarto\"\nagents = [\"random\", \"greedy\", \"best\"]\n").unwrap();
        let plan = Plan::resolve(&c).unwrap();
        assert_eq!(plan.matchups(), [(0, 1), (0, 2), (1, 2)]);
    }
}
