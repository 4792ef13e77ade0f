//! The puzzle visualizer (`arena vis`): an instance and an answer drawn as one SVG, the
//! way local testers of Marathon matches show them. Every mark carries its meaning in
//! `data-` attributes (a test, or a script, can read the drawing back).
//!
//! - Détrak: the grid with its symbols, each domino outlined, every line's score (T4) at
//!   the end of its row or column, the anti-diagonal's (counted twice) in the corner.
//! - DominoPeg: the 6x4 board with each piece in its own colour and name, the 7x5 circles,
//!   pegs as dots and the circles to keep empty as red rings.
//! - Dust: the board before each move and after the last, the clicked cell ringed.

use std::fmt::Write as _;

use arena_core::puzzle::detrak::{self, Detrak};
use arena_core::puzzle::dominopeg::{self, DominoPeg};
use arena_core::puzzle::dust::{self, Dust};
use arena_core::puzzle::{Puzzle, PuzzleKind, line};

use super::svg::esc;

const CELL: i32 = 48;
const PALETTE: [&str; 12] = [
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f",
];

/// The SVG of `answer` on `instance` (both in the puzzle's notation). A notation error is
/// `Err`; an answer the referee refuses is still drawn as far as it goes, with the
/// referee's reason as the caption.
pub fn draw(kind: PuzzleKind, instance: &str, answer: &str) -> Result<String, String> {
    let (instance, answer) = (line(instance), line(answer));
    let verdict = kind
        .score(instance, answer)
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string());
    let caption = match &verdict {
        Ok(score) => format!("{kind}: Score = {score}"),
        Err(why) => format!("{kind}: invalid: {why}"),
    };
    let (width, height, body) = match kind {
        PuzzleKind::Detrak => body::<Detrak>(instance, answer, detrak_body)?,
        PuzzleKind::DominoPeg => body::<DominoPeg>(instance, answer, dominopeg_body)?,
        PuzzleKind::Dust => body::<Dust>(instance, answer, dust_body)?,
    };
    let score = verdict.as_ref().map_or(String::new(), |s| s.to_string());
    // SVG text does not wrap: a long reason (it may quote the answer) gets several lines,
    // about 8 px a character at this size.
    let lines = wrap(&caption, ((width - 16) / 8).max(24) as usize);
    let extra = CAPTION_LINE * (lines.len() as i32 - 1);
    let mut captions = String::new();
    for (i, text) in lines.iter().enumerate() {
        let _ = writeln!(
            captions,
            "<text x=\"8\" y=\"{}\" font-size=\"14\">{}</text>",
            20 + CAPTION_LINE * i as i32,
            esc(text)
        );
    }
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{h}\" viewBox=\"0 0 {width} {h}\" \
         font-family=\"sans-serif\" data-puzzle=\"{kind}\" data-valid=\"{}\" data-score=\"{score}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         {captions}<g transform=\"translate(8,{})\">\n{body}</g>\n</svg>\n",
        verdict.is_ok(),
        32 + extra,
        h = height + 40 + extra,
    ))
}

/// A drawing's width, height and SVG body.
type Body = (i32, i32, String);

/// The drawing of `answer` on `instance`, parsed as puzzle `P`'s.
fn body<P: Puzzle>(
    instance: &str,
    answer: &str,
    draw: fn(&P::Instance, &P::Answer) -> Body,
) -> Result<Body, String> {
    let instance = instance
        .parse()
        .map_err(|e: arena_core::ParseError| e.to_string())?;
    let answer = answer
        .parse()
        .map_err(|e: arena_core::ParseError| e.to_string())?;
    Ok(draw(&instance, &answer))
}

/// The height of a caption line.
const CAPTION_LINE: i32 = 18;

/// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let line = lines.last_mut().expect("never empty");
            let used = line.chars().count();
            let room = width.saturating_sub(used + usize::from(used > 0));
            if word.len() <= room {
                if used > 0 {
                    line.push(' ');
                }
                line.extend(word);
                break;
            }
            if used > 0 {
                lines.push(String::new());
                continue;
            }
            // A word longer than a line: cut it.
            line.extend(word.drain(..width));
            lines.push(String::new());
        }
    }
    lines.retain(|l| !l.is_empty());
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

fn detrak_body(instance: &detrak::Instance, answer: &detrak::Answer) -> (i32, i32, String) {
    let mut grid = [0u8; detrak::CELLS];
    grid[0] = instance.start;
    let mut out = String::new();
    let xy = |cell: u8| (i32::from(cell) % 5 * CELL, i32::from(cell) / 5 * CELL);
    for (d, p) in instance.dominoes.iter().zip(&answer.placements) {
        for (cell, symbol) in [(p.first, d.0), (p.second, d.1)] {
            if let Some(slot) = grid.get_mut(usize::from(cell)) {
                *slot = symbol;
            }
        }
    }
    for (cell, &symbol) in grid.iter().enumerate() {
        let (x, y) = xy(cell as u8);
        let _ = writeln!(
            out,
            "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"#f7f7f7\" stroke=\"#bbb\"/>\
             <text class=\"symbol\" data-cell=\"{cell}\" data-symbol=\"{symbol}\" x=\"{}\" y=\"{}\" font-size=\"22\" text-anchor=\"middle\">{}</text>",
            x + CELL / 2,
            y + CELL / 2 + 8,
            if symbol == 0 {
                String::new()
            } else {
                symbol.to_string()
            }
        );
    }
    for (i, p) in answer.placements.iter().enumerate() {
        if p.first >= 25 || p.second >= 25 {
            continue;
        }
        let ((x1, y1), (x2, y2)) = (xy(p.first), xy(p.second));
        let (x, y) = (x1.min(x2) + 4, y1.min(y2) + 4);
        let (w, h) = ((x1 - x2).abs() + CELL - 8, (y1 - y2).abs() + CELL - 8);
        let _ = writeln!(
            out,
            "<rect class=\"domino\" data-domino=\"{i}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" rx=\"8\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\"/>"
        );
    }
    for (l, cells) in detrak::LINES.iter().enumerate() {
        let score = detrak::line_score(cells.map(|c| grid[c]));
        let (x, y) = match l {
            0..=4 => (5 * CELL + 8, l as i32 * CELL + CELL / 2 + 5),
            5..=9 => ((l as i32 - 5) * CELL + CELL / 2, 5 * CELL + 20),
            _ => (5 * CELL + 8, 5 * CELL + 20),
        };
        let label = if l == detrak::ANTI_DIAGONAL {
            format!("↗ {score} ×2")
        } else {
            score.to_string()
        };
        let _ = writeln!(
            out,
            "<text class=\"line-score\" data-line=\"{l}\" data-score=\"{score}\" x=\"{x}\" y=\"{y}\" font-size=\"13\" text-anchor=\"{}\">{}</text>",
            if l < 5 || l == 10 { "start" } else { "middle" },
            esc(&label)
        );
    }
    (5 * CELL + 70, 5 * CELL + 28, out)
}

fn dominopeg_body(
    instance: &dominopeg::Instance,
    answer: &dominopeg::Answer,
) -> (i32, i32, String) {
    let cols = i32::from(dominopeg::SQUARE_COLS);
    let rows = i32::from(dominopeg::SQUARE_ROWS);
    let pad = CELL / 2;
    let mut out = String::new();
    let mut pegs = 0u64;
    if let dominopeg::Answer::Solution(placements) = answer {
        for p in placements {
            let Ok(f) = p.footprint() else { continue };
            pegs |= f.pegs;
            let piece = dominopeg::PIECE_NAMES[usize::from(p.piece) % dominopeg::PIECES];
            let colour = PALETTE[usize::from(p.piece) % PALETTE.len()];
            for s in 0..dominopeg::SQUARES {
                if f.squares >> s & 1 == 1 {
                    let (x, y) = (
                        i32::from(s) % cols * CELL + pad,
                        i32::from(s) / cols * CELL + pad,
                    );
                    let _ = writeln!(
                        out,
                        "<rect class=\"square\" data-square=\"{s}\" data-piece=\"{piece}\" x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{colour}\" stroke=\"#666\"/>\
                         <text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"#444\">{piece}</text>",
                        x + 4,
                        y + 14
                    );
                }
            }
        }
    }
    let mut height = rows * CELL + 2 * pad;
    if !matches!(answer, dominopeg::Answer::Solution(_)) {
        // Below the board, not over its circles.
        let _ = writeln!(
            out,
            "<text x=\"{pad}\" y=\"{}\" font-size=\"16\">answer: none</text>",
            height + 8
        );
        height += 20;
    }
    for c in 0..dominopeg::CIRCLES {
        let (x, y) = (i32::from(c) % 7 * CELL + pad, i32::from(c) / 7 * CELL + pad);
        let (class, style) = match (instance.holes >> c & 1 == 1, pegs >> c & 1 == 1) {
            (true, true) => ("hole peg", "fill=\"#d7301f\" stroke=\"#d7301f\""),
            (true, false) => (
                "hole",
                "fill=\"white\" stroke=\"#d7301f\" stroke-width=\"3\"",
            ),
            (false, true) => ("peg", "fill=\"#222\" stroke=\"#222\""),
            (false, false) => ("circle", "fill=\"white\" stroke=\"#999\""),
        };
        let _ = writeln!(
            out,
            "<circle class=\"{class}\" data-circle=\"{c}\" cx=\"{x}\" cy=\"{y}\" r=\"7\" {style}/>"
        );
    }
    (cols * CELL + 2 * pad, height, out)
}

fn dust_body(board: &dust::Board, answer: &dust::Answer) -> (i32, i32, String) {
    const SMALL: i32 = 18;
    let colour = |c: u8| match c {
        1 => "#1a9850",
        2 => "#fd8d3c",
        3 => "#d73027",
        4 => "#fee08b",
        5 => "#4575b4",
        _ => "white",
    };
    let (bw, bh) = (dust::WIDTH as i32 * SMALL, dust::HEIGHT as i32 * SMALL);
    let per_row = 5;
    let mut out = String::new();
    let mut board = *board;
    let mut boards: usize = 0;
    for step in 0..=answer.moves.len() {
        let mv = answer.moves.get(step);
        let (ox, oy) = (
            (step % per_row) as i32 * (bw + 16),
            (step / per_row) as i32 * (bh + 30),
        );
        let label = match mv {
            Some(m) => format!("{}. click {},{}", step + 1, m.x, m.y),
            None if board.is_clear() => "cleared".to_owned(),
            None => "not cleared".to_owned(),
        };
        let _ = writeln!(
            out,
            "<g class=\"board\" data-step=\"{step}\" transform=\"translate({ox},{oy})\"><text x=\"0\" y=\"12\" font-size=\"11\">{label}</text>"
        );
        for y in 0..dust::HEIGHT {
            for x in 0..dust::WIDTH {
                let (px, py) = (x as i32 * SMALL, 16 + (dust::HEIGHT - 1 - y) as i32 * SMALL);
                let _ = writeln!(
                    out,
                    "<rect x=\"{px}\" y=\"{py}\" width=\"{SMALL}\" height=\"{SMALL}\" fill=\"{}\" stroke=\"#ddd\"/>",
                    colour(board.get(x, y))
                );
            }
        }
        if let Some(m) = mv {
            let _ = writeln!(
                out,
                "<circle class=\"click\" cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>",
                i32::from(m.x) * SMALL + SMALL / 2,
                16 + (dust::HEIGHT as i32 - 1 - i32::from(m.y)) * SMALL + SMALL / 2
            );
        }
        out.push_str("</g>\n");
        boards += 1;
        match mv {
            Some(&m) => {
                if board.play(m).is_err() {
                    break;
                }
            }
            None => break,
        }
    }
    let rows = boards.div_ceil(per_row);
    (per_row as i32 * (bw + 16), rows as i32 * (bh + 30), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }

    /// The instance of `seed`, `solver`'s answer to it, and the drawing.
    fn solved(kind: PuzzleKind, seed: u64, solver: &str) -> (String, String, String) {
        let instance = kind.generate(seed);
        let answer = agents::puzzles::registry::solve(kind, &solver.parse().unwrap(), &instance)
            .unwrap()
            .unwrap()
            .answer;
        let svg = draw(kind, &instance, &answer).unwrap();
        (instance, answer, svg)
    }

    #[test]
    fn detrak_draws_every_cell_domino_and_line_score() {
        let (instance, answer, svg) = solved(PuzzleKind::Detrak, 4, "greedy");
        assert_eq!(count(&svg, "class=\"symbol\""), 25);
        assert_eq!(count(&svg, "class=\"domino\""), 12);
        assert_eq!(count(&svg, "class=\"line-score\""), 11);
        let score = PuzzleKind::Detrak
            .score(&instance, &answer)
            .unwrap()
            .unwrap();
        assert!(svg.contains(&format!("data-score=\"{score}\"")), "{svg}");
        // The line scores drawn add up to the board's score (T5).
        let lines: i64 = svg
            .split("class=\"line-score\"")
            .skip(1)
            .map(|s| {
                let l: i64 = attr(s, "data-line").parse().unwrap();
                let v: i64 = attr(s, "data-score").parse().unwrap();
                if l == 10 { 2 * v } else { v }
            })
            .sum();
        assert_eq!(lines, score);
    }

    fn attr<'a>(s: &'a str, name: &str) -> &'a str {
        let start = s.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        &s[start..start + s[start..].find('"').unwrap()]
    }

    #[test]
    fn dominopeg_draws_pieces_pegs_and_holes() {
        let (_, _, svg) = solved(PuzzleKind::DominoPeg, 0, "exact");
        assert_eq!(count(&svg, "class=\"square\""), 24);
        assert_eq!(count(&svg, "class=\"peg\""), 30);
        assert_eq!(count(&svg, "class=\"hole\""), 5);
        assert!(svg.contains("data-valid=\"true\""));
    }

    #[test]
    fn dust_draws_one_board_per_move_and_the_end() {
        let instance = PuzzleKind::Dust.generate(2);
        let board: dust::Board = instance.parse().unwrap();
        let moves = agents::puzzles::dust::greedy(&board);
        let answer = dust::Answer { moves }.to_string();
        let svg = draw(PuzzleKind::Dust, &instance, &answer).unwrap();
        let n = answer.split_whitespace().count();
        assert_eq!(count(&svg, "class=\"board\""), n + 1);
        assert_eq!(count(&svg, "class=\"click\""), n);
        assert!(svg.contains(">cleared<"));
        // An answer that stops early is drawn, and said to be invalid.
        let first = answer.split_whitespace().next().unwrap();
        let svg = draw(PuzzleKind::Dust, &instance, first).unwrap();
        assert!(svg.contains("data-valid=\"false\"") && svg.contains("not cleared"));
        assert!(draw(PuzzleKind::Dust, &instance, "x,y").is_err());
    }
}

#[cfg(test)]
mod wrap_tests {
    use super::wrap;

    #[test]
    fn captions_wrap_at_spaces_and_cut_long_words() {
        assert_eq!(wrap("a bc def", 4), ["a bc", "def"]);
        assert_eq!(wrap("short", 40), ["short"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 10), [""]);
        for line in wrap(
            "dominopeg: invalid: piece 3 at 12 overlaps piece 1: 1:0,3 2:5,1",
            24,
        ) {
            assert!(line.chars().count() <= 24, "{line}");
        }
    }
}
