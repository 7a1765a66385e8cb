//! Process substitution: `<(list)` and `>(list)`.
//!
//! The list runs in a forked shell (every command in it decided like any other), connected
//! by a pipe to a descriptor of this shell that the command receives by name, `/dev/fd/N`,
//! numbered from 63 down as in bash. The descriptor is not close-on-exec, so a program
//! started for the command inherits it. When the pipeline that used it has finished, the
//! shell closes its end (a writer still running gets SIGPIPE, a reader end of file) and
//! waits for the forked shell, so nothing of it outlives the command.

use std::os::fd::{AsRawFd, OwnedFd};

use nix::unistd::Pid;

use super::{Shell, job};
use crate::expand::ExpandError;
use crate::parse::Program;
use crate::spawn::{self, Fork, fd};

/// A running process substitution: the shell's end of its pipe and the forked shell.
pub(crate) struct ProcessSub {
    end: OwnedFd,
    pid: Pid,
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
        match self.fork() {
            Ok(Fork::Child) => {
                drop(ours);
                // Earlier substitutions' ends are the command's, not this list's: holding
                // them would keep their pipes from ending.
                self.process_subs.clear();
                let _ = fd::install(theirs, their_fd);
                self.enter_job(job::Placement::KEEP);
                let status = self.run_in_child(|shell| shell.run_program(program));
                spawn::exit_child(status);
            }
            Ok(Fork::Parent(pid)) => {
                drop(theirs);
                let placed = fd::move_below(ours, FIRST_NUMBER);
                let end = match placed {
                    Ok(end) => end,
                    Err(errno) => {
                        // Its pipe is gone: the list ends by itself.
                        let _ = spawn::wait(pid);
                        return Err(self.procsub_error("find a descriptor for it", errno));
                    }
                };
                let path = format!("/dev/fd/{}", end.as_raw_fd());
                self.process_subs.push(ProcessSub { end, pid });
                Ok(path)
            }
            Err(errno) => Err(self.procsub_error("fork", errno)),
        }
    }

    /// Ends the substitutions started since `mark`: closes the shell's ends, then waits for
    /// each list, unless the shell still holds its pipe on another descriptor (`exec <
    /// <(list)`): that list goes on feeding later commands and is collected once it ends.
    pub(crate) fn finish_process_subs(&mut self, mark: usize) {
        self.lingering_subs
            .retain(|&pid| !matches!(spawn::try_wait(pid), Ok(Some(_)) | Err(_)));
        if self.process_subs.len() <= mark {
            return;
        }
        // All ends closed before the first wait: one list may be waiting on another's.
        let ended: Vec<(Pid, bool)> = self
            .process_subs
            .drain(mark..)
            .map(|ProcessSub { end, pid }| {
                let pipe = fd::identity(end.as_raw_fd());
                drop(end);
                (pid, pipe.is_some_and(still_open))
            })
            .collect();
        for (pid, kept) in ended {
            if kept {
                self.lingering_subs.push(pid);
            } else {
                let _ = spawn::wait(pid);
            }
        }
    }

    fn procsub_error(&self, what: &str, errno: nix::errno::Errno) -> ExpandError {
        ExpandError::new(
            format!("process substitution: cannot {what}: {}", errno.desc()),
            1,
        )
    }
}

/// Whether one of the shell's descriptors below its own range is the file `identity`.
fn still_open(identity: (u64, u64)) -> bool {
    (0..crate::SHELL_FDS_FROM).any(|n| fd::identity(n) == Some(identity))
}
