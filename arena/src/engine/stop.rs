//! Ctrl-C and SIGTERM (a Slurm or Kubernetes preemption): the first asks the run to stop
//! cleanly (no new games, finished games written, bots reaped); the second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// Installs the handler once per process; later calls do nothing.
pub fn install() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Without a handler (another one is installed), Ctrl-C keeps its default:
        // games on disk stay, and `--resume` replays the rest.
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                eprintln!("\nstopped");
                std::process::exit(130);
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
