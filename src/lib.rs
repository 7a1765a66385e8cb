//! rsh: a restricted shell. Each line is parsed once with tree-sitter-bash, every simple command
//! is expanded and then decided against a TOML policy, and only then executed directly (never
//! through /bin/sh). The modules follow the pipeline: `parse` → `expand` → `policy`/`decide` →
//! `spawn`, orchestrated by `interp`; `cli` is the entry point. An earlier stage never imports a
//! later one.
#![deny(unsafe_code)]
