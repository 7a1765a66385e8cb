//! Command wrappers: programs whose arguments are another command, which they run (`env`,
//! `nice`, `timeout`, `stdbuf`, `nohup`, `setsid`, `ionice`, `time`, `xargs`, `sudo`). The
//! inner command is decided as if it had been typed, and the whole only runs if both are
//! allowed. Pure knowledge of argv, like `args`.

/// What a wrapper's argv says about the command it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inner {
    /// The inner command's argv, as the wrapper will run it.
    Runs(Vec<String>),
    /// The wrapper runs something rsh cannot know from the line: why.
    Unknowable(String),
}

/// What an option takes, as getopt_long says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    /// Attached (`-n5`, `--max-args=5`) or the next word.
    Value,
    /// Only attached (`-i{}`, `--replace={}`): the next word is not its value.
    Optional,
}

use Takes::{Nothing, Optional, Value};

/// A wrapper's options, as its own getopt_long reads them (each stops at the first word that
/// is not an option). An option is named by its short form when it has one (`-S`), else by
/// its long form (`--block-signal`).
struct Wrapper {
    names: &'static [&'static str],
    /// Short options: each letter with what it takes.
    short: &'static [(char, Takes)],
    /// Long options: each name (without `--`), what it takes, and the option it is.
    long: &'static [(&'static str, Takes, &'static str)],
    /// Options that make the inner command unknowable, with why.
    opaque: &'static [(&'static str, &'static str)],
    /// Options after which the words are not a command (`ionice -p PID...`).
    no_command: &'static [&'static str],
    /// Positional words before the command (`timeout DURATION`).
    leading: usize,
}

const HELP: (&str, Takes, &str) = ("help", Nothing, "--help");
const VERSION: (&str, Takes, &str) = ("version", Nothing, "--version");

#[rustfmt::skip]
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &["env"],
        short: &[('i', Nothing), ('0', Nothing), ('u', Value), ('C', Value), ('S', Value),
            ('v', Nothing), ('a', Value)],
        long: &[
            ("ignore-environment", Nothing, "-i"), ("null", Nothing, "-0"),
            ("unset", Value, "-u"), ("chdir", Value, "-C"), ("split-string", Value, "-S"),
            ("block-signal", Optional, "--block-signal"),
            ("default-signal", Optional, "--default-signal"),
            ("ignore-signal", Optional, "--ignore-signal"),
            ("list-signal-handling", Nothing, "--list-signal-handling"),
            ("debug", Nothing, "-v"), ("argv0", Value, "-a"), HELP, VERSION,
        ],
        opaque: &[
            ("-S", "env -S splits a string into a command"),
            ("-C", "env -C runs the command from another directory"),
            // A multi-call program does what its name says: the name must be the one decided.
            ("-a", "env -a runs the command under another name"),
        ],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["nice"],
        short: &[('n', Value)],
        long: &[("adjustment", Value, "-n"), HELP, VERSION],
        opaque: &[],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["timeout"],
        short: &[('k', Value), ('s', Value), ('v', Nothing)],
        long: &[
            ("foreground", Nothing, "--foreground"), ("kill-after", Value, "-k"),
            ("preserve-status", Nothing, "--preserve-status"), ("signal", Value, "-s"),
            ("verbose", Nothing, "-v"), HELP, VERSION,
        ],
        opaque: &[],
        no_command: &[],
        leading: 1,
    },
    Wrapper {
        names: &["stdbuf"],
        short: &[('i', Value), ('o', Value), ('e', Value)],
        long: &[("input", Value, "-i"), ("output", Value, "-o"), ("error", Value, "-e"), HELP, VERSION],
        opaque: &[],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["nohup"],
        short: &[],
        long: &[HELP, VERSION],
        opaque: &[],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["setsid"],
        short: &[('c', Nothing), ('f', Nothing), ('w', Nothing), ('V', Nothing), ('h', Nothing)],
        long: &[("ctty", Nothing, "-c"), ("fork", Nothing, "-f"), ("wait", Nothing, "-w"),
            ("version", Nothing, "-V"), ("help", Nothing, "-h")],
        opaque: &[],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["ionice"],
        short: &[('c', Value), ('n', Value), ('p', Value), ('P', Value), ('u', Value),
            ('t', Nothing), ('V', Nothing), ('h', Nothing)],
        long: &[("class", Value, "-c"), ("classdata", Value, "-n"), ("pid", Value, "-p"),
            ("pgid", Value, "-P"), ("uid", Value, "-u"), ("ignore", Nothing, "-t"),
            ("version", Nothing, "-V"), ("help", Nothing, "-h")],
        opaque: &[],
        no_command: &["-p", "-P", "-u"],
        leading: 0,
    },
    Wrapper {
        names: &["time"],
        short: &[('a', Nothing), ('f', Value), ('o', Value), ('p', Nothing), ('q', Nothing),
            ('v', Nothing), ('V', Nothing)],
        long: &[("append", Nothing, "-a"), ("format", Value, "-f"), ("output", Value, "-o"),
            ("portability", Nothing, "-p"), ("quiet", Nothing, "-q"), ("verbose", Nothing, "-v"),
            ("version", Nothing, "-V"), HELP],
        opaque: &[],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["xargs"],
        short: &[('0', Nothing), ('a', Value), ('E', Value), ('e', Optional), ('i', Optional),
            ('I', Value), ('l', Optional), ('L', Value), ('n', Value), ('o', Nothing),
            ('p', Nothing), ('r', Nothing), ('s', Value), ('t', Nothing), ('x', Nothing),
            ('P', Value), ('d', Value)],
        long: &[
            ("null", Nothing, "-0"), ("arg-file", Value, "-a"), ("delimiter", Value, "-d"),
            ("eof", Optional, "-e"), ("replace", Optional, "-i"), ("max-lines", Optional, "-l"),
            ("max-args", Value, "-n"), ("open-tty", Nothing, "-o"),
            ("interactive", Nothing, "-p"), ("no-run-if-empty", Nothing, "-r"),
            ("max-chars", Value, "-s"), ("verbose", Nothing, "-t"),
            ("show-limits", Nothing, "--show-limits"), ("exit", Nothing, "-x"),
            ("max-procs", Value, "-P"), ("process-slot-var", Value, "--process-slot-var"),
            HELP, VERSION,
        ],
        opaque: &[],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["sudo"],
        short: &[('A', Nothing), ('a', Value), ('B', Nothing), ('b', Nothing), ('C', Value),
            ('c', Value), ('D', Value), ('E', Nothing), ('e', Nothing), ('g', Value),
            ('H', Nothing), ('h', Optional), ('i', Nothing), ('K', Nothing), ('k', Nothing),
            ('l', Nothing), ('N', Nothing), ('n', Nothing), ('P', Nothing), ('p', Value),
            ('R', Value), ('r', Value), ('S', Nothing), ('s', Nothing), ('T', Value),
            ('t', Value), ('U', Value), ('u', Value), ('V', Nothing), ('v', Nothing)],
        long: &[
            ("askpass", Nothing, "-A"), ("auth-type", Value, "-a"), ("bell", Nothing, "-B"),
            ("background", Nothing, "-b"), ("close-from", Value, "-C"),
            ("login-class", Value, "-c"), ("chdir", Value, "-D"),
            ("preserve-env", Optional, "-E"), ("edit", Nothing, "-e"), ("group", Value, "-g"),
            ("set-home", Nothing, "-H"), ("help", Nothing, "--help"), ("host", Value, "--host"),
            ("login", Nothing, "-i"), ("remove-timestamp", Nothing, "-K"),
            ("reset-timestamp", Nothing, "-k"), ("list", Nothing, "-l"),
            ("no-update", Nothing, "-N"), ("non-interactive", Nothing, "-n"),
            ("preserve-groups", Nothing, "-P"), ("prompt", Value, "-p"), ("chroot", Value, "-R"),
            ("role", Value, "-r"), ("stdin", Nothing, "-S"), ("shell", Nothing, "-s"),
            ("command-timeout", Value, "-T"), ("type", Value, "-t"), ("other-user", Value, "-U"),
            ("user", Value, "-u"), ("version", Nothing, "-V"), ("validate", Nothing, "-v"),
        ],
        opaque: &[
            ("-i", "sudo -i runs a login shell"),
            ("-s", "sudo -s runs a shell"),
            ("-e", "sudo -e runs an editor"),
            ("-D", "sudo -D runs the command from another directory"),
            ("-R", "sudo -R runs the command under another root directory"),
        ],
        no_command: &[],
        leading: 0,
    },
    Wrapper {
        names: &["doas"],
        short: &[('a', Value), ('C', Value), ('L', Nothing), ('n', Nothing), ('s', Nothing),
            ('u', Value)],
        long: &[],
        opaque: &[("-s", "doas -s runs a shell")],
        no_command: &[],
        leading: 0,
    },
];

/// Whether `name` (a program's file name) is a wrapper this module knows.
pub fn is_wrapper(name: &str) -> bool {
    WRAPPERS.iter().any(|w| w.names.contains(&name))
}

/// The command the wrapper `name` runs with `argv` (argv\[0\] first). None when `name` is not
/// a wrapper, or when it runs no command (`env` alone prints the environment, `nice` alone
/// its niceness). Its options are read as its own getopt_long reads them (abbreviated long
/// options, short ones grouped, values attached or not): an option it would read otherwise
/// than rsh, or refuse, makes the command unknowable.
pub fn inner(name: &str, argv: &[String]) -> Option<Inner> {
    let wrapper = WRAPPERS.iter().find(|w| w.names.contains(&name))?;
    let options = match read_options(wrapper, argv) {
        Ok(options) => options,
        Err(why) => {
            return Some(Inner::Unknowable(format!(
                "{name} runs a command past {why}"
            )));
        }
    };
    if let Some((_, why)) = wrapper.opaque.iter().find(|(o, _)| options.gave(o)) {
        return Some(Inner::Unknowable((*why).to_owned()));
    }
    if wrapper.no_command.iter().any(|o| options.gave(o)) {
        return None;
    }
    let mut i = options.end;
    if name == "env" {
        // A lone `-` after the options is -i; then the assignments, then the command.
        if argv.get(i).is_some_and(|a| a == "-") {
            i += 1;
        }
        while let Some(arg) = argv.get(i).filter(|a| a.contains('=')) {
            if arg.starts_with("PATH=") {
                return Some(Inner::Unknowable(
                    "env PATH=... changes where the command is found".to_owned(),
                ));
            }
            i += 1;
        }
    }
    let rest = argv.get(i + wrapper.leading..).unwrap_or_default();
    if rest.is_empty() {
        // xargs without a command runs echo.
        return (name == "xargs").then(|| Inner::Runs(vec!["echo".to_owned()]));
    }
    Some(Inner::Runs(rest.to_vec()))
}

/// The options a wrapper's argv starts with: which were given, and where the words after them
/// start.
struct Options {
    /// Each as its short form (`-S`) when it has one, else its long form.
    seen: Vec<String>,
    end: usize,
}

impl Options {
    /// Whether `option` (as `seen` names it) was given.
    fn gave(&self, option: &str) -> bool {
        self.seen.iter().any(|s| s == option)
    }
}

/// Reads `argv`'s options as getopt_long does for `wrapper` in its "stop at the first
/// non-option" mode; Err says why the wrapper would read them otherwise than rsh can.
fn read_options(wrapper: &Wrapper, argv: &[String]) -> Result<Options, String> {
    let mut seen = Vec::new();
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        if wrapper.names.contains(&"nice") && old_nice_adjustment(arg) {
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let (takes, option) = long_option(wrapper, name)?;
            seen.push(option.to_owned());
            match (takes, attached) {
                (Nothing, Some(_)) => {
                    return Err(format!("an option given a value it does not take ({arg})"));
                }
                (Value, None) => {
                    argv.get(i)
                        .ok_or(format!("an option without its value ({arg})"))?;
                    i += 1;
                }
                _ => {}
            }
            continue;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
            // The first word that is not an option (a lone `-` is not one).
            i -= 1;
            break;
        };
        for (at, letter) in letters.char_indices() {
            let Some(&(_, takes)) = wrapper.short.iter().find(|(l, _)| *l == letter) else {
                return Err(format!("an option rsh does not know (-{letter})"));
            };
            seen.push(format!("-{letter}"));
            let attached = at + letter.len_utf8() < letters.len();
            match takes {
                Nothing => continue,
                Value if !attached => {
                    argv.get(i)
                        .ok_or(format!("an option without its value (-{letter})"))?;
                    i += 1;
                }
                Value | Optional => {}
            }
            // The rest of the word is the value.
            break;
        }
    }
    Ok(Options { seen, end: i })
}

/// The option a long name (exact or abbreviated) is, and what it takes.
fn long_option(wrapper: &Wrapper, name: &str) -> Result<(Takes, &'static str), String> {
    if let Some(&(_, takes, option)) = wrapper.long.iter().find(|(n, ..)| *n == name) {
        return Ok((takes, option));
    }
    let mut matches = wrapper.long.iter().filter(|(n, ..)| n.starts_with(name));
    let Some(&(_, takes, option)) = matches.next() else {
        return Err(format!("an option rsh does not know (--{name})"));
    };
    if name.is_empty() || matches.any(|&(_, t, o)| (t, o) != (takes, option)) {
        return Err(format!("an ambiguous option (--{name})"));
    }
    Ok((takes, option))
}

/// `nice -5`, `nice --5`, `nice -+5`: the old form of -n, read before getopt.
fn old_nice_adjustment(arg: &str) -> bool {
    let bytes = arg.as_bytes();
    let digit_at = 1 + usize::from(matches!(bytes.get(1), Some(b'-' | b'+')));
    bytes.first() == Some(&b'-') && bytes.get(digit_at).is_some_and(u8::is_ascii_digit)
}

/// What rsh does itself in place of a wrapper it can perform: `env` and `nice` change only
/// how the command they run starts, so rsh starts that command directly, with those changes,
/// and the wrapper's program never runs (it needs no right to start programs, and the command
/// gets its own confinement, not the wrapper's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Adjust {
    /// What `env` does to the environment, in order.
    pub env: Vec<EnvEdit>,
    /// `nice`: added to the niceness the command would have.
    pub nice: Option<i32>,
    /// `timeout`: when and how the command is ended.
    pub timeout: Option<Timeout>,
}

/// What `timeout` asks: after `after`, send `signal` to the command; `kill_after` later, if it
/// still runs, SIGKILL. The status is then 124 (unless `preserve_status`), or 137 when it
/// ended by SIGKILL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    pub after: std::time::Duration,
    pub signal: i32,
    pub kill_after: Option<std::time::Duration>,
    pub preserve_status: bool,
    /// `-v`: say which signal is sent.
    pub verbose: bool,
}

/// One change `env` makes to the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvEdit {
    /// `-i`: nothing is passed on but what is set after (and what rsh always sets).
    Clear,
    /// `-u NAME`.
    Unset(String),
    /// `NAME=VALUE`.
    Set(String, String),
}

impl Adjust {
    /// `inner`'s changes made inside these (`nice env A=1 nice -n 3 cmd`).
    pub fn then(&mut self, inner: Adjust) {
        self.env.extend(inner.env);
        if let Some(n) = inner.nice {
            self.nice = Some(self.nice.unwrap_or(0).saturating_add(n));
        }
        // The first to expire ends the command: the outer one stops the inner wrapper, which
        // passes its signal on.
        self.timeout = match (self.timeout, inner.timeout) {
            (Some(outer), Some(inner)) if inner.after < outer.after => Some(inner),
            (outer, inner) => outer.or(inner),
        };
    }

    /// The environment `exported` becomes.
    pub fn environment(&self, mut env: Vec<(String, String)>) -> Vec<(String, String)> {
        for edit in &self.env {
            match edit {
                EnvEdit::Clear => env.clear(),
                EnvEdit::Unset(name) => env.retain(|(n, _)| n != name),
                EnvEdit::Set(name, value) => {
                    env.retain(|(n, _)| n != name);
                    env.push((name.clone(), value.clone()));
                }
            }
        }
        env
    }
}

/// The command a wrapper rsh performs itself runs, and the changes it makes; None when `name`
/// is not such a wrapper, when it runs no command, or when `argv` uses an option rsh does not
/// perform (then the wrapper's program runs, as any wrapper's).
pub fn performed(name: &str, argv: &[String]) -> Option<(Vec<String>, Adjust)> {
    let (rest, adjust) = match name {
        "env" => env_options(argv)?,
        "nice" => nice_options(argv)?,
        "timeout" => timeout_options(argv)?,
        _ => return None,
    };
    (!rest.is_empty()).then(|| (rest.to_vec(), adjust))
}

/// `env [-i] [-u NAME]... [NAME=VALUE]... [--] COMMAND...`: options end at the first word
/// that is not one, assignments at the first that is not one, which is the command.
fn env_options(argv: &[String]) -> Option<(&[String], Adjust)> {
    let (mut clear, mut unset, mut set) = (false, Vec::new(), Vec::new());
    let mut i = 1;
    let mut options = true;
    while let Some(arg) = argv.get(i) {
        i += 1;
        match arg.as_str() {
            "--" if options => options = false,
            "-" | "-i" | "--ignore-environment" if options => clear = true,
            "-u" | "--unset" if options => {
                unset.push(EnvEdit::Unset(argv.get(i)?.clone()));
                i += 1;
            }
            _ if options && arg.starts_with("--unset=") => {
                unset.push(EnvEdit::Unset(arg["--unset=".len()..].to_owned()));
            }
            _ if options && arg.starts_with("-u") => {
                unset.push(EnvEdit::Unset(arg[2..].to_owned()));
            }
            _ if options && arg.starts_with('-') => return None,
            _ => match arg.split_once('=') {
                // PATH changes where the command is found: not performed (`inner` makes it
                // unknowable).
                Some((name, _)) if name.is_empty() || name == "PATH" => return None,
                Some((name, value)) => {
                    options = false;
                    set.push(EnvEdit::Set(name.to_owned(), value.to_owned()));
                }
                None => {
                    i -= 1;
                    break;
                }
            },
        }
    }
    let env = clear
        .then_some(EnvEdit::Clear)
        .into_iter()
        .chain(unset)
        .chain(set)
        .collect();
    let adjust = Adjust {
        env,
        ..Adjust::default()
    };
    Some((argv.get(i..).unwrap_or_default(), adjust))
}

/// `nice [-n N | -N | --adjustment=N] [--] COMMAND...`; 10 without a number.
fn nice_options(argv: &[String]) -> Option<(&[String], Adjust)> {
    let number = |text: &str| text.parse::<i32>().ok();
    let mut increment = 10;
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        i += 1;
        match arg.as_str() {
            "--" => break,
            "-n" | "--adjustment" => {
                increment = number(argv.get(i)?)?;
                i += 1;
            }
            _ if arg.starts_with("--adjustment=") => {
                increment = number(&arg["--adjustment=".len()..])?;
            }
            _ if arg.starts_with("-n") => increment = number(&arg[2..])?,
            // The old form: `nice -5 cmd`, `nice --5 cmd` (minus five).
            _ if arg.starts_with('-') && arg.len() > 1 => increment = number(&arg[1..])?,
            _ => {
                i -= 1;
                break;
            }
        }
    }
    let adjust = Adjust {
        nice: Some(increment),
        ..Adjust::default()
    };
    Some((argv.get(i..).unwrap_or_default(), adjust))
}

/// `timeout [-s SIGNAL] [-k DURATION] [-v] [--preserve-status] [--foreground] DURATION
/// COMMAND...`. A duration of 0 sets no time limit (the policy's still holds).
fn timeout_options(argv: &[String]) -> Option<(&[String], Adjust)> {
    let mut timeout = Timeout {
        after: std::time::Duration::ZERO,
        signal: libc::SIGTERM,
        kill_after: None,
        preserve_status: false,
        verbose: false,
    };
    let mut i = 1;
    // An option's value: attached (`-sKILL`, `--signal=KILL`) or the next word.
    let value = |i: &mut usize, arg: &str, short: &str, long: &str| -> Option<String> {
        if arg == short || arg == long {
            *i += 1;
            return argv.get(*i - 1).cloned();
        }
        arg.strip_prefix(&format!("{long}="))
            .or_else(|| arg.strip_prefix(short))
            .map(str::to_owned)
    };
    while let Some(arg) = argv.get(i) {
        i += 1;
        match arg.as_str() {
            "--" => break,
            "--preserve-status" => timeout.preserve_status = true,
            // The command keeps rsh's process group and terminal either way.
            "--foreground" => {}
            "-v" | "--verbose" => timeout.verbose = true,
            _ if arg.starts_with("-s") || arg.starts_with("--signal") => {
                timeout.signal = signal_number(&value(&mut i, arg, "-s", "--signal")?)?;
            }
            _ if arg.starts_with("-k") || arg.starts_with("--kill-after") => {
                let after = duration(&value(&mut i, arg, "-k", "--kill-after")?)?;
                timeout.kill_after = (!after.is_zero()).then_some(after);
            }
            _ if arg.starts_with('-') && arg.len() > 1 => return None,
            _ => {
                i -= 1;
                break;
            }
        }
    }
    timeout.after = duration(argv.get(i)?)?;
    let adjust = Adjust {
        timeout: (!timeout.after.is_zero()).then_some(timeout),
        ..Adjust::default()
    };
    Some((argv.get(i + 1..).unwrap_or_default(), adjust))
}

/// A duration as timeout reads it: a decimal number of seconds, or of minutes, hours or days
/// with the suffix `m`, `h` or `d` (`s` for seconds).
fn duration(text: &str) -> Option<std::time::Duration> {
    let (number, unit) = match text.char_indices().last()? {
        (at, 's') => (&text[..at], 1.0),
        (at, 'm') => (&text[..at], 60.0),
        (at, 'h') => (&text[..at], 3600.0),
        (at, 'd') => (&text[..at], 86400.0),
        _ => (text, 1.0),
    };
    let plain = !number.is_empty()
        && number.chars().all(|c| c.is_ascii_digit() || c == '.')
        && number.chars().filter(|&c| c == '.').count() <= 1
        && number != ".";
    let seconds = number.parse::<f64>().ok().filter(|_| plain)? * unit;
    std::time::Duration::try_from_secs_f64(seconds).ok()
}

/// A signal named as `kill` and `timeout` take it: `TERM`, `SIGTERM` or a number.
fn signal_number(text: &str) -> Option<i32> {
    use std::str::FromStr;
    if let Ok(number) = text.parse::<i32>() {
        return nix::sys::signal::Signal::try_from(number)
            .ok()
            .map(|s| s as i32);
    }
    let name = if text.starts_with("SIG") {
        text.to_owned()
    } else {
        format!("SIG{text}")
    };
    nix::sys::signal::Signal::from_str(&name)
        .ok()
        .map(|s| s as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(line: &str) -> Option<Inner> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        inner(&argv[0], &argv)
    }

    fn inner_line(line: &str) -> String {
        match runs(line) {
            Some(Inner::Runs(argv)) => argv.join(" "),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn finds_the_inner_command() {
        // env reads no options after an assignment: `-u` is the command.
        assert_eq!(inner_line("env A=1 -u B sh -c x"), "-u B sh -c x");
        assert_eq!(inner_line("env -u B A=1 sh -c x"), "sh -c x");
        assert_eq!(inner_line("env -i -- ls -l"), "ls -l");
        assert_eq!(inner_line("env A=1 -u sh ls"), "-u sh ls");
        assert_eq!(inner_line("nice -n 5 make -j4"), "make -j4");
        assert_eq!(inner_line("nice -5 make"), "make");
        assert_eq!(inner_line("nice --adjustment=3 make"), "make");
        assert_eq!(inner_line("timeout 5 sleep 10"), "sleep 10");
        assert_eq!(inner_line("timeout -s KILL -k 2 5s sleep 10"), "sleep 10");
        assert_eq!(inner_line("timeout --signal=TERM 5 sh"), "sh");
        assert_eq!(inner_line("stdbuf -oL -e 0 grep x"), "grep x");
        assert_eq!(inner_line("nohup sh -c x"), "sh -c x");
        assert_eq!(inner_line("xargs -0 -n 1 rm -f"), "rm -f");
        assert_eq!(inner_line("xargs"), "echo");
        assert_eq!(inner_line("sudo -u bob -E id"), "id");
        assert_eq!(inner_line("ionice -c 3 du -sh ."), "du -sh .");
    }

    #[test]
    fn no_command_and_unknowable_commands() {
        assert_eq!(runs("env"), None);
        assert_eq!(runs("env A=1"), None);
        assert_eq!(runs("nice"), None);
        assert_eq!(runs("ls -l"), None);
        for line in [
            "env -S 'sh -c x'",
            "env --split-string=x",
            "env PATH=/tmp ls",
            "env -C /tmp ./x",
            "env -a sh busybox",
            "env --argv0=sh ls",
            "sudo -i",
            "sudo -s ls",
            "sudo -is",
            "sudo -R /srv ls",
        ] {
            assert!(matches!(runs(line), Some(Inner::Unknowable(_))), "{line}");
        }
    }

    /// The options are read as the wrapper's getopt_long reads them: otherwise rsh would
    /// decide one command while the wrapper runs another (`env -iu ls sh` runs sh).
    #[test]
    fn options_are_read_as_getopt_reads_them() {
        // Long options abbreviated.
        assert_eq!(inner_line("env --ignore-e sh -c x"), "sh -c x");
        assert_eq!(inner_line("env --uns ls sh -c x"), "sh -c x");
        assert_eq!(inner_line("timeout --sig KILL 5 sh"), "sh");
        assert_eq!(inner_line("nice --adj 5 sh"), "sh");
        // Short options grouped, a value in the next word or attached.
        assert_eq!(inner_line("env -iu ls sh -c x"), "sh -c x");
        assert_eq!(inner_line("env -iuls sh -c x"), "sh -c x");
        assert_eq!(inner_line("xargs -0I ls sh -c x"), "sh -c x");
        assert_eq!(inner_line("xargs -0n1 rm -f"), "rm -f");
        assert_eq!(inner_line("stdbuf -oLeL grep x"), "grep x");
        // xargs' optional values are attached or absent: the next word is the command.
        assert_eq!(inner_line("xargs --replace sh ls"), "sh ls");
        assert_eq!(inner_line("xargs -i sh ls"), "sh ls");
        assert_eq!(inner_line("xargs -i{} echo {}"), "echo {}");
        assert_eq!(inner_line("xargs --replace={} echo {}"), "echo {}");
        assert_eq!(inner_line("xargs --max-lines make all"), "make all");
        assert_eq!(inner_line("xargs -e sh ls"), "sh ls");
        // A lone `-` is env's -i.
        assert_eq!(inner_line("env - A=1 sh"), "sh");
        assert_eq!(inner_line("nice -+5 sh"), "sh");
        // ionice on other processes runs no command.
        assert_eq!(runs("ionice -c 3 -p 123 456"), None);
        for line in [
            // Abbreviations of opaque options.
            "env --sp=x",
            "env --s x",
            "env --split 'sh -c x'",
            "env -iS x",
            "env --ch /tmp ./x",
            "env --argv=sh ls",
            // Ambiguous, unknown, a value missing or given where none is taken.
            "env --i sh",
            "xargs --max 1 sh",
            "env -x sh",
            "env --frobnicate sh",
            "timeout --verbose=1 5 sh",
            "nice -n",
            "env --unset",
            "env --=x sh",
        ] {
            assert!(
                matches!(runs(line), Some(Inner::Unknowable(_))),
                "{line}: {:?}",
                runs(line)
            );
        }
    }

    fn performed_line(line: &str) -> Option<(String, Adjust)> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        performed(&argv[0], &argv).map(|(argv, adjust)| (argv.join(" "), adjust))
    }

    #[test]
    fn env_and_nice_are_performed() {
        let set = |n: &str, v: &str| EnvEdit::Set(n.to_owned(), v.to_owned());
        let unset = |n: &str| EnvEdit::Unset(n.to_owned());
        // Options come first: after an assignment, `-u` is the command.
        let (runs, adjust) = performed_line("env A=1 -i -u B ls -l").unwrap();
        assert_eq!(runs, "-i -u B ls -l");
        assert_eq!(adjust.env, [set("A", "1")]);
        let (runs, adjust) = performed_line("env -u HOME --unset=TERM -i A=1 B==x -- ls").unwrap();
        assert_eq!(runs, "-- ls");
        assert_eq!(
            adjust.env,
            [
                EnvEdit::Clear,
                unset("HOME"),
                unset("TERM"),
                set("A", "1"),
                set("B", "=x")
            ]
        );
        let (runs, adjust) = performed_line("env -- A=1 make all").unwrap();
        assert_eq!(runs, "make all");
        assert_eq!(adjust.env, [set("A", "1")]);
        assert_eq!(performed_line("nice make").unwrap().1.nice, Some(10));
        assert_eq!(performed_line("nice -n 5 make").unwrap().1.nice, Some(5));
        assert_eq!(performed_line("nice -n-3 make").unwrap().1.nice, Some(-3));
        assert_eq!(performed_line("nice --5 make").unwrap().1.nice, Some(-5));
        assert_eq!(performed_line("nice -7 make").unwrap().1.nice, Some(7));
        let (runs, adjust) = performed_line("nice --adjustment=2 -- make -j2").unwrap();
        assert_eq!((runs.as_str(), adjust.nice), ("make -j2", Some(2)));
    }

    #[test]
    fn what_rsh_does_not_perform_is_left_to_the_program() {
        for line in [
            "env",
            "env A=1",
            "env -0",
            "env -S x",
            "env -C /tmp ls",
            "env -a sh ls",
            "env --debug ls",
            "env PATH=/tmp ls",
            "env =x ls",
            "env -u",
            "nice",
            "nice -n",
            "nice -n x ls",
            "timeout 5",
            "timeout x ls",
            "timeout 1y ls",
            "timeout -s NOPE 5 ls",
            "timeout -p 5 ls",
            "timeout 1e3 ls",
            "xargs ls",
            "ls -l",
        ] {
            assert_eq!(performed_line(line), None, "{line}");
        }
    }

    #[test]
    fn timeout_is_performed() {
        use std::time::Duration;
        let of = |line: &str| {
            let (runs, adjust) = performed_line(line).unwrap();
            (runs, adjust.timeout)
        };
        let (runs, timeout) = of("timeout 5 sleep 10");
        assert_eq!(runs, "sleep 10");
        let timeout = timeout.unwrap();
        assert_eq!(timeout.after, Duration::from_secs(5));
        assert_eq!(timeout.signal, libc::SIGTERM);
        assert_eq!(timeout.kill_after, None);
        let (runs, timeout) = of("timeout -s KILL -k 2 --preserve-status -v 1.5m make -j2");
        assert_eq!(runs, "make -j2");
        let timeout = timeout.unwrap();
        assert_eq!(timeout.after, Duration::from_secs(90));
        assert_eq!(timeout.signal, libc::SIGKILL);
        assert_eq!(timeout.kill_after, Some(Duration::from_secs(2)));
        assert!(timeout.preserve_status && timeout.verbose);
        let timeout = of("timeout --signal=SIGINT --kill-after=0.5 .25 ls")
            .1
            .unwrap();
        assert_eq!(timeout.signal, libc::SIGINT);
        assert_eq!(timeout.kill_after, Some(Duration::from_millis(500)));
        assert_eq!(timeout.after, Duration::from_millis(250));
        assert_eq!(of("timeout -s9 1h ls").1.unwrap().signal, libc::SIGKILL);
        assert_eq!(
            of("timeout --foreground 2d ls").1.unwrap().after.as_secs(),
            172_800
        );
        // No limit, but the command still runs as performed.
        assert_eq!(of("timeout 0 ls"), ("ls".to_owned(), None));
        // The earliest of nested timeouts ends the command.
        let mut outer = performed_line("timeout 9 ls").unwrap().1;
        outer.then(performed_line("timeout -s INT 3 ls").unwrap().1);
        assert_eq!(outer.timeout.unwrap().signal, libc::SIGINT);
        outer.then(performed_line("timeout 4 ls").unwrap().1);
        assert_eq!(outer.timeout.unwrap().after.as_secs(), 3);
    }

    #[test]
    fn changes_made_inside_others_combine() {
        let mut outer = performed_line("env A=1 B=1 ls").unwrap().1;
        outer.then(performed_line("nice -n 3 ls").unwrap().1);
        outer.then(performed_line("nice -n 4 ls").unwrap().1);
        outer.then(performed_line("env -u A C=3 ls").unwrap().1);
        assert_eq!(outer.nice, Some(7));
        let exported = vec![
            ("A".to_owned(), "0".to_owned()),
            ("HOME".to_owned(), "/".to_owned()),
        ];
        assert_eq!(
            outer.environment(exported.clone()),
            [
                ("HOME".into(), "/".into()),
                ("B".into(), "1".into()),
                ("C".into(), "3".into())
            ]
        );
        outer.then(performed_line("env -i D=4 ls").unwrap().1);
        assert_eq!(outer.environment(exported), [("D".into(), "4".into())]);
    }
}
