//! `[shell] idle_timeout`: the session ends when no line comes for that long. An alarm
//! replaces standard input with /dev/null, so that whatever is reading the line (the editor
//! or the plain reader, both retrying after the signal) sees the end of input; the reader
//! then knows from `fired` that it was the timeout, and restores the terminal the editor
//! left in raw mode through a descriptor kept for that. The handler is `signals::end_input_on`'s.

use std::os::fd::{AsRawFd, OwnedFd};
use std::time::Duration;

use nix::sys::termios::{SetArg, Termios, tcgetattr, tcsetattr};

use crate::spawn::{fd, signals};

pub struct Idle {
    seconds: u32,
    /// The terminal, and its settings when the wait began.
    terminal: Option<(OwnedFd, Termios)>,
}

impl Idle {
    pub fn new(timeout: Duration) -> Result<Idle, String> {
        signals::end_input_on(libc::SIGALRM)
            .map_err(|e| format!("idle timeout: /dev/null: {}", crate::errno_text(e)))?;
        let terminal = nix::unistd::dup(std::io::stdin())
            .ok()
            .and_then(|t| fd::to_shell_range(t).ok())
            .and_then(|t| {
                let settings = tcgetattr(&t).ok()?;
                Some((t, settings))
            });
        Ok(Idle {
            seconds: timeout.as_secs().clamp(1, u32::MAX as u64) as u32,
            terminal,
        })
    }

    /// Starts the wait for a line.
    pub fn arm(&mut self) {
        if let Some((terminal, settings)) = &mut self.terminal
            && let Ok(now) = tcgetattr(&*terminal)
        {
            *settings = now;
        }
        nix::unistd::alarm::set(self.seconds);
    }

    /// A line came (or the input ended by itself).
    pub fn disarm(&self) {
        nix::unistd::alarm::cancel();
    }

    /// Whether the wait ran out (also just after the line came: it is not run).
    pub fn fired(&self) -> bool {
        signals::noted(libc::SIGALRM)
    }

    /// After the wait ran out: the terminal gets back its settings and, where the line
    /// editor had it, bracketed paste turned off (the editor could not: its input was gone).
    pub fn restore_terminal(&self, editing: bool) {
        if let Some((terminal, settings)) = &self.terminal {
            let _ = tcsetattr(terminal, SetArg::TCSANOW, settings);
            if editing {
                let _ = fd::write_all(terminal.as_raw_fd(), b"\x1b[?2004l");
            }
        }
    }

    pub fn seconds(&self) -> u32 {
        self.seconds
    }
}
