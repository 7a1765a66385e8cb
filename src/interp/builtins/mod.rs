//! Builtins: commands the shell runs in-process. They are decided by the policy like any other
//! command before they run (see `simple.rs`); here is only what they do.
//!
//! Each builtin takes the expanded argv (argv[0] is its name) and returns its status or the
//! control flow it starts. Output goes straight to descriptor 1 (unbuffered, so a fork never
//! duplicates it); messages go to descriptor 2 with an `rsh: name:` prefix.

mod cd;
mod compgen;
pub mod declare;
pub mod echo;
pub mod getopts;
mod kind;
pub mod printf;
mod read;
mod session;
pub mod set;
mod source;
pub mod test;

use super::{Flow, Outcome, Shell};
use crate::expand;
use crate::spawn::fd::io_message;

pub type Builtin = fn(&mut Shell, &[String]) -> Outcome;

/// Every builtin rsh implements, by name. Sorted by name (byte order): `lookup` searches it by bisection.
const BUILTINS: &[(&str, Builtin)] = &[
    (".", source::source),
    (":", colon),
    ("[", bracket),
    ("alias", kind::alias),
    ("break", break_),
    ("builtin", kind::builtin),
    ("cd", cd::cd),
    ("command", kind::command),
    ("compgen", compgen::compgen),
    ("continue", continue_),
    ("declare", declare::declare),
    ("echo", echo_),
    ("eval", eval),
    ("exec", exec),
    ("exit", exit),
    ("export", declare::export),
    ("false", false_),
    ("fg", super::jobs::fg),
    ("getopts", getopts::getopts),
    ("hash", kind::hash),
    ("help", session::help),
    ("history", session::history),
    ("jobs", super::jobs::jobs),
    ("let", let_),
    ("local", declare::local),
    ("logout", session::logout),
    ("printf", printf_),
    ("pwd", cd::pwd),
    ("read", read::read),
    ("readonly", declare::readonly),
    ("return", return_),
    ("set", set::set),
    ("shift", shift),
    ("shopt", set::shopt),
    ("source", source::source),
    ("test", test_),
    ("true", colon),
    ("type", kind::type_),
    ("typeset", declare::declare),
    ("unalias", kind::unalias),
    ("unset", declare::unset),
    ("wait", wait),
];

/// bash builtins rsh deliberately does not provide; naming them gives a clear refusal rather
/// than a "command not found" or, worse, an external program of that name.
const REFUSED: &[&str] = &[
    "bg",
    "bind",
    "caller",
    "complete",
    "compopt",
    "coproc",
    "dirs",
    "disown",
    "enable",
    "fc",
    "kill",
    "mapfile",
    "popd",
    "pushd",
    "readarray",
    "suspend",
    "times",
    "trap",
    "ulimit",
    "umask",
];

/// Whether `name` is a builtin rsh recognises but refuses to run (`trap`, `coproc`, ...).
pub(crate) fn is_refused(name: &str) -> bool {
    REFUSED.contains(&name)
}

pub fn lookup(name: &str) -> Option<Builtin> {
    if REFUSED.contains(&name) {
        return Some(refused);
    }
    BUILTINS
        .binary_search_by(|(n, _)| n.cmp(&name))
        .ok()
        .map(|i| BUILTINS[i].1)
}

/// Names rsh recognises as builtins (implemented or refused).
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS
        .iter()
        .map(|(n, _)| *n)
        .chain(REFUSED.iter().copied())
}

/// POSIX special builtins: a function may not take their name.
pub fn is_special(name: &str) -> bool {
    matches!(
        name,
        ":" | "."
            | "break"
            | "continue"
            | "eval"
            | "exec"
            | "exit"
            | "export"
            | "readonly"
            | "return"
            | "set"
            | "shift"
            | "source"
            | "times"
            | "trap"
            | "unset"
    )
}

/// Shell keywords, for `type`.
pub fn is_keyword(name: &str) -> bool {
    matches!(
        name,
        "if" | "then"
            | "else"
            | "elif"
            | "fi"
            | "case"
            | "esac"
            | "for"
            | "select"
            | "while"
            | "until"
            | "do"
            | "done"
            | "in"
            | "function"
            | "time"
            | "{"
            | "}"
            | "!"
            | "[["
            | "]]"
            | "coproc"
    )
}

/// A command line for messages: arguments quoted where needed, long lines shortened.
pub fn display_command(argv: &[String]) -> String {
    const LIMIT: usize = 200;
    let text = quote_command(argv);
    if text.chars().count() <= LIMIT {
        return text;
    }
    let mut short: String = text.chars().take(LIMIT).collect();
    short.push('…');
    short
}

/// A command line in full, arguments quoted where needed (control characters escaped).
pub fn quote_command(argv: &[String]) -> String {
    argv.iter()
        .map(|a| quote_for_trace(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Quotes a word the way `set -x` shows it: bare when safe, else in single quotes.
pub fn quote_for_trace(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=+:,@%^".contains(c));
    if safe {
        word.to_string()
    } else if word.chars().any(|c| c.is_control()) {
        printf::quote(word)
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

impl Shell {
    /// `rsh: name: message`
    pub(crate) fn builtin_error(&self, name: &str, message: &str) {
        self.error(&format!("{name}: {message}"));
    }

    /// Writes builtin output; a failed write is the builtin's failure, as in bash.
    pub(crate) fn write_out(&self, name: &str, bytes: &[u8]) -> i32 {
        match self.out(bytes) {
            Ok(()) => 0,
            Err(errno) => {
                let reason = io_message(&std::io::Error::from_raw_os_error(errno as i32));
                self.builtin_error(name, &format!("write error: {reason}"));
                1
            }
        }
    }
}

fn refused(shell: &mut Shell, argv: &[String]) -> Outcome {
    shell.builtin_error(&argv[0], "not supported by rsh");
    Ok(2)
}

fn colon(_: &mut Shell, _: &[String]) -> Outcome {
    Ok(0)
}

fn false_(_: &mut Shell, _: &[String]) -> Outcome {
    Ok(1)
}

fn echo_(shell: &mut Shell, argv: &[String]) -> Outcome {
    let out = echo::echo(&argv[1..]);
    Ok(shell.write_out("echo", &out))
}

fn printf_(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut args = &argv[1..];
    let mut target = None;
    let mut options_ended = false;
    loop {
        match args.first().map(String::as_str) {
            Some("-v") if args.len() >= 2 => {
                target = Some(args[1].clone());
                args = &args[2..];
            }
            Some(opt) if opt.starts_with("-v") && opt.len() > 2 => {
                target = Some(opt[2..].to_string());
                args = &args[1..];
            }
            Some("--") => {
                args = &args[1..];
                options_ended = true;
                break;
            }
            _ => break,
        }
    }
    let Some((format, rest)) = args.split_first() else {
        shell.builtin_error("printf", "usage: printf [-v var] format [arguments]");
        return Ok(2);
    };
    if format.starts_with('-') && format.len() > 1 && !options_ended {
        shell.builtin_error("printf", &format!("{format}: invalid option"));
        return Ok(2);
    }
    let result = printf::printf(format, rest);
    for message in &result.errors {
        shell.builtin_error("printf", message);
    }
    let status = match target {
        Some(name) => {
            if !super::vars::is_name(&name) {
                shell.builtin_error("printf", &format!("`{name}': not a valid identifier"));
                return Ok(2);
            }
            let value = String::from_utf8_lossy(&result.out).into_owned();
            if let Err(message) = shell.assign(&name, value) {
                shell.builtin_error("printf", &message);
                return Ok(1);
            }
            result.status
        }
        None => shell.write_out("printf", &result.out).max(result.status),
    };
    Ok(status)
}

fn test_(shell: &mut Shell, argv: &[String]) -> Outcome {
    run_test(shell, "test", &argv[1..])
}

fn bracket(shell: &mut Shell, argv: &[String]) -> Outcome {
    match argv.last().map(String::as_str) {
        Some("]") if argv.len() > 1 => run_test(shell, "[", &argv[1..argv.len() - 1]),
        _ => {
            shell.builtin_error("[", "missing `]'");
            Ok(2)
        }
    }
}

fn run_test(shell: &mut Shell, name: &str, args: &[String]) -> Outcome {
    match test::test(args, shell) {
        Ok(true) => Ok(0),
        Ok(false) => Ok(1),
        Err(message) => {
            shell.builtin_error(name, &message);
            Ok(2)
        }
    }
}

/// Parses an optional numeric argument (`exit N`, `shift N`, `break N`).
fn numeric_arg(shell: &Shell, name: &str, arg: Option<&String>) -> Result<Option<i64>, i32> {
    match arg {
        None => Ok(None),
        Some(text) => text.trim().parse::<i64>().map(Some).map_err(|_| {
            shell.builtin_error(name, &format!("{text}: numeric argument required"));
            2
        }),
    }
}

fn exit(shell: &mut Shell, argv: &[String]) -> Outcome {
    if argv.len() > 2 {
        shell.builtin_error("exit", "too many arguments");
        return Ok(1);
    }
    if shell.warn_of_kept_jobs("exit") {
        return Ok(1);
    }
    match numeric_arg(shell, "exit", argv.get(1)) {
        Ok(Some(n)) => Err(Flow::Exit((n & 0xff) as i32)),
        Ok(None) => Err(Flow::Exit(shell.last_status())),
        Err(status) => Err(Flow::Exit(status)),
    }
}

fn return_(shell: &mut Shell, argv: &[String]) -> Outcome {
    if !shell.in_function() && shell.source_depth == 0 {
        shell.builtin_error(
            "return",
            "can only `return' from a function or sourced script",
        );
        return Ok(2);
    }
    match numeric_arg(shell, "return", argv.get(1)) {
        Ok(Some(n)) => Err(Flow::Return((n & 0xff) as i32)),
        Ok(None) => Err(Flow::Return(shell.last_status())),
        Err(status) => Err(Flow::Return(status)),
    }
}

fn loop_control(shell: &mut Shell, argv: &[String], make: fn(usize) -> Flow) -> Outcome {
    let n = match numeric_arg(shell, &argv[0], argv.get(1)) {
        Ok(n) => n.unwrap_or(1),
        // bash gives up on the whole script here.
        Err(_) => return Err(Flow::Exit(128)),
    };
    if n < 1 {
        shell.builtin_error(&argv[0], &format!("{n}: loop count out of range"));
        return Ok(1);
    }
    if shell.in_loop() == 0 {
        shell.builtin_error(
            &argv[0],
            "only meaningful in a `for', `while', or `until' loop",
        );
        return Ok(0);
    }
    Err(make((n as usize).min(shell.in_loop())))
}

fn break_(shell: &mut Shell, argv: &[String]) -> Outcome {
    loop_control(shell, argv, Flow::Break)
}

fn continue_(shell: &mut Shell, argv: &[String]) -> Outcome {
    loop_control(shell, argv, Flow::Continue)
}

fn shift(shell: &mut Shell, argv: &[String]) -> Outcome {
    let n = match numeric_arg(shell, "shift", argv.get(1)) {
        Ok(n) => n.unwrap_or(1),
        Err(status) => return Ok(status),
    };
    let count = shell.positional_args().len();
    if n < 0 {
        shell.builtin_error("shift", &format!("{n}: shift count out of range"));
        return Ok(1);
    }
    if n as usize > count {
        return Ok(1);
    }
    let rest = shell.positional_args()[n as usize..].to_vec();
    shell.set_positional(rest);
    Ok(0)
}

/// `eval`: the joined arguments are parsed and run as a line, with every command decided.
fn eval(shell: &mut Shell, argv: &[String]) -> Outcome {
    let args = match argv.get(1).map(String::as_str) {
        Some("--") => &argv[2..],
        _ => &argv[1..],
    };
    let text = args.join(" ");
    if text.trim().is_empty() {
        return Ok(0);
    }
    shell.run_text(&text)
}

fn let_(shell: &mut Shell, argv: &[String]) -> Outcome {
    if argv.len() < 2 {
        shell.builtin_error("let", "expression expected");
        return Ok(1);
    }
    let mut last = 0;
    for expr in &argv[1..] {
        match expand::arith_str(shell, expr) {
            Ok(value) => last = value,
            Err(err) => {
                shell.builtin_error("let", &err.message);
                return Ok(1);
            }
        }
    }
    Ok(i32::from(last == 0))
}

/// rsh runs no background jobs, so there is never anything to wait for.
/// rsh runs nothing in the background, so there is never anything to wait for: a pid or
/// job named is none of this shell's, as bash says of one that is not.
fn wait(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut status = 0;
    let mut args = argv.iter().skip(1);
    while let Some(arg) = args.next() {
        status = match arg.as_str() {
            "-n" => 127,
            "-f" => continue,
            // The variable to set to the pid waited for: none is.
            "-p" => {
                args.next();
                continue;
            }
            job if job.starts_with('%') => {
                shell.builtin_error("wait", &format!("{job}: no such job"));
                127
            }
            pid if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) => {
                let message = format!("pid {pid} is not a child of this shell");
                shell.builtin_error("wait", &message);
                127
            }
            other => {
                let message = format!("`{other}': not a pid or valid job spec");
                shell.builtin_error("wait", &message);
                1
            }
        };
    }
    Ok(status)
}

/// `exec` is run by the interpreter itself (it needs the command's redirections, see
/// `run_exec`); this entry only makes it a known builtin for `type` and the policy.
fn exec(shell: &mut Shell, _argv: &[String]) -> Outcome {
    shell.builtin_error(
        "exec",
        "cannot be run indirectly (through `command` or `builtin`)",
    );
    Ok(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_is_sorted_for_bisection() {
        for pair in BUILTINS.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} before {}", pair[0].0, pair[1].0);
        }
        for (name, _) in BUILTINS {
            assert!(lookup(name).is_some(), "{name} not found");
        }
    }
}
