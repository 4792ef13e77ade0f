//! DominoPeg (G1–G6): twelve pegged dominoes on a 6x4 board, their 30 pegs on distinct
//! circles of the 7x5 circle grid, leaving chosen circles empty.
//!
//! Notations: an instance is the circles to keep empty, e.g. `0 10 20 24 28`; an answer
//! is `none` or 12 placements `<piece><square><h|v><orientation>`, e.g. `012h5`.
//! Orientation `o` is `4 * flip + turns`: first mirror the base piece top to bottom when
//! `flip` is 1 (spot 0 <-> 7, 1 <-> 8, 2 <-> 9), then turn it `turns` quarter turns
//! clockwise; odd `turns` stand the piece up, so `h` goes with even turns and `v` with
//! odd ones. The square is the piece's top-left unit square; its pegs land on circles
//! `7 * (row + i) + (col + j)` for each turned spot `(i, j)`.

use std::fmt::{self, Display};
use std::str::FromStr;

use super::{Invalid, Objective, Puzzle, instance_rng};
use crate::ParseError;
use crate::rng::{Family, shuffle};

pub const SQUARE_COLS: u8 = 6;
pub const SQUARE_ROWS: u8 = 4;
pub const SQUARES: u8 = SQUARE_COLS * SQUARE_ROWS;
pub const CIRCLE_COLS: u8 = 7;
pub const CIRCLES: u8 = 35;
pub const PIECES: usize = 12;

/// The piece names, in order.
pub const PIECE_NAMES: [char; PIECES] =
    ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B'];

/// Each piece's pegs in the horizontal base orientation at the top-left (G2).
pub const BASE_PEGS: [&[u8]; PIECES] = [
    &[0, 1],
    &[0, 2],
    &[0, 7],
    &[0, 8],
    &[0, 9],
    &[1, 8],
    &[0, 1, 2],
    &[0, 1, 7],
    &[0, 1, 8],
    &[0, 1, 9],
    &[0, 2, 7],
    &[0, 2, 8],
];

/// The circles to keep empty (G5), as a bit set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub holes: u64,
}

/// One piece on the board (G6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Placement {
    pub piece: u8,
    pub square: u8,
    pub vertical: bool,
    pub orientation: u8,
}

/// A solution, or the claim that there is none (G5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Solution(Vec<Placement>),
    None,
}

/// Where a placement lands: its unit squares and peg circles as bit sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Footprint {
    pub squares: u32,
    pub pegs: u64,
}

impl Placement {
    /// The turned and flipped spots of the piece, as (row, col) offsets from the
    /// top-left circle of its footprint.
    pub fn spots(self) -> Vec<(u8, u8)> {
        let flip = self.orientation >= 4;
        let turns = self.orientation % 4;
        BASE_PEGS[self.piece as usize]
            .iter()
            .map(|&s| {
                let (mut i, mut j) = (s / 7, s % 7);
                if flip {
                    i = 1 - i;
                }
                let (mut h, mut w) = (2u8, 3u8);
                for _ in 0..turns {
                    // Clockwise in an h x w box: (i, j) -> (j, h - 1 - i).
                    (i, j) = (j, h - 1 - i);
                    (h, w) = (w, h);
                }
                (i, j)
            })
            .collect()
    }

    /// Its squares and pegs, or why it does not fit on the board.
    pub fn footprint(self) -> Result<Footprint, Invalid> {
        if self.piece as usize >= PIECES || self.orientation >= 8 || self.square >= SQUARES {
            return Err(Invalid::new(format!(
                "{self}: no such piece, square or orientation"
            )));
        }
        if self.vertical != (self.orientation % 2 == 1) {
            return Err(Invalid::new(format!(
                "{self}: orientation {} lies {}",
                self.orientation,
                if self.vertical {
                    "horizontally"
                } else {
                    "vertically"
                }
            )));
        }
        let (row, col) = (self.square / SQUARE_COLS, self.square % SQUARE_COLS);
        let (second, fits) = if self.vertical {
            (self.square + SQUARE_COLS, row + 1 < SQUARE_ROWS)
        } else {
            (self.square + 1, col + 1 < SQUARE_COLS)
        };
        if !fits {
            return Err(Invalid::new(format!(
                "{self}: the piece hangs off the board"
            )));
        }
        let pegs = self.spots().into_iter().fold(0u64, |m, (i, j)| {
            m | 1 << (CIRCLE_COLS * (row + i) + col + j)
        });
        Ok(Footprint {
            squares: 1 << self.square | 1 << second,
            pegs,
        })
    }
}

pub struct DominoPeg;

impl Puzzle for DominoPeg {
    const NAME: &'static str = "dominopeg";
    /// 1 for a right answer: a solution, or `none` when there is none.
    const OBJECTIVE: Objective = Objective::Maximize;
    type Instance = Instance;
    type Answer = Answer;

    /// Five circles: the first five of the shuffled circles `0..35`.
    fn generate(seed: u64) -> Instance {
        let mut rng = instance_rng(Family::DominoPeg, seed);
        let mut circles: Vec<u8> = (0..CIRCLES).collect();
        shuffle(&mut rng, &mut circles);
        Instance {
            holes: circles[..5].iter().fold(0, |m, &c| m | 1 << c),
        }
    }

    fn score(instance: &Instance, answer: &Answer) -> Result<i64, Invalid> {
        match answer {
            Answer::Solution(placements) => check(instance, placements).map(|()| 1),
            Answer::None => match solve(instance.holes) {
                None => Ok(1),
                Some(found) => Err(Invalid::new(format!(
                    "answered none, but this solution exists: {}",
                    Answer::Solution(found)
                ))),
            },
        }
    }
}

/// Checks a claimed solution against G3–G5.
pub fn check(instance: &Instance, placements: &[Placement]) -> Result<(), Invalid> {
    if placements.len() != PIECES {
        return Err(Invalid::new(format!(
            "a solution places 12 pieces, not {}",
            placements.len()
        )));
    }
    let (mut pieces, mut squares, mut pegs) = (0u16, 0u32, 0u64);
    for &p in placements {
        let f = p.footprint()?;
        if pieces & 1 << p.piece != 0 {
            return Err(Invalid::new(format!("{p}: piece {} placed twice", p)));
        }
        if squares & f.squares != 0 {
            return Err(Invalid::new(format!(
                "{p}: covers a square already covered"
            )));
        }
        if pegs & f.pegs != 0 {
            return Err(Invalid::new(format!(
                "{p}: puts a peg on a circle already pegged"
            )));
        }
        if instance.holes & f.pegs != 0 {
            let c = (instance.holes & f.pegs).trailing_zeros();
            return Err(Invalid::new(format!(
                "{p}: puts a peg on circle {c}, which must stay empty"
            )));
        }
        pieces |= 1 << p.piece;
        squares |= f.squares;
        pegs |= f.pegs;
    }
    Ok(())
}

/// Every distinct way to put each piece on the board, grouped by its top-left square:
/// `table[square]` lists `(placement, footprint)`. Orientations that land the same
/// squares and pegs (symmetric pieces) keep only the lowest orientation number.
pub fn placements_by_square() -> Vec<Vec<(Placement, Footprint)>> {
    let mut table = vec![Vec::new(); SQUARES as usize];
    for piece in 0..PIECES as u8 {
        for square in 0..SQUARES {
            for orientation in 0..8 {
                let p = Placement {
                    piece,
                    square,
                    vertical: orientation % 2 == 1,
                    orientation,
                };
                let Ok(f) = p.footprint() else { continue };
                let list: &mut Vec<(Placement, Footprint)> = &mut table[square as usize];
                if !list.iter().any(|(q, g)| q.piece == piece && *g == f) {
                    list.push((p, f));
                }
            }
        }
    }
    table
}

/// Every placement as one bit set over the exact-cover columns: bits 0..24 the unit
/// squares, 24..59 the circles, 59..71 the pieces.
fn columns(p: Placement, f: Footprint) -> u128 {
    u128::from(f.squares) | u128::from(f.pegs) << SQUARES | 1u128 << (59 + p.piece)
}

/// Exhaustive search, Knuth's Algorithm X over bit sets: the squares and the pieces must
/// each be covered once; with exactly five holes the 30 pegs must also cover every
/// other circle, so those circles are columns to cover too (with fewer holes they may
/// be covered at most once; with more, 30 pegs cannot fit and there is nothing to
/// search). Each node branches on the column with the fewest placements left. `visit`
/// sees each solution and returns `false` to stop. Returns the number of nodes.
pub fn search(holes: u64, visit: &mut dyn FnMut(&[Placement]) -> bool) -> u64 {
    Searcher::new().search(holes, visit)
}

/// The placement table of [`search`], built once and reused across instances.
pub struct Searcher {
    all: Vec<(Placement, u128)>,
    by_column: Vec<Vec<u16>>,
}

impl Default for Searcher {
    fn default() -> Self {
        Self::new()
    }
}

impl Searcher {
    pub fn new() -> Self {
        let all: Vec<(Placement, u128)> = placements_by_square()
            .into_iter()
            .flatten()
            .map(|(p, f)| (p, columns(p, f)))
            .collect();
        let mut by_column: Vec<Vec<u16>> = vec![Vec::new(); 128];
        for (i, &(_, m)) in all.iter().enumerate() {
            for (c, list) in by_column.iter_mut().enumerate() {
                if m >> c & 1 == 1 {
                    list.push(i as u16);
                }
            }
        }
        Searcher { all, by_column }
    }

    /// [`search`] with this table.
    pub fn search(&self, holes: u64, visit: &mut dyn FnMut(&[Placement]) -> bool) -> u64 {
        self.search_within(holes, u64::MAX, visit).0
    }

    /// [`search`], giving up past `max_nodes` nodes: returns the nodes searched and
    /// whether the search finished (or was stopped by `visit`) within the budget.
    pub fn search_within(
        &self,
        holes: u64,
        max_nodes: u64,
        visit: &mut dyn FnMut(&[Placement]) -> bool,
    ) -> (u64, bool) {
        let free = u32::from(CIRCLES) - holes.count_ones();
        if free < 30 {
            return (0, true);
        }
        let circles = ((1u128 << CIRCLES) - 1) << SQUARES;
        let holes = u128::from(holes) << SQUARES;
        let mut primary = ((1u128 << SQUARES) - 1) | (((1u128 << PIECES) - 1) << 59);
        if free == 30 {
            primary |= circles & !holes;
        }
        let mut x = AlgorithmX {
            all: &self.all,
            by_column: &self.by_column,
            primary,
            stack: Vec::with_capacity(PIECES),
            nodes: 0,
            max_nodes,
            visit,
        };
        x.go(holes);
        (x.nodes, x.nodes <= x.max_nodes)
    }
}

struct AlgorithmX<'a> {
    all: &'a [(Placement, u128)],
    by_column: &'a [Vec<u16>],
    primary: u128,
    stack: Vec<Placement>,
    nodes: u64,
    max_nodes: u64,
    visit: &'a mut dyn FnMut(&[Placement]) -> bool,
}

impl AlgorithmX<'_> {
    /// `false` once the visitor asked to stop.
    fn go(&mut self, used: u128) -> bool {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return false;
        }
        let open = self.primary & !used;
        if open == 0 {
            return (self.visit)(&self.stack);
        }
        let (mut best, mut best_count) = (0usize, usize::MAX);
        let mut rest = open;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let count = self.by_column[c]
                .iter()
                .filter(|&&i| self.all[i as usize].1 & used == 0)
                .count();
            if count < best_count {
                (best, best_count) = (c, count);
                if count <= 1 {
                    break;
                }
            }
        }
        for k in 0..self.by_column[best].len() {
            let (p, m) = self.all[self.by_column[best][k] as usize];
            if m & used != 0 {
                continue;
            }
            self.stack.push(p);
            let go_on = self.go(used | m);
            self.stack.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
}

/// A solution leaving `holes` empty, or `None` if there is none (proven by [`search`]).
pub fn solve(holes: u64) -> Option<Vec<Placement>> {
    let mut found = None;
    search(holes, &mut |s| {
        found = Some(s.to_vec());
        false
    });
    found
}

impl Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = PIECE_NAMES.get(self.piece as usize).copied().unwrap_or('?');
        let hv = if self.vertical { 'v' } else { 'h' };
        write!(f, "{name}{}{hv}{}", self.square, self.orientation)
    }
}

impl FromStr for Placement {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let bad = |why: &str| ParseError::new("dominopeg placement", s, why);
        let mut chars = s.chars();
        let name = chars.next().ok_or_else(|| bad("empty"))?;
        let piece = PIECE_NAMES
            .iter()
            .position(|&n| n == name.to_ascii_uppercase())
            .ok_or_else(|| bad("the piece is one of 0-9, A, B"))? as u8;
        let rest = chars.as_str();
        let at = rest
            .find(['h', 'v'])
            .ok_or_else(|| bad("expected <piece><square><h|v><orientation>, e.g. 012h5"))?;
        let square: u8 = rest[..at]
            .parse()
            .ok()
            .filter(|&q| q < SQUARES)
            .ok_or_else(|| bad("the square is 0..23"))?;
        let orientation: u8 = rest[at + 1..]
            .parse()
            .ok()
            .filter(|&o| o < 8)
            .ok_or_else(|| bad("the orientation is 0..7"))?;
        Ok(Placement {
            piece,
            square,
            vertical: rest.as_bytes()[at] == b'v',
            orientation,
        })
    }
}

impl Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let circles: Vec<String> = (0..CIRCLES)
            .filter(|&c| self.holes & 1 << c != 0)
            .map(|c| c.to_string())
            .collect();
        f.write_str(&circles.join(" "))
    }
}

impl FromStr for Instance {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let mut holes = 0u64;
        for token in s.split_whitespace() {
            let c: u8 = token.parse().ok().filter(|&c| c < CIRCLES).ok_or_else(|| {
                ParseError::new(
                    "dominopeg instance",
                    s,
                    format!("{token:?} is not a circle 0..34"),
                )
            })?;
            if holes & 1 << c != 0 {
                return Err(ParseError::new(
                    "dominopeg instance",
                    s,
                    format!("circle {c} named twice"),
                ));
            }
            holes |= 1 << c;
        }
        Ok(Instance { holes })
    }
}

impl Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::None => f.write_str("none"),
            Answer::Solution(ps) => {
                let parts: Vec<String> = ps.iter().map(Placement::to_string).collect();
                f.write_str(&parts.join(" "))
            }
        }
    }
}

impl FromStr for Answer {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        if s.trim() == "none" {
            return Ok(Answer::None);
        }
        let placements = s
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<Vec<Placement>, _>>()?;
        if placements.is_empty() {
            return Err(ParseError::new(
                "dominopeg answer",
                s,
                "expected `none` or placements",
            ));
        }
        Ok(Answer::Solution(placements))
    }
}
