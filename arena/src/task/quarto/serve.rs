//! `arena serve` for Quarto: a built-in agent over the line protocol.

use std::io::{BufRead, Write};

use agents::Spec;
use anyhow::{Context, Result, anyhow, bail};
use arena_core::Agent;
use arena_core::protocol::QuartoCall;
use arena_core::quarto::Quarto;
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
    agents::quarto::build(spec, seed)?;
    let stdin = std::io::stdin().lock();
    let mut lines = stdin.lines().map_while(Result::ok);
    let mut out = std::io::stdout().lock();
    let mut seeds = Seeds(ChaCha8Rng::seed_from_u64(seed));
    serve_quarto(spec, &mut lines, &mut out, &mut seeds)
}

fn reply(out: &mut impl Write, line: &str) -> Result<()> {
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
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
                let mut a = agents::quarto::build(spec, seeds.next())?;
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
