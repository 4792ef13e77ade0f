//! `arena serve` for Quarto: a built-in agent over the line protocol.

use std::io::Write;

use super::super::serve::{Seeds, reply};
use agents::Spec;
use anyhow::{Context, Result, anyhow};
use arena_core::Agent;
use arena_core::protocol::QuartoCall;
use arena_core::quarto::Quarto;

pub fn run(spec: &Spec, seed: u64) -> Result<()> {
    super::super::serve::run(
        spec,
        seed,
        |s, seed| agents::quarto::build(s, seed).map(drop),
        serve_quarto,
    )
}

fn serve_quarto(
    spec: &Spec,
    lines: &mut dyn Iterator<Item = String>,
    out: &mut impl Write,
    seeds: &mut Seeds,
) -> Result<()> {
    let mut case = None;
    let mut agent: Option<Box<dyn Agent<Quarto> + Send>> = None;
    while let Some(call) = QuartoCall::read(lines)? {
        match call {
            QuartoCall::Init(c) => {
                case = Some(c);
                reply(out, "0")?;
            }
            QuartoCall::Reset(setup) => {
                let c = case.ok_or_else(|| anyhow!("reset before init"))?;
                let start = Quarto::from_setup(c, &setup).context("the reset position")?;
                let mut a = agents::quarto::build(spec, seeds.next_seed())?;
                a.init(&c).map_err(|e| anyhow!("{e}"))?;
                a.reset(&&start).map_err(|e| anyhow!("{e}"))?;
                agent = Some(a);
                reply(out, "0")?;
            }
            QuartoCall::Play(setup) => {
                let c = case.ok_or_else(|| anyhow!("play before init"))?;
                let a = agent.as_mut().ok_or_else(|| anyhow!("play before reset"))?;
                let pos = Quarto::from_setup(c, &setup).context("the play position")?;
                let mv = a.play(&&pos).map_err(|e| anyhow!("{e}"))?;
                reply(out, &mv.to_string())?;
            }
        }
    }
    Ok(())
}
