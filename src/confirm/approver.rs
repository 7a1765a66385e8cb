//! The approver program: one JSON request on its standard input, one JSON answer on its
//! standard output, within the approval timeout. It runs with an empty environment (but
//! PATH), in `/`: nothing of the user's environment (LD_PRELOAD, …) reaches the program that
//! decides for them. Its signals are put back as rsh found them by the caller's `prepare`.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Answer, Question};

/// The longest answer read.
const ANSWER_MAX: usize = 64 * 1024;

pub fn ask(approver: &Path, q: &Question, timeout: Duration, prepare: fn()) -> Answer {
    let deadline = Instant::now() + timeout;
    let mut command = Command::new(approver);
    command
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    // SAFETY: `prepare` is async-signal-safe, as `ask`'s caller promises.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            prepare();
            Ok(())
        });
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Answer::No(format!(
                "the approver {} cannot run: {e}",
                approver.display()
            ));
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        // The request is cut to fit the pipe, so the write never waits for the approver; one
        // that exits without reading it makes the write fail, and does not end rsh by SIGPIPE.
        let _ignored = IgnoreSigpipe::new();
        let _ = stdin.write_all(request(q).as_bytes());
    }
    let output = read_until(child.stdout.take(), deadline);
    let status = wait_until(&mut child, deadline);
    let Some(output) = output else {
        return Answer::No(format!(
            "the approver gave no answer within {} s",
            timeout.as_secs()
        ));
    };
    match status {
        Some(status) if status.success() => {}
        Some(status) => return Answer::No(format!("the approver failed ({status})")),
        None => {
            return Answer::No(format!(
                "the approver did not finish within {} s",
                timeout.as_secs()
            ));
        }
    }
    parse(&output)
}

/// The longest argument sent, how many, and the longest command line: even escaped six-fold
/// (`\u0001`), a request stays within a pipe's 64 KiB.
const ARG_MAX: usize = 256;
const ARGS_MAX: usize = 24;
const COMMAND_MAX: usize = 2048;

fn request(q: &Question) -> String {
    let cut = |text: &str, max: usize| -> String {
        let mut end = text.len().min(max);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        if end < text.len() {
            format!("{}…[{} bytes cut]", &text[..end], text.len() - end)
        } else {
            text.to_owned()
        }
    };
    let mut argv: Vec<String> = q
        .argv
        .iter()
        .take(ARGS_MAX)
        .map(|a| cut(a, ARG_MAX))
        .collect();
    if q.argv.len() > ARGS_MAX {
        argv.push(format!("[{} more arguments cut]", q.argv.len() - ARGS_MAX));
    }
    let value = serde_json::json!({
        "id": request_id(),
        "user": q.user,
        "host": q.host,
        "cwd": q.cwd,
        "argv": argv,
        "command": cut(q.command, COMMAND_MAX),
        "program": q.program,
        "reason": q.reason,
        "risk": q.risk.as_str(),
    });
    format!("{value}\n")
}

fn request_id() -> String {
    let mut bytes = [0u8; 8];
    let _ = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `{"decision": "allow" | "deny", "message": "…", "remember": SECONDS}`.
fn parse(output: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(output);
    let Some(value) = serde_json::from_str::<serde_json::Value>(text.trim())
        .ok()
        .filter(|v| v.is_object())
    else {
        return Answer::No("the approver's answer is not a JSON object".to_owned());
    };
    let message = value["message"]
        .as_str()
        .map(|m| format!(": {m}"))
        .unwrap_or_default();
    match value["decision"].as_str() {
        Some("allow") => match value["remember"].as_u64() {
            Some(seconds) if seconds > 0 => Answer::Always(Duration::from_secs(seconds)),
            _ => Answer::Once,
        },
        Some("deny") => Answer::No(format!("the approver said no{message}")),
        _ => Answer::No("the approver's answer has no decision \"allow\" or \"deny\"".to_owned()),
    }
}

/// Everything the approver writes until it closes its output, or None at the deadline.
fn read_until(stdout: Option<std::process::ChildStdout>, deadline: Instant) -> Option<Vec<u8>> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let mut stdout = stdout?;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let millis = left.as_millis().min(i32::MAX as u128) as i32;
        let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::POLLIN)];
        match poll(
            &mut fds,
            PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX),
        ) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return Some(out),
        }
        match stdout.read(&mut buf) {
            Ok(0) => return Some(out),
            Ok(n) if out.len() + n <= ANSWER_MAX => out.extend_from_slice(&buf[..n]),
            Ok(_) => return Some(b"(too long)".to_vec()),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Some(out),
        }
    }
}

/// The approver's status, or None (and it is killed) at the deadline.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> Option<std::process::ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// SIGPIPE ignored while it lives (rsh's default is to die by it, as programs expect).
struct IgnoreSigpipe(Option<nix::sys::signal::SigAction>);

impl IgnoreSigpipe {
    fn new() -> IgnoreSigpipe {
        use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
        let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
        // SAFETY: installs SIG_IGN, no handler code; restored in drop.
        #[allow(unsafe_code)]
        let old = unsafe { sigaction(Signal::SIGPIPE, &ignore) }.ok();
        IgnoreSigpipe(old)
    }
}

impl Drop for IgnoreSigpipe {
    fn drop(&mut self) {
        if let Some(old) = &self.0 {
            // SAFETY: puts back the action saved in `new`.
            #[allow(unsafe_code)]
            let _ = unsafe { nix::sys::signal::sigaction(nix::sys::signal::Signal::SIGPIPE, old) };
        }
    }
}
