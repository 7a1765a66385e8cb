//! Parser coverage over the nl2bash corpus: about 12,600 real-world bash one-liners, kept
//! outside the repository in `shared/corpus/nl2bash/all.cm` (see its README).
//!
//! Every line must parse without panicking, to either a program or a clean refusal: a syntax
//! error, an unsupported construct named by the error, or a problem with the input itself.
//! Most lines must parse, so a regression in the parser fails the test, and the whole corpus
//! must parse quickly. A summary is printed and written to `target/corpus-report.md`.
//!
//! The corpus is parsed once; `nl2bash_corpus_parses` checks coverage, refusals and speed, and
//! `nl2bash_corpus_never_panics` that no line panics.
//!
//! `RSH_SHARED_DIR` overrides the location of `shared/`; without the corpus the tests say
//! they were skipped and pass.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use rsh::parse::{ParseError, Program};

/// Today about 97% of the lines parse.
const MIN_PARSED_PERCENT: f64 = 95.0;
/// The corpus parses in about 0.5 s in a release build and 1.5 s in a debug build; the margin
/// is for a loaded machine.
const MAX_DURATION: Duration = Duration::from_secs(10);
/// Lines quoted per group in the report.
const EXAMPLES: usize = 3;

#[test]
fn nl2bash_corpus_parses() {
    let Some(run) = corpus_run() else { return };
    let tally = &run.tally;
    if !tally.panics.is_empty() {
        say(&format!(
            "\n*** WARNING: the parser panicked on {} corpus line(s); see the report ***\n",
            tally.panics.len()
        ));
    }
    assert!(
        tally.unexpected.is_empty(),
        "errors that are neither syntax errors, unsupported constructs nor input problems:\n{}",
        tally.unexpected.join("\n")
    );
    let percent = tally.percent(tally.parsed);
    assert!(
        percent >= MIN_PARSED_PERCENT,
        "only {percent:.1}% of the corpus parses ({} of {}); at least {MIN_PARSED_PERCENT}% should",
        tally.parsed,
        tally.total
    );
    assert!(
        run.elapsed < MAX_DURATION,
        "parsing the corpus took {:.2?}, more than {MAX_DURATION:?}",
        run.elapsed
    );
}

#[test]
fn nl2bash_corpus_never_panics() {
    let Some(run) = corpus_run() else { return };
    assert!(
        run.tally.panics.is_empty(),
        "the parser panicked on {} corpus line(s):\n{}",
        run.tally.panics.len(),
        run.tally.panics.join("\n")
    );
}

/// The outcome of parsing the whole corpus.
struct Run {
    tally: Tally,
    elapsed: Duration,
}

/// Parses the corpus once for all tests; None when it is not there.
fn corpus_run() -> Option<&'static Run> {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    RUN.get_or_init(|| {
        let path = corpus_file()?;
        let run = parse_corpus(&path);
        let report = run.tally.report(&path, run.elapsed);
        say(&report);
        write_output("corpus-report.md", &report);
        Some(run)
    })
    .as_ref()
}

fn parse_corpus(path: &Path) -> Run {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|line| line.is_empty()) {
        // The piece after the final newline.
        lines.pop();
    }
    let mut tally = Tally::default();
    // Panics are caught and reported with their line; the default hook would only add noise.
    // (Other tests of this binary wait for this run, so they do not lose their messages.)
    let previous_hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    for (index, line) in lines.iter().enumerate() {
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| parse_line(line)));
        tally.record(index + 1, line, outcome);
    }
    let elapsed = started.elapsed();
    panic::set_hook(previous_hook);
    Run { tally, elapsed }
}

/// A line as text when it is UTF-8 (every line of the corpus is); otherwise the byte parser
/// reports where the encoding breaks.
fn parse_line(line: &[u8]) -> Result<Program, ParseError> {
    match std::str::from_utf8(line) {
        Ok(text) => rsh::parse::parse(text),
        Err(_) => rsh::parse::parse_bytes(line),
    }
}

fn corpus_file() -> Option<PathBuf> {
    let shared = match std::env::var_os("RSH_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    let file = shared.join("corpus/nl2bash/all.cm");
    if file.is_file() {
        return Some(file);
    }
    say(&format!(
        "\n*** SKIPPED: nl2bash corpus not found at {} (set RSH_SHARED_DIR) ***\n",
        file.display()
    ));
    None
}

/// The start of an `Input` error's message for each problem the parser reports about its
/// input rather than its syntax.
const INPUT_PROBLEMS: &[&str] = &[
    "input contains a NUL byte",
    "input is not valid UTF-8",
    "input too large",
    "nesting deeper than",
    "the parser gave up",
];

#[derive(Default)]
struct Group {
    count: usize,
    examples: Vec<String>,
}

impl Group {
    fn add(&mut self, number: usize, line: &str) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(format!("{number}: {}", shorten(line)));
        }
    }
}

#[derive(Default)]
struct Tally {
    total: usize,
    parsed: usize,
    /// By construct.
    unsupported: BTreeMap<String, Group>,
    /// By message without its position.
    syntax: BTreeMap<String, Group>,
    /// By problem.
    input: BTreeMap<String, Group>,
    panics: Vec<String>,
    unexpected: Vec<String>,
}

impl Tally {
    fn record(
        &mut self,
        number: usize,
        line: &[u8],
        outcome: std::thread::Result<Result<Program, ParseError>>,
    ) {
        self.total += 1;
        let text = String::from_utf8_lossy(line);
        let err = match outcome {
            Ok(Ok(_)) => {
                self.parsed += 1;
                return;
            }
            Ok(Err(err)) => err,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "(no message)".to_string());
                self.panics.push(format!(
                    "  line {number}: {message}\n    {}",
                    shorten(&text)
                ));
                return;
            }
        };
        let shown = err.to_string();
        match &err {
            ParseError::Syntax { message, .. } if shown.starts_with("syntax error: ") => {
                self.syntax
                    .entry(syntax_group(message))
                    .or_default()
                    .add(number, &text);
            }
            ParseError::Unsupported { construct, .. } if shown.starts_with("unsupported: ") => {
                self.unsupported
                    .entry(construct_group(construct))
                    .or_default()
                    .add(number, &text);
            }
            ParseError::Input(message) => match INPUT_PROBLEMS
                .iter()
                .find(|problem| message.starts_with(*problem))
            {
                Some(problem) => self
                    .input
                    .entry(problem.to_string())
                    .or_default()
                    .add(number, &text),
                None => self
                    .unexpected
                    .push(format!("  line {number}: {shown}\n    {}", shorten(&text))),
            },
            _ => self
                .unexpected
                .push(format!("  line {number}: {shown}\n    {}", shorten(&text))),
        }
    }

    fn percent(&self, count: usize) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * count as f64 / self.total as f64
        }
    }

    fn report(&self, path: &Path, elapsed: Duration) -> String {
        let count = |groups: &BTreeMap<String, Group>| groups.values().map(|g| g.count).sum();
        let unsupported: usize = count(&self.unsupported);
        let syntax: usize = count(&self.syntax);
        let input: usize = count(&self.input);
        let mut out = String::new();
        let _ = writeln!(out, "# nl2bash corpus parse report\n");
        let _ = writeln!(
            out,
            "{} lines from `{}`, parsed in {elapsed:.2?} ({} build).\n",
            self.total,
            path.display(),
            if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
        );
        let _ = writeln!(out, "| outcome | lines | share |");
        let _ = writeln!(out, "|---|---:|---:|");
        for (name, n) in [
            ("parsed", self.parsed),
            ("unsupported construct", unsupported),
            ("syntax error", syntax),
            ("input problem", input),
            ("panic", self.panics.len()),
            ("other error", self.unexpected.len()),
        ] {
            let _ = writeln!(out, "| {name} | {n} | {:.1}% |", self.percent(n));
        }
        section(&mut out, "Unsupported constructs", &self.unsupported);
        section(&mut out, "Syntax errors", &self.syntax);
        section(&mut out, "Input problems", &self.input);
        if !self.panics.is_empty() {
            let _ = writeln!(out, "\n## Panics\n\n```");
            for panic in &self.panics {
                let _ = writeln!(out, "{panic}");
            }
            let _ = writeln!(out, "```");
        }
        if !self.unexpected.is_empty() {
            let _ = writeln!(out, "\n## Other errors\n\n```");
            for line in &self.unexpected {
                let _ = writeln!(out, "{line}");
            }
            let _ = writeln!(out, "```");
        }
        out
    }
}

/// A table of groups, largest first, with a few example lines each.
fn section(out: &mut String, title: &str, groups: &BTreeMap<String, Group>) {
    if groups.is_empty() {
        return;
    }
    let mut sorted: Vec<(&String, &Group)> = groups.iter().collect();
    sorted.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    let _ = writeln!(out, "\n## {title}\n");
    let _ = writeln!(out, "| lines | kind | examples (line: text) |");
    let _ = writeln!(out, "|---:|---|---|");
    for (name, group) in sorted {
        let examples: Vec<String> = group
            .examples
            .iter()
            .map(|e| code_span(&e.replace('|', "\\|")))
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            group.count,
            name.replace('|', "\\|"),
            examples.join("<br>")
        );
    }
}

/// Constructs are named by the parser; a node it did not expect is named by its kind
/// (`` `text` (kind) ``), and the text varies from line to line.
fn construct_group(construct: &str) -> String {
    if construct.starts_with('`') && construct.ends_with(')') {
        if let Some(open) = construct.rfind(" (") {
            return format!("unexpected node {}", &construct[open + 1..]);
        }
    }
    construct.to_string()
}

/// Syntax-error messages quote the offending token; group by the message's shape.
fn syntax_group(message: &str) -> String {
    match message.find('`') {
        Some(at) if message.starts_with("unexpected `") || message.starts_with("missing `") => {
            let token: String = message[at + 1..]
                .trim_end_matches('`')
                .chars()
                .take(12)
                .collect();
            let token = if token.chars().all(|c| c.is_ascii_punctuation()) {
                token
            } else {
                "word".to_string()
            };
            format!("{}`{token}`", &message[..at])
        }
        _ => message.to_string(),
    }
}

/// Markdown inline code for text that may itself contain backquotes.
fn code_span(text: &str) -> String {
    let mut fence = "`".to_string();
    while text.contains(fence.as_str()) {
        fence.push('`');
    }
    if fence.len() > 1 {
        format!("{fence} {text} {fence}")
    } else {
        format!("`{text}`")
    }
}

fn shorten(line: &str) -> String {
    const MAX: usize = 100;
    let mut out: String = line.chars().take(MAX).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// Writes a file next to Cargo's `target/tmp`, i.e. into `target/`.
fn write_output(name: &str, text: &str) {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = tmp.parent().unwrap_or(tmp).join(name);
    match fs::write(&path, text) {
        Ok(()) => say(&format!("written: {}", path.display())),
        Err(e) => say(&format!("could not write {}: {e}", path.display())),
    }
}
