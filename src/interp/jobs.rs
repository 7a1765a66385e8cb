//! Job control in an interactive shell: a job holding the terminal (a program or a pipeline)
//! that is stopped from it (Ctrl-Z) is kept, stopped, and the prompt comes back; `jobs` lists what is kept and
//! `fg` continues it in the foreground. There is no background: `bg` and `&` stay refused.
//!
//! A stopped job's wall-clock deadline goes on running: at the prompt, a job past it is
//! ended, as it would have been had it run. Its audit record is completed when it ends; the
//! jobs still stopped when the shell ends are hung up (SIGHUP, as the kernel would for an
//! orphaned group) and then killed if they stay.

use std::time::{Duration, Instant};

use nix::sys::termios::{SetArg, Termios, tcgetattr, tcsetattr};

use super::{Mode, Outcome, Shell, audit};
use crate::spawn::{fd, job};

/// How long a job hung up at the end of the session has to end before it is killed.
const HANG_UP_GRACE: Duration = Duration::from_secs(1);

pub(crate) struct StoppedJob {
    number: usize,
    job: job::Job,
    state: job::Stopped,
    timeout: Option<Duration>,
    /// The program's name, for messages.
    what: String,
    /// The command line, as `jobs` shows it.
    text: String,
    segment: Option<crate::audit::Command>,
    started: Instant,
    /// The terminal's settings when it stopped, given back by `fg`.
    modes: Option<Termios>,
}

impl Shell {
    /// Keeps a job that stopped from the terminal; the shell's terminal settings come back.
    /// Its status for now is 128 + SIGTSTP, as in bash.
    pub(crate) fn keep_stopped(
        &mut self,
        job: job::Job,
        state: job::Stopped,
        timeout: Option<Duration>,
        what: &str,
        text: &str,
    ) {
        let modes = job.terminal.and_then(|tty| tcgetattr(fd::borrow(tty)).ok());
        if let (Some(tty), Some(saved)) = (job.terminal, &self.tty_modes) {
            let _ = tcsetattr(fd::borrow(tty), SetArg::TCSADRAIN, saved);
        }
        let number = self
            .stopped_jobs
            .iter()
            .map(|j| j.number)
            .max()
            .unwrap_or(0)
            + 1;
        let _ = fd::write_all(2, format!("\n[{number}]+  Stopped  {text}\n").as_bytes());
        self.stopped_jobs.push(StoppedJob {
            number,
            job,
            state,
            timeout,
            what: what.to_string(),
            text: text.to_string(),
            segment: None,
            started: Instant::now(),
            modes,
        });
    }

    /// Gives the job just kept its audit record and start, which its command held.
    pub(crate) fn keep_record(&mut self, segment: Option<crate::audit::Command>, started: Instant) {
        if let Some(job) = self.stopped_jobs.last_mut() {
            job.segment = segment;
            job.started = started;
        }
    }

    /// Continues a kept job in the foreground and waits for it; its status.
    fn resume_job(&mut self, kept: StoppedJob) -> i32 {
        if let (Some(tty), Some(modes)) = (kept.job.terminal, &kept.modes) {
            let _ = tcsetattr(fd::borrow(tty), SetArg::TCSADRAIN, modes);
        }
        kept.job.continue_in_foreground();
        self.wait_kept(kept)
    }

    /// Waits for a kept job that was continued (or signalled); its status.
    fn wait_kept(&mut self, mut kept: StoppedJob) -> i32 {
        self.in_flight = kept.segment.take().map(|s| (s, kept.started));
        let sweep = kept.timeout.is_some();
        let interactive = self.mode == Mode::Interactive;
        let state = std::mem::replace(&mut kept.state, job::Stopped::empty());
        match kept.job.resume(state, interactive, sweep) {
            Ok(ended) => {
                let reaped = self.finish_job(&kept.job, ended, kept.timeout, &kept.what);
                let statuses: Vec<i32> = reaped.iter().map(|r| r.status).collect();
                let segment = self.in_flight.take().map(|(s, _)| s);
                // A single program's record (a pipeline's stages complete their own).
                if let [one] = reaped.as_slice() {
                    self.audit_ran(segment, kept.started, one);
                }
                self.pipeline_status(&statuses)
            }
            Err(state) => {
                let segment = self.in_flight.take().map(|(s, _)| s);
                self.keep_stopped(kept.job, state, kept.timeout, &kept.what, &kept.text);
                self.keep_record(segment, kept.started);
                audit::Reaped::stopped().status
            }
        }
    }

    /// Before a prompt: a kept job past its deadline is ended (and reported), one that was
    /// ended from elsewhere is collected.
    pub fn check_stopped_jobs(&mut self) {
        let now = Instant::now();
        let mut i = 0;
        while i < self.stopped_jobs.len() {
            let job = &self.stopped_jobs[i];
            let late = job.state.deadline.is_some_and(|d| d <= now);
            if !late && !job.job.has_ended() {
                i += 1;
                continue;
            }
            let kept = self.stopped_jobs.remove(i);
            if late {
                let seconds = kept.timeout.map_or(0, |t| t.as_secs());
                self.error(&format!(
                    "{}: timed out after {seconds} s (limits.timeout); ended",
                    kept.what
                ));
                kept.job.signal_stopped(libc::SIGKILL);
            }
            let _ = fd::write_all(
                2,
                format!("[{}]   Done  {}\n", kept.number, kept.text).as_bytes(),
            );
            self.wait_kept(kept);
        }
    }

    /// At the end of the session: every kept job is hung up, and killed if it stays.
    pub fn end_stopped_jobs(&mut self) {
        while let Some(mut kept) = self.stopped_jobs.pop() {
            let _ = fd::write_all(
                2,
                format!("rsh: ending stopped job [{}]: {}\n", kept.number, kept.text).as_bytes(),
            );
            kept.job.signal_stopped(libc::SIGHUP);
            kept.state.deadline = Some(Instant::now() + HANG_UP_GRACE);
            // No timeout message: this is the session ending, not the command's limit.
            kept.what.clear();
            kept.job.terminal = None;
            self.wait_kept(kept);
        }
    }
}

/// `jobs`: the kept jobs, `+` marking the one `fg` continues.
pub(crate) fn jobs(shell: &mut Shell, argv: &[String]) -> Outcome {
    if argv.len() > 1 {
        shell.builtin_error("jobs", "usage: jobs");
        return Ok(2);
    }
    let last = shell.stopped_jobs.len();
    let mut text = String::new();
    for (i, job) in shell.stopped_jobs.iter().enumerate() {
        let mark = match last - i {
            1 => '+',
            2 => '-',
            _ => ' ',
        };
        text.push_str(&format!("[{}]{mark}  Stopped  {}\n", job.number, job.text));
    }
    let _ = fd::write_all(1, text.as_bytes());
    Ok(0)
}

/// `fg [%N]`: continues a kept job (the last one by default) in the foreground.
pub(crate) fn fg(shell: &mut Shell, argv: &[String]) -> Outcome {
    if shell.mode != Mode::Interactive {
        shell.builtin_error("fg", "no job control");
        return Ok(1);
    }
    let index = match argv.get(1) {
        _ if argv.len() > 2 => {
            shell.builtin_error("fg", "usage: fg [%N]");
            return Ok(2);
        }
        None | Some(_) if shell.stopped_jobs.is_empty() => {
            shell.builtin_error("fg", "current: no such job");
            return Ok(1);
        }
        None => shell.stopped_jobs.len() - 1,
        Some(spec) => {
            let number = spec.strip_prefix('%').unwrap_or(spec);
            let found = match number {
                "+" | "%" | "" => Some(shell.stopped_jobs.len() - 1),
                n => n
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| shell.stopped_jobs.iter().position(|j| j.number == n)),
            };
            match found {
                Some(i) => i,
                None => {
                    shell.builtin_error("fg", &format!("{spec}: no such job"));
                    return Ok(1);
                }
            }
        }
    };
    let kept = shell.stopped_jobs.remove(index);
    let _ = fd::write_all(1, format!("{}\n", kept.text).as_bytes());
    Ok(shell.resume_job(kept))
}
