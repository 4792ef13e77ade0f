//! What a run with external agents says about their sandbox and its seed: on the
//! console and in run.log, before the first game. A layer the machine cannot enforce is
//! named, never passed over; `[limits] require_sandbox` turns that into a refusal.

use anyhow::{Result, bail};

use super::Enforcement;
use crate::external::Limits;

/// Seeds below this are small enough for a bot to find by trying each one against its
/// first hand (`docs/seeding.md` is complete enough to re-implement); the shipped
/// configs' seeds and the default are all below it.
const GUESSABLE_BELOW: u64 = 1 << 32;

/// Logs what the sandbox enforces, warns of what it does not and of a guessable seed,
/// and refuses the run when `limits.require_sandbox` asks for the full set.
pub fn announce(
    enforcement: Option<&Enforcement>,
    limits: &Limits,
    seed: u64,
    mut log: impl FnMut(&str) -> Result<()>,
) -> Result<()> {
    // Warnings go to the console as well as run.log.
    fn warn(log: &mut impl FnMut(&str) -> Result<()>, line: &str) -> Result<()> {
        eprintln!("arena: {line}");
        log(line)
    }
    let Some(enforced) = enforcement else {
        if limits.require_sandbox {
            bail!("limits.require_sandbox: this arena cannot start its sandbox (`arena doctor`)");
        }
        return warn(
            &mut log,
            "warning: external agents run WITHOUT a sandbox (the arena binary cannot start \
             `arena __sandbox`): only a scrubbed environment, their own working directory and \
             an address-space limit",
        );
    };
    let mut missing = enforced.missing();
    if limits.network {
        missing.retain(|m| !m.contains("network") && !m.contains("TCP"));
    }
    if limits.processes == 0 {
        missing.retain(|m| !m.contains("cap on processes"));
    }
    if !missing.is_empty() && limits.require_sandbox {
        bail!(
            "limits.require_sandbox: this machine does not enforce {} (`arena doctor` lists the layers)",
            missing.join(", ")
        );
    }
    log(&format!(
        "sandbox: external agents get a scrubbed environment, their own working directory \
         under agents/, {} MB of address space, {} s of CPU per process, at most {} \
         processes and threads; enforced here: {}",
        limits.memory_mb,
        limits.cpu_s,
        limits.processes,
        enforced.enforced().join(", ")
    ))?;
    for layer in &missing {
        warn(
            &mut log,
            &format!("warning: the sandbox of external agents lacks {layer} on this machine"),
        )?;
    }
    if limits.network {
        warn(
            &mut log,
            "warning: limits.network = true: external agents may use the network",
        )?;
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
    use super::*;

    fn full() -> Enforcement {
        Enforcement {
            files: true,
            own_processes: true,
            no_network: true,
            own_ipc: true,
            tcp_rules: true,
            scoped: true,
            process_cap: Some("cgroup pids.max (cgroup v1)".into()),
            landlock_abi: 6,
        }
    }

    fn lines(enforced: Option<&Enforcement>, limits: &Limits, seed: u64) -> Result<Vec<String>> {
        let mut out = Vec::new();
        announce(enforced, limits, seed, |l| {
            out.push(l.to_owned());
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn a_missing_layer_is_a_warning_or_with_require_sandbox_a_refusal() {
        let old_kernel = Enforcement {
            scoped: false,
            landlock_abi: 5,
            ..full()
        };
        let mut limits = Limits::default();
        let log = lines(Some(&old_kernel), &limits, u64::MAX).unwrap();
        assert!(
            log.iter().any(|l| l.contains("lacks Landlock signal")),
            "{log:?}"
        );
        limits.require_sandbox = true;
        let refused = lines(Some(&old_kernel), &limits, u64::MAX).unwrap_err();
        assert!(refused.to_string().contains("signal"), "{refused}");
        assert!(lines(None, &limits, u64::MAX).is_err());
        let log = lines(Some(&full()), &limits, u64::MAX).unwrap();
        assert_eq!(log.len(), 1, "{log:?}");
    }

    #[test]
    fn granted_network_is_logged_and_not_missing() {
        let limits = Limits {
            network: true,
            require_sandbox: true,
            ..Limits::default()
        };
        let granted = Enforcement {
            no_network: false,
            tcp_rules: false,
            ..full()
        };
        let log = lines(Some(&granted), &limits, u64::MAX).unwrap();
        assert!(
            log.iter().any(|l| l.contains("may use the network")),
            "{log:?}"
        );
    }

    #[test]
    fn a_small_seed_warns_a_large_one_does_not() {
        let limits = Limits::default();
        let small = lines(Some(&full()), &limits, 2009).unwrap();
        assert!(
            small.iter().any(|l| l.contains("seed 2009 is small")),
            "{small:?}"
        );
        let large = lines(Some(&full()), &limits, 1 << 40).unwrap();
        assert!(!large.iter().any(|l| l.contains("small")), "{large:?}");
    }
}
