//! `arena league export DIR OUT`: each pair of bots' games as the run directory of its
//! two-agent match (`config.toml`, `manifest.json`, `games.csv` with its checks,
//! `summary.csv`, `summary.json`, `report.html`), so `arena verify`, `arena report` and
//! `arena replay` work on it as on any run. A pair's games are always a prefix of its
//! match (`matchmaker`), as an interrupted run's are. A single run directory cannot hold
//! three or more bots: a round robin's agents draw their seeds by matchup, and a league's
//! pairs have played different numbers of games.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::League;
use super::store::{Bot, PairStats};
use arena_run::engine::{Flow, Observer, Shard};
use arena_run::report::Summarizer;
use arena_run::rundir::RunDir;
use arena_run::rundir::results::{Codec, Torn, append_checked, csv_cell, read_rows};

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
    let mut index = String::from("dir,agent_a,agent_b,games\n");
    for stats in pairs.iter().filter(|p| p.next_g > 0) {
        let (a, b) = (bot(stats.a)?, bot(stats.b)?);
        let name = format!("{}-{}", a.id, b.id);
        let e = export_pair(league, a, b, stats, &out.join(&name))?;
        let _ = writeln!(
            index,
            "{name},{},{},{}",
            csv_cell(&e.a),
            csv_cell(&e.b),
            e.games
        );
        done.push(e);
    }
    arena_run::rundir::write_atomic(&out.join("pairs.csv"), &index)?;
    let standings = super::standings::standings(league)?;
    arena_run::rundir::write_atomic(
        &out.join("standings.csv"),
        &super::standings::csv(&standings),
    )?;
    Ok(done)
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
    let codec = Codec::new(&plan);
    let mut text = codec.header().into_bytes();
    let mut chain = 0u32;
    let mut expected = 0u64;
    let cells: Vec<String> = plan.cases.iter().map(|c| csv_cell(c)).collect();
    let (name_a, name_b) = (csv_cell(&a.name), csv_cell(&b.name));
    let mut line = String::new();
    league.store.pair_games(a.id, b.id, &mut |g| {
        let index = 2 * g.g + u64::from(g.seat);
        if index != expected {
            bail!(
                "bots {:?} and {:?}: game {expected} is missing from the league (found game {index})",
                a.name,
                b.name
            );
        }
        expected += 1;
        line.clear();
        let _ = writeln!(
            line,
            "{index},{},{},{},{name_a},{name_b},{}",
            cells[usize::from(g.case)],
            g.deal,
            g.first,
            g.tail
        );
        chain = append_checked(&mut text, line.as_bytes(), chain);
        Ok(())
    })?;
    std::fs::write(run.games_csv(), &text)
        .with_context(|| format!("writing {}", run.games_csv().display()))?;
    let mut tally = Summarizer::new(&plan)?;
    read_rows(
        &run.games_csv(),
        &plan,
        Shard::WHOLE,
        Torn::Refuse,
        &mut |r| {
            tally.record(&r)?;
            Ok(Flow::Continue)
        },
    )?;
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
