//! Think time (`--timings`, on by default with external agents): every decision's wall
//! time as the arena measured it, per game in `timings.csv`, and per agent in `think.csv`
//! (median, p99 and max per move, and the moves over half the per-call cap). Not
//! reproducible, so never in `games.csv`; kept in constant memory by a log histogram
//! (quantiles exact to within 2%).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::svg::esc;
use crate::engine::{Flow, Observer};
use crate::plan::Plan;
use crate::record::Record;

pub const TIMINGS_CSV: &str = "timings.csv";
pub const THINK_CSV: &str = "think.csv";

/// Bucket `k` holds times in `[GROWTH^k - 1, GROWTH^(k+1) - 1)` microseconds.
const GROWTH: f64 = 1.02;
const BUCKETS: usize = 1200;

fn bucket(micros: u32) -> usize {
    ((f64::from(micros) + 1.0).ln() / GROWTH.ln()) as usize
}

/// The geometric middle of bucket `k`, in microseconds.
fn middle(k: usize) -> f64 {
    GROWTH.powf(k as f64 + 0.5) - 1.0
}

#[derive(Clone)]
struct AgentTimes {
    counts: Vec<u64>,
    moves: u64,
    total: u64,
    max: u32,
    over_half_cap: u64,
}

impl AgentTimes {
    fn new() -> AgentTimes {
        AgentTimes {
            counts: vec![0; BUCKETS],
            moves: 0,
            total: 0,
            max: 0,
            over_half_cap: 0,
        }
    }

    fn push(&mut self, micros: u32, half_cap: u64) {
        self.counts[bucket(micros).min(BUCKETS - 1)] += 1;
        self.moves += 1;
        self.total += u64::from(micros);
        self.max = self.max.max(micros);
        self.over_half_cap += u64::from(u64::from(micros) > half_cap);
    }

    /// The `q` quantile in milliseconds (nearest rank over the histogram).
    fn quantile_ms(&self, q: f64) -> f64 {
        if self.moves == 0 {
            return 0.0;
        }
        let rank = ((q * self.moves as f64).ceil() as u64).clamp(1, self.moves);
        let mut seen = 0;
        for (k, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                // Never past the largest time seen.
                return (middle(k) / 1000.0).min(f64::from(self.max) / 1000.0);
            }
        }
        f64::from(self.max) / 1000.0
    }
}

/// One row of `think.csv`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ThinkRow {
    pub agent: String,
    pub moves: u64,
    pub mean_ms: f64,
    pub median_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Moves that took more than half the per-call cap (`limits.call_ms`).
    pub over_half_cap: u64,
}

/// Writes `timings.csv` as timed games arrive and tallies each agent's moves.
pub struct ThinkTally {
    names: Vec<String>,
    matchups: Vec<(usize, usize)>,
    half_cap_micros: u64,
    agents: Vec<AgentTimes>,
    out: BufWriter<File>,
    path: PathBuf,
}

impl ThinkTally {
    /// Opens `timings.csv` in `dir` for appending; the times already there (a resumed
    /// run) are read back into the tally first, those of games from `keep_below` on
    /// dropped (a run killed mid-write is replayed from its last game on disk).
    pub fn open(dir: &Path, plan: &Plan, keep_below: u64) -> Result<ThinkTally> {
        let path = dir.join(TIMINGS_CSV);
        if path.exists() && keep_below < u64::MAX {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let kept: String = text
                .lines()
                .enumerate()
                .filter(|(i, l)| {
                    *i == 0
                        || l.split(',')
                            .next()
                            .and_then(|g| g.parse::<u64>().ok())
                            .is_some_and(|g| g < keep_below)
                })
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            if kept.len() != text.len() {
                crate::runfile::write_atomic(&path, &kept)?;
            }
        }
        let mut tally = ThinkTally {
            names: plan.agents.iter().map(|a| a.name.clone()).collect(),
            matchups: plan.matchups(),
            half_cap_micros: plan.limits.call_ms * 500,
            agents: vec![AgentTimes::new(); plan.agents.len()],
            out: BufWriter::new(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .with_context(|| format!("opening {}", path.display()))?,
            ),
            path: path.clone(),
        };
        let fresh = std::fs::metadata(&path)
            .map(|m| m.len() == 0)
            .unwrap_or(true);
        if fresh {
            writeln!(tally.out, "game,agent,micros")
                .with_context(|| format!("writing {}", path.display()))?;
        } else {
            tally.read_back(&path)?;
        }
        Ok(tally)
    }

    fn read_back(&mut self, path: &Path) -> Result<()> {
        // A CSV reader, not a split on commas: an agent's name may hold one (written
        // quoted), and a resumed run must read back what it wrote.
        let mut rows = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(path)
            .with_context(|| format!("reading {}", path.display()))?;
        for (n, row) in rows.records().enumerate() {
            let row = row.with_context(|| format!("reading {}", path.display()))?;
            let (Some(agent), Some(micros)) = (row.get(1), row.get(2)) else {
                continue;
            };
            let Some(i) = self.names.iter().position(|a| a == agent) else {
                anyhow::bail!("{} line {}: unknown agent {agent:?}", path.display(), n + 2);
            };
            for m in micros.split_whitespace() {
                let m: u32 = m.parse().with_context(|| {
                    format!("{} line {}: {m:?} is not a time", path.display(), n + 2)
                })?;
                self.agents[i].push(m, self.half_cap_micros);
            }
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))
    }

    pub fn rows(&self) -> Vec<ThinkRow> {
        let round = |x: f64| (x * 1000.0).round() / 1000.0;
        self.names
            .iter()
            .zip(&self.agents)
            .filter(|(_, t)| t.moves > 0)
            .map(|(name, t)| ThinkRow {
                agent: name.clone(),
                moves: t.moves,
                mean_ms: round(t.total as f64 / t.moves as f64 / 1000.0),
                median_ms: round(t.quantile_ms(0.5)),
                p99_ms: round(t.quantile_ms(0.99)),
                max_ms: round(f64::from(t.max) / 1000.0),
                over_half_cap: t.over_half_cap,
            })
            .collect()
    }

    /// `think.csv`.
    pub fn csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for r in self.rows() {
            w.serialize(r)?;
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }

    /// The console table (empty when nothing was timed).
    pub fn console(&self) -> String {
        use std::fmt::Write as _;
        let rows = self.rows();
        if rows.is_empty() {
            return String::new();
        }
        let width = rows
            .iter()
            .map(|r| r.agent.chars().count())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut out = format!(
            "think time per move (ms, wall, as the arena measured it)\n  {:<width$} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10}\n",
            "agent", "moves", "mean", "median", "p99", "max", "> cap/2"
        );
        for r in &rows {
            let _ = writeln!(
                out,
                "  {:<width$} {:>8} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>10}",
                r.agent, r.moves, r.mean_ms, r.median_ms, r.p99_ms, r.max_ms, r.over_half_cap
            );
        }
        out
    }

    /// A section of `report.html` (empty when nothing was timed).
    pub fn html(&self) -> String {
        let rows = self.rows();
        if rows.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "<section id=\"think\"><h2>Think time</h2>\n<p>Wall time per move as the arena measured it (from the call to the answer; for an external bot, the pipe included), from <code>timings.csv</code>. Not reproducible: the only part of this page that changes from run to run.</p>\n<table class=\"think\"><thead><tr><th>agent</th><th>moves</th><th>mean ms</th><th>median ms</th><th>p99 ms</th><th>max ms</th><th>over half the cap</th></tr></thead><tbody>\n",
        );
        for r in rows {
            out.push_str(&format!(
                "<tr data-agent=\"{a}\" data-moves=\"{}\" data-max-ms=\"{}\"><td>{a}</td><td>{}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{}</td></tr>\n",
                r.moves, r.max_ms, r.moves, r.mean_ms, r.median_ms, r.p99_ms, r.max_ms, r.over_half_cap,
                a = esc(&r.agent)
            ));
        }
        out.push_str("</tbody></table></section>\n");
        out
    }
}

fn csv_name(name: &str) -> String {
    crate::runfile::csv_cell(name)
}

impl Observer for ThinkTally {
    fn record(&mut self, record: &Record) -> Result<Flow> {
        let Some(think) = &record.think else {
            return Ok(Flow::Continue);
        };
        let (a, b) = self.matchups[usize::from(record.key.matchup)];
        for (agent, micros) in [a, b].into_iter().zip(&think.micros) {
            let mut line = format!("{},{},", record.key.index, csv_name(&self.names[agent]));
            for (i, &m) in micros.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                line.push_str(&m.to_string());
                self.agents[agent].push(m, self.half_cap_micros);
            }
            writeln!(self.out, "{line}")
                .with_context(|| format!("writing {}", self.path.display()))?;
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_from_the_histogram_are_within_two_percent() {
        let mut t = AgentTimes::new();
        let times: Vec<u32> = (1..=1000).map(|i| i * 37).collect();
        for &m in &times {
            t.push(m, 20_000);
        }
        for (q, exact) in [(0.5, times[499]), (0.99, times[989])] {
            let got = t.quantile_ms(q) * 1000.0;
            assert!(
                (got - f64::from(exact)).abs() <= 0.02 * f64::from(exact),
                "q {q}: {got} vs {exact}"
            );
        }
        assert_eq!(t.max, 37_000);
        assert_eq!(
            t.over_half_cap,
            times.iter().filter(|&&m| m > 20_000).count() as u64
        );
        assert_eq!(AgentTimes::new().quantile_ms(0.5), 0.0);
    }
}
