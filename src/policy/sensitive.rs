//! `[sensitive]`: files that hold secrets or keep a foothold (keys, credentials, `.env`, shell
//! start-up files, git hooks), recognised by name wherever they are, with a level each: `high`
//! (denied) or `medium` (needs confirmation). Only the patterns and their matching live here;
//! which paths a command touches, and the verdict, are the decision's business.

use std::borrow::Cow;
use std::path::{Component, Path};

use super::pattern::{Glob, PatternError};
use super::{Place, Text, borrowed};
use serde::{Deserialize, Serialize};

/// Always denied unless `sensitive.allow` names the file.
#[rustfmt::skip]
pub const BUILT_IN_HIGH: &[&str] = &[
    // Private keys and key stores.
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.p12", "*.pfx",
    "*.jks", "*.keystore", ".ssh", ".gnupg",
    // Credentials and tokens.
    ".env", ".env.*", ".netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc",
    "credentials", "credentials.json", ".vault-token", ".docker/config.json", ".aws",
    ".azure", ".config/gcloud", ".kube/config", ".password-store",
    "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d",
    // Their backups, and old password hashes pam_pwhistory keeps.
    "/etc/shadow-", "/etc/gshadow-", "/etc/security/opasswd",
    // Code that runs later, for someone else: shell start-up files and git hooks. Reading
    // them is harmless (agents source ~/.bashrc; rsh decides every command in it).
    "write:.bashrc", "write:.bash_profile", "write:.bash_login", "write:.bash_logout",
    "write:.profile", "write:.zshrc", "write:.zshenv", "write:.zprofile", "write:.zlogin",
    "write:.config/fish", "write:.git/hooks", "write:.git/config",
    // Where git takes its configuration from too: another repository's (`commondir`), a
    // linked worktree's, the user's own.
    "write:.git/commondir", "write:.git/worktrees", "write:~/.gitconfig", "write:~/.config/git",
    // A file named .git (a "gitfile") points git at another repository, and with it at
    // another configuration and other hooks; a directory of that name is the repository.
    "write:file:.git",
];

/// Needs confirmation unless `sensitive.allow` names the file.
#[rustfmt::skip]
pub const BUILT_IN_MEDIUM: &[&str] = &[
    "*.sqlite", "*.sqlite3", "*.db", "/var/log", "/var/lib/mysql", "/var/lib/postgresql",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Medium,
    High,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Medium => "medium",
            Level::High => "high",
        }
    }
}

/// A path pattern, for reading and writing or, written `write:PATTERN`, for writing only.
/// Without a `/` it names a file or directory anywhere (`*.pem`, `.ssh`);
/// with one it names a sequence of path components anywhere (`.git/hooks`); starting with
/// `/` or `~/` it is anchored at the root or the home directory. A match covers everything
/// below it too, except for a pattern written `file:PATTERN`, which names only a path that
/// is not a directory (a file, or a name nothing has yet). Each component is a glob (`*`,
/// `?`, `[…]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct PathPattern {
    /// Only writing the file counts (`write:`).
    pub writes_only: bool,
    /// Only the path itself, when it is no directory (`file:`).
    pub files_only: bool,
    anchor: Anchor,
    components: Vec<Glob>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Anchor {
    Anywhere,
    Root,
    Home,
}

impl PathPattern {
    pub fn parse(text: &str) -> Result<PathPattern, PatternError> {
        let (writes_only, text) = match text.strip_prefix("write:") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (files_only, text) = match text.strip_prefix("file:") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (anchor, rest) = if let Some(rest) = text.strip_prefix("~/") {
            (Anchor::Home, rest)
        } else if let Some(rest) = text.strip_prefix('/') {
            (Anchor::Root, rest)
        } else {
            (Anchor::Anywhere, text)
        };
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return Err(PatternError {
                message: "names no file".to_owned(),
            });
        }
        if parts.iter().any(|p| *p == "." || *p == "..") {
            return Err(PatternError {
                message: "contains `.` or `..`: write the path it means".to_owned(),
            });
        }
        let components = parts
            .into_iter()
            .map(Glob::parse)
            .collect::<Result<_, _>>()?;
        Ok(PathPattern {
            writes_only,
            files_only,
            anchor,
            components,
        })
    }

    /// Whether `path` (absolute, canonical) is a file this pattern names, or lies below one,
    /// for reading (`write` false) or writing; `dir` tells whether it is a directory, asked
    /// only of a `file:` pattern.
    pub fn matches(&self, path: &Path, home: &Path, write: bool, dir: &dyn Fn() -> bool) -> bool {
        self.matches_names(&names(path), &names(home), write, dir)
    }

    /// `matches`, on the paths already split into their names (once for every pattern).
    fn matches_names(
        &self,
        path: &[Cow<str>],
        home: &[Cow<str>],
        write: bool,
        dir: &dyn Fn() -> bool,
    ) -> bool {
        if self.writes_only && !write {
            return false;
        }
        let n = self.components.len();
        let at = |start: usize| {
            path.len() >= start + n
                && (!self.files_only || path.len() == start + n)
                && self
                    .components
                    .iter()
                    .zip(&path[start..])
                    .all(|(glob, name)| glob.matches(name))
        };
        let named = match self.anchor {
            Anchor::Root => at(0),
            Anchor::Home => path.starts_with(home) && at(home.len()),
            Anchor::Anywhere => (0..path.len()).any(at),
        };
        named && !(self.files_only && dir())
    }

    /// How many components below a path of `depth` components a match that begins in it
    /// can end (`home`: the number of components of the home directory).
    fn reach(&self, depth: usize, home: usize) -> usize {
        let n = self.components.len();
        match self.anchor {
            Anchor::Anywhere => n - 1,
            Anchor::Root => n.saturating_sub(depth),
            Anchor::Home => (home + n).saturating_sub(depth),
        }
    }
}

/// The names of a path's components, as patterns match them.
fn names(path: &Path) -> Vec<Cow<'_, str>> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy()),
            _ => None,
        })
        .collect()
}

/// One `[sensitive]` entry, or a built-in one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct SensitiveEntry {
    /// `sensitive.high`, `sensitive.medium` or `sensitive.allow` (after `users.NAME.` or
    /// `groups.NAME.` when written in such a section).
    #[serde(deserialize_with = "borrowed")]
    pub key: Text,
    /// The pattern as written.
    #[serde(deserialize_with = "borrowed")]
    pub text: Text,
    pub pattern: PathPattern,
    /// None for a built-in entry.
    pub(crate) at: Option<Place>,
}

/// `[sensitive]`, with the built-in lists unless `builtin = false`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct Sensitive {
    pub high: Vec<SensitiveEntry>,
    pub medium: Vec<SensitiveEntry>,
    pub allow: Vec<SensitiveEntry>,
}

impl Sensitive {
    /// Whether no file is sensitive: nothing is refused or asked about for its name.
    pub fn is_empty(&self) -> bool {
        self.high.is_empty() && self.medium.is_empty()
    }

    /// The built-in lists alone.
    pub fn built_in() -> Sensitive {
        let entries = |level: Level, list: &[&'static str]| {
            list.iter()
                .map(|text| SensitiveEntry {
                    key: Text::Owned(format!("sensitive.{}", level.as_str())),
                    text: Text::Borrowed(text),
                    pattern: PathPattern::parse(text).expect("built-in patterns parse"),
                    at: None,
                })
                .collect()
        };
        Sensitive {
            high: entries(Level::High, BUILT_IN_HIGH),
            medium: entries(Level::Medium, BUILT_IN_MEDIUM),
            allow: Vec::new(),
        }
    }

    /// The level of reading or writing `path`, and the entry that gives it; None when no
    /// pattern names it or an allow entry does. `dir` tells whether `path` is a directory
    /// (asked only when a `file:` pattern names it).
    pub fn level<'a>(
        &'a self,
        path: &Path,
        home: &Path,
        write: bool,
        dir: &dyn Fn() -> bool,
    ) -> Option<(Level, &'a SensitiveEntry)> {
        self.level_unless(path, home, write, dir, None)
    }

    /// The level of writing `created`, a file that had the name `was` before a copy, move
    /// or link gave it this one, from the entries that name it but did not name it before.
    /// A `file:` entry counts even when it named `was`: what such a file says (a gitfile's
    /// `gitdir: ../g`) can mean another thing where it lands.
    pub fn level_renamed<'a>(
        &'a self,
        created: &Path,
        was: &Path,
        home: &Path,
    ) -> Option<(Level, &'a SensitiveEntry)> {
        self.level_unless(created, home, true, &|| was.is_dir(), Some(was))
    }

    /// How far below `created` (absolute, canonical), a directory a copy, move or link
    /// creates, a file can lie and still have a name `level_renamed` finds: a pattern
    /// without an anchor must match from a component of `created` on, since below it the
    /// names are those the files had.
    pub fn depth_at_risk(&self, created: &Path, home: &Path) -> usize {
        let (created, home) = (names(created).len(), names(home).len());
        self.high
            .iter()
            .chain(&self.medium)
            .map(|e| e.pattern.reach(created, home))
            .max()
            .unwrap_or(0)
    }

    fn level_unless<'a>(
        &'a self,
        path: &Path,
        home: &Path,
        write: bool,
        dir: &dyn Fn() -> bool,
        was: Option<&Path>,
    ) -> Option<(Level, &'a SensitiveEntry)> {
        let (path, home) = (names(path), names(home));
        let was = was.map(names);
        let named = |e: &&SensitiveEntry| e.pattern.matches_names(&path, &home, write, dir);
        if self.allow.iter().any(|e| named(&e)) {
            return None;
        }
        let new = |e: &&SensitiveEntry| {
            named(e)
                && (e.pattern.files_only
                    || !was
                        .as_ref()
                        .is_some_and(|was| e.pattern.matches_names(was, &home, write, dir)))
        };
        let first = |list: &'a [SensitiveEntry]| list.iter().find(new);
        first(&self.high)
            .map(|e| (Level::High, e))
            .or_else(|| first(&self.medium).map(|e| (Level::Medium, e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &str) -> bool {
        PathPattern::parse(pattern).unwrap().matches(
            Path::new(path),
            Path::new("/home/ann"),
            false,
            &|| false,
        )
    }

    #[test]
    fn a_name_matches_anywhere_and_below() {
        assert!(m("*.pem", "/srv/app/tls/server.pem"));
        assert!(m(".ssh", "/home/bob/.ssh/id_rsa"));
        assert!(m(".ssh", "/home/bob/.ssh"));
        assert!(!m(".ssh", "/home/bob/ssh"));
        assert!(!m("*.pem", "/srv/app/pem"));
        assert!(m("id_rsa*", "/tmp/x/id_rsa.pub"));
    }

    #[test]
    fn components_match_in_sequence() {
        assert!(m(".git/hooks", "/src/repo/.git/hooks/pre-commit"));
        assert!(!m(".git/hooks", "/src/repo/.git/objects/hooks"));
        assert!(m(".docker/config.json", "/root/.docker/config.json"));
    }

    #[test]
    fn anchors() {
        assert!(m("/etc/shadow", "/etc/shadow"));
        assert!(!m("/etc/shadow", "/srv/etc/shadow"));
        assert!(m("~/.config", "/home/ann/.config/x"));
        assert!(!m("~/.config", "/home/bob/.config/x"));
        assert!(m("/var/log", "/var/log/syslog"));
    }

    #[test]
    fn write_only_patterns() {
        let p = PathPattern::parse("write:.bashrc").unwrap();
        let (path, home) = (Path::new("/home/ann/.bashrc"), Path::new("/home/ann"));
        assert!(!p.matches(path, home, false, &|| false));
        assert!(p.matches(path, home, true, &|| false));
    }

    #[test]
    fn a_copy_is_judged_by_the_names_it_gives() {
        let s = Sensitive::built_in();
        let home = Path::new("/home/ann");
        let renamed = |created: &str, was: &str| {
            s.level_renamed(Path::new(created), Path::new(was), home)
                .map(|(_, e)| e.text.to_string())
        };
        assert_eq!(
            renamed("/w/.git/config", "/w/stage/config").as_deref(),
            Some("write:.git/config")
        );
        // The file had the name already: copying a repository is not planting a hook.
        assert_eq!(renamed("/b/r/.git/config", "/a/r/.git/config"), None);
        // Another pattern naming the old file does not excuse the new name.
        assert_eq!(
            renamed("/w/.git/config", "/w/x.pem/config").as_deref(),
            Some("write:.git/config")
        );
        // Below `/w/.git`, `.git/config` ends one level down; below `/w`, patterns of one
        // name end in `/w` itself (a deeper match has its names already in the source).
        // Patterns from the home directory count from its depth, wherever the directory is:
        // `~/.config/git` (home /home/ann) could end two levels below any directory of two.
        let anywhere = Sensitive {
            high: s
                .high
                .iter()
                .filter(|e| !e.text.contains('~'))
                .cloned()
                .collect(),
            ..Sensitive::built_in()
        };
        assert_eq!(anywhere.depth_at_risk(Path::new("/w/.git"), home), 1);
        assert_eq!(s.depth_at_risk(Path::new("/w/.git"), home), 2);
        let one = Sensitive {
            high: vec![SensitiveEntry {
                key: "sensitive.high".into(),
                text: "~/a/b".into(),
                pattern: PathPattern::parse("~/a/b").unwrap(),
                at: None,
            }],
            ..Sensitive::default()
        };
        assert_eq!(one.depth_at_risk(Path::new("/home"), home), 3);
        assert_eq!(one.depth_at_risk(Path::new("/home/ann/a/b/c"), home), 0);
    }

    #[test]
    fn file_patterns_name_the_path_itself_when_it_is_no_directory() {
        let p = PathPattern::parse("write:file:.git").unwrap();
        let home = Path::new("/home/ann");
        let matches = |path: &str, dir: bool| p.matches(Path::new(path), home, true, &|| dir);
        assert!(matches("/w/sub/.git", false));
        // The repository's own directory, and what is below it, are not named.
        assert!(!matches("/w/.git", true));
        assert!(!matches("/w/.git/HEAD", false));
        assert!(!p.matches(Path::new("/w/.git"), home, false, &|| false));
        // Asked only when the names match.
        assert!(!p.matches(Path::new("/w/git"), home, true, &|| panic!("asked")));
    }

    #[test]
    fn a_copy_is_judged_by_a_file_pattern_even_under_the_same_name() {
        let s = Sensitive::built_in();
        let home = Path::new("/home/ann");
        let dir = std::env::temp_dir();
        let renamed = |created: &Path, was: &Path| {
            s.level_renamed(created, was, home)
                .map(|(_, e)| e.text.to_string())
        };
        // `was` is a directory here: a repository copied is a repository.
        assert_eq!(renamed(&dir.join("copy/.git"), &dir), None);
        assert_eq!(
            renamed(Path::new("/w/sub/.git"), Path::new("/w/other/.git")).as_deref(),
            Some("write:file:.git")
        );
    }

    #[test]
    fn bad_patterns() {
        for bad in [
            "",
            "/",
            "~/",
            "a/../b",
            "./x",
            "[a",
            "write:",
            "file:",
            "write:file:",
        ] {
            assert!(PathPattern::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn allow_beats_levels_and_high_beats_medium() {
        let mut s = Sensitive::built_in();
        let home = Path::new("/home/ann");
        let (level, entry) = s
            .level(Path::new("/srv/x/.env"), home, false, &|| false)
            .unwrap();
        assert_eq!((level, &*entry.text), (Level::High, ".env"));
        assert_eq!(
            s.level(Path::new("/srv/app.db"), home, false, &|| false)
                .unwrap()
                .0,
            Level::Medium
        );
        assert!(
            s.level(Path::new("/srv/app.rs"), home, true, &|| false)
                .is_none()
        );
        s.allow.push(SensitiveEntry {
            key: "sensitive.allow".into(),
            text: "/srv/x/.env".into(),
            pattern: PathPattern::parse("/srv/x/.env").unwrap(),
            at: None,
        });
        assert!(
            s.level(Path::new("/srv/x/.env"), home, true, &|| false)
                .is_none()
        );
        assert!(
            s.level(Path::new("/srv/y/.env"), home, true, &|| false)
                .is_some()
        );
    }
}
