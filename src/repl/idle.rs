//! `[shell] idle_timeout`: the session ends when no line comes for that long. An alarm
//! replaces standard input with /dev/null, so that whatever is reading the line (the editor
//! or the plain reader, both retrying after the signal) sees the end of input; the reader
//! then knows from `fired` that it was the timeout, and restores the terminal the editor
//! left in raw mode through a descriptor kept for that.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Duration;

use nix::sys::termios::{SetArg, Termios, tcgetattr, tcsetattr};

use crate::spawn::fd;

static FIRED: AtomicBool = AtomicBool::new(false);
static NULL: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_alarm(_: libc::c_int) {
    FIRED.store(true, Ordering::SeqCst);
    let null = NULL.load(Ordering::SeqCst);
    if null >= 0 {
        // SAFETY: dup2 is async-signal-safe; errno is put back for the code interrupted.
        unsafe {
            let saved = *libc::__errno_location();
            libc::dup2(null, 0);
            *libc::__errno_location() = saved;
        }
    }
}

pub struct Idle {
    seconds: u32,
    _null: OwnedFd,
    /// The terminal, and its settings when the wait began.
    terminal: Option<(OwnedFd, Termios)>,
}

impl Idle {
    pub fn new(timeout: Duration) -> Result<Idle, String> {
        let null = nix::fcntl::open(
            "/dev/null",
            nix::fcntl::OFlag::O_RDONLY | nix::fcntl::OFlag::O_CLOEXEC,
            nix::sys::stat::Mode::empty(),
        )
        .and_then(fd::to_shell_range)
        .map_err(|e| format!("idle timeout: /dev/null: {}", e.desc()))?;
        // Not marked as rsh's own: /dev/null and the terminal are every program's too.
        NULL.store(null.as_raw_fd(), Ordering::SeqCst);
        // SAFETY: a handler that only stores and calls dup2; SA_RESTART so that a read
        // restarts, now on /dev/null.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_alarm as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGALRM, &action, std::ptr::null_mut());
        }
        let terminal = nix::unistd::dup(std::io::stdin())
            .ok()
            .and_then(|t| fd::to_shell_range(t).ok())
            .and_then(|t| {
                let settings = tcgetattr(&t).ok()?;
                Some((t, settings))
            });
        Ok(Idle {
            seconds: timeout.as_secs().clamp(1, u32::MAX as u64) as u32,
            _null: null,
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
        // SAFETY: alarm takes an integer.
        unsafe { libc::alarm(self.seconds) };
    }

    /// A line came (or the input ended by itself).
    pub fn disarm(&self) {
        // SAFETY: as above.
        unsafe { libc::alarm(0) };
    }

    /// Whether the wait ran out (also just after the line came: it is not run).
    pub fn fired(&self) -> bool {
        FIRED.load(Ordering::SeqCst)
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
