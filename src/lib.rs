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
