//! The reference exact Quarto solver the speed goals are measured against: plain
//! negamax alpha-beta over {loss, draw, win} with a transposition table keyed on the raw
//! position (no symmetry, no move ordering, no pruning of unsafe gives), value only.
//!
//! It is deliberately plain and independent of `agents::quarto::solver` (it reads only
//! the line masks and the position through `arena_core`).

use arena_core::quarto::{Quarto, Square, Variant};

/// Plain alpha-beta + transposition table (one-way, always replace, 2^22 entries).
pub struct Reference {
    lines: &'static [u16],
    /// (board nibbles, occupied | hand << 16 | bounds << 20 | 1 << 31).
    table: Vec<(u64, u32)>,
    pub nodes: u64,
}

impl Reference {
    pub fn new(variant: Variant) -> Reference {
        Reference {
            lines: variant.lines(),
            table: vec![(0, 0); 1 << 22],
            nodes: 0,
        }
    }

    /// The value of `pos` for the side to move: -1, 0 or 1. `pos` must have a piece in
    /// hand and be in progress.
    pub fn value(&mut self, pos: &Quarto) -> i8 {
        let mut board = [0u8; 16];
        for s in Square::iter_set(pos.occupied()) {
            board[usize::from(s.index())] = pos.piece_at(s).expect("occupied").index();
        }
        let hand = pos.in_hand().expect("a piece in hand").index();
        self.search(&mut board, pos.occupied(), hand, pos.available(), -1, 1)
    }

    /// Whether the line set through `s` has a full line sharing an attribute.
    fn wins(&self, board: &[u8; 16], occ: u16, s: usize) -> bool {
        self.lines.iter().any(|&line| {
            if line >> s & 1 == 0 || occ & line != line {
                return false;
            }
            let (mut and, mut nand) = (15u8, 15u8);
            let mut m = line;
            while m != 0 {
                let p = board[m.trailing_zeros() as usize];
                and &= p;
                nand &= !p;
                m &= m - 1;
            }
            and | nand != 0
        })
    }

    fn search(
        &mut self,
        board: &mut [u8; 16],
        occ: u16,
        hand: u8,
        avail: u16,
        mut alpha: i8,
        mut beta: i8,
    ) -> i8 {
        self.nodes += 1;
        let empty = !occ;
        let mut m = empty;
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            board[s] = hand;
            if self.wins(board, occ | 1 << s, s) {
                board[s] = 0;
                return 1;
            }
            board[s] = 0;
        }
        if avail == 0 {
            return 0;
        }
        let nibbles = board
            .iter()
            .enumerate()
            .fold(0u64, |acc, (i, &p)| acc | u64::from(p) << (4 * i));
        let tag = u32::from(occ) | u32::from(hand) << 16 | 1 << 31;
        let h = (nibbles ^ u64::from(tag).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let slot = (h >> 40) as usize & (self.table.len() - 1);
        let (k, w) = self.table[slot];
        if k == nibbles && w & 0x800f_ffff == tag {
            let lo = (w >> 20 & 3) as i8 - 1;
            let hi = (w >> 22 & 3) as i8 - 1;
            if lo >= beta || lo == hi {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let alpha0 = alpha;
        let mut best = -1;
        let mut m = empty;
        'all: while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            board[s] = hand;
            let mut gives = avail;
            while gives != 0 {
                let g = gives.trailing_zeros() as u8;
                gives &= gives - 1;
                let v = -self.search(board, occ | 1 << s, g, avail & !(1 << g), -beta, -alpha);
                if v > best {
                    best = v;
                    if v > alpha {
                        alpha = v;
                        if alpha >= beta {
                            board[s] = 0;
                            break 'all;
                        }
                    }
                }
            }
            board[s] = 0;
        }
        let (lo, hi) = if best <= alpha0 {
            (-1, best)
        } else if best >= beta {
            (best, 1)
        } else {
            (best, best)
        };
        self.table[slot] = (
            nibbles,
            tag | ((lo + 1) as u32) << 20 | ((hi + 1) as u32) << 22,
        );
        best
    }
}
