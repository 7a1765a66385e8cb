//! What a command name in the policy *is*: the files it resolves to at load time, each known by
//! its (device, inode) and the path it was found at. A request matches a name by the identity of the
//! program that will run, never by how the program was spelled, so a symlink or a hard link to a
//! listed program matches and a look-alike with the same basename does not.
//!
//! The only I/O is `stat` at load time; matching is pure.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use super::{Text, borrowed};

/// One file a command name resolved to. Two targets of the same name are equal when they are
/// the same file found at the same path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The search directory (canonical) the name was found in, shared by the names resolved
    /// with it; None for an absolute name, found at itself. The path, the directory joined with
    /// the name, is made only when asked for: a start makes the targets of ~200 names and
    /// needs none of their paths.
    dir: Option<Arc<Path>>,
    pub dev: u64,
    pub ino: u64,
}

impl Target {
    /// `name` found in `dir` (None: `name` is an absolute path) as the file (`dev`, `ino`).
    pub(crate) fn new(dir: Option<&Arc<Path>>, dev: u64, ino: u64) -> Target {
        Target {
            dir: dir.cloned(),
            dev,
            ino,
        }
    }

    /// Where `name`, the name this target was found for, was found (search directory
    /// canonical, the name itself not resolved).
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        match &self.dir {
            Some(dir) => dir.join(name),
            None => PathBuf::from(name),
        }
    }

    /// Whether `path` is `self.path(name)`, without making it.
    fn is_at(&self, name: &str, path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        debug_assert!(
            self.dir.is_none() || !name.starts_with('/'),
            "{name} in a directory"
        );
        let path = path.as_os_str().as_bytes();
        let Some(dir) = &self.dir else {
            return path == name.as_bytes();
        };
        let dir = dir.as_os_str().as_bytes();
        // As `join` puts them together: a separator unless the directory ends with one (`/`).
        let rest = path.strip_prefix(dir).and_then(|rest| match dir.last() {
            Some(b'/') => Some(rest),
            _ => rest.strip_prefix(b"/"),
        });
        rest == Some(name.as_bytes())
    }
}

/// A command as named in the policy, with what the name resolved to.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct CommandRef {
    /// The name as written (a bare name or an absolute path). Builtins match on it.
    #[serde(deserialize_with = "borrowed")]
    pub name: Text,
    /// Every file the name resolved to; empty when it resolved to nothing. Shared by the
    /// entries that write the same name. Not part of a compiled policy: the names are looked
    /// up on the machine the policy is used on.
    #[serde(skip, default = "no_targets")]
    pub targets: Arc<[Target]>,
}

/// The targets of a name not looked up yet: one empty list for all, rather than one allocated
/// for each of the policy's entries and dropped when its name is looked up.
static NO_TARGETS: LazyLock<Arc<[Target]>> = LazyLock::new(|| Arc::new([]));

fn no_targets() -> Arc<[Target]> {
    Arc::clone(&NO_TARGETS)
}

/// Targets as the entries share them: one empty list for every name that has none.
pub(crate) fn shared(mut targets: Vec<Target>) -> Arc<[Target]> {
    shared_from(&mut targets)
}

/// As `shared`, moving the targets out of `targets` (left empty, its buffer kept for reuse)
/// into a slice allocated once.
pub(crate) fn shared_from(targets: &mut Vec<Target>) -> Arc<[Target]> {
    if targets.is_empty() {
        no_targets()
    } else {
        targets.drain(..).collect()
    }
}

impl CommandRef {
    /// A name not looked up yet (see `Unresolved::resolve`).
    pub(crate) fn named(name: &str) -> CommandRef {
        CommandRef {
            name: Text::Owned(name.to_owned()),
            targets: no_targets(),
        }
    }

    /// A shell builtin matches by name only, under either of its names: a policy that
    /// denies `source` denies `.`.
    pub(crate) fn matches_builtin(&self, builtin: &str) -> bool {
        self.name == builtin || synonym(builtin) == Some(&*self.name)
    }

    /// An external program matches when it is one of the files the name resolved to: same
    /// (device, inode), or the same path (the file at that path was replaced since loading).
    pub(crate) fn matches_file(&self, path: &Path, dev: u64, ino: u64) -> bool {
        self.targets
            .iter()
            // Both paths are canonical: comparing their bytes is comparing the paths, without
            // the cost of `Path`'s component-wise equality (most of a decision's time).
            .any(|t| (t.dev == dev && t.ino == ino) || t.is_at(&self.name, path))
    }

    /// Whether `other` resolved to one of the same files, found at the same path.
    pub(crate) fn shares_target(&self, other: &CommandRef) -> bool {
        self.targets.iter().any(|t| {
            other.targets.iter().any(|u| {
                (t.dev, t.ino) == (u.dev, u.ino) && t.path(&self.name) == u.path(&other.name)
            })
        })
    }
}

/// Why a name is not acceptable as a command name.
pub(crate) fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty command name".to_owned());
    }
    if name.contains('\0') {
        return Err("command name contains a NUL byte".to_owned());
    }
    if name.contains('/') && !name.starts_with('/') {
        return Err(format!(
            "command name {name:?} contains `/` but is not an absolute path"
        ));
    }
    Ok(())
}

/// Resolves names against a list of directories, caching each answer for the whole load.
pub(crate) struct Resolver<'a> {
    /// The search directories that exist, canonical, each once (`/bin` is often `/usr/bin`).
    dirs: Vec<SearchDir>,
    cache: HashMap<&'a str, Arc<[Target]>>,
}

/// A search directory, opened once: each name is looked up with one `stat` relative to it,
/// unless the directory is small enough to list (see `worth_listing`).
struct SearchDir {
    path: Arc<Path>,
    dir: Option<OwnedFd>,
    /// The hashes of the directory's entries (`name_hash`), sorted, when it was listed: a name
    /// whose hash is not among them is not there, and is not looked up. (One whose hash is
    /// is looked up: two names can share a hash.)
    listed: Option<Vec<u64>>,
}

impl SearchDir {
    /// The file `name` in this directory, following symbolic links.
    fn stat(&self, name: &str) -> Option<nix::sys::stat::FileStat> {
        use nix::fcntl::AtFlags;
        if let Some(listed) = &self.listed
            && listed.binary_search(&name_hash(name.as_bytes())).is_err()
        {
            return None;
        }
        match &self.dir {
            Some(dir) => nix::sys::stat::fstatat(dir, name, AtFlags::empty()).ok(),
            None => nix::sys::stat::stat(&self.path.join(name)).ok(),
        }
    }
}

/// Whether listing a directory of `size` bytes costs less than looking `names` names up in it.
/// rsh loads its policy on every start, with ~200 names on four directories, most of them in
/// the last: a failed `fstatat` costs about 0.8 µs, listing about 13 µs plus 0.4 µs an entry
/// (measured on ext4, where an entry takes some 35–70 bytes of the directory's size). So the
/// near-empty /usr/local directories and /usr/sbin are listed, a /usr/bin of a thousand
/// entries is not. Only speed depends on the guess: both ways find the same files.
fn worth_listing(size: i64, names: usize) -> bool {
    usize::try_from(size).is_ok_and(|size| size / 96 + 16 < names)
}

/// 64-bit FNV-1a: what a listing keeps of each name, so that listing a directory copies none.
pub(super) fn name_hash(name: &[u8]) -> u64 {
    name.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hashes of the names in the directory `dir`, sorted, or None when it cannot be listed,
/// or when a listing could miss a name that a look-up finds (see `exact_names`).
fn list(dir: &OwnedFd) -> Option<Vec<u64>> {
    use nix::fcntl::OFlag;
    use std::os::fd::AsFd;
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
    let mut listing = nix::dir::Dir::openat(dir, ".", flags, nix::sys::stat::Mode::empty()).ok()?;
    if !exact_names(listing.as_fd()) {
        return None;
    }
    let mut hashes = Vec::new();
    for entry in listing.iter() {
        hashes.push(name_hash(entry.ok()?.file_name().to_bytes()));
    }
    hashes.sort_unstable();
    Some(hashes)
}

/// Whether a name is found in the directory only as it is written: on a file system that
/// folds case (an ext4 or tmpfs directory with the casefold attribute, vfat, a network share),
/// a look-up of `Foo` finds `foo`, and a deny entry resolved by listing would miss it. Only
/// directories of file systems known to match names exactly, without the attribute, are
/// listed.
#[allow(unsafe_code)]
fn exact_names(dir: std::os::fd::BorrowedFd) -> bool {
    use nix::sys::statfs::{BTRFS_SUPER_MAGIC, EXT4_SUPER_MAGIC, TMPFS_MAGIC, fstatfs};
    use std::os::fd::AsRawFd;
    // FS_CASEFOLD_FL of <linux/fs.h>.
    const CASEFOLD: libc::c_long = 0x4000_0000;
    let known = fstatfs(dir).is_ok_and(|fs| {
        [EXT4_SUPER_MAGIC, BTRFS_SUPER_MAGIC, TMPFS_MAGIC].contains(&fs.filesystem_type())
    });
    let mut attributes: libc::c_long = 0;
    // SAFETY: FS_IOC_GETFLAGS writes one long through the pointer, which is valid.
    let read = unsafe { libc::ioctl(dir.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut attributes) };
    known && read == 0 && attributes & CASEFOLD == 0
}

impl<'a> Resolver<'a> {
    /// A resolver for about `names` names (which decides whether listing a directory pays).
    pub(crate) fn new(dirs: &[PathBuf], names: usize) -> Resolver<'a> {
        let mut canonical: Vec<SearchDir> = Vec::new();
        for dir in dirs {
            if let Ok(dir) = std::fs::canonicalize(dir)
                && !canonical.iter().any(|d| *d.path == *dir)
            {
                let fd = nix::fcntl::open(
                    &dir,
                    nix::fcntl::OFlag::O_PATH
                        | nix::fcntl::OFlag::O_DIRECTORY
                        | nix::fcntl::OFlag::O_CLOEXEC,
                    nix::sys::stat::Mode::empty(),
                )
                .ok();
                let listed = fd
                    .as_ref()
                    .filter(|fd| {
                        nix::sys::stat::fstat(fd).is_ok_and(|st| worth_listing(st.st_size, names))
                    })
                    .and_then(list);
                canonical.push(SearchDir {
                    path: Arc::from(dir),
                    dir: fd,
                    listed,
                });
            }
        }
        Resolver {
            dirs: canonical,
            cache: HashMap::with_capacity(names),
        }
    }

    /// An absolute path resolves to itself; a bare name to the file of that name in *every*
    /// directory of the search path that has one (so a deny entry cannot be dodged by calling a
    /// second copy further down the path). Only regular files (after following symlinks) count.
    pub(crate) fn targets(&mut self, name: &'a str) -> Arc<[Target]> {
        let dirs = &self.dirs;
        self.cache
            .entry(name)
            .or_insert_with(|| shared(find_targets(name, dirs)))
            .clone()
    }

    #[cfg(test)]
    fn resolve(&mut self, name: &'a str) -> CommandRef {
        CommandRef {
            name: Text::Owned(name.to_owned()),
            targets: self.targets(name),
        }
    }
}

/// `name`'s targets in `dirs` (canonical), each looked up by its path; an absolute name is
/// looked up itself (see `find_targets`).
pub(crate) fn find_targets_in(name: &str, dirs: &[PathBuf]) -> Vec<Target> {
    let dirs: Vec<SearchDir> = dirs
        .iter()
        .map(|path| SearchDir {
            path: Arc::from(path.as_path()),
            dir: None,
            listed: None,
        })
        .collect();
    find_targets(name, &dirs)
}

fn find_targets(name: &str, dirs: &[SearchDir]) -> Vec<Target> {
    if name.starts_with('/') {
        return target_of(Path::new(name)).into_iter().collect();
    }
    let mut found: Vec<Target> = Vec::new();
    for dir in dirs {
        let Some(st) = dir.stat(name) else {
            continue;
        };
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            continue;
        }
        let target = Target::new(Some(&dir.path), st.st_dev, st.st_ino);
        if !found.contains(&target) {
            found.push(target);
        }
    }
    found
}

/// The file at `path` (following symlinks), by the path it was found at and its identity.
/// The path is not canonicalized: the identity already follows every symlink, and the path
/// only serves to recognise the same file after it is replaced (a package upgrade).
fn target_of(path: &Path) -> Option<Target> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    Some(Target::new(None, meta.dev(), meta.ino()))
}

/// The other name of a builtin that has two.
fn synonym(builtin: &str) -> Option<&'static str> {
    Some(match builtin {
        "." => "source",
        "source" => ".",
        "[" => "test",
        "test" => "[",
        "typeset" => "declare",
        "declare" => "typeset",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_names() {
        assert!(check_name("").is_err());
        assert!(check_name("bin/ls").is_err());
        assert!(check_name("./ls").is_err());
        assert!(check_name("a\0b").is_err());
        assert!(check_name("ls").is_ok());
        assert!(check_name("/usr/bin/ls").is_ok());
        assert!(check_name("[").is_ok());
    }

    #[test]
    fn resolves_in_every_directory_and_follows_symlinks() {
        // Looked up one by one, and in listed directories.
        resolves_in_every_directory(1);
        resolves_in_every_directory(100_000);
    }

    #[test]
    fn only_file_systems_known_to_match_names_exactly_are_listed() {
        // procfs, as any file system not known to be case-sensitive.
        let proc = std::fs::File::open("/proc").unwrap();
        assert!(!exact_names(std::os::fd::AsFd::as_fd(&proc)));
    }

    /// A target's path compared in place is its directory joined with its name, in the root
    /// directory too.
    #[test]
    fn a_path_is_compared_as_joined() {
        let dirs: [Arc<Path>; 2] = [Arc::from(Path::new("/")), Arc::from(Path::new("/usr/bin"))];
        for dir in &dirs {
            let target = Target::new(Some(dir), 1, 2);
            for path in [
                "/ls",
                "/usr/bin/ls",
                "/usr/binls",
                "/usr/bin/lsx",
                "/usr/bin/",
                "ls",
            ] {
                let path = Path::new(path);
                assert_eq!(
                    target.is_at("ls", path),
                    target.path("ls") == path,
                    "{path:?}"
                );
            }
        }
        let absolute = Target::new(None, 1, 2);
        assert!(absolute.is_at("/usr/bin/ls", Path::new("/usr/bin/ls")));
        assert!(!absolute.is_at("/usr/bin/ls", Path::new("/usr/bin/l")));
    }

    fn resolves_in_every_directory(names: usize) {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        let b = tmp.path().join("b");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("tool"), "one").unwrap();
        std::fs::write(b.join("tool"), "two").unwrap();
        std::fs::create_dir(b.join("dir")).unwrap();
        std::os::unix::fs::symlink(a.join("tool"), b.join("link")).unwrap();
        let dirs = vec![a.clone(), b.clone()];
        let mut resolver = Resolver::new(&dirs, names);
        // Listed where that pays, on file systems that match names exactly (ext4 and tmpfs
        // here, without the casefold attribute).
        let exact = resolver.dirs.iter().all(|d| {
            let dir = std::fs::File::open(&d.path).unwrap();
            exact_names(std::os::fd::AsFd::as_fd(&dir))
        });
        assert!(
            resolver
                .dirs
                .iter()
                .all(|d| d.listed.is_some() == (names > 1 && exact))
        );

        let tool = resolver.resolve("tool");
        assert_eq!(tool.targets.len(), 2);
        let link = resolver.resolve("link");
        assert_eq!(link.targets.len(), 1);
        // Found under its own name, identified as the file it points to.
        let tool_meta = std::fs::metadata(a.join("tool")).unwrap();
        assert_eq!(
            (link.targets[0].dev, link.targets[0].ino),
            (tool_meta.dev(), tool_meta.ino())
        );
        assert!(link.targets[0].path("link").ends_with("b/link"));
        assert!(resolver.resolve("dir").targets.is_empty());
        assert!(resolver.resolve("missing").targets.is_empty());

        let abs = std::fs::canonicalize(&b).unwrap().join("link");
        let by_path = resolver.resolve(abs.to_str().unwrap());
        assert!(by_path.shares_target(&link));
        assert_eq!(by_path.targets[0].path(&by_path.name), abs);
        assert!(by_path.matches_file(&abs, 0, 0));
        assert!(link.matches_file(&abs, 0, 0));
        assert!(!link.matches_file(&abs.with_file_name("lin"), 0, 0));
        assert!(!tool.matches_file(&abs, 0, 0));
    }
}
