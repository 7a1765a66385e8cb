//! The filter process: standard output and standard error of the whole session (rsh, and
//! every program it starts, which inherit them) go through pipes to a process of rsh's own
//! that filters them and writes them where they went before.

use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::unistd::Pid;

use super::{Filter, Rules};
use crate::policy::OutputConfig;
use crate::spawn::{self, Fork, fd};

/// How long output may pause before an incomplete line is shown.
const PAUSE: Duration = Duration::from_millis(50);
/// The size asked of the filter's pipes.
const PIPE_SIZE: libc::c_int = 1 << 20;
/// The most the filter reads at once. A block is looked at and written while it is still in
/// the processor's cache: with reads of 1 MiB the filter took half as long again.
const BLOCK: usize = 128 * 1024;

/// How long the end of the session waits for the filter to write what it has.
const DRAIN: Duration = Duration::from_secs(5);

/// The running filter; `finish` at the end of the session.
pub struct Interposed {
    pid: Pid,
}

/// Puts the filter between the session and its standard output and error, for each of them
/// that is not a terminal (unless `[output] terminals`). None when `[output]` asks for
/// nothing, or neither stream is filtered.
pub fn interpose(config: &OutputConfig) -> Result<Option<Interposed>, String> {
    let Some(rules) = Rules::new(config) else {
        return Ok(None);
    };
    let filtered: Vec<RawFd> = [1, 2]
        .into_iter()
        .filter(|&n| fd::is_open(n) && (config.terminals || !is_terminal(n)))
        .collect();
    if filtered.is_empty() {
        return Ok(None);
    }
    // Output and errors that go to the same place (`2>&1`) share one pipe, so that they stay
    // in the order they were written.
    let shared = filtered == [1, 2] && same_file(1, 2);
    let streams: &[RawFd] = if shared { &[1] } else { &filtered };
    let mut pipes = Vec::new();
    for &n in streams {
        let (read, write) = spawn::pipe().map_err(|e| format!("output filter: {}", e.desc()))?;
        // Fewer, larger reads and writes: the filter costs less per byte. (The size is a
        // wish; the system's pipe-max-size bounds it.)
        let _ = nix::fcntl::fcntl(&write, nix::fcntl::FcntlArg::F_SETPIPE_SZ(PIPE_SIZE));
        pipes.push((n, read, write));
    }
    match spawn::fork_shell().map_err(|e| format!("output filter: {}", e.desc()))? {
        Fork::Child => {
            let streams: Vec<(RawFd, OwnedFd)> = pipes
                .into_iter()
                .map(|(n, read, _write)| (n, read))
                .collect();
            run(&rules, streams);
        }
        Fork::Parent(pid) => {
            for (n, _read, write) in pipes {
                let targets: &[RawFd] = if shared { &[1, 2] } else { &[n] };
                for &target in targets {
                    fd::dup_to(write.as_raw_fd(), target)
                        .map_err(|e| format!("output filter: {}", e.desc()))?;
                }
            }
            Ok(Some(Interposed { pid }))
        }
    }
}

impl Interposed {
    /// The session is over: closes its ends and lets the filter write the rest.
    pub fn finish(self) {
        fd::close(1);
        fd::close(2);
        let deadline = Instant::now() + DRAIN;
        while Instant::now() < deadline {
            match spawn::try_wait(self.pid) {
                Ok(None) => std::thread::sleep(Duration::from_millis(2)),
                _ => return,
            }
        }
    }
}

/// Whether two descriptors lead to the same file or pipe.
fn same_file(a: RawFd, b: RawFd) -> bool {
    use nix::sys::stat::fstat;
    match (fstat(fd::borrow(a)), fstat(fd::borrow(b))) {
        (Ok(a), Ok(b)) => a.st_dev == b.st_dev && a.st_ino == b.st_ino,
        _ => false,
    }
}

fn is_terminal(n: RawFd) -> bool {
    nix::unistd::isatty(fd::borrow(n)).unwrap_or(false)
}

/// The filter's whole life: read, filter, write, until every stream has ended.
fn run(rules: &Rules, streams: Vec<(RawFd, OwnedFd)>) -> ! {
    // Only the session's end ends the filter: not a signal from the terminal, not a reader
    // that went away from one of the streams (that stream's writers get SIGPIPE instead).
    spawn::signals::ignore(&[
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGTSTP,
        libc::SIGHUP,
        libc::SIGPIPE,
        // Writing to the terminal from the background (`terminals = true` while a job holds
        // it) must not stop the filter.
        libc::SIGTTOU,
        libc::SIGTTIN,
    ]);
    let mut open: Vec<(RawFd, Option<OwnedFd>, Filter)> = streams
        .into_iter()
        .map(|(n, read)| (n, Some(read), Filter::new(rules)))
        .collect();
    let mut buf = vec![0u8; BLOCK];
    while open.iter().any(|(_, read, _)| read.is_some()) {
        let ready = wait_readable(&open);
        for (i, (n, read, filter)) in open.iter_mut().enumerate() {
            let Some(source) = read else { continue };
            let mut out = ToFd::new(*n);
            if ready.is_empty() {
                // Paused: what there is of the last line goes out.
                filter.flush(&mut out);
            } else if ready.contains(&i) {
                match nix::unistd::read(&*source, &mut buf) {
                    Ok(0) => {
                        filter.finish(&mut out);
                        *read = None;
                    }
                    Ok(got) => filter.feed(&buf[..got], &mut out),
                    Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => {}
                    Err(_) => {
                        filter.finish(&mut out);
                        *read = None;
                    }
                }
            }
            if !out.done() {
                // Nobody reads this stream any more.
                *read = None;
            }
        }
    }
    spawn::exit_child(0)
}

/// Output to a descriptor: small pieces gathered, large ones written as they are (a block of
/// lines without a secret goes from the read buffer to the descriptor uncopied).
struct ToFd {
    fd: RawFd,
    gathered: Vec<u8>,
    failed: bool,
}

impl ToFd {
    const DIRECT: usize = 16 * 1024;

    fn new(fd: RawFd) -> ToFd {
        ToFd {
            fd,
            gathered: Vec::new(),
            failed: false,
        }
    }

    fn write(&mut self, mut bytes: &[u8]) {
        while !self.failed && !bytes.is_empty() {
            match nix::unistd::write(fd::borrow(self.fd), bytes) {
                Ok(n) => bytes = &bytes[n..],
                Err(nix::errno::Errno::EINTR) => {}
                // Output the reader made non-blocking: wait until it takes more.
                Err(nix::errno::Errno::EAGAIN) => {
                    let mut fds = [PollFd::new(fd::borrow(self.fd), PollFlags::POLLOUT)];
                    let _ = poll(&mut fds, PollTimeout::NONE);
                }
                Err(_) => self.failed = true,
            }
        }
    }

    /// Writes what is gathered; false when the descriptor no longer takes output.
    fn done(mut self) -> bool {
        let gathered = std::mem::take(&mut self.gathered);
        if !gathered.is_empty() {
            self.write(&gathered);
        }
        !self.failed
    }
}

impl super::Output for ToFd {
    fn put(&mut self, bytes: &[u8]) {
        if bytes.len() < Self::DIRECT {
            self.gathered.extend_from_slice(bytes);
            return;
        }
        let gathered = std::mem::take(&mut self.gathered);
        if !gathered.is_empty() {
            self.write(&gathered);
        }
        self.write(bytes);
    }
}

/// Indexes of the open streams with something to read (or at their end), waiting up to
/// PAUSE; none when the output paused.
fn wait_readable(open: &[(RawFd, Option<OwnedFd>, Filter)]) -> Vec<usize> {
    let watched: Vec<(usize, &OwnedFd)> = open
        .iter()
        .enumerate()
        .filter_map(|(i, (_, read, _))| read.as_ref().map(|r| (i, r)))
        .collect();
    let mut fds: Vec<PollFd> = watched
        .iter()
        .map(|(_, r)| PollFd::new(r.as_fd(), PollFlags::POLLIN))
        .collect();
    let timeout = PollTimeout::try_from(PAUSE.as_millis() as i32).unwrap_or(PollTimeout::MAX);
    if poll(&mut fds, timeout).unwrap_or(0) <= 0 {
        return Vec::new();
    }
    fds.iter()
        .zip(&watched)
        .filter(|(p, _)| p.revents().is_some_and(|r| !r.is_empty()))
        .map(|(_, (i, _))| *i)
        .collect()
}
