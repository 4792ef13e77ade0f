//! Naive puzzle referees written from `specs/puzzles.md` alone: 2D arrays, strings and
//! plain loops, sharing no code with `arena_core::puzzle`. Slow on purpose.

#![allow(dead_code)]
// Index loops mirror the spec's (row, column) wording.
#![allow(clippy::needless_range_loop)]

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// The documented instance stream: ChaCha8 seeded by the seed, stream `family << 60`.
pub fn stream(family: u64, seed: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(family << 60);
    rng
}

/// Uniform in `0..n` by rejection, as `docs/seeding.md` spells it.
pub fn below(rng: &mut ChaCha8Rng, n: u32) -> u32 {
    let zone = (u64::from(u32::MAX) + 1) / u64::from(n) * u64::from(n);
    loop {
        let x = rng.next_u32();
        if u64::from(x) < zone {
            return x % n;
        }
    }
}

pub mod detrak {
    use super::*;

    /// `(start, dominoes)` of a seed, in the instance's notation.
    pub fn generate(seed: u64) -> String {
        let mut rng = stream(3, seed);
        let mut text = format!("{} |", 1 + below(&mut rng, 6));
        for _ in 0..12 {
            let a = 1 + below(&mut rng, 6);
            let b = 1 + below(&mut rng, 6);
            text.push_str(&format!(" {a}{b}"));
        }
        text
    }

    fn line_value(line: &[u32]) -> i64 {
        let mut runs = Vec::new();
        let mut start = 0;
        for i in 1..=line.len() {
            if i == line.len() || line[i] != line[start] {
                runs.push(i - start);
                start = i;
            }
        }
        let long: Vec<usize> = runs.into_iter().filter(|&r| r >= 2).collect();
        if long.is_empty() {
            return -5;
        }
        long.iter()
            .map(|&r| match r {
                2 => 2,
                3 => 3,
                4 => 8,
                _ => 10,
            })
            .sum()
    }

    /// The score of a 5x5 grid of symbols (T4, T5).
    pub fn grid_value(g: &[[u32; 5]; 5]) -> i64 {
        let mut total = 0;
        for i in 0..5 {
            let row: Vec<u32> = (0..5).map(|j| g[i][j]).collect();
            let col: Vec<u32> = (0..5).map(|j| g[j][i]).collect();
            total += line_value(&row) + line_value(&col);
        }
        let diag: Vec<u32> = (0..5).map(|k| g[4 - k][k]).collect();
        total + 2 * line_value(&diag)
    }

    /// Referees an answer in notation: `Some(score)` or `None` for invalid.
    pub fn score(instance: &str, answer: &str) -> Option<i64> {
        let (start, rest) = instance.split_once('|')?;
        let start: u32 = start.trim().parse().ok()?;
        let dominoes: Vec<(u32, u32)> = rest
            .split_whitespace()
            .map(|d| {
                let v: Vec<u32> = d.chars().map(|c| c.to_digit(10).unwrap()).collect();
                (v[0], v[1])
            })
            .collect();
        let places: Vec<&str> = answer.split_whitespace().collect();
        if places.len() != 12 || dominoes.len() != 12 {
            return None;
        }
        let mut g = [[0u32; 5]; 5];
        g[0][0] = start;
        for (d, p) in dominoes.iter().zip(places) {
            let c: Vec<i32> = p
                .chars()
                .filter(|c| c.is_ascii_digit())
                .map(|c| c.to_digit(10).unwrap() as i32)
                .collect();
            let (r1, c1, r2, c2) = (c[0], c[1], c[2], c[3]);
            if (r1 - r2).abs() + (c1 - c2).abs() != 1 {
                return None;
            }
            for (r, col, s) in [(r1, c1, d.0), (r2, c2, d.1)] {
                if g[r as usize][col as usize] != 0 {
                    return None;
                }
                g[r as usize][col as usize] = s;
            }
        }
        Some(grid_value(&g))
    }

    /// A random tiling of the 24 free cells, as an answer in notation (valid by
    /// construction): dominoes in a random order, each with a random flip.
    pub fn random_answer(rng: &mut ChaCha8Rng) -> String {
        loop {
            let mut used = [[false; 5]; 5];
            used[0][0] = true;
            let mut pairs = Vec::new();
            let mut stuck = false;
            'fill: for r in 0..5 {
                for c in 0..5 {
                    if used[r][c] {
                        continue;
                    }
                    let mut options = Vec::new();
                    if c + 1 < 5 && !used[r][c + 1] {
                        options.push((r, c + 1));
                    }
                    if r + 1 < 5 {
                        options.push((r + 1, c));
                    }
                    if options.is_empty() {
                        stuck = true;
                        break 'fill;
                    }
                    let (r2, c2) = options[below(rng, options.len() as u32) as usize];
                    used[r][c] = true;
                    used[r2][c2] = true;
                    pairs.push(((r, c), (r2, c2)));
                }
            }
            if stuck {
                continue;
            }
            let mut text = Vec::new();
            while !pairs.is_empty() {
                let ((a, b), (c, d)) = pairs.swap_remove(below(rng, pairs.len() as u32) as usize);
                text.push(if below(rng, 2) == 0 {
                    format!("{a}{b}-{c}{d}")
                } else {
                    format!("{c}{d}-{a}{b}")
                });
            }
            return text.join(" ");
        }
    }
}

pub mod dominopeg {
    use super::*;

    /// The five circles of a seed, in the instance's notation.
    pub fn generate(seed: u64) -> String {
        let mut rng = stream(4, seed);
        let mut circles: Vec<u32> = (0..35).collect();
        for i in (1..35usize).rev() {
            let j = below(&mut rng, i as u32 + 1) as usize;
            circles.swap(i, j);
        }
        let mut five = circles[..5].to_vec();
        five.sort();
        five.iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    }

    const PEGS: [&[(i32, i32)]; 12] = [
        &[(0, 0), (0, 1)],
        &[(0, 0), (0, 2)],
        &[(0, 0), (1, 0)],
        &[(0, 0), (1, 1)],
        &[(0, 0), (1, 2)],
        &[(0, 1), (1, 1)],
        &[(0, 0), (0, 1), (0, 2)],
        &[(0, 0), (0, 1), (1, 0)],
        &[(0, 0), (0, 1), (1, 1)],
        &[(0, 0), (0, 1), (1, 2)],
        &[(0, 0), (0, 2), (1, 0)],
        &[(0, 0), (0, 2), (1, 1)],
    ];

    /// Pegs of a placement as circle (row, col), by doubling coordinates around the
    /// piece's centre: mirror `y -> -y`, then turn clockwise `(x, y) -> (-y, x)` with y
    /// down, then shift back to the footprint's top-left.
    pub fn pegs(piece: usize, row: i32, col: i32, orientation: u32) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for &(i, j) in PEGS[piece] {
            // Centre of the 2x3 spot box is (0.5, 1): doubled, (1, 2).
            let (mut y, mut x) = (2 * i - 1, 2 * j - 2);
            if orientation >= 4 {
                y = -y;
            }
            for _ in 0..orientation % 4 {
                (x, y) = (-y, x);
            }
            let (h, w) = if orientation % 2 == 1 { (3, 2) } else { (2, 3) };
            out.push((row + (y + h - 1) / 2, col + (x + w - 1) / 2));
        }
        out
    }

    /// Parses `<piece><square><h|v><o>` into (piece, row, col, vertical, orientation).
    fn parse(p: &str) -> Option<(usize, i32, i32, bool, u32)> {
        let piece = "0123456789AB".find(p.chars().next()?)?;
        let hv = p.find(['h', 'v'])?;
        let square: i32 = p[1..hv].parse().ok()?;
        let o: u32 = p[hv + 1..].parse().ok()?;
        Some((piece, square / 6, square % 6, &p[hv..hv + 1] == "v", o))
    }

    /// Referees a solution in notation (not `none`): `true` if it is one.
    pub fn valid(instance: &str, answer: &str) -> bool {
        let holes: Vec<i32> = instance
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect();
        let mut squares = [[false; 6]; 4];
        let mut circles = [[false; 7]; 5];
        let mut seen = [false; 12];
        let places: Vec<&str> = answer.split_whitespace().collect();
        if places.len() != 12 {
            return false;
        }
        for p in places {
            let Some((piece, row, col, vertical, o)) = parse(p) else {
                return false;
            };
            if seen[piece] || o > 7 || vertical != (o % 2 == 1) || row > 3 {
                return false;
            }
            seen[piece] = true;
            let cells = if vertical {
                [(row, col), (row + 1, col)]
            } else {
                [(row, col), (row, col + 1)]
            };
            for (r, c) in cells {
                if r > 3 || c > 5 || squares[r as usize][c as usize] {
                    return false;
                }
                squares[r as usize][c as usize] = true;
            }
            for (r, c) in pegs(piece, row, col, o) {
                if circles[r as usize][c as usize] || holes.contains(&(7 * r + c)) {
                    return false;
                }
                circles[r as usize][c as usize] = true;
            }
        }
        true
    }

    /// Whether any solution keeps exactly five given `holes` empty. Then the 30 pegs fill
    /// every other circle, so plain backtracking on the first circle (row-major) still
    /// without a peg, trying every unused piece, square and orientation that pegs it,
    /// covers all squares too once all 12 pieces are down without overlap.
    pub fn solvable(instance: &str) -> bool {
        let holes: Vec<i32> = instance
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect();
        assert_eq!(holes.len(), 5, "the naive search handles five holes only");
        let mut circles = [[false; 7]; 5];
        for h in holes {
            circles[(h / 7) as usize][(h % 7) as usize] = true;
        }
        fn go(
            squares: &mut [[bool; 6]; 4],
            circles: &mut [[bool; 7]; 5],
            placed: usize,
            used: &mut [bool; 12],
        ) -> bool {
            if placed == 12 {
                return true;
            }
            let target = (0..35)
                .map(|k| (k / 7, k % 7))
                .find(|&(r, c)| !circles[r as usize][c as usize])
                .unwrap();
            for piece in 0..12 {
                if used[piece] {
                    continue;
                }
                for square in 0..24 {
                    let (row, col) = (square / 6, square % 6);
                    for o in 0..8 {
                        let cells = if o % 2 == 1 {
                            [(row, col), (row + 1, col)]
                        } else {
                            [(row, col), (row, col + 1)]
                        };
                        if cells
                            .iter()
                            .any(|&(r, c)| r > 3 || c > 5 || squares[r as usize][c as usize])
                        {
                            continue;
                        }
                        let pegs = pegs(piece, row, col, o);
                        if !pegs.contains(&target)
                            || pegs.iter().any(|&(r, c)| circles[r as usize][c as usize])
                        {
                            continue;
                        }
                        for &(r, c) in &cells {
                            squares[r as usize][c as usize] = true;
                        }
                        for &(r, c) in &pegs {
                            circles[r as usize][c as usize] = true;
                        }
                        used[piece] = true;
                        let ok = go(squares, circles, placed + 1, used);
                        used[piece] = false;
                        for &(r, c) in &cells {
                            squares[r as usize][c as usize] = false;
                        }
                        for &(r, c) in &pegs {
                            circles[r as usize][c as usize] = false;
                        }
                        if ok {
                            return true;
                        }
                    }
                }
            }
            false
        }
        go(&mut [[false; 6]; 4], &mut circles, 0, &mut [false; 12])
    }
}

pub mod dust {
    use super::*;

    /// A board as rows of chars, row 0 the top row (y = 5).
    pub type Rows = Vec<Vec<char>>;

    pub fn generate(seed: u64) -> String {
        let mut rng = stream(5, seed);
        let rows: Vec<String> = (0..6)
            .map(|_| {
                (0..8)
                    .map(|_| ['G', 'O', 'R', 'Y', 'B'][below(&mut rng, 5) as usize])
                    .collect()
            })
            .collect();
        rows.join(",")
    }

    pub fn parse(board: &str) -> Rows {
        board
            .split(',')
            .map(|r| {
                let mut v: Vec<char> = r.chars().collect();
                v.resize(8, ' ');
                v
            })
            .collect()
    }

    pub fn show(rows: &Rows) -> String {
        rows.iter()
            .map(|r| r.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Clicks (x, y), y counted from the bottom; `false` if the cell is empty.
    pub fn click(rows: &mut Rows, x: usize, y: usize) -> bool {
        let r = 5 - y;
        let colour = rows[r][x];
        if colour == ' ' {
            return false;
        }
        let mut todo = vec![(r, x)];
        while let Some((r, c)) = todo.pop() {
            if rows[r][c] != colour {
                continue;
            }
            rows[r][c] = ' ';
            if r > 0 {
                todo.push((r - 1, c));
            }
            if r < 5 {
                todo.push((r + 1, c));
            }
            if c > 0 {
                todo.push((r, c - 1));
            }
            if c < 7 {
                todo.push((r, c + 1));
            }
        }
        // Fall: repeatedly swap a cell down into an empty cell below it.
        for _ in 0..6 {
            for r in (0..5).rev() {
                for c in 0..8 {
                    if rows[r + 1][c] == ' ' && rows[r][c] != ' ' {
                        rows[r + 1][c] = rows[r][c];
                        rows[r][c] = ' ';
                    }
                }
            }
        }
        // Close each half toward the centre by repeated swaps.
        for row in rows.iter_mut() {
            for _ in 0..4 {
                for c in 0..3 {
                    if row[c + 1] == ' ' && row[c] != ' ' {
                        row.swap(c, c + 1);
                    }
                }
                for c in (5..8).rev() {
                    if row[c - 1] == ' ' && row[c] != ' ' {
                        row.swap(c, c - 1);
                    }
                }
            }
        }
        true
    }

    /// Referees a list of moves: `Some(count)` if it clears the board.
    pub fn score(board: &str, answer: &str) -> Option<i64> {
        let mut rows = parse(board);
        let mut n = 0;
        for mv in answer.split_whitespace() {
            if rows.iter().all(|r| r.iter().all(|&c| c == ' ')) {
                return None;
            }
            let (x, y) = mv.split_once(',')?;
            let (x, y): (usize, usize) = (x.parse().ok()?, y.parse().ok()?);
            if x > 7 || y > 5 || !click(&mut rows, x, y) {
                return None;
            }
            n += 1;
        }
        rows.iter()
            .all(|r| r.iter().all(|&c| c == ' '))
            .then_some(n)
    }
}
