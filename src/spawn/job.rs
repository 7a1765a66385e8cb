//! Jobs: the processes of one command line element, in a process group of their own, with the
//! terminal handed to them while they run and a wall-clock deadline.
//!
//! A started program (or a whole pipeline) gets its own process group, so that a timeout or a
//! signal reaches every process it started and nothing else: not rsh, and not the program that
//! runs rsh (an agent, sshd), which may share rsh's own group. When rsh is the terminal's
//! foreground group, the job becomes the foreground group while it runs (it can read the
//! terminal, and Ctrl-C reaches it), and rsh takes the terminal back afterwards.
//!
//! Waiting blocks SIGCHLD and the terminating signals and takes them with `sigtimedwait`, so no
//! signal handler runs and no wakeup is lost:
//! - the deadline passing sends SIGTERM to the group, and SIGKILL after `GRACE`;
//! - SIGTERM, SIGHUP or SIGQUIT sent to rsh itself is passed on to the group; rsh waits the
//!   grace period for the job, kills what is left, and then ends by that signal as it would
//!   have without a job; SIGINT is passed on, and rsh ends by it only if the job does (bash's
//!   rule: a program that handles Ctrl-C lets the script go on); signals the shell ignores (an
//!   interactive shell ignores SIGQUIT and SIGTERM) stay ignored;
//! - a stopped job is stopped whole. Under job control (the interactive shell) it stays
//!   stopped and is handed back (`Waited::Stopped`, waited for again by `resume`). Otherwise,
//!   stopped from the terminal (Ctrl-Z, or reading or writing it from the background), what
//!   happens is the job's `OnStop`: a script, or a shell forked inside a job, stops too and
//!   continues the job when it is continued itself; a shell that must not stop lets it go on;
//!   and a job that stopped itself otherwise (SIGSTOP) goes on at once. The deadline runs on
//!   while a job is stopped.
//!
//! The leader of a job's own group is reaped last, so that the group number stays the job's
//! for as long as rsh may signal it.
//!
//! Under confinement, what a job leaves running in its group when its own processes have ended
//! is ended too (`end_leftovers`): every process of a command ends with it, as it would at its
//! timeout.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::unistd::Pid;

use super::{Exit, Usage};

/// How long a job that timed out has between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);

/// Signals passed on to the job while rsh waits for it.
const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The other signals that end a process by default: while rsh waits, one that nothing
/// handles is taken as SIGTERM is (passed on, then rsh ends by it), so that what ran is
/// recorded first rather than lost with rsh.
const ENDING_BY_DEFAULT: [libc::c_int; 8] = [
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGIO,
    libc::SIGPWR,
    libc::SIGSTKFLT,
];

/// The controlling terminal, opened once (None: rsh has none).
fn terminal() -> Option<RawFd> {
    static TTY: OnceLock<Option<OwnedFd>> = OnceLock::new();
    TTY.get_or_init(|| {
        // SAFETY: open with a constant path; the result is checked.
        let fd = unsafe {
            libc::open(
                c"/dev/tty".as_ptr(),
                libc::O_RDWR | libc::O_CLOEXEC | libc::O_NOCTTY,
            )
        };
        if fd < 0 {
            return None;
        }
        // SAFETY: a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // In rsh's own range, out of reach of redirections; without a number free there, rsh
        // does without the terminal rather than keep it where a command could take it.
        // SAFETY: F_DUPFD_CLOEXEC creates a new descriptor; on success we own it.
        let high =
            unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, crate::SHELL_FDS_FROM) };
        // SAFETY: as above.
        (high >= 0).then(|| unsafe { OwnedFd::from_raw_fd(high) })
    })
    .as_ref()
    .map(|fd| fd.as_raw_fd())
}

/// The terminal to hand to a new job: rsh's controlling terminal, when rsh's process group is
/// its foreground group.
pub fn foreground_terminal() -> Option<RawFd> {
    let tty = terminal()?;
    // SAFETY: plain queries.
    let (fg, own) = unsafe { (libc::tcgetpgrp(tty), libc::getpgrp()) };
    (fg == own).then_some(tty)
}

/// Where a new process goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Stay in the parent's group (inside a job already).
    Keep,
    /// Lead a new group.
    New,
    /// Join an existing group (a later stage of a pipeline).
    Join(Pid),
}

/// What a new process does about groups and the terminal, in the child. Both sides make the
/// same calls, whichever runs first (as shells do).
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub group: Group,
    /// Give this terminal to the group.
    pub terminal: Option<RawFd>,
}

impl Placement {
    pub const KEEP: Placement = Placement {
        group: Group::Keep,
        terminal: None,
    };

    /// In the child, before anything else. Async-signal-safe. Failures are ignored: a nested
    /// rsh inside another's confinement may not create groups, and then stays in its parent's.
    pub fn apply_in_child(&self) {
        let pgid = match self.group {
            Group::Keep => return,
            Group::New => 0,
            Group::Join(pgid) => pgid.as_raw(),
        };
        // SAFETY: setpgid and getpgrp take integers.
        unsafe {
            libc::setpgid(0, pgid);
            if let Some(tty) = self.terminal {
                give_terminal(tty, libc::getpgrp());
            }
        }
    }

    /// In the parent, after fork. Returns the job's group when the child is in one of its own.
    pub fn apply_in_parent(&self, pid: Pid) -> Option<Pid> {
        let pgid = match self.group {
            Group::Keep => return None,
            Group::New => pid,
            Group::Join(pgid) => pgid,
        };
        // SAFETY: integer arguments. EACCES (the child has exec'd, after its own setpgid) and
        // EPERM (not allowed here) are both fine: the check below tells which happened.
        unsafe { libc::setpgid(pid.as_raw(), pgid.as_raw()) };
        // SAFETY: as above.
        let actual = unsafe { libc::getpgid(pid.as_raw()) };
        if actual != pgid.as_raw() {
            return None;
        }
        if let Some(tty) = self.terminal {
            give_terminal(tty, pgid.as_raw());
        }
        Some(pgid)
    }
}

/// Makes `pgid` the terminal's foreground group. A background caller would get SIGTTOU for
/// this, so the signal is ignored for the call. Async-signal-safe.
fn give_terminal(tty: RawFd, pgid: libc::pid_t) {
    // SAFETY: signal dispositions and tcsetpgrp take integers.
    unsafe {
        let old = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
        libc::tcsetpgrp(tty, pgid);
        libc::signal(libc::SIGTTOU, old);
    }
}

/// Takes the terminal back for rsh's own group.
pub fn reclaim_terminal(tty: RawFd) {
    // SAFETY: getpgrp has no preconditions.
    give_terminal(tty, unsafe { libc::getpgrp() });
}

/// The controlling terminal and the process group that holds it, when that is not rsh's
/// own (None also when there is no terminal any more: hung up).
pub fn terminal_holder() -> Option<(RawFd, Pid)> {
    let tty = terminal()?;
    // SAFETY: plain queries.
    let (holder, own) = unsafe { (libc::tcgetpgrp(tty), libc::getpgrp()) };
    (holder > 0 && holder != own).then_some((tty, Pid::from_raw(holder)))
}

/// Whether rsh leads its session: then every process group on its terminal is one rsh
/// started (its jobs, their leftovers).
pub fn leads_session() -> bool {
    // SAFETY: plain queries.
    unsafe { libc::getsid(0) == libc::getpid() }
}

/// Whether a process group still has a process in it.
pub fn group_exists(group: Pid) -> bool {
    // SAFETY: signal 0 only checks; nothing is sent.
    unsafe { libc::kill(-group.as_raw(), 0) == 0 || Errno::last() != Errno::ESRCH }
}

/// A running job: its processes (waited for in order), the group to signal, the terminal it
/// holds.
pub struct Job {
    pub pids: Vec<Pid>,
    /// The job's own process group; None: signal the processes one by one.
    pub group: Option<Pid>,
    pub terminal: Option<RawFd>,
    pub on_stop: OnStop,
    /// What its deadline passing does.
    pub expiry: Expiry,
}

/// What happens when a job's deadline passes: `signal` (and SIGCONT) to the job, then SIGKILL
/// `grace` later (never, with None).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry {
    pub signal: libc::c_int,
    pub grace: Option<Duration>,
}

impl Expiry {
    /// The policy's timeout: SIGTERM, then SIGKILL after `GRACE`.
    pub const POLICY: Expiry = Expiry {
        signal: libc::SIGTERM,
        grace: Some(GRACE),
    };
}

/// What rsh does when a job is stopped from the terminal: Ctrl-Z (SIGTSTP, also a program
/// stopping itself so, as `less` and `vim` do on Ctrl-Z), or reading or writing the terminal
/// from outside its foreground group (SIGTTIN, SIGTTOU).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnStop {
    /// Job control, only in the interactive shell itself, for a job in a group of its own that
    /// holds the terminal: the job stays stopped, however it was stopped, rsh takes the
    /// terminal back, and the caller gets the job back (`Waited::Stopped`).
    Keep,
    /// rsh stops too, by the same signal, and continues the job once continued itself: a
    /// script, as bash's does, and a shell forked inside a job, so that the shell above sees
    /// the job stop.
    StopWith,
    /// The job goes on at once, and rsh says so: where the shell that waits must not stop (a
    /// command substitution or subshell, which the shell above waits for without job control,
    /// or an interactive shell that cannot keep this job).
    GoOn,
}

/// How waiting for a job came out.
pub enum Waited {
    Ended(Ended),
    /// Stopped under `OnStop::Keep`: stopped, to be waited for again (`resume`).
    Stopped(Stopped),
}

/// A job stopped under job control: what was collected of it so far, and where its wait
/// stands, to be waited for again by `Job::resume`.
#[derive(Debug)]
pub struct Stopped {
    exits: Vec<Option<Result<Exit, Errno>>>,
    usage: Vec<Option<Usage>>,
    /// The signal that stopped it (SIGTSTP for Ctrl-Z).
    pub signal: libc::c_int,
    /// When the job's time runs out; it runs on while the job is stopped.
    pub deadline: Option<Instant>,
    /// SIGTERM was sent at the deadline: what is left at the (new) deadline gets SIGKILL.
    timed_out: bool,
    /// Hung up at the end of the session: SIGKILL at the deadline, and no timeout to report.
    hung_up: bool,
}

impl Stopped {
    /// The job's deadline passed while it was stopped, and the watch killed it `ago`: waited
    /// for again (what is left of it gets SIGKILL again, `GRACE` after that at the latest), it
    /// is reported as timed out.
    pub fn ran_out(&mut self, ago: Duration) {
        self.timed_out = true;
        self.deadline = Some(Instant::now() + GRACE.saturating_sub(ago));
    }
}

/// A wait for a job under way (`Job::resume`).
struct Progress {
    exits: Vec<Option<Result<Exit, Errno>>>,
    usage: Vec<Option<Usage>>,
    /// When the job's time (or the grace period after SIGTERM, a hang-up or a signal) ends.
    deadline: Option<Instant>,
    /// SIGTERM was sent at the deadline.
    timed_out: bool,
    /// Hung up at the end of the session (`Job::hang_up`).
    hung_up: bool,
    /// SIGKILL was sent.
    killed: bool,
    /// Ctrl-C reached rsh while it waited.
    interrupted: bool,
    /// A terminating signal rsh took: passed on, and rsh ends by it once the job is gone.
    dying: Option<libc::c_int>,
    /// When it came.
    dying_at: Option<Instant>,
}

impl Progress {
    fn from(stopped: Stopped) -> Progress {
        Progress {
            exits: stopped.exits,
            usage: stopped.usage,
            deadline: stopped.deadline,
            timed_out: stopped.timed_out,
            hung_up: stopped.hung_up,
            killed: false,
            interrupted: false,
            dying: None,
            dying_at: None,
        }
    }

    /// A job being ended (its time ran out, it was hung up, rsh is ending) is not kept or
    /// stopped: it goes on to its end.
    fn ending(&self) -> bool {
        self.timed_out || self.hung_up || self.dying.is_some()
    }

    /// The time left before the deadline (None: no deadline).
    fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// The job stopped by `signal`, handed back to be kept: its deadline runs on.
    fn handed_back(self, signal: libc::c_int) -> Stopped {
        Stopped {
            exits: self.exits,
            usage: self.usage,
            signal,
            deadline: self.deadline,
            timed_out: false,
            hung_up: false,
        }
    }
}

/// How a job ended.
#[derive(Debug)]
pub struct Ended {
    /// One per process, in order.
    pub exits: Vec<Result<Exit, Errno>>,
    /// What each process used, where it was collected.
    pub usage: Vec<Option<Usage>>,
    /// The deadline passed and the job was ended.
    pub timed_out: bool,
    /// The signal rsh sent at the deadline was SIGINT (a command's `timeout -s INT`): a
    /// process it ended was not ended by Ctrl-C.
    pub sent_sigint: bool,
    /// rsh itself must end by this signal, as soon as it has recorded what it must
    /// (`die_by`): it got a terminating signal, or, not interactive, Ctrl-C ended the job.
    pub dying: Option<libc::c_int>,
    /// When rsh got that terminating signal.
    pub dying_at: Option<Instant>,
    /// SIGINT ended the job that held the terminal, and rsh neither got it nor sent it:
    /// Ctrl-C, as far as rsh can tell.
    pub from_terminal: bool,
    /// rsh got SIGINT while it waited, and passed it on (an agent's interrupt of an
    /// interactive shell without a terminal, sent to rsh's process group).
    pub passed_sigint: bool,
}

/// The signal mask held while waiting: SIGCHLD, the forwarded signals the shell does not
/// ignore, and those of `ENDING_BY_DEFAULT` nothing handles.
struct Blocked {
    set: libc::sigset_t,
    old: libc::sigset_t,
}

impl Blocked {
    fn new() -> Blocked {
        Blocked::with(&[libc::SIGCHLD])
    }

    /// The signals that would end rsh, and `more`.
    fn with(more: &[libc::c_int]) -> Blocked {
        // SAFETY: sigset operations on stack values; sigprocmask reads `set`, writes `old`.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for &sig in more {
                libc::sigaddset(&mut set, sig);
            }
            for sig in FORWARDED {
                if !is_ignored(sig) {
                    libc::sigaddset(&mut set, sig);
                }
            }
            for sig in ENDING_BY_DEFAULT {
                if disposition(sig) == Some(libc::SIG_DFL) {
                    libc::sigaddset(&mut set, sig);
                }
            }
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigprocmask(libc::SIG_BLOCK, &set, &mut old);
            Blocked { set, old }
        }
    }

    /// The next signal, or None when `timeout` passes first or the wait is interrupted. Not
    /// waited for again here: after rsh is stopped and continued (which interrupts it), the
    /// same `timeout` would count from the start again, and every stop would push a job's
    /// deadline back; the caller counts what is left from the deadline.
    fn next(&self, timeout: Option<Duration>) -> Option<libc::c_int> {
        // SAFETY: an all-zero siginfo is a valid output buffer.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = match timeout {
            None => {
                // SAFETY: `set` is initialized; `info` is ours.
                unsafe { libc::sigwaitinfo(&self.set, &mut info) }
            }
            Some(t) => {
                let ts = libc::timespec {
                    tv_sec: t.as_secs() as libc::time_t,
                    tv_nsec: t.subsec_nanos() as libc::c_long,
                };
                // SAFETY: as above; `ts` lives on the stack.
                unsafe { libc::sigtimedwait(&self.set, &mut info, &ts) }
            }
        };
        (rc > 0).then_some(rc)
    }
}

/// While rsh waits for something of its own rather than for a job (a FIFO's other end): the
/// signals that would end it are held and taken as they come, as while it waits for a job.
/// With `interrupt`, Ctrl-C is taken too where the interactive shell ignores it, so that it
/// can end the wait; it is ignored again afterwards.
pub struct OwnWait {
    /// Declared first, so dropped first: SIGINT's disposition is put back while the signal is
    /// still blocked, and a Ctrl-C still pending is dropped with it.
    _interrupt: Option<Caught>,
    blocked: Blocked,
}

impl OwnWait {
    pub fn new(interrupt: bool) -> OwnWait {
        let take_interrupt = interrupt && is_ignored(libc::SIGINT);
        let more: &[libc::c_int] = if take_interrupt { &[libc::SIGINT] } else { &[] };
        // Blocked first: the handler must not run here, only hold the signal pending (an
        // ignored signal is never pending).
        let blocked = Blocked::with(more);
        OwnWait {
            _interrupt: take_interrupt.then(|| Caught::new(libc::SIGINT)),
            blocked,
        }
    }

    /// A signal that came for rsh, taken; None if none came within `timeout`.
    pub fn next(&self, timeout: Duration) -> Option<libc::c_int> {
        self.blocked.next(Some(timeout))
    }
}

/// A signal given a handler that does nothing, without SA_RESTART (a system call it
/// interrupts fails with EINTR), until dropped, when its disposition is put back.
pub struct Caught {
    sig: libc::c_int,
    old: libc::sigaction,
}

impl Caught {
    pub fn new(sig: libc::c_int) -> Caught {
        // SAFETY: installs a handler that does nothing; the old action is kept to be put
        // back.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = nothing as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, &action, &mut old);
            Caught { sig, old }
        }
    }
}

impl Drop for Caught {
    fn drop(&mut self) {
        // SAFETY: puts back the action saved in `new`.
        unsafe { libc::sigaction(self.sig, &self.old, std::ptr::null_mut()) };
    }
}

extern "C" fn nothing(_: libc::c_int) {}

impl Drop for Blocked {
    fn drop(&mut self) {
        // SAFETY: restores the mask saved in `new`.
        unsafe { libc::sigprocmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

/// Whether `sig` is ignored now (false if the kernel will not say).
pub(super) fn is_ignored(sig: libc::c_int) -> bool {
    disposition(sig) == Some(libc::SIG_IGN)
}

/// What `sig` is set to do now: SIG_DFL, SIG_IGN or a handler.
fn disposition(sig: libc::c_int) -> Option<libc::sighandler_t> {
    // SAFETY: a query (null new action) into a zeroed struct we own.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        (libc::sigaction(sig, std::ptr::null(), &mut current) == 0).then_some(current.sa_sigaction)
    }
}

impl Job {
    /// Whether the job's group is rsh's own (a stage of a pipeline waiting for a program):
    /// a signal for the group has reached the job already.
    fn shares_our_group(&self) -> bool {
        // SAFETY: getpgrp has no preconditions.
        self.group
            .is_some_and(|pgid| pgid.as_raw() == unsafe { libc::getpgrp() })
    }

    /// The group rsh may signal as a whole: the job's own (while its leader is unreaped, its
    /// number cannot be reused).
    fn own_group(&self) -> Option<Pid> {
        self.group.filter(|_| !self.shares_our_group())
    }

    /// Signals the job: its group, or else each process not yet reaped (a reaped pid may be
    /// someone else's by now).
    fn signal(&self, sig: libc::c_int, exits: &[Option<Result<Exit, Errno>>]) {
        // SAFETY: kill takes integers; ESRCH (already gone) is fine.
        unsafe {
            match self.group {
                Some(pgid) => {
                    libc::kill(-pgid.as_raw(), sig);
                }
                None => {
                    for (pid, exit) in self.pids.iter().zip(exits) {
                        if exit.is_none() {
                            libc::kill(pid.as_raw(), sig);
                        }
                    }
                }
            }
        }
    }

    /// Waits for every process of the job. `timeout`: the wall-clock limit, from now.
    /// `sweep`: end what the job leaves running in its group once its own processes have ended
    /// (see `end_leftovers`).
    pub fn wait(&self, timeout: Option<Duration>, interactive: bool, sweep: bool) -> Waited {
        let from = Stopped {
            exits: vec![None; self.pids.len()],
            usage: vec![None; self.pids.len()],
            signal: 0,
            deadline: timeout.map(|t| Instant::now() + t),
            timed_out: false,
            hung_up: false,
        };
        self.resume(from, interactive, sweep)
    }

    /// Waits again for a job handed back stopped: continued since (`continue_in_foreground`),
    /// or ended meanwhile.
    pub fn resume(&self, from: Stopped, interactive: bool, sweep: bool) -> Waited {
        let blocked = Blocked::new();
        let mut wait = Progress::from(from);
        match self.follow(&blocked, &mut wait) {
            Some(signal) => Waited::Stopped(wait.handed_back(signal)),
            None => Waited::Ended(self.collect(wait, interactive, sweep)),
        }
    }

    /// Ends a job handed back stopped and waits for its end: hung up, unless its time ran out
    /// (`Stopped::ran_out`: it is in its grace period already).
    pub fn end(&self, mut stopped: Stopped, interactive: bool, sweep: bool) -> Ended {
        if !stopped.hung_up && !stopped.timed_out {
            stopped = self.hang_up(stopped);
        }
        let blocked = Blocked::new();
        let mut wait = Progress::from(stopped);
        // Being ended, it is never handed back stopped (see `stopped`): `follow` comes back at
        // its end, and would only be followed further otherwise.
        while self.follow(&blocked, &mut wait).is_some() {}
        self.collect(wait, interactive, sweep)
    }

    /// Follows the job until every process of it has ended (None), or it stopped and is
    /// handed back to be kept (the stop signal).
    fn follow(&self, blocked: &Blocked, wait: &mut Progress) -> Option<libc::c_int> {
        // A hang-up the interactive shell's handler took before this wait could (while the
        // shell asked the watch to hold the job, or just before the wait began) is passed on
        // as if it came now: nobody is there to end the job otherwise.
        if super::signals::hung_up() && !wait.hung_up && wait.dying.is_none() {
            self.pass_on(libc::SIGHUP, wait);
        }
        loop {
            let stop = self.reap(&mut wait.exits, &mut wait.usage);
            if wait.exits.iter().all(Option::is_some) {
                return None;
            }
            if let Some(signal) = stop
                && self.stopped(signal, wait.ending(), &wait.exits)
            {
                return Some(signal);
            }
            if self.at_deadline(wait) {
                continue;
            }
            if let Some(sig) = blocked.next(wait.remaining()) {
                self.received(sig, wait);
            }
        }
    }

    /// Once every process of the job has ended: what it left in its group is ended, and the
    /// leader collected.
    fn collect(&self, mut wait: Progress, interactive: bool, sweep: bool) -> Ended {
        self.clear_group(&wait, sweep);
        if let Some(used) = self.reap_leader() {
            wait.usage[0] = Some(used);
        }
        self.ended(wait, interactive)
    }

    /// The deadline passed: the job gets SIGTERM (and SIGCONT) and a grace period, or, at the
    /// end of that (or of a hang-up's or a signal's), SIGKILL. Whether it had passed.
    fn at_deadline(&self, wait: &mut Progress) -> bool {
        if wait.remaining() != Some(Duration::ZERO) {
            return false;
        }
        if !wait.ending() {
            wait.timed_out = true;
            self.signal(self.expiry.signal, &wait.exits);
            self.signal(libc::SIGCONT, &wait.exits);
            wait.deadline = self.expiry.grace.map(|grace| Instant::now() + grace);
        } else if !wait.killed {
            wait.killed = true;
            self.signal(libc::SIGKILL, &wait.exits);
            wait.deadline = None;
        }
        true
    }

    /// A signal rsh took while it waited: SIGCHLD (something to reap), Ctrl-C (passed on; rsh
    /// ends by it only if the job does, see `ended`), or a terminating one (`pass_on`).
    fn received(&self, sig: libc::c_int, wait: &mut Progress) {
        match sig {
            libc::SIGCHLD => {}
            libc::SIGINT => {
                wait.interrupted = true;
                if !self.shares_our_group() {
                    self.signal(libc::SIGINT, &wait.exits);
                }
            }
            sig => self.pass_on(sig, wait),
        }
    }

    /// A terminating signal for rsh: the job gets it too (unless it reached the job already,
    /// in rsh's own group), and SIGCONT to act on it; rsh ends by it once the job is gone,
    /// SIGKILL for the job after the grace period.
    fn pass_on(&self, sig: libc::c_int, wait: &mut Progress) {
        if !self.shares_our_group() {
            self.signal(sig, &wait.exits);
            self.signal(libc::SIGCONT, &wait.exits);
        }
        if wait.dying.is_none() {
            let now = Instant::now();
            wait.dying = Some(sig);
            wait.dying_at = Some(now);
            wait.killed = false;
            wait.deadline = Some(now + GRACE);
        }
    }

    /// What the job left behind in its group, once its own processes have ended: after a
    /// timeout, a hang-up or a terminating signal it goes at once; after a normal end, when
    /// sweeping.
    fn clear_group(&self, wait: &Progress, sweep: bool) {
        if wait.ending() {
            if let Some(pgid) = self.own_group() {
                // SAFETY: the leader is not reaped yet: the group number is still the job's.
                unsafe { libc::kill(-pgid.as_raw(), libc::SIGKILL) };
            }
        } else if sweep {
            self.end_leftovers();
        }
    }

    /// How the job ended, and whether rsh ends with it: by a terminating signal it took, or,
    /// not interactive, by Ctrl-C that ended the job holding the terminal (bash's rule: the
    /// script got the signal with its child; a program that handles Ctrl-C lets it go on).
    fn ended(&self, wait: Progress, interactive: bool) -> Ended {
        let exits: Vec<Result<Exit, Errno>> = wait.exits.into_iter().map(Option::unwrap).collect();
        let ctrl_c = wait.interrupted || self.terminal.is_some();
        // SIGINT that rsh sent at the deadline itself (a command's `timeout -s INT`) is none.
        let sent_sigint = wait.timed_out && self.expiry.signal == libc::SIGINT;
        let by_ctrl_c = !sent_sigint
            && matches!(
                exits.last(),
                Some(Ok(Exit::Signal {
                    signal: libc::SIGINT,
                    ..
                }))
            );
        let from_terminal = by_ctrl_c && self.terminal.is_some() && !wait.interrupted;
        let dying = match wait.dying {
            None if ctrl_c && !interactive && by_ctrl_c => Some(libc::SIGINT),
            dying => dying,
        };
        Ended {
            exits,
            usage: wait.usage,
            timed_out: wait.timed_out,
            sent_sigint,
            dying,
            dying_at: wait.dying_at,
            from_terminal,
            passed_sigint: wait.interrupted,
        }
    }

    /// Continues a job handed back stopped, in the foreground: the terminal to its group, then
    /// SIGCONT to all of it.
    pub fn continue_in_foreground(&self) {
        let Some(pgid) = self.own_group() else {
            return;
        };
        if let Some(tty) = self.terminal {
            give_terminal(tty, pgid.as_raw());
        }
        // SAFETY: a signal to the job's group, whose leader rsh has not reaped.
        unsafe { libc::kill(-pgid.as_raw(), libc::SIGCONT) };
    }

    /// Ends a job handed back stopped, as a hang-up of the terminal would: SIGHUP and SIGCONT
    /// to its group. Waited for again (`end`), it gets SIGKILL `GRACE` later if it has not
    /// ended, and is reported as neither timed out nor stopped again.
    pub fn hang_up(&self, mut stopped: Stopped) -> Stopped {
        if let Some(pgid) = self.own_group() {
            // SAFETY: signals to the job's group, whose leader rsh has not reaped.
            unsafe {
                libc::kill(-pgid.as_raw(), libc::SIGHUP);
                libc::kill(-pgid.as_raw(), libc::SIGCONT);
            }
        }
        stopped.hung_up = true;
        stopped.timed_out = false;
        stopped.deadline = Some(Instant::now() + GRACE);
        stopped
    }

    /// Whether every process of a job handed back stopped has ended (looked at, not
    /// collected): a job has ended only when all of it has.
    pub fn has_ended(&self, stopped: &Stopped) -> bool {
        self.pids
            .iter()
            .zip(&stopped.exits)
            .all(|(&pid, exit)| exit.is_some() || super::has_exited(pid) != Some(false))
    }

    /// Ends what the job's programs left running in its group after they ended themselves
    /// (a daemon, a server started in the background): no timeout would apply to it any more.
    /// Called while the leader is still unreaped, so the group number is still the job's; the
    /// leader, a zombie, is not affected.
    fn end_leftovers(&self) {
        if let Some(pgid) = self.own_group() {
            // SAFETY: a signal to the job's group.
            unsafe { libc::kill(-pgid.as_raw(), libc::SIGKILL) };
        }
    }

    /// Reaps the leader, kept unreaped (see `reap`) so that its group number stayed the job's
    /// while the job was signalled as a whole.
    fn reap_leader(&self) -> Option<Usage> {
        if self.own_group().is_some()
            && let Some(&leader) = self.pids.first()
        {
            return super::wait_with_usage(leader).ok().map(|(_, usage)| usage);
        }
        None
    }

    /// Collects the processes that have ended, and returns the stop signal of any that
    /// stopped (a stop from the terminal before another). The leader of the job's own group
    /// is only looked at (WNOWAIT): it stays a zombie until `reap_leader`.
    fn reap(
        &self,
        exits: &mut [Option<Result<Exit, Errno>>],
        usage: &mut [Option<Usage>],
    ) -> Option<libc::c_int> {
        use nix::sys::wait::{Id, WaitPidFlag, WaitStatus, waitid};
        let keep_leader = self.own_group().is_some();
        let mut stop = None;
        for i in 0..self.pids.len() {
            if exits[i].is_some() {
                continue;
            }
            let pid = self.pids[i];
            if keep_leader && i == 0 {
                // Stops first (consumed), then the exit without reaping.
                let stops = WaitPidFlag::WSTOPPED | WaitPidFlag::WNOHANG;
                if let Ok(WaitStatus::Stopped(_, sig)) = retry(|| waitid(Id::Pid(pid), stops)) {
                    stop = stronger_stop(stop, sig as libc::c_int);
                }
                let peek = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
                match retry(|| waitid(Id::Pid(pid), peek)) {
                    Ok(status) => exits[i] = super::ended(status).map(Ok),
                    Err(errno) => exits[i] = Some(Err(errno)),
                }
                continue;
            }
            match retry(|| super::wait4(pid, libc::WUNTRACED | libc::WNOHANG)) {
                Ok(Some((WaitStatus::Stopped(_, sig), _))) => {
                    stop = stronger_stop(stop, sig as libc::c_int);
                }
                Ok(Some((status, used))) => {
                    if let Some(exit) = super::ended(status) {
                        exits[i] = Some(Ok(exit));
                        usage[i] = Some(used);
                    }
                }
                Ok(None) => {}
                Err(errno) => exits[i] = Some(Err(errno)),
            }
        }
        stop
    }

    /// A process of the job stopped by `sig`. The whole job is stopped with it, so that nothing
    /// of it runs on unchecked, unless the job's group is rsh's own (a shell inside a job:
    /// the terminal's signal reached all of it, and the shell above stops the rest). A job
    /// being `ending` (its time ran out, rsh is ending, it was hung up) goes on at once, to its
    /// end. Under job control the job is handed back, however it was stopped (`top` stops
    /// itself with SIGSTOP on Ctrl-Z); otherwise a stop from the terminal is the job's
    /// `OnStop`'s to handle (`stopped_from_terminal`), and after any other (or any at all,
    /// when rsh has no controlling terminal) the job goes on at once, its deadline still
    /// running. Whether the job is handed back stopped.
    fn stopped(
        &self,
        sig: libc::c_int,
        ending: bool,
        exits: &[Option<Result<Exit, Errno>>],
    ) -> bool {
        let whole = !self.shares_our_group();
        if whole {
            self.signal(libc::SIGSTOP, exits);
        }
        if ending {
            self.signal(libc::SIGCONT, exits);
            return false;
        }
        if whole && self.under_job_control() {
            if let Some(tty) = self.terminal {
                reclaim_terminal(tty);
            }
            return true;
        }
        // Without a controlling terminal no stop comes from one: the program stopped itself
        // (or was stopped by a kill), and rsh stopping with it would wait past any deadline.
        if is_terminal_stop(sig) && terminal().is_some() {
            self.stopped_from_terminal(sig);
        }
        self.signal(libc::SIGCONT, exits);
        false
    }

    /// Whether a stopped job is handed back to be kept: job control, for a job in a group of
    /// its own that holds the terminal.
    fn under_job_control(&self) -> bool {
        self.on_stop == OnStop::Keep && self.terminal.is_some() && self.group.is_some()
    }

    /// A stop from the terminal that is not kept: a shell that stops with its job stops now
    /// (and returns once continued); one that must not says so. Either way the job then gets
    /// the terminal back, to go on.
    fn stopped_from_terminal(&self, sig: libc::c_int) {
        if let Some(tty) = self.terminal {
            reclaim_terminal(tty);
        }
        match self.on_stop {
            OnStop::StopWith => stop_self(sig),
            OnStop::Keep | OnStop::GoOn => {
                let _ = super::fd::write_all(
                    2,
                    b"\nrsh: this command cannot be stopped here; it goes on running\n",
                );
            }
        }
        if let (Some(tty), Some(pgid)) = (self.terminal, self.group) {
            give_terminal(tty, pgid.as_raw());
        }
    }
}

/// A stop from the terminal, or one a program makes as if from it (Ctrl-Z in `vim`).
fn is_terminal_stop(sig: libc::c_int) -> bool {
    matches!(sig, libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU)
}

/// Of two stops seen together, the one from the terminal.
fn stronger_stop(seen: Option<libc::c_int>, sig: libc::c_int) -> Option<libc::c_int> {
    match seen {
        Some(earlier) if is_terminal_stop(earlier) => Some(earlier),
        _ => Some(sig),
    }
}

/// Stops rsh by `sig`, as the signal's default action does (whatever rsh does with it
/// otherwise), so that the shell above sees the job stop as from the terminal; returns once
/// rsh is continued. (In an orphaned process group the kernel drops the stop, and the job
/// simply goes on.)
fn stop_self(sig: libc::c_int) {
    // SAFETY: dispositions and raise take integers; the old disposition is put back.
    unsafe {
        let old = libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
        libc::signal(sig, old);
    }
}

/// Retries a wait interrupted by a signal.
fn retry<T>(mut call: impl FnMut() -> Result<T, Errno>) -> Result<T, Errno> {
    loop {
        match call() {
            Err(Errno::EINTR) => continue,
            other => return other,
        }
    }
}

/// Ends rsh by `sig`, as its default action would have.
pub fn die_by(sig: libc::c_int) -> ! {
    // SAFETY: default disposition, unblock, raise; _exit if the signal does not end us.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
        libc::_exit(128 + sig)
    }
}
