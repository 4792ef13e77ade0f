//! Hand-written SVG charts for `report.html`: a heatmap of scores per case, scores per
//! case with error bars, and the pentanomial pair histogram. Every mark carries its
//! numbers in `data-` attributes, so a test can read them back from the page.

use std::fmt::Write as _;

use super::summary::{CellReport, MatchupReport};

/// Text escaped for HTML and SVG (element text and attribute values).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::shown::escape_controls(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A fill for a score per 100: red below 50, white at 50, green above.
pub fn fill(score: f64) -> String {
    let t = ((score - 50.0) / 50.0).clamp(-1.0, 1.0);
    let (r, g, b) = if t < 0.0 {
        mix((247, 247, 247), (215, 48, 39), -t)
    } else {
        mix((247, 247, 247), (26, 152, 80), t)
    };
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn mix(from: (u8, u8, u8), to: (u8, u8, u8), t: f64) -> (u8, u8, u8) {
    let m = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    (m(from.0, to.0), m(from.1, to.1), m(from.2, to.2))
}

/// The `data-` attributes of a case's mark: the row of `summary.csv` it draws.
fn cell_data(c: &CellReport) -> String {
    format!(
        "data-case=\"{}\" data-games=\"{}\" data-score=\"{}\" data-ci-low=\"{}\" data-ci-high=\"{}\"",
        esc(&c.case),
        c.games,
        c.score,
        c.ci_low,
        c.ci_high
    )
}

/// A case split into its two coordinates: `5,4` (Dominoes N,H) or `lines:4` (Quarto
/// variant:plies); a case without a separator is one row.
fn coordinates(case: &str) -> (&str, &str) {
    case.split_once([',', ':']).unwrap_or((case, ""))
}

/// Distinct values in first-seen order, numbers sorted numerically.
fn axis<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if out.iter().all(|v| v.parse::<i64>().is_ok()) {
        out.sort_by_key(|v| v.parse::<i64>().unwrap_or(0));
    }
    out
}

/// Score per case as a grid (rows: N or the variant; columns: H or the opening plies),
/// each cell with its score and Wilson 95% interval.
pub fn heatmap(m: &MatchupReport, row_label: &str, col_label: &str) -> String {
    let rows = axis(m.cases.iter().map(|c| coordinates(&c.case).0));
    let cols = axis(m.cases.iter().map(|c| coordinates(&c.case).1));
    let (cw, ch, left, top) = (96.0, 46.0, 70.0, 40.0);
    let width = left + cw * cols.len() as f64 + 10.0;
    let height = top + ch * rows.len() as f64 + 10.0;
    let mut out = format!(
        "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\"><title>score per case, {} vs {}</title>",
        esc(&m.agent_a),
        esc(&m.agent_b)
    );
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"14\" class=\"axis\" text-anchor=\"middle\">{}</text><text x=\"8\" y=\"{}\" class=\"axis\">{}</text>",
        left + cw * cols.len() as f64 / 2.0,
        esc(col_label),
        top - 6.0,
        esc(row_label)
    );
    for (j, col) in cols.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            left + cw * (j as f64 + 0.5),
            top - 6.0,
            esc(col)
        );
    }
    for (i, row) in rows.iter().enumerate() {
        let y = top + ch * i as f64;
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            left - 8.0,
            y + ch / 2.0 + 4.0,
            esc(row)
        );
        for (j, col) in cols.iter().enumerate() {
            let Some(c) = m
                .cases
                .iter()
                .find(|c| coordinates(&c.case) == (*row, *col))
            else {
                continue;
            };
            let x = left + cw * j as f64;
            let _ = write!(
                out,
                "<g class=\"cell\" {}><rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"v\">{:.1}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"ci\">[{:.1}, {:.1}]</text><title>{}: {:.1} per 100 over {} games, 95% [{:.1}, {:.1}]</title></g>",
                cell_data(c),
                cw - 2.0,
                ch - 2.0,
                fill(c.score),
                x + cw / 2.0,
                y + 19.0,
                c.score,
                x + cw / 2.0,
                y + 35.0,
                c.ci_low,
                c.ci_high,
                esc(&c.case),
                c.score,
                c.games,
                c.ci_low,
                c.ci_high
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// Score per case (and overall) as a point with its Wilson 95% interval as a bar.
pub fn error_bars(m: &MatchupReport) -> String {
    let rows: Vec<&CellReport> = m.cases.iter().chain(std::iter::once(&m.overall)).collect();
    let (step, left, top, plot) = (34.0, 44.0, 12.0, 220.0);
    let width = left + step * rows.len() as f64 + 10.0;
    let height = top + plot + 56.0;
    let y = |score: f64| top + plot * (1.0 - score / 100.0);
    let mut out = format!(
        "<svg class=\"bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\"><title>score per case with 95% intervals, {} vs {}</title>",
        esc(&m.agent_a),
        esc(&m.agent_b)
    );
    for tick in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let (right, at) = (width - 6.0, y(tick));
        let class = if tick == 50.0 { "even" } else { "grid" };
        let _ = write!(
            out,
            "<line x1=\"{left}\" x2=\"{right}\" y1=\"{at}\" y2=\"{at}\" class=\"{class}\"/><text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">{tick}</text>",
            left - 6.0,
            at + 4.0
        );
    }
    for (i, c) in rows.iter().enumerate() {
        let x = left + step * (i as f64 + 0.5);
        let _ = write!(
            out,
            "<g class=\"bar\" {}><line x1=\"{x}\" x2=\"{x}\" y1=\"{}\" y2=\"{}\" class=\"whisker\"/><circle cx=\"{x}\" cy=\"{}\" r=\"4\" fill=\"{}\" stroke=\"#333\"/><text transform=\"translate({x},{}) rotate(-60)\" class=\"tick\" text-anchor=\"end\">{}</text><title>{}: {:.1} per 100, 95% [{:.1}, {:.1}]</title></g>",
            cell_data(c),
            y(c.ci_low),
            y(c.ci_high),
            y(c.score),
            fill(c.score),
            top + plot + 14.0,
            esc(&c.case),
            esc(&c.case),
            c.score,
            c.ci_low,
            c.ci_high
        );
    }
    out.push_str("</svg>");
    out
}

/// Pairs by agent A's pair score: LL, LD, WL or DD, WD, WW.
pub fn pentanomial(c: &CellReport) -> String {
    let counts = [c.ptnml_0, c.ptnml_1, c.ptnml_2, c.ptnml_3, c.ptnml_4];
    let labels = ["0 (LL)", "¼ (LD)", "½ (WL, DD)", "¾ (WD)", "1 (WW)"];
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let (bw, left, top, plot) = (80.0, 10.0, 18.0, 140.0);
    let width = left * 2.0 + bw * 5.0;
    let height = top + plot + 24.0;
    let mut out = format!(
        "<svg class=\"ptnml\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" role=\"img\"><title>pairs by agent A's pair score</title>"
    );
    for (i, (&n, label)) in counts.iter().zip(labels).enumerate() {
        let h = plot * n as f64 / max;
        let x = left + bw * i as f64;
        let _ = write!(
            out,
            "<g class=\"pbar\" data-ptnml=\"{i}\" data-count=\"{n}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{h}\" fill=\"{}\" stroke=\"#555\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"v\">{n}</text><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"tick\">{label}</text></g>",
            x + 8.0,
            top + plot - h,
            bw - 16.0,
            fill(25.0 * i as f64),
            x + bw / 2.0,
            top + plot - h - 4.0,
            x + bw / 2.0,
            top + plot + 16.0
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn colours_run_from_red_through_white_to_green() {
        assert_eq!(fill(0.0), "#d73027");
        assert_eq!(fill(50.0), "#f7f7f7");
        assert_eq!(fill(100.0), "#1a9850");
        assert_eq!(fill(150.0), "#1a9850");
    }

    #[test]
    fn axes_sort_numbers_and_keep_words_in_order() {
        assert_eq!(axis(["9", "5", "7", "5"].into_iter()), ["5", "7", "9"]);
        assert_eq!(
            axis(["lines", "squares", "lines"].into_iter()),
            ["lines", "squares"]
        );
        assert_eq!(coordinates("5,4"), ("5", "4"));
        assert_eq!(coordinates("squares:4"), ("squares", "4"));
    }
}
