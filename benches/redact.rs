//! Throughput of output redaction, whole processes: `rsh -c 'cat FILE'` with `[output]
//! redact = true` against `cat FILE`, both read through a pipe by this process, run
//! alternately. FILE is 64 MiB of rsh's own sources and docs, repeated: text with `=`, `:`,
//! "token" and "key" in it, which the patterns have to look at. Run with
//! `cargo bench --bench redact`; the numbers of record are in benches/README.md.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
const SIZE: usize = 64 << 20;
const ROUNDS: usize = 10;

/// Runs `argv`, reads everything it writes; the time and the byte count.
fn run(argv: &[&str], dir: &Path) -> (Duration, usize) {
    let started = Instant::now();
    let mut child = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start");
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 16];
    let mut total = 0;
    loop {
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(child.wait().unwrap().success());
    (started.elapsed(), total)
}

fn corpus() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut text = Vec::new();
    for dir in ["src", "src/interp", "src/policy", "man", "policy"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            text.extend(std::fs::read(file).unwrap());
        }
    }
    let mut out = Vec::with_capacity(SIZE);
    while out.len() < SIZE {
        out.extend_from_slice(&text);
    }
    out.truncate(SIZE);
    out
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data"), corpus()).unwrap();
    std::fs::write(
        dir.path().join("policy.toml"),
        "[shell]\nunknown = \"allow\"\n[sandbox]\nmode = \"off\"\n[output]\nredact = true\n",
    )
    .unwrap();
    let policy = dir.path().join("policy.toml");
    let policy = policy.to_str().unwrap();
    let cases: [(&str, Vec<&str>); 2] = [
        ("cat FILE", vec!["cat", "data"]),
        (
            "rsh -c 'cat FILE' ([output] redact = true)",
            vec![RSH, "--policy", policy, "-c", "cat data"],
        ),
    ];
    let mut times = vec![Vec::new(); cases.len()];
    for _ in 0..ROUNDS {
        for (i, (_, argv)) in cases.iter().enumerate() {
            let (took, bytes) = run(argv, dir.path());
            assert!(bytes > SIZE / 2, "{argv:?} wrote {bytes} bytes");
            times[i].push(took);
        }
    }
    println!(
        "{ROUNDS} alternating runs each, {} MiB read through a pipe",
        SIZE >> 20
    );
    let mut baseline = 0.0;
    for ((name, _), times) in cases.iter().zip(&mut times) {
        times.sort();
        let median = times[times.len() / 2].as_secs_f64();
        let rate = SIZE as f64 / median / (1 << 20) as f64;
        if baseline == 0.0 {
            baseline = rate;
        }
        println!(
            "{name:<45} {:>8.1} ms {rate:>8.0} MiB/s {:>6.2}x",
            median * 1e3,
            rate / baseline
        );
    }
}
