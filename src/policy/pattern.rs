//! Argument patterns: the small language used in `[commands.NAME]` lists and after the command
//! word of a `[rules]` entry. A pattern is either a list of glob words, optionally preceded by `*:`
//! ("any arguments before") and followed by `:*` ("any arguments after"), or `re:REGEX`, a
//! regular expression matched against the arguments joined with single spaces.
//!
//! This module only parses and matches text; it knows nothing of files, programs or verdicts.

use std::fmt;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::{Text, borrowed, borrowed_opt};

/// Why a pattern could not be parsed. The message does not repeat the pattern; the caller says
/// where the pattern is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    pub message: String,
}

impl PatternError {
    fn new(message: impl Into<String>) -> PatternError {
        PatternError {
            message: message.into(),
        }
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PatternError {}

/// A parsed argument pattern. Matching is against the arguments only (argv without argv\[0\]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub struct ArgPattern {
    #[serde(deserialize_with = "borrowed")]
    text: Text,
    kind: Kind,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
enum Kind {
    Words {
        /// `*:` at the start: any arguments may come before the words.
        any_before: bool,
        words: Vec<Glob>,
        /// `:*` at the end: any arguments may come after the words.
        any_after: bool,
    },
    /// `re:REGEX`, compiled as `\A(?:REGEX)\z` when first matched: its syntax is checked when
    /// the policy loads, but compiling costs more than loading the rest of a policy, and most
    /// commands never meet most patterns.
    Regex {
        #[serde(deserialize_with = "borrowed")]
        source: Text,
        #[serde(skip)]
        compiled: OnceLock<Result<Regex, String>>,
    },
}

impl ArgPattern {
    /// Parses an argument pattern.
    pub fn parse(text: &str) -> Result<ArgPattern, PatternError> {
        ArgPattern::parse_checking(text, true)
    }

    /// As `parse`, checking a regular expression's syntax only when `check` says so: the
    /// built-in policy's are known to be valid (`build.rs` and its tests load it with every
    /// check), and checking them was a tenth of loading it from its text. Should one not
    /// compile after all, the commands it guards are refused (see `compile_error`).
    pub(crate) fn parse_checking(text: &str, check: bool) -> Result<ArgPattern, PatternError> {
        let kind = match text.strip_prefix("re:") {
            Some(re) => {
                // `(?s)`: an argument may contain newlines, and `.` must cross them, or a
                // newline in any argument would slip past every `.*` of a deny pattern.
                let anchored = format!(r"(?s)\A(?:{re})\z");
                // The same syntax, and nesting limit, as Regex::new.
                if check {
                    regex_syntax::ParserBuilder::new()
                        .nest_limit(250)
                        .build()
                        .parse(&anchored)
                        .map_err(|e| {
                            PatternError::new(format!("invalid regular expression: {e}"))
                        })?;
                }
                Kind::Regex {
                    source: Text::Owned(anchored),
                    compiled: OnceLock::new(),
                }
            }
            None => parse_words(text)?,
        };
        Ok(ArgPattern {
            text: Text::Owned(text.to_owned()),
            kind,
        })
    }

    /// The pattern as written in the policy.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Why the pattern cannot be used: a regular expression whose syntax is valid but which
    /// cannot be compiled (too large). The caller must then refuse whatever it guards.
    pub fn compile_error(&self) -> Option<&str> {
        match &self.kind {
            Kind::Regex { .. } => self.regex().err(),
            Kind::Words { .. } => None,
        }
    }

    fn regex(&self) -> Result<&Regex, &str> {
        match &self.kind {
            Kind::Regex { source, compiled } => compiled
                .get_or_init(|| Regex::new(source).map_err(|e| e.to_string()))
                .as_ref()
                .map_err(String::as_str),
            Kind::Words { .. } => Err("not a regular expression"),
        }
    }

    /// True when the pattern matches this argument list. A regular expression that cannot be
    /// compiled matches everything (see `compile_error`).
    pub fn matches<S: AsRef<str>>(&self, args: &[S]) -> bool {
        self.matches_with(args, Glob::matches)
    }

    /// As `matches`, and a word for a long option matches also when the argument abbreviates
    /// it, as getopt_long and git take it: `--u=P` for `--upload-pack*`, `--text` for
    /// `--textconv`. For deny and ask entries, which must catch every spelling the program
    /// accepts; an argument that is a whole option of its own with such a beginning is caught
    /// too (`git diff --text` by a deny of `--textconv`), which errs on the side of asking.
    pub fn matches_spelled<S: AsRef<str>>(&self, args: &[S]) -> bool {
        self.matches_with(args, |glob, arg| {
            glob.matches(arg) || glob.matches_abbreviated(arg)
        })
    }

    fn matches_with<S: AsRef<str>>(&self, args: &[S], word: impl Fn(&Glob, &str) -> bool) -> bool {
        match &self.kind {
            Kind::Regex { .. } => {
                let joined = args.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(" ");
                self.regex().map_or(true, |regex| regex.is_match(&joined))
            }
            Kind::Words {
                any_before,
                words,
                any_after,
            } => {
                let n = words.len();
                if args.len() < n {
                    return false;
                }
                let window_matches = |start: usize| {
                    words
                        .iter()
                        .zip(&args[start..start + n])
                        .all(|(glob, arg)| word(glob, arg.as_ref()))
                };
                match (any_before, any_after) {
                    (false, false) => args.len() == n && window_matches(0),
                    (false, true) => window_matches(0),
                    (true, false) => window_matches(args.len() - n),
                    (true, true) => (0..=args.len() - n).any(window_matches),
                }
            }
        }
    }
}

/// One character of a lexed word, remembering whether it was quoted or escaped (and so stands
/// for itself, never for a glob operator or a `:*` marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ch {
    c: char,
    quoted: bool,
}

/// A lexed word: its characters, and whether it contained quotes (so `''` is an empty word
/// rather than nothing).
#[derive(Debug, Clone, Default)]
struct Word {
    chars: Vec<Ch>,
    had_quotes: bool,
}

impl Word {
    fn is_nothing(&self) -> bool {
        self.chars.is_empty() && !self.had_quotes
    }

    fn starts_with_unquoted(&self, a: char, b: char) -> bool {
        matches!(self.chars.as_slice(), [x, y, ..] if *x == unquoted(a) && *y == unquoted(b))
    }

    fn ends_with_unquoted(&self, a: char, b: char) -> bool {
        matches!(self.chars.as_slice(), [.., x, y] if *x == unquoted(a) && *y == unquoted(b))
    }

    fn text(&self) -> String {
        self.chars.iter().map(|ch| ch.c).collect()
    }
}

fn unquoted(c: char) -> Ch {
    Ch { c, quoted: false }
}

fn is_blank(c: char) -> bool {
    c.is_ascii_whitespace()
}

/// Reads one word starting at byte offset `start` (blanks before it are skipped). Returns the
/// word and the byte offset just after it, or `None` when only blanks remain.
fn lex_word(text: &str, start: usize) -> Result<Option<(Word, usize)>, PatternError> {
    let rest = &text[start..];
    let Some(skip) = rest.find(|c: char| !is_blank(c)) else {
        return Ok(None);
    };
    let mut word = Word::default();
    let mut chars = rest[skip..].char_indices().peekable();
    let base = start + skip;
    while let Some(&(i, c)) = chars.peek() {
        if is_blank(c) {
            return Ok(Some((word, base + i)));
        }
        chars.next();
        match c {
            '\\' => match chars.next() {
                Some((_, e)) => word.chars.push(Ch { c: e, quoted: true }),
                None => return Err(PatternError::new("pattern ends with a backslash")),
            },
            '\'' => {
                word.had_quotes = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, q)) => word.chars.push(Ch { c: q, quoted: true }),
                        None => return Err(PatternError::new("unbalanced ' quote")),
                    }
                }
            }
            '"' => {
                word.had_quotes = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, e)) => word.chars.push(Ch { c: e, quoted: true }),
                            None => return Err(PatternError::new("unbalanced \" quote")),
                        },
                        Some((_, q)) => word.chars.push(Ch { c: q, quoted: true }),
                        None => return Err(PatternError::new("unbalanced \" quote")),
                    }
                }
            }
            c => word.chars.push(unquoted(c)),
        }
    }
    Ok(Some((word, text.len())))
}

fn lex_words(text: &str) -> Result<Vec<Word>, PatternError> {
    let mut words = Vec::new();
    let mut pos = 0;
    while let Some((word, end)) = lex_word(text, pos)? {
        words.push(word);
        pos = end;
    }
    Ok(words)
}

/// Splits a `[rules]` entry into its command word (quotes removed, taken literally) and the
/// argument pattern text that follows it.
pub fn split_command_word(text: &str) -> Result<(String, &str), PatternError> {
    match lex_word(text, 0)? {
        Some((word, end)) if !word.chars.is_empty() => {
            let rest = &text[end..];
            let rest = rest.trim_start_matches(is_blank);
            Ok((word.text(), rest))
        }
        Some(_) => Err(PatternError::new("the command word is empty")),
        None => Err(PatternError::new("empty rule: expected a command name")),
    }
}

fn parse_words(text: &str) -> Result<Kind, PatternError> {
    let mut words = lex_words(text)?;
    let mut any_before = false;
    let mut any_after = false;
    if let Some(first) = words.first_mut()
        && first.starts_with_unquoted('*', ':')
    {
        any_before = true;
        first.chars.drain(..2);
        if first.is_nothing() {
            words.remove(0);
        }
    }
    if let Some(last) = words.last_mut()
        && last.ends_with_unquoted(':', '*')
    {
        any_after = true;
        let len = last.chars.len();
        last.chars.truncate(len - 2);
        if last.is_nothing() {
            words.pop();
        }
    }
    let globs = words
        .iter()
        .map(|word| {
            for pair in word.chars.windows(2) {
                if pair == [unquoted(':'), unquoted('*')] {
                    return Err(PatternError::new(
                        "`:*` may only end a pattern (write `\\:*` for a colon followed by a glob star)",
                    ));
                }
                if pair == [unquoted('*'), unquoted(':')] {
                    return Err(PatternError::new(
                        "`*:` may only start a pattern (write `*\\:` for a glob star followed by a colon)",
                    ));
                }
            }
            Glob::compile(&word.chars)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Kind::Words {
        any_before,
        words: globs,
        any_after,
    })
}

/// A shell-style glob matched against one whole argument: `*` (any characters, including `/`),
/// `?` (one character), `[...]` and `[!...]` (one character in or not in a set).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct Glob {
    /// Empty when the glob is `literal`.
    tokens: Vec<Token>,
    /// The whole glob, when it is nothing but literal characters (most are: `-exec`, `push`):
    /// matched by comparing strings.
    #[serde(deserialize_with = "borrowed_opt")]
    literal: Option<Text>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Token {
    Literal(char),
    AnyString,
    AnyChar,
    Class {
        negated: bool,
        items: Vec<ClassItem>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum ClassItem {
    Char(char),
    Range(char, char),
    Named(NamedClass),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum NamedClass {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Xdigit,
}

impl NamedClass {
    fn from_name(name: &str) -> Option<NamedClass> {
        Some(match name {
            "alnum" => NamedClass::Alnum,
            "alpha" => NamedClass::Alpha,
            "blank" => NamedClass::Blank,
            "cntrl" => NamedClass::Cntrl,
            "digit" => NamedClass::Digit,
            "graph" => NamedClass::Graph,
            "lower" => NamedClass::Lower,
            "print" => NamedClass::Print,
            "punct" => NamedClass::Punct,
            "space" => NamedClass::Space,
            "upper" => NamedClass::Upper,
            "xdigit" => NamedClass::Xdigit,
            _ => return None,
        })
    }

    fn contains(self, c: char) -> bool {
        match self {
            NamedClass::Alnum => c.is_alphanumeric(),
            NamedClass::Alpha => c.is_alphabetic(),
            NamedClass::Blank => c == ' ' || c == '\t',
            NamedClass::Cntrl => c.is_control(),
            NamedClass::Digit => c.is_ascii_digit(),
            NamedClass::Graph => !c.is_control() && !c.is_whitespace(),
            NamedClass::Lower => c.is_lowercase(),
            NamedClass::Print => !c.is_control(),
            NamedClass::Punct => c.is_ascii_punctuation(),
            NamedClass::Space => c.is_whitespace(),
            NamedClass::Upper => c.is_uppercase(),
            NamedClass::Xdigit => c.is_ascii_hexdigit(),
        }
    }
}

impl Glob {
    /// A glob written on its own (not as a pattern word): a backslash makes the next
    /// character literal.
    pub(crate) fn parse(text: &str) -> Result<Glob, PatternError> {
        let mut chars = Vec::new();
        let mut it = text.chars();
        while let Some(c) = it.next() {
            match c {
                '\\' => match it.next() {
                    Some(next) => chars.push(Ch {
                        c: next,
                        quoted: true,
                    }),
                    None => return Err(PatternError::new("ends with a lone backslash")),
                },
                c => chars.push(unquoted(c)),
            }
        }
        Glob::compile(&chars)
    }

    fn compile(chars: &[Ch]) -> Result<Glob, PatternError> {
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let ch = chars[i];
            i += 1;
            if ch.quoted {
                tokens.push(Token::Literal(ch.c));
                continue;
            }
            match ch.c {
                '*' => {
                    if tokens.last() != Some(&Token::AnyString) {
                        tokens.push(Token::AnyString);
                    }
                }
                '?' => tokens.push(Token::AnyChar),
                '[' => {
                    let (token, next) = compile_class(chars, i)?;
                    tokens.push(token);
                    i = next;
                }
                c => tokens.push(Token::Literal(c)),
            }
        }
        let literal: Option<String> = tokens
            .iter()
            .map(|token| match token {
                Token::Literal(c) => Some(*c),
                _ => None,
            })
            .collect();
        // A literal glob is matched by its string alone: its tokens would only take memory
        // and allocations, in every start that decodes the built-in policy.
        if literal.is_some() {
            tokens = Vec::new();
        }
        Ok(Glob {
            tokens,
            literal: literal.map(Text::Owned),
        })
    }

    /// Matches the whole of `s`. Backtracks only to the last `*`, which is enough because every
    /// other token consumes exactly one character.
    pub(crate) fn matches(&self, s: &str) -> bool {
        // Every argument of every command is matched against the globs of its program's
        // entries: the common cases go without a copy of the argument.
        if let Some(literal) = &self.literal {
            return s == literal;
        }
        if let Some(Token::Literal(first)) = self.tokens.first()
            && !s.starts_with(*first)
        {
            return false;
        }
        if s.is_ascii() {
            self.matches_text(s.as_bytes())
        } else {
            self.matches_text(&s.chars().collect::<Vec<char>>())
        }
    }

    /// Whether `arg` (`--NAME` or `--NAME=VALUE`) abbreviates the long option this glob
    /// begins with, and the glob matches the option written out with the same value. Every
    /// deny and ask glob meets every `--` argument here: a glob that does not begin with
    /// the argument's name is passed over without building anything.
    fn matches_abbreviated(&self, arg: &str) -> bool {
        let Some(name) = arg.strip_prefix("--") else {
            return false;
        };
        let (name, value) = name
            .split_once('=')
            .map_or((name, ""), |(n, _)| (n, &arg[2 + n.len()..]));
        let begins = self
            .leading_literal()
            .take(2 + name.len())
            .eq(arg[..2 + name.len()].chars());
        if name.is_empty() || !begins {
            return false;
        }
        // The long option's name: letters, digits and dashes (`--upload-pack` of
        // `--upload-pack*`), longer than the argument's.
        let head: String = self
            .leading_literal()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        head.len() > 2 + name.len() && self.matches(&format!("{head}{value}"))
    }

    /// The characters this glob starts with that stand for themselves.
    fn leading_literal(&self) -> impl Iterator<Item = char> + '_ {
        let tokens = self.tokens.iter().map_while(|token| match token {
            Token::Literal(c) => Some(*c),
            _ => None,
        });
        self.literal.iter().flat_map(|l| l.chars()).chain(tokens)
    }

    fn matches_text<C: Copy + Into<char>>(&self, text: &[C]) -> bool {
        let (mut t, mut p) = (0, 0);
        let mut star: Option<(usize, usize)> = None;
        while t < text.len() {
            match self.tokens.get(p) {
                Some(Token::AnyString) => {
                    star = Some((p, t));
                    p += 1;
                }
                Some(token) if token_matches(token, text[t].into()) => {
                    t += 1;
                    p += 1;
                }
                _ => match star {
                    Some((sp, st)) => {
                        p = sp + 1;
                        t = st + 1;
                        star = Some((sp, st + 1));
                    }
                    None => return false,
                },
            }
        }
        self.tokens[p..]
            .iter()
            .all(|token| *token == Token::AnyString)
    }
}

fn token_matches(token: &Token, c: char) -> bool {
    match token {
        Token::Literal(l) => *l == c,
        Token::AnyChar => true,
        Token::AnyString => false,
        Token::Class { negated, items } => {
            let found = items.iter().any(|item| match item {
                ClassItem::Char(x) => *x == c,
                ClassItem::Range(lo, hi) => (*lo..=*hi).contains(&c),
                ClassItem::Named(class) => class.contains(c),
            });
            found != *negated
        }
    }
}

/// Compiles a bracket expression whose `[` was just before `chars[start]`. Returns the token
/// and the index after the closing `]`.
fn compile_class(chars: &[Ch], start: usize) -> Result<(Token, usize), PatternError> {
    let unterminated =
        || PatternError::new("unterminated `[` in glob (write `\\[` for a literal `[`)");
    let mut i = start;
    let mut negated = false;
    if let Some(ch) = chars.get(i)
        && !ch.quoted
        && (ch.c == '!' || ch.c == '^')
    {
        negated = true;
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let Some(&ch) = chars.get(i) else {
            return Err(unterminated());
        };
        if !ch.quoted && ch.c == ']' && !first {
            return Ok((Token::Class { negated, items }, i + 1));
        }
        first = false;
        if !ch.quoted && ch.c == '[' && chars.get(i + 1) == Some(&unquoted(':')) {
            let name_start = i + 2;
            let close = (name_start..chars.len().saturating_sub(1))
                .find(|&j| chars[j] == unquoted(':') && chars[j + 1] == unquoted(']'))
                .ok_or_else(unterminated)?;
            let name: String = chars[name_start..close].iter().map(|ch| ch.c).collect();
            let class = NamedClass::from_name(&name).ok_or_else(|| {
                PatternError::new(format!("unknown character class `[:{name}:]`"))
            })?;
            items.push(ClassItem::Named(class));
            i = close + 2;
            continue;
        }
        let lo = ch.c;
        let is_range = matches!(
            (chars.get(i + 1), chars.get(i + 2)),
            (Some(dash), Some(end)) if *dash == unquoted('-') && *end != unquoted(']')
        );
        if is_range {
            let hi = chars[i + 2].c;
            if hi < lo {
                return Err(PatternError::new(format!(
                    "invalid range `{lo}-{hi}` in `[...]`"
                )));
            }
            items.push(ClassItem::Range(lo, hi));
            i += 3;
        } else {
            items.push(ClassItem::Char(lo));
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(text: &str) -> ArgPattern {
        ArgPattern::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn m(pattern: &str, line: &str) -> bool {
        pat(pattern).matches(&args(line))
    }

    fn err(text: &str) -> String {
        match ArgPattern::parse(text) {
            Ok(p) => panic!("{text:?} parsed: {p:?}"),
            Err(e) => e.message,
        }
    }

    #[test]
    fn accepts_exact_words() {
        assert!(m("status", "status"));
        assert!(!m("status", "status -s"));
        assert!(!m("status", ""));
        assert!(!m("status", "statuses"));
        assert!(m("log --oneline", "log --oneline"));
        assert!(!m("log --oneline", "--oneline log"));
    }

    #[test]
    fn accepts_trailing_any() {
        assert!(m("status:*", "status"));
        assert!(m("status:*", "status -s --porcelain"));
        assert!(!m("status:*", "log status"));
        assert!(m("status :*", "status -s"));
    }

    #[test]
    fn accepts_leading_any() {
        assert!(m("*:-v", "-v"));
        assert!(m("*:-v", "a b -v"));
        assert!(!m("*:-v", "-v a"));
    }

    #[test]
    fn accepts_anywhere() {
        assert!(m("*:-c:*", "-c core.pager=sh log"));
        assert!(m("*:-c:*", "log -c"));
        assert!(m("*:-c:*", "-c"));
        assert!(!m("*:-c:*", "log -cx"));
        assert!(!m("*:-c:*", ""));
        assert!(m("*:a b:*", "x a b y"));
        assert!(!m("*:a b:*", "x a y b"));
        assert!(m("*: -exec :*", "x -exec y"));
    }

    /// Deny and ask entries take abbreviated long options as getopt_long does; allow
    /// entries, and `re:` ones, take arguments as written.
    #[test]
    fn abbreviated_long_options_match_when_spelled_out() {
        let spelled = |pattern: &str, line: &str| pat(pattern).matches_spelled(&args(line));
        assert!(spelled("*:--upload-pack*:*", "ls-remote --u=/tmp/p url"));
        assert!(spelled("*:--upload-pack*:*", "clone --upload --x url"));
        assert!(spelled("*:--textconv:*", "cat-file --text HEAD:f"));
        assert!(spelled("*:--set*:*", "--s=2020-01-01"));
        assert!(spelled("*:--config=*:*", "--co=core.pager=sh"));
        assert!(!spelled("*:--config=*:*", "--co"));
        assert!(!spelled("*:--textconv:*", "--textconvx"));
        assert!(!spelled("*:--textconv:*", "--"));
        assert!(!spelled("*:--textconv:*", "-t"));
        assert!(!spelled("*:--upload-pack*:*", "--verbose"));
        assert!(!spelled("re:.*--upload-pack.*", "--u=x"));
        // Written out in full, or not an option, as `matches` takes it.
        assert!(spelled("*:--textconv:*", "--textconv"));
        assert!(spelled("status:*", "status -s"));
        assert!(!m("*:--upload-pack*:*", "--u=/tmp/p"));
    }

    #[test]
    fn accepts_any_and_empty() {
        assert!(m(":*", ""));
        assert!(m(":*", "a b c"));
        assert!(m("*:", "a b c"));
        assert!(m("*:*", "a"));
        assert!(!m("*:*", ""));
        assert!(m("", ""));
        assert!(!m("", "a"));
        assert!(m("   ", ""));
    }

    #[test]
    fn glob_star_matches_slash_and_equals() {
        assert!(m("--exec-path*:*", "--exec-path=/tmp/x"));
        assert!(m("*", "/etc/passwd"));
        assert!(m("-*", "-"));
        assert!(!m("*", ""));
        assert!(pat("''").matches(&[""]));
        assert!(!pat("''").matches::<&str>(&[]));
        assert!(m("a*b*c", "aXbYbc"));
        assert!(!m("a*b*c", "aXbYbcd"));
        assert!(m("*.rs", "src/lib.rs"));
    }

    #[test]
    fn glob_question_and_classes() {
        assert!(m("-?", "-x"));
        assert!(!m("-?", "-xy"));
        assert!(m("[abc]", "b"));
        assert!(!m("[abc]", "d"));
        assert!(m("[!abc]", "d"));
        assert!(m("[^abc]", "d"));
        assert!(!m("[!abc]", "a"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("[]]", "]"));
        assert!(m("[!]]", "a"));
        assert!(m("[a-]", "-"));
        assert!(m("[[:digit:]]*", "7up"));
        assert!(!m("[[:digit:]]*", "up"));
        assert!(m("é?", "éé"));
        // A character of several bytes is one character, in the text as in the glob.
        assert!(m("-?", "-é"));
        assert!(m("*é", "ééé"));
        assert!(!m("-x?", "-xéé"));
        assert!(m("[!a]b", "éb"));
    }

    #[test]
    fn literal_globs_match_whole_arguments() {
        assert!(m("-exec", "-exec"));
        assert!(!m("-exec", "-execdir"));
        assert!(!m("-exec", "-exe"));
        assert!(m("push", "push"));
        assert!(!m("push*", "pul"));
        assert!(m("é", "é"));
    }

    #[test]
    fn quotes_make_words_and_literals() {
        assert!(!m("'a b'", "x"));
        let p = pat("'a b' \"c d\"");
        assert!(p.matches(&["a b", "c d"]));
        assert!(!p.matches(&["a", "b", "c", "d"]));
        // Quoted and escaped glob characters stand for themselves.
        assert!(pat("'*'").matches(&["*"]));
        assert!(!pat("'*'").matches(&["x"]));
        assert!(pat(r"\*").matches(&["*"]));
        assert!(!pat(r"\*").matches(&["x"]));
        assert!(pat(r"a\ b").matches(&["a b"]));
        assert!(pat(r#""a\"b""#).matches(&["a\"b"]));
        assert!(pat(r"'a\b'").matches(&["a\\b"]));
        assert!(pat("x'y'z").matches(&["xyz"]));
        assert!(pat("'' x").matches(&["", "x"]));
    }

    #[test]
    fn quoted_markers_are_literal() {
        let p = pat("status':*'");
        assert!(p.matches(&["status:*"]));
        assert!(!p.matches(&["status", "x"]));
        let p = pat(r"HEAD\:*");
        assert!(p.matches(&["HEAD:src/main.rs"]));
        assert!(!p.matches(&["HEAD", "x"]));
        let p = pat(r"'*:'x");
        assert!(p.matches(&["*:x"]));
    }

    #[test]
    fn regex_is_anchored_on_joined_args() {
        let p = pat("re:push( .*)?");
        assert!(p.matches(&["push"]));
        assert!(p.matches(&["push", "origin", "main"]));
        assert!(!p.matches(&["log", "push"]));
        assert!(!p.matches(&["pushx"]));
        let p = pat("re:a|b");
        assert!(p.matches(&["a"]));
        assert!(!p.matches(&["a", "b"]));
        assert!(!p.matches(&["xa"]));
        let p = pat("re:-C \\S+ status");
        assert!(p.matches(&["-C", "/tmp", "status"]));
        assert!(pat("re:").matches::<&str>(&[]));
        assert!(!pat("re:").matches(&["x"]));
        assert_eq!(p.text(), "re:-C \\S+ status");
    }

    #[test]
    fn regex_anchoring_survives_multiline_flag() {
        let p = pat("re:(?m)a$");
        assert!(!p.matches(&["a\nb"]));
        assert!(p.matches(&["a"]));
    }

    #[test]
    fn rejects_bad_patterns() {
        assert!(err("'abc").contains("unbalanced ' quote"));
        assert!(err("\"abc").contains("unbalanced \" quote"));
        assert!(err("abc\\").contains("backslash"));
        assert!(err("status:* -s").contains("`:*` may only end"));
        assert!(err("a:*b").contains("`:*` may only end"));
        assert!(err("a *:b").contains("`*:` may only start"));
        assert!(err("[abc").contains("unterminated `[`"));
        assert!(err("[]").contains("unterminated `[`"));
        assert!(err("[[:nope:]]").contains("unknown character class"));
        assert!(err("[z-a]").contains("invalid range"));
        assert!(err("re:(").contains("invalid regular expression"));
    }

    #[test]
    fn splits_rule_command_word() {
        assert_eq!(
            split_command_word("npm run test:*").unwrap(),
            ("npm".to_owned(), "run test:*")
        );
        assert_eq!(split_command_word("ls").unwrap(), ("ls".to_owned(), ""));
        assert_eq!(
            split_command_word("  '/opt/my tool'  :*").unwrap(),
            ("/opt/my tool".to_owned(), ":*")
        );
        assert_eq!(
            split_command_word("git re:.*").unwrap(),
            ("git".to_owned(), "re:.*")
        );
        assert!(split_command_word("   ").is_err());
        assert!(split_command_word("'' x").is_err());
        assert!(split_command_word("'x").is_err());
    }
}
