//! The learned Quarto evaluator: features of the position a move leads to (the opponent
//! about to place the piece just given), and the move of highest predicted winning
//! chance that `learned` ([`super::Learned`]) plays.

use arena_core::Game;
use arena_core::quarto::{Case, Quarto, QuartoMove};

use super::Learnable;
use super::weights::{Evaluator, GameKind};

/// The feature names, in input order, for the position after the mover's placement and
/// give, from the mover's point of view (the opponent places the given piece next).
pub const FEATURES: &[&str] = &[
    "empty",           // empty squares
    "pieces_left",     // pieces neither on the board nor given
    "opp_wins",        // squares where the given piece wins at once for the opponent
    "safe_pairs",      // (square, give) replies that leave me no win at once
    "safe_fraction",   // safe_pairs / all non-winning replies
    "safe_squares",    // squares the opponent can use with at least one safe give
    "opp_forced",      // 1 if no safe reply exists (the opponent must hand me a win)
    "hot_pieces",      // pieces left that would win somewhere right now
    "lines3",          // lines with three pieces sharing an attribute value, one hole
    "lines2",          // lines with two pieces sharing an attribute value, two holes
    "dead_lines",      // lines whose pieces share no attribute value
    "threat_values",   // (attribute, value) pairs that complete some line now
    "parity",          // empty squares mod 2 (who places last)
    "squares_variant", // 1 for the 2x2-squares variant
];

/// A board as masks, for fast what-if placements.
#[derive(Clone, Copy)]
struct Board {
    attr: [u16; 4],
    occ: u16,
    lines: &'static [u16],
}

impl Board {
    fn of(pos: &Quarto) -> Board {
        Board {
            attr: std::array::from_fn(|a| pos.squares_with(1 << a)),
            occ: pos.occupied(),
            lines: pos.variant().lines(),
        }
    }

    fn put(&mut self, square: u8, piece: u8) {
        self.occ |= 1 << square;
        for a in 0..4 {
            self.attr[a] |= u16::from(piece >> a & 1) << square;
        }
    }

    /// The squares of `mask`'s pieces that agree with value `v` of attribute `a`.
    fn agree(&self, a: usize, v: u8) -> u16 {
        if v == 1 {
            self.attr[a]
        } else {
            self.occ & !self.attr[a]
        }
    }

    /// The (attribute, value) pairs, as bits `2a + v`, that a piece needs to complete
    /// some line with one hole: a piece having any of them wins at once.
    fn threats(&self) -> u8 {
        let mut t = 0u8;
        for &line in self.lines {
            let hole = line & !self.occ;
            if hole.is_power_of_two() {
                let rest = line ^ hole;
                for a in 0..4 {
                    for v in 0..2u8 {
                        if self.agree(a, v) & rest == rest {
                            t |= 1 << (2 * a as u8 + v);
                        }
                    }
                }
            }
        }
        t
    }

    /// The empty squares where `piece` wins at once.
    fn win_squares(&self, piece: u8) -> u16 {
        let mut wins = 0;
        for &line in self.lines {
            let hole = line & !self.occ;
            if hole.is_power_of_two() {
                let rest = line ^ hole;
                if (0..4).any(|a| self.agree(a, piece >> a & 1) & rest == rest) {
                    wins |= hole;
                }
            }
        }
        wins
    }
}

/// Whether `piece` has one of the `threats` values.
fn hot(threats: u8, piece: u8) -> bool {
    (0..4).any(|a| threats >> (2 * a + (piece >> a & 1)) & 1 == 1)
}

fn pieces(mask: u16) -> impl Iterator<Item = u8> {
    (0..16u8).filter(move |p| mask >> p & 1 == 1)
}

/// Features of `board` with `given` in the opponent's hand and `left` still available.
fn features(board: &Board, given: u8, left: u16, variant_squares: bool, out: &mut Vec<f64>) {
    out.clear();
    let empty = !board.occ;
    let opp_wins = board.win_squares(given);
    let (mut safe_pairs, mut safe_squares, mut replies) = (0u32, 0u32, 0u32);
    for s in 0..16u8 {
        if empty >> s & 1 == 0 || opp_wins >> s & 1 == 1 {
            continue;
        }
        let mut b = *board;
        b.put(s, given);
        let t = b.threats();
        let safe = pieces(left).filter(|&q| !hot(t, q)).count() as u32;
        safe_pairs += safe;
        replies += left.count_ones();
        safe_squares += u32::from(safe > 0);
    }
    let threats = board.threats();
    let hot_pieces = pieces(left).filter(|&q| hot(threats, q)).count();
    let (mut lines3, mut lines2, mut dead) = (0u32, 0u32, 0u32);
    for &line in board.lines {
        let on = line & board.occ;
        let n = on.count_ones();
        if n < 2 {
            continue;
        }
        let shared = (0..4).any(|a| (0..2).any(|v| board.agree(a, v) & on == on));
        if !shared {
            dead += 1;
        } else if n == 3 {
            lines3 += 1;
        } else if n == 2 {
            lines2 += 1;
        }
    }
    let forced = opp_wins == 0 && left != 0 && replies > 0 && safe_pairs == 0;
    out.extend([
        f64::from(empty.count_ones()),
        f64::from(left.count_ones()),
        f64::from(opp_wins.count_ones()),
        f64::from(safe_pairs),
        if replies == 0 {
            0.0
        } else {
            f64::from(safe_pairs) / f64::from(replies)
        },
        f64::from(safe_squares),
        f64::from(u8::from(forced)),
        hot_pieces as f64,
        f64::from(lines3),
        f64::from(lines2),
        f64::from(dead),
        f64::from(threats.count_ones()),
        f64::from(empty.count_ones() % 2),
        f64::from(u8::from(variant_squares)),
    ]);
    debug_assert_eq!(out.len(), FEATURES.len());
}

/// Scores for moves that end the game: a win ranks above any prediction (which is
/// below 1), a full-board draw is a tie.
const WIN: f64 = 2.0;
const DRAW: f64 = 0.5;

/// What `mv` leads to, from the mover's side: `Some(score)` when the game ends with it,
/// else `None` with the features written to `out`.
fn outcome_or_features(
    pos: &Quarto,
    board: &Board,
    mv: QuartoMove,
    out: &mut Vec<f64>,
) -> Option<f64> {
    let squares = pos.variant() == arena_core::quarto::Variant::Squares;
    match mv {
        QuartoMove::Give(p) => {
            let left = pos.available() & !p.bit();
            features(board, p.index(), left, squares, out);
            None
        }
        QuartoMove::Place { square, give } => {
            let hand = pos
                .in_hand()
                .expect("a placement has a piece in hand")
                .index();
            if board.win_squares(hand) & square.bit() != 0 {
                return Some(WIN);
            }
            let Some(p) = give else {
                return Some(DRAW);
            };
            let mut b = *board;
            b.put(square.index(), hand);
            let left = pos.available() & !p.bit();
            features(&b, p.index(), left, squares, out);
            None
        }
    }
}

impl Learnable for Quarto {
    const KIND: GameKind = GameKind::Quarto;
    const FEATURES: &'static [&'static str] = FEATURES;
    const DEFAULT_WEIGHTS: (&'static str, &'static str) = (
        include_str!("../../weights/quarto-v1.json"),
        "agents/weights/quarto-v1.json (built in)",
    );

    /// The default cases (`lines:0 lines:4 squares:0 squares:4`).
    fn training_cases() -> Vec<Case> {
        Case::DEFAULTS.to_vec()
    }

    fn training_start(case: Case, master: u64, index: u32) -> Quarto {
        Quarto::seeded_opening(case, master, index)
    }

    /// A winning placement is always taken.
    fn best_move(pos: &&Quarto, eval: &mut Evaluator, buf: &mut Vec<f64>) -> QuartoMove {
        let board = Board::of(pos);
        let mut best: Option<(QuartoMove, f64)> = None;
        for mv in pos.legal_moves() {
            let v = outcome_or_features(pos, &board, mv, buf).unwrap_or_else(|| eval.value(buf));
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((mv, v));
                if v == WIN {
                    break;
                }
            }
        }
        best.expect("a legal move").0
    }

    fn features_of(pos: &&Quarto, mv: QuartoMove, out: &mut Vec<f64>) -> bool {
        out.clear();
        let ends = outcome_or_features(pos, &Board::of(pos), mv, out).is_some();
        if ends {
            out.clear();
        }
        !ends
    }
}
