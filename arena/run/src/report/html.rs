//! `report.html`: one self-contained page (no network, no fonts to fetch) with the
//! standings and cross table of a field, per pairing a summary table, a heatmap of scores
//! per case, scores with error bars and the pentanomial histogram, terminations and
//! forfeits per agent, and a game viewer in plain JavaScript over replays embedded in the
//! page. It reads the same [`Report`] as every other exporter.

use std::fmt::Write as _;

use anyhow::Result;
use serde::Serialize;

use super::export::{Exporter, RunFacts};
use super::summary::{CellReport, FieldReport, Report};
use super::svg::{self, esc};
use super::think::ThinkTally;
use super::viewer::{self, Replayed};
use crate::record::Termination;
use crate::task::Board;

/// The page of a games run. It replays the viewer's games (built-in agents only) when
/// written, and names no paths, so the same run gives the same bytes wherever it was
/// written.
pub struct HtmlReport;

/// The embedded data the page's script reads.
#[derive(Serialize)]
struct PageData<'a> {
    game: &'a str,
    /// What the viewer draws positions on (`null`: text only).
    board: Option<Board>,
    columns: &'static [&'static str],
    /// `summary.csv`'s rows, in its order and columns.
    rows: Vec<&'a CellReport>,
    cases: &'a [String],
    pairings: Vec<(&'a str, &'a str)>,
    /// Per game up to the cap: game, pairing, case, score of A, termination, forfeit, plies.
    games: Vec<(u64, u16, u16, f64, &'static str, &'static str, u32)>,
    games_total: u64,
    replays: &'a [Replayed],
}

/// `summary.csv`'s header, in order (the page's summary tables are built from it).
const SUMMARY_COLUMNS: &[&str] = &[
    "agent_a",
    "agent_b",
    "case",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score",
    "ci_low",
    "ci_high",
    "pair_low",
    "pair_high",
    "ptnml_0",
    "ptnml_1",
    "ptnml_2",
    "ptnml_3",
    "ptnml_4",
    "elo",
    "elo_low",
    "elo_high",
    "los",
    "forfeits_a",
    "forfeits_b",
];

impl Exporter<Report, RunFacts<'_>> for HtmlReport {
    fn export(&self, report: &Report, facts: &RunFacts<'_>) -> Result<String> {
        let plan = facts.plan;
        let replays = viewer::replay(plan, &viewer::chosen(plan, report))?;
        let data = PageData {
            game: plan.task.name(),
            board: plan.task.board(),
            columns: SUMMARY_COLUMNS,
            rows: report.rows().collect(),
            cases: &report.cases,
            pairings: report
                .matchups
                .iter()
                .map(|m| (m.agent_a.as_str(), m.agent_b.as_str()))
                .collect(),
            games: report
                .games
                .iter()
                .map(|g| {
                    (
                        g.index,
                        g.matchup,
                        g.case,
                        g.score_a,
                        g.termination.as_str(),
                        g.forfeit.map_or("", |s| s.as_str()),
                        g.plies,
                    )
                })
                .collect(),
            games_total: report.games_total,
            replays: &replays,
        };
        // `</` would end the script element early.
        let json = serde_json::to_string(&data)?.replace("</", "<\\/");
        let mut body = String::new();
        let _ = writeln!(
            body,
            "<h1>Arena report: {} <small>seed {}, {} games{}</small></h1>",
            esc(plan.task.name()),
            plan.seed,
            report.games_total,
            // A league's exported pair stops where the league stopped it (its verdict,
            // its interval, Ctrl-C): no SPRT of this run's config is to thank.
            match (facts.stopped_early, plan.sprt.is_some()) {
                (false, _) => "",
                (true, true) => ", stopped early by the SPRT",
                (true, false) => ", fewer than its scheduled games",
            }
        );
        body.push_str("<p id=\"status\" data-status=\"pending\">The page's script has not run (JavaScript is off, or it failed).</p>\n");
        if let Some(field) = &report.field {
            field_section(&mut body, report, field);
        }
        matchup_sections(&mut body, report, plan.task.case_axes());
        terminations_section(&mut body, report);
        body.push_str(&facts.think.map_or(String::new(), ThinkTally::html));
        viewer_section(
            &mut body,
            report,
            replays.len(),
            plan.task.hides_information(),
        );
        Ok(format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Arena report: {}</title>\n<style>{STYLE}</style></head>\n<body>\n{body}<script type=\"application/json\" id=\"arena-data\">{json}</script>\n<script>{SCRIPT}</script>\n</body></html>\n",
            esc(plan.task.name())
        ))
    }
}

fn field_section(out: &mut String, report: &Report, field: &FieldReport) {
    out.push_str("<section id=\"field\"><h2>Standings</h2>\n<p>One Bradley–Terry fit over every game of the field (draws count half), on the Elo scale with mean 0; 95% intervals from a bootstrap over game pairs seeded with the run seed (<code>docs/statistics.md</code>).</p>\n<table class=\"standings\"><thead><tr><th>rank</th><th>agent</th><th>games</th><th>points</th><th>score</th><th>Elo</th><th>95% interval</th></tr></thead><tbody>\n");
    for (rank, s) in field.standings.iter().enumerate() {
        let _ = writeln!(
            out,
            "<tr data-agent=\"{name}\" data-elo=\"{}\"><td>{}</td><td>{name}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:+.1}</td><td>{}</td></tr>",
            s.elo,
            rank + 1,
            s.games,
            s.points,
            s.score,
            s.elo,
            s.interval(),
            name = esc(&s.name)
        );
    }
    let _ = write!(
        out,
        "</tbody></table>\n<h2>Cross table</h2>\n<p>The row agent's wins-draws-losses and score per 100 against the column agent{}.</p>\n<table class=\"cross\"><thead><tr><th></th>",
        if field.gauntlet {
            "; a gauntlet, so agents outside it did not meet (·)"
        } else {
            ""
        }
    );
    let order: Vec<usize> = field.standings.iter().map(|s| s.agent).collect();
    for (k, &c) in order.iter().enumerate() {
        let _ = write!(
            out,
            "<th title=\"{}\">{}</th>",
            esc(&field.agents[c]),
            k + 1
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for (k, &r) in order.iter().enumerate() {
        let _ = write!(out, "<tr><th>{} {}</th>", k + 1, esc(&field.agents[r]));
        for &c in &order {
            match (r == c, FieldReport::cell(report, r, c)) {
                (true, _) => out.push_str("<td class=\"self\">—</td>"),
                (false, None) => out.push_str("<td class=\"none\">·</td>"),
                (false, Some((w, d, l, score))) => {
                    let _ = write!(
                        out,
                        "<td class=\"x\" data-row=\"{}\" data-col=\"{}\" data-score=\"{score}\" style=\"background:{}\">{score:.1}<br><small>{w}-{d}-{l}</small></td>",
                        esc(&field.agents[r]),
                        esc(&field.agents[c]),
                        svg::fill(score)
                    );
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></section>\n");
}

fn matchup_sections(out: &mut String, report: &Report, (row_label, col_label): (&str, &str)) {
    for (m, matchup) in report.matchups.iter().enumerate() {
        let o = &matchup.overall;
        let _ = write!(
            out,
            "<section class=\"matchup\" id=\"matchup-{m}\"><h2>{} vs {}</h2>\n<p>{} of {} points for {} ({:.1} per 100); pairs Elo {:+.1} [{:+.1}, {:+.1}], LOS {:.1}%.</p>\n",
            esc(&matchup.agent_a),
            esc(&matchup.agent_b),
            o.points,
            o.games,
            esc(&matchup.agent_a),
            o.score,
            o.elo,
            o.elo_low,
            o.elo_high,
            100.0 * o.los
        );
        if let Some(s) = &matchup.sprt {
            let _ = writeln!(
                out,
                "<p>SPRT [{}, {}]: LLR {:.2} in ({:.2}, {:.2}), decision {}.</p>",
                s.elo0, s.elo1, s.llr, s.lower, s.upper, s.decision
            );
        }
        let _ = write!(
            out,
            "<h3>Score per case</h3><p>Agent {}'s score per 100 in each case, with the Wilson 95% interval over single games (as in <code>summary.csv</code>); the table below adds the interval from the game pairs, which the star and the LOS follow.</p><div class=\"chart\">{}</div>\n<div class=\"chart\">{}</div>\n<h3>Pairs</h3><p>Seat-swapped pairs by {}'s pair score (all cases).</p><div class=\"chart\">{}</div>\n<h3>Table</h3><table class=\"summary\" data-matchup=\"{m}\"></table></section>\n",
            esc(&matchup.agent_a),
            svg::heatmap(matchup, row_label, col_label),
            svg::error_bars(matchup),
            esc(&matchup.agent_a),
            svg::pentanomial(o)
        );
    }
}

fn terminations_section(out: &mut String, report: &Report) {
    out.push_str("<section id=\"terminations\"><h2>Terminations and forfeits</h2>\n<p>How each agent's games ended, and the forfeits it caused.</p>\n<table class=\"terminations\"><thead><tr><th>agent</th>");
    let every: Vec<Termination> = report
        .agents
        .first()
        .map_or(Vec::new(), |a| a.ended.iter().map(|&(t, _)| t).collect());
    let kinds: Vec<(usize, Termination)> = every
        .into_iter()
        .enumerate()
        .filter(|&(k, _)| report.agents.iter().any(|a| a.ended[k].1 > 0))
        .collect();
    for (_, t) in &kinds {
        let _ = write!(
            out,
            "<th>{}{}</th>",
            t,
            if t.is_forfeit() { " (forfeits)" } else { "" }
        );
    }
    out.push_str("<th>forfeited by it</th></tr></thead><tbody>\n");
    for a in &report.agents {
        let _ = write!(out, "<tr><th>{}</th>", esc(&a.name));
        for &(k, _) in &kinds {
            let _ = write!(out, "<td>{}</td>", a.ended[k].1);
        }
        let _ = writeln!(out, "<td>{}</td></tr>", a.forfeited);
    }
    out.push_str("</tbody></table>\n");
    let firsts: Vec<_> = report
        .agents
        .iter()
        .flat_map(|a| a.first_forfeits.iter().map(move |f| (a, f)))
        .collect();
    if firsts.is_empty() {
        out.push_str("<p>No game was forfeited.</p>\n");
    } else {
        out.push_str("<p>The first forfeits of each agent:</p><ul class=\"forfeits\">\n");
        for (a, f) in firsts {
            let _ = writeln!(
                out,
                "<li>game <a href=\"#viewer\" data-game=\"{0}\" class=\"game-link\">{0}</a>: {1}: {2} ({3})</li>",
                f.game,
                esc(&a.name),
                f.kind,
                esc(&f.reason)
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

fn viewer_section(out: &mut String, report: &Report, replayed: usize, hidden_information: bool) {
    let _ = write!(
        out,
        "<section id=\"viewer\"><h2>Games</h2>\n<p>{} games; the first {} are listed in this page, {} of them replayed move by move, as the referee saw them{}. Any other: <code>arena replay RUN_DIR -n GAME</code>, with the directory holding this page.</p>\n<p><label>game <select id=\"pick\"></select></label> <label>or number <input id=\"number\" type=\"number\" min=\"0\" step=\"1\"></label></p>\n<p id=\"game-note\"></p>\n<p class=\"controls\"><button id=\"first\">|&lt;</button> <button id=\"prev\">&lt;</button> <input id=\"ply\" type=\"range\" min=\"0\" max=\"0\" value=\"0\"> <button id=\"next\">&gt;</button> <button id=\"last\">&gt;|</button> <span id=\"caption\"></span></p>\n<div id=\"board\"></div><pre id=\"frame\"></pre>\n</section>\n",
        report.games_total,
        report.games.len(),
        replayed,
        if hidden_information {
            " (every hidden tile shown)"
        } else {
            ""
        }
    );
}

pub(super) const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1150px;color:#222;padding:0 1em}
h1 small{font-weight:normal;color:#666;font-size:60%}
section{margin-bottom:2em;border-top:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0;font-variant-numeric:tabular-nums}
td,th{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#f4f4f4}
table.summary,table.cross,table.terminations{display:block;overflow-x:auto;max-width:100%}
td.self,td.none{color:#999;text-align:center}
td.x{text-align:center}
.chart{overflow-x:auto}
svg text{font-family:sans-serif;font-size:11px;fill:#222}
svg .v{font-size:13px;font-weight:600}
svg .ci{font-size:10px}
svg .axis{font-size:12px;font-style:italic}
svg .grid{stroke:#e4e4e4}
svg .even{stroke:#888;stroke-dasharray:4 3}
svg .whisker{stroke:#333;stroke-width:2}
#status[data-status=ok]{color:#1a7a40}
#status[data-status=error],#status[data-status=pending]{color:#b00;font-weight:600}
#frame{background:#f8f8f8;border:1px solid #ddd;padding:.6em;min-height:6em;font-size:14px}
.sig{font-weight:700}
"#;

const SCRIPT: &str = include_str!("report.js");

#[cfg(test)]
mod tests {
    /// The viewer draws what the task names (`Task::board`), never a game by its name.
    #[test]
    fn the_script_names_no_game_and_has_a_drawer_for_every_board() {
        for task in crate::task::REGISTRY {
            let quoted = format!("\"{}\"", task.name());
            assert!(!super::SCRIPT.contains(&quoted), "report.js names {quoted}");
            if let Some(board) = task.board() {
                let kind = serde_json::to_string(&board).unwrap();
                assert!(
                    super::SCRIPT.contains(&format!("{kind}: ")),
                    "report.js has no drawer for {kind}"
                );
            }
        }
    }
}
