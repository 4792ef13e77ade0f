//! What a run with external agents says about their sandbox and its seed: on the
//! console and in run.log, before the first game. The sandbox fails closed: a layer the
//! probe did not observe stops the run (exit 2) unless the operator accepted losing it
//! (`sandbox_without`) or turned the sandbox off (`sandbox = "off"`); either is said
//! loudly.

use std::collections::BTreeSet;
use std::sync::Mutex;

use anyhow::{Result, bail};

use super::{Enforcement, Layer, Policy};

/// Seeds below this are small enough for a bot to find by trying each one against its
/// first hand (`docs/seeding.md` is complete enough to re-implement); the shipped
/// configs' seeds and the default are all below it.
const GUESSABLE_BELOW: u64 = 1 << 32;

/// Console warnings this process has printed: a league, or `arena verify` on a league's
/// export, starts one runtime per pair of bots, and each says the same things.
static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Whether `line` is new to this process's console (and from now on, not).
fn first_time(line: &str) -> bool {
    SAID.lock()
        .map_or(true, |mut said| said.insert(line.to_owned()))
}

/// Logs what the sandbox enforces, refuses the run where a layer the operator did not
/// give up is missing, and warns of what was given up and of a guessable seed.
/// `enforcement` is `None` when the config turned the sandbox off.
pub fn announce(
    enforcement: Option<&Enforcement>,
    policy: &Policy,
    seed: u64,
    mut log: impl FnMut(&str) -> Result<()>,
) -> Result<()> {
    // Warnings go to the console as well as run.log; to the console once per process.
    fn warn(log: &mut impl FnMut(&str) -> Result<()>, line: &str) -> Result<()> {
        if first_time(line) {
            eprintln!("arena: {line}");
        }
        log(line)
    }
    match enforcement {
        None => warn(
            &mut log,
            "warning: limits.sandbox = \"off\": external agents run WITHOUT a sandbox (only a \
             scrubbed environment, their own working directory and an address-space limit)",
        )?,
        Some(enforced) => {
            let refused: Vec<Layer> = enforced
                .missing()
                .into_iter()
                .filter(|l| !policy.accepts_losing(*l))
                .collect();
            if !refused.is_empty() {
                let why: Vec<String> = refused
                    .iter()
                    .map(|l| format!("{l} ({})", enforced.why(*l).unwrap_or("not observed")))
                    .collect();
                let losable: Vec<&str> = refused
                    .iter()
                    .filter(|l| l.may_be_lost())
                    .map(|l| l.id())
                    .collect();
                let way_out = if losable.len() == refused.len() {
                    format!(
                        "[limits] sandbox_without = {losable:?} accepts losing them, or sandbox = \"off\""
                    )
                } else {
                    "only [limits] sandbox = \"off\" runs without them".into()
                };
                bail!(
                    "the sandbox of external agents cannot apply {} on this machine; no bot \
                     starts without them (`arena doctor` lists every layer; {way_out})",
                    why.join(", ")
                );
            }
            let held: Vec<&str> = Layer::ALL
                .into_iter()
                .filter(|l| enforced.holds(*l))
                .map(Layer::id)
                .collect();
            log(&format!(
                "sandbox: observed from inside a probe on this machine: {}; each bot: {} MB of \
                 memory with its tmpfs, {} MB per tmpfs (working folder, /tmp, /dev/shm), {} s of \
                 CPU per process, at most {} processes and threads, one core, frozen between \
                 its calls",
                held.join(", "),
                policy.memory_mb,
                policy.disk_mb,
                policy.cpu_s,
                policy.processes,
            ))?;
            for layer in enforced.missing() {
                let why = enforced.why(layer).unwrap_or("");
                warn(
                    &mut log,
                    &format!(
                        "warning: the sandbox of external agents runs WITHOUT its {layer} layer \
                         ({}), as the config accepts: {why}",
                        layer.stops()
                    ),
                )?;
            }
        }
    }
    if seed < GUESSABLE_BELOW {
        warn(
            &mut log,
            &format!(
                "warning: seed {seed} is small enough for a bot to guess from its first deal, and \
             with it every deal; for a contest use --seed random (seed = \"random\")"
            ),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_console_warning_is_printed_once_per_process() {
        let line = "warning: a line no other test says";
        assert!(super::first_time(line));
        assert!(!super::first_time(line));
        assert!(super::first_time(
            "warning: another line no other test says"
        ));
    }

    use super::*;

    fn full() -> Enforcement {
        let mut e = Enforcement::default();
        for layer in Layer::ALL {
            e.set(layer, Ok(()));
        }
        e
    }

    fn lines(enforced: Option<&Enforcement>, policy: &Policy, seed: u64) -> Result<Vec<String>> {
        let mut out = Vec::new();
        announce(enforced, policy, seed, |l| {
            out.push(l.to_owned());
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn a_missing_layer_refuses_the_run_unless_the_config_accepts_losing_it() {
        let mut no_freezer = full();
        no_freezer.set(Layer::Freezer, Err("no freezer here".into()));
        let mut policy = Policy::default();
        let refused = lines(Some(&no_freezer), &policy, u64::MAX).unwrap_err();
        let text = refused.to_string();
        assert!(text.contains("freezer (no freezer here)"), "{text}");
        assert!(text.contains("sandbox_without = [\"freezer\"]"), "{text}");
        policy.without = vec![Layer::Freezer];
        let log = lines(Some(&no_freezer), &policy, u64::MAX).unwrap();
        assert!(
            log.iter().any(|l| l.contains("WITHOUT its freezer layer")),
            "{log:?}"
        );
        let log = lines(Some(&full()), &Policy::default(), u64::MAX).unwrap();
        assert_eq!(log.len(), 1, "{log:?}");
    }

    #[test]
    fn a_missing_namespace_can_only_be_turned_off_whole() {
        let mut no_userns = full();
        no_userns.set(Layer::Identity, Err("unshare: EPERM".into()));
        let policy = Policy {
            without: vec![Layer::Seccomp],
            ..Policy::default()
        };
        let text = lines(Some(&no_userns), &policy, u64::MAX)
            .unwrap_err()
            .to_string();
        assert!(text.contains("sandbox = \"off\""), "{text}");
        let off = lines(None, &policy, u64::MAX).unwrap();
        assert!(
            off.iter().any(|l| l.contains("WITHOUT a sandbox")),
            "{off:?}"
        );
    }

    #[test]
    fn granted_network_is_not_missing() {
        let policy = Policy {
            network: true,
            ..Policy::default()
        };
        let mut granted = full();
        granted.set(Layer::Network, Err("limits.network = true".into()));
        let log = lines(Some(&granted), &policy, u64::MAX).unwrap();
        assert!(
            log.iter().any(|l| l.contains("WITHOUT its network")),
            "{log:?}"
        );
    }

    #[test]
    fn a_small_seed_warns_a_large_one_does_not() {
        let policy = Policy::default();
        let small = lines(Some(&full()), &policy, 2009).unwrap();
        assert!(
            small.iter().any(|l| l.contains("seed 2009 is small")),
            "{small:?}"
        );
        let large = lines(Some(&full()), &policy, 1 << 40).unwrap();
        assert!(!large.iter().any(|l| l.contains("small")), "{large:?}");
    }
}
