//! Reading commands from standard input: a script piped in (`rsh -s`, `echo cmd | rsh`) or a
//! person at a terminal.
//!
//! Input is read a line at a time and run as soon as it forms complete commands, so a program
//! that feeds rsh through a pipe gets each answer before sending the next command, and a
//! command that reads standard input itself gets the lines after it, as with bash. At a
//! terminal, prompts are shown as bash shows them (see `prompt`); line editing, history and
//! job control for terminals come with the interactive shell.

mod prompt;

use crate::interp::Shell;
use crate::parse;
use crate::spawn::{self, fd};

pub fn run_stdin(shell: &mut Shell, interactive: bool) -> i32 {
    if interactive {
        spawn::signals::ignore_interactive_signals();
    }
    let mut pending = String::new();
    let mut status = 0;
    let mut number = 1;
    loop {
        if interactive {
            if pending.is_empty()
                && let Err(code) = prompt::run_prompt_command(shell)
            {
                return code;
            }
            show_prompt(shell, pending.is_empty(), number);
        }
        let line = match read_line(0) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(errno) => {
                let _ = fd::write_all(
                    2,
                    format!("rsh: reading input: {}\n", errno.desc()).as_bytes(),
                );
                return 2;
            }
        };
        pending.push_str(&line);
        if parse::needs_more_input(&pending) {
            continue;
        }
        let text = std::mem::take(&mut pending);
        if interactive {
            // PS0: after the command is read, before it runs (bash 4.4).
            let shown = prompt::render(shell, "PS0", "", number);
            let _ = fd::write_all(2, shown.as_bytes());
            number += 1;
        }
        match run_chunk(shell, &text, interactive) {
            Chunk::Ran(s) => status = s,
            Chunk::Exit(s) => {
                if interactive {
                    // bash says so when `exit` ends an interactive shell.
                    let _ = fd::write_all(2, b"exit\n");
                }
                return s;
            }
        }
    }
    if interactive {
        let _ = fd::write_all(2, b"exit\n");
    }
    if !pending.trim().is_empty() {
        // End of input inside an unfinished command: that is a syntax error.
        let (Chunk::Exit(s) | Chunk::Ran(s)) = run_chunk(shell, &pending, false);
        return s;
    }
    if status == 0 {
        shell.last_status()
    } else {
        status
    }
}

enum Chunk {
    Ran(i32),
    Exit(i32),
}

fn run_chunk(shell: &mut Shell, text: &str, interactive: bool) -> Chunk {
    let program = match parse::parse(text) {
        Ok(program) => program,
        Err(err) => {
            let _ = fd::write_all(2, format!("rsh: {err}\n").as_bytes());
            shell.audit_line_refused(text, &err.to_string());
            shell.set_last_status(2);
            // A script stops at a syntax error, as bash's does; a person gets the prompt back.
            return if interactive {
                Chunk::Ran(2)
            } else {
                Chunk::Exit(2)
            };
        }
    };
    match shell.run_lines(&program) {
        Ok(status) => Chunk::Ran(status),
        Err(crate::interp::Flow::Exit(status)) => Chunk::Exit(status),
        Err(_) => Chunk::Ran(shell.last_status()),
    }
}

/// `PS1` before a command, `PS2` on its continuation lines, on standard error as in bash.
fn show_prompt(shell: &mut Shell, first_line: bool, number: usize) {
    let text = if first_line {
        let default = if nix::unistd::geteuid().is_root() {
            "# "
        } else {
            "$ "
        };
        prompt::render(shell, "PS1", default, number)
    } else {
        prompt::render(shell, "PS2", "> ", number)
    };
    let _ = fd::write_all(2, text.as_bytes());
}

/// One line including its newline; None at end of input. Byte by byte, so that what follows
/// stays in the input for the commands that read it.
fn read_line(input: i32) -> Result<Option<String>, nix::errno::Errno> {
    let mut bytes = Vec::new();
    loop {
        match fd::read_byte(input)? {
            Some(b'\n') => {
                bytes.push(b'\n');
                break;
            }
            Some(byte) => bytes.push(byte),
            None if bytes.is_empty() => return Ok(None),
            None => break,
        }
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
