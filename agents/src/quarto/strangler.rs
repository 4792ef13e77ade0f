//! The Strangler: a midgame alpha-beta search whose evaluation is the side to move's
//! number of safe (square, give) pairs (starve the opponent of them), handing over to
//! the exact [`Solver`] once a solve fits the move's node budget.
//!
//! Budgets are node counts, so play is deterministic: `nodes` for the midgame search,
//! `solve` for the exact solver, which is tried from `exact` empty squares down; a solve
//! that runs out of nodes falls back to the midgame search.
//!
//! Spec options (`strangler:nodes=200000,solve=3000000,exact=12,depth=6,tt=20`):
//! * `nodes`: midgame search nodes per move;
//! * `solve`: exact-solver nodes per move;
//! * `exact`: try the exact solver at this many empty squares or fewer;
//! * `depth`: the midgame search's deepest iteration;
//! * `tt`: log2 of the solver's table entries (16 bytes each);
//! * `book`: `true` (default, but `false` for the `solver` agent) to play the shipped
//!   opening book's exact move where it has the position (`agents/books/`).

use arena_core::quarto::{Quarto, QuartoMove};
use arena_core::rng::below;
use arena_core::{Agent, AgentError, Game};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use super::solver::{Geometry, Node, SAFE, Solver, Value, attr_byte, raise};
use crate::spec::{Spec, SpecError};

/// Budgets and thresholds of [`Strangler`] and [`SolverAgent`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StranglerConfig {
    /// Midgame search nodes per move (0: no midgame search, play a random safe move).
    pub nodes: u64,
    /// Exact-solver nodes per move.
    pub solve: u64,
    /// Try the exact solver at this many empty squares or fewer.
    pub exact: u32,
    /// The deepest midgame iteration.
    pub depth: u32,
    /// log2 of the solver's table entries.
    pub tt_bits: u32,
    /// Play the shipped opening book's move where it has the position (exact, near
    /// the empty board where a solve does not fit the budget).
    pub book: bool,
}

impl Default for StranglerConfig {
    /// Measured on random safe-play positions (value-only mode): the solver needs
    /// ~0.1-1.5 M nodes at 12 empty squares, a few M at 13 and 24-50 M at 14, at
    /// 1-3 M nodes/s on the 2-core test machine. So it is tried from 13 with 12 M nodes,
    /// a few seconds at worst: inside the default 10 s per-call cap. Beyond that (the
    /// first three placements of each side) the midgame heuristic plays.
    fn default() -> StranglerConfig {
        StranglerConfig {
            nodes: 200_000,
            solve: 12_000_000,
            exact: 13,
            depth: 8,
            tt_bits: 20,
            book: true,
        }
    }
}

impl StranglerConfig {
    /// The `solver` agent: exact when a solve fits, otherwise a random safe move.
    pub fn solver() -> StranglerConfig {
        StranglerConfig {
            nodes: 0,
            book: false,
            ..StranglerConfig::default()
        }
    }

    const OPTIONS: [&'static str; 6] = ["nodes", "solve", "exact", "depth", "tt", "book"];

    /// `defaults` with the spec's options applied.
    pub fn from_spec(spec: &Spec, defaults: StranglerConfig) -> Result<StranglerConfig, SpecError> {
        spec.expect_options(&StranglerConfig::OPTIONS)?;
        let config = StranglerConfig {
            nodes: spec.option("nodes", defaults.nodes)?,
            solve: spec.option("solve", defaults.solve)?,
            exact: spec.option("exact", defaults.exact)?,
            depth: spec.option("depth", defaults.depth)?,
            tt_bits: spec.option("tt", defaults.tt_bits)?,
            book: spec.option("book", defaults.book)?,
        };
        if !(10..=28).contains(&config.tt_bits) {
            return Err(SpecError::BadValue {
                name: spec.name().to_owned(),
                option: "tt".into(),
                value: config.tt_bits.to_string(),
                reason: "expected 10..=28".into(),
            });
        }
        Ok(config)
    }
}

const WIN: i32 = 100_000;

/// The depth-limited midgame search, in node-counted units.
struct Midgame {
    nodes: u64,
    limit: u64,
    aborted: bool,
}

/// One child: (Strangler count, square, give).
type Kid = (u32, u8, u8);

impl Midgame {
    /// Score for the side to move: wins `WIN + empties left` (sooner is larger),
    /// otherwise the mover's number of safe (square, give) pairs at the horizon.
    fn search(&mut self, n: &Node, geo: &Geometry, depth: u32, mut alpha: i32, beta: i32) -> i32 {
        if self.nodes >= self.limit {
            self.aborted = true;
            return 0;
        }
        self.nodes += 1;
        let e = (!n.occ).count_ones() as i32;
        let t = n.threats(geo);
        if t.all & attr_byte(n.hand) != 0 {
            return WIN + e - 1;
        }
        if n.avail == 0 {
            return 0;
        }
        if depth == 0 {
            let count = n.safe_moves(&t);
            return if count == 0 {
                -(WIN + e - 2)
            } else {
                count as i32
            };
        }
        let mut kids: [Kid; 240] = [(0, 0, 0); 240];
        let mut nk = 0;
        let mut m = !n.occ;
        while m != 0 {
            let s = m.trailing_zeros() as usize;
            m &= m - 1;
            let mut safe = n.avail & SAFE[usize::from(t.after(s, n.hand))];
            if safe == 0 {
                continue;
            }
            let mut b = *n;
            b.place(s, n.hand, geo);
            let t2 = b.threats(geo);
            while safe != 0 {
                let g = safe.trailing_zeros() as u8;
                safe &= safe - 1;
                let c = n.safe_replies(s, g, &t2);
                if c == 0 && n.avail & !(1 << g) != 0 {
                    return WIN + e - 3;
                }
                kids[nk] = (c, s as u8, g);
                nk += 1;
            }
        }
        if nk == 0 {
            return -(WIN + e - 2);
        }
        let kids = &mut kids[..nk];
        if depth == 1 {
            return -(kids.iter().map(|k| k.0).min().expect("a kid") as i32);
        }
        kids.sort_unstable_by_key(|k| k.0);
        let mut best = -WIN * 2;
        for &(_, s, g) in kids.iter() {
            let c = n.child(usize::from(s), g, geo);
            let v = -self.search(&c, geo, depth - 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            if raise(v, &mut best, &mut alpha, beta) {
                break;
            }
        }
        best
    }
}

/// The opponent's number of safe replies after `mv`, or `None` if `mv` ends the game or
/// hands over a win.
fn strangle_count(pos: &Quarto, mv: QuartoMove) -> Option<u32> {
    let mut next = *pos;
    next.play_unchecked(mv);
    if next.is_over() {
        return None;
    }
    let geo = Geometry::of(pos.variant());
    let n = Node::from_quarto(&next, geo)?;
    let t = n.threats(geo);
    if t.all & attr_byte(n.hand) != 0 {
        return None;
    }
    Some(n.safe_moves(&t))
}

/// The midgame player with the exact endgame: the strongest built-in (`best`).
pub struct Strangler {
    config: StranglerConfig,
    rng: ChaCha8Rng,
    solver: Solver,
    moves: Vec<QuartoMove>,
    last_nodes: u64,
}

/// The `solver` agent: exact play when a solve fits the budget, otherwise a random
/// safe move (as `greedy`).
pub struct SolverAgent(Strangler);

impl SolverAgent {
    pub fn new(config: StranglerConfig, seed: u64) -> SolverAgent {
        SolverAgent(Strangler::new(StranglerConfig { nodes: 0, ..config }, seed))
    }

    /// Nodes (solver and midgame) spent on the last move.
    pub fn last_move_nodes(&self) -> u64 {
        self.0.last_move_nodes()
    }
}

impl Agent<Quarto> for SolverAgent {
    fn reset(&mut self, start: &&Quarto) -> Result<(), AgentError> {
        self.0.reset(start)
    }

    fn play(&mut self, view: &&Quarto) -> Result<QuartoMove, AgentError> {
        self.0.play(view)
    }
}

impl Strangler {
    pub fn new(config: StranglerConfig, seed: u64) -> Strangler {
        Strangler {
            config,
            rng: ChaCha8Rng::seed_from_u64(seed),
            solver: Solver::with_table_bits(config.tt_bits),
            moves: Vec::new(),
            last_nodes: 0,
        }
    }

    /// Nodes (solver and midgame) spent on the last move; at most `solve + nodes`.
    pub fn last_move_nodes(&self) -> u64 {
        self.last_nodes
    }

    /// A uniform pick among the items with the smallest key.
    fn pick_min<T: Copy>(&mut self, items: &[(i64, T)]) -> T {
        let min = items.iter().map(|i| i.0).min().expect("an item");
        let ties: Vec<T> = items.iter().filter(|i| i.0 == min).map(|i| i.1).collect();
        ties[below(&mut self.rng, ties.len() as u32) as usize]
    }

    /// The move to play in `pos`, which must be in progress.
    pub fn choose(&mut self, pos: &Quarto) -> QuartoMove {
        self.last_nodes = 0;
        pos.legal_moves_into(&mut self.moves);
        let moves = std::mem::take(&mut self.moves);
        let mv = self.choose_from(pos, &moves);
        self.moves = moves;
        mv
    }

    fn choose_from(&mut self, pos: &Quarto, moves: &[QuartoMove]) -> QuartoMove {
        if pos.in_hand().is_none() {
            // The opening give: every give is equivalent under the piece symmetries.
            return moves[below(&mut self.rng, moves.len() as u32) as usize];
        }
        if self.config.book
            && let Some((value, mv)) =
                super::book::shipped(pos.variant()).and_then(|b| b.lookup(pos))
            && value != Value::Loss
        {
            return mv;
        }
        let empties = 16 - pos.occupied().count_ones();
        if empties <= self.config.exact {
            let before = self.solver.stats().nodes;
            // The value-only mode: its move is optimal and, among the optimal moves,
            // leaves the opponent the fewest safe replies.
            let solved = self.solver.solve_best_within(pos, self.config.solve);
            self.last_nodes += self.solver.stats().nodes - before;
            // When lost anyway, the midgame search picks the hardest line to find.
            if let Ok((value, Some(best))) = solved
                && value != Value::Loss
            {
                return best;
            }
        }
        if self.config.nodes == 0 {
            return self.safe_random(pos, moves);
        }
        self.midgame(pos, moves)
    }

    fn safe_random(&mut self, pos: &Quarto, moves: &[QuartoMove]) -> QuartoMove {
        let scored: Vec<(i64, QuartoMove)> = moves
            .iter()
            .map(|&mv| {
                let mut next = *pos;
                next.play_unchecked(mv);
                let key = if next.outcome() == Some(arena_core::Outcome::Winner(pos.to_move())) {
                    0
                } else if super::suite::hands_over_a_win(pos, mv) {
                    2
                } else {
                    1
                };
                (key, mv)
            })
            .collect();
        self.pick_min(&scored)
    }

    /// Iterative deepening over the root moves within `nodes`; the last finished
    /// iteration decides.
    fn midgame(&mut self, pos: &Quarto, moves: &[QuartoMove]) -> QuartoMove {
        let geo = Geometry::of(pos.variant());
        let e = (16 - pos.occupied().count_ones()) as i32;
        // Root scores at depth 1 (exact for wins, unsafe gives and the last piece).
        let mut scored: Vec<(i64, QuartoMove)> = Vec::with_capacity(moves.len());
        for &mv in moves {
            let mut next = *pos;
            next.play_unchecked(mv);
            let score = match next.outcome() {
                Some(arena_core::Outcome::Winner(_)) => return mv,
                Some(arena_core::Outcome::Draw) => 0,
                None => {
                    let n = Node::from_quarto(&next, geo).expect("hand");
                    let t = n.threats(geo);
                    if t.all & attr_byte(n.hand) != 0 {
                        -i64::from(WIN + e - 2)
                    } else {
                        -i64::from(strangle_count(pos, mv).expect("safe"))
                    }
                }
            };
            scored.push((score, mv));
        }
        let mut search = Midgame {
            nodes: 0,
            limit: self.config.nodes,
            aborted: false,
        };
        let mut depth = 2;
        while depth <= self.config.depth {
            // Best first from the previous iteration.
            scored.sort_by_key(|s| std::cmp::Reverse(s.0));
            let mut next_scores = scored.clone();
            let mut best = i64::MIN;
            for (score, mv) in next_scores.iter_mut() {
                if score.unsigned_abs() >= WIN as u64 {
                    continue; // decided already
                }
                let mut child = *pos;
                child.play_unchecked(*mv);
                let n = Node::from_quarto(&child, geo).expect("hand");
                let alpha =
                    best.saturating_sub(1)
                        .clamp(-i64::from(3 * WIN), i64::from(3 * WIN)) as i32;
                let v = -search.search(&n, geo, depth - 1, -3 * WIN, -alpha);
                if search.aborted {
                    break;
                }
                *score = i64::from(v);
                best = best.max(*score);
            }
            if search.aborted {
                break;
            }
            scored = next_scores;
            if scored.iter().any(|s| s.0 >= i64::from(WIN)) {
                break;
            }
            depth += 1;
        }
        self.last_nodes += search.nodes;
        let negated: Vec<(i64, QuartoMove)> = scored.iter().map(|&(s, m)| (-s, m)).collect();
        self.pick_min(&negated)
    }
}

impl Agent<Quarto> for Strangler {
    fn reset(&mut self, _start: &&Quarto) -> Result<(), AgentError> {
        // A new game starts from an empty table, so play depends only on this game.
        self.solver.clear();
        Ok(())
    }

    fn play(&mut self, view: &&Quarto) -> Result<QuartoMove, AgentError> {
        Ok(self.choose(view))
    }
}
