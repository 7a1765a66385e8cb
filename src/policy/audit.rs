//! `[audit]`, where the record of every command goes, and `[approval]`, how commands the
//! policy asks about are confirmed: checked when the policy is loaded.

use std::path::PathBuf;

use toml::Spanned;

use super::schema::{RawApproval, RawAudit};
use serde::{Deserialize, Serialize};

/// The syslog facilities a policy may name.
pub const FACILITIES: &[&str] = &[
    "auth", "authpriv", "cron", "daemon", "ftp", "lpr", "mail", "news", "syslog", "user", "uucp",
    "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
];

/// `[audit]` as the policy set it, with its defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditConfig {
    /// Records go to syslog (else only to `fallback`, when set).
    pub syslog: bool,
    /// One of [`FACILITIES`].
    pub facility: String,
    /// The syslog daemon's socket.
    pub socket: PathBuf,
    /// No command runs unless syslog takes its record.
    pub required: bool,
    /// Where records go when syslog cannot take them.
    pub fallback: Option<PathBuf>,
    /// The policy has an `[audit]` table: the administrator counts on the records, so a
    /// missing syslog socket is worth a warning.
    pub configured: bool,
}

impl Default for AuditConfig {
    fn default() -> AuditConfig {
        AuditConfig {
            syslog: true,
            facility: "authpriv".to_owned(),
            socket: PathBuf::from("/dev/log"),
            required: false,
            fallback: None,
            configured: false,
        }
    }
}

impl AuditConfig {
    /// Reads `[audit]`; a problem is reported with the byte offset of the value it is about.
    pub(crate) fn from_raw(raw: RawAudit) -> Result<AuditConfig, (usize, String)> {
        let mut config = AuditConfig {
            configured: true,
            ..AuditConfig::default()
        };
        if let Some(facility) = raw.facility {
            let offset = facility.span().start;
            let name = facility.into_inner();
            if !FACILITIES.contains(&name.as_str()) {
                return Err((
                    offset,
                    format!(
                        "audit.facility: {name:?} is not a syslog facility (one of {})",
                        FACILITIES.join(", ")
                    ),
                ));
            }
            config.facility = name;
        }
        if let Some(socket) = raw.socket {
            config.socket = absolute("socket", socket)?;
        }
        if let Some(fallback) = raw.fallback {
            config.fallback = Some(absolute("fallback", fallback)?);
        }
        config.syslog = raw.syslog.unwrap_or(true);
        if let Some(required) = raw.required {
            config.required = *required.get_ref();
            if config.required && !config.syslog {
                return Err((
                    required.span().start,
                "audit.required = true needs audit.syslog = true: records are required of syslog"
                    .to_owned(),
                ));
            }
        }
        Ok(config)
    }
}

fn absolute(key: &str, value: Spanned<String>) -> Result<PathBuf, (usize, String)> {
    let offset = value.span().start;
    let text = value.into_inner();
    if text.starts_with('/') {
        Ok(PathBuf::from(text))
    } else {
        Err((
            offset,
            format!("audit.{key}: {text:?} is not an absolute path"),
        ))
    }
}

/// `[approval]` as the policy set it, with its defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalConfig {
    /// How long a question waits for its answer, then it is "no".
    pub timeout: std::time::Duration,
    /// How long an "always" answer holds.
    pub remember: std::time::Duration,
    /// Without a terminal, ask this program (else refuse).
    pub approver: Option<PathBuf>,
}

/// The longest `timeout` and `remember` a policy may set, in seconds.
pub const MAX_APPROVAL_TIMEOUT: u64 = 3600;
pub const MAX_REMEMBER: u64 = 86_400;

impl Default for ApprovalConfig {
    fn default() -> ApprovalConfig {
        ApprovalConfig {
            timeout: std::time::Duration::from_secs(60),
            remember: std::time::Duration::from_secs(300),
            approver: None,
        }
    }
}

impl ApprovalConfig {
    pub(crate) fn from_raw(raw: RawApproval) -> Result<ApprovalConfig, (usize, String)> {
        let mut config = ApprovalConfig::default();
        let seconds = |key: &str, value: Spanned<u64>, min: u64, max: u64| {
            let offset = value.span().start;
            let n = value.into_inner();
            if (min..=max).contains(&n) {
                Ok(std::time::Duration::from_secs(n))
            } else {
                Err((
                    offset,
                    format!("approval.{key}: {n} is not between {min} and {max} seconds"),
                ))
            }
        };
        if let Some(timeout) = raw.timeout {
            config.timeout = seconds("timeout", timeout, 1, MAX_APPROVAL_TIMEOUT)?;
        }
        if let Some(remember) = raw.remember {
            config.remember = seconds("remember", remember, 0, MAX_REMEMBER)?;
        }
        let approver = match raw.approver {
            Some(path) => {
                let offset = path.span().start;
                let text = path.into_inner();
                if !text.starts_with('/') {
                    return Err((
                        offset,
                        format!("approval.approver: {text:?} is not an absolute path"),
                    ));
                }
                Some((offset, PathBuf::from(text)))
            }
            None => None,
        };
        // Without a terminal: the approver when there is one, else "no".
        let on_no_tty = raw.on_no_tty.map(|v| (v.span().start, v.into_inner()));
        match (on_no_tty, approver) {
            (None, approver) => config.approver = approver.map(|(_, path)| path),
            (Some((_, word)), Some((_, path))) if word == "approver" => {
                config.approver = Some(path)
            }
            (Some((_, word)), None) if word == "deny" => {}
            (Some((offset, word)), approver) => {
                let message = match (word.as_str(), approver) {
                    ("approver", _) => {
                        "approval.on_no_tty = \"approver\" needs approval.approver".to_owned()
                    }
                    ("deny", _) => "approval.on_no_tty = \"deny\": then approval.approver \
                                    would never be asked"
                        .to_owned(),
                    _ => format!(
                        "approval.on_no_tty: expected \"deny\" or \"approver\", found {word:?}"
                    ),
                };
                return Err((offset, message));
            }
        }
        Ok(config)
    }
}
