//! `arena league export DIR OUT`: each pair of bots' games as the run directory of its
//! two-agent match (`config.toml`, `manifest.json`, `games.csv` with its checks,
//! `summary.csv`, `summary.json`, `report.html`), so `arena verify`, `arena report` and
//! `arena replay` work on it as on any run. A pair's games are always a prefix of its
//! match (`matchmaker`), as an interrupted run's are. A single run directory cannot hold
//! three or more bots: a round robin's agents draw their seeds by matchup, and a league's
//! pairs have played different numbers of games.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::League;
use super::standings::Standings;
use super::store::{Bot, PairStats};
use arena_run::engine::{Observer, Shard};
use arena_run::report::Summarizer;
use arena_run::report::export::{Files, csv_table, write_files};
use arena_run::rundir::RunDir;
use arena_run::rundir::results::{ResultsWriter, Tail};

/// One exported run directory.
pub struct Exported {
    pub dir: PathBuf,
    pub a: String,
    pub b: String,
    pub games: u64,
}

/// Exports every pair that played (or only `pair`, straight into `out`).
pub fn export(league: &League, out: &Path, pair: Option<(&str, &str)>) -> Result<Vec<Exported>> {
    let bots = league.store.bots()?;
    let pairs = league.store.pairs()?;
    let bot = |id| {
        bots.iter()
            .find(|b: &&Bot| b.id == id)
            .context("a pair of an unknown bot")
    };
    let mut done = Vec::new();
    if let Some((x, y)) = pair {
        let (x, y) = (league.store.bot(x)?, league.store.bot(y)?);
        let (a, b) = if x.id < y.id { (x, y) } else { (y, x) };
        let Some(stats) = pairs.iter().find(|p| p.a == a.id && p.b == b.id) else {
            bail!("bots {:?} and {:?} have played no game", a.name, b.name);
        };
        done.push(export_pair(league, &a, &b, stats, out)?);
        return Ok(done);
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for stats in pairs.iter().filter(|p| p.next_g > 0) {
        let (a, b) = (bot(stats.a)?, bot(stats.b)?);
        let dir = out.join(format!("{}-{}", a.id, b.id));
        done.push(export_pair(league, a, b, stats, &dir)?);
    }
    let root = Root {
        pairs: done,
        standings: super::standings::standings(league)?,
    };
    write_files(&root_files(), &root, &(), out)?;
    Ok(root.pairs)
}

/// What an export writes at its root, beside the pairs' run directories.
struct Root {
    pairs: Vec<Exported>,
    standings: Standings,
}

/// The root's files: `pairs.csv`, the folders (what `arena verify` reads), and
/// `standings.csv`.
fn root_files() -> Files<Root> {
    vec![
        ("pairs.csv", Box::new(pairs_csv)),
        (
            "standings.csv",
            Box::new(|r: &Root, _: &()| super::standings::csv(&r.standings, &())),
        ),
    ]
}

/// `pairs.csv`: each pair's folder, bots and games.
fn pairs_csv(root: &Root, _: &()) -> Result<String> {
    let rows = root.pairs.iter().map(|e| {
        let dir = e.dir.file_name().map(|d| d.to_string_lossy());
        (dir.unwrap_or_default(), e.a.as_str(), e.b.as_str(), e.games)
    });
    csv_table(&["dir", "agent_a", "agent_b", "games"], rows)
}

fn export_pair(
    league: &League,
    a: &Bot,
    b: &Bot,
    stats: &PairStats,
    dir: &Path,
) -> Result<Exported> {
    let cases = league.config.cases.len() as u64;
    let pairs_per_case = stats.next_g.div_ceil(cases).max(1);
    let games_per_case = u32::try_from(2 * pairs_per_case).context("a pair too long to export")?;
    let plan = league.config.pair_plan(
        [a.name.as_str(), b.name.as_str()],
        [a.spec.as_str(), b.spec.as_str()],
        games_per_case,
    )?;
    let run = RunDir::create(dir, &plan, Shard::WHOLE)?;
    // The records go to the run's own writer and tally, as a run's do.
    let mut games = ResultsWriter::append(&run.games_csv(), &plan, Tail::default())?;
    let mut tally = Summarizer::new(&plan)?;
    let mut expected = 0u64;
    league.store.pair_games(a.id, b.id, &mut |g| {
        let key = g.record.key;
        if key.index != expected {
            bail!(
                "bots {:?} and {:?}: game {expected} is missing from the league (found game {})",
                a.name,
                b.name,
                key.index
            );
        }
        if key.index >= plan.schedule.len() || plan.schedule.job(key.index) != key {
            bail!(
                "bots {:?} and {:?}: game {} is stored as {key:?}, not as its match plays it",
                a.name,
                b.name,
                key.index
            );
        }
        expected += 1;
        games.record(&g.record)?;
        tally.record(&g.record)?;
        Ok(())
    })?;
    games.flush()?;
    let stopped_early = expected < 2 * pairs_per_case * cases;
    arena_run::tournament::write_summaries(&run, &tally, stopped_early, None)?;
    run.log(&format!(
        "exported {expected} games from the league in {}",
        league.dir.display()
    ))?;
    Ok(Exported {
        dir: dir.to_owned(),
        a: a.name.clone(),
        b: b.name.clone(),
        games: expected,
    })
}
