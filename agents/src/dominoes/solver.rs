//! Exact endgame solver (D17, D18).
//!
//! Once the stock is empty Dominoes is a two-player game of perfect information. The
//! solver runs a negamax alpha-beta search over the three results (loss, tie, win,
//! counted internally in half points 0, 1, 2) with a transposition table keyed by both
//! hands as tile masks, the open ends (unordered: `(l, r)` and `(r, l)` have the same
//! value) and whether the previous turn was a pass.
//!
//! Rules searched: the mover places a tile at an end it matches (a tile matching both
//! ends may go to either), or passes when nothing fits; placing the last tile wins
//! (D12); a pass after a pass ends the game, the lower pip sum winning and equal sums
//! tying (D13). Degenerate inputs follow the naive referee: an empty `other` hand is a
//! loss for the mover (the other side already went out), an empty `mover` hand a win.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use arena_core::dominoes::{DominoMove, End, Endgame, PIP_MASKS, Tile};

/// Half points: 0 loss, 1 tie, 2 win.
const WIN: u8 = 2;

/// The solved value of an endgame and the moves that achieve it.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// For the player to move under perfect play: 1 win, 0.5 tie, 0 loss (D18).
    pub value: f64,
    /// Every optimal move, in legal-move order (`L<i>` before `R<i>`, by hand index);
    /// `[PASS]` when nothing fits; empty when the game is already over.
    pub best: Vec<DominoMove>,
    /// The value after each legal move, in the same order as [`Solution::moves`].
    pub move_values: Vec<f64>,
    /// Every legal move, in legal-move order.
    pub moves: Vec<DominoMove>,
}

/// A multiplicative hasher for the solver's `u128` keys.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u128(&mut self, x: u128) {
        let lo = x as u64;
        let hi = (x >> 64) as u64;
        let h = (lo ^ hi.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 31);
    }
}

/// Entries: bits 0-1 the upper bound, 2-3 the lower bound, 4-11 the best child + 1
/// (tile index * 2 + end side; 0 = none).
type Table = HashMap<u128, u16, BuildHasherDefault<KeyHasher>>;

/// The pip sum of a tile mask.
pub(crate) fn mask_pips(mut mask: u64) -> u32 {
    let mut sum = 0;
    while mask != 0 {
        let i = mask.trailing_zeros() as u8;
        mask &= mask - 1;
        sum += Tile::from_index(i).pips();
    }
    sum
}

/// The exact solver, with a transposition table that persists across calls (its keys
/// are complete positions, so entries stay valid) until it grows past a cap.
pub struct Solver {
    table: Table,
    nodes: u64,
    /// Abort once `nodes` passes this; `u64::MAX` for no limit.
    limit: u64,
    aborted: bool,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

/// Entries kept before the table is cleared (about 40 MB).
const TABLE_CAP: usize = 1 << 21;

impl Solver {
    pub fn new() -> Solver {
        Solver {
            table: Table::default(),
            nodes: 0,
            limit: u64::MAX,
            aborted: false,
        }
    }

    /// [`Solver::solve`] within a budget of `max_nodes` search nodes (a deterministic
    /// work count, not a clock): `None` when the budget runs out first. What was
    /// proved before the abort stays in the table.
    pub fn solve_within(&mut self, eg: &Endgame, max_nodes: u64) -> Option<Solution> {
        self.limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let sol = self.solve(eg);
        self.limit = u64::MAX;
        if self.aborted {
            self.aborted = false;
            None
        } else {
            Some(sol)
        }
    }

    /// [`Solver::value_masks`] within a budget of `max_nodes` search nodes: `None`
    /// when the budget runs out first.
    pub fn value_within(
        &mut self,
        me: u64,
        opp: u64,
        (l, r): (u8, u8),
        pass: bool,
        max_nodes: u64,
    ) -> Option<u8> {
        self.limit = self.nodes.saturating_add(max_nodes);
        self.aborted = false;
        let v = self.value_masks(me, opp, l, r, pass);
        self.limit = u64::MAX;
        if self.aborted {
            self.aborted = false;
            None
        } else {
            Some(v)
        }
    }

    /// Search nodes visited since construction.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Clears the transposition table.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The value of `eg` for the player to move: 1 win, 0.5 tie, 0 loss.
    pub fn value(&mut self, eg: &Endgame) -> f64 {
        let (me, opp) = masks(eg);
        f64::from(self.value_masks(me, opp, eg.left, eg.right, eg.previous_was_pass)) / 2.0
    }

    /// The value in half points (0, 1, 2) of a position given as masks.
    pub fn value_masks(&mut self, me: u64, opp: u64, l: u8, r: u8, pass: bool) -> u8 {
        if opp == 0 {
            return 0;
        }
        if me == 0 {
            return WIN;
        }
        if self.table.len() > TABLE_CAP {
            self.table.clear();
        }
        // Two null-window searches: is it a win? if not, is it at least a tie?
        if self.search(me, opp, l, r, pass, 1, WIN) == WIN {
            WIN
        } else {
            self.search(me, opp, l, r, pass, 0, 1).min(1)
        }
    }

    /// The value and every optimal move of `eg`, with the value of each legal move.
    pub fn solve(&mut self, eg: &Endgame) -> Solution {
        let (me, opp) = masks(eg);
        let mut moves = Vec::new();
        let mut move_values: Vec<u8> = Vec::new();
        if me == 0 || opp == 0 {
            let value = if opp == 0 { 0.0 } else { 1.0 };
            return Solution {
                value,
                best: Vec::new(),
                move_values: Vec::new(),
                moves,
            };
        }
        let (l, r) = (eg.left, eg.right);
        for (i, &t) in eg.mover.iter().enumerate() {
            let rest = me & !t.bit();
            for end in [End::Left, End::Right] {
                let (nl, nr) = match end {
                    End::Left if t.has(l) => (t.other_half(l), r),
                    End::Right if t.has(r) => (l, t.other_half(r)),
                    _ => continue,
                };
                let v = if rest == 0 {
                    WIN
                } else {
                    WIN - self.value_masks(opp, rest, nl, nr, false)
                };
                moves.push(DominoMove::Place {
                    end,
                    index: i as u8,
                });
                move_values.push(v);
            }
        }
        if moves.is_empty() {
            let v = if eg.previous_was_pass {
                blocked(me, opp)
            } else {
                WIN - self.value_masks(opp, me, l, r, true)
            };
            moves.push(DominoMove::Pass);
            move_values.push(v);
        }
        let top = *move_values.iter().max().expect("at least one move");
        let best = moves
            .iter()
            .zip(&move_values)
            .filter(|&(_, &v)| v == top)
            .map(|(&m, _)| m)
            .collect();
        Solution {
            value: f64::from(top) / 2.0,
            best,
            move_values: move_values.iter().map(|&v| f64::from(v) / 2.0).collect(),
            moves,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn search(&mut self, me: u64, opp: u64, l: u8, r: u8, pass: bool, alpha: u8, beta: u8) -> u8 {
        if self.aborted {
            return 0;
        }
        self.nodes += 1;
        if self.nodes > self.limit {
            self.aborted = true;
            return 0;
        }
        let (lo_end, hi_end) = if l <= r { (l, r) } else { (r, l) };
        let playable = me & (PIP_MASKS[l as usize] | PIP_MASKS[r as usize]);
        if playable != 0 && me.count_ones() == 1 {
            return WIN;
        }
        if playable == 0 && pass {
            return blocked(me, opp);
        }
        let key = u128::from(me)
            | (u128::from(opp) << 45)
            | (u128::from(lo_end) << 90)
            | (u128::from(hi_end) << 94)
            | (u128::from(pass) << 98);
        let (mut alpha, mut beta) = (alpha, beta);
        let mut tt_move = 0u16;
        if let Some(&e) = self.table.get(&key) {
            tt_move = e >> 4;
            let b = (e & 15) as u8;
            let (lo, hi) = (b >> 2, b & 3);
            if lo == hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let alpha0 = alpha;
        let best;
        let mut best_code = 0u16;
        if playable == 0 {
            best = WIN - self.search(opp, me, l, r, true, WIN - beta, WIN - alpha);
        } else {
            // Order: the table's best move, then the fewest opponent replies.
            let mut children: [(u8, u8, u8, u32, u16); 32] = [(0, 0, 0, 0, 0); 32];
            let mut n = 0;
            let mut bits = playable;
            while bits != 0 {
                let i = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                let t = Tile::from_index(i);
                let mut push = |nl: u8, nr: u8, side: u16| {
                    let replies =
                        (opp & (PIP_MASKS[nl as usize] | PIP_MASKS[nr as usize])).count_ones();
                    let code = u16::from(i) * 2 + side + 1;
                    let order = if code == tt_move { 0 } else { 1 + replies };
                    if n < children.len() {
                        children[n] = (i, nl, nr, order, code);
                        n += 1;
                    }
                };
                if t.has(l) {
                    push(t.other_half(l), r, 0);
                }
                // With equal ends the two placements give mirrored ends: same value.
                if t.has(r) && l != r {
                    push(l, t.other_half(r), 1);
                }
            }
            let children = &mut children[..n];
            children.sort_unstable_by_key(|c| c.3);
            let mut b = 0;
            for &(i, nl, nr, _, code) in children.iter() {
                let rest = me & !(1u64 << i);
                let v = WIN - self.search(opp, rest, nl, nr, false, WIN - beta, WIN - alpha.max(b));
                if v > b || best_code == 0 {
                    b = b.max(v);
                    best_code = code;
                    if b >= beta {
                        break;
                    }
                }
            }
            best = b;
        }
        if self.aborted {
            return 0;
        }
        let entry = if best <= alpha0 {
            // Fail low: an upper bound.
            best
        } else if best >= beta {
            (best << 2) | WIN
        } else {
            (best << 2) | best
        };
        self.table.insert(key, u16::from(entry) | (best_code << 4));
        best
    }
}

/// D13 from the mover's side, in half points.
fn blocked(me: u64, opp: u64) -> u8 {
    match mask_pips(me).cmp(&mask_pips(opp)) {
        std::cmp::Ordering::Less => WIN,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Greater => 0,
    }
}

fn masks(eg: &Endgame) -> (u64, u64) {
    let m = |ts: &[Tile]| ts.iter().fold(0u64, |m, t| m | t.bit());
    (m(&eg.mover), m(&eg.other))
}

/// Solves `eg` with a fresh solver.
pub fn solve(eg: &Endgame) -> Solution {
    Solver::new().solve(eg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_values() {
        for (s, v) in [
            ("5|2,4|1-2|0-0,3-3|0", 1.0),
            ("5|2,4|0-0|1-1|1", 1.0),
            ("5|2,4|3-3|1-1|1", 0.0),
            ("5|2,4|0-3|0-1,1-1|1", 0.5),
        ] {
            let eg: Endgame = s.parse().unwrap();
            assert_eq!(solve(&eg).value, v, "{s}");
        }
    }
}
