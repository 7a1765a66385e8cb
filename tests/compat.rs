//! Bash-compatibility test.
//!
//! Runs the shell snippets of two public corpora — the Oils spec tests and the brush compat
//! cases, kept outside the repository in `shared/compat` — under bash and under the shell being
//! tested, and requires the same stdout and exit status (and, for brush cases, the same files
//! left in the working directory). Bash is the oracle: the corpora's own assertions are not used.
//!
//! Only cases inside the bash subset rsh implements are run; the selection rules, the knobs
//! (`RSH_SHARED_DIR`, `RSH_COMPAT_SHELL`, `RSH_COMPAT_FILTER`, `RSH_COMPAT_UPDATE`,
//! `RSH_COMPAT_SHOW_SKIPPED`) and the expected-failures list are described in
//! `tests/compat/README.md`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use regex::Regex;
use yaml_rust2::{Yaml, YamlLoader};

/// A case that runs longer than this is killed and counts as a failure.
const TIMEOUT: Duration = Duration::from_secs(10);
/// The development machines have two cores.
const THREADS: usize = 2;
/// Failures printed in full; the others are listed by id only.
const MAX_DIFFS_SHOWN: usize = 30;

#[test]
fn bash_compat() {
    let Some(corpus) = corpus_dir() else { return };
    let started = Instant::now();
    let filter = std::env::var("RSH_COMPAT_FILTER").unwrap_or_default();
    let bash = bash_path();
    let bash_version = bash_version(&bash);
    let shell = shell_under_test();

    let all_cases = load_cases(&corpus);
    // Every id in corpus order, so a rewritten expected-failures list keeps that order.
    let corpus_order: HashMap<String, usize> = all_cases
        .iter()
        .enumerate()
        .map(|(i, case)| (case.id.clone(), i))
        .collect();
    let cases: Vec<Case> = all_cases
        .into_iter()
        .filter(|case| case.id.contains(&filter))
        .collect();
    let rules = compile_rules();
    let skips: Vec<Option<Skip>> = cases
        .iter()
        .map(|case| skip_reason(case, &rules, &bash_version))
        .collect();

    let sandbox = Sandbox::new();
    let verdicts = run_all(&cases, &skips, &sandbox, &bash, &shell);
    let elapsed = started.elapsed();

    let mut title = format!("`{}` against bash {bash_version}", shell.name());
    if !filter.is_empty() {
        let _ = write!(title, " (cases matching `{filter}`)");
    }
    let report = report(&cases, &verdicts, &title, elapsed);
    say(&report);
    write_output("compat-report.md", &report);
    let skipped = skipped_list(&cases, &skips, &verdicts);
    if std::env::var_os("RSH_COMPAT_SHOW_SKIPPED").is_some() {
        say(&skipped);
    }
    write_output("compat-skipped.tsv", &skipped);
    // Every difference in full, listed or not: the worklist for compatibility fixes.
    let all_differences: String = cases
        .iter()
        .zip(&verdicts)
        .map(|(case, verdict)| describe_failure(case, verdict, &shell))
        .collect();
    write_output("compat-differences.txt", &all_differences);
    let judged = Judged {
        cases: &cases,
        skips: &skips,
        verdicts: &verdicts,
    };
    check_expected_failures(&judged, &filter, &corpus_order, &shell);
}

/// The cases of this run, why some were skipped, and what came of each.
struct Judged<'a> {
    cases: &'a [Case],
    skips: &'a [Option<Skip>],
    verdicts: &'a [Verdict],
}

// ---------------------------------------------------------------------------------------------
// Where things are
// ---------------------------------------------------------------------------------------------

/// The corpus, or `None` (after saying so loudly) when this checkout has no `shared/` beside it.
fn corpus_dir() -> Option<PathBuf> {
    let shared = match std::env::var_os("RSH_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    let corpus = shared.join("compat");
    if corpus.join("oils-spec").is_dir() && corpus.join("brush-compat").is_dir() {
        return Some(corpus);
    }
    say(&format!(
        "\n*** SKIPPED: bash compatibility corpus not found at {} (set RSH_SHARED_DIR) ***\n",
        corpus.display()
    ));
    None
}

fn expected_failures_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat/expected-failures.txt")
}

/// Writes straight to stderr: unlike `eprintln!`, this is not swallowed by the test harness,
/// so the summary shows on passing runs too.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

/// One snippet and how to run it.
struct Case {
    /// `oils/arith.test.sh::Case name` or `brush/builtins/echo.yaml::Case name`.
    id: String,
    /// The id's part before `::`, the row of the summary table.
    file: String,
    /// What the selection rules read: the code, plus arguments, environment and test files
    /// for brush.
    text: String,
    /// The case as shown in a failure report.
    display: String,
    /// Set when the case's own metadata says not to run it.
    skip: Option<String>,
    run: Run,
}

/// How to invoke the shells for one case; the same for bash and the shell under test.
#[derive(Default)]
struct Run {
    /// Arguments after the shell's own options (`-c CODE` for Oils cases).
    args: Vec<String>,
    stdin: Option<String>,
    env: Vec<(String, String)>,
    files: Vec<TestFile>,
    locale: &'static str,
    home_is_cwd: bool,
    /// Start with an empty `_tmp/` in the working directory, as upstream does for the files
    /// that say `## legacy_tmp_dir: yes`.
    legacy_tmp_dir: bool,
    compare_files: bool,
    ignore_status: bool,
    ignore_stdout: bool,
    ignore_whitespace: bool,
    min_bash: Option<String>,
    max_bash: Option<String>,
}

#[derive(Clone)]
struct TestFile {
    path: String,
    contents: String,
    executable: bool,
}

fn load_cases(corpus: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for path in files_with_suffix(&corpus.join("oils-spec"), ".test.sh") {
        let file = format!("oils/{}", relative(&path, &corpus.join("oils-spec")));
        let text = fs::read_to_string(&path).expect("read an Oils spec file");
        cases.extend(parse_oils(&file, &text));
    }
    for path in files_with_suffix(&corpus.join("brush-compat"), ".yaml") {
        let file = format!("brush/{}", relative(&path, &corpus.join("brush-compat")));
        let text = fs::read_to_string(&path).expect("read a brush YAML file");
        cases.extend(parse_brush(&file, &text).unwrap_or_else(|e| panic!("{file}: {e}")));
    }
    cases
}

/// Files under `dir` whose names end with `suffix`, recursively, in a stable order.
fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .expect("list a corpus directory")
        .map(|entry| entry.expect("read a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            found.extend(files_with_suffix(&path, suffix));
        } else if path.to_string_lossy().ends_with(suffix) {
            found.push(path);
        }
    }
    found
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Makes ids unique: a few files reuse a case name, the second one becomes `name (2)`.
fn unique_id(file: &str, name: &str, seen: &mut HashMap<String, usize>) -> String {
    let id = format!("{file}::{}", name.trim());
    let count = seen.entry(id.clone()).or_insert(0);
    *count += 1;
    if *count == 1 {
        id
    } else {
        format!("{id} ({count})")
    }
}

/// Oils spec format: `#### name`, then code lines up to the first `##` assertion line (or a
/// one-line `## code: …`).
fn parse_oils(file: &str, text: &str) -> Vec<Case> {
    let mut seen = HashMap::new();
    let mut cases = Vec::new();
    let chunks: Vec<String> = format!("\n{text}")
        .split("\n#### ")
        .map(str::to_string)
        .collect();
    // The file's header (before the first case) may ask for a `_tmp` directory.
    let legacy_tmp_dir = chunks[0].contains("\n## legacy_tmp_dir: yes");
    for chunk in &chunks[1..] {
        let (name, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
        // Only comments follow the assertions in this corpus, so the code ends there.
        let mut code: String = body
            .split_inclusive('\n')
            .take_while(|line| !line.starts_with("##"))
            .collect();
        if code.trim().is_empty() {
            if let Some(line) = body.lines().find_map(|l| l.strip_prefix("## code: ")) {
                code = format!("{line}\n");
            }
        }
        let mut case = oils_case(file, unique_id(file, name, &mut seen), code);
        case.run.legacy_tmp_dir = legacy_tmp_dir;
        cases.push(case);
    }
    cases
}

fn oils_case(file: &str, id: String, code: String) -> Case {
    Case {
        id,
        file: file.to_string(),
        text: code.clone(),
        display: code.clone(),
        skip: None,
        run: Run {
            args: vec!["-c".to_string(), code],
            // Upstream runs the spec tests under this locale.
            locale: "C.UTF-8",
            ..Run::default()
        },
    }
}

/// brush compat format: `cases: [{name, stdin, args, env, test_files, ...}]`.
fn parse_brush(file: &str, text: &str) -> Result<Vec<Case>, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    let doc = docs.first().ok_or("empty YAML file")?;
    let common_files = test_files(&doc["common_test_files"]);
    let mut seen = HashMap::new();
    let mut cases = Vec::new();
    for entry in doc["cases"].as_vec().ok_or("no `cases` list")? {
        let name = scalar(&entry["name"]).ok_or("a case without a name")?;
        let id = unique_id(file, &name, &mut seen);
        cases.push(brush_case(file, id, entry, &common_files));
    }
    Ok(cases)
}

fn brush_case(file: &str, id: String, entry: &Yaml, common_files: &[TestFile]) -> Case {
    let args: Vec<String> = entry["args"]
        .as_vec()
        .map(|args| args.iter().filter_map(scalar).collect())
        .unwrap_or_default();
    let env = entry["env"]
        .as_hash()
        .map(|env| {
            env.iter()
                .filter_map(|(k, v)| Some((scalar(k)?, scalar(v).unwrap_or_default())))
                .collect()
        })
        .unwrap_or_default();
    let mut run = Run {
        args,
        stdin: scalar(&entry["stdin"]),
        env,
        files: test_files(&entry["test_files"]),
        locale: "C",
        home_is_cwd: scalar(&entry["home_dir"]).as_deref() == Some("."),
        legacy_tmp_dir: false,
        compare_files: true,
        ignore_status: flag(entry, "ignore_exit_status"),
        ignore_stdout: flag(entry, "ignore_stdout"),
        ignore_whitespace: flag(entry, "ignore_whitespace"),
        min_bash: scalar(&entry["min_oracle_version"]),
        max_bash: scalar(&entry["max_oracle_version"]),
    };
    let skip = if flag(entry, "skip") {
        Some("marked `skip` upstream".to_string())
    } else if flag(entry, "pty") {
        Some(INTERACTIVE.to_string())
    } else {
        None
    };
    // The rules read the case's own files only: a file-wide helper serves some cases of the
    // file (declare.yaml's helper prints arrays for its array cases), not all of them.
    let text = brush_text(&run);
    run.files.extend(common_files.iter().cloned());
    Case {
        id,
        file: file.to_string(),
        text,
        display: brush_display(&run),
        skip,
        run,
    }
}

/// The options and `-c` command, environment, script and test files, as the selection rules
/// see them.
fn brush_text(run: &Run) -> String {
    let mut text = command_line_code(&run.args).join("\n");
    text.push('\n');
    for (name, value) in &run.env {
        let _ = writeln!(text, "{name}={value}");
    }
    text.push_str(run.stdin.as_deref().unwrap_or(""));
    for file in &run.files {
        let _ = write!(text, "\n{}\n", file.contents);
    }
    text
}

/// The shell's options and, with `-c`, the command string: the arguments that are code. The
/// positional parameters after them are data (`-&-1` is no background job).
fn command_line_code(args: &[String]) -> &[String] {
    let mut command_string = false;
    let mut options_done = false;
    let mut takes_value = false;
    for (i, arg) in args.iter().enumerate() {
        if takes_value {
            takes_value = false;
        } else if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done && arg.len() > 1 && (arg.starts_with('-') || arg.starts_with('+')) {
            command_string |= !arg.starts_with("--") && arg.contains('c');
            // `-o name`, `-O name`, `--rcfile file`
            takes_value = matches!(&arg[1..], "o" | "O" | "-rcfile" | "-init-file");
        } else {
            return &args[..if command_string { i + 1 } else { i }];
        }
    }
    args
}

fn test_files(list: &Yaml) -> Vec<TestFile> {
    let Some(list) = list.as_vec() else {
        return Vec::new();
    };
    list.iter()
        .map(|file| TestFile {
            path: scalar(&file["path"]).unwrap_or_default(),
            contents: scalar(&file["contents"]).unwrap_or_default(),
            executable: flag(file, "executable"),
        })
        .collect()
}

/// A YAML scalar as the text it stands for (the corpus has numbers among arguments and
/// versions, e.g. `args: [script.sh, 1, -2]`, `min_oracle_version: 5.2`).
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(n) => Some(n.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn flag(entry: &Yaml, key: &str) -> bool {
    entry[key].as_bool().unwrap_or(false)
}

// ---------------------------------------------------------------------------------------------
// Selection: which cases are inside rsh's bash subset
// ---------------------------------------------------------------------------------------------

// Reasons shared by file exclusions, rules and case metadata, so each is counted once.
const BACKGROUND: &str = "background jobs (`&`)";
const JOBS: &str = "job control (jobs wait fg bg disown, `$!`, set -m)";
const COPROC: &str = "coproc";
const EXEC: &str = "exec with a command";
const ARRAYS: &str = "arrays (a=(…), ${a[i]}, declare -a/-A, read -a, mapfile)";
const NAMEREFS: &str = "namerefs (declare -n)";
const DECLARE_ILU: &str = "declare -i/-l/-u";
const DECLARE_OTHER: &str = "declare/local/typeset option outside -x -r -p -f -g";
const TRAP: &str = "trap (and functrace/errtrace)";
const SELECT: &str = "select";
const TIME: &str = "time/times";
const ULIMIT: &str = "ulimit/umask";
const HASH: &str = "hash";
const COMPLETION: &str = "completion (compgen complete compopt)";
const HISTORY: &str = "history (history fc set -H)";
const BIND: &str = "bind";
const DIRS: &str = "dirs/pushd/popd";
const CALLSTACK: &str = "call-stack introspection (caller, callstack cases)";
const OTHER_BUILTIN: &str = "builtin not in rsh (builtin enable help kill logout)";
const TRANSFORM: &str = "${var@X} transformations";
const BASH_VARS: &str = "$BASH*, $PIPESTATUS, $FUNCNAME";
const RANDOM: &str = "$RANDOM/$SECONDS/time-dependent output";
const XTRACE: &str = "xtrace (set -x, PS4)";
const EXTDEBUG: &str = "extdebug";
const EXTGLOB: &str = "extglob";
const NAMED_FD: &str = "named file descriptors ({fd}>file)";
const REINVOKE: &str = "re-invokes the shell ($SH, bash, sh -c)";
const REPO_DATA: &str = "Oils repository test data ($REPO_ROOT, spec/, tests/)";
const INTERACTIVE: &str = "interactive (-i, pty)";
const PROMPTS: &str = "prompts (PS0-PS3, PROMPT_COMMAND)";
const MISSING_HELPER: &str = "needs process-helpers.sh, not in the corpus";
const FLAKY: &str = "non-deterministic under bash (two runs differ)";
const BASH_TIMEOUT: &str = "times out under bash";

/// Whole files whose subject is outside the subset.
const EXCLUDED_FILES: &[(&str, &str)] = &[
    ("oils/background.test.sh", BACKGROUND),
    ("brush/background_jobs.yaml", BACKGROUND),
    ("brush/builtins/jobs.yaml", JOBS),
    ("brush/builtins/wait.yaml", JOBS),
    ("brush/arrays.yaml", ARRAYS),
    ("brush/word_expansion/arrays.yaml", ARRAYS),
    ("brush/builtins/mapfile.yaml", ARRAYS),
    ("brush/nameref.yaml", NAMEREFS),
    ("brush/interactive.yaml", INTERACTIVE),
    ("brush/prompt.yaml", PROMPTS),
    ("brush/complete_commands.yaml", COMPLETION),
    ("brush/builtins/complete.yaml", COMPLETION),
    ("brush/builtins/compgen.yaml", COMPLETION),
    ("brush/compound_cmds/coproc.yaml", COPROC),
    ("brush/compound_cmds/select.yaml", SELECT),
    ("brush/word_expansion/param_transformation.yaml", TRANSFORM),
    ("brush/builtins/trap.yaml", TRAP),
    ("brush/options/functrace.yaml", TRAP),
    ("brush/options/errtrace.yaml", TRAP),
    ("brush/builtins/times.yaml", TIME),
    ("brush/builtins/ulimit.yaml", ULIMIT),
    ("brush/builtins/hash.yaml", HASH),
    ("brush/builtins/history.yaml", HISTORY),
    ("brush/builtins/fc.yaml", HISTORY),
    ("brush/builtins/bind.yaml", BIND),
    ("brush/builtins/pushd_popd_dirs.yaml", DIRS),
    ("brush/builtins/caller.yaml", CALLSTACK),
    ("brush/callstack.yaml", CALLSTACK),
    ("brush/builtins/builtin.yaml", OTHER_BUILTIN),
    ("brush/builtins/enable.yaml", OTHER_BUILTIN),
    ("brush/builtins/help.yaml", OTHER_BUILTIN),
    ("brush/builtins/kill.yaml", OTHER_BUILTIN),
    ("brush/builtins/ps4.yaml", XTRACE),
    ("brush/options/set-x.yaml", XTRACE),
    ("brush/options/bash_xtracefd.yaml", XTRACE),
    ("brush/options/extdebug.yaml", EXTDEBUG),
    ("brush/process.yaml", MISSING_HELPER),
];

/// Which rendering of a case's code a rule reads (see [`views`]).
#[derive(Clone, Copy)]
enum View {
    /// The code without comments: for names that matter even inside quotes (`"${a[0]}"`).
    Code,
    /// The code without comments, quoted text, here-document bodies and arithmetic: for
    /// syntax (`&`, `<(`, command names) that means nothing inside `"a & b"` or `$((1&2))`.
    Syntax,
}

struct Rule {
    reason: &'static str,
    view: View,
    pattern: &'static str,
}

const fn code(reason: &'static str, pattern: &'static str) -> Rule {
    Rule {
        reason,
        view: View::Code,
        pattern,
    }
}

const fn syntax(reason: &'static str, pattern: &'static str) -> Rule {
    Rule {
        reason,
        view: View::Syntax,
        pattern,
    }
}

/// Where a command name can start: line start, after an operator or a keyword. Written `<cmd>`
/// in the patterns below; `<end>` is where a command name ends.
const CMD: &str = r"(?:^|[;&|(){}!`]|\b(?:then|do|else|elif|if|while|until)[ \t])[ \t]*";
const END: &str = r"(?:[ \t;&|)]|$)";
/// An option word of declare/local/typeset, up to the letter a rule looks for (`<decl>n`).
const DECL: &str = r"<cmd>(?:declare|typeset|local)\b[^;\n|&=$]*[ \t][-+][A-Za-z]*";
/// An option word of `set` (among its first words), up to the letter a rule looks for.
const SET: &str = r"<cmd>set(?:[ \t]+[-+][A-Za-z]+)*[ \t]+-[A-Za-z]*";

/// Cases whose code matches one of these are skipped; the first match gives the reason.
/// Patterns are multi-line (`^` and `$` match at each line).
const RULES: &[Rule] = &[
    // `&` alone, not `&&`, `&>`, `>&`, `<&`, `|&`, `;&`, `;;&`.
    syntax(BACKGROUND, r"(?:^|[^&<>|;])&(?:[^&>}]|$)"),
    syntax(COPROC, r"\bcoproc\b"),
    syntax(JOBS, r"<cmd>(?:jobs|wait|fg|bg|disown|suspend)<end>"),
    code(JOBS, r"\$!"),
    syntax(JOBS, r"<set>[mb]"),
    code(JOBS, r"-o[ \t]+(?:monitor|notify)\b"),
    // `exec` followed by anything but a redirection (`exec 3<file`, `exec >&2`, `exec {fd}>x`).
    syntax(EXEC, r"<cmd>exec[ \t]+[^\s<>&|;)0-9{]"),
    syntax(ARRAYS, r"\b\w+\+?=\("),
    code(ARRAYS, r"\$\{[#!]?\w+\["),
    syntax(ARRAYS, r"<cmd>\w+\[[^\]\n]*\]\+?="),
    syntax(
        ARRAYS,
        r"<cmd>(?:declare|typeset|local|readonly)\b[^;\n|&=$]*[ \t][-+][A-Za-z]*[aA]",
    ),
    syntax(ARRAYS, r"<cmd>read\b[^;\n|&]*[ \t]-[A-Za-z]*a"),
    syntax(ARRAYS, r"\b(?:mapfile|readarray)\b"),
    code(ARRAYS, r"\bunset\b[^;\n|&]*\w\["),
    syntax(NAMEREFS, r"<decl>n"),
    syntax(DECLARE_ILU, r"<decl>[ilu]"),
    syntax(DECLARE_OTHER, r"<decl>[A-Za-z&&[^xrpfg]]"),
    syntax(TRAP, r"<cmd>trap<end>"),
    syntax(SELECT, r"<cmd>select[ \t]+\w"),
    syntax(TIME, r"<cmd>times?<end>"),
    code(TIME, r"\bTIMEFORMAT\b"),
    syntax(ULIMIT, r"<cmd>(?:ulimit|umask)<end>"),
    syntax(HASH, r"<cmd>hash<end>"),
    syntax(COMPLETION, r"<cmd>(?:compgen|complete|compopt)<end>"),
    syntax(HISTORY, r"<cmd>(?:history|fc)<end>"),
    syntax(HISTORY, r"<set>H"),
    code(HISTORY, r"\b(?:HIST\w*|histexpand)\b"),
    syntax(BIND, r"<cmd>bind<end>"),
    syntax(DIRS, r"<cmd>(?:dirs|pushd|popd)<end>"),
    code(DIRS, r"\bDIRSTACK\b"),
    syntax(CALLSTACK, r"<cmd>caller<end>"),
    syntax(
        OTHER_BUILTIN,
        r"<cmd>(?:builtin|enable|help|kill|logout)<end>",
    ),
    code(TRANSFORM, r"\$\{[\w@*#!]+(?:\[[^\]]*\])?@[A-Za-z]\}"),
    code(BASH_VARS, r"\b(?:BASH\w*|PIPESTATUS|FUNCNAME)\b"),
    code(
        RANDOM,
        r"\b(?:S?RANDOM|SECONDS|EPOCHSECONDS|EPOCHREALTIME)\b",
    ),
    code(RANDOM, r"%\([^)]*\)T"),
    syntax(XTRACE, r"<set>x"),
    code(XTRACE, r"\b(?:xtrace|PS4)\b"),
    code(EXTDEBUG, r"\bextdebug\b"),
    code(EXTGLOB, r"\bextglob\b"),
    // `@(…)`, `!(…)`, `+(…)`, `*(…)`, `?(…)`: extglob patterns, on by default inside `[[ ]]`.
    syntax(EXTGLOB, r"(?:^|[^$])[?*+@!]\([^(]"),
    syntax(NAMED_FD, r"\{\w+\}[<>]"),
    // `$SH` run as a command or given options. Guards like `case $SH in dash) exit;; esac` are
    // fine: $SH is left unset, so they see neither bash nor rsh.
    code(REINVOKE, r#"<cmd>"?\$\{?SH\}?"?<end>"#),
    code(REINVOKE, r#"\$\{?(?:SH|0)\}?"?[ \t]+-"#),
    syntax(REINVOKE, r"<cmd>(?:[\w./]*/)?(?:ba)?sh<end>"),
    syntax(
        REINVOKE,
        r"\benv\b[^;\n|&]*[ \t](?:[\w./]*/)?(?:ba)?sh<end>",
    ),
    code(REPO_DATA, r"\bREPO_ROOT\b|\bspec/|\btests/hello"),
    code(PROMPTS, r"\bPS[0-3]\b|\bPROMPT_COMMAND\b"),
];

struct CompiledRule {
    reason: &'static str,
    view: View,
    regex: Regex,
}

fn compile_rules() -> Vec<CompiledRule> {
    RULES
        .iter()
        .map(|rule| {
            let pattern = rule
                .pattern
                .replace("<decl>", DECL)
                .replace("<set>", SET)
                .replace("<cmd>", CMD)
                .replace("<end>", END);
            let regex = Regex::new(&format!("(?m){pattern}"))
                .unwrap_or_else(|e| panic!("bad selection rule {:?}: {e}", rule.pattern));
            CompiledRule {
                reason: rule.reason,
                view: rule.view,
                regex,
            }
        })
        .collect()
}

/// Why a case is not run, and what in it made the decision.
struct Skip {
    reason: String,
    detail: String,
}

fn skip(reason: &str, detail: &str) -> Option<Skip> {
    Some(Skip {
        reason: reason.to_string(),
        detail: detail.to_string(),
    })
}

/// Why a case is not run, or `None` when it is in the subset.
fn skip_reason(case: &Case, rules: &[CompiledRule], bash_version: &str) -> Option<Skip> {
    if let Some((_, reason)) = EXCLUDED_FILES.iter().find(|(file, _)| *file == case.file) {
        return skip(reason, "whole file");
    }
    if let Some(reason) = &case.skip {
        return skip(reason, "case metadata");
    }
    if let Some(reason) = version_skip(&case.run, bash_version) {
        return skip(&reason, "case metadata");
    }
    if let Some(reason) = option_skip(&case.run.args) {
        return skip(reason, &case.run.args.join(" "));
    }
    let views = views(&case.text);
    rules.iter().find_map(|rule| {
        let view = match rule.view {
            View::Code => &views.code,
            View::Syntax => &views.syntax,
        };
        let found = rule.regex.find(view)?;
        // Both views keep the text's line breaks, so the line number leads back to the text.
        let line = view[..found.start()].matches('\n').count();
        skip(
            rule.reason,
            case.text.lines().nth(line).unwrap_or("").trim(),
        )
    })
}

/// brush cases written for other bash versions than the one installed.
fn version_skip(run: &Run, bash_version: &str) -> Option<String> {
    let installed = version_number(bash_version);
    if let Some(min) = &run.min_bash {
        if installed < version_number(min) {
            return Some(format!("needs bash >= {min}"));
        }
    }
    if let Some(max) = &run.max_bash {
        if installed > version_number(max) {
            return Some(format!("needs bash <= {max}"));
        }
    }
    None
}

/// `5.2.15(1)-release` -> (5, 2): the corpus gives versions as major.minor.
fn version_number(version: &str) -> (u32, u32) {
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let mut next = || parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (next(), next())
}

/// Shell options on a brush case's command line that put it outside the subset.
fn option_skip(args: &[String]) -> Option<&'static str> {
    let options = args
        .iter()
        .take_while(|arg| arg.starts_with('-') || arg.starts_with('+'))
        .filter(|arg| arg.len() > 1 && arg[1..].chars().all(|c| c.is_ascii_alphabetic()));
    for option in options {
        if option.contains('i') {
            return Some(INTERACTIVE);
        }
        if option.contains('x') {
            return Some(XTRACE);
        }
    }
    None
}

/// See [`View`].
struct Views {
    code: String,
    syntax: String,
}

/// Renders the code twice for the selection rules, with a rough shell lexer: enough to tell
/// comments, quotes, here-document bodies and arithmetic from the rest. Line breaks are kept
/// in both views so `^` and `$` still mean line start and end.
fn views(text: &str) -> Views {
    let chars: Vec<char> = text.chars().collect();
    let mut views = Views {
        code: String::with_capacity(text.len()),
        syntax: String::with_capacity(text.len()),
    };
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev = if i == 0 { '\n' } else { chars[i - 1] };
        let next = chars.get(i + 1).copied().unwrap_or('\0');
        let end = match c {
            '\\' => (i + 2).min(chars.len()),
            '\'' => closing_single_quote(&chars, i, prev == '$'),
            '"' => closing_double_quote(&chars, i),
            '#' if prev.is_whitespace() || ";&|()".contains(prev) => {
                i = skip_comment(&chars, i);
                continue;
            }
            '(' if next == '(' => {
                let end = closing_double_paren(&chars, i);
                views.code.extend(&chars[i..end]);
                views.syntax.push_str("((");
                views
                    .syntax
                    .extend(blank(&chars[(i + 2).min(end)..end.saturating_sub(2)]));
                views.syntax.push_str("))");
                i = end;
                continue;
            }
            '<' if next == '<' && prev != '<' && chars.get(i + 2) != Some(&'<') => {
                let (delimiter, strip_tabs, after) = heredoc_delimiter(&chars, i + 2);
                heredocs.push((delimiter, strip_tabs));
                views.code.extend(&chars[i..after]);
                views.syntax.extend(&chars[i..after]);
                i = after;
                continue;
            }
            '\n' if !heredocs.is_empty() => {
                views.code.push('\n');
                views.syntax.push('\n');
                i = skip_heredoc_bodies(&chars, i + 1, &mut heredocs, &mut views);
                continue;
            }
            _ => {
                views.code.push(c);
                views.syntax.push(c);
                i += 1;
                continue;
            }
        };
        // A quoted or escaped stretch: kept in the code view, blanked but for its ends in the
        // syntax view (the quote characters stay, so `exec "$@"` still shows a word).
        views.code.extend(&chars[i..end]);
        views.syntax.push(c);
        if end > i + 1 {
            views.syntax.extend(blank(&chars[i + 1..end - 1]));
            // An escaped line break stays a line break, so line numbers agree between views.
            views.syntax.push(match c {
                '\\' if chars[end - 1] == '\n' => '\n',
                '\\' => ' ',
                _ => chars[end - 1],
            });
        }
        i = end;
    }
    views
}

fn blank(chars: &[char]) -> impl Iterator<Item = char> + '_ {
    chars.iter().map(|&c| if c == '\n' { '\n' } else { ' ' })
}

fn closing_single_quote(chars: &[char], start: usize, ansi_c: bool) -> usize {
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' if ansi_c => j += 1,
            '\'' => return j + 1,
            _ => {}
        }
        j += 1;
    }
    chars.len()
}

fn closing_double_quote(chars: &[char], start: usize) -> usize {
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 1,
            '"' => return j + 1,
            _ => {}
        }
        j += 1;
    }
    chars.len()
}

/// The end of `(( … ))` (or of the `((…))` in `$((…))`), counting nested parentheses.
fn closing_double_paren(chars: &[char], start: usize) -> usize {
    let mut depth = 0usize;
    for (j, &c) in chars.iter().enumerate().skip(start) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    chars.len()
}

/// A comment runs to the end of the line; the line break itself stays.
fn skip_comment(chars: &[char], start: usize) -> usize {
    chars[start..]
        .iter()
        .position(|&c| c == '\n')
        .map_or(chars.len(), |n| start + n)
}

/// Reads the word after `<<` or `<<-`: the delimiter without its quotes, whether leading tabs
/// are stripped, and where the operator ends (the word itself is lexed as usual).
fn heredoc_delimiter(chars: &[char], start: usize) -> (String, bool, usize) {
    let strip_tabs = chars.get(start) == Some(&'-');
    let after = if strip_tabs { start + 1 } else { start };
    let mut j = after;
    while j < chars.len() && (chars[j] == ' ' || chars[j] == '\t') {
        j += 1;
    }
    let delimiter: String = chars[j..]
        .iter()
        .take_while(|c| !c.is_whitespace() && !";&|<>()".contains(**c))
        .filter(|c| !"'\"\\".contains(**c))
        .collect();
    (delimiter, strip_tabs, after)
}

/// Copies the bodies of the pending here-documents (starting at `start`, a line start) to the
/// code view and blank lines to the syntax view; returns where the shell code resumes.
fn skip_heredoc_bodies(
    chars: &[char],
    start: usize,
    heredocs: &mut Vec<(String, bool)>,
    views: &mut Views,
) -> usize {
    let mut i = start;
    for (delimiter, strip_tabs) in heredocs.drain(..) {
        while i < chars.len() {
            let line_end = chars[i..]
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |n| i + n + 1);
            let line: String = chars[i..line_end].iter().collect();
            let content = line.trim_end_matches('\n');
            let content = if strip_tabs {
                content.trim_start_matches('\t')
            } else {
                content
            };
            views.code.push_str(&line);
            if content == delimiter {
                views.syntax.push_str(&line);
            } else {
                views.syntax.extend(blank(&chars[i..line_end]));
            }
            i = line_end;
            if content == delimiter {
                break;
            }
        }
    }
    i
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/// A shell to run cases with.
struct ShellProgram {
    path: PathBuf,
    /// bash takes `--norc --noprofile`; rsh takes the allow-all policy instead.
    is_bash: bool,
}

impl ShellProgram {
    fn name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(|| "shell".into(), |n| n.to_string_lossy().into_owned())
    }
}

fn bash_path() -> PathBuf {
    find_in_path("bash").expect("bash, the reference shell, is not on PATH")
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn bash_version(bash: &Path) -> String {
    let output = Command::new(bash)
        .args(["--norc", "--noprofile", "-c", "echo $BASH_VERSION"])
        .output()
        .expect("run bash");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// `$RSH_COMPAT_SHELL` (e.g. `/bin/bash` to check the runner itself), else the built rsh.
fn shell_under_test() -> ShellProgram {
    let path = match std::env::var_os("RSH_COMPAT_SHELL") {
        Some(shell) => PathBuf::from(shell),
        None => PathBuf::from(env!("CARGO_BIN_EXE_rsh")),
    };
    let is_bash = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("bash"));
    ShellProgram { path, is_bash }
}

/// The one place that knows how each shell wants its command line.
fn shell_command(shell: &ShellProgram, args: &[String]) -> Command {
    let mut command = Command::new(&shell.path);
    // `$0` and the prefix of error messages come from argv[0]: the bare name makes them the
    // same whichever path the shell was found at.
    command.arg0(shell.name());
    if shell.is_bash {
        command.args(["--norc", "--noprofile"]);
    } else {
        let policy = Path::new(env!("CARGO_MANIFEST_DIR")).join("policy/permissive.toml");
        command.arg("--policy").arg(policy);
    }
    command.args(args);
    command
}

/// The scratch directories: the helper programs, and one work area per thread.
struct Sandbox {
    root: tempfile::TempDir,
    helpers: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let root = tempfile::Builder::new()
            .prefix("rsh-compat-")
            .tempdir()
            .expect("create a temporary directory");
        let helpers = root.path().join("helpers");
        write_helpers(&helpers);
        Sandbox { root, helpers }
    }

    /// A worker's area. Its paths are the same for every run of a case, so output that shows
    /// `$PWD`, `$HOME` or `$TMP` compares equal between bash and the shell under test.
    fn area(&self, worker: usize) -> Area {
        Area {
            cwd: self.root.path().join(format!("w{worker}/cwd")),
            home: self.root.path().join(format!("w{worker}/home")),
            tmp: self.root.path().join(format!("w{worker}/tmp")),
        }
    }
}

struct Area {
    cwd: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
}

impl Area {
    fn reset(&self) {
        for dir in [&self.cwd, &self.home, &self.tmp] {
            remove_tree(dir);
            fs::create_dir_all(dir).expect("create a work directory");
        }
    }
}

/// Removes a tree even where a case took permissions away (`chmod 000 dir`).
fn remove_tree(dir: &Path) {
    if !dir.exists() || fs::remove_dir_all(dir).is_ok() {
        return;
    }
    grant_access(dir);
    fs::remove_dir_all(dir).expect("remove a work directory");
}

fn grant_access(dir: &Path) {
    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            grant_access(&entry.path());
        }
    }
}

/// The small programs the Oils cases call, written to behave like upstream's `spec/bin`
/// (Python 2 there: `argv.py` prints Python 2 string reprs, `'\xce\xbc'` rather than `'μ'`).
const HELPERS: &[(&str, &str)] = &[
    (
        "argv.py",
        r#"#!/usr/bin/env python3
import os, sys
words = [repr(os.fsencode(arg))[1:] for arg in sys.argv[1:]]
sys.stdout.buffer.write(("[" + ", ".join(words) + "]\n").encode())
"#,
    ),
    (
        "printenv.py",
        r#"#!/usr/bin/env python3
import os, sys
for name in sys.argv[1:]:
    value = os.environb.get(os.fsencode(name))
    sys.stdout.buffer.write((b"None" if value is None else value) + b"\n")
"#,
    ),
    (
        // Stdout is flushed at exit only, so `|&` shows STDERR first, as upstream expects.
        "stdout_stderr.py",
        r#"#!/usr/bin/env python3
import os, sys
args = [os.fsencode(arg) for arg in sys.argv[1:]]
out = args[0] if len(args) > 0 else b"STDOUT"
err = args[1] if len(args) > 1 else b"STDERR"
sys.stdout.buffer.write(out + b"\n")
sys.stderr.buffer.write(err + b"\n")
sys.stderr.flush()
sys.exit(int(args[2]) if len(args) > 2 else 0)
"#,
    ),
    (
        "read_from_fd.py",
        r#"#!/usr/bin/env python3
import os, sys
for arg in sys.argv[1:]:
    fd = int(arg)
    try:
        data = os.read(fd, 1024)
    except OSError as e:
        sys.stderr.write("FATAL: Error reading from fd %d: %s\n" % (fd, e))
        sys.exit(1)
    sys.stdout.buffer.write(b"%d: " % fd + data)
"#,
    ),
    // `foo\=bar` in assign.test.sh runs a command of that name.
    ("foo=bar", "#!/bin/sh\necho HI\n"),
    // A few cases run `python2 -c 'print(...)'`, which Python 3 reads the same way.
    ("python2", "#!/bin/sh\nexec python3 \"$@\"\n"),
];

fn write_helpers(dir: &Path) {
    fs::create_dir_all(dir).expect("create the helpers directory");
    for (name, body) in HELPERS {
        let path = dir.join(name);
        fs::write(&path, body).expect("write a helper");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod a helper");
    }
}

/// What one run of one case produced.
struct Outcome {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The exit status, 128 + N when killed by signal N.
    status: Option<i32>,
    timed_out: bool,
    /// The working directory afterwards (brush cases only).
    files: BTreeMap<String, Entry>,
}

#[derive(PartialEq)]
enum Entry {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
    Other,
}

fn run_case(shell: &ShellProgram, case: &Case, area: &Area, helpers: &Path) -> Outcome {
    area.reset();
    let run = &case.run;
    create_test_files(&area.cwd, &run.files);
    if run.legacy_tmp_dir {
        fs::create_dir(area.cwd.join("_tmp")).expect("create _tmp");
    }
    let mut command = shell_command(shell, &run.args);
    let home = if run.home_is_cwd {
        &area.cwd
    } else {
        &area.home
    };
    command
        .current_dir(&area.cwd)
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/local/bin:/usr/bin:/bin", helpers.display()),
        )
        .env("HOME", home)
        .env("LC_ALL", run.locale)
        .env("TERM", "dumb")
        .env("TMP", &area.tmp)
        .env("TMPDIR", &area.tmp)
        .envs(run.env.iter().map(|(k, v)| (k, v)));
    let mut outcome = execute(command, run.stdin.as_deref());
    if run.compare_files {
        outcome.files = snapshot(&area.cwd);
    }
    outcome
}

fn create_test_files(dir: &Path, files: &[TestFile]) {
    for file in files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create a test file's directory");
        }
        fs::write(&path, &file.contents).expect("write a test file");
        if file.executable {
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
}

/// Runs the shell in its own process group, so a timeout can kill everything it started.
fn execute(mut command: Command, stdin: Option<&str>) -> Outcome {
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let deadline = Instant::now() + TIMEOUT;
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", command.get_program()));
    let group = Pid::from_raw(child.id() as i32);
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let input = input.as_bytes().to_vec();
        // The shell may exit without reading it all; a broken pipe is expected then.
        thread::spawn(move || pipe.write_all(&input));
    }
    let stdout = read_in_background(child.stdout.take().unwrap());
    let stderr = read_in_background(child.stderr.take().unwrap());
    let (done, exited) = mpsc::channel();
    thread::spawn(move || done.send(child.wait()));

    let status = exited.recv_timeout(TIMEOUT).ok();
    let mut timed_out = status.is_none();
    // Whatever is left of the group goes too (on time-out, everything), so the pipes close.
    let _ = killpg(group, Signal::SIGKILL);
    let status = status.or_else(|| exited.recv().ok());
    remove_files_named_by_pid(group.as_raw());
    // A process that left the group could still hold the pipes open: give up on it.
    let grace = deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
    let stdout = stdout.recv_timeout(grace).ok();
    let stderr = stderr.recv_timeout(Duration::from_secs(1)).ok();
    timed_out |= stdout.is_none();
    Outcome {
        timed_out,
        stdout: stdout.unwrap_or_default(),
        stderr: stderr.unwrap_or_default(),
        status: status
            .and_then(Result::ok)
            .and_then(|s| s.code().or_else(|| s.signal().map(|n| 128 + n))),
        files: BTreeMap::new(),
    }
}

/// brush's `set -e` cases write `/tmp/test_source_$$.sh` and `/tmp/test_dot_$$.sh`, named by
/// the shell's pid, and exit, as they mean to, before the `rm` that follows: under bash as
/// under rsh, such files would pile up in /tmp with every run.
fn remove_files_named_by_pid(pid: i32) {
    for name in ["test_source", "test_dot"] {
        let path = PathBuf::from(format!("/tmp/{name}_{pid}.sh"));
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            let _ = fs::remove_file(path);
        }
    }
}

fn read_in_background(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let mut data = Vec::new();
        let _ = pipe.read_to_end(&mut data);
        let _ = send.send(data);
    });
    receive
}

/// The files under `dir`: names, kinds and contents.
fn snapshot(dir: &Path) -> BTreeMap<String, Entry> {
    let mut files = BTreeMap::new();
    collect_entries(dir, dir, &mut files);
    files
}

fn collect_entries(root: &Path, dir: &Path, files: &mut BTreeMap<String, Entry>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = relative(&path, root);
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let value = if kind.is_symlink() {
            Entry::Link(fs::read_link(&path).unwrap_or_default())
        } else if kind.is_dir() {
            collect_entries(root, &path, files);
            Entry::Dir
        } else if kind.is_file() {
            fs::read(&path).map_or(Entry::Other, Entry::File)
        } else {
            Entry::Other
        };
        files.insert(name, value);
    }
}

/// The result for one case.
enum Verdict {
    Identical,
    Different {
        differences: Vec<String>,
        bash: Outcome,
        tested: Outcome,
    },
    Skipped(String),
}

fn run_all(
    cases: &[Case],
    skips: &[Option<Skip>],
    sandbox: &Sandbox,
    bash: &Path,
    shell: &ShellProgram,
) -> Vec<Verdict> {
    let bash = ShellProgram {
        path: bash.to_path_buf(),
        is_bash: true,
    };
    let next = AtomicUsize::new(0);
    let verdicts: Vec<Mutex<Option<Verdict>>> = cases.iter().map(|_| Mutex::new(None)).collect();
    let fixed_paths = RwLock::new(());
    thread::scope(|scope| {
        for worker in 0..THREADS {
            let (next, verdicts, bash, fixed_paths) = (&next, &verdicts, &bash, &fixed_paths);
            scope.spawn(move || {
                let area = sandbox.area(worker);
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(index) else { break };
                    let verdict = match &skips[index] {
                        Some(skip) => Verdict::Skipped(skip.reason.clone()),
                        // Cases that use fixed paths such as /tmp/spam would trip over each
                        // other: they run alone.
                        None if case.text.contains("/tmp") => {
                            let _alone = fixed_paths.write().unwrap();
                            judge(case, bash, shell, &area, &sandbox.helpers)
                        }
                        None => {
                            let _shared = fixed_paths.read().unwrap();
                            judge(case, bash, shell, &area, &sandbox.helpers)
                        }
                    };
                    *verdicts[index].lock().unwrap() = Some(verdict);
                }
            });
        }
    });
    verdicts
        .into_iter()
        .map(|v| v.into_inner().unwrap().expect("every case judged"))
        .collect()
}

/// Runs bash twice (a case whose two bash runs differ says nothing about rsh) and then the
/// shell under test.
fn judge(
    case: &Case,
    bash: &ShellProgram,
    shell: &ShellProgram,
    area: &Area,
    helpers: &Path,
) -> Verdict {
    let reference = run_case(bash, case, area, helpers);
    if reference.timed_out {
        return Verdict::Skipped(BASH_TIMEOUT.to_string());
    }
    let again = run_case(bash, case, area, helpers);
    if !differences(&case.run, &reference, &again).is_empty() {
        return Verdict::Skipped(FLAKY.to_string());
    }
    let tested = run_case(shell, case, area, helpers);
    let differences = differences(&case.run, &reference, &tested);
    if differences.is_empty() {
        Verdict::Identical
    } else {
        Verdict::Different {
            differences,
            bash: reference,
            tested,
        }
    }
}

/// What differs between two runs, as short labels; empty when they agree. Stderr is not
/// compared: messages legitimately differ (`rsh:` against `bash: line 1:`).
fn differences(run: &Run, expected: &Outcome, actual: &Outcome) -> Vec<String> {
    let mut found = Vec::new();
    if actual.timed_out {
        found.push(format!("timed out after {} s", TIMEOUT.as_secs()));
        return found;
    }
    if !run.ignore_stdout && !same_text(run, &expected.stdout, &actual.stdout) {
        found.push("stdout".to_string());
    }
    if !run.ignore_status && expected.status != actual.status {
        found.push("exit status".to_string());
    }
    if expected.files != actual.files {
        found.push("files left in the working directory".to_string());
    }
    found
}

fn same_text(run: &Run, expected: &[u8], actual: &[u8]) -> bool {
    if run.ignore_whitespace {
        squeeze(expected) == squeeze(actual)
    } else {
        expected == actual
    }
}

fn squeeze(text: &[u8]) -> Vec<&[u8]> {
    text.split(|b| b.is_ascii_whitespace())
        .filter(|word| !word.is_empty())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------------------------

#[derive(Default)]
struct Counts {
    selected: usize,
    identical: usize,
    different: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Identical => {
                self.selected += 1;
                self.identical += 1;
            }
            Verdict::Different { .. } => {
                self.selected += 1;
                self.different += 1;
            }
            Verdict::Skipped(_) => self.skipped += 1,
        }
    }

    fn row(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {} | {} | {} |",
            self.selected, self.identical, self.different, self.skipped
        )
    }
}

/// The summary, in Markdown: per-file counts, totals and the reasons cases were skipped.
fn report(cases: &[Case], verdicts: &[Verdict], title: &str, elapsed: Duration) -> String {
    let mut per_file: Vec<(&str, Counts)> = Vec::new();
    let mut total = Counts::default();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (case, verdict) in cases.iter().zip(verdicts) {
        if per_file.last().is_none_or(|(file, _)| *file != case.file) {
            per_file.push((&case.file, Counts::default()));
        }
        per_file.last_mut().unwrap().1.add(verdict);
        total.add(verdict);
        if let Verdict::Skipped(reason) = verdict {
            *reasons.entry(reason).or_default() += 1;
        }
    }
    let percent = if total.selected == 0 {
        0.0
    } else {
        100.0 * total.identical as f64 / total.selected as f64
    };

    let mut out = String::new();
    let _ = writeln!(out, "# Bash compatibility report\n");
    let _ = writeln!(
        out,
        "{title}: {} of {} selected cases identical ({percent:.1}%), {} different, \
         {} skipped; {} cases in {:.0} s.\n",
        total.identical,
        total.selected,
        total.different,
        total.skipped,
        cases.len(),
        elapsed.as_secs_f64()
    );
    let _ = writeln!(out, "| file | selected | identical | different | skipped |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for (file, counts) in &per_file {
        let _ = writeln!(out, "{}", counts.row(&format!("`{file}`")));
    }
    let _ = writeln!(out, "{}", total.row("**total**"));
    if reasons.is_empty() {
        return out;
    }
    let _ = writeln!(out, "\n| reason for skipping | cases |\n|---|---:|");
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (reason, count) in reasons {
        let _ = writeln!(out, "| {} | {count} |", reason.replace('|', "\\|"));
    }
    out
}

/// Every skipped case, one per line: id, reason, and the line of code that decided it.
fn skipped_list(cases: &[Case], skips: &[Option<Skip>], verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for ((case, skip), verdict) in cases.iter().zip(skips).zip(verdicts) {
        if let Verdict::Skipped(reason) = verdict {
            let detail = skip.as_ref().map_or("", |s| s.detail.as_str());
            let _ = writeln!(out, "{}\t{reason}\t{detail}", case.id);
        }
    }
    out
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

/// The case failed, shown so it can be reproduced by hand.
fn describe_failure(case: &Case, verdict: &Verdict, shell: &ShellProgram) -> String {
    let Verdict::Different {
        differences,
        bash,
        tested,
    } = verdict
    else {
        return String::new();
    };
    let name = shell.name();
    let mut out = format!(
        "\n---- {} (differs in: {})\n",
        case.id,
        differences.join(", ")
    );
    out.push_str(&section("code", &case.display));
    out.push_str(&section(
        &format!("bash stdout (status {})", status_text(bash)),
        &text(&bash.stdout),
    ));
    out.push_str(&section(
        &format!("{name} stdout (status {})", status_text(tested)),
        &text(&tested.stdout),
    ));
    if !tested.stderr.is_empty() {
        out.push_str(&section(&format!("{name} stderr"), &text(&tested.stderr)));
    }
    if bash.files != tested.files {
        out.push_str(&section("files", &file_differences(bash, tested, &name)));
    }
    out
}

fn file_differences(bash: &Outcome, tested: &Outcome, name: &str) -> String {
    let mut out = String::new();
    for (path, entry) in &bash.files {
        match tested.files.get(path) {
            None => {
                let _ = writeln!(out, "{path}: only under bash");
            }
            Some(other) if other != entry => {
                let _ = writeln!(
                    out,
                    "{path}: bash {}, {name} {}",
                    describe(entry),
                    describe(other)
                );
            }
            Some(_) => {}
        }
    }
    for path in tested.files.keys().filter(|p| !bash.files.contains_key(*p)) {
        let _ = writeln!(out, "{path}: only under {name}");
    }
    out
}

fn describe(entry: &Entry) -> String {
    match entry {
        Entry::Dir => "directory".to_string(),
        Entry::File(data) => format!("{:?}", text(data)),
        Entry::Link(target) => format!("symlink to {}", target.display()),
        Entry::Other => "special file".to_string(),
    }
}

fn brush_display(run: &Run) -> String {
    let mut out = String::new();
    if !run.args.is_empty() {
        let _ = writeln!(out, "# args: {:?}", run.args);
    }
    for (name, value) in &run.env {
        let _ = writeln!(out, "# env: {name}={value}");
    }
    for file in &run.files {
        let _ = writeln!(out, "# file {}:\n{}", file.path, file.contents);
    }
    if let Some(stdin) = &run.stdin {
        let _ = writeln!(out, "# stdin:");
        out.push_str(stdin);
    }
    out
}

fn status_text(outcome: &Outcome) -> String {
    match (outcome.timed_out, outcome.status) {
        (true, _) => "timed out".to_string(),
        (false, Some(status)) => status.to_string(),
        (false, None) => "unknown".to_string(),
    }
}

/// Output as readable text: shortened, with a marker when the last line has no line break.
fn text(bytes: &[u8]) -> String {
    const LIMIT: usize = 3000;
    let mut shown = String::new();
    for c in String::from_utf8_lossy(&bytes[..bytes.len().min(LIMIT)]).chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            let _ = write!(shown, "\\x{:02x}", u32::from(c));
        } else {
            shown.push(c);
        }
    }
    if bytes.len() > LIMIT {
        shown.push_str("\n… (truncated)");
    } else if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        shown.push_str("⏎ (no final newline)");
    }
    shown
}

fn section(title: &str, body: &str) -> String {
    let mut out = format!("  {title}:\n");
    for line in body.lines() {
        let _ = writeln!(out, "    | {line}");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Expected failures
// ---------------------------------------------------------------------------------------------

/// `expected-failures.txt`: a header of comment lines, then case ids, each with the comment
/// lines written just above it (kept when the list is rewritten).
struct ExpectedFailures {
    header: Vec<String>,
    entries: Vec<Listed>,
}

struct Listed {
    id: String,
    notes: Vec<String>,
}

const DEFAULT_HEADER: &str = "\
# Cases of the bash-compatibility test (tests/compat.rs) known to differ from bash.
# One case id per line; `#` lines are comments (one just above an id stays with it).
# Rewrite with RSH_COMPAT_UPDATE=1 (see README.md).";

fn read_expected_failures() -> ExpectedFailures {
    let text = fs::read_to_string(expected_failures_path()).unwrap_or_default();
    let mut list = ExpectedFailures {
        header: Vec::new(),
        entries: Vec::new(),
    };
    let mut notes = Vec::new();
    let mut in_header = true;
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            // The header ends at the first blank line; notes must touch their id.
            in_header = false;
            notes.clear();
        } else if line.starts_with('#') {
            if in_header {
                list.header.push(line.to_string());
            } else {
                notes.push(line.to_string());
            }
        } else {
            in_header = false;
            list.entries.push(Listed {
                id: line.to_string(),
                notes: std::mem::take(&mut notes),
            });
        }
    }
    list
}

/// How this run compares with the list.
struct Comparison {
    /// Different from bash and not listed (indices into the cases).
    unexpected: Vec<usize>,
    /// Listed but identical to bash now.
    fixed: Vec<String>,
    /// Listed but skipped by the selection, or not in the corpus at all.
    stale: Vec<String>,
    /// What the list should hold: the failing cases, plus listed ones this run could not judge.
    keep: HashSet<String>,
}

fn compare_with_list(judged: &Judged, list: &ExpectedFailures, filter: &str) -> Comparison {
    let listed: HashSet<&str> = list.entries.iter().map(|e| e.id.as_str()).collect();
    let mut comparison = Comparison {
        unexpected: Vec::new(),
        fixed: Vec::new(),
        stale: Vec::new(),
        keep: HashSet::new(),
    };
    for (index, (case, verdict)) in judged.cases.iter().zip(judged.verdicts).enumerate() {
        let is_listed = listed.contains(case.id.as_str());
        match verdict {
            Verdict::Different { .. } => {
                comparison.keep.insert(case.id.clone());
                if !is_listed {
                    comparison.unexpected.push(index);
                }
            }
            Verdict::Identical if is_listed => comparison.fixed.push(case.id.clone()),
            // A case found flaky this time is judged again on the next run.
            Verdict::Skipped(_) if is_listed && judged.skips[index].is_none() => {
                comparison.keep.insert(case.id.clone());
            }
            _ => {}
        }
    }
    let by_id: HashMap<&str, usize> = judged
        .cases
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    for entry in &list.entries {
        if !entry.id.contains(filter) {
            // Not run this time: the entry stays as it is.
            comparison.keep.insert(entry.id.clone());
        } else if by_id
            .get(entry.id.as_str())
            .is_none_or(|&i| judged.skips[i].is_some())
        {
            comparison.stale.push(entry.id.clone());
        }
    }
    comparison
}

/// Fails on a case that differs from bash without being listed, and on a listed case that no
/// longer fails (or no longer exists), so the list stays true; with `RSH_COMPAT_UPDATE=1`
/// rewrites the list instead.
fn check_expected_failures(
    judged: &Judged,
    filter: &str,
    corpus_order: &HashMap<String, usize>,
    shell: &ShellProgram,
) {
    let list = read_expected_failures();
    let comparison = compare_with_list(judged, &list, filter);
    if std::env::var_os("RSH_COMPAT_UPDATE").is_some_and(|v| v != "0") {
        write_expected_failures(&list, &comparison.keep, corpus_order);
        return;
    }
    let problems = show_problems(judged, &comparison, shell);
    assert!(
        problems.is_empty(),
        "{}; fix them, or run with RSH_COMPAT_UPDATE=1 to rewrite tests/compat/expected-failures.txt",
        problems.join(", ")
    );
}

/// Prints what is wrong and returns it in short.
fn show_problems(judged: &Judged, comparison: &Comparison, shell: &ShellProgram) -> Vec<String> {
    let (cases, verdicts) = (judged.cases, judged.verdicts);
    let unexpected = &comparison.unexpected;
    for &index in unexpected.iter().take(MAX_DIFFS_SHOWN) {
        say(&describe_failure(&cases[index], &verdicts[index], shell));
    }
    if unexpected.len() > MAX_DIFFS_SHOWN {
        say("\nfurther unexpected failures:");
        for &index in &unexpected[MAX_DIFFS_SHOWN..] {
            say(&format!("  {}", cases[index].id));
        }
    }
    let mut problems = Vec::new();
    if !unexpected.is_empty() {
        problems.push(format!(
            "{} cases differ from bash and are not in expected-failures.txt",
            unexpected.len()
        ));
    }
    for (ids, what) in [
        (&comparison.fixed, "now identical to bash"),
        (&comparison.stale, "skipped or not in the corpus"),
    ] {
        if !ids.is_empty() {
            say(&format!(
                "\nlisted as expected failures but {what}:\n  {}",
                ids.join("\n  ")
            ));
            problems.push(format!("{} listed cases are {what}", ids.len()));
        }
    }
    problems
}

/// Rewrites the list with `keep`, in corpus order (which groups ids by file), keeping the
/// header and the notes of entries that stay.
fn write_expected_failures(
    list: &ExpectedFailures,
    keep: &HashSet<String>,
    corpus_order: &HashMap<String, usize>,
) {
    let notes: HashMap<&str, &[String]> = list
        .entries
        .iter()
        .map(|e| (e.id.as_str(), e.notes.as_slice()))
        .collect();
    let mut ids: Vec<&String> = keep.iter().collect();
    ids.sort_by_key(|id| (corpus_order.get(*id).copied().unwrap_or(usize::MAX), *id));

    let mut text = if list.header.is_empty() {
        DEFAULT_HEADER.to_string()
    } else {
        list.header.join("\n")
    };
    text.push_str("\n\n");
    for id in &ids {
        for note in notes.get(id.as_str()).copied().unwrap_or_default() {
            let _ = writeln!(text, "{note}");
        }
        let _ = writeln!(text, "{id}");
    }
    fs::write(expected_failures_path(), text).expect("write expected-failures.txt");
    say(&format!(
        "expected-failures.txt rewritten: {} cases",
        ids.len()
    ));
}
