//! `[audit]`: where the record of every command goes, checked when the policy is loaded.

use std::path::PathBuf;

use toml::Spanned;

use super::schema::RawAudit;

/// The syslog facilities a policy may name.
pub const FACILITIES: &[&str] = &[
    "auth", "authpriv", "cron", "daemon", "ftp", "lpr", "mail", "news", "syslog", "user", "uucp",
    "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
];

/// `[audit]` as the policy set it, with its defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
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
