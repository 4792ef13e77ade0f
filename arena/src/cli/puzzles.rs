//! `arena gen`, `arena score` and `arena solve` for the puzzles (`docs/puzzles.md`):
//! local-tester conventions (numbered instance files, `Score = N`), and the built-in
//! solvers with JSON that names every cell explicitly.

use std::ops::Range;
use std::path::PathBuf;

use agents::puzzles::detrak::BranchAndBound;
use agents::puzzles::dominopeg::MirrorScan;
use agents::puzzles::dust::ConeIda;
use agents::puzzles::{Solved, Solver};
use anyhow::{Context, Result, bail};
use arena_core::puzzle::detrak::{self, Detrak};
use arena_core::puzzle::dominopeg::{self, DominoPeg};
use arena_core::puzzle::dust::{self, Dust};
use arena_core::puzzle::{Puzzle, PuzzleKind, line};

use super::emit;

#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// detrak, dominopeg or dust.
    pub puzzle: PuzzleKind,
    /// Seeds `START..END` (end excluded); file `NNNN.txt` holds seed NNNN.
    #[arg(long, value_parser = parse_seeds, default_value = "0..100")]
    pub seeds: Range<u64>,
    /// The directory to write (created if missing).
    #[arg(long, default_value = "in")]
    pub dir: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// detrak, dominopeg or dust.
    pub puzzle: PuzzleKind,
    /// A file holding the instance (one line).
    pub instance: PathBuf,
    /// A file holding the answer (one line).
    pub answer: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct VisArgs {
    /// detrak, dominopeg or dust.
    pub puzzle: PuzzleKind,
    /// A file holding the instance (one line).
    pub instance: PathBuf,
    /// A file holding the answer (one line).
    pub answer: PathBuf,
    /// Write the SVG here instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub(super) fn parse_seeds(s: &str) -> Result<Range<u64>, String> {
    let (a, b) = s
        .split_once("..")
        .ok_or("expected START..END, e.g. 0..100")?;
    let a: u64 = a.parse().map_err(|_| format!("bad start {a:?}"))?;
    let b: u64 = b.parse().map_err(|_| format!("bad end {b:?}"))?;
    if a >= b {
        return Err(format!("empty range {s}"));
    }
    Ok(a..b)
}

pub fn generate(args: GenArgs) -> Result<()> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    for seed in args.seeds.clone() {
        let path = args.dir.join(format!("{seed:04}.txt"));
        std::fs::write(&path, format!("{}\n", args.puzzle.generate(seed)))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    emit(&format!(
        "{} {} instances in {}\n",
        args.seeds.end - args.seeds.start,
        args.puzzle,
        args.dir.display()
    ))
}

fn read_line(path: &PathBuf) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(line(text.lines().next().unwrap_or("")).to_owned())
}

/// The instance and answer files' first lines, and which file an error is about: the
/// answer's, unless the instance itself does not parse.
fn read_both<'a>(
    puzzle: PuzzleKind,
    instance: &'a PathBuf,
    answer: &'a PathBuf,
) -> Result<(String, String, &'a PathBuf)> {
    let (i, a) = (read_line(instance)?, read_line(answer)?);
    let culprit = if parses_instance(puzzle, &i) {
        answer
    } else {
        instance
    };
    Ok((i, a, culprit))
}

pub fn score(args: ScoreArgs) -> Result<()> {
    let (instance, answer, culprit) = read_both(args.puzzle, &args.instance, &args.answer)?;
    let verdict = args
        .puzzle
        .score(&instance, &answer)
        .with_context(|| format!("in {}", culprit.display()))?;
    match verdict {
        Ok(score) => emit(&format!("Score = {score}\n")),
        Err(reason) => emit(&format!("Invalid: {reason}\n")),
    }
}

/// `arena vis PUZZLE INSTANCE ANSWER [--out FILE]`: the drawing as SVG.
pub fn visualize(args: VisArgs) -> Result<()> {
    let (instance, answer, culprit) = read_both(args.puzzle, &args.instance, &args.answer)?;
    let svg = arena_run::report::puzzle_svg::draw(args.puzzle, &instance, &answer)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("in {}", culprit.display()))?;
    match &args.out {
        Some(path) => {
            std::fs::write(path, &svg).with_context(|| format!("writing {}", path.display()))
        }
        None => emit(&svg),
    }
}

fn parses_instance(kind: PuzzleKind, text: &str) -> bool {
    match kind {
        PuzzleKind::Detrak => text.parse::<detrak::Instance>().is_ok(),
        PuzzleKind::DominoPeg => text.parse::<dominopeg::Instance>().is_ok(),
        PuzzleKind::Dust => text.parse::<dust::Board>().is_ok(),
    }
}

/// Node budgets when `--nodes` is not given: DominoPeg always finishes; Détrak and
/// dust may not, and then answer their best so far, marked not optimal. Dust's
/// `ConeIda` spends three to five times `SlackIda`'s time a node on long searches (the
/// table), and `solve` ran `SlackIda` with 100 M nodes before issue 25: 20 M keeps an
/// unproven board's time no longer than it was, and proves what `SlackIda` did on the
/// held-out boards measured (`docs/benchmarks.md`).
fn default_nodes(kind: PuzzleKind) -> u64 {
    match kind {
        PuzzleKind::DominoPeg => u64::MAX,
        PuzzleKind::Detrak => 20_000_000,
        PuzzleKind::Dust => 20_000_000,
    }
}

/// `arena solve PUZZLE [INSTANCE] [--json] [--nodes N]`: one instance, or one per
/// line of stdin.
pub fn solve(
    kind: PuzzleKind,
    instance: Option<&str>,
    json: bool,
    nodes: Option<u64>,
) -> Result<()> {
    let nodes = nodes.unwrap_or(default_nodes(kind));
    if let Some(text) = instance {
        return emit(&format!("{}\n", solve_one(kind, line(text), json, nodes)?));
    }
    use std::io::BufRead;
    // As for games: a bad instance gets an error line of its own (tab-separated like an
    // answer), the batch goes on, and the exit code says so at the end.
    let (mut failed, mut total) = (0u64, 0u64);
    for (i, text) in std::io::stdin().lock().lines().enumerate() {
        let text = text.context("reading stdin")?;
        if text.trim().is_empty() {
            continue;
        }
        total += 1;
        let instance = line(&text);
        match solve_one(kind, instance, json, nodes) {
            Ok(out) => emit(&format!("{out}\n"))?,
            Err(e) => {
                failed += 1;
                eprintln!("arena: stdin line {}: {e:#}", i + 1);
                let why = format!("{e:#}");
                emit(&if json {
                    format!(
                        "{}\n",
                        serde_json::json!({"puzzle": kind.to_string(), "instance": instance, "error": why})
                    )
                } else {
                    format!("{instance}\terror: {why}\n")
                })?;
            }
        }
    }
    if failed > 0 {
        anyhow::bail!(
            "{failed} of {total} instances on stdin could not be solved (their lines say why)"
        );
    }
    Ok(())
}

fn solve_one(kind: PuzzleKind, text: &str, json: bool, nodes: u64) -> Result<String> {
    match kind {
        PuzzleKind::Detrak => {
            let instance: detrak::Instance = text.parse()?;
            let s = solved(BranchAndBound::default().solve(&instance, nodes))?;
            Ok(if json {
                detrak_json(&instance, &s)?
            } else {
                plain(&instance, &s)
            })
        }
        PuzzleKind::DominoPeg => {
            let instance: dominopeg::Instance = text.parse()?;
            let Some(s) = MirrorScan::default().solve(&instance, nodes) else {
                bail!("no answer within {nodes} nodes");
            };
            Ok(if json {
                dominopeg_json(&instance, &s)?
            } else {
                plain(&instance, &s)
            })
        }
        PuzzleKind::Dust => {
            let instance: dust::Board = text.parse()?;
            let s = solved(ConeIda::default().solve(&instance, nodes))?;
            Ok(if json {
                dust_json(&instance, &s)?
            } else {
                plain(&instance, &s)
            })
        }
    }
}

fn solved<A>(s: Option<Solved<A>>) -> Result<Solved<A>> {
    s.context("the solver found no answer within its node budget")
}

fn plain<I: std::fmt::Display, A: std::fmt::Display>(instance: &I, s: &Solved<A>) -> String {
    let proof = if s.optimal { "optimal" } else { "not proven" };
    format!("{instance}\t{}\tscore {}\t{proof}", s.answer, s.score)
}

/// `arena solve detrak --json`: fields in the order of the example.
#[derive(serde::Serialize)]
struct DetrakJson {
    puzzle: &'static str,
    instance: String,
    score: i64,
    optimal: bool,
    /// Five strings of five digits, row 0 first.
    grid: Vec<String>,
    /// Per domino in instance order: the cell of its first symbol, then of its second.
    dominoes: Vec<[[u8; 2]; 2]>,
}

#[derive(serde::Serialize)]
struct DominoPegJson {
    puzzle: &'static str,
    instance: String,
    solvable: bool,
    placements: Vec<PegPlacementJson>,
}

#[derive(serde::Serialize)]
struct PegPlacementJson {
    piece: String,
    /// `6 * row + col`.
    squares: Vec<u32>,
    /// `7 * row + col`.
    pegs: Vec<u32>,
}

#[derive(serde::Serialize)]
struct DustJson {
    puzzle: &'static str,
    instance: String,
    moves: Vec<[u8; 2]>,
    optimal: bool,
}

fn detrak_json(instance: &detrak::Instance, s: &Solved<detrak::Answer>) -> Result<String> {
    let grid = detrak::fill(instance, &s.answer).map_err(|e| anyhow::anyhow!("{e}"))?;
    let cell = |c: u8| [c / 5, c % 5];
    Ok(serde_json::to_string(&DetrakJson {
        puzzle: Detrak::NAME,
        instance: instance.to_string(),
        score: s.score,
        optimal: s.optimal,
        grid: grid
            .chunks(detrak::SIZE)
            .map(|r| r.iter().map(|d| d.to_string()).collect())
            .collect(),
        dominoes: s
            .answer
            .placements
            .iter()
            .map(|p| [cell(p.first), cell(p.second)])
            .collect(),
    })?)
}

fn bits(m: u64) -> Vec<u32> {
    (0..64).filter(|b| m >> b & 1 == 1).collect()
}

fn dominopeg_json(instance: &dominopeg::Instance, s: &Solved<dominopeg::Answer>) -> Result<String> {
    let placements: Vec<PegPlacementJson> = match &s.answer {
        dominopeg::Answer::None => Vec::new(),
        dominopeg::Answer::Solution(ps) => ps
            .iter()
            .map(|p| {
                let f = p.footprint().map_err(|e| anyhow::anyhow!("{e}"))?;
                Ok(PegPlacementJson {
                    piece: dominopeg::PIECE_NAMES[p.piece as usize].to_string(),
                    squares: bits(u64::from(f.squares)),
                    pegs: bits(f.pegs),
                })
            })
            .collect::<Result<_>>()?,
    };
    Ok(serde_json::to_string(&DominoPegJson {
        puzzle: DominoPeg::NAME,
        instance: instance.to_string(),
        solvable: !placements.is_empty(),
        placements,
    })?)
}

fn dust_json(instance: &dust::Board, s: &Solved<dust::Answer>) -> Result<String> {
    Ok(serde_json::to_string(&DustJson {
        puzzle: Dust::NAME,
        instance: instance.to_string(),
        moves: s.answer.moves.iter().map(|m| [m.x, m.y]).collect(),
        optimal: s.optimal,
    })?)
}
