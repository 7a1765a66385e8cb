//! `read`: one line (or delimited record) from a descriptor, split on IFS into variables.
//!
//! Reads byte by byte so that nothing after the delimiter is consumed: the rest of the input
//! belongs to whoever reads next, as in bash.

use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use crate::spawn::fd;

use super::{Outcome, Shell};

struct Options {
    raw: bool,
    prompt: Option<String>,
    delimiter: Option<u8>,
    max_chars: Option<usize>,
    exact_chars: bool,
    silent: bool,
    timeout: Option<Duration>,
    fd: RawFd,
}

/// Parses options; Err(status) after printing a message.
fn parse(shell: &Shell, argv: &[String]) -> Result<(Options, Vec<String>), i32> {
    let mut opts = Options {
        raw: false,
        prompt: None,
        delimiter: Some(b'\n'),
        max_chars: None,
        exact_chars: false,
        silent: false,
        timeout: None,
        fd: 0,
    };
    let mut i = 1;
    while i < argv.len() {
        let arg = &argv[i];
        if arg == "--" {
            i += 1;
            break;
        }
        if !arg.starts_with('-') || arg.len() < 2 {
            break;
        }
        let letters: Vec<char> = arg[1..].chars().collect();
        let mut j = 0;
        while j < letters.len() {
            let letter = letters[j];
            let takes_value = "pdnNtuie".contains(letter) && letter != 'e';
            let value = if takes_value {
                let inline: String = letters[j + 1..].iter().collect();
                j = letters.len();
                if inline.is_empty() {
                    i += 1;
                    match argv.get(i) {
                        Some(v) => v.clone(),
                        None => {
                            shell.builtin_error(
                                "read",
                                &format!("-{letter}: option requires an argument"),
                            );
                            return Err(2);
                        }
                    }
                } else {
                    inline
                }
            } else {
                j += 1;
                String::new()
            };
            match letter {
                'r' => opts.raw = true,
                's' => opts.silent = true,
                'e' => {}
                'i' => {}
                'p' => opts.prompt = Some(value),
                // `-d ''` reads up to a NUL byte.
                'd' => opts.delimiter = Some(value.bytes().next().unwrap_or(0)),
                'n' | 'N' => {
                    let n = value.parse::<usize>().map_err(|_| {
                        shell.builtin_error("read", &format!("{value}: invalid number"));
                        2
                    })?;
                    opts.max_chars = Some(n);
                    opts.exact_chars = letter == 'N';
                }
                't' => {
                    let secs = timeout_seconds(&value).ok_or_else(|| {
                        shell.builtin_error(
                            "read",
                            &format!("{value}: invalid timeout specification"),
                        );
                        1
                    })?;
                    // More seconds than a Duration holds: as good as no limit.
                    opts.timeout = Duration::try_from_secs_f64(secs).ok();
                }
                'u' => {
                    opts.fd = value
                        .parse::<RawFd>()
                        .ok()
                        .filter(|f| fd::is_open(*f))
                        .ok_or_else(|| {
                            shell.builtin_error(
                                "read",
                                &format!("{value}: invalid file descriptor specification"),
                            );
                            1
                        })?;
                }
                'a' => {
                    shell.builtin_error("read", "-a: arrays are not supported by rsh");
                    return Err(2);
                }
                _ => {
                    shell.builtin_error("read", &format!("-{letter}: invalid option"));
                    return Err(2);
                }
            }
        }
        i += 1;
    }
    let names = argv[i..].to_vec();
    for name in &names {
        if !super::super::vars::is_name(name) {
            shell.builtin_error("read", &format!("`{name}': not a valid identifier"));
            return Err(1);
        }
    }
    Ok((opts, names))
}

/// A character read, and whether a backslash protected it from splitting.
type Chars = Vec<(char, bool)>;

pub fn read(shell: &mut Shell, argv: &[String]) -> Outcome {
    let (opts, names) = match parse(shell, argv) {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    if let Some(prompt) = &opts.prompt {
        if nix::unistd::isatty(std::io::stdin()).unwrap_or(false) {
            let _ = fd::write_all(2, prompt.as_bytes());
        }
    }
    if opts.timeout == Some(Duration::ZERO) {
        // bash reads nothing then: the status says whether there is input to read.
        let now = Instant::now();
        let ready = wait_input(opts.fd, Some(now), false) == Waited::Ready;
        return Ok(if ready { 0 } else { 1 });
    }
    let echo_guard = opts.silent.then(|| EchoOff::new(opts.fd)).flatten();
    // A descriptor not open to read never polls readable: its read fails at once instead.
    let interruptible = shell.mode() == super::super::Mode::Interactive && fd::is_readable(opts.fd);
    let (chars, status) = read_record(&opts, interruptible);
    drop(echo_guard);
    let status = match status {
        ReadEnd::Delimiter => 0,
        ReadEnd::Eof => 1,
        ReadEnd::Timeout => 142,
        // As in bash: nothing is assigned, and the line is abandoned.
        ReadEnd::Interrupted => {
            shell.ctrl_c_came();
            return Ok(128 + libc::SIGINT);
        }
        ReadEnd::Error(message) => {
            shell.builtin_error("read", &message);
            return Ok(1);
        }
    };
    let ifs = shell.vars.value("IFS").unwrap_or(" \t\n").to_string();
    let values = if names.is_empty() {
        vec![chars.iter().map(|(c, _)| *c).collect::<String>()]
    } else {
        split(&chars, &ifs, names.len())
    };
    let names = if names.is_empty() {
        vec!["REPLY".to_string()]
    } else {
        names
    };
    for (name, value) in names.iter().zip(values) {
        if let Err(message) = shell.assign(name, value) {
            shell.builtin_error("read", &message);
            return Ok(1);
        }
    }
    Ok(status)
}

enum ReadEnd {
    Delimiter,
    Eof,
    Timeout,
    Interrupted,
    Error(String),
}

/// `interruptible`: Ctrl-C ends the wait for input (see `wait_input`).
fn read_record(opts: &Options, interruptible: bool) -> (Chars, ReadEnd) {
    // An absurdly long timeout is no timeout.
    let deadline = opts.timeout.and_then(|t| Instant::now().checked_add(t));
    let mut bytes: Vec<(u8, bool)> = Vec::new();
    let mut escaped = false;
    let mut count = 0usize;
    let end = loop {
        if opts.max_chars.is_some_and(|max| count >= max) {
            break ReadEnd::Delimiter;
        }
        if deadline.is_some() || interruptible {
            match wait_input(opts.fd, deadline, interruptible) {
                Waited::Ready => {}
                Waited::TimedOut => break ReadEnd::Timeout,
                Waited::Interrupted => break ReadEnd::Interrupted,
            }
        }
        let byte = match fd::read_byte(opts.fd) {
            Ok(Some(b)) => b,
            Ok(None) => break ReadEnd::Eof,
            Err(errno) => break ReadEnd::Error(crate::errno_text(errno)),
        };
        if escaped {
            escaped = false;
            if byte != b'\n' {
                bytes.push((byte, true));
                count += 1;
            }
            continue;
        }
        if !opts.exact_chars && Some(byte) == opts.delimiter {
            break ReadEnd::Delimiter;
        }
        if byte == b'\\' && !opts.raw {
            escaped = true;
            continue;
        }
        bytes.push((byte, false));
        count += 1;
    };
    (decode(&bytes), end)
}

/// Bytes to characters, keeping each character's escaped flag (lossy for invalid UTF-8).
fn decode(bytes: &[(u8, bool)]) -> Chars {
    let raw: Vec<u8> = bytes.iter().map(|(b, _)| *b).collect();
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let width = utf8_width(raw[i]);
        let decoded = raw
            .get(i..i + width)
            .and_then(|seq| std::str::from_utf8(seq).ok())
            .and_then(|s| s.chars().next());
        match decoded {
            Some(c) => {
                out.push((c, bytes[i].1));
                i += width;
            }
            None => {
                out.push(('\u{fffd}', bytes[i].1));
                i += 1;
            }
        }
    }
    out
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0xf0..=0xf7 => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[derive(PartialEq)]
enum Waited {
    Ready,
    TimedOut,
    /// Ctrl-C came at the interactive shell (see `signals::note_ctrl_c`).
    Interrupted,
}

/// Waits until `fd` has input (or an error for the read to report) or `deadline` passes; with
/// `interruptible`, until Ctrl-C too: `poll` fails with EINTR after a signal's handler, even
/// under SA_RESTART.
fn wait_input(fd: RawFd, deadline: Option<Instant>, interruptible: bool) -> Waited {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    loop {
        let timeout = match deadline {
            Some(deadline) => {
                let remaining = deadline.saturating_duration_since(Instant::now());
                let millis = remaining.as_millis().min(i32::MAX as u128) as i32;
                PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX)
            }
            None => PollTimeout::NONE,
        };
        let mut fds = [PollFd::new(fd::borrow(fd), PollFlags::POLLIN)];
        match poll(&mut fds, timeout) {
            Ok(0) => return Waited::TimedOut,
            Err(nix::errno::Errno::EINTR) => {
                if interruptible && crate::spawn::signals::ctrl_c_noted() {
                    return Waited::Interrupted;
                }
            }
            Ok(_) | Err(_) => return Waited::Ready,
        }
    }
}

/// Splits a record into `count` values: IFS delimits all but the last, which takes the rest.
fn split(chars: &[(char, bool)], ifs: &str, count: usize) -> Vec<String> {
    let is_white = |c: &(char, bool)| !c.1 && matches!(c.0, ' ' | '\t' | '\n') && ifs.contains(c.0);
    let is_delim = |c: &(char, bool)| !c.1 && ifs.contains(c.0);
    let mut values = Vec::with_capacity(count);
    let mut i = 0;
    while i < chars.len() && is_white(&chars[i]) {
        i += 1;
    }
    for _ in 0..count.saturating_sub(1) {
        let start = i;
        while i < chars.len() && !is_delim(&chars[i]) {
            i += 1;
        }
        values.push(chars[start..i].iter().map(|c| c.0).collect());
        // One delimiter: white space, at most one non-white character, white space.
        while i < chars.len() && is_white(&chars[i]) {
            i += 1;
        }
        if i < chars.len() && is_delim(&chars[i]) && !is_white(&chars[i]) {
            i += 1;
            while i < chars.len() && is_white(&chars[i]) {
                i += 1;
            }
        }
    }
    let mut end = chars.len();
    while end > i && is_white(&chars[end - 1]) {
        end -= 1;
    }
    values.push(chars[i.min(end)..end].iter().map(|c| c.0).collect());
    values
}

/// Turns terminal echo off for `read -s` and back on when dropped.
struct EchoOff {
    fd: RawFd,
    saved: nix::sys::termios::Termios,
}

impl EchoOff {
    fn new(fd: RawFd) -> Option<EchoOff> {
        use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
        let borrowed = fd::borrow(fd);
        let saved = tcgetattr(borrowed).ok()?;
        let mut quiet = saved.clone();
        quiet.local_flags.remove(LocalFlags::ECHO);
        tcsetattr(borrowed, SetArg::TCSANOW, &quiet).ok()?;
        Some(EchoOff { fd, saved })
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        use nix::sys::termios::{SetArg, tcsetattr};
        let _ = tcsetattr(fd::borrow(self.fd), SetArg::TCSANOW, &self.saved);
    }
}

/// `-t`'s seconds as bash takes them: digits with an optional fraction (no sign, exponent,
/// `inf` or `nan`); empty is 0.
fn timeout_seconds(value: &str) -> Option<f64> {
    if value.is_empty() {
        return Some(0.0);
    }
    let plain = value.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && value.bytes().filter(|&b| b == b'.').count() <= 1
        && value.bytes().any(|b| b.is_ascii_digit());
    plain.then(|| value.parse().ok()).flatten()
}
