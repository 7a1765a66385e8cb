//! A program on a pseudo-terminal of its own, driven as agents' harnesses drive a shell
//! (pexpect, tmux): send lines and control characters, wait for text to appear.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Pty {
    master: OwnedFd,
    child: Child,
    /// Everything read and not yet consumed by `expect`.
    pending: String,
}

impl Pty {
    /// Starts `command` with the terminal as its standard streams and controlling terminal.
    /// `echo`: whether the terminal echoes input (pexpect's `echo=False` turns it off).
    pub fn spawn(command: Command, echo: bool) -> Pty {
        Pty::spawn_typed_ahead(command, echo, "")
    }

    /// As `spawn`, with `typed` already in the terminal's input when the program starts, as
    /// keys typed ahead are (whatever the machine's load, unlike keys sent once it runs).
    pub fn spawn_typed_ahead(mut command: Command, echo: bool, typed: &str) -> Pty {
        let pty = nix::pty::openpty(None, None).expect("openpty");
        if !typed.is_empty() {
            nix::unistd::write(&pty.master, typed.as_bytes()).expect("type ahead");
        }
        let mut termios = nix::sys::termios::tcgetattr(&pty.slave).expect("tcgetattr");
        termios
            .local_flags
            .set(nix::sys::termios::LocalFlags::ECHO, echo);
        nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &termios)
            .expect("tcsetattr");
        let slave = pty.slave;
        command
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: setsid and ioctl are async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("start the program on the terminal");
        Pty {
            master: pty.master,
            child,
            pending: String::new(),
        }
    }

    pub fn send(&mut self, text: &str) {
        nix::unistd::write(&self.master, text.as_bytes()).expect("write to the terminal");
    }

    pub fn send_line(&mut self, line: &str) {
        self.send(&format!("{line}\n"));
    }

    /// Waits for `needle`; returns what came before it and consumes both. Panics with what
    /// was seen if it does not come within `timeout`.
    pub fn expect(&mut self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(at) = self.pending.find(needle) {
                let before = self.pending[..at].to_string();
                self.pending.drain(..at + needle.len());
                return before;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.read_some(left) {
                panic!(
                    "{needle:?} did not come; the terminal showed {:?}",
                    self.pending
                );
            }
        }
    }

    /// Reads what arrives within `wait`; false at end of file or when nothing came.
    fn read_some(&mut self, wait: Duration) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(self.master.as_raw_fd()) };
        let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
        let millis = wait.as_millis().min(i32::MAX as u128) as i32;
        match poll(&mut fds, PollTimeout::try_from(millis).unwrap()) {
            Ok(n) if n > 0 => {}
            _ => return false,
        }
        let mut buf = [0u8; 4096];
        match nix::unistd::read(&self.master, &mut buf) {
            Ok(n) if n > 0 => {
                self.pending.push_str(&String::from_utf8_lossy(&buf[..n]));
                true
            }
            _ => false,
        }
    }

    /// Reads until nothing more arrives for `quiet`, and forgets it (a shell's greeting and
    /// first prompt, which differ between systems' rc files).
    pub fn drain(&mut self, quiet: Duration) {
        while self.read_some(quiet) {}
        self.pending.clear();
    }

    /// Waits for the program to end by itself (reading what it shows); its status and
    /// everything not yet consumed.
    pub fn wait(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                while self.read_some(Duration::from_millis(50)) {}
                return (status.code(), std::mem::take(&mut self.pending));
            }
            self.read_some(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!(
            "the program did not end; the terminal showed {:?}",
            self.pending
        );
    }

    /// Sends `exit` and waits for the program to end; its status.
    pub fn exit(mut self) -> Option<i32> {
        self.send_line("exit");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            self.read_some(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!(
            "the program did not exit; the terminal showed {:?}",
            self.pending
        );
    }
}

impl Pty {
    /// The program's process id.
    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// The terminal's foreground process group.
    pub fn foreground_group(&self) -> i32 {
        nix::unistd::tcgetpgrp(&self.master).map_or(-1, |pgid| pgid.as_raw())
    }

    /// Closes the terminal's master side, as a disconnected ssh client or a closed terminal
    /// window does: the kernel hangs up the session.
    pub fn hang_up(&mut self) {
        let null = std::fs::File::open("/dev/null").expect("open /dev/null");
        self.master = OwnedFd::from(null);
    }

    /// Waits up to `timeout` for the program to end; its exit status, or None if it did not.
    pub fn ended_within(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
