//! `[output]`: redaction and truncation of the session's output, checked when the policy is
//! loaded (every pattern must compile).

use super::schema::RawOutput;
use serde::{Deserialize, Serialize};

/// `[output]` as the policy set it. Off unless the policy turns something on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputConfig {
    /// rsh's built-in patterns (tokens, passwords, private keys, cloud keys).
    pub redact: bool,
    /// The policy's own regular expressions; a group named `secret` limits what is replaced.
    pub patterns: Vec<String>,
    /// Bytes of each of standard output and standard error shown, then a notice.
    pub max_bytes: Option<u64>,
    /// Also for output that goes to a terminal (off: full-screen programs and colours keep
    /// working).
    pub terminals: bool,
}

impl OutputConfig {
    /// Whether anything is done to output at all.
    pub fn active(&self) -> bool {
        self.redact || !self.patterns.is_empty() || self.max_bytes.is_some()
    }

    pub(crate) fn from_raw(raw: RawOutput) -> Result<OutputConfig, (usize, String)> {
        let mut config = OutputConfig {
            redact: raw.redact.unwrap_or(false),
            terminals: raw.terminals.unwrap_or(false),
            ..OutputConfig::default()
        };
        for pattern in raw.patterns.map(|l| l.into_inner()).unwrap_or_default() {
            let offset = pattern.span().start;
            let text = pattern.into_inner();
            if let Err(e) = regex::bytes::Regex::new(&text) {
                let why = e.to_string().lines().last().unwrap_or_default().to_owned();
                return Err((
                    offset,
                    format!("output.patterns: {text:?} is not a regular expression: {why}"),
                ));
            }
            config.patterns.push(text);
        }
        if let Some(max) = raw.max_bytes {
            let offset = max.span().start;
            match max.into_inner().0 {
                0 => return Err((offset, "output.max_bytes: must be more than 0".to_owned())),
                n => config.max_bytes = Some(n),
            }
        }
        Ok(config)
    }
}
