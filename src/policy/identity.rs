//! What a command name in the policy *is*: the files it resolves to at load time, each known by
//! its canonical path and its (device, inode). A request matches a name by the identity of the
//! program that will run, never by how the program was spelled, so a symlink or a hard link to a
//! listed program matches and a look-alike with the same basename does not.
//!
//! The only I/O is `stat` and `canonicalize` at load time; matching is pure.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One file a command name resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// Canonical path: absolute, symlinks resolved.
    pub path: PathBuf,
    pub dev: u64,
    pub ino: u64,
}

/// A command as named in the policy, with what the name resolved to.
#[derive(Debug, Clone)]
pub(crate) struct CommandRef {
    /// The name as written (a bare name or an absolute path). Builtins match on it.
    pub name: String,
    /// Every file the name resolved to; empty when it resolved to nothing.
    pub targets: Vec<Target>,
}

impl CommandRef {
    /// A shell builtin matches by name only.
    pub(crate) fn matches_builtin(&self, builtin: &str) -> bool {
        self.name == builtin
    }

    /// An external program matches when it is one of the files the name resolved to: same
    /// canonical path, or same (device, inode).
    pub(crate) fn matches_file(&self, path: &Path, dev: u64, ino: u64) -> bool {
        self.targets
            .iter()
            .any(|t| t.path == path || (t.dev == dev && t.ino == ino))
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
pub(crate) struct Resolver {
    /// The search directories that exist, canonical, each once (`/bin` is often `/usr/bin`).
    dirs: Vec<PathBuf>,
    cache: HashMap<String, Vec<Target>>,
}

impl Resolver {
    pub(crate) fn new(dirs: &[PathBuf]) -> Resolver {
        let mut canonical: Vec<PathBuf> = Vec::new();
        for dir in dirs {
            if let Ok(dir) = std::fs::canonicalize(dir)
                && !canonical.contains(&dir)
            {
                canonical.push(dir);
            }
        }
        Resolver {
            dirs: canonical,
            cache: HashMap::new(),
        }
    }

    /// An absolute path resolves to itself; a bare name to the file of that name in *every*
    /// directory of the search path that has one (so a deny entry cannot be dodged by calling a
    /// second copy further down the path). Only regular files (after following symlinks) count.
    pub(crate) fn resolve(&mut self, name: &str) -> CommandRef {
        let dirs = &self.dirs;
        let targets = self
            .cache
            .entry(name.to_owned())
            .or_insert_with(|| find_targets(name, dirs))
            .clone();
        CommandRef {
            name: name.to_owned(),
            targets,
        }
    }
}

fn find_targets(name: &str, dirs: &[PathBuf]) -> Vec<Target> {
    if name.starts_with('/') {
        return target_of(Path::new(name)).into_iter().collect();
    }
    let mut found: Vec<Target> = Vec::new();
    for dir in dirs {
        if let Some(t) = target_of(&dir.join(name))
            && !found.contains(&t)
        {
            found.push(t);
        }
    }
    found
}

fn target_of(path: &Path) -> Option<Target> {
    // One stat first: most names are missing from most directories, and canonicalize costs a
    // system call per path component.
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    Some(Target {
        path: std::fs::canonicalize(path).ok()?,
        dev: meta.dev(),
        ino: meta.ino(),
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
        let mut resolver = Resolver::new(&dirs);

        let tool = resolver.resolve("tool");
        assert_eq!(tool.targets.len(), 2);
        let link = resolver.resolve("link");
        assert_eq!(link.targets.len(), 1);
        assert_eq!(
            link.targets[0].path,
            std::fs::canonicalize(a.join("tool")).unwrap()
        );
        assert!(resolver.resolve("dir").targets.is_empty());
        assert!(resolver.resolve("missing").targets.is_empty());

        let abs = b.join("link");
        let by_path = resolver.resolve(abs.to_str().unwrap());
        assert_eq!(by_path.targets, link.targets);
    }
}
