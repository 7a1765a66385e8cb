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

/// Options of each wrapper that take a value (separately, or attached to a short option).
struct Wrapper {
    names: &'static [&'static str],
    values: &'static [&'static str],
    /// Options that make the inner command unknowable, with why.
    opaque: &'static [(&'static str, &'static str)],
    /// Positional words before the command (`timeout DURATION`).
    leading: usize,
}

#[rustfmt::skip]
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &["env"],
        values: &["-u", "--unset", "-C", "--chdir"],
        opaque: &[
            ("-S", "env -S splits a string into a command"),
            ("--split-string", "env -S splits a string into a command"),
            ("-C", "env -C runs the command from another directory"),
            ("--chdir", "env -C runs the command from another directory"),
            // A multi-call program does what its name says: the name must be the one decided.
            ("-a", "env -a runs the command under another name"),
            ("--argv0", "env -a runs the command under another name"),
        ],
        leading: 0,
    },
    Wrapper { names: &["nice"], values: &["-n", "--adjustment"], opaque: &[], leading: 0 },
    Wrapper {
        names: &["timeout"],
        values: &["-s", "--signal", "-k", "--kill-after"],
        opaque: &[],
        leading: 1,
    },
    Wrapper {
        names: &["stdbuf"],
        values: &["-i", "-o", "-e", "--input", "--output", "--error"],
        opaque: &[],
        leading: 0,
    },
    Wrapper { names: &["nohup", "setsid"], values: &[], opaque: &[], leading: 0 },
    Wrapper {
        names: &["ionice"],
        values: &["-c", "--class", "-n", "--classdata"],
        opaque: &[],
        leading: 0,
    },
    Wrapper { names: &["time"], values: &["-f", "--format", "-o", "--output"], opaque: &[], leading: 0 },
    Wrapper {
        names: &["xargs"],
        values: &[
            "-a", "--arg-file", "-d", "--delimiter", "-E", "--eof", "-I", "--replace", "-L",
            "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars",
            "--process-slot-var",
        ],
        opaque: &[],
        leading: 0,
    },
    Wrapper {
        names: &["sudo", "doas"],
        values: &[
            "-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h",
            "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user",
            "-T", "--command-timeout",
        ],
        opaque: &[
            ("-i", "sudo -i runs a login shell"),
            ("--login", "sudo -i runs a login shell"),
            ("-s", "sudo -s runs a shell"),
            ("--shell", "sudo -s runs a shell"),
            ("-e", "sudo -e runs an editor"),
            ("--edit", "sudo -e runs an editor"),
            ("-D", "sudo -D runs the command from another directory"),
            ("--chdir", "sudo -D runs the command from another directory"),
        ],
        leading: 0,
    },
];

/// Whether `name` (a program's file name) is a wrapper this module knows.
pub fn is_wrapper(name: &str) -> bool {
    WRAPPERS.iter().any(|w| w.names.contains(&name))
}

/// The command the wrapper `name` runs with `argv` (argv\[0\] first). None when `name` is not
/// a wrapper, or when it runs no command (`env` alone prints the environment, `nice` alone
/// its niceness).
pub fn inner(name: &str, argv: &[String]) -> Option<Inner> {
    let wrapper = WRAPPERS.iter().find(|w| w.names.contains(&name))?;
    let mut i = 1;
    let mut leading = wrapper.leading;
    // env reads options only before its first assignment.
    let mut assigned = false;
    while let Some(arg) = argv.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let option = arg.split_once('=').map_or(arg.as_str(), |(o, _)| o);
        if let Some((_, why)) = wrapper.opaque.iter().find(|(o, _)| opt_is(arg, o)) {
            return Some(Inner::Unknowable((*why).to_owned()));
        }
        if arg.starts_with('-') && arg.len() > 1 && !assigned {
            i += 1;
            let takes = wrapper.values.contains(&option);
            // A separate value: `-n 5`, `--signal KILL`; not `-n5` or `--signal=KILL`.
            if takes && (option == arg && (arg.starts_with("--") || arg.len() == 2)) {
                i += 1;
            }
            // `nice -5 cmd`: the old form of -n.
            continue;
        }
        if name == "env" && arg.contains('=') {
            if arg.starts_with("PATH=") {
                return Some(Inner::Unknowable(
                    "env PATH=... changes where the command is found".to_owned(),
                ));
            }
            assigned = true;
            i += 1;
            continue;
        }
        if leading > 0 {
            leading -= 1;
            i += 1;
            continue;
        }
        break;
    }
    let rest = argv.get(i..).unwrap_or_default();
    if rest.is_empty() {
        // xargs without a command runs echo.
        return (name == "xargs").then(|| Inner::Runs(vec!["echo".to_owned()]));
    }
    Some(Inner::Runs(rest.to_vec()))
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

/// A short option bundle or a long option naming `option` (`-is` names `-i` and `-s`).
fn opt_is(arg: &str, option: &str) -> bool {
    if option.starts_with("--") {
        return arg == option || arg.starts_with(&format!("{option}="));
    }
    let letter = &option[1..];
    arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letter)
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
        ] {
            assert!(matches!(runs(line), Some(Inner::Unknowable(_))), "{line}");
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
