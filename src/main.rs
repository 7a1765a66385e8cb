//! The rsh binary: everything lives in the library; this only maps the result to an exit code.
//!
//! `main` is the C entry point rather than Rust's: the standard library's start-up before a
//! Rust `main` finds the main thread's stack by reading and parsing /proc/self/maps and sets
//! up a handler for stack overflows (and an alternate signal stack for every thread), a tenth
//! of a millisecond or more of every start of rsh. rsh bounds its own recursion (the
//! parser's `MAX_DEPTH`, the interpreter's `MAX_CALL_DEPTH`), and ends itself with
//! `process::exit`, which flushes what the standard library buffered; the arguments are
//! still there through `std::env::args_os`, which glibc hands the standard library before
//! `main` runs.

#![no_main]

#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    let status = rsh::cli::main(std::env::args_os().collect());
    std::process::exit(status);
}
