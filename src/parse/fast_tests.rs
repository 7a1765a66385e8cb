//! The fast reader must build exactly the tree the tree-sitter path builds, for every line it
//! takes. Checked over hand-picked lines, lines generated from shell fragments, and (where
//! `../shared` is present) every line of the nl2bash corpus and of the compat cases.

use std::path::{Path, PathBuf};

use super::program;
use crate::parse::parse_with_tree_sitter;

/// Compares the two paths on `line`; `Ok(true)` when the fast reader took it.
fn compare(line: &str) -> Result<bool, String> {
    let Some(fast) = program(line, 0) else {
        return Ok(false);
    };
    match parse_with_tree_sitter(line, 0) {
        Ok(slow) if format!("{slow:?}") == format!("{fast:?}") => Ok(true),
        Ok(slow) => {
            let (slow, fast) = (format!("{slow:?}"), format!("{fast:?}"));
            let at = slow
                .bytes()
                .zip(fast.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            let from = slow[..at].rfind("Word").unwrap_or(0);
            let excerpt = |s: &str| {
                s.get(from..(at + 120).min(s.len()))
                    .unwrap_or("")
                    .to_owned()
            };
            Err(format!(
                "{line:?}: the trees differ\n  tree-sitter: …{}\n  fast:        …{}",
                excerpt(&slow),
                excerpt(&fast)
            ))
        }
        Err(e) => Err(format!(
            "{line:?}: fast reader took it, tree-sitter path says {e}"
        )),
    }
}

/// Compares every line; panics naming the first differences. Returns how many were taken.
fn compare_all<'l>(lines: impl IntoIterator<Item = &'l str>) -> (usize, usize) {
    let mut taken = 0;
    let mut total = 0;
    let mut failures = Vec::new();
    for line in lines {
        total += 1;
        match compare(line) {
            Ok(took) => taken += usize::from(took),
            Err(message) => failures.push(message),
        }
    }
    if !failures.is_empty() {
        let shown: Vec<&str> = failures.iter().take(15).map(String::as_str).collect();
        panic!("{} lines differ:\n{}", failures.len(), shown.join("\n"));
    }
    (taken, total)
}

fn taken(line: &str) -> bool {
    compare(line).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn simple_lines_are_taken_and_match() {
    for line in [
        "",
        "   ",
        "ls",
        "ls -la src",
        "ls -la src | grep foo && echo 'a b' > out 2>&1",
        "cat a b c | sort | uniq -c | sort -rn | head -n 10",
        "echo \"hello $USER\" ${HOME} $1 $@ $? x$ $'a\\tb' $\"t\"",
        "find . -name '*.txt' -exec grep -l foo {} \\;",
        "a; b; c;",
        "a || b && c",
        "make 2>&1 | tee log",
        "make |& tee log",
        "cmd >>out 2>>err <in",
        "exec >&- <&-",
        "cmd &>all &>>more >|clobber",
        "echo `date +%Y`",
        "echo x`which ls`y",
        "grep -E 'a|b' file",
        "echo ~ ~/x a=b --opt=v",
        "echo {a,b}.txt file{1..3}",
        "echo é ü 日本",
        "echo \\$x \\\\ a\\;b",
    ] {
        assert!(taken(line), "not taken: {line:?}");
    }
}

#[test]
fn lines_beyond_the_subset_go_to_tree_sitter() {
    for line in [
        "if true; then echo; fi",
        "x=1 cmd",
        "x=1",
        "echo $(date)",
        "echo $((1+2))",
        "diff <(a) <(b)",
        "cat <<EOF\nx\nEOF\n",
        "cat <<<word",
        "cmd <>file",
        "sleep 1 &",
        "a\nb",
        "echo # comment",
        "! false",
        "{ a; }",
        "(a)",
        "f() { :; }",
        "export A=1",
        "echo \"${x:-\"a b\"}\"",
        "a |",
        "a &&",
        "| a",
        "; a",
        "a ;; b",
        ">out cmd",
        "cmd >out extra",
        "echo \\",
        "echo 'unterminated",
        "echo $[1+2]",
        "exec 3>&-",
        "head -200>f",
        "cmd <in>out",
        "echo a \\ b",
        "echo `a` `b`",
        "ls%",
        "[ -f x ]",
    ] {
        assert!(!taken(line), "taken: {line:?}");
    }
}

/// A small deterministic generator (xorshift), so a failure names a reproducible line.
struct Lines(u64);

impl Lines {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn line(&mut self, start: &str, fragments: &[&str]) -> String {
        let len = 1 + self.next() % 12;
        let mut line = start.to_string();
        for _ in 0..len {
            line.push_str(fragments[(self.next() % fragments.len() as u64) as usize]);
        }
        line
    }
}

/// Shell characters in any order: mostly lines the fast reader refuses, which is the point.
const HOSTILE: &[&str] = &[
    "a", "b", "ls", "-l", " ", " ", " ", "\t", "|", "|&", "||", "&&", "&", ";", ";;", ">", ">>",
    "<", "2>", "2>&1", ">&", "<&", ">&-", "&>", "&>>", ">|", "1", "2", "0", "'q w'", "'", "\"",
    "\"d $x\"", "$", "$x", "${x}", "${x:-y}", "${#x}", "$1", "$@", "$'e\\n'", "\\", "\\ ", "\\;",
    "\\\"", "`", "`date`", "{", "}", "{}", "{a,b}", "[", "]", "[[", "*", "?", "~", "=", "x=1", "!",
    "#", "if", "then", "fi", "do", "in", "é", "%", "^", ":", ",", "@", "-", "--", ".", "/",
];

/// Pieces of the lines people type, blanks included: mostly lines the fast reader takes.
const PLAUSIBLE: &[&str] = &[
    " -l",
    " a",
    " b/c.txt",
    " 'q w'",
    " \"d $x\"",
    " \"$HOME/x\"",
    " ${x:-y}",
    " $1",
    " \"$@\"",
    " | grep x",
    " && echo ok",
    " || true",
    "; ls",
    " > out",
    " 2>&1",
    " >> log",
    " < in",
    " 2>/dev/null",
    " &> all",
    " |& cat",
    " {}",
    " \\;",
    " *.txt",
    " [a-z]*",
    " ~/x",
    " `date`",
    " é",
    " --opt=v",
    " a=b",
    " -name '*.c'",
    " -exec",
    " +",
    " %s",
    " \\$x",
    " $'\\t'",
    " file{1,2}",
    " :",
    " -",
    " --",
    " 2>&-",
];

#[test]
fn generated_lines_match() {
    let mut lines = Lines(0x9e37_79b9_7f4a_7c15);
    let hostile: Vec<String> = (0..lines_to_generate())
        .map(|_| lines.line("", HOSTILE))
        .collect();
    compare_all(hostile.iter().map(String::as_str));
    let plausible: Vec<String> = (0..lines_to_generate())
        .map(|_| lines.line("cmd", PLAUSIBLE))
        .collect();
    let (taken, total) = compare_all(plausible.iter().map(String::as_str));
    assert!(
        taken * 4 > total,
        "only {taken} of {total} plausible lines taken"
    );
}

fn shared_dir() -> Option<PathBuf> {
    let shared = match std::env::var_os("RSH_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    if shared.is_dir() {
        Some(shared)
    } else {
        eprintln!(
            "\n*** SKIPPED: {} is absent: the fast reader is not compared over the corpus and \
             compat lines (set RSH_SHARED_DIR) ***\n",
            shared.display()
        );
        None
    }
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn corpus_lines_match() {
    let Some(shared) = shared_dir() else { return };
    let text = std::fs::read_to_string(shared.join("corpus/nl2bash/all.cm")).expect("corpus");
    let (taken, total) = compare_all(text.lines());
    eprintln!("fast reader: {taken} of {total} nl2bash lines");
    assert!(
        taken * 10 > total * 7,
        "only {taken} of {total} corpus lines taken"
    );
}

#[test]
fn compat_lines_match() {
    let Some(shared) = shared_dir() else { return };
    let mut files = Vec::new();
    files_under(&shared.join("compat"), &mut files);
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect();
    // Every line of every file, as written and without its indentation: most are shell.
    let lines = texts
        .iter()
        .flat_map(|t| t.lines())
        .flat_map(|l| [l, l.trim_start()]);
    let (taken, total) = compare_all(lines);
    eprintln!("fast reader: {taken} of {total} compat lines");
}

/// 20,000 of each kind; `RSH_GENERATED_LINES` asks for more.
fn lines_to_generate() -> usize {
    std::env::var("RSH_GENERATED_LINES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_000)
}
