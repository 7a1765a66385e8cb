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
    while let Some(arg) = argv.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let option = arg.split_once('=').map_or(arg.as_str(), |(o, _)| o);
        if let Some((_, why)) = wrapper.opaque.iter().find(|(o, _)| opt_is(arg, o)) {
            return Some(Inner::Unknowable((*why).to_owned()));
        }
        if arg.starts_with('-') && arg.len() > 1 {
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
        assert_eq!(inner_line("env A=1 -u B sh -c x"), "sh -c x");
        assert_eq!(inner_line("env -i -- ls -l"), "ls -l");
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
}
