//! Ctrl-C and SIGTERM (a Slurm or Kubernetes preemption): the first asks the run to stop
//! cleanly (no new games, finished games written, bots reaped); the second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// What the second Ctrl-C says after "stopped at once; ": what is kept and how to go on,
/// which differ between a run directory and a league.
static KEPT: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// How the process ends at a second Ctrl-C. The binary's `main` says, once, at start
/// ([`on_second_stop`]): a library does not end its process. Without it a second Ctrl-C
/// is one more request to stop cleanly.
static EXIT: std::sync::OnceLock<fn() -> !> = std::sync::OnceLock::new();

/// Sets how the process ends at a second Ctrl-C (the binary: exit 130 at once).
pub fn on_second_stop(exit: fn() -> !) {
    let _ = EXIT.set(exit);
}

/// Installs the handler for a run directory: a second Ctrl-C names `--resume`.
pub fn install(run_dir: &std::path::Path) {
    install_saying(format!(
        "the games on disk are kept: finish with `arena run --resume {}`",
        run_dir.display()
    ));
}

/// Installs the handler for `arena league run`: a league has no `--resume` (a second
/// Ctrl-C loses only the uncommitted batches, which the next `run` plays again,
/// identically).
pub fn install_for_league(dir: &std::path::Path) {
    install_saying(format!(
        "the committed games are kept: `arena league run {}` plays on",
        dir.display()
    ));
}

/// Installs the handler once per process (later calls only change what the second
/// Ctrl-C says).
fn install_saying(kept: String) {
    if let Ok(mut slot) = KEPT.lock() {
        *slot = Some(kept);
    }
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Without a handler (another one is installed), Ctrl-C keeps its default:
        // games on disk stay, and `--resume` replays the rest.
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst)
                && let Some(exit) = EXIT.get()
            {
                // Games not yet written are lost from disk, not from the run: they are
                // replayed from the seed.
                let kept = KEPT
                    .try_lock()
                    .ok()
                    .and_then(|k| k.clone())
                    .unwrap_or_else(|| "the games on disk are kept".into());
                eprintln!("\nstopped at once; {kept}");
                exit();
            }
            eprintln!("\nstopping: finishing the games in progress (Ctrl-C again to quit now)");
        });
    });
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The flag itself, for the workers.
pub fn flag() -> &'static AtomicBool {
    &STOP
}
