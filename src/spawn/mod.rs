//! Process creation: starting a decided program, forking subshells, waiting.
//!
//! Everything the child needs (argument and environment arrays, the program's file descriptor)
//! is prepared in the parent. Between `fork` and `execve` the child makes only raw,
//! async-signal-safe system calls and does not allocate: that is what keeps spawning sound and
//! what the kernel confinement layer will hook into. The program is executed through the file
//! descriptor that was opened when it was decided (`execveat` with `AT_EMPTY_PATH`), never by
//! path, and the child checks just before `execveat` that the descriptor still refers to the
//! decided file (device and inode): a redirection such as `3</bin/dash` that lands on the
//! descriptor's number, or anything else that changed it, makes the exec fail instead of
//! running another program. Scripts are not handed to the kernel's `#!` handling: the shell
//! decides and runs their interpreter itself, through the interpreter's own descriptor.
//!
//! The child applies the program's `Confinement` (limits, Landlock, seccomp: see `sandbox`)
//! just before that check. Any failure there, or of the exec itself, is reported to the parent
//! through a close-on-exec pipe, and the program does not run.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::ptr;

use nix::errno::Errno;
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::sandbox::Confinement;
use crate::sandbox::seccomp::EMPTY_PATH;

/// Program descriptors are kept in rsh's own range, out of reach of redirections (the identity
/// check in the child catches the rest).
const PROGRAM_FD_MIN: RawFd = crate::SHELL_FDS_FROM;

/// The errno a child reports when the program descriptor no longer refers to the decided file.
const SWAPPED: i32 = libc::ESTALE;

/// Stops from the terminal (Ctrl-Z, background reads and writes). A child stopped before its
/// exec would leave rsh suspended with it (the parent of a `CLONE_VFORK` child waits for the
/// exec), unable to take the terminal back or enforce the timeout; the child ignores them
/// while it confines itself (which discards any pending) and restores them right before exec.
const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGTSTP, libc::SIGTTIN, libc::SIGTTOU];

/// The stops as rsh found them when it started, last thing before the exec.
/// Async-signal-safe.
fn release_stops() {
    for sig in STOP_SIGNALS {
        // SAFETY: setting a default or ignored disposition has no memory effects.
        unsafe { libc::signal(sig, entry_disposition(sig)) };
    }
}

/// Whether a program keeps the disposition rsh started with for `sig` when that was
/// "ignored": as in bash, `nohup rsh -c 'job'` keeps the job from ending at a hang-up, and a
/// program run by a shell's background `rsh -c … &` keeps ignoring Ctrl-C. Not SIGCHLD and
/// SIGPIPE: a program always gets their default (`yes | head` must end).
fn inheritable(sig: libc::c_int) -> bool {
    !matches!(sig, libc::SIGCHLD | libc::SIGPIPE)
}

/// Which of the `inheritable` `RESET_SIGNALS` rsh's parent left ignored (bit N: signal N),
/// noted before rsh sets any disposition of its own.
static IGNORED_ON_ENTRY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Notes which of the `inheritable` signals are ignored as rsh starts. Call first thing.
pub fn note_ignored_on_entry() {
    let mut ignored = 0u64;
    for sig in RESET_SIGNALS.into_iter().filter(|&sig| inheritable(sig)) {
        if job::is_ignored(sig) {
            ignored |= 1 << sig;
        }
    }
    IGNORED_ON_ENTRY.store(ignored, std::sync::atomic::Ordering::Relaxed);
}

/// What a program gets for `sig`: ignored if rsh's parent left it so, else the default.
/// Async-signal-safe (an atomic load).
fn entry_disposition(sig: libc::c_int) -> libc::sighandler_t {
    let ignored = IGNORED_ON_ENTRY.load(std::sync::atomic::Ordering::Relaxed);
    if ignored & (1 << sig) != 0 {
        libc::SIG_IGN
    } else {
        libc::SIG_DFL
    }
}

/// Signals whose disposition the shell may change for itself and every child must get back.
/// SIGWINCH, SIGCHLD and SIGHUP are there for the line editor's handlers and the interactive
/// shell's own, which must not run in a child that still shares rsh's memory.
/// SIGXFSZ is ignored by rsh when it holds its own writes to the policy's file size.
const RESET_SIGNALS: [libc::c_int; 11] = [
    libc::SIGWINCH,
    libc::SIGCHLD,
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGTSTP,
    libc::SIGTTIN,
    libc::SIGTTOU,
    libc::SIGPIPE,
    libc::SIGXFSZ,
];

/// A program ready to run: everything resolved and converted before the fork.
pub struct Program {
    /// Opened with O_PATH when the program was decided; executed through this descriptor.
    file: OwnedFd,
    /// The identity that was decided; the child refuses to exec anything else.
    dev: u64,
    ino: u64,
    argv: Vec<CString>,
    envp: Vec<CString>,
    confinement: Confinement,
    /// The niceness to start with (`nice` in front of the command); None: rsh's own.
    nice: Option<Niceness>,
}

/// What the child does about `nice`.
#[derive(Debug, Clone, Copy)]
enum Niceness {
    Set(libc::c_int),
    /// A higher priority than rsh's, which a confined program may not take (its
    /// CAP_SYS_NICE is dropped): the command runs at rsh's, as `nice` would.
    Refused,
}

/// The capability to raise a process's priority.
const CAP_SYS_NICE: libc::c_int = 23;

/// The step of the child's preparation that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Exec,
    View,
    Limits,
    DieWithParent,
    Capabilities,
    NoNewPrivs,
    Landlock,
    Seccomp,
}

impl Stage {
    const ALL: [Stage; 8] = [
        Stage::Exec,
        Stage::View,
        Stage::Limits,
        Stage::DieWithParent,
        Stage::Capabilities,
        Stage::NoNewPrivs,
        Stage::Landlock,
        Stage::Seccomp,
    ];

    fn describe(self) -> &'static str {
        match self {
            Stage::Exec => "exec",
            Stage::View => {
                "cannot enter the working directory in the read-only view of the file system"
            }
            Stage::Limits => "cannot set the resource limits",
            Stage::DieWithParent => "cannot tie the program to rsh's lifetime",
            Stage::Capabilities => "cannot clear inherited capabilities",
            Stage::NoNewPrivs => "cannot set no_new_privs",
            Stage::Landlock => "cannot apply the Landlock ruleset",
            Stage::Seccomp => "cannot install the seccomp filter",
        }
    }
}

#[derive(Debug)]
pub enum SpawnError {
    /// An argument or variable contains a NUL byte.
    Nul(String),
    /// fork, pipe or another system call failed in the parent.
    System(Errno),
    /// execve failed in the child.
    Exec(Errno),
    /// The program descriptor no longer referred to the decided file.
    Swapped,
    /// The confinement could not be applied; the program did not run.
    Confine(Stage, Errno),
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::Nul(what) => write!(f, "{what} contains a NUL byte"),
            SpawnError::System(errno) => write!(f, "{}", crate::errno_text(*errno)),
            SpawnError::Exec(errno) => write!(f, "{}", crate::errno_text(*errno)),
            SpawnError::Swapped => {
                write!(f, "the program file changed after it was checked; not run")
            }
            SpawnError::Confine(stage, errno) => {
                write!(
                    f,
                    "{}: {}; not run",
                    stage.describe(),
                    crate::errno_text(*errno)
                )
            }
        }
    }
}

/// Opens the program at `path` (canonical) again, as seen from `root` (the read-only view's
/// root, in its own mount namespace), and only if it is still the decided file `dev`/`ino`:
/// executed through rsh's own mount, a program's `/proc/self/exe` would lead it back to a
/// writable mount (`chmod /proc/self/exe`). Moved to a high number, as `open_program`'s is.
pub fn reopen_program_in(
    root: std::os::fd::BorrowedFd<'_>,
    path: &Path,
    dev: u64,
    ino: u64,
) -> Result<OwnedFd, SpawnError> {
    use nix::fcntl::{OFlag, OpenHow, ResolveFlag};
    let relative = path.strip_prefix("/").map_err(|_| SpawnError::Swapped)?;
    let how = OpenHow::new()
        .flags(OFlag::O_PATH | OFlag::O_CLOEXEC)
        .resolve(ResolveFlag::RESOLVE_IN_ROOT | ResolveFlag::RESOLVE_NO_MAGICLINKS);
    let file = nix::fcntl::openat2(root, relative, how).map_err(SpawnError::System)?;
    let st = nix::sys::stat::fstat(&file).map_err(SpawnError::System)?;
    if (st.st_dev as u64, st.st_ino as u64) != (dev, ino) {
        return Err(SpawnError::Swapped);
    }
    Ok(to_high(file))
}

/// Opens a program for execution: O_PATH pins the inode that is decided and later executed.
/// The descriptor is moved to a high number, close-on-exec.
pub fn open_program(path: &Path) -> std::io::Result<OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)?;
    Ok(to_high(OwnedFd::from(file)))
}

/// A program's descriptor moved to a high number, out of the way of redirections.
fn to_high(file: OwnedFd) -> OwnedFd {
    match fd::save(file.as_raw_fd(), PROGRAM_FD_MIN) {
        Ok(Some(high)) => high,
        // No high number free: the low one is still checked before exec.
        _ => file,
    }
}

impl Program {
    /// `file` is the descriptor from `open_program`, `dev`/`ino` the identity that was decided
    /// for it, `confinement` what the child applies before executing it.
    pub fn new(
        file: OwnedFd,
        dev: u64,
        ino: u64,
        argv: &[String],
        env: &[(String, String)],
        confinement: Confinement,
    ) -> Result<Program, SpawnError> {
        let argv = argv
            .iter()
            .map(|a| {
                CString::new(a.as_bytes()).map_err(|_| SpawnError::Nul(format!("argument {a:?}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let envp = env
            .iter()
            .map(|(k, v)| {
                CString::new(format!("{k}={v}"))
                    .map_err(|_| SpawnError::Nul(format!("variable {k}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Program {
            file,
            dev,
            ino,
            argv,
            envp,
            confinement,
            nice: None,
        })
    }

    /// Starts the program `increment` nicer than rsh (as `nice -n INCREMENT` would), within
    /// the kernel's range.
    pub fn niceness(mut self, increment: Option<i32>) -> Program {
        let unprivileged = self.confinement.lacks(CAP_SYS_NICE);
        self.nice = increment.map(|n| {
            // SAFETY: getpriority takes integers; -1 is also a valid niceness, and the
            // kernel's range bounds the result either way.
            let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
            let nice = own.saturating_add(n).clamp(-20, 19);
            if nice < own && unprivileged {
                Niceness::Refused
            } else {
                Niceness::Set(nice)
            }
        });
        self
    }

    /// The descriptor the program is executed through.
    pub fn file(&self) -> std::os::fd::BorrowedFd<'_> {
        use std::os::fd::AsFd;
        self.file.as_fd()
    }

    pub fn confinement(&self) -> &Confinement {
        &self.confinement
    }
}

/// The null-terminated pointer arrays execve wants, built before the fork.
struct ExecArgs<'p> {
    program: &'p Program,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    /// The pid the child's parent must have when the child arms death-with-parent.
    parent: libc::pid_t,
    /// The pathname for execveat: the one the seccomp filter lets through.
    empty_path: *const libc::c_char,
}

/// Why the child did not exec: the step and its errno.
type Failure = (Stage, i32);

impl<'p> ExecArgs<'p> {
    fn new(program: &'p Program, parent: libc::pid_t) -> ExecArgs<'p> {
        let mut argv: Vec<_> = program.argv.iter().map(|a| a.as_ptr()).collect();
        argv.push(ptr::null());
        let mut envp: Vec<_> = program.envp.iter().map(|e| e.as_ptr()).collect();
        envp.push(ptr::null());
        ExecArgs {
            program,
            argv,
            envp,
            parent,
            // Forced here, before any fork, so that a child never creates it.
            empty_path: EMPTY_PATH.as_ptr(),
        }
    }

    /// Confines the calling process, checks the descriptor and executes the program. Only
    /// returns on failure. Async-signal-safe: raw system calls only, no allocation.
    fn exec(&self) -> Failure {
        if let Some(nice) = self.program.nice {
            set_niceness(nice);
        }
        if let Err(failure) = self.confine() {
            return failure;
        }
        let fd = self.program.file.as_raw_fd();
        // SAFETY: an all-zero `stat` is a valid value; fstat only writes into it.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `st` is a valid, exclusively borrowed stat buffer.
        if unsafe { libc::fstat(fd, &mut st) } != 0
            || st.st_dev != self.program.dev
            || st.st_ino != self.program.ino
        {
            return (Stage::Exec, SWAPPED);
        }
        release_stops();
        // SAFETY: argv and envp are valid NUL-terminated arrays of C strings that outlive the
        // call; `fd` was just checked to be the decided file.
        unsafe {
            libc::syscall(
                libc::SYS_execveat,
                fd,
                // The seccomp filter of a program that may not start others lets execveat
                // through only with this very pointer.
                self.empty_path,
                self.argv.as_ptr(),
                self.envp.as_ptr(),
                libc::AT_EMPTY_PATH,
            )
        };
        (Stage::Exec, Errno::last_raw())
    }

    /// Applies the confinement, in the order `sandbox` documents.
    fn confine(&self) -> Result<(), Failure> {
        let c = &self.program.confinement;
        let check = |stage: Stage, rc: libc::c_long| {
            if rc < 0 {
                Err((stage, Errno::last_raw()))
            } else {
                Ok(())
            }
        };
        if let Some(view) = &c.view {
            // First: the open-file limit below could leave it no descriptor.
            use std::os::fd::AsRawFd;
            crate::sandbox::view::enter(view.namespace.as_raw_fd())
                .map_err(|errno| (Stage::View, errno))?;
        }
        for (resource, limit) in &c.rlimits {
            // SAFETY: the struct lives in the parent-built Vec for the call's duration.
            let rc = unsafe { libc::setrlimit(*resource as _, limit) };
            check(Stage::Limits, rc.into())?;
        }
        if c.die_with_parent {
            // SAFETY: prctl with integer arguments.
            let rc = unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
            check(Stage::DieWithParent, rc.into())?;
            // The parent may have died before the request took effect.
            // SAFETY: getppid has no preconditions.
            if self.parent != 0 && unsafe { libc::getppid() } != self.parent {
                return Err((Stage::DieWithParent, libc::ESRCH));
            }
        }
        if c.no_new_privs {
            // Ambient and inheritable capabilities would survive the exec otherwise.
            // SAFETY: prctl with integer arguments.
            let rc = unsafe {
                libc::prctl(
                    libc::PR_CAP_AMBIENT,
                    libc::PR_CAP_AMBIENT_CLEAR_ALL,
                    0,
                    0,
                    0,
                )
            };
            // EINVAL: a kernel without ambient capabilities.
            if rc < 0 && Errno::last_raw() != libc::EINVAL {
                return Err((Stage::Capabilities, Errno::last_raw()));
            }
            clear_inheritable().map_err(|errno| (Stage::Capabilities, errno))?;
        }
        if c.no_new_privs {
            // SAFETY: prctl with integer arguments.
            let rc = unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
            check(Stage::NoNewPrivs, rc.into())?;
        }
        for ruleset in &c.rulesets {
            use std::os::fd::AsFd;
            crate::sandbox::landlock::restrict_self(ruleset.as_fd())
                .map_err(|errno| (Stage::Landlock, errno))?;
        }
        if let Some(filter) = &c.filter {
            filter.install().map_err(|errno| (Stage::Seccomp, errno))?;
        }
        Ok(())
    }
}

/// Sets the calling process's niceness; when that is refused (a lower niceness without the
/// right to it), says so and goes on, as `nice` does. Async-signal-safe.
fn set_niceness(nice: Niceness) {
    let set = match nice {
        Niceness::Set(nice) => {
            // SAFETY: setpriority takes integers.
            let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) };
            rc == 0
        }
        Niceness::Refused => false,
    };
    if !set {
        let message = b"nice: cannot set niceness: Permission denied\n";
        // SAFETY: writes a static buffer to standard error.
        unsafe { libc::write(2, message.as_ptr().cast(), message.len()) };
    }
}

/// `struct __user_cap_header_struct` and `__user_cap_data_struct`, version 3 (two words).
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Empties the calling thread's inheritable capability set (effective and permitted stay
/// as they are until the exec recomputes them). Async-signal-safe.
fn clear_inheritable() -> Result<(), i32> {
    let mut header = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: the kernel writes two CapData into `data`.
    if unsafe { libc::syscall(libc::SYS_capget, &mut header, data.as_mut_ptr()) } != 0 {
        return Err(Errno::last_raw());
    }
    if data.iter().all(|d| d.inheritable == 0) {
        return Ok(());
    }
    for d in &mut data {
        d.inheritable = 0;
    }
    // SAFETY: the kernel reads the header and two CapData.
    if unsafe { libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) } != 0 {
        return Err(Errno::last_raw());
    }
    Ok(())
}

/// Each of `RESET_SIGNALS` as rsh found it (`entry_disposition`), the job-control stops
/// ignored instead when `hold_stops` says so. Async-signal-safe.
fn put_back_signals(hold_stops: bool) {
    for sig in RESET_SIGNALS {
        let disposition = if hold_stops && STOP_SIGNALS.contains(&sig) {
            libc::SIG_IGN
        } else {
            entry_disposition(sig)
        };
        // SAFETY: setting a disposition to default or ignore has no memory effects.
        unsafe { libc::signal(sig, disposition) };
    }
}

/// Puts back, in a child, what the shell changed for itself. Async-signal-safe.
/// The job-control stops stay ignored until just before the exec (see `release_stops`).
fn reset_child_state(stack_limit: Option<libc::rlimit>) {
    put_back_signals(true);
    // SAFETY: an empty set built on the stack; sigprocmask only reads it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, ptr::null_mut());
    }
    if let Some(limit) = stack_limit {
        // SAFETY: the struct lives on the stack for the duration of the call.
        unsafe { libc::setrlimit(libc::RLIMIT_STACK, &limit) };
    }
}

/// Starts `program` in a new process and returns its pid once execve has succeeded; an exec
/// failure comes back as `SpawnError::Exec` with the child's errno.
pub fn spawn(
    program: &Program,
    stack_limit: Option<libc::rlimit>,
    placement: job::Placement,
) -> Result<Pid, SpawnError> {
    // SAFETY: getpid has no preconditions.
    let args = ExecArgs::new(program, unsafe { libc::getpid() });
    let (report_read, report_write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(SpawnError::System)?;
    let report = report_write.as_raw_fd();
    let mut run = || -> libc::c_int {
        placement.apply_in_child();
        child_exec(&args, report, stack_limit)
    };
    match start_child(&mut run) {
        Err(errno) => Err(SpawnError::System(errno)),
        Ok(pid) => {
            drop(report_write);
            let pid = Pid::from_raw(pid);
            match read_report(&report_read) {
                None => Ok(pid),
                Some(failure) => {
                    let _ = wait(pid);
                    if let Some(tty) = placement.terminal {
                        job::reclaim_terminal(tty);
                    }
                    Err(exec_error(failure))
                }
            }
        }
    }
}

/// Runs `child` in a new process that shares rsh's memory until it execs or exits, as
/// `posix_spawn` does; rsh is suspended meanwhile (`CLONE_VFORK`). Compared with `fork` this
/// spares copying the shell's page tables and the copy-on-write faults on both sides, a good
/// part of the cost of starting a program. `child` must not allocate, take locks or write
/// anything but its own stack: it runs on a separate stack, with every signal blocked until
/// it resets their dispositions itself.
fn start_child(child: &mut dyn FnMut() -> libc::c_int) -> Result<libc::pid_t, Errno> {
    extern "C" fn entry(arg: *mut libc::c_void) -> libc::c_int {
        // SAFETY: `arg` points at the `&mut dyn FnMut` below, which outlives the child's use of
        // it because the parent is suspended until the child has exec'd or exited.
        let child = unsafe { &mut *arg.cast::<&mut dyn FnMut() -> libc::c_int>() };
        child()
    }
    let stack_top = CHILD_STACK.with(|stack| stack.top())?;
    let mut child = child;
    // SAFETY: sigset_t is plain data; the masks live on this stack.
    let pid = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        // SAFETY: `entry` only runs `child` (see above); the stack is rsh's own mapping, used
        // by one child at a time since the parent waits for each.
        let pid = libc::clone(
            entry,
            stack_top,
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            (&mut child as *mut &mut dyn FnMut() -> libc::c_int).cast(),
        );
        let errno = Errno::last();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, ptr::null_mut());
        if pid < 0 {
            return Err(errno);
        }
        pid
    };
    Ok(pid)
}

/// The stack children run on before they exec, mapped on first use and reused.
struct ChildStack(std::cell::Cell<Option<usize>>);

const CHILD_STACK_SIZE: usize = 256 * 1024;

thread_local! {
    static CHILD_STACK: ChildStack = const { ChildStack(std::cell::Cell::new(None)) };
}

impl ChildStack {
    /// The highest address of the stack (stacks grow down on every architecture rsh runs on).
    fn top(&self) -> Result<*mut libc::c_void, Errno> {
        if let Some(top) = self.0.get() {
            return Ok(top as *mut libc::c_void);
        }
        let page = 4096;
        // SAFETY: a fresh anonymous mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                CHILD_STACK_SIZE + page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(Errno::last());
        }
        // A guard page below the stack: an overflow faults instead of writing rsh's memory.
        // SAFETY: the first page of the mapping made above.
        if unsafe { libc::mprotect(base, page, libc::PROT_NONE) } != 0 {
            return Err(Errno::last());
        }
        let top = base as usize + CHILD_STACK_SIZE + page;
        self.0.set(Some(top));
        Ok(top as *mut libc::c_void)
    }
}

fn child_exec(args: &ExecArgs, report: RawFd, stack_limit: Option<libc::rlimit>) -> ! {
    reset_child_state(stack_limit);
    let (stage, errno) = args.exec();
    let mut bytes = [0u8; 8];
    bytes[..4].copy_from_slice(&(stage as i32).to_ne_bytes());
    bytes[4..].copy_from_slice(&errno.to_ne_bytes());
    // SAFETY: writing a stack buffer to a pipe we own, then leaving without unwinding.
    unsafe {
        libc::write(report, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(127)
    }
}

fn read_report(fd: &OwnedFd) -> Option<Failure> {
    let mut buf = [0u8; 8];
    let mut got = 0;
    while got < buf.len() {
        match nix::unistd::read(fd, &mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(Errno::EINTR) => continue,
            Err(_) => break,
        }
    }
    if got != buf.len() {
        return None;
    }
    let stage = i32::from_ne_bytes(buf[..4].try_into().expect("4 bytes"));
    let errno = i32::from_ne_bytes(buf[4..].try_into().expect("4 bytes"));
    let stage = Stage::ALL
        .into_iter()
        .find(|s| *s as i32 == stage)
        .unwrap_or(Stage::Exec);
    Some((stage, errno))
}

/// Replaces the current process with `program` (the last command of a subshell or pipeline
/// stage). Only returns on failure.
pub fn exec_in_place(program: &Program, stack_limit: Option<libc::rlimit>) -> SpawnError {
    // SAFETY: getppid has no preconditions.
    let args = ExecArgs::new(program, unsafe { libc::getppid() });
    reset_child_state(stack_limit);
    exec_error(args.exec())
}

fn exec_error((stage, errno): Failure) -> SpawnError {
    match stage {
        Stage::Exec if errno == SWAPPED => SpawnError::Swapped,
        Stage::Exec => SpawnError::Exec(Errno::from_raw(errno)),
        stage => SpawnError::Confine(stage, Errno::from_raw(errno)),
    }
}

pub enum Fork {
    Child,
    Parent(Pid),
}

/// A counter in memory shared with every process later forked from this one (pipeline
/// stages, subshells, command substitutions), so that the shell learns what its forked
/// copies counted. A program they exec does not keep it. Falls back to a private counter
/// where the memory cannot be had.
pub fn shared_counter() -> &'static std::sync::atomic::AtomicU64 {
    use std::sync::atomic::AtomicU64;
    // SAFETY: a fresh anonymous mapping, zero-filled, page-aligned, never unmapped: a valid
    // AtomicU64 (zero) for the life of the process and of its forks.
    unsafe {
        let page = libc::mmap(
            ptr::null_mut(),
            std::mem::size_of::<AtomicU64>(),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if page == libc::MAP_FAILED {
            return Box::leak(Box::new(AtomicU64::new(0)));
        }
        &*(page as *const AtomicU64)
    }
}

/// Forks the shell itself for a subshell, a pipeline stage or a command substitution.
pub fn fork_shell() -> Result<Fork, Errno> {
    // SAFETY: the shell forks once the layer's thread has handed over its work (`settle`), and
    // that thread runs no code of rsh's after it, only its own end: the child is a complete
    // copy that may go on running the interpreter, exactly as bash does for subshells (glibc's
    // fork takes the allocator's locks across it).
    match unsafe { libc::fork() } {
        -1 => Err(Errno::last()),
        0 => Ok(Fork::Child),
        pid => Ok(Fork::Parent(Pid::from_raw(pid))),
    }
}

/// In a forked child: asks for SIGKILL when `parent`, the process that forked it, ends.
/// False when it could not be asked, or `parent` has ended already.
pub fn dies_with(parent: Pid) -> bool {
    // SAFETY: prctl with integer arguments; getppid has no preconditions.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == 0
            && libc::getppid() == parent.as_raw()
    }
}

/// Ends a forked child without running destructors or flushing buffers it shares with the
/// parent.
pub fn exit_child(status: i32) -> ! {
    // SAFETY: _exit has no preconditions.
    unsafe { libc::_exit(status & 0xff) }
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal { signal: i32, core: bool },
}

impl Exit {
    /// The shell status: the exit code, or 128 + the signal number.
    pub fn status(self) -> i32 {
        match self {
            Exit::Code(code) => code,
            Exit::Signal { signal, .. } => 128 + signal,
        }
    }
}

/// Collects `pid` if it has ended; Ok(None) while it runs.
pub fn try_wait(pid: Pid) -> Result<Option<Exit>, Errno> {
    match waitpid(pid, Some(WaitPidFlag::WNOHANG)) {
        Ok(status) => Ok(ended(status)),
        Err(Errno::EINTR) => Ok(None),
        Err(errno) => Err(errno),
    }
}

/// Whether the child `pid` has ended (Some(true)), looked at without collecting it: until it
/// is, its number stays its process group's, which may still hold what it started. None when
/// it is not this process's child to wait for (a forked copy of the shell inherits the lists
/// of the one it was forked from): nothing is known of its number then.
pub fn has_exited(pid: Pid) -> Option<bool> {
    use nix::sys::wait::{Id, WaitStatus, waitid};
    let peek = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    loop {
        match waitid(Id::Pid(pid), peek) {
            Err(Errno::EINTR) => continue,
            Err(_) => return None,
            Ok(status) => return Some(!matches!(status, WaitStatus::StillAlive)),
        }
    }
}

/// Waits for `pid` to end until `until` (polling, for a child that has been asked to end),
/// without collecting it; what `has_exited` then says.
pub fn exited_by(pid: Pid, until: std::time::Instant) -> Option<bool> {
    loop {
        match has_exited(pid) {
            Some(false) if std::time::Instant::now() < until => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            answer => return answer,
        }
    }
}

/// As `exited_by`; whether it ended, and was collected, by then (a child that cannot be
/// waited for counts as ended).
pub fn ended_by(pid: Pid, until: std::time::Instant) -> bool {
    match exited_by(pid, until) {
        Some(false) => false,
        Some(true) => {
            let _ = try_wait(pid);
            true
        }
        None => true,
    }
}

/// Waits for one child, retrying on EINTR.
pub fn wait(pid: Pid) -> Result<Exit, Errno> {
    wait_with_usage(pid).map(|(exit, _)| exit)
}

/// What an ended child (with the children it waited for) used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// User and system CPU time.
    pub cpu: std::time::Duration,
    /// Largest resident set, KiB.
    pub max_rss_kib: u64,
}

impl Usage {
    fn of(usage: &libc::rusage) -> Usage {
        let time = |t: libc::timeval| {
            std::time::Duration::from_secs(t.tv_sec.max(0) as u64)
                + std::time::Duration::from_micros(t.tv_usec.max(0) as u64)
        };
        Usage {
            cpu: time(usage.ru_utime) + time(usage.ru_stime),
            max_rss_kib: usage.ru_maxrss.max(0) as u64,
        }
    }
}

/// `wait4`: a child's status change (`flags` as for waitpid) and, once it has ended, what it
/// used. Ok(None) with WNOHANG while nothing changed.
pub fn wait4(pid: Pid, flags: libc::c_int) -> Result<Option<(WaitStatus, Usage)>, Errno> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid output buffer.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both output pointers are to values we own for the call's duration.
    let rc = unsafe { libc::wait4(pid.as_raw(), &mut status, flags, &mut usage) };
    match rc {
        -1 => Err(Errno::last()),
        0 => Ok(None),
        _ => Ok(Some((
            WaitStatus::from_raw(pid, status)?,
            Usage::of(&usage),
        ))),
    }
}

/// Waits for one child to end, retrying on EINTR; with what it used.
pub fn wait_with_usage(pid: Pid) -> Result<(Exit, Usage), Errno> {
    loop {
        match wait4(pid, 0) {
            Ok(Some((status, usage))) => {
                if let Some(exit) = ended(status) {
                    return Ok((exit, usage));
                }
            }
            Ok(None) | Err(Errno::EINTR) => continue,
            Err(errno) => return Err(errno),
        }
    }
}

/// How a child ended, if the status says it did.
pub(crate) fn ended(status: WaitStatus) -> Option<Exit> {
    match status {
        WaitStatus::Exited(_, code) => Some(Exit::Code(code)),
        WaitStatus::Signaled(_, signal, core) => Some(Exit::Signal {
            signal: signal as i32,
            core,
        }),
        _ => None,
    }
}

/// A pipe whose ends are closed on exec (the shell dup2s them where they belong).
pub fn pipe() -> Result<(OwnedFd, OwnedFd), Errno> {
    nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
}

/// As [`pipe`], both ends non-blocking too.
pub fn pipe_nonblocking() -> Result<(OwnedFd, OwnedFd), Errno> {
    use nix::fcntl::OFlag;
    let (read, write) = nix::unistd::pipe2(OFlag::O_CLOEXEC | OFlag::O_NONBLOCK)?;
    // In rsh's own range, where redirections cannot reach them.
    Ok((fd::to_shell_range(read)?, fd::to_shell_range(write)?))
}

pub mod fd;
pub mod job;
pub mod procfs;
pub mod watch;

/// Signal dispositions of the shell process itself.
pub mod signals {
    use std::os::fd::IntoRawFd;
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

    use nix::errno::Errno;

    /// SIGPIPE and SIGCHLD at their defaults for rsh itself, whatever it was started with.
    /// bash would keep an ignored SIGPIPE and hand it on; rsh does not, so that `yes | head`
    /// ends whoever started it (a program started with SIGPIPE ignored, as some runtimes
    /// leave it, writes to a closed pipe forever). A SIGCHLD left ignored by rsh's parent
    /// would have the kernel reap every child before rsh could wait for it (as bash, rsh
    /// resets it).
    pub fn default_pipe_and_child() {
        // SAFETY: setting a default disposition has no memory effects.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        }
    }

    /// An interactive shell survives Ctrl-C, Ctrl-\ and `kill` at the prompt, and Ctrl-Z does
    /// not stop it (as in bash: with job control, it must not stop while it keeps jobs); its
    /// children get the defaults back before they start (see `reset_child_state`). Ctrl-C is
    /// noted rather than ignored (`note_ctrl_c`), or ignored if it cannot be.
    pub fn ignore_interactive_signals() {
        ignore(&[libc::SIGQUIT, libc::SIGTERM, libc::SIGTSTP]);
        if note_ctrl_c().is_err() {
            ignore(&[libc::SIGINT]);
        }
    }

    /// Ctrl-C came for the shell itself (see `note_ctrl_c`).
    static CTRL_C: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_ctrl_c(_: libc::c_int) {
        CTRL_C.store(true, Ordering::SeqCst);
    }

    /// Ctrl-C reaches the interactive shell itself, and the forked copies of it in its process
    /// group, while they run builtins (a program holds the terminal, and takes Ctrl-C, in a
    /// group of its own): the handler only notes it, and the shell abandons its line at the
    /// next command (`take_ctrl_c`), so that `while :; do :; done` can be interrupted as in
    /// bash. SA_RESTART: what the shell was doing goes on to that point. A program gets the
    /// default back at its exec, as for any handled signal.
    fn note_ctrl_c() -> Result<(), Errno> {
        // SAFETY: the handler only stores to an atomic.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_ctrl_c as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut()) != 0 {
                return Err(Errno::last());
            }
        }
        Ok(())
    }

    /// Whether Ctrl-C came since the last call (see `note_ctrl_c`).
    pub fn take_ctrl_c() -> bool {
        CTRL_C.swap(false, Ordering::SeqCst)
    }

    /// Whether Ctrl-C came, leaving it for `take_ctrl_c`.
    pub fn ctrl_c_noted() -> bool {
        CTRL_C.load(Ordering::SeqCst)
    }

    /// In a forked copy of the shell: SIGTERM and SIGQUIT end it again, as they end a bash
    /// subshell, where the interactive shell ignores them (as rsh found them otherwise). A
    /// copy that ignored them went on past the timeout's SIGTERM (`{ sleep 30; echo after;
    /// sleep 30; } | cat` ran `echo` and the next `sleep`) until SIGKILL.
    pub fn default_terminations() {
        for sig in [libc::SIGTERM, libc::SIGQUIT] {
            // SAFETY: setting a default or ignored disposition has no memory effects.
            unsafe { libc::signal(sig, super::entry_disposition(sig)) };
        }
    }

    /// In a shell forked inside a job: the stops from the terminal stop it again, as they do
    /// the job's programs, so that the shell that waits for the job sees it stop.
    /// (Stops that rsh's parent left ignored stay ignored, as for its programs.)
    pub fn default_stops() {
        super::release_stops();
    }

    /// Which of the signals handled by `end_input_on` came (by signal number).
    static NOTED: [AtomicBool; 32] = [const { AtomicBool::new(false) }; 32];
    /// /dev/null, for the handler to put in place of standard input.
    static NULL: AtomicI32 = AtomicI32::new(-1);
    /// The hang-up was passed on (see `pass_on_hang_up`).
    static HANG_UP_PASSED: AtomicBool = AtomicBool::new(false);
    /// The forked copy of the shell being waited for (0: none), see `waiting_for`.
    static WAITED: AtomicI32 = AtomicI32::new(0);
    /// rsh leads its process group (see `pass_on_hang_up`).
    static LEADS_GROUP: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_input_ending(sig: libc::c_int) {
        // SAFETY: only atomics, dup2 and kill (async-signal-safe); errno is put back for the
        // code interrupted.
        unsafe {
            let saved = *libc::__errno_location();
            if let Some(noted) = NOTED.get(sig as usize) {
                noted.store(true, Ordering::SeqCst);
            }
            let null = NULL.load(Ordering::SeqCst);
            if null >= 0 {
                libc::dup2(null, 0);
            }
            if sig == libc::SIGHUP {
                pass_on_hang_up();
            }
            *libc::__errno_location() = saved;
        }
    }

    /// Makes `sig` end the line being read, wherever it is read: its handler notes it
    /// (`noted`) and puts /dev/null in place of standard input, so that the read (the line
    /// editor's or the plain one, both of which retry after a signal) sees the end of the
    /// input. The idle timeout's SIGALRM, and the hang-up (see `catch_hang_up`).
    pub fn end_input_on(sig: libc::c_int) -> Result<(), Errno> {
        if NULL.load(Ordering::SeqCst) < 0 {
            // Not marked as rsh's own: /dev/null is every program's too.
            let null = nix::fcntl::open(
                "/dev/null",
                nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_CLOEXEC,
                nix::sys::stat::Mode::empty(),
            )
            .and_then(super::fd::to_shell_range)?;
            NULL.store(null.into_raw_fd(), Ordering::SeqCst);
        }
        // SAFETY: the handler only touches atomics and makes async-signal-safe calls;
        // SA_RESTART so that an interrupted read restarts, now on /dev/null.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_input_ending as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(sig, &action, std::ptr::null_mut()) != 0 {
                return Err(Errno::last());
            }
        }
        Ok(())
    }

    /// Whether `sig`, handled by `end_input_on`, came.
    pub fn noted(sig: libc::c_int) -> bool {
        NOTED
            .get(sig as usize)
            .is_some_and(|noted| noted.load(Ordering::SeqCst))
    }

    /// The interactive shell ends cleanly on SIGHUP (a closed terminal, a dropped ssh
    /// connection) instead of dying where it stands: the handler notes it and ends the line
    /// being read (`end_input_on`), and passes it on (`pass_on_hang_up`); the shell then ends
    /// its stopped jobs and its records, and dies by the signal (`hung_up`). While a command
    /// runs the signal is taken by the wait (see `job`).
    pub fn catch_hang_up() -> Result<(), Errno> {
        // SAFETY: plain queries.
        let leads = unsafe { libc::getpgrp() == libc::getpid() };
        LEADS_GROUP.store(leads, Ordering::SeqCst);
        end_input_on(libc::SIGHUP)
    }

    /// Whether the interactive shell was hung up (see `catch_hang_up`).
    pub fn hung_up() -> bool {
        noted(libc::SIGHUP)
    }

    /// Passes a hang-up on, once, to what the shell waits for without a job of its own: a
    /// subshell or command substitution is a forked copy of the shell in the shell's own
    /// process group, which the kernel's hang-up (sent to the session's leader) does not
    /// reach, and whose loop would run on unseen. When rsh leads its group, all of the group
    /// gets it (forked copies of forked copies too; rsh itself ignores it the second time);
    /// otherwise the forked copy being waited for. Async-signal-safe.
    fn pass_on_hang_up() {
        if HANG_UP_PASSED.swap(true, Ordering::SeqCst) {
            return;
        }
        // SAFETY: kill takes integers.
        unsafe {
            if LEADS_GROUP.load(Ordering::SeqCst) {
                libc::kill(0, libc::SIGHUP);
            } else {
                let waited = WAITED.load(Ordering::SeqCst);
                if waited > 0 {
                    libc::kill(waited, libc::SIGHUP);
                }
            }
        }
    }

    /// Notes the forked copy of the shell the shell now waits for (None: the wait is over),
    /// for a hang-up to reach it; hung up already, it gets the hang-up at once.
    pub fn waiting_for(child: Option<nix::unistd::Pid>) {
        let pid = child.map_or(0, |pid| pid.as_raw());
        WAITED.store(pid, Ordering::SeqCst);
        if pid > 0 && hung_up() {
            // SAFETY: a signal to the shell's own child, not yet reaped.
            unsafe { libc::kill(pid, libc::SIGHUP) };
        }
    }

    /// In a forked copy of the shell: SIGHUP ends it by default again, unless rsh's parent
    /// left it ignored (`nohup`), as for its programs.
    pub fn default_hang_up() {
        // SAFETY: setting a default or ignored disposition has no memory effects.
        unsafe { libc::signal(libc::SIGHUP, super::entry_disposition(libc::SIGHUP)) };
    }

    /// In a process rsh starts that is not one of its programs (the approver), after the fork:
    /// every signal the shell changes for itself as rsh found it, so that an interactive
    /// shell's handling of Ctrl-C and `kill` does not reach it. Async-signal-safe.
    pub fn restore_entry_dispositions() {
        super::put_back_signals(false);
    }

    /// Ignores each of `signals`.
    pub fn ignore(signals: &[libc::c_int]) {
        for &sig in signals {
            // SAFETY: as above.
            unsafe { libc::signal(sig, libc::SIG_IGN) };
        }
    }
}

/// Raises rsh's own stack limit so deep (but bounded) recursion in functions and nested
/// substitutions does not overflow; returns the original limit so children get it back.
pub fn raise_stack_limit() -> Option<libc::rlimit> {
    const WANTED: libc::rlim_t = 256 * 1024 * 1024;
    let mut original = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut original) } != 0 {
        return None;
    }
    if original.rlim_cur == libc::RLIM_INFINITY || original.rlim_cur >= WANTED {
        return None;
    }
    let raised = libc::rlimit {
        rlim_cur: WANTED.min(original.rlim_max),
        rlim_max: original.rlim_max,
    };
    // SAFETY: setrlimit reads the struct we own.
    if unsafe { libc::setrlimit(libc::RLIMIT_STACK, &raised) } != 0 {
        return None;
    }
    Some(original)
}
