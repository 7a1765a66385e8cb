//! Line editing at a terminal, with rustyline: Emacs keys, the history of the session, and
//! Tab completion of what the policy allows. One line per call, so that continuation lines
//! get `PS2` as in bash, and the terminal is in its normal mode whenever a command runs.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use rustyline::completion::{Completer, Pair};
use rustyline::config::Configurer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::{History, MemHistory};
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, EditMode, Editor};

use crate::interp::Shell;

/// What reading a line gave.
pub enum Read {
    Line(String),
    /// Ctrl-C: the line so far is dropped.
    Interrupted,
    /// Ctrl-D on an empty line, or the terminal went away.
    End,
    Failed(String),
    /// A line that is not UTF-8 (shown with replacement characters), and where: refused,
    /// as the parser refuses such a script.
    NotText {
        line: String,
        why: String,
    },
}

/// Whether lines are better read with the editor: a terminal on both sides that echoes
/// (pexpect's `echo=False` and `TERM=dumb` harnesses get plain reading, as bash's readline
/// gives them no editing either).
pub fn wanted() -> bool {
    let term = std::env::var("TERM").unwrap_or_default();
    if matches!(term.as_str(), "dumb" | "cons25" | "emacs") {
        return false;
    }
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return false;
    }
    nix::sys::termios::tcgetattr(std::io::stdin())
        .is_ok_and(|t| t.local_flags.contains(nix::sys::termios::LocalFlags::ECHO))
}

/// The editor of an interactive shell, kept from line to line: what was typed ahead of the
/// line just read stays in its buffer for the next.
pub struct LineEditor {
    editor: Editor<Helper, MemHistory>,
    /// `History::changes` when the editor's copy of the history was last brought up to date.
    synced: (usize, u64),
}

impl LineEditor {
    pub fn new(shell: &Shell) -> Result<LineEditor, String> {
        let limit = shell.history.limit().max(1);
        let history = MemHistory::with_config(&config(limit));
        let mut editor = Editor::with_history(config(limit), history).map_err(|e| e.to_string())?;
        editor.set_helper(Some(Helper {
            shell: Cell::new(None),
        }));
        Ok(LineEditor {
            editor,
            synced: (0, 0),
        })
    }

    /// Reads one line after `prompt`, with the shell's history to recall and its policy to
    /// complete against.
    pub fn read_line(&mut self, shell: &mut Shell, prompt: &str) -> Read {
        self.sync_history(shell);
        self.set_shell(Some(NonNull::from(&mut *shell)));
        let read = self.editor.readline(prompt);
        self.set_shell(None);
        match read {
            Ok(mut line) => {
                line.push('\n');
                Read::Line(line)
            }
            Err(rustyline::error::ReadlineError::Interrupted) => Read::Interrupted,
            Err(rustyline::error::ReadlineError::Eof) => Read::End,
            Err(err) => Read::Failed(err.to_string()),
        }
    }

    fn set_shell(&mut self, shell: Option<NonNull<Shell>>) {
        if let Some(helper) = self.editor.helper_mut() {
            helper.shell.set(shell);
        }
    }

    /// Brings the editor's copy of the history up to date: the new entries, or all of them
    /// after `history -c` or a refused line was taken out.
    fn sync_history(&mut self, shell: &Shell) {
        let now = shell.history.changes();
        if now == self.synced {
            return;
        }
        let copy = self.editor.history_mut();
        let entries: Vec<&str> = shell.history.entries().collect();
        let new = if now.1 == self.synced.1 && now.0 >= self.synced.0 {
            (now.0 - self.synced.0).min(entries.len())
        } else {
            let _ = copy.clear();
            entries.len()
        };
        for entry in &entries[entries.len() - new..] {
            let _ = copy.add(entry);
        }
        self.synced = now;
    }
}

fn config(history_size: usize) -> Config {
    let mut builder = Config::builder()
        .edit_mode(EditMode::Emacs)
        .completion_type(CompletionType::List)
        .auto_add_history(false);
    builder = match builder.max_history_size(history_size) {
        Ok(builder) => builder,
        Err(_) => Config::builder(),
    };
    // Begin/end markers around every redraw confuse programs that read the screen.
    builder.enable_synchronized_output(false);
    builder.build()
}

/// Completion, which needs the shell: the editor holds it only while it reads a line.
struct Helper {
    shell: Cell<Option<NonNull<Shell>>>,
}

impl Completer for Helper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let Some(mut shell) = self.shell.get() else {
            return Ok((0, Vec::new()));
        };
        // SAFETY: the pointer is set from the `&mut Shell` that `read_line` holds, only for
        // the call to `readline`, in which nothing else uses it; rustyline calls `complete`
        // only from within that call, on this thread. (The shell never owns the editor, so
        // the pointer cannot outlive what it points to.)
        #[allow(unsafe_code)]
        let shell = unsafe { shell.as_mut() };
        let before = &line[..pos];
        let start = word_start(before);
        let word = unescape(&before[start..]);
        let candidates = if command_position(&before[..start]) && !word.contains('/') {
            shell
                .command_completions(&word)
                .into_iter()
                .map(|name| Pair {
                    replacement: format!("{} ", escape(&name)),
                    display: name,
                })
                .collect()
        } else {
            files(shell, &word)
        };
        Ok((start, candidates))
    }
}

impl Hinter for Helper {
    type Hint = String;
}

impl Highlighter for Helper {}

impl Validator for Helper {}

impl rustyline::Helper for Helper {}

/// Characters that end a word, besides blanks.
const OPERATORS: &str = ";|&()<>";

/// Where the word under the cursor starts: after the last blank or operator that is neither
/// escaped nor quoted.
fn word_start(before: &str) -> usize {
    let chars: Vec<(usize, char)> = before.char_indices().collect();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        match (quote, c) {
            (None | Some('"'), '\\') => {
                i += 2;
                continue;
            }
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() || OPERATORS.contains(c) => {
                start = at + c.len_utf8();
            }
            _ => {}
        }
        i += 1;
    }
    start
}

/// Whether a word after `before` names a command: first on the line, or after an operator
/// or a keyword that starts a command.
fn command_position(before: &str) -> bool {
    let trimmed = before.trim_end();
    if trimmed.is_empty() || trimmed.ends_with(|c| ";|&(".contains(c)) {
        return true;
    }
    let last = trimmed.rsplit(char::is_whitespace).next().unwrap_or("");
    matches!(
        last,
        "then" | "do" | "else" | "elif" | "if" | "while" | "until" | "!" | "{" | "time"
    )
}

fn unescape(word: &str) -> String {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '\'' | '"' => {}
            c => out.push(c),
        }
    }
    out
}

/// A name as it must be typed: special characters escaped with a backslash.
fn escape(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_whitespace() || "\\'\"$`*?[]{}()<>;|&!#~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Files whose names start with the last part of `word`, in the directory its first part
/// names, where the policy lets programs read that directory; files the policy denies are
/// not offered. Directories end with `/`.
fn files(shell: &mut Shell, word: &str) -> Vec<Pair> {
    let (dir_part, prefix) = match word.rfind('/') {
        Some(at) => (&word[..=at], &word[at + 1..]),
        None => ("", word),
    };
    let dir = directory(shell, dir_part);
    if !shell.may_read(&dir) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut pairs: Vec<Pair> = Vec::new();
    for entry in entries.flatten() {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
            continue;
        }
        let path = dir.join(&name);
        if !shell.may_read(&path) {
            continue;
        }
        let is_dir = path.is_dir();
        let shown = if is_dir { format!("{name}/") } else { name };
        let ending = if is_dir { "" } else { " " };
        pairs.push(Pair {
            replacement: format!("{}{}{ending}", escape_path(dir_part), escape(&shown)),
            display: shown,
        });
    }
    pairs.sort_by(|a, b| a.display.cmp(&b.display));
    pairs
}

/// The directory part of a word as typed, kept as typed (a leading `~` stays `~`).
fn escape_path(dir_part: &str) -> String {
    match dir_part.strip_prefix('~') {
        Some(rest) => format!("~{}", escape(rest)),
        None => escape(dir_part),
    }
}

fn directory(shell: &Shell, dir_part: &str) -> PathBuf {
    // `~`, `~/…` and `~user/…` as the command's own expansion will read them.
    let expanded = if dir_part.starts_with('~') {
        crate::expand::tilde_prefix(shell, dir_part, true)
    } else if dir_part.is_empty() {
        ".".to_string()
    } else {
        dir_part.to_string()
    };
    shell.absolute(Path::new(&expanded))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_end_at_blanks_and_operators_but_not_escaped_blanks() {
        assert_eq!(word_start("ls"), 0);
        assert_eq!(word_start("ls /us"), 3);
        assert_eq!(word_start("cat a|gr"), 6);
        assert_eq!(word_start("cat my\\ fi"), 4);
        assert_eq!(word_start("cat 'my fi"), 4);
        assert_eq!(word_start("cat \"a b\" 'c d"), 10);
    }

    #[test]
    fn command_positions() {
        assert!(command_position(""));
        assert!(command_position("ls | "));
        assert!(command_position("true && "));
        assert!(command_position("if "));
        assert!(!command_position("ls "));
        assert!(!command_position("echo if x "));
    }

    #[test]
    fn escaping_round_trips() {
        let name = "my file (1).txt";
        assert_eq!(escape(name), "my\\ file\\ \\(1\\).txt");
        assert_eq!(unescape(&escape(name)), name);
    }
}
