//! Parsing: tree-sitter-bash text → rsh's own syntax tree (`ast`).
//!
//! A tree with ERROR or MISSING nodes is a syntax error and nothing of the line runs; a construct
//! outside the supported subset is an `Unsupported` error naming the construct and its position.
//! Parsing never panics and is bounded: NUL bytes, invalid UTF-8, huge inputs and deep nesting
//! all end in a clear error. This module knows nothing about expansion or execution.

pub mod ast;
mod convert;
mod word;

use std::cell::RefCell;
use std::fmt;

pub use ast::*;

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
    match std::str::from_utf8(source) {
        Ok(text) => parse(text),
        Err(err) => {
            let (line, column) = line_column(&source[..err.valid_up_to()], err.valid_up_to());
            Err(ParseError::Input(format!(
                "input is not valid UTF-8 at {line}:{column}"
            )))
        }
    }
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
    let (tree, patched) = parse_tree_repaired(source)?;
    convert::Converter::new(source, &tree, &patched, depth).program(tree.root_node())
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
fn parse_tree_repaired(source: &str) -> Result<(tree_sitter::Tree, Vec<usize>), ParseError> {
    let tree = parse_tree(source)?;
    if !tree.root_node().has_error() {
        return Ok((tree, Vec::new()));
    }
    let read_write_ops = read_write_operators(&tree, source);
    if read_write_ops.is_empty() {
        return match convert::first_syntax_error(&tree, source) {
            Some(err) => Err(err),
            None => Ok((tree, read_write_ops)),
        };
    }
    let mut text = source.as_bytes().to_vec();
    for &at in &read_write_ops {
        text[at] = b'>';
        text[at + 1] = b'|';
    }
    // Only ASCII bytes were replaced by ASCII bytes, so this is still UTF-8.
    let patched = String::from_utf8(text).expect("ASCII-for-ASCII replacement keeps UTF-8");
    let tree = parse_tree(&patched)?;
    match convert::first_syntax_error(&tree, &patched) {
        Some(err) => Err(err),
        None => Ok((tree, read_write_ops)),
    }
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
    let root = tree.root_node();
    if !root.has_error() {
        return false;
    }
    let end = source.trim_end().len();
    let mut stack = vec![root];
    let mut error_at_end = false;
    while let Some(node) = stack.pop() {
        if node.is_missing() {
            return true;
        }
        if node.is_error() && node.end_byte() >= end {
            error_at_end = true;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    error_at_end && open_constructs(source)
}

/// A rough scan for constructs left open at the end of the text: quotes, a trailing
/// backslash, unclosed `(`/`{`, here-documents without their end line, and compound commands
/// without their closing keyword.
fn open_constructs(source: &str) -> bool {
    let bytes = source.as_bytes();
    let mut single = false;
    let mut double = false;
    let mut depth: i64 = 0;
    let mut blocks: i64 = 0;
    let mut word = String::new();
    let mut command_position = true;
    // Delimiters of here-documents whose bodies start at the next newline.
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if single {
            single = c != b'\'';
            i += 1;
            continue;
        }
        if c == b'\\' {
            if i + 1 >= bytes.len() || (bytes[i + 1] == b'\n' && i + 2 >= bytes.len()) {
                return true;
            }
            i += 2;
            continue;
        }
        if double {
            double = c != b'"';
            i += 1;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            word.push(c as char);
            i += 1;
            continue;
        }
        if !word.is_empty() {
            blocks += keyword_weight(&word, command_position);
            command_position = matches!(
                word.as_str(),
                "then" | "do" | "else" | "elif" | "if" | "while" | "until"
            );
            word.clear();
        }
        match c {
            b'\'' => single = true,
            b'"' => double = true,
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth -= 1,
            b'<' if bytes.get(i + 1) == Some(&b'<') && bytes.get(i + 2) != Some(&b'<') => {
                let (delimiter, strip, next) = heredoc_delimiter(source, i + 2);
                heredocs.push((delimiter, strip));
                i = next;
                continue;
            }
            b'\n' if !heredocs.is_empty() => match skip_heredoc_bodies(source, i + 1, &heredocs) {
                Some(next) => {
                    heredocs.clear();
                    i = next;
                    command_position = true;
                    continue;
                }
                None => return true,
            },
            _ => {}
        }
        if matches!(c, b';' | b'&' | b'|' | b'(' | b'{' | b'\n' | b'!') {
            command_position = true;
        } else if !c.is_ascii_whitespace() {
            command_position = false;
        }
        i += 1;
    }
    if !word.is_empty() {
        blocks += keyword_weight(&word, command_position);
    }
    single || double || depth > 0 || blocks > 0 || !heredocs.is_empty()
}

/// The delimiter after `<<` at `from` (quotes removed), whether it is `<<-`, and where it ends.
fn heredoc_delimiter(source: &str, from: usize) -> (String, bool, usize) {
    let bytes = source.as_bytes();
    let mut i = from;
    let strip = bytes.get(i) == Some(&b'-');
    if strip {
        i += 1;
    }
    while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    let mut delimiter = String::new();
    while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !b";|&<>()".contains(&bytes[i]) {
        if !matches!(bytes[i], b'\'' | b'"' | b'\\') {
            delimiter.push(bytes[i] as char);
        }
        i += 1;
    }
    (delimiter, strip, i)
}

/// Skips here-document bodies starting at `from`; None when a delimiter line is missing.
fn skip_heredoc_bodies(source: &str, from: usize, heredocs: &[(String, bool)]) -> Option<usize> {
    let mut pos = from;
    for (delimiter, strip) in heredocs {
        loop {
            if pos >= source.len() {
                return None;
            }
            let end = source[pos..].find('\n').map_or(source.len(), |n| pos + n);
            let line = &source[pos..end];
            let line = if *strip {
                line.trim_start_matches('\t')
            } else {
                line
            };
            pos = (end + 1).min(source.len() + 1);
            if line == delimiter {
                break;
            }
            if end >= source.len() {
                return None;
            }
        }
    }
    Some(pos.min(source.len()))
}

fn keyword_weight(word: &str, command_position: bool) -> i64 {
    if !command_position {
        return 0;
    }
    match word {
        "if" | "case" | "for" | "while" | "until" | "select" => 1,
        "fi" | "esac" | "done" => -1,
        _ => 0,
    }
}
