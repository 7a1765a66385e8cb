//! Field splitting: the pieces of an expanded word (literal text, quoted text, expansion results)
//! are cut into fields on IFS as POSIX describes, keeping track of which characters were quoted
//! so that pathname expansion, patterns and regexes treat them literally.

/// One piece of an expanded word.
pub(super) struct Piece {
    text: String,
    kind: PieceKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PieceKind {
    /// Unquoted text written in the source: globbed, never split.
    Literal,
    /// Quoted text: neither split nor globbed; its presence makes a field exist even if empty.
    Quoted,
    /// The result of an unquoted expansion: split on IFS and globbed.
    Unquoted,
}

impl Piece {
    pub(super) fn literal(text: String) -> Piece {
        Piece {
            text,
            kind: PieceKind::Literal,
        }
    }

    pub(super) fn quoted(text: String) -> Piece {
        Piece {
            text,
            kind: PieceKind::Quoted,
        }
    }

    /// An expansion result; `quoted` when it happened inside double quotes.
    pub(super) fn expansion(text: String, quoted: bool) -> Piece {
        Piece {
            text,
            kind: if quoted {
                PieceKind::Quoted
            } else {
                PieceKind::Unquoted
            },
        }
    }
}

/// A finished field: its text, and its text as a pattern (quoted characters escaped).
pub(super) struct Field {
    pub text: String,
    pub pattern: String,
}

/// Where splitting stands between two characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing yet, or only IFS white space since the start.
    Start,
    /// Inside a field.
    InField,
    /// A field just ended at IFS white space (a following non-white delimiter joins it).
    AfterWhite,
    /// A non-white delimiter just ended a field.
    AfterDelimiter,
}

pub(super) struct Fields {
    /// None: join everything into one field (no splitting).
    ifs: Option<(Vec<char>, Vec<char>)>,
    done: Vec<Vec<(String, bool)>>,
    current: Vec<(String, bool)>,
    exists: bool,
    state: State,
    /// Inside the current `"…"`, a `$@` expanded to nothing.
    saw_empty_at: bool,
}

impl Fields {
    /// Splitting on `ifs` (white-space and other delimiters are told apart here).
    pub(super) fn new(ifs: String) -> Fields {
        let white: Vec<char> = ifs
            .chars()
            .filter(|c| matches!(c, ' ' | '\t' | '\n'))
            .collect();
        let other: Vec<char> = ifs
            .chars()
            .filter(|c| !matches!(c, ' ' | '\t' | '\n'))
            .collect();
        Fields {
            ifs: Some((white, other)),
            ..Fields::joined()
        }
    }

    /// No splitting: one field, `"$@"` joined with spaces.
    pub(super) fn joined() -> Fields {
        Fields {
            ifs: None,
            done: Vec::new(),
            current: Vec::new(),
            exists: false,
            state: State::Start,
            saw_empty_at: false,
        }
    }

    pub(super) fn begin_quotes(&mut self) {
        self.saw_empty_at = false;
    }

    /// `"$@"` with no positional parameters: these quotes alone make no field.
    pub(super) fn empty_at(&mut self) {
        self.saw_empty_at = true;
    }

    /// Double quotes were seen: the field exists even if they were empty.
    pub(super) fn end_quotes(&mut self) {
        if !self.saw_empty_at {
            self.exists = true;
            self.state = State::InField;
        }
        self.saw_empty_at = false;
    }

    pub(super) fn push(&mut self, piece: Piece) {
        match (piece.kind, &self.ifs) {
            (PieceKind::Unquoted, Some(_)) => self.split(&piece.text),
            (kind, _) => {
                if kind == PieceKind::Quoted || !piece.text.is_empty() {
                    self.exists = true;
                    self.state = State::InField;
                }
                self.append(piece.text, kind == PieceKind::Quoted);
            }
        }
    }

    /// Between the elements of `"$@"`.
    pub(super) fn field_break(&mut self) {
        if self.ifs.is_none() {
            self.append(" ".to_string(), true);
            return;
        }
        if self.exists {
            self.finish_field();
        }
        self.state = State::AfterWhite;
    }

    fn append(&mut self, text: String, quoted: bool) {
        if text.is_empty() {
            return;
        }
        match self.current.last_mut() {
            Some((last, q)) if *q == quoted => last.push_str(&text),
            _ => self.current.push((text, quoted)),
        }
    }

    fn finish_field(&mut self) {
        self.done.push(std::mem::take(&mut self.current));
        self.exists = false;
    }

    fn split(&mut self, text: &str) {
        let (white, other) = self.ifs.clone().expect("split only with an IFS");
        let mut run = String::new();
        for c in text.chars() {
            if white.contains(&c) {
                self.flush_run(&mut run);
                if self.exists {
                    self.finish_field();
                    self.state = State::AfterWhite;
                }
            } else if other.contains(&c) {
                self.flush_run(&mut run);
                if self.exists {
                    self.finish_field();
                } else if self.state != State::AfterWhite {
                    // Two delimiters in a row, or one at the start, delimit an empty field.
                    self.done.push(Vec::new());
                }
                self.state = State::AfterDelimiter;
            } else {
                run.push(c);
            }
        }
        self.flush_run(&mut run);
    }

    fn flush_run(&mut self, run: &mut String) {
        if run.is_empty() {
            return;
        }
        self.exists = true;
        self.state = State::InField;
        self.append(std::mem::take(run), false);
    }

    /// The fields, for pathname expansion.
    pub(super) fn finish(mut self) -> Vec<Field> {
        if self.exists {
            self.finish_field();
        }
        self.done
            .into_iter()
            .map(|segments| Field {
                text: segments.iter().map(|(s, _)| s.as_str()).collect(),
                pattern: pattern_of(&segments),
            })
            .collect()
    }

    fn all_segments(mut self) -> Vec<(String, bool)> {
        if self.exists || !self.current.is_empty() {
            self.finish_field();
        }
        self.done.into_iter().flatten().collect()
    }

    pub(super) fn into_text(self) -> String {
        self.all_segments().into_iter().map(|(s, _)| s).collect()
    }

    pub(super) fn into_pattern(self) -> String {
        pattern_of(&self.all_segments())
    }

    pub(super) fn into_regex(self) -> String {
        self.all_segments()
            .iter()
            .map(
                |(s, quoted)| {
                    if *quoted { regex::escape(s) } else { s.clone() }
                },
            )
            .collect()
    }
}

fn pattern_of(segments: &[(String, bool)]) -> String {
    segments
        .iter()
        .map(|(s, quoted)| {
            if *quoted {
                super::pattern::escape(s)
            } else {
                s.clone()
            }
        })
        .collect()
}
