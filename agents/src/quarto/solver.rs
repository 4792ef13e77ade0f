//! The exact Quarto solver: negamax with alpha-beta over {loss, draw, win} (values for
//! the side to move, Q10) and a transposition table keyed by a canonical form under the
//! variant's whole symmetry group (board group x 384 piece symmetries).
//!
//! How a node is searched:
//! * Threats are kept per line (count of pieces, AND of the pieces' attribute bytes), so
//!   "the piece in hand wins somewhere" is one AND with the OR of the 3-piece lines, and
//!   the safe gives after a placement come from a 256-entry table.
//! * If the piece in hand wins somewhere: win (this is checked before "no piece left",
//!   so a win with the last piece is a win). If no piece is left otherwise: draw.
//! * Only safe gives are searched (a give the opponent wins with at once loses); a node
//!   with no safe (square, give) pair is a loss.
//! * From 6 empty squares on, children are ordered by the opponent's number of safe
//!   replies (the Strangler count); at every depth a child that leaves the opponent none
//!   (with pieces left) is a win without a search.
//! * At 4 empty squares, when only a win would matter (alpha >= 0) and no child
//!   strangles the opponent, the node is "at most a draw" at once: after the opponent's
//!   safe reply it places the last piece, so no later win exists for the side to move.
//! * The table stores proven bounds only, so entries never go stale; searches cut off by
//!   a node budget store nothing on the way out.
//!
//! Modes and hooks (for `arena solve`, `best` and books):
//! * [`Solver::solve_best`] / [`Solver::solve_best_within`]: the value and one optimal
//!   move (the value-only mode: one root pass);
//! * [`Solver::solve_moves`] / [`Solver::solve_moves_budget`]: the value and every
//!   optimal move (a second pass proves each root move, ~8x dearer at 12 empties);
//! * `*_within` / `*_budget` take a node budget and give up with [`BudgetExhausted`];
//! * [`Solver::set_progress`]: a hook called every N nodes with a [`Progress`].

use std::ops::ControlFlow;
use std::sync::OnceLock;

use arena_core::quarto::{Quarto, QuartoMove, Square, Variant};
use arena_core::{Game, Outcome};

use super::symmetry::{Perm, board_group};

/// The exact value of a position for the side to move (Q10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The side to move loses under perfect play.
    Loss,
    /// Perfect play draws.
    Draw,
    /// The side to move wins.
    Win,
}

impl Value {
    /// -1, 0 or 1.
    pub fn score(self) -> i8 {
        match self {
            Value::Loss => -1,
            Value::Draw => 0,
            Value::Win => 1,
        }
    }

    fn from_score(v: i8) -> Value {
        match v {
            ..0 => Value::Loss,
            0 => Value::Draw,
            _ => Value::Win,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Value::Loss => "loss",
            Value::Draw => "draw",
            Value::Win => "win",
        }
    }
}

impl std::str::FromStr for Value {
    type Err = String;
    fn from_str(s: &str) -> Result<Value, String> {
        match s {
            "win" => Ok(Value::Win),
            "draw" => Ok(Value::Draw),
            "loss" => Ok(Value::Loss),
            _ => Err(format!("{s:?} is not win, draw or loss")),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Search counters since the last [`Solver::reset_stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Nodes entered (every call of the search, leaves included).
    pub nodes: u64,
    /// Transposition-table probes.
    pub tt_probes: u64,
    /// Probes that found their position.
    pub tt_hits: u64,
    /// Nodes entered, by the number of empty squares.
    pub nodes_at: [u64; 17],
}

impl Stats {
    /// `tt_hits / tt_probes`, 0 when nothing was probed.
    pub fn hit_rate(&self) -> f64 {
        if self.tt_probes == 0 {
            0.0
        } else {
            self.tt_hits as f64 / self.tt_probes as f64
        }
    }
}

// ---------------------------------------------------------------------------------
// Geometry and bit tricks shared with the midgame search.

pub(crate) const MAX_LINES: usize = 19;

/// A piece's attribute byte: bit `a` if it has attribute `a`, bit `4 + a` if not. Four
/// pieces share an attribute value iff the AND of their bytes is non-zero.
#[inline]
pub(crate) const fn attr_byte(piece: u8) -> u8 {
    piece | ((!piece & 15) << 4)
}

/// `SAFE[threats]`: the pieces whose attribute byte misses `threats`, i.e. the pieces
/// that complete no line when the 3-piece lines have the OR of common bytes `threats`.
pub(crate) static SAFE: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut a = 0;
    while a < 256 {
        let mut p = 0;
        while p < 16 {
            if attr_byte(p as u8) & a as u8 == 0 {
                t[a] |= 1 << p;
            }
            p += 1;
        }
        a += 1;
    }
    t
};

/// A board permutation as two byte lookup tables.
struct SymTable {
    lo: [u16; 256],
    hi: [u16; 256],
}

impl SymTable {
    fn new(perm: &Perm) -> SymTable {
        let mut lo = [0u16; 256];
        let mut hi = [0u16; 256];
        for b in 0..256usize {
            for i in 0..8 {
                if b >> i & 1 == 1 {
                    lo[b] |= 1 << perm[i];
                    hi[b] |= 1 << perm[i + 8];
                }
            }
        }
        SymTable { lo, hi }
    }

    #[inline]
    fn apply(&self, m: u16) -> u16 {
        self.lo[usize::from(m as u8)] | self.hi[usize::from(m >> 8)]
    }
}

pub(crate) struct Geometry {
    pub(crate) lines: &'static [u16],
    /// The lines through each square, as indices into `lines`.
    lines_of: [[u8; 8]; 16],
    n_of: [u8; 16],
    /// The lines through each square, as a bit per line index.
    line_bits_of: [u32; 16],
    syms: Vec<SymTable>,
}

impl Geometry {
    pub(crate) fn of(variant: Variant) -> &'static Geometry {
        static GEOMETRY: [OnceLock<Geometry>; 2] = [OnceLock::new(), OnceLock::new()];
        GEOMETRY[usize::from(variant.index())].get_or_init(|| {
            let lines = variant.lines();
            let mut lines_of = [[0u8; 8]; 16];
            let mut n_of = [0u8; 16];
            for s in 0..16 {
                for (l, &line) in lines.iter().enumerate() {
                    if line >> s & 1 == 1 {
                        lines_of[s][usize::from(n_of[s])] = l as u8;
                        n_of[s] += 1;
                    }
                }
            }
            let syms = board_group(variant).iter().map(SymTable::new).collect();
            Geometry {
                lines,
                lines_of,
                n_of,
                line_bits_of: std::array::from_fn(|sq| {
                    lines
                        .iter()
                        .enumerate()
                        .filter(|(_, line)| *line >> sq & 1 == 1)
                        .fold(0, |bits, (l, _)| bits | 1 << l)
                }),
                syms,
            }
        })
    }
}

/// The solver's board: attribute masks plus, per line, its piece count and the AND of
/// its pieces' attribute bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    pub(crate) occ: u16,
    pub(crate) attr: [u16; 4],
    /// Pieces neither on the board nor in hand.
    pub(crate) avail: u16,
    pub(crate) hand: u8,
    cnt: [u8; MAX_LINES],
    and: [u8; MAX_LINES],
    /// The lines (bit per line index) with 3 pieces sharing an attribute: the threats.
    live3: u32,
    /// The lines with 2 pieces sharing an attribute.
    live2: u32,
}

/// The threats of a board: `all` is the OR of the common bytes of its 3-piece lines;
/// `excl[s]` the same without the line whose hole is `s`; `two[s]` the OR of the common
/// bytes of the 2-piece lines through empty square `s`. Placing piece `p` on `s` leaves
/// the threats `excl[s] | (two[s] & attr_byte(p))`.
#[derive(Clone, Copy)]
pub(crate) struct Threats {
    pub(crate) all: u8,
    pub(crate) excl: [u8; 16],
    pub(crate) two: [u8; 16],
}

impl Threats {
    const NONE: Threats = Threats {
        all: 0,
        excl: [0; 16],
        two: [0; 16],
    };

    /// The threats left after placing `piece` on `square`.
    #[inline]
    pub(crate) fn after(&self, square: usize, piece: u8) -> u8 {
        self.excl[square] | (self.two[square] & attr_byte(piece))
    }
}

impl Node {
    pub(crate) fn empty() -> Node {
        Node {
            occ: 0,
            attr: [0; 4],
            avail: u16::MAX,
            hand: 0,
            cnt: [0; MAX_LINES],
            and: [0xff; MAX_LINES],
            live3: 0,
            live2: 0,
        }
    }

    /// The position's board and hand. `None` if the game is over or no piece is in hand.
    pub(crate) fn from_quarto(pos: &Quarto, geo: &Geometry) -> Option<Node> {
        if pos.is_over() {
            return None;
        }
        let hand = pos.in_hand()?;
        let mut n = Node::empty();
        for s in Square::iter_set(pos.occupied()) {
            let p = pos.piece_at(s).expect("occupied").index();
            n.place(usize::from(s.index()), p, geo);
        }
        n.avail = pos.available();
        n.hand = hand.index();
        Some(n)
    }

    #[inline(always)]
    pub(crate) fn place(&mut self, s: usize, piece: u8, geo: &Geometry) {
        self.occ |= 1 << s;
        for a in 0..4 {
            self.attr[a] |= u16::from(piece >> a & 1) << s;
        }
        let byte = attr_byte(piece);
        for &l in &geo.lines_of[s][..usize::from(geo.n_of[s])] {
            let l = usize::from(l);
            self.cnt[l] += 1;
            self.and[l] &= byte;
            let live = u32::from(self.and[l] != 0) << l;
            let bit = 1u32 << l;
            self.live3 = self.live3 & !bit | live & (u32::from(self.cnt[l] == 3) << l);
            self.live2 = self.live2 & !bit | live & (u32::from(self.cnt[l] == 2) << l);
        }
    }

    /// The child after placing the piece in hand on `s` and giving `give`.
    #[inline]
    pub(crate) fn child(&self, s: usize, give: u8, geo: &Geometry) -> Node {
        let mut c = *self;
        c.place(s, self.hand, geo);
        c.avail &= !(1 << give);
        c.hand = give;
        c
    }

    pub(crate) fn threats(&self, geo: &Geometry) -> Threats {
        let empty = !self.occ;
        let mut t = Threats::NONE;
        let mut m = self.live2;
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let and = self.and[l];
            let mut e = geo.lines[l] & empty;
            while e != 0 {
                t.two[e.trailing_zeros() as usize] |= and;
                e &= e - 1;
            }
        }
        if self.live3 == 0 {
            return t;
        }
        let mut m = self.live3;
        while m != 0 {
            t.all |= self.and[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        // Squares that are no 3-line's hole see every threat; each hole sees the
        // threats of the lines through other holes (a 3-line through an empty square
        // has it as its hole).
        t.excl = [t.all; 16];
        let mut m = self.live3;
        while m != 0 {
            let hole = (geo.lines[m.trailing_zeros() as usize] & empty).trailing_zeros() as usize;
            m &= m - 1;
            let mut others = self.live3 & !geo.line_bits_of[hole];
            let mut x = 0;
            while others != 0 {
                x |= self.and[others.trailing_zeros() as usize];
                others &= others - 1;
            }
            t.excl[hole] = x;
        }
        t
    }

    /// The side to move's number of safe (square, give) pairs, where `t` are the
    /// threats of this board: the Strangler count.
    #[inline]
    pub(crate) fn safe_moves(&self, t: &Threats) -> u32 {
        safe_pairs(!self.occ, self.avail, self.hand, t)
    }

    /// The opponent's number of safe (square, give) replies after we place `hand` on
    /// `s` and give `g`, where `t2` are the threats of the board after the placement.
    #[inline]
    pub(crate) fn safe_replies(&self, s: usize, g: u8, t2: &Threats) -> u32 {
        safe_pairs(!self.occ & !(1 << s), self.avail & !(1 << g), g, t2)
    }

    /// Whether the opponent has a safe reply after we place `hand` on `s` and give `g`
    /// ([`Node::safe_replies`] is not 0).
    #[inline]
    pub(crate) fn has_safe_reply(&self, s: usize, g: u8, t2: &Threats) -> bool {
        let rest = self.avail & !(1 << g);
        let mut m = !self.occ & !(1 << s);
        while m != 0 {
            let s2 = m.trailing_zeros() as usize;
            if rest & SAFE[usize::from(t2.after(s2, g))] != 0 {
                return true;
            }
            m &= m - 1;
        }
        false
    }

    /// The canonical key of (board, hand) under the board group x the piece group.
    ///
    /// XOR every piece with the piece in hand (so the hand becomes piece 0: this fixes
    /// the XOR part of a piece symmetry), then over every board symmetry take the
    /// smallest (occupied mask, sorted attribute masks); sorting the four masks makes
    /// the key blind to attribute permutations. Two positions get the same key iff one
    /// is the image of the other.
    pub(crate) fn canonical(&self, geo: &Geometry) -> (u16, u64) {
        let h = self.hand;
        let m: [u16; 4] =
            std::array::from_fn(|a| self.attr[a] ^ if h >> a & 1 == 1 { self.occ } else { 0 });
        let mut occs = [0u16; 32];
        let mut best_o = u16::MAX;
        for (i, sym) in geo.syms.iter().enumerate() {
            let o = sym.apply(self.occ);
            occs[i] = o;
            best_o = best_o.min(o);
        }
        let mut best = u64::MAX;
        for (i, sym) in geo.syms.iter().enumerate() {
            if occs[i] != best_o {
                continue;
            }
            let mut k = [
                sym.apply(m[0]),
                sym.apply(m[1]),
                sym.apply(m[2]),
                sym.apply(m[3]),
            ];
            sort4(&mut k);
            let key = u64::from(k[0]) << 48
                | u64::from(k[1]) << 32
                | u64::from(k[2]) << 16
                | u64::from(k[3]);
            best = best.min(key);
        }
        (best_o, best)
    }
}

/// The safe (square, give) pairs of a mover who places `hand` on one of `squares` and
/// gives one of `gives`, where `t` are the board's threats: the gives that complete no
/// line after the placement.
#[inline]
fn safe_pairs(squares: u16, gives: u16, hand: u8, t: &Threats) -> u32 {
    let mut m = squares;
    let mut count = 0;
    while m != 0 {
        let s = m.trailing_zeros() as usize;
        count += (gives & SAFE[usize::from(t.after(s, hand))]).count_ones();
        m &= m - 1;
    }
    count
}

/// Fail-soft alpha-beta's step after a child's value `v` (for the mover): raises `best`,
/// and `alpha` where `v` beats it; `true` at a cutoff (`alpha` reaches `beta`).
#[inline(always)]
pub(crate) fn raise<T: Ord + Copy>(v: T, best: &mut T, alpha: &mut T, beta: T) -> bool {
    if v > *best {
        *best = v;
        if v > *alpha {
            *alpha = v;
            return *alpha >= beta;
        }
    }
    false
}

#[inline]
fn sort4(k: &mut [u16; 4]) {
    let cs = |k: &mut [u16; 4], i: usize, j: usize| {
        if k[i] > k[j] {
            k.swap(i, j);
        }
    };
    cs(k, 0, 1);
    cs(k, 2, 3);
    cs(k, 0, 2);
    cs(k, 1, 3);
    cs(k, 1, 2);
}

/// The canonical key of a position with a piece in hand, as `occupied << 64 | masks`:
/// equal for two positions iff a board symmetry with a piece symmetry maps one onto the
/// other. `None` if no piece is in hand or the game is over.
pub fn canonical_key(pos: &Quarto) -> Option<u128> {
    let geo = Geometry::of(pos.variant());
    let n = Node::from_quarto(pos, geo)?;
    let (o, m) = n.canonical(geo);
    Some(u128::from(o) << 64 | u128::from(m))
}

// ---------------------------------------------------------------------------------
// Transposition table.

/// Two-way buckets of (masks, occupied | bounds | empties | generation) words. Slot 0
/// keeps the larger subtree, slot 1 takes the rest.
struct Table {
    slots: Vec<[u64; 2]>,
    /// Bucket index mask (buckets = slots / 2).
    mask: usize,
    generation: u64,
}

const GEN_SHIFT: u32 = 28;

impl Table {
    fn new(bits: u32) -> Table {
        Table {
            slots: Vec::new(),
            mask: (1usize << bits.saturating_sub(1)) - 1,
            generation: 1,
        }
    }

    fn ensure(&mut self) {
        if self.slots.is_empty() {
            self.slots = vec![[0, 0]; 2 * (self.mask + 1)];
        }
    }

    #[inline]
    fn bucket(&self, occ: u16, masks: u64) -> usize {
        let h = (masks ^ u64::from(occ).wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .wrapping_mul(0xbf58_476d_1ce4_e5b9);
        2 * ((h >> 32) as usize & self.mask)
    }

    #[inline]
    fn matches(&self, slot: [u64; 2], occ: u16, masks: u64) -> bool {
        slot[0] == masks && slot[1] as u16 == occ && slot[1] >> GEN_SHIFT == self.generation
    }

    /// (lower, upper) bounds if the position is stored.
    #[inline]
    fn probe(&self, occ: u16, masks: u64) -> Option<(i8, i8)> {
        let b = self.bucket(occ, masks);
        for slot in &self.slots[b..b + 2] {
            if self.matches(*slot, occ, masks) {
                let bounds = (slot[1] >> 16) as u8;
                return Some(((bounds & 3) as i8 - 1, (bounds >> 2 & 3) as i8 - 1));
            }
        }
        None
    }

    fn store(&mut self, occ: u16, masks: u64, lower: i8, upper: i8, empties: u32) {
        let b = self.bucket(occ, masks);
        let pack = |lo: i8, hi: i8| {
            u64::from(occ)
                | u64::from((lo + 1) as u8 | ((hi + 1) as u8) << 2) << 16
                | u64::from(empties) << 20
                | self.generation << GEN_SHIFT
        };
        for i in b..b + 2 {
            if self.matches(self.slots[i], occ, masks) {
                let bounds = (self.slots[i][1] >> 16) as u8;
                let lo = ((bounds & 3) as i8 - 1).max(lower);
                let hi = ((bounds >> 2 & 3) as i8 - 1).min(upper);
                self.slots[i][1] = pack(lo, hi);
                return;
            }
        }
        let deep = self.slots[b];
        let deep_empties = (deep[1] >> 20 & 0xff) as u32;
        let i = if deep[1] >> GEN_SHIFT != self.generation || empties >= deep_empties {
            if deep[1] >> GEN_SHIFT == self.generation {
                self.slots[b + 1] = deep;
            }
            b
        } else {
            b + 1
        };
        self.slots[i] = [masks, pack(lower, upper)];
    }
}

// ---------------------------------------------------------------------------------
// The solver.

/// Positions with fewer empty squares are not stored (recomputing them is cheaper).
const TT_MIN_EMPTIES: u32 = 7;
/// From this many empty squares on, children are ordered by the Strangler count.
const ORDER_MIN_EMPTIES: u32 = 6;

/// An exact solver with its transposition table. One instance serves one variant at a
/// time: solving a position of the other variant clears the table.
pub struct Solver {
    variant: Option<Variant>,
    table: Table,
    stats: Stats,
    /// The node count at which the current call gives up.
    limit: u64,
    /// The node count at which [`Solver::search`] next stops to check the limit and
    /// report progress: `min(limit, next progress report)`.
    next_event: u64,
    aborted: bool,
    progress: Option<ProgressHook>,
    /// Where the current call started, and its root moves searched / in all.
    call_start: u64,
    root_done: u32,
    root_total: u32,
    /// Per number of empty squares, the search's scratch space.
    frames: Box<[Frame; 17]>,
}

/// A node's children: the board after placing the piece in hand on each square, its
/// threats, and the children packed as `safe replies << 8 | square << 4 | give`, so
/// sorting the words orders them by the Strangler count.
#[derive(Clone, Copy)]
struct Frame {
    boards: [Node; 16],
    threats: [Threats; 16],
    kids: [u16; 240],
}

/// A progress hook: called every `every` nodes during a solve.
struct ProgressHook {
    every: u64,
    next: u64,
    hook: Box<dyn FnMut(&Progress) + Send>,
}

/// Where a long solve stands, handed to the hook set by [`Solver::set_progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Nodes searched since the current call (`solve_*`) began.
    pub nodes: u64,
    /// Root moves fully searched in the current root pass, out of `root_moves` (the
    /// all-moves mode runs two passes: the value, then every move's check).
    pub root_done: u32,
    /// Root moves in the current pass (0 before the root moves are known).
    pub root_moves: u32,
}

/// A solve that ran out of its node budget (the table keeps only proven results, so
/// the solver stays usable and exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetExhausted {
    /// Nodes searched before giving up.
    pub nodes: u64,
}

impl std::fmt::Display for BudgetExhausted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "node budget exhausted after {} nodes", self.nodes)
    }
}

impl std::error::Error for BudgetExhausted {}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a 2^22-entry table (64 MiB, allocated on first use).
    pub fn new() -> Solver {
        Solver::with_table_bits(22)
    }

    /// A solver with a 2^`bits`-entry table (16 bytes an entry, allocated on first use).
    pub fn with_table_bits(bits: u32) -> Solver {
        Solver {
            variant: None,
            table: Table::new(bits.clamp(4, 30)),
            stats: Stats::default(),
            limit: u64::MAX,
            next_event: u64::MAX,
            aborted: false,
            progress: None,
            call_start: 0,
            root_done: 0,
            root_total: 0,
            frames: Box::new(
                [Frame {
                    boards: [Node::empty(); 16],
                    threats: [Threats::NONE; 16],
                    kids: [0; 240],
                }; 17],
            ),
        }
    }

    /// Counters since creation or the last [`Solver::reset_stats`].
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Zeroes the counters.
    pub fn reset_stats(&mut self) {
        self.stats = Stats::default();
    }

    /// Forgets every stored position (a generation bump: O(1)).
    pub fn clear(&mut self) {
        self.table.generation += 1;
        if self.table.generation >= 1 << (64 - GEN_SHIFT) {
            self.table.generation = 1;
            self.table.slots.iter_mut().for_each(|s| *s = [0, 0]);
        }
    }

    /// Calls `hook` every `every` nodes (at least 1) during later solves, with where the
    /// solve stands: for long solves (a CLI's progress line). Replaces any earlier hook.
    pub fn set_progress(&mut self, every: u64, hook: impl FnMut(&Progress) + Send + 'static) {
        let every = every.max(1);
        self.progress = Some(ProgressHook {
            every,
            next: self.stats.nodes.saturating_add(every),
            hook: Box::new(hook),
        });
        self.update_next_event();
    }

    /// Removes the progress hook.
    pub fn clear_progress(&mut self) {
        self.progress = None;
        self.update_next_event();
    }

    fn update_next_event(&mut self) {
        self.next_event = match &self.progress {
            Some(p) => self.limit.min(p.next),
            None => self.limit,
        };
    }

    /// At `next_event`: report progress, and say whether the budget is spent.
    #[cold]
    fn event(&mut self) -> bool {
        if self.stats.nodes >= self.limit {
            self.aborted = true;
            return true;
        }
        let progress = Progress {
            nodes: self.stats.nodes - self.call_start,
            root_done: self.root_done,
            root_moves: self.root_total,
        };
        if let Some(p) = &mut self.progress
            && self.stats.nodes >= p.next
        {
            p.next = self.stats.nodes.saturating_add(p.every);
            (p.hook)(&progress);
        }
        self.update_next_event();
        false
    }

    /// Starts a call (`solve_*`) with a budget of `max_nodes`.
    fn begin(&mut self, max_nodes: u64) {
        self.call_start = self.stats.nodes;
        self.limit = self.stats.nodes.saturating_add(max_nodes);
        self.root_done = 0;
        self.root_total = 0;
        if let Some(p) = &mut self.progress {
            p.next = self.stats.nodes.saturating_add(p.every);
        }
        self.aborted = false;
        self.update_next_event();
    }

    fn prepare(&mut self, variant: Variant) -> &'static Geometry {
        if self.variant != Some(variant) {
            if self.variant.is_some() {
                self.clear();
            }
            self.variant = Some(variant);
        }
        self.table.ensure();
        self.aborted = false;
        Geometry::of(variant)
    }

    /// The exact value of `pos` for the side to move.
    pub fn solve(&mut self, pos: &Quarto) -> Value {
        self.solve_within(pos, u64::MAX).expect("no node limit")
    }

    /// The exact value and every move that achieves it (all moves when the value is a
    /// loss), in [`Game::legal_moves_into`] order.
    pub fn solve_moves(&mut self, pos: &Quarto) -> (Value, Vec<QuartoMove>) {
        self.solve_moves_within(pos, u64::MAX)
            .expect("no node limit")
    }

    /// The exact value and one move that achieves it (`None` when the game is over):
    /// the value-only mode, much cheaper than [`Solver::solve_moves`].
    pub fn solve_best(&mut self, pos: &Quarto) -> (Value, Option<QuartoMove>) {
        self.solve_best_within(pos, u64::MAX)
            .expect("no node limit")
    }

    /// [`Solver::solve`] that gives up (`None`) after `max_nodes` nodes. A search given
    /// up stores nothing, so the table stays exact.
    pub fn solve_within(&mut self, pos: &Quarto, max_nodes: u64) -> Option<Value> {
        // A root proven before is one table probe (counted as a node).
        if let Some(key) = self.root_key(pos)
            && let Some((lo, hi)) = self.table.probe(key.0, key.1)
            && lo == hi
        {
            self.stats.nodes += 1;
            self.stats.tt_probes += 1;
            self.stats.tt_hits += 1;
            return Some(Value::from_score(lo));
        }
        self.solve_best_within(pos, max_nodes).ok().map(|r| r.0)
    }

    /// The table key of a root the table may hold (a piece in hand, game on, enough
    /// empty squares).
    fn root_key(&mut self, pos: &Quarto) -> Option<(u16, u64)> {
        if pos.is_over() || 16 - pos.occupied().count_ones() < TT_MIN_EMPTIES {
            return None;
        }
        let geo = self.prepare(pos.variant());
        Node::from_quarto(pos, geo).map(|n| n.canonical(geo))
    }

    /// [`Solver::solve_best`] within a budget of `max_nodes` nodes for the whole call.
    pub fn solve_best_within(
        &mut self,
        pos: &Quarto,
        max_nodes: u64,
    ) -> Result<(Value, Option<QuartoMove>), BudgetExhausted> {
        self.begin(max_nodes);
        let r = self.root_best(pos);
        self.root_total = 0;
        r.map(|(v, mv)| (Value::from_score(v), mv))
            .ok_or(BudgetExhausted {
                nodes: self.stats.nodes - self.call_start,
            })
    }

    /// [`Solver::solve_moves`] within a node budget for the whole call.
    pub fn solve_moves_within(
        &mut self,
        pos: &Quarto,
        max_nodes: u64,
    ) -> Option<(Value, Vec<QuartoMove>)> {
        self.solve_moves_budget(pos, max_nodes).ok()
    }

    /// [`Solver::solve_moves`] within a budget of `max_nodes` nodes for the whole call,
    /// saying how many nodes were spent when the budget runs out.
    pub fn solve_moves_budget(
        &mut self,
        pos: &Quarto,
        max_nodes: u64,
    ) -> Result<(Value, Vec<QuartoMove>), BudgetExhausted> {
        self.begin(max_nodes);
        let r = self.root_moves(pos);
        self.root_total = 0;
        r.ok_or(BudgetExhausted {
            nodes: self.stats.nodes - self.call_start,
        })
    }

    /// The root's moves, each with its value for the mover when known without a
    /// search (`Some`), best candidates first: wins at once, then moves leaving the
    /// opponent no safe reply, then the searched moves by the fewest safe replies left
    /// to the opponent, then draws by a full board, then gives that hand over a win.
    /// So the value-only mode's move is, among the optimal ones, the first in this
    /// order: the one that leaves an imperfect opponent the fewest safe replies.
    fn root_children(&mut self, pos: &Quarto, geo: &Geometry) -> Vec<RootKid> {
        let moves = pos.legal_moves();
        let mut kids = Vec::with_capacity(moves.len());
        for mv in moves {
            let mut child = *pos;
            child.play_unchecked(mv);
            let kid = match child.outcome() {
                Some(outcome) => {
                    let v = -outcome_value(&child, outcome).score();
                    RootKid {
                        // A win at once first (ends the game now).
                        order: if v == 1 { 0 } else { u32::MAX - 1 },
                        mv,
                        known: Some(v),
                        node: None,
                    }
                }
                None => {
                    let n = Node::from_quarto(&child, geo).expect("a piece in hand");
                    let t = n.threats(geo);
                    if t.all & attr_byte(n.hand) != 0 {
                        RootKid {
                            order: u32::MAX,
                            mv,
                            known: Some(-1),
                            node: None,
                        }
                    } else {
                        let count = n.safe_moves(&t);
                        let known = (count == 0 && n.avail != 0).then_some(1);
                        RootKid {
                            order: if known.is_some() { 1 } else { 2 + count },
                            mv,
                            known,
                            node: Some((n, t)),
                        }
                    }
                }
            };
            kids.push(kid);
        }
        // Stable: ties keep the legal-move order.
        kids.sort_by_key(|k| k.order);
        kids
    }

    /// Value and one best move; `None` if the budget ran out.
    fn root_best(&mut self, pos: &Quarto) -> Option<(i8, Option<QuartoMove>)> {
        if let Some(outcome) = pos.outcome() {
            return Some((outcome_value(pos, outcome).score(), None));
        }
        let geo = self.prepare(pos.variant());
        let kids = self.root_children(pos, geo);
        self.root_total = kids.len() as u32;
        let key = self.root_key(pos);
        // Full window: after the first child the search is null-window anyway, so two
        // null-window tests ("not lost?", then "won?") visit the same nodes (measured).
        let best = self.root_window(&kids, geo, -1, 1)?;
        if let Some((o, m)) = key {
            let empties = (!pos.occupied()).count_ones();
            self.table.store(o, m, best.0, best.0, empties);
        }
        Some(best)
    }

    /// Fail-soft alpha-beta over the root's children within (`alpha`, `beta`).
    fn root_window(
        &mut self,
        kids: &[RootKid],
        geo: &Geometry,
        mut alpha: i8,
        beta: i8,
    ) -> Option<(i8, Option<QuartoMove>)> {
        let mut best = (-2i8, None);
        for (i, kid) in kids.iter().enumerate() {
            self.root_done = i as u32;
            let v = match (kid.known, &kid.node) {
                (Some(v), _) => v,
                (None, Some((n, t))) => {
                    let v = -self.search(n, t, geo, -beta, -alpha);
                    if self.aborted {
                        return None;
                    }
                    v
                }
                (None, None) => unreachable!("a searched child has a node"),
            };
            if v > best.0 {
                best = (v, Some(kid.mv));
                alpha = alpha.max(v);
                if alpha >= beta {
                    break;
                }
            }
        }
        Some(best)
    }

    /// Value and every optimal move; `None` if the budget ran out.
    fn root_moves(&mut self, pos: &Quarto) -> Option<(Value, Vec<QuartoMove>)> {
        let (v, _) = self.root_best(pos)?;
        let value = Value::from_score(v);
        let moves = pos.legal_moves();
        if v == -1 || pos.is_over() {
            return Some((value, moves));
        }
        let geo = self.prepare(pos.variant());
        let kids = self.root_children(pos, geo);
        self.root_total = kids.len() as u32;
        let mut best = Vec::new();
        for (i, kid) in kids.iter().enumerate() {
            self.root_done = i as u32;
            let mover = match (kid.known, &kid.node) {
                (Some(k), _) => k,
                (None, Some((n, t))) => {
                    // Null window: is the child's value at most -v?
                    let r = self.search(n, t, geo, -v, -v + 1);
                    if self.aborted {
                        return None;
                    }
                    if r <= -v { v } else { v - 1 }
                }
                (None, None) => unreachable!("a searched child has a node"),
            };
            if mover >= v {
                best.push(kid.mv);
            }
        }
        // Report in legal-move order.
        best.sort_by_key(|mv| moves.iter().position(|m| m == mv));
        Some((value, best))
    }

    /// Negamax over {-1, 0, 1} with alpha-beta; `t` are the threats of `n`'s board.
    fn search(&mut self, n: &Node, t: &Threats, geo: &Geometry, mut alpha: i8, mut beta: i8) -> i8 {
        if self.stats.nodes >= self.next_event && self.event() {
            return 0;
        }
        self.stats.nodes += 1;
        if t.all & attr_byte(n.hand) != 0 {
            return 1;
        }
        if n.avail == 0 {
            return 0;
        }
        let empties = (!n.occ).count_ones();
        self.stats.nodes_at[empties as usize] += 1;
        let key = match self.probe(n, geo, empties, &mut alpha, &mut beta) {
            ControlFlow::Break(value) => return value,
            ControlFlow::Continue(key) => key,
        };
        let Some(count) = self.expand(n, t, geo, empties) else {
            // A child leaves the opponent no safe reply: it must hand us a winning piece.
            if let Some((o, m)) = key {
                self.table.store(o, m, 1, 1, empties);
            }
            return 1;
        };
        if count == 0 {
            return -1;
        }
        if empties == 4 && alpha >= 0 {
            // No child strangles the opponent (that returned a win above), so each
            // leaves it a safe reply, after which we place the second-last piece and it
            // places the last: we cannot win, and only a win would matter here.
            return 0;
        }
        if empties == 3 {
            // Every child leaves one piece and two squares: the opponent, short of a safe
            // reply, would have lost (returned above); otherwise it draws.
            return 0;
        }
        let e = empties as usize;
        if empties >= ORDER_MIN_EMPTIES {
            self.frames[e].kids[..count].sort_unstable();
        }
        let Some(best) = self.search_children(e, count, geo, alpha, beta) else {
            return 0;
        };
        if let Some((o, m)) = key {
            let (lo, hi) = if best <= alpha {
                (-1, best)
            } else if best >= beta {
                (best, 1)
            } else {
                (best, best)
            };
            self.table.store(o, m, lo, hi, empties);
        }
        best
    }

    /// The table's word on `n` (with `empties` empty squares): its value where the
    /// bounds stored settle it, otherwise the window narrowed by them and the key to
    /// store the result under (none below [`TT_MIN_EMPTIES`]).
    #[inline(always)]
    fn probe(
        &mut self,
        n: &Node,
        geo: &Geometry,
        empties: u32,
        alpha: &mut i8,
        beta: &mut i8,
    ) -> ControlFlow<i8, Option<(u16, u64)>> {
        if empties < TT_MIN_EMPTIES {
            return ControlFlow::Continue(None);
        }
        let (o, m) = n.canonical(geo);
        self.stats.tt_probes += 1;
        if let Some((lo, hi)) = self.table.probe(o, m) {
            self.stats.tt_hits += 1;
            if lo >= *beta || lo == hi {
                return ControlFlow::Break(lo);
            }
            if hi <= *alpha {
                return ControlFlow::Break(hi);
            }
            *alpha = (*alpha).max(lo);
            *beta = (*beta).min(hi);
        }
        ControlFlow::Continue(Some((o, m)))
    }

    /// Fills this depth's scratch frame (deeper calls use lower ones: no zeroing per
    /// node) with `n`'s safe children, packed by their Strangler count from
    /// [`ORDER_MIN_EMPTIES`] on, and says how many; `None` when one of them leaves the
    /// opponent no safe reply with pieces left (a win without a search). At 3 empty
    /// squares (a leaf, see [`Solver::search`]) the children are only counted: only
    /// "is some child left without a safe reply" matters, and one safe reply settles a
    /// child.
    #[inline(always)]
    fn expand(&mut self, n: &Node, t: &Threats, geo: &Geometry, empties: u32) -> Option<usize> {
        let frame = &mut self.frames[empties as usize];
        let order = empties >= ORDER_MIN_EMPTIES;
        let mut count = 0;
        let mut empty = !n.occ;
        while empty != 0 {
            let s = empty.trailing_zeros() as usize;
            empty &= empty - 1;
            let mut safe = n.avail & SAFE[usize::from(t.after(s, n.hand))];
            if safe == 0 {
                continue;
            }
            let b = &mut frame.boards[s];
            *b = *n;
            b.place(s, n.hand, geo);
            frame.threats[s] = b.threats(geo);
            let t2 = &frame.threats[s];
            if empties == 3 {
                while safe != 0 {
                    let g = safe.trailing_zeros() as u8;
                    safe &= safe - 1;
                    if !n.has_safe_reply(s, g, t2) {
                        return None;
                    }
                    count += 1;
                }
                continue;
            }
            while safe != 0 {
                let g = safe.trailing_zeros() as u8;
                safe &= safe - 1;
                let score: u16 = if order {
                    n.safe_replies(s, g, t2) as u16
                } else {
                    u16::from(n.has_safe_reply(s, g, t2))
                };
                if score == 0 && n.avail & !(1 << g) != 0 {
                    return None;
                }
                frame.kids[count] = score << 8 | (s as u16) << 4 | u16::from(g);
                count += 1;
            }
        }
        Some(count)
    }

    /// Searches the first `count` children in the frame at `e` empty squares, in their
    /// order, within (`alpha`, `beta`): the best value (-1 when all lose), or `None`
    /// once the budget is spent.
    #[inline(always)]
    fn search_children(
        &mut self,
        e: usize,
        count: usize,
        geo: &Geometry,
        mut alpha: i8,
        beta: i8,
    ) -> Option<i8> {
        let mut best = -1;
        for i in 0..count {
            let frame = &self.frames[e];
            let k = frame.kids[i];
            let (s, g) = (usize::from(k >> 4 & 15), (k & 15) as u8);
            let mut c = frame.boards[s];
            c.avail &= !(1 << g);
            c.hand = g;
            let tc = frame.threats[s];
            let v = -self.search(&c, &tc, geo, -beta, -alpha);
            if self.aborted {
                return None;
            }
            if raise(v, &mut best, &mut alpha, beta) {
                break;
            }
        }
        Some(best)
    }
}

/// A root move: its ordering key, the move, its value for the mover when known
/// without a search, and otherwise the child to search with its threats.
struct RootKid {
    order: u32,
    mv: QuartoMove,
    known: Option<i8>,
    node: Option<(Node, Threats)>,
}

fn outcome_value(pos: &Quarto, outcome: Outcome) -> Value {
    match outcome {
        Outcome::Draw => Value::Draw,
        Outcome::Winner(w) if w == pos.to_move() => Value::Win,
        Outcome::Winner(_) => Value::Loss,
    }
}

/// The exact value of `pos` with a fresh 2^20-entry solver.
pub fn solve(pos: &Quarto) -> Value {
    Solver::with_table_bits(20).solve(pos)
}

/// The exact value and one optimal move (value-only mode), with a fresh 2^20-entry
/// solver.
pub fn solve_best(pos: &Quarto) -> (Value, Option<QuartoMove>) {
    Solver::with_table_bits(20).solve_best(pos)
}

/// The exact value and every move achieving it, with a fresh 2^20-entry solver.
pub fn solve_moves(pos: &Quarto) -> (Value, Vec<QuartoMove>) {
    Solver::with_table_bits(20).solve_moves(pos)
}
