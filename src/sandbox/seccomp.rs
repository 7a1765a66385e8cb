//! Seccomp filters for the programs rsh starts.
//!
//! rsh compiles its own classic-BPF programs rather than checking a list of rules one after
//! another: the system call number is dispatched by a balanced binary search, so a call costs a
//! handful of comparisons, and with each action returned from one place a whole profile fits
//! in about 150 instructions.
//!
//! The programs of the eight profiles are compiled when rsh is built ([`stored_programs`]); the
//! parent takes its profile's and puts in the one address known only at run time
//! ([`Filter::from_stored`]).
//! A filter is built in the parent ([`Filter::build`]) and installed in the child between `fork`
//! and `execveat` ([`Filter::install`], one system call, no allocation). It must be the last
//! thing the child sets up: every system call after it, rsh's own `execveat` included, goes
//! through the filter, and so does everything the program and its descendants do.
//!
//! What the program does, under every profile:
//!
//! 1. A system call made under another architecture (`int 0x80` from a 64-bit process, for
//!    instance) kills the process. Its numbers mean other calls, so the lookup below would
//!    judge the wrong call; nothing legitimate that rsh starts does this.
//! 2. An x32 system call (number with bit 30 set, same architecture value) fails with EPERM.
//!    x32 numbers alias the x86_64 ones, so without this check `mount | 1 << 30` would get
//!    past the deny list on kernels built with x32 support. An errno rather than a kill,
//!    because x32 is usually compiled out and such a call then fails with ENOSYS anyway: a
//!    program probing for x32 gets an error it already handles, and a real x32 program gets a
//!    clear "Operation not permitted" instead of dying mysteriously.
//! 3. The number is looked up in a binary search over the sorted numbers that need attention,
//!    with runs of neighbouring numbers that are treated alike merged into one leaf and the gaps
//!    between them allowed. A leaf either returns an action or checks an argument: the ioctl
//!    request, the socket domain, the clone flags, the execveat pathname. Arguments are 64-bit
//!    and BPF loads 32 bits at a time; where the kernel truncates an argument to 32 bits
//!    (ioctl request, socket domain, clone flags) only the low half is compared, exactly what
//!    the kernel will act on; the execveat pointer is compared whole, both halves.
//!
//! The system call numbers are those of x86_64.
#![allow(unsafe_code)]

#[cfg(not(target_arch = "x86_64"))]
compile_error!("rsh's seccomp filters use the x86_64 system call numbers");

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::mem::offset_of;
use std::sync::LazyLock;

use libc::{c_long, c_ulong, seccomp_data, sock_filter};

/// What a child may do, as far as seccomp is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeccompProfile {
    /// TCP/UDP and netlink sockets allowed.
    pub network: bool,
    /// Unix sockets allowed, which reach a service through its socket file; otherwise only
    /// stream socket pairs, whose ends cannot be pointed anywhere else.
    pub unix_sockets: bool,
    /// The program may start other programs; otherwise fork/vfork/clone-without-CLONE_THREAD
    /// → EPERM, clone3 → ENOSYS (glibc then falls back to clone for threads), execve → EPERM,
    /// and execveat is allowed only with `exec_path_ptr` as its pathname argument (see
    /// [`Filter::build`]).
    pub subprocesses: bool,
}

/// `AUDIT_ARCH_X86_64`: `EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE`.
const AUDIT_ARCH_X86_64: u32 = 62 | 0x8000_0000 | 0x4000_0000;

/// `__X32_SYSCALL_BIT`: x32 system calls carry it in their number, under the x86_64 arch value.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const KILL: u32 = libc::SECCOMP_RET_KILL_PROCESS;
const DENY: u32 = fail(libc::EPERM);
const NO_SUCH_CALL: u32 = fail(libc::ENOSYS);

/// The action that makes the system call fail with `errno` without running it.
const fn fail(errno: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (errno as u32 & libc::SECCOMP_RET_DATA)
}

// Offsets of the 32-bit words of `struct seccomp_data` the program loads. x86_64 is
// little-endian: the low half of an argument comes first.
const NR: u32 = offset_of!(seccomp_data, nr) as u32;
const ARCH: u32 = offset_of!(seccomp_data, arch) as u32;

const fn arg_low(index: u32) -> u32 {
    offset_of!(seccomp_data, args) as u32 + 8 * index
}

const fn arg_high(index: u32) -> u32 {
    arg_low(index) + 4
}

/// System calls newer than the libc crate's tables (x86_64 numbers, from the kernel's
/// syscall_64.tbl).
const SYS_SETXATTRAT: c_long = 463;
const SYS_REMOVEXATTRAT: c_long = 466;
const SYS_OPEN_TREE_ATTR: c_long = 467;
const SYS_FILE_SETATTR: c_long = 469;

/// Denied with EPERM under every profile: reaching into other processes, mounts and
/// namespaces, kernel keyrings, BPF and perf, kexec and kernel modules, io_uring (whose
/// operations seccomp never sees), userfaultfd (a tool for widening kernel races), opening
/// files by handle (which bypasses path-based rules), machine-wide settings that matter when
/// rsh runs as root (the clock, the host name, reboot, swap, accounting, quotas, port I/O),
/// leaving the command's session or process group (which would escape its timeout), and
/// changing owners and inode flags: Landlock does not govern them, so a program could
/// otherwise change them on files it may only read, or not reach at all. Extended
/// attributes likewise, but see `NO_ATTRIBUTES`. And System V IPC and POSIX message queues,
/// shared with every process of the machine's IPC namespace.
const ALWAYS_DENIED: &[c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_kcmp,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_setns,
    libc::SYS_unshare,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_userfaultfd,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_fanotify_init,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_acct,
    libc::SYS_quotactl,
    libc::SYS_vhangup,
    libc::SYS_iopl,
    libc::SYS_ioperm,
    libc::SYS_uselib,
    libc::SYS_setsid,
    libc::SYS_setpgid,
    libc::SYS_quotactl_fd,
    SYS_OPEN_TREE_ATTR,
    libc::SYS_chown,
    libc::SYS_fchown,
    libc::SYS_lchown,
    libc::SYS_fchownat,
    SYS_FILE_SETATTR,
    // System V IPC: its shared memory, semaphores and message queues are reached by key,
    // not path, so neither Landlock nor its scoping holds a program to its own.
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmdt,
    libc::SYS_shmctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    // POSIX message queues are named, but not in any file system a program reaches: the
    // kernel makes and removes them without asking Landlock, so a program could remove any
    // queue its user may, make queues outliving it, and use up the machine's queues_max.
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
    libc::SYS_mq_timedsend,
    libc::SYS_mq_timedreceive,
    libc::SYS_mq_notify,
    libc::SYS_mq_getsetattr,
];

/// Setting or removing an extended attribute fails with EOPNOTSUPP under every profile, as on
/// a file system without them, rather than with EPERM: programs that carry a file's ACL over
/// to its new copy (`sed -i`, `cp -p`, `tar -x`) take that as "no ACLs here" and go on
/// quietly, where EPERM made each of them print an error.
const NO_ATTRIBUTES: &[c_long] = &[
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    libc::SYS_removexattr,
    libc::SYS_lremovexattr,
    libc::SYS_fremovexattr,
    SYS_SETXATTRAT,
    SYS_REMOVEXATTRAT,
];
const NOT_SUPPORTED: u32 = fail(libc::EOPNOTSUPP);

/// chmod calls and the argument that holds the mode: setting the set-user-ID or set-group-ID
/// bit is refused (anyone else running that file would get its owner's rights), other modes
/// pass.
const CHMODS: [(c_long, u32); 4] = [
    (libc::SYS_chmod, 1),
    (libc::SYS_fchmod, 1),
    (libc::SYS_fchmodat, 2),
    (libc::SYS_fchmodat2, 2),
];
const SET_ID_BITS: u32 = libc::S_ISUID | libc::S_ISGID;

/// Calls that act on a process named by their first argument: only the caller itself (0)
/// may be named. Landlock's scoping does not cover resource limits and scheduling, so a
/// program could otherwise lower rsh's limits (and have it killed) or starve other processes.
const SELF_ONLY: [c_long; 5] = [
    libc::SYS_prlimit64,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setattr,
];

/// personality(2) arguments that change nothing: the query, and the plain Linux persona.
/// Anything else could switch off address-space randomisation (ADDR_NO_RANDOMIZE) or make
/// data executable (READ_IMPLIES_EXEC) for what is executed next.
const PERSONALITY_QUERY: u32 = 0xffff_ffff;

/// `ioprio_set`'s "which" for a single process (linux/ioprio.h).
const IOPRIO_WHO_PROCESS: u32 = 1;
const PER_LINUX: u32 = 0;

/// clone flags that create namespaces: refused under every profile (unshare is denied too).
/// CLONE_NEWTIME is left out: it shares its bit with the exit signal for clone, and clone3,
/// the only way to ask for it, is not let through.
const NAMESPACE_FLAGS: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWCGROUP) as u32;

/// Socket families of a command with network, besides AF_UNIX. Raw packets (AF_PACKET), the
/// kernel crypto interface (AF_ALG), VM sockets and the like are refused either way.
const NETWORK_FAMILIES: [libc::c_int; 3] = [libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK];

/// The bits a socket pair's type may have without `unix_sockets`: SOCK_STREAM (1) and
/// SOCK_SEQPACKET (5), with SOCK_NONBLOCK and SOCK_CLOEXEC, the only flags the kernel takes.
/// Bit 0 must be set too, which leaves exactly those two types: connected streams, whose ends
/// cannot be pointed anywhere else. Not SOCK_DGRAM (2), nor SOCK_RAW (3, a datagram pair for
/// AF_UNIX): the end of a datagram pair can send to any socket file, or be connected to one.
const STREAM_PAIR_BITS: u32 = (1 | 4 | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) as u32;

/// A decision over `struct seccomp_data`, compiled to BPF by [`emit`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    /// Return this action.
    Ret(u32),
    /// Load the 32-bit word at offset `load` into the accumulator (`None`: keep the word an
    /// enclosing test loaded), then continue with `yes` when `A op k` holds, with `no`
    /// otherwise.
    Test {
        load: Option<u32>,
        op: Op,
        k: u32,
        yes: Box<Node>,
        no: Box<Node>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `A == k`
    Eq,
    /// `A >= k`
    Ge,
    /// `A & k != 0`
    AnyBit,
}

fn test(load: Option<u32>, op: Op, k: u32, yes: Node, no: Node) -> Node {
    Node::Test {
        load,
        op,
        k,
        yes: Box::new(yes),
        no: Box::new(no),
    }
}

/// The whole program: architecture, x32, then the dispatch on the system call number.
fn program(profile: SeccompProfile, exec_path_ptr: usize) -> Vec<sock_filter> {
    compile(&rules(profile, exec_path_ptr), &Node::Ret(ALLOW))
}

/// The code of a filter: the architecture and x32 checks, then the search over `rules`, with
/// `otherwise` for the numbers no rule names, each action returned from one place.
fn compile(rules: &BTreeMap<u32, Node>, otherwise: &Node) -> Vec<sock_filter> {
    share_returns(checked(search(&intervals(rules, otherwise))))
}

/// The code of `dispatch` behind the checks of the architecture and of x32 numbers.
fn checked(dispatch: Vec<sock_filter>) -> Vec<sock_filter> {
    let x32 = assemble(
        Some(NR),
        Op::AnyBit,
        X32_SYSCALL_BIT,
        emit(&Node::Ret(DENY)),
        dispatch,
    );
    assemble(
        Some(ARCH),
        Op::Eq,
        AUDIT_ARCH_X86_64,
        x32,
        emit(&Node::Ret(KILL)),
    )
}

/// How each system call that is not simply allowed is treated under `profile`.
fn rules(profile: SeccompProfile, exec_path_ptr: usize) -> BTreeMap<u32, Node> {
    let allow = || Node::Ret(ALLOW);
    let deny = || Node::Ret(DENY);
    let mut rules: BTreeMap<u32, Node> = ALWAYS_DENIED
        .iter()
        .map(|&nr| (nr as u32, deny()))
        .collect();
    for &nr in NO_ATTRIBUTES {
        rules.insert(nr as u32, Node::Ret(NOT_SUPPORTED));
    }
    // Typing into the terminal's input queue, and the virtual console's grab bag. The kernel
    // truncates the request to 32 bits, so `TIOCSTI | 1 << 32` is TIOCSTI: compare the low half.
    // TIOCSETD changes the terminal's line discipline.
    let ioctl = [libc::TIOCSTI, libc::TIOCLINUX, libc::TIOCSETD]
        .iter()
        .rev()
        .fold(allow(), |otherwise, &request| {
            test(None, Op::Eq, request as u32, deny(), otherwise)
        });
    rules.insert(libc::SYS_ioctl as u32, with_load(arg_low(1), ioctl));
    for (nr, mode) in CHMODS {
        let chmod = test(
            Some(arg_low(mode)),
            Op::AnyBit,
            SET_ID_BITS,
            deny(),
            allow(),
        );
        rules.insert(nr as u32, chmod);
    }
    // pid_t arguments are ints: the low half.
    for nr in SELF_ONLY {
        rules.insert(
            nr as u32,
            test(Some(arg_low(0)), Op::Eq, 0, allow(), deny()),
        );
    }
    // setpriority(PRIO_PROCESS, 0, ...) and ioprio_set(IOPRIO_WHO_PROCESS, 0, ...): the caller.
    let own = |which: u32| {
        test(
            Some(arg_low(0)),
            Op::Eq,
            which,
            test(Some(arg_low(1)), Op::Eq, 0, allow(), deny()),
            deny(),
        )
    };
    rules.insert(libc::SYS_setpriority as u32, own(libc::PRIO_PROCESS));
    rules.insert(libc::SYS_ioprio_set as u32, own(IOPRIO_WHO_PROCESS));
    let personality = test(
        Some(arg_low(0)),
        Op::Eq,
        PERSONALITY_QUERY,
        allow(),
        test(None, Op::Eq, PER_LINUX, allow(), deny()),
    );
    rules.insert(libc::SYS_personality as u32, personality);
    // rsh gives each program SIGKILL as its parent-death signal, so that it ends if rsh is
    // killed; a program may set that again, not change it (0 or a signal it catches would let
    // it outlive rsh and its timeout).
    let prctl = test(
        Some(arg_low(0)),
        Op::Eq,
        libc::PR_SET_PDEATHSIG as u32,
        test(
            Some(arg_low(1)),
            Op::Eq,
            libc::SIGKILL as u32,
            allow(),
            deny(),
        ),
        allow(),
    );
    rules.insert(libc::SYS_prctl as u32, prctl);
    // The domain is an `int` for the kernel. A unix socket could connect to any service's
    // socket file (a container engine's, the user's systemd or D-Bus, which start programs
    // outside rsh; the syslog daemon's, which would take forged audit records), and Landlock
    // before ABI 9 does not govern that.
    let unix: &[libc::c_int] = if profile.unix_sockets {
        &[libc::AF_UNIX]
    } else {
        &[]
    };
    let network: &[libc::c_int] = if profile.network {
        &NETWORK_FAMILIES
    } else {
        &[]
    };
    let socket = unix
        .iter()
        .chain(network)
        .rev()
        .fold(deny(), |otherwise, &family| {
            test(None, Op::Eq, family as u32, allow(), otherwise)
        });
    rules.insert(libc::SYS_socket as u32, with_load(arg_low(0), socket));
    if !profile.unix_sockets {
        let stream = test(None, Op::AnyBit, 1, allow(), deny());
        let pair = test(None, Op::AnyBit, !STREAM_PAIR_BITS, deny(), stream);
        rules.insert(libc::SYS_socketpair as u32, with_load(arg_low(1), pair));
    }
    // Without either, the only sockets are pairs, which need no address: bound to an
    // abstract name, one would squat it (another program's service could not take it).
    if !profile.unix_sockets && !profile.network {
        for nr in [libc::SYS_bind, libc::SYS_listen] {
            rules.insert(nr as u32, deny());
        }
    }
    // The kernel uses the low 32 bits of the flags. Threads are fine (CLONE_THREAD implies
    // CLONE_VM: no new program can come of it).
    let new_process = if profile.subprocesses {
        allow()
    } else {
        test(None, Op::AnyBit, libc::CLONE_THREAD as u32, allow(), deny())
    };
    let clone = test(
        Some(arg_low(0)),
        Op::AnyBit,
        NAMESPACE_FLAGS,
        deny(),
        new_process,
    );
    rules.insert(libc::SYS_clone as u32, clone);
    // clone3's flags sit behind a pointer seccomp cannot follow. ENOSYS, not EPERM: glibc and
    // other runtimes then fall back to clone, whose flags are checked above.
    rules.insert(libc::SYS_clone3 as u32, Node::Ret(NO_SUCH_CALL));
    if !profile.subprocesses {
        for nr in [libc::SYS_fork, libc::SYS_vfork, libc::SYS_execve] {
            rules.insert(nr as u32, deny());
        }
        rules.insert(libc::SYS_execveat as u32, exec_only(exec_path_ptr));
    }
    rules
}

/// `node` with its first test loading the word at `offset` (for chains built bottom-up).
fn with_load(offset: u32, node: Node) -> Node {
    match node {
        Node::Test {
            load: None,
            op,
            k,
            yes,
            no,
        } => Node::Test {
            load: Some(offset),
            op,
            k,
            yes,
            no,
        },
        other => other,
    }
}

/// A 64-bit argument's low and high 32-bit words, as BPF loads them.
fn halves(ptr: usize) -> (u32, u32) {
    let ptr = ptr as u64;
    (ptr as u32, (ptr >> 32) as u32)
}

/// execveat with `ptr`, and only `ptr`, as its pathname: rsh's own exec of the decided program
/// passes, and a program started under the filter would have to produce that value.
fn exec_only(ptr: usize) -> Node {
    // A null pathname with AT_EMPTY_PATH is valid since Linux 6.11: 0 allows nothing.
    if ptr == 0 {
        return Node::Ret(DENY);
    }
    let (low, high) = halves(ptr);
    test(
        Some(arg_low(1)),
        Op::Eq,
        low,
        test(
            Some(arg_high(1)),
            Op::Eq,
            high,
            Node::Ret(ALLOW),
            Node::Ret(DENY),
        ),
        Node::Ret(DENY),
    )
}

/// Cuts the number space into intervals `[start, next start)` treated alike, in order. The
/// first starts at 0; numbers without a rule get `otherwise`, and so does the last interval,
/// which runs to the end of the space. Built from the rules alone, without cloning a node:
/// rsh builds a filter on every start.
fn intervals<'a>(rules: &'a BTreeMap<u32, Node>, otherwise: &'a Node) -> Vec<(u32, &'a Node)> {
    let mut intervals: Vec<(u32, &Node)> = Vec::with_capacity(2 * rules.len() + 1);
    let mut push = |start: u32, node: &'a Node| {
        if intervals.last().is_none_or(|(_, last)| *last != node) {
            intervals.push((start, node));
        }
    };
    // The first number not covered yet.
    let mut next = 0;
    for (&nr, node) in rules {
        if nr > next {
            push(next, otherwise);
        }
        push(nr, node);
        next = nr + 1;
    }
    push(next, otherwise);
    intervals
}

/// The code of a balanced binary search over `intervals`, on the number already in the
/// accumulator.
fn search(intervals: &[(u32, &Node)]) -> Vec<sock_filter> {
    if let [(_, leaf)] = intervals {
        return emit(leaf);
    }
    let middle = intervals.len() / 2;
    assemble(
        None,
        Op::Ge,
        intervals[middle].0,
        search(&intervals[middle..]),
        search(&intervals[..middle]),
    )
}

/// Compiles a decision into BPF.
fn emit(node: &Node) -> Vec<sock_filter> {
    match node {
        Node::Ret(action) => vec![statement(libc::BPF_RET | libc::BPF_K, *action)],
        Node::Test {
            load,
            op,
            k,
            yes,
            no,
        } => assemble(*load, *op, *k, emit(yes), emit(no)),
    }
}

/// A test and its two branches, laid out as `[load] test, yes…, no…`: every jump goes forward
/// over code of known length, so offsets need no second pass. When the `yes` branch is longer
/// than a conditional jump's 8-bit offset can skip, the test jumps to an unconditional `JA`
/// (32-bit offset) instead.
fn assemble(
    load: Option<u32>,
    op: Op,
    k: u32,
    yes: Vec<sock_filter>,
    no: Vec<sock_filter>,
) -> Vec<sock_filter> {
    let mut code = Vec::with_capacity(3 + yes.len() + no.len());
    if let Some(offset) = load {
        code.push(statement(
            libc::BPF_LD | libc::BPF_W | libc::BPF_ABS,
            offset,
        ));
    }
    match u8::try_from(yes.len()) {
        Ok(skip) => code.push(jump(op, k, 0, skip)),
        Err(_) => {
            code.push(jump(op, k, 1, 0));
            code.push(statement(libc::BPF_JMP | libc::BPF_JA, yes.len() as u32));
        }
    }
    code.extend(yes);
    code.extend(no);
    code
}

/// `code` with each distinct return written once, at the end, and every jump to a return
/// going there; the inline returns nothing reaches any more are left out. Nearly half of a
/// search's instructions are its leaves' returns, and installing a filter costs the kernel
/// time for every instruction (it is translated and compiled in the child, before the exec):
/// about 0.4 µs each here. Jumps all go forward, in the same order, so the meaning is
/// unchanged; when a conditional jump would have to reach further than its 8-bit offset
/// allows, `code` is returned as it was.
fn share_returns(code: Vec<sock_filter>) -> Vec<sock_filter> {
    const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    const JA: u16 = (libc::BPF_JMP | libc::BPF_JA) as u16;
    let is_jump = |insn: &sock_filter| u32::from(insn.code) & 0x07 == libc::BPF_JMP;
    let mut shared: Vec<sock_filter> = Vec::new();
    for insn in code.iter().filter(|insn| insn.code == RET) {
        if !shared.iter().any(|r| r.k == insn.k) {
            shared.push(*insn);
        }
    }
    let end = code.len();
    // Where a target leads: a return's target is its shared copy.
    let resolve = |target: usize| match code[target] {
        insn if insn.code == RET => end + shared.iter().position(|r| r.k == insn.k).unwrap_or(0),
        _ => target,
    };
    // Absolute targets of every jump (JA: in `jt`), and what is still reached.
    let mut targets = vec![(0usize, 0usize); end];
    let mut reached = vec![false; end + shared.len()];
    reached[0] = true;
    for at in 0..end {
        let insn = code[at];
        if !reached[at] || insn.code == RET {
            continue;
        }
        let next = |offset: usize| resolve(at + 1 + offset);
        let (yes, no) = if insn.code == JA {
            let target = next(insn.k as usize);
            (target, target)
        } else if is_jump(&insn) {
            (next(usize::from(insn.jt)), next(usize::from(insn.jf)))
        } else {
            (at + 1, at + 1)
        };
        targets[at] = (yes, no);
        reached[yes] = true;
        reached[no] = true;
    }
    // New places, the shared returns after the code (those a jump reaches).
    let mut index = vec![0usize; end + shared.len()];
    let mut kept = 0;
    for (at, place) in index.iter_mut().enumerate() {
        *place = kept;
        kept += usize::from(reached[at]);
    }
    let mut out = Vec::with_capacity(kept);
    for at in (0..end).filter(|&at| reached[at]) {
        let mut insn = code[at];
        let here = out.len();
        let (yes, no) = targets[at];
        if insn.code == JA {
            insn.k = (index[yes] - here - 1) as u32;
        } else if is_jump(&insn) {
            let (Ok(jt), Ok(jf)) = (
                u8::try_from(index[yes] - here - 1),
                u8::try_from(index[no] - here - 1),
            ) else {
                return code;
            };
            (insn.jt, insn.jf) = (jt, jf);
        }
        out.push(insn);
    }
    out.extend(
        (0..shared.len())
            .filter(|&i| reached[end + i])
            .map(|i| shared[i]),
    );
    out
}

fn statement(code: u32, k: u32) -> sock_filter {
    sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(op: Op, k: u32, jt: u8, jf: u8) -> sock_filter {
    let condition = match op {
        Op::Eq => libc::BPF_JEQ,
        Op::Ge => libc::BPF_JGE,
        Op::AnyBit => libc::BPF_JSET,
    };
    sock_filter {
        code: (libc::BPF_JMP | condition | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

/// A compiled filter, ready to install in a child without allocating.
#[derive(Clone)]
pub struct Filter {
    instructions: Vec<sock_filter>,
}

/// Every profile, in the order their programs are stored (see [`stored_programs`]).
const STORED_PROFILES: [SeccompProfile; 8] = {
    let mut all = [SeccompProfile {
        network: false,
        unix_sockets: false,
        subprocesses: false,
    }; 8];
    let mut i = 0;
    while i < all.len() {
        all[i] = SeccompProfile {
            network: i & 1 != 0,
            unix_sockets: i & 2 != 0,
            subprocesses: i & 4 != 0,
        };
        i += 1;
    }
    all
};

/// The execveat pathname a stored program is compiled with, in place of the address known only
/// at run time: its two halves are constants no rule compares with.
const STORED_PTR: usize = 0x7e57_a11d_5eed_c0de;

/// The programs of every profile, compiled when rsh is built (`build.rs`): compiling one at
/// start took about 40 µs and 200 allocations. Each is a little-endian count of instructions,
/// then the instructions (code, jt, jf, k).
pub fn stored_programs() -> Vec<u8> {
    let mut out = Vec::new();
    let (low, high) = halves(STORED_PTR);
    for profile in STORED_PROFILES {
        let instructions = program(profile, STORED_PTR);
        let patched = |k: u32| {
            instructions
                .iter()
                .filter(|insn| is_ptr_test(insn, k))
                .count()
        };
        let expected = usize::from(!profile.subprocesses);
        assert!(
            patched(low) == expected && patched(high) == expected,
            "the stored execveat pathname must be compared exactly once in {profile:?}"
        );
        assert!(
            instructions
                .iter()
                .all(|insn| insn.k != low && insn.k != high || is_ptr_test(insn, insn.k)),
            "the stored execveat pathname's halves must mean nothing else in {profile:?}"
        );
        out.extend_from_slice(&(instructions.len() as u32).to_le_bytes());
        for insn in &instructions {
            out.extend_from_slice(&insn.code.to_le_bytes());
            out.extend_from_slice(&[insn.jt, insn.jf]);
            out.extend_from_slice(&insn.k.to_le_bytes());
        }
    }
    out
}

/// Whether `insn` is a comparison of the accumulator with `k`, as `exec_only` emits.
fn is_ptr_test(insn: &sock_filter, k: u32) -> bool {
    insn.code == (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16 && insn.k == k
}

/// `profile`'s program from `stored` (what [`stored_programs`] made), with `exec_path_ptr`
/// put in; None when `stored` does not hold it.
fn stored_program(
    stored: &[u8],
    profile: SeccompProfile,
    exec_path_ptr: usize,
) -> Option<Vec<sock_filter>> {
    let index = STORED_PROFILES.iter().position(|p| *p == profile)?;
    // Past the programs stored before it, to its own.
    let (mut rest, mut bytes): (&[u8], &[u8]) = (stored, &[]);
    for _ in 0..=index {
        let count = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        bytes = rest.get(4..4 + 8 * count)?;
        rest = &rest[4 + 8 * count..];
    }
    let (stored_low, stored_high) = halves(STORED_PTR);
    let (low, high) = halves(exec_path_ptr);
    let instructions = bytes
        .chunks_exact(8)
        .map(|b| {
            let mut insn = sock_filter {
                code: u16::from_le_bytes([b[0], b[1]]),
                jt: b[2],
                jf: b[3],
                k: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            };
            if is_ptr_test(&insn, stored_low) {
                insn.k = low;
            } else if is_ptr_test(&insn, stored_high) {
                insn.k = high;
            }
            insn
        })
        .collect();
    Some(instructions)
}

impl Filter {
    /// `exec_path_ptr`: the address of the empty C string the child passes to
    /// `execveat(fd, "", …, AT_EMPTY_PATH)` (in the parent's — and therefore the forked
    /// child's — address space; [`EMPTY_PATH`] is one at an unpredictable address).
    /// Only used when `subprocesses` is false; 0 then denies every execveat.
    pub fn build(profile: SeccompProfile, exec_path_ptr: usize) -> Filter {
        Filter::checked(program(profile, exec_path_ptr))
    }

    /// As [`Filter::build`], from the programs stored when rsh was built; compiled here when
    /// `stored` does not hold the profile's. (A null `exec_path_ptr` denies every execveat, a
    /// program of another shape: it is compiled.)
    pub fn from_stored(stored: &[u8], profile: SeccompProfile, exec_path_ptr: usize) -> Filter {
        match stored_program(stored, profile, exec_path_ptr).filter(|_| exec_path_ptr != 0) {
            Some(instructions) => Filter::checked(instructions),
            None => Filter::build(profile, exec_path_ptr),
        }
    }

    fn checked(instructions: Vec<sock_filter>) -> Filter {
        assert!(
            instructions.len() <= libc::BPF_MAXINSNS as usize,
            "seccomp program of {} instructions",
            instructions.len()
        );
        Filter { instructions }
    }

    /// The filter of a process of rsh's own that needs only a few system calls (the watch
    /// over stopped jobs, see `spawn::watch`): `allowed` pass, with these limits when listed:
    /// `openat` only to read, `mmap` and `mprotect` never for executable memory, `kill` only
    /// for a process group (a pid below -1: -1 means every process); anything else fails
    /// with EPERM.
    pub fn only(allowed: &[c_long]) -> Filter {
        let allow = || Node::Ret(ALLOW);
        let deny = || Node::Ret(DENY);
        let writing = (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32;
        let not_exec = || {
            test(
                Some(arg_low(2)),
                Op::AnyBit,
                libc::PROT_EXEC as u32,
                deny(),
                allow(),
            )
        };
        let rules: BTreeMap<u32, Node> = allowed
            .iter()
            .map(|&nr| {
                let rule = match nr {
                    libc::SYS_openat => {
                        test(Some(arg_low(2)), Op::AnyBit, writing, deny(), allow())
                    }
                    libc::SYS_mmap | libc::SYS_mprotect => not_exec(),
                    libc::SYS_kill => test(
                        Some(arg_low(0)),
                        Op::Ge,
                        1 << 31,
                        test(None, Op::Eq, u32::MAX, deny(), allow()),
                        deny(),
                    ),
                    _ => allow(),
                };
                (nr as u32, rule)
            })
            .collect();
        let instructions = compile(&rules, &deny());
        assert!(instructions.len() <= libc::BPF_MAXINSNS as usize);
        Filter { instructions }
    }

    /// The number of BPF instructions.
    pub fn len(&self) -> usize {
        self.instructions.len()
    }

    /// Never true: every filter checks at least the architecture.
    pub fn is_empty(&self) -> bool {
        self.instructions.is_empty()
    }

    /// Installs the filter on the calling thread. Async-signal-safe: one raw
    /// `seccomp(SECCOMP_SET_MODE_FILTER, 0, &prog)` system call, or
    /// `prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)` on kernels without seccomp(2).
    /// Requires no_new_privs (see [`set_no_new_privs`]) unless the caller has CAP_SYS_ADMIN.
    /// Returns `Err(errno)` on failure.
    pub fn install(&self) -> Result<(), i32> {
        let prog = libc::sock_fprog {
            len: self.instructions.len() as u16,
            filter: self.instructions.as_ptr().cast_mut(),
        };
        let prog: *const libc::sock_fprog = &prog;
        // SAFETY: `prog` and the instructions it points to outlive the call; the kernel only
        // reads them (it copies the program).
        let done = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER as c_ulong,
                0 as c_ulong,
                prog,
            )
        };
        if done == 0 {
            return Ok(());
        }
        match errno() {
            libc::ENOSYS => {}
            errno => return Err(errno),
        }
        // SAFETY: as above.
        let done = unsafe {
            libc::syscall(
                libc::SYS_prctl,
                libc::PR_SET_SECCOMP as c_ulong,
                libc::SECCOMP_MODE_FILTER as c_ulong,
                prog,
            )
        };
        if done == 0 { Ok(()) } else { Err(errno()) }
    }
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Filter")
            .field("instructions", &self.instructions.len())
            .finish()
    }
}

/// Sets no_new_privs on the calling thread (required to install a filter without
/// CAP_SYS_ADMIN, and inherited by everything started afterwards). Async-signal-safe: one raw
/// `prctl`. Returns `Err(errno)` on failure. (rsh's children set it in `spawn`, together with
/// the rest of their confinement.)
pub fn set_no_new_privs() -> Result<(), i32> {
    // SAFETY: prctl with integer arguments only.
    let done = unsafe {
        libc::syscall(
            libc::SYS_prctl,
            libc::PR_SET_NO_NEW_PRIVS as c_ulong,
            1 as c_ulong,
            0 as c_ulong,
            0 as c_ulong,
            0 as c_ulong,
        )
    };
    if done == 0 { Ok(()) } else { Err(errno()) }
}

/// Whether this kernel accepts seccomp filters at all (for the "cannot enforce" check).
///
/// Asks to install a filter from a null pointer: a kernel with filter support fails to read it
/// (EFAULT) before doing anything else; without it the answer is EINVAL.
pub fn available() -> bool {
    // SAFETY: the null program pointer is only handed to the kernel, which checks it.
    let done = unsafe {
        libc::syscall(
            libc::SYS_prctl,
            libc::PR_SET_SECCOMP as c_ulong,
            libc::SECCOMP_MODE_FILTER as c_ulong,
            0 as c_ulong,
        )
    };
    done == -1 && errno() == libc::EFAULT
}

/// An empty C string at an unpredictable address: the pathname of rsh's own
/// `execveat(fd, "", …, AT_EMPTY_PATH)`, and the `exec_path_ptr` its filters allow
/// (what `Sandbox` passes to [`Filter::build`]).
///
/// A program running under a filter without `subprocesses` can try execveat with every
/// candidate pointer, one EPERM per wrong guess. A string literal in rsh's image only has the
/// randomisation of the executable's base, about 2^28 positions: minutes of guessing. This
/// string is a byte at a random offset of a read-only zero page placed at a random address
/// between 4 GiB and 64 TiB, about 2^46 positions. (rsh must stay non-dumpable, so that its
/// memory map cannot be read from /proc.)
///
/// The page is created on first use, in the parent when it builds a filter; forked children
/// see the same string. (A child that forces it first, because no filter was built, only makes
/// raw `getrandom` and `mmap` calls.) When no page can be placed, a literal is used instead.
pub static EMPTY_PATH: LazyLock<&'static CStr> = LazyLock::new(|| {
    let address = random_zero_byte().unwrap_or(c"".as_ptr() as usize);
    // SAFETY: `address` is either a byte of a zero-filled page that is never written or
    // unmapped, or a static literal: a valid, immutable, NUL-terminated string either way.
    unsafe { CStr::from_ptr(address as *const libc::c_char) }
});

/// The address of a zero byte at a random place in a fresh read-only page at a random address.
fn random_zero_byte() -> Option<usize> {
    const PAGE: u64 = 4096;
    const LOW: u64 = 1 << 32;
    const HIGH: u64 = 1 << 46;
    for _ in 0..16 {
        let mut random = [0u8; 16];
        // SAFETY: getrandom writes at most `random.len()` bytes into the buffer we own.
        let got = unsafe { libc::getrandom(random.as_mut_ptr().cast(), random.len(), 0) };
        if got != random.len() as isize {
            return None;
        }
        let [page, offset] = [&random[..8], &random[8..]]
            .map(|half| u64::from_ne_bytes(half.try_into().expect("8 bytes")));
        let page = (LOW + page % (HIGH - LOW)) & !(PAGE - 1);
        // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping; the new anonymous
        // page is ours and is never unmapped.
        let mapped = unsafe {
            libc::mmap(
                page as *mut libc::c_void,
                PAGE as usize,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                -1,
                0,
            )
        };
        if mapped == libc::MAP_FAILED {
            // Most likely EEXIST: something already lives there. Try another address.
            continue;
        }
        if mapped as u64 != page {
            // A kernel before 4.17 took the address as a mere hint.
            // SAFETY: unmapping the page that was just mapped and is not referenced.
            unsafe { libc::munmap(mapped, PAGE as usize) };
            continue;
        }
        return Some((page + offset % PAGE) as usize);
    }
    None
}

/// The calling thread's errno.
fn errno() -> i32 {
    // SAFETY: __errno_location always returns a valid pointer to the thread's errno.
    unsafe { *libc::__errno_location() }
}

#[cfg(test)]
// libc's ioctl request type is `c_ulong` with glibc and `c_int` with musl.
#[allow(clippy::unnecessary_cast)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::panic::AssertUnwindSafe;

    const STRICT: SeccompProfile = SeccompProfile {
        network: false,
        unix_sockets: false,
        subprocesses: false,
    };
    const OPEN: SeccompProfile = SeccompProfile {
        network: true,
        unix_sockets: true,
        subprocesses: true,
    };
    /// Every profile, strictest first.
    const PROFILES: [SeccompProfile; 8] = STORED_PROFILES;

    const EPERM: i64 = -(libc::EPERM as i64);
    const ENOSYS: i64 = -(libc::ENOSYS as i64);
    const EBADF: i64 = -(libc::EBADF as i64);
    const EFAULT: i64 = -(libc::EFAULT as i64);
    const AUDIT_ARCH_I386: u32 = 3 | 0x4000_0000;

    // ---- the compiler, checked with a BPF interpreter ----

    /// Runs a classic-BPF seccomp program the way the kernel does, on a `seccomp_data`.
    fn interpret(code: &[sock_filter], nr: u32, arch: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (i, arg) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&arg.to_le_bytes());
        }
        let (mut pc, mut a) = (0usize, 0u32);
        loop {
            let insn = code[pc];
            let k = insn.k;
            let taken =
                |condition: bool| 1 + usize::from(if condition { insn.jt } else { insn.jf });
            pc += match u32::from(insn.code) {
                c if c == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => {
                    let at = k as usize;
                    a = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
                    1
                }
                c if c == libc::BPF_RET | libc::BPF_K => return k,
                c if c == libc::BPF_JMP | libc::BPF_JA => 1 + k as usize,
                c if c == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K => taken(a == k),
                c if c == libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K => taken(a >= k),
                c if c == libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K => taken(a & k != 0),
                other => panic!("unexpected instruction {other:#x} at {pc}"),
            };
        }
    }

    /// What the filter should answer, written out plainly from the specification.
    fn expected(profile: SeccompProfile, ptr: usize, nr: u32, arch: u32, args: [u64; 6]) -> u32 {
        if arch != AUDIT_ARCH_X86_64 {
            return KILL;
        }
        if nr & X32_SYSCALL_BIT != 0 {
            return DENY;
        }
        let low = |i: usize| args[i] as u32;
        let nr = c_long::from(nr);
        if ALWAYS_DENIED.contains(&nr) {
            return DENY;
        }
        if NO_ATTRIBUTES.contains(&nr) {
            return NOT_SUPPORTED;
        }
        let (network, subprocesses) = (profile.network, profile.subprocesses);
        let family = low(0) as libc::c_int;
        let namespaces = (libc::CLONE_NEWNS
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWUSER
            | libc::CLONE_NEWPID
            | libc::CLONE_NEWNET
            | libc::CLONE_NEWCGROUP) as u32;
        match nr {
            libc::SYS_ioctl
                if [libc::TIOCSTI, libc::TIOCLINUX, libc::TIOCSETD]
                    .iter()
                    .any(|&r| low(1) == r as u32) =>
            {
                DENY
            }
            libc::SYS_chmod | libc::SYS_fchmod if low(1) & 0o6000 != 0 => DENY,
            libc::SYS_fchmodat | libc::SYS_fchmodat2 if low(2) & 0o6000 != 0 => DENY,
            libc::SYS_prlimit64
            | libc::SYS_sched_setaffinity
            | libc::SYS_sched_setscheduler
            | libc::SYS_sched_setparam
            | libc::SYS_sched_setattr
                if low(0) != 0 =>
            {
                DENY
            }
            libc::SYS_setpriority if low(0) != 0 || low(1) != 0 => DENY,
            libc::SYS_ioprio_set if low(0) != 1 || low(1) != 0 => DENY,
            libc::SYS_personality if low(0) != 0xffff_ffff && low(0) != 0 => DENY,
            libc::SYS_prctl if low(0) == 1 && low(1) != libc::SIGKILL as u32 => DENY,
            libc::SYS_socket if !network && family != libc::AF_UNIX => DENY,
            libc::SYS_socket if !profile.unix_sockets && family == libc::AF_UNIX => DENY,
            libc::SYS_socketpair if !profile.unix_sockets && !stream_pair_type(low(1)) => DENY,
            libc::SYS_bind | libc::SYS_listen if !profile.unix_sockets && !network => DENY,
            libc::SYS_socket
                if ![
                    libc::AF_UNIX,
                    libc::AF_INET,
                    libc::AF_INET6,
                    libc::AF_NETLINK,
                ]
                .contains(&family) =>
            {
                DENY
            }
            libc::SYS_clone if low(0) & namespaces != 0 => DENY,
            libc::SYS_clone3 => NO_SUCH_CALL,
            libc::SYS_fork | libc::SYS_vfork | libc::SYS_execve if !subprocesses => DENY,
            libc::SYS_clone if !subprocesses && low(0) & libc::CLONE_THREAD as u32 == 0 => DENY,
            libc::SYS_execveat if !subprocesses && (ptr == 0 || args[1] != ptr as u64) => DENY,
            _ => ALLOW,
        }
    }

    #[test]
    fn every_decision_matches_the_specification() {
        for ptr in [0x7f3a_1234_5678usize, 0x1_0000_0000, 0xffff_ffff, 0] {
            let p = ptr as u64;
            let arguments: Vec<[u64; 6]> = [
                [0, 0],
                [0, libc::TIOCSTI as u64],
                [0, libc::TIOCSTI as u64 | 0xdead_beef_0000_0000],
                [0, libc::TIOCLINUX as u64 | 1 << 32],
                [0, libc::FIONREAD as u64],
                [libc::AF_UNIX as u64, 0],
                [libc::AF_UNIX as u64 | 1 << 40, 0],
                [libc::AF_UNIX as u64, libc::SOCK_STREAM as u64],
                [
                    libc::AF_UNIX as u64,
                    (libc::SOCK_DGRAM | libc::SOCK_CLOEXEC) as u64,
                ],
                [libc::AF_UNIX as u64, libc::SOCK_SEQPACKET as u64 | 1 << 32],
                [
                    libc::AF_UNIX as u64 | 1 << 33,
                    libc::SOCK_DGRAM as u64 | 1 << 32,
                ],
                [libc::AF_UNIX as u64, libc::SOCK_RAW as u64],
                [
                    libc::AF_UNIX as u64,
                    (libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) as u64,
                ],
                [
                    libc::AF_UNIX as u64,
                    libc::SOCK_STREAM as u64 | 0x40 | 1 << 32,
                ],
                [libc::AF_INET as u64, p],
                [
                    libc::AF_INET6 as u64 | (libc::AF_UNIX as u64) << 32,
                    p ^ 1 << 32,
                ],
                [libc::SIGCHLD as u64, p + 1],
                [
                    (libc::CLONE_VM | libc::CLONE_SIGHAND | libc::CLONE_THREAD) as u64,
                    p & 0xffff_ffff,
                ],
                [
                    libc::CLONE_THREAD as u64 | 1 << 63,
                    p | 0xffff_ffff_0000_0000,
                ],
                [
                    (libc::CLONE_THREAD | libc::CLONE_NEWUSER) as u64,
                    libc::AF_PACKET as u64,
                ],
                [libc::CLONE_NEWNET as u64 | libc::SIGCHLD as u64, 0],
                [libc::AF_ALG as u64, 0],
                [0xffff_ffff, 0x0040_0000],
                [0x0040_0000, 0],
                [1, 0o4755],
                [0, 0o755],
                [1, 0],
                [0, libc::TIOCSETD as u64],
                [1, libc::SIGKILL as u64],
                [1 | 1 << 32, libc::SIGKILL as u64 | 1 << 32],
                [1, libc::SIGTERM as u64],
            ]
            .iter()
            .map(|&[a, b]| [a, b, 0, 0, 0, 0])
            .collect();
            for profile in PROFILES {
                let code = Filter::build(profile, ptr).instructions;
                let numbers = (0..1024).chain([
                    libc::SYS_mount as u32 | X32_SYSCALL_BIT,
                    libc::SYS_getpid as u32 | X32_SYSCALL_BIT,
                    u32::MAX,
                    0x8000_0000,
                ]);
                for nr in numbers {
                    for arch in [AUDIT_ARCH_X86_64, AUDIT_ARCH_I386] {
                        for &args in &arguments {
                            assert_eq!(
                                interpret(&code, nr, arch, args),
                                expected(profile, ptr, nr, arch, args),
                                "{profile:?} ptr {ptr:#x} nr {nr} arch {arch:#x} args {args:x?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn programs_are_short() {
        for profile in PROFILES {
            let filter = Filter::build(profile, 0x7f00_0000_1000);
            println!("{profile:?}: {} instructions", filter.len());
            assert!(filter.len() < 160, "{profile:?}: {}", filter.len());
            assert!(!filter.is_empty());
            // Each action is returned from one place.
            let ret = (libc::BPF_RET | libc::BPF_K) as u16;
            let returns: Vec<u32> = filter
                .instructions
                .iter()
                .filter(|insn| insn.code == ret)
                .map(|insn| insn.k)
                .collect();
            let mut distinct = returns.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(returns.len(), distinct.len(), "{profile:?}: {returns:x?}");
        }
    }

    /// The programs stored when rsh was built, with an address put in, are the ones compiled
    /// for it now, for every profile and addresses of every shape; a damaged store gives
    /// compiled ones.
    #[test]
    fn stored_programs_are_the_compiled_ones() {
        let stored = include_bytes!(concat!(env!("OUT_DIR"), "/seccomp-programs.bin"));
        assert_eq!(
            &stored[..],
            &stored_programs()[..],
            "build.rs stored other programs"
        );
        let pointers = [
            EMPTY_PATH.as_ptr() as usize,
            1,
            0x7f00_0000_1000,
            0xffff_ffff,
            0x1_0000_0000,
            STORED_PTR,
            usize::MAX,
        ];
        let words = |f: &Filter| -> Vec<(u16, u8, u8, u32)> {
            f.instructions
                .iter()
                .map(|i| (i.code, i.jt, i.jf, i.k))
                .collect()
        };
        for profile in PROFILES {
            for ptr in pointers {
                let built = Filter::build(profile, ptr);
                let from_store = Filter::from_stored(stored, profile, ptr);
                assert_eq!(words(&from_store), words(&built), "{profile:?} {ptr:#x}");
            }
            let zero = Filter::from_stored(stored, profile, 0);
            assert_eq!(
                words(&zero),
                words(&Filter::build(profile, 0)),
                "{profile:?}"
            );
            let cut = Filter::from_stored(&stored[..stored.len() - 1], profile, 1);
            assert_eq!(
                words(&cut),
                words(&Filter::build(profile, 1)),
                "{profile:?}"
            );
        }
    }

    #[test]
    fn long_branches_jump_through_ja() {
        // 600 intervals with distinct actions: the upper halves near the root are longer than
        // an 8-bit jump offset can skip.
        let rules: BTreeMap<u32, Node> = (0..600u32)
            .map(|nr| (nr * 2, Node::Ret(fail(nr as i32 + 1))))
            .collect();
        let dispatch = search(&intervals(&rules, &Node::Ret(ALLOW)));
        let code = assemble(Some(NR), Op::Ge, 0, dispatch, emit(&Node::Ret(KILL)));
        assert!(code.len() > 1000);
        assert!(
            code.iter()
                .any(|insn| u32::from(insn.code) == libc::BPF_JMP | libc::BPF_JA && insn.k > 255)
        );
        // Too long for every jump to reach returns at its end: kept as it is.
        let shared = share_returns(code.clone());
        assert_eq!(shared.len(), code.len());
        for nr in 0..1300 {
            let want = if nr % 2 == 0 && nr < 1200 {
                fail((nr / 2) as i32 + 1)
            } else {
                ALLOW
            };
            for code in [&code, &shared] {
                assert_eq!(
                    interpret(code, nr, AUDIT_ARCH_X86_64, [0; 6]),
                    want,
                    "nr {nr}"
                );
            }
        }
    }

    /// Sharing the returns changes no decision, over random rule sets from small to ones
    /// whose search needs `JA` jumps, with argument tests and a few distinct actions; a
    /// program whose jumps could not reach its end is returned as it was.
    #[test]
    fn shared_returns_change_no_decision() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let actions = [ALLOW, DENY, NO_SUCH_CALL, fail(libc::EACCES)];
        let mut with_ja = 0;
        for round in 0..300 {
            let count = 1 + next(if round % 3 == 0 { 260 } else { 60 }) as u32;
            let mut rules = BTreeMap::new();
            for _ in 0..count {
                let action =
                    |next: &mut dyn FnMut(u64) -> u64| Node::Ret(actions[next(4) as usize]);
                let node = match next(3) {
                    0 => action(&mut next),
                    _ => {
                        let load = Some(arg_low(next(2) as u32));
                        let op = [Op::Eq, Op::Ge, Op::AnyBit][next(3) as usize];
                        let k = next(8) as u32;
                        let (yes, no) = (action(&mut next), action(&mut next));
                        test(load, op, k, yes, no)
                    }
                };
                rules.insert(next(600) as u32, node);
            }
            let code = checked(search(&intervals(&rules, &Node::Ret(ALLOW))));
            let shared = share_returns(code.clone());
            let ja = (libc::BPF_JMP | libc::BPF_JA) as u16;
            with_ja +=
                usize::from(shared.len() < code.len() && shared.iter().any(|i| i.code == ja));
            for nr in 0..610 {
                for arch in [AUDIT_ARCH_X86_64, AUDIT_ARCH_I386] {
                    for args in [[0u64; 6], [1, 3, 0, 0, 0, 0], [7, 5, 0, 0, 0, 0]] {
                        assert_eq!(
                            interpret(&shared, nr, arch, args),
                            interpret(&code, nr, arch, args),
                            "round {round} nr {nr} arch {arch:#x}"
                        );
                    }
                }
            }
        }
        assert!(with_ja > 0, "no shortened program kept a JA jump");
    }

    #[test]
    fn a_helper_gets_only_what_it_names() {
        let filter = Filter::only(&[
            libc::SYS_read,
            libc::SYS_openat,
            libc::SYS_mmap,
            libc::SYS_kill,
        ]);
        let run = |nr: c_long, args: [u64; 6]| {
            interpret(&filter.instructions, nr as u32, AUDIT_ARCH_X86_64, args)
        };
        let flags = |flags: libc::c_int| [0, 0, flags as u64, 0, 0, 0];
        let pid = |pid: i64| [pid as u64, 9, 0, 0, 0, 0];
        assert_eq!(run(libc::SYS_read, [0; 6]), ALLOW);
        assert_eq!(run(libc::SYS_write, [0; 6]), DENY);
        assert_eq!(run(libc::SYS_execve, [0; 6]), DENY);
        assert_eq!(run(500, [0; 6]), DENY);
        assert_eq!(run(libc::SYS_openat, flags(libc::O_RDONLY)), ALLOW);
        assert_eq!(run(libc::SYS_openat, flags(libc::O_WRONLY)), DENY);
        assert_eq!(run(libc::SYS_openat, flags(libc::O_CREAT)), DENY);
        assert_eq!(run(libc::SYS_mmap, flags(libc::PROT_READ)), ALLOW);
        assert_eq!(run(libc::SYS_mmap, flags(libc::PROT_EXEC)), DENY);
        assert_eq!(run(libc::SYS_mprotect, flags(libc::PROT_EXEC)), DENY);
        assert_eq!(run(libc::SYS_kill, pid(-4242)), ALLOW);
        assert_eq!(run(libc::SYS_kill, pid(-1)), DENY);
        assert_eq!(run(libc::SYS_kill, pid(0)), DENY);
        assert_eq!(run(libc::SYS_kill, pid(4242)), DENY);
    }

    #[test]
    fn the_empty_path_is_off_the_image() {
        let path: &CStr = &EMPTY_PATH;
        assert_eq!(path.to_bytes(), b"");
        assert_eq!(path.as_ptr(), EMPTY_PATH.as_ptr());
        let address = path.as_ptr() as u64;
        assert!((1 << 32..1 << 46).contains(&address), "{address:#x}");
    }

    // ---- the real kernel ----

    fn skipped() -> bool {
        if available() {
            return false;
        }
        eprintln!(
            "\n!!!!! SKIPPED: this kernel does not accept seccomp filters; \
             the filter was NOT tested against a kernel !!!!!\n"
        );
        true
    }

    /// A raw system call's result: its return value, or -errno.
    fn call(nr: c_long, args: [u64; 6]) -> i64 {
        let [a, b, c, d, e, f] = args;
        // SAFETY: every call made through here in these tests takes integer arguments or
        // pointers to live buffers, and runs in a forked child.
        let ret = unsafe { libc::syscall(nr, a, b, c, d, e, f) };
        if ret == -1 { -i64::from(errno()) } else { ret }
    }

    #[derive(Debug, PartialEq, Eq)]
    enum End {
        Code(i32),
        Signal(i32),
    }

    fn wait_for(pid: libc::pid_t) -> End {
        let mut status = 0;
        loop {
            // SAFETY: waiting for our own child into a local.
            let got = unsafe { libc::waitpid(pid, &mut status, 0) };
            if got == pid {
                break;
            }
            assert!(got == -1 && errno() == libc::EINTR, "waitpid: {}", errno());
        }
        if libc::WIFEXITED(status) {
            End::Code(libc::WEXITSTATUS(status))
        } else {
            End::Signal(libc::WTERMSIG(status))
        }
    }

    /// Forks; the child sets no_new_privs and installs `filter` (if any), runs `body` and
    /// reports its values through a pipe. Returns how the child ended and the values.
    fn in_child(filter: Option<&Filter>, body: impl FnOnce() -> Vec<i64>) -> (End, Vec<i64>) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the array we own.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        let [read_end, write_end] = fds;
        // SAFETY: the child only runs `body` (which may allocate: the test harness's other
        // threads do not hold glibc's allocator locks across fork) and leaves with _exit.
        match unsafe { libc::fork() } {
            -1 => panic!("fork: {}", std::io::Error::last_os_error()),
            0 => {
                // A broken filter can leave the child stuck (a lock taken by a thread of the
                // harness that does not exist here, a futex that never wakes): bound it.
                // SAFETY: alarm has no memory effects.
                unsafe { libc::alarm(30) };
                let code = (|| {
                    if let Some(filter) = filter {
                        if set_no_new_privs().is_err() {
                            return 90;
                        }
                        if filter.install().is_err() {
                            return 91;
                        }
                    }
                    let Ok(values) = std::panic::catch_unwind(AssertUnwindSafe(body)) else {
                        return 92;
                    };
                    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
                    let mut sent = 0;
                    while sent < bytes.len() {
                        // SAFETY: writing from a live buffer to our pipe.
                        let n = unsafe {
                            libc::write(
                                write_end,
                                bytes[sent..].as_ptr().cast(),
                                bytes.len() - sent,
                            )
                        };
                        if n <= 0 {
                            return 93;
                        }
                        sent += n as usize;
                    }
                    0
                })();
                // SAFETY: leaving the forked child without running the harness's destructors.
                unsafe { libc::_exit(code) }
            }
            pid => {
                // SAFETY: closing our copy of the write end, which nothing else owns.
                unsafe { libc::close(write_end) };
                // SAFETY: the read end is ours alone.
                let mut pipe = unsafe { File::from_raw_fd(read_end) };
                let mut bytes = Vec::new();
                let read = pipe.read_to_end(&mut bytes);
                let end = wait_for(pid);
                read.expect("reading the child's report");
                let values = bytes
                    .chunks_exact(8)
                    .map(|b| i64::from_ne_bytes(b.try_into().unwrap()))
                    .collect();
                (end, values)
            }
        }
    }

    /// Runs `body` under the filter for `profile` and returns its values.
    fn filtered(profile: SeccompProfile, body: impl FnOnce() -> Vec<i64>) -> Vec<i64> {
        let filter = Filter::build(profile, EMPTY_PATH.as_ptr() as usize);
        let (end, values) = in_child(Some(&filter), body);
        assert_eq!(end, End::Code(0), "child under {profile:?}");
        values
    }

    fn unfiltered(body: impl FnOnce() -> Vec<i64>) -> Vec<i64> {
        let (end, values) = in_child(None, body);
        assert_eq!(end, End::Code(0), "unfiltered child");
        values
    }

    /// The always-denied calls, with arguments that are harmless should one get through
    /// (invalid descriptors, null pointers, invalid flags, pid 0).
    const DENIED_CALLS: &[(&str, c_long, [u64; 6])] = &{
        const NONE: u64 = u64::MAX; // -1: no such descriptor, invalid flags
        [
            ("ptrace", libc::SYS_ptrace, [0x7fff_ffff, 0, 0, 0, 0, 0]),
            ("process_vm_readv", libc::SYS_process_vm_readv, [0; 6]),
            ("process_vm_writev", libc::SYS_process_vm_writev, [0; 6]),
            ("mount", libc::SYS_mount, [0; 6]),
            ("umount2", libc::SYS_umount2, [0; 6]),
            ("move_mount", libc::SYS_move_mount, [NONE, 0, NONE, 0, 0, 0]),
            ("open_tree", libc::SYS_open_tree, [NONE, 0, 0, 0, 0, 0]),
            ("fsopen", libc::SYS_fsopen, [0; 6]),
            ("fsconfig", libc::SYS_fsconfig, [NONE, 0, 0, 0, 0, 0]),
            ("fsmount", libc::SYS_fsmount, [NONE, 0, 0, 0, 0, 0]),
            ("fspick", libc::SYS_fspick, [NONE, 0, 0, 0, 0, 0]),
            (
                "mount_setattr",
                libc::SYS_mount_setattr,
                [NONE, 0, 0, 0, 0, 0],
            ),
            ("pivot_root", libc::SYS_pivot_root, [0; 6]),
            ("chroot", libc::SYS_chroot, [0; 6]),
            ("setns", libc::SYS_setns, [NONE, 0, 0, 0, 0, 0]),
            ("unshare", libc::SYS_unshare, [0; 6]),
            ("bpf", libc::SYS_bpf, [0xffff_ffff, 0, 0, 0, 0, 0]),
            (
                "perf_event_open",
                libc::SYS_perf_event_open,
                [0, 0, NONE, NONE, 0, 0],
            ),
            ("keyctl", libc::SYS_keyctl, [0xffff_ffff, 0, 0, 0, 0, 0]),
            ("add_key", libc::SYS_add_key, [0; 6]),
            ("request_key", libc::SYS_request_key, [0; 6]),
            (
                "kexec_load",
                libc::SYS_kexec_load,
                [0, 0xffff_ffff, 0, 0xff00, 0, 0],
            ),
            (
                "kexec_file_load",
                libc::SYS_kexec_file_load,
                [NONE, NONE, 0, 0, 0xffff_ff00, 0],
            ),
            ("init_module", libc::SYS_init_module, [0; 6]),
            (
                "finit_module",
                libc::SYS_finit_module,
                [NONE, 0, 0, 0, 0, 0],
            ),
            ("delete_module", libc::SYS_delete_module, [0; 6]),
            ("io_uring_setup", libc::SYS_io_uring_setup, [0; 6]),
            (
                "io_uring_enter",
                libc::SYS_io_uring_enter,
                [NONE, 0, 0, 0, 0, 0],
            ),
            (
                "io_uring_register",
                libc::SYS_io_uring_register,
                [NONE, 0, 0, 0, 0, 0],
            ),
            (
                "userfaultfd",
                libc::SYS_userfaultfd,
                [0xffff_ffff, 0, 0, 0, 0, 0],
            ),
            (
                "pidfd_getfd",
                libc::SYS_pidfd_getfd,
                [NONE, NONE, 0, 0, 0, 0],
            ),
            (
                "kcmp",
                libc::SYS_kcmp,
                [0x7fff_ffff, 0x7fff_ffff, 0, 0, 0, 0],
            ),
            (
                "open_by_handle_at",
                libc::SYS_open_by_handle_at,
                [NONE, 0, 0, 0, 0, 0],
            ),
            (
                "name_to_handle_at",
                libc::SYS_name_to_handle_at,
                [NONE, 0, 0, 0, 0, 0],
            ),
            (
                "fanotify_init",
                libc::SYS_fanotify_init,
                [NONE, 0, 0, 0, 0, 0],
            ),
            // Wrong magic numbers: EINVAL before anything happens.
            ("reboot", libc::SYS_reboot, [0; 6]),
            // Pointers to nowhere: EFAULT before anything changes.
            ("swapon", libc::SYS_swapon, [1, 0, 0, 0, 0, 0]),
            ("swapoff", libc::SYS_swapoff, [1, 0, 0, 0, 0, 0]),
            ("settimeofday", libc::SYS_settimeofday, [1, 0, 0, 0, 0, 0]),
            ("clock_settime", libc::SYS_clock_settime, [0, 1, 0, 0, 0, 0]),
            ("clock_adjtime", libc::SYS_clock_adjtime, [0, 1, 0, 0, 0, 0]),
            ("adjtimex", libc::SYS_adjtimex, [1, 0, 0, 0, 0, 0]),
            ("sethostname", libc::SYS_sethostname, [1, 1, 0, 0, 0, 0]),
            ("setdomainname", libc::SYS_setdomainname, [1, 1, 0, 0, 0, 0]),
            ("acct", libc::SYS_acct, [1, 0, 0, 0, 0, 0]),
            ("quotactl", libc::SYS_quotactl, [0, 1, 0, 0, 0, 0]),
            ("vhangup", libc::SYS_vhangup, [0; 6]),
            // Out of range: EINVAL.
            ("iopl", libc::SYS_iopl, [4, 0, 0, 0, 0, 0]),
            ("ioperm", libc::SYS_ioperm, [0x1_0000, 1, 1, 0, 0, 0]),
            ("uselib", libc::SYS_uselib, [1, 0, 0, 0, 0, 0]),
            ("setsid", libc::SYS_setsid, [0; 6]),
            ("setpgid", libc::SYS_setpgid, [0; 6]),
            ("quotactl_fd", libc::SYS_quotactl_fd, [NONE, 0, 0, 0, 0, 0]),
            ("open_tree_attr", SYS_OPEN_TREE_ATTR, [NONE, 0, 0, 0, 0, 0]),
            ("chown", libc::SYS_chown, [1, 0, 0, 0, 0, 0]),
            ("fchown", libc::SYS_fchown, [NONE, 0, 0, 0, 0, 0]),
            ("lchown", libc::SYS_lchown, [1, 0, 0, 0, 0, 0]),
            ("fchownat", libc::SYS_fchownat, [NONE, 1, 0, 0, 0, 0]),
            ("file_setattr", SYS_FILE_SETATTR, [NONE, 1, 0, 0, 0, 0]),
            // A key nobody uses, without IPC_CREAT: ENOENT. No such identifier: EINVAL.
            ("shmget", libc::SYS_shmget, [0x7273_6801, 0, 0, 0, 0, 0]),
            ("shmat", libc::SYS_shmat, [NONE, 0, 0, 0, 0, 0]),
            ("shmdt", libc::SYS_shmdt, [1, 0, 0, 0, 0, 0]),
            ("shmctl", libc::SYS_shmctl, [NONE, 2, 0, 0, 0, 0]),
            ("semget", libc::SYS_semget, [0x7273_6802, 0, 0, 0, 0, 0]),
            ("semop", libc::SYS_semop, [NONE, 0, 0, 0, 0, 0]),
            ("semtimedop", libc::SYS_semtimedop, [NONE, 0, 0, 0, 0, 0]),
            ("semctl", libc::SYS_semctl, [NONE, 0, 2, 0, 0, 0]),
            ("msgget", libc::SYS_msgget, [0x7273_6803, 0, 0, 0, 0, 0]),
            ("msgsnd", libc::SYS_msgsnd, [NONE, 0, 0, 0, 0, 0]),
            ("msgrcv", libc::SYS_msgrcv, [NONE, 0, 0, 0, 0, 0]),
            ("msgctl", libc::SYS_msgctl, [NONE, 2, 0, 0, 0, 0]),
            // A name at a bad address: EFAULT. No such descriptor: EBADF.
            ("mq_open", libc::SYS_mq_open, [1, 0, 0, 0, 0, 0]),
            ("mq_unlink", libc::SYS_mq_unlink, [1, 0, 0, 0, 0, 0]),
            (
                "mq_timedsend",
                libc::SYS_mq_timedsend,
                [NONE, 0, 0, 0, 0, 0],
            ),
            (
                "mq_timedreceive",
                libc::SYS_mq_timedreceive,
                [NONE, 0, 0, 0, 0, 0],
            ),
            ("mq_notify", libc::SYS_mq_notify, [NONE, 0, 0, 0, 0, 0]),
            (
                "mq_getsetattr",
                libc::SYS_mq_getsetattr,
                [NONE, 0, 0, 0, 0, 0],
            ),
        ]
    };

    /// Calls too disruptive to make without the filter, whatever the arguments: vhangup would
    /// hang up the terminal the tests run on.
    const NOT_RUN_UNFILTERED: &[&str] = &["vhangup"];

    #[test]
    fn always_denied_calls_fail_with_eperm() {
        if skipped() {
            return;
        }
        let mut listed: Vec<c_long> = DENIED_CALLS.iter().map(|&(_, nr, _)| nr).collect();
        let mut denied = ALWAYS_DENIED.to_vec();
        listed.sort();
        denied.sort();
        assert_eq!(listed, denied, "the test covers the whole deny list");

        let run = |calls: Vec<(&'static str, c_long, [u64; 6])>| {
            move || calls.iter().map(|&(_, nr, args)| call(nr, args)).collect()
        };
        for profile in PROFILES {
            let got = filtered(profile, run(DENIED_CALLS.to_vec()));
            for (&(name, ..), got) in DENIED_CALLS.iter().zip(got) {
                assert_eq!(got, EPERM, "{name} under {profile:?}");
            }
        }
        // Without the filter the same calls fail (or succeed) otherwise, so the EPERM above
        // is the filter's. Some may be EPERM anyway for lack of privilege: only the calls
        // that never check privilege with these arguments are asserted.
        let safe: Vec<_> = DENIED_CALLS
            .iter()
            .copied()
            .filter(|(name, ..)| !NOT_RUN_UNFILTERED.contains(name))
            .collect();
        let control = unfiltered(run(safe.clone()));
        let mut report = Vec::new();
        for (&(name, ..), got) in safe.iter().zip(&control) {
            report.push(format!("{name}={got}"));
            let unprivileged = [
                "ptrace",
                "process_vm_readv",
                "process_vm_writev",
                "setns",
                "unshare",
                "keyctl",
                "io_uring_enter",
                "io_uring_register",
                "pidfd_getfd",
                "iopl",
                "ioperm",
                "shmget",
                "shmat",
                "shmdt",
                "shmctl",
                "semget",
                "semop",
                "semtimedop",
                "semctl",
                "msgget",
                "msgsnd",
                "msgrcv",
                "msgctl",
            ];
            if unprivileged.contains(&name) {
                assert_ne!(*got, EPERM, "{name} without the filter");
            }
        }
        println!("without the filter: {}", report.join(" "));
    }

    /// Setting and removing extended attributes, with arguments that would fail otherwise
    /// (a bad descriptor, a null path): EOPNOTSUPP is the filter's.
    #[test]
    fn attribute_changes_fail_as_unsupported() {
        if skipped() {
            return;
        }
        const NONE: u64 = u64::MAX;
        let calls: [(&str, c_long, [u64; 6]); 8] = [
            ("setxattr", libc::SYS_setxattr, [1, 1, 0, 0, 0, 0]),
            ("lsetxattr", libc::SYS_lsetxattr, [1, 1, 0, 0, 0, 0]),
            ("fsetxattr", libc::SYS_fsetxattr, [NONE, 1, 0, 0, 0, 0]),
            ("removexattr", libc::SYS_removexattr, [1, 1, 0, 0, 0, 0]),
            ("lremovexattr", libc::SYS_lremovexattr, [1, 1, 0, 0, 0, 0]),
            (
                "fremovexattr",
                libc::SYS_fremovexattr,
                [NONE, 1, 0, 0, 0, 0],
            ),
            ("setxattrat", SYS_SETXATTRAT, [NONE, 1, 0, 1, 0, 0]),
            ("removexattrat", SYS_REMOVEXATTRAT, [NONE, 1, 0, 1, 0, 0]),
        ];
        let mut listed: Vec<c_long> = calls.iter().map(|&(_, nr, _)| nr).collect();
        let mut unsupported = NO_ATTRIBUTES.to_vec();
        listed.sort();
        unsupported.sort();
        assert_eq!(listed, unsupported, "the test covers the whole list");
        let run = move || calls.iter().map(|&(_, nr, args)| call(nr, args)).collect();
        let eopnotsupp = -i64::from(libc::EOPNOTSUPP);
        for profile in PROFILES {
            let got: Vec<i64> = filtered(profile, run);
            for ((name, ..), got) in calls.iter().zip(got) {
                assert_eq!(got, eopnotsupp, "{name} under {profile:?}");
            }
        }
        let control: Vec<i64> = unfiltered(run);
        assert!(
            !control.contains(&eopnotsupp),
            "without the filter: {control:?}"
        );
    }

    #[test]
    fn ordinary_calls_still_work() {
        if skipped() {
            return;
        }
        for profile in [STRICT, OPEN] {
            let got = filtered(profile, || {
                let mut results = vec![call(libc::SYS_getpid, [0; 6])];
                let null = c"/dev/null";
                let fd = call(
                    libc::SYS_openat,
                    [
                        libc::AT_FDCWD as u64,
                        null.as_ptr() as u64,
                        libc::O_RDWR as u64,
                        0,
                        0,
                        0,
                    ],
                );
                let mut buffer = [7u8; 8];
                let ptr = buffer.as_mut_ptr() as u64;
                results.push(fd);
                results.push(call(libc::SYS_write, [fd as u64, ptr, 3, 0, 0, 0]));
                results.push(call(libc::SYS_read, [fd as u64, ptr, 8, 0, 0, 0]));
                results.push(call(libc::SYS_close, [fd as u64, 0, 0, 0, 0, 0]));
                let length = 1 << 16;
                let prot = (libc::PROT_READ | libc::PROT_WRITE) as u64;
                let flags = (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS) as u64;
                let map = call(libc::SYS_mmap, [0, length, prot, flags, u64::MAX, 0]);
                results.push(map);
                if map > 0 {
                    // SAFETY: the mapping was just created, writable and `length` bytes long.
                    unsafe { (map as *mut u8).add(100).write(42) };
                    results.push(call(libc::SYS_munmap, [map as u64, length, 0, 0, 0, 0]));
                }
                // A thread: glibc's pthread_create tries clone3, and falls back to clone with
                // CLONE_THREAD when the filter answers ENOSYS.
                results.push(std::thread::spawn(|| 7).join().unwrap_or(-1));
                let mut pair = [0i32; 2];
                results.push(call(
                    libc::SYS_socketpair,
                    [
                        libc::AF_UNIX as u64,
                        libc::SOCK_STREAM as u64,
                        0,
                        pair.as_mut_ptr() as u64,
                        0,
                        0,
                    ],
                ));
                results
            });
            let [pid, fd, wrote, read, closed, map, unmapped, thread, pair] = got[..] else {
                panic!("{profile:?}: {got:?}");
            };
            assert!(pid > 0 && fd >= 0 && map > 0, "{profile:?}: {got:?}");
            assert_eq!(
                [wrote, read, closed, unmapped, thread, pair],
                [3, 0, 0, 0, 7, 0],
                "{profile:?}"
            );
        }
    }

    #[test]
    fn terminal_injection_ioctls_are_denied_whatever_the_high_bits() {
        if skipped() {
            return;
        }
        let run = || {
            let mut fds = [0i32; 2];
            // SAFETY: pipe fills the array we own.
            assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
            let [read_end, write_end] = fds.map(|fd| fd as u64);
            let byte = b"x".as_ptr() as u64;
            let mut results = Vec::new();
            for request in [
                libc::TIOCSTI as u64,
                libc::TIOCSTI as u64 | 0xdead_beef_0000_0000,
                libc::TIOCSTI as u64 | 1 << 32,
                libc::TIOCLINUX as u64,
                libc::TIOCLINUX as u64 | 0xdead_0000_0000_0000,
            ] {
                results.push(call(libc::SYS_ioctl, [read_end, request, byte, 0, 0, 0]));
            }
            results.push(call(
                libc::SYS_write,
                [write_end, b"hello".as_ptr() as u64, 5, 0, 0, 0],
            ));
            let mut pending: libc::c_int = -1;
            let counter = &mut pending as *mut libc::c_int as u64;
            results.push(call(
                libc::SYS_ioctl,
                [read_end, libc::FIONREAD as u64, counter, 0, 0, 0],
            ));
            results.push(i64::from(pending));
            results
        };
        for profile in PROFILES {
            assert_eq!(
                filtered(profile, run),
                [EPERM, EPERM, EPERM, EPERM, EPERM, 5, 0, 5],
                "{profile:?}"
            );
        }
        // Without the filter, all five are the same (refused) terminal requests on a pipe.
        let enotty = -(libc::ENOTTY as i64);
        assert_eq!(
            unfiltered(run),
            [enotty, enotty, enotty, enotty, enotty, 5, 0, 5]
        );
    }

    #[test]
    fn personality_may_only_be_asked_and_namespaces_never_made() {
        if skipped() {
            return;
        }
        const ADDR_NO_RANDOMIZE: u64 = 0x0040000;
        let run = || {
            vec![
                call(libc::SYS_personality, [0xffff_ffff, 0, 0, 0, 0, 0]),
                call(libc::SYS_personality, [ADDR_NO_RANDOMIZE, 0, 0, 0, 0, 0]),
                // Raw packets and the kernel crypto interface, even with network.
                call(
                    libc::SYS_socket,
                    [libc::AF_PACKET as u64, libc::SOCK_RAW as u64, 0, 0, 0, 0],
                ),
                call(
                    libc::SYS_socket,
                    [libc::AF_ALG as u64, libc::SOCK_SEQPACKET as u64, 0, 0, 0, 0],
                ),
                // A new process in a new user namespace: let through, it would leave at once.
                {
                    let flags = (libc::CLONE_NEWUSER | libc::SIGCHLD) as u64;
                    let got = call(libc::SYS_clone, [flags, 0, 0, 0, 0, 0]);
                    if got == 0 {
                        // SAFETY: the new process leaves at once.
                        unsafe { libc::_exit(0) };
                    }
                    if got > 0 {
                        wait_for(got as libc::pid_t);
                    }
                    got.min(1)
                },
            ]
        };
        let got = filtered(OPEN, run);
        assert!(got[0] >= 0, "the personality query: {got:?}");
        assert_eq!(got[1..], [EPERM, EPERM, EPERM, EPERM], "{got:?}");
        // Without the filter, the query and the new namespace work.
        let control = unfiltered(run);
        assert!(control[0] >= 0 && control[4] == 1, "{control:?}");
    }

    #[test]
    fn sockets_need_network_or_unix_sockets() {
        if skipped() {
            return;
        }
        let socket = |domain: i32, kind: i32| {
            call(
                libc::SYS_socket,
                [
                    domain as u64,
                    kind as u64 | libc::SOCK_CLOEXEC as u64,
                    0,
                    0,
                    0,
                    0,
                ],
            )
        };
        let run = || {
            vec![
                socket(libc::AF_UNIX, libc::SOCK_DGRAM),
                socket(libc::AF_UNIX, libc::SOCK_STREAM),
                socket(libc::AF_UNIX, libc::SOCK_SEQPACKET),
                socket(libc::AF_INET, libc::SOCK_STREAM),
                socket(libc::AF_INET, libc::SOCK_DGRAM),
                socket(libc::AF_INET6, libc::SOCK_STREAM),
                socket(libc::AF_NETLINK, libc::SOCK_RAW),
                call(
                    libc::SYS_socket,
                    [
                        libc::AF_INET as u64 | 1 << 32,
                        libc::SOCK_STREAM as u64,
                        0,
                        0,
                        0,
                        0,
                    ],
                ),
            ]
        };
        let profile = |network: bool, unix_sockets: bool| SeccompProfile {
            network,
            unix_sockets,
            subprocesses: true,
        };
        let got = filtered(profile(false, false), run);
        assert_eq!(got, [EPERM; 8], "{got:?}");
        // Each setting opens its own sockets only.
        let networked = filtered(profile(true, false), run);
        assert!(networked[3] >= 0, "{networked:?}");
        assert_eq!(networked[..3], [EPERM; 3], "{networked:?}");
        let local = filtered(profile(false, true), run);
        assert!(local[..3].iter().all(|&fd| fd >= 0), "{local:?}");
        assert_eq!(local[3..], [EPERM; 5], "{local:?}");
        let control = unfiltered(run);
        let online = filtered(OPEN, run);
        println!("with network: {online:?}, without a filter: {control:?}");
        for (with, without) in online.iter().zip(&control) {
            assert_eq!(*with >= 0, *without >= 0, "{online:?} vs {control:?}");
            assert!(*with >= 0 || *with == *without, "{online:?} vs {control:?}");
        }
        assert!(online[1] >= 0, "AF_UNIX stream with both: {online:?}");
        assert!(online[3] >= 0, "AF_INET with network: {online:?}");
    }

    /// A stream or seqpacket type, with or without SOCK_NONBLOCK and SOCK_CLOEXEC, and no other
    /// bit.
    fn stream_pair_type(kind: u32) -> bool {
        let flags = (libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) as u32;
        let base = kind & !flags;
        base == libc::SOCK_STREAM as u32 || base == libc::SOCK_SEQPACKET as u32
    }

    #[test]
    fn datagram_socket_pairs_need_unix_sockets() {
        if skipped() {
            return;
        }
        let pair = |kind: i32| {
            let mut fds = [0i32; 2];
            let got = call(
                libc::SYS_socketpair,
                [
                    libc::AF_UNIX as u64,
                    kind as u64,
                    0,
                    fds.as_mut_ptr() as u64,
                    0,
                    0,
                ],
            );
            if got == 0 {
                for fd in fds {
                    // SAFETY: the descriptor was just made, and is closed once.
                    unsafe { libc::close(fd) };
                }
            }
            got
        };
        let run = || {
            vec![
                pair(libc::SOCK_STREAM),
                pair(libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK),
                pair(libc::SOCK_DGRAM),
                pair(libc::SOCK_DGRAM | libc::SOCK_CLOEXEC),
                pair(libc::SOCK_RAW),
            ]
        };
        assert_eq!(filtered(STRICT, run), [0, 0, EPERM, EPERM, EPERM]);
        let local = SeccompProfile {
            unix_sockets: true,
            ..STRICT
        };
        assert_eq!(filtered(local, run), unfiltered(run));
        assert_eq!(unfiltered(run)[2], 0, "a datagram pair without a filter");
    }

    /// Forks with raw `fork`, `vfork` or `clone(SIGCHLD)`; a new process leaves at once and is
    /// reaped. Returns the call's result (the child's pid on success).
    fn try_to_fork(nr: c_long) -> i64 {
        let got = call(nr, [libc::SIGCHLD as u64, 0, 0, 0, 0, 0]);
        if got == 0 {
            // SAFETY: the new process leaves at once (for vfork, without touching the stack it
            // shares with its parent beyond this call).
            unsafe { libc::_exit(0) };
        }
        if got > 0 {
            assert_eq!(wait_for(got as libc::pid_t), End::Code(0));
        }
        got
    }

    fn execveat(path: u64) -> i64 {
        let argv = [c"true".as_ptr(), std::ptr::null()];
        let envp = [std::ptr::null::<libc::c_char>()];
        call(
            libc::SYS_execveat,
            [
                u64::MAX,
                path,
                argv.as_ptr() as u64,
                envp.as_ptr() as u64,
                libc::AT_EMPTY_PATH as u64,
                0,
            ],
        )
    }

    #[test]
    fn new_programs_need_subprocesses() {
        if skipped() {
            return;
        }
        let allowed = EMPTY_PATH.as_ptr() as u64;
        let other = c"".as_ptr() as u64;
        assert_ne!(allowed, other);
        // vfork and a clone sharing memory without a stack of its own are only attempted where
        // they must fail: let through, the new process would run on its parent's stack.
        let run = |denied: bool| {
            let shared = (libc::CLONE_VM | libc::CLONE_FS | libc::CLONE_FILES) as u64;
            vec![
                try_to_fork(libc::SYS_fork),
                try_to_fork(libc::SYS_clone),
                if denied {
                    try_to_fork(libc::SYS_vfork)
                } else {
                    0
                },
                // Without CLONE_THREAD but sharing memory: still a new process.
                if denied {
                    call(
                        libc::SYS_clone,
                        [shared | libc::SIGCHLD as u64, 0, 0, 0, 0, 0],
                    )
                } else {
                    0
                },
                call(libc::SYS_clone3, [0; 6]),
                call(
                    libc::SYS_execve,
                    [c"/nonexistent".as_ptr() as u64, 0, 0, 0, 0, 0],
                ),
                // An invalid descriptor: EBADF when the call reaches the kernel.
                execveat(allowed),
                execveat(other),
                execveat(allowed ^ 1 << 32),
                execveat(allowed ^ 1 << 45),
                execveat(allowed & 0xffff_ffff),
                execveat(allowed + 1),
                execveat(0),
            ]
        };
        for profile in PROFILES.into_iter().filter(|p| !p.subprocesses) {
            let got = filtered(profile, || run(true));
            let want = [
                EPERM, EPERM, EPERM, EPERM, ENOSYS, EPERM, EBADF, EPERM, EPERM, EPERM, EPERM,
                EPERM, EPERM,
            ];
            assert_eq!(got, want, "{profile:?}");
        }
        for profile in PROFILES.into_iter().filter(|p| p.subprocesses) {
            let got = filtered(profile, || run(false));
            assert!(got[0] > 0 && got[1] > 0, "{profile:?}: {got:?}");
            let enoent = -(libc::ENOENT as i64);
            // clone3 is ENOSYS under every profile (its flags cannot be checked).
            assert_eq!(got[4..6], [ENOSYS, enoent], "{profile:?}");
            // The kernel reads the pathname first: EFAULT for the pointers that lead nowhere.
            assert!(
                got[6..].iter().all(|&e| e == EBADF || e == EFAULT),
                "{profile:?}: {got:?}"
            );
            assert_eq!([got[6], got[7]], [EBADF, EBADF], "{profile:?}: {got:?}");
        }
    }

    /// Executes /bin/sh -c `script` the way rsh does (execveat on a descriptor, empty path)
    /// under `profile`, and returns how it ended.
    fn run_shell(profile: SeccompProfile, script: &CStr) -> Option<End> {
        let shell = c"/bin/sh";
        // SAFETY: opening a path for execution only; the descriptor is closed below.
        let fd = unsafe { libc::open(shell.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd < 0 {
            eprintln!("no /bin/sh: shell test skipped");
            return None;
        }
        let argv = [
            c"sh".as_ptr(),
            c"-c".as_ptr(),
            script.as_ptr(),
            std::ptr::null(),
        ];
        let envp = [c"PATH=/usr/bin:/bin".as_ptr(), std::ptr::null()];
        let path: &CStr = &EMPTY_PATH;
        let filter = Filter::build(profile, path.as_ptr() as usize);
        let (end, _) = in_child(Some(&filter), || {
            call(
                libc::SYS_execveat,
                [
                    fd as u64,
                    path.as_ptr() as u64,
                    argv.as_ptr() as u64,
                    envp.as_ptr() as u64,
                    libc::AT_EMPTY_PATH as u64,
                    0,
                ],
            );
            // SAFETY: the exec failed; leave with a code the shell does not use.
            unsafe { libc::_exit(99) }
        });
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(fd) };
        Some(end)
    }

    #[test]
    fn the_decided_program_runs_and_cannot_start_others() {
        if skipped() {
            return;
        }
        let starts_a_program = c"/bin/true && exit 7; exit 8";
        let execs_a_program = c"exec /bin/true";
        let Some(end) = run_shell(OPEN, starts_a_program) else {
            return;
        };
        assert_eq!(end, End::Code(7));
        assert_eq!(run_shell(OPEN, execs_a_program), Some(End::Code(0)));
        let simple = run_shell(STRICT, c"exit 5");
        assert_eq!(simple, Some(End::Code(5)), "rsh's own execveat passes");
        let forked = run_shell(STRICT, starts_a_program).unwrap();
        let execed = run_shell(STRICT, execs_a_program).unwrap();
        println!("without subprocesses: fork {forked:?}, exec {execed:?}");
        assert!(
            !matches!(forked, End::Code(7) | End::Code(99)),
            "{forked:?}"
        );
        assert!(
            !matches!(execed, End::Code(0) | End::Code(99)),
            "{execed:?}"
        );
    }

    #[test]
    fn x32_calls_fail_and_foreign_architectures_kill() {
        if skipped() {
            return;
        }
        let x32 = || vec![call(libc::SYS_getpid | X32_SYSCALL_BIT as c_long, [0; 6])];
        for profile in PROFILES {
            assert_eq!(filtered(profile, x32), [EPERM], "{profile:?}");
        }

        let i386_getpid = || {
            let result: i64;
            // SAFETY: `int 0x80` with eax = 20 is the i386 getpid; it reads no memory, and
            // the registers a 64-bit caller may see changed are declared.
            unsafe {
                std::arch::asm!(
                    "int 0x80",
                    inlateout("rax") 20i64 => result,
                    out("r8") _, out("r9") _, out("r10") _, out("r11") _,
                    options(nostack)
                )
            };
            vec![result]
        };
        let (end, values) = in_child(None, i386_getpid);
        if end != End::Code(0) {
            eprintln!("no i386 system calls on this kernel ({end:?}): foreign-arch test skipped");
            return;
        }
        assert!(values[0] > 0, "{values:?}");
        let filter = Filter::build(OPEN, 0);
        let (end, values) = in_child(Some(&filter), i386_getpid);
        assert_eq!(end, End::Signal(libc::SIGSYS), "{values:?}");
    }
}
