//! What the public record says about the opponent's hidden hand, and sampling of hands
//! consistent with it.
//!
//! The opponent's hand is modelled as groups of tiles, each with a count and a set of
//! tiles it cannot contain, oldest (most constrained) first:
//!
//! - **Deal (D6).** The starting tile is the best-ranked tile (highest double, else
//!   highest pip sum, then higher greatest number) among the 2H dealt tiles, so every
//!   tile ranked above it was in the stock: none is in the opponent's *dealt* tiles.
//! - **Draw (D10).** A player draws only when nothing in hand fits, so at each of its
//!   draws every tile it then holds shows neither open end. A later draw adds a tile
//!   that carries none of the earlier constraints, which opens a new group; the
//!   constraints of the older groups stay (they are nested: older groups forbid more).
//! - **Pass (D11).** Every tile held at a pass shows neither end: all groups gain them.
//! - **Placement.** A placed tile left the oldest group that could have held it. Taking
//!   it from the most constrained eligible group is the relaxation that never excludes
//!   the true hand (moving a count to a less constrained group only widens the set).
//! - **Empty stock.** The opponent holds exactly the unseen tiles: perfect information.
//!
//! Sampling fills the groups oldest first, each uniformly from the unseen tiles it may
//! hold; the rest of the unseen tiles form the stock in a uniformly random order.

use arena_core::Seat;
use arena_core::dominoes::{DominoView, End, Event, PIP_MASKS, Tile, set_size};
use arena_core::rng::below;
use rand::Rng;

/// One group of the opponent's tiles: `count` tiles, none of them in `forbidden`, held
/// since history event `born` (0: dealt; else the draw that brought the group's tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    pub count: u32,
    pub forbidden: u64,
    pub born: usize,
}

/// Everything inferred from a view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Belief {
    /// The seat of the view.
    pub me: Seat,
    /// Tiles the viewer cannot see: the opponent's hand and the stock.
    pub unseen: u64,
    /// Tiles in the stock.
    pub stock: usize,
    /// The opponent's hand, oldest group first; counts sum to its hand size.
    pub groups: Vec<Group>,
    /// Public void numbers of each seat (bit per number): set to the open ends at a
    /// draw, widened at a pass. Used by the heuristics.
    pub void: [u16; 2],
}

fn rank(t: Tile) -> (bool, u32, u8) {
    (t.is_double(), t.pips(), t.hi())
}

fn ends_tiles(l: u8, r: u8) -> u64 {
    PIP_MASKS[l as usize] | PIP_MASKS[r as usize]
}

impl Belief {
    /// Reads the view's public history.
    pub fn of(view: &DominoView<'_>) -> Belief {
        let me = view.seat();
        let opp = me.other();
        let n = view.case().n();
        let h = view.case().h() as u32;
        let all = (1u64 << set_size(n)) - 1;
        let mut groups: Vec<Group> = Vec::new();
        let mut void = [0u16; 2];
        let (mut l, mut r) = (0u8, 0u8);
        for (at, ev) in view.history().iter().enumerate() {
            match *ev {
                Event::Start { seat, tile } => {
                    let above = Tile::set(n)
                        .filter(|&t| rank(t) > rank(tile))
                        .fold(0u64, |m, t| m | t.bit());
                    let count = if seat == opp { h - 1 } else { h };
                    groups.push(Group {
                        count,
                        forbidden: above | tile.bit(),
                        born: 0,
                    });
                    (l, r) = (tile.lo(), tile.hi());
                }
                Event::Place { seat, tile, end } => {
                    match end {
                        End::Left => l = tile.left,
                        End::Right => r = tile.right,
                    }
                    if seat == opp {
                        let bit = tile.tile().bit();
                        let g = groups
                            .iter()
                            .position(|g| g.count > 0 && g.forbidden & bit == 0)
                            .or_else(|| groups.iter().rposition(|g| g.count > 0));
                        if let Some(g) = g {
                            groups[g].count -= 1;
                        }
                    }
                }
                Event::Draw { seat } => {
                    void[seat.index()] = (1 << l) | (1 << r);
                    if seat == opp {
                        let e = ends_tiles(l, r);
                        for g in &mut groups {
                            g.forbidden |= e;
                        }
                        groups.push(Group {
                            count: 1,
                            forbidden: 0,
                            born: at,
                        });
                    }
                }
                Event::Pass { seat } => {
                    void[seat.index()] |= (1 << l) | (1 << r);
                    if seat == opp {
                        let e = ends_tiles(l, r);
                        for g in &mut groups {
                            g.forbidden |= e;
                        }
                    }
                }
            }
            // Drop empty groups. Groups with equal constraints stay apart: each keeps
            // the time its tiles arrived (an opponent's hand at an earlier placement is
            // its older groups).
            groups.retain(|g| g.count > 0);
        }
        let unseen = view.unseen();
        for g in &mut groups {
            g.forbidden &= all;
        }
        Belief {
            me,
            unseen,
            stock: view.stock(),
            groups,
            void,
        }
    }

    /// The belief of someone who also sees the opponent's `hand` (for analysis only):
    /// every group may hold only tiles of it, so every sample is that hand.
    pub fn knowing(mut self, hand: u64) -> Belief {
        for g in &mut self.groups {
            g.forbidden |= !hand;
        }
        self
    }

    /// The opponent's hand size.
    pub fn opponent_len(&self) -> u32 {
        self.groups.iter().map(|g| g.count).sum()
    }

    /// Whether the opponent's hand is known exactly (the stock is empty).
    pub fn exact(&self) -> bool {
        self.stock == 0
    }

    /// A random opponent hand consistent with the belief, as a tile mask.
    pub fn sample_hand<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        if self.stock == 0 {
            return self.unseen;
        }
        self.sample_hand_by_group(rng, |_, _| {})
    }

    /// [`Belief::sample_hand`], telling `each` the tiles drawn for each group in turn
    /// (with the stock empty the hand is all the unseen tiles, shared among the groups).
    pub fn sample_hand_by_group<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        mut each: impl FnMut(&Group, u64),
    ) -> u64 {
        let mut chosen = 0u64;
        for g in &self.groups {
            let mut pool = self.unseen & !chosen & !g.forbidden;
            if (pool.count_ones()) < g.count {
                // Unreachable for sound inference; relax rather than fail.
                pool = self.unseen & !chosen;
            }
            let tiles = pick(rng, pool, g.count);
            each(g, tiles);
            chosen |= tiles;
        }
        chosen
    }

    /// Whether `hand` (a tile mask) is consistent with the belief: a subset of the unseen
    /// tiles of the right size that the groups can hold (checked greedily, oldest first,
    /// which is exact for nested constraints).
    pub fn consistent(&self, hand: u64) -> bool {
        if hand & !self.unseen != 0 || hand.count_ones() != self.opponent_len() {
            return false;
        }
        // Assign the tiles allowed by the fewest groups first: with nested constraints
        // the youngest groups accept the most tiles, so fill the oldest groups first
        // from the tiles they accept, taking the tiles that fewer groups accept first.
        let mut left = hand;
        let mut need: Vec<(u32, u64)> =
            self.groups.iter().map(|g| (g.count, g.forbidden)).collect();
        for (count, forbidden) in &mut need {
            let ok = left & !*forbidden;
            if ok.count_ones() < *count {
                return false;
            }
            // Take tiles that the younger groups would also accept: any, since younger
            // groups accept a superset. Take the lowest indices.
            let mut bits = ok;
            for _ in 0..*count {
                let b = bits & bits.wrapping_neg();
                left &= !b;
                bits &= !b;
            }
            *count = 0;
        }
        left == 0
    }
}

/// `count` distinct tiles chosen uniformly from `pool` (at most all of it).
pub fn pick<R: Rng + ?Sized>(rng: &mut R, pool: u64, count: u32) -> u64 {
    let mut tiles = [0u8; 64];
    let mut n = 0;
    let mut bits = pool;
    while bits != 0 {
        tiles[n] = bits.trailing_zeros() as u8;
        bits &= bits - 1;
        n += 1;
    }
    let k = (count as usize).min(n);
    let mut out = 0u64;
    for i in 0..k {
        let j = i + below(rng, (n - i) as u32) as usize;
        tiles.swap(i, j);
        out |= 1u64 << tiles[i];
    }
    out
}

/// The tiles of `mask` in a uniformly random order, written to `out`; returns how many.
pub fn shuffled<R: Rng + ?Sized>(rng: &mut R, mask: u64, out: &mut [u8; 45]) -> usize {
    let mut n = 0;
    let mut bits = mask;
    while bits != 0 {
        out[n] = bits.trailing_zeros() as u8;
        bits &= bits - 1;
        n += 1;
    }
    for i in (1..n).rev() {
        let j = below(rng, i as u32 + 1) as usize;
        out.swap(i, j);
    }
    n
}
