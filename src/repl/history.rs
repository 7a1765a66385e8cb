//! The history file: one entry per line, a line break inside an entry written `\n` and a
//! backslash `\\`. rsh writes it itself, outside the confinement of the programs it runs, so
//! it is careful about what it opens: no symbolic link anywhere on the way (symbolic links
//! in the directory part must be root's, and are resolved once at start), only a regular
//! file of the user's with no other name (a hard link to `.bashrc` would otherwise receive
//! typed commands), and never a FIFO that would block. On any problem the file is given up
//! for the session, with one warning.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use nix::fcntl::OFlag;

use crate::interp::Shell;

pub struct HistoryFile {
    /// With its directory part canonical; None once given up.
    path: Option<PathBuf>,
    shown: PathBuf,
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
        let shown = match written.strip_prefix("~/") {
            Some(rest) => shell.home().join(rest),
            None => PathBuf::from(written),
        };
        let mut file = HistoryFile {
            path: None,
            shown: shown.clone(),
        };
        match canonical_dir(&shown) {
            Ok(path) => file.path = Some(path),
            Err(why) => file.give_up(&why),
        }
        Some(file)
    }

    /// Fills the shell's history from the file (a missing file is an empty history). A file
    /// much longer than the history size is cut down to it.
    pub fn load(&mut self, shell: &mut Shell) {
        let Some(path) = &self.path else { return };
        let mut file = match open(path, OFlag::O_RDWR) {
            Ok(file) => file,
            Err(Refused::Missing) => return,
            Err(refused) => return self.give_up(refused.why()),
        };
        let mut bytes = Vec::new();
        if let Err(err) = file.read_to_end(&mut bytes) {
            return self.give_up(&err.to_string());
        }
        let text = String::from_utf8_lossy(&bytes);
        let entries: Vec<String> = text.lines().map(decode).collect();
        for entry in &entries {
            shell.history.add(entry);
        }
        shell.history.renumber();
        let size = shell.policy().session().history_size;
        if entries.len() > size + size / 2 + 1 {
            let mut kept = String::new();
            for entry in shell.history.entries() {
                kept.push_str(&encode(entry));
                kept.push('\n');
            }
            let cut = file
                .set_len(0)
                .and_then(|()| file.rewind())
                .and_then(|()| file.write_all(kept.as_bytes()));
            if let Err(err) = cut {
                self.give_up(&err.to_string());
            }
        }
    }

    pub fn append(&mut self, entry: &str) {
        let Some(path) = &self.path else { return };
        let mut line = encode(entry);
        line.push('\n');
        let flags = OFlag::O_WRONLY | OFlag::O_APPEND | OFlag::O_CREAT;
        let written = match open(path, flags) {
            Ok(mut file) => file.write_all(line.as_bytes()).map_err(|e| e.to_string()),
            Err(refused) => Err(refused.why().to_string()),
        };
        if let Err(why) = written {
            self.give_up(&why);
        }
    }

    fn give_up(&mut self, why: &str) {
        self.path = None;
        let message = format!(
            "rsh: history file {}: {why}; history is kept for this session only\n",
            self.shown.display()
        );
        crate::spawn::fd::write_all(2, message.as_bytes()).ok();
    }
}

/// `path` with its directory resolved, where every symbolic link on the way is root's (as
/// `/home` pointing elsewhere may be): a link of the user's could send the file anywhere.
fn canonical_dir(path: &Path) -> Result<PathBuf, String> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err("not a file name".to_string());
    };
    let mut walked = PathBuf::new();
    for component in dir.components() {
        walked.push(component);
        if matches!(component, Component::ParentDir) {
            return Err("the path may not contain ..".to_string());
        }
        let meta = std::fs::symlink_metadata(&walked).map_err(|e| e.to_string())?;
        if meta.file_type().is_symlink() && meta.uid() != 0 {
            return Err(format!(
                "{} is a symbolic link of the user's",
                walked.display()
            ));
        }
    }
    let dir = std::fs::canonicalize(dir).map_err(|e| e.to_string())?;
    Ok(dir.join(name))
}

/// Opens the history file, following no symbolic link and blocking on nothing; it must be
/// a regular file of the user's with one name.
fn open(path: &Path, flags: OFlag) -> Result<File, Refused> {
    let flags = flags | OFlag::O_CLOEXEC | OFlag::O_NOCTTY | OFlag::O_NONBLOCK | OFlag::O_NOFOLLOW;
    let mode = if flags.contains(OFlag::O_CREAT) {
        nix::sys::stat::Mode::from_bits_truncate(0o600)
    } else {
        nix::sys::stat::Mode::empty()
    };
    let fd: OwnedFd = match crate::spawn::fd::open_without_links(path, flags, mode) {
        Ok(fd) => fd,
        Err(nix::errno::Errno::ENOENT) => return Err(Refused::Missing),
        Err(nix::errno::Errno::ELOOP) => {
            return Err(Refused::Because("a symbolic link is on the way".into()));
        }
        Err(errno) => return Err(Refused::Because(crate::errno_text(errno))),
    };
    let file = File::from(fd);
    let meta = file
        .metadata()
        .map_err(|e| Refused::Because(e.to_string()))?;
    let own = meta.uid() == nix::unistd::getuid().as_raw();
    if !meta.is_file() || !own || meta.nlink() != 1 {
        return Err(Refused::Because(
            "not a regular file of the user's with a single name".into(),
        ));
    }
    Ok(file)
}

enum Refused {
    Missing,
    Because(String),
}

impl Refused {
    fn why(&self) -> &str {
        match self {
            Refused::Missing => "No such file or directory",
            Refused::Because(why) => why,
        }
    }
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

    const APPEND: OFlag = OFlag::O_WRONLY.union(OFlag::O_APPEND).union(OFlag::O_CREAT);

    #[test]
    fn links_and_fifos_are_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bashrc");
        std::fs::write(&target, "").unwrap();
        let symlink = dir.path().join("symlink");
        std::os::unix::fs::symlink(&target, &symlink).unwrap();
        let hardlink = dir.path().join("hardlink");
        std::fs::hard_link(&target, &hardlink).unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        for path in [&symlink, &hardlink, &fifo] {
            assert!(open(path, APPEND).is_err(), "{}", path.display());
        }
        // A directory on the way that is a link.
        let via = dir.path().join("via");
        std::os::unix::fs::symlink(dir.path(), &via).unwrap();
        assert!(open(&via.join("new"), APPEND).is_err());
        assert!(!dir.path().join("new").exists());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
        assert!(open(&dir.path().join("plain"), APPEND).is_ok());
    }

    #[test]
    fn a_directory_link_of_the_users_is_refused_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let via = dir.path().join("via");
        std::os::unix::fs::symlink(dir.path(), &via).unwrap();
        let root_owned = std::fs::symlink_metadata(&via).unwrap().uid() == 0;
        let resolved = canonical_dir(&via.join("history"));
        if root_owned {
            // Tests run as root: the link is root's, so it is resolved.
            assert_eq!(
                resolved.unwrap(),
                dir.path().canonicalize().unwrap().join("history")
            );
        } else {
            assert!(resolved.is_err());
        }
        assert!(canonical_dir(&dir.path().join("../x/history")).is_err());
    }
}
