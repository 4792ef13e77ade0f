//! `arena serve`, the part every game shares: the checks before answering, stdin and
//! stdout, and the seeds of the served agent's games.

use std::io::{BufRead, StdoutLock, Write};

use agents::Spec;
use anyhow::{Result, bail};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// Seeds for the agents of successive games: a ChaCha8 stream of the given seed (the
/// arena never tells a bot its seed, so a served randomized agent has its own).
pub struct Seeds(ChaCha8Rng);

impl Seeds {
    pub fn next_seed(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// Serves `spec` on stdin/stdout with the game's `serve` loop. `check` builds the agent
/// once first, so a bad spec is refused before `init` is answered (the match then
/// records a start-up failure, not a crash at the first game).
pub fn run<E>(
    spec: &Spec,
    seed: u64,
    check: impl FnOnce(&Spec, u64) -> Result<(), E>,
    serve: impl FnOnce(
        &Spec,
        &mut dyn Iterator<Item = String>,
        &mut StdoutLock<'static>,
        &mut Seeds,
    ) -> Result<()>,
) -> Result<()>
where
    E: std::error::Error + Send + Sync + 'static,
{
    if matches!(spec, Spec::Exec { .. }) {
        bail!("arena serve runs built-in agents; {spec} is already a program");
    }
    check(spec, seed)?;
    let stdin = std::io::stdin().lock();
    let mut lines = stdin.lines().map_while(Result::ok);
    let mut out = std::io::stdout().lock();
    let mut seeds = Seeds(ChaCha8Rng::seed_from_u64(seed));
    serve(spec, &mut lines, &mut out, &mut seeds)
}

/// Writes one reply line and flushes it.
pub fn reply(out: &mut impl Write, line: &str) -> Result<()> {
    writeln!(out, "{line}")?;
    out.flush()?;
    Ok(())
}
