//! Redirections, applied to the shell's own descriptors and undone afterwards.
//!
//! Builtins, functions and compound commands run in-process, so their redirections must be
//! undone when they finish; external commands simply inherit the redirected descriptors.
//! Saved originals are close-on-exec copies in rsh's own range (`SHELL_FDS_FROM` up), so they
//! never leak into a child. Redirections may not name a descriptor in that range, as target or
//! as source: those are rsh's (decided programs, Landlock rulesets, the terminal, saved copies).

use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use crate::decide::args::Touch;
use crate::decide::{self, Decision};
use crate::expand::{self, ExpandError};
use crate::parse::{RedirOp, Redirect};
use crate::policy::{MAX_LINKS, Risk, Verdict};
use crate::spawn::fd;

use super::simple::Refusal;
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
        let copy = fd::save(target, crate::SHELL_FDS_FROM).map_err(|e| {
            RedirectFailure::Message(format!(
                "{target}: cannot save descriptor: {}",
                crate::errno_text(e)
            ))
        })?;
        self.entries.push((target, copy));
        Ok(())
    }

    /// `exec >file`: keep the new descriptors, drop the saved copies.
    pub(crate) fn forget(self) {}
}

/// Why `read_for_command` read nothing (or a file rsh opens for a command did not open).
pub(crate) enum ReadError {
    /// The file rules refuse it: the whole message.
    Denied(String),
    /// An I/O error, to be prefixed with the file name.
    Io(String),
}

impl ReadError {
    /// The message for a file shown as `path`.
    pub(crate) fn message(&self, path: &str) -> String {
        match self {
            ReadError::Denied(message) => message.clone(),
            ReadError::Io(error) => format!("{path}: {error}"),
        }
    }
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
        if !redirects.is_empty() {
            self.settle_descriptors();
        }
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
        reachable(target)?;
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
                let path = self.target_word(redirect)?;
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
            RedirectFailure::Message(format!(
                "cannot make a here-document: {}",
                crate::errno_text(e)
            ))
        })?;
        fd::install(file, target)
            .map_err(|e| RedirectFailure::Message(format!("{target}: {}", crate::errno_text(e))))
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
            fd::dup_to(file.as_raw_fd(), target).map_err(|e| {
                RedirectFailure::Message(format!("{target}: {}", crate::errno_text(e)))
            })?;
        }
        if targets.contains(&file.as_raw_fd()) {
            // The file already sits on its target descriptor: closing it would undo that.
            std::mem::forget(file);
        }
        Ok(())
    }

    /// Opens a redirection's file.
    fn open_target(&mut self, path: &str, op: RedirOp) -> Result<OwnedFd, RedirectFailure> {
        use nix::fcntl::OFlag;
        let (flags, truncate) = match op {
            RedirOp::Read => (OFlag::O_RDONLY, false),
            RedirOp::ReadWrite => (OFlag::O_RDWR | OFlag::O_CREAT, false),
            RedirOp::Append | RedirOp::AppendBoth => {
                (OFlag::O_WRONLY | OFlag::O_APPEND | OFlag::O_CREAT, false)
            }
            RedirOp::Write | RedirOp::WriteBoth if self.options.noclobber => {
                (noclobber_flags(path)?, false)
            }
            _ => (OFlag::O_WRONLY | OFlag::O_CREAT, true),
        };
        if path.is_empty() {
            return Err(RedirectFailure::Message(
                ": No such file or directory".to_string(),
            ));
        }
        let file = self.open_for_command(path, flags).map_err(|e| match e {
            ReadError::Io(text) if flags.contains(OFlag::O_EXCL) && is_eexist(&text) => {
                cannot_overwrite(path)
            }
            e => RedirectFailure::Message(e.message(path)),
        })?;
        let is_regular =
            nix::sys::stat::fstat(&file).is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFREG);
        if self.options.noclobber && matches!(op, RedirOp::Write | RedirOp::WriteBoth) {
            // A file that was something else when looked at, replaced meanwhile (as bash).
            if is_regular && !flags.contains(OFlag::O_EXCL) {
                return Err(cannot_overwrite(path));
            }
        }
        if truncate && is_regular {
            fd::truncate(file.as_raw_fd()).map_err(|e| {
                RedirectFailure::Message(format!("{path}: {}", crate::errno_text(e)))
            })?;
        }
        Ok(file)
    }

    /// Reads a whole file rsh reads for the commands it runs (`source`, a script without `#!`,
    /// `$(< file)`), under the same file rules as a redirection.
    pub(crate) fn read_for_command(&mut self, path: &str) -> Result<Vec<u8>, ReadError> {
        use std::io::Read;
        let file = self.open_for_command(path, nix::fcntl::OFlag::O_RDONLY)?;
        let mut bytes = Vec::new();
        std::fs::File::from(file)
            .read_to_end(&mut bytes)
            .map_err(|e| ReadError::Io(fd::io_message(&e)))?;
        Ok(bytes)
    }

    /// `read_for_command` for a file run as a program, recorded as `argv` if refused (see
    /// `audit_path_refused`).
    pub(crate) fn read_program(
        &mut self,
        path: &str,
        argv: Vec<String>,
    ) -> Result<Vec<u8>, ReadError> {
        self.reading_program = Some(argv);
        let read = self.read_for_command(path);
        self.reading_program = None;
        read
    }

    /// Opens a file rsh opens on behalf of a command. Under `[paths]`, the command's file rules
    /// hold for it, checked by rsh before the file is opened (so nothing is created, truncated
    /// or read where the command could not): rsh works out where the path lands (symbolic
    /// links followed, a dangling one included), checks that place, and opens exactly it with
    /// `openat2` refusing any symbolic link on the way, so the path cannot be switched in
    /// between. `/dev/stdin`, `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` are the shell's own
    /// descriptors, duplicated, as bash does where the system lacks them. Truncation is the
    /// caller's, after the open. Without `[paths]`, a plain open.
    fn open_for_command(
        &mut self,
        path: &str,
        flags: nix::fcntl::OFlag,
    ) -> Result<OwnedFd, ReadError> {
        use nix::fcntl::OFlag;
        // Ready before anything here can name a descriptor (see `settle_descriptors`).
        self.settle_descriptors();
        let flags = flags | OFlag::O_CLOEXEC | OFlag::O_NOCTTY;
        // openat2 refuses a mode without O_CREAT (EINVAL), where open ignores it.
        let mode = if flags.contains(OFlag::O_CREAT) {
            nix::sys::stat::Mode::from_bits_truncate(0o666)
        } else {
            nix::sys::stat::Mode::empty()
        };
        let io = |e: nix::errno::Errno| ReadError::Io(crate::errno_text(e));
        let write = flags.intersects(OFlag::O_WRONLY | OFlag::O_RDWR);
        let device_only = write && self.redirect_write(path)?;
        let confined = self.sandbox().is_ok_and(|s| s.restricts_files());
        if !confined {
            let descriptor = standard_descriptor(path);
            if let Some(message) = descriptor.and_then(reserved) {
                return Err(ReadError::Denied(message));
            }
            // Sensitive names hold without `[paths]` too, as they do for the files a command
            // names (`cat < .env` as `cat .env`).
            let mut checked = None;
            if descriptor.is_none() {
                let (landing, links, _) = would_open(&self.absolute(Path::new(path)));
                let others = std::iter::once(&landing)
                    .chain(&links)
                    .find_map(|p| crate::sandbox::other_process_descriptor(p));
                let decision = match others {
                    Some(why) => Some(decide::refused(self.policy(), "paths", why.to_owned())),
                    None => self.sensitive_name(&landing, &links, write),
                };
                self.settle_file_decision(path, decision)?;
                checked = Some(landing).filter(|_| !self.policy().sensitive().is_empty());
            }
            // Nothing is read or written through a descriptor before it is checked again
            // (truncation is the caller's, after this).
            let located = nix::fcntl::open(path, OFlag::O_PATH | OFlag::O_CLOEXEC, mode_none());
            let file = match located {
                Ok(named) => {
                    self.recheck_opened(path, &named, checked.as_deref(), write)?;
                    let by_name = |f| nix::fcntl::open(path, f, mode);
                    self.open_located(path, named, flags, device_only, by_name)?
                }
                Err(nix::errno::Errno::ENOENT) if flags.contains(OFlag::O_CREAT) => {
                    if device_only {
                        return Err(changed_meanwhile(path));
                    }
                    let file = fd::create(|f| nix::fcntl::open(path, f, mode), flags);
                    let file = file.map_err(io)?;
                    self.recheck_opened(path, &file, checked.as_deref(), write)?;
                    file
                }
                Err(errno) => return Err(io(errno)),
            };
            // Any other name of rsh's own pipes and sockets (`/proc/PID/fd/N`, a link to
            // one): an audit record handed over, the log socket, the output filter.
            if fd::is_shells_own(&file) {
                return Err(ReadError::Denied(format!(
                    "denied: {path}: it is one of rsh's own descriptors"
                )));
            }
            return Ok(file);
        }
        if let Some(fd) = standard_descriptor(path) {
            if let Some(message) = reserved(fd) {
                return Err(ReadError::Denied(message));
            }
            return fd::save(fd, 0)
                .map_err(io)?
                .ok_or(ReadError::Io(crate::errno_text(nix::errno::Errno::EBADF)));
        }
        // A trailing `/` asks for a directory, which rsh's own resolution would drop: as the
        // kernel has it by name, a file to create cannot be one, and anything else must be.
        let flags = match path.ends_with('/') {
            true if flags.contains(OFlag::O_CREAT) => return Err(io(nix::errno::Errno::EISDIR)),
            true => flags | OFlag::O_DIRECTORY,
            false => flags,
        };
        let landing = self.checked_landing(path, write)?;
        // `O_EXCL` (`set -C`) is about the name itself: a link there, even a dangling one
        // put there since `noclobber_flags` looked, makes the open fail as it would by name.
        if flags.contains(OFlag::O_EXCL)
            && landing != canonical_parent_noting(&self.absolute(Path::new(path)), &mut Vec::new())
        {
            return Err(io(nix::errno::Errno::EEXIST));
        }
        // Without openat2 (a kernel before 5.6, only in degraded mode): the last component
        // at least.
        // Through the read-only view where there is one: a file outside the write roots that
        // the program gets is then on a read-only mount (no fchmod, no futimens).
        // As a number: the view stays open while the shell is (its sandbox is the session's).
        let root = self
            .sandbox()
            .ok()
            .and_then(|s| s.view_root())
            .map(|r| r.as_raw_fd());
        let locate =
            |flags, mode| fd::open_without_links_in(root.map(fd::borrow), &landing, flags, mode);
        match locate(OFlag::O_PATH | OFlag::O_CLOEXEC, mode_none()) {
            Ok(named) => self.open_located(path, named, flags, device_only, |f| locate(f, mode)),
            Err(nix::errno::Errno::ENOENT) if flags.contains(OFlag::O_CREAT) && device_only => {
                Err(changed_meanwhile(path))
            }
            Err(nix::errno::Errno::ENOENT) if flags.contains(OFlag::O_CREAT) => {
                match fd::create(|f| locate(f, mode), flags) {
                    Err(nix::errno::Errno::ELOOP) => Err(changed_meanwhile(path)),
                    other => other.map_err(io),
                }
            }
            Err(nix::errno::Errno::ELOOP) if is_link_loop(&landing) => {
                Err(io(nix::errno::Errno::ELOOP))
            }
            Err(nix::errno::Errno::ELOOP) => Err(changed_meanwhile(path)),
            Err(errno) => Err(io(errno)),
        }
    }

    /// Opens with `flags` the file that `named`, an `O_PATH` descriptor of `path`, is: a FIFO
    /// as `open_fifo` does, anything else through its `/proc/self/fd` entry, or, to write,
    /// with `by_name` (the same flags on its name, so that the kernel's protection of files
    /// in sticky directories, `fs.protected_regular`, still holds), without waiting and only
    /// if that is the same file. What was looked at on `named` is what gets opened, and a
    /// FIFO switched in for a file cannot hold rsh past the command's timeout. With
    /// `device_only` (a write allowed only to a device, see `redirect_write`), `named` must
    /// still be a terminal, /dev/null or a pipe, not a file switched in.
    fn open_located(
        &mut self,
        path: &str,
        named: OwnedFd,
        flags: nix::fcntl::OFlag,
        device_only: bool,
        by_name: impl Fn(nix::fcntl::OFlag) -> Result<OwnedFd, nix::errno::Errno>,
    ) -> Result<OwnedFd, ReadError> {
        let io = |e: nix::errno::Errno| ReadError::Io(crate::errno_text(e));
        let kind = nix::sys::stat::fstat(&named).map_err(io)?.st_mode & libc::S_IFMT;
        if device_only && !matches!(kind, libc::S_IFCHR | libc::S_IFIFO) {
            return Err(changed_meanwhile(path));
        }
        match kind {
            // `O_NOFOLLOW` without openat2 names a link itself.
            libc::S_IFLNK => Err(changed_meanwhile(path)),
            // To write (`O_CREAT`), by name without waiting, for the kernel's protection of
            // files and FIFOs in sticky directories (`fs.protected_regular`, `_fifos`) to
            // hold; a FIFO with no reader yet (ENXIO) then waits as any FIFO does.
            _ if flags.contains(nix::fcntl::OFlag::O_CREAT) => match fd::create(by_name, flags) {
                Err(nix::errno::Errno::ENXIO) if kind == libc::S_IFIFO => {
                    self.open_fifo(path, named, flags)
                }
                Err(nix::errno::Errno::ELOOP) => Err(changed_meanwhile(path)),
                Err(errno) => Err(io(errno)),
                Ok(file) if fd::same_file(&file, &named) => Ok(file),
                Ok(_) => Err(changed_meanwhile(path)),
            },
            libc::S_IFIFO => self.open_fifo(path, named, flags),
            _ => fd::reopen(&named, flags).map_err(io),
        }
    }

    /// Checks the sensitive names again on the file `path` opened, under the name the kernel
    /// gives it, where that is not `checked`, the name checked before the open: without
    /// `[paths]` the open goes by name, and a link switched in between leads elsewhere.
    fn recheck_opened(
        &mut self,
        path: &str,
        file: &OwnedFd,
        checked: Option<&Path>,
        write: bool,
    ) -> Result<(), ReadError> {
        let Some(checked) = checked else {
            return Ok(());
        };
        let decision = match std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            Ok(opened) if opened.is_absolute() && opened != checked => {
                self.sensitive_name(&opened, &[], write)
            }
            // A pipe, a socket: no name.
            Ok(_) => None,
            // Deeper than PATH_MAX, where no name can be had.
            Err(e) => Some(decide::refused(
                self.policy(),
                "sensitive",
                format!("rsh cannot tell where it is ({})", fd::io_message(&e)),
            )),
        };
        self.settle_file_decision(path, decision)
    }

    /// Opens the FIFO `named` (an `O_PATH` descriptor of `path`) for a command with `flags`
    /// (see `fd::open_fifo`): the wait for its other end ends at the command's timeout, and
    /// on a signal that would end rsh, after which rsh ends by it as while it waits for a
    /// program; Ctrl-C at the interactive shell abandons the line.
    fn open_fifo(
        &mut self,
        path: &str,
        named: OwnedFd,
        flags: nix::fcntl::OFlag,
    ) -> Result<OwnedFd, ReadError> {
        let timeout = self.job_timeout();
        let interactive = self.mode == super::Mode::Interactive;
        match fd::open_fifo(named, flags, timeout, interactive) {
            fd::FifoOpen::Opened(opened) => opened.map_err(|e| ReadError::Io(crate::errno_text(e))),
            fd::FifoOpen::TimedOut => Err(ReadError::Denied(format!(
                "{path}: nothing opened the other end of the FIFO within {} s (limits.timeout)",
                timeout.map_or(0, |t| t.as_secs())
            ))),
            fd::FifoOpen::Signal(libc::SIGINT) if self.at_terminal() => {
                self.interrupted = true;
                Err(ReadError::Denied(format!("{path}: interrupted")))
            }
            fd::FifoOpen::Signal(sig) => self.die_recorded(sig, false),
        }
    }

    /// Where opening `path` for a command would land (canonical, no symbolic link left), if
    /// the policy lets the command have it there; Err(Denied) says which rule does not.
    pub(crate) fn checked_landing(
        &mut self,
        path: &str,
        write: bool,
    ) -> Result<PathBuf, ReadError> {
        let (landing, links, _) = would_open(&self.absolute(Path::new(path)));
        if !is_canonical(&landing) {
            return Err(ReadError::Io(uncanonical_reason(&landing)));
        }
        let own = std::iter::once(&landing)
            .chain(&links)
            .any(|p| crate::sandbox::in_shells_process(p));
        let decision = if own {
            let why = "it is rsh's own process".to_string();
            Some(decide::refused(self.policy(), "paths", why))
        } else {
            self.landing_decision(&landing, &links, write)
        };
        self.settle_file_decision(path, decision).map(|()| landing)
    }

    /// Carries out the policy's `decision` on a file rsh opens for a command (None: it may):
    /// what audit mode lets through, what a confirmation allows; Err(Denied) otherwise,
    /// counted and recorded.
    fn settle_file_decision(
        &mut self,
        path: &str,
        decision: Option<Decision>,
    ) -> Result<(), ReadError> {
        // The file rules are the kernel's: audit mode keeps them.
        let decision = match decision {
            Some(d) if d.rule.key == "paths" => Some(d),
            other => {
                let refusal = other.map(|decision| Refusal {
                    decision,
                    interpreter: None,
                });
                self.unless_audit(path, refusal).map(|r| r.decision)
            }
        };
        let decision = match decision {
            Some(d) if d.verdict == Verdict::Ask => self.confirm_file(path, d).err().map(|d| *d),
            other => other,
        };
        match decision {
            None => Ok(()),
            Some(decision) => {
                self.count_refusal();
                self.audit_path_refused(&decision);
                Err(ReadError::Denied(format!(
                    "denied: {path}: {}",
                    super::simple::unconfirmed(&decision)
                )))
            }
        }
    }

    /// What `[shell] mode` and `strict` say about a redirection writing `path`: a write
    /// makes a command medium risk. Terminals, `/dev/null` and the shell's own descriptors
    /// are not files it changes. Ok(true): allowed only because `path` is a device, which
    /// the file opened must then be too (see `open_located`).
    pub(crate) fn redirect_write(&mut self, path: &str) -> Result<bool, ReadError> {
        let why = format!("writes {path}");
        // Asked first: in most policies the mode adds nothing, and the file is not looked at.
        let Some(decision) = decide::by_mode(self.policy(), Risk::Medium, &why) else {
            return Ok(false);
        };
        if standard_descriptor(path).is_some() {
            return Ok(false);
        }
        if is_device(&self.absolute(Path::new(path))) {
            return Ok(true);
        }
        let refusal = Some(Refusal {
            decision,
            interpreter: None,
        });
        match self.unless_audit(&format!("> {path}"), refusal) {
            None => Ok(false),
            Some(refusal) => {
                self.audit_path_refused(&refusal.decision);
                Err(ReadError::Denied(format!(
                    "denied: {path}: {}",
                    super::simple::unconfirmed(&refusal.decision)
                )))
            }
        }
    }

    /// What the policy says about a command having the file at `landing` (canonical),
    /// reached through the symbolic links `links`: the file rules (`[paths]`, as the kernel
    /// will hold the command to them), then `[sensitive]` for the file under each of its
    /// names. None when it may.
    pub(crate) fn landing_decision(
        &mut self,
        landing: &Path,
        links: &[PathBuf],
        write: bool,
    ) -> Option<Decision> {
        self.rules_decision(landing, links, write)
            .or_else(|| self.sensitive_name(landing, links, write))
    }

    /// What `[paths]` says about a command having the file at `landing`.
    fn rules_decision(
        &mut self,
        landing: &Path,
        links: &[PathBuf],
        write: bool,
    ) -> Option<Decision> {
        let rules = match self.sandbox() {
            Ok(sandbox) => file_rules(sandbox, landing, links, write),
            Err(message) => Err(message),
        };
        let why = rules.err()?;
        Some(decide::refused(self.policy(), "paths", why))
    }

    /// Whether the policy lets commands have `path` (to read, or to write), for `test -r` and
    /// `-w`, Tab completion and pathname expansion (`may_read`): the file rules, then
    /// sensitive names (one it would ask about counts). True while the session's confinement
    /// is not set up yet (for `test`, the file's modes alone answer).
    pub(crate) fn policy_lets_have(&self, path: &Path, write: bool) -> bool {
        let Some(sandbox) = self.sandbox.as_ref() else {
            return true;
        };
        if !sandbox.restricts_files() && self.policy().sensitive().is_empty() {
            return true;
        }
        let (landing, links, _) = would_open(&self.absolute(path));
        file_rules(sandbox, &landing, &links, write).is_ok()
            && self
                .sensitive_name(&landing, &links, write)
                .is_none_or(|d| d.verdict != crate::policy::Verdict::Deny)
    }

    /// The `[sensitive]` verdict on the names a file is reached by. A name too long for the
    /// kernel to take whole (deeper than PATH_MAX) could not be followed to where it leads,
    /// so it is refused.
    fn sensitive_name(&self, landing: &Path, links: &[PathBuf], write: bool) -> Option<Decision> {
        if self.policy().sensitive().is_empty() {
            return None;
        }
        if landing.as_os_str().len() >= libc::PATH_MAX as usize {
            let why = format!(
                "its path is longer than rsh can check ({} bytes)",
                libc::PATH_MAX
            );
            return Some(decide::refused(self.policy(), "sensitive", why));
        }
        let home = self.home().to_path_buf();
        std::iter::once(landing)
            .chain(links.iter().map(PathBuf::as_path))
            .find_map(|name| {
                decide::sensitive(self.policy(), name, &home, write, &|| name.is_dir())
            })
    }

    /// What the policy says about a command reading or writing `touch`, a file named on its
    /// command line. A file to read that does not exist is looked at for its name only (a
    /// file whose attributes alone are taken, not at all): it
    /// may be there by the time the program opens it (another stage of the pipeline makes
    /// it, or turns a link on the way), and a word that is no file at all is no read to
    /// refuse against the read roots.
    pub(crate) fn touch_decision(&mut self, touch: &Touch) -> Option<Decision> {
        if standard_descriptor(&touch.path).is_some() {
            return None;
        }
        let (landing, links, exists) = would_open(&self.absolute(Path::new(&touch.path)));
        // A file's name and attributes are no secret (`ls -l` of its directory shows them);
        // a directory's listing may be.
        let attributes_only = touch.look && !landing.is_dir();
        if attributes_only {
            return match exists {
                true => self.rules_decision(&landing, &links, false),
                false => None,
            };
        }
        if !touch.write && !exists {
            return self.sensitive_name(&landing, &links, false);
        }
        self.landing_decision(&landing, &links, touch.write)
    }

    /// What `[sensitive]` says about a word a command mentions (`args::mentions`), as a
    /// file it could read: only a file that is there is looked at (a word that names none is
    /// most likely no file name at all).
    pub(crate) fn mention_decision(&self, word: &str) -> Option<Decision> {
        let path = self.absolute(Path::new(word));
        // Most words are no file: one system call for them.
        std::fs::symlink_metadata(&path).ok()?;
        let (landing, links, exists) = would_open(&path);
        match exists {
            true => self.sensitive_name(&landing, &links, false),
            false => None,
        }
    }

    /// A redirection's target, expanded: one word, or the redirection fails.
    fn target_word(&mut self, redirect: &Redirect) -> Result<String, RedirectFailure> {
        expand::redirect_target(self, &redirect.target)
            .map_err(RedirectFailure::Expand)?
            .ok_or_else(|| RedirectFailure::Message(expand::ambiguous_redirect(&redirect.written)))
    }

    /// `N>&M`, `N<&M`, `N>&M-` (move), `N>&-` (close), and `>&file` (same as `&>file`).
    fn duplicate(
        &mut self,
        redirect: &Redirect,
        target: RawFd,
        saved: &mut Saved,
    ) -> Result<(), RedirectFailure> {
        let word = self.target_word(redirect)?;
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
            reachable(source)?;
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
            fd::dup_to(source, target).map_err(|e| {
                RedirectFailure::Message(format!("{number}: {}", crate::errno_text(e)))
            })?;
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

/// Refuses a descriptor number in rsh's own range.
fn reachable(fd: RawFd) -> Result<(), RedirectFailure> {
    reserved(fd).map_or(Ok(()), |message| Err(RedirectFailure::Message(message)))
}

/// Why a descriptor number may not be named, if it may not.
fn reserved(fd: RawFd) -> Option<String> {
    (!(0..crate::SHELL_FDS_FROM).contains(&fd)).then(|| {
        format!(
            "{fd}: Bad file descriptor (descriptors from {} up are rsh's own)",
            crate::SHELL_FDS_FROM
        )
    })
}

fn mode_none() -> nix::sys::stat::Mode {
    nix::sys::stat::Mode::empty()
}

/// How `set -C` opens `>file`, as bash does: an existing regular file is refused; a name
/// that is not there is created with `O_EXCL` (so a file created meanwhile, or a dangling
/// link, is refused rather than written through); anything else (`/dev/null`, a FIFO) is
/// opened without truncation.
fn noclobber_flags(path: &str) -> Result<nix::fcntl::OFlag, RedirectFailure> {
    use nix::fcntl::OFlag;
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Err(cannot_overwrite(path)),
        Ok(_) => Ok(OFlag::O_WRONLY | OFlag::O_CREAT),
        Err(_) if std::fs::symlink_metadata(path).is_ok() => Err(cannot_overwrite(path)),
        Err(_) => Ok(OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL),
    }
}

fn cannot_overwrite(path: &str) -> RedirectFailure {
    RedirectFailure::Message(format!("{path}: cannot overwrite existing file"))
}

fn is_eexist(text: &str) -> bool {
    text == crate::errno_text(nix::errno::Errno::EEXIST)
}

/// A symbolic link that leads round in a loop, or deeper than the kernel follows, as the
/// last component or a directory on the way (`loop/y`): there is no file to check, and bash
/// says "Too many levels of symbolic links". (A link that was switched in while rsh checked
/// the path and loops is one too.)
fn is_link_loop(landing: &Path) -> bool {
    std::fs::metadata(landing).is_err_and(|e| e.raw_os_error() == Some(libc::ELOOP))
}

fn changed_meanwhile(path: &str) -> ReadError {
    ReadError::Denied(format!("denied: {path}: it changed while rsh checked it"))
}

/// A terminal, /dev/null or a pipe: writing there changes no file.
fn is_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device() || m.file_type().is_fifo())
}

/// What the file rules of `sandbox` say about having the file at `landing` (canonical),
/// reached through the symbolic links `links`.
fn file_rules(
    sandbox: &crate::sandbox::Sandbox,
    landing: &Path,
    links: &[PathBuf],
    write: bool,
) -> Result<(), String> {
    links
        .iter()
        .try_for_each(|link| sandbox.permits_link(link))
        .and_then(|()| sandbox.permits(landing, write))
}

/// Where opening `path` would land: symbolic links followed one by one (the last one too,
/// even when it points at nothing: `>` would create its target), then the directory made
/// canonical. The result names no symbolic link, so it can be opened with RESOLVE_NO_SYMLINKS.
/// Also returns each link followed on the way (its directory canonical), and whether the
/// file it lands on exists.
pub(crate) fn would_open(path: &Path) -> (PathBuf, Vec<PathBuf>, bool) {
    let mut path = path.to_path_buf();
    let mut links = Vec::new();
    // As many links as the kernel follows before ELOOP.
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let Ok(target) = std::fs::read_link(&path) else {
                    break;
                };
                let link = canonical_parent_noting(&path, &mut links);
                links.push(link);
                path = match path.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return (canonical_parent_noting(&path, &mut links), links, true),
            Err(_) => break,
        }
    }
    (canonical_parent_noting(&path, &mut links), links, false)
}

/// `path` with its directory canonical and its last component as it is (unchanged where the
/// directory cannot be resolved). For each symbolic link the directory goes through, adds to
/// `links` the path spelled through it (`repo/.git/config` when `repo/.git` leads
/// elsewhere): a file is reached by those names too, and `[sensitive]` holds for each.
fn canonical_parent_noting(path: &Path, links: &mut Vec<PathBuf>) -> PathBuf {
    use std::path::Component;
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return path.to_path_buf();
    };
    // Components still to walk, last first.
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    let push_all = |rest: &mut Vec<std::ffi::OsString>, p: &Path| {
        for part in p.components().rev() {
            match part {
                Component::Normal(n) => rest.push(n.to_os_string()),
                Component::ParentDir => rest.push("..".into()),
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
    };
    push_all(&mut rest, dir);
    let mut at = PathBuf::from("/");
    let mut followed = 0;
    let mut met = Vec::new();
    while let Some(part) = rest.pop() {
        if part == ".." {
            at.pop();
            continue;
        }
        let next = at.join(&part);
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() => {
                followed += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    return path.to_path_buf();
                };
                if followed > MAX_LINKS {
                    return path.to_path_buf();
                }
                met.push(spelled_through(next, &rest, name));
                if target.is_absolute() {
                    at = PathBuf::from("/");
                }
                push_all(&mut rest, &target);
            }
            Ok(meta) if meta.is_dir() => at = next,
            _ => return path.to_path_buf(),
        }
    }
    links.extend(met);
    at.join(name)
}

/// The path spelled through the link at `link`: the components still to walk (`rest`, last
/// first) and `name`, as far as the first `..` (past it, the spelling names nothing).
fn spelled_through(link: PathBuf, rest: &[std::ffi::OsString], name: &std::ffi::OsStr) -> PathBuf {
    let mut spelled = link;
    for part in rest.iter().rev() {
        if part == ".." {
            return spelled;
        }
        spelled.push(part);
    }
    spelled.join(name)
}

/// Whether `path` has no `.` or `..` left in it. `would_open` leaves them only where its
/// directory could not be made canonical (a directory missing, or not one): checked as
/// text, `w/d/../../etc/shadow` looks like a file under `w`, and if `d` appeared before the
/// open, the kernel would take the `..` to /etc.
fn is_canonical(path: &Path) -> bool {
    use std::path::Component;
    path.components()
        .all(|c| !matches!(c, Component::ParentDir | Component::CurDir))
}

/// Why the directory of `path` (not canonical) cannot be opened: what the kernel would say
/// on opening it without a change in between.
fn uncanonical_reason(path: &Path) -> String {
    let dir = path.parent().unwrap_or(path);
    match std::fs::canonicalize(dir) {
        Err(e) => fd::io_message(&e),
        // It appeared since: the path changed while rsh looked at it.
        Ok(_) => crate::errno_text(nix::errno::Errno::ENOENT),
    }
}

/// The descriptor `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or
/// `/proc/self/fd/N` names.
fn standard_descriptor(path: &str) -> Option<RawFd> {
    match path {
        "/dev/stdin" => Some(0),
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => path
            .strip_prefix("/dev/fd/")
            .or_else(|| path.strip_prefix("/proc/self/fd/"))
            .and_then(|n| n.parse().ok()),
    }
}
