//! One simple command: expand, resolve what it names, decide against the policy, run.
//!
//! The order is the heart of rsh: words are fully expanded first, the program is resolved to
//! one file (opened, so that the file decided is the file executed), the policy decides on the
//! expanded argv and that file, and only an allowed command gets its redirections opened and
//! is started. A denied command has no effect at all.

use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::decide::{self, Decision, Request};
use crate::expand::{self, ExpandError};
use crate::parse::{Assignment, FunctionDef, SimpleCommand, Word, WordPart};
use crate::policy::Verdict;
use crate::spawn;

use super::builtins::{self, Builtin};
use super::vars::{ScopeKind, is_name};
use super::{Flow, Outcome, Shell};

/// What a command name refers to.
pub(crate) enum Target {
    Function(Rc<FunctionDef>),
    Builtin(Builtin),
    External(Resolved),
}

/// An executable file, opened and identified.
pub(crate) struct Resolved {
    /// The path that will be executed (absolute).
    pub path: PathBuf,
    /// O_PATH descriptor: the inode that was decided is the inode that runs.
    pub file: OwnedFd,
    /// Symlinks resolved, for the policy and messages.
    pub canonical: PathBuf,
    pub dev: u64,
    pub ino: u64,
    pub kind: FileKind,
}

pub(crate) enum FileKind {
    Binary,
    /// `#!interpreter [arg]`
    Script {
        interpreter: String,
        arg: Option<String>,
    },
    /// No `#!` and not a binary: bash runs such a file as a shell script; so does rsh.
    ShellText,
}

/// Why a name could not be resolved, with bash's status.
pub(crate) enum NotRunnable {
    NotFound,
    NoSuchFile,
    IsDirectory,
    PermissionDenied,
    /// A `#!` line naming an interpreter that is not there.
    BadInterpreter(String),
}

impl NotRunnable {
    fn status(&self) -> i32 {
        match self {
            NotRunnable::NotFound | NotRunnable::NoSuchFile => 127,
            NotRunnable::IsDirectory
            | NotRunnable::PermissionDenied
            | NotRunnable::BadInterpreter(_) => 126,
        }
    }

    fn message(&self, name: &str) -> String {
        match self {
            NotRunnable::NotFound => format!("{name}: command not found"),
            NotRunnable::NoSuchFile => format!("{name}: No such file or directory"),
            NotRunnable::IsDirectory => format!("{name}: Is a directory"),
            NotRunnable::PermissionDenied => format!("{name}: Permission denied"),
            NotRunnable::BadInterpreter(interpreter) => {
                format!("{name}: {interpreter}: bad interpreter: No such file or directory")
            }
        }
    }
}

/// Builtins whose `name=value` arguments are expanded like assignments (no splitting).
fn is_declaration(name: &str) -> bool {
    matches!(
        name,
        "export" | "local" | "declare" | "typeset" | "readonly"
    )
}

impl Shell {
    pub(super) fn run_simple(&mut self, cmd: &SimpleCommand, last_in_process: bool) -> Outcome {
        self.lineno = cmd.line;
        if let Some(outcome) = self.run_alias(cmd) {
            return outcome;
        }
        self.substitution_status = None;
        let argv = match self.expand_argv(&cmd.words) {
            Ok(argv) => argv,
            Err(err) => return self.expansion_failed(err),
        };
        if argv.is_empty() {
            return self.run_assignments_only(cmd);
        }
        let result = if cmd.assignments.is_empty() {
            self.run_words(cmd, &argv, &[], last_in_process)
        } else {
            // `A=1 B=$A cmd`: temporary, exported bindings, each visible to the next.
            self.vars.push_scope(ScopeKind::Temporary);
            let result = match self.bind_temporaries(&cmd.assignments) {
                Ok(bound) => self.run_words(cmd, &argv, &bound, last_in_process),
                Err(outcome) => outcome,
            };
            self.vars.pop_scope();
            result
        };
        // `$_`: the last argument of the previous command.
        self.last_arg = argv.last().cloned().unwrap_or_default();
        result
    }

    fn run_words(
        &mut self,
        cmd: &SimpleCommand,
        argv: &[String],
        bound: &[(String, String)],
        last_in_process: bool,
    ) -> Outcome {
        self.trace(bound, argv);
        if argv[0] == "exec" && argv.len() == 1 {
            return self.exec_redirects(cmd);
        }
        self.run_argv(argv, &cmd.redirects, Lookup::All, last_in_process)
    }

    /// Expands and binds prefix assignments in the temporary scope, in order.
    fn bind_temporaries(
        &mut self,
        assignments: &[Assignment],
    ) -> Result<Vec<(String, String)>, Outcome> {
        let mut bound = Vec::with_capacity(assignments.len());
        for assignment in assignments {
            let value = match self.expand_assignments(std::slice::from_ref(assignment)) {
                Ok(mut values) => values.remove(0).1,
                Err(err) => return Err(self.expansion_failed(err)),
            };
            // bash reports a readonly variable here but still runs the command.
            if let Err(message) = self.vars.bind_temporary(&assignment.name, value.clone()) {
                self.error(&message);
            }
            bound.push((assignment.name.clone(), value));
        }
        Ok(bound)
    }

    /// Runs an expanded command: decides, then runs it with its assignments and redirections.
    pub(crate) fn run_argv(
        &mut self,
        argv: &[String],
        redirects: &[crate::parse::Redirect],
        lookup: Lookup,
        last_in_process: bool,
    ) -> Outcome {
        let target = match self.resolve_target(&argv[0], lookup) {
            Ok(target) => target,
            Err(reason) => {
                // bash opens the redirections even when the command is missing.
                if let Ok(saved) = self.apply_redirects(redirects) {
                    self.restore_redirects(saved);
                }
                self.error(&reason.message(&argv[0]));
                return Ok(reason.status());
            }
        };
        if let Some(refusal) = self.refusal(argv, &target) {
            return Ok(self.report_refusal(argv, &refusal));
        }
        let saved = match self.apply_redirects(redirects) {
            Ok(saved) => saved,
            Err(failure) => return self.fail_redirect(failure),
        };
        let result = match target {
            Target::Function(def) => self.call_function(&def, argv),
            Target::Builtin(builtin) => builtin(self, argv),
            Target::External(resolved) => Ok(self.run_external(argv, resolved, last_in_process)),
        };
        self.restore_redirects(saved);
        result
    }

    /// Alias expansion (with `shopt -s expand_aliases`, on by default in interactive use):
    /// the command's own text with its first word replaced by the alias value, parsed and run
    /// like any line, so everything it runs is decided as usual. bash expands aliases when a
    /// line is read; rsh does it when the command runs, which only differs for functions
    /// defined before the alias.
    fn run_alias(&mut self, cmd: &SimpleCommand) -> Option<Outcome> {
        if !self.options.expand_aliases || self.aliases.is_empty() {
            return None;
        }
        let first = cmd.words.first()?;
        let name = first.as_plain_literal()?;
        if self.active_aliases.iter().any(|a| a == name) {
            return None;
        }
        let value = self.aliases.get(name)?.clone();
        let text = cmd
            .source
            .get(cmd.span.start..first.span.start)?
            .to_string()
            + &value
            + cmd.source.get(first.span.end..cmd.span.end)?;
        // Redirections written outside the command's own text (`alias_name > f`) still apply.
        let outside: Vec<crate::parse::Redirect> = cmd
            .redirects
            .iter()
            .filter(|r| r.span.end <= cmd.span.start || r.span.start >= cmd.span.end)
            .cloned()
            .collect();
        let program = match crate::parse::parse(&text) {
            Ok(program) => program,
            Err(err) => {
                self.error(&format!("{name}: alias: {err}"));
                return Some(Ok(2));
            }
        };
        let saved = match self.apply_redirects(&outside) {
            Ok(saved) => saved,
            Err(failure) => return Some(self.fail_redirect(failure)),
        };
        self.active_aliases.push(name.to_string());
        let result = self.run_list(&program.body);
        self.active_aliases.pop();
        self.restore_redirects(saved);
        Some(result)
    }

    fn expand_argv(&mut self, words: &[Word]) -> Result<Vec<String>, ExpandError> {
        let declaration = words
            .first()
            .and_then(Word::as_plain_literal)
            .is_some_and(is_declaration);
        if !declaration {
            return expand::words(self, words);
        }
        let mut argv = expand::words(self, &words[..1])?;
        for word in &words[1..] {
            match split_assignment_word(word) {
                Some((prefix, value)) => {
                    let value = expand::assignment_value(self, &value)?;
                    argv.push(format!("{prefix}{value}"));
                }
                None => argv.extend(expand::words(self, std::slice::from_ref(word))?),
            }
        }
        Ok(argv)
    }

    fn expand_assignments(
        &mut self,
        assignments: &[Assignment],
    ) -> Result<Vec<(String, String)>, ExpandError> {
        let mut out = Vec::with_capacity(assignments.len());
        for assignment in assignments {
            let mut value = expand::assignment_value(self, &assignment.value)?;
            if assignment.append {
                let old = self.vars.value(&assignment.name).unwrap_or("");
                value = format!("{old}{value}");
            }
            out.push((assignment.name.clone(), value));
        }
        Ok(out)
    }

    /// `a=1 b=2` and `a=1 >f`: assignments persist; redirections are opened and closed.
    fn run_assignments_only(&mut self, cmd: &SimpleCommand) -> Outcome {
        // bash clears `$_` when an assignment runs a command substitution.
        if cmd
            .assignments
            .iter()
            .any(|a| has_command_sub(&a.value.parts))
        {
            self.last_arg.clear();
        }
        for assignment in &cmd.assignments {
            let value = match self.expand_assignments(std::slice::from_ref(assignment)) {
                Ok(mut values) => values.remove(0).1,
                Err(err) => return self.expansion_failed(err),
            };
            if self.options.xtrace {
                self.trace(&[(assignment.name.clone(), value.clone())], &[]);
            }
            if let Err(message) = self.assign(&assignment.name, value) {
                self.error(&message);
                self.last_status = 1;
                // bash abandons the rest of the line in a script.
                return if self.mode == super::Mode::Interactive {
                    Ok(1)
                } else {
                    Err(Flow::Abort(1))
                };
            }
        }
        // The status is that of the last command substitution in the command, or 0.
        let status = self.substitution_status.unwrap_or(0);
        self.last_status = status;
        match self.apply_redirects(&cmd.redirects) {
            Ok(saved) => {
                self.restore_redirects(saved);
                Ok(status)
            }
            Err(failure) => self.fail_redirect(failure),
        }
    }

    /// `exec >file`: redirections that stay for the rest of the shell.
    fn exec_redirects(&mut self, cmd: &SimpleCommand) -> Outcome {
        match self.apply_redirects(&cmd.redirects) {
            Ok(saved) => {
                saved.forget();
                Ok(0)
            }
            Err(failure) => self.fail_redirect(failure),
        }
    }

    fn trace(&self, assignments: &[(String, String)], argv: &[String]) {
        if !self.options.xtrace {
            return;
        }
        let ps4 = self.vars.value("PS4").unwrap_or("+ ");
        let mut line = ps4.to_string();
        let words = assignments
            .iter()
            .map(|(k, v)| format!("{k}={}", builtins::quote_for_trace(v)))
            .chain(argv.iter().map(|a| builtins::quote_for_trace(a)));
        line.push_str(&words.collect::<Vec<_>>().join(" "));
        line.push('\n');
        let _ = spawn::fd::write_all(2, line.as_bytes());
    }

    // ----- resolution -------------------------------------------------------------------------

    pub(crate) fn resolve_target(&self, name: &str, lookup: Lookup) -> Result<Target, NotRunnable> {
        if !name.contains('/') {
            if lookup == Lookup::All {
                if let Some(def) = self.function(name) {
                    return Ok(Target::Function(def));
                }
            }
            if lookup != Lookup::ExternalOnly {
                if let Some(builtin) = builtins::lookup(name) {
                    return Ok(Target::Builtin(builtin));
                }
            }
        }
        self.resolve_external(name).map(Target::External)
    }

    /// Finds an executable: a path as written (relative to the cwd), or a name on the
    /// policy's PATH (the caller's `$PATH` only when the policy leaves it open).
    pub(crate) fn resolve_external(&self, name: &str) -> Result<Resolved, NotRunnable> {
        if name.is_empty() {
            return Err(NotRunnable::NotFound);
        }
        if name.contains('/') {
            let path = self.absolute(Path::new(name));
            return open_executable(&path);
        }
        for dir in self.search_dirs() {
            let candidate = dir.join(name);
            match open_executable(&candidate) {
                Ok(resolved) => return Ok(resolved),
                Err(_) => continue,
            }
        }
        Err(NotRunnable::NotFound)
    }

    /// Every executable of this name on the search path, in order (`type -a`).
    pub(crate) fn all_executables(&self, name: &str) -> Vec<PathBuf> {
        self.search_dirs()
            .into_iter()
            .map(|dir| dir.join(name))
            .filter(|candidate| open_executable(candidate).is_ok())
            .collect()
    }

    fn search_dirs(&self) -> Vec<PathBuf> {
        match self.policy().search_path() {
            Some(dirs) => dirs.to_vec(),
            None => self
                .vars
                .value("PATH")
                .unwrap_or("")
                .split(':')
                // An empty entry means the current directory, as in bash.
                .map(|d| {
                    if d.is_empty() {
                        PathBuf::from(".")
                    } else {
                        PathBuf::from(d)
                    }
                })
                .map(|d| self.absolute(&d))
                .collect(),
        }
    }

    pub(crate) fn absolute(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .unwrap_or_else(|_| PathBuf::from("/"))
                .join(path)
        }
    }

    // ----- decision ---------------------------------------------------------------------------

    /// The decision that stops this command, or None when it may run. Both a script and the
    /// interpreter its `#!` line names must be allowed.
    fn refusal(&self, argv: &[String], target: &Target) -> Option<Refusal> {
        let mut refusals: Vec<Refusal> = match target {
            Target::Function(_) => return None,
            Target::Builtin(_) => vec![Refusal {
                decision: self.decide_builtin(argv),
                interpreter: None,
            }],
            Target::External(resolved) => self.decide_external(argv, resolved),
        };
        refusals.retain(|r| r.decision.verdict != Verdict::Allow);
        // The strictest verdict; on a tie, the program's own decision (it comes first).
        refusals
            .into_iter()
            .rev()
            .max_by_key(|r| r.decision.verdict)
    }

    pub(crate) fn decide_builtin(&self, argv: &[String]) -> Decision {
        decide::decide(
            self.policy(),
            &Request {
                argv,
                program: decide::Program::Builtin(&argv[0]),
            },
        )
    }

    fn decide_external(&self, argv: &[String], resolved: &Resolved) -> Vec<Refusal> {
        let mut decisions = vec![Refusal {
            decision: decide::decide(
                self.policy(),
                &Request {
                    argv,
                    program: decide::Program::External {
                        path: &resolved.canonical,
                        dev: resolved.dev,
                        ino: resolved.ino,
                    },
                },
            ),
            interpreter: None,
        }];
        if let FileKind::Script { interpreter, arg } = &resolved.kind {
            decisions.push(Refusal {
                decision: self.decide_interpreter(argv, resolved, interpreter, arg.as_deref()),
                interpreter: Some(interpreter.clone()),
            });
        }
        decisions
    }

    /// The interpreter of a `#!` script is decided as the command the kernel will run:
    /// `interpreter [arg] script args…`.
    fn decide_interpreter(
        &self,
        argv: &[String],
        resolved: &Resolved,
        interpreter: &str,
        arg: Option<&str>,
    ) -> Decision {
        let mut interp_argv = vec![interpreter.to_string()];
        interp_argv.extend(arg.map(str::to_string));
        interp_argv.push(resolved.path.display().to_string());
        interp_argv.extend(argv[1..].iter().cloned());
        match open_executable(Path::new(interpreter)) {
            Ok(interp) => decide::decide(
                self.policy(),
                &Request {
                    argv: &interp_argv,
                    program: decide::Program::External {
                        path: &interp.canonical,
                        dev: interp.dev,
                        ino: interp.ino,
                    },
                },
            ),
            // The interpreter was there when the script was resolved; gone now means refuse.
            Err(_) => Decision {
                verdict: Verdict::Deny,
                rule: decide::RuleRef {
                    key: "#!".to_string(),
                    pattern: Some(interpreter.to_string()),
                    origin: self.policy().origin().to_string(),
                    line: None,
                },
                reason: format!("its interpreter {interpreter} disappeared"),
            },
        }
    }

    fn report_refusal(&self, argv: &[String], refusal: &Refusal) -> i32 {
        let command = builtins::display_command(argv);
        let decision = &refusal.decision;
        let mut reason = match decision.verdict {
            Verdict::Ask => format!(
                "{}; it needs confirmation and rsh cannot ask here",
                decision.reason
            ),
            _ => decision.reason.clone(),
        };
        if let Some(interpreter) = &refusal.interpreter {
            reason = format!("its #! interpreter {interpreter}: {reason}");
        }
        self.error(&format!("denied: {command}: {reason}"));
        126
    }

    // ----- execution --------------------------------------------------------------------------

    fn run_external(&mut self, argv: &[String], resolved: Resolved, last_in_process: bool) -> i32 {
        if let FileKind::ShellText = resolved.kind {
            return self.run_shell_text(argv, &resolved);
        }
        let env = self.vars.exported();
        let is_script = matches!(resolved.kind, FileKind::Script { .. });
        let program =
            match spawn::Program::new(resolved.file, &resolved.path, is_script, argv, &env) {
                Ok(program) => program,
                Err(err) => {
                    self.error(&format!("{}: {err}", argv[0]));
                    return 126;
                }
            };
        if last_in_process {
            let err = spawn::exec_in_place(&program, self.stack_limit);
            return self.exec_failed(&argv[0], err);
        }
        match spawn::spawn(&program, self.stack_limit) {
            Ok(pid) => self.wait_child(pid),
            Err(err) => self.exec_failed(&argv[0], err),
        }
    }

    fn exec_failed(&self, name: &str, err: spawn::SpawnError) -> i32 {
        let status = match &err {
            spawn::SpawnError::Exec(nix::errno::Errno::ENOENT) => 127,
            _ => 126,
        };
        let detail = match &err {
            spawn::SpawnError::Exec(nix::errno::Errno::ENOEXEC) => {
                "cannot execute binary file: Exec format error".to_string()
            }
            other => other.to_string(),
        };
        self.error(&format!("{name}: {detail}"));
        status
    }

    /// A script without `#!`: bash runs it in a subshell of itself, so rsh interprets it, with
    /// every command in it decided as usual.
    fn run_shell_text(&mut self, argv: &[String], resolved: &Resolved) -> i32 {
        let text = match std::fs::read(&resolved.path) {
            Ok(bytes) => bytes,
            Err(err) => {
                self.error(&format!("{}: {err}", argv[0]));
                return 126;
            }
        };
        let program = match crate::parse::parse_bytes(&text) {
            Ok(program) => program,
            Err(err) => {
                self.error(&format!("{}: {err}", argv[0]));
                return 2;
            }
        };
        match spawn::fork_shell() {
            Ok(spawn::Fork::Child) => {
                self.reset_for_script(argv);
                let status = self.run_in_child(|shell| shell.run_program(&program));
                spawn::exit_child(status);
            }
            Ok(spawn::Fork::Parent(pid)) => self.wait_child(pid),
            Err(errno) => {
                self.error(&format!("cannot fork: {}", errno.desc()));
                126
            }
        }
    }
}

/// A decision that stops a command, and whether it was about a script's interpreter.
struct Refusal {
    decision: Decision,
    interpreter: Option<String>,
}

/// How far `resolve_target` looks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Functions, builtins, then files.
    All,
    /// `command`: builtins, then files.
    SkipFunctions,
    /// Files only.
    ExternalOnly,
}

/// `name=value` / `name+=value` at the start of a declaration argument: the `name=` prefix and
/// the value as its own word.
fn split_assignment_word(word: &Word) -> Option<(String, Word)> {
    let WordPart::Literal(first) = word.parts.first()? else {
        return None;
    };
    let eq = first.find('=')?;
    let name = first[..eq].strip_suffix('+').unwrap_or(&first[..eq]);
    if !is_name(name) {
        return None;
    }
    let mut parts = Vec::with_capacity(word.parts.len());
    let rest = &first[eq + 1..];
    if !rest.is_empty() {
        parts.push(WordPart::Literal(rest.to_string()));
    }
    parts.extend(word.parts[1..].iter().cloned());
    Some((
        first[..=eq].to_string(),
        Word {
            parts,
            span: word.span,
        },
    ))
}

/// Opens an executable file and classifies it; errors as bash reports them.
pub(crate) fn open_executable(path: &Path) -> Result<Resolved, NotRunnable> {
    let meta = std::fs::metadata(path).map_err(|_| NotRunnable::NoSuchFile)?;
    if meta.is_dir() {
        return Err(NotRunnable::IsDirectory);
    }
    if meta.permissions().mode() & 0o111 == 0
        || nix::unistd::access(path, nix::unistd::AccessFlags::X_OK).is_err()
    {
        return Err(NotRunnable::PermissionDenied);
    }
    let file = spawn::open_program(path).map_err(|_| NotRunnable::NoSuchFile)?;
    // The identity is that of the opened file, not of whatever the path names later.
    let opened = nix::sys::stat::fstat(&file).map_err(|_| NotRunnable::NoSuchFile)?;
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let kind = classify(path, meta.size());
    if let FileKind::Script { interpreter, .. } = &kind {
        if !Path::new(interpreter).is_file() {
            return Err(NotRunnable::BadInterpreter(interpreter.clone()));
        }
    }
    Ok(Resolved {
        path: path.to_path_buf(),
        canonical,
        dev: opened.st_dev,
        ino: opened.st_ino,
        kind,
        file,
    })
}

fn classify(path: &Path, size: u64) -> FileKind {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = match std::fs::File::open(path).and_then(|mut f| f.read(&mut head)) {
        Ok(n) => n,
        // Execute-only files cannot be inspected: let the kernel run them.
        Err(_) => return FileKind::Binary,
    };
    let head = &head[..n];
    if let Some(line) = head.strip_prefix(b"#!") {
        let line = line.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let line = String::from_utf8_lossy(line);
        let mut parts = line.trim().splitn(2, [' ', '\t']);
        let interpreter = parts.next().unwrap_or("").to_string();
        let arg = parts
            .next()
            .map(|a| a.trim().to_string())
            .filter(|a| !a.is_empty());
        return FileKind::Script { interpreter, arg };
    }
    if size == 0 || head.starts_with(b"\x7fELF") || head.contains(&0) {
        return if size == 0 {
            FileKind::ShellText
        } else {
            FileKind::Binary
        };
    }
    FileKind::ShellText
}

fn has_command_sub(parts: &[WordPart]) -> bool {
    parts.iter().any(|part| match part {
        WordPart::CommandSub(_) => true,
        WordPart::DoubleQuoted(inner) => has_command_sub(inner),
        _ => false,
    })
}
