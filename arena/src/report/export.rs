//! Exporters: each turns the one [`Report`] into one format. A new output format is a new
//! type here implementing [`Exporter`], and a line in [`summaries`].

use std::fmt::Write as _;

use anyhow::Result;
use serde::Serialize;

use super::summary::{MatchupReport, Report};

/// Facts about a run that a report states beside its numbers.
#[derive(Clone, Debug)]
pub struct RunFacts {
    pub game: String,
    pub seed: u64,
    pub stopped_early: bool,
}

/// One output format of the report.
pub trait Exporter {
    /// The file it writes in the run directory (`None`: the console).
    fn file_name(&self) -> Option<&'static str>;
    fn export(&self, report: &Report, facts: &RunFacts) -> Result<String>;
}

/// The exporters every run writes, files first.
pub fn summaries() -> Vec<Box<dyn Exporter>> {
    vec![Box::new(CsvSummary), Box::new(JsonSummary)]
}

/// `summary.csv`: per matchup, one row per case, then the `all` row.
pub struct CsvSummary;

impl Exporter for CsvSummary {
    fn file_name(&self) -> Option<&'static str> {
        Some("summary.csv")
    }

    fn export(&self, report: &Report, _facts: &RunFacts) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        for m in &report.matchups {
            for c in m.cases.iter().chain(std::iter::once(&m.overall)) {
                w.serialize(c)?;
            }
        }
        Ok(String::from_utf8(w.into_inner()?)?)
    }
}

/// `summary.json`: the same rows, with the run's facts and the SPRT.
pub struct JsonSummary;

impl Exporter for JsonSummary {
    fn file_name(&self) -> Option<&'static str> {
        Some("summary.json")
    }

    fn export(&self, report: &Report, facts: &RunFacts) -> Result<String> {
        #[derive(Serialize)]
        struct Doc<'a> {
            schema: u32,
            game: &'a str,
            seed: u64,
            stopped_early: bool,
            matchups: &'a [MatchupReport],
        }
        Ok(serde_json::to_string_pretty(&Doc {
            schema: 2,
            game: &facts.game,
            seed: facts.seed,
            stopped_early: facts.stopped_early,
            matchups: &report.matchups,
        })? + "\n")
    }
}

/// The console table: per case and overall, `*` where the interval excludes 50.
pub struct ConsoleTable;

impl Exporter for ConsoleTable {
    fn file_name(&self) -> Option<&'static str> {
        None
    }

    fn export(&self, report: &Report, _facts: &RunFacts) -> Result<String> {
        let mut out = String::new();
        for m in &report.matchups {
            let o = &m.overall;
            let _ = writeln!(out, "{} vs {}", m.agent_a, m.agent_b);
            let _ = writeln!(
                out,
                "  {:<10} {:>6} {:>16} {:>9}   {:<16}",
                "case", "games", "W-D-L", "score", "95% CI"
            );
            for c in m.cases.iter().chain(std::iter::once(o)) {
                let wdl = format!("{}-{}-{}", c.wins, c.draws, c.losses);
                let _ = writeln!(
                    out,
                    "  {:<10} {:>6} {:>16} {:>9.1}   [{:>5.1}, {:>5.1}] {}",
                    c.case,
                    c.games,
                    wdl,
                    c.score,
                    c.ci_low,
                    c.ci_high,
                    if c.significant() { "*" } else { "" }
                );
            }
            let _ = writeln!(
                out,
                "  total {} of {} ({:.1} per 100)   pairs [{} {} {} {} {}]   Elo {:+.1} [{:+.1}, {:+.1}]   LOS {:.1}%",
                o.points,
                o.games,
                o.score,
                o.ptnml_0,
                o.ptnml_1,
                o.ptnml_2,
                o.ptnml_3,
                o.ptnml_4,
                o.elo,
                o.elo_low,
                o.elo_high,
                100.0 * o.los
            );
            if o.forfeits_a + o.forfeits_b > 0 {
                let _ = writeln!(
                    out,
                    "  forfeits: {} by {}, {} by {}",
                    o.forfeits_a, m.agent_a, o.forfeits_b, m.agent_b
                );
            }
            if let Some(s) = &m.sprt {
                let _ = writeln!(
                    out,
                    "  SPRT [{}, {}] LLR {:.2} ({:.2}, {:.2}): {}",
                    s.elo0, s.elo1, s.llr, s.lower, s.upper, s.decision
                );
            }
            out.push('\n');
        }
        out.push_str("  * the 95% interval excludes 50 per 100\n");
        Ok(out)
    }
}
