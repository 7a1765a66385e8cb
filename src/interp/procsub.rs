//! Process substitution: `<(list)` and `>(list)`.
//!
//! The list runs in a forked shell (every command in it decided like any other), in a
//! process group of its own, connected by a pipe to a descriptor of this shell that the
//! command receives by name, `/dev/fd/N`, numbered from 63 down as in bash. The descriptor is
//! not close-on-exec, so a program started for the command inherits it. When the pipeline
//! that used it has finished, the shell closes its end (a writer still running gets SIGPIPE,
//! a reader end of file) and, as bash, does not wait for the list. A list still running
//! then is collected when it ends; it is ended (its whole group) once it has run longer than
//! the policy's timeout, checked whenever a pipeline ends, and when the shell exits it gets
//! a short grace to finish (a `>(…)` list writing out what it read) before it is ended, so
//! nothing of it outlives the shell or its time limit. What a list leaves running in its
//! group (a program's forked child) is ended with it: its forked shell is looked at without
//! being collected, and its group emptied before it is, while the number is still the
//! group's.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Instant;

use nix::unistd::Pid;

use super::{Shell, job};
use crate::expand::ExpandError;
use crate::parse::Program;
use crate::spawn::{self, Fork, fd};

/// A running process substitution: the shell's end of its pipe and the forked shell.
pub(crate) struct ProcessSub {
    end: OwnedFd,
    pid: Pid,
    /// When the policy's timeout ends it.
    deadline: Option<Instant>,
}

/// The highest descriptor number a substitution gets; bash's choice, which scripts print.
const FIRST_NUMBER: i32 = 63;

impl Shell {
    pub(crate) fn start_process_sub(
        &mut self,
        program: &Program,
        output: bool,
    ) -> Result<String, ExpandError> {
        let (read, write) =
            spawn::pipe().map_err(|errno| self.procsub_error("make a pipe", errno))?;
        let (ours, theirs, their_fd) = if output {
            (write, read, 0)
        } else {
            (read, write, 1)
        };
        // A group of its own, never the terminal's: the command in front holds that.
        let placement = job::Placement {
            group: job::Group::New,
            terminal: None,
        };
        match self.fork() {
            Ok(Fork::Child) => {
                drop(ours);
                // Earlier substitutions' ends are the command's, not this list's: holding
                // them would keep their pipes from ending.
                self.process_subs.clear();
                self.lingering_subs.clear();
                let _ = fd::install(theirs, their_fd);
                placement.apply_in_child();
                self.enter_job(placement);
                let status = self.run_in_child(|shell| shell.run_program(program));
                spawn::exit_child(status);
            }
            Ok(Fork::Parent(pid)) => {
                drop(theirs);
                placement.apply_in_parent(pid);
                let placed = fd::move_below(ours, FIRST_NUMBER);
                let end = match placed {
                    Ok(end) => end,
                    Err(errno) => {
                        end_group(pid);
                        return Err(self.procsub_error("find a descriptor for it", errno));
                    }
                };
                let path = format!("/dev/fd/{}", end.as_raw_fd());
                let deadline = self.job_timeout().map(|t| Instant::now() + t);
                self.process_subs.push(ProcessSub { end, pid, deadline });
                Ok(path)
            }
            Err(errno) => Err(self.procsub_error("fork", errno)),
        }
    }

    /// Ends the substitutions started since `mark`: closes the shell's ends; lists that
    /// are still running are collected later (see the module comment).
    pub(crate) fn finish_process_subs(&mut self, mark: usize) {
        if self.lingering_subs.is_empty() && self.process_subs.len() <= mark {
            return;
        }
        let now = Instant::now();
        self.lingering_subs
            .retain(|&(pid, deadline)| match spawn::has_exited(pid) {
                None => false,
                Some(exited) if exited || deadline.is_some_and(|d| d <= now) => {
                    end_group(pid);
                    false
                }
                Some(_) => true,
            });
        if self.process_subs.len() <= mark {
            return;
        }
        for ProcessSub { end, pid, deadline } in self.process_subs.drain(mark..) {
            drop(end);
            match spawn::has_exited(pid) {
                None => {}
                Some(true) => end_group(pid),
                Some(false) => self.lingering_subs.push((pid, deadline)),
            }
        }
    }

    /// Whether lists started by this shell may still be running: then it must stay to end
    /// them, and cannot become a program (`exec`, the last command of a forked shell). A
    /// program confined so cannot end them: its parent-death signal does not cross its
    /// domain's signal scope, and the list would run on past rsh and its timeout.
    pub(crate) fn holds_process_subs(&self) -> bool {
        !self.process_subs.is_empty() || !self.lingering_subs.is_empty()
    }

    /// When the shell (or a subshell) is done: gives each list still running `job::GRACE`
    /// (or what is left of its timeout) to end by itself, as a `>(…)` list does once it has
    /// read what it was sent, then ends its group.
    pub(crate) fn end_process_subs(&mut self) {
        for ProcessSub { end, pid, deadline } in self.process_subs.drain(..) {
            drop(end);
            self.lingering_subs.push((pid, deadline));
        }
        let grace = Instant::now() + job::GRACE;
        for (pid, deadline) in self.lingering_subs.drain(..) {
            let until = deadline.map_or(grace, |d| d.min(grace));
            // None: another shell's (see `has_exited`), not this one's to end.
            if spawn::exited_by(pid, until).is_some() {
                end_group(pid);
            }
        }
    }

    fn procsub_error(&self, what: &str, errno: nix::errno::Errno) -> ExpandError {
        ExpandError::new(
            format!(
                "process substitution: cannot {what}: {}",
                crate::errno_text(errno)
            ),
            1,
        )
    }
}

/// Ends a list's whole process group (what is left of it) and collects the forked shell
/// that led it, which must not have been collected yet.
fn end_group(pid: Pid) {
    let _ = nix::sys::signal::killpg(pid, nix::sys::signal::Signal::SIGKILL);
    let _ = spawn::wait(pid);
}
