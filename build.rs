//! Builds the built-in default policy (`policy/default.toml`) with rsh's own policy loader,
//! and stores the result for rsh to start from (see `src/policy/compiled.rs`). A built-in
//! policy that does not load fails the build. The policy module is Linux code (it opens
//! directories with `O_PATH`, asks file systems whether they fold case), so the build host
//! runs Linux, as the target does.

use std::path::PathBuf;

// The policy module imports no other part of rsh, so it compiles on its own here.
#[path = "src/policy/mod.rs"]
#[allow(dead_code, unused_imports)]
mod policy;

fn main() {
    println!("cargo::rerun-if-changed=src/policy");
    println!("cargo::rerun-if-changed=policy/default.toml");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let stored = match policy::compile_built_in() {
        Ok(stored) => stored,
        Err(err) => panic!("the built-in policy does not load: {err}"),
    };
    std::fs::write(out.join("default-policy.bin"), stored).expect("OUT_DIR is writable");
}
