//! rsh's own end, without making its caller wait for the memory to be undone.
//!
//! When a process exits, the kernel unmaps its memory and closes its descriptors before its
//! parent learns of the exit. For rsh that is a quarter of a millisecond (the pages of a 7 MB
//! binary mapped by fault-around, the heap, the Landlock rulesets), more than the whole exit
//! of a small C program, and the caller (an agent waiting for `rsh -c`, sshd, a script) waits
//! for all of it.
//!
//! So, as the mold linker does for its output, rsh leaves that work to a helper: a process
//! that shares rsh's memory (`CLONE_VM`) and holds it while rsh exits. rsh's exit then only
//! drops its reference, and the caller learns of it at once. The helper closes its copies of
//! the descriptors (so that a pipe from rsh sees its end when rsh ends) except the read end
//! of a pipe whose write end only rsh holds, and reads from it: the read returns when rsh is
//! gone, whichever of the two got there first, and the helper's own exit undoes the memory,
//! beside the caller rather than before it. The processor time is the same.
//!
//! The helper makes raw system calls only, on a stack of its own: it shares rsh's memory,
//! thread pointer included, and must not touch what rsh's exit is using (not even `errno`).
//! All signals are blocked before it starts, so no handler of rsh's runs in it. Where the
//! helper cannot be created (a process limit, a tool such as valgrind that refuses the
//! flags), rsh simply exits.
#![allow(unsafe_code)]

use std::io::Write;

/// The helper's stack. It runs a few system calls; no frame of rsh's is ever on it.
const STACK_SIZE: usize = 16 * 1024;

#[repr(C, align(16))]
struct Stack([u8; STACK_SIZE]);

static mut HELPER_STACK: Stack = Stack([0; STACK_SIZE]);

/// Ends rsh with `status`, leaving the undoing of its memory to a helper (see the module).
pub fn exit(status: i32) -> ! {
    // Written out while signals can still interrupt a write that blocks.
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    hand_over_memory();
    std::process::exit(status)
}

fn hand_over_memory() {
    let mut ends = [0; 2];
    // SAFETY: pipe2 into a local array; sigfillset and sigprocmask on a local set; clone with
    // a stack that nothing else uses (rsh is ending: this runs once), and a function that
    // makes raw system calls only.
    unsafe {
        if libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return;
        }
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::sigprocmask(libc::SIG_SETMASK, &all, std::ptr::null_mut());
        let top = (&raw mut HELPER_STACK).cast::<u8>().add(STACK_SIZE);
        libc::clone(
            helper,
            top.cast(),
            libc::CLONE_VM | libc::SIGCHLD,
            ends[0] as usize as *mut libc::c_void,
        );
    }
}

/// The helper's body: hold rsh's memory until rsh is gone. `until` is the read end of a pipe
/// whose write end rsh alone keeps once the helper has closed its own copy.
extern "C" fn helper(until: *mut libc::c_void) -> libc::c_int {
    let until = until as usize;
    let mut byte = 0u8;
    // SAFETY: raw system calls with integer arguments, and a read into a local byte.
    unsafe {
        // Without close_range (Linux < 5.9) the helper would keep the write end open and
        // wait forever: it ends at once instead, and the undoing falls to rsh again.
        let below = until == 0 || raw_syscall(libc::SYS_close_range, 0, until - 1, 0) == 0;
        let above = raw_syscall(libc::SYS_close_range, until + 1, u32::MAX as usize, 0) == 0;
        if !(below && above) {
            raw_syscall(libc::SYS_exit, 0, 0, 0);
        }
        // Signals are blocked: nothing interrupts it before rsh's end.
        raw_syscall(libc::SYS_read, until, (&raw mut byte) as usize, 1);
        raw_syscall(libc::SYS_exit, 0, 0, 0);
    }
    0
}

/// A system call that leaves `errno` alone (the helper shares rsh's thread-local storage).
///
/// # Safety
/// The arguments must be what the call expects: integers, or a pointer to memory it may use.
unsafe fn raw_syscall(number: libc::c_long, a: usize, b: usize, c: usize) -> isize {
    let ret: isize;
    // SAFETY: the x86_64 system call convention; rcx and r11 are clobbered by `syscall`.
    unsafe {
        std::arch::asm!(
            "syscall",
            inlateout("rax") number as isize => ret,
            in("rdi") a,
            in("rsi") b,
            in("rdx") c,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret
}
