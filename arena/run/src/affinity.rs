//! Game threads pinned to cores. A game is one chain of control: the game thread asks an
//! external bot, sleeps until the reply, and plays on. When the thread and the bot sit on
//! different cores, every call and every reply wakes a sleeping core, which on a virtual
//! machine costs tens of microseconds each way; on one core a round trip is a pair of
//! context switches (`docs/benchmarks.md`). So each game thread is pinned to a core of
//! its own, and the bots it starts inherit the pin. Threads are pinned only when every
//! one can have its own core: two pinned threads on one core would wait for each other
//! while another core idles. Pins never change a result, only when replies arrive.

use std::cell::Cell;

use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

thread_local! {
    /// The core this thread is pinned to, if any.
    static PINNED: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The cores this process may run on, in order (its affinity mask: a container's or
/// `taskset`'s choice is kept).
fn allowed_cores() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(Pid::from_raw(0)) else {
        return Vec::new();
    };
    (0..CpuSet::count())
        .filter(|&core| set.is_set(core).unwrap_or(false))
        .collect()
}

/// One core for each of `threads` game threads, or none when there are fewer cores.
pub fn plan(threads: usize) -> Option<Vec<usize>> {
    let cores = allowed_cores();
    (threads >= 1 && threads <= cores.len()).then(|| cores[..threads].to_vec())
}

/// A pool of `threads` game threads, the i-th pinned for its life to the i-th of `cores`
/// where given (a run's workers, a league's batches).
pub fn pinned_pool(
    threads: usize,
    cores: Option<Vec<usize>>,
) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .start_handler(move |i| {
            if let Some(core) = cores.as_ref().and_then(|c| c.get(i)) {
                // Pinned for the thread's life: it ends with the pool.
                std::mem::forget(pin(*core));
            }
        })
        .build()
}

/// The core the calling thread is pinned to, if any: processes it starts run there.
pub fn current() -> Option<usize> {
    PINNED.get()
}

/// Pins the calling thread to `core` until the guard is dropped, which restores the
/// thread's former mask. `None` where the kernel refuses (the pin is only an
/// optimisation: the run goes on unpinned).
pub fn pin(core: usize) -> Option<Pinned> {
    let me = Pid::from_raw(0);
    let before = sched_getaffinity(me).ok()?;
    let mut only = CpuSet::new();
    only.set(core).ok()?;
    sched_setaffinity(me, &only).ok()?;
    PINNED.set(Some(core));
    Some(Pinned { before })
}

/// A pinned thread; dropped, the thread may run anywhere it could before.
#[must_use = "the pin ends when this is dropped"]
pub struct Pinned {
    before: CpuSet,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = sched_setaffinity(Pid::from_raw(0), &self.before);
        PINNED.set(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_holds_the_thread_on_its_core_and_its_drop_restores_the_mask() {
        let cores = allowed_cores();
        assert!(!cores.is_empty(), "a process may run somewhere");
        // On a thread of its own: the test harness's threads keep their masks.
        std::thread::spawn(move || {
            let core = *cores.last().unwrap();
            let pinned = pin(core).expect("a thread may pin itself to an allowed core");
            assert_eq!(current(), Some(core));
            assert_eq!(allowed_cores(), vec![core]);
            // A child process inherits the pin.
            let out = std::process::Command::new("grep")
                .args(["Cpus_allowed_list", "/proc/self/status"])
                .output()
                .unwrap();
            let line = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                line.split_whitespace().nth(1),
                Some(core.to_string().as_str())
            );
            drop(pinned);
            assert_eq!(current(), None);
            assert_eq!(allowed_cores(), cores);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn threads_are_pinned_only_when_each_has_a_core_of_its_own() {
        let n = allowed_cores().len();
        assert_eq!(plan(n).map(|c| c.len()), Some(n));
        assert_eq!(plan(1).map(|c| c.len()), Some(1));
        assert_eq!(plan(n + 1), None);
        assert_eq!(plan(0), None);
        let cores = plan(n).unwrap();
        let mut distinct = cores.clone();
        distinct.dedup();
        assert_eq!(distinct, cores, "one core per thread");
    }
}
