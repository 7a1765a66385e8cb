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
    // After a field's opening delimiter: the index after its closing one.
    let field = |mut i: usize, delim: char| -> usize {
        while i < chars.len() {
            match chars[i] {
                '\\' => i += 2,
                c if c == delim => return i + 1,
                _ => i += 1,
            }
        }
        chars.len()
    };
    // The rest of the line from `i`, blanks skipped first: a file name, and where it ends.
    let rest_of_line = |mut i: usize| -> (String, usize) {
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
            '/' => i = field(i + 1, '/'),
            '\\' if i + 1 < chars.len() => i = field(i + 2, chars[i + 1]),
            'w' | 'W' | 'r' | 'R' => {
                let (name, end) = rest_of_line(i + 1);
                push(&mut files, name, matches!(c, 'w' | 'W'));
                i = end;
            }
            // Text, labels, comments and commands to run: up to the end of the line, and text
            // on through the lines that end with a backslash.
            'a' | 'i' | 'c' | 'e' | ':' | '#' | 'v' => {
                i = rest_of_line(i + 1).1;
                while matches!(c, 'a' | 'i' | 'c') && i > 0 && chars[i - 1] == '\\' {
                    i = rest_of_line(i + 1).1;
                }
            }
            // A branch's label ends at `;` too.
            'b' | 't' | 'T' => {
                i += 1;
                while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                    i += 1;
                }
            }
            's' | 'y' if i + 1 < chars.len() => {
                let delim = chars[i + 1];
                i = field(field(i + 2, delim), delim);
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

/// The files an awk program names as string literals: written by `print` and `printf`
/// redirected with `>` or `>>`, read by `getline < "FILE"`.
pub fn awk_files(program: &str) -> Vec<Touch> {
    let mut files = Vec::new();
    for statement in statements(program) {
        let words = statement.trim_start();
        let printing = ["print", "printf"].iter().any(|p| {
            words
                .strip_prefix(p)
                .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
        });
        let mut depth = 0usize;
        let mut chars = statement.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '"' => skip_string(&mut chars),
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                '>' if printing && depth == 0 => {
                    if chars.peek().is_some_and(|(_, next)| *next == '>') {
                        chars.next();
                    }
                    let after = statement[at + 1..].trim_start_matches('>');
                    if let Some(name) = literal(after) {
                        push(&mut files, name, true);
                    }
                }
                '<' if statement[..at].contains("getline") => {
                    if let Some(name) = literal(&statement[at + 1..]) {
                        push(&mut files, name, false);
                    }
                }
                _ => {}
            }
        }
    }
    files
}

/// An awk program cut into statements at `;`, braces and line ends outside strings and
/// regular expressions in slashes are not told apart from division: a cut inside one only
/// loses a name, never invents one.
fn statements(program: &str) -> Vec<&str> {
    let mut cuts = Vec::new();
    let mut start = 0;
    let mut chars = program.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => skip_string(&mut chars),
            ';' | '{' | '}' | '\n' => {
                cuts.push(&program[start..at]);
                start = at + c.len_utf8();
            }
            _ => {}
        }
    }
    cuts.push(&program[start..]);
    cuts
}

/// Past the end of an awk string whose opening quote was just read.
fn skip_string(chars: &mut std::iter::Peekable<std::str::CharIndices>) {
    while let Some((_, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '"' => return,
            _ => {}
        }
    }
}

/// The string literal `text` starts with (blanks first), unescaped; None for anything else.
fn literal(text: &str) -> Option<String> {
    let body = text.trim_start().strip_prefix('"')?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                other => value.push(other),
            },
            _ => value.push(c),
        }
    }
    None
}

fn push(files: &mut Vec<Touch>, path: String, write: bool) {
    if !path.is_empty() {
        files.push(Touch { path, write });
    }
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
        assert_eq!(sed("/x/a\\\nwhat\\\nwhere\nw f"), ["w:f"]);
    }

    #[test]
    fn awk_names_literal_files_of_print_and_getline() {
        let awk = |program: &str| shown(awk_files(program));
        assert_eq!(
            awk("BEGIN{print \"[core]\" > \".git/config\"}"),
            ["w:.git/config"]
        );
        assert_eq!(awk("{printf \"%s\", $0 >> \"log\"}"), ["w:log"]);
        assert_eq!(
            awk("BEGIN{while((getline l < \".env\")>0) print l}"),
            ["r:.env"]
        );
        assert_eq!(awk("$1 > \"m\" {print}"), Vec::<String>::new());
        assert_eq!(awk("{print ($1 > \"m\")}"), Vec::<String>::new());
        assert_eq!(awk("{print \"a>b\" > \"o\"}"), ["w:o"]);
        assert_eq!(awk("{print > $1 \".txt\"}"), Vec::<String>::new());
    }
}
