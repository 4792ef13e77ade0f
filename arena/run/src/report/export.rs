//! Exporters: each turns one report into one format, and [`Exporters`] is the one
//! pipeline that writes a run's (as hyperfine's export manager): games runs and puzzle
//! runs differ only in their report and the exporters listed for it (`report/mod.rs`).
//! A league's standings and its export's index are exporters of the same trait
//! (`league/standings.rs`, `league/export.rs`), their files written by [`write_files`].
//! A new output format is an [`Exporter`] and a line in a list; CSV and JSON text are
//! made here ([`csv_rows`], [`csv_table`], [`json`]), each report's console and page by
//! its own exporter.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::summary::{CellReport, FieldReport, MatchupReport, Report};
use super::think::{THINK_CSV, ThinkTally};
use crate::plan::Plan;
use crate::runfile::{SCHEMA, fault, write_atomic};

/// What a report states beside its numbers.
#[derive(Clone, Copy)]
pub struct RunFacts<'a> {
    pub plan: &'a Plan,
    pub stopped_early: bool,
    /// A timed run's think times (`think.csv`, and a section of `report.html`).
    pub think: Option<&'a ThinkTally>,
}

/// One output format of a report, given what the report states beside its numbers:
/// a games run's [`Report`] or a puzzle run's with its [`RunFacts`]; a league's
/// standings, which state their own (`C = ()`).
pub trait Exporter<R, C = ()> {
    fn export(&self, report: &R, context: &C) -> Result<String>;
}

/// A function of the report is an exporter (the CSV and JSON files are one call each).
impl<R, C, F: Fn(&R, &C) -> Result<String>> Exporter<R, C> for F {
    fn export(&self, report: &R, context: &C) -> Result<String> {
        self(report, context)
    }
}

/// Files, each written by its exporter, by name.
pub type Files<R, C = ()> = Vec<(&'static str, Box<dyn Exporter<R, C>>)>;

/// Writes each of `files` into `dir` (atomically, one by one, in order).
pub fn write_files<R, C>(files: &Files<R, C>, report: &R, context: &C, dir: &Path) -> Result<()> {
    for (name, exporter) in files {
        write_atomic(&dir.join(name), &exporter.export(report, context)?)?;
    }
    Ok(())
}

/// The page every run writes.
pub const REPORT_HTML: &str = "report.html";

/// A kind of run report's exporters, in the order a run writes them.
pub struct Exporters<'a, R> {
    /// The summary files, by name.
    pub files: Files<R, RunFacts<'a>>,
    /// `report.html`: written after the summaries (`ARENA_FAULT=abort-at:report` stops
    /// between), and alone by `arena report`.
    pub page: Box<dyn Exporter<R, RunFacts<'a>>>,
    pub console: Box<dyn Exporter<R, RunFacts<'a>>>,
}

/// What [`Exporters::write`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outputs {
    /// Every file, and the console table is returned.
    All,
    /// `report.html` only (`arena report`).
    Page,
}

impl<'a, R> Exporters<'a, R> {
    /// Writes `report` into the run directory `dir`; returns the console table (empty
    /// for [`Outputs::Page`]).
    pub fn write(
        &self,
        report: &R,
        dir: &Path,
        facts: &RunFacts<'a>,
        outputs: Outputs,
    ) -> Result<String> {
        let page = || -> Result<()> {
            write_atomic(&dir.join(REPORT_HTML), &self.page.export(report, facts)?)
        };
        if outputs == Outputs::Page {
            page()?;
            return Ok(String::new());
        }
        fault::point("summaries");
        write_files(&self.files, report, facts, dir)?;
        fault::point("report");
        page()?;
        let mut table = self.console.export(report, facts)?;
        if let Some(think) = facts.think {
            write_atomic(&dir.join(THINK_CSV), &think.csv()?)?;
            table.push_str(&think.console());
        }
        Ok(table)
    }
}

/// CSV of `rows`, a header from their fields.
pub fn csv_rows<'a, T: Serialize + 'a>(rows: impl IntoIterator<Item = &'a T>) -> Result<String> {
    write_csv(csv::Writer::from_writer(Vec::new()), rows)
}

/// CSV of `rows` under `header`, written even when there is no row.
pub fn csv_table<T: Serialize>(
    header: &[&str],
    rows: impl IntoIterator<Item = T>,
) -> Result<String> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    w.write_record(header)?;
    write_csv(w, rows)
}

fn write_csv<T: Serialize>(
    mut w: csv::Writer<Vec<u8>>,
    rows: impl IntoIterator<Item = T>,
) -> Result<String> {
    for row in rows {
        w.serialize(row)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// JSON, pretty, ending in a line break.
pub fn json(value: &impl Serialize) -> Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

/// `summary.json`: the schema and the game, then the report's own `fields`.
pub fn json_summary(facts: &RunFacts<'_>, fields: impl Serialize) -> Result<String> {
    #[derive(Serialize)]
    struct Doc<'a, F> {
        schema: u32,
        game: &'a str,
        #[serde(flatten)]
        fields: F,
    }
    let doc = Doc {
        schema: SCHEMA,
        game: facts.plan.task.name(),
        fields,
    };
    json(&doc)
}

/// `summary.csv`: per matchup, one row per case, then the `all` row.
pub fn summary_csv(report: &Report, _facts: &RunFacts<'_>) -> Result<String> {
    csv_rows(report.rows())
}

/// `summary.json`: the same rows, with the run's seed and the SPRT.
pub fn summary_json(report: &Report, facts: &RunFacts<'_>) -> Result<String> {
    #[derive(Serialize)]
    struct Fields<'a> {
        seed: u64,
        stopped_early: bool,
        matchups: &'a [MatchupReport],
    }
    json_summary(
        facts,
        Fields {
            seed: facts.plan.seed,
            stopped_early: facts.stopped_early,
            matchups: &report.matchups,
        },
    )
}

/// The console: for two agents, per case and overall; for a field (round robin or
/// gauntlet), one row per pairing, the cross table and the Bradley–Terry standings (the
/// per-case rows are in `summary.csv` and `report.html`). `*` marks a row whose pair-based
/// interval excludes an even score.
pub struct ConsoleTable;

/// The legend under every console table.
const STAR_LEGEND: &str =
    "  * the 95% interval from the game pairs (pentanomial, as Elo and LOS) excludes 50 per 100\n";

impl Exporter<Report, RunFacts<'_>> for ConsoleTable {
    fn export(&self, report: &Report, _facts: &RunFacts<'_>) -> Result<String> {
        let mut out = String::new();
        match &report.field {
            None => {
                for m in &report.matchups {
                    matchup_table(&mut out, m);
                }
            }
            Some(field) => {
                pairing_table(&mut out, report);
                cross_table(&mut out, report, field);
                standings_table(&mut out, field);
            }
        }
        // The legend explains a star; without one it would only be noise.
        let starred = report.matchups.iter().any(|m| {
            m.overall.significant()
                || (report.field.is_none() && m.cases.iter().any(CellReport::significant))
        });
        if starred {
            out.push_str(STAR_LEGEND);
        }
        Ok(out)
    }
}

/// One console row: games, W-D-L, score, the pair-based interval and the star.
fn row(out: &mut String, label: &str, width: usize, c: &CellReport) {
    let (low, high) = c.pair_interval();
    let wdl = format!("{}-{}-{}", c.wins, c.draws, c.losses);
    let _ = writeln!(
        out,
        "  {label:<width$} {:>6} {:>16} {:>9.1}   [{low:>5.1}, {high:>5.1}]{}",
        c.games,
        wdl,
        c.score,
        if c.significant() { " *" } else { "" }
    );
}

fn header(out: &mut String, first: &str, width: usize) {
    let _ = writeln!(
        out,
        "  {first:<width$} {:>6} {:>16} {:>9}   95% CI (pairs)",
        "games", "W-D-L", "score"
    );
}

fn matchup_table(out: &mut String, m: &MatchupReport) {
    let o = &m.overall;
    let _ = writeln!(out, "{} vs {}", m.agent_a, m.agent_b);
    header(out, "case", 10);
    for c in m.rows() {
        row(out, &c.case, 10, c);
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

/// One overall row per pairing, with its pair Elo and LOS.
fn pairing_table(out: &mut String, report: &Report) {
    let labels: Vec<String> = report
        .matchups
        .iter()
        .map(|m| format!("{} vs {}", m.agent_a, m.agent_b))
        .collect();
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(7);
    let _ = writeln!(out, "pairings (all cases)");
    header(out, "pairing", width);
    for (m, label) in report.matchups.iter().zip(&labels) {
        let o = &m.overall;
        row(out, label, width, o);
        let forfeits = if o.forfeits_a + o.forfeits_b > 0 {
            format!("   forfeits {}/{}", o.forfeits_a, o.forfeits_b)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:width$} Elo {:+.1} [{:+.1}, {:+.1}]   LOS {:.1}%{forfeits}",
            "",
            o.elo,
            o.elo_low,
            o.elo_high,
            100.0 * o.los
        );
    }
    out.push('\n');
}

/// Score per 100 of the row agent against the column agent; `.` where they did not meet.
fn cross_table(out: &mut String, report: &Report, field: &FieldReport) {
    let order: Vec<usize> = field.standings.iter().map(|s| s.agent).collect();
    let rank_width = order.len().to_string().len() + 1;
    let width = field.agents.iter().map(String::len).max().unwrap_or(0) + rank_width;
    let _ = writeln!(
        out,
        "cross table (score per 100 of the row against the column{})",
        if field.gauntlet { "; a gauntlet" } else { "" }
    );
    let _ = write!(out, "  {:<width$} ", "");
    for k in 1..=order.len() {
        let _ = write!(out, " {k:>6}");
    }
    out.push('\n');
    for (rank, &r) in order.iter().enumerate() {
        let _ = write!(
            out,
            "  {:<width$} ",
            format!("{} {}", rank + 1, field.agents[r])
        );
        for &c in &order {
            let cell = if r == c {
                "-".to_owned()
            } else {
                FieldReport::cell(report, r, c).map_or(".".to_owned(), |x| format!("{:.1}", x.3))
            };
            let _ = write!(out, " {cell:>6}");
        }
        out.push('\n');
    }
    out.push('\n');
}

fn standings_table(out: &mut String, field: &FieldReport) {
    let width = field
        .agents
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max(5);
    let _ = writeln!(
        out,
        "standings (one Bradley-Terry fit over all games, draws as half points; 95% bootstrap over pairs)"
    );
    let _ = writeln!(
        out,
        "  {:>4} {:<width$} {:>7} {:>9} {:>7} {:>8}   95% interval",
        "rank", "agent", "games", "points", "score", "Elo"
    );
    for (rank, s) in field.standings.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {:>4} {:<width$} {:>7} {:>9} {:>7.1} {:>+8.1}   {}",
            rank + 1,
            s.name,
            s.games,
            s.points,
            s.score,
            s.elo,
            s.interval()
        );
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runfile::csv_cell;

    #[test]
    fn a_table_has_its_header_without_rows_and_quotes_as_a_row_does() {
        let none: [(&str, u64); 0] = [];
        assert_eq!(csv_table(&["bot", "games"], none).unwrap(), "bot,games\n");
        let names = [r#"greedy, "the" first"#, "two\nlines", "plain", "", "x\ry"];
        let rows = names.iter().map(|&n| (n, 7u64));
        let expected: String = names
            .iter()
            .map(|n| format!("{},7\n", csv_cell(n)))
            .collect();
        assert_eq!(
            csv_table(&["bot", "games"], rows).unwrap(),
            format!("bot,games\n{expected}")
        );
    }

    #[test]
    fn json_is_pretty_and_ends_its_line() {
        let text = json(&serde_json::json!({"a": [1, 2]})).unwrap();
        assert_eq!(text, "{\n  \"a\": [\n    1,\n    2\n  ]\n}\n");
    }
}
