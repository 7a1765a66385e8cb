//! Bash pattern matching: `*`, `?`, bracket expressions and, with extglob,
//! `?(…)` `*(…)` `+(…)` `@(…)` `!(…)`.
//!
//! Used by `case`, `[[ == ]]`, `${x#p}` `${x%p}` `${x/p/r}` and pathname
//! expansion. Pattern text arrives escaped: every character that must be
//! taken literally is preceded by a backslash, so quoting is already
//! resolved. This module only matches strings; it must not touch the
//! filesystem, know about quoting syntax, or ever panic or run in
//! exponential time, whatever the pattern and subject.
//!
//! Matching works on sets of positions: each pattern element maps the set of
//! positions reachable before it to the set reachable after it. That keeps
//! every pattern polynomial (`*a*a*a*b` included) and gives prefix, suffix
//! and substring searches for free. Plain patterns without extglob groups use
//! a backtracking matcher that only remembers the last star, which is faster
//! for the common whole-string case.
//!
//! Character classes follow glibc's C.UTF-8 tables as closely as Rust's
//! Unicode properties allow; ranges compare code points (bash's default
//! `globasciiranges`).

/// Options that change how a pattern matches.
#[derive(Debug, Clone, Copy, Default)]
pub struct PatternOpts {
    /// Recognise `?(…)` `*(…)` `+(…)` `@(…)` `!(…)` (`shopt -s extglob`).
    pub extglob: bool,
    /// Compare letters without regard to case (`nocasematch`, `nocaseglob`).
    pub nocase: bool,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    nodes: Vec<Node>,
    nocase: bool,
    has_groups: bool,
    /// The most characters a match can span, when that is bounded.
    max_len: Option<usize>,
}

#[derive(Debug, Clone)]
enum Node {
    /// A literal character, already case-folded when matching without case.
    Char(char),
    /// A literal character compared exactly: the text of a malformed extglob
    /// group, which bash compares as a plain string.
    Exact(char),
    Any,
    Star,
    Set(Bracket),
    /// A bracket expression bash rejects outright (a trailing backslash or an
    /// unfinished range inside it): nothing can match from here on.
    Never,
    Group(GroupKind, Vec<Vec<Node>>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum GroupKind {
    ZeroOrOne,
    ZeroOrMore,
    OneOrMore,
    ExactlyOne,
    NoneOf,
}

#[derive(Debug, Clone)]
struct Bracket {
    negated: bool,
    items: Vec<Item>,
}

#[derive(Debug, Clone)]
enum Item {
    Char(char),
    Range(char, char),
    Class(Class),
    /// An element that matches nothing (an invalid class or collating
    /// symbol, a reversed range) but still belongs to the expression.
    Nothing,
}

#[derive(Debug, Clone, Copy)]
enum Class {
    Alnum,
    Alpha,
    Ascii,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Word,
    Xdigit,
}

impl Pattern {
    /// Compiles escaped pattern text. Never fails: malformed constructs
    /// match the way bash matches them (usually literally).
    pub fn new(src: &str, opts: PatternOpts) -> Pattern {
        let chars: Vec<char> = src.chars().collect();
        let nodes = parse_seq(&chars, opts);
        let has_groups = nodes.iter().any(|n| matches!(n, Node::Group(..)));
        let max_len = max_len(&nodes);
        Pattern {
            nodes,
            nocase: opts.nocase,
            has_groups,
            max_len,
        }
    }

    /// Whether the whole of `s` matches.
    pub fn matches(&self, s: &str) -> bool {
        self.matches_subject(&Subject::new(s, self.nocase), false)
    }

    /// Whether the file name `name` matches under pathname-expansion rules:
    /// unless `dotglob`, a leading `.` must be matched by a literal `.`
    /// (wildcards, bracket expressions and `!(…)` never match it).
    pub fn matches_name(&self, name: &str, dotglob: bool) -> bool {
        let leading_dot = !dotglob && name.starts_with('.');
        self.matches_subject(&Subject::new(name, self.nocase), leading_dot)
    }

    fn matches_subject(&self, subj: &Subject, leading_dot: bool) -> bool {
        if !self.has_groups {
            return simple_match(&self.nodes, subj, leading_dot);
        }
        let engine = Engine { subj, leading_dot };
        let ends = engine.run(&self.nodes, Bits::single(subj.len() + 1, 0));
        ends.contains(subj.len())
    }

    /// `${x#p}` and `${x##p}`: the byte length of the shortest (or longest)
    /// prefix of `s` that matches, if any does.
    pub fn prefix_len(&self, s: &str, longest: bool) -> Option<usize> {
        let subj = Subject::new(s, self.nocase);
        let engine = Engine {
            subj: &subj,
            leading_dot: false,
        };
        let ends = engine.run(&self.nodes, Bits::single(subj.len() + 1, 0));
        let end = if longest { ends.last() } else { ends.first() }?;
        Some(byte_offsets(s)[end])
    }

    /// `${x%p}` and `${x%%p}`: the byte index where the shortest (or longest)
    /// matching suffix of `s` starts, if any suffix matches.
    pub fn suffix_start(&self, s: &str, longest: bool) -> Option<usize> {
        // Matching the reversed pattern against the reversed string turns
        // suffixes into prefixes, so one pass finds them all.
        let subj = Subject::new(s, self.nocase);
        let rev = subj.reversed();
        let engine = Engine {
            subj: &rev,
            leading_dot: false,
        };
        let lens = engine.run(&reverse_seq(&self.nodes), Bits::single(rev.len() + 1, 0));
        let len = if longest { lens.last() } else { lens.first() }?;
        Some(byte_offsets(s)[subj.len() - len])
    }

    /// `${x/p/r}`: the leftmost match starting at or after byte `from`, the
    /// longest one at that position, as a byte range. A `from` inside a
    /// character counts from the next character.
    pub fn find(&self, s: &str, from: usize) -> Option<(usize, usize)> {
        let mut from = from;
        while !s.is_char_boundary(from) {
            if from > s.len() {
                return None;
            }
            from += 1;
        }
        // Nothing before `from` can take part in a match, so callers that
        // step through a string pay only for the part they search.
        let rest = &s[from..];
        let (start, end) = if let Some(max) = self.max_len {
            self.find_bounded(rest, max)?
        } else {
            let subj = Subject::new(rest, self.nocase);
            let start = self.match_starts(&subj).first()?;
            let engine = Engine {
                subj: &subj,
                leading_dot: false,
            };
            let end = engine
                .run(&self.nodes, Bits::single(subj.len() + 1, start))
                .last()?;
            let offsets = byte_offsets(rest);
            (offsets[start], offsets[end])
        };
        Some((from + start, from + end))
    }

    /// `find` for patterns whose matches span at most `max` characters:
    /// tries each start in turn against only the next `max` characters and
    /// stops at the first match, so the cost does not depend on how much of
    /// the string lies beyond it.
    fn find_bounded(&self, s: &str, max: usize) -> Option<(usize, usize)> {
        let starts = s.char_indices().map(|(b, _)| b).chain([s.len()]);
        for start in starts {
            let window_end = s[start..]
                .char_indices()
                .nth(max)
                .map_or(s.len(), |(b, _)| start + b);
            let window = &s[start..window_end];
            let subj = Subject::new(window, self.nocase);
            let engine = Engine {
                subj: &subj,
                leading_dot: false,
            };
            let ends = engine.run(&self.nodes, Bits::single(subj.len() + 1, 0));
            if let Some(end) = ends.last() {
                return Some((start, start + byte_offsets(window)[end]));
            }
        }
        None
    }

    /// `${x//p/r}`: every match bash replaces, left to right, as byte
    /// ranges. Each is the longest at the leftmost position not inside an
    /// earlier match; after an empty match the search moves on one
    /// character, and no empty match is reported at the very end.
    pub fn find_all(&self, s: &str) -> Vec<(usize, usize)> {
        if self.max_len.is_some() {
            // Searching on from each match costs only what it scans.
            return self.find_all_stepwise(s);
        }
        let subj = Subject::new(s, self.nocase);
        let n = subj.len();
        let starts = self.match_starts(&subj);
        let engine = Engine {
            subj: &subj,
            leading_dot: false,
        };
        let offsets = byte_offsets(s);
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(start) = starts.next_from(from).filter(|&p| p < n) {
            let Some(end) = engine.run(&self.nodes, Bits::single(n + 1, start)).last() else {
                break;
            };
            out.push((offsets[start], offsets[end]));
            from = if end > start { end } else { start + 1 };
        }
        out
    }

    /// `find_all` by searching on from the end of each match.
    fn find_all_stepwise(&self, s: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut from = 0;
        while from < s.len() {
            let Some((start, end)) = self.find(s, from) else {
                break;
            };
            if start == s.len() {
                break;
            }
            out.push((start, end));
            from = if end > start {
                end
            } else {
                start + s[start..].chars().next().map_or(1, char::len_utf8)
            };
        }
        out
    }

    /// Every position where some match starts, found in one pass by running
    /// the reversed pattern over the reversed string from every position.
    fn match_starts(&self, subj: &Subject) -> Bits {
        let n = subj.len();
        let rev = subj.reversed();
        let engine = Engine {
            subj: &rev,
            leading_dot: false,
        };
        let mut all = Bits::new(n + 1);
        all.fill_range(0, n + 1);
        let reached = engine.run(&reverse_seq(&self.nodes), all);
        // Reversed position q is original position n - q.
        let mut starts = Bits::new(n + 1);
        for q in reached.iter() {
            starts.insert(n - q);
        }
        starts
    }
}

/// Whether escaped pattern text contains an unescaped special character, so
/// that it needs matching rather than comparison. Like bash, a `[` counts
/// only when a `]` follows it.
pub fn has_glob_chars(src: &str, extglob: bool) -> bool {
    let chars: Vec<char> = src.chars().collect();
    let mut open_bracket = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '*' | '?' => return true,
            '[' => open_bracket = true,
            ']' if open_bracket => return true,
            '+' | '@' | '!' if extglob && chars.get(i + 1) == Some(&'(') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// The literal text of escaped pattern text: escaping backslashes dropped,
/// a trailing lone backslash kept.
pub fn unescape(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(chars.next().unwrap_or('\\'));
        } else {
            out.push(c);
        }
    }
    out
}

/// Escapes `s` so that, as a pattern, it matches only itself.
/// `-` and `^` are escaped too: inside a bracket expression a quoted `\-` stays a hyphen.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '*' | '?' | '[' | ']' | '(' | ')' | '|' | '+' | '@' | '!' | '-' | '^'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

// ---------------------------------------------------------------------------
// Parsing

fn parse_seq(src: &[char], opts: PatternOpts) -> Vec<Node> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let c = src[i];
        if opts.extglob && src.get(i + 1) == Some(&'(') {
            if let Some(kind) = group_kind(c) {
                match scan_group(src, i + 2) {
                    Some((alts, end)) => {
                        let alts = alts
                            .into_iter()
                            .map(|(a, b)| parse_seq(&src[a..b], opts))
                            .collect();
                        out.push(Node::Group(kind, alts));
                        i = end;
                    }
                    None => {
                        // bash compares the rest of an unclosed group's
                        // pattern with the rest of the string as plain text.
                        out.extend(src[i..].iter().map(|&c| Node::Exact(c)));
                        i = src.len();
                    }
                }
                continue;
            }
        }
        match c {
            '\\' => {
                let lit = src.get(i + 1).copied().unwrap_or('\\');
                out.push(Node::Char(fold(lit, opts.nocase)));
                i += 2;
            }
            '*' => {
                if !matches!(out.last(), Some(Node::Star)) {
                    out.push(Node::Star);
                }
                i += 1;
            }
            '?' => {
                out.push(Node::Any);
                i += 1;
            }
            '[' => match parse_bracket(src, i + 1, opts.nocase) {
                BracketParse::Set(set, end) => {
                    out.push(Node::Set(set));
                    i = end;
                }
                BracketParse::Unclosed => {
                    out.push(Node::Char('['));
                    i += 1;
                }
                BracketParse::Never => {
                    out.push(Node::Never);
                    i = src.len();
                }
            },
            _ => {
                out.push(Node::Char(fold(c, opts.nocase)));
                i += 1;
            }
        }
    }
    out
}

/// The most characters `seq` can match, or None when a star or a repeating
/// group makes it unbounded.
fn max_len(seq: &[Node]) -> Option<usize> {
    let mut total = 0usize;
    for node in seq {
        total = total.checked_add(match node {
            Node::Star => return None,
            Node::Group(GroupKind::ExactlyOne | GroupKind::ZeroOrOne, alts) => {
                let mut longest = 0;
                for alt in alts {
                    longest = longest.max(max_len(alt)?);
                }
                longest
            }
            Node::Group(..) => return None,
            _ => 1,
        })?;
    }
    Some(total)
}

fn group_kind(c: char) -> Option<GroupKind> {
    Some(match c {
        '?' => GroupKind::ZeroOrOne,
        '*' => GroupKind::ZeroOrMore,
        '+' => GroupKind::OneOrMore,
        '@' => GroupKind::ExactlyOne,
        '!' => GroupKind::NoneOf,
        _ => return None,
    })
}

/// Finds the alternatives of an extglob group whose text starts at `start`
/// (just past the `(`), as bash's scanner does: nested parentheses and
/// bracket expressions are skipped, backslashes escape. Returns the index
/// ranges of the alternatives and the index just past the closing `)`.
fn scan_group(src: &[char], start: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    let mut alts = Vec::new();
    let mut alt_start = start;
    let mut parens = 0usize;
    let mut in_bracket = false;
    let mut bracket_first = 0usize;
    let mut class_char: Option<char> = None;
    let mut i = start;
    while i < src.len() {
        match src[i] {
            '\\' => i += 1,
            '[' if !in_bracket => {
                in_bracket = true;
                bracket_first = i + 1;
                if matches!(src.get(i + 1), Some('!' | '^')) {
                    bracket_first += 1;
                }
            }
            '[' => {
                if let Some(&k @ (':' | '.' | '=')) = src.get(i + 1) {
                    class_char = Some(k);
                }
            }
            ']' if in_bracket => {
                if class_char.is_some() && class_char == Some(src[i - 1]) {
                    class_char = None;
                } else if i != bracket_first {
                    in_bracket = false;
                }
            }
            '(' if !in_bracket => parens += 1,
            ')' if !in_bracket => {
                if parens == 0 {
                    alts.push((alt_start, i));
                    return Some((alts, i + 1));
                }
                parens -= 1;
            }
            '|' if !in_bracket && parens == 0 => {
                alts.push((alt_start, i));
                alt_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

enum BracketParse {
    /// A bracket expression and the index just past its `]`.
    Set(Bracket, usize),
    /// No closing `]`: the `[` is an ordinary character.
    Unclosed,
    Never,
}

/// Parses a bracket expression whose body starts at `start` (just past the
/// `[`), following the order of checks in bash's matcher so malformed
/// expressions behave the same.
fn parse_bracket(src: &[char], start: usize, nocase: bool) -> BracketParse {
    let at = |k: usize| src.get(k).copied();
    let mut p = start;
    let negated = matches!(at(p), Some('!' | '^'));
    if negated {
        p += 1;
    }
    let mut items = Vec::new();
    // `c` is the first character of the element being read; `p` is the
    // index after it. A `]` read here as the first element is literal.
    let mut c = at(p);
    p += 1;
    loop {
        let Some(ch) = c else {
            return BracketParse::Unclosed;
        };
        if ch == '[' && at(p) == Some('=') && at(p + 2) == Some('=') && at(p + 3) == Some(']') {
            // `[=c=]`: only single characters, which collate alone here.
            // A `]` right after it always closes the expression; bash only
            // notices that close when the class matched.
            items.push(Item::Char(fold(src[p + 1], nocase)));
            p += 4;
            c = at(p);
            p += 1;
            match c {
                None => return BracketParse::Unclosed,
                Some(']') => break,
                _ => continue,
            }
        }
        if ch == '[' && at(p) == Some(':') {
            if let Some(close) = find_pair(src, p + 1, ':') {
                let name = unescape(&src[p + 1..close].iter().collect::<String>());
                items.push(Class::by_name(&name).map_or(Item::Nothing, Item::Class));
                p = close + 2;
            }
            c = at(p);
            p += 1;
            match c {
                None => return BracketParse::Unclosed,
                Some(']') => break,
                _ => continue,
            }
        }
        let mut first = Some(ch);
        if ch == '[' && at(p) == Some('.') {
            let (value, next) = parse_collating_symbol(src, p);
            first = value;
            p = next;
        } else if ch == '\\' {
            let Some(escaped) = at(p) else {
                return BracketParse::Never;
            };
            first = Some(escaped);
            p += 1;
        }
        let Some(next) = at(p) else {
            return BracketParse::Unclosed;
        };
        p += 1;
        if next == '-' && at(p) != Some(']') {
            let mut last = at(p);
            p += 1;
            if last == Some('\\') {
                last = at(p);
                p += 1;
            }
            let Some(last_ch) = last else {
                return BracketParse::Never;
            };
            let mut last = Some(last_ch);
            if last_ch == '[' && at(p) == Some('.') {
                let (value, after) = parse_collating_symbol(src, p);
                last = value;
                p = after;
            }
            items.push(range_item(first, last, nocase));
            c = at(p);
            p += 1;
        } else {
            items.push(first.map_or(Item::Nothing, |f| Item::Char(fold(f, nocase))));
            c = Some(next);
        }
        if c == Some(']') {
            break;
        }
    }
    BracketParse::Set(Bracket { negated, items }, p)
}

fn range_item(first: Option<char>, last: Option<char>, nocase: bool) -> Item {
    match (first, last) {
        (Some(a), Some(b)) => {
            let (a, b) = (fold(a, nocase), fold(b, nocase));
            if a <= b {
                Item::Range(a, b)
            } else {
                // A reversed range matches nothing; the rest still counts.
                Item::Nothing
            }
        }
        _ => Item::Nothing,
    }
}

/// The index of the first `delim` followed by `]` at or after `from`.
fn find_pair(src: &[char], from: usize, delim: char) -> Option<usize> {
    (from..src.len().saturating_sub(1)).find(|&k| src[k] == delim && src[k + 1] == ']')
}

/// Parses `[.name.]` with `p` at the `.`; returns the character it names
/// (None when invalid or unterminated) and the index after it.
fn parse_collating_symbol(src: &[char], p: usize) -> (Option<char>, usize) {
    match find_pair(src, p + 1, '.') {
        Some(close) => {
            let name: String = src[p + 1..close].iter().collect();
            (collating_symbol(&name), close + 2)
        }
        None => (None, src.len()),
    }
}

fn collating_symbol(name: &str) -> Option<char> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        return Some(c);
    }
    COLLATING_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, c)| c)
}

/// The POSIX names of the portable character set, as bash accepts them in
/// `[.name.]`.
const COLLATING_NAMES: &[(&str, char)] = &[
    ("NUL", '\0'),
    ("SOH", '\x01'),
    ("STX", '\x02'),
    ("ETX", '\x03'),
    ("EOT", '\x04'),
    ("ENQ", '\x05'),
    ("ACK", '\x06'),
    ("alert", '\x07'),
    ("BEL", '\x07'),
    ("backspace", '\x08'),
    ("tab", '\t'),
    ("newline", '\n'),
    ("vertical-tab", '\x0b'),
    ("form-feed", '\x0c'),
    ("carriage-return", '\r'),
    ("SO", '\x0e'),
    ("SI", '\x0f'),
    ("DLE", '\x10'),
    ("DC1", '\x11'),
    ("DC2", '\x12'),
    ("DC3", '\x13'),
    ("DC4", '\x14'),
    ("NAK", '\x15'),
    ("SYN", '\x16'),
    ("ETB", '\x17'),
    ("CAN", '\x18'),
    ("EM", '\x19'),
    ("SUB", '\x1a'),
    ("ESC", '\x1b'),
    ("IS4", '\x1c'),
    ("FS", '\x1c'),
    ("IS3", '\x1d'),
    ("GS", '\x1d'),
    ("IS2", '\x1e'),
    ("RS", '\x1e'),
    ("IS1", '\x1f'),
    ("US", '\x1f'),
    ("space", ' '),
    ("exclamation-mark", '!'),
    ("quotation-mark", '"'),
    ("number-sign", '#'),
    ("dollar-sign", '$'),
    ("percent-sign", '%'),
    ("ampersand", '&'),
    ("apostrophe", '\''),
    ("left-parenthesis", '('),
    ("right-parenthesis", ')'),
    ("asterisk", '*'),
    ("plus-sign", '+'),
    ("comma", ','),
    ("hyphen", '-'),
    ("hyphen-minus", '-'),
    ("period", '.'),
    ("full-stop", '.'),
    ("slash", '/'),
    ("solidus", '/'),
    ("zero", '0'),
    ("one", '1'),
    ("two", '2'),
    ("three", '3'),
    ("four", '4'),
    ("five", '5'),
    ("six", '6'),
    ("seven", '7'),
    ("eight", '8'),
    ("nine", '9'),
    ("colon", ':'),
    ("semicolon", ';'),
    ("less-than-sign", '<'),
    ("equals-sign", '='),
    ("greater-than-sign", '>'),
    ("question-mark", '?'),
    ("commercial-at", '@'),
    ("left-square-bracket", '['),
    ("backslash", '\\'),
    ("reverse-solidus", '\\'),
    ("right-square-bracket", ']'),
    ("circumflex", '^'),
    ("circumflex-accent", '^'),
    ("underscore", '_'),
    ("low-line", '_'),
    ("grave-accent", '`'),
    ("left-brace", '{'),
    ("left-curly-bracket", '{'),
    ("vertical-line", '|'),
    ("right-brace", '}'),
    ("right-curly-bracket", '}'),
    ("tilde", '~'),
    ("DEL", '\x7f'),
];

/// Lower-cases `c` when matching without case. Characters whose lower case
/// is more than one character stay as they are.
fn fold(c: char, nocase: bool) -> char {
    if !nocase {
        return c;
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

fn reverse_seq(seq: &[Node]) -> Vec<Node> {
    seq.iter()
        .rev()
        .map(|node| match node {
            Node::Group(kind, alts) => {
                Node::Group(*kind, alts.iter().map(|alt| reverse_seq(alt)).collect())
            }
            other => other.clone(),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Character tests

impl Bracket {
    /// `orig` is the subject character, `folded` its case-folded form; items
    /// were folded when parsed, but classes test the original character, as
    /// in bash (`[[:upper:]]` never matches `a`, even under nocasematch).
    fn matches(&self, orig: char, folded: char) -> bool {
        let hit = self.items.iter().any(|item| match *item {
            Item::Char(c) => c == folded,
            Item::Range(a, b) => a <= folded && folded <= b,
            Item::Class(class) => class.contains(orig),
            Item::Nothing => false,
        });
        hit != self.negated
    }
}

impl Class {
    fn by_name(name: &str) -> Option<Class> {
        Some(match name {
            "alnum" => Class::Alnum,
            "alpha" => Class::Alpha,
            "ascii" => Class::Ascii,
            "blank" => Class::Blank,
            "cntrl" => Class::Cntrl,
            "digit" => Class::Digit,
            "graph" => Class::Graph,
            "lower" => Class::Lower,
            "print" => Class::Print,
            "punct" => Class::Punct,
            "space" => Class::Space,
            "upper" => Class::Upper,
            "word" => Class::Word,
            "xdigit" => Class::Xdigit,
            _ => return None,
        })
    }

    fn contains(self, c: char) -> bool {
        match self {
            Class::Alnum => is_alpha(c) || c.is_ascii_digit(),
            Class::Alpha => is_alpha(c),
            Class::Ascii => c.is_ascii(),
            Class::Blank => is_blank(c),
            Class::Cntrl => is_cntrl(c),
            Class::Digit => c.is_ascii_digit(),
            Class::Graph => is_print(c) && !is_space(c),
            Class::Lower => c.is_lowercase() || c.to_uppercase().next() != Some(c),
            Class::Print => is_print(c),
            Class::Punct => is_print(c) && !is_space(c) && !is_alpha(c) && !c.is_ascii_digit(),
            Class::Space => is_space(c),
            Class::Upper => c.is_uppercase() || c.to_lowercase().next() != Some(c),
            Class::Word => c == '_' || is_alpha(c) || c.is_ascii_digit(),
            Class::Xdigit => c.is_ascii_hexdigit(),
        }
    }
}

/// glibc counts letters and the decimal digits of other scripts as alpha
/// (its digit class is ASCII only), but not superscripts and fractions.
fn is_alpha(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    c.is_alphabetic() || (c.is_numeric() && !matches!(c, '²' | '³' | '¹' | '¼' | '½' | '¾'))
}

fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\n'
            | '\x0b'
            | '\x0c'
            | '\r'
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

fn is_blank(c: char) -> bool {
    is_space(c) && !matches!(c, '\n' | '\x0b' | '\x0c' | '\r' | '\u{2028}' | '\u{2029}')
}

fn is_cntrl(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

fn is_print(c: char) -> bool {
    !is_cntrl(c)
}

// ---------------------------------------------------------------------------
// Matching

/// The string being matched, as characters, with a case-folded copy when
/// matching without case.
struct Subject {
    orig: Vec<char>,
    folded: Option<Vec<char>>,
}

impl Subject {
    fn new(s: &str, nocase: bool) -> Subject {
        let orig: Vec<char> = s.chars().collect();
        let folded = nocase.then(|| orig.iter().map(|&c| fold(c, true)).collect());
        Subject { orig, folded }
    }

    fn reversed(&self) -> Subject {
        let rev = |v: &Vec<char>| v.iter().rev().copied().collect::<Vec<char>>();
        Subject {
            orig: rev(&self.orig),
            folded: self.folded.as_ref().map(rev),
        }
    }

    fn len(&self) -> usize {
        self.orig.len()
    }

    fn folded(&self, i: usize) -> char {
        match &self.folded {
            Some(f) => f[i],
            None => self.orig[i],
        }
    }

    /// Whether a single-character node matches the character at `i`.
    fn accepts(&self, node: &Node, i: usize, leading_dot: bool) -> bool {
        accepts(node, self.orig[i], self.folded(i), leading_dot && i == 0)
    }
}

/// The byte offset in `s` of each character index, and of the end.
fn byte_offsets(s: &str) -> Vec<usize> {
    let mut offsets: Vec<usize> = s.char_indices().map(|(b, _)| b).collect();
    offsets.push(s.len());
    offsets
}

/// Whole-string match for patterns without groups: walks pattern and string
/// together and, on a mismatch, retries from the last star one character
/// further on. Earlier stars never need revisiting, so this is O(n·m).
fn simple_match(nodes: &[Node], subj: &Subject, leading_dot: bool) -> bool {
    let n = subj.len();
    let (mut p, mut i) = (0, 0);
    let mut retry: Option<(usize, usize)> = None;
    loop {
        if p < nodes.len() {
            if let Node::Star = nodes[p] {
                if leading_dot && i == 0 {
                    return false;
                }
                retry = Some((p + 1, i));
                p += 1;
                continue;
            }
            if i < n && subj.accepts(&nodes[p], i, leading_dot) {
                p += 1;
                i += 1;
                continue;
            }
        } else if i == n {
            return true;
        }
        match retry {
            Some((rp, ri)) if ri < n => {
                retry = Some((rp, ri + 1));
                p = rp;
                i = ri + 1;
            }
            _ => return false,
        }
    }
}

/// Whether a single-character node matches `orig` (`folded` when compared
/// without case). `wildcards_barred` says the character is a file name's
/// leading dot, which only a literal `.` may match.
fn accepts(node: &Node, orig: char, folded: char, wildcards_barred: bool) -> bool {
    match node {
        Node::Char(c) => *c == folded,
        Node::Exact(c) => *c == orig,
        Node::Any => !wildcards_barred,
        Node::Set(set) => !wildcards_barred && set.matches(orig, folded),
        Node::Star | Node::Never | Node::Group(..) => false,
    }
}

/// The set-of-positions matcher.
struct Engine<'a> {
    subj: &'a Subject,
    /// The subject is a file name starting with `.` that wildcards may not
    /// match.
    leading_dot: bool,
}

impl Engine<'_> {
    /// The positions reachable after matching `seq` from any position in
    /// `set`.
    fn run(&self, seq: &[Node], mut set: Bits) -> Bits {
        for node in seq {
            if set.is_empty() {
                break;
            }
            set = self.step(node, set);
        }
        set
    }

    fn step(&self, node: &Node, set: Bits) -> Bits {
        let n = self.subj.len();
        let mut out = Bits::new(n + 1);
        match node {
            Node::Star => {
                let mut starts = set.iter();
                let mut from = starts.next();
                if self.leading_dot && from == Some(0) {
                    // A star cannot start at a leading dot, not even to
                    // match nothing.
                    from = starts.next();
                }
                if let Some(from) = from {
                    out.fill_range(from, n + 1);
                }
            }
            Node::Group(kind, alts) => return self.group(*kind, alts, set),
            Node::Never => {}
            _ => {
                for p in set.iter().filter(|&p| p < n) {
                    if self.subj.accepts(node, p, self.leading_dot) {
                        out.insert(p + 1);
                    }
                }
            }
        }
        out
    }

    fn any_of(&self, alts: &[Vec<Node>], set: &Bits) -> Bits {
        let mut out = Bits::new(set.len);
        for alt in alts {
            out.union_with(&self.run(alt, set.clone()));
        }
        out
    }

    fn group(&self, kind: GroupKind, alts: &[Vec<Node>], set: Bits) -> Bits {
        match kind {
            GroupKind::ExactlyOne => self.any_of(alts, &set),
            GroupKind::ZeroOrOne => {
                let mut out = self.any_of(alts, &set);
                out.union_with(&set);
                out
            }
            GroupKind::ZeroOrMore => self.repeat(alts, set),
            GroupKind::OneOrMore => {
                let once = self.any_of(alts, &set);
                self.repeat(alts, once)
            }
            GroupKind::NoneOf => self.none_of(alts, &set),
        }
    }

    /// Closure of `set` under the alternatives; only newly reached positions
    /// are fed back in, so this ends after at most n+1 rounds.
    fn repeat(&self, alts: &[Vec<Node>], set: Bits) -> Bits {
        let mut reached = set.clone();
        let mut frontier = set;
        loop {
            let mut next = self.any_of(alts, &frontier);
            next.remove_all(&reached);
            if next.is_empty() {
                return reached;
            }
            reached.union_with(&next);
            frontier = next;
        }
    }

    /// `!(…)`: from each start, every end whose substring no alternative
    /// matches.
    fn none_of(&self, alts: &[Vec<Node>], set: &Bits) -> Bits {
        let n = self.subj.len();
        let mut out = Bits::new(n + 1);
        for p in set.iter() {
            if self.leading_dot && p == 0 {
                continue;
            }
            let matched = self.any_of(alts, &Bits::single(n + 1, p));
            out.union_complement_from(&matched, p);
        }
        out
    }
}

/// A fixed-size set of positions 0..len.
#[derive(Debug, Clone)]
struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    fn single(len: usize, p: usize) -> Bits {
        let mut b = Bits::new(len);
        b.insert(p);
        b
    }

    fn insert(&mut self, p: usize) {
        if p < self.len {
            self.words[p / 64] |= 1 << (p % 64);
        }
    }

    fn contains(&self, p: usize) -> bool {
        p < self.len && self.words[p / 64] & (1 << (p % 64)) != 0
    }

    fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Adds every position in `from..to`.
    fn fill_range(&mut self, from: usize, to: usize) {
        let to = to.min(self.len);
        let mut p = from;
        while p < to {
            if p % 64 == 0 && p + 64 <= to {
                self.words[p / 64] = u64::MAX;
                p += 64;
            } else {
                self.insert(p);
                p += 1;
            }
        }
    }

    fn union_with(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    fn remove_all(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// Adds every position at or after `from` that is not in `other`.
    fn union_complement_from(&mut self, other: &Bits, from: usize) {
        let last_bits = self.len % 64;
        let count = self.words.len();
        for (k, (a, b)) in self.words.iter_mut().zip(&other.words).enumerate() {
            let mut add = !b;
            let base = k * 64;
            if base + 64 <= from {
                continue;
            }
            if from > base {
                add &= u64::MAX << (from - base);
            }
            if k + 1 == count && last_bits != 0 {
                add &= (1u64 << last_bits) - 1;
            }
            *a |= add;
        }
    }

    fn first(&self) -> Option<usize> {
        self.next_from(0)
    }

    /// The smallest position at or after `from`.
    fn next_from(&self, from: usize) -> Option<usize> {
        let mut k = from / 64;
        let mut word = *self.words.get(k)? & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some(k * 64 + word.trailing_zeros() as usize);
            }
            k += 1;
            word = *self.words.get(k)?;
        }
    }

    fn last(&self) -> Option<usize> {
        let (k, w) = self
            .words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)?;
        Some(k * 64 + 63 - w.leading_zeros() as usize)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(k * 64 + bit)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The expectations in these tables are what bash 5.2 answers for
    // `case $subject in $pattern)` and `${subject#$pattern}` and friends.
    // (bash's `[[ == ]]` always matches as if extglob were on.)

    fn opts(extglob: bool, nocase: bool) -> PatternOpts {
        PatternOpts { extglob, nocase }
    }

    fn check_matches(cases: &[(&str, &str, bool)], opts: PatternOpts) {
        let mut wrong = Vec::new();
        for &(pat, subject, want) in cases {
            if Pattern::new(pat, opts).matches(subject) != want {
                wrong.push((pat, subject, want));
            }
        }
        assert!(wrong.is_empty(), "disagrees with bash: {wrong:?}");
    }

    #[test]
    fn plain_patterns_match_like_bash() {
        // The last cases show group syntax as ordinary text and wildcards.
        check_matches(PLAIN_CASES, opts(false, false));
    }

    #[test]
    fn extglob_patterns_match_like_bash() {
        check_matches(EXTGLOB_CASES, opts(true, false));
    }

    #[test]
    fn nocase_patterns_match_like_bash() {
        check_matches(NOCASE_CASES, opts(true, true));
    }

    type OpsCase = (
        &'static str,
        &'static str,
        Option<usize>,
        Option<usize>,
        Option<usize>,
        Option<usize>,
        Option<&'static [(usize, usize)]>,
    );

    fn check_ops(cases: &[OpsCase], opts: PatternOpts) {
        for &(pat, s, short_pre, long_pre, short_suf, long_suf, all) in cases {
            let p = Pattern::new(pat, opts);
            assert_eq!(p.prefix_len(s, false), short_pre, "{pat} # {s}");
            assert_eq!(p.prefix_len(s, true), long_pre, "{pat} ## {s}");
            assert_eq!(p.suffix_start(s, false), short_suf, "{pat} % {s}");
            assert_eq!(p.suffix_start(s, true), long_suf, "{pat} %% {s}");
            if let Some(all) = all {
                assert_eq!(p.find_all(s), all, "{pat} // {s}");
                assert_eq!(p.find(s, 0), all.first().copied(), "{pat} / {s}");
            }
        }
    }

    #[test]
    fn prefix_suffix_and_replace_positions_like_bash() {
        check_ops(OPS_CASES, opts(false, false));
        check_ops(OPS_EXTGLOB_CASES, opts(true, false));
    }

    #[test]
    fn find_starts_at_or_after_from() {
        let p = Pattern::new("b*", PatternOpts::default());
        assert_eq!(p.find("abcb", 0), Some((1, 4)));
        assert_eq!(p.find("abcb", 2), Some((3, 4)));
        assert_eq!(p.find("abcb", 4), None);
        assert_eq!(p.find("abcb", 5), None);
        // A `from` inside a character counts from the next one.
        let q = Pattern::new("?", PatternOpts::default());
        assert_eq!(q.find("éa", 1), Some((2, 3)));
        // The empty match at the end is found when asked for, but not
        // replaced by `//`.
        let e = Pattern::new("*", PatternOpts::default());
        assert_eq!(e.find("ab", 2), Some((2, 2)));
        for pat in ["?(z)", "*(z)"] {
            let p = Pattern::new(pat, opts(true, false));
            assert_eq!(p.find_all("éa"), [(0, 0), (2, 2)], "{pat}");
        }
    }

    #[test]
    fn nocase_applies_to_every_operation() {
        let p = Pattern::new("A*", opts(false, true));
        assert_eq!(p.prefix_len("abcA", true), Some(4));
        assert_eq!(p.suffix_start("abcA", false), Some(3));
        assert_eq!(p.find("xaB", 0), Some((1, 3)));
    }

    #[test]
    fn file_names_need_an_explicit_leading_dot() {
        let name = |pat: &str, extglob: bool, name: &str, dotglob: bool| {
            Pattern::new(pat, opts(extglob, false)).matches_name(name, dotglob)
        };
        assert!(!name("*", false, ".x", false));
        assert!(name("*", false, ".x", true));
        assert!(name(".*", false, ".x", false));
        assert!(name("\\.*", false, ".x", false));
        assert!(!name("?x", false, ".x", false));
        assert!(!name("[.]x", false, ".x", false));
        assert!(!name("*.x", false, ".x", false));
        assert!(name("*", false, "x.", false));
        assert!(name("@(.x|y)", true, ".x", false));
        assert!(!name("@(*x|y)", true, ".x", false));
        assert!(!name("!(y)", true, ".x", false));
        assert!(!name("!(.y)", true, ".x", false));
        assert!(name("!(y)", true, ".x", true));
        assert!(name("*(.)x", true, ".x", false));
        assert!(name("?(.)x", true, ".x", false));
        assert!(!name("+(?)", true, ".x", false));
        // Only the first character is special.
        assert!(name("a*", false, "a.b", false));
        assert!(name("a?b", false, "a.b", false));
    }

    #[test]
    fn glob_chars_are_found_only_unescaped() {
        assert!(has_glob_chars("*.rs", false));
        assert!(has_glob_chars("a?", false));
        assert!(has_glob_chars("[ab]", false));
        assert!(!has_glob_chars("[ab", false));
        assert!(!has_glob_chars("ab]", false));
        assert!(!has_glob_chars("\\*\\?\\[a]", false));
        assert!(has_glob_chars("\\\\*", false));
        assert!(!has_glob_chars("plain", false));
        assert!(!has_glob_chars("\\", false));
        assert!(has_glob_chars("@(a)", true));
        assert!(has_glob_chars("+(a)", true));
        assert!(has_glob_chars("!(a)", true));
        assert!(!has_glob_chars("@(a)", false));
        assert!(!has_glob_chars("\\@(a)", true));
    }

    #[test]
    fn escape_and_unescape_round_trip() {
        for s in [
            "", "plain", "*?[]", "a\\b", "@(x|y)", "!(z)+(w)", "é*", "tail\\",
        ] {
            let escaped = escape(s);
            assert_eq!(unescape(&escaped), s);
            assert!(!has_glob_chars(&escaped, true), "{escaped}");
            let p = Pattern::new(&escaped, opts(true, false));
            assert!(p.matches(s), "{escaped} should match {s}");
            assert!(!p.matches(&format!("{s}x")));
        }
        assert_eq!(unescape("a\\*b\\"), "a*b\\");
    }

    #[test]
    fn many_stars_stay_fast() {
        let long = "a".repeat(5000);
        let p = Pattern::new("*a*a*a*a*a*a*a*a*a*b", PatternOpts::default());
        assert!(!p.matches(&long));
        assert_eq!(p.prefix_len(&long, true), None);
        assert_eq!(p.suffix_start(&long, true), None);
        assert_eq!(p.find(&long, 0), None);
        assert!(p.find_all(&long).is_empty());
    }

    #[test]
    fn nested_extglob_stays_fast() {
        let long = "ab".repeat(1500);
        let opts = opts(true, false);
        for pat in [
            "+(a|ab|b)*(a|b)c",
            "*(*(a)b)c",
            "!(*c)",
            "*!(a)*c",
            "@(*a*b*)!(b)",
        ] {
            let p = Pattern::new(pat, opts);
            p.matches(&long);
            p.prefix_len(&long, true);
            p.suffix_start(&long, false);
            p.find(&long, 0);
        }
        assert!(Pattern::new("+(ab)", opts).matches(&long));
        assert_eq!(Pattern::new("!(*c)", opts).find_all(&long), [(0, 3000)]);
    }

    #[test]
    fn never_panics_on_odd_input() {
        // A small deterministic generator over the characters that matter.
        let atoms = [
            "*", "?", "[", "]", "!", "^", "-", "\\", "(", ")", "|", "@", "+", ":", "=", ".", "a",
            "é", "[:", ":]", "[.", ".]", "[=", "=]", "@(", "!(", "*(", "?(", "+(",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let pat: String = (0..next(9)).map(|_| atoms[next(atoms.len())]).collect();
            let s: String = (0..next(7)).map(|_| atoms[next(atoms.len())]).collect();
            for (extglob, nocase) in [(false, false), (true, false), (true, true)] {
                let p = Pattern::new(&pat, opts(extglob, nocase));
                p.matches(&s);
                p.matches_name(&s, false);
                p.prefix_len(&s, false);
                p.suffix_start(&s, true);
                for from in 0..=s.len() + 1 {
                    if let Some((a, b)) = p.find(&s, from) {
                        assert!(
                            a >= from && a <= b && s.is_char_boundary(a) && s.is_char_boundary(b)
                        );
                    }
                }
                let all = p.find_all(&s);
                for &(a, b) in &all {
                    assert!(s.is_char_boundary(a) && s.is_char_boundary(b) && a <= b);
                }
                // The one-pass search agrees with searching on match by match.
                assert_eq!(all, p.find_all_stepwise(&s), "{pat:?} {s:?}");
            }
        }
    }

    const PLAIN_CASES: &[(&str, &str, bool)] = &[
        ("abc", "abc", true),
        ("abc", "abd", false),
        ("abc", "ab", false),
        ("", "", true),
        ("", "a", false),
        ("a", "", false),
        ("*", "", true),
        ("*", "anything", true),
        ("?", "", false),
        ("?", "x", true),
        ("??", "x", false),
        ("a*", "a", true),
        ("a*", "abc", true),
        ("*c", "abc", true),
        ("*c", "abcd", false),
        ("a*b*c", "abxbc", true),
        ("a*b*c", "acb", false),
        ("*a*a*a*b", "aaaaaab", true),
        ("*a*a*a*b", "aaaaaaa", false),
        ("a?c", "abc", true),
        ("a?c", "ac", false),
        ("*/*", "a/b", true),
        ("*", "a/b", true),
        ("?", "/", true),
        ("[abc]", "b", true),
        ("[abc]", "d", false),
        ("[a-c]", "b", true),
        ("[a-c]", "B", false),
        ("[!a-c]", "d", true),
        ("[!a-c]", "a", false),
        ("[^a-c]", "d", true),
        ("[^a-c]", "b", false),
        ("[]]", "]", true),
        ("[]a]", "]", true),
        ("[]a]", "a", true),
        ("[!]]", "]", false),
        ("[!]]", "x", true),
        ("[]-a]", "^", true),
        ("[]-a]", "b", false),
        ("[a-]", "-", true),
        ("[a-]", "b", false),
        ("[-a]", "-", true),
        ("[!-]", "-", false),
        ("[a-c-e]", "d", false),
        ("[a-c-e]", "-", true),
        ("[z-a]", "m", false),
        ("[z-ab]", "b", true),
        ("[a\\-z]", "-", true),
        ("[a\\-z]", "m", false),
        ("[a-\\z]", "m", true),
        ("[\\]]", "]", true),
        ("[\\!a]", "!", true),
        ("[\\^a]", "^", true),
        ("[a\\]]", "]", true),
        ("[a\\]]", "a", true),
        ("[", "[", true),
        ("[a", "[a", true),
        ("a[", "a[", true),
        ("[]", "[]", true),
        ("[]", "]", false),
        ("[!]", "[!]", true),
        ("[[]", "[", true),
        ("[[]]", "[]", true),
        ("[[a]", "a", true),
        ("[\\", "[\\", false),
        ("[a\\", "[a\\", false),
        ("[a-", "a", false),
        ("[a-", "[a-", false),
        ("[a\\]", "[a]", true),
        ("[a\\]", "a", false),
        ("[[:alpha:]]", "a", true),
        ("[[:alpha:]]", "1", false),
        ("[[:alpha:]]", "é", true),
        ("[[:alpha:]]", "中", true),
        ("[[:alpha:]]", "٣", true),
        ("[[:alpha:]]", "²", false),
        ("[[:digit:]]", "5", true),
        ("[[:digit:]]", "٣", false),
        ("[[:alnum:]]", "Z", true),
        ("[[:alnum:]]", "_", false),
        ("[[:upper:]]", "É", true),
        ("[[:upper:]]", "e", false),
        ("[[:lower:]]", "é", true),
        ("[[:lower:]]", "E", false),
        ("[[:space:]]", " ", true),
        ("[[:space:]]", "\t", true),
        ("[[:space:]]", "\u{2003}", true),
        ("[[:space:]]", "\u{a0}", false),
        ("[[:blank:]]", "\t", true),
        ("[[:blank:]]", "\n", false),
        ("[[:punct:]]", "!", true),
        ("[[:punct:]]", "_", true),
        ("[[:punct:]]", "€", true),
        ("[[:punct:]]", "a", false),
        ("[[:xdigit:]]", "F", true),
        ("[[:xdigit:]]", "g", false),
        ("[[:cntrl:]]", "\u{1}", true),
        ("[[:cntrl:]]", "a", false),
        ("[[:print:]]", " ", true),
        ("[[:print:]]", "\u{7f}", false),
        ("[[:graph:]]", " ", false),
        ("[[:graph:]]", "~", true),
        ("[[:word:]]", "_", true),
        ("[[:word:]]", "é", true),
        ("[[:word:]]", "-", false),
        ("[[:ascii:]]", "a", true),
        ("[[:ascii:]]", "é", false),
        ("[[:upper:][:digit:]]", "5", true),
        ("[x[:alpha:]]", "q", true),
        ("[[:alpha:]-z]", "-", true),
        ("[a-[:alpha:]]", "b", false),
        ("[[:foo:]]", "f", false),
        ("[[:foo:]x]", "x", true),
        ("[[:alpha:]", "[a", true),
        ("[[:alpha:]", "a", false),
        ("[[:alpha]", ":", true),
        ("[[:alpha]", "[", false),
        ("[[:al\\pha:]]", "a", true),
        ("[[.a.]]", "a", true),
        ("[[.-.]]", "-", true),
        ("[[.hyphen.]]", "-", true),
        ("[[.space.]-a]", "!", true),
        ("[[.xyz.]]", "x", false),
        ("[[=a=]]", "a", true),
        ("[[=a=]b]", "b", true),
        ("[[=a]", "=", true),
        ("\\*", "*", true),
        ("\\*", "a", false),
        ("\\?", "?", true),
        ("\\[a]", "[a]", true),
        ("\\\\", "\\", true),
        ("\\", "\\", true),
        ("a\\", "a\\", true),
        ("\\a", "a", true),
        ("é", "é", true),
        ("?", "é", true),
        ("??", "é", false),
        ("[é-ë]", "ê", true),
        ("[a-é]", "z", true),
        ("*é", "café", true),
        ("caf?", "café", true),
        ("@(a|b)", "@(a|b)", true),
        ("+(a)", "+(a)", true),
    ];

    const EXTGLOB_CASES: &[(&str, &str, bool)] = &[
        ("@(a|b)", "a", true),
        ("@(a|b)", "c", false),
        ("@(a|b)", "ab", false),
        ("?(a)b", "b", true),
        ("?(a)b", "ab", true),
        ("?(a)b", "aab", false),
        ("*(ab)", "ababab", true),
        ("*(ab)", "", true),
        ("*(ab)", "aba", false),
        ("+(ab)", "ababab", true),
        ("+(ab)", "", false),
        ("!(a|b)", "c", true),
        ("!(a|b)", "a", false),
        ("!(a|b)", "", true),
        ("!(*.c)", "foo.c", false),
        ("!(*.c)", "foo.h", true),
        ("!(foo)*", "foo", true),
        ("!(foo)", "foobar", true),
        ("a!(b)c", "ac", true),
        ("a!(b)c", "abc", false),
        ("a!(b)c", "abbc", true),
        ("@(a|b)@(c|d)", "bc", true),
        ("*(ab|c)d", "abccabd", true),
        ("+(a|*(b))", "abba", true),
        ("@()", "", true),
        ("@()", "a", false),
        ("!()", "a", true),
        ("!()", "", false),
        ("@(a|)", "", true),
        ("@(a[|]b)", "a|b", true),
        ("@(a[)]b)", "a)b", true),
        ("@(a\\|b)", "a|b", true),
        ("@(a\\|b)", "a", false),
        ("@(a(b)c)", "a(b)c", true),
        ("*(a(b)|c)", "a(b)c", true),
        ("@([a-c]|x)", "b", true),
        ("@([]|]x)", "|x", true),
        ("@([]|]x)", "]x", true),
        ("@(ab", "@(ab", true),
        ("@(ab", "ab", false),
        ("*(ab", "*(ab", true),
        ("x@(ab", "x@(ab", true),
        ("@(a*", "@(axx", false),
        ("@(a*", "@(a*", true),
        ("@(a(b)", "a(b", false),
        ("@(@(a|b)|c)", "b", true),
        ("!(!(a))", "a", true),
        ("!(!(a))", "b", false),
        ("*(+(a)b)", "aabab", true),
        ("*(+(a)b)", "aaba", false),
        ("@(*.txt|*.md)", "x.md", true),
        ("\\@(a)", "@(a)", true),
        ("\\@(a)", "a", false),
        ("@\\(a)", "@(a)", true),
        ("*.@(c|h)", "x.h", true),
        ("*.@(c|h)", "x.o", false),
        ("?(é|ü)x", "üx", true),
        ("!(*b)", "ab", false),
        ("!(*b)", "ba", true),
        ("*!(b)", "ab", true),
    ];

    const NOCASE_CASES: &[(&str, &str, bool)] = &[
        ("abc", "ABC", true),
        ("ABC", "abc", true),
        ("a*C", "AbC", true),
        ("[a-c]", "B", true),
        ("[A-C]", "b", true),
        ("[^a-c]", "B", false),
        ("[[:upper:]]", "a", false),
        ("[[:lower:]]", "A", false),
        ("É", "é", true),
        ("[É]", "é", true),
        ("ǅ", "ǆ", true),
        ("ß", "ẞ", true),
        ("[Z-a]", "_", false),
        ("[Z-a]", "z", false),
        ("\\A", "a", true),
        ("@(ab)", "AB", true),
        ("@(ab", "@(AB", false),
    ];

    /// (pattern, subject, shortest prefix, longest prefix, shortest-suffix start, longest-suffix start, all replacements)
    const OPS_CASES: &[OpsCase] = &[
        (
            "a*",
            "aXbXc",
            Some(1),
            Some(5),
            Some(0),
            Some(0),
            Some(&[(0, 5)]),
        ),
        ("*X", "aXbXc", Some(2), Some(4), None, None, Some(&[(0, 4)])),
        ("X*", "aXbXc", None, None, Some(3), Some(1), Some(&[(1, 5)])),
        (
            "*",
            "abc",
            Some(0),
            Some(3),
            Some(3),
            Some(0),
            Some(&[(0, 3)]),
        ),
        (
            "?",
            "abc",
            Some(1),
            Some(1),
            Some(2),
            Some(2),
            Some(&[(0, 1), (1, 2), (2, 3)]),
        ),
        (
            "b",
            "abcb",
            None,
            None,
            Some(3),
            Some(3),
            Some(&[(1, 2), (3, 4)]),
        ),
        ("b*", "abcb", None, None, Some(3), Some(1), Some(&[(1, 4)])),
        (
            "*b",
            "abcb",
            Some(2),
            Some(4),
            Some(3),
            Some(0),
            Some(&[(0, 4)]),
        ),
        (
            "[0-9]",
            "a1b22",
            None,
            None,
            Some(4),
            Some(4),
            Some(&[(1, 2), (3, 4), (4, 5)]),
        ),
        (
            "[0-9]*",
            "a1b22",
            None,
            None,
            Some(4),
            Some(1),
            Some(&[(1, 5)]),
        ),
        (
            "*.",
            "a.b.c.",
            Some(2),
            Some(6),
            Some(5),
            Some(0),
            Some(&[(0, 6)]),
        ),
        (
            "*/",
            "/usr/local/bin/",
            Some(1),
            Some(15),
            Some(14),
            Some(0),
            Some(&[(0, 15)]),
        ),
        (
            "/*",
            "/usr/local/bin",
            Some(1),
            Some(14),
            Some(10),
            Some(0),
            Some(&[(0, 14)]),
        ),
        (
            "*/",
            "dir/sub/file",
            Some(4),
            Some(8),
            None,
            None,
            Some(&[(0, 8)]),
        ),
        (
            "é",
            "aébé",
            None,
            None,
            Some(4),
            Some(4),
            Some(&[(1, 3), (4, 6)]),
        ),
        (
            "?",
            "é1",
            Some(2),
            Some(2),
            Some(2),
            Some(2),
            Some(&[(0, 2), (2, 3)]),
        ),
        ("*é", "aébéc", Some(3), Some(6), None, None, Some(&[(0, 6)])),
        (
            "[[:alpha:]]",
            "1é2",
            None,
            None,
            None,
            None,
            Some(&[(1, 3)]),
        ),
        ("x", "abc", None, None, None, None, Some(&[])),
        ("", "abc", Some(0), Some(0), Some(3), Some(3), None),
        (
            "abc",
            "abc",
            Some(3),
            Some(3),
            Some(0),
            Some(0),
            Some(&[(0, 3)]),
        ),
    ];

    /// (pattern, subject, shortest prefix, longest prefix, shortest-suffix start, longest-suffix start, all replacements)
    const OPS_EXTGLOB_CASES: &[OpsCase] = &[
        (
            "?(a)",
            "abc",
            Some(0),
            Some(1),
            Some(3),
            Some(3),
            Some(&[(0, 1), (1, 1), (2, 2)]),
        ),
        (
            "*(b)",
            "abcb",
            Some(0),
            Some(0),
            Some(4),
            Some(3),
            Some(&[(0, 0), (1, 2), (2, 2), (3, 4)]),
        ),
        (
            "+(b)",
            "abbcb",
            None,
            None,
            Some(4),
            Some(4),
            Some(&[(1, 3), (4, 5)]),
        ),
        (
            "!(b)",
            "abc",
            Some(0),
            Some(3),
            Some(3),
            Some(0),
            Some(&[(0, 3)]),
        ),
        (
            "@(ab|a)",
            "abab",
            Some(1),
            Some(2),
            Some(2),
            Some(2),
            Some(&[(0, 2), (2, 4)]),
        ),
        (
            "*(a|b)c",
            "ababcabc",
            Some(5),
            Some(5),
            Some(7),
            Some(5),
            Some(&[(0, 5), (5, 8)]),
        ),
        (
            "!(*c)",
            "abcabd",
            Some(0),
            Some(6),
            Some(6),
            Some(0),
            Some(&[(0, 6)]),
        ),
        (
            "?(z)",
            "abc",
            Some(0),
            Some(0),
            Some(3),
            Some(3),
            Some(&[(0, 0), (1, 1), (2, 2)]),
        ),
    ];
}
