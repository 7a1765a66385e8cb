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
use std::time::Instant;

use crate::decide::args::{self, Reading, Touch};
use crate::decide::wrapper::{self, Adjust, Inner};
use crate::decide::{self, Decision, Request};
use crate::expand::{self, ExpandError};
use crate::parse::{Assignment, FunctionDef, SimpleCommand, Word, WordPart};
use crate::policy::{Mode, Risk, SandboxMode, Verdict};
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
    /// The path it was found at (absolute), for messages.
    pub path: PathBuf,
    /// O_PATH descriptor: the inode that was decided is the inode that runs.
    pub file: OwnedFd,
    /// Where the opened file really is (read back from the descriptor, not re-resolved from
    /// the path); empty when that cannot be known.
    pub canonical: PathBuf,
    pub dev: u64,
    pub ino: u64,
    pub kind: FileKind,
    /// The file's first bytes (up to `HEAD_BYTES`), which the sandbox reads the ELF
    /// interpreter's name from.
    pub head: Vec<u8>,
    /// For a wrapper rsh performs itself (`env`, `nice`): the command it runs, resolved when
    /// the wrapper was, which is decided and started in its place.
    pub performs: Option<Box<Performs>>,
}

/// What a wrapper rsh performs runs instead of the wrapper's program.
pub(crate) struct Performs {
    pub argv: Vec<String>,
    pub adjust: Adjust,
    pub runs: Resolved,
}

impl Resolved {
    /// The command that runs in the end, through every wrapper rsh performs, and the changes
    /// those wrappers make, outermost first.
    fn performed(self, argv: &[String]) -> (Vec<String>, Resolved, Adjust) {
        let mut adjust = Adjust::default();
        let (mut argv, mut resolved) = (argv.to_vec(), self);
        while let Some(performs) = resolved.performs.take() {
            let Performs {
                argv: inner,
                adjust: theirs,
                runs,
            } = *performs;
            adjust.then(theirs);
            (argv, resolved) = (inner, runs);
        }
        (argv, resolved, adjust)
    }

    /// Whether a `timeout` rsh performs is in front of the command.
    fn asks_timeout(&self) -> bool {
        let mut at = self;
        while let Some(performs) = &at.performs {
            if performs.adjust.timeout.is_some() {
                return true;
            }
            at = &performs.runs;
        }
        false
    }

    /// The file that runs in the end, through every wrapper rsh performs.
    pub fn innermost(&self) -> &Resolved {
        match &self.performs {
            Some(performs) => performs.runs.innermost(),
            None => self,
        }
    }
}

pub(crate) enum FileKind {
    Binary,
    /// `#!interpreter [arg]`: rsh decides and runs the interpreter itself.
    Script {
        /// The interpreter as written on the `#!` line (its argv[0]).
        name: String,
        arg: Option<String>,
        interpreter: Box<Resolved>,
    },
    /// A shell script rsh interprets itself: no `#!` and not a binary (bash does the same),
    /// or a `#!` line naming sh or bash, so every command in it is decided. `options` are
    /// the `set` flags from a `#!/bin/sh -e` line.
    ShellText {
        options: Vec<String>,
    },
}

/// Why a name could not be resolved, with bash's status.
pub(crate) enum NotRunnable {
    NotFound,
    NoSuchFile,
    IsDirectory,
    PermissionDenied,
    /// A `#!` line naming an interpreter that is not there.
    BadInterpreter(String),
    /// A `#!` interpreter rsh will not run: not valid UTF-8, or not a binary itself.
    UnusableInterpreter(String),
    /// The file rules (`[paths]`) keep the file from the program: the whole message.
    Denied(String),
}

impl NotRunnable {
    fn status(&self) -> i32 {
        match self {
            NotRunnable::NotFound | NotRunnable::NoSuchFile => 127,
            NotRunnable::IsDirectory
            | NotRunnable::PermissionDenied
            | NotRunnable::BadInterpreter(_)
            | NotRunnable::UnusableInterpreter(_)
            | NotRunnable::Denied(_) => 126,
        }
    }

    pub(crate) fn message(&self, name: &str) -> String {
        match self {
            NotRunnable::NotFound => format!("{name}: command not found"),
            NotRunnable::NoSuchFile => format!("{name}: No such file or directory"),
            NotRunnable::IsDirectory => format!("{name}: Is a directory"),
            NotRunnable::PermissionDenied => format!("{name}: Permission denied"),
            NotRunnable::BadInterpreter(interpreter) => {
                format!("{name}: {interpreter}: bad interpreter: No such file or directory")
            }
            NotRunnable::UnusableInterpreter(why) => format!("{name}: bad interpreter: {why}"),
            NotRunnable::Denied(message) => message.clone(),
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

/// The redirections of a simple command, and whether it binds variables for itself
/// (`VAR=value command`), which they are expanded without.
#[derive(Clone, Copy)]
pub(crate) struct Redirects<'a> {
    list: &'a [crate::parse::Redirect],
    past_bindings: bool,
}

impl Redirects<'_> {
    pub(crate) const NONE: Redirects<'static> = Redirects {
        list: &[],
        past_bindings: false,
    };
}

impl Shell {
    pub(super) fn run_simple(&mut self, cmd: &SimpleCommand, last_in_process: bool) -> Outcome {
        self.lineno = cmd.line;
        // A command run on its behalf (a function's, a `.` file's) is another node: not final.
        self.running_final = self
            .final_command
            .is_some_and(|last| std::ptr::eq(last, cmd));
        if self.audit.is_some() {
            self.segment = None;
            self.segment_source = Some((cmd.source.clone(), cmd.span));
        }
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
        let redirects = Redirects {
            list: &cmd.redirects,
            past_bindings: !bound.is_empty(),
        };
        if argv[0] == "exec" && self.function("exec").is_none() {
            return self.run_exec(redirects, argv);
        }
        self.run_argv(argv, redirects, Lookup::All, last_in_process)
    }

    /// `exec [cmd args…]`: without a command, redirections that stay; with one, the command
    /// replaces the shell. Both the `exec` builtin and the command are decided first; the
    /// command is always a file (as in bash), run through the same checked path as any other.
    fn run_exec(&mut self, redirects: Redirects<'_>, argv: &[String]) -> Outcome {
        let decision = self.decide_builtin(argv);
        if decision.verdict != Verdict::Allow {
            let refusal = Refusal {
                decision,
                interpreter: None,
            };
            return self.refused(argv, &refusal);
        }
        let args = match argv.get(1).map(String::as_str) {
            Some("--") => &argv[2..],
            // `-a NAME` would let a multi-call binary act as another program than the one
            // decided; `-c` and `-l` have no use here.
            Some(opt) if opt.starts_with('-') && opt.len() > 1 => {
                self.builtin_error("exec", &format!("{opt}: option not supported by rsh"));
                return Ok(2);
            }
            _ => &argv[1..],
        };
        if args.is_empty() {
            return self.exec_redirects(redirects);
        }
        let resolved = match self.resolve_command(args, Lookup::ExternalOnly) {
            Ok(Target::External(resolved)) => resolved,
            Ok(_) => unreachable!("an external lookup"),
            Err(reason) => {
                self.error(&reason.message(&args[0]));
                self.audit_not_runnable(args, &reason);
                // A script cannot go on after a failed exec (bash exits too).
                return self.exec_gave_up(reason.status());
            }
        };
        let target = Target::External(resolved);
        if let Some(refusal) = self.refusal(args, &target) {
            return self.refused(args, &refusal);
        }
        let Target::External(resolved) = target else {
            unreachable!("constructed above")
        };
        match self.apply_command_redirects(redirects) {
            Ok(saved) => saved.forget(),
            Err(failure) => return self.fail_redirect(failure),
        }
        // Under confinement `exec` runs the program as a child and ends rsh with its status:
        // rsh stays to enforce its timeout (or `timeout`'s), and a failed exec leaves rsh
        // itself unconfined; so it does while process substitutions are to be ended. The
        // session ends with it: the kept jobs are ended first, and the program is not kept
        // when stopped (it goes on, as without job control).
        if self.holds_process_subs()
            || (!self.in_job && (self.job_timeout().is_some() || resolved.asks_timeout()))
        {
            if self.at_terminal() {
                self.end_kept_jobs();
            }
            let status = self.run_external(args, resolved, false);
            return Err(Flow::Exit(status));
        }
        if self.at_terminal() {
            self.end_job_control();
        }
        let status = self.run_external(args, resolved, true);
        self.exec_gave_up(status)
    }

    /// After `exec` could not replace the shell: an interactive shell goes on, others stop.
    fn exec_gave_up(&self, status: i32) -> Outcome {
        if self.mode == super::Mode::Interactive {
            Ok(status)
        } else {
            Err(Flow::Exit(status))
        }
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
        redirects: Redirects<'_>,
        lookup: Lookup,
        last_in_process: bool,
    ) -> Outcome {
        let target = match self.resolve_command(argv, lookup) {
            Ok(target) => target,
            Err(reason) => {
                // bash opens the redirections even when the command is missing.
                if let Ok(saved) = self.apply_command_redirects(redirects) {
                    self.restore_redirects(saved);
                }
                self.error(&reason.message(&argv[0]));
                self.audit_not_runnable(argv, &reason);
                return Ok(reason.status());
            }
        };
        if let Some(refusal) = self.refusal(argv, &target) {
            return self.refused(argv, &refusal);
        }
        let saved = match self.apply_command_redirects(redirects) {
            Ok(saved) => saved,
            Err(failure) => return self.fail_redirect(failure),
        };
        self.jobs.note_command(&argv[0]);
        let result = match target {
            Target::Function(def) => self.call_function(&def, argv),
            Target::Builtin(builtin) => {
                let result = builtin(self, argv);
                if let Ok(status) = &result {
                    self.audit_builtin(*status);
                }
                result
            }
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
        let result = self.run_nested(|shell| shell.run_list(&program.body));
        self.active_aliases.pop();
        self.restore_redirects(saved);
        Some(result)
    }

    pub(crate) fn expand_argv(&mut self, words: &[Word]) -> Result<Vec<String>, ExpandError> {
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
    fn exec_redirects(&mut self, redirects: Redirects<'_>) -> Outcome {
        match self.apply_command_redirects(redirects) {
            Ok(saved) => {
                saved.forget();
                Ok(0)
            }
            Err(failure) => self.fail_redirect(failure),
        }
    }

    /// A command's redirections; those of `VAR=value command` are expanded without its
    /// bindings, as in bash: `x=b cmd >$x` opens where `$x` led before, as `x=b cmd $x` names
    /// it.
    fn apply_command_redirects(
        &mut self,
        redirects: Redirects<'_>,
    ) -> Result<super::redirect::Saved, super::redirect::RedirectFailure> {
        if !redirects.past_bindings {
            return self.apply_redirects(redirects.list);
        }
        let hidden = self.vars.hide_temporaries();
        let applied = self.apply_redirects(redirects.list);
        self.vars.show_temporaries(hidden);
        applied
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

    /// The target of an expanded command: `resolve_target`, and for a wrapper rsh performs,
    /// the command it runs.
    pub(crate) fn resolve_command(
        &self,
        argv: &[String],
        lookup: Lookup,
    ) -> Result<Target, NotRunnable> {
        let mut target = self.resolve_target(&argv[0], lookup)?;
        if let Target::External(resolved) = &mut target {
            self.attach_performed(argv, resolved, 0);
        }
        Ok(target)
    }

    /// For a wrapper rsh performs itself (`env`, `nice`; see `wrapper::performed`), resolves
    /// the command it runs, once: that file is decided and started. A command that is not
    /// found, or a shell script rsh would interpret, is left to the wrapper's program (and to
    /// its decision, as any wrapper's).
    fn attach_performed(&self, argv: &[String], resolved: &mut Resolved, depth: usize) {
        if depth >= MAX_WRAPPERS || !matches!(resolved.kind, FileKind::Binary) {
            return;
        }
        let Some(name) = resolved.canonical.file_name().and_then(|n| n.to_str()) else {
            return;
        };
        let Some((inner, adjust)) = wrapper::performed(name, argv) else {
            return;
        };
        let Ok(mut runs) = self.resolve_external(&inner[0]) else {
            return;
        };
        self.attach_performed(&inner, &mut runs, depth + 1);
        if matches!(runs.innermost().kind, FileKind::ShellText { .. }) {
            return;
        }
        resolved.performs = Some(Box::new(Performs {
            argv: inner,
            adjust,
            runs,
        }));
    }

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
            return open_executable(&path, self.sandbox.as_ref());
        }
        for dir in self.search_dirs() {
            let candidate = dir.join(name);
            match open_executable(&candidate, self.sandbox.as_ref()) {
                Ok(resolved) => return Ok(resolved),
                // The first file of that name is the one that would run.
                Err(denied @ NotRunnable::Denied(_)) => return Err(denied),
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
            .filter(|candidate| open_executable(candidate, self.sandbox.as_ref()).is_ok())
            .collect()
    }

    pub(crate) fn search_dirs(&self) -> Vec<PathBuf> {
        match self.policy().search_path() {
            Some(dirs) => dirs.to_vec(),
            None => self
                .path_entries()
                .map(|d| self.absolute(Path::new(d)))
                .collect(),
        }
    }

    /// $PATH's entries as written; an empty one means the current directory, as in bash.
    fn path_entries(&self) -> impl Iterator<Item = &str> {
        let path = self.vars.value("PATH").unwrap_or("");
        path.split(':').map(|d| if d.is_empty() { "." } else { d })
    }

    /// The path bash's search would give for `name` found at `path`: the search directory as
    /// written in $PATH (`bin/show` for `PATH=bin`), which is what a script sees as `$0`.
    fn as_searched(&self, name: &str, path: &Path) -> String {
        if self.policy().search_path().is_none() {
            if let Some(dir) = self
                .path_entries()
                .find(|d| self.absolute(Path::new(d)).join(name) == path)
            {
                return format!("{dir}/{name}");
            }
        }
        path.display().to_string()
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
    /// interpreter its `#!` line names must be allowed, and the command may have the files it
    /// names.
    fn refusal(&mut self, argv: &[String], target: &Target) -> Option<Refusal> {
        let mut decisions = self.all_decisions(argv, target, 0);
        self.add_mode(&mut decisions);
        let decided = strongest(&decisions);
        let refusal = decided
            .filter(|r| r.decision.verdict != Verdict::Allow)
            .cloned();
        let decided = decided.cloned();
        if let Some(d) = &decided {
            tracing::debug!(?argv, verdict = %d.decision.verdict, rule = %d.decision.rule, risk = %d.decision.risk, "decided");
        }
        let refusal = self.unless_audit(&builtins::display_command(argv), refusal);
        let (refusal, confirmed) = match refusal {
            Some(r) if r.decision.verdict == Verdict::Ask && !self.explaining => {
                self.confirm(argv, target, r)
            }
            other => (other, None),
        };
        self.note_segment(argv, target, decided.as_ref(), refusal.is_some(), confirmed);
        refusal
    }

    /// Adds what `[shell] mode` and `strict` say of a command's decisions (going by the
    /// riskiest of them), first, so that its reason is the one given among equal verdicts.
    pub(crate) fn add_mode(&self, decisions: &mut Vec<Refusal>) {
        let Some(riskiest) = riskiest(decisions) else {
            return;
        };
        let decision = &riskiest.decision;
        if let Some(decision) = decide::by_mode(self.policy(), decision.risk, &decision.risk_reason)
        {
            decisions.insert(
                0,
                Refusal {
                    decision,
                    interpreter: None,
                },
            );
        }
    }

    /// In audit mode a refusal is reported (`rsh: audit: ...`) and the command runs; otherwise
    /// the refusal stands.
    pub(crate) fn unless_audit(&self, what: &str, refusal: Option<Refusal>) -> Option<Refusal> {
        let refusal = refusal?;
        if self.policy().mode() != Mode::Audit {
            return Some(refusal);
        }
        if !self.explaining {
            let verb = match refusal.decision.verdict {
                Verdict::Ask => "would ask before",
                _ => "would refuse",
            };
            self.error(&format!(
                "audit: {verb} {what}: {}",
                refusal.decision.reason
            ));
        }
        None
    }

    /// Every decision that must allow the command: the program's, and for a script its `#!`
    /// interpreter's. None for a function (its commands are decided as they run).
    pub(crate) fn decisions(&self, argv: &[String], target: &Target) -> Vec<Refusal> {
        match target {
            Target::Function(_) => Vec::new(),
            Target::Builtin(_) => vec![Refusal {
                decision: self.decide_builtin(argv),
                interpreter: None,
            }],
            Target::External(resolved) => self.decide_external(argv, resolved),
        }
    }

    /// Every decision on a command: its program's (`decisions`), the files it names, and for
    /// a wrapper the command it runs.
    pub(crate) fn all_decisions(
        &mut self,
        argv: &[String],
        target: &Target,
        depth: usize,
    ) -> Vec<Refusal> {
        self.decisions_at(argv, target, depth, Files::All)
    }

    /// `all_decisions` of a command typed on the line (`--explain` leaves out the files it
    /// cannot place).
    pub(crate) fn command_decisions(
        &mut self,
        argv: &[String],
        target: &Target,
        files: Files,
    ) -> Vec<Refusal> {
        self.decisions_at(argv, target, 0, files)
    }

    fn decisions_at(
        &mut self,
        argv: &[String],
        target: &Target,
        depth: usize,
        files: Files,
    ) -> Vec<Refusal> {
        match target {
            Target::External(resolved) => self.file_decisions(argv, resolved, depth, files),
            _ => self.with_files(self.decisions(argv, target), argv, target, files),
        }
    }

    /// `all_decisions` of a program file.
    fn file_decisions(
        &mut self,
        argv: &[String],
        resolved: &Resolved,
        depth: usize,
        files: Files,
    ) -> Vec<Refusal> {
        let decisions = self.decide_external(argv, resolved);
        let named = self.program_files(argv, resolved);
        let mentioned = self.mention_decisions(&named, files);
        let unseen = named.unseen.map(|why| Refusal {
            decision: decide::refused(self.policy(), "sensitive", why),
            interpreter: None,
        });
        let mut decisions = self.with_touches(decisions, named.touches, files);
        decisions.extend(mentioned);
        decisions.extend(unseen);
        decisions.extend(self.wrapped_decisions_of(argv, resolved, depth));
        decisions
    }

    /// `decisions`, and those on the files the command names.
    fn with_files(
        &mut self,
        decisions: Vec<Refusal>,
        argv: &[String],
        target: &Target,
        files: Files,
    ) -> Vec<Refusal> {
        let touches = self.named_files(argv, target).touches;
        self.with_touches(decisions, touches, files)
    }

    /// The decisions on the sensitive files `named` mentions beyond the files it touches.
    fn mention_decisions(&self, named: &Named, files: Files) -> Vec<Refusal> {
        named
            .mentioned_only()
            .filter(|word| files == Files::All || word.starts_with('/'))
            .filter_map(|word| {
                let mut decision = self.mention_decision(word)?;
                decision.reason = format!("names {word}: {}", decision.reason);
                decision.risk_reason = format!("names {word}: {}", decision.risk_reason);
                Some(Refusal {
                    decision,
                    interpreter: None,
                })
            })
            .collect()
    }

    fn with_touches(
        &mut self,
        mut decisions: Vec<Refusal>,
        touches: Vec<Touch>,
        files: Files,
    ) -> Vec<Refusal> {
        // A risk the policy sets for the command is not raised by the files it writes.
        let risk_set = decisions.first().is_some_and(|r| r.decision.risk_set);
        for touch in touches {
            if files == Files::Absolute && !touch.path.starts_with('/') {
                continue;
            }
            let decision = match self.touch_decision(&touch) {
                Some(mut decision) => {
                    let what = format!("{} {}", touch.verb(), touch.path);
                    decision.reason = format!("{what}: {}", decision.reason);
                    decision.risk_reason = format!("{what}: {}", decision.risk_reason);
                    if touch.write {
                        decision.risk = decision.risk.max(Risk::Medium);
                    }
                    decision
                }
                None if touch.write && !risk_set => decide::writes(self.policy(), &touch.path),
                None => continue,
            };
            decisions.push(Refusal {
                decision,
                interpreter: None,
            });
        }
        decisions
    }

    /// `file_decisions` of the command a wrapper runs, with the HOME its own words give it
    /// (`env HOME=DIR jq …` finds jq's modules in DIR/.jq).
    fn inner_decisions(
        &mut self,
        own: &[String],
        argv: &[String],
        runs: &Resolved,
        depth: usize,
    ) -> Vec<Refusal> {
        let Some(home) = own.iter().rev().find_map(|w| w.strip_prefix("HOME=")) else {
            return self.file_decisions(argv, runs, depth, Files::All);
        };
        self.vars.push_scope(ScopeKind::Temporary);
        let decisions = match self.vars.bind_temporary("HOME", home.to_owned()) {
            Ok(()) => self.file_decisions(argv, runs, depth, Files::All),
            Err(why) => vec![Refusal {
                decision: decide::refused(self.policy(), "wrapper", why),
                interpreter: None,
            }],
        };
        self.vars.pop_scope();
        decisions
    }

    /// For a wrapper (`nice`, `timeout`, `env`, ...), the decisions on the command it runs, as
    /// if that had been typed, each saying so. A command rsh cannot know is refused, and so is
    /// one the kernel would not let the wrapper start: the wrapper needs `subprocesses`, and
    /// the command runs with the wrapper's confinement, so it must have `subprocesses` too
    /// (else `nice awk 'BEGIN{system("sh")}'` could start what awk alone may not).
    /// A wrapper rsh performs itself needs no right to start programs: the command it runs
    /// is started by rsh, with its own confinement.
    fn wrapped_decisions_of(
        &mut self,
        argv: &[String],
        outer: &Resolved,
        depth: usize,
    ) -> Vec<Refusal> {
        let refuse = |shell: &Self, reason: String| Refusal {
            decision: decide::refused(shell.policy(), "wrapper", reason),
            interpreter: None,
        };
        if let Some(performs) = &outer.performs {
            let shown = builtins::display_command(&performs.argv);
            let own = own_words(argv, &performs.argv).unwrap_or(argv);
            let mut decisions =
                self.inner_decisions(own, &performs.argv, &performs.runs, depth + 1);
            for refusal in &mut decisions {
                refusal.decision.reason = format!("runs {shown}: {}", refusal.decision.reason);
            }
            return decisions;
        }
        let inner = match wrapped(argv, outer) {
            None => return Vec::new(),
            // As for any program the policy does not name: a policy that allows those has
            // no way to stop this one either.
            Some(Inner::Unknowable(why)) => {
                let mut decision = decide::refused(self.policy(), "shell.unknown", why);
                decision.verdict = self.policy().unknown();
                decision.reason = format!(
                    "{}, which the policy cannot see (shell.unknown = \"{}\")",
                    decision.reason, decision.verdict
                );
                return vec![Refusal {
                    decision,
                    interpreter: None,
                }];
            }
            Some(Inner::Runs(inner)) => inner,
        };
        if depth >= MAX_WRAPPERS {
            return vec![refuse(self, "wrappers nested too deeply".to_owned())];
        }
        let shown = builtins::display_command(&inner);
        let runs = match self.resolve_external(&inner[0]) {
            Ok(found) => found,
            Err(reason) => {
                return vec![refuse(self, format!("runs {}", reason.message(&inner[0])))];
            }
        };
        let own = self.own_profile(&argv[0], outer);
        let theirs = self.profile(&inner, &runs);
        let words = own_words(argv, &inner).unwrap_or(argv);
        let mut decisions = self.inner_decisions(words, &inner, &runs, depth + 1);
        for refusal in &mut decisions {
            refusal.decision.reason = format!("runs {shown}: {}", refusal.decision.reason);
        }
        let (wrapper, program) = (&argv[0], &inner[0]);
        if self.policy().sandbox().mode == SandboxMode::Off {
            // Nothing is confined: the wrapper starts its command as it would under bash.
        } else if !own.subprocesses {
            decisions.push(refuse(
                self,
                format!(
                    "runs {shown}, and may not start programs (give {wrapper} \
                     subprocesses = true to let it)"
                ),
            ));
        } else if !theirs.subprocesses {
            decisions.push(refuse(
                self,
                format!(
                    "runs {shown}: {program} may not start programs, and under {wrapper} it \
                     could (run {program} without {wrapper})"
                ),
            ));
        }
        decisions
    }

    pub(crate) fn decide_builtin(&self, argv: &[String]) -> Decision {
        self.decide(&Request {
            argv,
            program: decide::Program::Builtin(&argv[0]),
        })
    }

    fn decide(&self, request: &Request) -> Decision {
        self.decisions.borrow_mut().decide(&self.policy, request)
    }

    fn decide_external(&self, argv: &[String], resolved: &Resolved) -> Vec<Refusal> {
        let mut decisions = vec![Refusal {
            decision: self.decide_file(argv, resolved),
            interpreter: None,
        }];
        if let FileKind::Script {
            name, interpreter, ..
        } = &resolved.kind
        {
            decisions.push(Refusal {
                decision: self.decide_file(&interpreter_argv(argv, resolved), interpreter),
                interpreter: Some(name.clone()),
            });
        }
        decisions
    }

    fn decide_file(&self, argv: &[String], file: &Resolved) -> Decision {
        self.decide(&Request {
            argv,
            program: decide::Program::External {
                path: &file.canonical,
                dev: file.dev,
                ino: file.ino,
            },
        })
    }

    /// A refused command: reported, and counted against `[shell] warnings`, past which the
    /// session ends.
    fn refused(&mut self, argv: &[String], refusal: &Refusal) -> Outcome {
        let status = self.report_refusal(argv, refusal);
        self.denials += 1;
        self.count_refusal();
        if let Some(limit) = self.policy().warnings()
            && self.denials >= limit
        {
            self.error(&format!(
                "{} commands refused (shell.warnings = {limit}); the session ends",
                self.denials
            ));
            return Err(super::Flow::Exit(status));
        }
        Ok(status)
    }

    /// A program the file rules keep from being run (under a denied path, outside every
    /// root) is a refused command, and recorded as one; a missing one is not.
    fn audit_not_runnable(&mut self, argv: &[String], reason: &NotRunnable) {
        if let NotRunnable::Denied(message) = reason {
            let decision = decide::refused(self.policy(), "paths", message.clone());
            let refusal = Refusal {
                decision,
                interpreter: None,
            };
            self.audit_refused(argv, &refusal);
        }
    }

    fn report_refusal(&mut self, argv: &[String], refusal: &Refusal) -> i32 {
        let command = builtins::display_command(argv);
        let mut reason = unconfirmed(&refusal.decision);
        if let Some(interpreter) = &refusal.interpreter {
            reason = format!("its #! interpreter {interpreter}: {reason}");
        }
        self.error(&format!("denied: {command}: {reason}"));
        self.audit_refused(argv, refusal);
        126
    }

    // ----- execution --------------------------------------------------------------------------

    fn run_external(&mut self, argv: &[String], resolved: Resolved, last_in_process: bool) -> i32 {
        let segment = self.segment.take();
        if let Err(message) = self.audit_ready() {
            self.error(&format!("{}: {message}", argv[0]));
            self.audit_unready(segment, message);
            return 126;
        }
        let started = Instant::now();
        // A wrapper rsh performs: the command it runs starts in its place.
        let (argv, resolved, adjust) = resolved.performed(argv);
        let argv = argv.as_slice();
        let profile = self.profile(argv, &resolved);
        // A script runs as its interpreter, with exactly the argv that was decided for it.
        let (argv, file) = match resolved.kind {
            FileKind::ShellText { ref options } => {
                let options = options.clone();
                // A script rsh may not read is recorded once, as that refusal.
                self.segment = segment;
                let status = self.run_shell_text(argv, &resolved, &options);
                let segment = self.segment.take();
                self.audit_ran(segment, started, &super::audit::Reaped::of_status(status));
                return status;
            }
            FileKind::Script { .. } => {
                let interpreter_argv = interpreter_argv(argv, &resolved);
                let FileKind::Script { interpreter, .. } = resolved.kind else {
                    unreachable!("matched above")
                };
                (interpreter_argv, *interpreter)
            }
            FileKind::Binary => (argv.to_vec(), resolved),
        };
        let env = self.child_env(&adjust);
        // A confinement that cannot be built, or a program that cannot be prepared with it:
        // refused, and recorded.
        let prepared = self.confinement(&file, profile).and_then(|confinement| {
            let executed = match &confinement.view {
                Some(view) => {
                    use std::os::fd::AsFd;
                    let root = view.root.as_fd();
                    spawn::reopen_program_in(root, &file.canonical, file.dev, file.ino)
                        .map_err(|err| err.to_string())?
                }
                None => file.file,
            };
            spawn::Program::new(executed, file.dev, file.ino, &argv, &env, confinement)
                .map_err(|err| err.to_string())
        });
        let program = match prepared {
            Ok(program) => program.niceness(adjust.nice),
            Err(message) => {
                self.error(&format!("{}: {message}", argv[0]));
                self.audit_ran(segment, started, &super::audit::Reaped::of_status(126));
                return 126;
            }
        };
        // A `timeout` in front of the command needs rsh to wait for it, and process
        // substitutions need rsh to end them.
        if last_in_process && adjust.timeout.is_none() && !self.holds_process_subs() {
            // A stage of a pipeline (the rsh waiting for the pipeline enforces its timeout), or
            // `exec` without confinement.
            self.audit_before_exec(segment);
            let err = spawn::exec_in_place(&program, self.stack_limit);
            return self.exec_failed(&argv[0], err);
        }
        let placement = self.placement();
        tracing::debug!(program = %file.canonical.display(), ?profile, "starting");
        self.waiting_for_program(segment, started);
        let deadline = super::Deadline::with(program.confinement().timeout, adjust.timeout);
        let reaped = match spawn::spawn(&program, self.stack_limit, placement) {
            Ok(pid) => {
                tracing::debug!(pid = pid.as_raw(), "started");
                if std::mem::take(&mut self.running_final) {
                    // The program's own hold on the layers goes with it.
                    drop(program);
                    self.release_confinement();
                }
                let text = builtins::display_command(&argv);
                self.wait_job(pid, placement, deadline, &argv[0], text)
            }
            Err(err) => super::audit::Reaped::of_status(self.exec_failed(&argv[0], err)),
        };
        self.program_ended(&reaped);
        deadline.status(&reaped)
    }

    /// What the command tables of a program (and of its `#!` interpreter) let it do once
    /// started: both must grant a permission.
    /// How the kernel confines the program `argv` runs: its own profile and its `#!`
    /// interpreter's; for a wrapper, also the profile of the command it runs (which is
    /// started inside the wrapper's confinement).
    pub(crate) fn profile(&self, argv: &[String], resolved: &Resolved) -> decide::CommandProfile {
        if let Some(performs) = &resolved.performs {
            return self.profile(&performs.argv, &performs.runs);
        }
        let mut profile = self.own_profile(&argv[0], resolved);
        let inner = match wrapped(argv, resolved) {
            Some(Inner::Runs(inner)) => inner,
            _ => return profile,
        };
        if let Ok(runs) = self.resolve_external(&inner[0]) {
            profile = profile.and(self.profile(&inner, &runs));
        }
        profile
    }

    /// The profile of a program file, and its `#!` interpreter's.
    fn own_profile(&self, name: &str, resolved: &Resolved) -> decide::CommandProfile {
        let of = |name: &str, file: &Resolved| {
            decide::profile(
                self.policy(),
                &decide::Program::External {
                    path: &file.canonical,
                    dev: file.dev,
                    ino: file.ino,
                },
                name,
            )
        };
        let own = of(name, resolved);
        match &resolved.kind {
            FileKind::Script {
                name: written,
                interpreter,
                ..
            } => own.and(of(written, interpreter)),
            _ => own,
        }
    }

    /// The kernel confinement of the file about to be executed.
    fn confinement(
        &mut self,
        file: &Resolved,
        profile: decide::CommandProfile,
    ) -> Result<crate::sandbox::Confinement, String> {
        use std::os::fd::AsFd;
        self.sandbox()?
            .confine(file.file.as_fd(), file.dev, file.ino, &file.head, profile)
    }

    /// The environment of a child: the exported variables the policy's `[env] allow` lets
    /// through (never those that make a program load code of the caller's choosing, unless
    /// named exactly), `PATH` as the policy sets it, so a program that looks up others finds
    /// the policy's, and `SHELL` naming rsh, so a program that shells out (`vim` `:!`, `less`
    /// `!`, ssh's ProxyCommand) comes back through the policy.
    /// `adjust`: what `env` in front of the command changes, before the policy's filter.
    fn child_env(&self, adjust: &Adjust) -> Vec<(String, String)> {
        let sandbox = self.policy().sandbox();
        let mut env = adjust.environment(self.vars.exported());
        // PATH is handled below: the policy's, or the caller's when the policy leaves it open.
        env.retain(|(name, _)| (sandbox.passes_env(name) || name == "PATH") && name != "SHELL");
        if let Some(dirs) = self.policy().search_path() {
            let path = dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(":");
            env.retain(|(name, _)| name != "PATH");
            env.push(("PATH".to_string(), path));
        }
        if let Some(rsh) = own_path() {
            env.push(("SHELL".to_string(), rsh.to_string()));
        }
        env
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
    fn run_shell_text(&mut self, argv: &[String], resolved: &Resolved, options: &[String]) -> i32 {
        let text = match self.read_program(&resolved.path.to_string_lossy(), argv.to_vec()) {
            Ok(bytes) => bytes,
            Err(super::redirect::ReadError::Denied(message)) => {
                self.error(&message);
                return 126;
            }
            Err(super::redirect::ReadError::Io(message)) => {
                self.error(&format!("{}: {message}", argv[0]));
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
        match self.fork_waited() {
            Ok(spawn::Fork::Child) => {
                // The script's record is the parent's to send.
                self.segment = None;
                // `$0` is the path a kernel exec would have given the shell: as typed, or
                // where the search found it.
                let zero = if argv[0].contains('/') {
                    argv[0].clone()
                } else {
                    self.as_searched(&argv[0], &resolved.path)
                };
                self.reset_for_script(zero, &argv[1..]);
                for option in options {
                    let set = vec!["set".to_string(), option.clone()];
                    self.run_builtin_quietly(&set);
                }
                let status = self.run_in_child(|shell| shell.run_program(&program));
                spawn::exit_child(status);
            }
            Ok(spawn::Fork::Parent(pid)) => self.wait_child(pid),
            Err(errno) => {
                self.error(&format!("cannot fork: {}", crate::errno_text(errno)));
                126
            }
        }
    }
}

/// The name a program's arguments are read by: its own file name when that is a program
/// known here, else the name it was called by.
fn program_name<'a>(argv: &'a [String], resolved: &'a Resolved) -> &'a str {
    let called = argv[0].rsplit('/').next().unwrap_or_default();
    let name = resolved.canonical.file_name().and_then(|n| n.to_str());
    name.filter(|name| args::knows(name)).unwrap_or(called)
}

/// The files a command has its program touch.
#[derive(Default)]
pub(crate) struct Named {
    pub touches: Vec<Touch>,
    /// Every word that may name a file whatever the program makes of it (`args::mentions`):
    /// one naming a sensitive file that is there is refused as read.
    pub mentions: Vec<String>,
    /// Why some of the files it changes could not be looked at (too many below a directory,
    /// a name held inside a file that cannot be read): the command is refused.
    pub unseen: Option<String>,
}

impl Named {
    /// The words mentioned that are not among the files touched (decided with those).
    pub fn mentioned_only(&self) -> impl Iterator<Item = &String> {
        let touched: std::collections::HashSet<&str> =
            self.touches.iter().map(|t| t.path.as_str()).collect();
        self.mentions
            .iter()
            .filter(move |word| !touched.contains(word.as_str()))
    }
}

impl Shell {
    /// The files a command has its program touch, by what the program is known to do with
    /// its arguments (`args::read`).
    pub(crate) fn named_files(&self, argv: &[String], target: &Target) -> Named {
        match target {
            Target::Function(_) => Named::default(),
            // The only builtins that take files (`source` opens its file itself, checked there).
            Target::Builtin(_) if matches!(argv[0].as_str(), "cd" | "pushd") => Named {
                touches: args::read(&argv[0], argv)
                    .map(|r| r.touches)
                    .unwrap_or_default(),
                ..Named::default()
            },
            Target::Builtin(_) => Named::default(),
            Target::External(resolved) => self.program_files(argv, resolved),
        }
    }

    /// `named_files` of a program file, its arguments read by the program's own name first (a
    /// link named `cat` to `rm` is rm), then by the name it was called by (a multi-call
    /// binary acts on it), else by the generic reading: the files it names, those a copy,
    /// move or link makes of them, those below the directories it goes through, and those
    /// named in its script files.
    fn program_files(&self, argv: &[String], resolved: &Resolved) -> Named {
        let name = program_name(argv, resolved);
        let Some(reading) = args::read(name, argv) else {
            return Named {
                touches: args::generic(argv),
                mentions: args::mentions(argv.get(1..).unwrap_or_default(), &[]),
                unseen: None,
            };
        };
        let (reading, listed) = self.with_listed(name, argv, reading);
        let scripted = self.named_in_script_files(name, &reading);
        // The names a copy, move or link makes first: a refusal names the file that matters
        // (`mv stage d/.git` writes `d/.git/config`) rather than the directory it lands in.
        let mut touches = self.arrived(&reading.arrivals);
        touches.extend(reading.touches);
        let beyond = reading
            .beyond
            .iter()
            .map(|beyond| self.changed_beyond(beyond))
            .collect::<Result<Vec<_>, _>>()
            .map(|all| all.concat());
        let unseen = listed
            .err()
            .or(beyond.as_ref().err().cloned())
            .or(scripted.as_ref().err().cloned());
        touches.extend(beyond.unwrap_or_default());
        touches.extend(scripted.unwrap_or_default());
        Named {
            touches,
            mentions: own_mentions(argv, resolved, reading.mentions),
            unseen,
        }
    }

    /// `reading`, redone with the files its lists name (`tar -T F`) on the command line, after
    /// `--`; Err when a list cannot be read before the command runs. Only when the policy
    /// has sensitive files: the kernel holds what the lists name to `[paths]` anyway.
    fn with_listed(
        &self,
        name: &str,
        argv: &[String],
        mut reading: Reading,
    ) -> (Reading, Result<(), String>) {
        if reading.lists.is_empty() || self.policy().sensitive().is_empty() {
            return (reading, Ok(()));
        }
        let mut listed = argv.to_vec();
        listed.push("--".to_owned());
        let mut read: Vec<String> = Vec::new();
        // A list may name another (`strings @F` with `@G` in F): each is read once.
        while let Some(list) = reading.lists.iter().find(|l| !read.contains(l)).cloned() {
            if read.len() == MOST_LISTS {
                return (
                    reading,
                    Err(format!("more than {MOST_LISTS} lists of files")),
                );
            }
            match self.read_first(&list) {
                Ok(text) => listed.extend(args::list_entries(&String::from_utf8_lossy(&text))),
                Err(why) => {
                    let why = format!("{list}: {why}: the files it lists cannot be looked at");
                    return (reading, Err(why));
                }
            }
            read.push(list);
            match args::read(name, &listed) {
                Some(again) => reading = again,
                None => break,
            }
        }
        (reading, Ok(()))
    }
}

/// Which of the files a command names are decided.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Files {
    All,
    /// Only those named by an absolute path: `--explain` after a `cd` of the same line cannot
    /// know where the others are.
    Absolute,
}

/// How many lists of files (`tar -T F`, `@F`) rsh reads for one command.
const MOST_LISTS: usize = 16;

/// How many wrappers may wrap each other (`nice timeout 5 env A=1 make`).
const MAX_WRAPPERS: usize = 16;

/// The words of `argv` that may name a file (`mentions`, as its program reads them), but
/// of a wrapper only its own: the command it runs is decided with its own reading, which
/// knows its patterns (`timeout 60 grep .env .gitignore`).
fn own_mentions(argv: &[String], resolved: &Resolved, mentions: Vec<String>) -> Vec<String> {
    let inner = match &resolved.performs {
        Some(performs) => performs.argv.clone(),
        None => match wrapped(argv, resolved) {
            Some(Inner::Runs(inner)) => inner,
            _ => return mentions,
        },
    };
    match own_words(argv, &inner) {
        Some(own) => args::mentions(&own[1..], &[]),
        None => mentions,
    }
}

/// The words of a wrapper's `argv` before the command `inner` it runs; None when `inner` is
/// not written out at the end (`env -S 'CMD ARGS'`).
fn own_words<'a>(argv: &'a [String], inner: &[String]) -> Option<&'a [String]> {
    argv.ends_with(inner)
        .then(|| &argv[..argv.len() - inner.len()])
}

/// What a wrapper program runs; None for any other program.
fn wrapped(argv: &[String], resolved: &Resolved) -> Option<Inner> {
    let name = resolved.canonical.file_name().and_then(|n| n.to_str())?;
    wrapper::inner(name, argv)
}

/// A decision's reason as a refusal states it: one that needs confirmation says it cannot
/// get it.
pub(crate) fn unconfirmed(decision: &Decision) -> String {
    match decision.verdict {
        Verdict::Ask => format!(
            "{}; it needs confirmation and rsh cannot ask here",
            decision.reason
        ),
        _ => decision.reason.clone(),
    }
}

/// The decision that counts among a command's: the strictest verdict; on a tie, the
/// program's own decision (it comes first).
pub(crate) fn strongest(decisions: &[Refusal]) -> Option<&Refusal> {
    decisions.iter().rev().max_by_key(|r| r.decision.verdict)
}

/// The decision that gives a command its risk: the riskiest; on a tie, one that says more
/// than that the program is not known to only read.
pub(crate) fn riskiest(decisions: &[Refusal]) -> Option<&Refusal> {
    decisions.iter().min_by_key(|r| {
        (
            std::cmp::Reverse(r.decision.risk),
            r.decision.risk_reason == decide::UNCLASSIFIED,
        )
    })
}

/// A decision that stops a command, and whether it was about a script's interpreter.
#[derive(Clone)]
pub(crate) struct Refusal {
    pub decision: Decision,
    pub interpreter: Option<String>,
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

/// Opens an executable file and classifies it; errors as bash reports them. Under `[paths]`,
/// a file the started program could not read is not looked into, nor run: running it would
/// hand its content to the kernel (and the decided program is always executable).
pub(crate) fn open_executable(
    path: &Path,
    files: Option<&crate::sandbox::Sandbox>,
) -> Result<Resolved, NotRunnable> {
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
    // Everything below is learned from the opened file, never from the path again.
    let opened = nix::sys::stat::fstat(&file).map_err(|_| NotRunnable::NoSuchFile)?;
    let canonical = opened_path(&file);
    if let Some(Err(why)) = files.map(|f| f.permits(&canonical, false)) {
        return Err(NotRunnable::Denied(format!(
            "denied: {}: {why}",
            path.display()
        )));
    }
    let head = read_head(&file, opened.st_dev, opened.st_ino);
    let kind = classify(
        &head[..head.len().min(SHEBANG_BYTES)],
        opened.st_size as u64,
        files,
    )?;
    Ok(Resolved {
        path: path.to_path_buf(),
        canonical,
        dev: opened.st_dev,
        ino: opened.st_ino,
        kind,
        head,
        file,
        performs: None,
    })
}

/// Where an opened file is, as the kernel knows it (`/proc/self/fd/N`); empty if unknown, so
/// that only the identity can match.
fn opened_path(file: &OwnedFd) -> PathBuf {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).unwrap_or_default()
}

/// How many bytes the kernel looks at for a `#!` line, and classifying a file looks at.
const SHEBANG_BYTES: usize = 256;

/// How many first bytes of a program are read: enough for an ELF file's header, program
/// headers and interpreter's name, which the sandbox needs too.
const HEAD_BYTES: usize = 1024;

/// The first bytes of the opened file, read through the descriptor (reopened by its
/// `/proc/self/fd` link and checked to be the same file). Empty when unreadable.
fn read_head(file: &OwnedFd, dev: u64, ino: u64) -> Vec<u8> {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    let Ok(reopened) = std::fs::File::open(format!("/proc/self/fd/{}", file.as_raw_fd())) else {
        return Vec::new();
    };
    let same = reopened
        .metadata()
        .is_ok_and(|m| m.dev() == dev && m.ino() == ino);
    if !same {
        return Vec::new();
    }
    let mut head = vec![0u8; HEAD_BYTES];
    let n = (&reopened).read(&mut head).unwrap_or(0);
    head.truncate(n);
    head
}

fn classify(
    head: &[u8],
    size: u64,
    files: Option<&crate::sandbox::Sandbox>,
) -> Result<FileKind, NotRunnable> {
    if let Some(line) = head.strip_prefix(b"#!") {
        return script_kind(line, files);
    }
    // Unreadable or binary content goes to the kernel; plain text is a shell script, as in
    // bash (which runs a file the kernel refuses with ENOEXEC as a script).
    if head.is_empty() && size > 0 || head.starts_with(b"\x7fELF") || head.contains(&0) {
        Ok(FileKind::Binary)
    } else {
        Ok(FileKind::ShellText {
            options: Vec::new(),
        })
    }
}

/// A `#!` line, split exactly as the kernel's binfmt_script splits it: up to the newline,
/// blanks (space, tab) trimmed, the interpreter up to the first blank, the rest one argument.
fn split_shebang(line: &[u8]) -> (&[u8], Option<&[u8]>) {
    let line = line.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let is_blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = line.iter().position(|b| !is_blank(b)).unwrap_or(line.len());
    let end = line
        .iter()
        .rposition(|b| !is_blank(b))
        .map_or(start, |i| i + 1);
    let line = &line[start..end.max(start)];
    match line.iter().position(is_blank) {
        None => (line, None),
        Some(i) => {
            let rest = &line[i..];
            let arg_start = rest.iter().position(|b| !is_blank(b)).unwrap_or(rest.len());
            (&line[..i], Some(&rest[arg_start..]))
        }
    }
}

fn script_kind(
    line: &[u8],
    files: Option<&crate::sandbox::Sandbox>,
) -> Result<FileKind, NotRunnable> {
    let (name, arg) = split_shebang(line);
    let text = |bytes: &[u8]| {
        String::from_utf8(bytes.to_vec())
            .map_err(|_| NotRunnable::UnusableInterpreter("the #! line is not UTF-8".into()))
    };
    let name = text(name)?;
    let arg = arg.map(text).transpose()?;
    if let Some(options) = shell_interpreter(&name, arg.as_deref()) {
        return Ok(FileKind::ShellText { options });
    }
    let interpreter = open_executable(Path::new(&name), files).map_err(|err| match err {
        NotRunnable::NoSuchFile | NotRunnable::NotFound => {
            NotRunnable::BadInterpreter(name.clone())
        }
        other => other,
    })?;
    // One level only: an interpreter that is itself a script or shell text is refused.
    if !matches!(interpreter.kind, FileKind::Binary) {
        return Err(NotRunnable::UnusableInterpreter(format!(
            "{name} is not a binary"
        )));
    }
    Ok(FileKind::Script {
        name,
        arg,
        interpreter: Box::new(interpreter),
    })
}

/// `#!/bin/sh`, `#!/bin/bash -e`, `#!/usr/bin/env bash`: rsh runs these scripts itself, so
/// every command in them is decided (the `set` flags of the line are kept). None for other
/// interpreters.
fn shell_interpreter(name: &str, arg: Option<&str>) -> Option<Vec<String>> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let is_shell = |word: &str| matches!(word, "sh" | "bash" | "dash" | "ash" | "rsh");
    if base == "env" {
        return arg.filter(|a| is_shell(a)).map(|_| Vec::new());
    }
    if !is_shell(base) {
        return None;
    }
    match arg {
        None => Some(Vec::new()),
        // Only plain set flags (`-e`, `-eu`, `-x`) are understood; anything else keeps the
        // real interpreter, which the policy then decides.
        Some(flags)
            if flags.len() > 1
                && flags.starts_with('-')
                && flags[1..].chars().all(|c| "euxfaC".contains(c)) =>
        {
            Some(vec![flags.to_string()])
        }
        Some(_) => None,
    }
}

/// The command a script really runs: its interpreter, the `#!` argument, the script (by the
/// path it was opened at, so `/proc/self/fd/N` tricks cannot substitute another file) and the
/// script's arguments. Decided and executed alike.
fn interpreter_argv(argv: &[String], script: &Resolved) -> Vec<String> {
    let FileKind::Script { name, arg, .. } = &script.kind else {
        return argv.to_vec();
    };
    let script_path = if script.canonical.as_os_str().is_empty() {
        &script.path
    } else {
        &script.canonical
    };
    let mut out = vec![name.clone()];
    out.extend(arg.iter().cloned());
    out.push(script_path.display().to_string());
    out.extend(argv[1..].iter().cloned());
    out
}

fn has_command_sub(parts: &[WordPart]) -> bool {
    parts.iter().any(|part| match part {
        WordPart::CommandSub(_) => true,
        WordPart::DoubleQuoted(inner) => has_command_sub(inner),
        _ => false,
    })
}

/// The absolute path of the running rsh, for `SHELL`.
pub(crate) fn own_path() -> Option<&'static str> {
    static PATH: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        std::env::current_exe()
            .ok()
            .and_then(|p| p.to_str().map(str::to_string))
    })
    .as_deref()
}
