//! Détrak (T1–T7): twelve rolled dominoes on a 5x5 grid whose top-left cell holds the
//! start symbol; rows, columns and the anti-diagonal (counted twice) score their runs.
//!
//! Notations: an instance is `3 | 15 22 46 …` (the start symbol, then the 12 dominoes in
//! the order they are rolled); an answer is 12 placements in instance order, each
//! `RC-RC`: the cell (row, column) holding the domino's first symbol, then the cell
//! holding its second, e.g. `01-02 11-21 …`.

use std::fmt::{self, Display};
use std::str::FromStr;

use super::{Invalid, Objective, Puzzle, instance_rng};
use crate::ParseError;
use crate::rng::{Family, below};

pub const SIZE: usize = 5;
pub const CELLS: usize = SIZE * SIZE;
pub const DOMINOES: usize = 12;

/// The 11 scoring lines as cell indices (`5 * row + col`): rows 0..4, columns 0..4,
/// then the anti-diagonal from (4,0) to (0,4) (T4).
pub const LINES: [[usize; SIZE]; 11] = {
    let mut lines = [[0; SIZE]; 11];
    let mut i = 0;
    while i < SIZE {
        let mut j = 0;
        while j < SIZE {
            lines[i][j] = SIZE * i + j;
            lines[SIZE + i][j] = SIZE * j + i;
            j += 1;
        }
        lines[10][i] = SIZE * (SIZE - 1 - i) + i;
        i += 1;
    }
    lines
};

/// The index of the anti-diagonal in [`LINES`]; it counts twice (T5).
pub const ANTI_DIAGONAL: usize = 10;

/// The score of one full line (T4): runs of 2, 3, 4, 5 score 2, 3, 8, 10; no run -5.
pub fn line_score(symbols: [u8; SIZE]) -> i32 {
    let mut total = 0;
    let mut any = false;
    let mut run = 1;
    for i in 1..=SIZE {
        if i < SIZE && symbols[i] == symbols[i - 1] {
            run += 1;
            continue;
        }
        if run >= 2 {
            any = true;
            total += RUN_SCORE[run];
        }
        run = 1;
    }
    if any { total } else { -5 }
}

/// The score of a run of each length (index = length; 0 and 1 score nothing).
pub const RUN_SCORE: [i32; SIZE + 1] = [0, 0, 2, 3, 8, 10];

/// The board's score (T5): rows and columns once, the anti-diagonal twice.
pub fn grid_score(grid: &[u8; CELLS]) -> i32 {
    LINES
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let s = line_score(line.map(|c| grid[c]));
            if i == ANTI_DIAGONAL { 2 * s } else { s }
        })
        .sum()
}

/// A domino as rolled: two symbols `1..=6`, first die first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Domino(pub u8, pub u8);

/// An instance (T2): the start symbol and the 12 dominoes in the order they are rolled.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub start: u8,
    pub dominoes: [Domino; DOMINOES],
}

/// One domino on the board: the cell of its first symbol, then the cell of its second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    pub first: u8,
    pub second: u8,
}

/// An answer (T6): where each domino goes, in instance order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Answer {
    pub placements: [Placement; DOMINOES],
}

pub struct Detrak;

impl Puzzle for Detrak {
    const NAME: &'static str = "detrak";
    const OBJECTIVE: Objective = Objective::Maximize;
    type Instance = Instance;
    type Answer = Answer;

    /// The start die, then the 12 dominoes' dice, each `1 + below(6)`.
    fn generate(seed: u64) -> Instance {
        let mut rng = instance_rng(Family::Detrak, seed);
        let mut die = || 1 + below(&mut rng, 6) as u8;
        let start = die();
        let dominoes = std::array::from_fn(|_| {
            let a = die();
            Domino(a, die())
        });
        Instance { start, dominoes }
    }

    fn score(instance: &Instance, answer: &Answer) -> Result<i64, Invalid> {
        Ok(i64::from(grid_score(&fill(instance, answer)?)))
    }
}

/// The grid an answer builds, or why it breaks T3.
pub fn fill(instance: &Instance, answer: &Answer) -> Result<[u8; CELLS], Invalid> {
    let mut grid = [0u8; CELLS];
    grid[0] = instance.start;
    for (i, (d, p)) in instance.dominoes.iter().zip(&answer.placements).enumerate() {
        let (a, b) = (cell_name(p.first), cell_name(p.second));
        if !adjacent(p.first, p.second) {
            return Err(Invalid::new(format!(
                "domino {} ({}{}) covers {a} and {b}, which are not orthogonally adjacent",
                i + 1,
                d.0,
                d.1
            )));
        }
        for (cell, symbol) in [(p.first, d.0), (p.second, d.1)] {
            if grid[cell as usize] != 0 {
                let holder = if cell == 0 {
                    "the start symbol".to_owned()
                } else {
                    "an earlier domino".to_owned()
                };
                return Err(Invalid::new(format!(
                    "domino {} ({}{}) covers {}, already holding {holder}",
                    i + 1,
                    d.0,
                    d.1,
                    cell_name(cell)
                )));
            }
            grid[cell as usize] = symbol;
        }
    }
    Ok(grid)
}

/// Whether two cells share an edge.
pub fn adjacent(a: u8, b: u8) -> bool {
    let (ra, ca) = (a / 5, a % 5);
    let (rb, cb) = (b / 5, b % 5);
    ra.abs_diff(rb) + ca.abs_diff(cb) == 1
}

fn cell_name(cell: u8) -> String {
    format!("({},{})", cell / 5, cell % 5)
}

fn parse_symbol(c: char, input: &str, what: &'static str) -> Result<u8, ParseError> {
    match c.to_digit(10) {
        Some(d @ 1..=6) => Ok(d as u8),
        _ => Err(ParseError::new(
            what,
            input,
            format!("{c:?} is not a symbol 1..6"),
        )),
    }
}

impl Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} |", self.start)?;
        for d in &self.dominoes {
            write!(f, " {}{}", d.0, d.1)?;
        }
        Ok(())
    }
}

impl FromStr for Instance {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        const WHAT: &str = "detrak instance";
        let (start, rest) = s
            .split_once('|')
            .ok_or_else(|| ParseError::new(WHAT, s, "expected `START | D1 D2 … D12`"))?;
        let start = match start.trim().chars().collect::<Vec<_>>()[..] {
            [c] => parse_symbol(c, s, WHAT)?,
            _ => return Err(ParseError::new(WHAT, s, "the start is one symbol 1..6")),
        };
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        if tokens.len() != DOMINOES {
            return Err(ParseError::new(
                WHAT,
                s,
                format!("expected 12 dominoes, found {}", tokens.len()),
            ));
        }
        let mut dominoes = [Domino(1, 1); DOMINOES];
        for (slot, token) in dominoes.iter_mut().zip(tokens) {
            *slot = match token.chars().collect::<Vec<_>>()[..] {
                [a, b] => Domino(parse_symbol(a, s, WHAT)?, parse_symbol(b, s, WHAT)?),
                _ => {
                    return Err(ParseError::new(
                        WHAT,
                        s,
                        format!("domino {token:?} is not two symbols"),
                    ));
                }
            };
        }
        Ok(Instance { start, dominoes })
    }
}

impl Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}-{}{}",
            self.first / 5,
            self.first % 5,
            self.second / 5,
            self.second % 5
        )
    }
}

impl FromStr for Placement {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        const WHAT: &str = "detrak placement";
        let digit = |c: char| match c.to_digit(10) {
            Some(d @ 0..=4) => Ok(d as u8),
            _ => Err(ParseError::new(
                WHAT,
                s,
                format!("{c:?} is not a row or column 0..4"),
            )),
        };
        match s.chars().collect::<Vec<_>>()[..] {
            [r1, c1, '-', r2, c2] => Ok(Placement {
                first: 5 * digit(r1)? + digit(c1)?,
                second: 5 * digit(r2)? + digit(c2)?,
            }),
            _ => Err(ParseError::new(WHAT, s, "expected RC-RC, e.g. 01-02")),
        }
    }
}

impl Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.placements.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl FromStr for Answer {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let tokens: Vec<&str> = s.split_whitespace().collect();
        if tokens.len() != DOMINOES {
            return Err(ParseError::new(
                "detrak answer",
                s,
                format!("expected 12 placements, found {}", tokens.len()),
            ));
        }
        let mut placements = [Placement {
            first: 0,
            second: 0,
        }; DOMINOES];
        for (slot, token) in placements.iter_mut().zip(tokens) {
            *slot = token.parse()?;
        }
        Ok(Answer { placements })
    }
}
