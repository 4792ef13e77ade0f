//! The built-in puzzle solvers by spec name, over notation strings: what puzzle runs
//! (`arena run configs/puzzles.toml`) build from a config's agent list. `exact` and
//! `greedy` work for every puzzle, so one list of solvers can attempt all three;
//! `lookahead` plays Détrak only ([`supports`]).

use arena_core::puzzle::detrak::Detrak;
use arena_core::puzzle::dominopeg::{self, DominoPeg};
use arena_core::puzzle::dust::{self, Dust};
use arena_core::puzzle::{Puzzle, PuzzleKind};

use super::detrak::{BranchAndBound, OnlineGreedy, OnlineLookahead};
use super::dominopeg::{ExactCover, MirrorScan};
use super::dust::ConeIda;
use super::{Solved, Solver};
use crate::spec::{Spec, SpecError};

/// The built-in solver names, for help texts and errors.
pub const NAMES: &[&str] = &["exact", "greedy", "lookahead"];

/// What a built-in solver answered, in the puzzle's notation (the referee scores it).
#[derive(Clone, Debug, PartialEq)]
pub struct TextAnswer {
    pub answer: String,
    /// Whether the search proved the answer optimal (DominoPeg: proved right).
    pub optimal: bool,
    pub nodes: u64,
}

/// The node budget `exact` uses when its spec names none: enough to prove most
/// instances, bounded so that a run always ends.
pub fn default_nodes(kind: PuzzleKind) -> u64 {
    match kind {
        PuzzleKind::DominoPeg => 50_000_000,
        PuzzleKind::Detrak => 20_000_000,
        PuzzleKind::Dust => 100_000_000,
    }
}

/// The budget the `greedy` DominoPeg solver (a short exact-cover search) may spend.
const QUICK_DOMINOPEG_NODES: u64 = 2_000;

/// Checks that `spec` names a built-in solver with options it knows.
pub fn check(spec: &Spec) -> Result<(), SpecError> {
    match spec {
        Spec::Exec { .. } => Ok(()),
        Spec::Builtin { name, .. } => match name.as_str() {
            "exact" => {
                spec.expect_options(&["nodes"])?;
                at_least_one(spec, "nodes", 1)
            }
            "greedy" => spec.expect_options(&[]),
            "lookahead" => {
                spec.expect_options(&["rollouts"])?;
                at_least_one(
                    spec,
                    "rollouts",
                    u64::from(OnlineLookahead::DEFAULT_ROLLOUTS),
                )
            }
            _ => Err(SpecError::Unknown {
                name: name.clone(),
                game: "puzzles",
                known: NAMES.join(", "),
            }),
        },
    }
}

/// A budget option (`default` when absent) that must be positive: with no node or
/// rollout at all a solver finds no answer.
fn at_least_one(spec: &Spec, option: &str, default: u64) -> Result<(), SpecError> {
    match spec.option::<u64>(option, default)? {
        0 => Err(SpecError::BadValue {
            name: spec.name().to_owned(),
            option: option.into(),
            value: "0".into(),
            reason: "at least one".into(),
        }),
        _ => Ok(()),
    }
}

/// Whether the built-in `spec` attempts `kind` (`lookahead` is Détrak's online player
/// only). External solvers are told the puzzle and may answer any.
pub fn supports(kind: PuzzleKind, spec: &Spec) -> bool {
    spec.name() != "lookahead" || kind == PuzzleKind::Detrak
}

/// Runs the built-in `spec` on `instance` (in `kind`'s notation). `Ok(None)`: the
/// solver found no answer within its budget.
///
/// - `exact`: the exact solver of each puzzle (Détrak branch and bound, DominoPeg
///   `MirrorScan`, dust `ConeIda`), with `nodes=N` as its budget; past it, the best
///   answer found so far, not proven.
/// - `greedy`: the quick baseline of each puzzle: Détrak played online (each domino
///   placed before the next is seen, T7), dust by always clearing the largest cluster,
///   DominoPeg by an exact-cover search cut at a few thousand nodes that answers `none`
///   past it (so it is wrong whenever that search is too short).
/// - `lookahead[:rollouts=16]`: Détrak online (T7) for expected score: each domino where
///   the mean final score over sampled futures (played greedily) is highest.
pub fn solve(kind: PuzzleKind, spec: &Spec, instance: &str) -> Result<Option<TextAnswer>, String> {
    check(spec).map_err(|e| e.to_string())?;
    if !supports(kind, spec) {
        return Err(format!("{spec} does not play {kind}"));
    }
    if spec.name() == "lookahead" {
        let instance = parse::<Detrak>(instance)?;
        let rollouts = spec
            .option("rollouts", OnlineLookahead::DEFAULT_ROLLOUTS)
            .map_err(|e| e.to_string())?;
        return Ok(text(
            OnlineLookahead::new(rollouts).solve(&instance, u64::MAX),
        ));
    }
    let exact = spec.name() == "exact";
    let nodes = spec
        .option("nodes", default_nodes(kind))
        .map_err(|e| e.to_string())?;
    Ok(match kind {
        PuzzleKind::Detrak => {
            let instance = parse::<Detrak>(instance)?;
            if exact {
                text(BranchAndBound::default().solve(&instance, nodes))
            } else {
                text(OnlineGreedy::default().solve(&instance, u64::MAX))
            }
        }
        PuzzleKind::DominoPeg => {
            let instance = parse::<DominoPeg>(instance)?;
            let found = if exact {
                MirrorScan::default().solve(&instance, nodes)
            } else {
                ExactCover::default().solve(&instance, QUICK_DOMINOPEG_NODES)
            };
            match found {
                Some(s) => text(Some(s)),
                // Out of budget: the quick baseline guesses there is no solution.
                None if !exact => Some(TextAnswer {
                    answer: dominopeg::Answer::None.to_string(),
                    optimal: false,
                    nodes: QUICK_DOMINOPEG_NODES,
                }),
                None => None,
            }
        }
        PuzzleKind::Dust => {
            let board = parse::<Dust>(instance)?;
            if exact {
                text(ConeIda::default().solve(&board, nodes))
            } else {
                let moves = super::dust::greedy(&board);
                Some(TextAnswer {
                    answer: dust::Answer { moves }.to_string(),
                    optimal: false,
                    nodes: 0,
                })
            }
        }
    })
}

fn parse<P: Puzzle>(text: &str) -> Result<P::Instance, String> {
    text.parse().map_err(|e| format!("{e}"))
}

fn text<A: std::fmt::Display>(solved: Option<Solved<A>>) -> Option<TextAnswer> {
    solved.map(|s| TextAnswer {
        answer: s.answer.to_string(),
        optimal: s.optimal,
        nodes: s.nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_answers_every_puzzle_and_the_referee_accepts_its_answers() {
        for kind in PuzzleKind::ALL {
            for seed in 0..3 {
                let instance = kind.generate(seed);
                for name in ["greedy", "exact:nodes=20000"] {
                    let spec: Spec = name.parse().unwrap();
                    let got = solve(kind, &spec, &instance).unwrap();
                    if name == "greedy" {
                        assert!(got.is_some(), "greedy gave no answer on {kind}");
                    }
                    let Some(got) = got else { continue };
                    let verdict = kind.score(&instance, &got.answer).unwrap();
                    // The quick DominoPeg baseline may wrongly answer `none`; the others
                    // must be valid.
                    if !(kind == PuzzleKind::DominoPeg && name == "greedy") {
                        assert!(verdict.is_ok(), "{name} on {kind} seed {seed}: {verdict:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn unknown_solvers_and_options_are_refused_by_name() {
        let err = check(&"astar".parse().unwrap()).unwrap_err().to_string();
        assert!(err.contains("astar") && err.contains("exact"), "{err}");
        let err = check(&"greedy:nodes=3".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("nodes"), "{err}");
        assert!(check(&"exact:nodes=x".parse().unwrap()).is_err());
        assert!(check(&"exact:nodes=10".parse().unwrap()).is_ok());
        // Budgets that can find no answer at all.
        for zero in ["exact:nodes=0", "lookahead:rollouts=0"] {
            let err = check(&zero.parse().unwrap()).unwrap_err().to_string();
            assert!(err.contains("at least one"), "{zero}: {err}");
        }
    }
}
