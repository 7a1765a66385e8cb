//! Lexing a word's source text into `WordPart`s: quotes, escapes, `$'…'`, `$var`, `${…}`,
//! `$(…)`, `$((…))`, `<(…)`, `>(…)` and backticks.
//!
//! tree-sitter decides where words begin and end and where `$(…)` / `$((…))` end (their nodes are
//! looked up by offset); everything inside a word is lexed here, one set of rules for every
//! context (arguments, redirect targets, here-document bodies, parameter operands, arithmetic).
//! Backtick bodies are un-escaped and parsed again, as bash does.

use std::rc::Rc;

use tree_sitter::Node;

use super::ParseError;
use super::ast::*;
use super::convert::Converter;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// An ordinary word, or a parameter-expansion operand.
    Unquoted,
    /// Inside `"…"`.
    Double,
    /// An unquoted here-document body: like `"…"` but `"` is an ordinary character.
    HereDoc { strip_tabs: bool },
    /// The text of `$((…))`, `((…))` and `for ((…))`: expansions apply, double quotes vanish.
    Arith,
}

/// Characters that end a parameter-expansion operand when not nested or quoted.
#[derive(Clone, Copy, Default)]
struct Stops {
    close_brace: bool,
    slash: bool,
    colon: bool,
}

impl<'a> Converter<'a> {
    /// The word whose source text is `src[start..end]`.
    pub(super) fn word(&mut self, start: usize, end: usize) -> Result<Word, ParseError> {
        let mut pos = start;
        let parts = self.lex(&mut pos, end, Mode::Unquoted, Stops::default(), false)?;
        Ok(Word {
            parts,
            span: Span { start, end },
        })
    }

    pub(super) fn heredoc_body(
        &mut self,
        start: usize,
        end: usize,
        quoted: bool,
        strip_tabs: bool,
    ) -> Result<Word, ParseError> {
        let span = Span { start, end };
        if quoted {
            let text = &self.src[start..end];
            let text = if strip_tabs {
                strip_leading_tabs(text)
            } else {
                text.to_string()
            };
            return Ok(Word {
                parts: vec![WordPart::Quoted(text)],
                span,
            });
        }
        let mut pos = start;
        let parts = self.lex(
            &mut pos,
            end,
            Mode::HereDoc { strip_tabs },
            Stops::default(),
            false,
        )?;
        Ok(Word { parts, span })
    }

    /// Arithmetic text between `start` and `end`.
    pub(super) fn arith_text(&mut self, start: usize, end: usize) -> Result<Word, ParseError> {
        let mut pos = start;
        let parts = self.lex(&mut pos, end, Mode::Arith, Stops::default(), false)?;
        Ok(Word {
            parts,
            span: Span { start, end },
        })
    }

    fn char_at(&self, pos: usize) -> Option<char> {
        self.src[pos..].chars().next()
    }

    /// Lexes from `*pos` up to `end`, a closing `"` (in `Double` mode) or a stop character.
    /// `in_double`: a parameter operand inside `"…"`, where single quotes are ordinary.
    fn lex(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
        stops: Stops,
        in_double: bool,
    ) -> Result<Vec<WordPart>, ParseError> {
        self.enter(*pos)?;
        let result = self.lex_inner(pos, end, mode, stops, in_double);
        self.leave();
        result
    }

    fn lex_inner(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
        stops: Stops,
        in_double: bool,
    ) -> Result<Vec<WordPart>, ParseError> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut brace_depth = 0usize;
        let start = *pos;
        while *pos < end {
            if let Mode::HereDoc { strip_tabs: true } = mode {
                if *pos == start || self.src.as_bytes()[*pos - 1] == b'\n' {
                    while *pos < end && self.src.as_bytes()[*pos] == b'\t' {
                        *pos += 1;
                    }
                    if *pos >= end {
                        break;
                    }
                }
            }
            let c = self.char_at(*pos).expect("pos is inside the source");
            if brace_depth == 0
                && ((c == '}' && stops.close_brace)
                    || (c == '/' && stops.slash)
                    || (c == ':' && stops.colon))
            {
                break;
            }
            match c {
                '\\' => self.backslash(pos, end, mode, in_double, &mut text, &mut parts),
                '\'' if mode == Mode::Unquoted && !in_double => {
                    flush(&mut text, &mut parts, mode);
                    parts.push(WordPart::Quoted(self.single_quoted(pos, end)?));
                }
                '\'' if mode == Mode::Unquoted => {
                    // `"${x-'a}b $v'}"`: inside double quotes the single quotes stay in the
                    // value and hide braces, but what they enclose is still expanded.
                    flush(&mut text, &mut parts, mode);
                    let open = *pos;
                    let close = self.src[open + 1..end]
                        .find('\'')
                        .map(|n| open + 1 + n)
                        .ok_or_else(|| self.syntax("unterminated single quote", open))?;
                    let mut inner = open + 1;
                    let body = self.lex(
                        &mut inner,
                        close,
                        Mode::HereDoc { strip_tabs: false },
                        Stops::default(),
                        false,
                    )?;
                    parts.push(WordPart::Quoted("'".to_string()));
                    parts.extend(body);
                    parts.push(WordPart::Quoted("'".to_string()));
                    *pos = close + 1;
                }
                '"' if mode == Mode::Unquoted => {
                    flush(&mut text, &mut parts, mode);
                    parts.push(WordPart::DoubleQuoted(self.double_quoted(pos, end)?));
                }
                '<' | '>'
                    if mode == Mode::Unquoted
                        && !in_double
                        && self.src[*pos + 1..].starts_with('(') =>
                {
                    match self.process_substitution(pos, end)? {
                        Some(part) => {
                            flush(&mut text, &mut parts, mode);
                            parts.push(part);
                        }
                        // In `${s%<(x)}` it is part of a pattern.
                        None => {
                            text.push(c);
                            *pos += 1;
                        }
                    }
                }
                '"' if mode == Mode::Double => break,
                '"' if mode == Mode::Arith => *pos += 1,
                '$' => self.dollar(pos, end, mode, in_double, &mut text, &mut parts)?,
                '`' => {
                    flush(&mut text, &mut parts, mode);
                    parts.push(self.backtick(pos, end, mode)?);
                }
                '{' if mode == Mode::Unquoted && stops.close_brace => {
                    brace_depth += 1;
                    text.push(c);
                    *pos += 1;
                }
                '}' if mode == Mode::Unquoted && brace_depth > 0 => {
                    brace_depth -= 1;
                    text.push(c);
                    *pos += 1;
                }
                _ => {
                    text.push(c);
                    *pos += c.len_utf8();
                }
            }
        }
        flush(&mut text, &mut parts, mode);
        Ok(parts)
    }

    /// `in_double`: a parameter operand inside `"…"`, where a backslash only escapes what it
    /// escapes in double quotes (and `}`).
    fn backslash(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
        in_double: bool,
        text: &mut String,
        parts: &mut Vec<WordPart>,
    ) {
        let next = if *pos + 1 < end {
            self.char_at(*pos + 1)
        } else {
            None
        };
        let Some(next) = next else {
            // A lone trailing backslash is itself.
            text.push('\\');
            *pos += 1;
            return;
        };
        if next == '\n' {
            // Line continuation vanishes in every context but a quoted here-document.
            *pos += 2;
            return;
        }
        let escapable = match mode {
            Mode::Unquoted if in_double => matches!(next, '$' | '`' | '"' | '\\' | '}'),
            Mode::Unquoted => true,
            Mode::Double | Mode::Arith => matches!(next, '$' | '`' | '"' | '\\'),
            Mode::HereDoc { .. } => matches!(next, '$' | '`' | '\\'),
        };
        if !escapable {
            text.push('\\');
            *pos += 1;
            return;
        }
        *pos += 1 + next.len_utf8();
        if mode == Mode::Unquoted {
            flush(text, parts, mode);
            parts.push(WordPart::Quoted(next.to_string()));
        } else {
            text.push(next);
        }
    }

    fn single_quoted(&self, pos: &mut usize, end: usize) -> Result<String, ParseError> {
        let body_start = *pos + 1;
        let close = self.src[body_start..end]
            .find('\'')
            .ok_or_else(|| self.syntax("unterminated single quote", *pos))?;
        *pos = body_start + close + 1;
        Ok(self.src[body_start..body_start + close].to_string())
    }

    fn double_quoted(&mut self, pos: &mut usize, end: usize) -> Result<Vec<WordPart>, ParseError> {
        let open = *pos;
        *pos += 1;
        let parts = self.lex(pos, end, Mode::Double, Stops::default(), false)?;
        if *pos >= end || self.src.as_bytes()[*pos] != b'"' {
            return Err(self.syntax("unterminated double quote", open));
        }
        *pos += 1;
        Ok(parts)
    }

    fn dollar(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
        in_double: bool,
        text: &mut String,
        parts: &mut Vec<WordPart>,
    ) -> Result<(), ParseError> {
        let at = *pos;
        let next = if at + 1 < end {
            self.char_at(at + 1)
        } else {
            None
        };
        let part = match next {
            Some('\'') if mode == Mode::Unquoted && !in_double => {
                *pos += 1;
                let body = self.ansi_c_body(pos, end)?;
                WordPart::Quoted(decode_ansi_c(&body))
            }
            Some('"') if mode == Mode::Unquoted => {
                // $"…" (locale translation) is an ordinary double-quoted string here.
                *pos += 1;
                WordPart::DoubleQuoted(self.double_quoted(pos, end)?)
            }
            // Found by the scanner outside here-documents.
            Some('\\')
                if super::scan::after_continuations(&self.src.as_bytes()[at + 1..end])
                    .is_some_and(|next| super::starts_expansion(char::from(next))) =>
            {
                return Err(self.unsupported(super::CONTINUED_DOLLAR, at));
            }
            Some('{') => WordPart::Param(Box::new(self.braced_param(pos, end, mode)?)),
            Some('(') | Some('[') => self.substitution(pos, end)?,
            Some(c) if c == '_' || c.is_ascii_alphabetic() => {
                let name_end = self.name_end(at + 1, end);
                self.refuse_continued_name(name_end, end)?;
                *pos = name_end;
                simple_param(Param::Var(self.src[at + 1..name_end].to_string()))
            }
            Some(c) if c.is_ascii_digit() => {
                *pos += 2;
                simple_param(Param::Positional(c as usize - '0' as usize))
            }
            Some(c) if special_param(c).is_some() => {
                *pos += 2;
                simple_param(Param::Special(special_param(c).expect("checked")))
            }
            _ => {
                text.push('$');
                *pos += 1;
                return Ok(());
            }
        };
        flush(text, parts, mode);
        parts.push(part);
        Ok(())
    }

    /// bash joins continued lines before it reads a name, so `$HO\<newline>ME` is `$HOME`
    /// (in a word or a here-document); rsh would read `$HO` and then the text `ME`.
    fn refuse_continued_name(&self, name_end: usize, end: usize) -> Result<(), ParseError> {
        match super::scan::after_continuations(&self.src.as_bytes()[name_end..end]) {
            Some(next) if next == b'_' || next.is_ascii_alphanumeric() => Err(self.unsupported(
                "a line continuation inside a parameter name (bash joins the lines first; \
                 write the name on one line)",
                name_end,
            )),
            _ => Ok(()),
        }
    }

    fn name_end(&self, from: usize, end: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut i = from;
        while i < end && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
            i += 1;
        }
        i
    }

    /// The raw body of `$'…'` (escapes still in it); `*pos` is at the quote.
    fn ansi_c_body(&self, pos: &mut usize, end: usize) -> Result<String, ParseError> {
        let open = *pos;
        let bytes = self.src.as_bytes();
        let mut i = open + 1;
        while i < end {
            match bytes[i] {
                b'\\' => i += 2,
                b'\'' => {
                    *pos = i + 1;
                    return Ok(self.src[open + 1..i].to_string());
                }
                _ => i += 1,
            }
        }
        Err(self.syntax("unterminated $'…' string", open - 1))
    }

    /// `$(…)`, `$((…))`, `$[…]`: tree-sitter found where they end; look the node up by offset.
    fn substitution(&mut self, pos: &mut usize, end: usize) -> Result<WordPart, ParseError> {
        let at = *pos;
        let Some(node) =
            self.node_starting_at(at, &["command_substitution", "arithmetic_expansion"])
        else {
            return self.substitution_by_reparse(pos, end);
        };
        if node.end_byte() > end {
            return Err(self.syntax("substitution runs past the end of its word", at));
        }
        *pos = node.end_byte();
        // In here-documents tree-sitter reads `$((1+2))` as a command substitution of a
        // subshell; bash reads arithmetic.
        let arithmetic_text = node.kind() == "command_substitution"
            && self.src[at..].starts_with("$((")
            && self.src[..node.end_byte()].ends_with("))");
        if arithmetic_text {
            return Ok(WordPart::Arith(
                self.arith_text(at + 3, node.end_byte() - 2)?,
            ));
        }
        if node.kind() == "arithmetic_expansion" {
            let open = if self.src[at..].starts_with("$((") {
                3
            } else {
                2
            };
            let close = if self.src[..node.end_byte()].ends_with("))") {
                2
            } else {
                1
            };
            return Ok(WordPart::Arith(
                self.arith_text(at + open, node.end_byte() - close)?,
            ));
        }
        Ok(WordPart::CommandSub(Rc::new(
            self.command_substitution(node)?,
        )))
    }

    /// Where tree-sitter made no node for a substitution (inside arithmetic it could not
    /// parse), the text from `$` on is parsed on its own to find where the substitution ends.
    fn substitution_by_reparse(
        &mut self,
        pos: &mut usize,
        end: usize,
    ) -> Result<WordPart, ParseError> {
        const PREFIX: &str = ": ";
        let at = *pos;
        let text = format!("{PREFIX}{}", &self.src[at..end]);
        let tree = super::parse_tree(&text)?;
        let mut sub = Converter::new(&text, Some(&tree), &[], self.depth + 1);
        let start = PREFIX.len();
        let found = sub
            .node_starting_at(start, &["command_substitution", "arithmetic_expansion"])
            .filter(|node| !node.has_error());
        if found.is_none() {
            return Err(self.syntax("cannot find the end of this substitution", at));
        }
        let mut sub_pos = start;
        let part = sub.substitution(&mut sub_pos, text.len())?;
        *pos = at + (sub_pos - start);
        Ok(part)
    }

    fn node_starting_at(&self, at: usize, kinds: &[&str]) -> Option<Node<'a>> {
        let mut node = self.root?.descendant_for_byte_range(at, at + 1)?;
        loop {
            // Inside strings tree-sitter sometimes starts the `$(` token at the blank before it.
            let start = node.start_byte();
            if start > at || !self.src[start..at].trim_start().is_empty() {
                return None;
            }
            if kinds.contains(&node.kind()) {
                return Some(node);
            }
            node = node.parent()?;
        }
    }

    /// `<(…)` and `>(…)`: tree-sitter found where they end. None where it found none (the
    /// text is then not a process substitution).
    fn process_substitution(
        &mut self,
        pos: &mut usize,
        end: usize,
    ) -> Result<Option<WordPart>, ParseError> {
        let at = *pos;
        let Some(node) = self.node_starting_at(at, &["process_substitution"]) else {
            return Ok(None);
        };
        if node.end_byte() > end {
            return Err(self.syntax("substitution runs past the end of its word", at));
        }
        *pos = node.end_byte();
        Ok(Some(WordPart::ProcessSub {
            program: Rc::new(self.command_substitution(node)?),
            output: self.src.as_bytes()[at] == b'>',
        }))
    }

    /// The statements of a `$(…)` node; `$(<file)` arrives as a bare redirection.
    fn command_substitution(&mut self, node: Node<'a>) -> Result<Program, ParseError> {
        let mut body = Vec::new();
        let mut cursor = node.walk();
        let children: Vec<(Option<&str>, Node)> = node
            .children(&mut cursor)
            .enumerate()
            .map(|(i, c)| (node.field_name_for_child(i as u32), c))
            .collect();
        for (field, child) in children {
            self.refuse_case_terminator(child)?;
            if !child.is_named() || child.kind() == "comment" {
                continue;
            }
            let statement = if field == Some("redirect") {
                self.bare_redirect(child)?
            } else {
                self.statement_node(child)?
            };
            self.push_statement(&mut body, statement, child)?;
        }
        Ok(Program {
            body,
            line_starts: vec![0],
        })
    }

    /// `` `…` ``: un-escape `\\`, `` \` ``, `\$` (and `\"` inside double quotes), then parse the
    /// result as its own program.
    fn backtick(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
    ) -> Result<WordPart, ParseError> {
        let open = *pos;
        let bytes = self.src.as_bytes();
        let mut body = String::new();
        let mut i = open + 1;
        loop {
            if i >= end {
                return Err(self.syntax("unterminated backquote", open));
            }
            match bytes[i] {
                b'`' => break,
                b'\\' if i + 1 < end => {
                    let next = bytes[i + 1];
                    let unescape = matches!(next, b'\\' | b'`' | b'$')
                        || (next == b'"' && mode == Mode::Double);
                    if !unescape {
                        body.push('\\');
                    }
                    i += 1;
                    let c = self.char_at(i).expect("inside the source");
                    body.push(c);
                    i += c.len_utf8();
                }
                _ => {
                    let c = self.char_at(i).expect("inside the source");
                    body.push(c);
                    i += c.len_utf8();
                }
            }
        }
        *pos = i + 1;
        let program = super::parse_at_depth(&body, self.depth + 1).map_err(|inner| {
            let (line, column) = self.position(open);
            ParseError::Syntax {
                line,
                column,
                message: format!("in backquoted command: {inner}"),
            }
        })?;
        Ok(WordPart::CommandSub(Rc::new(program)))
    }

    fn braced_param(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
    ) -> Result<ParamExp, ParseError> {
        let open = *pos;
        *pos += 2;
        let bad = |conv: &Self| conv.syntax("bad substitution", open);
        let peek = |conv: &Self, p: usize| if p < end { conv.char_at(p) } else { None };

        let mut length = false;
        let mut indirect = false;
        match (peek(self, *pos), peek(self, *pos + 1)) {
            (Some('#'), Some('}')) | (Some('!'), Some('}')) => {}
            (Some('#'), Some(_)) => {
                length = true;
                *pos += 1;
            }
            (Some('!'), Some(_)) => {
                indirect = true;
                *pos += 1;
            }
            _ => {}
        }
        let param = self.param_name(pos, end).ok_or_else(|| bad(self))?;
        match peek(self, *pos) {
            Some('[') => return Err(self.unsupported("array subscript [...]", *pos)),
            Some('*') | Some('@') if indirect => {
                return Err(self.unsupported("${!prefix*} name listing", open));
            }
            _ => {}
        }
        let op = if length {
            ParamOp::Length
        } else {
            self.param_op(pos, end, mode, open)?
        };
        if peek(self, *pos) != Some('}') {
            return Err(if *pos >= end {
                self.syntax("missing `}`", open)
            } else {
                bad(self)
            });
        }
        *pos += 1;
        Ok(ParamExp {
            param,
            indirect,
            op,
        })
    }

    fn param_name(&self, pos: &mut usize, end: usize) -> Option<Param> {
        let c = if *pos < end {
            self.char_at(*pos)?
        } else {
            return None;
        };
        if c == '_' || c.is_ascii_alphabetic() {
            let name_end = self.name_end(*pos, end);
            let name = self.src[*pos..name_end].to_string();
            *pos = name_end;
            return Some(Param::Var(name));
        }
        if c.is_ascii_digit() {
            let bytes = self.src.as_bytes();
            let mut i = *pos;
            while i < end && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let number = self.src[*pos..i].parse().ok()?;
            *pos = i;
            return Some(Param::Positional(number));
        }
        let special = special_param(c)?;
        *pos += 1;
        Some(Param::Special(special))
    }

    fn param_op(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
        open: usize,
    ) -> Result<ParamOp, ParseError> {
        let in_double = mode == Mode::Double;
        let rest = &self.src[*pos..end];
        let brace = Stops {
            close_brace: true,
            ..Stops::default()
        };
        let test_kind = |c: char| match c {
            '-' => Some(TestKind::Default),
            '=' => Some(TestKind::Assign),
            '+' => Some(TestKind::Alternate),
            '?' => Some(TestKind::Error),
            _ => None,
        };
        let mut chars = rest.chars();
        let first = chars.next();
        let second = chars.next();
        let op = match (first, second) {
            (Some('}'), _) => ParamOp::Plain,
            (Some(':'), Some(c)) if test_kind(c).is_some() => {
                *pos += 2;
                ParamOp::Test {
                    colon: true,
                    kind: test_kind(c).expect("checked"),
                    word: self.operand(pos, end, Mode::Unquoted, brace, in_double)?,
                }
            }
            (Some(c), _) if test_kind(c).is_some() => {
                *pos += 1;
                ParamOp::Test {
                    colon: false,
                    kind: test_kind(c).expect("checked"),
                    word: self.operand(pos, end, Mode::Unquoted, brace, in_double)?,
                }
            }
            (Some(':'), _) => {
                *pos += 1;
                let offset_stops = Stops {
                    close_brace: true,
                    colon: true,
                    ..Stops::default()
                };
                let offset = self.operand(pos, end, Mode::Arith, offset_stops, false)?;
                let length = if self.src[*pos..end].starts_with(':') {
                    *pos += 1;
                    Some(self.operand(pos, end, Mode::Arith, brace, false)?)
                } else {
                    None
                };
                ParamOp::Slice { offset, length }
            }
            (Some(c @ ('#' | '%')), next) => {
                let longest = next == Some(c);
                *pos += if longest { 2 } else { 1 };
                ParamOp::Strip {
                    suffix: c == '%',
                    longest,
                    pattern: self.operand(pos, end, Mode::Unquoted, brace, false)?,
                }
            }
            (Some('/'), next) => {
                let mode_kind = match next {
                    Some('/') => ReplaceMode::All,
                    Some('#') => ReplaceMode::Prefix,
                    Some('%') => ReplaceMode::Suffix,
                    _ => ReplaceMode::First,
                };
                *pos += if mode_kind == ReplaceMode::First {
                    1
                } else {
                    2
                };
                let pattern_stops = Stops {
                    close_brace: true,
                    slash: true,
                    ..Stops::default()
                };
                let pattern = self.operand(pos, end, Mode::Unquoted, pattern_stops, false)?;
                let replacement = if self.src[*pos..end].starts_with('/') {
                    *pos += 1;
                    self.operand(pos, end, Mode::Unquoted, brace, in_double)?
                } else {
                    Word {
                        parts: Vec::new(),
                        span: Span {
                            start: *pos,
                            end: *pos,
                        },
                    }
                };
                ParamOp::Replace {
                    mode: mode_kind,
                    pattern,
                    replacement,
                }
            }
            (Some(c @ ('^' | ',')), next) => {
                let all = next == Some(c);
                *pos += if all { 2 } else { 1 };
                ParamOp::Case {
                    upper: c == '^',
                    all,
                    pattern: self.operand(pos, end, Mode::Unquoted, brace, false)?,
                }
            }
            (Some('@'), _) => return Err(self.unsupported("${var@op} transformation", open)),
            (None, _) => return Err(self.syntax("missing `}`", open)),
            _ => return Err(self.syntax("bad substitution", open)),
        };
        Ok(op)
    }

    fn operand(
        &mut self,
        pos: &mut usize,
        end: usize,
        mode: Mode,
        stops: Stops,
        in_double: bool,
    ) -> Result<Word, ParseError> {
        let start = *pos;
        let parts = self.lex(pos, end, mode, stops, in_double)?;
        Ok(Word {
            parts,
            span: Span { start, end: *pos },
        })
    }
}

fn flush(text: &mut String, parts: &mut Vec<WordPart>, mode: Mode) {
    if text.is_empty() {
        return;
    }
    let s = std::mem::take(text);
    parts.push(match mode {
        Mode::Unquoted | Mode::Arith => WordPart::Literal(s),
        Mode::Double | Mode::HereDoc { .. } => WordPart::Quoted(s),
    });
}

fn simple_param(param: Param) -> WordPart {
    WordPart::Param(Box::new(ParamExp {
        param,
        indirect: false,
        op: ParamOp::Plain,
    }))
}

fn special_param(c: char) -> Option<Special> {
    Some(match c {
        '@' => Special::At,
        '*' => Special::Star,
        '#' => Special::Count,
        '?' => Special::Status,
        '$' => Special::Pid,
        '!' => Special::LastBackground,
        '-' => Special::Flags,
        _ => return None,
    })
}

fn strip_leading_tabs(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| line.trim_start_matches('\t'))
        .collect()
}

/// Decodes the escapes of a `$'…'` body.
pub(crate) fn decode_ansi_c(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            '0'..='7' => {
                let (value, _) = octal_escape(e, &mut chars);
                push_byte_value(&mut out, value & 0xff);
            }
            'x' => match take_hex(&mut chars, 2) {
                Some(value) => push_byte_value(&mut out, value),
                None => out.push_str("\\x"),
            },
            'u' | 'U' => {
                let digits = if e == 'u' { 4 } else { 8 };
                match take_hex(&mut chars, digits).and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            'c' => match chars.next() {
                Some(ctl) => out.push(char::from((ctl as u32 & 0x1f) as u8)),
                None => out.push_str("\\c"),
            },
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// The value of a `\N`, `\NN` or `\NNN` escape whose first digit is `first` (`$'…'` and
/// prompts), taking up to two more digits from `chars`; also how many digits it had.
pub(crate) fn octal_escape(
    first: char,
    chars: &mut std::iter::Peekable<std::str::Chars>,
) -> (u32, usize) {
    let mut value = first.to_digit(8).expect("an octal digit");
    let mut digits = 1;
    while digits < 3 {
        match chars.peek().and_then(|c| c.to_digit(8)) {
            Some(d) => {
                value = value * 8 + d;
                digits += 1;
                chars.next();
            }
            None => break,
        }
    }
    (value, digits)
}

/// A `\NNN` or `\xHH` byte: ASCII as itself, above that as the Latin-1 character (rsh strings
/// are UTF-8, so a lone high byte cannot be represented exactly).
fn push_byte_value(out: &mut String, value: u32) {
    out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
}

fn take_hex(chars: &mut std::iter::Peekable<std::str::Chars>, max: usize) -> Option<u32> {
    let mut value = 0;
    let mut count = 0;
    while count < max {
        match chars.peek().and_then(|c| c.to_digit(16)) {
            Some(d) => {
                value = value * 16 + d;
                chars.next();
                count += 1;
            }
            None => break,
        }
    }
    (count > 0).then_some(value)
}
