//! Dust matching by [`super::SlackIda`]'s search (IDA* that counts its slack, the
//! same bound), with two prunings from [`super::cone`], both sound:
//!
//! - **Zero slack.** A child with no slack left (a move that does not clear its
//!   colour, from slack one) can only be cleared by one click per colour, each
//!   clearing a colour. On a settled board, [`may_clear_colour_by_colour`] proves from
//!   the parent's clusters alone, for most such moves, that no order of the colours
//!   can do it; those children are never made (about nine in ten of them on random
//!   boards; most fail its first round, checked first and cheaply). At slack zero only
//!   moves that clear a colour are tried, and only those clusters are enumerated.
//! - **Commuting moves.** A move inside columns 5..=7 and a next move inside the left
//!   half commute (same board after both orders, both legal in both), so after a move
//!   inside columns 5..=7, moves inside the left half are not tried: the other order
//!   is searched from the parent. Since what a board's search tries then depends on how
//!   it was reached, the transposition table keeps a board's refutations per context
//!   (every move tried, or left-half moves left out); one with every move tried holds
//!   in both.
//!
//! Otherwise the search is `SlackIda`'s: larger clusters first, colour-clearing moves
//! before them; a transposition table ([`super::table`]) from five moves left up.
//! Before each iteration after the first few, a beam ([`super::beam`]) looks for an
//! answer within the iteration's bound: once every shorter answer is refuted, one it
//! finds is optimal, and the last iteration (often the costliest) is not searched.
//! The beam's boards count as nodes.

use arena_core::puzzle::dust::{Answer, Board, CELLS, Dust, Move};

use super::super::{Solved, Solver};
use super::beam::{Beam, isolated};
use super::bits::Planes;
use super::cone::{
    Cluster, Clusters, FAR_RIGHT, LEFT_HALF, is_settled, may_clear_colour_by_colour,
};
use super::slack::{colour_sets, flood, lower_bound};
use super::table::{CONTEXTS, RefutationTable};
use super::{Deepening, Outcome, Walk, deepen, to_move};

/// The exact solver: proves the fewest moves.
#[derive(Default)]
pub struct ConeIda {
    /// Board -> the most moves proven not to clear it, per context.
    refuted: RefutationTable,
    walk: Walk,
    /// The nodes of the last iteration searched (the beam's widths follow them).
    last_iteration: u64,
    /// The beam of this solve ([`super::beam`]).
    beam: Beam,
}

/// The fewest moves left at which boards go in the transposition table (below it, a
/// lookup, a cache miss in a large table, costs more than the subtree it could save).
const TABLE_DEPTH: u32 = 5;

/// Search contexts (what the move that led here allows to skip, [`super::cone`],
/// commuting moves), and the moves skipped in each: none; after a move inside columns
/// 5..=7, moves inside the left half. Each tries a subset of the moves of the one
/// before. (The mirrored pair, skipping moves inside columns 0..=2 after a right-half
/// move, is sound too but was not kept: it changes which answer the last iteration
/// meets first, and on seeds 0..12 it cost up to half as many nodes again as it saved.)
const EVERY_MOVE: usize = 0;
const AFTER_FAR_RIGHT: usize = 1;
const SKIPPED_AFTER: [u64; CONTEXTS] = [0, LEFT_HALF];

/// Per colour of a board (index 1..=5): its cells with no neighbour of their colour
/// (each a cluster of its own), the cluster of its lowest cell where that is known, and
/// (bit per colour) whether it is one cluster, which gives the bound
/// (`slack::lower_bound`). A colour with an isolated cell is one cluster only if it is
/// that cell: no flood needed.
struct Shapes {
    lone: [u64; 6],
    first: [u64; 6],
    single: u32,
}

impl Shapes {
    #[inline]
    fn of(sets: &[u64; 6]) -> Shapes {
        let mut shapes = Shapes {
            lone: [0; 6],
            first: [0; 6],
            single: 0,
        };
        for (c, &cells) in sets.iter().enumerate().skip(1) {
            if cells == 0 {
                continue;
            }
            let iso = isolated(cells);
            let lowest = cells & cells.wrapping_neg();
            shapes.lone[c] = iso;
            if iso == 0 {
                shapes.first[c] = flood(lowest, cells);
            } else if iso & lowest != 0 {
                shapes.first[c] = lowest;
            }
            shapes.single |= u32::from(shapes.first[c] == cells) << c;
        }
        shapes
    }
}

/// The clusters a search tries, colour by colour, each colour's lowest cell's first;
/// with no slack, only the colours that are one cluster (no other move is tried).
/// Returns them in the first `count` entries.
#[inline]
fn clusters_to_try(sets: &[u64; 6], shapes: &Shapes, slack: u32) -> ([Cluster; CELLS], usize) {
    let mut clusters = [Cluster::default(); CELLS];
    let mut count = 0;
    for (colour, &cells) in (0u8..).zip(sets).skip(1) {
        let c = usize::from(colour);
        if cells == 0 || slack == 0 && shapes.single >> c & 1 == 0 {
            continue;
        }
        let mut push = |cells| {
            clusters[count] = Cluster { colour, cells };
            count += 1;
        };
        let lowest = if shapes.first[c] != 0 {
            shapes.first[c]
        } else {
            flood(cells & cells.wrapping_neg(), cells)
        };
        push(lowest);
        let mut iso = shapes.lone[c] & !lowest;
        let mut rest = cells & !lowest & !iso;
        while iso != 0 {
            push(iso & iso.wrapping_neg());
            iso &= iso - 1;
        }
        while rest != 0 {
            let cluster = flood(rest & rest.wrapping_neg(), cells);
            push(cluster);
            rest &= !cluster;
        }
    }
    (clusters, count)
}

/// The order `clusters` are tried in, left out those `context` skips and those the cone
/// test refutes (`grouped`, where it runs): larger clusters first, colour-clearing ones
/// before all; ties by lowest cell. Packed: clears (1 bit), size (6), 63 - lowest cell
/// (6), cluster index (6); in the first `count` entries.
#[inline]
fn move_order(
    clusters: &[Cluster],
    sets: &[u64; 6],
    context: usize,
    grouped: Option<&Clusters<'_>>,
) -> ([u32; CELLS], usize) {
    let mut order = [0u32; CELLS];
    let mut count = 0;
    for (index, cluster) in clusters.iter().enumerate() {
        let clears = cluster.cells == sets[usize::from(cluster.colour)];
        if cluster.cells & !SKIPPED_AFTER[context] == 0
            || !clears
                && grouped
                    .is_some_and(|grouped| !may_clear_colour_by_colour(grouped, cluster.cells))
        {
            continue;
        }
        let lowest = cluster.cells.trailing_zeros();
        order[count] = (u32::from(clears) << 12 | cluster.cells.count_ones() << 6 | (63 - lowest))
            << 6
            | index as u32;
        count += 1;
    }
    order[..count].sort_unstable_by(|a, b| b.cmp(a));
    (order, count)
}

impl ConeIda {
    /// `context`: what the move that led here lets this board's search skip
    /// ([`SKIPPED_AFTER`]).
    fn search(&mut self, board: Planes, remaining: u32, context: usize) -> Outcome {
        if !self.walk.enter() {
            return Outcome::OutOfBudget;
        }
        let sets = board.colour_sets();
        let colours = sets[1..].iter().filter(|&&s| s != 0).count() as u32;
        if colours == 0 {
            return Outcome::Found;
        }
        if colours > remaining {
            return Outcome::Refuted;
        }
        // Where the bound cannot refute, the table is read first: its cache miss then
        // overlaps the floods below, which do not depend on it.
        let in_table = remaining >= TABLE_DEPTH;
        let early = in_table && colours < remaining;
        let stored = if early { self.refuted.get(board) } else { None };
        let shapes = Shapes::of(&sets);
        if colours == remaining && shapes.single == 0 {
            return Outcome::Refuted;
        }
        let slack = remaining - colours;
        let stored = if in_table && !early {
            self.refuted.get(board)
        } else {
            stored
        };
        // A refutation holds in every context that tries fewer moves.
        if stored.is_some_and(|r| r[..=context].iter().any(|&r| u32::from(r) >= remaining)) {
            return Outcome::Refuted;
        }
        let (clusters, count) = clusters_to_try(&sets, &shapes, slack);
        let clusters = &clusters[..count];
        let settled = is_settled(board.occupied());
        // The cone test runs only for children left with no slack: at slack 1, those of
        // moves that do not clear their colour (at slack 0, the few moves tried meet
        // the bound at the child instead).
        let grouped = (settled && slack == 1).then(|| Clusters::new(clusters));
        let (order, count) = move_order(clusters, &sets, context, grouped.as_ref());
        for &packed in &order[..count] {
            let cluster = clusters[(packed & 63) as usize].cells;
            let mut next = board;
            next.remove(cluster);
            self.walk
                .path
                .push(to_move(cluster.trailing_zeros() as usize));
            let next_context = if settled && cluster & !FAR_RIGHT == 0 {
                AFTER_FAR_RIGHT
            } else {
                EVERY_MOVE
            };
            match self.search(next, remaining - 1, next_context) {
                Outcome::Refuted => {
                    self.walk.path.pop();
                }
                other => return other,
            }
        }
        if in_table {
            self.refuted.refute(board, context, remaining as u8);
        }
        Outcome::Refuted
    }
}

/// The beam's widths before an iteration: from [`BEAM_FIRST`], doubling, while at most
/// the nodes of the iteration before over [`BEAM_PER_NODE`] and at most [`BEAM_MAX`].
/// (Each width costs about 20 boards made per board kept per depth, each board a few
/// times cheaper than a node; the iteration ahead costs about 13 times the one before.
/// On seeds 0..30 a width of 256 found 19 of the 23 optima then known, 1,024 two more,
/// 4,096 one more; the last ones stay out of reach of wider beams.)
const BEAM_FIRST: u64 = 64;
const BEAM_PER_NODE: u64 = 64;
const BEAM_MAX: u64 = 2048;
/// The beam's width for an answer shorter than the greedy one, when out of budget.
const BEAM_FALLBACK: usize = 1024;

impl Deepening for ConeIda {
    fn walk(&mut self) -> &mut Walk {
        &mut self.walk
    }

    /// Beams first, as wide as the iteration before allows; then the search.
    fn iterate(&mut self, instance: &Board, bound: u32) -> Outcome {
        let mut width = BEAM_FIRST;
        while width <= (self.last_iteration / BEAM_PER_NODE).min(BEAM_MAX) {
            let (found, boards) = self.beam.run(instance, width as usize, bound);
            self.walk.nodes += boards;
            if let Some(moves) = found {
                self.walk.path = moves;
                return Outcome::Found;
            }
            width *= 2;
        }
        let before = self.walk.nodes;
        let outcome = self.search(Planes::from_board(instance), bound, EVERY_MOVE);
        if let Outcome::Refuted = outcome {
            self.last_iteration = self.walk.nodes - before;
        }
        outcome
    }

    /// The shorter of the greedy answer and a beam's.
    fn past_budget(&mut self, instance: &Board, greedy: Vec<Move>) -> Vec<Move> {
        let target = greedy.len() as u32 - 1;
        let (found, boards) = self.beam.run(instance, BEAM_FALLBACK, target);
        self.walk.nodes += boards;
        found.unwrap_or(greedy)
    }
}

impl Solver<Dust> for ConeIda {
    fn solve(&mut self, instance: &Board, max_nodes: u64) -> Option<Solved<Answer>> {
        self.refuted.clear();
        self.walk.start(max_nodes);
        self.last_iteration = 0;
        self.beam = Beam::default();
        Some(deepen(self, instance, lower_bound(&colour_sets(instance))))
    }
}
