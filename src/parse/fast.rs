//! The simplest lines, read without tree-sitter: one line of commands with arguments, quotes,
//! `$name`/`${name…}`, unquoted backquotes, pipes, `&&`, `||`, `;` and redirections after the
//! words. That is most of what people and agents type, and tree-sitter-bash costs about 30 µs
//! for any line, a hand-written reader of this subset about one.
//!
//! This is not a second grammar: it only finds where words and operators are, and answers
//! "not mine" (`None`) for anything it is not sure of, which then goes to tree-sitter. Each
//! word is lexed by the same code as on the tree-sitter path (`Converter::word`), and the tree
//! it builds must be exactly the tree the tree-sitter path builds for the same line, spans
//! included: the tests compare the two over the corpus, the compat cases and generated lines.

use super::ast::*;
use super::convert::{Converter, stderr_to_stdout};

/// Longer lines go to tree-sitter: they are rarely simple, and the saving does not matter.
const MAX_LINE: usize = 4096;

/// Words that mean something else in command position (keywords, `[[`, declarations that
/// tree-sitter reads as their own node kind): such lines are not simple.
const NOT_A_COMMAND_NAME: &[&str] = &[
    "!", "{", "}", "[[", "]]", "if", "then", "else", "elif", "fi", "for", "while", "until", "do",
    "done", "case", "esac", "in", "function", "select", "time", "coproc", "declare", "typeset",
    "export", "local", "readonly", "unset",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Word {
        start: usize,
        end: usize,
    },
    Pipe {
        start: usize,
        end: usize,
        stderr: bool,
    },
    And,
    Or,
    Semicolon,
    Redirect(RedirectToken),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RedirectToken {
    fd: Option<i32>,
    op: RedirOp,
    /// Where the redirection starts: its descriptor digits, else its operator.
    start: usize,
    /// `<&-` / `>&-`: the operator closes the descriptor; the `-` is at `op_end - 1`.
    close: bool,
    op_end: usize,
}

/// The program for `source` when it is a simple line, else None.
pub(super) fn program(source: &str, depth: usize) -> Option<Program> {
    if source.len() > MAX_LINE || depth > super::MAX_DEPTH / 2 {
        return None;
    }
    // tree-sitter-bash joins `` `a` `b` `` into one word where bash makes two: one
    // substitution per line at most.
    if source.bytes().filter(|&b| b == b'`').count() > 2 {
        return None;
    }
    let tokens = tokens(source.as_bytes())?;
    let mut builder = Builder {
        tokens: &tokens,
        next: 0,
        converter: Converter::new(source, None, &[], depth),
    };
    let body = builder.list()?;
    let line_starts = if body.is_empty() { Vec::new() } else { vec![0] };
    Some(Program { body, line_starts })
}

// ----- tokens -------------------------------------------------------------------------------

fn tokens(src: &[u8]) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        match c {
            b' ' | b'\t' => i += 1,
            b'|' | b'&' | b';' | b'<' | b'>' => {
                if matches!(c, b'<' | b'>' | b'&') && digit_before(src, i, &out) {
                    return None;
                }
                i = operator(src, i, &mut out)?;
            }
            // `==`, `=~` are test operators to tree-sitter-bash, wherever they stand.
            b'=' => return None,
            _ => match descriptor_end(src, i) {
                Some(end) => i = redirect_with_descriptor(src, i, end, &mut out)?,
                None => {
                    let end = word_end(src, i)?;
                    out.push(Token::Word { start: i, end });
                    i = end;
                }
            },
        }
    }
    Some(out)
}

/// A word ending in a digit written right against a redirection (`head -200>f`, `-l2>>f`):
/// tree-sitter-bash takes part of it for the descriptor, bash all of it for an argument.
fn digit_before(src: &[u8], at: usize, out: &[Token]) -> bool {
    matches!(out.last(), Some(Token::Word { end, .. }) if *end == at && src[at - 1].is_ascii_digit())
}

/// Digits written right against `<` or `>` are that redirection's descriptor: where they end.
fn descriptor_end(src: &[u8], start: usize) -> Option<usize> {
    let end = start
        + src[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    (end > start && matches!(src.get(end), Some(b'<' | b'>'))).then_some(end)
}

/// Reads the redirection whose descriptor is `src[start..end]`; returns where it ends.
fn redirect_with_descriptor(
    src: &[u8],
    start: usize,
    end: usize,
    out: &mut Vec<Token>,
) -> Option<usize> {
    let fd = std::str::from_utf8(&src[start..end]).ok()?.parse().ok()?;
    let next = operator(src, end, out)?;
    match out.last_mut() {
        // `0<&-`: tree-sitter-bash reads the digits as an argument first.
        Some(Token::Redirect(r)) if r.start == end && r.fd.is_none() && !r.close => {
            r.fd = Some(fd);
            r.start = start;
            Some(next)
        }
        _ => None,
    }
}

/// Reads the operator at `i`, pushes its token, and returns where it ends.
fn operator(src: &[u8], i: usize, out: &mut Vec<Token>) -> Option<usize> {
    let rest = &src[i..];
    let (token, len) = if rest.starts_with(b"&&") {
        (Token::And, 2)
    } else if rest.starts_with(b"||") {
        (Token::Or, 2)
    } else if rest.starts_with(b"|&") {
        (pipe(i, 2, true), 2)
    } else if rest.starts_with(b"|") {
        (pipe(i, 1, false), 1)
    } else if rest.starts_with(b";;") || rest.starts_with(b";&") {
        return None;
    } else if rest.starts_with(b";") {
        (Token::Semicolon, 1)
    } else {
        let (op, len, close) = redirect_operator(rest)?;
        let token = RedirectToken {
            fd: None,
            op,
            start: i,
            close,
            op_end: i + len,
        };
        (Token::Redirect(token), len)
    };
    out.push(token);
    Some(i + len)
}

fn pipe(start: usize, len: usize, stderr: bool) -> Token {
    Token::Pipe {
        start,
        end: start + len,
        stderr,
    }
}

/// The redirection operators of simple lines; here-documents, here-strings, `<>` and process
/// substitution are left to tree-sitter.
fn redirect_operator(rest: &[u8]) -> Option<(RedirOp, usize, bool)> {
    const OPERATORS: &[(&[u8], RedirOp, bool)] = &[
        (b"&>>", RedirOp::AppendBoth, false),
        (b"&>", RedirOp::WriteBoth, false),
        (b">&-", RedirOp::DupWrite, true),
        (b"<&-", RedirOp::DupRead, true),
        (b">>", RedirOp::Append, false),
        (b">|", RedirOp::Clobber, false),
        (b">&", RedirOp::DupWrite, false),
        (b"<&", RedirOp::DupRead, false),
        (b">", RedirOp::Write, false),
        (b"<", RedirOp::Read, false),
    ];
    if rest.starts_with(b"<<") || rest.starts_with(b"<>") || rest.starts_with(b"<(") {
        return None;
    }
    if rest.starts_with(b">(") {
        return None;
    }
    let (text, op, close) = OPERATORS.iter().find(|(text, ..)| rest.starts_with(text))?;
    // `>&-x` is not a close; leave such spellings to tree-sitter.
    if *close
        && !matches!(
            rest.get(text.len()),
            None | Some(b' ' | b'\t' | b';' | b'|' | b'&')
        )
    {
        return None;
    }
    Some((*op, text.len(), *close))
}

/// Where the word starting at `start` ends, or None if it holds anything beyond the subset.
fn word_end(src: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    // Unquoted braces must pair up inside the word: tree-sitter-bash joins `{ }` into one
    // word and reads a lone `{` or `}` as a group.
    let mut braces = 0usize;
    while i < src.len() {
        match src[i] {
            b' ' | b'\t' | b'|' | b'&' | b';' | b'<' | b'>' => break,
            b'{' => {
                braces += 1;
                i += 1;
            }
            b'}' => {
                braces = braces.checked_sub(1)?;
                i += 1;
            }
            // A bracket expression of a glob, closed inside the word with plain characters
            // (tree-sitter-bash reads other brackets as subscripts or tests).
            b'[' => {
                let close = i + 1 + src[i + 1..].iter().position(|&b| b == b']')?;
                let plain = src[i + 1..close].iter().all(|&b| {
                    b.is_ascii_alphanumeric()
                        || matches!(b, b'-' | b'!' | b'^' | b':' | b'_' | b'.')
                });
                if !plain {
                    return None;
                }
                i = close + 1;
            }
            b']' => return None,
            b'(' | b')' | b'#' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => return None,
            b'\\' => {
                // An escaped character is text; a trailing backslash continues the line.
                // tree-sitter-bash drops an escaped blank (bash keeps it as an argument),
                // so those lines are left to that path, which has its own tests.
                let next = *src.get(i + 1)?;
                if is_control(next) || next == b' ' || next == b'\t' {
                    return None;
                }
                i += 2;
            }
            b'\'' => i = closing(src, i + 1, b'\'')? + 1,
            b'"' => i = double_quoted_end(src, i + 1)?,
            b'`' => i = backquote_end(src, i + 1)?,
            b'$' => i = dollar_end(src, i)?,
            c if is_control(c) => return None,
            _ => i += 1,
        }
    }
    (i > start && braces == 0).then_some(i)
}

fn is_control(c: u8) -> bool {
    (c < 0x20 && c != b'\t') || c == 0x7f
}

/// The offset of the next `close` byte from `from`, with nothing but plain text before it.
fn closing(src: &[u8], from: usize, close: u8) -> Option<usize> {
    let at = from + src[from..].iter().position(|&b| b == close)?;
    (!src[from..at].iter().any(|&b| is_control(b) && b != b'\t')).then_some(at)
}

/// After the closing `"` of a string whose body starts at `from`.
fn double_quoted_end(src: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        match *src.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => {
                if is_control(*src.get(i + 1)?) {
                    return None;
                }
                i += 2;
            }
            // Inside quotes only `${…}` is more than text; `$'` and `$"` are not special.
            b'$' if src.get(i + 1) == Some(&b'{') => i = dollar_end(src, i)?,
            b'$' if matches!(src.get(i + 1), Some(b'(' | b'[')) => return None,
            b'`' | b'(' | b')' => return None,
            c if is_control(c) => return None,
            _ => i += 1,
        }
    }
}

/// After the closing backquote of a command substitution whose body starts at `from`. Only
/// bodies without quotes, escapes or nested expansions of their own: what `$` means inside
/// them is decided when the body is parsed, by the same two paths.
fn backquote_end(src: &[u8], from: usize) -> Option<usize> {
    let at = closing(src, from, b'`')?;
    let plain = !src[from..at]
        .iter()
        .any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'(' | b')' | b'#' | b'{' | b'}'));
    (plain && at > from).then_some(at + 1)
}

/// After a `$…` starting at `at`: `$name`, `$1`, `$@`…, `${…}` without quotes or nesting,
/// `$'…'`, `$"…"`, or a `$` that is text. `$(`, `$((` and `$[` are not simple.
fn dollar_end(src: &[u8], at: usize) -> Option<usize> {
    match src.get(at + 1) {
        Some(b'(' | b'[') => None,
        Some(b'{') => {
            let close = closing(src, at + 2, b'}')?;
            let body = &src[at + 2..close];
            let plain = body.iter().all(|&b| {
                b.is_ascii_alphanumeric()
                    || matches!(
                        b,
                        b'_' | b':'
                            | b'-'
                            | b'+'
                            | b'='
                            | b'?'
                            | b'%'
                            | b'/'
                            | b'.'
                            | b','
                            | b'@'
                            | b'*'
                    )
            });
            (plain && !body.is_empty()).then_some(close + 1)
        }
        Some(b'\'') => {
            let mut i = at + 2;
            loop {
                match *src.get(i)? {
                    b'\'' => return Some(i + 1),
                    b'\\' => i += 2,
                    c if is_control(c) => return None,
                    _ => i += 1,
                }
            }
        }
        Some(b'"') => double_quoted_end(src, at + 2),
        _ => Some(at + 1),
    }
}

// ----- the tree -----------------------------------------------------------------------------

struct Builder<'t, 'a> {
    tokens: &'t [Token],
    next: usize,
    converter: Converter<'a>,
}

impl Builder<'_, '_> {
    fn peek(&self) -> Option<Token> {
        self.tokens.get(self.next).copied()
    }

    /// `a; b && c | d; …` — statements separated by `;`, an optional `;` at the end.
    fn list(&mut self) -> Option<List> {
        let mut list = Vec::new();
        while self.peek().is_some() {
            list.push(self.and_or()?);
            match self.peek() {
                None => break,
                Some(Token::Semicolon) => self.next += 1,
                Some(_) => return None,
            }
        }
        Some(list)
    }

    fn and_or(&mut self) -> Option<AndOr> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            let connector = match self.peek() {
                Some(Token::And) => Connector::And,
                Some(Token::Or) => Connector::Or,
                _ => break,
            };
            self.next += 1;
            rest.push((connector, self.pipeline()?));
        }
        Some(AndOr { first, rest })
    }

    fn pipeline(&mut self) -> Option<Pipeline> {
        let mut commands = vec![self.command()?];
        while let Some(Token::Pipe { start, end, stderr }) = self.peek() {
            self.next += 1;
            if stderr {
                let last = commands.last_mut().expect("a pipeline has a first command");
                last.redirects.push(stderr_to_stdout(Span { start, end }));
            }
            commands.push(self.command()?);
        }
        let span = Span {
            start: commands.first()?.span.start,
            end: commands.last()?.span.end,
        };
        Some(Pipeline {
            negated: false,
            timed: None,
            commands: commands.into_iter().map(Command::Simple).collect(),
            span,
        })
    }

    /// Words, then redirections, each with one target word.
    fn command(&mut self) -> Option<SimpleCommand> {
        let mut words = Vec::new();
        while let Some(Token::Word { start, end }) = self.peek() {
            if words.is_empty() && !command_name(&self.converter.src[start..end]) {
                return None;
            }
            words.push(self.converter.word(start, end).ok()?);
            self.next += 1;
        }
        let first = words.first()?.span;
        let last = words.last()?.span;
        let mut redirects = Vec::new();
        while let Some(Token::Redirect(token)) = self.peek() {
            self.next += 1;
            if token.fd.is_some() && self.converter.src[last.start..last.end] == *"-" {
                // tree-sitter-bash drops that `-` (`skipped_words` puts it back).
                return None;
            }
            let redirect = self.redirect(token)?;
            // `<in>out`: tree-sitter-bash reads the second operator into the first target.
            let glued = matches!(self.peek(), Some(Token::Redirect(next)) if next.start == redirect.span.end);
            if glued {
                return None;
            }
            redirects.push(redirect);
        }
        if matches!(self.peek(), Some(Token::Word { .. })) {
            return None;
        }
        // `{fd}>file`: refused on the other path.
        if redirects
            .first()
            .is_some_and(|r| self.converter.names_descriptor(last, r))
        {
            return None;
        }
        Some(SimpleCommand {
            assignments: Vec::new(),
            words,
            redirects,
            span: Span {
                start: first.start,
                end: last.end,
            },
            line: 1,
            source: std::rc::Rc::clone(&self.converter.source),
        })
    }

    fn redirect(&mut self, token: RedirectToken) -> Option<Redirect> {
        let target = if token.close {
            let dash = Span {
                start: token.op_end - 1,
                end: token.op_end,
            };
            Word::literal("-", dash)
        } else {
            let Some(Token::Word { start, end }) = self.peek() else {
                return None;
            };
            let text = &self.converter.src[start..end];
            let duplicate = matches!(token.op, RedirOp::DupRead | RedirOp::DupWrite);
            if !plain_target(text) || duplicate && !text.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            self.next += 1;
            self.converter.word(start, end).ok()?
        };
        Some(Redirect {
            fd: token.fd,
            op: token.op,
            span: Span {
                start: token.start,
                end: target.span.end,
            },
            written: self.converter.written(&target),
            target,
        })
    }
}

/// A word that may name a simple command: plain characters, escapes and quotes. Keywords,
/// assignments (`a=1 cmd`), `[`, braces and the like are left to tree-sitter, whose grammar
/// reads several of them in ways of its own (`ls%` is an error to it, `1a` a descriptor,
/// `- -l=x` an assignment).
fn command_name(text: &str) -> bool {
    let keyword_prefix = NOT_A_COMMAND_NAME.iter().any(|keyword| {
        text.strip_prefix(keyword)
            .is_some_and(|rest| !rest.starts_with(|c: char| c == '_' || c.is_ascii_alphanumeric()))
    });
    !keyword_prefix
        && !text.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
        && text.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(b, b'_' | b'.' | b'/' | b'-' | b'+' | b'\\' | b'\'' | b'"')
        })
}

/// A redirection target tree-sitter-bash reads as one word: a quoted string, or plain
/// characters and `$name`. (Its grammar splits targets at globs, braces, `=`, backquotes and
/// quotes that follow other text.)
fn plain_target(text: &str) -> bool {
    let bytes = text.as_bytes();
    let quoted = bytes.len() >= 2
        && matches!(bytes[0], b'\'' | b'"')
        && bytes[bytes.len() - 1] == bytes[0]
        && !bytes[1..bytes.len() - 1].contains(&bytes[0]);
    let names_after_dollars =
        bytes.iter().enumerate().filter(|&(_, &b)| b == b'$').all(
            |(i, _)| matches!(bytes.get(i + 1), Some(c) if c.is_ascii_alphabetic() || *c == b'_'),
        );
    quoted
        || names_after_dollars
            && bytes.iter().all(|&b| {
                b.is_ascii_alphanumeric()
                    || matches!(
                        b,
                        b'_' | b'.' | b'/' | b'~' | b'+' | b',' | b':' | b'@' | b'%' | b'-' | b'$'
                    )
            })
}

#[cfg(test)]
#[path = "fast_tests.rs"]
mod tests;
