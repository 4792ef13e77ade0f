//! Ctrl-C and SIGTERM (a Slurm or Kubernetes preemption): the first asks the run to stop
//! cleanly (no new games, finished games written, bots reaped); the second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// The run directory of the run in progress, for the second Ctrl-C's resume hint.
static RUN_DIR: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

/// Installs the handler once per process (later calls only name the run directory).
pub fn install(run_dir: &std::path::Path) {
    if let Ok(mut dir) = RUN_DIR.lock() {
        *dir = Some(run_dir.to_owned());
    }
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // Without a handler (another one is installed), Ctrl-C keeps its default:
        // games on disk stay, and `--resume` replays the rest.
        let _ = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                // Games not yet written are lost from disk, not from the run: they are
                // replayed from the seed.
                let hint = RUN_DIR
                    .try_lock()
                    .ok()
                    .and_then(|d| d.as_ref().map(|d| d.display().to_string()))
                    .map_or(String::new(), |d| {
                        format!(": finish with `arena run --resume {d}`")
                    });
                eprintln!("\nstopped at once; the games on disk are kept{hint}");
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
