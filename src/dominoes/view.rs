//! What a Dominoes agent sees: its own hand and the public record, nothing else.
//! The view holds references to public data only, so no agent code can reach the
//! opponent's tiles or the stock's contents through it.

use crate::game::Seat;

use super::case::Case;
use super::line::Line;
use super::moves::{DominoMove, End};
use super::tile::{OrientedTile, PIP_MASKS, Tile, set_size};

/// One public event of a game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Event {
    /// The automatic first placement (D6) by its owner.
    Start { seat: Seat, tile: Tile },
    /// A placement, as the tile lies in the line.
    Place {
        seat: Seat,
        tile: OrientedTile,
        end: End,
    },
    /// A draw from the stock; which tile is private to the drawer.
    Draw { seat: Seat },
    /// A pass with the stock empty.
    Pass { seat: Seat },
}

/// The TCO09 view (`play(hand, line, stock)`) plus the public history.
#[derive(Clone, Copy, Debug)]
pub struct DominoView<'a> {
    case: Case,
    seat: Seat,
    hand: &'a [Tile],
    line: &'a Line,
    stock: usize,
    opponent_hand: usize,
    history: &'a [Event],
    /// Hand indices of the tiles that fit the left end and the right end.
    placements: (u64, u64),
}

impl<'a> DominoView<'a> {
    /// A view from public parts, for adapters that receive the TCO09 arguments
    /// (`play(hand, line, stock)`) rather than a referee position. `history` must open
    /// with the `Start` event.
    pub fn new(
        case: Case,
        seat: Seat,
        hand: &'a [Tile],
        line: &'a Line,
        stock: usize,
        opponent_hand: usize,
        history: &'a [Event],
    ) -> Self {
        // Bit `t` of PIP_MASKS[p] says whether tile `t` shows `p`: one shift per tile.
        let (l, r) = (
            PIP_MASKS[line.left() as usize],
            PIP_MASKS[line.right() as usize],
        );
        let (mut left, mut right) = (0u64, 0u64);
        for (i, t) in hand.iter().enumerate() {
            let t = t.index();
            left |= (l >> t & 1) << i;
            right |= (r >> t & 1) << i;
        }
        Self::with_placements(
            case,
            seat,
            hand,
            (left, right),
            line,
            stock,
            opponent_hand,
            history,
        )
    }

    /// A view whose placements (hand indices fitting the left and the right end) the
    /// referee already knows.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn with_placements(
        case: Case,
        seat: Seat,
        hand: &'a [Tile],
        placements: (u64, u64),
        line: &'a Line,
        stock: usize,
        opponent_hand: usize,
        history: &'a [Event],
    ) -> Self {
        DominoView {
            case,
            seat,
            hand,
            line,
            stock,
            opponent_hand,
            history,
            placements,
        }
    }

    pub fn case(&self) -> Case {
        self.case
    }

    /// The seat this view belongs to (TCO09 agents are not told; in-process ones may use it).
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// Own tiles in hand order (D7).
    pub fn hand(&self) -> &'a [Tile] {
        self.hand
    }

    pub fn line(&self) -> &'a Line {
        self.line
    }

    /// Tiles left in the stock.
    pub fn stock(&self) -> usize {
        self.stock
    }

    /// Tiles in the opponent's hand: N(N+1)/2 - stock - |line| - |hand|.
    pub fn opponent_hand_len(&self) -> usize {
        self.opponent_hand
    }

    pub fn history(&self) -> &'a [Event] {
        self.history
    }

    /// The starting tile and its owner (D6): `reset(first)`'s argument.
    pub fn starter(&self) -> (Seat, Tile) {
        match self.history.first() {
            Some(&Event::Start { seat, tile }) => (seat, tile),
            _ => unreachable!("every history opens with the start"),
        }
    }

    /// Tiles this seat cannot see: the opponent's hand and the stock together.
    pub fn unseen(&self) -> u64 {
        let all = (1u64 << set_size(self.case.n())) - 1;
        let line = self
            .line
            .tiles()
            .iter()
            .fold(0u64, |m, t| m | t.tile().bit());
        let hand = self.hand.iter().fold(0u64, |m, t| m | t.bit());
        all & !line & !hand
    }

    /// The legal moves as [`DominoView::legal_moves`] lists them, without allocating:
    /// for agents that decide millions of times.
    pub fn legal_move_list(&self) -> MoveList {
        let (left, right) = self.placements;
        let fallback = if self.stock > 0 {
            DominoMove::Draw
        } else {
            DominoMove::Pass
        };
        MoveList {
            left,
            right,
            fallback,
        }
    }

    /// The legal moves, in the same order as the referee lists them.
    pub fn legal_moves(&self) -> Vec<DominoMove> {
        let (l, r) = (self.line.left(), self.line.right());
        let mut moves = Vec::new();
        for (i, t) in self.hand.iter().enumerate() {
            if t.has(l) {
                moves.push(DominoMove::left(i as u8));
            }
            if t.has(r) {
                moves.push(DominoMove::right(i as u8));
            }
        }
        if moves.is_empty() {
            moves.push(if self.stock > 0 {
                DominoMove::Draw
            } else {
                DominoMove::Pass
            });
        }
        moves
    }

    /// Whether any tile in hand fits an end.
    pub fn can_place(&self) -> bool {
        self.placements.0 | self.placements.1 != 0
    }
}

/// The legal moves of a view as two masks of hand indices (a hand never holds more than
/// 45 tiles), listed in the referee's order: by hand index, the left end first; `DRAW` or
/// `PASS` alone when no tile fits.
#[derive(Clone, Copy, Debug)]
pub struct MoveList {
    left: u64,
    right: u64,
    fallback: DominoMove,
}

impl MoveList {
    pub fn len(&self) -> usize {
        match (self.left.count_ones() + self.right.count_ones()) as usize {
            0 => 1,
            n => n,
        }
    }

    /// Never true: a seat to move always has a move.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The moves in order.
    pub fn iter(&self) -> impl Iterator<Item = DominoMove> + '_ {
        let mut rest = self.left | self.right;
        let mut pending_right: Option<u8> = None;
        let mut fallback = (rest == 0).then_some(self.fallback);
        std::iter::from_fn(move || {
            if let Some(f) = fallback.take() {
                return Some(f);
            }
            if let Some(i) = pending_right.take() {
                return Some(DominoMove::right(i));
            }
            if rest == 0 {
                return None;
            }
            let i = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let (l, r) = (self.left >> i & 1 == 1, self.right >> i & 1 == 1);
            if l {
                if r {
                    pending_right = Some(i);
                }
                Some(DominoMove::left(i))
            } else {
                Some(DominoMove::right(i))
            }
        })
    }

    /// The `k`-th move in order.
    pub fn get(&self, k: usize) -> Option<DominoMove> {
        let mut rest = self.left | self.right;
        if rest == 0 {
            return (k == 0).then_some(self.fallback);
        }
        // Each index holds one move, or two (left, then right) for a tile fitting both.
        let mut k = k;
        while rest != 0 {
            let i = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let (l, r) = (self.left >> i & 1 == 1, self.right >> i & 1 == 1);
            match (k, l, r) {
                (0, true, _) => return Some(DominoMove::left(i)),
                (0, false, _) => return Some(DominoMove::right(i)),
                (1, true, true) => return Some(DominoMove::right(i)),
                _ => k -= 1 + usize::from(l && r),
            }
        }
        None
    }

    /// Hand indices of the tiles that fit the left end and the right end (both empty
    /// when the only move is `DRAW` or `PASS`).
    pub fn placements(&self) -> (u64, u64) {
        (self.left, self.right)
    }
}
