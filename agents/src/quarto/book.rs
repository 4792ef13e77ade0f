//! Opening books: exact values (and one optimal move) of every position, up to
//! symmetry, reachable within a few plies of a root, written one per line so a book can
//! be stored, reloaded and re-proved entry by entry.
//!
//! A book line is `<variant> <position> <value> <move>`: the position in the Q9 notation,
//! the value for the side to move (`win`, `draw`, `loss`, or `unknown` when the solve did
//! not fit its node budget) and one optimal move in the Q5 notation (the rest of the
//! line, e.g. `6 5`; `-` when unknown). Lines starting with
//! `#` are comments. Positions are listed once per symmetry class (the first met in a
//! breadth-first walk of the legal moves, in legal-move order), shallowest first, so a
//! book is a deterministic function of its root, depth and budget.
//!
//! Budgets are node counts, so building a book is reproducible; a position whose solve
//! runs out is recorded as `unknown` rather than guessed.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::OnceLock;

use arena_core::Game;
use arena_core::quarto::{Piece, Quarto, QuartoMove, Square, Variant};

use super::solver::{Solver, Value, canonical_key};
use super::symmetry::{apply_mask, board_group, inverse, piece_group, transform};

/// One book line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    pub position: Quarto,
    /// The exact value and an optimal move; `None` if the solve did not fit its budget.
    pub solved: Option<(Value, QuartoMove)>,
    /// Its 1-based line in the book's text (for a built book, the line `Display` writes
    /// it on), so that errors name the line to look at.
    pub line: usize,
}

/// A book: its entries, shallowest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    pub entries: Vec<BookEntry>,
}

/// Where a book build stands (for a CLI's progress line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookProgress {
    /// Entries finished (solved or given up), out of `total`.
    pub done: usize,
    pub total: usize,
    /// Solver nodes spent so far.
    pub nodes: u64,
}

/// How to build a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookConfig {
    /// Plies from the root to walk (0: the root alone).
    pub plies: u32,
    /// Solver nodes per entry; an entry over budget is `unknown`.
    pub max_nodes: u64,
    /// log2 of the solver's table entries (shared by all entries of the build).
    pub table_bits: u32,
}

impl Default for BookConfig {
    fn default() -> BookConfig {
        BookConfig {
            plies: 2,
            max_nodes: 50_000_000,
            table_bits: 22,
        }
    }
}

/// The positions (one per symmetry class) within `plies` plies of `root` that are still
/// in progress, shallowest first.
pub fn positions(root: &Quarto, plies: u32) -> Vec<Quarto> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut layer = vec![*root];
    for depth in 0..=plies {
        let mut next = Vec::new();
        for pos in layer {
            if pos.is_over() {
                continue;
            }
            // Only the opening position lacks a key (no piece in hand); it is unique.
            let key = canonical_key(&pos);
            if key.is_some_and(|k| !seen.insert(k)) {
                continue;
            }
            out.push(pos);
            if depth < plies {
                for mv in pos.legal_moves() {
                    let mut child = pos;
                    child.play_unchecked(mv);
                    next.push(child);
                }
            }
        }
        layer = next;
    }
    out
}

/// Builds the book of `root` (deepest entries solved first, so the shallower ones find
/// their subtrees in the shared table). `progress` is called after each entry.
pub fn build(root: &Quarto, config: BookConfig, mut progress: impl FnMut(&BookProgress)) -> Book {
    let positions = positions(root, config.plies);
    let total = positions.len();
    let mut solver = Solver::with_table_bits(config.table_bits);
    let mut solved = vec![None; total];
    for (done, i) in (0..total).rev().enumerate() {
        solved[i] = solver
            .solve_best_within(&positions[i], config.max_nodes)
            .ok()
            .and_then(|(v, mv)| mv.map(|mv| (v, mv)));
        progress(&BookProgress {
            done: done + 1,
            total,
            nodes: solver.stats().nodes,
        });
    }
    Book {
        entries: positions
            .into_iter()
            .zip(solved)
            .enumerate()
            // `Display` writes one header line, then the entries in order.
            .map(|(i, (position, solved))| BookEntry {
                position,
                solved,
                line: i + 2,
            })
            .collect(),
    }
}

impl fmt::Display for Book {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "# variant position value move")?;
        for e in &self.entries {
            let (value, mv) = match e.solved {
                Some((v, mv)) => (v.name().to_owned(), mv.to_string()),
                None => ("unknown".to_owned(), "-".to_owned()),
            };
            writeln!(
                f,
                "{} {} {value} {mv}",
                e.position.variant(),
                e.position.setup()
            )?;
        }
        Ok(())
    }
}

/// A malformed or wrong book line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookError {
    /// 1-based line number.
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "book line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for BookError {}

impl std::str::FromStr for Book {
    type Err = BookError;
    fn from_str(text: &str) -> Result<Book, BookError> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| BookError {
                line: i + 1,
                reason,
            };
            let f: Vec<&str> = line.splitn(4, ' ').map(str::trim).collect();
            let [variant, position, value, mv] = f[..] else {
                return Err(bad(format!("expected 4 fields, got {}", f.len())));
            };
            let variant: Variant = variant.parse().map_err(|e| bad(format!("{e}")))?;
            let setup = position.parse().map_err(|e| bad(format!("{e}")))?;
            let position = Quarto::from_setup(variant, &setup).map_err(|e| bad(format!("{e}")))?;
            let solved = if value == "unknown" {
                None
            } else {
                let value: Value = value.parse().map_err(bad)?;
                let mv: QuartoMove = mv.parse().map_err(|e| bad(format!("{e}")))?;
                if !position.is_legal(mv) {
                    return Err(bad(format!("{mv} is not legal")));
                }
                Some((value, mv))
            };
            entries.push(BookEntry {
                position,
                solved,
                line: i + 1,
            });
        }
        Ok(Book { entries })
    }
}

/// Re-proves every solved entry with a fresh solver, deepest first (as `build` solves
/// them, so that the budget that built a book re-proves it): its value, and that its
/// move keeps that value. Returns the number of entries checked; entries marked unknown are skipped.
/// Each check gets `max_nodes`; one that does not fit is an error, since it proves
/// nothing.
pub fn verify(book: &Book, max_nodes: u64, table_bits: u32) -> Result<usize, BookError> {
    let mut solver = Solver::with_table_bits(table_bits);
    let mut checked = 0;
    // Deepest first, as `build` solves them: each shallower proof then finds the deeper
    // ones in the shared table, so the same budget that built a book re-proves it.
    for e in book.entries.iter().rev() {
        let Some((value, mv)) = e.solved else {
            // As in `build`, an entry left unknown still warms the table for the
            // shallower ones (a search cut by its budget stores nothing unproven).
            let _ = solver.solve_best_within(&e.position, max_nodes);
            continue;
        };
        let bad = |reason: String| BookError {
            line: e.line,
            reason,
        };
        let over = |_| bad(format!("re-proof over {max_nodes} nodes"));
        let proved = solver
            .solve_within(&e.position, max_nodes)
            .ok_or(())
            .map_err(over)?;
        if proved != value {
            return Err(bad(format!("value {value}, proved {proved}")));
        }
        let mut child = e.position;
        child.play_unchecked(mv);
        let after = match child.outcome() {
            Some(arena_core::Outcome::Winner(w)) if w == e.position.to_move() => Value::Win,
            Some(arena_core::Outcome::Winner(_)) => Value::Loss,
            Some(arena_core::Outcome::Draw) => Value::Draw,
            None => match solver
                .solve_within(&child, max_nodes)
                .ok_or(())
                .map_err(over)?
            {
                Value::Win => Value::Loss,
                Value::Draw => Value::Draw,
                Value::Loss => Value::Win,
            },
        };
        if after != value {
            return Err(bad(format!("{mv} leads to {after}, not {value}")));
        }
        checked += 1;
    }
    Ok(checked)
}

/// A book ready for play: its entries by canonical key, so any position of a stored
/// symmetry class finds its entry, with the entry's move carried over to its own frame.
pub struct BookIndex {
    book: Book,
    by_key: HashMap<u128, usize>,
}

impl BookIndex {
    /// Indexes the entries that have a key (a piece in hand); the first of a class wins.
    pub fn new(book: Book) -> BookIndex {
        let mut by_key = HashMap::new();
        for (i, e) in book.entries.iter().enumerate() {
            if let Some(key) = canonical_key(&e.position) {
                by_key.entry(key).or_insert(i);
            }
        }
        BookIndex { book, by_key }
    }

    /// The book.
    pub fn book(&self) -> &Book {
        &self.book
    }

    /// The exact value of `pos` and an optimal move in `pos`'s own frame, if its class
    /// is in the book and was solved.
    pub fn lookup(&self, pos: &Quarto) -> Option<(Value, QuartoMove)> {
        let entry = &self.book.entries[*self.by_key.get(&canonical_key(pos)?)?];
        let (value, mv) = entry.solved?;
        let stored = &entry.position;
        if stored.variant() != pos.variant() {
            return None;
        }
        let target = stored.setup();
        // A symmetry mapping `pos` onto the stored position, then its inverse on the move.
        for board in board_group(pos.variant()) {
            if apply_mask(board, pos.occupied()) != stored.occupied() {
                continue;
            }
            for pieces in piece_group() {
                if transform(pos, board, pieces).setup() != target {
                    continue;
                }
                let mv = match mv {
                    QuartoMove::Place { square, give } => QuartoMove::Place {
                        square: Square::new(inverse(board)[usize::from(square.index())]),
                        give: give.map(|g| Piece::new(inverse(pieces)[usize::from(g.index())])),
                    },
                    QuartoMove::Give(g) => {
                        QuartoMove::Give(Piece::new(inverse(pieces)[usize::from(g.index())]))
                    }
                };
                return pos.is_legal(mv).then_some((value, mv));
            }
        }
        None
    }
}

/// The books shipped with the agents (`agents/books/`): every symmetry class within
/// three plies of the empty board, solved exactly by `arena book quarto --plies 3`.
pub fn shipped(variant: Variant) -> Option<&'static BookIndex> {
    static BOOKS: [OnceLock<Option<BookIndex>>; 2] = [OnceLock::new(), OnceLock::new()];
    BOOKS[usize::from(variant.index())]
        .get_or_init(|| {
            let text = match variant {
                Variant::Lines => LINES_BOOK,
                Variant::Squares => SQUARES_BOOK,
            };
            let book: Book = text.parse().expect("the shipped book parses");
            (!book.entries.is_empty()).then(|| BookIndex::new(book))
        })
        .as_ref()
}

const LINES_BOOK: &str = include_str!("../../books/quarto-lines.book");
const SQUARES_BOOK: &str = include_str!("../../books/quarto-squares.book");
