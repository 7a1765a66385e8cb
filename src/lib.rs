//! rsh: a restricted shell. Each line is parsed once with tree-sitter-bash, every simple command
//! is expanded and then decided against a TOML policy, and only then executed directly (never
//! through /bin/sh). The modules follow the pipeline: `parse` → `expand` → `policy`/`decide` →
//! `confirm` → `sandbox` → `spawn` → `audit`, orchestrated by `interp`; `cli` and `repl` are the entry points. An earlier stage
//! never imports a later one.
#![deny(unsafe_code)]

/// Descriptors from this number up belong to rsh itself (the programs it decided, Landlock
/// rulesets, the terminal, saved copies of redirected descriptors). Redirections may not name
/// them, so a command can neither swap nor borrow them.
pub const SHELL_FDS_FROM: std::os::fd::RawFd = 100;

/// An error number in the C library's words, which bash prints ("Bad file descriptor",
/// "Too many levels of symbolic links"); nix's own table words a few of them otherwise.
pub fn errno_text(errno: nix::errno::Errno) -> String {
    let text = std::io::Error::from_raw_os_error(errno as i32).to_string();
    match text.strip_suffix(&format!(" (os error {})", errno as i32)) {
        Some(words) => words.to_string(),
        None => errno.desc().to_string(),
    }
}

pub mod audit;
pub mod cli;
pub mod confirm;
pub mod decide;
pub mod expand;
pub mod interp;
pub mod lint;
pub mod parse;
pub mod policy;
pub mod redact;
pub mod repl;
pub mod sandbox;
pub mod spawn;
