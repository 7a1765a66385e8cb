//! The read-only view: a mount namespace in which everything but the write roots is mounted
//! read-only, for the programs rsh starts.
//!
//! Landlock decides which files a program may open for writing, create, rename or remove,
//! but not whose mode, owner or times it may change: chmod, utimes and the like are not
//! Landlock rights. Owners and extended attributes are the seccomp filter's (denied
//! outright), and chmod's set-user-ID bits too; the other mode bits and the times were still
//! anyone's to change wherever the program's user may, which for root is everywhere
//! (`os.chmod("/etc/passwd", 0o666)` from an allowed interpreter). On a read-only mount the
//! kernel refuses them all (EROFS), whatever the program's capabilities.
//!
//! Making a mount namespace takes CAP_SYS_ADMIN, so the view exists where rsh runs as root
//! (not in a container that withholds the capability), which is where it matters: another
//! user's program can change only its own files. It is built once, on a thread of its own
//! that nothing else uses afterwards (`unshare` moves only the calling thread), and each
//! program enters it with `setns` between fork and exec: far cheaper than a namespace per
//! program. rsh itself stays outside, except that it opens the files of redirections through
//! the view, so that a descriptor it hands a program (`< /etc/passwd`) is read-only in the
//! kernel's eyes too.
#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;

const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOUNT_ATTR_RDONLY: u64 = 1;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 4;
const AT_EMPTY_PATH: libc::c_uint = libc::AT_EMPTY_PATH as libc::c_uint;

/// `struct mount_attr` (Linux 5.12).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// The view, held open for the session: its namespace (for `setns`) and its root (for the
/// files rsh opens for programs). Both in rsh's own descriptor range.
pub struct View {
    pub namespace: OwnedFd,
    pub root: OwnedFd,
    /// rsh's own mount table, polled for changes: a mount made there after the view (a
    /// volume, an automounted directory) arrives in the view writable, so the view is made
    /// again, with it read-only, before the next program.
    mounts: OwnedFd,
}

impl View {
    /// Whether a view would make anything read-only: not when `/` is a write root.
    pub fn wanted(write: &[PathBuf]) -> bool {
        !write.iter().any(|r| r == Path::new("/"))
    }

    /// Builds the view with `write` (canonical) writable, except the `deny` paths under
    /// them, moving the calling thread into it: call it on a thread that ends afterwards.
    /// Err: why there is none (no CAP_SYS_ADMIN, a kernel before 5.12, or a write root that
    /// is `/`, which leaves nothing to make read-only).
    pub fn build_on_this_thread(write: &[PathBuf], deny: &[PathBuf]) -> Result<View, String> {
        if !View::wanted(write) {
            return Err("/ is a write root".to_string());
        }
        let roots = outermost(write);
        let paths: Vec<CString> = roots
            .iter()
            .filter_map(|r| CString::new(r.as_os_str().as_bytes()).ok())
            .collect();
        // Opened before the thread moves: the table of the namespace rsh stays in.
        let mounts = open(c"/proc/thread-self/mountinfo", libc::O_RDONLY)?;
        // SAFETY: unshare with flags; CLONE_NEWNS implies CLONE_FS, which this thread stops
        // sharing with the rest of rsh, so only it moves.
        check("unshare", unsafe {
            libc::unshare(libc::CLONE_NEWNS | libc::CLONE_FS)
        })?;
        // Changes here must not reach the namespace rsh came from; mounts made there later
        // (an automounted /home) still arrive here.
        // SAFETY: NUL-terminated literals; no data.
        check("mount", unsafe {
            libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_SLAVE,
                std::ptr::null(),
            )
        })?;
        // Writable copies of the write roots, taken before everything turns read-only.
        let copies = paths
            .iter()
            .map(|p| clone_tree(p).map(|copy| (copy, p)))
            .collect::<Result<Vec<_>, _>>()?;
        set_read_only(libc::AT_FDCWD, c"/", 0)?;
        for (copy, path) in &copies {
            move_over(copy, path)?;
        }
        // A denied path under a write root (`~/.ssh` under `~`) is read-only again: Landlock
        // keeps programs from opening it, not from changing its mode (`chmod 644 ~/.ssh/id_*`).
        let inside: Vec<PathBuf> = deny
            .iter()
            .filter(|d| roots.iter().any(|r| d.starts_with(r)) && d.symlink_metadata().is_ok())
            // One that holds a write root of its own stays as it is: that root stays writable.
            .filter(|d| !write.iter().any(|w| w.starts_with(d)))
            .cloned()
            .collect();
        for path in outermost(&inside) {
            let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
                continue;
            };
            let copy = clone_tree(&path)?;
            set_read_only(copy.as_raw_fd(), c"", AT_EMPTY_PATH)?;
            move_over(&copy, &path)?;
        }
        let namespace = open(c"/proc/thread-self/ns/mnt", libc::O_RDONLY)?;
        let root = open(c"/", libc::O_PATH | libc::O_DIRECTORY)?;
        Ok(View {
            namespace: super::landlock::high_fd(namespace)?,
            root: super::landlock::high_fd(root)?,
            mounts: super::landlock::high_fd(mounts)?,
        })
    }

    /// Whether rsh's mount table changed since the view was made (the kernel flags a
    /// mount table file with POLLPRI once per change).
    pub fn is_stale(&self) -> bool {
        let mut poll = libc::pollfd {
            fd: self.mounts.as_raw_fd(),
            events: libc::POLLPRI,
            revents: 0,
        };
        // SAFETY: one pollfd, no waiting.
        let ready = unsafe { libc::poll(&mut poll, 1, 0) };
        ready > 0 && poll.revents & (libc::POLLPRI | libc::POLLERR) != 0
    }
}

/// The write roots that are not under another: a copy of a root holds the mounts below it.
fn outermost(write: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = write.to_vec();
    roots.sort();
    roots.dedup();
    let all = roots.clone();
    roots.retain(|r| !all.iter().any(|other| other != r && r.starts_with(other)));
    roots
}

fn clone_tree(path: &CString) -> Result<OwnedFd, String> {
    let flags = OPEN_TREE_CLONE | AT_RECURSIVE | libc::O_CLOEXEC as libc::c_uint;
    // SAFETY: a NUL-terminated path; the result is a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, path.as_ptr(), flags) };
    check("open_tree", fd as libc::c_int)?;
    // SAFETY: a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Mounts the detached tree `copy` over `path`.
fn move_over(copy: &OwnedFd, path: &CString) -> Result<(), String> {
    // SAFETY: an empty path with F_EMPTY_PATH takes the descriptor itself.
    check("move_mount", unsafe {
        libc::syscall(
            libc::SYS_move_mount,
            copy.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_FDCWD,
            path.as_ptr(),
            MOVE_MOUNT_F_EMPTY_PATH,
        ) as libc::c_int
    })
}

/// Makes the mounts at `dir`/`path` and below read-only (`flags`: AT_EMPTY_PATH for `dir`
/// itself).
fn set_read_only(
    dir: libc::c_int,
    path: &std::ffi::CStr,
    flags: libc::c_uint,
) -> Result<(), String> {
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: the struct lives for the call and its size is passed with it.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dir,
            path.as_ptr(),
            AT_RECURSIVE | flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    check("mount_setattr", rc as libc::c_int)
}

fn open(path: &std::ffi::CStr, flags: libc::c_int) -> Result<OwnedFd, String> {
    // SAFETY: a NUL-terminated path; the result is a new descriptor or -1.
    let fd = unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) };
    check("open", fd)?;
    // SAFETY: a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn check(call: &str, rc: libc::c_int) -> Result<(), String> {
    if rc < 0 {
        Err(format!("{call}: {}", crate::errno_text(Errno::last())))
    } else {
        Ok(())
    }
}

/// Enters the view in a forked child, before its program runs, keeping its working
/// directory: `setns` leaves the process at the view's root, so it changes back by path
/// and checks that it arrived in the same directory (not one renamed into its place
/// meanwhile). Async-signal-safe: system calls and the stack only.
pub fn enter(namespace: libc::c_int) -> Result<(), libc::c_int> {
    let mut cwd = [0u8; libc::PATH_MAX as usize];
    // SAFETY: the buffer and its length; the kernel writes a NUL-terminated path.
    let len = unsafe { libc::syscall(libc::SYS_getcwd, cwd.as_mut_ptr(), cwd.len()) };
    // A directory outside the root reads "(unreachable)…": not a path to go back to.
    if len <= 0 || cwd[0] != b'/' {
        return Err(if len < 0 {
            Errno::last_raw()
        } else {
            libc::ENOENT
        });
    }
    let before = stat_at(c".")?;
    // SAFETY: setns with a descriptor and a flag.
    if unsafe { libc::setns(namespace, libc::CLONE_NEWNS) } != 0 {
        return Err(Errno::last_raw());
    }
    // SAFETY: `cwd` holds the NUL-terminated path getcwd wrote.
    if unsafe { libc::chdir(cwd.as_ptr().cast()) } != 0 {
        return Err(Errno::last_raw());
    }
    let after = stat_at(c".")?;
    if (before.st_dev, before.st_ino) != (after.st_dev, after.st_ino) {
        return Err(libc::ESTALE);
    }
    Ok(())
}

fn stat_at(path: &std::ffi::CStr) -> Result<libc::stat, libc::c_int> {
    // SAFETY: stat fills the zeroed struct; a NUL-terminated path.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::stat(path.as_ptr(), &mut st) != 0 {
            return Err(Errno::last_raw());
        }
        Ok(st)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_outermost_write_roots_are_copied() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            outermost(&[
                p("/tmp/a"),
                p("/work"),
                p("/tmp"),
                p("/tmp"),
                p("/workshop")
            ]),
            [p("/tmp"), p("/work"), p("/workshop")]
        );
    }
}
