//! The question on the controlling terminal, answered with one key.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use nix::fcntl::{OFlag, open};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::stat::Mode;
use nix::sys::termios::{self, LocalFlags, SetArg, SpecialCharacterIndices, Termios};

use super::{Answer, Question};
use crate::spawn::fd;

pub struct Terminal {
    fd: OwnedFd,
}

impl Terminal {
    /// The controlling terminal, when rsh has one and is in its foreground (a background
    /// job reading it would be stopped).
    pub fn open() -> Option<Terminal> {
        let tty = open(
            "/dev/tty",
            OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        // rsh's own range, out of reach of redirections while the question is open.
        let fd = fd::save(tty.as_raw_fd(), crate::SHELL_FDS_FROM).ok()??;
        let foreground = nix::unistd::tcgetpgrp(&fd).ok()? == nix::unistd::getpgrp();
        foreground.then_some(Terminal { fd })
    }

    /// Shows the question and waits up to `timeout` for y, a (when `always` is offered), or
    /// n. Keys typed before the question are thrown away: only an answer to it counts.
    pub fn ask(&self, q: &Question, timeout: Duration, always: Option<Duration>) -> Answer {
        let saved = match termios::tcgetattr(&self.fd) {
            Ok(saved) => saved,
            Err(errno) => return Answer::No(format!("cannot use the terminal: {}", errno.desc())),
        };
        let _ = termios::tcflush(&self.fd, termios::FlushArg::TCIFLUSH);
        let _restore = Restore {
            fd: &self.fd,
            saved: saved.clone(),
        };
        if let Err(errno) = termios::tcsetattr(&self.fd, SetArg::TCSANOW, &one_key(saved)) {
            return Answer::No(format!("cannot use the terminal: {}", errno.desc()));
        }
        self.say(&question_text(q, timeout, always.is_some()));
        let deadline = Instant::now() + timeout;
        let answer = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break Answer::No(format!(
                    "no answer within {} s (approval.timeout)",
                    timeout.as_secs()
                ));
            }
            match self.key(left) {
                Key::Byte(b'y' | b'Y') => break Answer::Once,
                Key::Byte(b'a' | b'A') if always.is_some() => {
                    break Answer::Always(always.unwrap_or_default());
                }
                Key::Byte(b'n' | b'N') => break Answer::No("answered n".to_owned()),
                Key::Byte(0x03) => break Answer::No("Ctrl-C at the question".to_owned()),
                Key::Byte(0x04) | Key::End => {
                    break Answer::No("end of input at the question".to_owned());
                }
                Key::Byte(0x1b) => break Answer::No("Escape at the question".to_owned()),
                Key::Byte(_) | Key::Nothing => continue,
            }
        };
        self.say(match answer {
            Answer::Once => "yes\n",
            Answer::Always(_) => "always\n",
            Answer::No(_) => "no\n",
        });
        answer
    }

    fn say(&self, text: &str) {
        let _ = fd::write_all(self.fd.as_raw_fd(), text.as_bytes());
    }

    fn key(&self, wait: Duration) -> Key {
        let millis = wait.as_millis().min(i32::MAX as u128) as i32;
        let mut fds = [PollFd::new(self.fd.as_fd(), PollFlags::POLLIN)];
        match poll(
            &mut fds,
            PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX),
        ) {
            Ok(n) if n > 0 => {}
            _ => return Key::Nothing,
        }
        let mut byte = [0u8];
        match nix::unistd::read(&self.fd, &mut byte) {
            Ok(1) => Key::Byte(byte[0]),
            Ok(_) => Key::End,
            Err(nix::errno::Errno::EINTR | nix::errno::Errno::EAGAIN) => Key::Nothing,
            Err(_) => Key::End,
        }
    }
}

enum Key {
    Byte(u8),
    /// The terminal hung up.
    End,
    Nothing,
}

/// One key at a time, unechoed, with Ctrl-C and Ctrl-Z as plain keys (a "no"), not signals.
fn one_key(mut t: Termios) -> Termios {
    t.local_flags
        .remove(LocalFlags::ICANON | LocalFlags::ECHO | LocalFlags::ISIG | LocalFlags::IEXTEN);
    t.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
    t.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
    t
}

/// Puts the terminal back as it was, however the question ended.
struct Restore<'f> {
    fd: &'f OwnedFd,
    saved: Termios,
}

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        let _ = termios::tcsetattr(self.fd, SetArg::TCSANOW, &self.saved);
    }
}

fn question_text(q: &Question, timeout: Duration, always: bool) -> String {
    let mut text = format!("rsh: confirm: {}\n", q.command);
    if let Some(program) = q.program {
        text.push_str(&format!("  program: {program}\n"));
    }
    text.push_str(&format!("  why:     {}\n", q.reason));
    text.push_str(&format!("  risk:    {}: {}\n", q.risk, q.risk_reason));
    let choices = if always {
        "[y] allow once  [a] always (this session)  [n] deny"
    } else {
        "[y] allow once  [n] deny"
    };
    text.push_str(&format!("  {choices}  ({} s) ", timeout.as_secs()));
    text
}
