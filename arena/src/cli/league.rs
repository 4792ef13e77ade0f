//! `arena league …`: the arguments, and the call into `arena_league` for each.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand, ValueEnum};

use super::emit;
use arena_league::{self as league, League, LeagueConfig};
use arena_run::plan::SprtConfig;
use arena_run::report::Exporter;

#[derive(Args, Debug)]
pub struct LeagueArgs {
    #[command(subcommand)]
    pub command: LeagueCommand,
}

#[derive(Subcommand, Debug)]
pub enum LeagueCommand {
    /// Make a league in DIR: its config (game, cases, seed, verdict bounds) and database.
    Init(InitArgs),
    /// Add a bot (a candidate unless --benchmark); an exec: bot's files are copied in. A
    /// candidate's test starts: against its previous version (`v3` -> `v2`), or --base.
    Add(AddArgs),
    /// Test a bot against another (or the strongest benchmark), with its own bounds,
    /// beside its other tests.
    Test(TestArgs),
    /// Make a candidate a benchmark.
    Promote(NameArgs),
    /// Stop a candidate's evaluation (a benchmark leaves the pool).
    Reject(NameArgs),
    /// Retire a bot: it plays no more and leaves the standings (its games stay).
    Archive(ArchiveArgs),
    /// Rename a bot (its games are kept: they are stored by bot, not by name).
    Rename(RenameArgs),
    /// Play until stopped (Ctrl-C), candidates first; resumes where it stopped.
    Run(LeagueRunArgs),
    /// Standings with intervals, candidates' verdicts, the cross table.
    Show(ShowArgs),
    /// Each pair's games as a run directory (games.csv, summary.csv, …) for arena
    /// verify, report and replay.
    Export(ExportArgs),
}

#[derive(Args, Debug)]
pub struct InitArgs {
    pub dir: PathBuf,
    #[arg(long, value_parser = arena_run::task::parse_name)]
    pub game: String,
    /// Cases, as in a config (`"5,4 9,7"`, `all`); default: the game's default cases.
    #[arg(long)]
    pub cases: Option<String>,
    /// A number, or `random` (drawn once and stored).
    #[arg(long, default_value = "random")]
    pub seed: String,
    /// The verdicts' GSPRT: H0 Elo (logistic) …
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    /// … against H1 Elo, over the strongest benchmark.
    #[arg(long, default_value_t = 10.0, allow_hyphen_values = true)]
    pub elo1: f64,
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
}

#[derive(Args, Debug)]
pub struct AddArgs {
    pub dir: PathBuf,
    pub name: String,
    /// A built-in (`greedy`, `pimc:k=30`) or `exec:<command line>`, as for `arena match`.
    pub spec: String,
    #[arg(long)]
    pub benchmark: bool,
    /// Run this once with `sh -c` in the bot's copy; a failure marks the bot failed.
    #[arg(long)]
    pub build: Option<String>,
    #[command(flatten)]
    pub test: TestChoice,
}

#[derive(Args, Debug)]
pub struct TestArgs {
    pub dir: PathBuf,
    /// The bot under test.
    pub name: String,
    #[command(flatten)]
    pub test: TestChoice,
}

/// A test's base and bounds.
#[derive(Args, Debug)]
pub struct TestChoice {
    /// Test against this bot (default: the previous version by the name's number, e.g.
    /// `mine-v2` for `mine-v3`; without one, the strongest benchmark).
    #[arg(long, value_name = "NAME", conflicts_with = "strongest")]
    pub base: Option<String>,
    /// Test against the strongest benchmark, even when a previous version is there.
    #[arg(long)]
    pub strongest: bool,
    /// The test's H0 Elo (logistic; default: the league's).
    #[arg(long, allow_hyphen_values = true)]
    pub elo0: Option<f64>,
    /// The test's H1 Elo (default: the league's).
    #[arg(long, allow_hyphen_values = true)]
    pub elo1: Option<f64>,
    /// The test's false positive rate (default: the league's).
    #[arg(long)]
    pub alpha: Option<f64>,
    /// The test's false negative rate (default: the league's).
    #[arg(long)]
    pub beta: Option<f64>,
}

impl TestChoice {
    /// The base asked for, and the bounds: the league's unless any is given.
    fn resolve(&self, league: &SprtConfig) -> (league::bots::BaseChoice, Option<SprtConfig>) {
        use league::bots::BaseChoice;
        let base = match (&self.base, self.strongest) {
            (Some(name), _) => BaseChoice::Named(name.clone()),
            (None, true) => BaseChoice::Strongest,
            (None, false) => BaseChoice::Previous,
        };
        let given = [self.elo0, self.elo1, self.alpha, self.beta];
        let bounds = given.iter().any(Option::is_some).then(|| SprtConfig {
            elo0: self.elo0.unwrap_or(league.elo0),
            elo1: self.elo1.unwrap_or(league.elo1),
            alpha: self.alpha.unwrap_or(league.alpha),
            beta: self.beta.unwrap_or(league.beta),
        });
        (base, bounds)
    }

    fn given(&self) -> bool {
        self.base.is_some()
            || self.strongest
            || [self.elo0, self.elo1, self.alpha, self.beta]
                .iter()
                .any(Option::is_some)
    }
}

#[derive(Args, Debug)]
pub struct NameArgs {
    pub dir: PathBuf,
    pub name: String,
}

#[derive(Args, Debug)]
pub struct ArchiveArgs {
    pub dir: PathBuf,
    pub name: String,
    /// Bring an archived bot back.
    #[arg(long)]
    pub undo: bool,
}

#[derive(Args, Debug)]
pub struct RenameArgs {
    pub dir: PathBuf,
    pub name: String,
    pub new_name: String,
}

#[derive(Args, Debug)]
pub struct LeagueRunArgs {
    pub dir: PathBuf,
    /// Games played at once (default: one per core); never changes a game.
    #[arg(long, default_value_t = 0)]
    pub concurrency: usize,
    /// Let the system move game threads between cores (by default each is pinned to a
    /// core of its own where there are enough, with its external bots).
    #[arg(long)]
    pub no_pin: bool,
    /// Serve the live page at this address (e.g. 127.0.0.1:8080).
    #[arg(long)]
    pub serve: Option<SocketAddr>,
    /// Required for a --serve address other than loopback; requests must carry it.
    #[arg(long)]
    pub token: Option<String>,
    /// Another name the page answers to (`Host: NAME:PORT`), beside its own address
    /// (and `localhost` on loopback): a request for any other host is refused (421), so
    /// a site that rebinds its name to this address cannot read the page.
    #[arg(long, value_name = "NAME")]
    pub serve_host: Vec<String>,
    /// Stop after recording this many games.
    #[arg(long)]
    pub games: Option<u64>,
    /// Stop once every candidate has its verdict.
    #[arg(long)]
    pub until_decided: bool,
    /// No progress lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Play with no candidate running: `bounded` (until every pair's interval is
    /// narrower than --spare-width or has --spare-games games, then idle), `always`,
    /// or `off`.
    #[arg(long, value_enum, default_value_t = SpareArg::Bounded)]
    pub spare: SpareArg,
    /// Bounded spare play: a pair is done once its 95 % interval is narrower than this,
    /// in points per 100.
    #[arg(long, default_value_t = 5.0)]
    pub spare_width: f64,
    /// Bounded spare play: a pair is done once it has this many games.
    #[arg(long, default_value_t = 20_000)]
    pub spare_games: u64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SpareArg {
    Bounded,
    Always,
    Off,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    pub dir: PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    pub dir: PathBuf,
    pub out: PathBuf,
    /// Only the games of these two bots, as one run directory in OUT.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub pair: Option<Vec<String>>,
}

pub fn run(args: LeagueArgs) -> Result<()> {
    match args.command {
        LeagueCommand::Init(a) => init(a),
        LeagueCommand::Add(a) => {
            let l = League::open(&a.dir)?;
            if a.benchmark && a.test.given() {
                bail!(
                    "--benchmark: a benchmark has no test (--base, --strongest, --elo0, --elo1, --alpha, --beta are a candidate's); `arena league test` tests any bot"
                );
            }
            let test = (!a.benchmark).then(|| a.test.resolve(&l.config.sprt));
            let added = league::bots::add(&l, &a.name, &a.spec, a.build.as_deref(), test)?;
            match added.failed {
                Some(log) => bail!(
                    "bot {:?} failed its build and will not play:\n{}",
                    a.name,
                    arena_run::shown::escape_controls(&log)
                ),
                None => emit(&format!(
                    "added {:?} as {} ({})\n{}",
                    a.name,
                    if a.benchmark {
                        "a benchmark"
                    } else {
                        "a candidate"
                    },
                    added.spec,
                    added.test.map_or(String::new(), |t| t + "\n")
                )),
            }
        }
        LeagueCommand::Test(a) => {
            let l = League::open(&a.dir)?;
            let (base, bounds) = a.test.resolve(&l.config.sprt);
            emit(&league::bots::test(&l, &a.name, &base, bounds)?)
        }
        LeagueCommand::Promote(a) => emit(&league::bots::promote(&League::open(&a.dir)?, &a.name)?),
        LeagueCommand::Reject(a) => emit(&league::bots::reject(&League::open(&a.dir)?, &a.name)?),
        LeagueCommand::Archive(a) => emit(&league::bots::archive(
            &League::open(&a.dir)?,
            &a.name,
            a.undo,
        )?),
        LeagueCommand::Rename(a) => emit(&league::bots::rename(
            &League::open(&a.dir)?,
            &a.name,
            &a.new_name,
        )?),
        LeagueCommand::Run(a) => {
            league::run::run(
                &a.dir,
                &league::run::Options {
                    concurrency: a.concurrency,
                    games: a.games,
                    until_decided: a.until_decided,
                    serve: a.serve,
                    token: a.token,
                    serve_hosts: a.serve_host,
                    quiet: a.quiet,
                    pin: !a.no_pin,
                    spare: match a.spare {
                        SpareArg::Bounded => league::matchmaker::Spare::Bounded {
                            width: a.spare_width,
                            games: a.spare_games,
                        },
                        SpareArg::Always => league::matchmaker::Spare::Always,
                        SpareArg::Off => league::matchmaker::Spare::Off,
                    },
                },
            )?;
            Ok(())
        }
        LeagueCommand::Show(a) => {
            let s = league::standings::standings(&League::open_read(&a.dir)?)?;
            emit(&match a.format {
                Format::Table => format!(
                    "{}\nlogs: {} (each pair's external bots' stderr in <a>-<b>/, add's start of bot <id> in add-<id>/)\n",
                    league::standings::StandingsTable.export(&s, &())?,
                    a.dir.join(league::LOGS).display()
                ),
                Format::Csv => league::standings::csv(&s, &())?,
                Format::Json => league::standings::json(&s, &())?,
            })
        }
        LeagueCommand::Export(a) => {
            let l = League::open_read(&a.dir)?;
            let pair = a.pair.as_ref().map(|p| (p[0].as_str(), p[1].as_str()));
            let done = league::export::export(&l, &a.out, pair)?;
            let mut text = String::new();
            for e in &done {
                text.push_str(&format!(
                    "{}: {} vs {}, {} games\n",
                    e.dir.display(),
                    e.a,
                    e.b,
                    e.games
                ));
            }
            emit(&text)
        }
    }
}

fn init(a: InitArgs) -> Result<()> {
    let path = a.dir.join(league::CONFIG);
    if path.exists() {
        bail!("{} already holds a league", a.dir.display());
    }
    let sprt = SprtConfig {
        elo0: a.elo0,
        elo1: a.elo1,
        alpha: a.alpha,
        beta: a.beta,
    };
    sprt.sprt()?;
    let config = LeagueConfig::new(&a.game, a.cases.as_deref(), &a.seed, sprt)?;
    std::fs::create_dir_all(&a.dir)?;
    arena_run::rundir::write_atomic(&path, &config.to_toml()?)?;
    League::open(&a.dir)?;
    emit(&format!(
        "league in {}: {}, {} case{}, seed {}\n",
        a.dir.display(),
        config.game.name(),
        config.cases.len(),
        if config.cases.len() == 1 { "" } else { "s" },
        config.seed
    ))
}
