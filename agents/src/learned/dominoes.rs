//! The learned Dominoes evaluator: features of the position a placement leads to, seen
//! by the player who placed, and the placement of highest predicted winning chance that
//! `learned` and `tc-server` ([`super::Learned`]) play; also as a rollout policy
//! ([`LearnedPolicy`]).

use arena_core::Seat;
use arena_core::dominoes::{
    Case, Deal, DominoMove, DominoView, Dominoes, End, Event, PIP_MASKS, Tile,
};

use super::weights::{Evaluator, GameKind, Weights, WeightsError};
use super::{Learnable, default_weights};

/// The feature names, in input order. All are computed for the position right after the
/// mover's placement (the opponent to move), from the mover's point of view.
pub const FEATURES: &[&str] = &[
    "my_tiles",          // tiles left in my hand
    "opp_tiles",         // tiles in the opponent's hand
    "tile_diff",         // my_tiles - opp_tiles
    "stock",             // tiles in the stock
    "stock_empty",       // 1 if the stock is empty
    "my_pips",           // pip sum of my hand
    "my_pips_per_tile",  // my_pips / my_tiles
    "opp_pips_expected", // opp_tiles x the mean pips of unseen tiles
    "pip_margin",        // opp_pips_expected - my_pips (what decides a block)
    "my_fits",           // my tiles that fit an open end
    "my_fit_ends",       // open ends (0..2) I can play on
    "my_control",        // sum over ends of (my tiles showing it / tiles showing it not yet played)
    "dead_ends",         // ends whose number has no tile left outside the line
    "unseen_fit",        // unseen tiles (opponent's or stock) that fit an open end
    "opp_void_ends",     // open ends the opponent is known to be void in (draws, passes)
    "opp_voids",         // numbers the opponent is known to be void in
    "p_opp_stuck",       // chance the opponent holds no fitting tile (hypergeometric, voids used)
    "p_opp_pass",        // p_opp_stuck if the stock is empty (the opponent must pass)
    "p_opp_draw",        // p_opp_stuck if the stock is not empty (the opponent must draw)
    "my_voids_known",    // numbers the opponent knows I am void in
    "double_ends",       // 1 if both ends show the same number
    "my_doubles",        // doubles in my hand
    "my_numbers",        // distinct numbers in my hand
    "my_max_per_number", // the most tiles of my hand showing one number
    "my_last_fits",      // 1 if I hold one tile and it fits an end
    "opp_last",          // 1 if the opponent holds one tile
    "opp_last_can",      // opp_last x (1 - p_opp_stuck)
    "n",                 // numbers per half (case N)
    "line_len",          // tiles in the line
];

/// `FEATURES.len()`.
pub const FEATURE_COUNT: usize = 29;

const _: () = assert!(FEATURES.len() == FEATURE_COUNT);

/// What a decision shares across its candidate moves: the public record digested.
pub(crate) struct Context {
    n: u8,
    hand: u64,
    hand_len: usize,
    line: u64,
    unseen: u64,
    stock: usize,
    opp: usize,
    opp_voids: u16,
    my_voids: u16,
    line_len: usize,
}

fn number_bit(x: u8) -> u16 {
    1 << x
}

/// The numbers each seat is known to be void in, from the public history: a draw
/// happens only with nothing fitting either end, and the draws that follow end with the
/// drawn tile placed (or a pass), so after a draw the hand is void in exactly the two
/// end numbers of that moment; a pass adds the ends to the known voids; a placement
/// removes a tile and keeps them.
pub(crate) fn known_voids(history: &[Event]) -> [u16; 2] {
    let mut voids = [0u16; 2];
    let (mut l, mut r) = (0u8, 0u8);
    for e in history {
        match *e {
            Event::Start { tile, .. } => {
                l = tile.lo();
                r = tile.hi();
            }
            Event::Place { tile, end, .. } => match end {
                End::Left => l = tile.left,
                End::Right => r = tile.right,
            },
            Event::Draw { seat } => voids[seat.index()] = number_bit(l) | number_bit(r),
            Event::Pass { seat } => voids[seat.index()] |= number_bit(l) | number_bit(r),
        }
    }
    voids
}

impl Context {
    pub(crate) fn of(view: &DominoView<'_>) -> Context {
        let voids = known_voids(view.history());
        let seat: Seat = view.seat();
        let line = view
            .line()
            .tiles()
            .iter()
            .fold(0u64, |m, t| m | t.tile().bit());
        Context {
            n: view.case().n(),
            hand: view.hand().iter().fold(0u64, |m, t| m | t.bit()),
            hand_len: view.hand().len(),
            line,
            unseen: view.unseen(),
            stock: view.stock(),
            opp: view.opponent_hand_len(),
            opp_voids: voids[seat.other().index()],
            my_voids: voids[seat.index()],
            line_len: view.line().len(),
        }
    }

    /// The record seen by the player to move in a rollout position: its hand, the line,
    /// the stock size, the other's hand size and both seats' public voids.
    pub(crate) fn of_masks(
        n: u8,
        hand: u64,
        line: u64,
        stock: usize,
        opp: usize,
        voids: (u16, u16),
    ) -> Context {
        let all = (1u64 << arena_core::dominoes::set_size(n)) - 1;
        Context {
            n,
            hand,
            hand_len: hand.count_ones() as usize,
            line,
            unseen: all & !line & !hand,
            stock,
            opp,
            my_voids: voids.0,
            opp_voids: voids.1,
            line_len: line.count_ones() as usize,
        }
    }

    /// The features after placing `tile` so that the ends become `l`, `r`.
    pub(crate) fn features(&self, tile: Tile, l: u8, r: u8, out: &mut Vec<f64>) {
        out.clear();
        out.extend(self.feature_array(tile, l, r));
    }

    /// [`Context::features`] without allocating.
    pub(crate) fn feature_array(&self, tile: Tile, l: u8, r: u8) -> [f64; FEATURE_COUNT] {
        let hand = self.hand & !tile.bit();
        let line = self.line | tile.bit();
        let h = self.hand_len - 1;
        let k = self.opp;
        let s = self.stock;
        let ends = PIP_MASKS[l as usize] | PIP_MASKS[r as usize];
        // The set bits only: this runs for every candidate of every rollout decision.
        let tiles = |mut mask: u64| {
            std::iter::from_fn(move || {
                (mask != 0).then(|| {
                    let i = mask.trailing_zeros() as u8;
                    mask &= mask - 1;
                    Tile::from_index(i)
                })
            })
        };
        let my_pips: u32 = tiles(hand).map(Tile::pips).sum();
        let unseen_n = self.unseen.count_ones();
        let unseen_pips: u32 = tiles(self.unseen).map(Tile::pips).sum();
        let opp_pips = if unseen_n == 0 {
            0.0
        } else {
            k as f64 * f64::from(unseen_pips) / f64::from(unseen_n)
        };
        let my_fits = (hand & ends).count_ones();
        let fit_l = u32::from(hand & PIP_MASKS[l as usize] != 0);
        let fit_r = u32::from(hand & PIP_MASKS[r as usize] != 0);
        let control = |x: u8| {
            let rest = (PIP_MASKS[x as usize] & !line).count_ones();
            if rest == 0 {
                0.0
            } else {
                f64::from((PIP_MASKS[x as usize] & hand).count_ones()) / f64::from(rest)
            }
        };
        let dead = |x: u8| u32::from(PIP_MASKS[x as usize] & !line == 0);
        let unseen_fit = (self.unseen & ends).count_ones();
        let void_l = u32::from(self.opp_voids & number_bit(l) != 0);
        let void_r = u32::from(self.opp_voids & number_bit(r) != 0);
        // The opponent's hand is drawn from the unseen tiles showing none of its voids.
        let void_tiles = (0..self.n)
            .filter(|&x| self.opp_voids & number_bit(x) != 0)
            .fold(0u64, |m, x| m | PIP_MASKS[x as usize]);
        let mut pool = self.unseen & !void_tiles;
        if (pool.count_ones() as usize) < k {
            pool = self.unseen;
        }
        let pool_n = pool.count_ones() as usize;
        let fitting = (pool & ends).count_ones() as usize;
        let mut p_stuck = 1.0;
        for i in 0..k {
            if pool_n - i == 0 || pool_n < fitting + i + 1 {
                p_stuck = 0.0;
                break;
            }
            p_stuck *= (pool_n - fitting - i) as f64 / (pool_n - i) as f64;
        }
        let mut per_number = [0u32; 9];
        for t in tiles(hand) {
            per_number[t.lo() as usize] += 1;
            if !t.is_double() {
                per_number[t.hi() as usize] += 1;
            }
        }
        let empty = f64::from(u8::from(s == 0));
        [
            h as f64,
            k as f64,
            h as f64 - k as f64,
            s as f64,
            empty,
            f64::from(my_pips),
            if h == 0 {
                0.0
            } else {
                f64::from(my_pips) / h as f64
            },
            opp_pips,
            opp_pips - f64::from(my_pips),
            f64::from(my_fits),
            f64::from(fit_l + fit_r),
            control(l) + if l == r { 0.0 } else { control(r) },
            f64::from(dead(l) + if l == r { 0 } else { dead(r) }),
            f64::from(unseen_fit),
            f64::from(void_l + void_r),
            f64::from(self.opp_voids.count_ones()),
            p_stuck,
            p_stuck * empty,
            p_stuck * (1.0 - empty),
            f64::from(self.my_voids.count_ones()),
            f64::from(u8::from(l == r)),
            tiles(hand).filter(|t| t.is_double()).count() as f64,
            per_number.iter().filter(|&&c| c > 0).count() as f64,
            f64::from(*per_number.iter().max().expect("nine numbers")),
            f64::from(u8::from(h == 1 && my_fits > 0)),
            f64::from(u8::from(k == 1)),
            if k == 1 { 1.0 - p_stuck } else { 0.0 },
            f64::from(self.n),
            (self.line_len + 1) as f64,
        ]
    }
}

/// The ends after `mv` (a placement) in `view`, and the tile placed.
fn after(view: &DominoView<'_>, mv: DominoMove) -> Option<(Tile, u8, u8)> {
    let DominoMove::Place { end, index } = mv else {
        return None;
    };
    let t = view.hand()[index as usize];
    let (l, r) = (view.line().left(), view.line().right());
    Some(match end {
        End::Left => (t, t.other_half(l), r),
        End::Right => (t, l, t.other_half(r)),
    })
}

impl Learnable for Dominoes {
    const KIND: GameKind = GameKind::Dominoes;
    const FEATURES: &'static [&'static str] = FEATURES;
    const DEFAULT_WEIGHTS: (&'static str, &'static str) = (
        include_str!("../../weights/dominoes-v1.json"),
        "agents/weights/dominoes-v1.json (built in)",
    );

    fn training_cases() -> Vec<Case> {
        Case::all().collect()
    }

    fn training_start(case: Case, master: u64, index: u32) -> Dominoes {
        Dominoes::new(&Deal::seeded(case, master, index))
    }

    /// Each placement is scored by the predicted chance of winning of the position it
    /// leads to (placing the last tile wins at once). `DRAW` and `PASS` are only legal
    /// when nothing can be placed, so they are never compared: the single legal move is
    /// played without evaluation.
    fn best_move(view: &DominoView<'_>, eval: &mut Evaluator, buf: &mut Vec<f64>) -> DominoMove {
        let moves = view.legal_moves();
        let ctx = Context::of(view);
        let mut best: Option<(DominoMove, f64)> = None;
        for &mv in &moves {
            let Some((t, l, r)) = after(view, mv) else {
                return mv;
            };
            ctx.features(t, l, r, buf);
            // Placing the last tile wins (D12): above any prediction, which is below 1.
            let v = if view.hand().len() == 1 {
                2.0
            } else {
                eval.value(buf)
            };
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((mv, v));
            }
        }
        best.expect("a placement").0
    }

    fn features_of(view: &DominoView<'_>, mv: DominoMove, out: &mut Vec<f64>) -> bool {
        out.clear();
        match after(view, mv) {
            Some((t, l, r)) => {
                Context::of(view).features(t, l, r, out);
                true
            }
            None => false,
        }
    }
}

/// The learned evaluator as a rollout policy and opponent model: on any position it
/// picks what [`super::LearnedDominoes`] would (the same features and arithmetic, so the same
/// values), from tile masks instead of a view. Shared by reference across worlds.
#[derive(Clone, Debug)]
pub struct LearnedPolicy {
    name: String,
    eval: Evaluator,
}

impl PartialEq for LearnedPolicy {
    /// Policies are named after their weights: the built-in ones or a file.
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl LearnedPolicy {
    /// The built-in weights, under `name` (`tc-server` or `learned`).
    pub fn built_in(name: &str) -> LearnedPolicy {
        LearnedPolicy {
            name: name.to_owned(),
            eval: default_weights::<Dominoes>().evaluator(),
        }
    }

    /// The weights in `path`, named `learned:weights=<path>`.
    pub fn from_file(path: &std::path::Path) -> Result<LearnedPolicy, WeightsError> {
        let w = Weights::load(path, GameKind::Dominoes, FEATURES)?;
        Ok(LearnedPolicy {
            name: format!("learned:weights={}", path.display()),
            eval: w.evaluator(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The predicted chance of winning after placing `tile` so the ends become `(l, r)`,
    /// for the player whose record is `ctx`; placing the last tile rates 2 (D12).
    pub(crate) fn value(&self, ctx: &Context, tile: Tile, l: u8, r: u8) -> f64 {
        if ctx.hand_len == 1 {
            return 2.0;
        }
        self.eval.value_of(&ctx.feature_array(tile, l, r))
    }
}
