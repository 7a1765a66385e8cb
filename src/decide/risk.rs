//! rsh's built-in classification of common commands by risk, from argv alone: which ones
//! only read (low), and which do harm that is hard to undo (high). A policy overrides it
//! (`[risk]`, `[commands.NAME] risk`) or turns it off (`[risk] builtin = false`).
//!
//! Low means the program, as called, reads files and writes only to its standard output.
//! Whatever starts other programs or writes files is not low, so a tool counts as low only
//! with none of its options that do either. Files a command writes that are visible in argv
//! (`-o FILE`, `sort -o`) are found by `args` and raise the risk there.

use crate::policy::Risk;

/// Programs that only read, whatever their arguments.
#[rustfmt::skip]
const READERS: &[&str] = &[
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "zgrep", "stat", "du", "df",
    "realpath", "readlink", "basename", "dirname", "pwd", "diff", "cmp", "comm",
    "cut", "tr", "paste", "join", "column", "nl", "tac", "rev", "fold", "fmt", "expand",
    "unexpand", "jq", "strings", "od", "hexdump", "md5sum", "sha1sum", "sha224sum", "sha256sum",
    "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "base64", "base32", "seq", "sleep",
    "which", "whoami", "id", "groups", "uname", "printenv", "nproc", "ps", "pgrep", "true",
    "false", "test", "[", "echo", "printf", "zcat", "xzcat", "bzcat", "lsblk", "free", "uptime",
    "w", "who", "locale", "tty", "arch", "getconf", "numfmt", "look", "namei", "whereis",
];

/// Why a command is low risk.
const READS: &str = "built-in classification: reads only";

/// Why a wrapper is low risk itself.
const WRAPS: &str = "built-in classification: runs a command, which is judged on its own";

/// Commands whose harm is hard to undo.
const HARD_TO_UNDO: &str = "built-in classification: hard to undo";

/// The built-in risk of a program by its file name (`name`) and argv; None when rsh does not
/// know it, or knows nothing that sets it apart.
pub fn classify(name: &str, argv: &[String]) -> Option<(Risk, &'static str)> {
    let args = argv.get(1..).unwrap_or_default();
    let low = Some((Risk::Low, READS));
    let high = Some((Risk::High, HARD_TO_UNDO));
    let medium = None;
    match name {
        _ if READERS.contains(&name) => low,
        // The command a wrapper runs is decided, with its risk, as if it had been typed.
        // Not xargs: what it reads from its input becomes arguments (`-i` for sed).
        "xargs" => medium,
        _ if super::wrapper::inner(name, argv).is_some() => Some((Risk::Low, WRAPS)),
        "find" if !args.iter().any(|a| FIND_ACTIONS.contains(&a.as_str())) => low,
        "rg" if !args.iter().any(|a| rg_runs(a)) => low,
        "fd" | "fdfind" if !args.iter().any(|a| fd_runs(a)) => low,
        // GNU tools take any unambiguous prefix of a long option (`--outp` for --output).
        "sort" if !args.iter().any(|a| long(a, "oc") || bundles(a, "o")) => low,
        "tree" if !args.iter().any(|a| long(a, "o") || bundles(a, "o")) => low,
        "file" if !args.iter().any(|a| long(a, "c") || bundles(a, "C")) => low,
        // The second operand of uniq and xxd is a file they write.
        "uniq" | "xxd" if operands(args) <= 1 && !args.iter().any(|a| a == "-r") => low,
        "date" if !args.iter().any(|a| a.starts_with("--s") || bundles(a, "s")) => low,
        "hostname" if args.iter().all(|a| a.starts_with('-') && !bundles(a, "bF")) => low,
        "sed" if sed_reads_only(args) => low,
        _ if super::args::AWKS.contains(&name) && awk_reads_only(args) => low,
        "git" => git(args),
        "rm" if args
            .iter()
            .any(|a| recursive(a) || a == "--no-preserve-root") =>
        {
            high
        }
        "chmod" | "chown" | "chgrp" if args.iter().any(|a| recursive(a)) => high,
        "dd" | "shred" | "wipefs" | "fdisk" | "sfdisk" | "parted" | "mkswap" => high,
        _ if name.starts_with("mkfs") => high,
        // They run what rsh cannot see.
        _ if SHELLS.contains(&name) => Some((Risk::High, RUNS_UNSEEN)),
        _ if INTERPRETERS.iter().any(|i| name.starts_with(i))
            && args
                .iter()
                .any(|a| matches!(a.as_str(), "-c" | "-e" | "-E" | "--eval")) =>
        {
            Some((Risk::High, RUNS_UNSEEN))
        }
        "kill" | "pkill" | "killall" | "reboot" | "shutdown" | "poweroff" | "halt" => high,
        "systemctl" | "service" | "crontab" | "iptables" | "nft" | "userdel" | "passwd" => high,
        _ => medium,
    }
}

const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "dash", "ash", "zsh", "ksh", "mksh", "yash", "fish", "csh", "tcsh",
    "busybox",
];

/// Interpreters given code on the command line (`python3 -c`, `perl -e`, `node -e`).
const INTERPRETERS: &[&str] = &["python", "perl", "ruby", "node", "php", "lua"];

/// Why a shell or inline code is high risk.
const RUNS_UNSEEN: &str = "built-in classification: runs code rsh does not see";

const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Whether `arg` is a bundle of short options (`-xvf`) containing one of `letters`.
fn bundles(arg: &str, letters: &str) -> bool {
    arg.len() > 1
        && arg.starts_with('-')
        && !arg.starts_with("--")
        && arg[1..].chars().any(|c| letters.contains(c))
}

/// Whether `arg` is a long option starting with one of `letters`.
fn long(arg: &str, letters: &str) -> bool {
    arg.strip_prefix("--")
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| letters.contains(c))
}

fn recursive(arg: &str) -> bool {
    arg == "--recursive" || bundles(arg, "rR")
}

/// rg options that run programs: a preprocessor, or decompressors for `-z`.
fn rg_runs(arg: &str) -> bool {
    arg.starts_with("--pre") || arg.starts_with("--search-z") || bundles(arg, "z")
}

/// fd options that run a command for each result.
fn fd_runs(arg: &str) -> bool {
    arg.starts_with("--exec") || bundles(arg, "xX")
}

/// How many arguments are not options (everything after `--` is one).
fn operands(args: &[String]) -> usize {
    match args.iter().position(|a| a == "--") {
        Some(end) => {
            args[..end].iter().filter(|a| !a.starts_with('-')).count() + args.len() - end - 1
        }
        None => args.iter().filter(|a| !a.starts_with('-')).count(),
    }
}

/// git subcommands that only read the repository, when given none of the options that make
/// git write a file or run a program.
fn git(args: &[String]) -> Option<(Risk, &'static str)> {
    const READING: &[&str] = &[
        "status",
        "log",
        "diff",
        "show",
        "rev-parse",
        "ls-files",
        "ls-tree",
        "blame",
        "grep",
        "describe",
        "shortlog",
        "cat-file",
        "rev-list",
        "reflog",
        "whatchanged",
        "version",
        "merge-base",
        "name-rev",
        "show-ref",
        "for-each-ref",
        "count-objects",
    ];
    // Options that turn a listing into a change: `git branch NAME`, `git tag -d`.
    const LISTING: &[(&str, &[&str])] = &[
        (
            "branch",
            &[
                "-a",
                "-r",
                "-v",
                "-vv",
                "--all",
                "--remotes",
                "--verbose",
                "--list",
                "--show-current",
                "--no-color",
                "--color",
                "--merged",
                "--no-merged",
                "--contains",
            ],
        ),
        ("tag", &["-l", "--list", "-n"]),
        ("remote", &["-v", "--verbose"]),
        ("stash", &["list"]),
    ];
    const WRITING: &[&str] = &[
        "--output",
        "--ext-diff",
        "--textconv",
        "--open-files-in-pager",
    ];
    let mut rest = args;
    // Global options that only say where the repository is.
    while let Some(first) = rest.first() {
        match first.as_str() {
            "-C" | "--git-dir" | "--work-tree" if rest.len() > 1 => rest = &rest[2..],
            "--no-pager" | "-P" | "--bare" | "--no-replace-objects" => rest = &rest[1..],
            a if a.starts_with("--git-dir=") || a.starts_with("--work-tree=") => {
                rest = &rest[1..];
            }
            _ => break,
        }
    }
    let (sub, options) = rest.split_first()?;
    if options
        .iter()
        .any(|a| WRITING.iter().any(|w| a.starts_with(w)) || a == "-O" || a.starts_with("-O"))
    {
        return None;
    }
    let reads = READING.contains(&sub.as_str())
        || LISTING.iter().any(|(name, allowed)| {
            name == sub && options.iter().all(|a| allowed.contains(&a.as_str()))
        });
    reads.then_some((Risk::Low, READS))
}

/// sed without `-i` and with scripts that only print, delete, substitute (without the `w`
/// and `e` flags) and branch: no `w`, `W`, `e`, `r`, `R` commands. Scripts from a file are
/// not read.
fn sed_reads_only(args: &[String]) -> bool {
    let mut scripts = Vec::new();
    let mut iter = args.iter();
    let mut script_given = false;
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-e" | "--expression" => match iter.next() {
                Some(script) => {
                    scripts.push(script.as_str());
                    script_given = true;
                }
                None => return false,
            },
            a if a.starts_with("--expression=") => {
                scripts.push(&a["--expression=".len()..]);
                script_given = true;
            }
            a if a.starts_with("-i") || a.starts_with("--in-place") => return false,
            a if a.starts_with("-f") || a.starts_with("--file") => return false,
            "--quiet" | "--silent" | "--regexp-extended" | "--null-data" | "--posix"
            | "--debug" | "--sandbox" | "--unbuffered" | "--separate" => {}
            // A bundle such as -ne: only flags that change no file.
            a if a.starts_with('-')
                && a.len() > 1
                && !a[1..].chars().all(|c| "nErsuz".contains(c)) =>
            {
                return false;
            }
            a if a.starts_with('-') && a.len() > 1 => {}
            a if !script_given => {
                scripts.push(a);
                script_given = true;
            }
            _ => {}
        }
    }
    script_given && scripts.iter().all(|s| sed_script_reads_only(s))
}

/// Walks a sed script command by command.
fn sed_script_reads_only(script: &str) -> bool {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let field =
        |i: usize, delim: char, regex: bool| super::scripts::sed_field_end(&chars, i, delim, regex);
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '$' | '0'..='9' | '~' | '+' => i += 1,
            '/' => match field(i + 1, '/', true) {
                Some(end) => i = end,
                None => return false,
            },
            '\\' if i + 1 < chars.len() => match field(i + 2, chars[i + 1], true) {
                Some(end) => i = end,
                None => return false,
            },
            'I' | 'M' => i += 1,
            'p' | 'P' | 'd' | 'D' | 'q' | 'Q' | 'n' | 'N' | 'l' | '=' | 'g' | 'G' | 'h' | 'H'
            | 'x' | 'z' | 'F' => i += 1,
            // Labels and branches: what follows the label is another command (`:a w FILE`).
            ':' | 'b' | 't' | 'T' => i = super::scripts::sed_label_end(&chars, i + 1),
            // Text to print: to the end of the line.
            'a' | 'i' | 'c' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            's' | 'y' if i + 1 < chars.len() => {
                let delim = chars[i + 1];
                if delim == '\n' || delim == '\\' {
                    return false;
                }
                let regex = c == 's';
                let Some(end) = field(i + 2, delim, regex).and_then(|j| field(j, delim, false))
                else {
                    return false;
                };
                i = end;
                if c == 's' {
                    while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                        if matches!(chars[i], 'w' | 'W' | 'e') {
                            return false;
                        }
                        i += 1;
                    }
                }
            }
            // w, W, e, r, R and anything not known.
            _ => return false,
        }
    }
    true
}

/// awk with a program on the command line that has no `system`, pipes or output redirection,
/// and no `-f` program file.
fn awk_reads_only(args: &[String]) -> bool {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "-F" | "-v" => {
                iter.next();
            }
            a if a.starts_with("-F") || a.starts_with("-v") => {}
            "--" => return iter.next().is_some_and(|p| awk_program_reads_only(p)),
            a if a.starts_with('-') && a.len() > 1 => return false,
            program => return awk_program_reads_only(program),
        }
    }
    false
}

/// `@` is gawk's `@load` or `@include`: functions rsh does not know. A `>` before the first
/// `print` compares (`$3 > 100 {print $1}`, see `awk_redirects`). `||` is "or"; a single `|`
/// is a pipe (`print | CMD`, `CMD | getline`).
fn awk_program_reads_only(program: &str) -> bool {
    !super::scripts::awk_redirects(program)
        && !program.split("||").any(|part| part.contains('|'))
        && !program.contains('@')
        && !program.contains("system")
        && !program.contains("getline")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn risk(line: &str) -> Option<Risk> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        classify(&argv[0], &argv).map(|(risk, _)| risk)
    }

    #[test]
    fn readers_are_low_without_their_running_or_writing_options() {
        for line in [
            "ls -la",
            "cat a b",
            "find . -name *.rs",
            "rg foo src",
            "fd -H x",
            "sort -u f",
            "uniq f",
            "date +%s",
            "hostname -f",
            "git status",
            "git -C repo log --oneline",
            "git branch -a",
            "git diff HEAD~1",
            "sed -n 1,10p f",
            "sed s/a/b/g f",
            "sed -e /x/d -e s|a|b| f",
            "awk {print$1} f",
            "awk -F: {print$1} /etc/passwd",
            "awk $3>100 f",
            "awk NR>1{print$1} f",
            "awk {if($3>=1)print$1} f",
            "awk $1==\"a\"||$2==\"b\"{print} f",
        ] {
            assert_eq!(risk(line), Some(Risk::Low), "{line}");
        }
    }

    #[test]
    fn running_or_writing_options_are_not_low() {
        for line in [
            "find . -delete",
            "find . -exec rm {} ;",
            "rg --pre=sh foo",
            "rg -zi foo",
            "fd -x rm",
            "fd -HX rm",
            "sort -o out f",
            "sort --outp=out f",
            "tree -o out",
            "file -C -m magic",
            "xargs cat",
            "sort --compress-program=sh f",
            "uniq in out",
            "xxd -r f",
            "date -s 2020-01-01",
            "hostname evil",
            "git branch new",
            "git tag -d v1",
            "git diff --output=/tmp/x",
            "git commit -m x",
            "git push",
            "git",
            "sed -i s/a/b/ f",
            "sed -ni p f",
            "sed -si s/a/b/ f",
            "sed --in-place=.bak s/a/b/ f",
            "sed s/a/b/w/tmp/x f",
            "sed s/a/id/e f",
            "sed 1w/tmp/x f",
            "sed 1r/etc/passwd f",
            "sed /[/]/w/tmp/x f",
            "sed s/[/]/x/w/tmp/x f",
            "sed -f script f",
            "sed",
            "awk {print>\"/tmp/x\"} f",
            "awk BEGIN{system(\"sh\")}",
            "awk {print|\"sh\"}",
            "awk $1>0{print$1>\"/tmp/x\"} f",
            "awk $1>0{printf\"%s\",$1>>\"/tmp/x\"} f",
            "awk $1||$2{print|\"sh\"} f",
            "awk {print$1|||\"sh\"} f",
            "awk BEGIN{\"date\"|getline}",
            "awk -f prog f",
            "cp a b",
            "python3 x.py",
        ] {
            assert_ne!(risk(line), Some(Risk::Low), "{line}");
        }
    }

    #[test]
    fn hard_to_undo_is_high() {
        for line in [
            "rm -rf dir",
            "rm -r dir",
            "rm --recursive d",
            "chmod -R 777 .",
            "dd if=/dev/zero of=/dev/sda",
            "mkfs.ext4 /dev/sdb",
            "kill 1",
            "sh -c id",
            "bash",
            "python3 -c print(1)",
            "perl -e 1",
        ] {
            assert_eq!(risk(line), Some(Risk::High), "{line}");
        }
        assert_eq!(risk("rm f"), None);
        assert_eq!(risk("python3 script.py"), None);
    }
}
