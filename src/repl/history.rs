//! The history file: one entry per line, a line break inside an entry written `\n` and a
//! backslash `\\`. Opened without following a symbolic link, so that a link planted where
//! the file goes cannot make rsh append typed commands to another file (rsh writes it itself,
//! outside the confinement of the programs it runs).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::interp::Shell;

pub struct HistoryFile {
    path: PathBuf,
    /// Set once a problem was reported: one warning per session.
    warned: bool,
}

impl HistoryFile {
    /// The file `[shell] history` names, `~/` being the user's home directory; None when
    /// the policy keeps no history file, or no history at all.
    pub fn for_shell(shell: &Shell) -> Option<HistoryFile> {
        let session = shell.policy().session();
        if session.history_size == 0 {
            return None;
        }
        let written = session.history.as_deref()?;
        let path = match written.strip_prefix("~/") {
            Some(rest) => shell.home().join(rest),
            None => PathBuf::from(written),
        };
        Some(HistoryFile {
            path,
            warned: false,
        })
    }

    /// Fills the shell's history from the file (a missing file is an empty history). A file
    /// much longer than the history size is cut down to it.
    pub fn load(&mut self, shell: &mut Shell) {
        let text = match read_own_file(&self.path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return,
            Err(err) => return self.warn(&err.to_string()),
        };
        let entries: Vec<String> = text.lines().map(decode).collect();
        for entry in &entries {
            shell.history.add(entry);
        }
        let size = shell.policy().session().history_size;
        if entries.len() > size + size / 2 + 1 {
            let kept: Vec<&str> = shell.history.entries().collect();
            if let Err(err) = rewrite(&self.path, &kept) {
                self.warn(&err.to_string());
            }
        }
    }

    pub fn append(&mut self, entry: &str) {
        let mut line = encode(entry);
        line.push('\n');
        let written = open_for_append(&self.path).and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(err) = written {
            self.warn(&err.to_string());
        }
    }

    fn warn(&mut self, why: &str) {
        if !self.warned {
            self.warned = true;
            crate::spawn::fd::write_all(
                2,
                format!(
                    "rsh: history file {}: {why}; history is kept for this session only\n",
                    self.path.display()
                )
                .as_bytes(),
            )
            .ok();
        }
    }
}

fn open_for_append(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    check_own(&file)?;
    Ok(file)
}

fn read_own_file(path: &Path) -> std::io::Result<String> {
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)?;
    check_own(&file)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A regular file of the user's (not a FIFO that would block, nor someone else's file).
fn check_own(file: &File) -> std::io::Result<()> {
    let meta = file.metadata()?;
    let uid = nix::unistd::getuid().as_raw();
    if !meta.is_file() || meta.uid() != uid {
        return Err(std::io::Error::other(
            "not a regular file owned by the user",
        ));
    }
    Ok(())
}

/// Replaces the file with `entries`, through a new file renamed over it.
fn rewrite(path: &Path, entries: &[&str]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".new");
    let temporary = PathBuf::from(temporary);
    let _ = std::fs::remove_file(&temporary);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temporary)?;
    let mut text = String::new();
    for entry in entries {
        text.push_str(&encode(entry));
        text.push('\n');
    }
    file.write_all(text.as_bytes())?;
    std::fs::rename(&temporary, path)
}

fn encode(entry: &str) -> String {
    entry.replace('\\', "\\\\").replace('\n', "\\n")
}

fn decode(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some('n')) => {
                out.push('\n');
                chars.next();
            }
            ('\\', Some('\\')) => {
                out.push('\\');
                chars.next();
            }
            (c, _) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_with_line_breaks_and_backslashes_round_trip() {
        for entry in [
            "ls",
            "for i in 1 2\ndo echo $i\ndone",
            "printf 'a\\nb'",
            "x\\",
        ] {
            assert_eq!(decode(&encode(entry)), entry);
            assert!(!encode(entry).contains('\n'));
        }
    }

    #[test]
    fn a_symbolic_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "").unwrap();
        let link = dir.path().join("history");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(open_for_append(&link).is_err());
        assert!(read_own_file(&link).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
    }
}
