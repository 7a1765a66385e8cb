//! Redirections, applied to the shell's own descriptors and undone afterwards.
//!
//! Builtins, functions and compound commands run in-process, so their redirections must be
//! undone when they finish; external commands simply inherit the redirected descriptors.
//! Saved originals are close-on-exec copies numbered 10 and up, so they never leak into a
//! child.

use std::fs::OpenOptions;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::expand::{self, ExpandError};
use crate::parse::{RedirOp, Redirect};
use crate::spawn::fd;

use super::{Outcome, Shell};

/// Descriptors a set of redirections replaced, to put back afterwards.
#[derive(Default)]
pub(crate) struct Saved {
    entries: Vec<(RawFd, Option<OwnedFd>)>,
}

impl Saved {
    fn remember(&mut self, target: RawFd) -> Result<(), RedirectFailure> {
        if self.entries.iter().any(|(t, _)| *t == target) {
            return Ok(());
        }
        let copy = fd::save(target, 10).map_err(|e| {
            RedirectFailure::Message(format!("{target}: cannot save descriptor: {}", e.desc()))
        })?;
        self.entries.push((target, copy));
        Ok(())
    }

    /// `exec >file`: keep the new descriptors, drop the saved copies.
    pub(crate) fn forget(self) {}
}

/// Why `read_for_command` read nothing.
pub(crate) enum ReadError {
    /// The file rules refuse it: the whole message.
    Denied(String),
    /// An I/O error, to be prefixed with the file name.
    Io(String),
}

pub(crate) enum RedirectFailure {
    /// An expansion error in the target: as fatal as anywhere else.
    Expand(ExpandError),
    /// Everything else: the command fails with status 1.
    Message(String),
}

impl Shell {
    pub(crate) fn apply_redirects(
        &mut self,
        redirects: &[Redirect],
    ) -> Result<Saved, RedirectFailure> {
        let mut saved = Saved::default();
        for redirect in redirects {
            if let Err(failure) = self.apply_one(redirect, &mut saved) {
                self.restore_redirects(saved);
                return Err(failure);
            }
        }
        Ok(saved)
    }

    pub(crate) fn restore_redirects(&mut self, saved: Saved) {
        for (target, original) in saved.entries.into_iter().rev() {
            match original {
                Some(copy) => {
                    let _ = fd::dup_to(copy.as_raw_fd(), target);
                }
                None => fd::close(target),
            }
        }
    }

    pub(crate) fn fail_redirect(&mut self, failure: RedirectFailure) -> Outcome {
        match failure {
            RedirectFailure::Expand(err) => self.expansion_failed(err),
            RedirectFailure::Message(message) => {
                self.error(&message);
                self.last_status = 1;
                Ok(1)
            }
        }
    }

    fn apply_one(&mut self, redirect: &Redirect, saved: &mut Saved) -> Result<(), RedirectFailure> {
        let default_fd = match redirect.op {
            RedirOp::Read
            | RedirOp::ReadWrite
            | RedirOp::DupRead
            | RedirOp::HereDoc
            | RedirOp::HereString => 0,
            _ => 1,
        };
        let target = redirect.fd.unwrap_or(default_fd);
        match redirect.op {
            RedirOp::HereDoc => {
                let body =
                    expand::heredoc(self, &redirect.target).map_err(RedirectFailure::Expand)?;
                self.install_data(body.as_bytes(), target, saved)
            }
            RedirOp::HereString => {
                let mut text =
                    expand::string(self, &redirect.target).map_err(RedirectFailure::Expand)?;
                text.push('\n');
                self.install_data(text.as_bytes(), target, saved)
            }
            RedirOp::DupRead | RedirOp::DupWrite => self.duplicate(redirect, target, saved),
            _ => {
                let path = expand::redirect_target(self, &redirect.target)
                    .map_err(RedirectFailure::Expand)?;
                self.open_file(&path, redirect.op, redirect.fd, saved)
            }
        }
    }

    fn install_data(
        &self,
        data: &[u8],
        target: RawFd,
        saved: &mut Saved,
    ) -> Result<(), RedirectFailure> {
        // Save first: the new file may get the target's number if it is closed.
        saved.remember(target)?;
        let file = fd::memory_file(data).map_err(|e| {
            RedirectFailure::Message(format!("cannot make a here-document: {}", e.desc()))
        })?;
        fd::install(file, target)
            .map_err(|e| RedirectFailure::Message(format!("{target}: {}", e.desc())))
    }

    fn open_file(
        &mut self,
        path: &str,
        op: RedirOp,
        fd_given: Option<RawFd>,
        saved: &mut Saved,
    ) -> Result<(), RedirectFailure> {
        let targets: Vec<RawFd> = match (op, fd_given) {
            (RedirOp::WriteBoth | RedirOp::AppendBoth, _) => vec![1, 2],
            (_, Some(fd)) => vec![fd],
            (RedirOp::Read | RedirOp::ReadWrite, None) => vec![0],
            (_, None) => vec![1],
        };
        // Save first: the file about to be opened may get one of the target numbers.
        for &target in &targets {
            saved.remember(target)?;
        }
        let file = self.open_target(path, op)?;
        for &target in &targets {
            fd::dup_to(file.as_raw_fd(), target)
                .map_err(|e| RedirectFailure::Message(format!("{target}: {}", e.desc())))?;
        }
        if targets.contains(&file.as_raw_fd()) {
            // The file already sits on its target descriptor: closing it would undo that.
            std::mem::forget(file);
        }
        Ok(())
    }

    /// Opens a redirection's file. rsh opens it for the command, so the command's file
    /// rules (`[paths]`) are checked here, by rsh: on the path before a write (nothing is
    /// created or truncated outside the write roots), and on the file actually opened (symbolic
    /// links resolved by the kernel) before anything is read or truncated.
    fn open_target(&mut self, path: &str, op: RedirOp) -> Result<OwnedFd, RedirectFailure> {
        let mut options = OpenOptions::new();
        options.custom_flags(libc::O_CLOEXEC).mode(0o666);
        let mut truncate = false;
        match op {
            RedirOp::Read => options.read(true),
            RedirOp::ReadWrite => options.read(true).write(true).create(true),
            RedirOp::Append | RedirOp::AppendBoth => options.append(true).create(true),
            RedirOp::Write | RedirOp::WriteBoth if self.options.noclobber => {
                if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
                    return Err(RedirectFailure::Message(format!(
                        "{path}: cannot overwrite existing file"
                    )));
                }
                truncate = true;
                options.write(true).create(true)
            }
            _ => {
                truncate = true;
                options.write(true).create(true)
            }
        };
        if path.is_empty() {
            return Err(RedirectFailure::Message(
                ": No such file or directory".to_string(),
            ));
        }
        let write = op != RedirOp::Read;
        if write {
            self.check_path(path, &would_open(&self.absolute(Path::new(path))), true)?;
        }
        let file = options
            .open(path)
            .map(OwnedFd::from)
            .map_err(|e| RedirectFailure::Message(format!("{path}: {}", io_message(&e))))?;
        if let Some(opened) = fd::path_of(file.as_raw_fd()) {
            self.check_path(path, &opened, write)?;
        }
        // Truncation waits for the checks: a refused file is left as it was.
        let is_regular =
            nix::sys::stat::fstat(&file).is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFREG);
        if truncate && is_regular {
            fd::truncate(file.as_raw_fd())
                .map_err(|e| RedirectFailure::Message(format!("{path}: {}", e.desc())))?;
        }
        Ok(file)
    }

    /// Reads a whole file rsh reads for the commands it runs (`source`, a script without `#!`,
    /// `$(< file)`), under the same file rules as a redirection.
    pub(crate) fn read_for_command(&mut self, path: &str) -> Result<Vec<u8>, ReadError> {
        use std::io::Read;
        let io = |e: std::io::Error| ReadError::Io(io_message(&e));
        let mut file = std::fs::File::open(path).map_err(io)?;
        if let Some(opened) = fd::path_of(file.as_raw_fd()) {
            let sandbox = self.sandbox().map_err(ReadError::Denied)?;
            sandbox
                .permits(&opened, false)
                .map_err(|why| ReadError::Denied(format!("denied: {path}: {why}")))?;
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        Ok(bytes)
    }

    fn check_path(
        &mut self,
        shown: &str,
        canonical: &Path,
        write: bool,
    ) -> Result<(), RedirectFailure> {
        let sandbox = self.sandbox().map_err(RedirectFailure::Message)?;
        sandbox
            .permits(canonical, write)
            .map_err(|why| RedirectFailure::Message(format!("denied: {shown}: {why}")))
    }

    /// `N>&M`, `N<&M`, `N>&M-` (move), `N>&-` (close), and `>&file` (same as `&>file`).
    fn duplicate(
        &mut self,
        redirect: &Redirect,
        target: RawFd,
        saved: &mut Saved,
    ) -> Result<(), RedirectFailure> {
        let word =
            expand::redirect_target(self, &redirect.target).map_err(RedirectFailure::Expand)?;
        if word == "-" {
            saved.remember(target)?;
            fd::close(target);
            return Ok(());
        }
        let (number, moving) = match word.strip_suffix('-') {
            Some(n) => (n, true),
            None => (word.as_str(), false),
        };
        if let Ok(source) = number.parse::<RawFd>() {
            let usable = match redirect.op {
                RedirOp::DupRead => fd::is_readable(source),
                _ => fd::is_writable(source),
            };
            if !fd::is_open(source) || !usable {
                return Err(RedirectFailure::Message(format!(
                    "{number}: Bad file descriptor"
                )));
            }
            saved.remember(target)?;
            fd::dup_to(source, target)
                .map_err(|e| RedirectFailure::Message(format!("{number}: {}", e.desc())))?;
            if moving && source != target {
                saved.remember(source)?;
                fd::close(source);
            }
            return Ok(());
        }
        // `>&file` and `1>&file` mean `&>file` (bash); other descriptors need a number.
        if redirect.op == RedirOp::DupWrite && matches!(redirect.fd, None | Some(1)) {
            return self.open_file(&word, RedirOp::WriteBoth, None, saved);
        }
        Err(RedirectFailure::Message(format!(
            "{word}: ambiguous redirect"
        )))
    }
}

/// An I/O error as bash prints it ("No such file or directory", without Rust's suffix).
/// Where opening `path` would land: the file itself when it exists (symbolic links resolved),
/// else the resolved directory it would be created in.
fn would_open(path: &Path) -> PathBuf {
    if let Ok(canonical) = std::fs::canonicalize(path) {
        return canonical;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|dir| dir.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

pub(crate) fn io_message(err: &std::io::Error) -> String {
    match err.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => err.to_string(),
    }
}
