//! Parse and decide, over the nl2bash corpus (about 12,600 real one-liners) with the built-in
//! default policy: what rsh spends on a line before anything runs, reported in lines per
//! second. Three cases:
//!
//! - parse + decide, each line's commands decided afresh (an empty cache for every pass);
//! - parse + decide, every decision already cached (a line seen before);
//! - decide alone, cache hits only.
//!
//! Programs are looked up once, before timing: finding a file on the search path is the file
//! system's cost, measured with the whole process in `startup`. Words that are only known
//! after expansion (`$x`, `$(…)`) are decided as written.
//!
//! The corpus lives outside the repository (`../shared/corpus/nl2bash/all.cm`, or under
//! `RSH_SHARED_DIR`); without it the benchmark says it was skipped.

use std::collections::HashMap;
use std::hint::black_box;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rsh::decide::{Cache, Program, Request};
use rsh::parse::{self, AndOr, Command, Compound, List};
use rsh::policy::{DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, Policy};

/// A program as the shell would present it to `decide`.
enum Found {
    Builtin,
    File { path: PathBuf, dev: u64, ino: u64 },
    Missing,
}

fn corpus() -> Option<String> {
    let shared = match std::env::var_os("RSH_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    let file = shared.join("corpus/nl2bash/all.cm");
    match std::fs::read_to_string(&file) {
        Ok(text) => Some(text),
        Err(e) => {
            eprintln!(
                "\n*** SKIPPED: nl2bash corpus not readable at {}: {e} (set RSH_SHARED_DIR) ***\n",
                file.display()
            );
            None
        }
    }
}

/// The argv of every simple command of a list, as written, in order.
fn commands(list: &List, out: &mut Vec<Vec<String>>) {
    for and_or in list {
        pipelines(and_or, out);
    }
}

fn pipelines(and_or: &AndOr, out: &mut Vec<Vec<String>>) {
    let all = std::iter::once(&and_or.first).chain(and_or.rest.iter().map(|(_, p)| p));
    for pipeline in all {
        for command in &pipeline.commands {
            match command {
                Command::Simple(simple) => {
                    let argv: Vec<String> = simple
                        .words
                        .iter()
                        .map(|w| w.static_text().unwrap_or_else(|| "$?".to_owned()))
                        .collect();
                    if !argv.is_empty() {
                        out.push(argv);
                    }
                }
                Command::Compound(compound) => match &compound.kind {
                    Compound::Group(list) | Compound::Subshell(list) => commands(list, out),
                    _ => {}
                },
                Command::FunctionDef(_) => {}
            }
        }
    }
}

/// Parses a line and decides each of its commands; returns how many were decided.
fn parse_and_decide(
    policy: &Policy,
    cache: &mut Cache,
    found: &HashMap<String, Found>,
    line: &str,
) -> usize {
    let Ok(program) = parse::parse(line) else {
        return 0;
    };
    let mut argvs = Vec::new();
    commands(&program.body, &mut argvs);
    argvs
        .iter()
        .filter(|argv| decide_one(policy, cache, found, argv))
        .count()
}

fn decide_one(
    policy: &Policy,
    cache: &mut Cache,
    found: &HashMap<String, Found>,
    argv: &[String],
) -> bool {
    let program = match found.get(&argv[0]) {
        Some(Found::Builtin) => Program::Builtin(&argv[0]),
        Some(Found::File { path, dev, ino }) => Program::External {
            path,
            dev: *dev,
            ino: *ino,
        },
        Some(Found::Missing) | None => return false,
    };
    black_box(cache.decide(policy, &Request { argv, program }));
    true
}

/// Looks up every command name of the corpus on the policy's search path, once.
fn look_up(policy: &Policy, lines: &[&str]) -> HashMap<String, Found> {
    let mut found = HashMap::new();
    for line in lines {
        let Ok(program) = parse::parse(line) else {
            continue;
        };
        let mut argvs = Vec::new();
        commands(&program.body, &mut argvs);
        for argv in argvs {
            found
                .entry(argv[0].clone())
                .or_insert_with(|| find(policy, &argv[0]));
        }
    }
    found
}

fn find(policy: &Policy, name: &str) -> Found {
    if rsh::interp::builtins::lookup(name).is_some() {
        return Found::Builtin;
    }
    let dirs = policy.search_path().unwrap_or_default();
    let candidates: Vec<PathBuf> = if name.contains('/') {
        vec![PathBuf::from(name)]
    } else {
        dirs.iter().map(|d| d.join(name)).collect()
    };
    candidates
        .into_iter()
        .find_map(|c| {
            let path = std::fs::canonicalize(&c).ok()?;
            let meta = std::fs::metadata(&path).ok()?;
            meta.is_file().then(|| Found::File {
                dev: meta.dev(),
                ino: meta.ino(),
                path,
            })
        })
        .unwrap_or(Found::Missing)
}

fn bench(c: &mut Criterion) {
    let Some(text) = corpus() else { return };
    let lines: Vec<&str> = text.lines().collect();
    let policy =
        Policy::from_toml(DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, None).expect("default policy");
    let found = look_up(&policy, &lines);
    let mut warm = Cache::new(1 << 16);
    let decided: usize = lines
        .iter()
        .map(|line| parse_and_decide(&policy, &mut warm, &found, line))
        .sum();
    eprintln!(
        "nl2bash: {} lines, {decided} commands decided ({} distinct programs looked up)",
        lines.len(),
        found.len()
    );

    let mut group = c.benchmark_group("nl2bash, default policy");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.sample_size(10);
    group.bench_function("parse + decide, nothing cached", |b| {
        b.iter(|| {
            let mut cache = Cache::new(1 << 16);
            for line in &lines {
                black_box(parse_and_decide(&policy, &mut cache, &found, line));
            }
        })
    });
    group.bench_function("parse + decide, every decision cached", |b| {
        b.iter(|| {
            for line in &lines {
                black_box(parse_and_decide(&policy, &mut warm, &found, line));
            }
        })
    });
    let argvs: Vec<Vec<String>> = lines
        .iter()
        .filter_map(|line| parse::parse(line).ok())
        .flat_map(|program| {
            let mut argvs = Vec::new();
            commands(&program.body, &mut argvs);
            argvs
        })
        .collect();
    group.bench_function("decide alone, every decision cached", |b| {
        b.iter(|| {
            for argv in &argvs {
                decide_one(&policy, &mut warm, &found, argv);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
