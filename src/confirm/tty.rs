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
        let fd = fd::to_shell_range(tty).ok()?;
        let foreground = nix::unistd::tcgetpgrp(&fd).ok()? == nix::unistd::getpgrp();
        foreground.then_some(Terminal { fd })
    }

    /// Shows the question and waits up to `timeout` for one key: y, a (when `always` is
    /// offered); anything else is no. Keys typed before the question are thrown away: only an
    /// answer to it counts.
    pub fn ask(&self, q: &Question, timeout: Duration, always: Option<Duration>) -> Answer {
        let deadline = Instant::now() + timeout;
        // One question at a time on a terminal (stages of one pipeline may each have one):
        // otherwise they would interleave, one key would answer either, and each would put
        // back the terminal settings the other had changed.
        let Ok(_turn) = self.turn(deadline) else {
            return Answer::No(format!(
                "no answer within {} s (approval.timeout; another question held the terminal)",
                timeout.as_secs()
            ));
        };
        let saved = match termios::tcgetattr(&self.fd) {
            Ok(saved) => saved,
            Err(errno) => {
                return Answer::No(format!(
                    "cannot use the terminal: {}",
                    crate::errno_text(errno)
                ));
            }
        };
        let _restore = Restore {
            fd: &self.fd,
            saved: saved.clone(),
        };
        if let Err(errno) = termios::tcsetattr(&self.fd, SetArg::TCSANOW, &one_key(saved)) {
            return Answer::No(format!(
                "cannot use the terminal: {}",
                crate::errno_text(errno)
            ));
        }
        // Keys typed before the question is there (type-ahead, a paste, an agent's next line)
        // answer nothing; from the moment it shows, the first key is the answer.
        let _ = termios::tcflush(&self.fd, termios::FlushArg::TCIFLUSH);
        self.say(SANE_TERMINAL);
        self.say(&question_text(q, timeout, always.is_some()));
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
                // Anything else is not a yes.
                Key::Byte(other) => {
                    break Answer::No(format!("answered {:?}", char::from(other)));
                }
                Key::Nothing => continue,
            }
        };
        self.say(match answer {
            Answer::Once => "yes\n",
            Answer::Always(_) => "always\n",
            Answer::No(_) => "no\n",
        });
        answer
    }

    /// An exclusive lock on the terminal, waited for until `deadline` (Err: it was not
    /// free in time). Ok(None): the terminal cannot be locked at all; it is asked anyway.
    #[allow(clippy::result_unit_err)]
    fn turn(&self, deadline: Instant) -> Result<Option<nix::fcntl::Flock<OwnedFd>>, ()> {
        use nix::fcntl::{Flock, FlockArg};
        // Locked by the terminal's own device: `/dev/tty` is one file for every terminal.
        let Some(device) = terminal_device() else {
            return Ok(None);
        };
        loop {
            let Ok(file) = open(
                &device,
                OFlag::O_RDONLY | OFlag::O_NOCTTY | OFlag::O_CLOEXEC,
                Mode::empty(),
            ) else {
                return Ok(None);
            };
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(lock) => return Ok(Some(lock)),
                Err((_, nix::errno::Errno::EWOULDBLOCK)) => {
                    if Instant::now() >= deadline {
                        return Err(());
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(_) => return Ok(None),
            }
        }
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

/// The device of the controlling terminal (`/dev/pts/N`, `/dev/ttyN`), from its number in
/// `/proc/self/stat`.
fn terminal_device() -> Option<std::path::PathBuf> {
    let tty_nr = crate::spawn::procfs::read_stat("/proc/self/stat")
        .ok()??
        .terminal;
    let major = (tty_nr >> 8) & 0xfff;
    let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
    match major {
        136..=143 => Some(format!("/dev/pts/{}", (major - 136) * 256 + minor).into()),
        4 => Some(format!("/dev/tty{minor}").into()),
        _ => None,
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

/// The longest command shown; a longer one says how much is not shown.
const COMMAND_SHOWN: usize = 8192;

/// Written before the question, so that what a program printed earlier cannot shape how it
/// shows: the scroll region reset to the whole screen (between saving and restoring the
/// cursor, which the reset moves), no left and right margins, lines that wrap (not cut at
/// the edge), plain attributes (no hidden or reversed text), the ASCII character set, and a
/// visible cursor. A program still running can draw elsewhere on the screen; the question
/// itself is drawn whole, at the cursor.
const SANE_TERMINAL: &str = "\x1b7\x1b[r\x1b8\x1b[?69l\x1b[?7h\x1b[0m\x1b(B\x0f\x1b[?25h";

fn question_text(q: &Question, timeout: Duration, always: bool) -> String {
    let mut command = super::printable(q.command);
    if command.len() > COMMAND_SHOWN {
        let mut end = COMMAND_SHOWN;
        while !command.is_char_boundary(end) {
            end -= 1;
        }
        let left = command.len() - end;
        command.truncate(end);
        command.push_str(&format!(
            " …[{left} more bytes not shown; y allows all of it]"
        ));
    }
    let mut text = format!("rsh: confirm: {command}\n");
    if let Some(program) = q.program {
        text.push_str(&format!("  program: {}\n", super::printable(program)));
    }
    text.push_str(&format!("  why:     {}\n", super::printable(q.reason)));
    text.push_str(&format!(
        "  risk:    {}: {}\n",
        q.risk,
        super::printable(q.risk_reason)
    ));
    let choices = if always {
        "[y] allow once  [a] always (this session)  [n] deny"
    } else {
        "[y] allow once  [n] deny"
    };
    text.push_str(&format!("  {choices}  ({} s) ", timeout.as_secs()));
    text
}
