//! The files a command changes without naming them: those below the directories `chmod -R`
//! and `gzip -r` go through, the name `gunzip -N` takes from inside each file, and those
//! named in the script files of sed and awk. Only the ones with a sensitive name are decided:
//! the write to the directory itself is decided with the command's arguments, and the
//! sandbox holds every write to the write roots.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::decide::args::{Beyond, Change, Reading, Touch};
use crate::decide::scripts;

use super::Shell;

/// How many entries rsh looks through below a command's directories before it refuses the
/// command instead (a `chmod -R` of a home directory full of caches).
const MOST_ENTRIES: usize = 100_000;

impl Shell {
    /// The files below the directories a command goes through, and those it restores under
    /// the names they hold, that have a sensitive name; Err when there are too many to look
    /// at.
    pub(crate) fn changed_beyond(&self, beyond: &Beyond) -> Result<Vec<Touch>, String> {
        if self.policy().sensitive().is_empty() {
            return Ok(Vec::new());
        }
        let mut walk = Walk {
            shell: self,
            beyond,
            flat: beyond
                .flat
                .as_ref()
                .map(|dir| self.absolute(Path::new(dir))),
            mirror: beyond
                .mirror
                .as_ref()
                .map(|dir| self.absolute(Path::new(dir))),
            seen: 0,
            visited: Vec::new(),
            touches: Vec::new(),
        };
        for operand in &beyond.operands {
            let path = self.absolute(Path::new(operand));
            // The operand as the command finds it (below it, links are followed only where
            // the command follows them: `Beyond::follows`).
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            walk.visit(operand, &path, true)
                .map_err(|stop| match stop {
                    Stop::TooMany => format!(
                        "more than {MOST_ENTRIES} files below {operand}: too many to look through \
                     for sensitive names; name the directories it should go through"
                    ),
                    Stop::Unreadable(file) => format!(
                        "{file}: the name it holds cannot be read (gunzip -N would restore it)"
                    ),
                })?;
        }
        Ok(walk.touches)
    }

    /// The files named inside the script files sed, awk or jq (named `name`) is given
    /// (`-f FILE`), read now, as those named on the command line are. Err when one cannot be
    /// read whole before the command runs: rsh would not know what the script does.
    pub(crate) fn named_in_script_files(
        &self,
        name: &str,
        reading: &Reading,
    ) -> Result<Vec<Touch>, String> {
        let mut touches = Vec::new();
        let jq = name == "jq";
        if self.policy().sensitive().is_empty() || (!jq && reading.script_files.is_empty()) {
            return Ok(touches);
        }
        // jq also looks in ~/.jq (HOME as the shell has it, and the policy's), and reads
        // ~/.jq itself when it is a file.
        let homes = [self.vars.value("HOME").map(Path::new), Some(self.home())];
        let home_jqs: Vec<String> = homes
            .into_iter()
            .flatten()
            .filter(|_| jq)
            .map(|home| home.join(".jq").to_string_lossy().into_owned())
            .collect();
        let mut search: Vec<&str> = reading.search.iter().map(String::as_str).collect();
        if jq {
            search.extend(home_jqs.iter().map(String::as_str));
            for program in &reading.programs {
                touches.extend(scripts::jq_files(program, &search));
            }
        }
        for file in &reading.script_files {
            let text = self.read_first(file).map_err(|why| {
                format!("{file}: {why}: {name}'s script cannot be looked at before it runs")
            })?;
            let text = String::from_utf8_lossy(&text);
            touches.extend(match name {
                "sed" => scripts::sed_files(&text),
                "jq" => scripts::jq_files(&text, &search),
                _ => scripts::awk_files(&text, &[], reading.loads),
            });
        }
        if jq {
            let libraries: Vec<Touch> = home_jqs
                .iter()
                .map(|path| Touch {
                    path: path.clone(),
                    write: false,
                    look: false,
                })
                .collect();
            let seeds = reading.touches.iter().chain(&touches).chain(&libraries);
            let found = self.named_in_jq_modules(&search, seeds)?;
            touches.extend(found);
        }
        Ok(touches)
    }

    /// The files named by the jq modules among `touches` that are there, and by the modules
    /// they import in turn (`search` is jq's `-L` path; a module's own directory is searched
    /// too).
    fn named_in_jq_modules<'a>(
        &self,
        search: &[&str],
        touches: impl Iterator<Item = &'a Touch>,
    ) -> Result<Vec<Touch>, String> {
        let module = |path: &String| path.ends_with(".jq");
        let mut queue: Vec<String> = touches.map(|t| t.path.clone()).filter(module).collect();
        let mut seen = std::collections::HashSet::new();
        let mut found = Vec::new();
        while let Some(file) = queue.pop() {
            if !self.absolute(Path::new(&file)).is_file() || !seen.insert(file.clone()) {
                continue;
            }
            if seen.len() > MOST_MODULES {
                return Err(format!(
                    "more than {MOST_MODULES} jq modules: too many to look through"
                ));
            }
            let text = self.read_first(&file).map_err(|why| {
                format!("{file}: {why}: the jq module cannot be looked at before it runs")
            })?;
            let dir = file.rsplit_once('/').map_or(".", |(dir, _)| dir);
            let dirs: Vec<&str> = search.iter().copied().chain([dir]).collect();
            let named = scripts::jq_files(&String::from_utf8_lossy(&text), &dirs);
            queue.extend(named.iter().map(|t| t.path.clone()).filter(module));
            found.extend(named);
        }
        Ok(found)
    }

    /// The text of `file`, a script or a list of files a command is given, read before the
    /// command runs: a regular file of at most `LONGEST_SCRIPT` bytes. A pipe or a terminal
    /// (`-f -`, `-f /dev/stdin`, `-f <(...)`) is the program's to read, and would keep rsh
    /// waiting.
    pub(crate) fn read_first(&self, file: &str) -> Result<Vec<u8>, String> {
        use std::os::unix::fs::OpenOptionsExt;
        if file == "-" {
            return Err("it is read from standard input".to_owned());
        }
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(self.absolute(Path::new(file)))
            .map_err(|e| crate::spawn::fd::io_message(&e))?;
        let meta = opened
            .metadata()
            .map_err(|e| crate::spawn::fd::io_message(&e))?;
        if !meta.is_file() {
            return Err("not a regular file".to_owned());
        }
        let too_long = || format!("longer than {} MiB", LONGEST_SCRIPT >> 20);
        if meta.len() > LONGEST_SCRIPT {
            return Err(too_long());
        }
        let mut text = Vec::new();
        opened
            .take(LONGEST_SCRIPT + 1)
            .read_to_end(&mut text)
            .map_err(|e| crate::spawn::fd::io_message(&e))?;
        // It may have grown since it was looked at.
        if text.len() as u64 > LONGEST_SCRIPT {
            return Err(too_long());
        }
        Ok(text)
    }
}

/// How many jq modules rsh looks into for the files they import.
const MOST_MODULES: usize = 64;

/// The longest script or list of files rsh reads for the files it names.
const LONGEST_SCRIPT: u64 = 1 << 20;

struct Walk<'a> {
    shell: &'a Shell,
    beyond: &'a Beyond,
    /// `Beyond::flat`, where the command is run.
    flat: Option<PathBuf>,
    /// `Beyond::mirror`, where the command is run.
    mirror: Option<PathBuf>,
    seen: usize,
    /// The directories gone through (device, inode): a link back up is not followed again.
    visited: Vec<(u64, u64)>,
    touches: Vec<Touch>,
}

/// Why a walk stopped before its end.
enum Stop {
    TooMany,
    /// A gzip file whose stored name could not be read.
    Unreadable(String),
}

impl Walk<'_> {
    /// `path`, shown as `shown`: a directory is gone through when the command is recursive,
    /// a file looked at for the names it gets.
    fn visit(&mut self, shown: &str, path: &Path, top: bool) -> Result<(), Stop> {
        let meta = match self.beyond.follows {
            true => path.metadata(),
            false => path.symlink_metadata(),
        };
        let Ok(meta) = meta else {
            return Ok(());
        };
        if meta.is_dir() {
            use std::os::unix::fs::MetadataExt;
            let id = (meta.dev(), meta.ino());
            if self.beyond.recursive && !self.visited.contains(&id) {
                self.visited.push(id);
                // Through a link, the names below are those of where it leads.
                let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                self.go_through(shown, &real)?;
            }
            return Ok(());
        }
        if meta.is_file() {
            self.changes(shown, path, top)?;
        }
        Ok(())
    }

    /// Stops when there are more than `MOST_ENTRIES` entries to go through.
    fn go_through(&mut self, shown: &str, dir: &Path) -> Result<(), Stop> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            self.seen += 1;
            if self.seen > MOST_ENTRIES {
                return Err(Stop::TooMany);
            }
            let name = entry.file_name();
            let shown = format!("{}/{}", shown.trim_end_matches('/'), name.to_string_lossy());
            self.visit(&shown, &dir.join(&name), false)?;
        }
        Ok(())
    }

    /// The names the command writes for the file at `path` (a file it names itself, `top`,
    /// is decided with its arguments already), each kept when it is sensitive.
    fn changes(&mut self, shown: &str, path: &Path, top: bool) -> Result<(), Stop> {
        let mut written: Vec<(String, PathBuf)> = Vec::new();
        let whole = path.to_string_lossy().into_owned();
        // The name with `from` taken off its end and `to` put on, as shown and as it is.
        let renamed = |from: &str, to: &str| -> Option<(String, PathBuf)> {
            let shown_stem = shown.strip_suffix(from)?;
            let stem = whole.strip_suffix(from).filter(|s| !s.ends_with('/'))?;
            Some((
                format!("{shown_stem}{to}"),
                PathBuf::from(format!("{stem}{to}")),
            ))
        };
        let itself = (shown.to_owned(), path.to_path_buf());
        match &self.beyond.change {
            Change::Attributes if !top => written.push(itself),
            Change::Attributes => {}
            // Replaced by its compressed copy, unless it has the suffix already.
            Change::Compressed { suffix } if !top && !whole.ends_with(suffix.as_str()) => {
                written.extend(renamed("", suffix));
                written.push(itself);
            }
            Change::Compressed { .. } => {}
            Change::Uncompressed { suffixes } => {
                // Only a name with a suffix it knows is uncompressed (and then removed).
                let names: Vec<_> = suffixes
                    .iter()
                    .filter_map(|(suffix, ending)| renamed(suffix, ending))
                    .collect();
                if !top && !names.is_empty() {
                    written.extend(names);
                    written.push(itself);
                }
                if self.beyond.stored_names {
                    let stored = stored_name(path).map_err(|()| Stop::Unreadable(shown.into()))?;
                    if let Some(stored) = stored {
                        let dir = path.parent().unwrap_or(Path::new("/"));
                        let shown_dir = shown.rsplit_once('/').map_or(".", |(d, _)| d);
                        written.push((format!("{shown_dir}/{stored}"), dir.join(&stored)));
                    }
                }
            }
        }
        // zstd --output-dir-flat: the new files go there instead.
        if let Some(dir) = &self.flat {
            let moved: Vec<_> = written
                .iter()
                .filter_map(|(_, path)| path.file_name())
                .map(|name| {
                    let path = dir.join(name);
                    (path.to_string_lossy().into_owned(), path)
                })
                .collect();
            written.extend(moved);
        }
        // --output-dir-mirror: there under the name as the command was given it.
        if let Some(dir) = &self.mirror {
            let moved: Vec<_> = written
                .iter()
                .map(|(shown, _)| {
                    let path = dir.join(shown.trim_start_matches("./").trim_start_matches('/'));
                    (path.to_string_lossy().into_owned(), path)
                })
                .collect();
            written.extend(moved);
        }
        let sensitive = self.shell.policy().sensitive();
        for (shown, path) in written {
            let dir = || path.is_dir();
            if sensitive
                .level(&path, self.shell.home(), true, &dir)
                .is_some()
            {
                self.touches.push(Touch {
                    path: shown,
                    write: true,
                    look: false,
                });
            }
        }
        Ok(())
    }
}

/// The name a gzip file holds (its header's FNAME), without any directory: what `gunzip -N`
/// restores it as. None when it holds none (or is no gzip file); Err when it says it holds one that cannot
/// be read in full (past the extra field's 64 KiB, a name of more than 64 KiB).
fn stored_name(path: &Path) -> Result<Option<String>, ()> {
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    let mut head = Vec::new();
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(None);
    };
    file.take(10 + 2 + 65_535 + 65_536)
        .read_to_end(&mut head)
        .map_err(|_| ())?;
    if head.get(..3) != Some(&[0x1f, 0x8b, 8][..]) || head.len() < 10 {
        return Ok(None);
    }
    let flags = head[3];
    if flags & FNAME == 0 {
        return Ok(None);
    }
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let length = head.get(at..at + 2).ok_or(())?;
        at += 2 + usize::from(u16::from_le_bytes([length[0], length[1]]));
    }
    let name = head.get(at..).ok_or(())?;
    let end = name.iter().position(|&b| b == 0).ok_or(())?;
    let name = String::from_utf8_lossy(&name[..end]);
    let last = name.rsplit('/').next().unwrap_or_default();
    Ok((!last.is_empty() && last != "." && last != "..").then(|| last.to_owned()))
}
