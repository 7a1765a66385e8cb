//! Pathname expansion: turns an escaped pattern word such as `src/*.rs` or
//! `**/*.txt` into the sorted list of existing paths it matches, printed the
//! way bash prints them.
//!
//! This module only reads directories and file metadata; it never changes
//! the filesystem, never follows a symlink while recursing for `**`, and
//! never fails: unreadable directories are skipped, and so are those the
//! caller may not list (`may_list`: the policy's file rules hold for the
//! shell's own listings as for its programs'). Whether an empty result
//! leaves the word as it was, disappears (nullglob) or is an error
//! (failglob) is the caller's decision.
//!
//! File names that are not valid UTF-8 are skipped: the shell's words are
//! Rust strings and a lossy conversion would name a different file.

use std::fs;
use std::path::{Path, PathBuf};

use super::pattern::{self, Pattern, PatternOpts};

/// The `shopt` settings that change pathname expansion.
#[derive(Debug, Clone, Copy, Default)]
pub struct GlobOpts {
    /// Wildcards match a leading `.` too (never `.` and `..` themselves).
    pub dotglob: bool,
    /// Recognise `?(…)` `*(…)` `+(…)` `@(…)` `!(…)`.
    pub extglob: bool,
    /// Match file names without regard to case (literal components still
    /// must match exactly, as in bash).
    pub nocaseglob: bool,
    /// A `**` component matches any number of directories.
    pub globstar: bool,
}

/// Expands an escaped pattern word against the filesystem. Relative patterns
/// are resolved against `cwd` but results are returned relative, exactly as
/// bash prints them. Sorted (byte order, like LC_ALL=C).
/// Returns an empty Vec when nothing matches (the caller decides between
/// leaving the word, nullglob, failglob). Only directories `may_list` allows
/// are listed.
pub fn expand(
    pattern: &str,
    cwd: &Path,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
) -> Vec<String> {
    let (root, comps) = split(pattern);
    if comps.is_empty() {
        // Only slashes (the root directory, which always exists), or nothing.
        return if root.is_empty() {
            Vec::new()
        } else {
            vec![root]
        };
    }
    let start_path = if root.is_empty() {
        cwd.to_path_buf()
    } else {
        PathBuf::from("/")
    };
    let mut found = vec![Found {
        shown: root.clone(),
        path: start_path,
    }];
    // Whether an earlier component was expanded: from then on bash shows
    // runs of slashes as one, and `dir/**` shows `dir` without its slash.
    let mut saw_glob = false;
    // Whether every earlier component was `**`: then, like bash, symlinked
    // directories found by `**` are not searched by later components.
    let mut only_starstar = root.is_empty();
    let mut k = 0;
    while k < comps.len() && !found.is_empty() {
        let comp = &comps[k];
        let last = k + 1 == comps.len();
        if opts.globstar && comp.text == "**" {
            if !last && comps[k + 1].text == "**" {
                // `**/**` means the same as `**`.
                saw_glob = true;
                k += 1;
                continue;
            }
            found = if !last {
                starstar_bases(found, only_starstar, opts, may_list)
            } else if comp.sep.is_empty() {
                starstar_all(found, saw_glob, opts, may_list)
            } else {
                starstar_dirs(found, opts, may_list)
            };
            saw_glob = true;
        } else if pattern::has_glob_chars(&comp.text, opts.extglob) {
            found = matching(found, comp, last, opts, may_list);
            saw_glob = true;
            only_starstar = false;
        } else {
            found = literal(found, comp, last, saw_glob);
            only_starstar = false;
        }
        k += 1;
    }
    let mut out: Vec<String> = found.into_iter().map(|f| f.shown).collect();
    out.sort();
    out
}

/// One `/`-separated piece of the pattern and the slashes written after it.
#[derive(Debug, PartialEq)]
struct Component {
    text: String,
    sep: String,
}

/// A path found so far: as it will be shown, and where it is.
struct Found {
    shown: String,
    path: PathBuf,
}

/// Splits a pattern into its leading slashes and its components. A quoted
/// slash still separates directories, as in bash.
fn split(pattern: &str) -> (String, Vec<Component>) {
    let mut root = String::new();
    let mut comps: Vec<Component> = Vec::new();
    let mut text = String::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let is_sep = match c {
            '/' => true,
            '\\' if chars.peek() == Some(&'/') => {
                chars.next();
                true
            }
            _ => false,
        };
        if !is_sep {
            text.push(c);
            if c == '\\' {
                if let Some(escaped) = chars.next() {
                    text.push(escaped);
                }
            }
            continue;
        }
        if !text.is_empty() {
            comps.push(Component {
                text: std::mem::take(&mut text),
                sep: String::new(),
            });
        }
        match comps.last_mut() {
            Some(comp) => comp.sep.push('/'),
            None => root.push('/'),
        }
    }
    if !text.is_empty() {
        comps.push(Component {
            text,
            sep: String::new(),
        });
    }
    (root, comps)
}

/// A component without special characters: taken as written, without
/// listing the directory. Only the last one is checked for existence;
/// earlier ones are checked by the listing or lookup that follows.
fn literal(found: Vec<Found>, comp: &Component, last: bool, saw_glob: bool) -> Vec<Found> {
    let name = pattern::unescape(&comp.text);
    // bash keeps repeated slashes only until the first expanded component.
    let sep = if saw_glob {
        single(&comp.sep)
    } else {
        &comp.sep
    };
    found
        .into_iter()
        .map(|base| Found {
            shown: format!("{}{}{}", base.shown, name, sep),
            path: base.path.join(&name),
        })
        .filter(|f| !last || exists(&f.path, !comp.sep.is_empty()))
        .collect()
}

/// The separator shown after an expanded component: bash prints a run of
/// slashes there as one.
fn single(sep: &str) -> &str {
    if sep.is_empty() { "" } else { "/" }
}

/// Whether `path` exists; with `dir`, whether it is a directory (following
/// symlinks). A dangling symlink exists, as for bash's `lstat`.
fn exists(path: &Path, dir: bool) -> bool {
    if dir {
        fs::metadata(path).is_ok_and(|m| m.is_dir())
    } else {
        fs::symlink_metadata(path).is_ok()
    }
}

/// A component with special characters: matched against each directory's
/// entries. Entries must be directories when more follows.
fn matching(
    found: Vec<Found>,
    comp: &Component,
    last: bool,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
) -> Vec<Found> {
    let pat = Pattern::new(
        &comp.text,
        PatternOpts {
            extglob: opts.extglob,
            nocase: opts.nocaseglob,
        },
    );
    let need_dir = !last || !comp.sep.is_empty();
    let sep = single(&comp.sep);
    let mut out = Vec::new();
    for base in found {
        let Ok(entries) = list(&base.path, may_list) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(name) = file_name.to_str() else {
                continue;
            };
            if !pat.matches_name(name, opts.dotglob) {
                continue;
            }
            let path = base.path.join(name);
            if need_dir && !entry_is_dir(&entry, &path) {
                continue;
            }
            out.push(Found {
                shown: format!("{}{}{}", base.shown, name, sep),
                path,
            });
        }
    }
    out
}

/// Whether a directory entry is a directory, following a symlink. Uses the
/// type the listing already gave and only stats symlinks.
fn entry_is_dir(entry: &fs::DirEntry, path: &Path) -> bool {
    match entry.file_type() {
        Ok(t) if t.is_dir() => true,
        Ok(t) if t.is_symlink() => fs::metadata(path).is_ok_and(|m| m.is_dir()),
        _ => false,
    }
}

/// Each base of `found` whose directory can be listed, with what `keep` makes of each entry
/// below it (those it keeps, in walk order). A base that cannot be listed is dropped.
fn with_below(
    found: Vec<Found>,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
    keep: &dyn Fn(&str, &Path, EntryKind) -> Option<Found>,
) -> Vec<(Found, Vec<Found>)> {
    let mut out = Vec::new();
    for base in found {
        let mut below = Vec::new();
        let readable = walk(
            &base.path,
            &base.shown,
            opts,
            may_list,
            &mut |shown, path, kind| below.extend(keep(shown, path, kind)),
        );
        if readable {
            out.push((base, below));
        }
    }
    out
}

/// An entry found below a base, shown with a trailing slash (a directory).
fn as_dir(shown: &str, path: &Path) -> Found {
    Found {
        shown: format!("{shown}/"),
        path: path.to_path_buf(),
    }
}

/// A final `**`: everything below each base, and the base itself. bash
/// shows the base as written (`dir/`) when it was literal, and without the
/// slash when it was itself matched (`d*/**` shows `dir`).
fn starstar_all(
    found: Vec<Found>,
    saw_glob: bool,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
) -> Vec<Found> {
    let keep = |shown: &str, path: &Path, _| {
        Some(Found {
            shown: shown.to_string(),
            path: path.to_path_buf(),
        })
    };
    let mut out = Vec::new();
    for (base, mut below) in with_below(found, opts, may_list, &keep) {
        if !base.shown.is_empty() {
            let mut shown = base.shown;
            if saw_glob && shown.len() > 1 {
                let trimmed = shown.trim_end_matches('/').len();
                shown.truncate(trimmed.max(1));
            }
            out.push(Found {
                shown,
                path: base.path,
            });
        }
        out.append(&mut below);
    }
    out
}

/// A final `**/`: each base and every directory below it (symlinked
/// directories included but not entered), shown with a trailing slash.
fn starstar_dirs(
    found: Vec<Found>,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
) -> Vec<Found> {
    let keep = |shown: &str, path: &Path, kind: EntryKind| {
        kind.is_dir_following(path).then(|| as_dir(shown, path))
    };
    let mut out = Vec::new();
    for (base, mut below) in with_below(found, opts, may_list, &keep) {
        if !base.shown.is_empty() {
            out.push(base);
        }
        out.append(&mut below);
    }
    out
}

/// A `**` with more components after it: each base and every directory
/// below it become bases for the rest. Symlinked directories are not
/// entered, and when the pattern so far is only `**` they are not bases
/// either.
fn starstar_bases(
    found: Vec<Found>,
    only_starstar: bool,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
) -> Vec<Found> {
    let keep = |shown: &str, path: &Path, kind: EntryKind| {
        let is_base = match kind {
            EntryKind::Dir => true,
            EntryKind::Symlink => !only_starstar && kind.is_dir_following(path),
            EntryKind::Other => false,
        };
        is_base.then(|| as_dir(shown, path))
    };
    let mut out = Vec::new();
    for (base, mut below) in with_below(found, opts, may_list, &keep) {
        out.push(base);
        out.append(&mut below);
    }
    out
}

#[derive(Clone, Copy)]
enum EntryKind {
    Dir,
    Symlink,
    Other,
}

impl EntryKind {
    fn is_dir_following(self, path: &Path) -> bool {
        match self {
            EntryKind::Dir => true,
            EntryKind::Symlink => fs::metadata(path).is_ok_and(|m| m.is_dir()),
            EntryKind::Other => false,
        }
    }
}

/// Visits every entry below `dir` (hidden ones only with dotglob), entering
/// real directories but not symlinks, so the walk cannot loop. Each entry is
/// shown as `shown` followed by its path relative to `dir`. Returns whether
/// `dir` itself could be read.
fn walk(
    dir: &Path,
    shown: &str,
    opts: GlobOpts,
    may_list: &mut dyn FnMut(&Path) -> bool,
    visit: &mut dyn FnMut(&str, &Path, EntryKind),
) -> bool {
    let mut pending = vec![(dir.to_path_buf(), shown.to_string())];
    let mut first = true;
    while let Some((dir, prefix)) = pending.pop() {
        let entries = match list(&dir, may_list) {
            Ok(entries) => entries,
            Err(_) if first => return false,
            Err(_) => continue,
        };
        first = false;
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let Some(name) = file_name.to_str() else {
                continue;
            };
            if name.starts_with('.') && !opts.dotglob {
                continue;
            }
            let kind = match entry.file_type() {
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(t) if t.is_symlink() => EntryKind::Symlink,
                _ => EntryKind::Other,
            };
            let path = dir.join(name);
            let entry_shown = format!("{prefix}{name}");
            visit(&entry_shown, &path, kind);
            if let EntryKind::Dir = kind {
                pending.push((path, format!("{entry_shown}/")));
            }
        }
    }
    true
}

/// The entries of `dir`, when `may_list` allows listing it.
fn list(dir: &Path, may_list: &mut dyn FnMut(&Path) -> bool) -> std::io::Result<fs::ReadDir> {
    match may_list(dir) {
        true => fs::read_dir(dir),
        false => Err(std::io::ErrorKind::PermissionDenied.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_all(pattern: &str, cwd: &Path, opts: GlobOpts) -> Vec<String> {
        expand(pattern, cwd, opts, &mut |_| true)
    }
    use std::os::unix::fs::symlink;

    /// Builds the tree the table below was checked against with bash, as
    /// `<tmp>/gt`, and returns that directory.
    fn tree(tmp: &tempfile::TempDir) -> PathBuf {
        let root = tmp.path().join("gt");
        for dir in ["a/b", "a/.hdir", ".hdir2", "d1/d2/d3", "sp ace"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            "a/b/c.txt",
            "a/b/.hid",
            "a/x.txt",
            "a/.hdir/y.txt",
            "b.txt",
            ".hidden",
            ".hdir2/z",
            "c*d",
            "cXd",
            "[x",
            "Foo.TXT",
            "é.txt",
            "sp ace/f",
            "d1/f1",
            "d1/d2/f2",
            "d1/d2/d3/f3",
            "d1/.h",
        ] {
            fs::write(root.join(file), "").unwrap();
        }
        symlink("a", root.join("link_a")).unwrap();
        symlink("nowhere", root.join("dangling")).unwrap();
        symlink("b.txt", root.join("file_link")).unwrap();
        symlink("../a", root.join("d1/uplink")).unwrap();
        root
    }

    fn opts(letters: &str) -> GlobOpts {
        GlobOpts {
            dotglob: letters.contains('d'),
            extglob: letters.contains('e'),
            nocaseglob: letters.contains('n'),
            globstar: letters.contains('g'),
        }
    }

    #[test]
    fn expands_like_bash() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tree(&tmp);
        let mut wrong = Vec::new();
        for &(letters, pat, want) in GLOB_CASES {
            let got = expand_all(pat, &root, opts(letters));
            if got != want {
                wrong.push(format!("[{letters}] {pat}: got {got:?}, bash {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn absolute_patterns_keep_slashes_until_the_first_match() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tree(&tmp);
        let base = pattern::escape(root.to_str().unwrap());
        let shown = root.to_str().unwrap();
        let cwd = Path::new("/nonexistent");
        assert_eq!(
            expand_all(&format!("{base}/a*"), cwd, GlobOpts::default()),
            [format!("{shown}/a")]
        );
        assert_eq!(
            expand_all(&format!("/{base}//a//*.txt"), cwd, GlobOpts::default()),
            [format!("/{shown}//a//x.txt")]
        );
        assert_eq!(
            expand_all(&format!("{base}//[a]//b//c.txt"), cwd, GlobOpts::default()),
            [format!("{shown}//a/b/c.txt")]
        );
    }

    #[test]
    fn splits_on_every_slash() {
        let comp = |text: &str, sep: &str| Component {
            text: text.to_string(),
            sep: sep.to_string(),
        };
        assert_eq!(
            split("a/*"),
            (String::new(), vec![comp("a", "/"), comp("*", "")])
        );
        assert_eq!(
            split("//x//y/"),
            ("//".to_string(), vec![comp("x", "//"), comp("y", "/")])
        );
        // A quoted slash still separates; a quoted backslash does not.
        assert_eq!(
            split("a\\/b"),
            (String::new(), vec![comp("a", "/"), comp("b", "")])
        );
        assert_eq!(
            split("a\\\\/b"),
            (String::new(), vec![comp("a\\\\", "/"), comp("b", "")])
        );
        assert_eq!(split(""), (String::new(), vec![]));
    }

    #[test]
    fn odd_patterns_expand_to_nothing_or_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tree(&tmp);
        assert!(expand_all("", &root, GlobOpts::default()).is_empty());
        assert_eq!(expand_all("/", &root, GlobOpts::default()), ["/"]);
        assert_eq!(expand_all("//", &root, GlobOpts::default()), ["//"]);
        // Words without special characters name themselves if they exist.
        assert_eq!(expand_all("b.txt", &root, GlobOpts::default()), ["b.txt"]);
        assert!(expand_all("nofile", &root, GlobOpts::default()).is_empty());
        assert!(expand_all("*/\u{0}x", &root, GlobOpts::default()).is_empty());
    }

    #[test]
    fn unreadable_directories_are_skipped() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["open", "shut"] {
            fs::create_dir(tmp.path().join(dir)).unwrap();
            fs::write(tmp.path().join(dir).join("f"), "").unwrap();
        }
        let shut = tmp.path().join("shut");
        fs::set_permissions(&shut, fs::Permissions::from_mode(0o000)).unwrap();
        let readable_anyway = fs::read_dir(&shut).is_ok(); // running as root
        let got = expand_all("*/*", tmp.path(), GlobOpts::default());
        let starstar = expand_all(
            "**",
            tmp.path(),
            GlobOpts {
                globstar: true,
                ..GlobOpts::default()
            },
        );
        fs::set_permissions(&shut, fs::Permissions::from_mode(0o755)).unwrap();
        if !readable_anyway {
            assert_eq!(got, ["open/f"]);
            assert_eq!(starstar, ["open", "open/f", "shut"]);
        }
    }

    #[test]
    fn directories_the_caller_may_not_list_are_skipped() {
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["open", "shut", "shut/in"] {
            fs::create_dir(tmp.path().join(dir)).unwrap();
            fs::write(tmp.path().join(dir).join("f"), "").unwrap();
        }
        let shut = tmp.path().join("shut");
        let mut asked = Vec::new();
        let mut may_list = |dir: &Path| {
            asked.push(dir.to_path_buf());
            !dir.starts_with(&shut)
        };
        let globstar = GlobOpts {
            globstar: true,
            ..GlobOpts::default()
        };
        let cwd = tmp.path();
        assert_eq!(
            expand("*/*", cwd, GlobOpts::default(), &mut may_list),
            ["open/f"]
        );
        assert!(expand("shut/*", cwd, GlobOpts::default(), &mut may_list).is_empty());
        assert!(expand("shut/i*/f", cwd, GlobOpts::default(), &mut may_list).is_empty());
        assert_eq!(
            expand("**", cwd, globstar, &mut may_list),
            ["open", "open/f", "shut"]
        );
        // A literal name is looked up, not listed: `shut/f` is found, `shut/in/f` needs
        // `shut` listed.
        assert_eq!(
            expand("**/f", cwd, globstar, &mut may_list),
            ["open/f", "shut/f"]
        );
        // A literal path is not a listing either.
        assert_eq!(
            expand("shut/in/f", cwd, GlobOpts::default(), &mut may_list),
            ["shut/in/f"]
        );
        assert!(asked.contains(&shut), "{asked:?}");
    }

    #[test]
    fn names_that_are_not_utf8_are_skipped() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(OsStr::from_bytes(b"bad\xff")), "").unwrap();
        fs::create_dir(tmp.path().join(OsStr::from_bytes(b"dir\xfe"))).unwrap();
        fs::write(tmp.path().join("good"), "").unwrap();
        let all = GlobOpts {
            globstar: true,
            dotglob: true,
            ..GlobOpts::default()
        };
        assert_eq!(expand_all("*", tmp.path(), all), ["good"]);
        assert_eq!(expand_all("**", tmp.path(), all), ["good"]);
        assert!(expand_all("*/", tmp.path(), all).is_empty());
    }

    #[test]
    fn symlink_loops_end() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join("d")).unwrap();
        symlink("..", tmp.path().join("d/up")).unwrap();
        let star = GlobOpts {
            globstar: true,
            ..GlobOpts::default()
        };
        assert_eq!(expand_all("**", tmp.path(), star), ["d", "d/up"]);
        assert_eq!(expand_all("**/", tmp.path(), star), ["d/", "d/up/"]);
        assert_eq!(expand_all("*/*/*/*", tmp.path(), star), ["d/up/d/up"]);
    }

    /// (shopt letters: d=dotglob e=extglob n=nocaseglob g=globstar; pattern; what bash 5.2 prints)
    const GLOB_CASES: &[(&str, &str, &[&str])] = &[
        (
            "",
            "*",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("", ".*", &[".hdir2", ".hidden"]),
        ("", "*/", &["a/", "d1/", "link_a/", "sp ace/"]),
        ("", "*//", &["a/", "d1/", "link_a/", "sp ace/"]),
        (
            "",
            "*/*",
            &[
                "a/b",
                "a/x.txt",
                "d1/d2",
                "d1/f1",
                "d1/uplink",
                "link_a/b",
                "link_a/x.txt",
                "sp ace/f",
            ],
        ),
        ("", "*/*/", &["a/b/", "d1/d2/", "d1/uplink/", "link_a/b/"]),
        ("", "a/*", &["a/b", "a/x.txt"]),
        ("", "a/.*", &["a/.hdir"]),
        ("", "a//*", &["a//b", "a//x.txt"]),
        ("", "./*.txt", &["./b.txt", "./é.txt"]),
        ("", ".//*.txt", &[".//b.txt", ".//é.txt"]),
        ("", "../gt/b*", &["../gt/b.txt"]),
        ("", "nodir/*", &[]),
        ("", "b.txt/*", &[]),
        ("", "*/b", &["a/b", "link_a/b"]),
        ("", "*/b/", &["a/b/", "link_a/b/"]),
        ("", "*/x.txt", &["a/x.txt", "link_a/x.txt"]),
        ("", "*/x.txt/", &[]),
        ("", "dangl*", &["dangling"]),
        ("", "dangl*/", &[]),
        ("", "*/nowhere", &[]),
        ("", "c\\*d", &["c*d"]),
        ("", "c?d", &["c*d", "cXd"]),
        ("", "\\[x", &["[x"]),
        ("", "[[]x", &["[x"]),
        ("", "[x", &["[x"]),
        ("", "link_a/*", &["link_a/b", "link_a/x.txt"]),
        ("", "l*/*", &["link_a/b", "link_a/x.txt"]),
        ("", "*/b/*", &["a/b/c.txt", "link_a/b/c.txt"]),
        ("", "d1/*/", &["d1/d2/", "d1/uplink/"]),
        ("", "[.]*", &[]),
        ("", "?hidden", &[]),
        ("", "\\.h*", &[".hdir2", ".hidden"]),
        ("", "é*", &["é.txt"]),
        ("", "?.txt", &["b.txt", "é.txt"]),
        ("", "foo*", &[]),
        ("", "FOO*", &[]),
        ("", "sp*/*", &["sp ace/f"]),
        ("", "sp\\ ace/*", &["sp ace/f"]),
        ("", "a/b/../*", &["a/b/../b", "a/b/../x.txt"]),
        (
            "",
            "*/../b.txt",
            &[
                "a/../b.txt",
                "d1/../b.txt",
                "link_a/../b.txt",
                "sp ace/../b.txt",
            ],
        ),
        ("", "*/.", &["a/.", "d1/.", "link_a/.", "sp ace/."]),
        ("", "*/..", &["a/..", "d1/..", "link_a/..", "sp ace/.."]),
        ("", "a/./*", &["a/./b", "a/./x.txt"]),
        ("", "[a-c]*", &["a", "b.txt", "c*d", "cXd"]),
        (
            "",
            "[!a-c]*",
            &[
                "Foo.TXT",
                "[x",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        (
            "",
            "[^a-c]*",
            &[
                "Foo.TXT",
                "[x",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("", "*[[:upper:]]*", &["Foo.TXT", "cXd"]),
        ("", "*.[tT][xX][tT]", &["Foo.TXT", "b.txt", "é.txt"]),
        ("", "a/b/*.txt", &["a/b/c.txt"]),
        (
            "",
            "*/*/*",
            &[
                "a/b/c.txt",
                "d1/d2/d3",
                "d1/d2/f2",
                "d1/uplink/b",
                "d1/uplink/x.txt",
                "link_a/b/c.txt",
            ],
        ),
        ("", "*/*/*/*", &["d1/d2/d3/f3", "d1/uplink/b/c.txt"]),
        (
            "",
            "**",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("", "d1/**", &["d1/d2", "d1/f1", "d1/uplink"]),
        ("", "**/f1", &["d1/f1"]),
        ("", "d1/**/", &["d1/d2/", "d1/uplink/"]),
        ("", "**/", &["a/", "d1/", "link_a/", "sp ace/"]),
        ("", ".*/", &[".hdir2/"]),
        ("", ".*/*", &[".hdir2/z"]),
        ("", "a/[b]/c.txt", &["a/b/c.txt"]),
        ("", "a/[b]", &["a/b"]),
        ("", "a\\/b", &["a/b"]),
        ("", "a/b\\/", &["a/b/"]),
        ("", "*\\/b", &["a/b", "link_a/b"]),
        ("", "**/*.txt", &["a/x.txt", "link_a/x.txt"]),
        ("", "**/f*", &["d1/f1", "sp ace/f"]),
        ("", "d1/**/f*", &["d1/d2/f2"]),
        ("", "**/d2", &["d1/d2"]),
        ("", "**/d2/", &["d1/d2/"]),
        (
            "",
            "**/**",
            &[
                "a/b",
                "a/x.txt",
                "d1/d2",
                "d1/f1",
                "d1/uplink",
                "link_a/b",
                "link_a/x.txt",
                "sp ace/f",
            ],
        ),
        ("", "d1/**/**/f3", &["d1/d2/d3/f3"]),
        ("", "**/uplink/*", &["d1/uplink/b", "d1/uplink/x.txt"]),
        ("", "a**", &["a"]),
        ("", "**a", &["a", "link_a"]),
        ("", "l*/**", &["link_a/b", "link_a/x.txt"]),
        ("", "link_a/**", &["link_a/b", "link_a/x.txt"]),
        ("", "d*/**", &["d1/d2", "d1/f1", "d1/uplink"]),
        ("", "[d]1/**", &["d1/d2", "d1/f1", "d1/uplink"]),
        (
            "",
            "*/**",
            &[
                "a/b",
                "a/x.txt",
                "d1/d2",
                "d1/f1",
                "d1/uplink",
                "link_a/b",
                "link_a/x.txt",
                "sp ace/f",
            ],
        ),
        ("", "d1/**/d3", &["d1/d2/d3"]),
        ("", "d1/**/d3/", &["d1/d2/d3/"]),
        ("", "**/d3/*", &[]),
        (
            "",
            "d1/**/*",
            &["d1/d2/d3", "d1/d2/f2", "d1/uplink/b", "d1/uplink/x.txt"],
        ),
        (
            "",
            "d1/**/**",
            &["d1/d2/d3", "d1/d2/f2", "d1/uplink/b", "d1/uplink/x.txt"],
        ),
        ("", "**/b/*", &["a/b/c.txt", "link_a/b/c.txt"]),
        (
            "",
            "./**",
            &[
                "./Foo.TXT",
                "./[x",
                "./a",
                "./b.txt",
                "./c*d",
                "./cXd",
                "./d1",
                "./dangling",
                "./file_link",
                "./link_a",
                "./sp ace",
                "./é.txt",
            ],
        ),
        ("", "./**/f2", &[]),
        ("", "./**/b", &["./a/b", "./link_a/b"]),
        ("", "d1//**", &["d1//d2", "d1//f1", "d1//uplink"]),
        ("", "d1/**//f1", &[]),
        ("", "d1//**/f1", &[]),
        ("", "d1/d2/**/", &["d1/d2/d3/"]),
        ("", "nodir/**", &[]),
        ("", "**/nodir", &[]),
        ("", "b.txt/**", &[]),
        ("", "x**/", &[]),
        ("", "d?/**/f3", &[]),
        ("", "d*/**/", &["d1/d2/", "d1/uplink/"]),
        ("", "*/**/", &["a/b/", "d1/d2/", "d1/uplink/", "link_a/b/"]),
        ("", "*/**/f*", &["d1/d2/f2"]),
        ("", "**/.h*", &["a/.hdir", "d1/.h", "link_a/.hdir"]),
        ("", "**/.*/", &["a/.hdir/", "link_a/.hdir/"]),
        ("", "a/**/.hid", &["a/b/.hid"]),
        ("", "**/**/f1", &[]),
        ("", "**/*/", &["a/b/", "d1/d2/", "d1/uplink/", "link_a/b/"]),
        ("", "link_a/**/", &["link_a/b/"]),
        ("", "link_a/**/*.txt", &["link_a/b/c.txt"]),
        ("", "**/b", &["a/b", "link_a/b"]),
        ("", "**/b/", &["a/b/", "link_a/b/"]),
        ("", "a/**/b", &[]),
        ("", "*/**/b", &["d1/uplink/b"]),
        ("", "*//b//c.txt", &["a/b/c.txt", "link_a/b/c.txt"]),
        ("", "a//b//*", &["a//b//c.txt"]),
        ("", "*//x.txt", &["a/x.txt", "link_a/x.txt"]),
        ("", "link_a//b//c*", &["link_a//b//c.txt"]),
        ("", "a//b//c*", &["a//b//c.txt"]),
        ("", "*//b//c*", &["a/b/c.txt", "link_a/b/c.txt"]),
        ("", "l*//b//c.txt", &["link_a/b/c.txt"]),
        ("", ".//a//*", &[".//a//b", ".//a//x.txt"]),
        ("", "*///", &["a/", "d1/", "link_a/", "sp ace/"]),
        ("", "*/*//", &["a/b/", "d1/d2/", "d1/uplink/", "link_a/b/"]),
        ("", "a/*//", &["a/b/"]),
        ("", "a//*//", &["a//b/"]),
        ("", "*//b//", &["a/b/", "link_a/b/"]),
        ("", "*/b//", &["a/b/", "link_a/b/"]),
        ("", "d1/d*//", &["d1/d2/"]),
        ("", "d1//**/", &["d1//d2/", "d1//uplink/"]),
        ("", "d1//**//f1", &[]),
        ("", "**//f2", &[]),
        ("", "d1/**//d2//f2", &[]),
        ("", "**//", &["a/", "d1/", "link_a/", "sp ace/"]),
        ("", "d1/**//", &["d1/d2/", "d1/uplink/"]),
        ("", "d1/**///", &["d1/d2/", "d1/uplink/"]),
        ("", "*/**//", &["a/b/", "d1/d2/", "d1/uplink/", "link_a/b/"]),
        ("", "*.TXT", &["Foo.TXT"]),
        ("", "*.txt", &["b.txt", "é.txt"]),
        ("", "A/X*", &[]),
        ("", "A/*", &[]),
        ("", "[A-C]*", &[]),
        ("", "**/z", &[]),
        ("", ".hdir2/**", &[".hdir2/z"]),
        ("", ".*/**", &[".hdir2/z"]),
        (
            "g",
            "**",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "a/b",
                "a/b/c.txt",
                "a/x.txt",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "sp ace/f",
                "é.txt",
            ],
        ),
        (
            "g",
            "d1/**",
            &[
                "d1/",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
            ],
        ),
        ("g", "**/f1", &["d1/f1"]),
        ("g", "d1/**/", &["d1/", "d1/d2/", "d1/d2/d3/", "d1/uplink/"]),
        (
            "g",
            "**/",
            &[
                "a/",
                "a/b/",
                "d1/",
                "d1/d2/",
                "d1/d2/d3/",
                "d1/uplink/",
                "link_a/",
                "sp ace/",
            ],
        ),
        ("g", "**/*.txt", &["a/b/c.txt", "a/x.txt", "b.txt", "é.txt"]),
        (
            "g",
            "**/f*",
            &["d1/d2/d3/f3", "d1/d2/f2", "d1/f1", "file_link", "sp ace/f"],
        ),
        ("g", "d1/**/f*", &["d1/d2/d3/f3", "d1/d2/f2", "d1/f1"]),
        ("g", "**/d2", &["d1/d2"]),
        ("g", "**/d2/", &["d1/d2/"]),
        (
            "g",
            "**/**",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "a/b",
                "a/b/c.txt",
                "a/x.txt",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "sp ace/f",
                "é.txt",
            ],
        ),
        ("g", "d1/**/**/f3", &["d1/d2/d3/f3"]),
        ("g", "**/uplink/*", &["d1/uplink/b", "d1/uplink/x.txt"]),
        ("g", "a**", &["a"]),
        ("g", "**a", &["a", "link_a"]),
        (
            "g",
            "l*/**",
            &["link_a", "link_a/b", "link_a/b/c.txt", "link_a/x.txt"],
        ),
        (
            "g",
            "link_a/**",
            &["link_a/", "link_a/b", "link_a/b/c.txt", "link_a/x.txt"],
        ),
        (
            "g",
            "d*/**",
            &[
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
            ],
        ),
        (
            "g",
            "[d]1/**",
            &[
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
            ],
        ),
        (
            "g",
            "*/**",
            &[
                "a",
                "a/b",
                "a/b/c.txt",
                "a/x.txt",
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
                "link_a",
                "link_a/b",
                "link_a/b/c.txt",
                "link_a/x.txt",
                "sp ace",
                "sp ace/f",
            ],
        ),
        ("g", "d1/**/d3", &["d1/d2/d3"]),
        ("g", "d1/**/d3/", &["d1/d2/d3/"]),
        ("g", "**/d3/*", &["d1/d2/d3/f3"]),
        (
            "g",
            "d1/**/*",
            &[
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
                "d1/uplink/b",
                "d1/uplink/x.txt",
            ],
        ),
        (
            "g",
            "d1/**/**",
            &[
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
            ],
        ),
        ("g", "**/b/*", &["a/b/c.txt"]),
        (
            "g",
            "./**",
            &[
                "./",
                "./Foo.TXT",
                "./[x",
                "./a",
                "./a/b",
                "./a/b/c.txt",
                "./a/x.txt",
                "./b.txt",
                "./c*d",
                "./cXd",
                "./d1",
                "./d1/d2",
                "./d1/d2/d3",
                "./d1/d2/d3/f3",
                "./d1/d2/f2",
                "./d1/f1",
                "./d1/uplink",
                "./dangling",
                "./file_link",
                "./link_a",
                "./sp ace",
                "./sp ace/f",
                "./é.txt",
            ],
        ),
        ("g", "./**/f2", &["./d1/d2/f2"]),
        ("g", "./**/b", &["./a/b", "./d1/uplink/b", "./link_a/b"]),
        (
            "g",
            "d1//**",
            &[
                "d1//",
                "d1//d2",
                "d1//d2/d3",
                "d1//d2/d3/f3",
                "d1//d2/f2",
                "d1//f1",
                "d1//uplink",
            ],
        ),
        ("g", "d1/**//f1", &["d1/f1"]),
        ("g", "d1//**/f1", &["d1//f1"]),
        ("g", "d1/d2/**/", &["d1/d2/", "d1/d2/d3/"]),
        ("g", "nodir/**", &[]),
        ("g", "**/nodir", &[]),
        ("g", "b.txt/**", &[]),
        ("g", "x**/", &[]),
        ("g", "d?/**/f3", &["d1/d2/d3/f3"]),
        ("g", "d*/**/", &["d1/", "d1/d2/", "d1/d2/d3/", "d1/uplink/"]),
        (
            "g",
            "*/**/",
            &[
                "a/",
                "a/b/",
                "d1/",
                "d1/d2/",
                "d1/d2/d3/",
                "d1/uplink/",
                "link_a/",
                "link_a/b/",
                "sp ace/",
            ],
        ),
        (
            "g",
            "*/**/f*",
            &["d1/d2/d3/f3", "d1/d2/f2", "d1/f1", "sp ace/f"],
        ),
        (
            "g",
            "**/.h*",
            &[".hdir2", ".hidden", "a/.hdir", "a/b/.hid", "d1/.h"],
        ),
        ("g", "**/.*/", &[".hdir2/", "a/.hdir/"]),
        ("g", "a/**/.hid", &["a/b/.hid"]),
        ("g", "**/**/f1", &["d1/f1"]),
        (
            "g",
            "**/*/",
            &[
                "a/",
                "a/b/",
                "d1/",
                "d1/d2/",
                "d1/d2/d3/",
                "d1/uplink/",
                "link_a/",
                "sp ace/",
            ],
        ),
        ("g", "link_a/**/", &["link_a/", "link_a/b/"]),
        ("g", "link_a/**/*.txt", &["link_a/b/c.txt", "link_a/x.txt"]),
        ("g", "**/b", &["a/b"]),
        ("g", "**/b/", &["a/b/"]),
        ("g", "a/**/b", &["a/b"]),
        ("g", "*/**/b", &["a/b", "d1/uplink/b", "link_a/b"]),
        (
            "g",
            "d1//**/",
            &["d1//", "d1//d2/", "d1//d2/d3/", "d1//uplink/"],
        ),
        ("g", "d1//**//f1", &["d1//f1"]),
        ("g", "**//f2", &["d1/d2/f2"]),
        ("g", "d1/**//d2//f2", &["d1/d2/f2"]),
        (
            "g",
            "**//",
            &[
                "a/",
                "a/b/",
                "d1/",
                "d1/d2/",
                "d1/d2/d3/",
                "d1/uplink/",
                "link_a/",
                "sp ace/",
            ],
        ),
        (
            "g",
            "d1/**//",
            &["d1/", "d1/d2/", "d1/d2/d3/", "d1/uplink/"],
        ),
        (
            "g",
            "d1/**///",
            &["d1/", "d1/d2/", "d1/d2/d3/", "d1/uplink/"],
        ),
        (
            "g",
            "*/**//",
            &[
                "a/",
                "a/b/",
                "d1/",
                "d1/d2/",
                "d1/d2/d3/",
                "d1/uplink/",
                "link_a/",
                "link_a/b/",
                "sp ace/",
            ],
        ),
        ("g", "**/z", &[]),
        ("g", ".hdir2/**", &[".hdir2/", ".hdir2/z"]),
        ("g", ".*/**", &[".hdir2", ".hdir2/z"]),
        (
            "d",
            "*",
            &[
                ".hdir2",
                ".hidden",
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("d", "a/*", &["a/.hdir", "a/b", "a/x.txt"]),
        ("d", ".*", &[".hdir2", ".hidden"]),
        ("d", "*/", &[".hdir2/", "a/", "d1/", "link_a/", "sp ace/"]),
        ("d", "a/.*", &["a/.hdir"]),
        (
            "d",
            "**",
            &[
                ".hdir2",
                ".hidden",
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("d", "d1/**", &["d1/.h", "d1/d2", "d1/f1", "d1/uplink"]),
        ("n", "foo*", &["Foo.TXT"]),
        ("n", "A/X*", &[]),
        ("n", "A/*", &[]),
        ("n", "[A-C]*", &["a", "b.txt", "c*d", "cXd"]),
        ("n", "*.TXT", &["Foo.TXT", "b.txt", "é.txt"]),
        ("n", "*.txt", &["Foo.TXT", "b.txt", "é.txt"]),
        ("e", "@(a|b.txt)", &["a", "b.txt"]),
        (
            "e",
            "!(a|b.txt)",
            &[
                "Foo.TXT",
                "[x",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        (
            "e",
            "!(*.txt)",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
            ],
        ),
        ("e", "@(.*)", &[".hdir2", ".hidden"]),
        ("e", "@(.hidden|a)", &[".hidden", "a"]),
        (
            "e",
            "!(.hidden)",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("e", "*(.)hidden", &[".hidden"]),
        ("e", "?(.)hidden", &[".hidden"]),
        (
            "e",
            "+(?)",
            &[
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("e", "a/@(b|x.txt)", &["a/b", "a/x.txt"]),
        ("e", "@(a)/*", &["a/b", "a/x.txt"]),
        ("e", "*.@(txt|TXT)", &["Foo.TXT", "b.txt", "é.txt"]),
        (
            "e",
            "!(*.*)",
            &[
                "[x",
                "a",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
            ],
        ),
        ("e", ".!(hidden)", &[".hdir2"]),
        ("e", "**/@(f1|f2)", &["d1/f1"]),
        ("e", "@(d1)/**", &["d1/d2", "d1/f1", "d1/uplink"]),
        (
            "de",
            "!(a|b.txt)",
            &[
                ".hdir2",
                ".hidden",
                "Foo.TXT",
                "[x",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("de", "@(.*)", &[".hdir2", ".hidden"]),
        (
            "de",
            "!(.hidden)",
            &[
                ".hdir2",
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        ("de", "*(.)hidden", &[".hidden"]),
        (
            "de",
            "+(?)",
            &[
                ".hdir2",
                ".hidden",
                "Foo.TXT",
                "[x",
                "a",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "é.txt",
            ],
        ),
        (
            "dg",
            "**",
            &[
                ".hdir2",
                ".hdir2/z",
                ".hidden",
                "Foo.TXT",
                "[x",
                "a",
                "a/.hdir",
                "a/.hdir/y.txt",
                "a/b",
                "a/b/.hid",
                "a/b/c.txt",
                "a/x.txt",
                "b.txt",
                "c*d",
                "cXd",
                "d1",
                "d1/.h",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
                "dangling",
                "file_link",
                "link_a",
                "sp ace",
                "sp ace/f",
                "é.txt",
            ],
        ),
        (
            "dg",
            "**/",
            &[
                ".hdir2/",
                "a/",
                "a/.hdir/",
                "a/b/",
                "d1/",
                "d1/d2/",
                "d1/d2/d3/",
                "d1/uplink/",
                "link_a/",
                "sp ace/",
            ],
        ),
        ("dg", "**/z", &[".hdir2/z"]),
        (
            "dg",
            "d1/**",
            &[
                "d1/",
                "d1/.h",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
            ],
        ),
        ("dg", ".hdir2/**", &[".hdir2/", ".hdir2/z"]),
        ("dg", "**/.*/", &[".hdir2/", "a/.hdir/"]),
        ("eg", "**/@(f1|f2)", &["d1/d2/f2", "d1/f1"]),
        (
            "eg",
            "@(d1)/**",
            &[
                "d1",
                "d1/d2",
                "d1/d2/d3",
                "d1/d2/d3/f3",
                "d1/d2/f2",
                "d1/f1",
                "d1/uplink",
            ],
        ),
    ];
}
