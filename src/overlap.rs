//! Two pieces of work on two threads, the second's helper thread started ahead.
//!
//! `symdim infer` ends with two independent jobs over the inferred context: the report
//! (this thread) and the model's contract (a second thread).
//! Starting a thread only when the context is ready costs more than it seems on a
//! virtual machine: the idle CPU sleeps, and waking it took from 0.1 to 2.8 ms in the
//! runs measured for `docs/benchmarks.md`, as long as deriving the contract itself.
//! So [`overlapped`] starts the helper before the work that produces the context,
//! keeps it ready (polling, then sleeping), and whichever thread is free first takes
//! the second job: when the helper has not taken it by the time this thread's own work
//! is done, this thread does it. On Linux the helper keeps off the CPU of the thread
//! that started it, and that thread yields once after starting it
//! ([`spawn_helper`]): a new thread is queued behind the thread that started it and
//! waited there for milliseconds. The results never depend on which thread did what.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long the helper polls for its input before it sleeps on a condition variable.
/// Polling keeps its CPU awake, so that the hand-over is immediate; past this, a
/// model is large enough that a slow wake-up no longer matters.
pub const POLL: Duration = Duration::from_millis(30);

const WAITING: u8 = 0;
const READY: u8 = 1;
const ABANDONED: u8 = 2;

/// The hand-over of the first job's result to the helper.
struct Handoff {
    state: AtomicU8,
    lock: Mutex<()>,
    wake: Condvar,
}

impl Handoff {
    fn new() -> Handoff {
        Handoff {
            state: AtomicU8::new(WAITING),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    fn set(&self, state: u8) {
        // Under the lock, so that a helper between its check and its wait cannot miss
        // the notification.
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.state.store(state, Ordering::Release);
        self.wake.notify_all();
    }

    /// Wait until the input is ready (`true`) or will never be (`false`).
    fn wait(&self) -> bool {
        let start = Instant::now();
        loop {
            match self.state.load(Ordering::Acquire) {
                // Yielding, not a pause loop: on a virtual machine, spinning on
                // `pause` traps to the host and made runs 5-8% slower.
                WAITING if start.elapsed() < POLL => std::thread::yield_now(),
                WAITING => break,
                s => return s == READY,
            }
        }
        let mut held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            match self.state.load(Ordering::Acquire) {
                WAITING => held = self.wake.wait(held).unwrap_or_else(|e| e.into_inner()),
                s => return s == READY,
            }
        }
    }
}

/// Marks the hand-over abandoned when dropped before the input was published (this
/// thread unwinding), so that the helper stops and the scope can end.
struct AbandonOnDrop<'h>(&'h Handoff);

impl Drop for AbandonOnDrop<'_> {
    fn drop(&mut self) {
        if self.0.state.load(Ordering::Acquire) == WAITING {
            self.0.set(ABANDONED);
        }
    }
}

/// Run `first`, then `work` on its result on this thread, while `second` of the same
/// result runs on a helper thread that was started before `first`. `work` gets a test
/// of whether waiting for `second` is over: it is finished, or nobody is running it.
/// When the helper has not started `second` by the time `work` returns (or no thread
/// could be started), this thread runs it.
pub fn overlapped<C: Send + Sync, T, D: Send>(
    first: impl FnOnce() -> C,
    second: impl FnOnce(&C) -> D + Send,
    work: impl FnOnce(&C, &dyn Fn() -> bool) -> T,
) -> (C, T, D) {
    let input: OnceLock<C> = OnceLock::new();
    let handoff = Handoff::new();
    // Whoever takes the job out runs it.
    let job = Mutex::new(Some(second));
    let taken = AtomicBool::new(false);
    let take = || {
        let f = job.lock().unwrap_or_else(|e| e.into_inner()).take();
        taken.store(true, Ordering::Release);
        f
    };
    let (t, d) = std::thread::scope(|s| {
        let abandon = AbandonOnDrop(&handoff);
        let helper = spawn_helper(s, "symdim-helper", None, || {
            if !handoff.wait() {
                return None;
            }
            let (c, f) = (input.get()?, take()?);
            Some(f(c))
        });
        let _ = input.set(first());
        handoff.set(READY);
        drop(abandon);
        let Some(c) = input.get() else {
            unreachable!("the input was set just above")
        };
        // Waiting is over when the helper has finished, and also while nobody has
        // taken the job: then this thread runs it after `work`, and nothing that
        // `work` holds back for it would be released any sooner.
        let t = match &helper {
            Ok(h) => work(c, &|| h.is_finished() || !taken.load(Ordering::Acquire)),
            Err(_) => work(c, &|| true),
        };
        let d = match take() {
            Some(f) => f(c),
            None => match helper.map(|h| h.join()) {
                Ok(Ok(Some(d))) => d,
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                // The helper took the job, so it returned its result or panicked.
                _ => unreachable!("the helper took the job and returned no result"),
            },
        };
        (t, d)
    });
    let Some(c) = input.into_inner() else {
        unreachable!("the input was set in the scope")
    };
    (c, t, d)
}

/// Start a helper thread named `name` in scope `s`, running `f` off this thread's CPU
/// (see [`avoid_cpu`]), with a stack of `stack` bytes (or the default, 2 MiB); `Err`
/// when no thread could be started.
///
/// A thread that needs little stack should say so: a fresh 2 MiB stack is faulted in
/// as one transparent huge page, which the kernel zeroes (0.2 ms in traces, while the
/// thread that started it waits in its yield, below).
///
/// A new thread is queued on the CPU of the thread that started it, and a scheduler
/// trace (`perf sched timehist`, docs/benchmarks.md) showed it waiting there 3.5 ms,
/// until this thread's time slice ended, before it could even move itself to the idle
/// CPU: the two threads then ran one after the other. So this thread yields once
/// after starting it: the helper runs, moves to another CPU, and this thread goes on.
/// When the helper was placed on another CPU from the start, the yield returns at once.
pub(crate) fn spawn_helper<'scope, T: Send + 'scope>(
    s: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    stack: Option<usize>,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    let here = current_cpu();
    let mut builder = std::thread::Builder::new().name(name.into());
    if let Some(bytes) = stack {
        builder = builder.stack_size(bytes);
    }
    let helper = builder.spawn_scoped(s, move || {
        avoid_cpu(here);
        f()
    });
    std::thread::yield_now();
    helper
}

/// The CPU this thread runs on, when the system says (Linux).
fn current_cpu() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sched_getcpu` takes no arguments and only reads the calling
        // thread's state; it returns -1 on failure.
        let cpu = unsafe { libc::sched_getcpu() };
        usize::try_from(cpu).ok()
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Keep the calling thread off `cpu` (the CPU the thread that started it was on),
/// when it may run on some other CPU: Linux only, and nothing happens on failure.
///
/// Left to the scheduler, the helper was often slow to take its job even when it was
/// polling: the job then went to the thread that made the context, after its own work,
/// and the two ran one after the other. Kept off that thread's CPU, the helper took it
/// at once: the report and contract phase of `symdim infer` went from 3.3 to 2.1 ms on
/// the 7k-node corpus model and from 1.7 to 1.2 ms on the 4k-node one (medians of 31
/// runs, docs/benchmarks.md). The other thread is not pinned, and the helper ends with
/// its job.
fn avoid_cpu(cpu: Option<usize>) {
    #[cfg(target_os = "linux")]
    if let Some(cpu) = cpu {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        if cpu >= 8 * size {
            return;
        }
        // SAFETY: `cpu_set_t` is a plain bit set, valid when zeroed; the calls get its
        // size and a pointer to it, and act on the calling thread only (pid 0); `cpu`
        // is within the set.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, size, &mut set) == 0
                && libc::CPU_COUNT(&set) > 1
                && libc::CPU_ISSET(cpu, &set)
            {
                libc::CPU_CLR(cpu, &mut set);
                libc::sched_setaffinity(0, size, &set);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cpu;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_the_same_whoever_runs_the_second_job() {
        for delay in [0u64, 1, 5] {
            let (c, t, d) = overlapped(
                || {
                    std::thread::sleep(Duration::from_millis(delay));
                    21
                },
                |c: &i32| c * 2,
                |c, _ready| c + 1,
            );
            assert_eq!((c, t, d), (21, 22, 42));
        }
    }

    #[test]
    fn the_helper_runs_the_second_job_when_work_waits_for_it() {
        // `work` waits (boundedly) for the helper: on a machine with a second CPU it
        // finishes the job; either way the result is the same.
        let (_, _, d) = overlapped(
            || 3,
            |c: &i32| c * 3,
            |_, ready| {
                let start = Instant::now();
                while !ready() && start.elapsed() < Duration::from_secs(2) {
                    std::thread::yield_now();
                }
            },
        );
        assert_eq!(d, 9);
    }

    /// How many CPUs the calling thread may run on, and whether `cpu` is one (Linux).
    #[cfg(target_os = "linux")]
    fn allowed(cpu: usize) -> (i32, bool) {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: as in `avoid_cpu`; `cpu` is below the set's 1024 bits in the tests.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
            (libc::CPU_COUNT(&set), libc::CPU_ISSET(cpu, &set))
        }
    }

    /// On Linux with two CPUs or more, a thread that avoids a CPU no longer may run on
    /// it, and runs elsewhere; a CPU index past the set, or none, changes nothing.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_helper_avoids_the_cpu_it_is_told_to() {
        std::thread::spawn(move || {
            let (count, on_0) = allowed(0);
            avoid_cpu(Some(1 << 20));
            avoid_cpu(None);
            assert_eq!(allowed(0), (count, on_0));
            avoid_cpu(Some(0));
            if count > 1 && on_0 {
                assert_eq!(allowed(0), (count - 1, false));
                assert_ne!(current_cpu(), Some(0));
            } else {
                assert_eq!(allowed(0), (count, on_0));
            }
        })
        .join()
        .unwrap();
    }

    /// A helper started by `spawn_helper` runs its function, off one of the CPUs
    /// this thread may use when there are two or more (Linux).
    #[test]
    fn a_spawned_helper_runs_off_one_cpu() {
        let count = || {
            #[cfg(target_os = "linux")]
            return allowed(0).0;
            #[cfg(not(target_os = "linux"))]
            1
        };
        let here = count();
        let there = std::thread::scope(|s| {
            spawn_helper(s, "test-helper", Some(64 << 10), || {
                assert_eq!(std::thread::current().name(), Some("test-helper"));
                count()
            })
            .unwrap()
            .join()
            .unwrap()
        });
        if cfg!(target_os = "linux") && here > 1 && current_cpu().is_some() {
            assert_eq!(there, here - 1);
        } else {
            assert_eq!(there, here);
        }
    }

    #[test]
    fn a_panic_in_the_first_job_ends_the_helper() {
        let r = std::panic::catch_unwind(|| {
            overlapped(
                || -> i32 { panic!("first failed") },
                |c: &i32| *c,
                |c, _| *c,
            )
        });
        assert!(r.is_err());
    }
}
