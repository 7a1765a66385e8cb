//! What the policy's command names resolved to when root last ran rsh, kept between starts.
//!
//! Looking every name up in every search directory is about 200 `stat` calls, the largest
//! part of a start after the program's own loading. Their answers only change when a search
//! directory does (a program added, removed, renamed or replaced), which changes the
//! directory's change time, and no user can set a change time back. So rsh, when root runs
//! it, stores what each name is in each directory: absent, a regular file (its device and
//! inode), or a symbolic link. A later start, by anyone, uses that while every search
//! directory is the same directory with the same change time; a name that is a symbolic link
//! is looked up again on every start, because what it leads to may be in another directory
//! (`/etc/alternatives`). Anything else — a changed or missing directory, a name not in the
//! store, a store that is not root's or that others could change — and the names are looked
//! up as before.
//!
//! The store is `/var/cache/rsh/names-HASH`, one per list of search directories, written only
//! by root, only for directories that only root can change, and only once their change time
//! is two seconds old (a change within the same tick of the file system's clock would not
//! move it).

use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::identity::{Resolver, Target, find_targets_in, shared};

/// Where the stores are.
pub const STORE_DIR: &str = "/var/cache/rsh";

/// The version of the stored form: a store of another version is not read.
const FORMAT: u32 = 1;

/// How old a search directory's change time must be before what it holds is stored.
const SETTLED: Duration = Duration::from_secs(2);

/// What one name is in one search directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Entry {
    File { dev: u64, ino: u64 },
    Link,
}

/// A search directory as it was when the names were looked up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Dir {
    path: PathBuf,
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
}

impl Dir {
    fn of(path: &Path, meta: &std::fs::Metadata) -> Dir {
        Dir {
            path: path.to_path_buf(),
            dev: meta.dev(),
            ino: meta.ino(),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
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
    dirs: Dirs,
    /// Sorted by name; for each name, the canonical directories it is in, in order.
    names: Vec<(String, Vec<(u32, Entry)>)>,
}

/// Every name's targets, in the order given (names may repeat), from the store where it can
/// be used, else looked up; when root runs rsh, the store is written for the next start.
pub(crate) fn targets(dirs: &[PathBuf], names: &[&str]) -> Vec<Arc<[Target]>> {
    let stored = load(dirs);
    let mut found: HashMap<&str, Arc<[Target]>> = HashMap::with_capacity(names.len());
    let mut missed = false;
    if let Some(stored) = &stored {
        let mut canonical = None;
        for &name in names {
            if !found.contains_key(name) {
                let targets = stored.targets(name).unwrap_or_else(|| {
                    // An absolute path is never stored: it is looked up itself.
                    missed |= !name.starts_with('/');
                    let dirs = canonical.get_or_insert_with(|| stored.dirs.canonical_paths());
                    find_targets_in(name, dirs)
                });
                found.insert(name, shared(targets));
            }
        }
        if missed && may_store() {
            // The names already stored, and the new ones.
            let mut all: Vec<&str> = stored.names.iter().map(|(n, _)| n.as_str()).collect();
            all.extend_from_slice(names);
            if let Some(before) = Dirs::now(dirs) {
                store(before, &all);
            }
        }
    } else {
        let before = may_store().then(|| Dirs::now(dirs)).flatten();
        let mut resolver = Resolver::new(dirs, names.len());
        for &name in names {
            found.entry(name).or_insert_with(|| resolver.targets(name));
        }
        drop(resolver);
        if let Some(before) = before {
            store(before, names);
        }
    }
    names.iter().map(|name| Arc::clone(&found[name])).collect()
}

impl Dirs {
    /// The search directories as they are now, if every one that exists is a directory only
    /// root can change (nothing else is stored).
    fn now(configured: &[PathBuf]) -> Option<Dirs> {
        Dirs::take(configured)
            .filter(|dirs| dirs.canonical.iter().all(|d| only_root_changes(&d.path)))
    }

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
            let meta = std::fs::metadata(&canonical).ok()?;
            if !meta.is_dir() {
                return None;
            }
            let dir = Dir::of(&canonical, &meta);
            let index = match dirs.canonical.iter().position(|d| d.path == canonical) {
                Some(index) => index,
                None => {
                    dirs.canonical.push(dir);
                    dirs.canonical.len() - 1
                }
            };
            dirs.configured
                .push((path.clone(), Some(u32::try_from(index).ok()?)));
        }
        Some(dirs)
    }

    /// Whether the directories are still what they were: each configured one the same
    /// directory (or still missing), each canonical one with the same change time.
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
            let meta = std::fs::metadata(path);
            let Some(index) = index else {
                if meta.is_ok() {
                    return false;
                }
                continue;
            };
            let Some(dir) = self.canonical.get(*index as usize) else {
                return false;
            };
            let Ok(meta) = meta else {
                return false;
            };
            if (meta.dev(), meta.ino()) != (dir.dev, dir.ino) {
                return false;
            }
            let seen = &mut checked[*index as usize];
            if !*seen {
                // The canonical path itself must still lead there, unchanged.
                let now = if *path == dir.path {
                    Ok(meta)
                } else {
                    std::fs::metadata(&dir.path)
                };
                if !now.is_ok_and(|m| Dir::of(&dir.path, &m) == *dir) {
                    return false;
                }
                *seen = true;
            }
        }
        checked.iter().all(|&c| c)
    }

    fn canonical_paths(&self) -> Vec<PathBuf> {
        self.canonical.iter().map(|d| d.path.clone()).collect()
    }

    /// Whether every directory's change time is old enough that a change now would move it.
    fn settled(&self) -> bool {
        let now = SystemTime::now();
        self.canonical.iter().all(|d| {
            let Ok(secs) = u64::try_from(d.ctime.0) else {
                return false;
            };
            let changed = SystemTime::UNIX_EPOCH + Duration::new(secs, d.ctime.1 as u32);
            now.duration_since(changed).is_ok_and(|age| age >= SETTLED)
        })
    }
}

impl Stored {
    /// `name`'s targets, or None when the store does not know it. An absolute path is never
    /// stored: it is looked up itself.
    fn targets(&self, name: &str) -> Option<Vec<Target>> {
        if name.starts_with('/') {
            return None;
        }
        let at = self
            .names
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()?;
        let mut targets = Vec::new();
        for &(index, entry) in &self.names[at].1 {
            let dir = &self.dirs.canonical.get(index as usize)?.path;
            let path = dir.join(name);
            let target = match entry {
                Entry::File { dev, ino } => Some(Target { path, dev, ino }),
                Entry::Link => std::fs::metadata(&path)
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| Target {
                        dev: m.dev(),
                        ino: m.ino(),
                        path,
                    }),
            };
            if let Some(target) = target
                && !targets.contains(&target)
            {
                targets.push(target);
            }
        }
        Some(targets)
    }
}

/// Whether this process may write the store: it runs as root, for root.
fn may_store() -> bool {
    nix::unistd::getuid().is_root() && nix::unistd::geteuid().is_root()
}

/// The store for these search directories.
fn store_path(dirs: &[PathBuf]) -> PathBuf {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for dir in dirs {
        for &byte in dir.as_os_str().as_encoded_bytes().iter().chain(&[0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    Path::new(STORE_DIR).join(format!("names-{hash:016x}"))
}

/// The store for `dirs`, if there is one rsh can trust and the directories are unchanged.
fn load(dirs: &[PathBuf]) -> Option<Stored> {
    let bytes = read_roots(&store_path(dirs))?;
    let stored: Stored = postcard::from_bytes(&bytes).ok()?;
    (stored.format == FORMAT && stored.dirs.unchanged(dirs)).then_some(stored)
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
    meta.uid() == 0 && meta.permissions().mode() & 0o022 == 0
}

/// Whether only root can change `dir`: it and every directory above it are root's and
/// writable by nobody else.
fn only_root_changes(dir: &Path) -> bool {
    dir.ancestors()
        .all(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir() && roots(&m)))
}

/// Stores what each name is in each directory of `before`, if the directories are the same
/// after the look-ups as before them, and settled.
fn store(before: Dirs, names: &[&str]) {
    let mut names: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !n.starts_with('/'))
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut entries: Vec<(String, Vec<(u32, Entry)>)> = Vec::with_capacity(names.len());
    for name in names {
        let mut found = Vec::new();
        for (index, dir) in before.canonical.iter().enumerate() {
            if let Some(entry) = entry(&dir.path.join(name)) {
                found.push((u32::try_from(index).unwrap_or(u32::MAX), entry));
            }
        }
        entries.push((name.to_owned(), found));
    }
    let configured: Vec<PathBuf> = before.configured.iter().map(|(p, _)| p.clone()).collect();
    if Dirs::now(&configured).as_ref() != Some(&before) || !before.settled() {
        return;
    }
    let stored = Stored {
        format: FORMAT,
        dirs: before,
        names: entries,
    };
    if let Ok(bytes) = postcard::to_allocvec(&stored) {
        let _ = write_atomically(&store_path(&configured), &bytes);
    }
}

/// What `path` is, without following a final symbolic link: None for nothing there or
/// anything but a regular file or a link.
fn entry(path: &Path) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.is_symlink() {
        Some(Entry::Link)
    } else if meta.is_file() {
        Some(Entry::File {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    } else {
        None
    }
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

    /// Only directories nobody but root can change are stored: not one under /tmp.
    #[test]
    fn directories_others_can_change_are_not_stored() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(Dirs::take(&[tmp.path().to_path_buf()]).is_some());
        assert!(Dirs::now(&[tmp.path().to_path_buf()]).is_none());
        assert!(Dirs::now(&[PathBuf::from("/usr/bin")]).is_some());
    }
}
