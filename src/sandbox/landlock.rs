//! Landlock rulesets for started programs, in two layers.
//!
//! - The **file-system layer** is built once per session (and again when a directory it had to
//!   enumerate changes): read and write access under the policy's roots, the devices programs
//!   need. Landlock can only grant, so a denied path under
//!   a root is kept out by granting around it: the root's directories down to the denied path
//!   get directory listing only, and every other entry beside them gets the root's access.
//!   A denied path the session's own permissions already keep out is left to them, and
//!   watched (`left_to_permissions`).
//! - The **command layer** is built per program (and cached): EXECUTE for the decided file, its
//!   ELF interpreter, and the policy's exec directories when the command may start programs;
//!   TCP bind and connect refused when it may not use the network; signals and abstract unix
//!   sockets scoped to the program's own domain.
//!
//! Both are applied in the child (`landlock_restrict_self`), each as its own layer: an access
//! must be allowed by both. The command layer goes first, since each new layer copies the
//! rules of those before it and the file-system layer is the larger.
#![allow(unsafe_code)]

use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, PathBeneath, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};

/// The newest Landlock ABI rsh knows the meaning of. A newer kernel is used at this ABI: rights
/// rsh does not know it would have to grant could only break programs.
pub const NEWEST_ABI: i32 = 7;

/// The ABI needed to enforce a policy in full: scoping of signals and abstract unix sockets
/// arrived last (Linux 6.12).
pub const REQUIRED_ABI: i32 = 6;

/// What each ABI version added, for messages about an older kernel.
pub const FEATURES: &[(i32, &str)] = &[
    (1, "file access rules"),
    (2, "rules for linking and renaming across directories"),
    (3, "file truncation rules"),
    (4, "TCP bind and connect rules"),
    (5, "device ioctl rules"),
    (6, "signal and abstract unix socket scoping"),
];

/// The Landlock ABI version of the running kernel; 0 when Landlock is missing or disabled.
pub fn kernel_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the documented version query: no attribute, size 0.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(version).unwrap_or(0).max(0)
}

/// Features of `REQUIRED_ABI` that an ABI lacks.
pub fn missing_features(abi: i32) -> Vec<&'static str> {
    FEATURES
        .iter()
        .filter(|(version, _)| *version > abi && *version <= REQUIRED_ABI)
        .map(|(_, name)| *name)
        .collect()
}

/// Applies a ruleset to the calling thread. Async-signal-safe.
pub fn restrict_self(ruleset: BorrowedFd) -> Result<(), i32> {
    // SAFETY: a raw system call on a descriptor we hold.
    let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
    if rc == 0 {
        Ok(())
    } else {
        Err(nix::errno::Errno::last_raw())
    }
}

fn read_access(abi: ABI) -> BitFlags<AccessFs> {
    AccessFs::from_read(abi) & !AccessFs::Execute
}

/// Everything a write root grants: reading, and changing files, but neither executing nor
/// creating device nodes, nor device ioctls.
fn write_access(abi: ABI) -> BitFlags<AccessFs> {
    read_access(abi)
        | (AccessFs::from_write(abi)
            & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev))
}

/// What a device (or a directory of them) of `DEVICES` grants: reading, and when writable,
/// writing and its ioctls.
fn device_access(abi: ABI, writable: bool) -> BitFlags<AccessFs> {
    let mut access = AccessFs::ReadFile | AccessFs::ReadDir;
    if writable {
        access |= AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    }
    access & AccessFs::from_all(abi)
}

/// Rights that make sense on a file that is not a directory.
fn file_access(abi: ABI, access: BitFlags<AccessFs>) -> BitFlags<AccessFs> {
    access & AccessFs::from_file(abi)
}

/// Devices every program may use, whatever the roots say. Anything else under /dev (disks,
/// memory, the kernel log) is never reachable through a root above /dev.
const DEVICES: &[(&str, bool)] = &[
    // (path, writable)
    ("/dev/null", true),
    ("/dev/zero", true),
    ("/dev/full", true),
    ("/dev/random", false),
    ("/dev/urandom", false),
    ("/dev/tty", true),
    ("/dev/ptmx", true),
];

/// Where pseudo-terminals are. Programs get only their own session's (`own_terminals`):
/// any other would let them read what another session types, and write to its screen.
const TERMINALS: &str = "/dev/pts";

/// The pseudo-terminals of rsh's standard descriptors and its controlling terminal, which a
/// program may reopen by name (`ttyname`, a passphrase prompt). Looked at once: the layer
/// and rsh's own checks agree.
pub fn own_terminals() -> &'static [PathBuf] {
    static OWN: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    OWN.get_or_init(|| {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        // The controlling terminal is what /dev/tty opens (the name itself is another device).
        let controlling = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
            .open("/dev/tty")
            .and_then(|tty| tty.metadata());
        let ids = ["/proc/self/fd/0", "/proc/self/fd/1", "/proc/self/fd/2"]
            .into_iter()
            .map(std::fs::metadata)
            .chain([controlling])
            .filter_map(Result::ok)
            .filter(|meta| meta.file_type().is_char_device())
            .map(|meta| (meta.dev(), meta.rdev()));
        let mut own = Vec::new();
        for (dev, rdev) in ids {
            let (major, minor) = (libc::major(rdev), libc::minor(rdev));
            if !(136..=143).contains(&major) {
                continue;
            }
            let path = PathBuf::from(format!("{TERMINALS}/{}", (major - 136) * 256 + minor));
            // That terminal under this name, not one of the same number in another /dev/pts
            // (a container's).
            let same = std::fs::metadata(&path).is_ok_and(|m| m.dev() == dev && m.rdev() == rdev);
            if same && !own.contains(&path) {
                own.push(path);
            }
        }
        own
    })
}

/// Read everywhere, whatever the roots say: what a dynamically linked program needs to start
/// (libraries, the loader cache, locale and time zone data, user names) and /proc (other
/// processes' private entries stay out of reach: Landlock keeps a confined program from
/// inspecting processes outside its domain).
const SYSTEM_READ: &[&str] = &[
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc",
];

/// Never reachable through a read root that contains it (devices are granted one by one).
const HIDDEN: &[&str] = &["/dev"];

/// Never writable through a write root that contains it: kernel settings and devices.
const UNWRITABLE: &[&str] = &["/dev", "/proc", "/sys"];

/// Absolute, canonical file-system rules (see `Sandbox` for how policy paths get here).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FsRules {
    pub read: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    pub deny: Vec<PathBuf>,
    /// Every terminal under /dev/pts, not only the session's own (`[paths] terminals`).
    pub all_terminals: bool,
}

impl FsRules {
    /// Whether a confined program could open `path` (absolute, symbolic links resolved) for
    /// reading, or for writing too: the same answer the file-system layer gives, for what rsh
    /// opens on a program's behalf (redirections, sourced files). Err says why not.
    pub fn permits(&self, path: &Path, write: bool) -> Result<(), String> {
        if let Some(denied) = self.deny.iter().find(|d| path.starts_with(d)) {
            return Err(format!("{} is denied (paths.deny)", denied.display()));
        }
        if let Some(&(_, writable)) = DEVICES.iter().find(|(device, _)| path.starts_with(device)) {
            return if writable || !write {
                Ok(())
            } else {
                Err("the device is read-only".to_string())
            };
        }
        if path.starts_with(TERMINALS) {
            let reachable = self.all_terminals
                || path == Path::new(TERMINALS)
                || own_terminals().iter().any(|t| t == path);
            return match reachable {
                true if path != Path::new(TERMINALS) || !write => Ok(()),
                true => Err("the device is read-only".to_string()),
                false => Err("it is another session's terminal".to_string()),
            };
        }
        let grants = |roots: &[PathBuf], excluded: &[&str]| {
            roots.iter().any(|root| reaches(root, path, excluded))
        };
        if grants(&self.write, UNWRITABLE) {
            if write && std::fs::symlink_metadata(path).is_err() && self.lists_only(path.parent()) {
                return Err("nothing can be created beside a denied path (paths.deny): \
                     its directory is granted listing only"
                    .to_string());
            }
            return Ok(());
        }
        if write {
            return Err("it is outside the write roots (paths.write)".to_string());
        }
        let system: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
        if grants(&self.read, HIDDEN) || grants(&system, &[]) {
            Ok(())
        } else {
            Err("it is outside the read roots (paths.read)".to_string())
        }
    }
}

impl FsRules {
    /// Whether a directory under a write root only gets listing from the file-system layer:
    /// it leads to a denied path (or to /dev, /proc, /sys under the root), so it was granted
    /// around, entry by entry.
    fn lists_only(&self, dir: Option<&Path>) -> bool {
        let Some(dir) = dir else {
            return false;
        };
        self.write
            .iter()
            .filter(|root| dir.starts_with(root))
            .any(|root| {
                hidden_under(root, UNWRITABLE, &self.deny)
                    .iter()
                    .any(|denied| denied.starts_with(dir) && denied != dir)
            })
    }
}

/// A path the layer depends on, and how it looked when the layer was built: its status-change
/// time moves when an entry is created, removed or renamed in it (a directory), and when its
/// mode, owner or ACL change; a replacement changes its inode.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Watched {
    path: PathBuf,
    stamp: Option<(u64, u64, i64, i64)>,
}

fn stamp(path: &Path) -> Option<(u64, u64, i64, i64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|meta| stamp_of(&meta))
}

fn stamp_of(meta: &std::fs::Metadata) -> (u64, u64, i64, i64) {
    (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec())
}

fn watched(path: &Path) -> Watched {
    Watched {
        path: path.to_path_buf(),
        stamp: stamp(path),
    }
}

/// Whether the kernel's permissions already keep a denied path from the session's programs,
/// so that the layer need not grant around it; Some(the path the layer then depends on,
/// stamped as it was before its permissions were looked at).
///
/// - An existing path qualifies when it belongs to someone else (who alone may change its
///   mode) and this process may neither read, write nor search it.
/// - A missing one, or one behind a directory this process cannot search, when the nearest
///   directory above it that can be examined belongs to someone else and this process can
///   neither search it nor (for a missing one) create anything in it.
///
/// Programs cannot gain the rights the session lacks: they run with no_new_privs (no
/// set-user-ID, no file capabilities). For root and for the user's own files this is None.
fn left_to_permissions(path: &Path, euid: u32, looks: &mut Looks) -> Option<Watched> {
    use nix::unistd::AccessFlags;
    // Root passes the permission checks (but on a network file system that squashes root,
    // where granting around is merely unneeded): not worth the look-ups.
    if euid == 0 {
        return None;
    }
    match looks.meta(path) {
        // A symbolic link (dangling: policy paths are canonical) would be followed to a file
        // whose owner may be anyone.
        Ok(meta) if meta.is_symlink() => None,
        Ok(meta) => {
            let all = [AccessFlags::R_OK, AccessFlags::W_OK, AccessFlags::X_OK];
            (meta.uid() != euid && looks.denies(path, &all)).then(|| Watched {
                path: path.to_path_buf(),
                stamp: Some(stamp_of(&meta)),
            })
        }
        Err(kind) => {
            use std::io::ErrorKind::{NotFound, PermissionDenied};
            if !matches!(kind, NotFound | PermissionDenied) {
                return None;
            }
            let (above, meta) = path
                .ancestors()
                .skip(1)
                .find_map(|dir| Some((dir, looks.meta(dir).ok()?)))?;
            let closed = looks.denies(above, &[AccessFlags::X_OK])
                || (kind == NotFound && looks.denies(above, &[AccessFlags::W_OK]));
            (meta.is_dir() && meta.uid() != euid && closed).then(|| Watched {
                path: above.to_path_buf(),
                stamp: Some(stamp_of(&meta)),
            })
        }
    }
}

/// What `left_to_permissions` learnt while one layer is built: as nobody, the eleven denied
/// paths under a missing home each looked up the home and `/` and asked twice about `/`,
/// with the same answers every time.
#[derive(Default)]
struct Looks {
    meta: Vec<(PathBuf, Result<std::fs::Metadata, std::io::ErrorKind>)>,
    access: Vec<(PathBuf, nix::unistd::AccessFlags, bool)>,
}

impl Looks {
    /// The path's own metadata (a link is not followed).
    fn meta(&mut self, path: &Path) -> Result<std::fs::Metadata, std::io::ErrorKind> {
        use std::io::ErrorKind::NotFound;
        if let Some((_, known)) = self.meta.iter().find(|(seen, _)| seen == path) {
            return known.clone();
        }
        // Absolute directories only: every path starts with the empty one.
        let under_missing = (self.meta.iter()).any(|(seen, known)| {
            matches!(known, Err(NotFound)) && seen.is_absolute() && path.starts_with(seen)
        });
        let known = match under_missing {
            true => Err(NotFound),
            false => std::fs::symlink_metadata(path).map_err(|e| e.kind()),
        };
        self.meta.push((path.to_path_buf(), known.clone()));
        known
    }

    /// Whether this process may use the path in none of `modes`, with its effective ids, as
    /// the kernel checks a program's opens.
    fn denies(&mut self, path: &Path, modes: &[nix::unistd::AccessFlags]) -> bool {
        modes.iter().all(|&mode| !self.allows(path, mode))
    }

    fn allows(&mut self, path: &Path, mode: nix::unistd::AccessFlags) -> bool {
        use nix::fcntl::{AT_FDCWD, AtFlags};
        let known = self
            .access
            .iter()
            .find(|(seen, m, _)| seen == path && *m == mode);
        if let Some(&(_, _, allowed)) = known {
            return allowed;
        }
        let allowed = nix::unistd::faccessat(AT_FDCWD, path, mode, AtFlags::AT_EACCESS).is_ok();
        self.access.push((path.to_path_buf(), mode, allowed));
        allowed
    }
}

/// The file-system layer: a ruleset descriptor and the paths it depends on.
#[derive(Debug)]
pub struct FsLayer {
    ruleset: std::sync::Arc<OwnedFd>,
    watched: Vec<Watched>,
    /// How many rules it holds (for benchmarks and tests).
    pub rules: usize,
}

impl FsLayer {
    /// The ruleset, shared with the confinements that apply it.
    pub fn ruleset(&self) -> std::sync::Arc<OwnedFd> {
        self.ruleset.clone()
    }

    /// False when a path it depends on has changed: a directory enumerated to grant around a
    /// denied path (an entry created, removed or renamed), or a denied path left to its
    /// permissions (see `Watched`). The layer must then be built again.
    pub fn is_current(&self) -> bool {
        self.watched.iter().all(|w| stamp(&w.path) == w.stamp)
    }
}

/// Builds the file-system layer. `abi` is the ABI to use (already capped). With `share`, a
/// thread that needs the layer meanwhile adds some of its rules (`Shared::help`).
pub fn fs_layer(abi: i32, rules: &FsRules, share: Option<&Shared>) -> Result<FsLayer, String> {
    let abi = ABI::from(abi);
    let handled = AccessFs::from_all(abi) & !AccessFs::Execute;
    let ruleset = Ruleset::default()
        .handle_access(handled)
        .and_then(|r| r.create())
        .map_err(|e| format!("cannot create a Landlock ruleset: {e}"))?;
    let ruleset: Option<OwnedFd> = ruleset.into();
    let ruleset = ruleset.ok_or("Landlock is not available on this kernel")?;
    let mut builder = Builder {
        abi,
        ruleset,
        watched: Vec::new(),
        rules: 0,
        listed: Listed::default(),
    };
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    let mut deny = Vec::new();
    let mut looks = Looks::default();
    for path in &rules.deny {
        match left_to_permissions(path, euid, &mut looks) {
            Some(depends_on) => builder.watched.push(depends_on),
            None => deny.push(path.clone()),
        }
    }
    let read = read_access(abi);
    let write = write_access(abi);
    // Other sessions' terminals stay out of reach under a root of /dev too, and a root at or
    // inside /dev/pts grants nothing (see `own_terminals`).
    let terminals: &[&str] = if rules.all_terminals {
        &[]
    } else {
        &[TERMINALS]
    };
    let unwritable: Vec<&str> = UNWRITABLE.iter().chain(terminals).copied().collect();
    let hidden: Vec<&str> = HIDDEN.iter().chain(terminals).copied().collect();
    let granted = |roots: &[PathBuf], implicit: &[&str]| -> Vec<PathBuf> {
        let mut roots = outermost(roots, implicit);
        roots.retain(|root| rules.all_terminals || !root.starts_with(TERMINALS));
        roots
    };
    let writes = granted(&rules.write, &unwritable);
    let reads = granted(&rules.read, &hidden);
    for root in &writes {
        builder.grant_root(root, write, &hidden_under(root, &unwritable, &deny))?;
    }
    for root in &reads {
        builder.grant_root(root, read, &hidden_under(root, &hidden, &deny))?;
    }
    for system in SYSTEM_READ.iter().map(Path::new) {
        if !reads.iter().any(|root| system.starts_with(root)) {
            builder.grant_root(system, read, &deny)?;
        }
    }
    // A denied device (or one under a denied directory) gets no rule, and denied entries
    // of /dev/pts are granted around, as under any root.
    for (device, writable) in DEVICES {
        builder.grant_root(Path::new(device), device_access(abi, *writable), &deny)?;
    }
    if rules.all_terminals {
        builder.grant_root(Path::new(TERMINALS), device_access(abi, true), &deny)?;
    } else {
        builder.grant_root(Path::new(TERMINALS), AccessFs::ReadDir.into(), &deny)?;
        for own in own_terminals() {
            builder.grant_root(own, device_access(abi, true), &deny)?;
        }
    }
    builder.add_listed(share)?;
    // Checked before every program: each path once (as nobody, the eleven denied paths
    // under a missing home all depend on `/`). A path seen to change while the layer was
    // built keeps both of its stamps, and the layer is built again.
    let mut watched = builder.watched;
    watched.sort_unstable();
    watched.dedup();
    Ok(FsLayer {
        ruleset: std::sync::Arc::new(high_fd(builder.ruleset)?),
        watched,
        rules: builder.rules,
    })
}

/// The denied paths that matter for `root`: the policy's, and those of `implicit` that lie
/// strictly under it (a root such as /dev/shm named by the policy is honoured).
fn hidden_under(root: &Path, implicit: &[&str], deny: &[PathBuf]) -> Vec<PathBuf> {
    let mut all = deny.to_vec();
    all.extend(
        implicit
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.starts_with(root) && p != root),
    );
    all
}

/// Whether the root `root` reaches `path`: `path` is under it, and none of the `excluded`
/// directories (/dev, /proc, /sys) lies strictly below the root on the way.
fn reaches(root: &Path, path: &Path, excluded: &[&str]) -> bool {
    path.starts_with(root)
        && !excluded
            .iter()
            .map(Path::new)
            .any(|inner| inner.starts_with(root) && inner != root && path.starts_with(inner))
}

/// The roots that are not inside another one of the list (each once). A root inside what
/// `implicit` hides from the root around it stays a root of its own (`/dev/shm` beside `/`).
fn outermost(roots: &[PathBuf], implicit: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in roots {
        let inside = roots
            .iter()
            .any(|r| r != path && reaches(r, path, implicit));
        if !inside && !out.contains(path) {
            out.push(path.clone());
        }
    }
    out
}

/// Adds the file-system layer's rules. The ruleset is created through the landlock crate
/// (which settles what this ABI handles); rules are added with the raw system call, opened
/// relative to their directory with the type readdir already gave: a layer holds a few hundred
/// rules, built on every start, and the crate's per-rule checks would double the system calls.
struct Builder {
    abi: ABI,
    ruleset: OwnedFd,
    watched: Vec<Watched>,
    rules: usize,
    /// The entries of the directories granted around, their rules still to be added.
    listed: Listed,
}

/// The entries met while granting around denied paths, listed first and given their rules
/// afterwards, by the builder and by a thread that waits for the layer (`Shared`).
#[derive(Default)]
struct Listed {
    /// The directories listed, their entries to be opened from them by number.
    dirs: Vec<nix::dir::Dir>,
    /// Each listed directory's number and path (the path for messages). Apart from `dirs`:
    /// a directory's place is taken before its subdirectories are listed, its `Dir` kept
    /// after.
    places: Vec<(std::os::fd::RawFd, PathBuf)>,
    entries: Vec<ListedEntry>,
}

struct ListedEntry {
    /// Its directory, in `Listed::places`.
    dir: usize,
    name: std::ffi::CString,
    access: BitFlags<AccessFs>,
}

/// The listed entries of a layer being built, to add rules for from another thread: as root,
/// granting around the default policy's denied files in /etc takes an `openat` and a
/// `landlock_add_rule` for each of its ~150 other entries, and the shell, ready for its first
/// program before that is done, would otherwise wait idle.
#[derive(Default)]
pub struct Shared(std::sync::OnceLock<Adding>);

impl Shared {
    /// Adds rules for entries nobody has taken yet: none after the builder has taken the
    /// last entry. False, doing nothing, before the builder has listed its directories.
    pub fn help(&self) -> bool {
        let adding = self.0.get();
        if let Some(adding) = adding {
            adding.take_entries();
        }
        adding.is_some()
    }
}

/// Listed entries being given their rules: each is taken once, by whichever thread gets to it
/// first.
struct Adding {
    /// Descriptors of the ruleset and of the listed directories, used by number.
    numbers: Numbers,
    /// What keeps those numbers open: let go once every entry is done, when no entry can be
    /// taken any more (`next` only grows); kept if the builder never gets there (a panic),
    /// since another thread may still be adding one. The lock is only taken to let go.
    open: std::sync::Mutex<Option<(OwnedFd, Vec<nix::dir::Dir>)>>,
    entries: Vec<ListedEntry>,
    next: std::sync::atomic::AtomicUsize,
    done: std::sync::atomic::AtomicUsize,
    rules: std::sync::atomic::AtomicUsize,
    /// The first rule that could not be added, in time: every entry is still tried.
    failure: std::sync::Mutex<Option<String>>,
}

/// The numbers of the descriptors `Adding::open` holds.
struct Numbers {
    ruleset: std::os::fd::RawFd,
    places: Vec<(std::os::fd::RawFd, PathBuf)>,
}

/// Counts an entry done when dropped, also when adding its rule panicked: the builder waits
/// for every entry taken.
struct Done<'a>(&'a std::sync::atomic::AtomicUsize);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }
}

impl Adding {
    /// Entries for `ruleset` (a copy of the builder's, so that the builder's own going away
    /// leaves this one open).
    fn new(ruleset: OwnedFd, listed: Listed) -> Adding {
        let numbers = Numbers {
            ruleset: ruleset.as_raw_fd(),
            places: listed.places,
        };
        Adding {
            numbers,
            open: std::sync::Mutex::new(Some((ruleset, listed.dirs))),
            entries: listed.entries,
            next: Default::default(),
            done: Default::default(),
            rules: Default::default(),
            failure: Default::default(),
        }
    }

    fn take_entries(&self) {
        let mut spent = Spent::default();
        let next = || self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        while let Some(entry) = self.entries.get(next()) {
            let _done = Done(&self.done);
            if let Err(message) = self.add_entry(entry, &mut spent) {
                self.failure
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert(message);
            }
        }
    }

    /// One entry's rule; none for an entry that cannot be opened (gone, or not permitted).
    fn add_entry(&self, entry: &ListedEntry, spent: &mut Spent) -> Result<(), String> {
        let (dir, path) = &self.numbers.places[entry.dir];
        let Some(file) = open_at(*dir, &entry.name) else {
            return Ok(());
        };
        let added = add_rule(self.numbers.ruleset, &file, entry.access)
            .map_err(|errno| rule_error(&entry_path(path, &entry.name), errno))?;
        if added {
            self.rules
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        spent.push(file);
        Ok(())
    }

    /// Waits until every entry is done, by this thread or another, then closes the
    /// descriptors they were opened from.
    fn finish(&self) {
        while self.done.load(std::sync::atomic::Ordering::Acquire) < self.entries.len() {
            std::thread::yield_now();
        }
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        drop(open.take());
    }
}

/// Descriptors done with, closed together: one `close_range` for each run of consecutive
/// numbers rather than a `close` each. Granting around /etc as root opens ~150 entries;
/// closing them one by one took 90 µs, by runs 45 (a C program, on this file system).
#[derive(Default)]
struct Spent(Vec<OwnedFd>);

impl Spent {
    /// Closed before there are more than this many, well below any open-files limit.
    const MOST: usize = 64;

    fn push(&mut self, file: OwnedFd) {
        self.0.push(file);
        if self.0.len() >= Self::MOST {
            self.close();
        }
    }

    fn close(&mut self) {
        use std::os::fd::IntoRawFd;
        let mut fds: Vec<i32> = self.0.drain(..).map(IntoRawFd::into_raw_fd).collect();
        fds.sort_unstable();
        // Every number of a run is one of ours: another thread's descriptor between two of
        // them ends the run.
        for run in fds.chunk_by(|a, b| *b == a + 1) {
            let (first, last) = (run[0], run[run.len() - 1]);
            // SAFETY: close_range over descriptors this list owned and no longer uses.
            let rc = unsafe { libc::syscall(libc::SYS_close_range, first, last, 0u32) };
            if rc != 0 {
                for &fd in run {
                    // SAFETY: as above, one at a time where close_range is refused.
                    unsafe { libc::close(fd) };
                }
            }
        }
    }
}

impl Drop for Spent {
    fn drop(&mut self) {
        self.close();
    }
}

/// `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;

impl Builder {
    /// Grants `access` under `root`, except under the denied paths.
    fn grant_root(
        &mut self,
        root: &Path,
        access: BitFlags<AccessFs>,
        deny: &[PathBuf],
    ) -> Result<(), String> {
        if deny.iter().any(|d| root.starts_with(d)) {
            return Ok(());
        }
        let inner: Vec<&Path> = deny
            .iter()
            .map(PathBuf::as_path)
            .filter(|d| d.starts_with(root))
            .collect();
        if inner.is_empty() {
            self.grant(root, access)
        } else {
            self.grant_around(root, None, access, &inner)
        }
    }

    /// `dir` contains denied paths: list-only on `dir`, full access on every entry that is
    /// neither denied nor leads to a denied path, and the same again inside those that lead to
    /// one. Symbolic links get no rule: what they point to has rules of its own.
    ///
    /// `at` is where a directory met while granting around its parent is: the parent's
    /// listing and the entry's name. It is opened from there, never through a symbolic link,
    /// so that a directory replaced by a link after the listing (by a process rsh does not
    /// confine) grants nothing where the link leads; a root is opened by its path.
    fn grant_around(
        &mut self,
        dir: &Path,
        at: Option<(std::os::fd::BorrowedFd, &std::ffi::CStr)>,
        access: BitFlags<AccessFs>,
        deny: &[&Path],
    ) -> Result<(), String> {
        use nix::dir::{Dir, Type};
        use nix::fcntl::OFlag;
        use std::os::unix::ffi::OsStrExt;
        self.watched.push(watched(dir));
        // An unreadable directory gets no rules: its entries stay out of reach, and its mode
        // already forbids listing it.
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let no_mode = nix::sys::stat::Mode::empty();
        let listing = match at {
            None => Dir::open(dir, flags, no_mode),
            Some((parent, name)) => Dir::openat(parent, name, flags | OFlag::O_NOFOLLOW, no_mode),
        };
        let Ok(mut listing) = listing else {
            return Ok(());
        };
        // Listing only, on the directory that is listed here.
        if access.contains(AccessFs::ReadDir) {
            let add = self.add_rule(listing.as_fd(), AccessFs::ReadDir.into());
            add.map_err(|errno| rule_error(dir, errno))?;
        }
        let dir_fd = listing.as_fd().as_raw_fd();
        let place = self.listed.places.len();
        self.listed.places.push((dir_fd, dir.to_path_buf()));
        let prefix = dir.as_os_str().as_bytes();
        // A few hundred entries in /etc: each is judged from its name's bytes, and a path is
        // built only for the rare entry that leads to a denied path.
        for entry in listing.iter().flatten() {
            let name = entry.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            // The denied paths inside this entry, when it is not denied itself.
            let mut inner: Vec<&Path> = Vec::new();
            let mut denied = false;
            for &d in deny {
                match beneath_entry(d.as_os_str().as_bytes(), prefix, name) {
                    Some(true) => denied = true,
                    Some(false) => inner.push(d),
                    None => {}
                }
            }
            if denied {
                continue;
            }
            let leads_to_denied = !inner.is_empty();
            // The listing gives the type on most file systems; elsewhere the entry is opened
            // here to learn it, and again when its rule is added.
            let kind = match entry.file_type() {
                Some(kind) => kind,
                None => match open_at(dir_fd, name) {
                    Some(file) => kind_of(&file),
                    None => continue,
                },
            };
            match kind {
                Type::Symlink => continue,
                Type::Directory if leads_to_denied => {
                    let path = entry_path(dir, name);
                    // SAFETY: the listing's own descriptor, open until the loop ends.
                    let here = unsafe { std::os::fd::BorrowedFd::borrow_raw(dir_fd) };
                    self.grant_around(&path, Some((here, name)), access, &inner)?
                }
                _ if leads_to_denied => continue,
                _ => {
                    let access = if kind == Type::Directory {
                        access
                    } else {
                        file_access(self.abi, access)
                    };
                    self.listed.entries.push(ListedEntry {
                        dir: place,
                        name: name.to_owned(),
                        access,
                    });
                }
            }
        }
        self.listed.dirs.push(listing);
        Ok(())
    }

    /// Adds the rules of the listed entries, with the help of a thread that waits for the
    /// layer when `share` is given.
    fn add_listed(&mut self, share: Option<&Shared>) -> Result<(), String> {
        if self.listed.entries.is_empty() {
            return Ok(());
        }
        let ruleset = self
            .ruleset
            .try_clone()
            .map_err(|e| format!("cannot copy the Landlock ruleset's descriptor: {e}"))?;
        let adding = Adding::new(ruleset, std::mem::take(&mut self.listed));
        let mut here = None;
        let adding = match share {
            Some(share) => match share.0.set(adding) {
                Ok(()) => share.0.get().expect("set just now"),
                Err(adding) => {
                    debug_assert!(false, "a layer's entries shared twice");
                    here.insert(adding)
                }
            },
            None => here.insert(adding),
        };
        adding.take_entries();
        adding.finish();
        self.rules += adding.rules.load(std::sync::atomic::Ordering::Relaxed);
        let mut failure = adding
            .failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        failure.take().map_or(Ok(()), Err)
    }

    /// One rule, for a path opened here. A path that cannot be opened (gone, or not
    /// permitted) gets none.
    fn grant(&mut self, path: &Path, access: BitFlags<AccessFs>) -> Result<(), String> {
        let Ok(file) = open_path(path) else {
            return Ok(());
        };
        let Ok(meta) = file.metadata() else {
            return Ok(());
        };
        let access = if meta.is_dir() {
            access
        } else {
            file_access(self.abi, access)
        };
        self.add_rule(&file, access)
            .map_err(|errno| rule_error(path, errno))
    }

    fn add_rule(
        &mut self,
        file: impl AsFd,
        access: BitFlags<AccessFs>,
    ) -> Result<(), nix::errno::Errno> {
        let added = add_rule(self.ruleset.as_raw_fd(), file, access)?;
        self.rules += usize::from(added);
        Ok(())
    }
}

/// Adds a rule granting `access` beneath `file` to `ruleset`; false for no access (no rule).
fn add_rule(
    ruleset: std::os::fd::RawFd,
    file: impl AsFd,
    access: BitFlags<AccessFs>,
) -> Result<bool, nix::errno::Errno> {
    if access.is_empty() {
        return Ok(false);
    }
    let attr = PathBeneathAttr {
        allowed_access: access.bits(),
        parent_fd: file.as_fd().as_raw_fd(),
    };
    // SAFETY: `attr` is a valid landlock_path_beneath_attr for the duration of the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset,
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    if rc != 0 {
        return Err(nix::errno::Errno::last());
    }
    Ok(true)
}

/// The path of the entry `name` of the directory `dir`.
fn entry_path(dir: &Path, name: &std::ffi::CStr) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    dir.join(std::ffi::OsStr::from_bytes(name.to_bytes()))
}

fn rule_error(path: &Path, errno: nix::errno::Errno) -> String {
    format!(
        "cannot add a Landlock rule for {}: {}",
        path.display(),
        crate::errno_text(errno)
    )
}

/// Where the entry `name` of the directory whose path is `dir` stands to the path `denied`
/// (all as bytes, canonical): Some(true) when it is `denied`, Some(false) when `denied` lies
/// inside it, None otherwise.
fn beneath_entry(denied: &[u8], dir: &[u8], name: &std::ffi::CStr) -> Option<bool> {
    let rest = denied.strip_prefix(dir)?;
    let rest = if dir.ends_with(b"/") {
        rest
    } else {
        rest.strip_prefix(b"/")?
    };
    let rest = rest.strip_prefix(name.to_bytes())?;
    match rest.first() {
        None => Some(true),
        Some(b'/') => Some(false),
        Some(_) => None,
    }
}

/// Opens an entry of a directory for a rule, without following a symbolic link.
fn open_at(dir: std::os::fd::RawFd, name: &std::ffi::CStr) -> Option<OwnedFd> {
    // SAFETY: a NUL-terminated name and a directory descriptor we hold.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    // SAFETY: a fresh descriptor we own.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The type of an opened file, for file systems whose listings do not say.
fn kind_of(file: &OwnedFd) -> nix::dir::Type {
    use nix::dir::Type;
    match nix::sys::stat::fstat(file).map(|st| st.st_mode & libc::S_IFMT) {
        Ok(libc::S_IFDIR) => Type::Directory,
        Ok(libc::S_IFLNK) => Type::Symlink,
        _ => Type::File,
    }
}

/// Opens a path for use in a rule (O_PATH: no permission needed beyond reaching it).
fn open_path(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)
}

/// Moves a descriptor rsh keeps into its own range (`SHELL_FDS_FROM` up), where no
/// redirection can reach it: a command that could swap the ruleset descriptor for another
/// would choose its own confinement. No descriptor free there: an error.
pub fn high_fd(fd: OwnedFd) -> Result<OwnedFd, String> {
    // SAFETY: F_DUPFD_CLOEXEC creates a new descriptor; on success we own it.
    let high = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, crate::SHELL_FDS_FROM) };
    if high < 0 {
        return Err(format!(
            "no descriptor free from {} up (RLIMIT_NOFILE too low?): {}",
            crate::SHELL_FDS_FROM,
            crate::errno_text(nix::errno::Errno::last())
        ));
    }
    // SAFETY: `high` is a fresh descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(high) })
}

/// What the command layer grants: executing these files and directories, and the network.
pub struct CommandRules<'a> {
    /// The decided program (its O_PATH descriptor), its ELF interpreter, and with
    /// subprocesses the exec directories.
    pub executable: Vec<BorrowedFd<'a>>,
    /// Whether execution is restricted at all (the policy has `[paths]`).
    pub restrict_exec: bool,
    pub network: bool,
}

/// Builds the command layer; None when it would restrict nothing.
pub fn command_layer(abi: i32, rules: &CommandRules) -> Result<Option<OwnedFd>, String> {
    let version = abi;
    let abi = ABI::from(abi);
    let mut ruleset = Ruleset::default();
    let mut handles = false;
    // A layer that handles any file access and not Refer forbids every link and rename
    // across directories (EXDEV), whatever the other layers grant: git could not store a
    // pushed object, nor `ln a/f b/f` work in a write root. This layer handles Refer too and
    // grants it everywhere, so it only keeps a file from gaining Execute by being moved.
    let refer = version >= 2;
    if rules.restrict_exec {
        let access = if refer {
            AccessFs::Execute | AccessFs::Refer
        } else {
            AccessFs::Execute.into()
        };
        ruleset = ruleset.handle_access(access).map_err(|e| e.to_string())?;
        handles = true;
    }
    if !rules.network && version >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| e.to_string())?;
        handles = true;
    }
    if version >= 6 {
        ruleset = ruleset
            .scope(Scope::from_all(abi))
            .map_err(|e| e.to_string())?;
        handles = true;
    }
    if !handles {
        return Ok(None);
    }
    let mut created = ruleset
        .create()
        .map_err(|e| format!("cannot create a Landlock ruleset: {e}"))?;
    if rules.restrict_exec {
        if refer {
            let root = open_path(Path::new("/"))
                .map_err(|e| format!("cannot open / for a Landlock rule: {e}"))?;
            created = created
                .add_rule(PathBeneath::new(root.as_fd(), AccessFs::Refer))
                .map_err(|e| format!("cannot add a Landlock rule: {e}"))?;
        }
        for fd in &rules.executable {
            created = created
                .add_rule(PathBeneath::new(*fd, AccessFs::Execute))
                .map_err(|e| format!("cannot add a Landlock execute rule: {e}"))?;
        }
    }
    let fd: Option<OwnedFd> = created.into();
    fd.map(high_fd).transpose()
}

/// The ELF interpreter (`PT_INTERP`) a program names, if it is a dynamically linked ELF file.
/// `head` is the start of the file as already read (the shell reads it to classify the
/// file): the header, the program headers and the interpreter's name are usually in its
/// first kilobyte, and what is not is read through the descriptor.
pub fn elf_interpreter(program: BorrowedFd, head: &[u8]) -> Option<PathBuf> {
    let mut reader = Head {
        head,
        program,
        file: None,
    };
    let header = reader.read(0, 64)?;
    if &header[..4] != b"\x7fELF" || header[4] != 2 || header[5] != 1 {
        // Only 64-bit little-endian files, the only ones this rsh runs natively.
        return None;
    }
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as u64;
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let phoff = u64_at(&header, 32);
    let phentsize = u16_at(&header, 54);
    let phnum = u16_at(&header, 56);
    if phentsize < 56 || phnum > 256 {
        return None;
    }
    let table = reader.read(phoff, (phentsize * phnum) as usize)?;
    for entry in table.chunks_exact(phentsize as usize) {
        const PT_INTERP: u32 = 3;
        if u32::from_le_bytes(entry[..4].try_into().unwrap()) != PT_INTERP {
            continue;
        }
        let offset = u64_at(entry, 8);
        let size = u64_at(entry, 32).min(4096) as usize;
        let name = reader.read(offset, size)?;
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        use std::os::unix::ffi::OsStrExt;
        return Some(PathBuf::from(std::ffi::OsStr::from_bytes(&name[..end])));
    }
    None
}

/// Reads of a program: from the bytes already read where they cover the range, else through
/// the descriptor (O_PATH: reopened through /proc, which opens the same file).
struct Head<'a> {
    head: &'a [u8],
    program: BorrowedFd<'a>,
    file: Option<File>,
}

impl Head<'_> {
    fn read(&mut self, offset: u64, len: usize) -> Option<Vec<u8>> {
        let start = usize::try_from(offset).ok()?;
        if let Some(bytes) = self.head.get(start..start.checked_add(len)?) {
            return Some(bytes.to_vec());
        }
        if self.file.is_none() {
            let path = format!("/proc/self/fd/{}", self.program.as_raw_fd());
            self.file = Some(File::open(path).ok()?);
        }
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0u8; len];
        self.file.as_ref()?.read_exact_at(&mut bytes, offset).ok()?;
        Some(bytes)
    }
}

/// Opens a path for an execute rule, kept in rsh's own descriptor range.
pub fn open_for_rule(path: &Path) -> Option<OwnedFd> {
    high_fd(OwnedFd::from(open_path(path).ok()?)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Closing by runs closes every descriptor handed over and nothing between them that
    /// was not (another thread's, in the layer's case). Each file is a pipe of its own, told
    /// by its inode: tests running beside this one may take a closed number for their files.
    #[test]
    fn spent_descriptors_are_closed_and_no_others() {
        let open = || {
            let (read, _write) = nix::unistd::pipe().unwrap();
            read
        };
        let inode = |fd: i32| {
            // SAFETY: a borrowed number, looked at only; fstat fails if it is closed.
            let fd = unsafe { BorrowedFd::borrow_raw(fd) };
            nix::sys::stat::fstat(fd).ok().map(|st| st.st_ino)
        };
        let still_ours = |(fd, ino): &(i32, Option<u64>)| inode(*fd) == *ino;
        let files: Vec<OwnedFd> = (0..5).map(|_| open()).collect();
        let ours: Vec<(i32, Option<u64>)> = files
            .iter()
            .map(|f| (f.as_raw_fd(), inode(f.as_raw_fd())))
            .collect();
        let mut spent = Spent::default();
        let mut kept = Vec::new();
        for (i, file) in files.into_iter().enumerate() {
            if i == 2 {
                kept.push(file)
            } else {
                spent.push(file)
            }
        }
        spent.close();
        for (i, file) in ours.iter().enumerate() {
            assert_eq!(
                still_ours(file),
                i == 2,
                "descriptor {} (the {i}th)",
                file.0
            );
        }
        drop(kept);
        // More than `MOST` at once are closed as they come, not all held open.
        let ours: Vec<(i32, Option<u64>)> = (0..Spent::MOST)
            .map(|_| {
                let file = open();
                let fd = file.as_raw_fd();
                let ino = inode(fd);
                spent.push(file);
                (fd, ino)
            })
            .collect();
        assert!(spent.0.is_empty());
        assert!(!ours.iter().any(still_ours));
    }

    /// Entries listed while granting around a denied path get their rules from whichever
    /// thread takes them: a layer built while another thread helps holds every rule a layer
    /// built alone does, and the listed directory is closed once every entry is done, while
    /// the shared entries are still held.
    #[test]
    fn listed_entries_get_their_rules_from_any_thread_that_helps() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let abi = kernel_abi().min(NEWEST_ABI);
        if abi < 1 {
            eprintln!("\n!!!!! SKIPPED: this kernel has no Landlock\n");
            return;
        }
        let dir = std::env::temp_dir().join(format!("rsh-listed-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for i in 0..300 {
            std::fs::write(dir.join(format!("file-{i}")), "").unwrap();
        }
        std::fs::write(dir.join("secret"), "").unwrap();
        let rules = FsRules {
            read: vec![dir.clone()],
            write: Vec::new(),
            deny: vec![dir.join("secret")],
            all_terminals: false,
        };
        let alone = fs_layer(abi, &rules, None).unwrap().rules;
        let shared = Shared::default();
        let built = AtomicBool::new(false);
        let helped = std::thread::scope(|scope| {
            let helper = scope.spawn(|| {
                while !built.load(Ordering::Acquire) {
                    shared.help();
                }
            });
            let layer = fs_layer(abi, &rules, Some(&shared));
            built.store(true, Ordering::Release);
            helper.join().unwrap();
            layer.unwrap().rules
        });
        assert_eq!(helped, alone);
        let holds_dir = || {
            std::fs::read_dir("/proc/self/fd")
                .unwrap()
                .flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == dir))
        };
        assert!(shared.0.get().is_some(), "the entries were not shared");
        assert!(
            !holds_dir(),
            "the listing still open once every entry is done"
        );
        drop(shared);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The interpreter's name is the same whether the bytes come from what the shell read,
    /// from the file, or partly from each.
    #[test]
    fn the_elf_interpreter_is_read_from_the_head_or_the_file() {
        use std::io::Read;
        let program = open_for_rule(Path::new("/bin/true")).unwrap();
        let mut head = vec![0u8; 1024];
        let n = File::open("/bin/true").unwrap().read(&mut head).unwrap();
        head.truncate(n);
        let from_file = elf_interpreter(program.as_fd(), &[]);
        let interpreter = from_file.clone().expect("/bin/true names an interpreter");
        assert!(interpreter.is_absolute(), "{interpreter:?}");
        for len in [64, 100, 700, head.len()] {
            assert_eq!(
                elf_interpreter(program.as_fd(), &head[..len]),
                from_file,
                "{len}"
            );
        }
        // What the head covers is taken from it: here, a script's first bytes.
        let mut script = b"#!/bin/sh\n".to_vec();
        script.resize(64, b'#');
        assert_eq!(elf_interpreter(program.as_fd(), &script), None);
    }

    /// An entry is the denied path, leads to it, or neither; names that only share a prefix
    /// with a component (`ssh` and `sshd_config`) are neither, under `/` as under any other
    /// directory.
    #[test]
    fn entries_are_placed_against_denied_paths_by_their_bytes() {
        let cases: [(&str, &str, &str, Option<bool>); 9] = [
            ("/etc/shadow", "/etc", "shadow", Some(true)),
            ("/etc/ssh/key", "/etc", "ssh", Some(false)),
            ("/etc/ssh/key", "/etc", "sshd_config", None),
            ("/etc/sshd_config", "/etc", "ssh", None),
            ("/etc/shadow", "/", "etc", Some(false)),
            ("/etc", "/", "etc", Some(true)),
            ("/etcetera", "/", "etc", None),
            ("/etc/shadow", "/et", "c", None),
            ("/home/a/.ssh", "/home/a", ".ssh", Some(true)),
        ];
        for (denied, dir, name, expected) in cases {
            let name = std::ffi::CString::new(name).unwrap();
            assert_eq!(
                beneath_entry(denied.as_bytes(), dir.as_bytes(), &name),
                expected,
                "{denied} against {dir} + {name:?}"
            );
        }
    }

    /// A layer's looks answer as the file system does, asked once or again: a path under a
    /// directory seen missing is missing, one under a file is not a missing one.
    #[test]
    fn looks_answer_as_the_file_system_does() {
        use nix::unistd::AccessFlags;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("f"), "").unwrap();
        let names = [
            "gone", "gone/x", "gone/x/y", "a", "a/b", "a/gone", "f", "f/x", "f/x/y",
        ];
        let mut looks = Looks::default();
        // An empty path (a relative one's last ancestor) is missing, and hides nothing.
        assert_eq!(
            looks.meta(Path::new("")).err(),
            Some(std::io::ErrorKind::NotFound)
        );
        for _ in 0..2 {
            for name in names {
                let path = dir.path().join(name);
                let fresh = std::fs::symlink_metadata(&path).map_err(|e| e.kind());
                assert_eq!(
                    looks.meta(&path).map(|m| m.ino()),
                    fresh.map(|m| m.ino()),
                    "{name}"
                );
                for mode in [AccessFlags::R_OK, AccessFlags::W_OK, AccessFlags::X_OK] {
                    let fresh = nix::unistd::access(&path, mode).is_ok();
                    assert_eq!(looks.allows(&path, mode), fresh, "{name} {mode:?}");
                }
            }
        }
    }
}
