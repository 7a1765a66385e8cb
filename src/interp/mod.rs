//! The interpreter: walks the syntax tree — lists, pipelines, compound commands, functions —
//! and hands every simple command to `simple`, where it is expanded, decided against the
//! policy and only then run.
//!
//! rsh is single-threaded: subshells, pipeline stages and command substitutions are forked
//! copies of the shell that go on interpreting, as in bash. Nothing here runs a program without
//! a decision; there is no path from a line of text to `execve` that skips `decide`.

mod arrival;
mod audit;
mod beyond;
pub mod builtins;
mod complete;
mod cond;
mod confirm;
pub mod explain;
pub mod history;
mod jobs;
mod procsub;
mod redirect;
pub(crate) use redirect::ReadError;
mod simple;
mod timing;
pub mod vars;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use crate::decide::wrapper;
use crate::expand::{self, ExpandEnv, ExpandError, ExpandOptions};
use crate::parse::{
    AndOr, CaseTerminator, Command, Compound, CompoundCommand, Connector, FunctionDef, List,
    Pipeline, Program, SimpleCommand, Special,
};
use crate::policy::Policy;
use crate::sandbox::Sandbox;
use crate::spawn::{self, Fork, fd, job};
use vars::Vars;

/// How deeply functions, `eval` and `source` may nest before rsh refuses to go deeper.
pub const MAX_CALL_DEPTH: usize = 1000;

/// Why a command stopped other than by finishing: control flow that unwinds the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Break(usize),
    Continue(usize),
    Return(i32),
    /// Leave the (sub)shell with this status.
    Exit(i32),
    /// Abandon the rest of the current line of input (an expansion or assignment error in a
    /// script, as bash does); the next line runs.
    Abort(i32),
}

/// A command's status, or the control flow it started.
pub type Outcome = Result<i32, Flow>;

/// `set -o` and `shopt` options.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub errexit: bool,
    pub nounset: bool,
    pub noglob: bool,
    pub noclobber: bool,
    pub pipefail: bool,
    pub xtrace: bool,
    pub allexport: bool,
    pub expand_aliases: bool,
    pub nullglob: bool,
    pub failglob: bool,
    pub dotglob: bool,
    pub extglob: bool,
    pub nocaseglob: bool,
    pub nocasematch: bool,
    pub globstar: bool,
}

/// How the shell was started, for `$-` and behaviour that differs by mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `-c CMD`
    Command,
    /// A script file or stdin.
    Script,
    Interactive,
}

pub struct Shell {
    pub vars: Vars,
    functions: HashMap<String, Rc<FunctionDef>>,
    aliases: BTreeMap<String, String>,
    pub options: Options,
    arg0: String,
    positional: Vec<String>,
    last_status: i32,
    policy: Arc<Policy>,
    /// Decisions made under `policy` (which never changes for a shell).
    decisions: std::cell::RefCell<crate::decide::Cache>,
    mode: Mode,
    shell_pid: i32,
    call_depth: usize,
    loop_depth: usize,
    /// The processor time the shell's own thread had used when it last waited for a program
    /// or began a line: what its loops have used since is held to the timeout.
    own_work_from: std::time::Duration,
    /// When that was last looked at, and the turns of loops since: reading the thread's
    /// processor time is a system call, and even the clock costs a tight loop, so the clock
    /// is read every 16 turns and the processor time every 50 ms.
    own_work_checked: Instant,
    own_work_turns: u32,
    /// Above 0 while running an `if`/`while` condition, a non-final `&&`/`||` element or a
    /// `!` pipeline: `set -e` does not apply there.
    errexit_suppressed: usize,
    lineno: usize,
    started: Instant,
    /// The stack limit rsh found at start, restored for every child (rsh raises its own).
    stack_limit: Option<libc::rlimit>,
    random: std::cell::Cell<u32>,
    /// >0 while a `source`d file runs (`return` is allowed there).
    pub(crate) source_depth: usize,
    /// `set -o`/`shopt` options rsh accepts without acting on them.
    pub(crate) remembered_options: HashMap<String, bool>,
    /// Started as a login shell (`-l`, or argv[0] beginning with `-`).
    pub(crate) login: bool,
    /// `$_`: kept apart from the variables so that listings don't show it, as in bash.
    last_arg: String,
    /// The status of the last command substitution in the current command, for a command
    /// that ends up with no words (`$(exit 3)` has status 3).
    substitution_status: Option<i32>,
    /// `--explain`: nothing may run, not even a command substitution.
    explaining: bool,
    /// Where `getopts` stands in the options it is reading.
    pub(crate) getopts: builtins::getopts::State,
    /// Aliases being expanded right now: an alias is not expanded inside itself.
    active_aliases: Vec<String>,
    /// The working directory as the user reached it (through symlinks), kept by the shell
    /// itself like bash's: `pwd` shows it even if `$PWD` is changed or the directory moves.
    pub(crate) logical_cwd: String,
    /// Commands come from standard input (`$-` contains `s`).
    pub(crate) reading_stdin: bool,
    /// Kernel confinement of started programs: set up by `init_sandbox`, or on first use.
    sandbox: Option<Sandbox>,
    /// What the policy's `~` means (`policy::home_dir`), looked up on first use.
    home: std::cell::OnceCell<PathBuf>,
    /// This process is part of a job (a stage of a pipeline): what it starts stays in the
    /// job's process group, which is `job_group` when rsh made one.
    in_job: bool,
    job_group: Option<nix::unistd::Pid>,
    /// The process group of the pipeline this process is a stage of, and when the pipeline
    /// reaches its timeout (see `own_deadline`).
    job_deadline: Option<(nix::unistd::Pid, Instant)>,
    /// Process substitutions of the pipelines running now, ended when their pipeline ends.
    process_subs: Vec<procsub::ProcessSub>,
    /// Lists of process substitutions still running after their pipeline ended, with the
    /// time their timeout ends them.
    lingering_subs: Vec<(nix::unistd::Pid, Option<Instant>)>,
    /// The audit trail, once started (`start_audit`).
    audit: Option<crate::audit::Trail>,
    /// What was decided about the command being run, for its record.
    segment: Option<crate::audit::Command>,
    /// The text and place of the simple command being run.
    segment_source: Option<(Rc<str>, crate::parse::Span)>,
    /// The line the last record was written on (see `segment_line`).
    last_line: std::cell::RefCell<Option<audit::LastLine>>,
    /// While rsh reads a file it runs as a program (`rsh FILE`, a script without `#!`):
    /// the argv to record a refusal of it under. It is then a program that cannot run.
    reading_program: Option<Vec<String>>,
    /// The simple command a `-c` line or a script ends with, if it ends with one (see
    /// `final_command`); compared with the command being run, never followed.
    final_command: Option<*const SimpleCommand>,
    /// The command being run is `final_command`.
    running_final: bool,
    /// In a forked shell: where the records of its programs go to the shell that reaps it
    /// (see `audit::ToReaper`).
    handoff: Option<audit::ToReaper>,
    /// Records forked shells will hand over, by process.
    handoffs: Vec<audit::Handoff>,
    /// The program being waited for, and when it was decided, for its record should rsh
    /// itself be ended meanwhile.
    in_flight: Option<(crate::audit::Command, Instant)>,
    /// Commands refused so far in this process (see `[shell] warnings`).
    denials: u64,
    /// Commands and files refused so far, whatever refused them (the reader leaves refused
    /// lines out of the history).
    refusals: &'static std::sync::atomic::AtomicU64,
    /// Commands answered "always", until when (see `confirm`).
    remembered: HashMap<String, Instant>,
    /// Lines read at the terminal (interactive shells).
    pub history: history::History,
    /// The terminal's settings for the shell (interactive shells): put back after a job
    /// that held the terminal was ended by a signal, so that a full-screen program killed in
    /// raw mode does not leave it so; taken over from a job that ended by itself, so that
    /// `stty` changes stay, as in bash.
    tty_modes: Option<nix::sys::termios::Termios>,
    /// The shell's settings before they were last taken over from a job, and when: put back
    /// when a kept job turns out to have run while that job held the terminal (it may have
    /// changed them, and the job that ended by itself then handed its change on).
    tty_modes_before: Option<(nix::sys::termios::Termios, Instant)>,
    /// A forked copy of the shell (a subshell, a pipeline stage, a command substitution):
    /// it waits for its programs as a script does, so Ctrl-C that ends its program ends it
    /// too, as in bash, instead of going on with the rest of the subshell.
    forked: bool,
    /// Jobs kept stopped (the interactive shell's job control, see `jobs`).
    jobs: jobs::Jobs,
    /// Ctrl-C ended the job that held the terminal: the interactive shell abandons the rest
    /// of the line, as bash does (`sleep 30; rm -r build` must not go on to the `rm`).
    interrupted: bool,
    /// A line was abandoned for Ctrl-C (see `run_in_child`).
    abandoned_by_ctrl_c: bool,
    /// Set by a forked copy of a shell that is not interactive when Ctrl-C ends it (see
    /// `copy_ended_by_ctrl_c`); shared with the copies, made at the first fork.
    ctrl_c_in_copy: Option<&'static std::sync::atomic::AtomicU64>,
}

impl Shell {
    pub fn new(policy: Arc<Policy>, mode: Mode, arg0: String, positional: Vec<String>) -> Shell {
        let vars = Vars::from_env(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
        );
        let shell_pid = std::process::id() as i32;
        let history_size = policy.session().history_size;
        let mut shell = Shell {
            vars,
            functions: HashMap::new(),
            aliases: BTreeMap::new(),
            options: Options {
                expand_aliases: mode == Mode::Interactive,
                ..Options::default()
            },
            arg0,
            positional,
            last_status: 0,
            policy,
            decisions: std::cell::RefCell::new(crate::decide::Cache::new(
                crate::decide::Cache::SIZE,
            )),
            mode,
            shell_pid,
            call_depth: 0,
            loop_depth: 0,
            own_work_from: std::time::Duration::ZERO,
            own_work_checked: Instant::now(),
            own_work_turns: 0,
            errexit_suppressed: 0,
            lineno: 0,
            started: Instant::now(),
            stack_limit: None,
            random: std::cell::Cell::new(shell_pid as u32 ^ 0x9e37_79b9),
            source_depth: 0,
            remembered_options: HashMap::new(),
            login: false,
            last_arg: String::new(),
            substitution_status: None,
            explaining: false,
            getopts: Default::default(),
            active_aliases: Vec::new(),
            logical_cwd: String::new(),
            reading_stdin: false,
            sandbox: None,
            home: std::cell::OnceCell::new(),
            in_job: false,
            job_group: None,
            job_deadline: None,
            process_subs: Vec::new(),
            lingering_subs: Vec::new(),
            audit: None,
            segment: None,
            segment_source: None,
            last_line: std::cell::RefCell::new(None),
            reading_program: None,
            final_command: None,
            running_final: false,
            handoff: None,
            handoffs: Vec::new(),
            in_flight: None,
            denials: 0,
            refusals: spawn::shared_counter(),
            remembered: HashMap::new(),
            history: history::History::new(history_size),
            tty_modes: None,
            tty_modes_before: None,
            forked: false,
            interrupted: false,
            abandoned_by_ctrl_c: false,
            ctrl_c_in_copy: None,
            jobs: jobs::Jobs::default(),
        };
        shell.init_variables();
        shell
    }

    /// Variables bash sets at start-up.
    fn init_variables(&mut self) {
        let pwd = self.initial_pwd();
        self.logical_cwd = pwd.clone();
        let _ = self.vars.set("PWD", pwd);
        self.vars.set_exported("PWD", true);
        // Never the environment's value, as in bash: an inherited IFS would split every word.
        let _ = self.vars.set("IFS", " \t\n".to_string());
        if let Some(dirs) = self.policy.search_path() {
            let path = dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(":");
            let _ = self.vars.set("PATH", path);
            self.vars.set_exported("PATH", true);
        }
        let shlvl = self
            .vars
            .value("SHLVL")
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(0)
            + 1;
        let _ = self.vars.set("SHLVL", shlvl.to_string());
        self.vars.set_exported("SHLVL", true);
        let _ = self.vars.set("OPTIND", "1".to_string());
        let _ = self.vars.set("OPTERR", "1".to_string());
        let _ = self.vars.set("PS4", "+ ".to_string());
        let _ = self
            .vars
            .set("RSH_VERSION", env!("CARGO_PKG_VERSION").to_string());
        let _ = self.vars.set("PPID", nix::unistd::getppid().to_string());
        if let Ok(host) = nix::unistd::gethostname() {
            let _ = self
                .vars
                .set("HOSTNAME", host.to_string_lossy().into_owned());
        }
        let arch = std::env::consts::ARCH;
        let _ = self.vars.set("HOSTTYPE", arch.to_string());
        let _ = self.vars.set("OSTYPE", "linux-gnu".to_string());
        let _ = self.vars.set("MACHTYPE", format!("{arch}-pc-linux-gnu"));
    }

    /// $PWD if it names the current directory (keeps the logical path), else the physical one.
    fn initial_pwd(&self) -> String {
        let physical = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        if let Some(pwd) = self.vars.value("PWD") {
            let same = std::fs::metadata(pwd)
                .ok()
                .zip(std::fs::metadata(&physical).ok())
                .is_some_and(|(a, b)| {
                    use std::os::unix::fs::MetadataExt;
                    a.dev() == b.dev() && a.ino() == b.ino()
                });
            if same && pwd.starts_with('/') {
                return pwd.to_string();
            }
        }
        physical.display().to_string()
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The home directory the policy's `~` means.
    pub(crate) fn home(&self) -> &std::path::Path {
        self.home.get_or_init(crate::policy::home_dir)
    }

    /// Sets up the confinement of this session's programs (see `session_sandbox`).
    pub fn init_sandbox(&mut self) -> Result<(), String> {
        self.sandbox = Some(session_sandbox(self.policy.sandbox())?);
        Ok(())
    }

    /// Uses a confinement made by `session_sandbox`.
    pub fn set_sandbox(&mut self, sandbox: Sandbox) {
        self.sandbox = Some(sandbox);
    }

    /// Forks the shell (a subshell, a pipeline stage, a substitution). A layer still being
    /// built on another thread is waited for first: the child would have no such thread.
    pub(crate) fn fork(&mut self) -> Result<spawn::Fork, nix::errno::Errno> {
        self.settle_descriptors();
        let shell = nix::unistd::getpid();
        // Cleared here rather than in the wait: a command substitution's copy may have ended
        // before its output is read to the end.
        let ctrl_c_in_copy = *self
            .ctrl_c_in_copy
            .get_or_insert_with(spawn::shared_counter);
        ctrl_c_in_copy.store(0, std::sync::atomic::Ordering::SeqCst);
        let forked = spawn::fork_shell()?;
        if let Fork::Child = forked {
            // A copy of the shell runs only as long as the shell that made it: killed or hung
            // up, that shell can no longer end it when its time is up, and it would go on
            // starting programs unwatched.
            if !spawn::dies_with(shell) {
                spawn::exit_child(1);
            }
            spawn::signals::default_terminations();
            // The parent's: its records are its own to complete, its jobs its own to
            // continue or end.
            self.handoff = None;
            self.handoffs.clear();
            self.forked = true;
            self.jobs.leave_to_parent();
            spawn::signals::default_hang_up();
        }
        Ok(forked)
    }

    /// Waits for the file-system layer being built on another thread before a redirection
    /// names a descriptor by number: until it is done, that thread holds the ruleset and the
    /// directories it grants at low numbers, which `exec 8<&6`, `6<&-` or `/dev/fd/6` could
    /// copy, close or replace (handing a program the live ruleset, or making a rule grant the
    /// wrong directory).
    pub(crate) fn settle_descriptors(&mut self) {
        if let Some(sandbox) = &mut self.sandbox {
            // As in `fork`: a failure comes back when a program needs the layer.
            let _ = sandbox.settle();
        }
    }

    pub(crate) fn sandbox(&mut self) -> Result<&mut Sandbox, String> {
        if self.sandbox.is_none() {
            self.init_sandbox()?;
        }
        Ok(self.sandbox.as_mut().expect("initialized above"))
    }

    pub fn set_stack_limit(&mut self, limit: Option<libc::rlimit>) {
        self.stack_limit = limit;
    }

    /// Whether Ctrl-C ended a command substitution of what is not a command (a prompt),
    /// which is then forgotten.
    pub(crate) fn take_interrupt(&mut self) -> bool {
        std::mem::take(&mut self.interrupted)
    }

    pub fn last_status(&self) -> i32 {
        self.last_status
    }

    /// Runs a parsed program; returns the status the shell should exit with if it stops here.
    pub fn run_program(&mut self, program: &Program) -> Outcome {
        self.run_list(&program.body)
    }

    /// Runs a whole program at top level, line by line: an aborted line gives way to the
    /// next, any other control flow that escapes ends the shell.
    pub fn run_toplevel(&mut self, program: &Program) -> i32 {
        self.final_command = final_command(program);
        let status = match self.run_lines(program) {
            Ok(status) => status,
            Err(Flow::Exit(status)) | Err(Flow::Return(status)) | Err(Flow::Abort(status)) => {
                status
            }
            Err(Flow::Break(_)) | Err(Flow::Continue(_)) => self.last_status,
        };
        self.final_command = None;
        status
    }

    /// Once the program of the line's last command has started, nothing after it is
    /// confined: the layers kept for later programs are closed while it runs, and the kernel
    /// frees their rules then rather than at rsh's exit, after the program (about 40 µs for
    /// the rules around /etc's ~150 entries, as root). Should a program come after all, they
    /// are built again.
    fn release_confinement(&mut self) {
        if let Some(sandbox) = self.sandbox.as_mut() {
            sandbox.release();
        }
    }

    /// Runs the lines of a program; `Flow::Abort` abandons only the line it happened on.
    pub fn run_lines(&mut self, program: &Program) -> Outcome {
        let mut status = 0;
        let mut bounds = program.line_starts.clone();
        bounds.push(program.body.len());
        if bounds.first() != Some(&0) {
            bounds.insert(0, 0);
        }
        for window in bounds.windows(2) {
            self.own_work_begins();
            status = match self.run_list(&program.body[window[0]..window[1]]) {
                Ok(status) => status,
                Err(Flow::Abort(status)) => {
                    self.last_status = status;
                    status
                }
                Err(other) => return Err(other),
            };
        }
        Ok(status)
    }

    // ----- lists and pipelines ---------------------------------------------------------------

    pub(crate) fn run_list(&mut self, list: &[AndOr]) -> Outcome {
        let mut status = 0;
        for and_or in list {
            status = self.run_and_or(and_or)?;
        }
        Ok(status)
    }

    fn run_and_or(&mut self, and_or: &AndOr) -> Outcome {
        let last = and_or.rest.len();
        let mut status = self.run_pipeline_guarded(&and_or.first, last > 0)?;
        let mut ran_last = last == 0;
        let mut negated = and_or.first.negated;
        for (i, (connector, pipeline)) in and_or.rest.iter().enumerate() {
            let run = match connector {
                Connector::And => status == 0,
                Connector::Or => status != 0,
            };
            if run {
                status = self.run_pipeline_guarded(pipeline, i + 1 < last)?;
                ran_last = i + 1 == last;
                negated = pipeline.negated;
            }
        }
        self.last_status = status;
        let last = and_or.rest.last().map_or(&and_or.first, |(_, p)| p);
        if status != 0 && ran_last && !negated && self.errexit_applies() && fails_errexit(last) {
            return Err(Flow::Exit(status));
        }
        Ok(status)
    }

    fn errexit_applies(&self) -> bool {
        self.options.errexit && self.errexit_suppressed == 0
    }

    /// Runs a pipeline where `set -e` is suppressed (a condition, or not last in `&&`/`||`).
    fn run_pipeline_guarded(&mut self, pipeline: &Pipeline, suppress: bool) -> Outcome {
        let suppress = suppress || pipeline.negated;
        if suppress {
            self.errexit_suppressed += 1;
        }
        let result = self.run_pipeline(pipeline);
        if suppress {
            self.errexit_suppressed -= 1;
        }
        // Not over `exit`: `exec sleep 30` ended by Ctrl-C still ends the shell.
        if std::mem::take(&mut self.interrupted) && !matches!(result, Err(Flow::Exit(_))) {
            self.abandoned_by_ctrl_c = true;
            return Err(Flow::Abort(128 + libc::SIGINT));
        }
        result
    }

    /// Whether Ctrl-C came while the interactive shell (or a forked copy of it) ran builtins
    /// (see `signals::note_ctrl_c`); the line is then abandoned, as after a job Ctrl-C ended.
    pub(crate) fn ctrl_c_came(&mut self) -> bool {
        if self.mode != Mode::Interactive || !spawn::signals::take_ctrl_c() {
            return false;
        }
        if self.at_terminal() {
            let _ = fd::write_all(2, b"\n");
        }
        self.interrupted = true;
        true
    }

    /// Runs a condition (`if`, `while`): its status, with `set -e` suppressed.
    fn run_condition(&mut self, list: &List) -> Outcome {
        self.errexit_suppressed += 1;
        let result = self.run_list(list);
        self.errexit_suppressed -= 1;
        result
    }

    fn run_pipeline(&mut self, pipeline: &Pipeline) -> Outcome {
        // Hung up while running builtins: the session ends (see `signals::catch_hang_up`).
        if self.at_terminal() && spawn::signals::hung_up() {
            return Err(Flow::Exit(128 + libc::SIGHUP));
        }
        if self.ctrl_c_came() {
            return Ok(128 + libc::SIGINT);
        }
        let mark = self.process_subs.len();
        let clock = pipeline
            .timed
            .map(|format| (format, timing::Clock::start()));
        let result = match pipeline.commands.as_slice() {
            [single] => self.run_command(single, false),
            commands => self.run_stages(commands, pipeline_text(pipeline)),
        };
        self.finish_process_subs(mark);
        let status = result?;
        if let Some((format, clock)) = clock {
            self.report_time(format, &clock);
        }
        let status = if pipeline.negated {
            i32::from(status == 0)
        } else {
            status
        };
        self.last_status = status;
        Ok(status)
    }

    /// What `time` says when its pipeline has ended, on the shell's standard error.
    fn report_time(&self, format: crate::parse::TimeFormat, clock: &timing::Clock) {
        match clock.report(format, self.vars.value("TIMEFORMAT")) {
            Ok(Some(report)) => {
                let _ = spawn::fd::write_all(2, report.as_bytes());
            }
            Ok(None) => {}
            Err(c) => self.error(&format!("TIMEFORMAT: `{c}': invalid format character")),
        }
    }

    /// A multi-stage pipeline: every stage is a forked shell wired to its neighbours, all in
    /// one process group led by the first.
    fn run_stages(&mut self, commands: &[Command], text: String) -> Outcome {
        let mut children = Vec::with_capacity(commands.len());
        let first = self.placement();
        let mut group = None;
        let timeout = self.job_timeout();
        let began = Instant::now();
        let mut input: Option<std::os::fd::OwnedFd> = None;
        for (i, command) in commands.iter().enumerate() {
            let last = i + 1 == commands.len();
            let (next_input, output) = if last {
                (None, None)
            } else {
                match spawn::pipe() {
                    Ok((r, w)) => (Some(r), Some(w)),
                    Err(errno) => {
                        self.error(&format!("cannot make a pipe: {}", crate::errno_text(errno)));
                        break;
                    }
                }
            };
            let placement = match (first.group, children.first()) {
                (job::Group::New, Some(&leader)) => job::Placement {
                    group: job::Group::Join(leader),
                    terminal: None,
                },
                _ => first,
            };
            match self.fork_waited() {
                Ok(Fork::Child) => {
                    placement.apply_in_child();
                    self.enter_job(placement);
                    self.note_job_deadline(timeout.map(|t| began + t));
                    drop(next_input);
                    self.wire_stage(input.take(), output);
                    let status = self.run_in_child(|shell| shell.run_command(command, true));
                    spawn::exit_child(status);
                }
                Ok(Fork::Parent(pid)) => {
                    // At once, so that the group exists when the next stage joins it.
                    let joined = placement.apply_in_parent(pid);
                    if children.is_empty() {
                        group = joined;
                    }
                    children.push(pid);
                }
                Err(errno) => {
                    self.error(&format!("cannot fork: {}", crate::errno_text(errno)));
                    break;
                }
            }
            input = next_input;
        }
        drop(input);
        let terminal = group.and(first.terminal);
        let info = jobs::JobInfo {
            deadline: Deadline::policy_since(timeout, began),
            what: "pipeline".to_string(),
            text,
            pipeline: true,
            number: None,
        };
        match self.wait_job_statuses(&children, group, terminal, info) {
            jobs::Followed::Ended(_, status) | jobs::Followed::Kept(status) => Ok(status),
        }
    }

    /// The status of a pipeline from its stages': the last, or with pipefail the last that
    /// failed.
    pub(crate) fn pipeline_status(&self, statuses: &[i32]) -> i32 {
        if self.options.pipefail {
            statuses
                .iter()
                .rev()
                .copied()
                .find(|&s| s != 0)
                .unwrap_or(0)
        } else {
            statuses.last().copied().unwrap_or(1)
        }
    }

    /// In a stage of a pipeline that ends at `until`, in the pipeline's group: programs in
    /// that group are ended by the pipeline's shell then (an enclosing pipeline's earlier
    /// deadline stays).
    fn note_job_deadline(&mut self, until: Option<Instant>) {
        let (Some(group), Some(until)) = (self.job_group, until) else {
            return;
        };
        self.job_deadline = match self.job_deadline {
            Some((outer, earlier)) if outer == group => Some((group, earlier.min(until))),
            _ => Some((group, until)),
        };
    }

    /// The pipeline's deadline, when this shell is a stage of it and in its group.
    fn pipeline_deadline(&self) -> Option<Instant> {
        self.job_deadline
            .filter(|&(group, _)| self.job_group == Some(group))
            .map(|(_, until)| until)
    }

    /// In a stage of a pipeline, SIGTERM that came past the pipeline's deadline is the
    /// timeout's, sent by the pipeline's shell.
    fn ended_at_pipeline_deadline(&self, ended: &job::Ended) -> bool {
        let Some(until) = self.pipeline_deadline() else {
            return false;
        };
        ended.dying == Some(libc::SIGTERM) && ended.dying_at.is_some_and(|at| at >= until)
    }

    /// In a forked stage: what this process starts stays in the job's group, and the stops
    /// from the terminal stop this shell with its programs.
    fn enter_job(&mut self, placement: job::Placement) {
        self.in_job = true;
        spawn::signals::default_stops();
        let own = nix::unistd::getpgrp();
        self.job_group = match placement.group {
            job::Group::New => Some(own).filter(|&g| g == nix::unistd::getpid()),
            job::Group::Join(leader) => Some(own).filter(|&g| g == leader),
            job::Group::Keep => self.job_group,
        };
    }

    fn wire_stage(
        &mut self,
        input: Option<std::os::fd::OwnedFd>,
        output: Option<std::os::fd::OwnedFd>,
    ) {
        if let Some(input) = input {
            let _ = fd::install(input, 0);
        }
        if let Some(output) = output {
            let _ = fd::install(output, 1);
        }
    }

    /// Runs `body` as the whole life of a forked child and returns its exit status.
    fn run_in_child(&mut self, body: impl FnOnce(&mut Shell) -> Outcome) -> i32 {
        // A subshell is not inside the parent's loops: `break` there only complains.
        self.loop_depth = 0;
        self.abandoned_by_ctrl_c = false;
        // A subshell's `exit`, `return` or errexit ends only the subshell.
        let status = match body(self) {
            Ok(status)
            | Err(Flow::Exit(status))
            | Err(Flow::Return(status))
            | Err(Flow::Abort(status)) => status,
            Err(Flow::Break(_)) | Err(Flow::Continue(_)) => self.last_status,
        };
        self.end_process_subs();
        // Ctrl-C ended what it ran and a line was abandoned for it (or the copy it waited for
        // last, `echo | (sleep 30)`): it ends by it as well, for the shell that waits for it to
        // abandon its line too (as a bash subshell, which does not ignore Ctrl-C, would).
        if (self.abandoned_by_ctrl_c || self.interrupted) && self.mode == Mode::Interactive {
            job::die_by(libc::SIGINT);
        }
        status
    }

    /// Where a new job goes: a process group of its own, holding the terminal if rsh holds it;
    /// inside a job already, the job's group.
    pub(crate) fn placement(&self) -> job::Placement {
        if self.in_job {
            job::Placement::KEEP
        } else {
            job::Placement {
                group: job::Group::New,
                terminal: job::foreground_terminal(),
            }
        }
    }

    /// The wall-clock limit of a job, when the policy confines programs.
    pub(crate) fn job_timeout(&mut self) -> Option<std::time::Duration> {
        self.sandbox().ok().and_then(|s| s.timeout())
    }

    /// Waits for a started program placed with `placement`; see `wait_job_statuses`. `text`:
    /// the command as `jobs` would show it.
    pub(crate) fn wait_job(
        &mut self,
        pid: nix::unistd::Pid,
        placement: job::Placement,
        deadline: Deadline,
        what: &str,
        text: String,
    ) -> audit::Reaped {
        let group = placement.apply_in_parent(pid);
        let terminal = group.and(placement.terminal);
        let info = jobs::JobInfo {
            deadline,
            what: what.to_string(),
            text,
            pipeline: false,
            number: None,
        };
        match self.wait_job_statuses(&[pid], group, terminal, info) {
            jobs::Followed::Ended(mut reaped, _) => reaped.remove(0),
            // Its record goes with the kept job (see `jobs`).
            jobs::Followed::Kept(status) => audit::Reaped::of_status(status),
        }
    }

    /// Waits for the processes of a job (`group`: its own process group, if it has one) until
    /// they end (see `finish_job`) or, in the interactive shell, the job is kept stopped.
    fn wait_job_statuses(
        &mut self,
        pids: &[nix::unistd::Pid],
        group: Option<nix::unistd::Pid>,
        terminal: Option<std::os::fd::RawFd>,
        info: jobs::JobInfo,
    ) -> jobs::Followed {
        let job = job::Job {
            pids: pids.to_vec(),
            // `timeout`'s signal goes to its command alone when the job's group is a
            // pipeline's (as timeout's own program would send it), not to the other stages.
            group: group.or(self.job_group.filter(|_| info.deadline.asked.is_none())),
            terminal,
            on_stop: self.on_stop(group, terminal),
            expiry: info.deadline.expiry,
        };
        // Under confinement nothing a command started outlives it (and its timeout).
        let sweep = info.deadline.policy.is_some();
        let after = self.own_deadline(&info.deadline, group);
        let waited = job.wait(after, self.at_terminal(), sweep);
        self.own_work_begins();
        self.follow_job(job, waited, info)
    }

    /// When a job of this shell is ended. In a pipeline's stage, a program in the pipeline's
    /// group is ended with it by the pipeline's shell, at the pipeline's deadline, which is
    /// earlier than the program's own (the same timeout, counted from later): the program's
    /// waits until that shell has sent SIGKILL too, so that it is that shell which ends the
    /// job and records it as timed out. It still ends the program should that shell be gone.
    fn own_deadline(
        &self,
        deadline: &Deadline,
        group: Option<nix::unistd::Pid>,
    ) -> Option<std::time::Duration> {
        let until = self
            .pipeline_deadline()
            .filter(|_| group.is_none() && deadline.asked.is_none());
        match (deadline.after, until) {
            (Some(after), Some(until)) => {
                Some(after.max(until.saturating_duration_since(Instant::now()) + job::GRACE))
            }
            (after, _) => after,
        }
    }

    /// What a job of this shell does when it is stopped from the terminal. Job control (the
    /// job is kept) only in the interactive shell itself, for a job of its own that holds the
    /// terminal, and not while the session ends; a shell forked inside a job stops with it; a
    /// forked copy outside any job (a command substitution, a subshell) must not stop, since
    /// its shell waits for it without job control.
    fn on_stop(
        &self,
        group: Option<nix::unistd::Pid>,
        terminal: Option<std::os::fd::RawFd>,
    ) -> job::OnStop {
        if self.forked {
            return if self.in_job {
                job::OnStop::StopWith
            } else {
                job::OnStop::GoOn
            };
        }
        match self.mode {
            Mode::Interactive
                if group.is_some()
                    && terminal.is_some()
                    && self.jobs.keeping()
                    && !spawn::signals::hung_up() =>
            {
                job::OnStop::Keep
            }
            Mode::Interactive => job::OnStop::GoOn,
            Mode::Command | Mode::Script => job::OnStop::StopWith,
        }
    }

    /// What follows the end of a job: the terminal back, a timeout and a signal reported
    /// (for a job that ended while kept, `kept`: its number and mark, a job line as bash
    /// writes before a prompt), the records its processes handed over completed, and, when
    /// rsh must end with it, rsh ended. One status per process.
    fn finish_job(
        &mut self,
        job: &job::Job,
        ended: job::Ended,
        info: &jobs::JobInfo,
        kept: Option<(usize, char)>,
    ) -> Vec<audit::Reaped> {
        let held_terminal = kept.is_none() && job.terminal.is_some();
        let from_terminal = ended.from_terminal;
        if kept.is_none()
            && let Some(tty) = job.terminal
        {
            job::reclaim_terminal(tty);
            self.settle_terminal(tty, &ended.exits);
        }
        // The signal the command's own `timeout` asked for, which rsh sent (after it, the
        // program ends with 124, as timeout's program makes it).
        let sent_for_timeout = ended.timed_out && info.deadline.asked.is_some();
        // Ctrl-C that ended a job holding the terminal abandons the interactive shell's line,
        // and so does SIGINT that rsh got and passed on; in a forked copy of it, which lets
        // Ctrl-C pass as the shell does, any job it ended abandons the copy's line, and the
        // copy then ends by it (`run_in_child`).
        self.interrupted |= self.mode == Mode::Interactive
            && (self.forked || held_terminal || ended.passed_sigint)
            && !ended.sent_sigint
            && by_ctrl_c(&ended.exits);
        // Not collapsed into the guard: a quiet `timeout` must not fall through to rsh's own
        // report below.
        #[allow(clippy::collapsible_match)]
        match info.deadline.asked {
            // The command's own `timeout` reports as its program would.
            Some(asked) if ended.timed_out => {
                if asked.verbose {
                    let line = format!(
                        "timeout: sending signal {} to command '{}'\n",
                        signal_name(asked.signal),
                        info.what
                    );
                    let _ = fd::write_all(2, line.as_bytes());
                }
            }
            _ if ended.timed_out => {
                let seconds = info.deadline.policy.map(|t| t.as_secs()).unwrap_or(0);
                self.error(&format!(
                    "{}: timed out after {seconds} s (limits.timeout); ended",
                    info.what
                ));
            }
            _ => {}
        }
        match kept {
            Some((number, mark)) => {
                let end = jobs::end_description(&ended.exits);
                let line = jobs::job_line(number, mark, &end, &info.text);
                let _ = fd::write_all(2, format!("{line}\n").as_bytes());
            }
            // Like bash, one report for the job: the last process that a signal ended (not by
            // the signal `timeout` sent; SIGKILL ends timeout's program too, and bash says so).
            None => {
                let asked_for = |signal: i32| sent_for_timeout && signal != libc::SIGKILL;
                if let Some((signal, core)) =
                    last_signal(&ended.exits).filter(|&(signal, _)| !asked_for(signal))
                {
                    self.report_signal(signal, core);
                }
            }
        }
        let timed_out = ended.timed_out || self.ended_at_pipeline_deadline(&ended);
        let mut reaped = Vec::with_capacity(job.pids.len());
        for (i, exit) in ended.exits.into_iter().enumerate() {
            let status = match exit {
                Ok(exit) => exit.status(),
                Err(errno) => {
                    self.error(&format!("wait: {}", crate::errno_text(errno)));
                    127
                }
            };
            let one = audit::Reaped {
                status,
                exit: exit.ok(),
                usage: ended.usage[i],
                timed_out,
            };
            self.audit_reaped(job.pids[i], &one);
            reaped.push(one);
        }
        if let (None, Some(sig)) = (kept, ended.dying) {
            if let Some(flag) = self.ctrl_c_in_copy.filter(|_| self.forked && from_terminal) {
                flag.store(1, std::sync::atomic::Ordering::SeqCst);
            }
            self.die_recorded(sig, timed_out);
        }
        reaped
    }

    /// rsh ends by `sig` while it waits: what ran is recorded first (`timed_out`: the
    /// signal came from a deadline, this shell's or its pipeline's), the jobs it kept are
    /// ended, and the session's end is recorded.
    fn die_recorded(&mut self, sig: i32, timed_out: bool) -> ! {
        if self.at_terminal() {
            self.end_kept_jobs();
        }
        self.audit_dying(sig, timed_out);
        job::die_by(sig)
    }

    /// Whether this is the interactive shell itself, not a forked copy of it.
    fn at_terminal(&self) -> bool {
        self.mode == Mode::Interactive && !self.forked
    }

    /// After a job that held the terminal: see `tty_modes`.
    fn settle_terminal(
        &mut self,
        tty: std::os::fd::RawFd,
        exits: &[Result<spawn::Exit, nix::errno::Errno>],
    ) {
        use nix::sys::termios::{SetArg, tcgetattr, tcsetattr};
        let Some(saved) = &self.tty_modes else {
            return;
        };
        let signalled = exits
            .iter()
            .any(|e| matches!(e, Ok(spawn::Exit::Signal { .. })));
        if signalled {
            let _ = tcsetattr(fd::borrow(tty), SetArg::TCSADRAIN, saved);
        } else if let Ok(now) = tcgetattr(fd::borrow(tty)) {
            self.tty_modes_before = self
                .tty_modes
                .replace(now)
                .map(|before| (before, Instant::now()));
        }
    }

    /// Waits for a forked copy of the shell (a subshell, a command substitution) that runs in
    /// the shell's own process group; a hang-up meanwhile reaches it (see
    /// `signals::waiting_for`).
    pub(crate) fn wait_child(&mut self, pid: nix::unistd::Pid) -> i32 {
        spawn::signals::waiting_for(Some(pid));
        let waited = spawn::wait_with_usage(pid);
        spawn::signals::waiting_for(None);
        self.own_work_begins();
        match waited {
            Ok((exit, usage)) => {
                if let spawn::Exit::Signal { signal, core } = exit {
                    self.report_signal(signal, core);
                    // As for a job: Ctrl-C that ended it abandons the line (it shares the
                    // shell's group, which got the same Ctrl-C).
                    self.interrupted |= signal == libc::SIGINT && self.mode == Mode::Interactive;
                }
                let reaped = audit::Reaped {
                    status: exit.status(),
                    exit: Some(exit),
                    usage: Some(usage),
                    timed_out: false,
                };
                self.audit_reaped(pid, &reaped);
                if self.copy_ended_by_ctrl_c(exit) {
                    self.die_recorded(libc::SIGINT, false);
                }
                reaped.status
            }
            Err(errno) => {
                self.error(&format!("wait: {}", crate::errno_text(errno)));
                127
            }
        }
    }

    /// Ctrl-C ended a forked copy (`(sleep 30); rm -r build`, `x=$(sleep 30)`) of a shell that
    /// is not interactive: bash, which gets Ctrl-C with its child (same process group), ends
    /// by it too. rsh is not in the group of the job that took the Ctrl-C, so the copy says
    /// so through shared memory as it dies (`finish_job`). A copy that rsh sent SIGINT to,
    /// or that got it itself, ends only itself, as in bash.
    fn copy_ended_by_ctrl_c(&self, exit: spawn::Exit) -> bool {
        let by_sigint = matches!(
            exit,
            spawn::Exit::Signal {
                signal: libc::SIGINT,
                ..
            }
        );
        by_sigint
            && self.mode != Mode::Interactive
            && self
                .ctrl_c_in_copy
                .is_some_and(|flag| flag.load(std::sync::atomic::Ordering::SeqCst) != 0)
    }

    /// bash reports a child killed by a signal other than SIGINT and SIGPIPE.
    fn report_signal(&self, signal: i32, core: bool) {
        if signal == libc::SIGINT || signal == libc::SIGPIPE {
            if signal == libc::SIGINT && self.at_terminal() {
                let _ = fd::write_all(2, b"\n");
            }
            return;
        }
        let name = signal_description(signal);
        let suffix = if core { " (core dumped)" } else { "" };
        let _ = fd::write_all(2, format!("{name}{suffix}\n").as_bytes());
    }

    // ----- commands ---------------------------------------------------------------------------

    /// `last_in_process`: nothing follows in this (forked) process, so an external command
    /// may replace it instead of being forked.
    fn run_command(&mut self, command: &Command, last_in_process: bool) -> Outcome {
        match command {
            Command::Simple(simple) => self.run_simple(simple, last_in_process),
            Command::Compound(compound) => self.run_compound(compound),
            Command::FunctionDef(def) => {
                if builtins::is_special(&def.name) {
                    self.error(&format!("`{}': is a special builtin", def.name));
                    return Ok(2);
                }
                self.functions.insert(def.name.clone(), Rc::clone(def));
                Ok(0)
            }
        }
    }

    fn run_compound(&mut self, compound: &CompoundCommand) -> Outcome {
        self.lineno = compound.line;
        if compound.redirects.is_empty() {
            return self.run_compound_body(&compound.kind);
        }
        let saved = match self.apply_redirects(&compound.redirects) {
            Ok(saved) => saved,
            Err(failure) => {
                let status = self.fail_redirect(failure)?;
                // The compound command itself failed: set -e applies (bash 5.2).
                if self.errexit_applies() {
                    return Err(Flow::Exit(status));
                }
                return Ok(status);
            }
        };
        let result = self.run_compound_body(&compound.kind);
        self.restore_redirects(saved);
        result
    }

    fn run_compound_body(&mut self, kind: &Compound) -> Outcome {
        match kind {
            Compound::Group(list) => self.run_list(list),
            Compound::Subshell(list) => self.run_subshell(list),
            Compound::If {
                branches,
                otherwise,
            } => {
                for (condition, body) in branches {
                    if self.run_condition(condition)? == 0 {
                        return self.run_list(body);
                    }
                }
                match otherwise {
                    Some(body) => self.run_list(body),
                    None => Ok(0),
                }
            }
            Compound::While { cond, body, until } => self.run_while(cond, body, *until),
            Compound::For { var, words, body } => self.run_for(var, words.as_deref(), body),
            Compound::ArithFor {
                init,
                cond,
                step,
                body,
            } => self.run_arith_for(init.as_ref(), cond.as_ref(), step.as_ref(), body),
            Compound::Case { subject, items } => self.run_case(subject, items),
            Compound::Cond(expr) => {
                let status = self.eval_cond(expr)?;
                self.last_status = status;
                Ok(status)
            }
            Compound::Arith(word) => {
                let status = match self.arith_clause(word) {
                    Ok(value) => i32::from(value == 0),
                    Err(outcome) => outcome?,
                };
                self.last_status = status;
                Ok(status)
            }
        }
    }

    fn run_subshell(&mut self, list: &List) -> Outcome {
        match self.fork_waited() {
            Ok(Fork::Child) => {
                let status = self.run_in_child(|shell| shell.run_list(list));
                spawn::exit_child(status);
            }
            Ok(Fork::Parent(pid)) => Ok(self.wait_child(pid)),
            Err(errno) => {
                self.error(&format!("cannot fork: {}", crate::errno_text(errno)));
                Ok(1)
            }
        }
    }

    /// Runs a loop body, turning `break`/`continue` for this loop into loop decisions.
    fn loop_body(&mut self, body: &List) -> Result<LoopStep, Flow> {
        self.own_work_within_timeout()?;
        match self.run_list(body) {
            Ok(status) => Ok(LoopStep::Next(status)),
            Err(Flow::Break(n)) if n > 1 => Err(Flow::Break(n - 1)),
            Err(Flow::Break(_)) => Ok(LoopStep::Stop),
            Err(Flow::Continue(n)) if n > 1 => Err(Flow::Continue(n - 1)),
            Err(Flow::Continue(_)) => Ok(LoopStep::Next(0)),
            Err(other) => Err(other),
        }
    }

    /// Starts counting the shell's own work afresh.
    fn own_work_begins(&mut self) {
        self.own_work_from = own_processor_time();
    }

    /// A loop of builtins starts no program, so no program's timeout ends it: the processor
    /// time the shell has used since it last waited for a program (or began the line) is held
    /// to the policy's timeout instead, and past it the line is abandoned as a program's
    /// timeout ends the program (status 143). Time spent waiting (for input, say) is not
    /// counted.
    fn own_work_within_timeout(&mut self) -> Result<(), Flow> {
        const EVERY: std::time::Duration = std::time::Duration::from_millis(50);
        self.own_work_turns = self.own_work_turns.wrapping_add(1);
        if self.own_work_turns % 16 != 0 {
            return Ok(());
        }
        let now = Instant::now();
        if now.duration_since(self.own_work_checked) < EVERY {
            return Ok(());
        }
        self.own_work_checked = now;
        let Some(limit) = self.job_timeout() else {
            return Ok(());
        };
        if own_processor_time().saturating_sub(self.own_work_from) <= limit {
            return Ok(());
        }
        self.error(&format!(
            "the shell's own commands ran {} s of processor time without starting a program \
             (limits.timeout); the line is abandoned",
            limit.as_secs()
        ));
        self.own_work_begins();
        Err(Flow::Abort(128 + libc::SIGTERM))
    }

    fn run_while(&mut self, cond: &List, body: &List, until: bool) -> Outcome {
        self.in_loop_body(|shell| shell.while_loop(cond, body, until))
    }

    /// Runs a loop, so that `break` and `continue` inside it know they are in one.
    fn in_loop_body(&mut self, run: impl FnOnce(&mut Shell) -> Outcome) -> Outcome {
        self.loop_depth += 1;
        let result = run(self);
        self.loop_depth -= 1;
        result
    }

    fn while_loop(&mut self, cond: &List, body: &List, until: bool) -> Outcome {
        let mut status = 0;
        loop {
            // `break` and `continue` may appear in the condition too.
            let test = match self.run_condition(cond) {
                Ok(test) => test,
                Err(Flow::Break(n)) if n > 1 => return Err(Flow::Break(n - 1)),
                Err(Flow::Break(_)) => return Ok(0),
                Err(Flow::Continue(n)) if n > 1 => return Err(Flow::Continue(n - 1)),
                // bash ends the loop on `continue` in its own condition.
                Err(Flow::Continue(_)) => return Ok(0),
                Err(other) => return Err(other),
            };
            if (test == 0) == until {
                return Ok(status);
            }
            match self.loop_body(body)? {
                LoopStep::Next(s) => status = s,
                LoopStep::Stop => return Ok(0),
            }
        }
    }

    fn run_for(&mut self, var: &str, words: Option<&[crate::parse::Word]>, body: &List) -> Outcome {
        let items = match words {
            Some(words) => match expand::words(self, words) {
                Ok(items) => items,
                Err(err) => return self.expansion_failed(err),
            },
            None => self.positional.clone(),
        };
        self.in_loop_body(|shell| shell.for_loop(var, items, body))
    }

    fn for_loop(&mut self, var: &str, items: Vec<String>, body: &List) -> Outcome {
        let mut status = 0;
        for item in items {
            if let Err(message) = self.assign(var, item) {
                self.error(&message);
                return Ok(1);
            }
            match self.loop_body(body)? {
                LoopStep::Next(s) => status = s,
                LoopStep::Stop => return Ok(0),
            }
        }
        Ok(status)
    }

    fn run_arith_for(
        &mut self,
        init: Option<&crate::parse::Word>,
        cond: Option<&crate::parse::Word>,
        step: Option<&crate::parse::Word>,
        body: &List,
    ) -> Outcome {
        self.in_loop_body(|shell| shell.arith_for_loop(init, cond, step, body))
    }

    fn arith_for_loop(
        &mut self,
        init: Option<&crate::parse::Word>,
        cond: Option<&crate::parse::Word>,
        step: Option<&crate::parse::Word>,
        body: &List,
    ) -> Outcome {
        if let Some(init) = init {
            if let Err(outcome) = self.arith_clause(init) {
                return outcome;
            }
        }
        let mut status = 0;
        loop {
            if let Some(cond) = cond {
                match self.arith_clause(cond) {
                    Ok(0) => return Ok(status),
                    Ok(_) => {}
                    Err(outcome) => return outcome,
                }
            }
            match self.loop_body(body)? {
                LoopStep::Next(s) => status = s,
                LoopStep::Stop => return Ok(0),
            }
            if let Some(step) = step {
                if let Err(outcome) = self.arith_clause(step) {
                    return outcome;
                }
            }
        }
    }

    /// Evaluates a `((…))` or `for ((…))` clause. An arithmetic error fails the command with
    /// status 1; an expansion error (`set -u`, `${x:?}`) is as fatal here as anywhere.
    fn arith_clause(&mut self, word: &crate::parse::Word) -> Result<i64, Outcome> {
        match expand::arith(self, word) {
            Ok(value) => Ok(value),
            Err(err) if err.arithmetic => {
                self.error(&format!("((: {}", err.message));
                Err(Ok(1))
            }
            Err(err) => Err(self.expansion_failed(err)),
        }
    }

    fn run_case(
        &mut self,
        subject: &crate::parse::Word,
        items: &[crate::parse::CaseItem],
    ) -> Outcome {
        let subject = match expand::string(self, subject) {
            Ok(s) => s,
            Err(err) => return self.expansion_failed(err),
        };
        let mut index = 0;
        while index < items.len() {
            let mut matched = false;
            for pattern in &items[index].patterns {
                let text = match expand::pattern_text(self, pattern) {
                    Ok(t) => t,
                    Err(err) => return self.expansion_failed(err),
                };
                if self.pattern_matches(&text, &subject, false) {
                    matched = true;
                    break;
                }
            }
            if !matched {
                index += 1;
                continue;
            }
            // `;&` runs the following bodies without testing their patterns.
            loop {
                let status = self.run_list(&items[index].body)?;
                if items[index].terminator != CaseTerminator::FallThrough
                    || index + 1 >= items.len()
                {
                    return Ok(status);
                }
                index += 1;
            }
        }
        Ok(0)
    }

    /// `case` patterns follow `shopt extglob`; `[[ == ]]` always has extglob, as in bash.
    pub(crate) fn pattern_matches(&self, pattern: &str, text: &str, always_extglob: bool) -> bool {
        let opts = expand::pattern::PatternOpts {
            extglob: self.options.extglob || always_extglob,
            nocase: self.options.nocasematch,
        };
        expand::pattern::Pattern::new(pattern, opts).matches(text)
    }

    // ----- functions --------------------------------------------------------------------------

    pub(crate) fn function(&self, name: &str) -> Option<Rc<FunctionDef>> {
        self.functions.get(name).cloned()
    }

    pub(crate) fn call_function(&mut self, def: &FunctionDef, argv: &[String]) -> Outcome {
        if self.call_depth >= MAX_CALL_DEPTH {
            self.error(&format!(
                "{}: maximum function nesting level exceeded ({MAX_CALL_DEPTH})",
                def.name
            ));
            return Ok(1);
        }
        self.call_depth += 1;
        let saved_args = std::mem::replace(&mut self.positional, argv[1..].to_vec());
        let getopts_at_call = (self.getopts.clone(), self.vars.optind_changes());
        self.vars.push_scope(vars::ScopeKind::Function);
        let result = self.run_compound(&def.body);
        let local_optind = self.vars.innermost_holds("OPTIND");
        self.vars.pop_scope();
        if local_optind {
            let (state, changes) = getopts_at_call;
            self.getopts = state.handed_back(changes, self.vars.optind_changes());
        }
        self.positional = saved_args;
        self.call_depth -= 1;
        match result {
            Err(Flow::Return(status)) => Ok(status),
            other => other,
        }
    }

    pub(crate) fn in_function(&self) -> bool {
        self.vars.in_function()
    }

    pub(crate) fn in_loop(&self) -> usize {
        self.loop_depth
    }

    /// Parses and runs text as if typed here (`eval`): same checks, same policy.
    pub(crate) fn run_text(&mut self, text: &str) -> Outcome {
        let program = match crate::parse::parse(text) {
            Ok(program) => program,
            Err(err) => {
                self.error(&err.to_string());
                return Ok(2);
            }
        };
        self.run_nested(|shell| shell.run_program(&program))
    }

    /// Runs `body` one level deeper (`eval`, `source`, aliases), refusing to go past
    /// `MAX_CALL_DEPTH` so that self-recursion ends in an error, not a stack overflow.
    pub(crate) fn run_nested(&mut self, body: impl FnOnce(&mut Shell) -> Outcome) -> Outcome {
        if self.call_depth >= MAX_CALL_DEPTH {
            self.error(&format!(
                "maximum eval/source nesting level exceeded ({MAX_CALL_DEPTH})"
            ));
            return Ok(1);
        }
        self.call_depth += 1;
        let result = body(self);
        self.call_depth -= 1;
        result
    }

    // ----- variables --------------------------------------------------------------------------

    pub(crate) fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        self.vars.set(name, value)?;
        if self.options.allexport {
            self.vars.set_exported(name, true);
        }
        Ok(())
    }

    /// `$0`.
    pub(crate) fn arg0(&self) -> &str {
        &self.arg0
    }

    pub(crate) fn positional_args(&self) -> &[String] {
        &self.positional
    }

    pub(crate) fn set_positional(&mut self, args: Vec<String>) {
        self.positional = args;
    }

    pub(crate) fn aliases(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.aliases
    }

    pub(crate) fn functions(&mut self) -> &mut HashMap<String, Rc<FunctionDef>> {
        &mut self.functions
    }

    /// Runs a builtin at start-up (`rsh -o pipefail`); false when it failed, which its own
    /// message has explained (`rsh: shopt: nosuch: invalid shell option name`).
    pub fn run_builtin_quietly(&mut self, argv: &[String]) -> bool {
        let builtin = builtins::lookup(&argv[0]).expect("a builtin rsh has");
        matches!(builtin(self, argv), Ok(0))
    }

    pub fn set_last_status(&mut self, status: i32) {
        self.last_status = status;
    }

    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }

    /// What a shell started for a person does before the first prompt: the policy's prompt,
    /// and for a login shell the variables a login sets where the program that started rsh
    /// did not, the policy's message of the day, and the home directory as the working
    /// directory when it was started in / (as far as the policy lets it be).
    pub fn start_session(&mut self) {
        let session = self.policy.session().clone();
        if self.mode == Mode::Interactive {
            self.tty_modes = job::foreground_terminal()
                .and_then(|tty| nix::sys::termios::tcgetattr(fd::borrow(tty)).ok());
        }
        if self.mode == Mode::Interactive
            && let Some(prompt) = &session.prompt
            && (!session.prompt_from_env || self.vars.value("PS1").is_none())
        {
            let _ = self.vars.set("PS1", prompt.clone());
        }
        if !self.login {
            return;
        }
        if let Some(user) = crate::policy::current_user() {
            for (name, value) in [
                ("HOME", user.dir.display().to_string()),
                ("USER", user.name.clone()),
                ("LOGNAME", user.name.clone()),
            ] {
                if self.vars.value(name).is_none() {
                    let _ = self.vars.set(name, value);
                    self.vars.set_exported(name, true);
                }
            }
        }
        if let Some(rsh) = simple::own_path() {
            let _ = self.vars.set("SHELL", rsh.to_string());
            self.vars.set_exported("SHELL", true);
        }
        if self.mode != Mode::Interactive {
            return;
        }
        if let Some(motd) = &session.motd {
            let mut text = motd.clone();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let _ = spawn::fd::write_all(1, text.as_bytes());
        }
        // sshd, login and su start the shell in the home directory themselves; a program that
        // left it in / meant it too. Anywhere else, the place it was started in stays.
        let home = self.vars.value("HOME").map(str::to_string);
        if let Some(home) = home
            && std::env::current_dir().is_ok_and(|d| d == std::path::Path::new("/"))
            && let Some(cd) = builtins::lookup("cd")
        {
            let _ = cd(self, &["cd".to_string(), home]);
        }
    }

    /// How many commands and files have been refused in this process and the processes
    /// forked from it (pipeline stages, subshells, command substitutions).
    pub fn refusals(&self) -> u64 {
        self.refusals.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn count_refusal(&self) {
        self.refusals
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn is_login(&self) -> bool {
        self.login
    }

    pub fn set_login(&mut self, login: bool) {
        self.login = login;
    }

    /// A script run by name gets its own `$0` and arguments, and none of the functions,
    /// aliases, unexported variables or `getopts` position of the shell that started it (it
    /// is a new shell in bash too).
    pub(crate) fn reset_for_script(&mut self, zero: String, args: &[String]) {
        self.last_arg = zero.clone();
        self.arg0 = zero;
        self.positional = args.to_vec();
        self.mode = Mode::Script;
        self.reading_stdin = false;
        self.login = false;
        self.shell_pid = std::process::id() as i32;
        // A new shell: what reaches it is the environment, and bash's start-up variables.
        self.vars = Vars::from_env(self.vars.exported().into_iter());
        self.init_variables();
        self.getopts = Default::default();
        self.functions.clear();
        self.aliases.clear();
        self.options = Options::default();
        self.call_depth = 0;
        self.loop_depth = 0;
        self.source_depth = 0;
        self.errexit_suppressed = 0;
    }

    /// `$-`
    fn flags(&self) -> String {
        let mut flags = String::new();
        let o = &self.options;
        for (on, c) in [
            (o.allexport, 'a'),
            (o.errexit, 'e'),
            (o.noglob, 'f'),
            (true, 'h'),
            (self.mode == Mode::Interactive, 'i'),
            (o.nounset, 'u'),
            (o.xtrace, 'x'),
            (true, 'B'),
            (o.noclobber, 'C'),
            (self.reading_stdin, 's'),
            (self.mode == Mode::Command, 'c'),
        ] {
            if on {
                flags.push(c);
            }
        }
        flags
    }

    /// `$RANDOM`: xorshift, for scripts, not for secrets. A `Cell` because reading a variable
    /// takes `&self`.
    fn next_random(&self) -> u32 {
        let mut x = self.random.get();
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.random.set(x);
        x % 32768
    }

    // ----- messages ---------------------------------------------------------------------------

    /// `rsh: message` on standard error.
    /// Control and invisible characters in it are shown escaped, as the question shows them:
    /// a file or command name can carry an escape sequence that would otherwise rewrite
    /// what the person sees on the terminal.
    pub(crate) fn error(&self, message: &str) {
        let line = format!("rsh: {}\n", crate::confirm::printable(message));
        let _ = fd::write_all(2, line.as_bytes());
    }

    /// Standard output of builtins, unbuffered so that forks never duplicate it.
    pub(crate) fn out(&self, bytes: &[u8]) -> Result<(), nix::errno::Errno> {
        fd::write_all(1, bytes)
    }

    /// An expansion error stops the command. In a script, `${x:?}` and `set -u` errors end
    /// the shell (status 127 under `-c`, 1 otherwise, like bash) and the others abandon the
    /// current line; at a terminal the prompt comes back.
    pub(crate) fn expansion_failed(&mut self, err: ExpandError) -> Outcome {
        // Ctrl-C ended a command substitution (or a wait of rsh's own within one): as in
        // bash, the line is abandoned, the command whose words it was in with it.
        if self.interrupted {
            self.last_status = 128 + libc::SIGINT;
            return Err(Flow::Abort(self.last_status));
        }
        self.error(&err.message);
        // bash's odd but observable statuses: 127 under -c, 1 in scripts, with set -e, and
        // in a subshell or command substitution.
        let status = match (err.fatal, self.mode) {
            (true, Mode::Command) if !self.options.errexit && !self.forked => 127,
            (true, _) => 1,
            (false, _) => err.status,
        };
        self.last_status = status;
        match (self.mode, err.fatal) {
            (Mode::Interactive, _) => Ok(status),
            (_, true) => Err(Flow::Exit(status)),
            (_, false) => Err(Flow::Abort(status)),
        }
    }
}

/// Whether Ctrl-C ended one of the processes of a job.
fn by_ctrl_c(exits: &[Result<spawn::Exit, nix::errno::Errno>]) -> bool {
    exits
        .iter()
        .any(|e| matches!(e, Ok(spawn::Exit::Signal { signal, .. }) if *signal == libc::SIGINT))
}

/// Whether a failing pipeline trips `set -e` itself. A group, `if`, loop or `case` does not:
/// the commands inside it were already subject to errexit (or exempt, like `a && b`).
fn fails_errexit(pipeline: &Pipeline) -> bool {
    match pipeline.commands.as_slice() {
        [Command::Compound(compound)] => matches!(
            compound.kind,
            Compound::Subshell(_) | Compound::Cond(_) | Compound::Arith(_)
        ),
        _ => true,
    }
}

/// The simple command a program ends with, if it does: the last pipeline of its last
/// `&&`/`||` list, when that is a single simple command. When it runs, nothing of the program
/// runs after it (rsh has no `trap` and no background jobs).
fn final_command(program: &Program) -> Option<*const SimpleCommand> {
    let last = program.body.last()?;
    let pipeline = last.rest.last().map_or(&last.first, |(_, p)| p);
    match pipeline.commands.as_slice() {
        [Command::Simple(simple)] => Some(simple as *const SimpleCommand),
        _ => None,
    }
}

enum LoopStep {
    Next(i32),
    Stop,
}

/// The confinement of a session's programs, and the protection of rsh itself: the policy's
/// `~` is the user's home directory from the password database (not `$HOME`, which the caller
/// controls) and `.` the current directory. The file-system layer starts building on another
/// thread. Err: this kernel cannot enforce what the policy requires.
pub fn session_sandbox(config: &crate::policy::SandboxConfig) -> Result<Sandbox, String> {
    let workdir = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    // The user's home is looked up where the paths are made canonical (on the layer's
    // thread), not here before it starts.
    let mut sandbox = Sandbox::new(config, None, &workdir)?;
    sandbox.protect_shell()?;
    sandbox.prepare();
    Ok(sandbox)
}

/// A pipeline as written, for `jobs`: its source text, taken from the text its first simple
/// command was parsed from (`pipeline` where no stage is one).
fn pipeline_text(pipeline: &Pipeline) -> String {
    let source = pipeline.commands.iter().find_map(|c| match c {
        Command::Simple(simple) => Some(&simple.source),
        _ => None,
    });
    source
        .and_then(|s| s.get(pipeline.span.start..pipeline.span.end))
        .map_or_else(|| "pipeline".to_string(), |t| t.trim().to_string())
}

/// When a job is ended, and how.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    /// The policy's timeout (None: programs are not confined).
    pub policy: Option<std::time::Duration>,
    /// From the start, when the job is ended: the policy's timeout, or `timeout`'s.
    pub after: Option<std::time::Duration>,
    pub expiry: job::Expiry,
    /// The `timeout` in front of the command, when its deadline is the one that applies.
    pub asked: Option<wrapper::Timeout>,
}

impl Deadline {
    pub(crate) fn policy(timeout: Option<std::time::Duration>) -> Deadline {
        Deadline {
            policy: timeout,
            after: timeout,
            expiry: job::Expiry::POLICY,
            asked: None,
        }
    }

    /// The policy's timeout for a job that began at `began`.
    pub(crate) fn policy_since(timeout: Option<std::time::Duration>, began: Instant) -> Deadline {
        Deadline {
            after: timeout.map(|t| t.saturating_sub(began.elapsed())),
            ..Deadline::policy(timeout)
        }
    }

    /// The policy's timeout, or the earlier one that `timeout` in front of the command asks
    /// for.
    pub(crate) fn with(
        policy: Option<std::time::Duration>,
        asked: Option<wrapper::Timeout>,
    ) -> Deadline {
        let Some(asked) = asked.filter(|t| policy.is_none_or(|p| t.after < p)) else {
            return Deadline::policy(policy);
        };
        // Without `-k`, nothing follows its signal but the policy's own deadline.
        let rest = policy.map(|p| p - asked.after);
        let grace = match (asked.kill_after, rest) {
            (Some(kill), Some(rest)) => Some(kill.min(rest)),
            (kill, rest) => kill.or(rest),
        };
        Deadline {
            policy,
            after: Some(asked.after),
            expiry: job::Expiry {
                signal: asked.signal,
                grace,
            },
            asked: Some(asked),
        }
    }

    /// The status a command's `timeout` gives it, as timeout's program would: 124 when it
    /// ended it, 137 when SIGKILL did (also with `--preserve-status`), else the command's.
    pub(crate) fn status(&self, reaped: &audit::Reaped) -> i32 {
        let Some(asked) = self.asked.filter(|_| reaped.timed_out) else {
            return reaped.status;
        };
        match reaped.exit {
            Some(spawn::Exit::Signal {
                signal: libc::SIGKILL,
                ..
            }) => 137,
            _ if asked.preserve_status => reaped.status,
            _ => 124,
        }
    }
}

/// A signal's name as `kill -l` writes it (`TERM`).
fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str().trim_start_matches("SIG").to_owned())
        .unwrap_or_else(|_| signal.to_string())
}

/// The signal (and whether it dumped core) that ended the last of `exits` ended by one: what
/// bash reports of a job.
fn last_signal(exits: &[Result<spawn::Exit, nix::errno::Errno>]) -> Option<(i32, bool)> {
    exits.iter().rev().find_map(|e| match e {
        Ok(spawn::Exit::Signal { signal, core }) => Some((*signal, *core)),
        _ => None,
    })
}

/// How bash describes the end of a process by `signal`.
fn signal_description(signal: i32) -> &'static str {
    use nix::sys::signal::Signal::*;
    let Ok(signal) = nix::sys::signal::Signal::try_from(signal) else {
        return "Unknown signal";
    };
    match signal {
        SIGHUP => "Hangup",
        SIGQUIT => "Quit",
        SIGILL => "Illegal instruction",
        SIGTRAP => "Trace/breakpoint trap",
        SIGABRT => "Aborted",
        SIGBUS => "Bus error",
        SIGFPE => "Floating point exception",
        SIGKILL => "Killed",
        SIGUSR1 => "User defined signal 1",
        SIGSEGV => "Segmentation fault",
        SIGUSR2 => "User defined signal 2",
        SIGALRM => "Alarm clock",
        SIGTERM => "Terminated",
        SIGXCPU => "CPU time limit exceeded",
        SIGXFSZ => "File size limit exceeded",
        SIGSYS => "Bad system call",
        _ => "Unknown signal",
    }
}

/// What a command substitution gives while explaining (it is never reached: words that
/// contain one are not expanded).
const NOTHING_RUNS: &str = "rsh --explain runs nothing, not even $(…)";

impl ExpandEnv for Shell {
    fn var(&self, name: &str) -> Option<String> {
        match name {
            "RANDOM" | "SECONDS" | "LINENO" | "BASHPID" | "UID" | "EUID" => {
                Some(self.dynamic_var(name))
            }
            "_" => Some(self.last_arg.clone()),
            _ => self.vars.value(name).map(str::to_string),
        }
    }

    fn set_var(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.assign(name, value.to_string())
    }

    fn positional(&self, n: usize) -> Option<String> {
        if n == 0 {
            Some(self.arg0.clone())
        } else {
            self.positional.get(n - 1).cloned()
        }
    }

    fn positionals(&self) -> Vec<String> {
        self.positional.clone()
    }

    fn special(&self, which: Special) -> String {
        match which {
            Special::Status => self.last_status.to_string(),
            Special::Pid => self.shell_pid.to_string(),
            Special::Flags => self.flags(),
            Special::LastBackground => String::new(),
            Special::Count => self.positional.len().to_string(),
            Special::At | Special::Star => self.positional.join(" "),
        }
    }

    fn command_output(&mut self, program: &Program) -> Result<String, ExpandError> {
        if self.explaining {
            return Err(ExpandError::new(NOTHING_RUNS, 1));
        }
        let output = self.capture(program);
        // Ctrl-C ended it: the command it is part of does not run (see `expansion_failed`).
        if self.interrupted {
            return Err(ExpandError::new("interrupted", 128 + libc::SIGINT));
        }
        Ok(output)
    }

    fn process_substitution(
        &mut self,
        program: &Program,
        output: bool,
    ) -> Result<String, ExpandError> {
        if self.explaining {
            return Err(ExpandError::new(NOTHING_RUNS, 1));
        }
        self.start_process_sub(program, output)
    }

    fn options(&self) -> ExpandOptions {
        let o = &self.options;
        ExpandOptions {
            nounset: o.nounset,
            noglob: o.noglob,
            nullglob: o.nullglob,
            failglob: o.failglob,
            dotglob: o.dotglob,
            extglob: o.extglob,
            nocaseglob: o.nocaseglob,
            nocasematch: o.nocasematch,
            globstar: o.globstar,
        }
    }

    fn home_dir(&self, user: Option<&str>) -> Option<String> {
        let user = match user {
            Some(name) => nix::unistd::User::from_name(name).ok()??,
            None => return crate::policy::current_user().map(|u| u.dir.display().to_string()),
        };
        Some(user.dir.display().to_string())
    }

    fn cwd(&self) -> PathBuf {
        std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
    }

    /// Only where a command may read, so that `echo ~/.ssh/*` does not show what
    /// `ls ~/.ssh` may not.
    fn may_list(&mut self, dir: &Path) -> bool {
        self.may_read(dir)
    }
}

impl Shell {
    fn dynamic_var(&self, name: &str) -> String {
        match name {
            "RANDOM" => self.next_random().to_string(),
            "SECONDS" => self.started.elapsed().as_secs().to_string(),
            "LINENO" => self.lineno.to_string(),
            "BASHPID" => std::process::id().to_string(),
            "UID" => nix::unistd::getuid().to_string(),
            "EUID" => nix::unistd::geteuid().to_string(),
            _ => String::new(),
        }
    }

    /// `$(<file)`: the file's contents, read by the shell itself as bash does. None when the
    /// substitution is anything else.
    fn read_file_substitution(&mut self, program: &Program) -> Option<String> {
        let [and_or] = program.body.as_slice() else {
            return None;
        };
        let [Command::Simple(simple)] = and_or.first.commands.as_slice() else {
            return None;
        };
        let [redirect] = simple.redirects.as_slice() else {
            return None;
        };
        let plain = and_or.rest.is_empty()
            && !and_or.first.negated
            && simple.words.is_empty()
            && simple.assignments.is_empty()
            && redirect.op == crate::parse::RedirOp::Read
            && redirect.fd.unwrap_or(0) == 0;
        if !plain {
            return None;
        }
        let read = match expand::redirect_target(self, &redirect.target) {
            Ok(Some(path)) => self
                .read_for_command(&path)
                .map_err(|failure| match failure {
                    redirect::ReadError::Denied(message) => message,
                    redirect::ReadError::Io(message) => format!("{path}: {message}"),
                }),
            Ok(None) => Err(expand::ambiguous_redirect(&redirect.written)),
            Err(err) => Err(err.message),
        };
        // As the forked shell's would be: 1 when the file could not be read.
        let (text, status) = match read {
            Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), 0),
            Err(message) => {
                self.error(&message);
                (String::new(), 1)
            }
        };
        self.last_status = status;
        self.substitution_status = Some(status);
        Some(text)
    }

    /// Runs a command substitution in a forked shell and returns what it wrote.
    fn capture(&mut self, program: &Program) -> String {
        if let Some(text) = self.read_file_substitution(program) {
            return text;
        }
        let (read, write) = match spawn::pipe() {
            Ok(pair) => pair,
            Err(errno) => {
                self.error(&format!("cannot make a pipe: {}", crate::errno_text(errno)));
                self.last_status = 1;
                return String::new();
            }
        };
        match self.fork_waited() {
            Ok(Fork::Child) => {
                drop(read);
                let _ = fd::install(write, 1);
                // bash runs command substitutions without set -e unless inherit_errexit.
                if self.remembered_options.get("inherit_errexit") != Some(&true) {
                    self.options.errexit = false;
                }
                let status = self.run_in_child(|shell| shell.run_program(program));
                spawn::exit_child(status);
            }
            Ok(Fork::Parent(pid)) => {
                drop(write);
                // Hung up while it runs, it is hung up too (see `wait_child`).
                spawn::signals::waiting_for(Some(pid));
                let output = fd::read_to_end(&read).unwrap_or_default();
                drop(read);
                self.last_status = self.wait_child(pid);
                self.substitution_status = Some(self.last_status);
                String::from_utf8_lossy(&output).into_owned()
            }
            Err(errno) => {
                self.error(&format!("cannot fork: {}", crate::errno_text(errno)));
                self.last_status = 1;
                String::new()
            }
        }
    }
}

/// The processor time the calling thread has used.
fn own_processor_time() -> std::time::Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(std::time::Duration::from)
        .unwrap_or_default()
}
