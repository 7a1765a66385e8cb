//! A thread that starts on the processors the shell's own thread is not on.
//!
//! A new thread is queued on its creator's processor. On this kind of start the creator has
//! usually used up its time slice, so the new thread ran first, there, ahead of the shell: its
//! first steps (glibc's new memory arena, then moving itself away) took 30–60 µs of the
//! shell's time at every start, and before it moved itself, the whole layer as root. The
//! standard library's threads cannot be given their processors before they run; glibc's can
//! (`pthread_attr_setaffinity_np`): such a thread waits at its start until its creator has
//! moved it, so it never runs where the shell does.
#![allow(unsafe_code)]

use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A running thread whose result `join` takes.
pub struct Beside<T> {
    thread: libc::pthread_t,
    joined: bool,
    result: PhantomData<T>,
}

type Work<T> = Box<dyn FnOnce() -> T + Send>;

/// The processors this thread may run on, but for the one it runs on now; None with only
/// one.
pub fn other_processors() -> Option<libc::cpu_set_t> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: cpu_set_t is plain data, and the call gets its size.
    unsafe {
        let cpu = usize::try_from(libc::sched_getcpu()).ok()?;
        let mut allowed: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut allowed) != 0 {
            return None;
        }
        libc::CPU_CLR(cpu, &mut allowed);
        (libc::CPU_COUNT(&allowed) > 0).then_some(allowed)
    }
}

impl<T: Send + 'static> Beside<T> {
    /// Runs `work` on a new thread named `name`, kept on `processors` from its first
    /// instruction (None: wherever the scheduler puts it). None: no thread could be started.
    pub fn spawn(
        name: &std::ffi::CStr,
        processors: Option<&libc::cpu_set_t>,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<Beside<T>> {
        extern "C" fn start<T>(arg: *mut libc::c_void) -> *mut libc::c_void {
            // SAFETY: `arg` is the box `spawn` leaked for this thread alone.
            let work = unsafe { Box::from_raw(arg.cast::<Work<T>>()) };
            // A panic must not unwind into glibc: the thread then ends with no result.
            match catch_unwind(AssertUnwindSafe(work)) {
                Ok(result) => Box::into_raw(Box::new(result)).cast(),
                Err(_) => std::ptr::null_mut(),
            }
        }
        let work: *mut Work<T> = Box::into_raw(Box::new(Box::new(work)));
        // SAFETY: the attribute is initialised before use and destroyed after; the thread
        // takes ownership of `work`, which is reclaimed here only if it was not started.
        unsafe {
            let mut attr: libc::pthread_attr_t = std::mem::zeroed();
            if libc::pthread_attr_init(&mut attr) != 0 {
                drop(Box::from_raw(work));
                return None;
            }
            // The standard library's size for its threads' stacks.
            libc::pthread_attr_setstacksize(&mut attr, 2 << 20);
            if let Some(processors) = processors {
                let size = std::mem::size_of::<libc::cpu_set_t>();
                libc::pthread_attr_setaffinity_np(&mut attr, size, processors);
            }
            let mut thread: libc::pthread_t = 0;
            let started = libc::pthread_create(&mut thread, &attr, start::<T>, work.cast());
            libc::pthread_attr_destroy(&mut attr);
            if started != 0 {
                drop(Box::from_raw(work));
                return None;
            }
            libc::pthread_setname_np(thread, name.as_ptr());
            Some(Beside {
                thread,
                joined: false,
                result: PhantomData,
            })
        }
    }

    /// Waits for the thread to end. None: its work panicked.
    pub fn join(mut self) -> Option<T> {
        let mut result: *mut libc::c_void = std::ptr::null_mut();
        // SAFETY: the thread was started by `spawn` and is joined once (`joined`).
        let ended = unsafe { libc::pthread_join(self.thread, &mut result) };
        self.joined = true;
        if ended != 0 || result.is_null() {
            return None;
        }
        // SAFETY: a non-null result is the box `start::<T>` leaked.
        Some(*unsafe { Box::from_raw(result.cast::<T>()) })
    }

    /// The thread's id, for tests.
    #[cfg(test)]
    fn id(&self) -> libc::pthread_t {
        self.thread
    }
}

impl<T> Drop for Beside<T> {
    /// A thread never joined runs on to its end on its own (its result is not freed).
    fn drop(&mut self) {
        if !self.joined {
            // SAFETY: a started thread, neither joined nor detached before.
            unsafe { libc::pthread_detach(self.thread) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_result_comes_back_and_a_panic_gives_none() {
        let thread = Beside::spawn(c"test", None, || 6 * 7).expect("a thread");
        assert_eq!(thread.join(), Some(42));
        let thread =
            Beside::spawn(c"test", None, || -> u8 { panic!("on purpose") }).expect("a thread");
        assert_eq!(thread.join(), None);
    }

    /// The thread runs only where it was put, from its first instruction on.
    #[test]
    fn the_thread_runs_on_the_processors_given() {
        let Some(others) = other_processors() else {
            eprintln!("SKIPPED: one processor only, nowhere else to run a thread");
            return;
        };
        let thread = Beside::spawn(c"test", Some(&others), move || {
            // SAFETY: plain calls on this thread.
            unsafe {
                let cpu = usize::try_from(libc::sched_getcpu()).expect("a processor");
                libc::CPU_ISSET(cpu, &others)
            }
        })
        .expect("a thread");
        assert_ne!(thread.id(), 0);
        assert_eq!(thread.join(), Some(true));
    }
}
