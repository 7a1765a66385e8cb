//! The watch over the jobs that job control keeps stopped (Ctrl-Z), kept by a process of its own
//! while the shell waits at the prompt or for another command.
//!
//! A kept job must stay stopped until `fg` continues it. A confined program can stop itself
//! and have something continue it later (a timer it set, a signal it arranged for); it would
//! then run in the background, which rsh refuses (`&`), and past its time limit, with nobody
//! waiting for it. So the watcher looks at every thread of every process in each kept job's
//! process group each `TICK` (the group is read anew from /proc every time): a thread that is
//! not stopped, or that was scheduled at all since the job was held (its count of context
//! switches moved: it ran and stopped again), or a process or thread that came or went, means
//! the job ran without `fg`. Such a job cannot be held — what continued it can do so again —
//! so its whole process group is killed at once. A zombie is no part of a job (it cannot run,
//! and its parent may reap it at any time). /proc is read as bytes (a process names itself,
//! in any bytes), and a process that is there but cannot be read fails the hold, or counts as
//! having run: only a process that has gone is ever left out. The job's deadline (the policy's
//! timeout from the job's start, stopped time included) is enforced here with SIGKILL at once:
//! SIGTERM would have to be followed by SIGCONT for the job to see it, and its handler would
//! then run for the grace period in the background, where nobody sees it (and it could change
//! the terminal under the next command). The shell collects and
//! records what the watcher ended when it next can: before the next prompt, at `fg`, or when
//! the session ends.
//!
//! A process and not a thread: rsh forks copies of itself and moves descriptors to fixed
//! numbers, neither of which goes with a second thread that opens files. It leads a process
//! group of its own, so that no signal from the terminal reaches it, and talks with the shell
//! over a socket, one request and one answer at a time. When the shell goes away without
//! releasing its jobs (killed by SIGKILL), the watcher kills every job it holds before it
//! ends: nothing held outlives the shell.
//!
//! What it must never do: signal a group after the shell released it (`release` answers only
//! once the job is forgotten, so the group number cannot have been reused meanwhile: the
//! shell reaps the job's leader only after that), and hold a job it cannot see (`hold` fails,
//! and the shell lets the job go on in the foreground).
#![allow(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::{Fork, fd, procfs};
use crate::sandbox::seccomp::{self, Filter};

/// How often each held job is looked at.
pub const TICK: Duration = Duration::from_millis(50);

/// How long a job being held has to stop entirely (a process in the middle of a system call
/// stops when the call returns).
const SETTLE: Duration = Duration::from_secs(1);

/// How long the shell waits for an answer (a `hold` takes up to `SETTLE`).
const ANSWER: Duration = Duration::from_secs(5);

/// A job the watcher holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldId(u64);

/// What became of a held job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Still stopped, as it was held.
    Stopped,
    /// Its deadline passed: it got SIGKILL this long ago.
    TimedOut(Duration),
    /// It ran without `fg`, and was killed: seen this long ago (it ran within `TICK` before).
    RanWhileStopped(Duration),
}

/// Why a job cannot be held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldError {
    /// Part of it did not stop within `SETTLE`.
    NotStopped,
    /// Its processes cannot be read in /proc.
    Unreadable,
    /// The watcher is not there, or does not answer.
    NoWatcher(Errno),
}

impl std::fmt::Display for HoldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HoldError::NotStopped => write!(f, "it did not stop"),
            HoldError::Unreadable => write!(f, "its processes cannot be read in /proc"),
            HoldError::NoWatcher(errno) => {
                write!(
                    f,
                    "no watch over stopped jobs: {}",
                    crate::errno_text(*errno)
                )
            }
        }
    }
}

/// The shell's end of the watch. Dropped, it closes the socket (the watcher then ends,
/// killing what it still holds) and, in the shell that started it, collects the watcher.
pub struct Watcher {
    /// None once the watcher was ended (`end`).
    socket: Option<OwnedFd>,
    pid: Pid,
    /// The shell that started it (a forked copy holds a copy of this).
    parent: Pid,
    next_hold: u64,
    /// The number of the next request, which its answer repeats.
    next_request: u64,
}

/// What the shell asks of the watcher.
const HOLD: u8 = 1;
const FATE: u8 = 2;
const RELEASE: u8 = 3;

/// A request: its kind and number, the job (a hold's new id, or the id of the job held),
/// and for a hold the job's group and the milliseconds left before its deadline (u64::MAX:
/// none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Request {
    kind: u8,
    number: u64,
    id: u64,
    group: i32,
    millis: u64,
}

// What the watcher answers.
const STOPPED: u8 = 0;
const TIMED_OUT: u8 = 1;
const RAN: u8 = 2;
const NOT_STOPPED: u8 = 3;
const UNREADABLE: u8 = 4;
const UNKNOWN: u8 = 5;

/// An answer: the number of the request it answers, what became of the job, and for a job
/// that timed out or ran how long ago it got SIGKILL, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Answer {
    number: u64,
    what: u8,
    value: u64,
}

impl Request {
    const LEN: usize = 40;

    fn encode(&self) -> [u8; Request::LEN] {
        let mut bytes = [0u8; Request::LEN];
        bytes[0] = self.kind;
        bytes[8..16].copy_from_slice(&self.number.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.id.to_le_bytes());
        bytes[24..28].copy_from_slice(&self.group.to_le_bytes());
        bytes[32..40].copy_from_slice(&self.millis.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8; Request::LEN]) -> Request {
        Request {
            kind: bytes[0],
            number: u64::from_le_bytes(bytes[8..16].try_into().expect("eight bytes")),
            id: u64::from_le_bytes(bytes[16..24].try_into().expect("eight bytes")),
            group: i32::from_le_bytes(bytes[24..28].try_into().expect("four bytes")),
            millis: u64::from_le_bytes(bytes[32..40].try_into().expect("eight bytes")),
        }
    }
}

impl Answer {
    const LEN: usize = 24;

    fn encode(&self) -> [u8; Answer::LEN] {
        let mut bytes = [0u8; Answer::LEN];
        bytes[0] = self.what;
        bytes[8..16].copy_from_slice(&self.number.to_le_bytes());
        bytes[16..24].copy_from_slice(&self.value.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8; Answer::LEN]) -> Answer {
        Answer {
            what: bytes[0],
            number: u64::from_le_bytes(bytes[8..16].try_into().expect("eight bytes")),
            value: u64::from_le_bytes(bytes[16..24].try_into().expect("eight bytes")),
        }
    }
}

impl Watcher {
    /// Starts the watching process.
    pub fn start() -> Result<Watcher, Errno> {
        let (ours, theirs) = seqpacket_pair()?;
        let ours = fd::to_shell_range(ours)?;
        let theirs = fd::to_shell_range(theirs)?;
        let filter = Filter::only(WATCHER_CALLS);
        match super::fork_shell()? {
            Fork::Child => {
                drop(ours);
                serve(theirs, &filter)
            }
            Fork::Parent(pid) => {
                drop(theirs);
                fd::mark_private(ours.as_fd());
                Ok(Watcher {
                    socket: Some(ours),
                    pid,
                    parent: nix::unistd::getpid(),
                    next_hold: 1,
                    next_request: 1,
                })
            }
        }
    }

    /// Holds the stopped job whose process group is `group`, with `deadline` left before its
    /// time runs out. Returns once every process of it is seen stopped.
    pub fn hold(&mut self, group: Pid, deadline: Option<Duration>) -> Result<HoldId, HoldError> {
        let id = HoldId(self.next_hold);
        self.next_hold += 1;
        let millis = deadline.map_or(u64::MAX, |d| d.as_millis().min(u64::MAX as u128 - 1) as u64);
        match self.ask(HOLD, id, group.as_raw(), millis) {
            Ok((STOPPED, _)) => Ok(id),
            Ok((NOT_STOPPED, _)) => Err(HoldError::NotStopped),
            Ok((UNREADABLE, _)) => Err(HoldError::Unreadable),
            Ok(_) => {
                self.end();
                Err(HoldError::NoWatcher(Errno::EPROTO))
            }
            Err(errno) => Err(HoldError::NoWatcher(errno)),
        }
    }

    /// What became of a held job so far.
    pub fn fate(&mut self, id: HoldId) -> Result<Fate, Errno> {
        let answer = self.ask(FATE, id, 0, 0);
        self.fate_of(answer)
    }

    /// Stops watching a job: from the answer on, the watcher does nothing more to it.
    pub fn release(&mut self, id: HoldId) -> Result<Fate, Errno> {
        let answer = self.ask(RELEASE, id, 0, 0);
        self.fate_of(answer)
    }

    /// A job's fate from the answer about it; a watcher that answers nonsense is ended.
    fn fate_of(&mut self, answer: Result<(u8, u64), Errno>) -> Result<Fate, Errno> {
        let fate = match answer? {
            (STOPPED, _) => Fate::Stopped,
            (TIMED_OUT, millis) => Fate::TimedOut(Duration::from_millis(millis)),
            (RAN, millis) => Fate::RanWhileStopped(Duration::from_millis(millis)),
            _ => {
                self.end();
                return Err(Errno::EPROTO);
            }
        };
        Ok(fate)
    }

    /// One request, one answer. Any failure ends the watcher (`end`) before it is returned: an
    /// answer that did not come in time may come later, as the answer to another request,
    /// and a watcher that is behind or confused may still act on jobs the shell is about to
    /// reap, so none of it is trusted any more.
    fn ask(&mut self, kind: u8, id: HoldId, group: i32, millis: u64) -> Result<(u8, u64), Errno> {
        let number = self.next_request;
        self.next_request += 1;
        let request = Request {
            kind,
            number,
            id: id.0,
            group,
            millis,
        };
        match self.exchange(&request) {
            Ok(answer) if answer.number == number => Ok((answer.what, answer.value)),
            Ok(_) => {
                self.end();
                Err(Errno::EPROTO)
            }
            Err(errno) => {
                self.end();
                Err(errno)
            }
        }
    }

    /// Sends `request` and reads the answer, within `ANSWER`.
    fn exchange(&self, request: &Request) -> Result<Answer, Errno> {
        let socket = self.socket.as_ref().ok_or(Errno::EBADF)?;
        send(socket, &request.encode())?;
        let mut answer = [0u8; Answer::LEN];
        let until = Instant::now() + ANSWER;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || !readable(socket, Some(left))? {
                return Err(Errno::ETIMEDOUT);
            }
            match nix::unistd::read(socket, &mut answer) {
                Ok(Answer::LEN) => return Ok(Answer::decode(&answer)),
                Ok(_) => return Err(Errno::EPROTO),
                Err(Errno::EINTR | Errno::EAGAIN) => continue,
                Err(errno) => return Err(errno),
            }
        }
    }

    /// Ends the watcher at once: SIGKILL, and collected, so that once this returns it can do
    /// nothing more to any job (it could otherwise still signal a group the shell goes on to
    /// reap, and whose number may then be reused). What it held is left as it is, for the
    /// shell to end.
    fn end(&mut self) {
        if self.socket.take().is_none() || nix::unistd::getpid() != self.parent {
            return;
        }
        let _ = nix::sys::signal::kill(self.pid, Signal::SIGKILL);
        let _ = super::wait(self.pid);
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Ended already (`end`), or a forked copy's, which is not its to collect.
        let Some(socket) = self.socket.take() else {
            return;
        };
        drop(socket);
        if nix::unistd::getpid() != self.parent {
            return;
        }
        // It ends once it sees the socket closed (a hold under way takes up to `SETTLE`); one
        // that does not is killed.
        if !super::ended_by(self.pid, Instant::now() + SETTLE + TICK) {
            let _ = nix::sys::signal::kill(self.pid, Signal::SIGKILL);
            let _ = super::wait(self.pid);
        }
    }
}

/// Sends one request or answer. Never SIGPIPE: the shell must outlive a watcher that went
/// away (and the watcher a shell).
fn send(socket: &OwnedFd, bytes: &[u8]) -> Result<(), Errno> {
    loop {
        // SAFETY: the buffer is valid for its length; the descriptor is only a number here.
        let sent = unsafe {
            libc::send(
                socket.as_raw_fd(),
                bytes.as_ptr().cast(),
                bytes.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        match sent {
            n if n == bytes.len() as isize => return Ok(()),
            n if n >= 0 => return Err(Errno::EPROTO),
            _ if Errno::last() == Errno::EINTR => continue,
            _ => return Err(Errno::last()),
        }
    }
}

/// A connected pair of sequenced-packet sockets (one request or answer per read), close-on-exec.
fn seqpacket_pair() -> Result<(OwnedFd, OwnedFd), Errno> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair writes two descriptors into the array we own; checked below.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(Errno::last());
    }
    // SAFETY: both descriptors are fresh and ours alone.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Whether `socket` has something to read (or was closed) within `wait` (None: no limit). A
/// signal that interrupts the wait does not end it: it goes on for the time left.
fn readable(socket: &OwnedFd, wait: Option<Duration>) -> Result<bool, Errno> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let until = wait.map(|wait| Instant::now() + wait);
    loop {
        let timeout = match until {
            None => PollTimeout::NONE,
            Some(until) => {
                let left = until.saturating_duration_since(Instant::now());
                PollTimeout::try_from(left.as_millis().min(i32::MAX as u128) as i32)
                    .unwrap_or(PollTimeout::MAX)
            }
        };
        let mut fds = [PollFd::new(socket.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(n) => return Ok(n > 0),
            Err(Errno::EINTR) => continue,
            Err(errno) => return Err(errno),
        }
    }
}

// ----- the watching process -------------------------------------------------------------------

/// A held job, as the watcher keeps it.
struct Held {
    id: u64,
    group: Pid,
    deadline: Option<Instant>,
    /// Every thread of the job's live processes when it was held.
    threads: Snapshot,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Held,
    /// Its deadline passed: SIGKILL at this time.
    Killed(Instant),
    /// It ran without `fg`: SIGKILL at this time.
    Ran(Instant),
}

impl Held {
    /// Whether there is still something to do for it.
    fn watching(&self) -> bool {
        self.state == State::Held
    }

    /// One look at the job; `members`: the live processes of every held group, from this
    /// tick's pass over /proc.
    fn check(&mut self, now: Instant, members: &Members) {
        match self.state {
            State::Held if self.deadline.is_some_and(|d| d <= now) => {
                let _ = killpg(self.group, Signal::SIGKILL);
                self.state = State::Killed(now);
            }
            State::Held if self.ran(members) => {
                let _ = killpg(self.group, Signal::SIGKILL);
                self.state = State::Ran(now);
            }
            _ => {}
        }
    }

    /// Whether any of it ran since it was held: its group is not what it was then (a process
    /// or thread came or went, a thread is not stopped or was scheduled since). What cannot
    /// be read counts as having run: the watch cannot tell that it did not.
    fn ran(&self, members: &Members) -> bool {
        let Ok(members) = members else {
            return true;
        };
        let processes = members
            .get(&self.group.as_raw())
            .map_or(&[][..], Vec::as_slice);
        threads_of(processes).map_or(true, |now| now != self.threads)
    }

    fn answer(&self) -> (u8, u64) {
        match self.state {
            State::Held => (STOPPED, 0),
            State::Killed(at) => (TIMED_OUT, millis_since(at)),
            State::Ran(at) => (RAN, millis_since(at)),
        }
    }
}

fn millis_since(at: Instant) -> u64 {
    at.elapsed().as_millis().min(u64::MAX as u128) as u64
}

/// Looks at every held job once, with one pass over /proc for all of them.
fn look_at(held: &mut [Held], now: Instant) {
    let groups: BTreeSet<i32> = held
        .iter()
        .filter(|job| job.state == State::Held)
        .map(|job| job.group.as_raw())
        .collect();
    let members = if groups.is_empty() {
        Ok(BTreeMap::new())
    } else {
        members(&groups)
    };
    for job in held {
        job.check(now, &members);
    }
}

/// The watching process: answers the shell and looks at the held jobs, until the shell's end
/// of the socket closes. A panic ends it too, caught here (it must not unwind into the
/// shell's code, of which the watcher is a copy). Either way, nothing it still holds may go
/// on without it.
fn serve(socket: OwnedFd, filter: &Filter) -> ! {
    let mut held: Vec<Held> = Vec::new();
    let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        become_watcher(&socket, filter);
        watch(&socket, &mut held);
    }));
    for job in &held {
        if job.watching() {
            let _ = killpg(job.group, Signal::SIGKILL);
        }
    }
    super::exit_child(i32::from(served.is_err()))
}

/// Answers the shell and looks at the held jobs each `TICK`, until the shell's end closes.
fn watch(socket: &OwnedFd, held: &mut Vec<Held>) {
    loop {
        let wait = held.iter().any(Held::watching).then_some(TICK);
        match readable(socket, wait) {
            Ok(true) => {
                if !serve_one(socket, held) {
                    return;
                }
            }
            Ok(false) => {}
            Err(_) => return,
        }
        look_at(held, Instant::now());
    }
}

/// Reads and answers one request; false when the shell's end is closed.
fn serve_one(socket: &OwnedFd, held: &mut Vec<Held>) -> bool {
    let mut bytes = [0u8; Request::LEN];
    match nix::unistd::read(socket, &mut bytes) {
        Ok(Request::LEN) => {}
        Ok(_) => return false,
        Err(Errno::EINTR | Errno::EAGAIN) => return true,
        Err(_) => return false,
    }
    let request = Request::decode(&bytes);
    let (what, value) = match request.kind {
        HOLD => {
            let deadline = (request.millis != u64::MAX)
                .then(|| Instant::now() + Duration::from_millis(request.millis));
            match hold(request.id, Pid::from_raw(request.group), deadline, held) {
                Ok(job) => {
                    held.push(job);
                    (STOPPED, 0)
                }
                Err(code) => (code, 0),
            }
        }
        FATE => held
            .iter()
            .find(|job| job.id == request.id)
            .map_or((UNKNOWN, 0), Held::answer),
        RELEASE => match held.iter().position(|job| job.id == request.id) {
            Some(i) => held.remove(i).answer(),
            None => (UNKNOWN, 0),
        },
        _ => (UNKNOWN, 0),
    };
    let answer = Answer {
        number: request.number,
        what,
        value,
    };
    send(socket, &answer.encode()).is_ok()
}

/// Takes in a stopped job once all of it is seen stopped (the others are looked at meanwhile).
fn hold(id: u64, group: Pid, deadline: Option<Instant>, others: &mut [Held]) -> Result<Held, u8> {
    let until = Instant::now() + SETTLE;
    loop {
        if let Some(threads) = settled(group)? {
            return Ok(Held {
                id,
                group,
                deadline,
                threads,
                state: State::Held,
            });
        }
        if Instant::now() >= until {
            return Err(NOT_STOPPED);
        }
        std::thread::sleep(Duration::from_millis(10));
        look_at(others, Instant::now());
    }
}

/// Every thread of the group once all of it is stopped, seen so twice alike (a process or
/// thread being created as the first look was taken shows in the second); None while some of
/// it runs. Err when nothing of it is alive, or something of it cannot be read.
fn settled(group: Pid) -> Result<Option<Snapshot>, u8> {
    let first = snapshot(group).map_err(|_| UNREADABLE)?;
    if first.is_empty() {
        return Err(UNREADABLE);
    }
    if !first.values().all(Thread::stopped) {
        return Ok(None);
    }
    let second = snapshot(group).map_err(|_| UNREADABLE)?;
    Ok((second == first).then_some(second))
}

/// The watcher's own set-up: a group of its own (no terminal signal reaches it), no signal
/// handler of the shell's, no descriptor but its socket, and then no system call but those it
/// needs (`WATCHER_CALLS`): it reads /proc files that the programs it watches write into (their
/// names), as the user who runs rsh, root included.
fn become_watcher(socket: &OwnedFd, filter: &Filter) {
    let _ = nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0));
    // Asked to end by anyone but the shell (whose socket closing ends it), it goes on.
    for sig in [
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGTERM,
        libc::SIGTSTP,
        libc::SIGTTIN,
        libc::SIGTTOU,
        libc::SIGPIPE,
        libc::SIGALRM,
        libc::SIGWINCH,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ] {
        // SAFETY: setting a disposition to ignore has no memory effects.
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
    // SAFETY: as above (the line editor may have a handler there).
    unsafe { libc::signal(libc::SIGCHLD, libc::SIG_DFL) };
    let _ = nix::sys::signal::SigSet::empty().thread_set_mask();
    let keep = socket.as_raw_fd() as libc::c_uint;
    // SAFETY: close_range with integer arguments; the only descriptor kept is the socket, and
    // nothing in this process holds another.
    unsafe {
        if keep > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, keep - 1, 0u32);
        }
        libc::syscall(libc::SYS_close_range, keep + 1, u32::MAX, 0u32);
    }
    // Without a filter (a kernel without seccomp), the watch still works: the filter only
    // narrows what could be made of the watcher.
    if seccomp::set_no_new_privs().is_ok() {
        let _ = filter.install();
    }
}

/// The system calls the watcher makes once set up: reading /proc (`std::fs`), its socket,
/// signals to the groups it holds, sleeping, the clock, memory, and its end.
const WATCHER_CALLS: &[libc::c_long] = &[
    libc::SYS_read,
    libc::SYS_close,
    libc::SYS_openat,
    libc::SYS_getdents64,
    libc::SYS_statx,
    libc::SYS_newfstatat,
    libc::SYS_fstat,
    libc::SYS_poll,
    libc::SYS_ppoll,
    libc::SYS_sendto,
    libc::SYS_kill,
    libc::SYS_clock_gettime,
    libc::SYS_clock_nanosleep,
    libc::SYS_nanosleep,
    libc::SYS_mmap,
    libc::SYS_munmap,
    libc::SYS_mremap,
    libc::SYS_mprotect,
    libc::SYS_madvise,
    libc::SYS_brk,
    libc::SYS_futex,
    libc::SYS_sched_yield,
    libc::SYS_rt_sigreturn,
    // A wait interrupted by a stop (SIGSTOP, a debugger) goes on through it once continued.
    libc::SYS_restart_syscall,
    libc::SYS_exit,
    libc::SYS_exit_group,
];

/// Every thread of a group's live processes, (process, thread), as the watcher saw it.
type Snapshot = BTreeMap<(i32, i32), Thread>;

/// The live processes of each group looked for, from one pass over /proc (Err: /proc, or a
/// process in it, could not be read).
type Members = std::io::Result<BTreeMap<i32, Vec<i32>>>;

/// The processes whose process group is one of `groups`. A process that cannot be read or
/// parsed is an error, not a process left out: only one that has gone meanwhile is.
fn members(groups: &BTreeSet<i32>) -> Members {
    let mut found: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    let pids = procfs::numbered("/proc")?.ok_or(std::io::ErrorKind::NotFound)?;
    for pid in pids {
        let Some(stat) = procfs::read_stat(&format!("/proc/{pid}/stat"))? else {
            continue;
        };
        if groups.contains(&stat.group) {
            found.entry(stat.group).or_default().push(pid);
        }
    }
    Ok(found)
}

/// The threads of one group, as they are now.
fn snapshot(group: Pid) -> std::io::Result<Snapshot> {
    let members = members(&BTreeSet::from([group.as_raw()]))?;
    threads_of(members.get(&group.as_raw()).map_or(&[][..], Vec::as_slice))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Thread {
    /// The state letter of its /proc status.
    state: u8,
    /// Its context switches, voluntary and not: they move whenever it is scheduled.
    switches: u64,
}

impl Thread {
    /// Not running: `T` (a stop signal), `t` (tracing), or dead (`Z`, `X`).
    fn stopped(&self) -> bool {
        matches!(self.state, b'T' | b't') || self.dead()
    }

    fn dead(&self) -> bool {
        matches!(self.state, b'Z' | b'X' | b'x')
    }
}

/// Every thread of `processes`, with its state and context switches. A process that has gone,
/// or is only a zombie (every thread of it dead: nothing of it can run again, and its parent
/// may reap it at any time), is left out.
fn threads_of(processes: &[i32]) -> std::io::Result<Snapshot> {
    let mut all = Snapshot::new();
    for &pid in processes {
        let Some(threads) = threads_of_one(pid)? else {
            continue;
        };
        if threads.values().all(Thread::dead) {
            continue;
        }
        all.extend(
            threads
                .into_iter()
                .map(|(tid, thread)| ((pid, tid), thread)),
        );
    }
    Ok(all)
}

/// The threads of one process; None when it has gone.
fn threads_of_one(pid: i32) -> std::io::Result<Option<BTreeMap<i32, Thread>>> {
    let Some(tids) = procfs::numbered(&format!("/proc/{pid}/task"))? else {
        return Ok(None);
    };
    let mut threads = BTreeMap::new();
    for tid in tids {
        // A thread that ended meanwhile is simply not there.
        if let Some(status) = procfs::read(&format!("/proc/{pid}/task/{tid}/status"))? {
            let thread = parse_status(&status).ok_or(std::io::ErrorKind::InvalidData)?;
            threads.insert(tid, thread);
        }
    }
    Ok(Some(threads))
}

/// A thread's state and context switches from its /proc status. The first line is the name
/// the thread gave itself, which is not read at all.
fn parse_status(text: &[u8]) -> Option<Thread> {
    let mut state = None;
    let mut switches = 0u64;
    let mut counts = 0;
    for line in text.split(|&b| b == b'\n').skip(1) {
        if let Some(value) = line.strip_prefix(b"State:") {
            let letter = *value.trim_ascii_start().first()?;
            if state.replace(letter).is_some() {
                return None;
            }
        } else if let Some(value) = line
            .strip_prefix(b"voluntary_ctxt_switches:")
            .or_else(|| line.strip_prefix(b"nonvoluntary_ctxt_switches:"))
        {
            let value: u64 = std::str::from_utf8(value.trim_ascii()).ok()?.parse().ok()?;
            switches = switches.checked_add(value)?;
            counts += 1;
        }
    }
    (counts == 2).then_some(Thread {
        state: state?,
        switches,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_state_and_switches_whatever_the_name() {
        let status = b"Name:\t\xff\xfe\nState:\tT (stopped)\nTgid:\t7\n\
                      voluntary_ctxt_switches:\t3\nnonvoluntary_ctxt_switches:\t4\n";
        let thread = parse_status(status).unwrap();
        assert_eq!(thread.switches, 7);
        assert!(thread.stopped() && !thread.dead());
        let running = String::from_utf8_lossy(status).replace("T (stopped)", "S (sleeping)");
        assert!(!parse_status(running.as_bytes()).unwrap().stopped());
        assert_eq!(parse_status(b"Name:\tx\nState:\tT (stopped)\n"), None);
        // Only one state per thread.
        let twice = b"Name:\tx\nState:\tT\nState:\tR\n\
                      voluntary_ctxt_switches:\t3\nnonvoluntary_ctxt_switches:\t4\n";
        assert_eq!(parse_status(twice), None);
    }

    #[test]
    fn this_process_is_found_in_its_group() {
        let group = nix::unistd::getpgrp().as_raw();
        let members = members(&BTreeSet::from([group])).unwrap();
        let own = std::process::id() as i32;
        assert!(members[&group].contains(&own), "{members:?}");
        let threads = threads_of(&[own]).unwrap();
        assert!(threads.values().any(|t| !t.stopped()), "{threads:?}");
    }

    /// A child that joins `group` (0: a new one of its own) and stops itself, stopped.
    fn stopped_child(group: i32) -> i32 {
        // SAFETY: the child makes only async-signal-safe calls and never returns.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: as above.
            unsafe {
                libc::setpgid(0, group);
                libc::raise(libc::SIGSTOP);
                loop {
                    libc::pause();
                }
            }
        }
        assert!(pid > 0);
        wait_for_state(pid, b'T');
        pid
    }

    fn wait_for_state(pid: i32, state: u8) {
        let until = Instant::now() + Duration::from_secs(10);
        while procfs::read_stat(&format!("/proc/{pid}/stat"))
            .ok()
            .flatten()
            .map(|s| s.state)
            != Some(state)
        {
            assert!(
                Instant::now() < until,
                "{pid} never in state {}",
                state as char
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn end_group(group: i32, pids: &[i32]) {
        // SAFETY: signals to processes this test started; then they are reaped.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        for &pid in pids {
            let _ = nix::sys::wait::waitpid(Pid::from_raw(pid), None);
        }
    }

    /// A process that comes into a held group (created by a fork under way when the job was
    /// held, or moved into it) is caught, though nothing held ran.
    #[test]
    fn a_process_that_joins_a_held_group_counts_as_running() {
        let leader = stopped_child(0);
        let mut job = hold(1, Pid::from_raw(leader), None, &mut []).expect("held");
        look_at(std::slice::from_mut(&mut job), Instant::now());
        assert_eq!(job.state, State::Held);
        let newcomer = stopped_child(leader);
        look_at(std::slice::from_mut(&mut job), Instant::now());
        assert!(matches!(job.state, State::Ran(_)), "{:?}", job.state);
        end_group(leader, &[leader, newcomer]);
    }

    /// A zombie of the group (its parent, outside the job, reaps it whenever it likes) is no
    /// part of what is held: reaped, it does not make the job count as having run.
    #[test]
    fn a_zombie_reaped_later_does_not_count_as_running() {
        let leader = stopped_child(0);
        // SAFETY: the child only leaves.
        let zombie = unsafe { libc::fork() };
        if zombie == 0 {
            // SAFETY: as above.
            unsafe {
                libc::setpgid(0, leader);
                libc::_exit(0);
            }
        }
        // SAFETY: setpgid with integer arguments, for the child started above (whichever of
        // the two calls comes first).
        unsafe { libc::setpgid(zombie, leader) };
        wait_for_state(zombie, b'Z');
        let mut job = hold(1, Pid::from_raw(leader), None, &mut []).expect("held");
        let _ = nix::sys::wait::waitpid(Pid::from_raw(zombie), None);
        look_at(std::slice::from_mut(&mut job), Instant::now());
        assert_eq!(job.state, State::Held);
        end_group(leader, &[leader]);
    }

    /// A process whose name is not UTF-8 is seen like any other.
    #[test]
    fn a_process_named_in_any_bytes_is_held() {
        let leader = stopped_child(0);
        let named = {
            // SAFETY: the child makes only async-signal-safe calls and never returns.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                // SAFETY: as above; the name is a static C string.
                unsafe {
                    libc::setpgid(0, leader);
                    libc::prctl(libc::PR_SET_NAME, c"\xff\xfe(".as_ptr());
                    libc::raise(libc::SIGSTOP);
                    libc::_exit(0);
                }
            }
            wait_for_state(pid, b'T');
            pid
        };
        let job = hold(1, Pid::from_raw(leader), None, &mut []).expect("held");
        let processes: BTreeSet<i32> = job.threads.keys().map(|&(pid, _)| pid).collect();
        assert_eq!(processes, BTreeSet::from([leader, named]));
        end_group(leader, &[leader, named]);
    }

    /// A signal handled while the shell waits for an answer (SIGHUP) does not end the wait
    /// as if the watch had not answered.
    #[test]
    fn a_signal_does_not_cut_the_wait_for_an_answer_short() {
        extern "C" fn nothing(_: libc::c_int) {}
        // SAFETY: a handler that does nothing.
        unsafe { libc::signal(libc::SIGUSR2, nothing as *const () as libc::sighandler_t) };
        let (ours, theirs) = seqpacket_pair().unwrap();
        // SAFETY: pthread_self has no preconditions.
        let waiting = unsafe { libc::pthread_self() };
        let other = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            // SAFETY: a signal to the test's thread, which lives until this one is joined.
            unsafe { libc::pthread_kill(waiting, libc::SIGUSR2) };
            std::thread::sleep(Duration::from_millis(200));
            send(&theirs, b"answer").unwrap();
        });
        let started = Instant::now();
        assert!(readable(&ours, Some(Duration::from_secs(5))).unwrap());
        assert!(started.elapsed() >= Duration::from_millis(250));
        other.join().unwrap();
    }

    /// An answer to another request (one that came too late for it) is not taken for the
    /// answer: the watcher is ended, killed and collected, and nothing is asked of it again.
    #[test]
    fn an_answer_out_of_turn_ends_the_watcher() {
        let (ours, theirs) = seqpacket_pair().unwrap();
        // SAFETY: the child only waits to be killed.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            loop {
                // SAFETY: as above.
                unsafe { libc::pause() };
            }
        }
        let mut watcher = Watcher {
            socket: Some(ours),
            pid: Pid::from_raw(pid),
            parent: nix::unistd::getpid(),
            next_hold: 1,
            next_request: 7,
        };
        let late = Answer {
            number: 6,
            what: STOPPED,
            value: 0,
        };
        send(&theirs, &late.encode()).unwrap();
        assert_eq!(watcher.fate(HoldId(1)), Err(Errno::EPROTO));
        use nix::sys::wait::{WaitPidFlag, waitpid};
        assert_eq!(
            waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)),
            Err(Errno::ECHILD)
        );
        assert_eq!(watcher.fate(HoldId(1)), Err(Errno::EBADF));
    }
}
