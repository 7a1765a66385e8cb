//! `[shell]` settings for a person at a terminal: the prompt, history, the idle timeout and
//! the message of the day. They change nothing about what may run.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The default number of history entries kept.
pub const HISTORY_SIZE: usize = 1000;

/// Where history goes unless the policy says otherwise.
pub const HISTORY_FILE: &str = "~/.rsh_history";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionConfig {
    /// `PS1` when the environment does not give one (or may not: `prompt_from_env`).
    pub prompt: Option<String>,
    /// Whether a `PS1` in the environment is used (agents' harnesses set markers there).
    pub prompt_from_env: bool,
    /// The history file as written: absolute, or `~/` for the user's home directory. None:
    /// history is kept for the session only.
    pub history: Option<String>,
    /// Entries kept, in memory and in the file; 0 keeps none.
    pub history_size: usize,
    /// How long an interactive shell waits for a line before the session ends.
    pub idle_timeout: Option<Duration>,
    /// Shown when an interactive login starts.
    pub motd: Option<String>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            prompt: None,
            prompt_from_env: true,
            history: Some(HISTORY_FILE.to_string()),
            history_size: HISTORY_SIZE,
            idle_timeout: None,
            motd: None,
        }
    }
}

/// Why a `history` value cannot be used, if it cannot: a file that depends on the directory
/// rsh was started in would scatter history, and could land anywhere.
pub fn check_history_file(text: &str) -> Result<(), String> {
    if text.is_empty() || text.starts_with('/') || text.starts_with("~/") {
        Ok(())
    } else {
        Err(format!(
            "shell.history: {text:?} must be an absolute path or start with \"~/\" (\"\" keeps no file)"
        ))
    }
}
