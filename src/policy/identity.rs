//! What a command name in the policy *is*: the files it resolves to at load time, each known by
//! its (device, inode) and the path it was found at. A request matches a name by the identity of the
//! program that will run, never by how the program was spelled, so a symlink or a hard link to a
//! listed program matches and a look-alike with the same basename does not.
//!
//! The only I/O is listing the search directories and `stat` at load time; matching is pure.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One file a command name resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// Where the name was found (search directory canonical, the name itself not resolved).
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
    /// (device, inode), or the same path (the file at that path was replaced since loading).
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
    dirs: Vec<SearchDir>,
    cache: HashMap<String, Vec<Target>>,
}

/// A search directory and, once a name has been looked up in it, its entries: one listing
/// replaces a stat per policy name and directory, which keeps loading a policy of hundreds of
/// names cheap (rsh loads it on every start). Listed only when first needed, so a policy
/// without names lists nothing.
struct SearchDir {
    path: PathBuf,
    /// None: not listed yet; Some(None): cannot be listed (searched by stat instead).
    entries: Option<Option<HashSet<OsString>>>,
}

impl SearchDir {
    fn may_contain(&mut self, name: &str) -> bool {
        let path = &self.path;
        let entries = self.entries.get_or_insert_with(|| {
            std::fs::read_dir(path).ok().map(|listing| {
                listing
                    .filter_map(|e| e.ok().map(|e| e.file_name()))
                    .collect()
            })
        });
        entries
            .as_ref()
            .is_none_or(|set| set.contains(std::ffi::OsStr::new(name)))
    }
}

impl Resolver {
    pub(crate) fn new(dirs: &[PathBuf]) -> Resolver {
        let mut canonical: Vec<SearchDir> = Vec::new();
        for dir in dirs {
            if let Ok(dir) = std::fs::canonicalize(dir)
                && !canonical.iter().any(|d| d.path == dir)
            {
                canonical.push(SearchDir {
                    path: dir,
                    entries: None,
                });
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
        let targets = match self.cache.get(name) {
            Some(targets) => targets.clone(),
            None => {
                let targets = find_targets(name, &mut self.dirs);
                self.cache.insert(name.to_owned(), targets.clone());
                targets
            }
        };
        CommandRef {
            name: name.to_owned(),
            targets,
        }
    }
}

fn find_targets(name: &str, dirs: &mut [SearchDir]) -> Vec<Target> {
    if name.starts_with('/') {
        return target_of(Path::new(name)).into_iter().collect();
    }
    let mut found: Vec<Target> = Vec::new();
    for dir in dirs {
        if !dir.may_contain(name) {
            continue;
        }
        if let Some(t) = target_of(&dir.path.join(name))
            && !found.contains(&t)
        {
            found.push(t);
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
    Some(Target {
        path: path.to_path_buf(),
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
        // Found under its own name, identified as the file it points to.
        let tool_meta = std::fs::metadata(a.join("tool")).unwrap();
        assert_eq!(
            (link.targets[0].dev, link.targets[0].ino),
            (tool_meta.dev(), tool_meta.ino())
        );
        assert!(link.targets[0].path.ends_with("b/link"));
        assert!(resolver.resolve("dir").targets.is_empty());
        assert!(resolver.resolve("missing").targets.is_empty());

        let abs = std::fs::canonicalize(&b).unwrap().join("link");
        let by_path = resolver.resolve(abs.to_str().unwrap());
        assert_eq!(by_path.targets, link.targets);
    }
}
