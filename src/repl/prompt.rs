//! Prompts as bash shows them: `PROMPT_COMMAND` before each primary prompt, then `PS1`
//! (`PS2` for continuation lines, `PS0` after a command is read) decoded for its backslash
//! escapes (`\u`, `\h`, `\w`, `\$`, …) and, with `shopt promptvars` (the default), expanded for
//! parameters, command substitutions and arithmetic. Agents' harnesses parse the markers they
//! put in these prompts, so they must come out where and as bash prints them.
//!
//! What `PROMPT_COMMAND` and a `$(…)` in a prompt run is decided like any typed command.

use crate::expand::{self, ExpandEnv};
use crate::interp::{Flow, Shell};
use crate::parse;

/// Runs `PROMPT_COMMAND`, keeping `$?` for the prompt and the next command as bash does.
/// Err(status) when it ran `exit`.
pub(crate) fn run_prompt_command(shell: &mut Shell) -> Result<(), i32> {
    let Some(text) = shell.vars.value("PROMPT_COMMAND").map(str::to_string) else {
        return Ok(());
    };
    if text.trim().is_empty() {
        return Ok(());
    }
    let status = shell.last_status();
    let result = shell.run_text(&text);
    shell.set_last_status(status);
    match result {
        Err(Flow::Exit(code)) => Err(code),
        _ => Ok(()),
    }
}

/// The text to show for the prompt string in variable `name` (`fallback` when unset).
/// `number`: the number of the command about to be read (`\!`, `\#`).
pub(crate) fn render(shell: &mut Shell, name: &str, fallback: &str, number: usize) -> String {
    let raw = shell.vars.value(name).unwrap_or(fallback).to_string();
    if raw.is_empty() {
        return raw;
    }
    let promptvars = shell.remembered_options.get("promptvars") != Some(&false);
    let decoded = decode(shell, &raw, promptvars, number);
    if !promptvars {
        return decoded;
    }
    let status = shell.last_status();
    let expanded = parse::prompt_word(&decoded)
        .map_err(|err| err.to_string())
        .and_then(|word| expand::heredoc(shell, &word).map_err(|err| err.message));
    // A prompt's own substitutions do not change `$?`.
    shell.set_last_status(status);
    match expanded {
        // The here-document form adds the line break that ends its last line.
        Ok(mut text) => {
            if text.ends_with('\n') {
                text.pop();
            }
            text
        }
        Err(message) => {
            shell.error(&format!("prompt: {message}"));
            decoded
        }
    }
}

/// Replaces the backslash escapes of a prompt string. What they insert (a directory, a user
/// or host name) is protected from the expansion that follows, as in bash.
fn decode(shell: &Shell, raw: &str, protect: bool, number: usize) -> String {
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(code) = chars.next() else {
            out.push('\\');
            break;
        };
        let inserted = match code {
            'u' => user_name(),
            'h' => crate::policy::host_name()
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string(),
            'H' => crate::policy::host_name(),
            'w' => working_dir(shell, false),
            'W' => working_dir(shell, true),
            's' => shell_name(shell),
            'v' | 'V' => env!("CARGO_PKG_VERSION").to_string(),
            '$' if nix::unistd::geteuid().is_root() => "#".to_string(),
            '$' => "$".to_string(),
            'j' => "0".to_string(),
            'l' => terminal_name(),
            '!' | '#' => number.to_string(),
            't' => time_text("%H:%M:%S"),
            'T' => time_text("%I:%M:%S"),
            '@' => time_text("%I:%M %p"),
            'A' => time_text("%H:%M"),
            'd' => time_text("%a %b %d"),
            'D' if chars.peek() == Some(&'{') => {
                chars.next();
                let format: String = chars.by_ref().take_while(|&c| c != '}').collect();
                time_text(if format.is_empty() { "%X" } else { &format })
            }
            'n' => "\n".to_string(),
            'r' => "\r".to_string(),
            'a' => "\x07".to_string(),
            'e' => "\x1b".to_string(),
            // Not protected: it may escape what follows in the expansion, as in bash.
            '\\' => {
                out.push('\\');
                continue;
            }
            // Readline's markers around invisible text: nothing to mark without readline.
            '[' | ']' => String::new(),
            '0'..='7' => {
                let (value, digits) = parse::octal_escape(code, &mut chars);
                if digits < 3 {
                    // bash takes only three digits as a character code; fewer stay as text.
                    out.push_str(&format!("\\{value:0digits$o}"));
                    continue;
                }
                // A NUL would end bash's C string: it shows nothing.
                char::from_u32(value & 0xff)
                    .filter(|&c| c != '\0')
                    .map(String::from)
                    .unwrap_or_default()
            }
            other => {
                out.push('\\');
                out.push(other);
                continue;
            }
        };
        if protect {
            for c in inserted.chars() {
                if matches!(c, '$' | '`' | '\\') {
                    out.push('\\');
                }
                out.push(c);
            }
        } else {
            out.push_str(&inserted);
        }
    }
    out
}

fn user_name() -> String {
    nix::unistd::User::from_uid(nix::unistd::geteuid())
        .ok()
        .flatten()
        .map(|user| user.name)
        .unwrap_or_else(|| "I have no name!".to_string())
}

/// `\w`: `$PWD` with the home directory shown as `~`; `\W`: its last component.
fn working_dir(shell: &Shell, last_only: bool) -> String {
    let pwd = shell
        .vars
        .value("PWD")
        .map(str::to_string)
        .unwrap_or_else(|| shell.cwd().display().to_string());
    let home = shell.vars.value("HOME").unwrap_or("");
    let tilde = !home.is_empty()
        && home != "/"
        && (pwd == home || pwd.starts_with(&format!("{}/", home.trim_end_matches('/'))));
    if last_only {
        if !home.is_empty() && pwd == home {
            return "~".to_string();
        }
        return match pwd.rsplit_once('/') {
            Some((_, "")) | None => pwd,
            Some((_, last)) => last.to_string(),
        };
    }
    if tilde {
        format!("~{}", &pwd[home.trim_end_matches('/').len()..])
    } else {
        pwd
    }
}

/// `\s`: the name the shell was started as, without its directory.
fn shell_name(shell: &Shell) -> String {
    let zero = shell.positional(0).unwrap_or_default();
    let name = zero.rsplit('/').next().unwrap_or_default();
    name.trim_start_matches('-').to_string()
}

fn terminal_name() -> String {
    nix::unistd::ttyname(std::io::stdin())
        .ok()
        .and_then(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "tty".to_string())
}

/// The local time in a strftime format.
#[allow(unsafe_code)]
fn time_text(format: &str) -> String {
    let Ok(format) = std::ffi::CString::new(format) else {
        return String::new();
    };
    let mut buf = [0u8; 256];
    // SAFETY: time(NULL) has no memory effects; localtime_r fills the struct it is given;
    // strftime writes at most buf.len() bytes into buf and returns how many it wrote.
    let written = unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm = std::mem::zeroed::<libc::tm>();
        if libc::localtime_r(&now, &mut tm).is_null() {
            return String::new();
        }
        libc::strftime(buf.as_mut_ptr().cast(), buf.len(), format.as_ptr(), &tm)
    };
    String::from_utf8_lossy(&buf[..written]).into_owned()
}
