//! A light lexical scan of shell text, independent of tree-sitter: quotes, escapes, comments,
//! here-document bodies and command positions. It answers two questions tree-sitter cannot:
//! whether text read so far is an unfinished command (so the next line should be read before
//! parsing), and where the `[` builtin starts (tree-sitter-bash parses `[ … ]` with its own
//! expression grammar, which rejects much valid `test` syntax such as `[ a $op b ]`).

/// What a scan found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Byte offsets of `[` words in command position (the `[` builtin).
    pub brackets: Vec<usize>,
    /// An open quote, trailing backslash, unclosed `(`/`{`, here-document without its end
    /// line, or compound command without its closing keyword at the end of the text.
    pub open_at_end: bool,
    /// Unquoted `$` that start no expansion (`grep total$.`, `a$|b`): bash keeps them as
    /// text, tree-sitter-bash reports a syntax error.
    pub lone_dollars: Vec<usize>,
    /// The blank of each unquoted `\ ` or `\<tab>`: bash keeps it in the word
    /// (`x=$y\ true cmd` assigns `Y true`), tree-sitter-bash drops it and splits the word
    /// there when an expansion comes before it.
    pub escaped_blanks: Vec<usize>,
    /// A `$` followed by a line continuation, outside single quotes: bash joins the lines
    /// first and expands `$` with the next line's first character (`$\<newline>#` is `$#`,
    /// not a comment); tree-sitter-bash keeps the `$` as text.
    pub continued_dollar: Option<usize>,
    /// The insides of `$((…))` and `((…))` (byte ranges between the parentheses).
    /// tree-sitter's arithmetic grammar rejects much that bash evaluates (`$((10 $op 20))`,
    /// `$(($expr))`, `$(( ${base}#a ))`); rsh evaluates this text itself, so the parser only
    /// needs to see where it ends.
    pub arithmetic: Vec<(usize, usize)>,
    /// The keyword `time` where a pipeline starts, with its `-p`/`--`: tree-sitter-bash does
    /// not know it and reads `time { …; }` as a command named `time`.
    pub times: Vec<TimeKeyword>,
    /// Here-document bodies, without their delimiter lines.
    pub heredoc_bodies: Vec<HeredocBody>,
    /// `$( )` inside `"…"` nested deeper than the parser's limit: not scanned further.
    pub too_deep: bool,
}

/// The lines of a here-document, up to the line that ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeredocBody {
    pub start: usize,
    pub end: usize,
    pub delimiter: String,
}

/// `time [-p] [--]` in front of a pipeline: the bytes it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TimeKeyword {
    pub start: usize,
    pub end: usize,
    /// `-p` or `--` follows: POSIX's format.
    pub posix: bool,
}

pub(crate) fn scan(source: &str) -> Scan {
    let mut scanner = Scanner {
        src: source.as_bytes(),
        text: source,
        i: 0,
        depth: 0,
        blocks: 0,
        word: String::new(),
        word_start: 0,
        command_position: true,
        after_pipe: false,
        after_time: false,
        heredocs: Vec::new(),
        nested: 0,
        result: Scan::default(),
    };
    scanner.run();
    scanner.result
}

struct Scanner<'s> {
    src: &'s [u8],
    text: &'s str,
    i: usize,
    depth: i64,
    blocks: i64,
    word: String,
    word_start: usize,
    command_position: bool,
    /// The command position is after `|`: `time` there names a program, as in bash.
    after_pipe: bool,
    /// The last word was the keyword `time` (or its `-p`).
    after_time: bool,
    /// Delimiters (and `<<-`) of here-documents whose bodies start at the next newline.
    heredocs: Vec<PendingHeredoc>,
    /// How many `"$( )"` the scan is inside (see `substitution_end`).
    nested: usize,
    result: Scan,
}

impl Scanner<'_> {
    fn run(&mut self) {
        while self.i < self.src.len() {
            if !self.step() {
                self.result.open_at_end = true;
                return;
            }
        }
        self.end_word();
        self.result.open_at_end = self.depth > 0 || self.blocks > 0 || !self.heredocs.is_empty();
    }

    /// Consumes one token; false when the text ends inside it.
    fn step(&mut self) -> bool {
        let c = self.src[self.i];
        match c {
            b'\'' => {
                self.in_word();
                self.skip_single()
            }
            b'"' => {
                self.in_word();
                self.skip_double()
            }
            b'\\' => {
                self.in_word();
                if self.i + 1 >= self.src.len() || self.at_final_continuation() {
                    return false;
                }
                // Skip the escaped character whole: it may be several bytes long.
                let escaped = self.text[self.i + 1..]
                    .chars()
                    .next()
                    .expect("inside the text");
                if escaped == ' ' || escaped == '\t' {
                    self.result.escaped_blanks.push(self.i + 1);
                }
                self.i += 1 + escaped.len_utf8();
                true
            }
            b'$' if self.src[self.i..].starts_with(b"$((") => {
                self.in_word();
                self.arithmetic_from(self.i + 3);
                true
            }
            b'(' if self.command_position && self.src[self.i..].starts_with(b"((") => {
                self.end_word();
                self.arithmetic_from(self.i + 2);
                self.command_position = false;
                true
            }
            // `$$`, `$?` and the like take the next byte whole, so a `$` after them
            // (`$$$`, `/x/$$/y`) is judged on what follows it, not taken as their name.
            b'$' if self
                .src
                .get(self.i + 1)
                .is_some_and(|n| b"$@*#?!-".contains(n)) =>
            {
                self.in_word();
                self.i += 2;
                true
            }
            b'$' if continued_expansion(&self.src[self.i + 1..], false) => {
                self.result.continued_dollar.get_or_insert(self.i);
                self.in_word();
                self.i += 1;
                true
            }
            b'$' if !self
                .src
                .get(self.i + 1)
                .is_some_and(|&n| starts_expansion(n)) =>
            {
                if self.word.is_empty() {
                    self.word_start = self.i;
                }
                self.word.push('$');
                self.result.lone_dollars.push(self.i);
                self.i += 1;
                true
            }
            b'$' if self.src.get(self.i + 1) == Some(&b'\'') => {
                self.in_word();
                self.i += 1;
                self.skip_ansi_c()
            }
            b'#' if self.word.is_empty() && !self.in_word_already() => {
                self.skip_comment();
                true
            }
            // A here-string: its second `<` starts no here-document.
            b'<' if self.src[self.i..].starts_with(b"<<<") => {
                self.end_word();
                self.i += 3;
                self.command_position = false;
                true
            }
            b'<' if self.src.get(self.i + 1) == Some(&b'<') => {
                self.end_word();
                let (heredoc, next) = self.heredoc_delimiter(self.i + 2);
                self.heredocs.push(heredoc);
                self.i = next;
                self.command_position = false;
                true
            }
            b'\n' => {
                self.end_word();
                self.i += 1;
                self.command_position = true;
                self.after_time = false;
                if self.heredocs.is_empty() {
                    return true;
                }
                match self.heredoc_bodies() {
                    Some(next) => {
                        self.heredocs.clear();
                        self.i = next;
                        true
                    }
                    None => false,
                }
            }
            _ if c.is_ascii_whitespace() => {
                self.end_word();
                self.i += 1;
                true
            }
            b';' | b'&' | b'|' | b'(' | b')' | b'{' | b'}' | b'!' | b'<' | b'>' => {
                self.end_word();
                match c {
                    b'(' | b'{' => self.depth += 1,
                    b')' | b'}' => self.depth -= 1,
                    _ => {}
                }
                self.command_position = matches!(c, b';' | b'&' | b'|' | b'(' | b'{' | b'!');
                // `|` and `|&` lead to the next command of a pipeline; `||` to a new one.
                let pipe = c == b'|' && self.src.get(self.i + 1) != Some(&b'|');
                self.i += 1;
                // The second character of `||` or `|&`.
                if c == b'|' && !pipe || pipe && self.src.get(self.i) == Some(&b'&') {
                    self.i += 1;
                }
                self.after_pipe = pipe;
                self.after_time = false;
                true
            }
            _ => {
                if self.word.is_empty() {
                    self.word_start = self.i;
                }
                let ch = self.text[self.i..].chars().next().expect("inside the text");
                self.word.push(ch);
                self.i += ch.len_utf8();
                true
            }
        }
    }

    /// `\` + newline as the very last thing: a line continuation waiting for more.
    fn at_final_continuation(&self) -> bool {
        self.src[self.i + 1] == b'\n' && self.i + 2 >= self.src.len()
    }

    /// Quotes and escapes make the current word non-empty without being a keyword.
    fn in_word(&mut self) {
        if self.word.is_empty() {
            self.word_start = self.i;
        }
        self.word.push('\0');
    }

    fn in_word_already(&self) -> bool {
        self.i > 0
            && !self.src[self.i - 1].is_ascii_whitespace()
            && !b";&|(){}".contains(&self.src[self.i - 1])
    }

    fn end_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let word = std::mem::take(&mut self.word);
        // `time -p` leaves the command position where it was.
        let timed = self.command_position && self.note_time(&word);
        self.after_pipe = false;
        if self.command_position {
            if word == "["
                && self
                    .src
                    .get(self.i)
                    .is_some_and(|b| b.is_ascii_whitespace())
            {
                self.result.brackets.push(self.word_start);
            }
            self.blocks += match word.as_str() {
                "if" | "case" | "for" | "while" | "until" | "select" => 1,
                "fi" | "esac" | "done" => -1,
                _ => 0,
            };
        }
        // After these keywords a new command starts; after any other word, arguments follow.
        self.command_position = timed
            || matches!(
                word.as_str(),
                "then" | "do" | "else" | "elif" | "if" | "while" | "until"
            );
    }

    /// `time` starting a pipeline, and the `-p` and `--` right after it: whether `word` is
    /// (part of) the keyword.
    fn note_time(&mut self, word: &str) -> bool {
        let end = self.word_start + word.len();
        match (word, self.after_time, self.result.times.last_mut()) {
            ("-p" | "--", true, Some(time)) => {
                // `--` ends the options; so does `-p` after `--`.
                self.after_time = word == "-p" && !time.posix;
                time.end = end;
                time.posix = true;
                true
            }
            ("time", false, _) if !self.after_pipe => {
                self.result.times.push(TimeKeyword {
                    start: self.word_start,
                    end,
                    posix: false,
                });
                self.after_time = true;
                true
            }
            _ => {
                self.after_time = false;
                false
            }
        }
    }

    /// Records arithmetic text starting at `inner` when it ends with `))` at the same depth,
    /// and moves past it; otherwise (`$((a) )` is a command substitution) moves one byte.
    fn arithmetic_from(&mut self, inner: usize) {
        match self.arithmetic_end(inner) {
            Some(close) => {
                self.result.arithmetic.push((inner, close));
                self.i = close + 2;
            }
            None => {
                self.depth += 1;
                self.i += 1;
            }
        }
    }

    /// The offset of the `))` that closes arithmetic text starting at `from`.
    fn arithmetic_end(&self, from: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut j = from;
        while j < self.src.len() {
            match self.src[j] {
                b'\\' => j += 1,
                b'\'' => j += self.text[j + 1..].find('\'')? + 1,
                b'"' => {
                    j += 1;
                    while j < self.src.len() && self.src[j] != b'"' {
                        j += if self.src[j] == b'\\' { 2 } else { 1 };
                    }
                }
                b'(' => depth += 1,
                b')' if depth > 0 => depth -= 1,
                b')' => return (self.src.get(j + 1) == Some(&b')')).then_some(j),
                _ => {}
            }
            j += 1;
        }
        None
    }

    fn skip_single(&mut self) -> bool {
        match self.text[self.i + 1..].find('\'') {
            Some(n) => {
                self.i += n + 2;
                true
            }
            None => false,
        }
    }

    fn skip_double(&mut self) -> bool {
        let mut j = self.i + 1;
        while j < self.src.len() {
            match self.src[j] {
                b'\\' => j += 2,
                b'"' => {
                    self.i = j + 1;
                    return true;
                }
                b'$' if continued_expansion(&self.src[j + 1..], true) => {
                    self.result.continued_dollar.get_or_insert(j);
                    j += 1;
                }
                b'$' if self.src[j..].starts_with(b"$((") => match self.arithmetic_end(j + 3) {
                    Some(close) => {
                        self.result.arithmetic.push((j + 3, close));
                        j = close + 2;
                    }
                    None => j += 1,
                },
                b'$' if self.src.get(j + 1) == Some(&b'(') && self.nested < super::MAX_DEPTH => {
                    match self.substitution_end(j + 2) {
                        Some(end) => j = end,
                        None => return false,
                    }
                }
                b'$' if self.src.get(j + 1) == Some(&b'(') => {
                    self.result.too_deep = true;
                    j += 1;
                }
                _ => j += 1,
            }
        }
        false
    }

    /// Scans a `$( … )` inside `"…"` from `from` (after its `(`) as the commands it holds,
    /// here-documents included (`"$(cat <<'E'` … `E` … `)"`, a common way to pass a message);
    /// returns where it ends, None when the text ends inside it. The state of the word around
    /// it is put back.
    fn substitution_end(&mut self, from: usize) -> Option<usize> {
        let word = std::mem::take(&mut self.word);
        let saved = (
            self.word_start,
            self.command_position,
            self.after_pipe,
            self.after_time,
            std::mem::take(&mut self.heredocs),
        );
        let outer = self.depth;
        self.depth += 1;
        self.nested += 1;
        self.i = from;
        self.command_position = true;
        let mut ended = false;
        while self.i < self.src.len() {
            if !self.step() {
                break;
            }
            if self.depth == outer {
                ended = true;
                break;
            }
        }
        let end = self.i;
        self.depth = outer;
        self.nested -= 1;
        self.word = word;
        let (word_start, command_position, after_pipe, after_time, heredocs) = saved;
        self.word_start = word_start;
        self.command_position = command_position;
        self.after_pipe = after_pipe;
        self.after_time = after_time;
        self.heredocs = heredocs;
        ended.then_some(end)
    }

    fn skip_ansi_c(&mut self) -> bool {
        let mut j = self.i + 1;
        while j < self.src.len() {
            match self.src[j] {
                b'\\' => j += 2,
                b'\'' => {
                    self.i = j + 1;
                    return true;
                }
                _ => j += 1,
            }
        }
        false
    }

    fn skip_comment(&mut self) {
        while self.i < self.src.len() && self.src[self.i] != b'\n' {
            self.i += 1;
        }
    }

    /// The here-document whose `<<` ends at `from`, and where its delimiter ends.
    fn heredoc_delimiter(&self, from: usize) -> (PendingHeredoc, usize) {
        let bytes = self.src;
        let mut i = from;
        let strip = bytes.get(i) == Some(&b'-');
        if strip {
            i += 1;
        }
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        let mut delimiter = Vec::new();
        let mut quoted = false;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !b";|&<>()".contains(&bytes[i])
        {
            // `<<$(a)`: the word takes in what the expansion holds.
            if bytes[i] == b'$' && matches!(bytes.get(i + 1), Some(b'(' | b'{')) {
                let close = if bytes[i + 1] == b'(' { b')' } else { b'}' };
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == close)
                    .map_or(bytes.len(), |n| i + n + 1);
                delimiter.extend_from_slice(&bytes[i..end]);
                i = end;
                continue;
            }
            if matches!(bytes[i], b'\'' | b'"' | b'\\') {
                quoted = true;
            } else {
                delimiter.push(bytes[i]);
            }
            i += 1;
        }
        let heredoc = PendingHeredoc {
            delimiter: String::from_utf8_lossy(&delimiter).into_owned(),
            strip,
            quoted,
        };
        (heredoc, i)
    }

    /// Notes the here-document bodies starting at `self.i` and returns where they end; None
    /// when a delimiter line is missing (the body then runs to the end of the text, as bash
    /// reads it).
    fn heredoc_bodies(&mut self) -> Option<usize> {
        let mut pos = self.i;
        for heredoc in &self.heredocs {
            let start = pos;
            let body = |end| HeredocBody {
                start,
                end,
                delimiter: heredoc.delimiter.clone(),
            };
            // In an unquoted body a line ending in `\` goes on on the next, which is then
            // no delimiter line (`foo\` and `E` are `fooE`).
            let mut continued = false;
            loop {
                if pos >= self.text.len() {
                    self.result.heredoc_bodies.push(body(self.text.len()));
                    return None;
                }
                let end = self.text[pos..]
                    .find('\n')
                    .map_or(self.text.len(), |n| pos + n);
                let line = &self.text[pos..end];
                let line = if heredoc.strip {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if line == heredoc.delimiter && !continued {
                    self.result.heredoc_bodies.push(body(pos));
                    pos = end + 1;
                    break;
                }
                let trailing = line.bytes().rev().take_while(|&b| b == b'\\').count();
                continued = !heredoc.quoted && trailing % 2 == 1;
                pos = end + 1;
            }
        }
        Some(pos.min(self.text.len()))
    }
}

/// A here-document whose body starts at the next line break.
struct PendingHeredoc {
    /// Quotes removed.
    delimiter: String,
    /// `<<-`.
    strip: bool,
    /// Any part of the delimiter quoted: the body is text, without line continuations.
    quoted: bool,
}

/// Whether `after`, what follows a `$`, is a line continuation (or several) and then what
/// makes it an expansion once bash has joined the lines.
/// `in_double`: inside `"…"`, where `$'` and `$"` are text.
fn continued_expansion(after: &[u8], in_double: bool) -> bool {
    after_continuations(after)
        .is_some_and(|next| starts_expansion(next) && !(in_double && b"'\"".contains(&next)))
}

/// What follows one or more line continuations at the start of `bytes` (bash joins the lines
/// first); None without one.
pub(super) fn after_continuations(mut bytes: &[u8]) -> Option<u8> {
    let mut continued = false;
    while let [b'\\', b'\n', rest @ ..] = bytes {
        bytes = rest;
        continued = true;
    }
    bytes.first().copied().filter(|_| continued)
}

/// Whether a byte after `$` makes it an expansion (or `$'…'`/`$"…"`).
fn starts_expansion(next: u8) -> bool {
    next.is_ascii_alphanumeric() || b"_{([@*#?!$-'\"".contains(&next)
}

#[cfg(test)]
mod tests {
    use super::scan;

    #[test]
    fn finds_the_bracket_builtin_only_in_command_position() {
        assert_eq!(scan("[ -f x ]").brackets, vec![0]);
        assert_eq!(scan("if [ a = b ]; then :; fi").brackets, vec![3]);
        assert_eq!(scan("true && [ x ] || [ y ]").brackets, vec![8, 17]);
        assert!(scan("echo [ a ]").brackets.is_empty());
        assert!(scan("[[ a ]]").brackets.is_empty());
        assert!(scan("echo '[ a ]'; echo \"[ b ]\"").brackets.is_empty());
        assert!(scan("# [ a ]\necho").brackets.is_empty());
        assert!(scan("case x in [ab]) ;; esac").brackets.is_empty());
    }

    #[test]
    fn a_here_string_starts_no_here_document() {
        let scanned = scan("cat <<< $y\\ a");
        assert!(!scanned.open_at_end);
        assert_eq!(scanned.escaped_blanks, vec![11]);
        assert!(scan("cat <<<a <<E\nx\n").open_at_end);
    }

    #[test]
    fn a_special_parameter_takes_one_character_for_its_name() {
        assert!(scan("x=/x/$$/y/$$/z").lone_dollars.is_empty());
        assert!(scan("echo $? $# $! $- $@ $*").lone_dollars.is_empty());
        assert_eq!(scan("echo $$$").lone_dollars, vec![7]);
        assert_eq!(scan("echo a$?$/b").lone_dollars, vec![8]);
    }

    #[test]
    fn open_constructs_at_the_end() {
        for text in [
            "echo 'abc",
            "echo \"abc",
            "echo \\",
            "if true; then",
            "for x in a; do",
            "case x in",
            "{ a;",
            "echo $(",
            "cat <<EOF\nhi\n",
            "cat <<-EOF\n\thi\n",
        ] {
            assert!(scan(text).open_at_end, "{text:?} should be open");
        }
        for text in [
            "echo )",
            "echo hi",
            "if true; then :; fi",
            "cat <<EOF\nhi\nEOF\n",
            "echo don't # it's a comment\n"
                .replace("don't", "dont")
                .as_str(),
            "# it's a comment",
            "echo if",
        ] {
            assert!(!scan(text).open_at_end, "{text:?} should be complete");
        }
    }
}

#[cfg(test)]
mod continuation_tests {
    #[test]
    fn trailing_backslash_newline_is_open() {
        assert!(super::scan("echo a\\\n").open_at_end);
        assert!(crate::parse::needs_more_input("echo a\\\n"));
    }
}
