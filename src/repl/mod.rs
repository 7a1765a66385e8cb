//! Reading commands from standard input: a script piped in (`rsh -s`, `echo cmd | rsh`) or a
//! person at a terminal.
//!
//! Input is read a line at a time and run as soon as it forms complete commands, so a program
//! that feeds rsh through a pipe gets each answer before sending the next command, and a
//! command that reads standard input itself gets the lines after it, as with bash. At a
//! terminal, prompts are shown as bash shows them (see `prompt`); line editing, history and
//! job control for terminals come with the interactive shell.

mod editor;
mod history;
mod idle;
mod prompt;

use crate::interp::Shell;
use crate::parse;
use crate::spawn::{self, fd};

/// Where lines come from, and what an interactive shell keeps around reading them.
struct Input {
    interactive: bool,
    /// Line editing (see `editor::wanted`).
    editor: Option<editor::LineEditor>,
    history: Option<history::HistoryFile>,
    idle: Option<idle::Idle>,
}

impl Input {
    fn new(shell: &mut Shell, interactive: bool) -> Result<Input, String> {
        let mut input = Input {
            interactive,
            editor: None,
            history: None,
            idle: None,
        };
        if !interactive {
            return Ok(input);
        }
        input.history = history::HistoryFile::for_shell(shell);
        if let Some(file) = &mut input.history {
            file.load(shell);
        }
        if editor::wanted() {
            input.editor = Some(editor::LineEditor::new(shell)?);
        }
        if let Some(timeout) = shell.policy().session().idle_timeout {
            input.idle = Some(idle::Idle::new(timeout)?);
        }
        Ok(input)
    }

    /// The next line, with `prompt` shown first at a terminal.
    fn read(&mut self, shell: &mut Shell, prompt: &str) -> editor::Read {
        if let Some(idle) = &mut self.idle {
            idle.arm();
        }
        // Checked each time: `exec >file` or `exec <file` may have taken the terminal away.
        let editor = self.editor.as_mut().filter(|_| editor::wanted());
        let read = if let Some(editor) = editor {
            editor.read_line(shell, prompt)
        } else {
            if self.interactive {
                let _ = fd::write_all(2, prompt.as_bytes());
            }
            match read_line(0) {
                Ok(Some(line)) => match parse::utf8_text(&line) {
                    Ok(text) => editor::Read::Line(text.to_owned()),
                    Err(err) => editor::Read::NotText {
                        line: String::from_utf8_lossy(&line).into_owned(),
                        why: err.to_string(),
                    },
                },
                Ok(None) => editor::Read::End,
                Err(errno) => editor::Read::Failed(crate::errno_text(errno)),
            }
        };
        if let Some(idle) = &self.idle {
            idle.disarm();
            // Whatever came is dropped: a line cut short by the timeout, or a whole one that
            // came as the alarm went off (standard input is /dev/null by now).
            if idle.fired() {
                return editor::Read::End;
            }
        }
        read
    }

    /// Whether the input ended because the idle timeout ran out (then says so).
    fn timed_out(&self) -> bool {
        let Some(idle) = &self.idle else {
            return false;
        };
        if !idle.fired() {
            return false;
        }
        idle.restore_terminal(self.editor.is_some());
        let _ = fd::write_all(
            2,
            format!(
                "\nrsh: no command line in {} s (shell.idle_timeout): the session ends\n",
                idle.seconds()
            )
            .as_bytes(),
        );
        tracing::debug!("idle timeout");
        true
    }

    /// Puts a line about to run in the history (where `history` shows it, as in bash),
    /// unless it starts with a blank. Whether it was added.
    fn note(&mut self, shell: &mut Shell, text: &str) -> bool {
        self.interactive && !text.starts_with([' ', '\t']) && shell.history.add(text)
    }

    /// After the line ran: a line with something refused in it is taken out again
    /// (`refusals_before`: the shell's count before it ran); the others go to the file.
    fn settle(&mut self, shell: &mut Shell, added: bool, refusals_before: u64) {
        if !added {
            return;
        }
        if shell.refusals() != refusals_before {
            shell.history.forget_last();
        } else if let (Some(file), Some(entry)) = (&mut self.history, shell.history.last()) {
            file.append(entry);
        }
    }
}

pub fn run_stdin(shell: &mut Shell, interactive: bool) -> i32 {
    if interactive {
        spawn::signals::ignore_interactive_signals();
        // Without the handler a hang-up still ends rsh, by the signal's default action; the
        // watcher then ends the jobs it kept.
        let _ = spawn::signals::catch_hang_up();
    }
    let mut input = match Input::new(shell, interactive) {
        Ok(input) => input,
        Err(message) => {
            let _ = fd::write_all(2, format!("rsh: cannot start: {message}\n").as_bytes());
            return 126;
        }
    };
    let mut pending = String::new();
    let mut status = 0;
    let mut number = 1;
    // Reads that failed in a row because a job had taken the terminal.
    let mut taken = 0;
    loop {
        if interactive {
            shell.take_back_terminal();
        }
        if interactive && pending.is_empty() {
            // Ctrl-C that a subshell or `$( )` of the last line took was for that line, not
            // for PROMPT_COMMAND or the prompt's substitutions.
            spawn::signals::take_ctrl_c();
            // As bash does before a prompt: what became of the kept jobs.
            shell.check_kept_jobs();
            if let Err(code) = prompt::run_prompt_command(shell) {
                return code;
            }
        }
        let prompt = if interactive {
            prompt_text(shell, pending.is_empty(), number)
        } else {
            String::new()
        };
        let read = input.read(shell, &prompt);
        if interactive && spawn::signals::hung_up() {
            // The terminal is gone: the session ends (see `cli::run`).
            return 128 + libc::SIGHUP;
        }
        let line = match read {
            editor::Read::Line(line) => line,
            editor::Read::End if input.timed_out() => return shell.last_status(),
            editor::Read::End => break,
            editor::Read::Interrupted => {
                // As bash: the line is dropped, and `$?` says why.
                pending.clear();
                shell.set_last_status(130);
                continue;
            }
            // A kept job took the terminal while the line was being read (the read fails
            // then): the shell takes it back and reads again, a few times at most.
            editor::Read::Failed(_) if interactive && taken < 3 && shell.take_back_terminal() => {
                taken += 1;
                pending.clear();
                continue;
            }
            editor::Read::Failed(why) => {
                let _ = fd::write_all(2, format!("rsh: reading input: {why}\n").as_bytes());
                return 2;
            }
            editor::Read::NotText { line, why } => {
                let _ = fd::write_all(2, format!("rsh: {why}\n").as_bytes());
                pending.push_str(&line);
                shell.audit_line_refused(&pending, &why);
                shell.set_last_status(2);
                pending.clear();
                // As at a syntax error: a script stops, a person gets the prompt back.
                if interactive {
                    continue;
                }
                return 2;
            }
        };
        taken = 0;
        pending.push_str(&line);
        if parse::needs_more_input(&pending) {
            continue;
        }
        let text = std::mem::take(&mut pending);
        if interactive {
            // One that came while the line was read is not for the line.
            spawn::signals::take_ctrl_c();
            // PS0: after the command is read, before it runs (bash 4.4).
            let shown = prompt::render(shell, "PS0", "", number);
            let _ = fd::write_all(2, shown.as_bytes());
            number += 1;
            // Ctrl-C in PS0's substitution abandons the line before it runs, as in bash.
            if shell.take_interrupt() {
                shell.set_last_status(128 + libc::SIGINT);
                continue;
            }
        }
        let refusals = shell.refusals();
        let added = input.note(shell, &text);
        let ran = run_chunk(shell, &text, interactive);
        input.settle(shell, added, refusals);
        match ran {
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

/// `PS1` before a command, `PS2` on its continuation lines.
fn prompt_text(shell: &mut Shell, first_line: bool, number: usize) -> String {
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
    // Ctrl-C in its substitution abandons only the prompt's text, not the next line.
    shell.take_interrupt();
    text
}

/// One line including its newline; None at end of input. Byte by byte, so that what follows
/// stays in the input for the commands that read it.
fn read_line(input: i32) -> Result<Option<Vec<u8>>, nix::errno::Errno> {
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
    Ok(Some(bytes))
}
