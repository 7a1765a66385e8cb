//! What the policy's command names resolved to when root last ran rsh, kept between starts.
//!
//! Looking every name up in every search directory is about 200 `stat` calls, the largest
//! part of a start after the program's own loading. Their answers only change when a search
//! directory does (a program added, removed, renamed or replaced), which changes the
//! directory's change time. So rsh, when root runs it, stores what each name is in each
//! directory: absent, a regular file (its device and inode), or a symbolic link. A later
//! start, by anyone, uses that while every search directory is the same directory (device,
//! inode, and the same mount) with the same change time, in the same boot. Where the kernel
//! gives unique mount ids (Linux 6.8), a mount belongs to one mount namespace, so the same
//! mounts mean the same view; with the older, reusable ids, the store is used only from the
//! mount namespace root saw it from. A name that is a symbolic link is stored with what it
//! led to and the directories that answer depended on (each one a component of the chain was
//! looked up in: `/etc/alternatives`, `/usr/lib/…`), and used while those are unchanged too;
//! a link whose chain passes a directory that could not be stored is looked up again on
//! every start.
//! Anything else — a changed or missing directory, a name not in the store, a store that is
//! not root's or that others could change — and the names are looked up as before.
//!
//! The store is `/run/rsh/names-HASH`, one per list of search directories, used only in the
//! boot it was made in (device numbers and mount ids are handed out anew at every boot, and
//! /run is not always in memory). It is written only by root; only
//! for directories only root can change, everyone can search (by mode, with no access
//! control list), on a local file system whose change times the kernel sets (ext4, xfs,
//! btrfs, tmpfs) and not mounted `nosuid` (as removable media are) or `nosymfollow`; only
//! when their change time was two seconds old before the names were looked up (a change
//! within the same tick of the file system's clock would not move it); and only when every
//! look-up answered (a name root could not look up is not stored as absent). What it does
//! not see, all of it root's to do: a file mounted over a single program or link target
//! (the directory does not change), a remount `nosymfollow`, and a security module refusing
//! some users a look-up that the modes allow.

use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::MAX_LINKS;
use super::identity::{Resolver, Target, find_targets_in, name_hash, shared, shared_from};
use super::trust::GROUP_OR_OTHER_WRITE;

/// Where the stores are: a directory usually in memory, emptied at every boot.
pub const STORE_DIR: &str = "/run/rsh";

/// The version of the stored form: a store of another version is not read.
const FORMAT: u32 = 4;

/// How old a search directory's change time must be before what it holds is stored.
const SETTLED: Duration = Duration::from_secs(2);

/// What one name is in one search directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Entry {
    File {
        dev: u64,
        ino: u64,
    },
    /// A symbolic link, looked up on every start.
    Link,
    /// A symbolic link that led to this regular file (device, inode), or to none, while the
    /// directories of `Stored::through` were as stored.
    LinkTo {
        target: Option<(u64, u64)>,
    },
}

/// A search directory as it was when the names were looked up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Dir {
    path: PathBuf,
    now: DirStat,
}

impl Dir {
    /// Whether its path still leads to the same directory, through the same mount, with the
    /// same change time.
    fn unchanged(&self) -> bool {
        DirStat::of(&self.path) == Some(self.now)
    }

    /// Whether what it holds may be stored (see the module's header): its last change
    /// settled by `looked_up_at`, only root can change it, everyone can search it, and its
    /// file system's change times are the kernel's.
    fn storable(&self, looked_up_at: SystemTime) -> bool {
        self.now.settled_at(looked_up_at)
            && only_root_changes(&self.path)
            && kernel_times(&self.path)
    }
}

/// What identifies a directory and its state: its device and inode, the mount it is seen
/// through, and its change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct DirStat {
    dev: u64,
    ino: u64,
    mount: u64,
    /// Whether `mount` is the unique id (never reused in a boot), not the reusable one.
    unique_mount: bool,
    ctime: (i64, u32),
}

impl DirStat {
    /// `path`'s, following symbolic links; None when it is not a directory or cannot be had.
    #[allow(unsafe_code)]
    fn of(path: &Path) -> Option<DirStat> {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
        // STATX_MNT_ID_UNIQUE (Linux 6.8) where the kernel has it, the reusable id otherwise.
        const MNT_ID_UNIQUE: u32 = 0x4000;
        let mask = libc::STATX_TYPE
            | libc::STATX_INO
            | libc::STATX_CTIME
            | libc::STATX_MNT_ID
            | MNT_ID_UNIQUE;
        // SAFETY: statx is plain data, all zeros is a valid value.
        let mut st: libc::statx = unsafe { std::mem::zeroed() };
        // SAFETY: a NUL-terminated path and a buffer of the right type, both live for the call.
        let rc = unsafe { libc::statx(libc::AT_FDCWD, path.as_ptr(), 0, mask, &mut st) };
        let dir = u32::from(st.stx_mode) & libc::S_IFMT == libc::S_IFDIR;
        let has = |bit: u32| st.stx_mask & bit != 0;
        if rc != 0 || !dir || !has(libc::STATX_INO) || !has(libc::STATX_CTIME) {
            return None;
        }
        if !has(libc::STATX_MNT_ID) && !has(MNT_ID_UNIQUE) {
            return None;
        }
        Some(DirStat {
            dev: libc::makedev(st.stx_dev_major, st.stx_dev_minor),
            ino: st.stx_ino,
            mount: st.stx_mnt_id,
            unique_mount: has(MNT_ID_UNIQUE),
            ctime: (st.stx_ctime.tv_sec, st.stx_ctime.tv_nsec),
        })
    }

    /// Whether the change time was at least `SETTLED` old at `then`.
    fn settled_at(&self, then: SystemTime) -> bool {
        let Ok(secs) = u64::try_from(self.ctime.0) else {
            return false;
        };
        let changed = SystemTime::UNIX_EPOCH + Duration::new(secs, self.ctime.1);
        then.duration_since(changed).is_ok_and(|age| age >= SETTLED)
    }
}

/// The search directories: each one as configured, with the canonical directory it is (an
/// index into `canonical`), or None where it did not exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Dirs {
    configured: Vec<(PathBuf, Option<u32>)>,
    canonical: Vec<Dir>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    format: u32,
    /// The boot and the mount namespace root looked the names up in: devices and mounts are
    /// numbered anew at every boot, and another namespace may have other mounts (which only
    /// reusable mount ids would not tell apart).
    seen_from: SeenFrom,
    dirs: Dirs,
    names: Names,
    /// The directories, other than the search directories, that the stored links' chains
    /// were looked up in.
    through: Vec<Dir>,
    /// Whether `through` is unchanged: checked once, when a link is first asked for.
    #[serde(skip)]
    links_current: std::cell::OnceCell<bool>,
    /// How many links were answered from the store (for `RSH_LOG=debug`).
    #[serde(skip)]
    links_used: std::cell::Cell<usize>,
}

/// Sorted by name; for each name, the canonical directories it is in (an index into
/// `Dirs::canonical`) and what it is there, in the directories' order.
type Names = Vec<(String, Vec<(u32, Entry)>)>;

/// Every name's targets, in the order given (names may repeat), from the store where it can
/// be used, else looked up; when root runs rsh, the store is written for the next start.
pub(crate) fn targets(dirs: &[PathBuf], names: &[&str]) -> Vec<Arc<[Target]>> {
    let stored = load(dirs);
    let found = match &stored {
        Some(stored) => {
            let (found, missed) = stored.all_targets(names);
            // Root looks the names up again and stores them when a name was missing, or when
            // a directory a stored link went through has changed since (which turns the
            // stored links off for every start until then).
            if may_store() && (missed || !stored.links_current()) {
                // The names already stored, and the new ones.
                let mut all: Vec<&str> = stored.names.iter().map(|(n, _)| n.as_str()).collect();
                all.extend_from_slice(names);
                store(dirs, &all);
            }
            found
        }
        None => {
            let mut resolver = Resolver::new(dirs, names.len());
            let mut found: HashMap<&str, Arc<[Target]>> = HashMap::with_capacity(names.len());
            let in_order = names
                .iter()
                .map(|&name| {
                    Arc::clone(found.entry(name).or_insert_with(|| resolver.targets(name)))
                })
                .collect();
            drop(resolver);
            store(dirs, names);
            in_order
        }
    };
    tracing::debug!(
        store = stored.is_some(),
        stored_links = stored.as_ref().map_or(0, |s| s.links_used.get()),
        "policy names resolved"
    );
    found
}

impl Dirs {
    /// The search directories as they are now; None if one exists but is not a directory.
    fn take(configured: &[PathBuf]) -> Option<Dirs> {
        let mut dirs = Dirs {
            configured: Vec::new(),
            canonical: Vec::new(),
        };
        for path in configured {
            let Ok(canonical) = std::fs::canonicalize(path) else {
                dirs.configured.push((path.clone(), None));
                continue;
            };
            let now = DirStat::of(&canonical)?;
            let index = match dirs.canonical.iter().position(|d| d.path == canonical) {
                Some(index) => index,
                None => {
                    dirs.canonical.push(Dir {
                        path: canonical,
                        now,
                    });
                    dirs.canonical.len() - 1
                }
            };
            dirs.configured
                .push((path.clone(), Some(u32::try_from(index).ok()?)));
        }
        Some(dirs)
    }

    /// Whether what each directory holds may be stored.
    fn storable(&self, looked_up_at: SystemTime) -> bool {
        self.canonical.iter().all(|d| d.storable(looked_up_at))
    }

    /// Whether the directories are still what they were: each configured one the same
    /// directory through the same mount (or still missing), each canonical one unchanged.
    fn unchanged(&self, configured: &[PathBuf]) -> bool {
        let same_list = self.configured.len() == configured.len()
            && self
                .configured
                .iter()
                .zip(configured)
                .all(|((a, _), b)| a == b);
        if !same_list {
            return false;
        }
        let mut checked = vec![false; self.canonical.len()];
        for (path, index) in &self.configured {
            let Some(index) = index else {
                if path.symlink_metadata().is_ok() {
                    return false;
                }
                continue;
            };
            let (Some(dir), Some(now)) = (self.canonical.get(*index as usize), DirStat::of(path))
            else {
                return false;
            };
            if (now.dev, now.ino, now.mount) != (dir.now.dev, dir.now.ino, dir.now.mount) {
                return false;
            }
            let seen = &mut checked[*index as usize];
            if !*seen {
                // The canonical path itself must still lead there, unchanged.
                let at_canonical = if *path == dir.path {
                    Some(now)
                } else {
                    DirStat::of(&dir.path)
                };
                if at_canonical != Some(dir.now) {
                    return false;
                }
                *seen = true;
            }
        }
        checked.iter().all(|&c| c)
    }

    /// Whether the directories' mounts are known by unique ids, each of a mount in one mount
    /// namespace only.
    fn unique_mounts(&self) -> bool {
        !self.canonical.is_empty() && self.canonical.iter().all(|d| d.now.unique_mount)
    }

    fn canonical_paths(&self) -> Vec<PathBuf> {
        self.canonical.iter().map(|d| d.path.clone()).collect()
    }
}

impl Stored {
    /// Each name's targets, in the order given, and whether a name other than an absolute
    /// path was missing from the store (those are looked up).
    fn all_targets(&self, names: &[&str]) -> (Vec<Arc<[Target]>>, bool) {
        // Made once for each stored name (a policy names some commands several times), kept
        // by the name's place in the store: no name is hashed.
        let mut made: Vec<Option<Arc<[Target]>>> = vec![None; self.names.len()];
        let dirs = self.shared_dirs();
        // One list reused for every name, moved into its shared slice: one allocation a name
        // rather than three.
        let mut scratch = Vec::new();
        let mut others: HashMap<&str, Arc<[Target]>> = HashMap::new();
        let mut canonical = None;
        let mut missed = false;
        let found = names
            .iter()
            .map(|&name| match self.position(name) {
                Some(at) => {
                    let targets = made[at].get_or_insert_with(|| {
                        self.targets_at(at, &dirs, &mut scratch);
                        shared_from(&mut scratch)
                    });
                    Arc::clone(targets)
                }
                None => Arc::clone(others.entry(name).or_insert_with(|| {
                    // An absolute path is never stored: it is looked up itself, in no
                    // search directory.
                    if name.starts_with('/') {
                        return shared(find_targets_in(name, &[]));
                    }
                    missed = true;
                    let dirs = canonical.get_or_insert_with(|| self.dirs.canonical_paths());
                    shared(find_targets_in(name, dirs))
                })),
            })
            .collect();
        (found, missed)
    }

    /// `name`'s targets, or None when the store does not know it.
    #[cfg(test)]
    fn targets(&self, name: &str) -> Option<Vec<Target>> {
        self.position(name).map(|at| {
            let mut targets = Vec::new();
            self.targets_at(at, &self.shared_dirs(), &mut targets);
            targets
        })
    }

    /// The search directories' paths, each shared by the targets found in it.
    fn shared_dirs(&self) -> Vec<Arc<Path>> {
        let dirs = self.dirs.canonical.iter();
        dirs.map(|d| Arc::from(d.path.as_path())).collect()
    }

    /// Where the store keeps `name`; None for a name it does not know. An absolute path is
    /// never stored: it is looked up itself.
    fn position(&self, name: &str) -> Option<usize> {
        if name.starts_with('/') {
            return None;
        }
        self.names
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
    }

    /// Adds the targets of the name stored at `at` to `targets` (empty on entry); `dirs` are
    /// the search directories' paths (`shared_dirs`).
    fn targets_at(&self, at: usize, dirs: &[Arc<Path>], targets: &mut Vec<Target>) {
        let (name, entries) = &self.names[at];
        for &(index, entry) in entries {
            // Every index is checked when the store is loaded (`indices_valid`).
            let Some(dir) = dirs.get(index as usize) else {
                debug_assert!(false, "index {index} of a store that was checked");
                continue;
            };
            let found = |(dev, ino)| Target::new(Some(dir), dev, ino);
            let target = match entry {
                Entry::File { dev, ino } => Some(found((dev, ino))),
                Entry::LinkTo { target } if self.links_current() => {
                    self.links_used.set(self.links_used.get() + 1);
                    target.map(found)
                }
                Entry::Link | Entry::LinkTo { .. } => std::fs::metadata(dir.join(name))
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| found((m.dev(), m.ino()))),
            };
            if let Some(target) = target
                && !targets.contains(&target)
            {
                targets.push(target);
            }
        }
    }

    /// Whether this store may be used in this boot (`boot`), where its search directories are
    /// `unchanged` (each still the same directory, through the same mount, with the same
    /// change time), seen from the mount namespace `namespace` gives. The namespace is asked
    /// only where the stored mount ids are the reusable ones: the same unique mounts are the
    /// same namespace's, and /proc/self/ns/mnt is a look-up through /proc (tens of µs).
    fn usable(
        &self,
        boot: Option<&str>,
        unchanged: impl FnOnce() -> bool,
        namespace: impl FnOnce() -> Option<u64>,
    ) -> bool {
        self.format == FORMAT
            && self.indices_valid()
            && boot == Some(self.seen_from.boot.as_str())
            && unchanged()
            && (self.dirs.unique_mounts() || namespace() == Some(self.seen_from.namespace))
    }

    /// Whether every entry names a directory the store has: one that does not is damaged,
    /// and not used (a name's targets are never taken from part of its entries).
    fn indices_valid(&self) -> bool {
        let dirs = self.dirs.canonical.len();
        let names = self.names.iter().flat_map(|(_, entries)| entries);
        let configured = self.dirs.configured.iter().filter_map(|(_, index)| *index);
        names
            .map(|(index, _)| *index)
            .chain(configured)
            .all(|index| (index as usize) < dirs)
    }

    /// Whether every directory the stored links depend on is as it was.
    fn links_current(&self) -> bool {
        *self
            .links_current
            .get_or_init(|| self.through.iter().all(Dir::unchanged))
    }
}

/// Whether this process may write the store: it runs as root, for root.
fn may_store() -> bool {
    nix::unistd::getuid().is_root() && nix::unistd::geteuid().is_root()
}

/// This boot's id and the mount namespace this process sees the file system through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SeenFrom {
    boot: String,
    namespace: u64,
}

impl SeenFrom {
    fn now() -> Option<SeenFrom> {
        Some(SeenFrom {
            boot: boot_id()?,
            namespace: mount_namespace()?,
        })
    }
}

/// The mount namespace this process sees the file system through.
fn mount_namespace() -> Option<u64> {
    Some(std::fs::metadata("/proc/self/ns/mnt").ok()?.ino())
}

/// This boot's id, in one read (a UUID and a newline: 37 bytes).
fn boot_id() -> Option<String> {
    use std::io::Read;
    let mut file = std::fs::File::open("/proc/sys/kernel/random/boot_id").ok()?;
    let mut bytes = [0u8; 64];
    let n = file.read(&mut bytes).ok()?;
    let id = std::str::from_utf8(&bytes[..n]).ok()?.trim();
    (id.len() == 36).then(|| id.to_owned())
}

/// The store for these search directories: named by the hash of the list, each directory
/// ended by a NUL.
fn store_path(dirs: &[PathBuf]) -> PathBuf {
    let mut list = Vec::new();
    for dir in dirs {
        list.extend_from_slice(dir.as_os_str().as_encoded_bytes());
        list.push(0);
    }
    let hash = name_hash(&list);
    Path::new(STORE_DIR).join(format!("names-{hash:016x}"))
}

/// The store for `dirs`, if there is one rsh can trust, made in this boot and mount
/// namespace, and the directories are unchanged.
fn load(dirs: &[PathBuf]) -> Option<Stored> {
    let bytes = read_roots(&store_path(dirs))?;
    let stored: Stored = postcard::from_bytes(&bytes).ok()?;
    let usable = stored.usable(
        boot_id().as_deref(),
        || stored.dirs.unchanged(dirs),
        mount_namespace,
    );
    usable.then_some(stored)
}

/// The file at `path`, if it and every directory above it are root's and nobody else can
/// write them (no symbolic link on the way).
fn read_roots(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    for dir in path.ancestors().skip(1) {
        let meta = std::fs::symlink_metadata(dir).ok()?;
        if !meta.is_dir() || !roots(&meta) {
            return None;
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || !roots(&meta) {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).ok()?);
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Owned by root, and writable by nobody else.
fn roots(meta: &std::fs::Metadata) -> bool {
    meta.uid() == 0 && meta.permissions().mode() & GROUP_OR_OTHER_WRITE == 0
}

/// Whether only root can change `dir` and everyone can search it: it and every directory
/// above it are root's, writable by nobody else, searchable by all (a user's own look-up in
/// a directory they cannot search finds nothing, and the store must not find more), with no
/// access control list (whose entries can refuse some users what the mode grants all).
fn only_root_changes(dir: &Path) -> bool {
    dir.ancestors().all(|d| {
        std::fs::symlink_metadata(d).is_ok_and(|m| {
            m.is_dir() && roots(&m) && m.permissions().mode() & 0o001 != 0 && !has_acl(d)
        })
    })
}

/// Whether `path` has an access control list (or may have: an error other than "none").
#[allow(unsafe_code)]
fn has_acl(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return true;
    };
    // SAFETY: a NUL-terminated path and name; a null buffer of size 0 asks for the size.
    let size = unsafe {
        libc::lgetxattr(
            path.as_ptr(),
            c"system.posix_acl_access".as_ptr(),
            std::ptr::null_mut(),
            0,
        )
    };
    let errno = std::io::Error::last_os_error().raw_os_error();
    size >= 0 || !matches!(errno, Some(libc::ENODATA | libc::EOPNOTSUPP))
}

/// Whether `dir` is on a local file system whose change times only the kernel sets, mounted
/// without `nosuid` (removable media are mounted so, and their image can be edited
/// elsewhere, change times included) and without `nosymfollow` (where the kernel follows no
/// link, though they can be read).
fn kernel_times(dir: &Path) -> bool {
    use nix::sys::statfs::{BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, TMPFS_MAGIC, XFS_SUPER_MAGIC};
    let Ok(fs) = nix::sys::statfs::statfs(dir) else {
        return false;
    };
    let local = [
        EXT4_SUPER_MAGIC,
        XFS_SUPER_MAGIC,
        BTRFS_SUPER_MAGIC,
        TMPFS_MAGIC,
    ]
    .contains(&fs.filesystem_type());
    let unrestricted = mount_flags(dir).is_some_and(|f| f & (libc::ST_NOSUID | NOSYMFOLLOW) == 0);
    local && unrestricted
}

/// ST_NOSYMFOLLOW (Linux 5.10), which the libc crate does not name.
const NOSYMFOLLOW: libc::c_ulong = 0x2000;

/// The flags of the mount `dir` is on (the nix crate's drops those it does not name).
#[allow(unsafe_code)]
fn mount_flags(dir: &Path) -> Option<libc::c_ulong> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data, all zeros is a valid value.
    let mut vfs: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a buffer of the right type, both live for the call.
    (unsafe { libc::statvfs(path.as_ptr(), &mut vfs) } == 0).then_some(vfs.f_flag)
}

/// When root runs rsh: stores what each of `names` is in each search directory, if the
/// directories may be stored, every look-up answered, and the directories are the same
/// after the look-ups as before them.
fn store(configured: &[PathBuf], names: &[&str]) {
    if !may_store() {
        return;
    }
    let looked_up_at = SystemTime::now();
    let (Some(before), Some(seen_from)) = (Dirs::take(configured), SeenFrom::now()) else {
        return;
    };
    if !before.storable(looked_up_at) {
        return;
    }
    let chain_storable = |dir: &Dir| dir.storable(looked_up_at);
    let Some((names, through)) = look_up(&before, names, &chain_storable) else {
        return;
    };
    if !through.iter().all(Dir::unchanged) || Dirs::take(configured).as_ref() != Some(&before) {
        return;
    }
    let stored = Stored {
        format: FORMAT,
        seen_from,
        dirs: before,
        names,
        through,
        links_current: std::cell::OnceCell::new(),
        links_used: std::cell::Cell::new(0),
    };
    if let Ok(bytes) = postcard::to_allocvec(&stored) {
        let _ = write_atomically(&store_path(configured), &bytes);
    }
}

/// What each name (but absolute paths) is in each of the directories, sorted by name, and
/// the directories the links' chains were looked up in; None as soon as one look-up fails for
/// any reason but the name's absence. A link is stored with what it leads to when every
/// directory of its chain is `storable`.
fn look_up(
    dirs: &Dirs,
    names: &[&str],
    storable: &dyn Fn(&Dir) -> bool,
) -> Option<(Names, Vec<Dir>)> {
    let mut names: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !n.starts_with('/'))
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut entries = Vec::with_capacity(names.len());
    let mut chain = Chain {
        search: dirs,
        storable,
        through: Vec::new(),
    };
    for name in names {
        let mut found = Vec::new();
        for (index, dir) in dirs.canonical.iter().enumerate() {
            let entry = match entry(&dir.path.join(name)).ok()? {
                Some(Entry::Link) => chain
                    .follow(&dir.path, name)
                    .map_or(Entry::Link, |target| Entry::LinkTo { target }),
                Some(entry) => entry,
                None => continue,
            };
            found.push((u32::try_from(index).ok()?, entry));
        }
        entries.push((name.to_owned(), found));
    }
    Some((entries, chain.through))
}

/// Follows symbolic links as the kernel does, noting each directory a component was looked
/// up in.
struct Chain<'a> {
    search: &'a Dirs,
    storable: &'a dyn Fn(&Dir) -> bool,
    through: Vec<Dir>,
}

impl Chain<'_> {
    /// The regular file (device, inode) the link `name` in the search directory `dir` leads
    /// to, Some(None) for none;
    /// None when that cannot be stored: a directory on the way that may not be, a look-up
    /// that failed for another reason than absence, too many links, or a path the kernel
    /// reads in ways this walk does not (an empty link, a file followed by more components).
    fn follow(&mut self, dir: &Path, name: &str) -> Option<Option<(u64, u64)>> {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        // What is left to walk, the next component last.
        let mut pending: Vec<Vec<u8>> = Vec::new();
        let push = |pending: &mut Vec<Vec<u8>>, text: &[u8]| {
            pending.extend(text.split(|&b| b == b'/').rev().map(<[u8]>::to_vec));
        };
        push(&mut pending, name.as_bytes());
        // The search directory is canonical, and checked on its own.
        let mut at = dir.to_path_buf();
        let mut links = 0;
        // The directories this chain is looked up in, kept only if it can be stored.
        let mut consulted = Vec::new();
        while let Some(part) = pending.pop() {
            if part.is_empty() {
                continue;
            }
            // `.` and `..` too need the right to search the directory they are in.
            self.consult(&at, &mut consulted)?;
            match part.as_slice() {
                b"." => continue,
                b".." => {
                    at.pop();
                    continue;
                }
                _ => {}
            }
            let next = at.join(std::ffi::OsStr::from_bytes(&part));
            let meta = match std::fs::symlink_metadata(&next) {
                Ok(meta) => meta,
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) && pending.is_empty() => {
                    self.through.append(&mut consulted);
                    return Some(None);
                }
                Err(_) => return None,
            };
            if meta.is_symlink() {
                links += 1;
                let text = std::fs::read_link(&next).ok()?.into_os_string().into_vec();
                if links > MAX_LINKS || text.is_empty() {
                    return None;
                }
                if text.starts_with(b"/") {
                    at = PathBuf::from("/");
                }
                push(&mut pending, &text);
            } else if meta.is_dir() {
                at = next;
            } else {
                if !pending.is_empty() {
                    return None;
                }
                self.through.append(&mut consulted);
                return Some(meta.is_file().then(|| (meta.dev(), meta.ino())));
            }
        }
        // It ended on a directory: no program.
        self.through.append(&mut consulted);
        Some(None)
    }

    /// Notes in `consulted` that a component was looked up in `dir`, as it is now; None when
    /// `dir` may not be stored. The search directories are checked on their own.
    fn consult(&self, dir: &Path, consulted: &mut Vec<Dir>) -> Option<()> {
        let known = self.search.canonical.iter().chain(&self.through);
        if known.chain(consulted.iter()).any(|d| d.path == dir) {
            return Some(());
        }
        let dir = Dir {
            path: dir.to_path_buf(),
            now: DirStat::of(dir)?,
        };
        if !(self.storable)(&dir) {
            return None;
        }
        consulted.push(dir);
        Some(())
    }
}

/// What `path` is, without following a final symbolic link: None for nothing there or
/// anything but a regular file or a link; Err when it could not be told.
fn entry(path: &Path) -> Result<Option<Entry>, ()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT)) => return Ok(None),
        Err(_) => return Err(()),
    };
    Ok(if meta.is_symlink() {
        Some(Entry::Link)
    } else if meta.is_file() {
        Some(Entry::File {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    } else {
        None
    })
}

/// Writes `path` whole or not at all: a new file beside it, renamed over it.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("/"));
    match std::fs::DirBuilder::new().mode(0o755).create(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    if !only_root_changes(dir) {
        return Err(std::io::Error::other(
            "the store's directory is not root's alone",
        ));
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let partial = dir.join(format!(".{name}.{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&partial)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search directory that changes, one reached through a link that is made to lead
    /// elsewhere, and one that appears: each makes the directories changed.
    #[test]
    fn changed_search_directories_are_seen() {
        let tmp = tempfile::tempdir().unwrap();
        let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
        std::fs::create_dir(&one).unwrap();
        std::fs::create_dir(&two).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&one, &link).unwrap();
        let missing = tmp.path().join("later");
        let configured = vec![link.clone(), missing.clone(), one.clone()];

        let dirs = Dirs::take(&configured).unwrap();
        assert_eq!(dirs.canonical.len(), 1, "{dirs:?}");
        assert!(dirs.unchanged(&configured));
        assert!(!dirs.unchanged(&configured[..2]));

        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&two, &link).unwrap();
        assert!(!dirs.unchanged(&configured));
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(&one, &link).unwrap();
        assert!(dirs.unchanged(&configured));

        std::fs::create_dir(&missing).unwrap();
        assert!(!dirs.unchanged(&configured));
        std::fs::remove_dir(&missing).unwrap();
        assert!(dirs.unchanged(&configured));

        // Later than the file system clock's tick in which the directory was made.
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::fs::write(one.join("new"), "").unwrap();
        assert!(!dirs.unchanged(&configured));
    }

    /// Only directories that only root changes, everyone searches, and whose change time is
    /// settled are stored.
    #[test]
    fn only_settled_directories_of_roots_alone_are_stored() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = Dirs::take(&[tmp.path().to_path_buf()]).unwrap();
        let later = SystemTime::now() + Duration::from_secs(60);
        // /tmp is writable by everyone.
        assert!(!dirs.storable(later));
        assert!(!only_root_changes(tmp.path()));
        // Just made: its change time is not settled.
        assert!(!dirs.canonical[0].now.settled_at(SystemTime::now()));
        assert!(dirs.canonical[0].now.settled_at(later));
    }

    /// A directory with an access control list may refuse some users the search its mode
    /// grants everyone: not one only root changes, as far as the store is concerned.
    #[test]
    #[allow(unsafe_code)]
    fn access_control_lists_are_seen() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(!has_acl(tmp.path()));
        // system.posix_acl_access, version 2: owner rwx, nobody (65534) nothing, group r-x,
        // mask r-x, others r-x.
        let mut acl = 2u32.to_le_bytes().to_vec();
        for (tag, perm, id) in [
            (0x01u16, 7u16, u32::MAX),
            (0x02, 0, 65534),
            (0x04, 5, u32::MAX),
            (0x10, 5, u32::MAX),
            (0x20, 5, u32::MAX),
        ] {
            acl.extend_from_slice(&tag.to_le_bytes());
            acl.extend_from_slice(&perm.to_le_bytes());
            acl.extend_from_slice(&id.to_le_bytes());
        }
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(tmp.path().as_os_str().as_bytes()).unwrap();
        // SAFETY: NUL-terminated path and name, and a buffer of the length given.
        let rc = unsafe {
            libc::lsetxattr(
                path.as_ptr(),
                c"system.posix_acl_access".as_ptr(),
                acl.as_ptr().cast(),
                acl.len(),
                0,
            )
        };
        if rc != 0 {
            eprintln!(
                "SKIPPED: {} takes no access control list: {}",
                tmp.path().display(),
                std::io::Error::last_os_error()
            );
            return;
        }
        assert!(has_acl(tmp.path()));
    }

    /// A mount where the kernel follows no symbolic link is not one whose links are stored.
    #[test]
    fn nosymfollow_mounts_are_not_stored() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("SKIPPED: mounting a file system needs root");
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let mount = |options: &str| {
            std::process::Command::new("mount")
                .args(["-t", "tmpfs", "-o", options, "rsh-test"])
                .arg(tmp.path())
                .status()
                .is_ok_and(|s| s.success())
        };
        if !mount("mode=755") {
            eprintln!("SKIPPED: cannot mount a tmpfs here");
            return;
        }
        let plain = kernel_times(tmp.path());
        let remounted = mount("remount,nosymfollow");
        let restricted = kernel_times(tmp.path());
        let _ = std::process::Command::new("umount")
            .arg(tmp.path())
            .status();
        assert!(plain, "a plain tmpfs");
        if !remounted {
            eprintln!("SKIPPED: this kernel has no nosymfollow mounts");
            return;
        }
        assert!(!restricted, "a nosymfollow tmpfs");
    }

    /// What the store gives is what a look-up gives, for every kind of entry: regular files,
    /// links to files, to directories, dangling and chained (relative, absolute, through
    /// `..` and through a linked directory), links the walk leaves to a look-up at every
    /// start (a trailing slash, a loop), directories, a fifo, a name found in two
    /// directories, and names found nowhere.
    #[test]
    fn stored_entries_give_what_a_look_up_gives() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, elsewhere) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("x"),
        );
        for dir in [&a, &b, &elsewhere] {
            std::fs::create_dir(dir).unwrap();
        }
        std::fs::write(a.join("tool"), "").unwrap();
        std::fs::write(b.join("tool"), "").unwrap();
        std::fs::write(elsewhere.join("real"), "").unwrap();
        std::fs::hard_link(a.join("tool"), b.join("hard")).unwrap();
        symlink(elsewhere.join("real"), a.join("link")).unwrap();
        symlink(a.join("link"), b.join("chain")).unwrap();
        symlink(&elsewhere, a.join("to-dir")).unwrap();
        symlink(elsewhere.join("later"), a.join("dangling")).unwrap();
        symlink("../x/real", a.join("up")).unwrap();
        symlink("to-dir/real", a.join("via-dir")).unwrap();
        symlink("../a/up", b.join("relative-chain")).unwrap();
        symlink("tool/", a.join("slash")).unwrap();
        symlink("loop-b", a.join("loop-a")).unwrap();
        symlink("loop-a", a.join("loop-b")).unwrap();
        symlink("../x", a.join("dir-up")).unwrap();
        symlink("dir-up/../x/real", a.join("dir-dots")).unwrap();
        // `..` needs the right to search the directory it leaves: that one counts too.
        std::fs::create_dir(a.join("sub")).unwrap();
        symlink("sub/../../x/real", a.join("dots-through")).unwrap();
        std::fs::create_dir(b.join("subdir")).unwrap();
        nix::unistd::mkfifo(
            &b.join("fifo"),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let names = [
            "tool",
            "hard",
            "link",
            "chain",
            "to-dir",
            "dangling",
            "up",
            "via-dir",
            "relative-chain",
            "slash",
            "loop-a",
            "dir-up",
            "dir-dots",
            "dots-through",
            "subdir",
            "fifo",
            "none",
        ];
        let configured = vec![a.clone(), b.clone(), tmp.path().join("missing")];
        let dirs = Dirs::take(&configured).unwrap();
        // Temporary directories are never stored; the walk is what is tested here.
        let (names_found, through) = look_up(&dirs, &names, &|_| true).unwrap();
        let stored = Stored {
            format: FORMAT,
            seen_from: SeenFrom::now().unwrap(),
            names: names_found,
            dirs,
            through,
            links_current: std::cell::OnceCell::new(),
            links_used: std::cell::Cell::new(0),
        };
        let kind = |name: &str| stored.names.iter().find(|(n, _)| n == name).unwrap().1[0].1;
        for name in [
            "link",
            "chain",
            "up",
            "via-dir",
            "relative-chain",
            "dir-dots",
            "dots-through",
        ] {
            assert!(
                matches!(kind(name), Entry::LinkTo { target: Some(_) }),
                "{name}: {:?}",
                kind(name)
            );
        }
        for name in ["to-dir", "dangling", "dir-up"] {
            assert_eq!(kind(name), Entry::LinkTo { target: None }, "{name}");
        }
        for name in ["slash", "loop-a"] {
            assert_eq!(kind(name), Entry::Link, "{name}");
        }
        // Absolute links are walked from `/`, `..` reaches the directory above the search
        // directories; the search directories themselves are not repeated.
        let mut through: Vec<&Path> = stored.through.iter().map(|d| d.path.as_path()).collect();
        through.sort();
        let top = std::fs::canonicalize(tmp.path()).unwrap();
        let mut expected: Vec<&Path> = top.ancestors().collect();
        let (x, sub) = (top.join("x"), top.join("a/sub"));
        expected.extend([x.as_path(), sub.as_path()]);
        expected.sort();
        assert_eq!(through, expected);
        assert!(stored.links_current());
        let canonical = stored.dirs.canonical_paths();
        let compare = |stored: &Stored| {
            for name in names {
                assert_eq!(
                    stored.targets(name).unwrap(),
                    find_targets_in(name, &canonical),
                    "{name}"
                );
            }
        };
        compare(&stored);
        assert_eq!(stored.targets("tool").unwrap().len(), 2);
        assert_eq!(stored.targets("none"), Some(Vec::new()));
        assert_eq!(stored.targets("unknown"), None);
        assert_eq!(stored.targets("/bin/sh"), None);
        // The dangling link comes to lead to a file: seen, without a change of the search
        // directory, through the change of the directory its chain went through (in a later
        // start: each start checks those once).
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::fs::write(elsewhere.join("later"), "").unwrap();
        assert!(stored.dirs.unchanged(&configured));
        let stored = Stored {
            links_current: std::cell::OnceCell::new(),
            ..stored
        };
        assert!(!stored.links_current());
        assert_eq!(stored.targets("dangling").unwrap().len(), 1);
        compare(&stored);
        // All at once, in order, names repeated: the same targets; a name the store does not
        // know is looked up, and missed unless it is an absolute path.
        let mut asked: Vec<&str> = names.iter().rev().copied().collect();
        asked.extend(["tool", "/bin/sh", "tool"]);
        let (all, missed) = stored.all_targets(&asked);
        for (name, targets) in asked.iter().zip(&all) {
            assert_eq!(**targets, find_targets_in(name, &canonical)[..], "{name}");
        }
        assert!(!missed);
        assert!(stored.all_targets(&["tool", "unknown"]).1);
        // A store whose entry names a directory it does not have is not used.
        assert!(stored.indices_valid());
        let mut damaged = stored;
        damaged.names[0].1.push((7, Entry::Link));
        assert!(!damaged.indices_valid());
    }

    /// A store is used in the boot it was made in, while its directories are unchanged, from
    /// its namespace: asked only where the mount ids are the reusable ones.
    #[test]
    fn a_store_is_used_in_its_boot_and_namespace() {
        let tmp = tempfile::tempdir().unwrap();
        let configured = vec![tmp.path().to_path_buf()];
        let mut stored = Stored {
            format: FORMAT,
            seen_from: SeenFrom {
                boot: "boot-a".to_owned(),
                namespace: 7,
            },
            names: Vec::new(),
            dirs: Dirs::take(&configured).unwrap(),
            through: Vec::new(),
            links_current: std::cell::OnceCell::new(),
            links_used: std::cell::Cell::new(0),
        };
        let asked = std::cell::Cell::new(0);
        let namespace = |id| {
            let asked = &asked;
            move || {
                asked.set(asked.get() + 1);
                Some(id)
            }
        };
        for unique in [true, false] {
            for dir in &mut stored.dirs.canonical {
                dir.now.unique_mount = unique;
            }
            asked.set(0);
            assert!(stored.usable(Some("boot-a"), || true, namespace(7)));
            assert!(!stored.usable(Some("boot-b"), || true, namespace(7)));
            assert!(!stored.usable(None, || true, namespace(7)));
            assert!(!stored.usable(Some("boot-a"), || false, namespace(7)));
            // Another namespace: the same unique mounts say it is not; reusable ones cannot.
            assert_eq!(stored.usable(Some("boot-a"), || true, namespace(8)), unique);
            assert_eq!(stored.usable(Some("boot-a"), || true, || None), unique);
            let times = if unique { 0 } else { 2 };
            assert_eq!(
                asked.get(),
                times,
                "namespace asked (unique mount ids: {unique})"
            );
        }
        // With no directory to compare, the namespace decides.
        stored.dirs.canonical.clear();
        stored.dirs.configured.clear();
        assert!(!stored.usable(Some("boot-a"), || true, namespace(8)));
        assert!(stored.usable(Some("boot-a"), || true, namespace(7)));
    }
}
