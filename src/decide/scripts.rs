//! Files named inside the programs sed and awk are given on the command line: sed's `w`, `W`,
//! `r` and `R` commands and the `w` flag of `s`, whose file name is the rest of the line, and
//! awk's output redirections and `getline < FILE` where the file is a string literal. A name
//! awk computes (`print > $1 ".txt"`) cannot be known here; it is held by the sandbox like
//! any other write.

use super::args::Touch;

/// The files a sed script reads (`r`, `R`) and writes (`w`, `W`, `s///w`).
pub fn sed_files(script: &str) -> Vec<Touch> {
    let chars: Vec<char> = script.chars().collect();
    let mut files = Vec::new();
    let mut i = 0;
    let field = |i: usize, delim: char, regex: bool| {
        sed_field_end(&chars, i, delim, regex).unwrap_or(chars.len())
    };
    // The rest of the line from `i`, blanks skipped first: a file name, and where it ends.
    let rest_of_line = |i: usize| -> (String, usize) {
        let mut i = i.min(chars.len());
        while i < chars.len() && matches!(chars[i], ' ' | '\t') {
            i += 1;
        }
        let start = i;
        while i < chars.len() && chars[i] != '\n' {
            i += 1;
        }
        (chars[start..i].iter().collect(), i)
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '/' => i = field(i + 1, '/', true),
            '\\' if i + 1 < chars.len() => i = field(i + 2, chars[i + 1], true),
            'w' | 'W' | 'r' | 'R' => {
                let (name, end) = rest_of_line(i + 1);
                push(&mut files, name, matches!(c, 'w' | 'W'));
                i = end;
            }
            // Text, comments and commands to run: up to the end of the line, and text on
            // through the lines that end with a backslash that is not itself escaped.
            'a' | 'i' | 'c' | 'e' | '#' => {
                i = rest_of_line(i + 1).1;
                while matches!(c, 'a' | 'i' | 'c') && i < chars.len() && continued(&chars[..i]) {
                    i = rest_of_line(i + 1).1;
                }
            }
            ':' | 'v' | 'b' | 't' | 'T' => i = sed_label_end(&chars, i + 1),
            's' | 'y' if i + 1 < chars.len() => {
                let delim = chars[i + 1];
                i = field(field(i + 2, delim, c == 's'), delim, false);
                if c == 's' {
                    while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                        if chars[i] == 'w' {
                            let (name, end) = rest_of_line(i + 1);
                            push(&mut files, name, true);
                            i = end;
                            break;
                        }
                        i += 1;
                    }
                }
            }
            _ => i += 1,
        }
    }
    files
}

/// The index after the closing delimiter of the sed field whose text starts at `i`; None
/// when it does not close. In a regular expression (`regex`) the delimiter is text inside a
/// bracket expression (`/[/]/`), as GNU sed reads it.
pub(super) fn sed_field_end(
    chars: &[char],
    mut i: usize,
    delim: char,
    regex: bool,
) -> Option<usize> {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == delim => return Some(i + 1),
            '[' if regex => i = bracket_end(chars, i + 1, false),
            _ => i += 1,
        }
    }
    None
}

/// The index after the `]` that closes the bracket expression whose inside starts at `i`:
/// a `]` first (after any `^`) is text, `[:alpha:]`, `[=a=]` and `[.x.]` are single items,
/// and a backslash is text, as sed has it. In awk (`awk`), a backslash escapes the
/// character after it, and a line's end cuts the expression short (its index is returned).
fn bracket_end(chars: &[char], mut i: usize, awk: bool) -> usize {
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while i < chars.len() {
        match chars[i] {
            ']' => return i + 1,
            '\\' if awk => i += 2,
            '\n' if awk => return i,
            '[' if matches!(chars.get(i + 1), Some(':' | '=' | '.')) => {
                let close = chars[i + 1];
                let end = (i + 2..chars.len().saturating_sub(1))
                    .find(|&k| chars[k] == close && chars[k + 1] == ']');
                i = end.map_or(chars.len(), |k| k + 2);
            }
            _ => i += 1,
        }
    }
    chars.len()
}

/// Where the label starting at `i` of a sed script ends (blanks before it skipped): a
/// label, a branch's label and `v`'s version end at `;`, a line's end and a blank, as GNU
/// sed reads them (`:a r FILE` reads FILE), and here at `}` too, which can only find more.
pub(super) fn sed_label_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && matches!(chars[i], ' ' | '\t') {
        i += 1;
    }
    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}' | ' ' | '\t') {
        i += 1;
    }
    i
}

/// The files an awk program may name. Which of its strings end up as a file name is only
/// known as it runs (`f = ".git/config"; print > f`, `".git/" "config"`), so every string
/// literal counts, and so does each run of literals written side by side, and every value
/// assigned on the command line (`assigned`): as written to when the program redirects
/// output, as read when it reads files of its own (`getline`, `ARGV`). A program that loads
/// an extension or includes a file (gawk's `@load`, `@include`, or `-l` on the command line:
/// `loads`) may read and write files through functions rsh does not know (`readfile`,
/// `writea`): every literal counts both ways.
pub fn awk_files(program: &str, assigned: &[&str], loads: bool) -> Vec<Touch> {
    let mut scanned = scan_awk(program);
    if loads {
        scanned.redirects = true;
        scanned.reads = true;
    }
    let mut files = Vec::new();
    // awk reads an assigned value as the inside of a string literal: its escapes too.
    let assigned = assigned
        .iter()
        .flat_map(|value| awk_string(&value.chars().collect::<Vec<_>>(), 0).0);
    // A file's name ends at a NUL, as the system reads it.
    let names =
        scanned
            .literals
            .into_iter()
            .chain(assigned)
            .map(|name| match name.split_once('\0') {
                Some((before, _)) => before.to_owned(),
                None => name,
            });
    let mut seen = std::collections::HashSet::new();
    for name in names.filter(|name| seen.insert(name.clone())) {
        if scanned.redirects {
            push(&mut files, name.clone(), true);
        }
        if scanned.reads {
            push(&mut files, name, false);
        }
    }
    files
}

/// What `awk_files` needs of a program: its literals, and whether it redirects output or
/// reads files by itself.
struct Awk {
    literals: Vec<String>,
    redirects: bool,
    reads: bool,
}

/// Reads an awk program for its string literals (each, and each run of them side by side),
/// outside comments and regular expressions, for whether it redirects output, and for
/// `getline`/`ARGV` outside them. Whether a `/` divides or starts a regular expression
/// depends on the token before it (see `AwkReading`); output goes to a file only through
/// `print` or `printf`, which is looked for in the plain text (see `awk_redirects`).
fn scan_awk(program: &str) -> Awk {
    let chars: Vec<char> = program.chars().collect();
    let mut scanned = Awk {
        literals: Vec::new(),
        redirects: awk_redirects(program),
        reads: false,
    };
    AwkReading::default().scan(&chars, AWK_FORKS, &mut scanned);
    scanned
}

/// Whether an awk program may redirect output to a file: a `>` after its first `print` or
/// `printf` (a word that begins with `print`: `sprintf` is not one), read in the plain text,
/// strings and comments included, so that no misreading of the program can hide either.
pub(super) fn awk_redirects(program: &str) -> bool {
    let word_start = |at: usize| {
        !program[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    program
        .match_indices("print")
        .find(|&(at, _)| word_start(at))
        .is_some_and(|(at, _)| program[at..].contains('>'))
}

/// What a `/` is at a point of an awk program.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Slash {
    /// The start of a regular expression.
    #[default]
    Regex,
    Divide,
    /// Either, as awks differ: after `++` or `--` mawk starts a regular expression and gawk
    /// divides; `case` is gawk's keyword and mawk's name; `getline`.
    Either,
}

/// How many points where a `/` may be either are read both ways. Past them (only a program
/// written to confuse its reader has so many), a regular expression is taken: such a
/// program may as well build its file names as it runs, which no reading sees.
const AWK_FORKS: u32 = 6;

/// A reading of an awk program up to a point: its words so far, the run of literals being
/// read, and what a `/` would be there. As mawk's scanner reads it (and gawk's agrees), a
/// `/` divides after an operand (a name, a number, a string, `)`, `]`, a regular
/// expression, a field such as `$1`) and starts a regular expression anywhere else: after an
/// operator, an opening bracket, `$`, a keyword or built-in function (`print`, `exit`,
/// `length`), or a newline (which ends a statement; a backslash before it, blanks between,
/// joins the lines instead).
#[derive(Debug, Clone, Default)]
struct AwkReading {
    words: String,
    run: Option<[String; 2]>,
    slash: Slash,
    at: usize,
}

impl AwkReading {
    /// Reads on from `self.at`, adding to `scanned`; at a `/` that may be either, reads on
    /// both ways while `forks` lasts.
    fn scan(mut self, chars: &[char], mut forks: u32, scanned: &mut Awk) {
        while self.at < chars.len() {
            let c = chars[self.at];
            if c == '"' {
                self.literal(chars, scanned);
                continue;
            }
            if let Some(end) = continued_line(chars, self.at) {
                self.at = end;
                continue;
            }
            if !c.is_whitespace() {
                self.run = None;
            }
            let in_word = c.is_alphanumeric() || c == '_';
            if !in_word {
                self.end_word();
            }
            match c {
                '#' => {
                    while self.at < chars.len() && chars[self.at] != '\n' {
                        self.at += 1;
                    }
                    continue;
                }
                '/' if self.slash == Slash::Either && forks > 0 => {
                    forks -= 1;
                    let mut dividing = self.clone();
                    dividing.slash = Slash::Divide;
                    dividing.scan(chars, forks, scanned);
                    self.at = regex_end(chars, self.at + 1);
                }
                '/' if self.slash != Slash::Divide => self.at = regex_end(chars, self.at + 1),
                '@' => {
                    scanned.redirects = true;
                    scanned.reads = true;
                }
                c if in_word => self.words.push(c),
                _ => {}
            }
            self.slash = match c {
                '\n' => Slash::Regex,
                c if c.is_whitespace() => self.slash,
                _ if in_word => self.word_slash(),
                ')' | ']' | '/' | '.' => Slash::Divide,
                '+' | '-' if self.at > 0 && chars[self.at - 1] == c => Slash::Either,
                _ => Slash::Regex,
            };
            self.at += 1;
        }
        scanned.reads |= self.words.split(' ').any(|w| w == "getline" || w == "ARGV");
    }

    /// Reads the string literal that starts at `self.at`.
    fn literal(&mut self, chars: &[char], scanned: &mut Awk) {
        let (values, end) = awk_string(chars, self.at + 1);
        scanned.literals.extend(values.iter().cloned());
        self.run = Some(match self.run.take() {
            Some(before) => {
                let joined = [0, 1].map(|k| before[k].clone() + &values[k]);
                scanned.literals.extend(joined.iter().cloned());
                joined
            }
            None => values,
        });
        self.end_word();
        self.at = end;
        self.slash = Slash::Divide;
    }

    /// Ends the word being read, if one is.
    fn end_word(&mut self) {
        if !self.words.ends_with(' ') {
            self.words.push(' ');
        }
    }

    /// What a `/` is after the word being read: a number or a name divides, a keyword or
    /// built-in function does not.
    fn word_slash(&self) -> Slash {
        let word = self.words.rsplit(' ').next().unwrap_or("");
        if word.starts_with(|first: char| first.is_ascii_digit()) {
            return Slash::Divide;
        }
        match word {
            "case" | "getline" => Slash::Either,
            w if AWK_WORDS.contains(&w) => Slash::Regex,
            _ => Slash::Divide,
        }
    }
}

/// The keywords and built-in functions of awk (mawk's and gawk's) after which an expression,
/// so a regular expression, may begin.
const AWK_WORDS: &[&str] = &[
    "BEGIN", "END", "function", "if", "else", "while", "for", "do", "break", "continue", "next",
    "nextfile", "exit", "return", "delete", "in", "print", "printf", "length", "substr", "index",
    "split", "sub", "gsub", "match", "sprintf", "sin", "cos", "atan2", "exp", "log", "sqrt", "int",
    "rand", "srand", "tolower", "toupper", "system", "close", "fflush",
];

/// Where a line continued by a backslash at `at` goes on: a backslash, blanks or a carriage
/// return, and a newline, which mawk reads as a blank.
fn continued_line(chars: &[char], at: usize) -> Option<usize> {
    if chars[at] != '\\' {
        return None;
    }
    let mut i = at + 1;
    while i < chars.len() && matches!(chars[i], ' ' | '\t' | '\r') {
        i += 1;
    }
    (chars.get(i) == Some(&'\n')).then_some(i + 1)
}

/// Where the regular expression whose text starts at `start` (after its opening `/`) ends:
/// the index of its closing `/`, or of the newline or end that cuts it short. A `/` in a
/// bracket expression (`/[/]"/`) does not end it, in mawk and gawk, which also take a
/// backslash there as an escape (`[\]/]`).
fn regex_end(chars: &[char], start: usize) -> usize {
    let mut i = start;
    while i < chars.len() && chars[i] != '\n' {
        match chars[i] {
            '\\' => i += 2,
            '/' => return i,
            '[' => i = bracket_end(chars, i + 1, true),
            _ => i += 1,
        }
    }
    i.min(chars.len())
}

/// The value of the awk string starting at `start` (after its opening quote), as gawk and as
/// mawk read it, and the index after its closing quote. They differ on an escape neither
/// knows (`\/`, `\q`): gawk drops the backslash, mawk keeps it.
fn awk_string(chars: &[char], start: usize) -> ([String; 2], usize) {
    let mut value = String::new();
    let mut kept = String::new();
    let mut i = start;
    while i < chars.len() {
        let before = value.len();
        match chars[i] {
            '"' => return ([value, kept], i + 1),
            '\\' if i + 1 < chars.len() => {
                i += 1;
                let c = chars[i];
                match c {
                    'n' => value.push('\n'),
                    't' => value.push('\t'),
                    'r' => value.push('\r'),
                    // A backslash before a line's end joins the lines.
                    '\n' => {}
                    'x' => {
                        let digits: String = chars[i + 1..]
                            .iter()
                            .take(2)
                            .take_while(|d| d.is_ascii_hexdigit())
                            .collect();
                        i += digits.len();
                        match u32::from_str_radix(&digits, 16)
                            .ok()
                            .and_then(char::from_u32)
                        {
                            Some(decoded) => value.push(decoded),
                            // No digit: mawk keeps `\x` as it is.
                            None => {
                                value.push('x');
                                kept.push('\\');
                            }
                        }
                    }
                    '0'..='7' => {
                        let digits: String = chars[i..]
                            .iter()
                            .take(3)
                            .take_while(|d| d.is_digit(8))
                            .collect();
                        i += digits.len() - 1;
                        // Three digits may go past a byte (`\456`): awk keeps the low byte.
                        let code = u32::from_str_radix(&digits, 8).unwrap_or(0) & 0xff;
                        value.extend(char::from_u32(code));
                    }
                    'a' => value.push('\u{7}'),
                    'b' => value.push('\u{8}'),
                    'f' => value.push('\u{c}'),
                    'v' => value.push('\u{b}'),
                    '"' | '\\' => value.push(c),
                    _ => {
                        value.push(c);
                        kept.push('\\');
                    }
                }
            }
            c => value.push(c),
        }
        kept.push_str(&value[before..]);
        i += 1;
    }
    ([value, kept], chars.len())
}

/// The files a jq program reads through its modules: `import "P" as name;` reads `P.jq` (or
/// `P/B.jq`, B the last part of P), `import "P" as $name;` reads `P.json`, `include "P";`
/// reads `P.jq`, each looked for in the directories of the search path: `search` (`-L`),
/// the current directory, and those the program's metadata names. Which literal is a path
/// and which a directory is not worked out: every string literal of a program that imports
/// or includes counts, in every form, under every directory named.
pub fn jq_files(program: &str, search: &[&str]) -> Vec<Touch> {
    let (literals, words) = jq_literals(program);
    if !words.split(' ').any(|w| w == "import" || w == "include") {
        return Vec::new();
    }
    // A module's metadata may name directories to search (`{search: "./lib"}`).
    let searched = words.split(' ').any(|w| w == "search");
    let named = literals.iter().filter(|_| searched).map(String::as_str);
    let dirs = search
        .iter()
        .copied()
        .chain(named)
        .map(|dir| format!("{}/", dir.trim_end_matches('/')));
    let mut files = Vec::new();
    for dir in std::iter::once(String::new()).chain(dirs) {
        for path in &literals {
            let last = path.rsplit('/').next().unwrap_or(path);
            for name in [
                format!("{path}.json"),
                format!("{path}.jq"),
                format!("{path}/{last}.jq"),
                path.clone(),
            ] {
                push(&mut files, format!("{dir}{name}"), false);
            }
        }
    }
    files
}

/// A jq program's string literals, and its other words (space separated), outside comments.
fn jq_literals(program: &str) -> (Vec<String>, String) {
    let mut literals = Vec::new();
    let mut words = String::new();
    let mut chars = program.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut value = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => value.extend(jq_escape(&mut chars)),
                        c => value.push(c),
                    }
                }
                literals.push(value);
                words.push(' ');
            }
            '#' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                words.push(' ');
            }
            c if c.is_alphanumeric() || c == '_' => words.push(c),
            _ => words.push(' '),
        }
    }
    (literals, words)
}

/// The character a jq (JSON) escape stands for, its backslash read: `\n`, `\u0065`
/// (`e`); a surrogate pair's halves each come out as U+FFFD.
fn jq_escape(chars: &mut std::str::Chars) -> Option<char> {
    Some(match chars.next()? {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'u' => {
            let hex: String = chars.by_ref().take(4).collect();
            let code = u32::from_str_radix(&hex, 16).unwrap_or(0xfffd);
            char::from_u32(code).unwrap_or('\u{fffd}')
        }
        c => c,
    })
}

/// Whether a line of sed text ends with a backslash that continues it: an odd number of them.
fn continued(line: &[char]) -> bool {
    line.iter().rev().take_while(|&&c| c == '\\').count() % 2 == 1
}

fn push(files: &mut Vec<Touch>, path: String, write: bool) {
    if !names_a_directory(&path) {
        files.push(Touch {
            path,
            write,
            look: false,
        });
    }
}

/// Whether `path` can only name a directory (or nothing: it is empty), which no program
/// opens as a file: `/`, `.`, `..`, or a name ending in `/` (`$1 "/" $2`, `-v OFS=/`).
fn names_a_directory(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    matches!(last, "" | "." | "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(touches: Vec<Touch>) -> Vec<String> {
        touches
            .into_iter()
            .map(|t| format!("{}:{}", if t.write { "w" } else { "r" }, t.path))
            .collect()
    }

    #[test]
    fn sed_names_files_to_the_end_of_the_line() {
        let sed = |script: &str| shown(sed_files(script));
        assert_eq!(sed("w .git/hooks/pre-commit"), ["w:.git/hooks/pre-commit"]);
        assert_eq!(sed("/x/W out\np"), ["w:out"]);
        assert_eq!(sed("1r .env"), ["r:.env"]);
        assert_eq!(sed("$R  in file"), ["r:in file"]);
        assert_eq!(sed("s/a/b/gw .git/config"), ["w:.git/config"]);
        assert_eq!(sed("s/w/r/g;p"), Vec::<String>::new());
        assert_eq!(sed("/w/p;\\,r,d"), Vec::<String>::new());
        assert_eq!(sed("y/wr/rw/"), Vec::<String>::new());
        assert_eq!(sed("a write this\nw f"), ["w:f"]);
        assert_eq!(sed(":wait\nb wait"), Vec::<String>::new());
        assert_eq!(sed(":a;w f"), ["w:f"]);
        assert_eq!(sed("v;w f"), ["w:f"]);
        // A blank ends a label too.
        assert_eq!(sed(":a r .env"), ["r:.env"]);
        assert_eq!(sed("v 4.2 r .env"), ["r:.env"]);
        assert_eq!(sed("b end w f"), ["w:f"]);
        assert_eq!(sed("a foo\\\\\nw f"), ["w:f"]);
        assert_eq!(sed("$a\\"), Vec::<String>::new());
        assert_eq!(sed("a foo\\"), Vec::<String>::new());
        assert_eq!(sed("i\\"), Vec::<String>::new());
        assert_eq!(sed("/x/a\\\nwhat\\\nwhere\nw f"), ["w:f"]);
        // A delimiter inside a bracket expression is text; not in y's fields.
        assert_eq!(sed("/[/]*/w .git/config"), ["w:.git/config"]);
        assert_eq!(sed("s/[/]/x/w .git/config"), ["w:.git/config"]);
        assert_eq!(sed("s/[]/]//;r id_rsa"), ["r:id_rsa"]);
        assert_eq!(sed("s/[[:alpha:]/]//;r id_rsa"), ["r:id_rsa"]);
        assert_eq!(sed("s/[^/]//;r id_rsa"), ["r:id_rsa"]);
        assert_eq!(sed("\\,[,],r .env"), ["r:.env"]);
        assert_eq!(sed("y/[/]/;w f"), ["w:f"]);
    }

    #[test]
    fn jq_modules_are_files_it_reads() {
        let jq = |program: &str, search: &[&str]| shown(jq_files(program, search));
        let reads = |program: &str, search: &[&str], name: &str| {
            jq(program, search).contains(&format!("r:{name}"))
        };
        assert!(reads(
            "import \"./credentials\" as $c; $c",
            &[],
            "./credentials.json"
        ));
        assert!(reads("include \"lib\"; f", &[], "lib.jq"));
        assert!(reads("import \"m\" as m; m::f", &[], "m/m.jq"));
        assert!(reads("import \"k\" as $k; $k", &["conf"], "conf/k.json"));
        assert!(reads(
            "import \"k\" as $k {search: \"../.aws\"}; $k",
            &[],
            "../.aws/k.json"
        ));
        assert!(reads(
            "import \"cred\\u0065ntials\" as $c; $c",
            &[],
            "credentials.json"
        ));
        // No module, no file: a string is only a string.
        assert!(jq(".a == \"import\"", &[]).is_empty());
        assert!(jq("# import \"x\"\n.a", &[]).is_empty());
    }

    #[test]
    fn awk_names_every_literal_of_a_program_that_uses_files() {
        let awk = |program: &str| shown(awk_files(program, &[], false));
        let writes = |program: &str, name: &str| awk(program).contains(&format!("w:{name}"));
        let reads = |program: &str, name: &str| awk(program).contains(&format!("r:{name}"));
        assert!(writes(
            "BEGIN{print \"[core]\" > \".git/config\"}",
            ".git/config"
        ));
        assert!(writes("{printf \"%s\", $0 >> \"log\"}", "log"));
        assert!(reads(
            "BEGIN{while((getline l < \".env\")>0) print l}",
            ".env"
        ));
        assert!(writes(
            "BEGIN{if(1) print \"x\" > \".git/config\"}",
            ".git/config"
        ));
        assert!(writes(
            "BEGIN{print \"x\" > (\".git/config\")}",
            ".git/config"
        ));
        assert!(writes(
            "BEGIN{print \"x\" > \".git/\" \"config\"}",
            ".git/config"
        ));
        assert!(writes(
            "BEGIN{print \"x\" > \".git/\\143onfig\"}",
            ".git/config"
        ));
        assert!(writes("/\"/{print \"x\" > \".git/config\"}", ".git/config"));
        assert!(writes("{print\"a\"x>\".git/config\"}", ".git/config"));
        assert!(writes("{printf(\"x\")>\".git/config\"}", ".git/config"));
        // A division is not read as the start of a regular expression, nor a regular
        // expression as a division, where that would hide a file name.
        for program in [
            "BEGIN { y = 1./2; print \"x\" > \".git/config\" }",
            "BEGIN { y = 1./2; print 1/1 > \".git/config\" }",
            "BEGIN { y = 1./2; print \"x\" \\\n> \".git/config\" }",
            "BEGIN { y = 4 \\\n/ 2; print \"x\" > \".git/config\" }",
            "n\n/\"/ { print \"x\" > \".git/config\" } # \"",
            "{ print /\"/ > \".git/config\" } # \"",
            "{ x++ /2; print \"x\" > \".git/config\" } # /",
        ] {
            assert!(writes(program, ".git/config"), "{program}");
        }
        assert!(reads(
            "BEGIN { y = 1./2; while ((getline l < \".env\") > 0) print l }",
            ".env"
        ));
        // As mawk reads them: a regular expression after `$`, a keyword or a built-in
        // function; either after `++`, `--` and gawk's `case`; lines joined by a backslash
        // with blanks after it.
        for program in [
            "BEGIN { x = $/\"z/; print \"pwn\" > \".git/config\" } #\"",
            "BEGIN { x = length /\"z/; print \"pwn\" > \".git/config\" } #\"",
            "BEGIN { if (0) exit /\"z/; print \"pwn\" > \".git/config\" } #\"",
            "BEGIN { a = 1; x = a++/\"z/; print \"pwn\" > \".git/config\" } #\"",
            "BEGIN { a = 1; x = a+++/\"z/; print \"pwn\" > \".git/config\" } #\"",
            "BEGIN { q = \"a\" ~ /\"z/; x = case / 2; print \"pwn\" > \".git/config\"; y = 1 / 2 }",
            "BEGIN { q = \"a\" ~ /\"z/; x = 4 \\ \n/ 2; print \"pwn\" > \".git/config\"; y = 1 / 2 }",
            "BEGIN { q = \"a\" ~ /\"z/; x = 4 \\\r\n/ 2; print \"pwn\" > \".git/config\"; y = 1 / 2 }",
            // gawk's keywords are mawk's names, after which a slash divides.
            "{ default = 4; x = default / 2; print \"pwn\" > \".git/config\"; y = x / 1 }",
            "{ func = 4; x = func / 2; print \"pwn\" > \".git/config\"; y = x / 1 }",
            // A name ends at a NUL.
            "BEGIN { print \"pwn\" > \".git/config\\0x\" }",
        ] {
            assert!(writes(program, ".git/config"), "{program:?}");
        }
        assert!(reads(
            "BEGIN { while ((getline l < \".env\\0\") > 0) print l }",
            ".env"
        ));
        // An octal escape past a byte is its low byte (`\456` is `.`).
        assert!(writes(
            "BEGIN { print 1 > \"\\456git/config\" }",
            ".git/config"
        ));
        // An escape awk does not know: mawk keeps the backslash, gawk drops it.
        let both = awk("BEGIN { print \"x\" > \"a\\/b\" }");
        assert!(both.contains(&"w:a/b".to_string()), "{both:?}");
        assert!(both.contains(&"w:a\\/b".to_string()), "{both:?}");
        // Assigned values are read as strings are, escapes and all.
        let assigned = |value: &str| shown(awk_files("{ print > f }", &[value], false));
        assert_eq!(assigned(".git/confi\\147"), ["w:.git/config"]);
        assert_eq!(assigned(".git/config\\0"), ["w:.git/config"]);
        // A literal that can only name a directory is no file.
        assert_eq!(
            shown(awk_files(
                "{print $1 \"/\" $2 \"./\" > \"out.txt\"}",
                &["/"],
                false
            )),
            ["w:out.txt"]
        );
        // A bracket expression may hold the slash.
        assert!(writes(
            "/[/]\"/ { print \"x\" > \".git/config\" } # \"",
            ".git/config"
        ));
        assert!(writes(
            "/[[:alpha:]/]\"/ { print \"x\" > \".git/config\" } # \"",
            ".git/config"
        ));
        assert!(writes(
            "/[]/]\"/ { print \"x\" > \".git/config\" } # \"",
            ".git/config"
        ));
        // A regular expression holding a quote is not read as the start of a string.
        assert_eq!(
            awk("{gsub(/\"/, \"\"); print > \"clean.csv\"}"),
            ["w:clean.csv"]
        );
        // A `>` before any print compares: nothing is written.
        assert!(awk("$1 > \"m\" {n++} END {print n}").is_empty());
        assert!(awk("{if ($2 >= \"b\") print $1}").is_empty());
        assert!(awk("{x = sprintf(\"%s\", $1)} x > \"m\"").is_empty());
        assert!(writes(
            "BEGIN{ # it\"s\nprint \"x\" > \".git/config\"}",
            ".git/config"
        ));
        assert!(writes(
            "BEGIN{f=\".git/config\"; print \"x\" > f}",
            ".git/config"
        ));
        assert!(reads("BEGIN{ARGV[1]=\".env\";ARGC=2}{print}", ".env"));
        assert!(reads("BEGIN{getline l < (\".e\" \"nv\")}", ".env"));
        assert!(reads("BEGIN{getline l < \".e\\x6ev\"}", ".env"));
        assert!(reads("BEGIN{getline l < \"id_r\\\nsa\"}", "id_rsa"));
        assert!(writes(
            "BEGIN{print 1 > \".git/con\\x66ig\"}",
            ".git/config"
        ));
        assert_eq!(
            shown(awk_files(
                "BEGIN{f=x; print 1 > f}",
                &[".git/config"],
                false
            )),
            ["w:.git/config"]
        );
        // An extension's functions read and write files.
        assert!(reads(
            "@load \"readfile\"; BEGIN{print readfile(\".env\")}",
            ".env"
        ));
        assert!(writes(
            "@include \"x\"; BEGIN{f(\".git/config\")}",
            ".git/config"
        ));
        assert_eq!(
            shown(awk_files("BEGIN{readfile(\".env\")}", &[], true)),
            ["w:.env", "r:.env"]
        );
        // Programs that neither redirect nor read files of their own name none.
        assert!(awk("{print $1, \".env\"}").is_empty());
        assert!(awk("{print \"a@b\"}").is_empty());
        assert!(awk("NR > 1").is_empty());
        // Division is not a regular expression.
        assert!(writes("{x = a / 2; print \"o\" > \"f\"}", "f"));
    }
}
