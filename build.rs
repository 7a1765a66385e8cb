//! Builds the built-in default policy (`policy/default.toml`) with rsh's own policy loader,
//! and stores the result for rsh to start from (see `src/policy/compiled.rs`). A built-in
//! policy that does not load fails the build. The policy module is Linux code (it opens
//! directories with `O_PATH`, asks file systems whether they fold case), so the build host
//! runs Linux, as the target does.
//!
//! It also compiles the seccomp programs of every profile (see `src/sandbox/seccomp.rs`,
//! `stored_programs`), and has the unwinder linked statically where it can (see
//! `link_unwinder_statically`).

use std::path::PathBuf;

// The policy module imports no other part of rsh, so it compiles on its own here.
#[path = "src/policy/mod.rs"]
#[allow(dead_code, unused_imports)]
mod policy;

// The seccomp module compiles on its own too; rsh starts from the programs it stores here.
#[path = "src/sandbox/seccomp.rs"]
#[allow(dead_code, unused_imports)]
mod seccomp;

fn main() {
    println!("cargo::rerun-if-changed=src/policy");
    println!("cargo::rerun-if-changed=src/sandbox/seccomp.rs");
    println!("cargo::rerun-if-changed=policy/default.toml");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let stored = match policy::compile_built_in() {
        Ok(stored) => stored,
        Err(err) => panic!("the built-in policy does not load: {err}"),
    };
    std::fs::write(out.join("default-policy.bin"), stored).expect("OUT_DIR is writable");
    std::fs::write(out.join("seccomp-programs.bin"), seccomp::stored_programs())
        .expect("OUT_DIR is writable");
    link_unwinder_statically(&out);
}

/// Rust's standard library links the unwinder from `libgcc_s.so.1`, whose constructor asks
/// the processor for its features with a dozen `cpuid` instructions (each a trap to the
/// hypervisor on a virtual machine: about 5 µs here); with the library's loading, a tenth
/// of a millisecond of every start of rsh. A `libgcc_s.so` of our own, found before the
/// system's, is a linker script that takes the same unwinder from the static `libgcc_eh.a`.
/// Only where the C compiler that links has that archive, and not when cross-compiling.
fn link_unwinder_statically(out: &std::path::Path) {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
        || var("TARGET") != var("HOST")
    {
        return;
    }
    let Ok(found) = std::process::Command::new("cc")
        .arg("-print-file-name=libgcc_eh.a")
        .output()
    else {
        return;
    };
    let archive = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    if !found.status.success() || !archive.is_absolute() || !archive.is_file() {
        return;
    }
    let dir = out.join("unwinder");
    std::fs::create_dir_all(&dir).expect("OUT_DIR is writable");
    let script = format!("INPUT({})\n", archive.display());
    std::fs::write(dir.join("libgcc_s.so"), script).expect("OUT_DIR is writable");
    println!("cargo::rustc-link-search=native={}", dir.display());
}
