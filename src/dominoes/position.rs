//! The referee's full-information position (D6–D13) and the `Game` implementation.

use std::fmt;

use crate::game::{Game, Outcome, Seat};

use super::case::Case;
use super::deal::Deal;
use super::line::Line;
use super::moves::{DominoMove, End};
use super::tile::{MAX_N, MAX_TILES, OrientedTile, Tile};
use super::view::{DominoView, Event};

/// A hand in draw order (D7): drawn tiles are appended; a placed tile is removed and
/// the rest keep their order.
#[derive(Clone, Copy)]
pub struct Hand {
    tiles: [Tile; MAX_TILES],
    len: u8,
    mask: u64,
    /// `by_pip[p]`: bit `i` is set when `tiles[i]` shows `p`. The legal placements at
    /// each turn (asked by the referee and every agent) are then two loads, without a
    /// branch; a removal shifts every mask by one bit above the removed index.
    by_pip: [u64; MAX_N as usize],
}

impl Hand {
    pub(crate) fn from_tiles(tiles: &[Tile]) -> Hand {
        let mut hand = Hand {
            tiles: [Tile::from_index(0); MAX_TILES],
            len: 0,
            mask: 0,
            by_pip: [0; MAX_N as usize],
        };
        for &t in tiles {
            hand.push(t);
        }
        hand
    }

    pub fn tiles(&self) -> &[Tile] {
        &self.tiles[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The set of tiles held, as a mask of tile indices.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// The pip sum of all tiles held (D13).
    pub fn pips(&self) -> u32 {
        self.tiles().iter().map(|t| t.pips()).sum()
    }

    /// Hand indices (bit `i` for `tiles()[i]`) of the tiles showing `pip`.
    pub fn indices_showing(&self, pip: u8) -> u64 {
        self.by_pip.get(usize::from(pip)).copied().unwrap_or(0)
    }

    fn push(&mut self, t: Tile) {
        let bit = 1u64 << self.len;
        self.tiles[self.len as usize] = t;
        self.len += 1;
        self.mask |= t.bit();
        self.by_pip[usize::from(t.lo())] |= bit;
        self.by_pip[usize::from(t.hi())] |= bit;
    }

    fn remove(&mut self, index: usize) -> Tile {
        let t = self.tiles[index];
        self.len -= 1;
        for i in index..self.len as usize {
            self.tiles[i] = self.tiles[i + 1];
        }
        self.mask &= !t.bit();
        let below = (1u64 << index) - 1;
        for m in &mut self.by_pip {
            *m = (*m & below) | ((*m >> 1) & !below);
        }
        t
    }
}

/// Hands are equal when they hold the same tiles in the same order (slots past the end
/// and the index table are bookkeeping).
impl PartialEq for Hand {
    fn eq(&self, other: &Hand) -> bool {
        self.tiles() == other.tiles()
    }
}

impl Eq for Hand {}

impl fmt::Debug for Hand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.tiles()).finish()
    }
}

/// Why a finished game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// A player placed its last tile (D12).
    Domino,
    /// Both players passed in a row; decided by pip sums (D13).
    Blocked,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::Domino => "domino",
            EndReason::Blocked => "blocked",
        })
    }
}

/// A TCO09 Dominoes game as the referee sees it: both hands and the stock included.
#[derive(Clone)]
pub struct Dominoes {
    case: Case,
    hands: [Hand; 2],
    stock: [Tile; MAX_TILES],
    stock_front: u8,
    stock_end: u8,
    line: Line,
    to_move: Seat,
    passes_in_a_row: u8,
    end: Option<(Outcome, EndReason)>,
    starter: (Seat, Tile),
    history: Vec<Event>,
    /// Hand indices of the tiles of the seat to move that fit the left and the right
    /// end: computed once per turn, read by its view and by the legality check.
    placements: (u64, u64),
}

/// The starting tile of a deal and its owner (D6): the highest double among the 2H
/// drawn tiles; with no double, the single with the highest pip sum, ties going to the
/// one with the higher greatest number.
pub fn starting_tile(deal: &Deal) -> (Seat, Tile) {
    // (double, pip sum, greater number) packed so that integer order is rank order;
    // distinct tiles never tie.
    let rank =
        |t: Tile| (u16::from(t.is_double()) << 10) | ((t.pips() as u16) << 4) | u16::from(t.hi());
    let mut best = (0u16, Seat::A, Tile::from_index(0));
    for seat in Seat::BOTH {
        for &t in deal.hand(seat) {
            let r = rank(t);
            if r >= best.0 {
                best = (r, seat, t);
            }
        }
    }
    (best.1, best.2)
}

impl Dominoes {
    /// The position after the automatic first placement (D6): the starting tile lies
    /// alone in the line, smaller number on the left, and its owner's opponent is to move.
    pub fn new(deal: &Deal) -> Dominoes {
        let (owner, first) = starting_tile(deal);
        let mut hands = [
            Hand::from_tiles(deal.hand(Seat::A)),
            Hand::from_tiles(deal.hand(Seat::B)),
        ];
        let hand = &mut hands[owner.index()];
        let at = hand
            .tiles()
            .iter()
            .position(|&t| t == first)
            .expect("owner holds it");
        hand.remove(at);
        let mut stock = [Tile::from_index(0); MAX_TILES];
        stock[..deal.stock().len()].copy_from_slice(deal.stock());
        let mut history = Vec::with_capacity(48);
        history.push(Event::Start {
            seat: owner,
            tile: first,
        });
        let mut game = Dominoes {
            case: deal.case(),
            hands,
            stock,
            stock_front: 0,
            stock_end: deal.stock().len() as u8,
            line: Line::new(OrientedTile {
                left: first.lo(),
                right: first.hi(),
            }),
            to_move: owner.other(),
            passes_in_a_row: 0,
            end: None,
            starter: (owner, first),
            history,
            placements: (0, 0),
        };
        game.placements = game.placements_of(game.to_move);
        game
    }

    pub fn hand(&self, seat: Seat) -> &Hand {
        &self.hands[seat.index()]
    }

    pub fn line(&self) -> &Line {
        &self.line
    }

    /// The stock in draw order, front first. Hidden from agents.
    pub fn stock(&self) -> &[Tile] {
        &self.stock[self.stock_front as usize..self.stock_end as usize]
    }

    pub fn stock_len(&self) -> usize {
        (self.stock_end - self.stock_front) as usize
    }

    /// The starting tile and its owner (D6).
    pub fn starter(&self) -> (Seat, Tile) {
        self.starter
    }

    /// The public record: the start, then every placement, draw and pass.
    pub fn history(&self) -> &[Event] {
        &self.history
    }

    /// Whether the previous turn was a pass (D13 counts two in a row).
    pub fn previous_was_pass(&self) -> bool {
        self.passes_in_a_row > 0
    }

    pub fn end_reason(&self) -> Option<EndReason> {
        self.end.map(|(_, r)| r)
    }

    /// Hand indices of the tiles of `seat` that fit the left and the right end.
    fn placements_of(&self, seat: Seat) -> (u64, u64) {
        let hand = &self.hands[seat.index()];
        (
            hand.indices_showing(self.line.left()),
            hand.indices_showing(self.line.right()),
        )
    }

    /// [`Dominoes::placements_of`] the seat to move.
    fn placements(&self) -> (u64, u64) {
        self.placements
    }

    /// Whether the hand to move holds a tile that fits an open end.
    fn can_place(&self) -> bool {
        let (l, r) = self.placements();
        l | r != 0
    }

    fn finish(&mut self, outcome: Outcome, reason: EndReason) {
        self.end = Some((outcome, reason));
    }

    fn blocked_outcome(&self) -> Outcome {
        let a = self.hands[0].pips();
        let b = self.hands[1].pips();
        match a.cmp(&b) {
            std::cmp::Ordering::Less => Outcome::Winner(Seat::A),
            std::cmp::Ordering::Greater => Outcome::Winner(Seat::B),
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }
}

impl Game for Dominoes {
    type Move = DominoMove;
    type Case = Case;
    type View<'a> = DominoView<'a>;

    fn case(&self) -> Case {
        self.case
    }

    fn to_move(&self) -> Seat {
        self.to_move
    }

    /// Placements in hand order (`L<i>` before `R<i>` for each i); else `DRAW` or `PASS`.
    fn legal_moves_into(&self, moves: &mut Vec<DominoMove>) {
        moves.clear();
        if self.end.is_some() {
            return;
        }
        if self.can_place() {
            let (l, r) = (self.line.left(), self.line.right());
            for (i, t) in self.hands[self.to_move.index()].tiles().iter().enumerate() {
                if t.has(l) {
                    moves.push(DominoMove::left(i as u8));
                }
                if t.has(r) {
                    moves.push(DominoMove::right(i as u8));
                }
            }
        } else if self.stock_len() > 0 {
            moves.push(DominoMove::Draw);
        } else {
            moves.push(DominoMove::Pass);
        }
    }

    fn is_legal(&self, mv: DominoMove) -> bool {
        if self.end.is_some() {
            return false;
        }
        match mv {
            DominoMove::Place { end, index } => {
                let (left, right) = self.placements();
                let fits = match end {
                    End::Left => left,
                    End::Right => right,
                };
                // Indices past the hand have no bit (and past 63 none either).
                index < 64 && fits >> index & 1 == 1
            }
            DominoMove::Draw => !self.can_place() && self.stock_len() > 0,
            DominoMove::Pass => !self.can_place() && self.stock_len() == 0,
        }
    }

    fn play_unchecked(&mut self, mv: DominoMove) {
        let seat = self.to_move;
        match mv {
            DominoMove::Place { end, index } => {
                let hand = &mut self.hands[seat.index()];
                let tile = hand.remove(index as usize);
                let placed = self.line.place(end, tile);
                self.history.push(Event::Place {
                    seat,
                    tile: placed,
                    end,
                });
                self.passes_in_a_row = 0;
                if self.hands[seat.index()].is_empty() {
                    self.finish(Outcome::Winner(seat), EndReason::Domino);
                } else {
                    self.to_move = seat.other();
                }
            }
            DominoMove::Draw => {
                let t = self.stock[self.stock_front as usize];
                self.stock_front += 1;
                self.hands[seat.index()].push(t);
                self.history.push(Event::Draw { seat });
                self.passes_in_a_row = 0;
            }
            DominoMove::Pass => {
                self.history.push(Event::Pass { seat });
                self.passes_in_a_row += 1;
                if self.passes_in_a_row >= 2 {
                    let outcome = self.blocked_outcome();
                    self.finish(outcome, EndReason::Blocked);
                } else {
                    self.to_move = seat.other();
                }
            }
        }
        self.placements = if self.end.is_some() {
            (0, 0)
        } else {
            self.placements_of(self.to_move)
        };
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end.map(|(o, _)| o)
    }

    fn view_of(&self, seat: Seat) -> DominoView<'_> {
        let placements = if seat == self.to_move {
            self.placements
        } else {
            self.placements_of(seat)
        };
        DominoView::with_placements(
            self.case,
            seat,
            self.hands[seat.index()].tiles(),
            placements,
            &self.line,
            self.stock_len(),
            self.hands[seat.other().index()].len(),
            &self.history,
        )
    }
}

impl fmt::Debug for Dominoes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dominoes")
            .field("case", &self.case)
            .field("line", &self.line)
            .field("a", &self.hands[0])
            .field("b", &self.hands[1])
            .field("stock", &self.stock())
            .field("to_move", &self.to_move)
            .field("end", &self.end)
            .finish()
    }
}

impl fmt::Display for Dominoes {
    /// A text drawing: the line, both hands with pip sums, the stock (its count, then its
    /// tiles front first), whose turn.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "line:  {}", self.line)?;
        for seat in Seat::BOTH {
            let hand = &self.hands[seat.index()];
            let tiles: Vec<String> = hand.tiles().iter().map(Tile::to_string).collect();
            let mark = if self.end.is_none() && seat == self.to_move {
                '*'
            } else {
                ' '
            };
            writeln!(
                f,
                "{mark}{seat}:    {}  ({} pips)",
                tiles.join(" "),
                hand.pips()
            )?;
        }
        write!(f, "stock: {}", self.stock_len())?;
        if !self.stock().is_empty() {
            // The referee's view: the tiles too, in the order they will be drawn.
            let tiles: Vec<String> = self.stock().iter().map(Tile::to_string).collect();
            write!(f, " (front first: {})", tiles.join(" "))?;
        }
        if let Some((o, r)) = self.end {
            write!(f, "  -- {o} ({r})")?;
        }
        Ok(())
    }
}
