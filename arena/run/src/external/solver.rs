//! External puzzle solvers, TopCoder Marathon style: one fresh process per instance,
//! the instance on stdin as one line, the answer as one line on stdout within the time
//! limit (`limits.call_ms`). The puzzle's name is in the environment (`ARENA_PUZZLE`),
//! so one program can serve several puzzles (`docs/protocol.md`).

use std::sync::atomic::Ordering;
use std::time::Duration;

use arena_core::AgentError;

use super::ExternalRuntime;
use super::process::{self, Process};

impl ExternalRuntime {
    /// Runs exec agent `agent` on one `instance` of `puzzle` (attempt `index` of the
    /// run); returns its answer line (without the line ending) and the time it took.
    pub fn solve_once(
        &self,
        agent: usize,
        puzzle: &str,
        index: u64,
        instance: &str,
    ) -> Result<(String, Duration), AgentError> {
        let exec = self.agents[agent].as_ref().expect("exec agent");
        let log = std::sync::Arc::clone(self.logs[agent].as_ref().expect("exec agent"));
        let dir = process::workdir(&self.run_dir, &process::label(agent, &exec.name));
        let number = self.started.fetch_add(1, Ordering::Relaxed) + 1;
        let limit = Duration::from_millis(self.limits.call_ms);
        let spawned = Process::spawn(
            self.runtime.handle(),
            &exec.command,
            &dir,
            &self.limits,
            log,
            process::Launch {
                tag: format!("case {puzzle} process {number}"),
                sandbox: self.sandboxes[agent].as_ref(),
                run_dir: &self.run_dir,
                env: &[
                    ("ARENA_PUZZLE", puzzle.to_owned()),
                    ("ARENA_TIME_LIMIT_MS", self.limits.call_ms.to_string()),
                ],
            },
        );
        let mut p = self.started(index, spawned)?;
        p.set_game(index);
        let reply = p
            .call(&format!("{instance}\n"), limit, &self.limits)
            // A CR LF line end counts as one.
            .map(|(line, took)| match line.strip_suffix('\r') {
                Some(stripped) => (stripped.to_owned(), took),
                None => (line, took),
            })
            .map_err(|e| match e {
                AgentError::Timeout(why) => AgentError::Timeout(format!(
                    "{why} within the time limit of {} ms",
                    limit.as_millis()
                )),
                e => e,
            });
        match &reply {
            // Its answer is in: EOF on stdin and the grace period to exit.
            Ok(_) => self.stop(vec![p]),
            Err(_) => p.kill(),
        }
        reply
    }
}
