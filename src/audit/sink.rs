//! Where records go: the syslog socket, else the fallback file.

use std::io::{BufWriter, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::{UnixDatagram, UnixStream};
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use syslog::{Facility, Formatter5424, Logger, LoggerBackend};

use crate::policy::AuditConfig;
use crate::spawn::fd;

/// How long one record may take to send before syslog counts as stuck.
const SEND_TIMEOUT: Duration = Duration::from_millis(500);

/// After syslog failed to take a record, how long records go straight to the fallback: a
/// stuck daemon costs one SEND_TIMEOUT per RETRY_AFTER, not one per record.
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// RFC 5424 MSGIDs are numbers in the syslog crate: 1 for every rsh record.
const MSGID: u32 = 1;

#[derive(Debug, Clone, Copy)]
pub enum Severity {
    Info,
    Notice,
    Warning,
}

pub struct Sink {
    syslog: bool,
    socket: PathBuf,
    facility: Facility,
    host: String,
    required: bool,
    fallback: Option<PathBuf>,
    /// No `[audit]` table: where no syslog socket exists at all, records are dropped quietly.
    quiet_when_absent: bool,
    logger: Option<Logger<LoggerBackend, Formatter5424>>,
    file: Option<std::fs::File>,
    /// What went wrong last time, while syslog is unreachable, and when it failed.
    failure: Option<(String, std::time::Instant)>,
    /// The user has been told that records are not reaching syslog.
    warned: bool,
    /// With `required`: since when (Unix milliseconds; 0: not) syslog has not taken a record,
    /// seen by every forked copy of the shell, which each send their own records.
    outage: Option<&'static AtomicU64>,
}

impl Sink {
    pub fn new(config: &AuditConfig, host: &str) -> Sink {
        Sink {
            syslog: config.syslog,
            socket: config.socket.clone(),
            facility: Facility::from_str(&config.facility).unwrap_or(Facility::LOG_AUTHPRIV),
            host: host.to_owned(),
            required: config.required,
            fallback: config.fallback.clone(),
            quiet_when_absent: !config.configured,
            logger: None,
            file: None,
            failure: None,
            warned: false,
            outage: (config.required && config.syslog).then(crate::spawn::shared_counter),
        }
    }

    /// With `required`: since when (Unix milliseconds) syslog has not taken a record, here or
    /// in a forked copy of the shell; None while it takes them.
    pub fn outage(&self) -> Option<u64> {
        // The word is the shell's: a forked copy may have ended the outage.
        let since = self.outage?.load(std::sync::atomic::Ordering::Relaxed);
        (since != 0).then_some(since)
    }

    pub fn fallback(&self) -> Option<&std::path::Path> {
        self.fallback.as_deref()
    }

    /// Ends an outage by sending `body`, the record that says so, to syslog on a new
    /// connection: only a record syslog took shows that it takes them again (a daemon that
    /// stopped reading still lets rsh connect). Err(why nothing may run) if it did not.
    pub fn resume(&mut self, body: &str) -> Result<(), String> {
        self.logger = None;
        let taken = self
            .send_to_syslog(body, Severity::Notice)
            .and_then(|()| self.read_by_peer());
        match taken {
            Ok(()) => {
                self.failure = None;
                if let Some(outage) = self.outage {
                    outage.store(0, std::sync::atomic::Ordering::Relaxed);
                }
                Ok(())
            }
            Err(why) => {
                self.logger = None;
                self.failed(&why);
                Err(self.refusal(&why))
            }
        }
    }

    /// Waits (up to SEND_TIMEOUT) until the daemon has read everything sent on the
    /// connection: a record written is only in its socket's queue, which a daemon that stopped
    /// reading never empties.
    fn read_by_peer(&self) -> Result<(), String> {
        use std::os::fd::AsFd;
        let socket = match self.logger.as_ref().map(|l| &l.backend) {
            Some(LoggerBackend::Unix(socket)) => socket.as_fd(),
            Some(LoggerBackend::UnixStream(stream)) => stream.get_ref().as_fd(),
            _ => return Ok(()),
        };
        let deadline = std::time::Instant::now() + SEND_TIMEOUT;
        loop {
            match fd::unread_by_peer(socket) {
                Ok(0) => return Ok(()),
                Ok(_) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                Ok(_) => {
                    return Err(format!(
                        "it read nothing for {} ms",
                        SEND_TIMEOUT.as_millis()
                    ));
                }
                Err(errno) => return Err(crate::errno_text(errno)),
            }
        }
    }

    /// Notes that syslog did not take a record, for this process and, with `required`, the
    /// shell's other processes.
    fn failed(&mut self, why: &str) {
        self.failure = Some((why.to_owned(), std::time::Instant::now()));
        if let Some(outage) = self.outage {
            use std::sync::atomic::Ordering;
            let _ = outage.compare_exchange(0, unix_millis(), Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Sends one record. Err only when records are required and syslog did not take it.
    pub fn send(&mut self, body: &str, severity: Severity) -> Result<(), String> {
        if !self.syslog {
            self.append_to_file(body);
            return Ok(());
        }
        let attempt = match &self.failure {
            Some((why, when)) if !self.required && when.elapsed() < RETRY_AFTER => Err(why.clone()),
            _ => self.send_to_syslog(body, severity).inspect_err(|why| {
                tracing::debug!(socket = %self.socket.display(), %why, "syslog took no record");
                // The connection is made anew for the next attempt.
                self.logger = None;
                self.failed(why);
            }),
        };
        match attempt {
            Ok(()) => {
                self.failure = None;
                Ok(())
            }
            Err(why) => {
                // Kept where it can be, whatever else happens.
                self.append_to_file(body);
                let absent = !self.socket.exists();
                if self.required || !(absent && self.quiet_when_absent) {
                    self.warn(&why);
                }
                match self.required {
                    true => Err(self.refusal(&why)),
                    false => Ok(()),
                }
            }
        }
    }

    fn send_to_syslog(&mut self, body: &str, severity: Severity) -> Result<(), String> {
        if self.logger.is_none() {
            self.connect()?;
        }
        let logger = self.logger.as_mut().expect("connected above");
        // Forked children share the connection; each record names its own process.
        logger.formatter.pid = std::process::id();
        let message = (MSGID, Default::default(), body);
        let sent = match severity {
            Severity::Info => logger.info(message),
            Severity::Notice => logger.notice(message),
            Severity::Warning => logger.warning(message),
        };
        sent.map_err(|e| match e {
            syslog::Error::Write(io) => io_reason(&io),
            other => other.to_string(),
        })
    }

    /// Connects to the syslog socket: a datagram socket, or a stream one where the daemon
    /// listens so. The descriptor is numbered where redirections cannot name it.
    fn connect(&mut self) -> Result<(), String> {
        let backend = match connect_datagram(&self.socket) {
            Ok(socket) => LoggerBackend::Unix(socket),
            Err(e) if e.raw_os_error() == Some(libc::EPROTOTYPE) => {
                let stream = connect_stream(&self.socket).map_err(|e| io_reason(&e))?;
                LoggerBackend::UnixStream(BufWriter::new(stream))
            }
            Err(e) => return Err(io_reason(&e)),
        };
        let formatter = Formatter5424 {
            facility: self.facility,
            hostname: Some(self.host.clone()).filter(|h| !h.is_empty()),
            process: "rsh".to_owned(),
            pid: std::process::id(),
        };
        self.logger = Some(Logger::new(backend, formatter));
        Ok(())
    }

    fn refusal(&self, why: &str) -> String {
        format!(
            "audit.required: syslog at {} cannot take records ({why}); nothing runs until it can",
            self.socket.display()
        )
    }

    /// Keeps a record in the fallback file only: syslog is known not to take it.
    pub fn keep(&mut self, body: &str) {
        self.append_to_file(body);
    }

    fn append_to_file(&mut self, body: &str) {
        let Some(path) = &self.fallback else { return };
        if self.file.is_none() {
            match open_append(path) {
                Ok(file) => self.file = Some(file),
                Err(e) => {
                    self.warn_once(&format!(
                        "cannot write the fallback file {}: {}; records are lost",
                        path.display(),
                        io_reason(&e)
                    ));
                    return;
                }
            }
        }
        let mut line = String::with_capacity(body.len() + 1);
        line.push_str(body);
        line.push('\n');
        // One write per record, appended: records of several processes do not interleave.
        if let Some(file) = &mut self.file
            && let Err(e) = file.write_all(line.as_bytes())
        {
            self.file = None;
            self.warn_once(&format!(
                "cannot write {}: {}",
                path.display(),
                io_reason(&e)
            ));
        }
    }

    fn warn(&mut self, why: &str) {
        let whereto = match &self.fallback {
            Some(path) => format!("records go to {}", path.display()),
            None => "records are lost (set [audit] fallback, or start a syslog daemon)".to_owned(),
        };
        self.warn_once(&format!(
            "cannot send records to syslog at {} ({why}); {whereto}",
            self.socket.display()
        ));
    }

    fn warn_once(&mut self, message: &str) {
        if !self.warned {
            self.warned = true;
            let _ = fd::write_all(2, format!("rsh: audit: {message}\n").as_bytes());
        }
    }
}

fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |t| t.as_millis() as u64)
        .max(1)
}

/// `No such file or directory`, without Rust's `(os error 2)`.
fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        // The send timed out (SO_SNDTIMEO).
        Some(libc::EAGAIN) => format!("it took nothing for {} ms", SEND_TIMEOUT.as_millis()),
        _ => fd::io_message(e),
    }
}

fn connect_datagram(path: &std::path::Path) -> std::io::Result<UnixDatagram> {
    let socket = UnixDatagram::from(high(UnixDatagram::unbound()?.into())?);
    fd::mark_private(std::os::fd::AsFd::as_fd(&socket));
    socket.connect(path)?;
    socket.set_write_timeout(Some(SEND_TIMEOUT))?;
    Ok(socket)
}

fn connect_stream(path: &std::path::Path) -> std::io::Result<UnixStream> {
    let stream = UnixStream::from(high(fd::connect_stream_now(path)?.into())?);
    fd::mark_private(std::os::fd::AsFd::as_fd(&stream));
    stream.set_write_timeout(Some(SEND_TIMEOUT))?;
    Ok(stream)
}

fn open_append(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        // Not left waiting on a FIFO put there.
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(std::fs::File::from(high(file.into())?))
}

/// The descriptor moved to rsh's own range: a redirection such as `>&3` could otherwise
/// write a forged record into it.
fn high(file: OwnedFd) -> std::io::Result<OwnedFd> {
    fd::to_shell_range(file).map_err(std::io::Error::from)
}
