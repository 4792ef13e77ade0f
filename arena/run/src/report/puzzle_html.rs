//! `report.html` of a puzzle run: one self-contained page (no script, no network) with,
//! per puzzle, the solvers' table (the numbers of `summary.csv`), their relative scores as
//! bars, and the answers to the first seeds drawn by the visualizer (`puzzle_svg`).

use std::fmt::Write as _;

use anyhow::Result;
use arena_core::puzzle::PuzzleKind;

use super::export::{Exporter, RunFacts};
use super::puzzle_svg;
use super::puzzles::{GALLERY_SEEDS, PuzzleReport, SolverRow};
use super::svg::esc;

/// The page of a puzzle run.
pub struct PuzzlePage;

impl Exporter<PuzzleReport, RunFacts<'_>> for PuzzlePage {
    fn export(&self, report: &PuzzleReport, facts: &RunFacts<'_>) -> Result<String> {
        let attempts: u64 = report
            .rows
            .iter()
            .filter(|r| r.puzzle == "all")
            .map(|r| r.attempts)
            .sum();
        let mut body = format!(
            "<h1>Arena puzzle run <small>{attempts} attempts, seeds from {}</small></h1>\n\
             <p>Relative score per seed: <code>score / best</code> (maximised) or <code>best / score</code> (minimised) over the solvers of this run, 0 for an invalid answer; totals are sums over seeds, TopCoder Marathon style. Raw scores per seed: <code>scores.csv</code>.</p>\n",
            facts.plan.seed
        );
        let mut puzzles: Vec<&str> = Vec::new();
        for r in &report.rows {
            if !puzzles.contains(&r.puzzle.as_str()) {
                puzzles.push(&r.puzzle);
            }
        }
        for puzzle in puzzles {
            let rows: Vec<&SolverRow> = report.rows.iter().filter(|r| r.puzzle == puzzle).collect();
            section(&mut body, puzzle, &rows, report);
        }
        Ok(format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Arena puzzle report</title>\n<style>{}{PAGE_STYLE}</style></head>\n<body>\n{body}</body></html>\n",
            super::html::STYLE
        ))
    }
}

const PAGE_STYLE: &str = ".gallery{display:flex;flex-wrap:wrap;gap:12px}.gallery figure{margin:0;border:1px solid #ddd;padding:4px}.gallery figcaption{font-size:85%;color:#444}";

fn section(out: &mut String, puzzle: &str, rows: &[&SolverRow], report: &PuzzleReport) {
    let title = if puzzle == "all" {
        "All puzzles"
    } else {
        puzzle
    };
    let _ = writeln!(
        out,
        "<section class=\"puzzle\" data-puzzle=\"{p}\"><h2>{}</h2>\n<table class=\"solvers\"><thead><tr><th>solver</th><th>attempts</th><th>valid</th><th>mean raw</th><th>relative</th><th>per 100</th><th>best</th><th>proven</th><th>invalid</th><th>timeout</th><th>crash</th><th>memory</th></tr></thead><tbody>",
        esc(title),
        p = esc(puzzle)
    );
    for r in rows {
        let mean = r.mean_score.map_or("–".to_owned(), |m| format!("{m:.2}"));
        let _ = writeln!(
            out,
            "<tr data-solver=\"{s}\" data-relative-total=\"{total}\" data-valid=\"{valid}\"><td>{s}</td><td>{}</td><td>{valid}</td><td>{mean}</td><td>{total:.2}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.attempts,
            r.relative_per_100,
            r.best,
            r.proven,
            r.invalid,
            r.timeout,
            r.crash,
            r.memory,
            s = esc(&r.solver),
            total = r.relative_total,
            valid = r.valid
        );
    }
    out.push_str("</tbody></table>\n");
    bars(out, rows);
    if let Ok(kind) = puzzle.parse::<PuzzleKind>() {
        gallery(out, kind, report);
    }
    out.push_str("</section>\n");
}

/// Relative score per 100 attempts, one bar per solver.
fn bars(out: &mut String, rows: &[&SolverRow]) {
    let (left, bar, gap, scale) = (160.0, 18.0, 6.0, 3.0);
    let height = rows.len() as f64 * (bar + gap) + gap;
    let _ = writeln!(
        out,
        "<svg class=\"bars\" width=\"{}\" height=\"{height}\" role=\"img\" aria-label=\"relative score per 100 attempts\">",
        left + 100.0 * scale + 60.0
    );
    for (i, r) in rows.iter().enumerate() {
        let y = gap + i as f64 * (bar + gap);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text><rect class=\"bar\" data-solver=\"{}\" data-value=\"{}\" x=\"{left}\" y=\"{y}\" width=\"{:.1}\" height=\"{bar}\" fill=\"#4575b4\"/><text x=\"{:.1}\" y=\"{}\" font-size=\"12\">{:.1}</text>",
            left - 6.0,
            y + 13.0,
            esc(&r.solver),
            esc(&r.solver),
            r.relative_per_100,
            r.relative_per_100 * scale,
            left + r.relative_per_100 * scale + 4.0,
            y + 13.0,
            r.relative_per_100
        );
    }
    out.push_str("</svg>\n");
}

/// The first seeds' answers, drawn.
fn gallery(out: &mut String, kind: PuzzleKind, report: &PuzzleReport) {
    let items: Vec<_> = report
        .gallery
        .iter()
        .filter(|g| g.puzzle == kind.name())
        .collect();
    if items.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h3>The first {GALLERY_SEEDS} seeds' answers</h3>\n<div class=\"gallery\">"
    );
    for g in items {
        let instance = kind.generate(g.seed);
        let drawing = puzzle_svg::draw(kind, &instance, &g.answer).unwrap_or_else(|why| {
            format!(
                "<p class=\"undrawable\">{}</p>",
                esc(&format!("no drawing: {why}"))
            )
        });
        let _ = writeln!(
            out,
            "<figure class=\"answer\" data-seed=\"{seed}\" data-solver=\"{solver}\" data-valid=\"{}\">{drawing}<figcaption>seed {seed} · {solver}</figcaption></figure>",
            g.valid,
            seed = g.seed,
            solver = esc(&g.solver)
        );
    }
    out.push_str("</div>\n");
}
