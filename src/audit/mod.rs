//! The audit trail: one record for every command rsh runs or refuses, and one when a session
//! starts and ends, sent to syslog (RFC 5424, facility and socket from `[audit]`) with a JSON
//! body. When syslog cannot take a record it goes to the policy's fallback file, if any, and
//! rsh says so once on stderr; with `required = true` nothing runs while syslog is unreachable.
//!
//! Every string in a record is cut to a bounded length with a marker, and escaped as JSON
//! (control characters included), so a command can neither overflow a record nor forge one.

mod record;
mod sink;

use std::time::{Duration, Instant, SystemTime};

use record::Json;
pub use record::{Approval, Command, Ended, utc_now};
use sink::Sink;

use crate::policy::AuditConfig;

/// Who is running rsh, where: fixed for the life of the process (forked children share it).
#[derive(Debug, Clone)]
pub struct Session {
    /// Random, to tie the records of one session together.
    pub id: String,
    pub host: String,
    pub user: String,
    pub uid: u32,
    /// The terminal on standard input, output or error, if any.
    pub tty: Option<String>,
    /// `client-address client-port` from `SSH_CONNECTION`, for a session started by sshd.
    pub ssh: Option<String>,
    /// The process of the session (its first rsh).
    pub pid: u32,
}

impl Session {
    pub fn current() -> Session {
        Session {
            id: session_id(),
            host: crate::policy::host_name(),
            user: crate::policy::user_name(),
            uid: nix::unistd::getuid().as_raw(),
            tty: [0, 1, 2].into_iter().find_map(|fd| {
                nix::unistd::ttyname(crate::spawn::fd::borrow(fd))
                    .ok()
                    .map(|p| p.display().to_string())
            }),
            ssh: std::env::var("SSH_CONNECTION").ok().and_then(|c| {
                let mut fields = c.split_whitespace();
                Some(format!("{} {}", fields.next()?, fields.next()?))
            }),
            pid: std::process::id(),
        }
    }
}

/// 64 random bits in hex.
fn session_id() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if random.is_err() {
        // Unique enough to tell sessions apart, if not unpredictable.
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default();
        bytes = (now.as_nanos() as u64 ^ u64::from(std::process::id()) << 40).to_be_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// How a session began: what sshd or the caller asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `rsh -c '…'` (also how sshd runs `ssh host cmd`, scp, sftp, rsync and git).
    Command,
    /// An interactive shell.
    Interactive,
    /// A script file, or commands read from standard input.
    Script,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Command => "command",
            Kind::Interactive => "interactive",
            Kind::Script => "script",
        }
    }
}

/// The audit trail of one session.
pub struct Trail {
    session: Session,
    sink: Sink,
    started: Instant,
    /// What the kernel does not enforce in degraded mode: in every record of a program
    /// that ran, sent as a warning.
    unenforced: Vec<String>,
}

impl Trail {
    /// Opens the trail and sends the session's first record. Fails only when `[audit]
    /// required` is set and syslog cannot take it: then nothing may run.
    pub fn start(
        config: &AuditConfig,
        session: Session,
        kind: Kind,
        login: bool,
        command: Option<&str>,
        policy: &[(String, String)],
        unenforced: Vec<String>,
    ) -> Result<Trail, String> {
        let mut trail = Trail {
            sink: Sink::new(config, &session.host),
            session,
            started: Instant::now(),
            unenforced,
        };
        let mut json = trail.head("session-start");
        json.str("kind", kind.name());
        json.bool("login", login);
        if let Some(command) = command {
            // `rsh -c`: what sshd was asked to run (`ssh host cmd`, scp, sftp, git), or the
            // agent's command.
            json.str_max("command", command, record::LINE_MAX);
        }
        let (files, cut) = record::files(policy);
        json.raw("policy", &files);
        if cut > 0 {
            json.int("policy_files_cut", cut as i64);
        }
        let severity = trail.write_unenforced(&mut json);
        trail.send(json, severity)?;
        Ok(trail)
    }

    /// Before a command runs: Err(why) when records are required and syslog cannot take them.
    /// After syslog failed to take one, syslog must take a `syslog-resumed` record first,
    /// which says since when records went only to the fallback file (`fallback`, null when
    /// there is none: they were lost).
    pub fn ready(&mut self) -> Result<(), String> {
        let Some(since) = self.sink.outage() else {
            return Ok(());
        };
        let mut json = self.head("syslog-resumed");
        json.str("since", &record::utc(Duration::from_millis(since)));
        let fallback = self.sink.fallback().map(|p| p.to_string_lossy());
        json.opt_str("fallback", fallback.as_deref());
        self.sink.resume(&json.finish())
    }

    /// The record of one command, run or refused.
    pub fn command(&mut self, command: &Command, ended: &Ended) {
        let (json, severity) = self.command_record(command, ended);
        // A failure is reported by the sink; the command already ran or was refused.
        let _ = self.send(json, severity);
    }

    /// The record of a command refused because syslog cannot take records (see `ready`),
    /// kept in the fallback file only, without trying syslog again.
    pub fn command_kept(&mut self, command: &Command, ended: &Ended) {
        let (json, _) = self.command_record(command, ended);
        self.sink.keep(&json.finish());
    }

    fn command_record(&self, command: &Command, ended: &Ended) -> (Json, sink::Severity) {
        let mut json = self.head("command");
        command.write(&mut json);
        ended.write(&mut json);
        let severity = if command.refused() {
            sink::Severity::Notice
        } else {
            self.write_unenforced(&mut json)
        };
        (json, severity)
    }

    /// The record of a command about to replace a forked copy of the shell, as far as it is
    /// known, for the shell that will reap it to [`complete`](Trail::complete): the start
    /// time (monotonic), a newline, and the JSON so far.
    pub fn handoff(&self, command: &Command) -> String {
        let mut json = self.head("command");
        command.write(&mut json);
        format!("{}\n{}", monotonic_micros(), json.unfinished())
    }

    /// Sends a record handed over by [`handoff`](Trail::handoff), with how the command ended.
    pub fn complete(&mut self, handoff: &str, ended: &Ended) {
        let Some((start, partial)) = handoff.split_once('\n') else {
            return;
        };
        let mut ended = ended.clone();
        if let Ok(start) = start.parse::<u64>() {
            ended.duration = Some(Duration::from_micros(
                monotonic_micros().saturating_sub(start),
            ));
        }
        let mut json = Json::resume(partial);
        ended.write(&mut json);
        let severity = self.write_unenforced(&mut json);
        let _ = self.send(json, severity);
    }

    /// A line that did not run at all: a syntax error or an unsupported construct.
    pub fn line_refused(&mut self, line: &str, why: &str, cwd: &str) {
        let mut json = self.head("line-refused");
        json.str("cwd", cwd);
        json.str_max("line", line, record::LINE_MAX);
        json.str("reason", why);
        json.int("status", 2);
        let _ = self.send(json, sink::Severity::Notice);
    }

    /// The session's last record; only the session's own process sends it (a forked copy of
    /// the shell that ends is not the session ending).
    pub fn end(&mut self, status: i32) {
        if std::process::id() != self.session.pid {
            return;
        }
        let mut json = self.head("session-end");
        json.int("status", i64::from(status));
        json.float("duration_ms", millis(self.started.elapsed()));
        let _ = self.send(json, sink::Severity::Info);
    }

    /// In degraded mode, what the kernel did not enforce, and a warning's severity.
    fn write_unenforced(&self, json: &mut Json) -> sink::Severity {
        if self.unenforced.is_empty() {
            return sink::Severity::Info;
        }
        json.strings("unenforced", &self.unenforced);
        sink::Severity::Warning
    }

    fn head(&self, event: &str) -> Json {
        let s = &self.session;
        let mut json = Json::new();
        json.str("event", event);
        json.str("time", &record::utc_now());
        json.str("host", &s.host);
        json.str("session", &s.id);
        json.int("pid", i64::from(std::process::id()));
        json.int("session_pid", i64::from(s.pid));
        json.str("user", &s.user);
        json.int("uid", i64::from(s.uid));
        json.opt_str("tty", s.tty.as_deref());
        json.opt_str("ssh", s.ssh.as_deref());
        json
    }

    /// Sends a record; during an outage (with `required`), only once syslog took the record
    /// that ends it, so that nothing reaches syslog without the gap marked before it.
    fn send(&mut self, json: Json, severity: sink::Severity) -> Result<(), String> {
        let body = json.finish();
        if let Err(why) = self.ready() {
            self.sink.keep(&body);
            return Err(why);
        }
        self.sink.send(&body, severity)
    }
}

/// Microseconds on the monotonic clock, the same in every process.
fn monotonic_micros() -> u64 {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() as u64 * 1_000_000 + t.tv_nsec() as u64 / 1000)
        .unwrap_or(0)
}

pub(crate) fn millis(d: Duration) -> f64 {
    d.as_micros() as f64 / 1000.0
}
