//! The filter process: standard output and standard error of the whole session (rsh, and
//! every program it starts, which inherit them) go through pipes to a process of rsh's own
//! that filters them and writes them where they went before.

use std::os::fd::{AsFd, AsRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, SpliceFFlags};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::unistd::Pid;

use memchr::memrchr;

use super::{Filter, LINE_MAX, Rules};
use crate::policy::OutputConfig;
use crate::spawn::{self, Fork, fd};

/// How long output may pause before an incomplete line is shown.
const PAUSE: Duration = Duration::from_millis(50);
/// The size asked of the filter's pipes.
const PIPE_SIZE: libc::c_int = 1 << 20;
/// The most the filter reads at once: a block is scanned and written while it is still in
/// the processor's cache (reads of 1 MiB made the filter half again as slow).
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
    if !config.active() {
        return Ok(None);
    }
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
        let (read, write) =
            spawn::pipe().map_err(|e| format!("output filter: {}", crate::errno_text(e)))?;
        // Fewer, larger reads and writes: the filter costs less per byte. (The size is a
        // wish; the system's pipe-max-size bounds it.)
        let _ = nix::fcntl::fcntl(&write, FcntlArg::F_SETPIPE_SZ(PIPE_SIZE));
        pipes.push((n, read, write));
    }
    match spawn::fork_shell().map_err(|e| format!("output filter: {}", crate::errno_text(e)))? {
        Fork::Child => {
            let streams: Vec<(RawFd, OwnedFd)> = pipes
                .into_iter()
                .map(|(n, read, _write)| (n, read))
                .collect();
            // Compiled here, while the session goes on to its first command. (They compiled
            // when the policy was loaded; should they not, nothing is shown.)
            let Some(rules) = Rules::new(config) else {
                spawn::exit_child(1)
            };
            run(&rules, streams);
        }
        Fork::Parent(pid) => {
            for (n, _read, write) in pipes {
                let targets: &[RawFd] = if shared { &[1, 2] } else { &[n] };
                for &target in targets {
                    fd::dup_to(write.as_raw_fd(), target)
                        .map_err(|e| format!("output filter: {}", crate::errno_text(e)))?;
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
        // Usually done within a millisecond: looked at often at first, then every 2 ms.
        let deadline = Instant::now() + DRAIN;
        let mut step = Duration::from_micros(50);
        while Instant::now() < deadline {
            match spawn::try_wait(self.pid) {
                Ok(None) => std::thread::sleep(step),
                _ => return,
            }
            step = (step * 2).min(Duration::from_millis(2));
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
    let mut streams: Vec<Stream> = streams
        .into_iter()
        .map(|(target, source)| Stream::new(rules, target, source))
        .collect();
    // A block, after the start of a line that has not ended yet.
    let mut buf = vec![0u8; BLOCK + LINE_MAX];
    while streams.iter().any(|s| s.source.is_some()) {
        let ready = wait_readable(&streams);
        for (i, stream) in streams.iter_mut().enumerate() {
            if ready.is_empty() {
                stream.pause(&mut buf);
            } else if ready.contains(&i) {
                stream.take(&mut buf);
            }
        }
    }
    spawn::exit_child(0)
}

/// One filtered stream.
struct Stream<'r> {
    /// Where its output goes: 1 or 2.
    target: RawFd,
    /// The read end of its pipe; None once it has ended.
    source: Option<OwnedFd>,
    /// When the output is a pipe: what the filter lets through as it came goes there
    /// uncopied. Otherwise the filter reads from the source and writes what it shows.
    pipes: Option<Pipes>,
    /// With `pipes`, bytes at the start of `hold` that were looked at and left there: the
    /// start of a line not ended yet, which goes out with the rest of its line.
    held: usize,
    filter: Filter<'r>,
}

/// What one take from the source gave.
enum Taken {
    /// This many bytes at the start of the buffer, which are also in `hold`.
    Held(usize),
    /// This many bytes at the start of the buffer, and nowhere else.
    Read(usize),
    /// The source ended.
    End,
}

impl<'r> Stream<'r> {
    fn new(rules: &'r Rules, target: RawFd, source: OwnedFd) -> Stream<'r> {
        Stream {
            target,
            source: Some(source),
            pipes: Pipes::new(target),
            held: 0,
            filter: Filter::new(rules),
        }
    }

    /// Takes what there is to read (up to a block), or the stream's end.
    fn take(&mut self, buf: &mut [u8]) {
        let Some(source) = &self.source else { return };
        let taken = match &self.pipes {
            Some(pipes) => pipes.take(source, self.held, buf),
            None => nix::unistd::read(source, &mut buf[..BLOCK]).map(|got| {
                if got == 0 {
                    Taken::End
                } else {
                    Taken::Read(got)
                }
            }),
        };
        let mut out = ToFd::new(self.target);
        let ended = match taken {
            Ok(Taken::Held(got)) => {
                // Whole lines are looked at; the start of the last one waits in `hold`
                // for its end, unless it is already LINE_MAX long.
                let rest = memrchr(b'\n', &buf[..got]).map_or(0, |i| i + 1);
                let lines = if got - rest < LINE_MAX { rest } else { got };
                let hold = &self.pipes.as_ref().expect("held").hold.0;
                out.splice_from(hold.as_raw_fd());
                self.filter.feed(&buf[..lines], &mut out);
                out.drop_to(lines);
                self.held = got - lines;
                false
            }
            Ok(Taken::Read(got)) => {
                self.held = 0;
                self.filter.feed(&buf[..got], &mut out);
                false
            }
            Err(Errno::EAGAIN) => {
                // `hold` is full: the filter takes the bytes held there, and the block comes
                // next time.
                self.let_go(buf, &mut out);
                false
            }
            Err(Errno::EINTR) => false,
            Ok(Taken::End) | Err(_) => true,
        };
        if ended {
            self.let_go(buf, &mut out);
            self.filter.finish(&mut out);
        }
        self.done(out, ended);
    }

    /// The output paused: what there is of the last line goes out.
    fn pause(&mut self, buf: &mut [u8]) {
        if self.source.is_none() {
            return;
        }
        let mut out = ToFd::new(self.target);
        self.let_go(buf, &mut out);
        self.filter.flush(&mut out);
        self.done(out, false);
    }

    /// The filter takes the bytes held back.
    fn let_go(&mut self, buf: &mut [u8], out: &mut ToFd) {
        let Some(pipes) = &self.pipes else { return };
        let held = std::mem::take(&mut self.held);
        if held > 0 && read_exactly(&pipes.hold.0, &mut buf[..held]).is_ok() {
            self.filter.feed(&buf[..held], out);
        }
    }

    /// Writes what `out` gathered; the stream is over when it `ended` or nobody reads its
    /// output any more.
    fn done(&mut self, out: ToFd, ended: bool) {
        let refused = out.splice_refused();
        if !out.done() || ended {
            self.source = None;
        }
        if refused {
            // The output takes no splices after all: the filter takes the bytes held, and
            // reads and writes the rest of the stream.
            let mut out = ToFd::new(self.target);
            let mut buf = vec![0u8; self.held];
            self.let_go(&mut buf, &mut out);
            self.pipes = None;
            let _ = out.done();
        }
    }
}

/// Pipes of the filter's own, each as (read end, write end). A block is moved from the
/// source into `hold` with `splice` (its pages change hands: nothing is copied, and the
/// writers' pipe, which they keep locked while they write, is taken from once a block);
/// copied into `copy` with `tee`, which shares the pages, and read from there to be looked
/// at. What goes out as it came is then moved from `hold` to the output; the rest is read
/// from `hold` and dropped.
struct Pipes {
    hold: (OwnedFd, OwnedFd),
    copy: (OwnedFd, OwnedFd),
}

impl Pipes {
    /// Pipes for output to `target`, if it is a pipe and they can hold what the buffer does.
    fn new(target: RawFd) -> Option<Pipes> {
        if !is_pipe(target) {
            return None;
        }
        let sized = |(read, write): (OwnedFd, OwnedFd)| {
            let size = 2 * BLOCK as libc::c_int;
            let got = nix::fcntl::fcntl(&write, FcntlArg::F_SETPIPE_SZ(size));
            got.is_ok_and(|got| got >= size).then_some((read, write))
        };
        Some(Pipes {
            hold: spawn::pipe().ok().and_then(sized)?,
            copy: spawn::pipe().ok().and_then(sized)?,
        })
    }

    /// Moves up to a block from `source` into `hold`, after the `held` bytes there, and
    /// copies all of it into `buf`.
    ///
    /// EAGAIN, with nothing moved, when `hold` has no room: its slots are taken by the held
    /// bytes, which came a few at a time.
    fn take(&self, source: &OwnedFd, held: usize, buf: &mut [u8]) -> Result<Taken, Errno> {
        let nonblocking = SpliceFFlags::SPLICE_F_NONBLOCK;
        let got = nix::fcntl::splice(source, None, &self.hold.1, None, BLOCK, nonblocking)?;
        if got == 0 {
            return Ok(Taken::End);
        }
        let all = held + got;
        // The bytes are in `hold` now: should they not come out, the stream is over.
        let copied = nix::fcntl::tee(&self.hold.0, &self.copy.1, all, SpliceFFlags::empty())
            .map_err(|_| Errno::EIO)?;
        read_exactly(&self.copy.0, &mut buf[..copied])?;
        if copied < all {
            // Not all of it fitted in `copy`: it is read from `hold` instead.
            read_exactly(&self.hold.0, &mut buf[..all])?;
            return Ok(Taken::Read(all));
        }
        Ok(Taken::Held(all))
    }
}

/// Reads `buf.len()` bytes, which are there, from `pipe`.
fn read_exactly(pipe: &OwnedFd, buf: &mut [u8]) -> Result<(), Errno> {
    let mut at = 0;
    while at < buf.len() {
        match nix::unistd::read(pipe, &mut buf[at..]) {
            Ok(0) => return Err(Errno::EIO),
            Ok(n) => at += n,
            Err(Errno::EINTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Whether `n` is a pipe.
fn is_pipe(n: RawFd) -> bool {
    use nix::sys::stat::{SFlag, fstat};
    fstat(fd::borrow(n))
        .is_ok_and(|s| SFlag::from_bits_truncate(s.st_mode) & SFlag::S_IFMT == SFlag::S_IFIFO)
}

/// Output to a descriptor: small pieces gathered, large ones written as they are (a block of
/// lines without a secret goes from the read buffer to the descriptor uncopied), or, with a
/// source to splice from, moved from there.
struct ToFd {
    fd: RawFd,
    gathered: Vec<u8>,
    failed: bool,
    splice: Option<Splice>,
}

/// The source of the block being filtered, where it was only peeked at.
struct Splice {
    source: RawFd,
    /// Bytes of the block taken from the source so far, passed or dropped.
    taken: usize,
    /// The output does not take splices: what is passed is written.
    refused: bool,
}

impl ToFd {
    /// Pieces shorter than this are gathered (and passed ones copied).
    const DIRECT: usize = 16 * 1024;

    fn new(fd: RawFd) -> ToFd {
        ToFd {
            fd,
            gathered: Vec::new(),
            failed: false,
            splice: None,
        }
    }

    /// Passed bytes are to be moved from `source`, where the block fed was peeked at.
    fn splice_from(&mut self, source: RawFd) {
        self.splice = Some(Splice {
            source,
            taken: 0,
            refused: false,
        });
    }

    fn splice_refused(&self) -> bool {
        self.splice.as_ref().is_some_and(|s| s.refused)
    }

    /// Takes the block's bytes up to `at` from the source, dropping those not passed.
    fn drop_to(&mut self, at: usize) {
        let Some(splice) = &mut self.splice else {
            return;
        };
        let mut dropped = [0u8; 16 * 1024];
        while splice.taken < at {
            let want = (at - splice.taken).min(dropped.len());
            match nix::unistd::read(fd::borrow(splice.source), &mut dropped[..want]) {
                Ok(0) => break,
                Ok(n) => splice.taken += n,
                Err(Errno::EINTR) => {}
                Err(_) => break,
            }
        }
    }

    /// Moves the next `len` bytes of the source to the output; false when the output does
    /// not take them that way (nothing was moved).
    fn move_out(&mut self, len: usize) -> bool {
        let Some(splice) = &mut self.splice else {
            return false;
        };
        let mut left = len;
        while !self.failed && left > 0 {
            let out = fd::borrow(self.fd);
            let source = fd::borrow(splice.source);
            match nix::fcntl::splice(source, None, out, None, left, SpliceFFlags::empty()) {
                Ok(0) => self.failed = true,
                Ok(n) => {
                    left -= n;
                    splice.taken += n;
                }
                Err(Errno::EINTR) => {}
                Err(Errno::EAGAIN) => wait_writable(self.fd),
                Err(Errno::EINVAL) if left == len => {
                    splice.refused = true;
                    return false;
                }
                Err(_) => self.failed = true,
            }
        }
        true
    }

    fn write(&mut self, mut bytes: &[u8]) {
        while !self.failed && !bytes.is_empty() {
            match nix::unistd::write(fd::borrow(self.fd), bytes) {
                Ok(n) => bytes = &bytes[n..],
                Err(Errno::EINTR) => {}
                // Output the reader made non-blocking: wait until it takes more.
                Err(Errno::EAGAIN) => wait_writable(self.fd),
                Err(_) => self.failed = true,
            }
        }
    }

    fn write_gathered(&mut self) {
        let gathered = std::mem::take(&mut self.gathered);
        if !gathered.is_empty() {
            self.write(&gathered);
        }
    }

    /// Writes what is gathered; false when the descriptor no longer takes output.
    fn done(mut self) -> bool {
        self.write_gathered();
        !self.failed
    }
}

fn wait_writable(n: RawFd) {
    let mut fds = [PollFd::new(fd::borrow(n), PollFlags::POLLOUT)];
    let _ = poll(&mut fds, PollTimeout::NONE);
}

impl super::Output for ToFd {
    fn put(&mut self, bytes: &[u8]) {
        if bytes.len() < Self::DIRECT {
            self.gathered.extend_from_slice(bytes);
            return;
        }
        self.write_gathered();
        self.write(bytes);
    }

    fn pass(&mut self, at: usize, bytes: &[u8]) {
        if bytes.len() < Self::DIRECT || self.splice.as_ref().is_none_or(|s| s.refused) {
            return self.put(bytes);
        }
        self.write_gathered();
        self.drop_to(at);
        if !self.move_out(bytes.len()) {
            self.write(bytes);
        }
    }
}

/// Indexes of the open streams with something to read (or at their end), waiting up to
/// PAUSE; none when the output paused.
fn wait_readable(streams: &[Stream]) -> Vec<usize> {
    let watched: Vec<(usize, &OwnedFd)> = streams
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.source.as_ref().map(|r| (i, r)))
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
