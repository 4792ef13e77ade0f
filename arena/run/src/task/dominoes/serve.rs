//! `arena serve` for Dominoes: a built-in agent over the line protocol. Agents get the
//! view rebuilt from the TCO09 calls (history included) by `ViewTracker`, as they would
//! in-process.

use std::io::Write;

use super::super::serve::{Seeds, reply};
use agents::Spec;
use anyhow::{Result, anyhow};
use arena_core::dominoes::{DominoView, Dominoes};
use arena_core::protocol::{DominoCall, ViewTracker};
use arena_core::{Agent, Seat};

pub fn run(spec: &Spec, seed: u64) -> Result<()> {
    super::super::serve::run(
        spec,
        seed,
        |s, seed| agents::dominoes::build(s, seed).map(drop),
        serve_dominoes,
    )
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
                let mut a = agents::dominoes::build(spec, seeds.next_seed())?;
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
