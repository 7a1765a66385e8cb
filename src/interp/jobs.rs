//! Job control in the interactive shell: a program or pipeline holding the terminal that is
//! stopped from it (Ctrl-Z, or a full-screen program stopping itself on Ctrl-Z) is kept
//! stopped and the prompt comes back, with `$?` 128 + the stop signal (148 for Ctrl-Z) and
//! bash's `[1]+  Stopped  …` line; `jobs` lists the kept jobs and `fg` continues one in the
//! foreground. There is no background: `bg` and `&` stay refused.
//!
//! Only the interactive shell itself has job control. Its forked copies (subshells, command
//! substitutions, pipeline stages, process substitutions) start without its kept jobs and keep
//! none (see `job::OnStop`). A kept job is held by the watcher (`spawn::watch`): if it runs
//! without `fg` it is killed, and its deadline — the policy's timeout counted from the job's
//! start, the time it spends stopped included — ends it as it would have in the foreground.
//! What the watcher ended, or what ended otherwise, is reported before the next prompt.
//!
//! `exit` (or `logout`) with jobs kept warns once, as bash does, and ends the shell the next
//! time. When the session ends — `exit`, end of input, the idle timeout, a hang-up, rsh killed
//! by a signal while it waits — each kept job is hung up (SIGHUP and SIGCONT) and killed if it
//! stays; nothing of it is kept stopped any more by then. Every job keeps its audit record
//! (one per command), completed when the job ends, however it ends.

use std::time::Instant;

use nix::errno::Errno;
use nix::sys::termios::{FlushArg, SetArg, Termios, tcflush, tcgetattr, tcsetattr};

use super::{Outcome, Shell, audit};
use crate::spawn::watch::{Fate, HoldError, HoldId, TICK, Watcher};
use crate::spawn::{self, fd, job};

/// How many jobs may be kept stopped at once; a job stopped beyond that goes on running.
const MOST_KEPT: usize = 64;

/// What the shell knows of a job it waits for, kept with the job while it is stopped.
pub(crate) struct JobInfo {
    /// When the job is ended: the policy's timeout, or `timeout`'s in front of its command.
    pub deadline: super::Deadline,
    /// The program's name, or `pipeline`, for messages.
    pub what: String,
    /// The command as `jobs` shows it.
    pub text: String,
    /// A pipeline: its status is its stages' (see `Shell::pipeline_status`).
    pub pipeline: bool,
    /// Its number once it has been kept (it keeps it when stopped again after `fg`).
    pub number: Option<usize>,
}

/// How following a job came out.
pub(crate) enum Followed {
    /// It ended: how each process did, and the job's status.
    Ended(Vec<audit::Reaped>, i32),
    /// It was kept stopped, with this status (128 + the stop signal).
    Kept(i32),
}

/// A job kept stopped.
struct KeptJob {
    number: usize,
    job: job::Job,
    state: job::Stopped,
    info: JobInfo,
    /// The record of a single program (a pipeline's stages complete theirs through their
    /// handoffs), and when it started.
    record: Option<(crate::audit::Command, Instant)>,
    /// The terminal's settings when it stopped, given back by `fg`.
    modes: Option<Termios>,
    hold: HoldId,
    /// The records its forked shells hand over (see `Shell::take_handoffs`).
    handoffs: Vec<audit::Handoff>,
}

/// The interactive shell's jobs.
#[derive(Default)]
pub(crate) struct Jobs {
    /// Oldest first: the last is the current job (`+`), the one before it the previous (`-`).
    kept: Vec<KeptJob>,
    watcher: Option<Watcher>,
    /// `exit` warned of the kept jobs (or `jobs` listed them) and nothing else ran since: the
    /// next `exit` ends the shell.
    warned: bool,
    /// The session is ending: no job is kept any more.
    ending: bool,
}

impl Jobs {
    /// In a forked copy of the shell: the jobs are the interactive shell's, not this copy's
    /// to continue or end. (Closing this copy's end of the watcher's socket leaves the
    /// shell's open.)
    pub(crate) fn leave_to_parent(&mut self) {
        self.kept.clear();
        self.watcher = None;
        self.warned = false;
    }

    /// Whether jobs may be kept now.
    pub(crate) fn keeping(&self) -> bool {
        !self.ending
    }

    /// Before a simple command runs: `exit` ends the shell at once after `exit` or `jobs`,
    /// as in bash, and warns again after anything else.
    pub(crate) fn note_command(&mut self, name: &str) {
        self.warned = match name {
            "jobs" => true,
            "exit" | "logout" => self.warned,
            _ => false,
        };
    }
}

impl JobInfo {
    /// The job's status from its processes'.
    fn status(&self, shell: &Shell, reaped: &[audit::Reaped]) -> i32 {
        if self.pipeline {
            let statuses: Vec<i32> = reaped.iter().map(|r| r.status).collect();
            shell.pipeline_status(&statuses)
        } else {
            reaped.first().map_or(1, |r| self.deadline.status(r))
        }
    }
}

impl Shell {
    /// Follows a job being waited for until it ends (then what follows its end, `finish_job`)
    /// or is kept stopped. A job that cannot be kept goes on running in the foreground.
    pub(crate) fn follow_job(
        &mut self,
        job: job::Job,
        mut waited: job::Waited,
        info: JobInfo,
    ) -> Followed {
        loop {
            let state = match waited {
                job::Waited::Ended(ended) => {
                    let reaped = self.finish_job(&job, ended, &info, None);
                    let status = info.status(self, &reaped);
                    return Followed::Ended(reaped, status);
                }
                job::Waited::Stopped(state) => state,
            };
            match self.hold(&job, &state) {
                Ok(hold) => return Followed::Kept(self.keep_job(job, state, info, hold)),
                Err(why) => {
                    self.error(&format!(
                        "{}: cannot be kept stopped ({why}); it goes on running",
                        info.what
                    ));
                    job.continue_in_foreground();
                    let sweep = info.deadline.policy.is_some();
                    waited = job.resume(state, self.at_terminal(), sweep);
                }
            }
        }
    }

    /// Keeps a job that stopped, now that the watcher holds it: its terminal settings saved for
    /// `fg` and the shell's put back, its record kept. Its status for now.
    fn keep_job(
        &mut self,
        job: job::Job,
        state: job::Stopped,
        mut info: JobInfo,
        hold: HoldId,
    ) -> i32 {
        let modes = job.terminal.and_then(|tty| tcgetattr(fd::borrow(tty)).ok());
        if let (Some(tty), Some(saved)) = (job.terminal, &self.tty_modes) {
            let _ = tcsetattr(fd::borrow(tty), SetArg::TCSADRAIN, saved);
        }
        let number = info.number.unwrap_or_else(|| self.next_job_number());
        info.number = Some(number);
        let line = job_line(number, '+', stop_description(state.signal), &info.text);
        let _ = fd::write_all(2, format!("\n{line}\n").as_bytes());
        let status = 128 + state.signal;
        let record = self.in_flight.take();
        let handoffs = self.take_handoffs(&job.pids);
        self.jobs.kept.push(KeptJob {
            number,
            job,
            state,
            info,
            record,
            modes,
            hold,
            handoffs,
        });
        status
    }

    /// Has the watcher hold a stopped job (starting the watcher first if need be).
    fn hold(&mut self, job: &job::Job, state: &job::Stopped) -> Result<HoldId, String> {
        if self.jobs.kept.len() >= MOST_KEPT {
            return Err(format!("{MOST_KEPT} jobs are stopped already"));
        }
        let group = job.group.ok_or("it has no process group of its own")?;
        if self.jobs.watcher.is_none() {
            let watcher = Watcher::start().map_err(|errno| {
                format!("no watch over stopped jobs: {}", crate::errno_text(errno))
            })?;
            self.jobs.watcher = Some(watcher);
        }
        let watcher = self.jobs.watcher.as_mut().expect("started above");
        let left = state
            .deadline
            .map(|d| d.saturating_duration_since(Instant::now()));
        let held = watcher.hold(group, left);
        if let Err(HoldError::NoWatcher(_)) = held {
            // Gone: the next job stopped gets a new one.
            self.lose_watch();
        }
        held.map_err(|err| err.to_string())
    }

    /// The number of a newly kept job: one more than the highest in use, as in bash.
    fn next_job_number(&self) -> usize {
        self.jobs.kept.iter().map(|j| j.number).max().unwrap_or(0) + 1
    }

    /// Stops watching a kept job: what became of it meanwhile (Err: the watcher is gone, or
    /// was ended for not answering as it should, so nothing kept it stopped).
    fn release(&mut self, kept: &KeptJob) -> Result<Fate, Errno> {
        match &mut self.jobs.watcher {
            Some(watcher) => watcher.release(kept.hold),
            None => Err(Errno::ESRCH),
        }
    }

    /// Continues a kept job in the foreground (`fg`) and follows it; its status.
    fn continue_kept(&mut self, mut kept: KeptJob) -> i32 {
        let fate = self.release(&kept);
        if fate.is_err() {
            // The watch is gone, and was ended before anything more is done to any job (see
            // `Watcher::end`): the other kept jobs are ended, and this one goes on as `fg`
            // asks, in the foreground under its deadline, unless it has ended meanwhile.
            self.lose_watch();
        }
        match fate {
            Ok(Fate::Stopped) => {}
            Err(_) if !kept.job.has_ended(&kept.state) => {}
            fate => return self.end_kept(kept, fate, '+'),
        }
        if let (Some(tty), Some(modes)) = (kept.job.terminal, &kept.modes) {
            let _ = tcsetattr(fd::borrow(tty), SetArg::TCSADRAIN, modes);
        }
        kept.job.continue_in_foreground();
        self.in_flight = kept.record.take();
        self.restore_handoffs(std::mem::take(&mut kept.handoffs));
        let sweep = kept.info.deadline.policy.is_some();
        let waited = kept.job.resume(kept.state, self.at_terminal(), sweep);
        match self.follow_job(kept.job, waited, kept.info) {
            Followed::Kept(status) => status,
            Followed::Ended(reaped, status) => {
                if let Some((record, started)) = self.in_flight.take() {
                    self.audit_ran(Some(record), started, &reaped[0]);
                }
                status
            }
        }
    }

    /// Ends a kept job no longer held: collected if it ended (the watcher ended it, or
    /// something killed it), else hung up and killed if it stays; reported and recorded.
    /// Its status.
    fn end_kept(&mut self, kept: KeptJob, fate: Result<Fate, Errno>, mark: char) -> i32 {
        let KeptJob {
            number,
            job,
            mut state,
            info,
            record,
            handoffs,
            ..
        } = kept;
        self.restore_handoffs(handoffs);
        match fate {
            Ok(Fate::TimedOut(ago)) => state.ran_out(ago),
            Ok(Fate::RanWhileStopped(ago)) => {
                self.error(&format!(
                    "{}: ran while stopped, not continued by fg; ended",
                    info.what
                ));
                self.undo_terminal_takeover(ago);
            }
            // Stopped still (the session ends), or nothing watched it (it may be running):
            // hung up by `end`, as is what is left of a job the watch killed.
            Ok(Fate::Stopped) | Err(_) => {}
        }
        let sweep = info.deadline.policy.is_some();
        let ended = job.end(state, self.at_terminal(), sweep);
        let reaped = self.finish_job(&job, ended, &info, Some((number, mark)));
        if let Some((record, started)) = record {
            self.audit_ran(Some(record), started, &reaped[0]);
        }
        self.take_back_terminal();
        info.status(self, &reaped)
    }

    /// Before a prompt: kept jobs that ended (ended by the watcher at their deadline or for
    /// running while stopped, or by something else) are collected and reported. `$?` stays.
    pub fn check_kept_jobs(&mut self) {
        let mut i = 0;
        while i < self.jobs.kept.len() {
            let fate = match &mut self.jobs.watcher {
                Some(watcher) => watcher.fate(self.jobs.kept[i].hold),
                None => Err(Errno::ESRCH),
            };
            let kept = &self.jobs.kept[i];
            match fate {
                Err(_) => return self.lose_watch(),
                Ok(Fate::Stopped) if !kept.job.has_ended(&kept.state) => {
                    i += 1;
                    continue;
                }
                Ok(_) => {}
            }
            let mark = self.mark(i);
            let kept = self.jobs.kept.remove(i);
            let fate = self.release(&kept);
            self.end_kept(kept, fate, mark);
        }
    }

    /// A kept job that ran (and was seen to, `ago`) may have changed the terminal's settings
    /// while another command held it, and the shell took them over from that command: the
    /// shell's settings from before it are put back. Not when the job ran after that command
    /// ended (the watch sees a run within one `TICK`): the settings taken over are then the
    /// command's own (`stty`).
    fn undo_terminal_takeover(&mut self, ago: std::time::Duration) {
        let Some(seen) = Instant::now().checked_sub(ago) else {
            return;
        };
        let Some((before, _)) = self
            .tty_modes_before
            .take()
            .filter(|(_, taken)| seen <= *taken + TICK && self.at_terminal())
        else {
            return;
        };
        if let Some(tty) = job::foreground_terminal() {
            let _ = tcsetattr(fd::borrow(tty), SetArg::TCSANOW, &before);
        }
        self.tty_modes = Some(before);
    }

    /// Before a prompt, and after a kept job ended: a kept job can take the terminal (in the
    /// moment between a timer continuing it and the watch ending it) and leave it changed.
    /// The shell takes it back, with its own settings, and drops what was typed meanwhile
    /// (half of it may have gone to the job). Whether it had to.
    pub fn take_back_terminal(&mut self) -> bool {
        // Only a shell that held the terminal when the session began has it to take back.
        let Some(saved) = self.tty_modes.clone().filter(|_| self.at_terminal()) else {
            return false;
        };
        let Some((tty, holder)) = job::terminal_holder() else {
            return false;
        };
        // Not from a group that is no job of rsh's (the shell that started rsh, say).
        let ours = job::leads_session()
            || !job::group_exists(holder)
            || self
                .jobs
                .kept
                .iter()
                .any(|kept| kept.job.group == Some(holder));
        if !ours {
            return false;
        }
        job::reclaim_terminal(tty);
        let _ = tcsetattr(fd::borrow(tty), SetArg::TCSANOW, &saved);
        let _ = tcflush(fd::borrow(tty), FlushArg::TCIFLUSH);
        self.error("a stopped job took the terminal; the shell took it back");
        true
    }

    /// The watcher went away (or does not answer): nothing holds the kept jobs any more, so
    /// they are ended; the next job stopped gets a new watcher.
    fn lose_watch(&mut self) {
        self.jobs.watcher = None;
        if !self.jobs.kept.is_empty() {
            self.error("the watch over stopped jobs is gone; they are ended");
            self.end_all_kept();
        }
    }

    /// When the session ends (or rsh is ending by a signal): the kept jobs are ended, and no
    /// job is kept from now on.
    pub fn end_kept_jobs(&mut self) {
        self.jobs.ending = true;
        self.end_all_kept();
    }

    /// Before `exec` replaces the interactive shell: nothing would watch or end the kept jobs
    /// any more (bash ends them too), and the watcher, a child of rsh's, would be left to the
    /// program that replaces rsh, which does not collect it: both are ended first.
    pub(crate) fn end_job_control(&mut self) {
        self.end_all_kept();
        self.jobs.watcher = None;
    }

    /// Ends every kept job: hung up, all of them at once so that they share the grace
    /// period, then collected.
    pub(super) fn end_all_kept(&mut self) {
        let mut ending = Vec::new();
        while !self.jobs.kept.is_empty() {
            let mark = self.mark(0);
            let mut kept = self.jobs.kept.remove(0);
            let fate = self.release(&kept);
            if matches!(fate, Ok(Fate::Stopped) | Err(_)) {
                let _ = fd::write_all(
                    2,
                    format!(
                        "rsh: ending stopped job [{}]: {}\n",
                        kept.number, kept.info.text
                    )
                    .as_bytes(),
                );
                if !kept.job.has_ended(&kept.state) {
                    kept.state = kept.job.hang_up(kept.state);
                }
            }
            ending.push((kept, fate, mark));
        }
        for (kept, fate, mark) in ending {
            self.end_kept(kept, fate, mark);
        }
    }

    /// The mark `jobs` shows for the job at `index`: `+` for the current one, `-` for the
    /// previous.
    fn mark(&self, index: usize) -> char {
        match self.jobs.kept.len() - index {
            1 => '+',
            2 => '-',
            _ => ' ',
        }
    }

    /// The kept job a `fg` argument names: `%N` or `N`, `%+` `%%` (the current job, also by
    /// default), `%-` (the previous), `%TEXT` (the job whose command starts so).
    fn find_job(&self, name: &str, spec: Option<&str>) -> Option<usize> {
        let last = self.jobs.kept.len().checked_sub(1);
        let found = match spec.map(|s| s.strip_prefix('%').unwrap_or(s)) {
            None | Some("" | "+" | "%") => last,
            Some("-") => last.and_then(|l| l.checked_sub(1)).or(last),
            Some(n) if n.bytes().all(|b| b.is_ascii_digit()) => n
                .parse::<usize>()
                .ok()
                .and_then(|n| self.jobs.kept.iter().position(|j| j.number == n)),
            Some(prefix) => {
                let mut matching = self
                    .jobs
                    .kept
                    .iter()
                    .enumerate()
                    .filter(|(_, j)| j.info.text.starts_with(prefix));
                match (matching.next(), matching.next()) {
                    (Some((i, _)), None) => Some(i),
                    (Some(_), Some(_)) => {
                        self.builtin_error(name, &format!("{}: ambiguous job spec", spec?));
                        return None;
                    }
                    _ => None,
                }
            }
        };
        if found.is_none() {
            self.builtin_error(name, &format!("{}: no such job", spec.unwrap_or("current")));
        }
        found
    }

    /// `exit` or `logout` with jobs kept: warns instead, once (bash's "There are stopped
    /// jobs."). Whether it warned.
    pub(crate) fn warn_of_kept_jobs(&mut self, name: &str) -> bool {
        // Not of jobs that ended meanwhile (the watch ended them): those are reported now.
        if self.at_terminal() {
            self.check_kept_jobs();
        }
        if !self.at_terminal() || self.jobs.kept.is_empty() || self.jobs.warned {
            return false;
        }
        self.jobs.warned = true;
        let _ = fd::write_all(2, format!("{name}\nThere are stopped jobs.\n").as_bytes());
        true
    }
}

/// bash's line for a job: `[1]+  Stopped                 sleep 100`.
pub(super) fn job_line(number: usize, mark: char, state: &str, text: &str) -> String {
    format!("[{number}]{mark}  {state:<24}{text}")
}

/// How bash names a stop.
fn stop_description(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGTSTP => "Stopped",
        libc::SIGTTIN => "Stopped (tty input)",
        libc::SIGTTOU => "Stopped (tty output)",
        _ => "Stopped (signal)",
    }
}

/// How bash names the end of a job it reports: by the signal that ended its last process
/// ended by one, else by its last status.
pub(super) fn end_description(exits: &[Result<spawn::Exit, Errno>]) -> String {
    if let Some((signal, _)) = super::last_signal(exits) {
        return super::signal_description(signal).to_string();
    }
    match exits.last() {
        Some(Ok(spawn::Exit::Code(0))) | None => "Done".to_string(),
        Some(Ok(exit)) => format!("Exit {}", exit.status()),
        Some(Err(_)) => "Exit 127".to_string(),
    }
}

/// `jobs`: the kept jobs, `+` marking the one `fg` continues by default.
pub(crate) fn jobs(shell: &mut Shell, argv: &[String]) -> Outcome {
    if argv.len() > 1 {
        shell.builtin_error("jobs", "usage: jobs");
        return Ok(2);
    }
    if shell.at_terminal() {
        shell.check_kept_jobs();
    }
    let mut text = String::new();
    for (i, kept) in shell.jobs.kept.iter().enumerate() {
        let state = stop_description(kept.state.signal);
        text.push_str(&job_line(
            kept.number,
            shell.mark(i),
            state,
            &kept.info.text,
        ));
        text.push('\n');
    }
    Ok(shell.write_out("jobs", text.as_bytes()))
}

/// `fg [JOB]`: continues a kept job (the current one by default) in the foreground.
pub(crate) fn fg(shell: &mut Shell, argv: &[String]) -> Outcome {
    if !shell.at_terminal() {
        shell.builtin_error("fg", "no job control");
        return Ok(1);
    }
    if argv.len() > 2 {
        shell.builtin_error("fg", "usage: fg [%N]");
        return Ok(2);
    }
    let Some(index) = shell.find_job("fg", argv.get(1).map(String::as_str)) else {
        return Ok(1);
    };
    let kept = shell.jobs.kept.remove(index);
    // What became of the others is reported first, as before a prompt. (Taken out of the
    // list before, the job asked for goes on even if the watch turns out to be gone.)
    shell.check_kept_jobs();
    let _ = fd::write_all(1, format!("{}\n", kept.info.text).as_bytes());
    Ok(shell.continue_kept(kept))
}
