//! Which arguments of a command name files, and whether the command reads or writes them:
//! `cp SRC… DST` reads the sources and writes the destination, `grep PATTERN FILE…` reads all
//! but its first operand, `sed -i` writes its files, `tar -xf A -C D` reads A and writes D.
//!
//! Pure knowledge of argv: no file is looked at here. Commands it does not know get the
//! generic reading: every operand, and the value of every `--name=VALUE` option, may be a file
//! that is read (`--output=F` style options: written). The caller checks a read only when
//! the file exists, so a word that is not a path costs nothing; a write is always checked.

/// A file a command would read or write, as written on the command line (relative names are
/// relative to the current directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touch {
    pub path: String,
    pub write: bool,
    /// Only the file's name and attributes are looked at, never its contents (`ls -l F`,
    /// `stat F`, `date -r F`): `[sensitive]` holds for it only when it is a directory, whose
    /// listing may be what it keeps.
    pub look: bool,
}

impl Touch {
    /// `read` or `write`.
    pub fn access(&self) -> &'static str {
        if self.write { "write" } else { "read" }
    }

    /// `reads` or `writes`, for messages.
    pub fn verb(&self) -> &'static str {
        if self.write { "writes" } else { "reads" }
    }
}

/// What a word is, to the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Not a file: a pattern, a count, a name.
    Text,
    Read,
    Write,
    /// Its name and attributes, not its contents (`ls`, `stat`, `du`).
    Look,
}

/// What the value of an option is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    Text,
    Read,
    Write,
    /// A file whose attributes are taken, not its contents (`date -r F`, `touch -r F`).
    Look,
    /// The pattern or script (`grep -e P`, `sed -e S`): the first operand is then a file.
    Script,
    /// A file holding the pattern or script (`grep -f F`, `awk -f F`), or the operand it
    /// stands for (`chmod --reference=F`): read, and the first operand is then a file.
    ScriptFile,
    /// A flag saying there is no pattern or script operand (`rg --files`).
    NoScript,
    /// The directory the operands go to (`cp -t DIR`): written, and every operand is a source.
    TargetDir,
    /// The directory relative names are taken from (`git -C DIR`): read, and later relative
    /// operands are under it.
    BaseDir,
    /// A pattern of names, never opened (`grep --exclude=GLOB`, `ls -I GLOB`).
    Pattern,
    /// A file listing the files to work on (`tar -T F`, `sort --files0-from=F`): read, and
    /// so is each file it lists.
    FileList,
}

/// How a command's operands (its arguments that are not options) are used.
#[derive(Debug, Clone, Copy)]
enum Operands {
    All(Access),
    /// The first operand, then the rest (`uniq IN OUT`, `zip ARCHIVE FILE…`).
    First(Access, Access),
    /// A pattern, script, filter or mode first, unless an option gave it; then files.
    AfterScript(Access),
    /// Sources read, the last operand written (`cp`, `ln`, `install`).
    Copy,
}

struct Spec<'a> {
    names: &'static [&'static str],
    operands: Operands,
    /// Options that take a value; any option not listed is a flag.
    options: &'a [(&'static str, Value)],
    /// Options after which every file operand is written (`sed -i`, `install -d`); a short
    /// one takes the rest of its word as an optional value (`-i.bak`).
    writes: &'static [&'static str],
    /// The only short flags there are: a word starting with `-` and holding another letter is
    /// an operand (`chmod -w FILE`).
    flags: Option<&'static str>,
    /// Operands of the form `name=value` are assignments, not files (awk).
    assignments: bool,
    /// Options some of the programs named take a value with only when it is attached
    /// (zstd's `-T4`, where xz takes `-T 4`): read both ways (see `Doubt`).
    unsure: &'static [&'static str],
}

impl Spec<'_> {
    /// The listed long option `name` abbreviates, or `name` itself. getopt_long and git take
    /// any unambiguous abbreviation of a long option (`--ou=F` is `--output=F`); a program
    /// that takes none refuses the word, so reading it as the option can do no harm. An
    /// abbreviation of a listed option and of an unlisted one is ambiguous: the program
    /// refuses it, whatever is read here.
    fn long_option(&self, name: String) -> String {
        if name.len() < 3 {
            return name;
        }
        let listed = self
            .options
            .iter()
            .map(|(n, _)| *n)
            .chain(self.writes.iter().copied());
        let mut matching = listed.filter(|n| n.starts_with(name.as_str()));
        match (matching.next(), matching.next()) {
            (Some(only), None) => only.to_owned(),
            _ => name,
        }
    }
}

const fn spec(names: &'static [&'static str], operands: Operands) -> Spec<'static> {
    Spec {
        names,
        operands,
        options: &[],
        writes: &[],
        flags: None,
        assignments: false,
        unsure: &[],
    }
}

/// How `scan` takes the words whose reading here may not be the program's own: a long
/// option abbreviated (matched against the options listed here, not all the program has),
/// the last letter of a bundle taking the next word as its value (`xxd -ps` is one option,
/// not `-p -s VALUE`), an option in `Spec::unsure`. Such a command is read both ways and
/// what either reading touches counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Doubt {
    /// As the table says.
    Trusted,
    /// Each such word a flag, taking no value and abbreviating nothing.
    Flags,
}

use Access::{Look as L, Read as R, Text as T, Write as W};
use Value::{
    BaseDir, FileList, Look, NoScript, Pattern, Read, Script, ScriptFile, TargetDir, Text, Write,
};

#[rustfmt::skip]
const GREP: &[(&str, Value)] = &[
    ("-e", Script), ("--regexp", Script), ("-f", ScriptFile), ("--file", ScriptFile), ("-m", Text),
    ("--max-count", Text), ("-A", Text), ("-B", Text), ("-C", Text), ("--after-context", Text),
    ("--before-context", Text), ("--context", Text), ("-d", Text), ("--directories", Text),
    ("-D", Text), ("--devices", Text), ("--include", Pattern), ("--exclude", Pattern),
    ("--exclude-dir", Pattern), ("--exclude-from", Read), ("--label", Text), ("--binary-files", Text),
    ("--group-separator", Text),
];

#[rustfmt::skip]
const RG: &[(&str, Value)] = &[
    ("-e", Script), ("--regexp", Script), ("-f", ScriptFile), ("--file", ScriptFile),
    ("--files", NoScript), ("--type-list", NoScript), ("-g", Pattern), ("--glob", Pattern),
    ("--iglob", Pattern), ("-t", Text), ("--type", Text), ("-T", Text), ("--type-not", Text),
    ("--type-add", Text), ("--type-clear", Text), ("-m", Text), ("--max-count", Text),
    ("-A", Text), ("-B", Text), ("-C", Text), ("--after-context", Text),
    ("--before-context", Text), ("--context", Text), ("-j", Text), ("--threads", Text),
    ("-M", Text), ("--max-columns", Text), ("-E", Text), ("--encoding", Text), ("-r", Text),
    ("--replace", Text), ("-d", Text), ("--max-depth", Text), ("--max-filesize", Text),
    ("--sort", Text), ("--sortr", Text), ("--colors", Text), ("--color", Text),
    ("--context-separator", Text), ("--field-context-separator", Text),
    ("--field-match-separator", Text), ("--path-separator", Text), ("--engine", Text),
    ("--pre", Text), ("--pre-glob", Text), ("--ignore-file", Read),
];

#[rustfmt::skip]
const SED: &[(&str, Value)] = &[
    ("-e", Script), ("--expression", Script), ("-f", ScriptFile), ("--file", ScriptFile),
    ("-l", Text), ("--line-length", Text),
];

#[rustfmt::skip]
const AWK: &[(&str, Value)] = &[
    ("-f", ScriptFile), ("--file", ScriptFile), ("-e", Script), ("--source", Script), ("-v", Text),
    ("--assign", Text), ("-F", Text), ("--field-separator", Text), ("-W", Text),
    ("-E", ScriptFile), ("--exec", ScriptFile), ("-i", Read), ("--include", Read), ("-l", Text),
    ("--load", Text),
];

#[rustfmt::skip]
const SORT: &[(&str, Value)] = &[
    ("-k", Text), ("--key", Text), ("-t", Text), ("--field-separator", Text), ("-S", Text),
    ("--buffer-size", Text), ("--parallel", Text), ("--batch-size", Text), ("-o", Write),
    ("--output", Write), ("-T", Write), ("--temporary-directory", Write), ("--files0-from", FileList),
    ("--random-source", Read), ("--compress-program", Text),
];

/// The archive (`-f`) is taken apart: it is not under `-C`.
#[rustfmt::skip]
const TAR_VALUES: &[(&str, Value)] = &[
    ("-f", Text), ("--file", Text), ("-C", BaseDir), ("--directory", BaseDir), ("-T", FileList),
    ("--files-from", FileList), ("-X", Read), ("--exclude-from", Read), ("-I", Text),
    ("--use-compress-program", Text), ("-b", Text), ("--blocking-factor", Text), ("-N", Text),
    ("--newer", Text), ("--after-date", Text), ("-g", Write), ("--listed-incremental", Write),
    ("-K", Text), ("-L", Text), ("-V", Text), ("-H", Text), ("--format", Text), ("-F", Text),
    ("--exclude", Pattern), ("--to-command", Text), ("--checkpoint-action", Text),
    ("--transform", Text), ("--xform", Text),
];

#[rustfmt::skip]
const COPY: &[(&str, Value)] = &[
    ("-t", TargetDir), ("--target-directory", TargetDir), ("-S", Text), ("--suffix", Text),
    ("-m", Text), ("--mode", Text), ("-o", Text), ("--owner", Text), ("-g", Text),
    ("--group", Text),
];

#[rustfmt::skip]
const GIT: &[(&str, Value)] = &[
    ("-C", BaseDir), ("--git-dir", Read), ("--work-tree", Read), ("-c", Text),
    ("--namespace", Text), ("--output", Write), ("-m", Text), ("--message", Text), ("-F", Read),
    ("--file", Read), ("-b", Text), ("-B", Text), ("-n", Text), ("--author", Text),
    ("--format", Text), ("--pretty", Text), ("--grep", Text),
];

#[rustfmt::skip]
const SPECS: &[Spec<'static>] = &[
    // Wrappers: their command's files are decided with it (see `wrapper`). Only GNU time's
    // -o is a file (stdbuf's is a buffering mode, xargs's a flag).
    Spec {
        options: &[("-o", Write), ("--output", Write)],
        ..spec(&["time"], Operands::All(T))
    },
    Spec {
        options: &[("-a", Read), ("--arg-file", Read)],
        ..spec(&["xargs"], Operands::All(T))
    },
    Spec {
        options: &[("-i", Text), ("--input", Text), ("-o", Text), ("--output", Text), ("-e", Text), ("--error", Text)],
        ..spec(&["stdbuf"], Operands::All(T))
    },
    spec(&["env", "nice", "timeout", "nohup", "setsid", "ionice", "sudo", "doas"], Operands::All(T)),
    spec(
        &[
            "echo", "printf", "true", "false", "seq", "sleep", "id", "whoami", "groups", "uname",
            "hostname", "nproc", "basename", "dirname", "expr", "yes", "kill", "ps", "pgrep",
            "pkill", "which", "printenv", "test", "[", "tr", "pwd", "export", "local",
            "declare", "typeset", "readonly", "unset", "set", "shopt", "read", "let", "eval",
            "exit", "return", "shift", "alias", "unalias", "type", "command", "builtin", "hash",
            "trap", "wait", "getopts", "umask", "times", "jobs", "compgen", "help", "history", ":",
            "break", "continue", "dirs", "popd", "exec",
        ],
        Operands::All(T),
    ),
    // The template names the file mktemp makes (its X's replaced).
    Spec {
        options: &[("-p", Write), ("--tmpdir", Write), ("--suffix", Text)],
        ..spec(&["mktemp"], Operands::All(W))
    },
    Spec {
        options: &[
            ("-r", Look), ("--reference", Look), ("-f", Read), ("--file", Read),
        ],
        ..spec(&["date"], Operands::All(T))
    },
    spec(
        &[
            "cat", "tac", "rev", "readlink", "less", "more", "most", "zcat", "xzcat", "bzcat",
            "zstdcat", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
            "comm", "cd", "pushd", "source", ".",
        ],
        Operands::All(R),
    ),
    Spec {
        options: &[
            ("-n", Text), ("-c", Text), ("-s", Text), ("--lines", Text), ("--bytes", Text),
            ("--pid", Text), ("--sleep-interval", Text), ("--max-unchanged-stats", Text),
        ],
        ..spec(&["head", "tail"], Operands::All(R))
    },
    Spec {
        options: &[("--files0-from", FileList)],
        ..spec(&["wc"], Operands::All(R))
    },
    Spec {
        options: GREP,
        ..spec(&["grep", "egrep", "fgrep"], Operands::AfterScript(R))
    },
    Spec {
        options: RG,
        ..spec(&["rg"], Operands::AfterScript(R))
    },
    Spec {
        options: &[
            ("-t", Text), ("--type", Text), ("-e", Text), ("--extension", Text), ("-d", Text),
            ("--max-depth", Text), ("--min-depth", Text), ("--exact-depth", Text), ("-E", Pattern),
            ("--exclude", Pattern), ("-c", Text), ("--color", Text), ("-j", Text),
            ("--threads", Text), ("-S", Text), ("--size", Text), ("--changed-within", Text),
            ("--changed-before", Text), ("-o", Text), ("--owner", Text), ("--max-results", Text),
            ("--format", Text), ("--path-separator", Text), ("--base-directory", Read),
            ("--search-path", Read), ("--ignore-file", Read),
        ],
        ..spec(&["fd", "fdfind"], Operands::AfterScript(R))
    },
    Spec {
        options: SED,
        writes: &["-i", "--in-place"],
        ..spec(&["sed"], Operands::AfterScript(R))
    },
    Spec {
        options: AWK,
        assignments: true,
        ..spec(AWKS, Operands::AfterScript(R))
    },
    Spec {
        options: &[
            ("--arg", Text), ("--argjson", Text),
            ("--indent", Text), ("-L", Read), ("--library-path", Read),
        ],
        ..spec(&["jq"], Operands::AfterScript(R))
    },
    Spec {
        options: &[
            ("-m", Read), ("--magic-file", Read), ("-f", FileList), ("--files-from", FileList),
            ("-e", Text), ("--exclude", Text), ("-F", Text), ("--separator", Text), ("-P", Text),
            ("--parameter", Text),
        ],
        ..spec(&["file"], Operands::All(R))
    },
    Spec {
        options: &[("-c", Text), ("--format", Text), ("--printf", Text)],
        ..spec(&["stat"], Operands::All(L))
    },
    Spec {
        options: &[
            ("-d", Text), ("--max-depth", Text), ("-t", Text), ("--threshold", Text), ("-B", Text),
            ("--block-size", Text), ("--time-style", Text), ("--exclude", Pattern), ("-X", Read),
            ("--exclude-from", Read), ("--files0-from", FileList),
        ],
        ..spec(&["du"], Operands::All(L))
    },
    Spec {
        options: &[
            ("-B", Text), ("--block-size", Text), ("-t", Text), ("--type", Text), ("-x", Text),
            ("--exclude-type", Text),
        ],
        ..spec(&["df"], Operands::All(L))
    },
    Spec {
        options: &[
            ("-L", Text), ("-P", Text), ("-I", Text), ("--filelimit", Text), ("--charset", Text),
            ("-H", Text), ("-T", Text), ("--sort", Text), ("--timefmt", Text), ("-o", Write),
        ],
        ..spec(&["tree"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-I", Pattern), ("--ignore", Pattern), ("-w", Text), ("--width", Text), ("-T", Text),
            ("--tabsize", Text), ("--hide", Pattern), ("--block-size", Text), ("--format", Text),
            ("--quoting-style", Text), ("--sort", Text), ("--time", Text), ("--time-style", Text),
            ("--indicator-style", Text),
        ],
        ..spec(&["ls", "dir", "vdir"], Operands::All(L))
    },
    Spec {
        options: &[("--relative-to", Read), ("--relative-base", Read)],
        ..spec(&["realpath"], Operands::All(L))
    },
    Spec {
        options: &[
            ("-C", Text), ("-U", Text), ("-I", Text), ("--ignore-matching-lines", Text),
            ("-x", Pattern), ("--exclude", Pattern), ("-F", Text), ("--show-function-line", Text),
            ("-L", Text), ("--label", Text), ("-W", Text), ("--width", Text),
            ("--line-format", Text), ("--tabsize", Text), ("--horizon-lines", Text), ("-X", Read),
            ("--exclude-from", Read), ("--from-file", Read), ("--to-file", Read),
        ],
        ..spec(&["diff"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-i", Text), ("--ignore-initial", Text), ("-n", Text), ("--bytes", Text),
        ],
        ..spec(&["cmp"], Operands::All(R))
    },
    Spec {
        options: SORT,
        ..spec(&["sort"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-f", Text), ("--skip-fields", Text), ("-s", Text), ("--skip-chars", Text),
            ("-w", Text), ("--check-chars", Text),
        ],
        ..spec(&["uniq"], Operands::First(R, W))
    },
    Spec {
        options: &[
            ("-c", Text), ("-g", Text), ("-l", Text), ("-o", Text), ("-s", Text), ("-n", Text),
            ("-R", Text), ("-cols", Text), ("-groupsize", Text), ("-len", Text), ("-seek", Text),
            ("-name", Text),
        ],
        ..spec(&["xxd"], Operands::First(R, W))
    },
    Spec {
        options: &[
            ("-b", Text), ("-c", Text), ("-d", Text), ("-f", Text), ("--bytes", Text),
            ("--characters", Text), ("--delimiter", Text), ("--fields", Text),
            ("--output-delimiter", Text),
        ],
        ..spec(&["cut"], Operands::All(R))
    },
    Spec {
        options: &[("-d", Text), ("--delimiters", Text)],
        ..spec(&["paste"], Operands::All(R))
    },
    Spec {
        options: &[("-w", Text), ("--width", Text)],
        ..spec(&["fold"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-w", Text), ("--width", Text), ("-p", Text), ("--prefix", Text), ("-g", Text),
            ("--goal", Text),
        ],
        ..spec(&["fmt"], Operands::All(R))
    },
    Spec {
        options: &[("-t", Text), ("--tabs", Text)],
        ..spec(&["expand", "unexpand"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-a", Text), ("-e", Text), ("-o", Text), ("-t", Text), ("-v", Text), ("-1", Text),
            ("-2", Text), ("-j", Text),
        ],
        ..spec(&["join"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-c", Text), ("--output-width", Text), ("-s", Text), ("--separator", Text),
            ("-o", Text), ("--output-separator", Text), ("-N", Text), ("--table-columns", Text),
            ("-R", Text), ("-H", Text), ("-W", Text), ("-E", Text), ("-l", Text), ("-n", Text),
            ("-O", Text),
        ],
        ..spec(&["column"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-b", Text), ("-d", Text), ("-f", Text), ("-h", Text), ("-i", Text), ("-l", Text),
            ("-n", Text), ("-s", Text), ("-v", Text), ("-w", Text),
        ],
        ..spec(&["nl"], Operands::All(R))
    },
    Spec {
        options: &[("-s", Text), ("--separator", Text)],
        ..spec(&["tac"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-n", Text), ("--bytes", Text), ("-t", Text), ("--radix", Text), ("-e", Text),
            ("--encoding", Text), ("-s", Text), ("--output-separator", Text), ("-T", Text),
            ("--target", Text),
        ],
        ..spec(&["strings"], Operands::All(R))
    },
    // `-w` and `--strings` take a value only when it is attached (`-w8`, `--strings=3`).
    Spec {
        options: &[
            ("-A", Text), ("--address-radix", Text), ("-j", Text), ("--skip-bytes", Text),
            ("-N", Text), ("--read-bytes", Text), ("-S", Text), ("-t", Text),
            ("--format", Text),
        ],
        ..spec(&["od"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-e", Text), ("--format", Text), ("-f", Read), ("--format-file", Read), ("-n", Text),
            ("--length", Text), ("-s", Text), ("--skip", Text),
        ],
        ..spec(&["hexdump"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-w", Text), ("--wrap", Text), ("-l", Text), ("--length", Text), ("-a", Text),
            ("--algorithm", Text),
        ],
        ..spec(&["base64", "base32", "b2sum", "cksum"], Operands::All(R))
    },
    Spec {
        options: &[("-m", Text), ("--mode", Text), ("--context", Text)],
        ..spec(&["mkdir", "rmdir", "rm", "tee"], Operands::All(W))
    },
    Spec {
        options: &[
            ("-d", Text), ("--date", Text), ("-t", Text), ("-r", Look), ("--reference", Look),
            ("-s", Text), ("--size", Text), ("-n", Text), ("--iterations", Text),
            ("--random-source", Read),
        ],
        ..spec(&["touch", "truncate", "shred"], Operands::All(W))
    },
    Spec {
        options: &[("--reference", ScriptFile), ("--from", Text)],
        flags: Some("cfvRHLPh"),
        ..spec(&["chmod", "chown", "chgrp"], Operands::AfterScript(W))
    },
    Spec {
        options: COPY,
        ..spec(&["cp", "ln"], Operands::Copy)
    },
    Spec {
        options: COPY,
        writes: &["-d", "--directory"],
        ..spec(&["install"], Operands::Copy)
    },
    Spec {
        options: COPY,
        ..spec(&["mv"], Operands::All(W))
    },
    Spec {
        options: &[
            ("-o", Write), ("--output", Write), ("-S", Text), ("--suffix", Text), ("-b", Text),
            ("-#", Text), ("-T", Text), ("--threads", Text), ("-D", Read), ("--patch-from", Read),
            ("--output-dir-flat", Write), ("--output-dir-mirror", Write), ("--filelist", FileList),
            ("--files", FileList), ("--files0", FileList),
        ],
        writes: &[],
        unsure: &["-T", "-b", "-#"],
        ..spec(
            &[
                "gzip", "gunzip", "xz", "unxz", "lzma", "unlzma", "bzip2", "bunzip2", "zstd",
                "unzstd", "lz4",
            ],
            Operands::All(W),
        )
    },
    Spec {
        options: &[("-d", Write), ("-x", Text), ("-P", Text)],
        ..spec(&["unzip"], Operands::First(R, T))
    },
    Spec {
        options: &[
            ("-b", Write), ("-t", Text), ("-tt", Text), ("-P", Text), ("-x", Text), ("-i", Text),
        ],
        ..spec(&["zip"], Operands::First(W, R))
    },
    Spec {
        options: &[
            ("-b", Text), ("-l", Text), ("-n", Text), ("-C", Text), ("-a", Text),
            ("--additional-suffix", Text),
        ],
        ..spec(&["split"], Operands::First(R, W))
    },
    Spec {
        options: &[
            ("-i", Read), ("--input", Read), ("-o", Write), ("--output", Write), ("-d", BaseDir),
            ("--directory", BaseDir), ("-p", Text), ("-F", Text), ("-B", Text), ("-r", Write),
            ("-z", Text), ("-D", Text),
        ],
        ..spec(&["patch"], Operands::First(W, R))
    },
    Spec {
        options: &[
            ("-init", Read), ("-cmd", Text), ("-separator", Text), ("-newline", Text),
            ("-nullvalue", Text),
        ],
        ..spec(&["sqlite3"], Operands::First(W, T))
    },
    Spec {
        options: GIT,
        ..spec(&["git"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-C", BaseDir), ("--directory", BaseDir), ("-f", Read), ("--file", Read),
            ("--makefile", Read), ("-I", Read), ("--include-dir", Read), ("-j", Text),
            ("--jobs", Text), ("-l", Text), ("-o", Text), ("-W", Text),
        ],
        ..spec(&["make", "gmake"], Operands::All(R))
    },
    Spec {
        options: &[
            ("-o", Write), ("--output", Write), ("-T", Read), ("--upload-file", Read),
            ("-K", Read), ("--config", Read), ("-c", Write), ("--cookie-jar", Write), ("-d", Text),
            ("--data", Text), ("-H", Text), ("--header", Text), ("-X", Text), ("--request", Text),
            ("-u", Text), ("--user", Text), ("-A", Text), ("-e", Text), ("-b", Text), ("-F", Text),
            ("--form", Text), ("--url", Text), ("-x", Text), ("--proxy", Text), ("-m", Text),
            ("--max-time", Text),
        ],
        ..spec(&["curl"], Operands::All(T))
    },
    Spec {
        options: &[
            ("-O", Write), ("--output-document", Write), ("-o", Write), ("--output-file", Write),
            ("-a", Write), ("--append-output", Write), ("-P", Write),
            ("--directory-prefix", Write), ("-i", Read), ("--input-file", Read), ("-e", Text),
            ("--header", Text), ("-U", Text), ("--user-agent", Text), ("-t", Text), ("-T", Text),
        ],
        ..spec(&["wget"], Operands::All(T))
    },
    Spec {
        options: &[
            ("-c", Text), ("-m", Text), ("-W", Text), ("-X", Text), ("-e", Text), ("-E", Text),
            ("-I", Read), ("-r", Read), ("--require", Read), ("--eval", Text),
        ],
        ..spec(
            &[
                "python", "python3", "python2", "perl", "ruby", "node", "nodejs", "php", "lua",
                "bash", "sh", "dash", "zsh", "ksh",
            ],
            Operands::All(R),
        )
    },
];

/// What a command line has its program do with files, from one reading of its arguments.
#[derive(Debug, Default)]
pub struct Reading {
    /// The files it names, to read or write.
    pub touches: Vec<Touch>,
    /// The files a copy, move or link creates from those it names.
    pub arrivals: Vec<Arrival>,
    /// What it changes beyond the files it names (for a command read two ways, what either
    /// reading says).
    pub beyond: Vec<Beyond>,
    /// The files sed, awk or jq take their script or program from (`-f FILE`).
    pub script_files: Vec<String>,
    /// awk loads an extension (`-l`): its program may read and write files through the
    /// extension's functions.
    pub loads: bool,
    /// Every word that may name a file, whatever the program makes of it (`mentions`).
    pub mentions: Vec<String>,
    /// jq's module search path (`-L DIR`).
    pub search: Vec<String>,
    /// jq's program, when given on the command line.
    pub programs: Vec<String>,
    /// The files that list more files for it to work on (`tar -T F`, `zstd --filelist F`):
    /// what they list is as if it were on the command line.
    pub lists: Vec<String>,
}

/// How `argv` (argv\[0\] first) has the command named `name` (a program's file name, or a
/// builtin) use files. `None` when the command is not known here: the caller then tries
/// another name, or `generic`.
pub fn read(name: &str, argv: &[String]) -> Option<Reading> {
    let args = argv.get(1..).unwrap_or_default();
    let touches = match name {
        "find" => find(args),
        "tar" | "gtar" | "bsdtar" => {
            let (touches, lists) = tar(args);
            return Some(Reading {
                touches,
                mentions: mentions(args, &[]),
                lists,
                ..Reading::default()
            });
        }
        "dd" => dd(args),
        "jq" => return Some(jq(args)),
        _ => {
            let spec = spec_of(name)?;
            let rewritten;
            let args = if AWKS.contains(&name) {
                rewritten = awk_w_options(name, args);
                &rewritten
            } else if name.contains("zstd") {
                rewritten = zstd_options(spec, args);
                &rewritten
            } else {
                args
            };
            let scan = scan(spec, args, Doubt::Trusted);
            let doubted = scan.doubtful;
            let reading = spec_reading(name, spec, args, scan);
            if !doubted {
                return Some(reading);
            }
            let other = spec_reading(name, spec, args, self::scan(spec, args, Doubt::Flags));
            return Some(reading.or(other));
        }
    };
    let patterns = match name {
        "find" => find_patterns(args),
        _ => Vec::new(),
    };
    Some(Reading {
        touches,
        mentions: mentions(args, &patterns),
        ..Reading::default()
    })
}

/// What `scan` of `args` says the command named `name` does with files.
fn spec_reading(name: &str, spec: &Spec, args: &[String], scan: Scan) -> Reading {
    let mentions = match TEXT_ONLY.contains(&name) {
        true => Vec::new(),
        false => mentions(args, &patterns(spec, &scan)),
    };
    Reading {
        arrivals: arrivals(name, &scan),
        beyond: beyond(name, &scan).into_iter().collect(),
        script_files: script_files(name, &scan),
        loads: scan.gave("-l", "--load"),
        mentions,
        search: Vec::new(),
        programs: Vec::new(),
        lists: response_files(name, args)
            .chain(scan.lists.clone())
            .collect(),
        touches: touched(name, scan),
    }
}

impl Reading {
    /// Both readings of a command read two ways: everything either touches, and a word
    /// exempt as a pattern only where both take it for one.
    fn or(mut self, other: Reading) -> Reading {
        fn extend<T: PartialEq>(into: &mut Vec<T>, from: Vec<T>) {
            for item in from {
                if !into.contains(&item) {
                    into.push(item);
                }
            }
        }
        extend(&mut self.touches, other.touches);
        extend(&mut self.arrivals, other.arrivals);
        extend(&mut self.beyond, other.beyond);
        extend(&mut self.script_files, other.script_files);
        self.loads |= other.loads;
        extend(&mut self.mentions, other.mentions);
        extend(&mut self.search, other.search);
        extend(&mut self.programs, other.programs);
        extend(&mut self.lists, other.lists);
        self
    }
}

/// Every word of `args` that may name a file, whatever the program makes of it: the word,
/// what follows each `=` or `:` in it (`--opt=F`, `HEAD:F`), what follows a leading `@`
/// (`curl -d @F`, option files), and what follows each letter of a short option bundle
/// (`-sfF`). rsh's reading of a program's options can be wrong (a flag taken for an option
/// with a value, an option it does not know); a sensitive file named in any word is refused
/// all the same. Not the words in `exempt`: a pattern or script, which the program matches
/// or runs (`grep .env .gitignore`, `find . -name .env`, `jq .env f.json`).
pub fn mentions(args: &[String], exempt: &[&str]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    // A glob can make tens of thousands of words.
    let mut seen = std::collections::HashSet::new();
    let mut add = |word: &str| {
        let word = word.strip_prefix('@').unwrap_or(word);
        if !word.is_empty() && word != "-" && seen.insert(word.to_owned()) {
            found.push(word.to_owned());
        }
    };
    for arg in args.iter().filter(|a| !exempt.contains(&a.as_str())) {
        add(arg);
        for (at, c) in arg.char_indices() {
            if (c == '=' || c == ':') && !EXCLUSIONS.contains(&&arg[..at]) {
                add(&arg[at + 1..]);
            }
        }
        if let Some(bundle) = arg.strip_prefix('-').filter(|b| !b.starts_with('-')) {
            // Only while the letters before could all be options: `-I/usr/include` is one
            // value, not a bundle.
            let letters = bundle
                .char_indices()
                .take_while(|(_, c)| c.is_ascii_alphanumeric())
                .take(16);
            for (at, c) in letters {
                add(&bundle[at + c.len_utf8()..]);
            }
        }
    }
    found
}

/// The words a program with a pattern or script operand (`grep`, `sed`, `jq`) takes as
/// that, not as a file.
fn patterns<'a>(spec: &Spec, scan: &'a Scan) -> Vec<&'a str> {
    let mut patterns = match spec.operands {
        Operands::AfterScript(_) => scripts(scan),
        _ => Vec::new(),
    };
    let kind = |option: &str| spec.options.iter().find(|(n, _)| *n == option).map(|o| o.1);
    let globs = scan
        .values
        .iter()
        .filter(|(o, _)| kind(o) == Some(Value::Pattern));
    patterns.extend(globs.map(|(_, value)| value.as_str()));
    // awk's assignments: their values are files only as its program uses them, which the
    // program's reading decides.
    if spec.assignments {
        patterns.extend(scan.assignments.iter().map(String::as_str));
        patterns.extend(scan.values_of(&["-v", "--assign"]));
    }
    patterns
}

/// The files a list names (`tar -T`, `--files0-from`): each line, or NUL-ended name, and
/// each word of one (response files, `@F`, split at blanks).
pub fn list_entries(text: &str) -> Vec<String> {
    let lines = text.split(['\n', '\0']).map(|l| l.trim_end_matches('\r'));
    let words = text.split(|c: char| c.is_whitespace() || c == '\0');
    // A response file quotes as a shell does (`".env"`, `.e\nv`): each also unquoted.
    let both = lines
        .chain(words)
        .flat_map(|e| [e.to_owned(), e.replace(['"', '\'', '\\'], "")]);
    let mut seen = std::collections::HashSet::new();
    both.filter(|e| !e.is_empty() && seen.insert(e.clone()))
        .collect()
}

/// The response files of a binutils program (`strings @F`): more arguments, files among
/// them.
fn response_files<'a>(name: &str, args: &'a [String]) -> impl Iterator<Item = String> + 'a {
    let binutils = matches!(name, "strings" | "objdump" | "readelf" | "nm" | "size");
    args.iter()
        .filter(move |_| binutils)
        .filter_map(|arg| arg.strip_prefix('@'))
        .map(str::to_owned)
}

/// List options whose value is optional, and only attached: without one, the list is read
/// from standard input.
const OPTIONAL_LISTS: &[&str] = &["--files", "--files0"];

/// Options whose attached value is a pattern of names left out, never a file read
/// (`rsync --exclude=.env`, `tar --exclude=.env`).
const EXCLUSIONS: &[&str] = &[
    "--exclude",
    "--exclude-dir",
    "--include",
    "--ignore",
    "--hide",
    "--glob",
    "--iglob",
];

/// The patterns of a find expression (`-name .env`): names matched, not files opened.
fn find_patterns(args: &[String]) -> Vec<&str> {
    const PATTERNS: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-regex",
        "-iregex",
        "-lname",
        "-ilname",
    ];
    args.windows(2)
        .filter(|pair| PATTERNS.contains(&pair[0].as_str()))
        .map(|pair| pair[1].as_str())
        .collect()
}

/// zstd's long options as the table reads them: zstd takes a word that starts with one of
/// its options that take a value (all those listed) as that option, the value after `=` or in the next word
/// (`--filelistX L` is `--filelist L`).
fn zstd_options(spec: &Spec, args: &[String]) -> Vec<String> {
    let longs = || {
        spec.options
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| n.starts_with("--"))
    };
    args.iter()
        .map(|arg| {
            let long = longs()
                .filter(|n| arg.starts_with(n))
                .max_by_key(|n| n.len())
                .filter(|n| n.len() < arg.len());
            match long {
                Some(name) if arg[name.len()..].starts_with('=') => arg.clone(),
                Some(name) => name.to_owned(),
                None => arg.clone(),
            }
        })
        .collect()
}

/// Programs that open no file their arguments name, whatever they are.
const TEXT_ONLY: &[&str] = &[
    "echo", "printf", "basename", "dirname", "seq", "sleep", "expr", "true", "false", "yes",
    "printenv", "nproc", "uname", "whoami", "id", "groups",
];

/// The names awk goes by.
pub const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk"];

/// awk's `-W` options as the AWK table reads them. mawk's `-W exec FILE` (any prefix of
/// `exec` in any case, also in a comma list, also `exec=FILE`) is `--exec FILE`, and the last option;
/// gawk's `-W NAME[=VALUE]` is `--NAME[=VALUE]`. Any other `-W` stays as it is.
fn awk_w_options(name: &str, args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len() + 2);
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        let list = match arg.as_str() {
            "--" => {
                out.push(arg.clone());
                break;
            }
            "-W" => match words.next() {
                Some(list) => list.clone(),
                None => break,
            },
            a if a.starts_with("-W") => a[2..].to_owned(),
            "-f" | "-v" | "-F" | "-e" | "-E" | "-i" | "-l" => {
                out.push(arg.clone());
                out.extend(words.next().cloned());
                continue;
            }
            _ => {
                out.push(arg.clone());
                continue;
            }
        };
        if name == "gawk" && !list.is_empty() {
            out.push(format!("--{list}"));
            continue;
        }
        let exec = list.split(',').find_map(|item| {
            let (option, value) = item.split_once('=').unwrap_or((item, ""));
            // mawk takes the names in any case (`-W E`).
            let option = option.to_ascii_lowercase();
            (!option.is_empty() && "exec".starts_with(&option)).then_some(value)
        });
        match exec {
            Some(file) => {
                out.push("--exec".to_owned());
                match file {
                    "" => out.extend(words.next().cloned()),
                    file => out.push(file.to_owned()),
                }
                out.push("--".to_owned());
                break;
            }
            None => out.extend(["-W".to_owned(), list]),
        }
    }
    out.extend(words.cloned());
    out
}

/// The files the arguments read into `scan` name to read or write.
fn touched(name: &str, mut scan: Scan) -> Vec<Touch> {
    if links_hard(name, &scan) {
        // A hard link is another name for the same file: whatever is written through the
        // new name is written to the source (`ln .git/config c; cat x >> c`).
        for touch in &mut scan.touches {
            touch.write = true;
        }
    }
    if let Some(suffixes) = compression_suffixes(name) {
        if to_standard_output(&scan) {
            // `gzip -c f` reads f and writes only its standard output.
            let operands: Vec<String> = scan.operands.iter().flatten().cloned().collect();
            for touch in &mut scan.touches {
                touch.write &= !operands.contains(&touch.path);
            }
        } else {
            let compressed = compressed_names(&scan, suffixes[0].0);
            scan.touches.extend(compressed);
        }
    }
    if name == "sed" {
        let backups = sed_backups(&scan);
        scan.touches.extend(backups);
    }
    let inside: Vec<Touch> = match name {
        "sed" => scripts(&scan)
            .into_iter()
            .flat_map(super::scripts::sed_files)
            .collect(),
        _ if AWKS.contains(&name) => {
            if in_place(&scan) {
                let operands: Vec<&String> = scan.operands.iter().flatten().collect();
                for touch in &mut scan.touches {
                    touch.write |= operands.contains(&&touch.path);
                }
            }
            let assigned = assigned_values(&scan);
            let loads = scan.gave("-l", "--load");
            scripts(&scan)
                .into_iter()
                .flat_map(|program| super::scripts::awk_files(program, &assigned, loads))
                .collect()
        }
        _ => Vec::new(),
    };
    scan.touches.extend(inside);
    scan.touches
}

/// The backups `sed -i SUFFIX` makes of the files it edits, by renaming them: FILE and the
/// suffix, or the suffix with each `*` made FILE (`-i 'bak_*' d/f` renames to `bak_d/f`).
fn sed_backups(scan: &Scan) -> Vec<Touch> {
    let Some(suffix) = &scan.backup else {
        return Vec::new();
    };
    let mut backups = Vec::new();
    for file in scan
        .operands
        .iter()
        .skip(usize::from(!scan.script_given))
        .flatten()
    {
        let (dir, base) = match file.rsplit_once('/') {
            Some((dir, base)) => (format!("{dir}/"), base),
            None => (String::new(), file.as_str()),
        };
        // GNU sed puts the file as written where the `*` is; the others are there to be sure.
        let names = match suffix.contains('*') {
            true => {
                let name = suffix.replace('*', base);
                vec![suffix.replace('*', file), format!("{dir}{name}"), name]
            }
            false => vec![format!("{file}{suffix}")],
        };
        backups.extend(names.into_iter().map(|path| Touch {
            path,
            write: true,
            look: false,
        }));
    }
    backups
}

/// The files sed or awk (named `name`) take their script or program from (`-f FILE`); empty
/// for any other command.
fn script_files(name: &str, scan: &Scan) -> Vec<String> {
    if name != "sed" && !AWKS.contains(&name) {
        return Vec::new();
    }
    scan.values_of(&["-f", "--file", "-E", "--exec", "-i", "--include"])
        .filter(|file| !INPLACE.contains(file))
        .map(str::to_owned)
        .collect()
}

/// How gawk is told to edit its files in place (`-i inplace`): a library it ships.
const INPLACE: &[&str] = &["inplace", "inplace.awk"];

/// Whether gawk edits its files in place: it writes every file operand.
fn in_place(scan: &Scan) -> bool {
    scan.values_of(&["-i", "--include", "-l", "--load"])
        .any(|library| INPLACE.contains(&library))
}

/// The values awk's command line assigns to variables: `-v NAME=VALUE` and operands of
/// that form.
fn assigned_values(scan: &Scan) -> Vec<&str> {
    let options = scan.values_of(&["-v", "--assign"]);
    let operands = scan.assignments.iter().map(String::as_str);
    options
        .chain(operands)
        .filter_map(|assignment| assignment.split_once('=').map(|(_, value)| value))
        .collect()
}

/// The scripts or programs given on the command line: those of `-e` (and gawk's
/// `--source`), else the first operand.
fn scripts(scan: &Scan) -> Vec<&str> {
    let mut scripts: Vec<&str> = scan
        .values_of(&["-e", "--expression", "--source"])
        .collect();
    if !scan.script_given
        && let Some(Some(first)) = scan.operands.first()
    {
        scripts.push(first);
    }
    scripts
}

/// jq: `--rawfile NAME FILE` and `--slurpfile NAME FILE` read FILE (their two values are
/// more than a spec says), the rest as its spec reads it.
fn jq(args: &[String]) -> Reading {
    let mut rest = Vec::with_capacity(args.len());
    let mut files = Vec::new();
    // jq opens no file by a name it is given as a value.
    let mut values: Vec<&str> = Vec::new();
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        match arg.as_str() {
            "--" => {
                rest.push(arg.clone());
                rest.extend(words.by_ref().cloned());
            }
            "--rawfile" | "--slurpfile" | "--argfile" => {
                let _name = words.next();
                files.extend(words.next().cloned());
            }
            // Their value is the next word, whatever it is (`--indent --arg` is an indent).
            "--indent" | "-L" | "--library-path" => {
                rest.push(arg.clone());
                rest.extend(words.next().cloned());
            }
            // A name and a value, neither a file.
            "--arg" | "--argjson" => {
                values.extend(words.next().map(String::as_str));
                values.extend(words.next().map(String::as_str));
            }
            _ => rest.push(arg.clone()),
        }
    }
    let mut touches: Vec<Touch> = files
        .into_iter()
        .map(|path| Touch {
            path,
            write: false,
            look: false,
        })
        .collect();
    let Some(spec) = spec_of("jq") else {
        return Reading::default();
    };
    let mut scan = scan(spec, &rest, Doubt::Trusted);
    // `-f` (anywhere, also in a group: `-rf`) and `--run-tests` are flags: the first operand
    // is then the file the program, or the tests, are read from; none is standard input.
    let from_file = rest.iter().any(|a| {
        let group = a
            .strip_prefix('-')
            .filter(|g| !g.is_empty() && !g.starts_with('-'));
        matches!(a.as_str(), "--from-file" | "--run-tests")
            || group.is_some_and(|g| g.chars().all(|c| c.is_ascii_alphabetic()) && g.contains('f'))
    });
    let program_file = match scan.operands.first() {
        _ if !from_file => None,
        Some(Some(file)) => Some(file.clone()),
        _ => Some("-".to_owned()),
    };
    if let Some(file) = &program_file {
        scan.script_given = true;
        scan.touch(file, R);
    }
    let search: Vec<String> = scan
        .values_of(&["-L", "--library-path"])
        .map(str::to_owned)
        .collect();
    let dirs: Vec<&str> = search.iter().map(String::as_str).collect();
    let programs: Vec<String> = scripts(&scan).into_iter().map(str::to_owned).collect();
    for program in &programs {
        touches.extend(super::scripts::jq_files(program, &dirs));
    }
    values.extend(patterns(spec, &scan));
    let mentions = self::mentions(args, &values);
    let script_files = program_file.into_iter().collect();
    touches.extend(scan.touches);
    Reading {
        touches,
        mentions,
        script_files,
        search,
        programs,
        ..Reading::default()
    }
}

/// Whether `ln` or `cp` makes hard links rather than symbolic links or copies.
fn links_hard(name: &str, scan: &Scan) -> bool {
    match name {
        "ln" => !scan.gave("-s", "--symbolic"),
        "cp" => scan.gave("-l", "--link"),
        _ => false,
    }
}

/// A file a copy, move or link creates: `source` put at `dest`, or inside it under the
/// source's name (`cp F DIR` writes DIR/F). A directory brings everything in it along.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrival {
    /// As written (relative names are relative to the current directory, except a relative
    /// `ln -s` target, which is relative to the link).
    pub source: String,
    pub dest: String,
    pub into: Into,
    /// `ln -s`: what arrives is a link to the source.
    pub link: bool,
    /// `--parents`: the source arrives under its whole name, not only its last component.
    pub parents: bool,
    /// `-b`, `--backup` or `-S`: a file already where the source lands is first renamed to
    /// its name with this suffix added (`mv -b -S ig f .git/conf` makes `.git/config`).
    pub backup: Option<String>,
    /// `mv`, or a `cp` that makes hard links: what arrives is the source itself, not a copy,
    /// so that a file leaving its protected name can be written under the new one.
    pub moves: bool,
}

/// Where an arrival lands relative to its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Into {
    /// Inside it (`-t DIR`, a destination written with a trailing `/`, several sources).
    Directory,
    /// Inside it if it is a directory, else at it (`cp A B`).
    IfDirectory,
    /// At it (`-T`, `--no-target-directory`).
    Itself,
}

/// What `cp`, `mv`, `ln` and `install` (named by `name`) create from their sources;
/// nothing for any other command.
fn arrivals(name: &str, scan: &Scan) -> Vec<Arrival> {
    if !matches!(name, "cp" | "mv" | "ln" | "install") {
        return Vec::new();
    }
    // `install -d` makes its operands, as directories; they are written operands already.
    if scan.writes {
        return Vec::new();
    }
    let link = name == "ln" && scan.gave("-s", "--symbolic");
    let parents = scan.gave("--parents", "--parents");
    let backup = backup_suffix(scan);
    let mut sources: Vec<String> = scan.operands.iter().flatten().cloned().collect();
    let (dest, into) = match &scan.target {
        Some(dir) => (dir.clone(), Into::Directory),
        None if scan.target_dir => return Vec::new(),
        // `ln -s TARGET` makes a link named after it in the current directory.
        None if sources.len() == 1 && name == "ln" => (".".to_owned(), Into::Directory),
        None if sources.len() < 2 => return Vec::new(),
        None => {
            let dest = sources.pop().unwrap_or_default();
            let into = if scan.gave("-T", "--no-target-directory") {
                Into::Itself
            } else if sources.len() > 1 || dest.ends_with('/') {
                Into::Directory
            } else {
                Into::IfDirectory
            };
            (dest, into)
        }
    };
    sources
        .into_iter()
        .map(|source| Arrival {
            source,
            dest: dest.clone(),
            into,
            link,
            parents,
            backup: backup.clone(),
            moves: name == "mv" || links_hard(name, scan),
        })
        .collect()
}

/// The suffix backups are made with, when they are: the last `-S`/`--suffix` given (which
/// asks for backups by itself), else `~` with `-b` or `--backup`. Numbered backups
/// (`.~1~`) and the suffix from the environment are not known here; no pattern names them.
fn backup_suffix(scan: &Scan) -> Option<String> {
    match scan.values_of(SUFFIX).last() {
        Some(suffix) => Some(suffix.to_owned()),
        None if scan.gave("-b", "--backup") => Some("~".to_owned()),
        None => None,
    }
}

/// What a command changes that its arguments do not name: everything below the
/// directories it goes through (`chmod -R`, `gzip -r`), and for `gunzip -N` the name each
/// file holds. The caller looks at the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beyond {
    /// The operands, as written.
    pub operands: Vec<String>,
    /// Directories among them are gone through, to the bottom.
    pub recursive: bool,
    pub change: Change,
    /// `gunzip -N`: a file is restored under the name it holds, in its own directory.
    pub stored_names: bool,
    /// Symbolic links to directories are gone through too (the compressors, which do with
    /// `-f`; `chmod -R -L`).
    pub follows: bool,
    /// zstd's `--output-dir-flat DIR`: what it writes goes to DIR under its last name.
    pub flat: Option<String>,
    /// zstd's `--output-dir-mirror DIR`: what it writes goes to DIR under its whole name.
    pub mirror: Option<String>,
}

/// How a file below such a directory is changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Its mode or owner, in place.
    Attributes,
    /// Compressed: written under its name with `suffix`, and removed.
    Compressed { suffix: String },
    /// Uncompressed: a name ending in one of `suffixes` is written without it (or with
    /// its replacement: `.tgz` gives `.tar`), and the compressed file removed.
    Uncompressed { suffixes: Vec<(String, String)> },
}

/// What the command named `name` changes beyond the files it names; None when that is
/// nothing (see [`Beyond`]).
fn beyond(name: &str, scan: &Scan) -> Option<Beyond> {
    let attributes = matches!(name, "chmod" | "chown" | "chgrp");
    let suffixes = compression_suffixes(name);
    if !attributes && suffixes.is_none() {
        return None;
    }
    let operands: Vec<String> = scan.operands.iter().flatten().cloned().collect();
    if attributes {
        // The first operand is the mode or owner, unless --reference gave it.
        let files = operands.into_iter().skip(usize::from(!scan.script_given));
        return scan.gave("-R", "--recursive").then(|| Beyond {
            operands: files.collect(),
            recursive: true,
            change: Change::Attributes,
            stored_names: false,
            follows: scan.gave("-L", "-L"),
            flat: None,
            mirror: None,
        });
    }
    let suffixes = suffixes?;
    if to_standard_output(scan) {
        return None;
    }
    let given = scan.values_of(SUFFIX).last().map(str::to_owned);
    let uncompressing = name.starts_with("un")
        || name == "gunzip"
        || name == "bunzip2"
        || scan.gave("-d", "--decompress")
        || scan.gave("-d", "--uncompress");
    let change = if uncompressing {
        let mut all: Vec<(String, String)> = uncompressed_suffixes()
            .map(|(s, e)| (s.to_owned(), e.to_owned()))
            .collect();
        all.extend(given.map(|g| (g, String::new())));
        Change::Uncompressed { suffixes: all }
    } else {
        let suffix = given.unwrap_or_else(|| suffixes[0].0.to_owned());
        Change::Compressed { suffix }
    };
    let recursive = scan.gave("-r", "--recursive");
    let stored_names =
        uncompressing && matches!(name, "gzip" | "gunzip") && scan.gave("-N", "--name");
    let flat = scan
        .values_of(&["--output-dir-flat"])
        .last()
        .map(str::to_owned);
    let mirror = scan
        .values_of(&["--output-dir-mirror"])
        .last()
        .map(str::to_owned);
    (recursive || stored_names).then_some(Beyond {
        operands,
        recursive,
        change,
        stored_names,
        follows: true,
        flat,
        mirror,
    })
}

/// The options that give the suffix of a backup or of a compressed file.
const SUFFIX: &[&str] = &["-S", "--suffix"];

/// The suffixes a compressor adds (the first) and takes off, each with the name's new
/// ending (`.tgz` becomes `.tar`).
fn compression_suffixes(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
    Some(match name {
        "gzip" | "gunzip" => &[
            (".gz", ""),
            ("-gz", ""),
            (".z", ""),
            ("-z", ""),
            ("_z", ""),
            (".Z", ""),
            (".tgz", ".tar"),
            (".taz", ".tar"),
        ],
        "bzip2" | "bunzip2" => &[
            (".bz2", ""),
            (".bz", ""),
            (".tbz2", ".tar"),
            (".tbz", ".tar"),
        ],
        "xz" | "unxz" | "lzma" | "unlzma" => &[
            (".xz", ""),
            (".lzma", ""),
            (".txz", ".tar"),
            (".tlz", ".tar"),
        ],
        "zstd" | "unzstd" => &[(".zst", ""), (".tzst", ".tar")],
        "lz4" => &[(".lz4", "")],
        _ => return None,
    })
}

/// Every suffix a compressor here may take off when it uncompresses: each also reads
/// others' formats (zstd uncompresses `.gz`, `.xz` and `.lz4`; xz 5.4 `.lz`), so which one
/// does is not a matter of its name.
fn uncompressed_suffixes() -> impl Iterator<Item = (&'static str, &'static str)> + Clone {
    ["gzip", "bzip2", "xz", "zstd", "lz4"]
        .into_iter()
        .filter_map(compression_suffixes)
        .flatten()
        .copied()
        .chain([(".lz", ""), (".tlz4", ".tar")])
}

/// A compressor's `-c` (`--stdout`, `--to-stdout`): the result goes to standard output and
/// the operands stay as they are.
fn to_standard_output(scan: &Scan) -> bool {
    scan.gave("-c", "--stdout") || scan.gave("-c", "--to-stdout")
}

/// The files a compressor writes besides its operands: each compressed (`f` to `f.gz`, the
/// compressor's own suffix `added`) and each uncompressed (`f.gz` to `f`, by any
/// compressor's suffix), whichever it does (`gunzip .git/config.gz` writes `.git/config`).
/// Every suffix given with `-S`/`--suffix` counts too.
fn compressed_names(scan: &Scan, added: &str) -> Vec<Touch> {
    let given: Vec<&str> = scan.values_of(SUFFIX).filter(|s| !s.is_empty()).collect();
    let added = std::iter::once(added).chain(given.iter().copied());
    // The built-in suffixes as borrowed ones, to chain with those given.
    let own = uncompressed_suffixes().map(|(s, e)| -> (&str, &str) { (s, e) });
    let taken_off = own.chain(given.iter().map(|g| (*g, "")));
    let mut paths = Vec::new();
    for operand in scan.operands.iter().flatten() {
        paths.extend(added.clone().map(|suffix| format!("{operand}{suffix}")));
        for (suffix, ending) in taken_off.clone() {
            if let Some(stem) = operand.strip_suffix(suffix)
                && !stem.is_empty()
                && !stem.ends_with('/')
            {
                paths.push(format!("{stem}{ending}"));
            }
        }
    }
    let elsewhere = output_dirs(scan, &paths);
    paths
        .into_iter()
        .chain(elsewhere)
        .map(|path| Touch {
            path,
            write: true,
            look: false,
        })
        .collect()
}

/// zstd's `--output-dir-flat DIR` puts each file it writes in DIR under its last name,
/// `--output-dir-mirror DIR` under its whole relative name.
fn output_dirs(scan: &Scan, paths: &[String]) -> Vec<String> {
    let mut moved = Vec::new();
    for (option, dir) in &scan.values {
        let dir = dir.trim_end_matches('/');
        for path in paths {
            match option.as_str() {
                "--output-dir-flat" => {
                    let name = path.rsplit('/').next().unwrap_or(path);
                    moved.push(format!("{dir}/{name}"));
                }
                "--output-dir-mirror" => {
                    moved.push(format!("{dir}/{}", path.trim_start_matches("./")));
                }
                _ => {}
            }
        }
    }
    moved
}

/// How the command named `name` reads its arguments, when that is known here.
fn spec_of(name: &str) -> Option<&'static Spec<'static>> {
    SPECS.iter().find(|s| s.names.contains(&name))
}

/// Whether `touched` knows the command named `name`.
pub fn knows(name: &str) -> bool {
    matches!(name, "find" | "tar" | "gtar" | "bsdtar" | "dd") || spec_of(name).is_some()
}

/// For a command this module does not know: every operand and every `--name=VALUE` value
/// may be a file it reads.
pub fn generic(argv: &[String]) -> Vec<Touch> {
    by_spec(
        &spec(&[], Operands::All(R)),
        argv.get(1..).unwrap_or_default(),
    )
}

/// Whether an option's name says its value is written (`--output`, `--log-file`...).
fn output_like(name: &str) -> bool {
    let name = name.trim_start_matches('-');
    (name.len() >= 3 && "output".starts_with(name))
        || ["output", "outfile", "out-file", "log-file", "logfile"]
            .iter()
            .any(|n| name.starts_with(n))
}

struct Scan {
    touches: Vec<Touch>,
    /// Placed as they were met: a base directory applies to the operands after it.
    operands: Vec<Option<String>>,
    script_given: bool,
    target_dir: bool,
    /// The directory the operands go to (`cp -t DIR`), placed.
    target: Option<String>,
    writes: bool,
    base: Option<String>,
    /// Every option given, by name (`-r`, `--parents`): bundles are taken apart.
    seen: Vec<String>,
    /// The value of every option that takes one, with the option's name (`-S`, `.x`).
    values: Vec<(String, String)>,
    /// The operands that assign a variable (awk's `NAME=VALUE`).
    assignments: Vec<String>,
    /// The value of a `writes` option (`sed -i.bak`): the suffix of a backup.
    backup: Option<String>,
    /// The files that list more files to work on (`FileList` values), placed.
    lists: Vec<String>,
    /// A word was read in a way the program may not read it (see `Doubt`).
    doubtful: bool,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            touches: Vec::new(),
            operands: Vec::new(),
            script_given: false,
            target_dir: false,
            target: None,
            writes: false,
            base: None,
            seen: Vec::new(),
            values: Vec::new(),
            assignments: Vec::new(),
            backup: None,
            lists: Vec::new(),
            doubtful: false,
        }
    }

    /// The values given to any of `options`, in order.
    fn values_of<'a>(&'a self, options: &'a [&str]) -> impl Iterator<Item = &'a str> {
        self.values
            .iter()
            .filter(|(option, _)| options.contains(&option.as_str()))
            .map(|(_, value)| value.as_str())
    }

    /// Whether the option `short` or `long` was given. A long option is given by any
    /// abbreviation of it; one the program finds ambiguous stops it before it does anything.
    fn gave(&self, short: &str, long: &str) -> bool {
        self.seen.iter().any(|s| {
            s == short || (s.len() > 2 && s.starts_with("--") && long.starts_with(s.as_str()))
        })
    }

    fn under_base(&self, path: &str) -> String {
        match &self.base {
            Some(base) if !path.starts_with('/') => format!("{base}/{path}"),
            _ => path.to_owned(),
        }
    }

    /// `path` as the command will take it (under the base directory); None for `-` (standard
    /// input or output) and for an empty word.
    fn place(&self, path: &str) -> Option<String> {
        (!path.is_empty() && path != "-").then(|| self.under_base(path))
    }

    fn touch(&mut self, path: &str, access: Access) {
        let placed = self.place(path);
        self.add(placed, access);
    }

    fn add(&mut self, placed: Option<String>, access: Access) {
        let (write, look) = match access {
            Access::Text => return,
            Access::Read => (false, false),
            Access::Write => (true, false),
            Access::Look => (false, true),
        };
        if let Some(path) = placed {
            self.touches.push(Touch { path, write, look });
        }
    }

    fn value(&mut self, option: &str, value: &str, kind: Value) {
        self.values.push((option.to_owned(), value.to_owned()));
        match kind {
            Value::Text | Value::Pattern => {}
            Value::Read => self.touch(value, R),
            Value::Write => self.touch(value, W),
            Value::Look => self.touch(value, L),
            Value::Script | Value::NoScript => self.script_given = true,
            Value::ScriptFile => {
                self.script_given = true;
                self.touch(value, R);
            }
            Value::TargetDir => {
                self.target_dir = true;
                self.target = self.place(value);
                self.touch(value, W);
            }
            Value::BaseDir => {
                self.touch(value, R);
                self.base = Some(self.under_base(value));
            }
            Value::FileList => {
                self.touch(value, R);
                // `-` is standard input, kept as it is: the list cannot be read first.
                let list = self.place(value).unwrap_or_else(|| value.to_owned());
                self.lists.push(list);
            }
        }
    }
}

fn by_spec(spec: &Spec, args: &[String]) -> Vec<Touch> {
    scan(spec, args, Doubt::Trusted).touches
}

/// Reads `args` as `spec` says; the touches in order, and the base directory at the end.
fn scan(spec: &Spec, args: &[String], doubt: Doubt) -> Scan {
    let mut scan = Scan::new();
    let lookup = |name: &str| {
        spec.options
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    };
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if options_done || arg == "-" || !arg.starts_with('-') || is_mode_word(spec, arg) {
            // The program comes first unless an option gave it: `awk 'x=1' f` is a program
            // (print the lines where x=1 is true), not an assignment.
            if spec.assignments
                && is_assignment(arg)
                && (scan.script_given || !scan.operands.is_empty())
            {
                scan.assignments.push(arg.clone());
                continue;
            }
            let operand = scan.place(arg);
            scan.operands.push(operand);
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (arg.clone(), None),
            };
            let full = spec.long_option(name.clone());
            scan.doubtful |= full != name || spec.unsure.contains(&name.as_str());
            let name = match doubt {
                Doubt::Trusted => full,
                Doubt::Flags if spec.unsure.contains(&name.as_str()) => continue,
                Doubt::Flags => name,
            };
            scan.seen.push(name.clone());
            if spec.writes.contains(&name.as_str()) {
                scan.writes = true;
                scan.backup = attached.map(str::to_owned).or(scan.backup);
                continue;
            }
            match (lookup(&name), attached) {
                (Some(kind), Some(value)) => scan.value(&name, value, kind),
                (Some(Value::NoScript), None) => scan.script_given = true,
                // xz's `--files` without `=FILE` reads its list from standard input.
                (Some(Value::FileList), None) if OPTIONAL_LISTS.contains(&name.as_str()) => {
                    scan.lists.push("-".to_owned());
                }
                (Some(kind), None) => {
                    if let Some(value) = args.get(i) {
                        i += 1;
                        scan.value(&name, value, kind);
                    }
                }
                (None, Some(value)) if output_like(&name) => scan.touch(value, W),
                // `rsync --exclude=.env`: names left out, even where the program is not known.
                (None, Some(_)) if EXCLUSIONS.contains(&name.as_str()) => {}
                (None, Some(value)) => scan.touch(value, R),
                (None, None) => {}
            }
            continue;
        }
        // A short option, or a bundle of them (-xvf FILE, -n5, -i.bak). Some commands spell
        // long options with one dash (sqlite3 -init FILE).
        if let Some(kind) = lookup(arg) {
            if arg.len() > 2 {
                if let Some(value) = args.get(i) {
                    i += 1;
                    scan.value(arg, value, kind);
                }
                continue;
            }
        }
        let letters: Vec<char> = arg[1..].chars().collect();
        for (k, letter) in letters.iter().enumerate() {
            let option = format!("-{letter}");
            scan.seen.push(option.clone());
            let rest: String = letters[k + 1..].iter().collect();
            if spec.writes.contains(&option.as_str()) {
                scan.writes = true;
                scan.backup = Some(rest).filter(|r| !r.is_empty()).or(scan.backup);
                break;
            }
            if let Some(kind) = lookup(&option) {
                if !rest.is_empty() {
                    scan.value(&option, &rest, kind);
                } else if let Some(value) = args.get(i) {
                    let unsure = k > 0 || spec.unsure.contains(&option.as_str());
                    scan.doubtful |= unsure;
                    if unsure && doubt == Doubt::Flags {
                        break;
                    }
                    i += 1;
                    scan.value(&option, value, kind);
                }
                break;
            }
        }
    }
    let operands = scan.operands.clone();
    let file = |access: Access| if scan.writes { W } else { access };
    let accesses: Vec<Access> = match spec.operands {
        Operands::All(a) => vec![file(a); operands.len()],
        Operands::First(first, rest) => (0..operands.len())
            .map(|k| if k == 0 { first } else { file(rest) })
            .collect(),
        Operands::AfterScript(a) => (0..operands.len())
            .map(|k| {
                if k == 0 && !scan.script_given {
                    T
                } else {
                    file(a)
                }
            })
            .collect(),
        Operands::Copy => {
            let last = operands.len().saturating_sub(1);
            (0..operands.len())
                .map(|k| {
                    if scan.writes || (k == last && !scan.target_dir && operands.len() > 1) {
                        W
                    } else {
                        R
                    }
                })
                .collect()
        }
    };
    for (operand, access) in operands.into_iter().zip(accesses) {
        scan.add(operand, access);
    }
    scan
}

/// `chmod -w FILE`: a word that starts with `-` but is a mode, not options.
fn is_mode_word(spec: &Spec, arg: &str) -> bool {
    match spec.flags {
        Some(flags) => {
            arg.len() > 1 && !arg.starts_with("--") && arg[1..].chars().any(|c| !flags.contains(c))
        }
        None => false,
    }
}

fn is_assignment(arg: &str) -> bool {
    match arg.split_once('=') {
        Some((name, _)) => {
            let mut chars = name.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// `find [-H|-L|-P] [-D DEBUG] [-O LEVEL] START… EXPRESSION`: the starting points are read;
/// in the expression, reference files are read and `-fprint` files written.
fn find(args: &[String]) -> Vec<Touch> {
    let mut scan = Scan::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            a if a.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    while let Some(arg) = args.get(i) {
        if arg.starts_with('-') || arg == "(" || arg == "!" || arg == ")" || arg == "," {
            break;
        }
        scan.touch(arg, R);
        i += 1;
    }
    while let Some(arg) = args.get(i) {
        i += 1;
        let next = args.get(i).map(String::as_str).unwrap_or_default();
        match arg.as_str() {
            "-newer" | "-anewer" | "-cnewer" | "-samefile" | "-files0-from" => scan.touch(next, R),
            a if a.starts_with("-newer") && !a.ends_with('t') => scan.touch(next, R),
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => scan.touch(next, W),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                while let Some(word) = args.get(i) {
                    i += 1;
                    if word == ";" || word == "+" {
                        break;
                    }
                }
                continue;
            }
            _ => continue,
        }
        i += 1;
    }
    scan.touches
}

/// `dd if=IN of=OUT`.
fn dd(args: &[String]) -> Vec<Touch> {
    let mut scan = Scan::new();
    for arg in args {
        if let Some(path) = arg.strip_prefix("if=") {
            scan.touch(path, R);
        } else if let Some(path) = arg.strip_prefix("of=") {
            scan.touch(path, W);
        }
    }
    scan.touches
}

/// `tar`, in any of its spellings (`tar -xzf A`, `tar xzf A`, `tar --extract --file=A`):
/// creating reads the operands and writes the archive; extracting reads the archive and
/// writes the directory (`-C DIR`, else the current one); listing reads the archive.
fn tar(args: &[String]) -> (Vec<Touch>, Vec<String>) {
    // The old form puts its letters first, without a dash, and takes their values in order.
    let mut args: Vec<String> = args.to_vec();
    if let Some(first) = args.first().cloned()
        && !first.starts_with('-')
        && !first.is_empty()
        && first.chars().all(|c| c.is_ascii_alphabetic())
    {
        args[0] = format!("-{first}");
    }
    let mode = args
        .iter()
        .take_while(|a| *a != "--")
        .find_map(|a| tar_mode(a))
        .unwrap_or('t');
    let creates = matches!(mode, 'c' | 'r' | 'u' | 'A');
    let members = Spec {
        options: TAR_VALUES,
        ..spec(&[], Operands::All(if creates { R } else { T }))
    };
    // The archive is named relative to where tar starts, not under -C.
    let archive_options: Vec<(&str, Value)> = TAR_VALUES
        .iter()
        .map(|&(name, value)| match name {
            "-f" | "--file" => (name, Value::Write),
            _ if value == Value::BaseDir => (name, Value::Text),
            _ => (name, value),
        })
        .collect();
    let archive = Spec {
        options: &archive_options,
        ..spec(&[], Operands::All(T))
    };
    let mut touches: Vec<Touch> = by_spec(&archive, &args)
        .into_iter()
        .filter(|t| t.write)
        .map(|t| Touch {
            write: creates,
            ..t
        })
        .collect();
    let files = scan(&members, &args, Doubt::Trusted);
    touches.extend(files.touches);
    if mode == 'x' {
        touches.push(Touch {
            path: files.base.clone().unwrap_or_else(|| ".".to_owned()),
            write: true,
            look: false,
        });
    }
    (touches, files.lists)
}

/// The main operation letter of one tar argument, if it names one.
fn tar_mode(arg: &str) -> Option<char> {
    match arg {
        "--create" => Some('c'),
        "--append" => Some('r'),
        "--update" => Some('u'),
        "--concatenate" | "--catenate" => Some('A'),
        "--extract" | "--get" => Some('x'),
        "--list" => Some('t'),
        "--diff" | "--compare" => Some('d'),
        a if a.starts_with('-') && !a.starts_with("--") => {
            // Letters up to the first one that takes a value.
            let letters: String = a[1..]
                .chars()
                .take_while(|c| !"fCTXIbNgKLVHF".contains(*c))
                .collect();
            letters.chars().find(|c| "cruAxtd".contains(*c))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "r:PATH" / "w:PATH" for each file `line` touches.
    fn t(line: &str) -> Vec<String> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let name = argv[0].rsplit('/').next().unwrap().to_owned();
        read(&name, &argv)
            .map(|r| r.touches)
            .unwrap_or_else(|| generic(&argv))
            .into_iter()
            .map(|t| {
                let access = match (t.write, t.look) {
                    (true, _) => "w",
                    (false, true) => "l",
                    (false, false) => "r",
                };
                format!("{access}:{}", t.path)
            })
            .collect()
    }

    #[test]
    fn readers_and_their_option_values() {
        assert_eq!(t("cat a b"), ["r:a", "r:b"]);
        assert_eq!(t("head -n 5 f"), ["r:f"]);
        assert_eq!(t("head -n5 f"), ["r:f"]);
        assert_eq!(t("cut -d / -f 2 f"), ["r:f"]);
        assert_eq!(t("sort -t / -k 2 -o out in"), ["w:out", "r:in"]);
        assert_eq!(t("sort --output=out in"), ["w:out", "r:in"]);
        assert!(t("echo /etc/shadow").is_empty());
        assert_eq!(t("wc -- -x"), ["r:-x"]);
    }

    /// A flag of one program is not read as another's option that takes a value: the word
    /// after it is still a file.
    #[test]
    fn each_program_its_own_options() {
        assert_eq!(t("paste -s .env"), ["r:.env"]);
        assert_eq!(t("paste -d , a b"), ["r:a", "r:b"]);
        assert_eq!(t("fold -s .env"), ["r:.env"]);
        assert_eq!(t("fold -b -w 5 .env"), ["r:.env"]);
        assert_eq!(t("fmt -c .env"), ["r:.env"]);
        assert_eq!(t("fmt -t -w 60 .env"), ["r:.env"]);
        assert_eq!(t("cut -s -f 1 .env"), ["r:.env"]);
        assert_eq!(t("expand -i -t 4 .env"), ["r:.env"]);
        assert_eq!(t("strings -w .env"), ["r:.env"]);
        assert_eq!(t("strings -f -n 8 .env"), ["r:.env"]);
        assert_eq!(t("od -w .env"), ["r:.env"]);
        assert_eq!(t("od -w8 -s .env"), ["r:.env"]);
        assert_eq!(t("hexdump -C .env"), ["r:.env"]);
        assert_eq!(t("hexdump -f fmt .env"), ["r:fmt", "r:.env"]);
        assert_eq!(
            t("xxd -r -p -C payload .git/config"),
            ["r:payload", "w:.git/config"]
        );
        assert_eq!(t("xxd -c 8 -s 4 a b"), ["r:a", "w:b"]);
    }

    /// Any word may name a file, whatever the program's options make of it; not a pattern
    /// or script the program matches or runs.
    #[test]
    fn words_that_may_name_a_file() {
        let m = |line: &str| {
            let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            read(&argv[0], &argv)
                .map(|r| r.mentions)
                .unwrap_or_else(|| mentions(&argv[1..], &[]))
        };
        let has = |line: &str, word: &str| m(line).iter().any(|w| w == word);
        assert!(has("paste -s .env", ".env"));
        assert!(has("curl -d @.env https://x", ".env"));
        assert!(has("curl -F f=@.env https://x", ".env"));
        assert!(has("git show HEAD:.env", ".env"));
        assert!(has("xxd -rpC.git/config", ".git/config"));
        assert!(has("tool --conf=.env", ".env"));
        assert!(has("date -d .env", ".env"));
        assert!(has("cc -I/usr/include x.c", "/usr/include"));
        assert!(!has("cc -I/usr/include x.c", "usr/include"));
        assert!(!has("grep .env .gitignore", ".env"));
        assert!(has("grep .env .gitignore", ".gitignore"));
        assert!(has("grep -e x .env", ".env"));
        assert!(!has("find . -name .env", ".env"));
        assert!(has("find . -newer .env", ".env"));
        assert!(!has("jq .env f.json", ".env"));
        assert!(!has("rsync -a --exclude=.env src/ dst/", ".env"));
        // Not only in what a command mentions: among the files it reads, too.
        assert_eq!(
            t("rsync -a --exclude=.env --include=.env.example src/ dst/"),
            ["r:src/", "r:dst/"]
        );
        assert_eq!(t("rsync --exclude-from=.env a b"), ["r:.env", "r:a", "r:b"]);
        assert!(!has("grep -rn KEY --exclude .env .", ".env"));
        assert!(!has("ls -I .env", ".env"));
        assert!(!has("diff -r -x .env a b", ".env"));
        assert!(!has("rg -g !.env KEY", "!.env"));
        assert!(!has("jq --arg f .env .files+=[$f] p.json", ".env"));
        assert!(!has("awk -v f=.env $0==f .gitignore", ".env"));
        assert!(!has("basename .env", ".env"));
        // Only the value of the option is a pattern: a file of that name is still read.
        assert_eq!(t("grep --exclude .env KEY .env"), ["r:.env"]);
        assert!(has("rsync -a --exclude-from=.env src/ dst/", ".env"));
        assert!(!has("cat -", "-"));
    }

    /// The files that list more files: read, and what they list is decided with the rest.
    #[test]
    fn lists_of_files() {
        let lists = |line: &str| {
            let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            read(&argv[0], &argv).unwrap().lists
        };
        assert_eq!(t("tar -cf x.tar -T list"), ["w:x.tar", "r:list"]);
        assert_eq!(lists("tar -cf x.tar -T list"), ["list"]);
        assert_eq!(lists("tar -C d -cf x.tar --files-from=list"), ["d/list"]);
        assert_eq!(lists("wc --files0-from=l"), ["l"]);
        assert_eq!(lists("sort --files0-from -"), ["-"]);
        assert_eq!(lists("zstd -d --filelist l"), ["l"]);
        assert_eq!(lists("xz -d --files=l"), ["l"]);
        assert_eq!(lists("xz -d --files f.xz"), ["-"]);
        assert_eq!(lists("zstd -dc --filelistX l"), ["l"]);
        assert!(t("zstd -d --output-dir-flatX .git f.zst").contains(&"w:.git".to_owned()));
        assert_eq!(lists("strings -a @opts"), ["opts"]);
        assert!(lists("cat @x").is_empty());
        assert_eq!(
            list_entries("a b\n.env\0c\r\n"),
            ["a b", ".env", "c", "a", "b"]
        );
    }

    /// Long options are taken abbreviated, as getopt_long and git take them.
    #[test]
    fn abbreviated_long_options() {
        // Read as the flag it may also be, too: the table lists only some of the options.
        assert_eq!(
            t("sort --ou=.git/config in"),
            ["w:.git/config", "r:in", "r:.git/config"]
        );
        assert_eq!(
            t("sort --o .git/config in"),
            ["w:.git/config", "r:in", "r:.git/config"]
        );
        assert_eq!(t("chmod --ref=.env f"), ["r:.env", "w:f"]);
        assert_eq!(t("git log --outp=x"), ["w:x", "r:log"]);
        assert_eq!(t("cp --target=d a"), ["w:d", "r:a", "r:d"]);
        // Exact names stay themselves, even when they begin a longer one.
        assert_eq!(t("curl --user u:p https://x"), Vec::<String>::new());
    }

    /// Where the table may not read a word as the program does, both readings count.
    #[test]
    fn words_read_two_ways_when_the_table_may_be_wrong() {
        // grep's own `--binary` is a flag; `--binary-files` takes a value.
        assert_eq!(t("grep --binary x .env"), ["r:.env"]);
        // cp's `--o` is `--one-file-system`, not an option with a value.
        let argv: Vec<String> = ["cp", "--o", "stage/config", "a", ".git"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        assert!(args_arrivals(&argv).contains(&"stage/config>.git:Directory".to_owned()));
        // xxd's `-ps` is one option; `-p -s VALUE` would hide the file written.
        assert!(t("xxd -r -ps cfg.hex .git/config").contains(&"w:.git/config".to_owned()));
        // zstd takes `-T` only as `-T4`.
        assert!(t("zstd -qdf -T .git/config.zst").contains(&"w:.git/config".to_owned()));
        // Bundles and exact names the table reads as the program does are not doubted.
        assert_eq!(t("sort -o out in"), ["w:out", "r:in"]);
        assert_eq!(t("grep -e x .env"), ["r:.env"]);
    }

    #[test]
    fn pattern_first_unless_an_option_gave_it() {
        assert_eq!(t("grep -r foo src"), ["r:src"]);
        assert_eq!(t("grep -e foo a b"), ["r:a", "r:b"]);
        assert_eq!(t("grep -f pats a"), ["r:pats", "r:a"]);
        assert_eq!(t("grep -rn --include=*.rs foo ."), ["r:."]);
        assert_eq!(t("rg --files dir"), ["r:dir"]);
        assert_eq!(t("sed s/a/b/ f"), ["r:f"]);
        assert_eq!(t("sed -i s/a/b/ f"), ["w:f"]);
        assert_eq!(
            t("sed -i.bak -e s/a/b/ f g"),
            ["w:f", "w:g", "w:f.bak", "w:g.bak"]
        );
        // The backup is renamed from the file: its name is written.
        assert!(t("sed -ionfig s/^// .git/c").contains(&"w:.git/config".to_owned()));
        assert!(t("sed --in-place=onfig s/^// .git/c").contains(&"w:.git/config".to_owned()));
        assert!(
            t("sed -i.git/hooks/* s/^// pre-commit")
                .contains(&"w:.git/hooks/pre-commit".to_owned())
        );
        assert!(t("sed -i*onfig s/^// d/c").contains(&"w:d/config".to_owned()));
        assert!(t("sed -i.g* s/x/x/ it/config").contains(&"w:.git/config".to_owned()));
        assert!(
            t("sed -i.git/* s/x/x/ hooks/pre-commit")
                .contains(&"w:.git/hooks/pre-commit".to_owned())
        );
        assert_eq!(t("sed -ni p f"), ["w:f"]);
        assert_eq!(t("awk -F : {print} x=1 /etc/passwd"), ["r:/etc/passwd"]);
        assert_eq!(t("awk -f prog.awk data"), ["r:prog.awk", "r:data"]);
        assert_eq!(t("awk x=1 .env"), ["r:.env"]);
        assert_eq!(t("mktemp -p .git/hooks"), ["w:.git/hooks"]);
        assert_eq!(t("mktemp .git/hooks/aXXX"), ["w:.git/hooks/aXXX"]);
        assert_eq!(t("awk -f p x=1 .env"), ["r:p", "r:.env"]);
        assert_eq!(t("jq .a f.json"), ["r:f.json"]);
    }

    #[test]
    fn writers() {
        assert_eq!(t("cp a b dst"), ["r:a", "r:b", "w:dst"]);
        assert_eq!(t("cp -t dir a b"), ["w:dir", "r:a", "r:b"]);
        assert_eq!(t("cp a"), ["r:a"]);
        assert_eq!(t("mv a b"), ["w:a", "w:b"]);
        assert_eq!(t("ln -s /etc/shadow x"), ["r:/etc/shadow", "w:x"]);
        assert_eq!(t("rm -rf x y"), ["w:x", "w:y"]);
        assert_eq!(t("tee -a log"), ["w:log"]);
        assert_eq!(t("touch -r ref new"), ["l:ref", "w:new"]);
        assert_eq!(t("ls -la -I x a b"), ["l:a", "l:b"]);
        assert_eq!(t("stat -c %s a"), ["l:a"]);
        assert_eq!(
            t("du -X ex --files0-from=list d"),
            ["r:ex", "r:list", "l:d"]
        );
        assert_eq!(t("date -r a -f b"), ["l:a", "r:b"]);
        assert_eq!(t("mkdir -p -m 700 d"), ["w:d"]);
        assert_eq!(t("chmod -w f"), ["w:f"]);
        assert_eq!(t("chmod -R 600 d"), ["w:d"]);
        assert_eq!(t("chmod --reference=r f"), ["r:r", "w:f"]);
        assert_eq!(t("uniq in out"), ["r:in", "w:out"]);
        assert_eq!(t("dd if=/dev/zero of=img bs=1M"), ["r:/dev/zero", "w:img"]);
        assert_eq!(t("gzip f"), ["w:f", "w:f.gz"]);
        assert_eq!(t("gunzip d/c.gz"), ["w:d/c.gz", "w:d/c.gz.gz", "w:d/c"]);
        assert!(t("gzip -dk -S .x d/c.x").contains(&"w:d/c".to_owned()));
        assert!(t("gzip --suf=.x -d d/c.x").contains(&"w:d/c".to_owned()));
        assert!(t("gzip -dS .x d/c.x").contains(&"w:d/c".to_owned()));
        assert!(t("bunzip2 a.tbz2").contains(&"w:a.tar".to_owned()));
        assert_eq!(t("gzip -c f"), ["r:f"]);
        assert_eq!(t("zstd -dc f.zst"), ["r:f.zst"]);
        assert_eq!(t("gunzip --stdout f.gz"), ["r:f.gz"]);
        assert_eq!(t("zstd -c -o out f"), ["w:out", "r:f"]);
        assert!(
            t("zstd -d s/config.zst --output-dir-flat .git").contains(&"w:.git/config".to_owned())
        );
        assert!(t("zstd -d s/c.zst --output-dir-mirror m").contains(&"w:m/s/c".to_owned()));
        assert_eq!(t("install -d a b"), ["w:a", "w:b"]);
    }

    #[test]
    fn copies_moves_and_links_put_their_sources_in_a_destination() {
        let arrivals = |line: &str| {
            let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            args_arrivals(&argv)
        };
        assert_eq!(
            arrivals("cp a b dst"),
            ["a>dst:Directory", "b>dst:Directory"]
        );
        assert_eq!(arrivals("cp a dst"), ["a>dst:IfDirectory"]);
        assert_eq!(arrivals("mv a dst/"), ["a>dst/:Directory"]);
        assert_eq!(arrivals("cp -t d a"), ["a>d:Directory"]);
        assert_eq!(
            arrivals("cp --target d a"),
            ["a>d:Directory", "d>a:IfDirectory"]
        );
        assert_eq!(
            arrivals("install --target-directory=d -m 644 a"),
            ["a>d:Directory"]
        );
        assert_eq!(arrivals("cp -rT a d"), ["a>d:Itself"]);
        assert_eq!(arrivals("mv --no-target a d"), ["a>d:Itself"]);
        assert_eq!(arrivals("ln -s t"), ["t>.:Directory link"]);
        assert_eq!(arrivals("ln -sf ../t d"), ["../t>d:IfDirectory link"]);
        assert_eq!(
            arrivals("cp --parents a/b d"),
            ["a/b>d:IfDirectory parents"]
        );
        assert!(arrivals("install -d a b").is_empty());
        assert!(arrivals("cp a").is_empty());
        assert!(arrivals("cat a b").is_empty());
        // Backups: a file already at the destination is renamed first.
        assert_eq!(arrivals("mv -b a d"), ["a>d:IfDirectory backup ~"]);
        assert_eq!(arrivals("mv -b -S ig a d"), ["a>d:IfDirectory backup ig"]);
        assert_eq!(
            arrivals("cp --suffix=ig a d"),
            ["a>d:IfDirectory backup ig"]
        );
        assert_eq!(arrivals("ln -fbSig a d"), ["a>d:IfDirectory backup ig"]);
        assert_eq!(
            arrivals("mv --backup=numbered -T a d"),
            ["a>d:Itself backup ~"]
        );
    }

    #[test]
    fn what_a_command_changes_below_a_directory() {
        let beyond = |line: &str| {
            let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            read(&argv[0], &argv).and_then(|r| r.beyond.into_iter().next())
        };
        let b = beyond("chmod -R +x .git d").unwrap();
        assert_eq!(
            (b.operands, b.change),
            (vec![".git".into(), "d".into()], Change::Attributes)
        );
        assert_eq!(beyond("chmod --reference=r -R d").unwrap().operands, ["d"]);
        assert_eq!(beyond("chmod +x f"), None);
        let b = beyond("gunzip -r d").unwrap();
        assert!(b.recursive && !b.stored_names);
        assert!(matches!(b.change, Change::Uncompressed { .. }));
        let b = beyond("gzip -dN -S .x f.x").unwrap();
        assert!(!b.recursive && b.stored_names);
        assert!(
            matches!(b.change, Change::Uncompressed { suffixes } if suffixes.contains(&(".x".into(), "".into())))
        );
        let b = beyond("zstd --recursive d").unwrap();
        assert_eq!(
            b.change,
            Change::Compressed {
                suffix: ".zst".into()
            }
        );
        assert_eq!(beyond("gzip -N f"), None);
        assert_eq!(beyond("gzip -rc d"), None);
        assert_eq!(beyond("gzip f"), None);
        // Read two ways (zstd takes `-T` only attached): `.git` is gone through either way.
        let argv: Vec<String> = ["zstd", "-qdrf", "-T", ".git"].map(str::to_owned).to_vec();
        let both = read("zstd", &argv).unwrap().beyond;
        assert!(both.iter().any(|b| b.operands == [".git"]), "{both:?}");
    }

    #[test]
    fn sed_and_awk_programs_name_files() {
        assert_eq!(t("sed -n w.git/config in"), ["r:in", "w:.git/config"]);
        assert_eq!(t("sed -e 1r.env -e p in"), ["r:in", "r:.env"]);
        assert_eq!(t("sed -f script in"), ["r:script", "r:in"]);
        assert_eq!(t("awk BEGIN{print>\".git/config\"}"), ["w:.git/config"]);
        assert_eq!(t("gawk --source {getline<\"k.pem\"} f"), ["r:f", "r:k.pem"]);
        assert!(t("sed -n --expr=w.git/config in").contains(&"w:.git/config".to_owned()));
        assert!(
            t("mawk -W interactive BEGIN{print>\".git/config\"}")
                .contains(&"w:.git/config".to_owned())
        );
    }

    /// Where awk takes its program from: `-W exec` (mawk), `-E`, `-i`, and what `-i inplace`
    /// and `-l` make of the rest.
    #[test]
    fn awk_program_sources() {
        let files = |line: &str| {
            let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            read(&argv[0], &argv).unwrap().script_files
        };
        for line in [
            "mawk -W exec p.awk x",
            "mawk -We p.awk x",
            "mawk -W i,e p.awk x",
            "mawk -W exec=p.awk x",
            "gawk -W exec=p.awk x",
            "gawk -E p.awk x",
            "gawk --ex p.awk x",
        ] {
            assert_eq!(t(line), ["r:p.awk", "r:x"], "{line}");
            assert_eq!(files(line), ["p.awk"], "{line}");
        }
        // What follows -W exec is operands, options or not.
        assert_eq!(t("mawk -We p.awk -f .env"), ["r:p.awk", "r:-f", "r:.env"]);
        // mawk takes `-W` names in any case.
        assert_eq!(t("mawk -W E p.awk"), ["r:p.awk"]);
        assert_eq!(t("mawk -W EXEC=p.awk"), ["r:p.awk"]);
        assert_eq!(files("gawk -i lib.awk -f p.awk x"), ["lib.awk", "p.awk"]);
        assert_eq!(
            t("gawk -i inplace {print} .git/config"),
            ["r:inplace", "w:.git/config"]
        );
        // `--incl` may not be `--include` (the table lists only some options): a and b
        // are read then.
        assert_eq!(
            t("gawk --incl=inplace {print} a b"),
            ["r:inplace", "w:a", "w:b", "r:a", "r:b"]
        );
        assert!(files("gawk -i inplace {print} f").is_empty());
        assert!(
            t("gawk -l readfile BEGIN{print(readfile(\".env\"))}").contains(&"r:.env".to_owned())
        );
        // A value assigned on the command line may be the name a program writes to.
        assert!(t("awk {print>f} f=.git/config x").contains(&"w:.git/config".to_owned()));
        assert!(t("awk -v f=.git/config {print>f} x").contains(&"w:.git/config".to_owned()));
        // mawk's -W interactive is not -W exec.
        assert_eq!(t("mawk -Wi {print} f"), ["r:f"]);
    }

    /// jq's `-f` is a flag: the first operand is the program's file, wherever `-f` is.
    #[test]
    fn jq_takes_its_program_from_the_first_operand_with_f() {
        let files = |line: &str| {
            let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
            read(&argv[0], &argv).unwrap().script_files
        };
        assert_eq!(t("jq -f p.jq d.json"), ["r:d.json", "r:p.jq"]);
        assert_eq!(files("jq -f p.jq d.json"), ["p.jq"]);
        assert!(t("jq .env -f").contains(&"r:.env".to_owned()));
        assert!(t("jq -n id_rsa -rf").contains(&"r:id_rsa".to_owned()));
        assert!(t("jq .env --from-file").contains(&"r:.env".to_owned()));
        assert!(t("jq --run-tests .env").contains(&"r:.env".to_owned()));
        assert_eq!(files("jq --run-tests"), ["-"]);
        assert!(files("jq -r .a d.json").is_empty());
    }

    #[test]
    fn jq_reads_the_files_of_rawfile_and_slurpfile() {
        assert_eq!(t("jq -n --rawfile a .env $a"), ["r:.env"]);
        assert_eq!(
            t("jq --slurpfile a x.json . in.json"),
            ["r:x.json", "r:in.json"]
        );
        assert_eq!(t("jq . -- --rawfile"), ["r:--rawfile"]);
        assert_eq!(t("jq -n --arg x --rawfile --rawfile a .env $a"), ["r:.env"]);
        // An option's value is not the start of another option.
        assert_eq!(t("jq -R --indent --arg . .env"), ["r:.env"]);
        assert_eq!(t("jq -R -L --arg . .env"), ["r:--arg", "r:.env"]);
        assert_eq!(
            t("jq -R --argfile --arg j.json . .env"),
            ["r:j.json", "r:.env"]
        );
    }

    /// A hard link is a second name for its source: writing through it writes the source.
    #[test]
    fn a_hard_link_writes_its_source() {
        assert_eq!(t("ln .git/config c"), ["w:.git/config", "w:c"]);
        assert_eq!(t("cp -l .git/config c"), ["w:.git/config", "w:c"]);
        assert_eq!(t("cp --link a b"), ["w:a", "w:b"]);
        assert_eq!(t("ln -s .git/config c"), ["r:.git/config", "w:c"]);
        assert_eq!(t("cp a b"), ["r:a", "w:b"]);
    }

    /// "SOURCE>DEST:INTO" and the flags of each arrival.
    fn args_arrivals(argv: &[String]) -> Vec<String> {
        read(&argv[0], argv)
            .map(|r| r.arrivals)
            .unwrap_or_default()
            .into_iter()
            .map(|a| {
                let mut text = format!("{}>{}:{:?}", a.source, a.dest, a.into);
                if a.link {
                    text.push_str(" link");
                }
                if a.parents {
                    text.push_str(" parents");
                }
                if let Some(suffix) = a.backup {
                    text.push_str(&format!(" backup {suffix}"));
                }
                text
            })
            .collect()
    }

    #[test]
    fn tar_in_its_spellings() {
        assert_eq!(t("tar -czf out.tgz src"), ["w:out.tgz", "r:src"]);
        assert_eq!(t("tar czf out.tgz src"), ["w:out.tgz", "r:src"]);
        assert_eq!(t("tar -xzf in.tgz"), ["r:in.tgz", "w:."]);
        assert_eq!(
            t("tar -xf in.tar -C /opt/x"),
            ["r:in.tar", "r:/opt/x", "w:/opt/x"]
        );
        assert_eq!(
            t("tar -C /etc -cf x.tar shadow"),
            ["w:x.tar", "r:/etc", "r:/etc/shadow"]
        );
        assert_eq!(t("tar --extract --file=in.tar"), ["r:in.tar", "w:."]);
        assert_eq!(t("tar -tf in.tar member"), ["r:in.tar"]);
    }

    #[test]
    fn find_start_points_and_file_actions() {
        assert_eq!(t("find . -name *.pem"), ["r:."]);
        assert_eq!(t("find -L a b -newer ref -print"), ["r:a", "r:b", "r:ref"]);
        assert_eq!(t("find . -fprint out"), ["r:.", "w:out"]);
        assert_eq!(t("find . -exec cat {} ; -newer r"), ["r:.", "r:r"]);
    }

    #[test]
    fn base_directories() {
        assert_eq!(
            t("git -C /srv/repo add .env"),
            ["r:/srv/repo", "r:/srv/repo/add", "r:/srv/repo/.env"]
        );
        assert_eq!(
            t("make -C sub -f mk all"),
            ["r:sub", "r:sub/mk", "r:sub/all"]
        );
    }

    #[test]
    fn unknown_commands_read_operands_and_write_outputs() {
        assert_eq!(
            t("tool -v --config=c.toml --output=o.txt in"),
            ["r:c.toml", "w:o.txt", "r:in"]
        );
        assert_eq!(t("tool --out=o"), ["w:o"]);
        assert_eq!(t("tool --color=auto"), ["r:auto"]);
    }

    #[test]
    fn wrappers_name_only_their_own_files() {
        assert!(t("nice cat .env").is_empty());
        assert_eq!(t("time -o log make"), ["w:log"]);
        assert_eq!(t("xargs -a list rm"), ["r:list"]);
        // stdbuf's -o and -e are buffering modes; xargs's -o is a flag.
        assert!(t("stdbuf -oL -e 0 --input=0 grep x").is_empty());
        assert!(t("xargs -o vi").is_empty());
    }

    #[test]
    fn interpreters_read_their_script() {
        assert_eq!(t("python3 script.py arg"), ["r:script.py", "r:arg"]);
        assert_eq!(t("python3 -c code file"), ["r:file"]);
    }
}
