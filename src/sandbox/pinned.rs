//! Threads started on given processors (`Pinned`), for the file-system layer's thread.
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A thread started on given processors: glibc sets them while the new thread waits on a
/// lock, before it runs any of its own code. A thread moved once running (as
/// `std::thread` would leave it to) often ran first on its creator's processor, keeping the
/// shell off it for ~70 µs, and was then moved by the kernel's migration thread.
///
/// The thread runs with every signal blocked: it is detached once its function has returned
/// (see `ended_with`), and while it ends, a signal sent to rsh (SIGCHLD, which the shell
/// takes with `sigtimedwait`, or a `kill`) could otherwise be delivered to it and lost.
pub(super) struct Pinned<T> {
    thread: libc::pthread_t,
    /// What the thread runs and leaves: owned here, used by the thread until `done` says.
    start: *mut Start<T>,
    done: Arc<Done>,
}

struct Start<T> {
    name: &'static std::ffi::CStr,
    run: Option<Box<dyn FnOnce() -> T + Send>>,
    result: Option<std::thread::Result<T>>,
    done: Arc<Done>,
}

/// That the thread is done with its `Start`, its result in it. Shared, so that the thread can
/// still wake the shell once the `Start` may be gone.
#[derive(Default)]
struct Done {
    ended: AtomicBool,
    lock: Mutex<()>,
    woken: Condvar,
}

extern "C" fn run_started<T>(start: *mut libc::c_void) -> *mut libc::c_void {
    let start = start.cast::<Start<T>>();
    // SAFETY: `Pinned` leaves its `Start` alone until `ended` is set; after that the thread
    // no longer touches it. Fields are reached through the pointer.
    let done = unsafe {
        libc::prctl(libc::PR_SET_NAME, (*start).name.as_ptr());
        if let Some(run) = (*start).run.take() {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
            (*start).result = Some(result);
        }
        Arc::clone(&(*start).done)
    };
    done.ended.store(true, Ordering::Release);
    let _held = done.lock.lock().unwrap_or_else(PoisonError::into_inner);
    done.woken.notify_all();
    std::ptr::null_mut()
}

impl<T: Send + 'static> Pinned<T> {
    /// On `cpus` if it can be, anywhere otherwise; None when no thread could be started.
    pub(super) fn spawn(
        cpus: Option<&libc::cpu_set_t>,
        name: &'static std::ffi::CStr,
        run: impl FnOnce() -> T + Send + 'static,
    ) -> Option<Pinned<T>> {
        let done = Arc::new(Done::default());
        let start = Box::into_raw(Box::new(Start {
            name,
            run: Some(Box::new(run)),
            result: None,
            done: Arc::clone(&done),
        }));
        let mut thread = Self::create(cpus, start);
        if thread.is_none() && cpus.is_some() {
            thread = Self::create(None, start);
        }
        match thread {
            Some(thread) => Some(Pinned {
                thread,
                start,
                done,
            }),
            None => {
                // SAFETY: no thread was started with it: still ours alone.
                drop(unsafe { Box::from_raw(start) });
                None
            }
        }
    }

    fn create(cpus: Option<&libc::cpu_set_t>, start: *mut Start<T>) -> Option<libc::pthread_t> {
        // SAFETY: the attributes are initialized before use and destroyed after; the caller
        // keeps `start` valid until the thread is joined.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            libc::pthread_attr_init(&mut attr);
            libc::pthread_attr_setstacksize(&mut attr, 2 << 20);
            if let Some(cpus) = cpus {
                let size = std::mem::size_of::<libc::cpu_set_t>();
                libc::pthread_attr_setaffinity_np(&mut attr, size, cpus);
            }
            let mut thread: libc::pthread_t = 0;
            // The new thread inherits the mask: every signal blocked from its first
            // instruction (see `Pinned`).
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
            let rc = libc::pthread_create(&mut thread, &attr, run_started::<T>, start.cast());
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
            libc::pthread_attr_destroy(&mut attr);
            (rc == 0).then_some(thread)
        }
    }

    /// What the thread's function returned, or its panic. See `ended_with`.
    pub(super) fn join(self) -> std::thread::Result<T> {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: taken here, and not again: the drop is skipped.
        let start = unsafe { this.ended_with() };
        start
            .result
            .unwrap_or_else(|| Err(Box::new("the thread did not run")))
    }
}

/// How long a wait for the thread yields the processor before it sleeps: longer than the
/// thread takes to grant around /etc as root, short enough that a thread held up (a slow
/// password database, a slow mount) does not keep a processor busy.
pub(super) const SPIN: Duration = Duration::from_millis(3);

/// Yields the processor until `done` says so, for `SPIN` at most; whether it did.
pub(super) fn yield_until(mut done: impl FnMut() -> bool) -> bool {
    let since = Instant::now();
    while !done() {
        if since.elapsed() >= SPIN {
            return false;
        }
        std::thread::yield_now();
    }
    true
}

impl<T> Pinned<T> {
    /// Whether the thread's function has returned (or panicked).
    pub(super) fn ended(&self) -> bool {
        self.done.ended.load(Ordering::Acquire)
    }

    /// Waits until the thread is done with its function (yielding the processor for up to
    /// `SPIN`, then asleep), then takes back what it ran; the thread is detached and ends by
    /// itself. Not joined: its end (thread-local destructors, its stack given back, its
    /// namespace let go) took the waiting shell about 60 µs more, on the path of the first
    /// program.
    ///
    /// # Safety
    /// Once only for each `Pinned`.
    unsafe fn ended_with(&self) -> Box<Start<T>> {
        yield_until(|| self.ended());
        let mut held = self
            .done
            .lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while !self.ended() {
            held = self
                .done
                .woken
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        drop(held);
        // SAFETY: the thread no longer touches `start` once it has set `ended`; the caller
        // asks once. Detaching a thread that has ended, or is ending, is allowed.
        unsafe {
            libc::pthread_detach(self.thread);
            Box::from_raw(self.start)
        }
    }
}

impl<T> Drop for Pinned<T> {
    fn drop(&mut self) {
        // SAFETY: a `Pinned` that was joined is not dropped (see `join`).
        drop(unsafe { self.ended_with() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pinned thread runs on the processors it was given from its start, is named, and
    /// hands back what it returned, or its panic.
    #[test]
    fn a_pinned_thread_starts_where_it_was_put() {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: cpu_set_t is plain data, and each call gets its size.
        let mine = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, size, &mut set), 0);
            set
        };
        let last = (0..libc::CPU_SETSIZE as usize)
            .rev()
            // SAFETY: reads a bit of a whole cpu_set_t.
            .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &mine) })
            .unwrap();
        // SAFETY: as above.
        let only_last = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(last, &mut set);
            set
        };
        let thread = Pinned::spawn(Some(&only_last), c"rsh-test", move || {
            // SAFETY: as above; the thread asks about itself.
            let (cpu, allowed) = unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::sched_getaffinity(0, size, &mut set);
                (libc::sched_getcpu(), set)
            };
            let name = std::fs::read_to_string("/proc/thread-self/comm").unwrap();
            // SAFETY: counts the bits of a whole cpu_set_t.
            (cpu, unsafe { libc::CPU_COUNT(&allowed) }, name)
        });
        let (cpu, allowed, name) = thread.unwrap().join().unwrap();
        assert_eq!(
            (cpu as usize, allowed, name.as_str()),
            (last, 1, "rsh-test\n")
        );
        let panicked = Pinned::<()>::spawn(None, c"rsh-test", || panic!("on purpose"));
        assert!(panicked.unwrap().join().is_err());
    }

    /// The thread takes no signal meant for the shell (SIGCHLD lost to it once stalled a
    /// shell until its timeout), and a thread held up is waited for asleep, not spun for.
    #[test]
    fn a_pinned_thread_blocks_every_signal_and_is_waited_for() {
        let thread = Pinned::spawn(None, c"rsh-test", || {
            std::thread::sleep(SPIN * 3);
            // SAFETY: sigset_t is plain data; the call only writes the current mask.
            unsafe {
                let mut mask: libc::sigset_t = std::mem::zeroed();
                libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask);
                [libc::SIGCHLD, libc::SIGTERM, libc::SIGINT, libc::SIGHUP]
                    .map(|sig| libc::sigismember(&mask, sig))
            }
        })
        .unwrap();
        assert!(!thread.ended());
        assert_eq!(thread.join().unwrap(), [1, 1, 1, 1]);
    }
}
