//! A fast full-information Dominoes position on tile masks, for rollouts, and the
//! rollout policies (`greedy`-like heaviest first and the `smart` heuristic).
//!
//! Hand order does not matter inside a rollout, so hands are plain masks; the stock is
//! an explicit draw order. Each simulated player decides from its own information only:
//! its hand, the line, and the public void numbers of the other (set to the open ends
//! on a draw, widened by a pass).

use std::sync::Arc;

use arena_core::dominoes::{End, PIP_MASKS, Tile};

use crate::learned::LearnedPolicy;
use crate::learned::dominoes::Context;

/// A rollout policy: a deterministic player on full-information positions, used for
/// our side of a rollout and as a model of the opponent.
#[derive(Clone, Debug, PartialEq)]
pub enum Policy {
    /// Heaviest tile first, doubles before singles of the same weight.
    Greedy,
    /// The playability/blocking heuristic of [`smart_score`].
    Smart,
    /// A learned evaluator (`tc-server` and `learned`: the built-in weights;
    /// `learned:weights=FILE`).
    Learned(Arc<LearnedPolicy>),
    /// Any placement, as if at random: scores are a hash of the position and the
    /// placement, so rollouts stay a function of the world (no generator inside).
    Random,
}

impl Policy {
    /// The `tc-server` policy: the learned evaluator with the built-in weights.
    pub fn tc_server() -> Policy {
        // Parsed once per process: agents are built for every game.
        static TC_SERVER: std::sync::OnceLock<Arc<LearnedPolicy>> = std::sync::OnceLock::new();
        Policy::Learned(Arc::clone(
            TC_SERVER.get_or_init(|| Arc::new(LearnedPolicy::built_in("tc-server"))),
        ))
    }
}

impl std::fmt::Display for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Policy::Greedy => f.write_str("greedy"),
            Policy::Random => f.write_str("random"),
            Policy::Smart => f.write_str("smart"),
            Policy::Learned(p) => f.write_str(p.name()),
        }
    }
}

impl std::str::FromStr for Policy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "greedy" => Ok(Policy::Greedy),
            "random" => Ok(Policy::Random),
            "smart" => Ok(Policy::Smart),
            "tc-server" => Ok(Policy::tc_server()),
            "learned" => Ok(Policy::Learned(Arc::new(LearnedPolicy::built_in(
                "learned",
            )))),
            _ => match s.strip_prefix("learned:weights=") {
                Some(path) => LearnedPolicy::from_file(std::path::Path::new(path))
                    .map(|p| Policy::Learned(Arc::new(p)))
                    .map_err(|e| e.to_string()),
                None => Err(
                    "expected greedy, random, smart, tc-server, learned or learned:weights=FILE"
                        .into(),
                ),
            },
        }
    }
}

/// Weights of the smart heuristic, in points per unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmartWeights {
    /// Per own remaining tile that fits a new end.
    pub own: i32,
    /// Per unseen tile that fits a new end (negative: the opponent may hold it).
    pub unseen: i32,
    /// Per new end the opponent is known to be void in.
    pub void: i32,
    /// Per pip of the placed tile.
    pub pips: i32,
    /// For placing a double.
    pub double: i32,
}

/// Tuned on 20,000 games of `smart` vs `greedy` per setting (65.2 per 100; the
/// notes' untuned 30/-10/40 scored 62.9).
pub const SMART: SmartWeights = SmartWeights {
    own: 20,
    unseen: -20,
    void: 40,
    pips: 2,
    double: 5,
};

/// The ends after placing `t` at `end` on `(l, r)`.
#[inline]
pub fn after(t: Tile, end: End, l: u8, r: u8) -> (u8, u8) {
    match end {
        End::Left => (t.other_half(l), r),
        End::Right => (l, t.other_half(r)),
    }
}

#[inline]
fn ends_mask(l: u8, r: u8) -> u64 {
    PIP_MASKS[l as usize] | PIP_MASKS[r as usize]
}

/// The smart heuristic's score for placing `t` (in `hand`) so the ends become
/// `(nl, nr)`. `unseen` is every tile the player cannot see; `opp_void` the numbers
/// (bit per number) the opponent is known not to hold.
#[inline]
pub fn smart_score(hand: u64, t: Tile, nl: u8, nr: u8, unseen: u64, opp_void: u16) -> i32 {
    let rest = hand & !t.bit();
    if rest == 0 {
        return i32::MAX;
    }
    let m = ends_mask(nl, nr);
    let own = (rest & m).count_ones() as i32;
    let uns = (unseen & m).count_ones() as i32;
    let void = i32::from(opp_void >> nl & 1) + i32::from(opp_void >> nr & 1);
    let w = SMART;
    w.own * own
        + w.unseen * uns
        + w.void * void
        + w.pips * t.pips() as i32
        + if t.is_double() { w.double } else { 0 }
}

/// A 64-bit mixing function (splitmix64's finalizer).
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The greedy weight of a tile: pips, then doubles first.
#[inline]
pub fn greedy_score(t: Tile) -> i32 {
    2 * t.pips() as i32 + i32::from(t.is_double())
}

/// A full-information position for rollouts.
#[derive(Clone, Copy, Debug)]
pub struct Sim {
    pub hands: [u64; 2],
    pub l: u8,
    pub r: u8,
    /// Every tile of the set.
    pub all: u64,
    /// Tiles in the line of play.
    pub line: u64,
    pub stock: [u8; 45],
    pub stock_front: u8,
    pub stock_end: u8,
    /// 0 or 1: whose turn.
    pub to_move: u8,
    pub passes: u8,
    /// Public void numbers of each player (bit per number).
    pub void: [u16; 2],
}

/// How a rollout ended, for seat 0 / seat 1 of the sim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimResult {
    Winner(u8),
    Tie,
}

impl SimResult {
    /// Half points for `seat`: 2 win, 1 tie, 0 loss.
    pub fn half_points(self, seat: u8) -> u32 {
        match self {
            SimResult::Winner(w) if w == seat => 2,
            SimResult::Winner(_) => 0,
            SimResult::Tie => 1,
        }
    }
}

impl Sim {
    /// Calls `f` with every placement open to the player to move, by tile index, the
    /// left end first; a tile matching both of two equal ends is offered once (left).
    #[inline]
    pub fn for_each_placement(&self, mut f: impl FnMut(Tile, End)) {
        let (l, r) = (self.l, self.r);
        let mut bits = self.hands[self.to_move as usize] & ends_mask(l, r);
        while bits != 0 {
            let t = Tile::from_index(bits.trailing_zeros() as u8);
            bits &= bits - 1;
            if t.has(l) {
                f(t, End::Left);
            }
            if t.has(r) && l != r {
                f(t, End::Right);
            }
        }
    }

    /// The placements open to the player to move, in [`Sim::for_each_placement`] order
    /// (a hand holds at most 45 tiles, two ends each), and how many there are.
    pub fn placements(&self) -> ([(Tile, End); 90], usize) {
        let mut options = [(Tile::from_index(0), End::Left); 90];
        let mut count = 0;
        self.for_each_placement(|t, end| {
            options[count] = (t, end);
            count += 1;
        });
        (options, count)
    }

    /// The record the player to move decides from, for learned policies.
    pub(crate) fn context(&self) -> Context {
        let p = self.to_move as usize;
        let size = self.all.count_ones();
        let n = (1..=9u8)
            .find(|&n| u32::from(n) * u32::from(n + 1) / 2 == size)
            .expect("a full set of 5..=9 numbers");
        Context::of_masks(
            n,
            self.hands[p],
            self.line,
            usize::from(self.stock_end - self.stock_front),
            self.hands[1 - p].count_ones() as usize,
            (self.void[p], self.void[1 - p]),
        )
    }

    /// Calls `f` with every placement open to the player to move and its score under
    /// `policy` (higher is better), in [`Sim::for_each_placement`] order.
    #[inline]
    pub fn score_placements(&self, policy: &Policy, mut f: impl FnMut(Tile, End, f64)) {
        let p = self.to_move as usize;
        let hand = self.hands[p];
        let (l, r) = (self.l, self.r);
        match policy {
            Policy::Greedy => self.for_each_placement(|t, end| f(t, end, greedy_score(t).into())),
            Policy::Random => {
                let state = hand ^ self.line.rotate_left(21) ^ u64::from(self.l) << 58;
                self.for_each_placement(|t, end| {
                    let x = state ^ u64::from(t.index()) << 1 ^ u64::from(end == End::Right);
                    f(t, end, (mix(x) >> 11) as f64);
                });
            }
            Policy::Smart => {
                let unseen = self.all & !self.line & !hand;
                let opp_void = self.void[1 - p];
                self.for_each_placement(|t, end| {
                    let (nl, nr) = after(t, end, l, r);
                    f(
                        t,
                        end,
                        smart_score(hand, t, nl, nr, unseen, opp_void).into(),
                    );
                });
            }
            Policy::Learned(learned) => {
                let ctx = self.context();
                self.for_each_placement(|t, end| {
                    let (nl, nr) = after(t, end, l, r);
                    f(t, end, learned.value(&ctx, t, nl, nr));
                });
            }
        }
    }

    /// The move `policy` chooses for the player to move: `Some((tile, end))`, or `None`
    /// when nothing fits (draw or pass). Ties go to the first placement in order.
    #[inline]
    pub fn choose(&self, policy: &Policy) -> Option<(Tile, End)> {
        let mut only = None;
        let mut count = 0;
        self.for_each_placement(|t, end| {
            count += 1;
            only = Some((t, end));
        });
        if count <= 1 {
            return only;
        }
        let mut best: Option<(f64, Tile, End)> = None;
        self.score_placements(policy, |t, end, s| {
            if best.is_none_or(|(b, _, _)| s > b) {
                best = Some((s, t, end));
            }
        });
        best.map(|(_, t, end)| (t, end))
    }

    /// Places `t` at `end` for the player to move. Returns true if that player went out.
    #[inline]
    pub fn place(&mut self, t: Tile, end: End) -> bool {
        let p = self.to_move as usize;
        self.hands[p] &= !t.bit();
        self.line |= t.bit();
        (self.l, self.r) = after(t, end, self.l, self.r);
        self.passes = 0;
        if self.hands[p] == 0 {
            return true;
        }
        self.to_move ^= 1;
        false
    }

    /// Draws or passes for a player with nothing to place. Returns the blocked result
    /// when this pass is the second in a row.
    #[inline]
    pub fn draw_or_pass(&mut self) -> Option<SimResult> {
        let p = self.to_move as usize;
        let ends = (1u16 << self.l) | (1u16 << self.r);
        if self.stock_front < self.stock_end {
            let t = self.stock[self.stock_front as usize];
            self.stock_front += 1;
            self.hands[p] |= 1u64 << t;
            self.void[p] = ends;
            self.passes = 0;
            None
        } else {
            self.void[p] |= ends;
            self.passes += 1;
            if self.passes >= 2 {
                let a = super::solver::mask_pips(self.hands[0]);
                let b = super::solver::mask_pips(self.hands[1]);
                return Some(match a.cmp(&b) {
                    std::cmp::Ordering::Less => SimResult::Winner(0),
                    std::cmp::Ordering::Greater => SimResult::Winner(1),
                    std::cmp::Ordering::Equal => SimResult::Tie,
                });
            }
            self.to_move ^= 1;
            None
        }
    }

    /// Plays to the end with `policies[seat]` for each seat; returns the result and the
    /// number of decisions simulated.
    pub fn rollout(&mut self, policies: [&Policy; 2]) -> (SimResult, u32) {
        let mut steps = 0;
        loop {
            steps += 1;
            let p = self.to_move;
            match self.choose(policies[p as usize]) {
                Some((t, end)) => {
                    if self.place(t, end) {
                        return (SimResult::Winner(p), steps);
                    }
                }
                None => {
                    if let Some(res) = self.draw_or_pass() {
                        return (res, steps);
                    }
                }
            }
        }
    }
}
