//! `arena serve` for Dominoes: a built-in agent over the line protocol. Agents get the
//! view rebuilt from the TCO09 calls (history included) by `ViewTracker`, as they would
//! in-process.

use std::io::{BufRead, Write};

use agents::Spec;
use anyhow::{Result, anyhow, bail};
use arena_core::dominoes::{DominoView, Dominoes};
use arena_core::protocol::{DominoCall, ViewTracker};
use arena_core::{Agent, Seat};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// Seeds for the agents of successive games: a ChaCha8 stream of the given seed (the
/// arena never tells a bot its seed, so a served randomized agent has its own).
struct Seeds(ChaCha8Rng);

impl Seeds {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
}

pub fn run(spec: &Spec, seed: u64) -> Result<()> {
    if matches!(spec, Spec::Exec { .. }) {
        bail!("arena serve runs built-in agents; {spec} is already a program");
    }
    // Refuse an agent that cannot be built before answering anything, so a match
    // records a start-up failure rather than a crash at the first game.
    agents::dominoes::build(spec, seed)?;
    let stdin = std::io::stdin().lock();
    let mut lines = stdin.lines().map_while(Result::ok);
    let mut out = std::io::stdout().lock();
    let mut seeds = Seeds(ChaCha8Rng::seed_from_u64(seed));
    serve_dominoes(spec, &mut lines, &mut out, &mut seeds)
}

fn reply(out: &mut impl Write, line: &str) -> Result<()> {
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}

fn serve_dominoes(
    spec: &Spec,
    lines: &mut dyn Iterator<Item = String>,
    out: &mut impl Write,
    seeds: &mut Seeds,
) -> Result<()> {
    let mut tracker: Option<ViewTracker> = None;
    let mut agent: Option<Box<dyn Agent<Dominoes> + Send>> = None;
    let mut fresh = false;
    while let Some(call) = DominoCall::read(lines)? {
        match call {
            DominoCall::Init(case) => {
                tracker = Some(ViewTracker::new(case));
                reply(out, "0")?;
            }
            DominoCall::Reset(first) => {
                let t = tracker
                    .as_mut()
                    .ok_or_else(|| anyhow!("reset before init"))?;
                t.reset(first);
                let mut a = agents::dominoes::build(spec, seeds.next())?;
                a.init(&t.case()).map_err(|e| anyhow!("{e}"))?;
                agent = Some(a);
                fresh = true;
                reply(out, "0")?;
            }
            DominoCall::Play { hand, line, stock } => {
                let t = tracker
                    .as_mut()
                    .ok_or_else(|| anyhow!("play before init"))?;
                let a = agent.as_mut().ok_or_else(|| anyhow!("play before reset"))?;
                let line = t.observe(&hand, &line, stock).map_err(|e| anyhow!(e))?;
                let case = t.case();
                let opponent = case.tiles().saturating_sub(stock + line.len() + hand.len());
                let view =
                    DominoView::new(case, Seat::A, &hand, &line, stock, opponent, t.history());
                if std::mem::take(&mut fresh) {
                    a.reset(&view).map_err(|e| anyhow!("{e}"))?;
                }
                let mv = a.play(&view).map_err(|e| anyhow!("{e}"))?;
                t.replied(mv);
                reply(out, &mv.to_string())?;
            }
        }
    }
    Ok(())
}
