//! Parsing: tree-sitter-bash text → rsh's own syntax tree (`ast`).
//!
//! Simple lines (commands, quotes, `$name`, pipes, `&&`, `;`, trailing redirections) are read
//! by `fast` without tree-sitter, into the tree tree-sitter's path would build for them; the
//! tests hold the two paths to identical trees.
//!
//! A tree with ERROR or MISSING nodes is a syntax error and nothing of the line runs; a construct
//! outside the supported subset is an `Unsupported` error naming the construct and its position.
//! Parsing never panics and is bounded: NUL bytes, invalid UTF-8, huge inputs and deep nesting
//! all end in a clear error. This module knows nothing about expansion or execution.

pub mod ast;
mod convert;
mod fast;
mod scan;
mod word;

use std::cell::RefCell;
use std::fmt;

pub use ast::*;
pub(crate) use word::octal_escape;

/// Inputs larger than this are refused rather than parsed (a script, not a data file).
pub const MAX_SOURCE_BYTES: usize = 16 * 1024 * 1024;
/// How deeply constructs may nest (substitutions, compound commands, parameter expansions).
pub const MAX_DEPTH: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The text is not valid shell.
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// Valid shell that rsh deliberately does not run.
    Unsupported {
        construct: String,
        line: usize,
        column: usize,
    },
    /// The input itself cannot be handled (NUL bytes, size).
    Input(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax {
                line,
                column,
                message,
            } => write!(f, "syntax error: {message} at {line}:{column}"),
            ParseError::Unsupported {
                construct,
                line,
                column,
            } => write!(f, "unsupported: {construct} at {line}:{column}"),
            ParseError::Input(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for ParseError {}

thread_local! {
    static PARSER: RefCell<Option<tree_sitter::Parser>> = const { RefCell::new(None) };
}

/// Parses a whole script or command line.
pub fn parse(source: &str) -> Result<Program, ParseError> {
    parse_at_depth(source, 0)
}

/// Parses bytes, refusing invalid UTF-8 with the position of the first bad byte.
pub fn parse_bytes(source: &[u8]) -> Result<Program, ParseError> {
    parse(utf8_text(source)?)
}

/// `source` as text, or where its first byte that is not UTF-8 is.
pub fn utf8_text(source: &[u8]) -> Result<&str, ParseError> {
    std::str::from_utf8(source).map_err(|err| {
        let (line, column) = line_column(&source[..err.valid_up_to()], err.valid_up_to());
        ParseError::Input(format!("input is not valid UTF-8 at {line}:{column}"))
    })
}

/// A valid shell variable name.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// A prompt string (`PS1`, `PS2`, `PS0`) as a word to expand, as bash expands it: like a
/// double-quoted string whose own quotes are ordinary text (`$…`, `` `…` `` and `\\` are
/// special, and `\"` is a quote). Read as the body of an unquoted here-document, which
/// differs only in keeping `\"` as it is.
pub fn prompt_word(text: &str) -> Result<Word, ParseError> {
    // A `$` that starts no expansion is text. tree-sitter-bash cannot read a here-document
    // line that begins with one (the default prompt `$ ` of users other than root), so the
    // text is read in pieces around such dollars, which are put back as text.
    let mut parts = Vec::new();
    let mut piece = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let dollar = match c {
            '\\' => match chars.next() {
                Some('$') => true,
                Some(next) => {
                    piece.push('\\');
                    piece.push(next);
                    false
                }
                None => {
                    piece.push('\\');
                    false
                }
            },
            '$' => !chars.peek().is_some_and(|&n| starts_expansion(n)),
            c => {
                piece.push(c);
                false
            }
        };
        if dollar {
            parts.extend(prompt_piece(&std::mem::take(&mut piece))?);
            parts.push(WordPart::Quoted("$".to_owned()));
        } else if c == '$' {
            piece.push('$');
        }
    }
    parts.extend(prompt_piece(&piece)?);
    // As a single here-document would have it: the line break that ends its last line.
    parts.push(WordPart::Quoted("\n".to_owned()));
    Ok(Word {
        parts,
        span: Span {
            start: 0,
            end: text.len(),
        },
    })
}

/// The parts of a piece of a prompt without a bare `$`, read as a here-document body,
/// without the line break the here-document adds.
fn prompt_piece(text: &str) -> Result<Vec<WordPart>, ParseError> {
    const END: &str = "__RSH_PROMPT_END__";
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut body = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            body.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => body.push('"'),
            // A last backslash is text, not a line continuation of the wrapper.
            None => body.push_str("\\\\"),
            next => {
                body.push('\\');
                body.extend(next);
            }
        }
    }
    let program = parse(&format!(":<<{END}\n{body}\n{END}\n"))?;
    let word = program
        .body
        .first()
        .and_then(|and_or| match and_or.first.commands.first() {
            Some(Command::Simple(simple)) => simple.redirects.first().map(|r| r.target.clone()),
            _ => None,
        });
    let mut parts = word
        .ok_or_else(|| ParseError::Input("the prompt is not a here-document body".to_string()))?
        .parts;
    if let Some(WordPart::Literal(last) | WordPart::Quoted(last)) = parts.last_mut()
        && last.ends_with('\n')
    {
        last.pop();
        if last.is_empty() {
            parts.pop();
        }
    }
    Ok(parts)
}

/// Whether `$` followed by `c` is an expansion.
fn starts_expansion(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '_' | '{' | '(' | '[' | '?' | '#' | '@' | '*' | '!' | '$' | '-'
        )
}

/// Checks syntax only, for `rsh -n`.
pub fn check(source: &str) -> Result<(), ParseError> {
    parse(source).map(|_| ())
}

pub(crate) fn parse_at_depth(source: &str, depth: usize) -> Result<Program, ParseError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(ParseError::Input(format!(
            "input too large: {} bytes (limit {MAX_SOURCE_BYTES})",
            source.len()
        )));
    }
    if let Some(at) = source.find('\0') {
        let (line, column) = line_column(source.as_bytes(), at);
        return Err(ParseError::Input(format!(
            "input contains a NUL byte at {line}:{column}"
        )));
    }
    if depth > MAX_DEPTH {
        return Err(ParseError::Input(format!(
            "nesting deeper than {MAX_DEPTH} levels"
        )));
    }
    match fast::program(source, depth) {
        Some(program) => Ok(program),
        None => parse_with_tree_sitter(source, depth),
    }
}

fn parse_with_tree_sitter(source: &str, depth: usize) -> Result<Program, ParseError> {
    let (tree, repairs) = parse_tree_repaired(source)?;
    refuse_blanks_bash_keeps_in_words(source, &tree)?;
    convert::Converter::new(source, Some(&tree), &repairs.read_write_ops, depth)
        .with_times(repairs.times)
        .with_lone_assignments(repairs.lone_assignments)
        .program(tree.root_node())
}

/// The nodes whose text may hold a carriage return as it is.
const TEXT_NODES: &[&str] = &[
    "string",
    "string_content",
    "raw_string",
    "ansi_c_string",
    "translated_string",
    "comment",
    "heredoc_body",
    "heredoc_content",
];

/// bash reads a carriage return outside quotes as part of a word (`x=a<CR>b` assigns
/// `a<CR>b`, and a line ending in CR LF ends its last word with a CR), and so a vertical tab
/// and a form feed; tree-sitter-bash reads them as blanks, so `x=a<CR>b` would run `b`. A
/// line with one outside a word, a string, a here-document or a comment is refused rather
/// than split where bash would not.
fn refuse_blanks_bash_keeps_in_words(
    source: &str,
    tree: &tree_sitter::Tree,
) -> Result<(), ParseError> {
    for (at, c) in source.match_indices(['\r', '\x0b', '\x0c']) {
        let node = tree.root_node().descendant_for_byte_range(at, at + 1);
        let inside = node.is_some_and(|n| n.child_count() == 0 || TEXT_NODES.contains(&n.kind()));
        if !inside {
            let (line, column) = line_column(source.as_bytes(), at);
            let construct = match c {
                "\r" => {
                    "a carriage return outside quotes, which bash takes as part of a word \
                         (a file with CR LF line ends? remove the CRs; quote one as $'\\r')"
                }
                "\x0b" => {
                    "a vertical tab outside quotes, which bash takes as part of a word \
                           (quote it as $'\\v')"
                }
                _ => {
                    "a form feed outside quotes, which bash takes as part of a word (quote it \
                      as $'\\f')"
                }
            };
            return Err(ParseError::Unsupported {
                construct: construct.to_owned(),
                line,
                column,
            });
        }
    }
    Ok(())
}

/// What the text tree-sitter parsed differs in from the source.
struct Repairs {
    /// Where `<>` was written as `>|`.
    read_write_ops: Vec<usize>,
    /// Where a pipeline led by the keyword `time` (hidden from tree-sitter) starts.
    times: Vec<(usize, TimeFormat)>,
    /// Where the blank after a lone assignment before redirections was written as `;` (see
    /// `lone_assignments_before_redirects`).
    lone_assignments: Vec<usize>,
}

/// tree-sitter-bash reads a here-document body line that starts with `\\` as words of the
/// command (`cat <<'E'` then `\\x /etc/hostname` ran `cat` on the file), and ends the body at
/// a line that only starts with the delimiter (`EOF ;`), or with a part of it (`<<"E"F` ends
/// at `E`), where bash ends it at the delimiter alone. A body line that starts with `\\` or
/// with the delimiter's first character starts with another letter instead for tree-sitter,
/// which then sees the body bash sees; the converter reads the body from the original text.
fn hide_heredoc_line_starts(body: &scan::HeredocBody, text: &mut [u8]) {
    let other = if body.delimiter.starts_with('x') {
        b'y'
    } else {
        b'x'
    };
    let mut line_start = body.start;
    while line_start < body.end {
        let line_end = text[line_start..body.end]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(body.end, |n| line_start + n);
        let first = text[line_start..line_end]
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .map(|n| line_start + n);
        if let Some(at) = first {
            let first = body.delimiter.as_bytes().first();
            if text[at] == b'\\' || first == Some(&text[at]) {
                text[at] = other;
            }
        }
        line_start = line_end + 1;
    }
}

/// Hides each `time [-p]` that has a command after it on its line behind blanks: tree-sitter
/// reads the keyword as a command name, and `time { …; }` or `time (…)` as a syntax error.
/// Returns where each timed pipeline now starts. (`time` alone stays a word; the converter
/// takes it for the keyword of an empty pipeline.)
fn hide_time_keywords(times: &[scan::TimeKeyword], text: &mut [u8]) -> Vec<(usize, TimeFormat)> {
    let mut starts = Vec::new();
    for time in times {
        let after = text[time.end..]
            .iter()
            .position(|b| *b != b' ' && *b != b'\t')
            .map(|n| time.end + n);
        let Some(mut after) = after.filter(|&at| !b"\n;&|)}#".contains(&text[at])) else {
            continue;
        };
        // `time ! cmd`: the negated pipeline starts at its command.
        if text[after] == b'!'
            && text
                .get(after + 1)
                .is_some_and(|b| *b == b' ' || *b == b'\t')
        {
            let blanks = text[after + 1..]
                .iter()
                .take_while(|b| **b == b' ' || **b == b'\t');
            after += 1 + blanks.count();
        }
        text[time.start..time.end].fill(b' ');
        let format = if time.posix {
            TimeFormat::Posix
        } else {
            TimeFormat::Default
        };
        starts.push((after, format));
    }
    starts
}

fn with_parser<R>(f: impl FnOnce(&mut tree_sitter::Parser) -> R) -> R {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let parser = slot.get_or_insert_with(|| {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .expect("the bundled bash grammar matches the tree-sitter version");
            parser
        });
        f(parser)
    })
}

pub(crate) fn parse_tree(source: &str) -> Result<tree_sitter::Tree, ParseError> {
    with_parser(|parser| parser.parse(source, None))
        .ok_or_else(|| ParseError::Input("the parser gave up on this input".to_string()))
}

/// tree-sitter-bash does not know the `<>` operator. Where an ERROR node is exactly the `>` of a
/// `<>`, rewrite the operator to `>|` (same length, so every offset stays valid), parse again, and
/// remember the offsets so the converter turns those `>|` back into `<>`.
fn parse_tree_repaired(source: &str) -> Result<(tree_sitter::Tree, Repairs), ParseError> {
    // tree-sitter-bash parses `[ … ]` with an expression grammar of its own that rejects
    // valid `test` arguments (`[ a $op b ]`, `[ = ]`); `[` is an ordinary command to bash.
    // Hide it behind a letter of the same length so it parses as one; the converter reads
    // words from the original text, so the command is still `[`.
    let scanned = scan::scan(source);
    if scanned.too_deep {
        return Err(ParseError::Input(format!(
            "nesting deeper than {MAX_DEPTH} levels"
        )));
    }
    if let Some(at) = scanned.continued_dollar {
        let (line, column) = line_column(source.as_bytes(), at);
        return Err(ParseError::Unsupported {
            construct: CONTINUED_DOLLAR.to_owned(),
            line,
            column,
        });
    }
    let mut text = source.as_bytes().to_vec();
    for &at in &scanned.brackets {
        text[at] = b'x';
    }
    // A `$` that starts no expansion is text to bash but an error to tree-sitter.
    for &at in &scanned.lone_dollars {
        text[at] = b'_';
    }
    // The converter reads words from the original text, where the blank is still escaped.
    for &at in &scanned.escaped_blanks {
        text[at] = b'_';
    }
    // Arithmetic text is evaluated by rsh from the original source; tree-sitter only needs
    // its extent, so it gets a harmless `0` padded with blanks instead.
    for &(start, end) in &scanned.arithmetic {
        if start < end {
            text[start] = b'0';
            text[start + 1..end].fill(b' ');
        }
    }
    for body in &scanned.heredoc_bodies {
        hide_heredoc_line_starts(body, &mut text);
    }
    let times = hide_time_keywords(&scanned.times, &mut text);
    let mut tree = parse_tree(as_text(&text))?;
    let mut lone_assignments = Vec::new();
    for _ in 0..MAX_REDIRECT_REPAIRS {
        let breaks = redirect_line_breaks(&tree, &text)?;
        let lone = lone_assignments_before_redirects(&tree, &text);
        if breaks.is_empty() && lone.is_empty() {
            break;
        }
        for &at in breaks.iter().chain(&lone) {
            text[at] = b';';
        }
        lone_assignments.extend(lone);
        tree = parse_tree(as_text(&text))?;
    }
    let repairs = |read_write_ops| Repairs {
        read_write_ops,
        times,
        lone_assignments,
    };
    if !tree.root_node().has_error() {
        return Ok((tree, repairs(Vec::new())));
    }
    let read_write_ops = read_write_operators(&tree, as_text(&text));
    if read_write_ops.is_empty() {
        return match convert::first_syntax_error(&tree, source) {
            Some(err) => Err(err),
            None => Ok((tree, repairs(read_write_ops))),
        };
    }
    for &at in &read_write_ops {
        text[at] = b'>';
        text[at + 1] = b'|';
    }
    let tree = parse_tree(as_text(&text))?;
    match convert::first_syntax_error(&tree, source) {
        Some(err) => Err(err),
        None => Ok((tree, repairs(read_write_ops))),
    }
}

/// The patched text: only ASCII bytes were replaced by ASCII bytes, so it is still UTF-8.
fn as_text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("ASCII-for-ASCII replacement keeps UTF-8")
}

/// What rsh refuses where a `$` is followed by a line continuation.
const CONTINUED_DOLLAR: &str = "a `$` followed by a line continuation (bash expands it with the \
                                next line's first character; write the expansion on one line)";

/// How many rounds of [`redirect_line_breaks`] repair a parse gets before it is taken as is.
const MAX_REDIRECT_REPAIRS: usize = 8;

/// tree-sitter-bash lets a redirection take several target words (`cmd >f arg` is
/// `cmd arg >f` to bash), and in some parse states it reads on across a line break:
/// `a | b >>f` followed by a line `echo x` became `b echo x >>f`. Returns, for each
/// redirection whose targets span an unescaped line break, the offset of the blank that ends
/// its first target, where a `;` (same length, same meaning at that point) makes the line end
/// a command again.
fn redirect_line_breaks(tree: &tree_sitter::Tree, text: &[u8]) -> Result<Vec<usize>, ParseError> {
    let mut found = Vec::new();
    if !text.contains(&b'\n') {
        return Ok(found);
    }
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "file_redirect" {
            let mut cursor = node.walk();
            let targets: Vec<_> = node
                .children_by_field_name("destination", &mut cursor)
                .collect();
            for pair in targets.windows(2) {
                let gap = (pair[0].end_byte(), pair[1].start_byte());
                if !has_line_break(&text[gap.0..gap.1]) {
                    continue;
                }
                if !matches!(text[gap.0], b' ' | b'\t' | b'\n') {
                    let (line, column) = line_column(text, gap.0);
                    return Err(ParseError::Syntax {
                        line,
                        column,
                        message: "cannot tell where this redirection ends".to_string(),
                    });
                }
                found.push(gap.0);
                break;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    Ok(found)
}

/// tree-sitter-bash cannot end a command of one assignment and redirections (`x=$(cmd)
/// 2>/dev/null`): it reads on into the next command, across `;`, `&&` or `|` (an error) or a
/// line break (one command `x=… echo next` with the redirections). Returns, for each such
/// command, the offset of the blank after the assignment, where a `;` makes tree-sitter read
/// the assignment and the redirections as two statements, which the converter joins again
/// (`statements_of`).
fn lone_assignments_before_redirects(tree: &tree_sitter::Tree, text: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<_> = node.children(&mut cursor).collect();
        if node.kind() == "command"
            && let Some(at) = lone_assignment_end(&children, text)
        {
            found.push(at);
        }
        stack.extend(children);
    }
    found
}

/// See `lone_assignments_before_redirects`: `children` of a command node.
fn lone_assignment_end(children: &[tree_sitter::Node], text: &[u8]) -> Option<usize> {
    let (first, rest) = children.split_first()?;
    if first.kind() != "variable_assignment" {
        return None;
    }
    let redirects = rest
        .iter()
        .take_while(|c| c.kind().ends_with("_redirect"))
        .count();
    let (last_redirect, next) = (rest.get(redirects.checked_sub(1)?)?, rest.get(redirects)?);
    let ends = match next.kind() {
        "ERROR" => matches!(text.get(next.start_byte()), Some(b';' | b'&' | b'|')),
        "command_name" => has_line_break(&text[last_redirect.end_byte()..next.start_byte()]),
        _ => false,
    };
    let at = first.end_byte();
    (ends && matches!(text.get(at), Some(b' ' | b'\t'))).then_some(at)
}

/// A line break that ends a line: not escaped by a backslash.
fn has_line_break(gap: &[u8]) -> bool {
    gap.iter()
        .enumerate()
        .any(|(i, &b)| b == b'\n' && (i == 0 || gap[i - 1] != b'\\'))
}

/// Offsets of `<>` operators that tree-sitter reported as an ERROR holding the `>`.
fn read_write_operators(tree: &tree_sitter::Tree, source: &str) -> Vec<usize> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() {
            // Seen both as an ERROR holding the `>` and as one holding the `<`.
            let start = node.start_byte();
            if node.end_byte() == start + 1 {
                let op_start = match bytes[start] {
                    b'>' if start > 0 && bytes[start - 1] == b'<' => Some(start - 1),
                    b'<' if bytes.get(start + 1) == Some(&b'>') => Some(start),
                    _ => None,
                };
                found.extend(op_start);
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    found.sort_unstable();
    found
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(source: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Whether `source` is an unfinished command that more lines could complete (an open quote,
/// `if` without `fi`, a here-document without its end, a trailing `|`), as opposed to a
/// syntax error that no further input can fix. Used when reading line by line.
pub fn needs_more_input(source: &str) -> bool {
    let Ok(tree) = parse_tree(source) else {
        return false;
    };
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        // tree-sitter's recovery also puts in missing pieces where rsh's reading finds
        // nothing missing (`(( $(sleep 1)0 == 0 ))`): such a line is complete.
        if node.is_missing() {
            return parse(source).is_err();
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    // Also without any error: tree-sitter accepts a here-document whose end line has not
    // arrived yet. The lexical scan knows what is still open.
    scan::scan(source).open_at_end
}

#[cfg(test)]
mod tests;
