//! In-process costs of what rsh does before it starts a program: loading the policy, deciding,
//! and building the confinement (Landlock layers, seccomp filter). Run with `cargo bench
//! --bench confinement`; the numbers of record are in benches/README.md.

use std::hint::black_box;
use std::os::fd::AsFd;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use rsh::decide::{self, CommandProfile, Program, Request};
use rsh::policy::{DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, Policy, Unresolved};
use rsh::sandbox::Sandbox;
use rsh::sandbox::seccomp::{EMPTY_PATH, Filter, SeccompProfile};

const PLAIN: CommandProfile = CommandProfile {
    network: false,
    unix_sockets: false,
    subprocesses: false,
};

fn default_policy() -> Policy {
    Policy::from_toml(DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, None).expect("default policy")
}

fn new_sandbox(policy: &Policy) -> Sandbox {
    let workdir = std::env::current_dir().expect("current directory");
    Sandbox::new(policy.sandbox(), Some(Path::new("/root")), &workdir)
        .expect("this kernel confines")
}

fn policy(c: &mut Criterion) {
    c.bench_function("load the default policy", |b| {
        b.iter(|| black_box(default_policy()))
    });
    // What rsh starts from when no policy file exists (see src/policy/compiled.rs).
    let stored = include_bytes!(concat!(env!("OUT_DIR"), "/default-policy.bin"));
    c.bench_function("load the built-in policy from its stored form", |b| {
        b.iter(|| {
            let policy = Unresolved::built_in_then(stored, None, &mut |_| {});
            black_box(policy.expect("built-in policy").resolve())
        })
    });
    let policy = default_policy();
    let ls = std::fs::canonicalize("/bin/ls").expect("/bin/ls");
    let meta = std::fs::metadata(&ls).expect("/bin/ls");
    let argv: Vec<String> = ["ls", "-la", "src"].map(String::from).to_vec();
    c.bench_function("decide `ls -la src`", |b| {
        use std::os::unix::fs::MetadataExt;
        b.iter(|| {
            black_box(decide::decide(
                &policy,
                &Request {
                    argv: &argv,
                    program: Program::External {
                        path: &ls,
                        dev: meta.dev(),
                        ino: meta.ino(),
                    },
                },
            ))
        })
    });
}

fn confinement(c: &mut Criterion) {
    let policy = default_policy();
    let program = std::fs::File::open("/bin/true").expect("/bin/true");
    // The paths are made canonical when first needed (on the layer's thread in a session):
    // asking whether `/` may be read makes them so.
    c.bench_function("resolve the sandbox settings (Sandbox::new)", |b| {
        b.iter(|| {
            let sandbox = new_sandbox(&policy);
            let _ = black_box(sandbox.permits(Path::new("/"), false));
            sandbox
        })
    });
    // The first program of a session builds the file-system layer, its command layer and its
    // seccomp filter; later ones reuse them.
    c.bench_function("confine the first program of a session", |b| {
        b.iter_batched(
            || new_sandbox(&policy),
            |mut sandbox| black_box(sandbox.confine(program.as_fd(), 1, 1, &[], PLAIN)),
            BatchSize::SmallInput,
        )
    });
    let mut sandbox = new_sandbox(&policy);
    sandbox
        .confine(program.as_fd(), 1, 1, &[], PLAIN)
        .expect("confine");
    c.bench_function("confine a later program (cached layers)", |b| {
        b.iter(|| black_box(sandbox.confine(program.as_fd(), 1, 1, &[], PLAIN)))
    });
    // The profile of a plain program: no network, no programs of its own.
    let profile = SeccompProfile {
        network: false,
        unix_sockets: false,
        subprocesses: false,
    };
    let ptr = EMPTY_PATH.as_ptr() as usize;
    c.bench_function("compile a seccomp filter", |b| {
        b.iter(|| black_box(Filter::build(profile, ptr)))
    });
    // What rsh does instead: the programs compiled when it was built, the address put in.
    let stored = include_bytes!(concat!(env!("OUT_DIR"), "/seccomp-programs.bin"));
    c.bench_function("a seccomp filter from the stored programs", |b| {
        b.iter(|| black_box(Filter::from_stored(stored, profile, ptr)))
    });
}

criterion_group!(benches, policy, confinement);
criterion_main!(benches);
