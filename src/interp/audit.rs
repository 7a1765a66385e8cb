//! The shell's side of the audit trail: which commands get a record, and when it is sent.
//!
//! A program the shell starts and waits for is recorded when it ends, with its status and
//! what it used. A program that replaces a forked copy of the shell (a pipeline stage, a
//! subshell's last command) cannot report its own end: the copy writes the record so far
//! into a pipe just before `execve`, and the shell that reaps the process completes and sends
//! it. A forked copy that starts a program and waits for it hands the record over the same
//! way before the program starts, and takes it back once it has sent the record itself: a
//! copy killed meanwhile (a pipeline stage is killed with its job, by a timeout or the watch
//! over stopped jobs) does not take the record with it. A refused command is recorded when it
//! is refused. Builtins and functions that run are
//! not recorded on their own (their line is in the records around them); a refused builtin is.

use std::os::fd::{AsRawFd, OwnedFd};
use std::rc::Rc;
use std::time::Instant;

use nix::unistd::Pid;

use super::Shell;
use super::simple::{Refusal, Target};
use crate::audit::{self, Approval, Command, Ended, Trail};
use crate::policy::Verdict;
use crate::spawn::{self, fd};

/// How a reaped process ended, for its status and its record.
pub(crate) struct Reaped {
    pub status: i32,
    pub exit: Option<spawn::Exit>,
    pub usage: Option<spawn::Usage>,
    pub timed_out: bool,
}

impl Reaped {
    /// A status without a process behind it (it could not start, or rsh ran it itself).
    pub fn of_status(status: i32) -> Reaped {
        Reaped {
            status,
            exit: None,
            usage: None,
            timed_out: false,
        }
    }

    /// For the record of a program whose shell (this process) ended before it could record
    /// it: this process's end, and nothing of what it used.
    fn unseen(&self) -> Ended {
        Ended {
            usage: None,
            unseen: true,
            ..self.ended(None)
        }
    }

    fn ended(&self, duration: Option<std::time::Duration>) -> Ended {
        Ended {
            status: Some(self.status),
            signal: match self.exit {
                Some(spawn::Exit::Signal { signal, .. }) => Some(signal),
                _ => None,
            },
            timed_out: self.timed_out,
            duration,
            usage: self.usage,
            replaced: false,
            unseen: false,
        }
    }
}

/// The file a target runs, when it is a program (symbolic links resolved).
pub(super) fn program_of(target: &Target) -> Option<String> {
    match target {
        // A wrapper rsh performs does not run: the command it runs does.
        Target::External(resolved) => Some(resolved.innermost().canonical.display().to_string()),
        _ => None,
    }
}

/// The record of a command started in place, handed from the forked shell that ran it to the
/// one that reaps it.
pub(crate) struct Handoff {
    pid: Pid,
    read: OwnedFd,
}

/// A forked shell's end of the pipe to the shell that reaps it. It reads it too, to take back
/// the record of a program it waited for and recorded itself.
pub(crate) struct ToReaper {
    write: OwnedFd,
    read: OwnedFd,
}

/// What starts a record handed over for a program its forked shell waits for, rather than
/// one that replaced the forked shell.
const WAITED_FOR: &str = "waited-for\n";

/// What starts such a record once a signal ends the forked shell and, with it, its program:
/// the shell that reaps it knows whether its own timeout sent that signal.
const ENDED_WITH_SHELL: &str = "ended-with-shell\n";

/// The same, when the forked shell's own deadline sent the signal.
const TIMED_OUT_WITH_SHELL: &str = "timed-out-with-shell\n";

impl Shell {
    /// Starts the audit trail with the session's first record. Err when records are required
    /// and syslog cannot take them: then nothing may run.
    pub fn start_audit(&mut self, kind: audit::Kind, command: Option<&str>) -> Result<(), String> {
        let policy = self.policy.clone();
        let unenforced = match &self.sandbox {
            Some(sandbox) => sandbox.missing().to_vec(),
            None => Vec::new(),
        };
        let trail = Trail::start(
            policy.audit(),
            audit::Session::current(),
            kind,
            self.login,
            command,
            &policy.digests(),
            unenforced,
        )?;
        self.audit = Some(trail);
        Ok(())
    }

    /// Records a line that did not run: it does not parse, or uses what rsh does not support.
    pub fn audit_line_refused(&mut self, line: &str, why: &str) {
        let cwd = self.physical_cwd();
        if let Some(trail) = &mut self.audit {
            trail.line_refused(line, why, &cwd);
        }
    }

    /// rsh is being ended by `sig` while it waits: the program it waited for (if any) and the
    /// session's end are recorded first.
    pub(super) fn audit_dying(&mut self, sig: i32, timed_out: bool) {
        let in_flight = self.in_flight.take();
        if let (Some((command, started)), false) = (in_flight, self.leave_to_reaper(timed_out)) {
            let ended = Ended {
                status: Some(128 + sig),
                signal: Some(sig),
                timed_out,
                duration: Some(started.elapsed()),
                ..Ended::default()
            };
            if let Some(trail) = &mut self.audit {
                trail.command(&command, &ended);
            }
            self.take_back_handoff();
        }
        self.end_audit(128 + sig);
    }

    /// The session's last record.
    pub fn end_audit(&mut self, status: i32) {
        if let Some(trail) = &mut self.audit {
            trail.end(status);
        }
    }

    /// Remembers what was decided about the command about to run or be refused, for its
    /// record. `decided` is the deciding decision (None for a function).
    pub(super) fn note_segment(
        &mut self,
        argv: &[String],
        target: &Target,
        decided: Option<&Refusal>,
        refused: bool,
        confirmed: Option<(Approval, String)>,
    ) {
        self.segment = None;
        if self.audit.is_none() || self.explaining {
            return;
        }
        let Some(decided) = decided else { return };
        let (confirmed, confirmation) = match confirmed {
            Some((approval, detail)) => (Some(approval), Some(detail)),
            None => (None, None),
        };
        let approval = if refused {
            Approval::Refused
        } else if let Some(approval) = confirmed {
            approval
        } else if decided.decision.verdict != Verdict::Allow {
            Approval::AuditMode
        } else {
            Approval::Auto
        };
        // Kept for a builtin too, in case a file it names is refused.
        let mut command = self.new_command(argv, program_of(target), &decided.decision, approval);
        command.confirmation = confirmation;
        self.segment = Some(command);
    }

    /// The record of a command decided now, in the current directory and line.
    fn new_command(
        &self,
        argv: &[String],
        program: Option<String>,
        decision: &crate::decide::Decision,
        approval: Approval,
    ) -> Command {
        Command {
            started: crate::audit::utc_now(),
            cwd: self.physical_cwd(),
            line: self.segment_line(),
            argv: argv.to_vec(),
            program,
            decision: decision.clone(),
            approval,
            confirmation: None,
        }
    }

    /// The working directory itself, symbolic links resolved: what relative names in a
    /// record mean. (The name the user reached it by may since lead elsewhere.)
    pub(super) fn physical_cwd(&self) -> String {
        std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| self.logical_cwd.clone())
    }

    /// The input line(s) the current command is written on. The last one is kept: the
    /// commands of one line share it, which would otherwise be searched for and copied once
    /// for each of them (quadratic in a long line).
    fn segment_line(&self) -> Rc<str> {
        let Some((source, span)) = &self.segment_source else {
            return Rc::from("");
        };
        let (from, to) = (span.start.min(source.len()), span.end.min(source.len()));
        if let Some(last) = &*self.last_line.borrow()
            && last.holds(source, from, to)
        {
            return last.text.clone();
        }
        let start = source[..from].rfind('\n').map_or(0, |i| i + 1);
        let end = source[to..].find('\n').map_or(source.len(), |i| to + i);
        let text: Rc<str> = Rc::from(&source[start..end]);
        *self.last_line.borrow_mut() = Some(LastLine {
            source: source.clone(),
            range: start..end,
            single: !text.contains('\n'),
            text: text.clone(),
        });
        text
    }

    /// Records a refused command: the decision noted for it, or `refusal` when the refusal
    /// came without one (`exec` itself).
    pub(super) fn audit_refused(&mut self, argv: &[String], refusal: &Refusal) {
        if self.audit.is_none() || self.explaining {
            return;
        }
        let command = match self.segment.take() {
            Some(command) if command.argv == argv => command,
            _ => self.new_command(argv, None, &refusal.decision, Approval::Refused),
        };
        self.send_refused(command, &refusal.decision, 126);
    }

    /// Records `command` as refused because records are required and syslog cannot take
    /// them (`why`): the record goes where the sink keeps what syslog does not take, the
    /// fallback file.
    pub(super) fn audit_unready(&mut self, command: Option<Command>, why: String) {
        let Some(mut command) = command else {
            return;
        };
        command.decision = crate::decide::refused(self.policy(), "audit.required", why);
        command.approval = Approval::Refused;
        let ended = Ended {
            status: Some(126),
            ..Ended::default()
        };
        if let Some(trail) = &mut self.audit {
            trail.command_kept(&command, &ended);
        }
    }

    /// Sends the record of `command`, refused by `decision`.
    fn send_refused(
        &mut self,
        mut command: Command,
        decision: &crate::decide::Decision,
        status: i32,
    ) {
        command.decision = decision.clone();
        command.approval = Approval::Refused;
        let ended = Ended {
            status: Some(status),
            ..Ended::default()
        };
        if let Some(trail) = &mut self.audit {
            trail.command(&command, &ended);
        }
    }

    /// Records the command being run as refused because of a file rsh opens for it (`> FILE`,
    /// `source FILE`), or, outside any command (`$(<FILE)`), the refusal alone: status 1, as
    /// the shell gives it, like any redirection that fails. A file run as a program (see
    /// `read_program`) is refused as programs are, with 126.
    pub(crate) fn audit_path_refused(&mut self, decision: &crate::decide::Decision) {
        if self.audit.is_none() || self.explaining {
            return;
        }
        let command = match self.segment.take() {
            Some(command) => command,
            None => {
                let argv = self.reading_program.as_deref().unwrap_or_default();
                self.new_command(argv, None, decision, Approval::Refused)
            }
        };
        let status = if self.reading_program.is_some() {
            126
        } else {
            1
        };
        self.send_refused(command, decision, status);
    }

    /// After a builtin ran: it gets a record only when it was asked about (a write to a file
    /// that needed confirmation).
    pub(super) fn audit_builtin(&mut self, status: i32) {
        let asked = self
            .segment
            .as_ref()
            .is_some_and(|command| command.confirmation.is_some());
        if let (true, Some(command), Some(trail)) = (asked, self.segment.take(), &mut self.audit) {
            let ended = Ended {
                status: Some(status),
                ..Ended::default()
            };
            trail.command(&command, &ended);
        }
    }

    /// Before a program starts: Err(why) when records are required and cannot be sent.
    pub(super) fn audit_ready(&mut self) -> Result<(), String> {
        match &mut self.audit {
            Some(trail) => trail.ready(),
            None => Ok(()),
        }
    }

    /// Records a program rsh started and waited for.
    pub(super) fn audit_ran(
        &mut self,
        command: Option<Command>,
        started: Instant,
        reaped: &Reaped,
    ) {
        if let (Some(command), Some(trail)) = (command, &mut self.audit) {
            trail.command(&command, &reaped.ended(Some(started.elapsed())));
        }
    }

    /// A program starts, and this shell waits for it: its record is kept for its end
    /// (`in_flight`), and meanwhile handed to the shell that reaps this one, if any, in case
    /// this one is killed first.
    pub(super) fn waiting_for_program(&mut self, command: Option<Command>, started: Instant) {
        self.in_flight = command.map(|command| (command, started));
        if let (Some((command, _)), Some(to_reaper), Some(trail)) =
            (&self.in_flight, &self.handoff, &self.audit)
        {
            let text = format!("{WAITED_FOR}{}", trail.handoff(command));
            let _ = fd::write_all(to_reaper.write.as_raw_fd(), text.as_bytes());
        }
    }

    /// The program waited for ended (or could not start): its record is sent, and then the
    /// copy handed over taken back. (Killed in between, this shell leaves it to be sent
    /// twice, the second time as not seen to end, rather than not at all.) A program kept
    /// stopped took its record along (see `jobs`).
    pub(super) fn program_ended(&mut self, reaped: &Reaped) {
        if let Some((command, started)) = self.in_flight.take() {
            self.audit_ran(Some(command), started, reaped);
            self.take_back_handoff();
        }
    }

    /// A forked shell ending by a signal while its program ran: the record handed over for
    /// the program is marked as ended with the shell and left to the reaper, which completes
    /// it (with `timed_out` if its deadline, or this shell's, sent the signal). False when
    /// none was handed over.
    fn leave_to_reaper(&mut self, timed_out: bool) -> bool {
        let Some(to_reaper) = &self.handoff else {
            return false;
        };
        let text = fd::read_to_end(&to_reaper.read).unwrap_or_default();
        let Some(record) = text.strip_prefix(WAITED_FOR.as_bytes()) else {
            return false;
        };
        let mark = if timed_out {
            TIMED_OUT_WITH_SHELL
        } else {
            ENDED_WITH_SHELL
        };
        let text = [mark.as_bytes(), record].concat();
        fd::write_all(to_reaper.write.as_raw_fd(), &text).is_ok()
    }

    /// Empties the pipe to the reaper: a record handed over is taken back.
    fn take_back_handoff(&mut self) {
        if let Some(to_reaper) = &self.handoff {
            let _ = fd::read_to_end(&to_reaper.read);
        }
    }

    /// Just before this forked shell becomes the program: the record goes to the shell that
    /// reaps this process, or, when none will (`exec`, a process substitution), out now,
    /// without an end.
    pub(super) fn audit_before_exec(&mut self, command: Option<Command>) {
        let (Some(command), Some(trail)) = (command, &mut self.audit) else {
            return;
        };
        match self.handoff.take() {
            Some(to_reaper) => {
                let _ = fd::write_all(
                    to_reaper.write.as_raw_fd(),
                    trail.handoff(&command).as_bytes(),
                );
            }
            None => {
                let ended = Ended {
                    replaced: true,
                    ..Ended::default()
                };
                trail.command(&command, &ended);
            }
        }
    }

    /// Forks the shell for a child the caller waits for (`wait_child`, `wait_job_statuses`):
    /// a command the child starts in place is recorded through it.
    pub(super) fn fork_waited(&mut self) -> Result<spawn::Fork, nix::errno::Errno> {
        let pipe = match self.audit {
            Some(_) => spawn::pipe_nonblocking().ok(),
            None => None,
        };
        if let Some((read, _)) = &pipe {
            fd::mark_private(std::os::fd::AsFd::as_fd(read));
        }
        let forked = self.fork()?;
        if let Some((read, write)) = pipe {
            match forked {
                spawn::Fork::Child => self.handoff = Some(ToReaper { write, read }),
                spawn::Fork::Parent(pid) => self.handoffs.push(Handoff { pid, read }),
            }
        }
        Ok(forked)
    }

    /// The records the processes `pids` will hand over, taken out of the shell's list. A kept
    /// job keeps its own: the processes of it that have ended were reaped, and until the job
    /// ends the shell's next children may get their numbers.
    pub(super) fn take_handoffs(&mut self, pids: &[Pid]) -> Vec<Handoff> {
        let (theirs, others) = std::mem::take(&mut self.handoffs)
            .into_iter()
            .partition(|handoff| pids.contains(&handoff.pid));
        self.handoffs = others;
        theirs
    }

    /// Puts back records taken by `take_handoffs`, ahead of any other: a process that got
    /// one of their numbers since is newer, and is reaped after.
    pub(super) fn restore_handoffs(&mut self, mut handoffs: Vec<Handoff>) {
        handoffs.append(&mut self.handoffs);
        self.handoffs = handoffs;
    }

    /// After reaping `pid`: completes and sends the record its shell handed over, if any.
    pub(super) fn audit_reaped(&mut self, pid: Pid, reaped: &Reaped) {
        let Some(i) = self.handoffs.iter().position(|h| h.pid == pid) else {
            return;
        };
        let handoff = self.handoffs.remove(i);
        let text = fd::read_to_end(&handoff.read).unwrap_or_default();
        fd::unmark_private(std::os::fd::AsFd::as_fd(&handoff.read));
        let text = String::from_utf8_lossy(&text);
        let Some(trail) = self.audit.as_mut().filter(|_| !text.is_empty()) else {
            return;
        };
        if let Some(record) = text.strip_prefix(WAITED_FOR) {
            // The forked shell was killed while its program ran: what is known is how the
            // shell ended.
            trail.complete(record, &reaped.unseen());
        } else if let Some((record, timed_out)) = ended_with_shell(&text) {
            // The shell's usage is not the program's alone.
            let ended = Ended {
                usage: None,
                timed_out: reaped.timed_out || timed_out,
                ..reaped.ended(None)
            };
            trail.complete(record, &ended);
        } else {
            trail.complete(&text, &reaped.ended(None));
        }
    }
}

/// A record handed over by a forked shell ended with its program (`leave_to_reaper`), and
/// whether the shell's own deadline ended it.
fn ended_with_shell(text: &str) -> Option<(&str, bool)> {
    match text.strip_prefix(ENDED_WITH_SHELL) {
        Some(record) => Some((record, false)),
        None => text.strip_prefix(TIMED_OUT_WITH_SHELL).map(|r| (r, true)),
    }
}

/// A line of input a record was written on (see `Shell::segment_line`).
pub(super) struct LastLine {
    source: Rc<str>,
    range: std::ops::Range<usize>,
    /// It is one line: any command within it is on it alone.
    single: bool,
    text: Rc<str>,
}

impl LastLine {
    /// Whether the command at `from..to` of `source` is written on this line alone.
    fn holds(&self, source: &Rc<str>, from: usize, to: usize) -> bool {
        Rc::ptr_eq(&self.source, source)
            && self.single
            && self.range.start <= from
            && to <= self.range.end
    }
}
