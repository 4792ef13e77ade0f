//! Dust matching (U1–U5): click a colour cluster to remove it; columns fall, then each
//! half of every row closes toward the centre; clear the board in as few moves as
//! possible.
//!
//! Notations: a board is six rows, top row first, comma separated, a space for an empty
//! cell (`GGGGBOYO,RORGYGBY,…`); an answer is its moves, each `x,y`, space separated
//! (`7,0 3,1 …`).

use std::fmt::{self, Display};
use std::str::FromStr;

use super::{Invalid, Objective, Puzzle, instance_rng};
use crate::ParseError;
use crate::rng::{Family, below};

pub const WIDTH: usize = 8;
pub const HEIGHT: usize = 6;
pub const CELLS: usize = WIDTH * HEIGHT;
/// The colours, `1..=5` in cells, written `G O R Y B` (0 is an empty cell, a space).
pub const COLOURS: [char; 6] = [' ', 'G', 'O', 'R', 'Y', 'B'];

/// A board: cell `x + 8 * y` holds a colour `1..=5` or 0 (empty); y = 0 is the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub cells: [u8; CELLS],
}

/// A click on cell (x, y).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub x: u8,
    pub y: u8,
}

/// The moves, in order (U4).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Answer {
    pub moves: Vec<Move>,
}

impl Board {
    pub fn get(&self, x: usize, y: usize) -> u8 {
        self.cells[x + WIDTH * y]
    }

    pub fn is_clear(&self) -> bool {
        self.cells.iter().all(|&c| c == 0)
    }

    /// The colours present, as bits `1 << colour`.
    pub fn colours(&self) -> u8 {
        self.cells.iter().fold(0, |m, &c| m | 1 << c) & !1
    }

    /// The cells of the cluster containing `cell` (U2), as a bit set over cell indices.
    pub fn cluster(&self, cell: usize) -> u64 {
        let colour = self.cells[cell];
        let mut seen = 1u64 << cell;
        // A fixed stack: the solvers call this millions of times.
        let mut stack = [0u8; CELLS];
        stack[0] = cell as u8;
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let c = stack[len] as usize;
            let (x, y) = (c % WIDTH, c / WIDTH);
            let neighbours = [
                (x > 0).then(|| c - 1),
                (x + 1 < WIDTH).then(|| c + 1),
                (y > 0).then(|| c - WIDTH),
                (y + 1 < HEIGHT).then(|| c + WIDTH),
            ];
            for n in neighbours.into_iter().flatten() {
                if self.cells[n] == colour && seen & 1 << n == 0 {
                    seen |= 1 << n;
                    stack[len] = n as u8;
                    len += 1;
                }
            }
        }
        seen
    }

    /// Removes the cells of `set`, then lets the board settle once (U3).
    pub fn remove(&mut self, set: u64) {
        for c in 0..CELLS {
            if set & 1 << c != 0 {
                self.cells[c] = 0;
            }
        }
        self.settle();
    }

    /// Columns fall toward y = 0; then in every row the cells of x = 0..3 close toward
    /// x = 3 and those of x = 4..7 toward x = 4, each keeping its order (U3).
    pub fn settle(&mut self) {
        for x in 0..WIDTH {
            let mut to = 0;
            for y in 0..HEIGHT {
                let c = self.cells[x + WIDTH * y];
                if c != 0 {
                    self.cells[x + WIDTH * to] = c;
                    to += 1;
                }
            }
            for y in to..HEIGHT {
                self.cells[x + WIDTH * y] = 0;
            }
        }
        let half = WIDTH / 2;
        for y in 0..HEIGHT {
            let row = &mut self.cells[WIDTH * y..WIDTH * (y + 1)];
            // Left half: scan from the centre outward, writing toward the centre.
            let mut to = half;
            for x in (0..half).rev() {
                if row[x] != 0 {
                    to -= 1;
                    row[to] = row[x];
                }
            }
            row[..to].fill(0);
            let mut to = half;
            for x in half..WIDTH {
                if row[x] != 0 {
                    row[to] = row[x];
                    to += 1;
                }
            }
            row[to..].fill(0);
        }
    }

    /// Plays a move, or says why it is not one (U2): off the board or on an empty cell.
    pub fn play(&mut self, mv: Move) -> Result<(), Invalid> {
        if mv.x as usize >= WIDTH || mv.y as usize >= HEIGHT {
            return Err(Invalid::new(format!("move {mv} is off the board")));
        }
        let cell = mv.x as usize + WIDTH * mv.y as usize;
        if self.cells[cell] == 0 {
            return Err(Invalid::new(format!("move {mv} clicks an empty cell")));
        }
        self.remove(self.cluster(cell));
        Ok(())
    }

    /// One cell of each cluster (the lowest index) with the cluster itself.
    pub fn clusters(&self) -> Vec<(usize, u64)> {
        let mut done = 0u64;
        let mut out = Vec::new();
        for c in 0..CELLS {
            if self.cells[c] != 0 && done & 1 << c == 0 {
                let set = self.cluster(c);
                done |= set;
                out.push((c, set));
            }
        }
        out
    }
}

pub struct Dust;

impl Puzzle for Dust {
    const NAME: &'static str = "dust";
    /// The number of moves.
    const OBJECTIVE: Objective = Objective::Minimize;
    type Instance = Board;
    type Answer = Answer;

    /// 48 colours `1 + below(5)`, in notation order (top row first, left to right).
    fn generate(seed: u64) -> Board {
        let mut rng = instance_rng(Family::Dust, seed);
        let mut cells = [0u8; CELLS];
        for y in (0..HEIGHT).rev() {
            for x in 0..WIDTH {
                cells[x + WIDTH * y] = 1 + below(&mut rng, 5) as u8;
            }
        }
        Board { cells }
    }

    fn score(instance: &Board, answer: &Answer) -> Result<i64, Invalid> {
        let mut board = *instance;
        for (i, &mv) in answer.moves.iter().enumerate() {
            if board.is_clear() {
                return Err(Invalid::new(format!(
                    "move {} ({mv}) after the board is clear",
                    i + 1
                )));
            }
            board
                .play(mv)
                .map_err(|e| Invalid::new(format!("move {}: {e}", i + 1)))?;
        }
        if !board.is_clear() {
            return Err(Invalid::new(format!(
                "the board is not clear after {} moves: {board}",
                answer.moves.len()
            )));
        }
        Ok(answer.moves.len() as i64)
    }
}

impl Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for y in (0..HEIGHT).rev() {
            for x in 0..WIDTH {
                write!(f, "{}", COLOURS[self.get(x, y) as usize])?;
            }
            if y > 0 {
                f.write_str(",")?;
            }
        }
        Ok(())
    }
}

impl FromStr for Board {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let rows: Vec<&str> = s.split(',').collect();
        if rows.len() != HEIGHT {
            return Err(ParseError::new(
                "dust board",
                s,
                format!("expected 6 comma-separated rows, found {}", rows.len()),
            ));
        }
        let mut cells = [0u8; CELLS];
        for (r, row) in rows.iter().enumerate() {
            let chars: Vec<char> = row.chars().collect();
            if chars.len() > WIDTH {
                return Err(ParseError::new(
                    "dust board",
                    s,
                    format!("row {row:?} is wider than 8"),
                ));
            }
            let y = HEIGHT - 1 - r;
            for (x, ch) in chars.into_iter().enumerate() {
                let colour = COLOURS
                    .iter()
                    .position(|&c| c == ch.to_ascii_uppercase())
                    .ok_or_else(|| {
                        ParseError::new(
                            "dust board",
                            s,
                            format!("{ch:?} is not a colour G O R Y B or a space"),
                        )
                    })?;
                cells[x + WIDTH * y] = colour as u8;
            }
        }
        Ok(Board { cells })
    }
}

impl Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

impl FromStr for Move {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let bad = || ParseError::new("dust move", s, "expected x,y with x in 0..7 and y in 0..5");
        let (x, y) = s.split_once(',').ok_or_else(bad)?;
        let x: u8 = x.trim().parse().map_err(|_| bad())?;
        let y: u8 = y.trim().parse().map_err(|_| bad())?;
        if x as usize >= WIDTH || y as usize >= HEIGHT {
            return Err(bad());
        }
        Ok(Move { x, y })
    }
}

impl Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.moves.iter().map(Move::to_string).collect();
        f.write_str(&parts.join(" "))
    }
}

impl FromStr for Answer {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        Ok(Answer {
            moves: s
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()?,
        })
    }
}
