//! The command line: bash-compatible invocation (`-c`, `-l`, `-lc`, `-c -l`, `-s`, `FILE`,
//! `-i`), policy selection, and the top-level loop for each way rsh can be run.
//!
//! Flags are first read into `Invocation` without side effects; only `run` loads the policy
//! and builds the shell. Exit statuses: the last command's, 2 for usage and syntax errors and
//! for a policy that cannot be loaded (nothing runs then).

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::interp::{Mode, ReadError, Shell};
use crate::parse;
use crate::policy::{self, Owners, Unresolved};
use crate::spawn::{self, fd};

/// The built-in default policy as `build.rs` built it (see `policy::compile_built_in`).
static COMPILED_DEFAULT_POLICY: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/default-policy.bin"));

pub const USAGE: &str = "\
usage: rsh [--policy FILE] [-lis] [-euxCfa] [-o option] [-O shopt] -c COMMAND [NAME [ARG...]]
       rsh [--policy FILE] [options] [FILE [ARG...]]
       rsh [--policy FILE] [options] -s [ARG...]
       rsh [--policy FILE] --check-policy [FILE]
       rsh [--policy FILE] --explain LINE [--json]
       rsh --version | --help

Runs shell commands like bash, checking every command against a policy before it runs.

  -c COMMAND     run COMMAND; NAME becomes $0 and ARGs $1...
  -s             read commands from standard input (the default when no FILE is given)
  -i             interactive
  -l, --login    act as a login shell (also when argv[0] starts with '-')
  -n             check syntax only, run nothing
  -e -u -x -C -f -a   set -o errexit / nounset / xtrace / noclobber / noglob / allexport
  -o OPTION      set -o OPTION;  -O SHOPT: shopt -s SHOPT
  --policy FILE  use FILE instead of /etc/rsh/policy.toml or the built-in default
  --check-policy load the policy, report problems, run nothing
  --explain LINE say what each command of LINE would meet (argv, program, decision and
                 rule, confinement, files), run nothing; --json for programs
  --norc, --noprofile   accepted for bash compatibility (rsh reads no startup files)
  --version, --help

See rsh(1) and rsh-policy(5).
";

/// What the command line asked for, before anything is done about it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    pub command: Option<String>,
    pub script: Option<PathBuf>,
    pub stdin: bool,
    pub interactive: bool,
    pub login: bool,
    pub check_only: bool,
    pub policy: Option<PathBuf>,
    pub set_options: Vec<(String, bool)>,
    pub shopt_options: Vec<(String, bool)>,
    pub arg0: String,
    pub args: Vec<String>,
    pub version: bool,
    pub help: bool,
    pub check_policy: bool,
    pub explain: Option<String>,
    pub json: bool,
}

#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

/// Parses bash-style arguments (`argv` includes argv[0]).
pub fn parse_args(argv: &[String]) -> Result<Invocation, UsageError> {
    let mut inv = Invocation {
        arg0: argv.first().cloned().unwrap_or_else(|| "rsh".to_string()),
        ..Invocation::default()
    };
    inv.login = inv.arg0.starts_with('-');
    let mut want_command = false;
    let mut i = 1;
    while i < argv.len() {
        let arg = &argv[i];
        match arg.as_str() {
            "--" | "-" => {
                i += 1;
                break;
            }
            "--login" => inv.login = true,
            "--norc" | "--noprofile" | "--noediting" => {}
            "--version" => inv.version = true,
            "--check-policy" => {
                inv.check_policy = true;
                // `--check-policy FILE`, like `visudo -c -f FILE`.
                if let Some(file) = argv.get(i + 1).filter(|a| !a.starts_with('-')) {
                    inv.policy = Some(PathBuf::from(file));
                    i += 1;
                }
            }
            "--json" => inv.json = true,
            "--explain" => {
                i += 1;
                let line = argv.get(i).ok_or_else(|| {
                    UsageError("--explain: option requires a command line".into())
                })?;
                inv.explain = Some(line.clone());
            }
            "--help" => inv.help = true,
            "--policy" => {
                i += 1;
                let file = argv
                    .get(i)
                    .ok_or_else(|| UsageError("--policy: option requires a file".into()))?;
                inv.policy = Some(PathBuf::from(file));
            }
            s if s.starts_with("--policy=") => {
                inv.policy = Some(PathBuf::from(&s["--policy=".len()..]));
            }
            s if s.starts_with("--") => {
                return Err(UsageError(format!("{s}: invalid option")));
            }
            s if (s.starts_with('-') || s.starts_with('+')) && s.len() > 1 => {
                let on = s.starts_with('-');
                for letter in s[1..].chars() {
                    match letter {
                        'c' if on => want_command = true,
                        's' if on => inv.stdin = true,
                        'i' if on => inv.interactive = true,
                        'l' if on => inv.login = true,
                        'n' if on => inv.check_only = true,
                        'o' | 'O' => {
                            i += 1;
                            let name = argv.get(i).ok_or_else(|| {
                                UsageError(format!("-{letter}: option requires an argument"))
                            })?;
                            let list = if letter == 'o' {
                                &mut inv.set_options
                            } else {
                                &mut inv.shopt_options
                            };
                            list.push((name.clone(), on));
                        }
                        'e' => inv.set_options.push(("errexit".into(), on)),
                        'u' => inv.set_options.push(("nounset".into(), on)),
                        'x' => inv.set_options.push(("xtrace".into(), on)),
                        'C' => inv.set_options.push(("noclobber".into(), on)),
                        'f' => inv.set_options.push(("noglob".into(), on)),
                        'a' => inv.set_options.push(("allexport".into(), on)),
                        // bash's -h -B -H -m -b -v -p are harmless here.
                        'h' | 'B' | 'H' | 'm' | 'b' | 'v' | 'E' | 'T' => {}
                        _ => {
                            return Err(UsageError(format!("{}{letter}: invalid option", &s[..1])));
                        }
                    }
                }
            }
            _ => break,
        }
        i += 1;
    }
    let operands = &argv[i.min(argv.len())..];
    if want_command {
        let (command, rest) = operands
            .split_first()
            .ok_or_else(|| UsageError("-c: option requires an argument".into()))?;
        inv.command = Some(command.clone());
        if let Some((name, args)) = rest.split_first() {
            inv.arg0 = name.clone();
            inv.args = args.to_vec();
        }
    } else if inv.stdin || operands.is_empty() {
        inv.stdin = true;
        inv.args = operands.to_vec();
    } else {
        inv.script = Some(PathBuf::from(&operands[0]));
        inv.arg0 = operands[0].clone();
        inv.args = operands[1..].to_vec();
    }
    Ok(inv)
}

/// Picks the policy: `--policy FILE`, else /etc/rsh/policy.toml if it exists, else the
/// compiled-in default. Any failure is fatal: rsh never runs without a policy it understood.
/// Its command names are not looked up yet (see `Unresolved`).
///
/// A policy file must be owned by root or the user running rsh, and writable by nobody else.
/// While a system policy exists, a user's `--policy` must be root's: otherwise anyone could
/// write themselves a looser policy than the administrator's.
pub fn load_policy(explicit: Option<&Path>) -> Result<Unresolved, String> {
    load_policy_then(explicit, &mut |_| {})
}

/// As `load_policy`, telling `sandbox_known` the policy's sandbox settings as soon as they
/// are built (see `Unresolved::load_then`).
fn load_policy_then(
    explicit: Option<&Path>,
    sandbox_known: &mut dyn FnMut(&policy::SandboxConfig),
) -> Result<Unresolved, String> {
    let env_path = std::env::var("PATH").ok();
    let system = Path::new(policy::SYSTEM_POLICY_PATH);
    // Only "no such file" means there is no system policy: one rsh cannot see (a directory
    // it may not search) is still the administrator's, and falling back would loosen it.
    let system_exists = match system.symlink_metadata() {
        Ok(_) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => {
            return Err(format!(
                "cannot start: policy {}: cannot tell whether it exists: {e}",
                system.display()
            ));
        }
    };
    let uid = nix::unistd::getuid().as_raw();
    let env_path = env_path.as_deref();
    let file_and_owners = match explicit {
        // The administrator's directory only: a root-owned file elsewhere (a shipped example,
        // a backup, a checkout) is not a policy the administrator chose for this user.
        Some(file) if system_exists && uid != 0 => Some((file, Owners::SystemDir)),
        Some(file) if system_exists => Some((file, Owners::RootOnly)),
        Some(file) => Some((file, Owners::RootOr(uid))),
        None if system_exists => Some((system, Owners::RootOr(0))),
        None => None,
    };
    let loaded = match file_and_owners {
        Some((file, owners)) => Unresolved::load_then(file, env_path, owners, sandbox_known),
        // The administrator may add to the built-in policy without replacing it.
        None => Unresolved::built_in_then(COMPILED_DEFAULT_POLICY, env_path, sandbox_known)
            .and_then(|p| p.include_dir(Path::new(policy::SYSTEM_INCLUDE_DIR), Owners::RootOnly)),
    };
    loaded.map_err(|err| format!("cannot start: policy {err}"))
}

/// The arguments as text. Strings in rsh are UTF-8: an argument that is not (a `-c` command,
/// a file name for `$1`) is refused rather than run with its bytes replaced, which would name
/// another file than the one given.
fn utf8_arguments(argv: Vec<OsString>) -> Result<Vec<String>, String> {
    use std::os::unix::ffi::OsStrExt;
    argv.into_iter()
        .enumerate()
        .map(|(n, arg)| match parse::utf8_text(arg.as_bytes()) {
            Ok(text) => Ok(text.to_owned()),
            // The name rsh was run by only names it in messages.
            Err(_) if n == 0 => Ok(arg.to_string_lossy().into_owned()),
            Err(err) => Err(format!("argument {n}: {err}")),
        })
        .collect()
}

/// Entry point for the binary; returns the exit status.
pub fn main(argv: Vec<OsString>) -> i32 {
    start_debug_log();
    let argv = match utf8_arguments(argv) {
        Ok(argv) => argv,
        Err(message) => {
            eprint_line(&format!("rsh: {message}"));
            return 2;
        }
    };
    let inv = match parse_args(&argv) {
        Ok(inv) => inv,
        Err(UsageError(message)) => {
            eprint_line(&format!("rsh: {message}"));
            eprint_line(
                USAGE
                    .lines()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join("\n")
                    .as_str(),
            );
            return 2;
        }
    };
    if inv.help {
        let _ = fd::write_all(1, USAGE.as_bytes());
        return 0;
    }
    if inv.version {
        let _ = fd::write_all(1, format!("rsh {}\n", env!("CARGO_PKG_VERSION")).as_bytes());
        return 0;
    }
    if inv.check_policy {
        return check_policy(&inv);
    }
    if let Some(line) = &inv.explain {
        if inv.command.is_some() || inv.script.is_some() || inv.check_only {
            eprint_line("rsh: --explain: takes the line itself, not -c, -n or a script");
            return 2;
        }
        return explain(&inv, line);
    }
    if inv.json {
        eprint_line("rsh: --json: only with --explain");
        return 2;
    }
    run(inv)
}

/// `--check-policy`: the policy loads (or the error, status 2), and warnings (status 1): what
/// it names that this system lacks (paths that grant nothing here), allowed commands that can
/// run arbitrary code or other programs, entries that never decide, and `[users.NAME]` or
/// `[groups.NAME]` sections for no one. Nothing runs.
fn check_policy(inv: &Invocation) -> i32 {
    let policy = match load_policy(inv.policy.as_deref()) {
        Ok(policy) => policy.resolve(),
        Err(message) => {
            eprint_line(&format!("rsh: {message}"));
            return 2;
        }
    };
    let home = crate::policy::home_dir();
    let workdir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let missing = crate::sandbox::Sandbox::missing_paths(policy.sandbox(), &home, &workdir);
    for m in &missing {
        eprint_line(&format!(
            "rsh: warning: policy {}: {}: {} does not exist here, so it grants nothing",
            policy.origin(),
            m.key,
            m.path.display()
        ));
    }
    // A search directory that is missing is skipped by design (a policy may name where each
    // system keeps a program); one that is something else here is a mistake.
    let not_dirs: Vec<&PathBuf> = policy
        .search_path()
        .unwrap_or_default()
        .iter()
        .filter(|dir| dir.exists() && !dir.is_dir())
        .collect();
    for dir in &not_dirs {
        eprint_line(&format!(
            "rsh: warning: policy {}: shell.path: {} is not a directory, so no command is \
             found in it",
            policy.origin(),
            dir.display()
        ));
    }
    // Without a path of its own, the policy's names are looked up where the user says.
    let caller_path =
        policy.search_path().is_none() && policy.sandbox().mode != policy::SandboxMode::Off;
    if caller_path {
        eprint_line(&format!(
            "rsh: warning: policy {}: no [shell] path: commands are looked up on the caller's \
             PATH, so a program the user puts in a directory of their PATH runs under any name \
             the policy allows",
            policy.origin()
        ));
    }
    let kernel = confinement_warnings(policy.sandbox(), &workdir);
    for warning in &kernel {
        eprint_line(&format!(
            "rsh: warning: policy {}: {warning}",
            policy.origin()
        ));
    }
    let escapes = crate::lint::escapes(&policy);
    for e in &escapes {
        let kernel = match (e.subprocesses, policy.sandbox().mode) {
            (_, policy::SandboxMode::Off) => ", and nothing confines it (sandbox.mode = \"off\")",
            (true, _) => ", and it may start other programs (subprocesses = true)",
            (false, _) => "",
        };
        eprint_line(&format!(
            "rsh: warning: policy allows `{}` ({}): {} {}{kernel}",
            e.command,
            e.reason,
            e.path.display(),
            e.what,
        ));
    }
    let ineffective: Vec<crate::lint::Finding> = crate::lint::unreachable(&policy)
        .into_iter()
        .chain(crate::lint::nobody(&policy))
        .collect();
    for f in &ineffective {
        eprint_line(&format!("rsh: warning: policy {}: {}", f.at, f.message));
    }
    if missing.is_empty()
        && not_dirs.is_empty()
        && !caller_path
        && kernel.is_empty()
        && escapes.is_empty()
        && ineffective.is_empty()
    {
        let included: Vec<&str> = policy.included().collect();
        let with = match included.is_empty() {
            true => String::new(),
            false => format!(" (with {})", included.join(", ")),
        };
        let ok = format!("policy {}{with}: ok\n", policy.origin());
        let _ = fd::write_all(1, ok.as_bytes());
        0
    } else {
        1
    }
}

/// What this system's kernel leaves out of the confinement `config` asks for, as the user
/// running `--check-policy`: features a confining policy needs (nothing would run, or it runs
/// degraded), and for root the read-only view that keeps modes and times outside the write
/// roots as they are.
fn confinement_warnings(config: &policy::SandboxConfig, workdir: &Path) -> Vec<String> {
    if config.mode == policy::SandboxMode::Off {
        return Vec::new();
    }
    let sandbox = match crate::sandbox::Sandbox::new(config, None, workdir) {
        Ok(sandbox) => sandbox,
        Err(message) => return vec![format!("on this system, {message}")],
    };
    let mut warnings = Vec::new();
    if !sandbox.missing().is_empty() {
        warnings.push(format!(
            "sandbox.mode = \"degraded\", and {}: on this system programs run with only what \
             the kernel enforces",
            sandbox.missing().join("; and ")
        ));
    }
    if let Some(why) = sandbox.view_missing() {
        warnings.push(format!(
            "as root on this system, programs can change the modes and times of files outside \
             the write roots: there is no read-only view ({why}; it needs CAP_SYS_ADMIN and \
             Linux 5.12 or newer)"
        ));
    }
    warnings
}

/// `--explain LINE`: every command of LINE expanded, resolved and decided as if it ran, by the
/// same code, and nothing run. Status 0 when every command would run without being asked, 1
/// when one would be refused, need confirmation or can only be decided as it runs, 2 for a
/// line or policy rsh would not start on (126 for a kernel that cannot confine).
fn explain(inv: &Invocation, line: &str) -> i32 {
    let (policy, sandbox) = match start(inv) {
        Ok(started) => started,
        Err(status) => return status,
    };
    let program = match parse::parse(line) {
        Ok(program) => program,
        Err(err) => {
            eprint_line(&format!("rsh: {err}"));
            return 2;
        }
    };
    let mut shell = Shell::new(
        Arc::new(policy.resolve()),
        Mode::Command,
        inv.arg0.clone(),
        Vec::new(),
    );
    shell.set_sandbox(sandbox);
    shell.set_stack_limit(spawn::raise_stack_limit());
    // -f, -u, -o and -O change how words expand, so they change what the line runs.
    if !apply_startup_options(&mut shell, inv) {
        return 2;
    }
    let segments = shell.explain(&program);
    let text = if inv.json {
        crate::interp::explain::render_json(&segments)
    } else {
        crate::interp::explain::render_text(&segments)
    };
    let _ = fd::write_all(1, text.as_bytes());
    if segments.iter().all(|s| s.allowed()) {
        0
    } else {
        1
    }
}

/// The policy and the confinement of this session, or the status to end with (the message
/// is printed). Before anything runs: a kernel that cannot confine as the policy requires
/// means nothing runs at all. The confinement needs only the policy's sandbox settings, so
/// its costly part (the file-system layer) starts on another thread as soon as they are
/// built, while the rest of the policy is built and its names are looked up: building the
/// commands takes about as long as parsing the file. A policy that turns out to be wrong
/// still runs nothing.
fn start(inv: &Invocation) -> Result<(Unresolved, crate::sandbox::Sandbox), i32> {
    let mut sandbox = None;
    let policy = load_policy_then(inv.policy.as_deref(), &mut |config| {
        sandbox = Some(crate::interp::session_sandbox(config));
    })
    .map_err(|message| {
        eprint_line(&format!("rsh: {message}"));
        2
    })?;
    let sandbox = sandbox
        .unwrap_or_else(|| crate::interp::session_sandbox(policy.sandbox()))
        .map_err(|message| {
            eprint_line(&format!("rsh: cannot start: {message}"));
            126
        })?;
    Ok((policy, sandbox))
}

/// `RSH_LOG=debug` (or any `tracing` filter, such as `rsh=trace`): rsh's own account of what
/// it does, on standard error. Kept apart from the audit trail, which the policy controls
/// and the user cannot turn off or redirect.
fn start_debug_log() {
    let Ok(filter) = std::env::var("RSH_LOG") else {
        return;
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("debug"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(true)
        .without_time()
        .try_init();
}

fn eprint_line(text: &str) {
    let _ = fd::write_all(2, format!("{text}\n").as_bytes());
}

pub fn run(inv: Invocation) -> i32 {
    spawn::note_ignored_on_entry();
    spawn::signals::default_pipe_and_child();
    if inv.check_only && inv.script.is_none() {
        return check_syntax(&inv);
    }
    let (policy, sandbox) = match start(&inv) {
        Ok(started) => started,
        Err(status) => return status,
    };
    let policy = Arc::new(policy.resolve());
    tracing::debug!(policy = policy.origin(), files = ?policy.digests(), "policy loaded");
    let mode = if inv.command.is_some() {
        Mode::Command
    } else if inv.interactive || (inv.stdin && inv.script.is_none() && stdin_is_terminal()) {
        Mode::Interactive
    } else {
        Mode::Script
    };
    let mut shell = Shell::new(policy, mode, inv.arg0.clone(), inv.args.clone());
    shell.set_login(inv.login);
    shell.reading_stdin = inv.command.is_none() && inv.script.is_none();
    shell.set_stack_limit(spawn::raise_stack_limit());
    shell.set_sandbox(sandbox);
    if !apply_startup_options(&mut shell, &inv) {
        return 2;
    }
    if let (true, Some(script)) = (inv.check_only, &inv.script) {
        return match read_script(&mut shell, script) {
            Ok(bytes) => syntax_status(&bytes),
            Err(status) => status,
        };
    }
    let kind = match mode {
        Mode::Command => crate::audit::Kind::Command,
        Mode::Interactive => crate::audit::Kind::Interactive,
        Mode::Script => crate::audit::Kind::Script,
    };
    if let Err(message) = shell.start_audit(kind, inv.command.as_deref()) {
        eprint_line(&format!("rsh: cannot start: {message}"));
        return 126;
    }
    // The output filter is a fork, and a fork waits for the file-system layer being built
    // (see `Sandbox::settle`); without one, the first fork or redirection waits instead, and
    // a line of builtins never does.
    if shell.policy().output().active() {
        shell.settle_descriptors();
    }
    let output = match crate::redact::interpose(shell.policy().output()) {
        Ok(output) => output,
        Err(message) => {
            eprint_line(&format!("rsh: cannot start: {message}"));
            shell.end_audit(126);
            return 126;
        }
    };
    shell.start_session();
    let status = if let Some(command) = &inv.command {
        run_source(&mut shell, command)
    } else if let Some(script) = &inv.script {
        run_file(&mut shell, script)
    } else {
        crate::repl::run_stdin(&mut shell, mode == Mode::Interactive)
    };
    shell.end_process_subs();
    shell.end_kept_jobs();
    shell.end_audit(status);
    if let Some(output) = output {
        output.finish();
    }
    if mode == Mode::Interactive && spawn::signals::hung_up() {
        // Hung up: rsh ends by the signal, as it would have without cleaning up first.
        spawn::job::die_by(libc::SIGHUP);
    }
    // The process ends now: freeing the policy and the shell's tables one by one would only
    // delay that (it is a few percent of a short `rsh -c`). Nothing in them needs a drop to
    // run: the terminal and descriptors are settled above.
    std::mem::forget(shell);
    status
}

/// `-o`, `+o`, `-O` and `+O` given to rsh; false when one was refused (the builtin said why).
fn apply_startup_options(shell: &mut Shell, inv: &Invocation) -> bool {
    let set = inv.set_options.iter().map(|(name, on)| {
        let flag = if *on { "-o" } else { "+o" };
        ["set", flag, name]
    });
    let shopt = inv.shopt_options.iter().map(|(name, on)| {
        let flag = if *on { "-s" } else { "-u" };
        ["shopt", flag, name]
    });
    set.chain(shopt).all(|argv| {
        let argv: Vec<String> = argv.iter().map(|word| word.to_string()).collect();
        shell.run_builtin_quietly(&argv)
    })
}

fn stdin_is_terminal() -> bool {
    nix::unistd::isatty(std::io::stdin()).unwrap_or(false)
}

/// Parses the whole text first: a syntax error anywhere means nothing of it runs.
pub fn run_source(shell: &mut Shell, source: &str) -> i32 {
    match parse::parse(source) {
        Ok(program) => shell.run_toplevel(&program),
        Err(err) => {
            eprint_line(&format!("rsh: {err}"));
            shell.audit_line_refused(source, &err.to_string());
            2
        }
    }
}

fn run_file(shell: &mut Shell, path: &Path) -> i32 {
    let bytes = match read_script(shell, path) {
        Ok(bytes) => bytes,
        Err(status) => return status,
    };
    match parse::parse_bytes(&bytes) {
        Ok(program) => shell.run_toplevel(&program),
        Err(err) => {
            eprint_line(&format!("rsh: {}: {err}", path.display()));
            let what = format!("script {}", path.display());
            shell.audit_line_refused(&what, &err.to_string());
            2
        }
    }
}

/// The script `rsh FILE` runs (or `rsh -n FILE` checks), read under the file rules like a
/// file `source` reads: a script rsh may not read is not shown in its error messages either.
/// As bash: 127 if it is not there, 126 if it cannot be read.
fn read_script(shell: &mut Shell, path: &Path) -> Result<Vec<u8>, i32> {
    let shown = path.to_string_lossy();
    shell
        .read_program(&shown, vec![shown.to_string()])
        .map_err(|err| {
            eprint_line(&format!("rsh: {}", err.message(&shown)));
            let missing = matches!(err, ReadError::Io(_))
                && std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == ErrorKind::NotFound);
            if missing { 127 } else { 126 }
        })
}

/// `rsh -n` on a line or standard input: parse without running (no policy needed, nothing
/// can run, and the text is the caller's own).
fn check_syntax(inv: &Invocation) -> i32 {
    let text = if let Some(command) = &inv.command {
        command.clone().into_bytes()
    } else {
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes);
        bytes
    };
    syntax_status(&text)
}

fn syntax_status(text: &[u8]) -> i32 {
    match parse::parse_bytes(text) {
        Ok(_) => 0,
        Err(err) => {
            eprint_line(&format!("rsh: {err}"));
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn accepts_combined_lc() {
        let inv = parse_args(&args(&["rsh", "-lc", "echo hi"])).unwrap();
        assert!(inv.login);
        assert_eq!(inv.command.as_deref(), Some("echo hi"));
    }

    #[test]
    fn accepts_c_then_l_as_agents_send_it() {
        let inv = parse_args(&args(&["bash", "-c", "-l", "echo hi"])).unwrap();
        assert!(inv.login);
        assert_eq!(inv.command.as_deref(), Some("echo hi"));
    }

    #[test]
    fn c_takes_name_and_arguments() {
        let inv = parse_args(&args(&["rsh", "-c", "echo $0 $1", "me", "one", "two"])).unwrap();
        assert_eq!(inv.arg0, "me");
        assert_eq!(inv.args, vec!["one", "two"]);
    }

    #[test]
    fn dash_argv0_means_login() {
        let inv = parse_args(&args(&["-rsh"])).unwrap();
        assert!(inv.login);
        assert!(inv.stdin);
    }

    #[test]
    fn file_and_arguments() {
        let inv = parse_args(&args(&["rsh", "script.sh", "a", "b"])).unwrap();
        assert_eq!(inv.script, Some(PathBuf::from("script.sh")));
        assert_eq!(inv.arg0, "script.sh");
        assert_eq!(inv.args, vec!["a", "b"]);
    }

    #[test]
    fn policy_both_spellings() {
        let a = parse_args(&args(&["rsh", "--policy", "p.toml", "-c", "x"])).unwrap();
        let b = parse_args(&args(&["rsh", "--policy=p.toml", "-c", "x"])).unwrap();
        assert_eq!(a.policy, Some(PathBuf::from("p.toml")));
        assert_eq!(b.policy, a.policy);
    }

    #[test]
    fn s_with_positional_arguments() {
        let inv = parse_args(&args(&["rsh", "-s", "a", "b"])).unwrap();
        assert!(inv.stdin);
        assert_eq!(inv.args, vec!["a", "b"]);
    }

    #[test]
    fn rejects_missing_command_string() {
        assert!(parse_args(&args(&["rsh", "-c"])).is_err());
    }

    #[test]
    fn rejects_unknown_long_option() {
        assert!(parse_args(&args(&["rsh", "--frobnicate"])).is_err());
    }

    #[test]
    fn set_options_from_flags() {
        let inv = parse_args(&args(&["rsh", "-eu", "-o", "pipefail", "-c", "x"])).unwrap();
        assert_eq!(
            inv.set_options,
            vec![
                ("errexit".to_string(), true),
                ("nounset".to_string(), true),
                ("pipefail".to_string(), true)
            ]
        );
    }
}
