//! Raw file-descriptor operations the shell does on itself: writing builtin output, moving
//! descriptors for redirections and pipes. Kept here so that `unsafe` stays in this module.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use nix::errno::Errno;

/// An I/O error as bash prints it ("No such file or directory", without Rust's suffix).
pub fn io_message(err: &std::io::Error) -> String {
    match err.raw_os_error() {
        Some(code) => crate::errno_text(Errno::from_raw(code)),
        None => err.to_string(),
    }
}

/// `file` moved to rsh's own range (`SHELL_FDS_FROM` and up), close-on-exec, where
/// redirections cannot name it.
pub fn to_shell_range(file: OwnedFd) -> Result<OwnedFd, Errno> {
    save(file.as_raw_fd(), crate::SHELL_FDS_FROM)?.ok_or(Errno::EBADF)
}

/// Writes all of `bytes` to `fd`, retrying on EINTR and short writes.
pub fn write_all(fd: RawFd, mut bytes: &[u8]) -> Result<(), Errno> {
    while !bytes.is_empty() {
        // SAFETY: the buffer is valid for its length; fd is only a number to the kernel.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            match Errno::last() {
                Errno::EINTR => continue,
                errno => return Err(errno),
            }
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Reads `fd` until end of file.
pub fn read_to_end(fd: &OwnedFd) -> Result<Vec<u8>, Errno> {
    let mut out = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        match nix::unistd::read(fd, &mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(Errno::EINTR) => continue,
            // A non-blocking descriptor with nothing more to read now.
            Err(Errno::EAGAIN) => return Ok(out),
            Err(errno) => return Err(errno),
        }
    }
}

/// Reads one byte from `fd` (for `read`, which must not consume past the newline).
pub fn read_byte(fd: RawFd) -> Result<Option<u8>, Errno> {
    let mut byte = 0u8;
    loop {
        // SAFETY: one byte of stack memory.
        let n = unsafe { libc::read(fd, (&mut byte as *mut u8).cast(), 1) };
        match n {
            1 => return Ok(Some(byte)),
            0 => return Ok(None),
            _ => match Errno::last() {
                Errno::EINTR => continue,
                errno => return Err(errno),
            },
        }
    }
}

/// Makes `target` a copy of `source` (dup2); the copy is not close-on-exec.
pub fn dup_to(source: RawFd, target: RawFd) -> Result<(), Errno> {
    if source == target {
        // dup2 would be a no-op that leaves close-on-exec set: clear it explicitly.
        return set_cloexec(target, false);
    }
    loop {
        // SAFETY: dup2 only manipulates the descriptor table.
        let r = unsafe { libc::dup2(source, target) };
        if r >= 0 {
            return Ok(());
        }
        match Errno::last() {
            Errno::EINTR | Errno::EBUSY => continue,
            errno => return Err(errno),
        }
    }
}

fn set_cloexec(fd: RawFd, on: bool) -> Result<(), Errno> {
    // SAFETY: fcntl on a descriptor number has no memory effects.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFD) };
    if flags < 0 {
        return Err(Errno::last());
    }
    let flags = if on {
        flags | libc::FD_CLOEXEC
    } else {
        flags & !libc::FD_CLOEXEC
    };
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, flags) } < 0 {
        return Err(Errno::last());
    }
    Ok(())
}

/// A close-on-exec copy of `fd` numbered at least `min`, to save a descriptor that a
/// redirection is about to replace. None when `fd` is not open.
pub fn save(fd: RawFd, min: RawFd) -> Result<Option<OwnedFd>, Errno> {
    // SAFETY: fcntl on a descriptor number has no memory effects.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, min) };
    if copy >= 0 {
        // SAFETY: the kernel just gave us this descriptor; nobody else owns it.
        return Ok(Some(unsafe { OwnedFd::from_raw_fd(copy) }));
    }
    match Errno::last() {
        Errno::EBADF => Ok(None),
        errno => Err(errno),
    }
}

/// Moves `file` to the highest free number from `highest` down to 10, not close-on-exec
/// (a process substitution's end, which the command inherits by number).
pub fn move_below(file: OwnedFd, highest: RawFd) -> Result<OwnedFd, Errno> {
    for number in (10..=highest).rev() {
        if is_open(number) {
            continue;
        }
        dup_to(file.as_raw_fd(), number)?;
        // SAFETY: the number was free and dup2 just made it a copy that only we hold.
        return Ok(unsafe { OwnedFd::from_raw_fd(number) });
    }
    Err(Errno::EMFILE)
}

/// Closes a descriptor number the shell does not own through an `OwnedFd` (redirection
/// targets such as `3>&-`).
pub fn close(fd: RawFd) {
    // SAFETY: closing a number; errors (EBADF) are irrelevant here.
    unsafe { libc::close(fd) };
}

/// Whether `fd` is open.
pub fn is_open(fd: RawFd) -> bool {
    // SAFETY: F_GETFD has no side effects.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

/// Whether `fd` is open for reading (or reading and writing).
pub fn is_readable(fd: RawFd) -> bool {
    // SAFETY: F_GETFL has no side effects.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags >= 0 && (flags & libc::O_ACCMODE) != libc::O_WRONLY
}

/// Whether `fd` is open for writing.
pub fn is_writable(fd: RawFd) -> bool {
    // SAFETY: F_GETFL has no side effects.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags >= 0 && (flags & libc::O_ACCMODE) != libc::O_RDONLY
}

/// Moves an owned descriptor onto `target` and gives up ownership of the original number.
pub fn install(file: OwnedFd, target: RawFd) -> Result<(), Errno> {
    if file.as_raw_fd() == target {
        let fd = file.as_raw_fd();
        std::mem::forget(file);
        return set_cloexec(fd, false);
    }
    dup_to(file.as_raw_fd(), target)
}

/// An anonymous in-memory file holding `data`, positioned at its start: here-documents and
/// here-strings of any size without temporary files.
pub fn memory_file(data: &[u8]) -> Result<OwnedFd, Errno> {
    use nix::sys::memfd::{MFdFlags, memfd_create};
    // MFD_NOEXEC_SEAL (Linux 6.3): the data can never be executed as a program. Older
    // kernels reject the flag; the file is then only close-on-exec.
    const MFD_NOEXEC_SEAL: libc::c_uint = 0x0008;
    let sealed = MFdFlags::MFD_CLOEXEC | MFdFlags::from_bits_retain(MFD_NOEXEC_SEAL);
    let fd = match memfd_create(c"rsh-heredoc", sealed) {
        Err(Errno::EINVAL) => memfd_create(c"rsh-heredoc", MFdFlags::MFD_CLOEXEC)?,
        other => other?,
    };
    write_all(fd.as_raw_fd(), data)?;
    nix::unistd::lseek(&fd, 0, nix::unistd::Whence::SeekSet)?;
    Ok(fd)
}

/// Borrows a descriptor number for APIs that want a `BorrowedFd` (poll, termios). The caller
/// uses it only while the descriptor is open; the kernel reports EBADF otherwise, which is safe.
pub fn borrow(fd: RawFd) -> std::os::fd::BorrowedFd<'static> {
    // SAFETY: a BorrowedFd is only a number handed to system calls here; an invalid number
    // yields EBADF from the kernel, never memory unsafety.
    unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) }
}

/// The file a descriptor refers to, as the kernel names it (`/proc/self/fd`); None for what
/// has no path (pipes, sockets, anonymous files).
pub fn path_of(fd: RawFd) -> Option<std::path::PathBuf> {
    let target = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    target.is_absolute().then_some(target)
}

/// Opens again, with `flags`, the file that `file` (an `O_PATH` descriptor, say) is, through
/// its `/proc/self/fd` entry: the same file on the same mount, whatever its name is by now.
pub fn reopen(file: &OwnedFd, flags: nix::fcntl::OFlag) -> Result<OwnedFd, Errno> {
    reopen_number(file.as_raw_fd(), flags)
}

/// `reopen` by the descriptor's number, for a thread that cannot borrow it.
fn reopen_number(fd: RawFd, flags: nix::fcntl::OFlag) -> Result<OwnedFd, Errno> {
    // The file is there: nothing to create.
    let flags = flags - nix::fcntl::OFlag::O_CREAT;
    let name = format!("/proc/self/fd/{fd}");
    nix::fcntl::open(name.as_str(), flags, nix::sys::stat::Mode::empty())
}

/// Creates a file with `open` and `flags` without waiting: should a FIFO have taken the
/// name meanwhile, its open does not wait for the other end (and fails when writing to no
/// reader). The descriptor is blocking again afterwards, as `flags` asked.
pub fn create(
    open: impl Fn(nix::fcntl::OFlag) -> Result<OwnedFd, Errno>,
    flags: nix::fcntl::OFlag,
) -> Result<OwnedFd, Errno> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let file = open(flags | OFlag::O_NONBLOCK)?;
    if !flags.contains(OFlag::O_NONBLOCK) {
        let now = OFlag::from_bits_truncate(fcntl(&file, FcntlArg::F_GETFL)?);
        fcntl(&file, FcntlArg::F_SETFL(now - OFlag::O_NONBLOCK))?;
    }
    Ok(file)
}

/// Connects a unix stream socket to `path` without waiting: where the listener's queue of
/// connections is full (a daemon that stopped accepting), the connect fails with EAGAIN at
/// once instead of holding rsh. The socket is blocking once connected.
pub fn connect_stream_now(
    path: &std::path::Path,
) -> std::io::Result<std::os::unix::net::UnixStream> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    // SAFETY: sockaddr_un is plain data; all zeroes is a valid value.
    let mut address: libc::sockaddr_un = unsafe { std::mem::zeroed() };
    if bytes.len() >= address.sun_path.len() {
        return Err(std::io::Error::from_raw_os_error(libc::ENAMETOOLONG));
    }
    address.sun_family = libc::AF_UNIX as libc::sa_family_t;
    for (to, from) in address.sun_path.iter_mut().zip(bytes) {
        *to = *from as libc::c_char;
    }
    let length = std::mem::offset_of!(libc::sockaddr_un, sun_path) + bytes.len() + 1;
    let flags = libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK;
    // SAFETY: socket takes integers; the descriptor is owned at once.
    let raw = unsafe { libc::socket(libc::AF_UNIX, flags, 0) };
    if raw < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a new descriptor, owned by nothing else.
    let socket = unsafe { OwnedFd::from_raw_fd(raw) };
    loop {
        // SAFETY: the address is a sockaddr_un of `length` bytes that lives across the call.
        let connected = unsafe {
            libc::connect(
                socket.as_raw_fd(),
                (&raw const address).cast::<libc::sockaddr>(),
                length as libc::socklen_t,
            )
        };
        if connected == 0 {
            break;
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EINTR) {
            return Err(error);
        }
    }
    let stream = std::os::unix::net::UnixStream::from(socket);
    stream.set_nonblocking(false)?;
    Ok(stream)
}

/// How many of the bytes sent on a unix socket its peer has not read yet (SIOCOUTQ: they
/// stay charged to the sender until read).
pub fn unread_by_peer(socket: std::os::fd::BorrowedFd<'_>) -> Result<usize, Errno> {
    let mut unread: libc::c_int = 0;
    // SAFETY: SIOCOUTQ writes one int into `unread`.
    let done = unsafe { libc::ioctl(socket.as_raw_fd(), libc::TIOCOUTQ, &mut unread) };
    Errno::result(done).map(|_| unread.max(0) as usize)
}

/// Truncates an open file to zero length.
pub fn truncate(fd: RawFd) -> Result<(), Errno> {
    loop {
        // SAFETY: ftruncate on a descriptor number has no memory effects.
        if unsafe { libc::ftruncate(fd, 0) } == 0 {
            return Ok(());
        }
        match Errno::last() {
            Errno::EINTR => continue,
            errno => return Err(errno),
        }
    }
}

/// Pipes and sockets only rsh may write to (an audit record handed over, the log socket),
/// by device and inode: reached again by another name (`/proc/PID/fd/N`), they are refused.
static PRIVATE: std::sync::Mutex<Vec<(u64, u64)>> = std::sync::Mutex::new(Vec::new());

/// Whether two descriptors are of the same file.
pub fn same_file(one: &OwnedFd, other: &OwnedFd) -> bool {
    use std::os::fd::AsFd;
    let id = identity(one.as_fd());
    id.is_some() && id == identity(other.as_fd())
}

fn identity(file: std::os::fd::BorrowedFd<'_>) -> Option<(u64, u64)> {
    nix::sys::stat::fstat(file)
        .ok()
        .map(|s| (s.st_dev, s.st_ino))
}

/// Marks `file` as rsh's alone (see [`is_shells_own`]).
pub fn mark_private(file: std::os::fd::BorrowedFd<'_>) {
    if let (Some(id), Ok(mut private)) = (identity(file), PRIVATE.lock()) {
        if !private.contains(&id) {
            private.push(id);
        }
    }
}

/// Forgets a file marked private, once rsh no longer holds it.
pub fn unmark_private(file: std::os::fd::BorrowedFd<'_>) {
    if let (Some(id), Ok(mut private)) = (identity(file), PRIVATE.lock()) {
        private.retain(|&p| p != id);
    }
}

/// Whether `file` is one that rsh marked as its own.
pub fn is_shells_own(file: &OwnedFd) -> bool {
    use std::os::fd::AsFd;
    match (identity(file.as_fd()), PRIVATE.lock()) {
        (Some(id), Ok(private)) => private.contains(&id),
        _ => false,
    }
}

/// How opening a FIFO ended (see `open_fifo`).
#[derive(Debug)]
pub enum FifoOpen {
    Opened(Result<OwnedFd, Errno>),
    /// The time ran out with no other end.
    TimedOut,
    /// This signal came for rsh first.
    Signal(libc::c_int),
}

/// How often a wait for a FIFO's other end looks for signals.
const FIFO_STEP: std::time::Duration = std::time::Duration::from_millis(20);

/// Opens the FIFO that `file` (an `O_PATH` descriptor) is, with `flags`, as a blocking open
/// would: it waits until a program opens the other end. Unlike a blocking open in rsh itself,
/// the wait ends at `timeout`, or when a signal that would end rsh comes (and Ctrl-C, with
/// `interrupt`; see `OwnWait`): the open waits on a thread of its own, which a signal of
/// its own (`fifo_release`) then interrupts, so that nothing is left waiting on the FIFO.
/// Without a thread, the open fails (EAGAIN) rather than wait without a bound.
pub fn open_fifo(
    file: OwnedFd,
    flags: nix::fcntl::OFlag,
    timeout: Option<std::time::Duration>,
    interrupt: bool,
) -> FifoOpen {
    use std::os::unix::thread::JoinHandleExt;
    use std::sync::mpsc::RecvTimeoutError;
    let number = file.as_raw_fd();
    // First: the thread inherits the signal mask it sets.
    let wait = super::job::OwnWait::new(interrupt);
    let _release = super::job::Caught::new(fifo_release());
    let (sender, receiver) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("fifo".to_string())
        .spawn(move || {
            let _ = sender.send(reopen_number(number, flags));
        });
    let Ok(thread) = spawned else {
        return FifoOpen::Opened(Err(Errno::EAGAIN));
    };
    let deadline = timeout.map(|t| std::time::Instant::now() + t);
    let ended = loop {
        match receiver.recv_timeout(FIFO_STEP) {
            Ok(opened) => return FifoOpen::Opened(opened),
            Err(RecvTimeoutError::Disconnected) => return FifoOpen::Opened(Err(Errno::EIO)),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Some(sig) = wait.next(std::time::Duration::ZERO) {
            break FifoOpen::Signal(sig);
        }
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            break FifoOpen::TimedOut;
        }
    };
    // A signal that comes before the thread is in its open is lost: it is sent again until
    // the open is over (and what it may have opened meanwhile is dropped).
    for _ in 0..100 {
        // SAFETY: a signal to a thread not yet joined, whose handler does nothing.
        unsafe { libc::pthread_kill(thread.as_pthread_t(), fifo_release()) };
        match receiver.recv_timeout(std::time::Duration::from_millis(10)) {
            Err(RecvTimeoutError::Timeout) => continue,
            Ok(_) | Err(RecvTimeoutError::Disconnected) => {
                let _ = thread.join();
                break;
            }
        }
    }
    drop(file);
    ended
}

/// The signal that interrupts a FIFO's open on its thread (see `open_fifo`): a real-time one,
/// which nothing else in rsh uses, sent to that thread alone.
fn fifo_release() -> libc::c_int {
    libc::SIGRTMIN() + 1
}

/// Opens `path` refusing a symbolic link anywhere on the way (`openat2` with
/// RESOLVE_NO_SYMLINKS, ELOOP when there is one), so that what was checked is what is
/// opened; on a kernel without `openat2` (before 5.6), the last component at least.
pub fn open_without_links(
    path: &std::path::Path,
    flags: nix::fcntl::OFlag,
    mode: nix::sys::stat::Mode,
) -> Result<OwnedFd, Errno> {
    open_without_links_in(None, path, flags, mode)
}

/// `open_without_links` of an absolute `path` as seen from `root` (a directory descriptor
/// of `/` in another mount namespace: the mounts met are that namespace's).
pub fn open_without_links_in(
    root: Option<std::os::fd::BorrowedFd<'_>>,
    path: &std::path::Path,
    flags: nix::fcntl::OFlag,
    mode: nix::sys::stat::Mode,
) -> Result<OwnedFd, Errno> {
    use nix::fcntl::{OFlag, OpenHow, ResolveFlag};
    let how = OpenHow::new()
        .flags(flags)
        .mode(mode)
        .resolve(ResolveFlag::RESOLVE_NO_SYMLINKS | ResolveFlag::RESOLVE_NO_MAGICLINKS);
    let opened = match (root, path.strip_prefix("/")) {
        (Some(root), Ok(relative)) if !relative.as_os_str().is_empty() => {
            nix::fcntl::openat2(root, relative, how)
        }
        (Some(root), Ok(_)) => nix::fcntl::openat2(root, ".", how),
        _ => nix::fcntl::openat2(nix::fcntl::AT_FDCWD, path, how),
    };
    match opened {
        // No openat2 (before Linux 5.6) means no view either.
        Err(Errno::ENOSYS) => nix::fcntl::open(path, flags | OFlag::O_NOFOLLOW, mode),
        other => other,
    }
}
