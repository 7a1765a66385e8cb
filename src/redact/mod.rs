//! Output safety, for agent transcripts: secrets in what the session prints are replaced with
//! `[REDACTED]`, and output past `[output] max_bytes` is cut with a one-line notice.
//!
//! The filter works on lines, so memory stays bounded whatever the output: patterns match
//! within one line (a line longer than `LINE_MAX` is taken in pieces of that size), except
//! PEM private keys, whose whole block goes, BEGIN to END. A line still incomplete when the
//! output pauses is shown as it is (a prompt must appear), redacted as far as it goes.
//!
//! Most output has no secret, and the filter must keep up with `cat`: the built-in patterns
//! look only at lines that contain a piece of their literals (`NEEDLES`, found in one pass),
//! and lines without a match go out in blocks, as they came.

mod process;

pub use process::{Interposed, interpose};

use aho_corasick::packed;
use memchr::{memchr, memrchr};
use regex::bytes::Regex;

use crate::policy::OutputConfig;

/// The longest line looked at as one; longer lines are taken in pieces.
const LINE_MAX: usize = 16 * 1024;
/// A private key block ends within this many lines, or the lines after it are shown again.
const PEM_LINES_MAX: usize = 200;
const REDACTED: &[u8] = b"[REDACTED]";

/// Secrets rsh knows by their shape. A group named `secret` is what is replaced; otherwise
/// the whole match. Each begins with a literal, and none ignores case (the spellings are
/// written out), so that joined into one regex their literals are all looked for in a single
/// pass over the output.
const BUILT_IN: &[&str] = &[
    // AWS access key ids, and secret keys where they are named.
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY)\s*[=:]\s*(?P<secret>[A-Za-z0-9/+=]{40})",
    // GitHub, GitLab, Slack, OpenAI/Anthropic, Google, Stripe tokens.
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{22,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",
    r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    r"\bAIza[0-9A-Za-z_-]{35}\b",
    r"\b[rs]k_live_[0-9A-Za-z]{16,}",
    // JSON web tokens.
    r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    // Bearer tokens and credentials in URLs.
    r"\b(?:[Bb]earer|BEARER|[Tt]oken|TOKEN)\s+(?P<secret>[A-Za-z0-9._~+/-]{16,}=*)",
    r"://[^/\s:@]+:(?P<secret>[^/\s@]+)@",
    // Assignments of passwords, secrets, tokens and keys, the word anywhere in the name
    // (`SECRET_KEY`, `DB_PASSWORD_PROD`, `aws_access_key_id`).
    r#"(?:[Pp]assword|PASSWORD|[Pp]asswd|PASSWD|[Pp]wd|PWD|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Aa]pi[_-]?[Kk]ey|API[_-]?KEY|[Aa]ccess[_-]?[Kk]ey|ACCESS[_-]?KEY)[A-Za-z0-9_]*["']?\s*[=:]\s*(?P<secret>"(?:[^"\\\n]|\\.){3,}"|'[^'\n]{3,}'|[^\s"',;]{3,})"#,
];

const PEM_BEGIN: &str = r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----";
const PEM_END: &str = r"-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----";

/// Pieces of the built-in patterns' literals, one of which is in every match of them, and
/// `BEGIN`, in the first line of every private key. A line with none of them is not looked
/// at by the patterns. Adding a pattern means adding its piece here; a test checks that
/// every pattern's literals contain one.
///
/// They are found in one pass by Slim Teddy (aho-corasick's packed searcher), which puts
/// them in eight buckets and tells a candidate by its first three bytes, those of all the
/// needles of a bucket mixed (with `ssw` and `pwd` in one, `sww` is a candidate too). Each
/// row is one bucket, of needles whose mixtures are rare in text. So laid out, the pass over
/// rsh's sources took about as long as with a single needle: a third of the time of Fat
/// Teddy (sixteen buckets) and a tenth of Slim Teddy's with the needles in any order.
#[rustfmt::skip]
const NEEDLES: [&[&str]; 8] = [
    // Token; Google, JSON web tokens, Slack.
    &["Token", "token", "TOKEN", "AIza", "eyJ", "xox"],
    // api key; AWS key ids, Stripe.
    &["Api", "api", "API", "AKIA", "ASIA", "k_live_"],
    // Credentials in URLs; OpenAI and Anthropic.
    &["://", "sk-"],
    // GitHub (fine-grained), GitLab; private keys.
    &["b_pat_", "glpat-", "BEGIN"],
    // GitHub.
    &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    // access key (and aws_secret_access_key); bearer.
    &["ccess", "CCESS", "Bearer", "bearer", "BEARER"],
    // secret.
    &["ecret", "ECRET"],
    // password and passwd; pwd.
    &["ssw", "SSW", "pwd", "Pwd", "PWD"],
];

/// The compiled rules of a session.
pub struct Rules {
    /// With `[output] redact`.
    built_in: Option<BuiltIn>,
    /// The policy's patterns.
    each: Vec<Regex>,
    max_bytes: Option<u64>,
}

/// The built-in patterns and private keys.
struct BuiltIn {
    /// The patterns of BUILT_IN joined into one.
    regex: Regex,
    /// Finds the lines that contain one of NEEDLES; None: every line is looked at.
    needles: Option<packed::Searcher>,
    key_begin: Regex,
    key_end: Regex,
}

impl Rules {
    /// What to replace in `text` (whole lines) before the first line that begins a private
    /// key: the spans, sorted, and where that line starts (`text.len()` without one).
    ///
    /// A span is the `secret` group of a match, or the match. Patterns match within one
    /// line: a match that runs over a line's end is looked for again in each of the lines
    /// it covers.
    fn scan(&self, text: &[u8]) -> (Vec<(usize, usize)>, usize) {
        let mut spans = Vec::new();
        let end = match &self.built_in {
            Some(built_in) => built_in.scan(text, &mut spans),
            None => text.len(),
        };
        for regex in &self.each {
            spans_of(regex, &text[..end], &mut spans);
        }
        spans.sort_unstable();
        (spans, end)
    }

    /// The rules of `[output]`; None when it asks for nothing. The policy's patterns were
    /// checked when it was loaded.
    pub fn new(config: &OutputConfig) -> Option<Rules> {
        if !config.active() {
            return None;
        }
        Some(Rules {
            built_in: config.redact.then(BuiltIn::new),
            each: config
                .patterns
                .iter()
                .map(|p| line_regex(p))
                .collect::<Result<_, _>>()
                .ok()?,
            max_bytes: config.max_bytes,
        })
    }
}

/// `pattern` compiled to match `^` and `$` at the start and end of each line, whatever else
/// came in the same read.
fn line_regex(pattern: &str) -> Result<Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(pattern)
        .multi_line(true)
        .crlf(true)
        .build()
}

impl BuiltIn {
    fn new() -> BuiltIn {
        // One regex for all: the lines it is given are searched once, where thirteen
        // regexes would search them thirteen times.
        let all: Vec<String> = BUILT_IN
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "(?:{})",
                    p.replace("(?P<secret>", &format!("(?P<secret{i}>"))
                )
            })
            .collect();
        BuiltIn {
            regex: line_regex(&all.join("|")).expect("built-in pattern"),
            needles: needle_searcher(),
            key_begin: Regex::new(PEM_BEGIN).expect("built-in pattern"),
            key_end: Regex::new(PEM_END).expect("built-in pattern"),
        }
    }

    /// As [`Rules::scan`], for the built-in patterns: the lines with a needle are looked at,
    /// one by one, until one begins a private key.
    fn scan(&self, text: &[u8], spans: &mut Vec<(usize, usize)>) -> usize {
        let Some(needles) = &self.needles else {
            return self.scan_every_line(text, spans);
        };
        let mut at = 0;
        while let Some(hit) = needles.find_in(text, aho_corasick::Span::from(at..text.len())) {
            let start = memrchr(b'\n', &text[at..hit.start()]).map_or(at, |i| at + i + 1);
            let end = memchr(b'\n', &text[hit.end()..]).map_or(text.len(), |i| hit.end() + i + 1);
            let line = &text[start..end];
            if self.key_begin.is_match(line) {
                return start;
            }
            spans_of_line(&self.regex, line, start, spans);
            at = end;
        }
        text.len()
    }

    /// As [`BuiltIn::scan`] without the needles: the regexes search the whole text.
    fn scan_every_line(&self, text: &[u8], spans: &mut Vec<(usize, usize)>) -> usize {
        let end = self.key_begin.find(text).map_or(text.len(), |m| {
            memrchr(b'\n', &text[..m.start()]).map_or(0, |i| i + 1)
        });
        spans_of(&self.regex, &text[..end], spans);
        end
    }
}

/// A searcher for NEEDLES: Slim Teddy with a row in each bucket, where the machine has it.
fn needle_searcher() -> Option<packed::Searcher> {
    let needles = needles_in_bucket_order();
    let slim = packed::Config::new()
        .only_teddy(true)
        .only_teddy_fat(Some(false))
        .builder()
        .extend(&needles)
        .build();
    slim.or_else(|| packed::Config::new().builder().extend(&needles).build())
}

/// NEEDLES in the order that makes each row one bucket: aho-corasick gives the first needle
/// of a group (those whose first three bytes have the same low nibbles, as `token` and
/// `TOKEN`) the bucket 7 - its index % 8, and the rest of the group the same. So row r takes
/// the indexes i * 8 + 7 - r, and a row shorter than others repeats its first needle. (In
/// another order the same needles are found, more slowly.)
fn needles_in_bucket_order() -> Vec<&'static str> {
    let longest = NEEDLES.iter().map(|row| row.len()).max().unwrap_or(0);
    (0..longest)
        .flat_map(|i| {
            (0..8).map(move |slot| {
                let row = NEEDLES[7 - slot];
                row.get(i).copied().unwrap_or(row[0])
            })
        })
        .collect()
}

/// Whether `regex` has a group named `secret` (or, in the built-in patterns joined into one,
/// `secret0`, `secret1`, ...).
fn has_secret_group(regex: &Regex) -> bool {
    regex
        .capture_names()
        .flatten()
        .any(|n| n.starts_with("secret"))
}

/// The secret group that took part in a match.
fn secret_group<'h>(
    regex: &Regex,
    caps: &regex::bytes::Captures<'h>,
) -> Option<regex::bytes::Match<'h>> {
    regex
        .capture_names()
        .enumerate()
        .filter(|(_, n)| n.is_some_and(|n| n.starts_with("secret")))
        .find_map(|(i, _)| caps.get(i))
}

/// The matches of `regex` in `text` (whole lines), as in [`Rules::scan`].
fn spans_of(regex: &Regex, text: &[u8], spans: &mut Vec<(usize, usize)>) {
    let secret = has_secret_group(regex);
    for m in regex.find_iter(text) {
        if m.end() > m.start() + 1 && text[m.start()..m.end() - 1].contains(&b'\n') {
            // Over a line's end: each line it covers on its own (a match found again
            // later is merged).
            let mut at = text[..m.start()]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            while at < m.end() {
                let end = text[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |i| at + i + 1);
                spans_of_line(regex, &text[at..end], at, spans);
                at = end;
            }
            continue;
        }
        let part = if secret {
            regex
                .captures_at(text, m.start())
                .and_then(|c| secret_group(regex, &c))
                .map_or((m.start(), m.end()), |g| (g.start(), g.end()))
        } else {
            (m.start(), m.end())
        };
        if part.1 > part.0 {
            spans.push(part);
        }
    }
}

/// The matches of `regex` in one `line` (which starts at `base` in the text).
fn spans_of_line(regex: &Regex, line: &[u8], base: usize, spans: &mut Vec<(usize, usize)>) {
    let secret = has_secret_group(regex);
    for m in regex.find_iter(line) {
        let part = match secret {
            true => regex
                .captures_at(line, m.start())
                .and_then(|c| secret_group(regex, &c))
                .map_or((m.start(), m.end()), |g| (g.start(), g.end())),
            false => (m.start(), m.end()),
        };
        if part.1 > part.0 {
            spans.push((base + part.0, base + part.1));
        }
    }
}

/// Where filtered output goes.
pub trait Output {
    /// Shows `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Shows `bytes` as they came: they are `data[at..]` of the `data` being fed, and pieces
    /// passed from one `data` come in order, none overlapping. (So that an output can take
    /// them from where `data` came from, uncopied.)
    fn pass(&mut self, at: usize, bytes: &[u8]) {
        let _ = at;
        self.put(bytes);
    }
}

impl Output for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// One output stream on its way out.
pub struct Filter<'r> {
    rules: &'r Rules,
    /// The incomplete last line.
    pending: Vec<u8>,
    /// Lines left inside a private key block.
    in_key: Option<usize>,
    shown: u64,
    cut: u64,
}

impl<'r> Filter<'r> {
    pub fn new(rules: &'r Rules) -> Filter<'r> {
        Filter {
            rules,
            pending: Vec::new(),
            in_key: None,
            shown: 0,
            cut: 0,
        }
    }

    /// Takes `data`; appends to `out` what can be shown of the lines it completes.
    pub fn feed(&mut self, data: &[u8], out: &mut impl Output) {
        let mut rest = data;
        // The line begun earlier, first.
        if !self.pending.is_empty() || self.in_key.is_some() {
            rest = self.take_line(rest, out);
        }
        // Whole lines go out as a block: as they came where no pattern matches, up to a line
        // that begins a private key (that line and those after it go one by one).
        if self.in_key.is_none()
            && let Some(last) = memrchr(b'\n', rest)
        {
            let lines = &rest[..=last];
            let (spans, end) = self.rules.scan(lines);
            self.show_redacted(&lines[..end], data.len() - rest.len(), &spans, out);
            rest = &rest[end..];
        }
        while !rest.is_empty() {
            rest = self.take_line(rest, out);
        }
    }

    /// Adds `data` to the pending line up to its end (or LINE_MAX), filtering it when it is
    /// complete; the rest of `data`.
    fn take_line<'d>(&mut self, data: &'d [u8], out: &mut impl Output) -> &'d [u8] {
        let room = LINE_MAX.saturating_sub(self.pending.len());
        let (take, complete) = match memchr(b'\n', data) {
            Some(end) if end < room => (end + 1, true),
            _ if data.len() >= room => (room, true),
            _ => (data.len(), false),
        };
        self.pending.extend_from_slice(&data[..take]);
        if complete {
            self.flush(out);
        }
        &data[take..]
    }

    /// The output paused, or ended: what there is of the last line goes out.
    pub fn flush(&mut self, out: &mut impl Output) {
        if self.pending.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.pending);
        let mut clean = Vec::with_capacity(line.len());
        self.redact_line(&line, &mut clean);
        self.show(&clean, out);
    }

    /// At the end: the last line, and what was cut.
    pub fn finish(&mut self, out: &mut impl Output) {
        self.flush(out);
        if self.cut > 0 {
            let notice = format!(
                "\n[rsh: output.max_bytes: {} more bytes not shown]\n",
                self.cut
            );
            out.put(notice.as_bytes());
        }
    }

    /// Shows `text`, which is `data[at..]` of the `data` being fed, with the `spans` (sorted
    /// by start) replaced, overlapping ones as one; the text between them is passed.
    fn show_redacted(
        &mut self,
        text: &[u8],
        at: usize,
        spans: &[(usize, usize)],
        out: &mut impl Output,
    ) {
        let mut from = 0;
        for &(start, end) in spans {
            if end <= from {
                continue;
            }
            if start >= from {
                self.pass(at + from, &text[from..start], out);
                self.show(REDACTED, out);
            }
            from = end;
        }
        self.pass(at + from, &text[from..], out);
    }

    fn show(&mut self, clean: &[u8], out: &mut impl Output) {
        let room = self.room(clean.len());
        out.put(&clean[..room]);
    }

    /// As [`Filter::show`], for bytes as they came (see [`Output::pass`]).
    fn pass(&mut self, at: usize, bytes: &[u8], out: &mut impl Output) {
        let room = self.room(bytes.len());
        if room > 0 {
            out.pass(at, &bytes[..room]);
        }
    }

    /// How many of `len` bytes can be shown under `max_bytes`; counts them as shown, the
    /// rest as cut.
    fn room(&mut self, len: usize) -> usize {
        let room = match self.rules.max_bytes {
            Some(max) => max.saturating_sub(self.shown).min(len as u64) as usize,
            None => len,
        };
        self.shown += room as u64;
        self.cut += (len - room) as u64;
        room
    }

    fn redact_line(&mut self, line: &[u8], out: &mut Vec<u8>) {
        if let Some(BuiltIn {
            key_begin: begin,
            key_end: end,
            ..
        }) = &self.rules.built_in
        {
            if let Some(left) = self.in_key {
                if end.is_match(line) {
                    self.in_key = None;
                } else if left == 0 {
                    // Said, so that output hidden by a block that never ended is not lost
                    // without a word.
                    self.in_key = None;
                    let notice = format!(
                        "[rsh: output.redact: a private key block had no END line; \
                         {} lines after it were hidden]\n",
                        PEM_LINES_MAX + 1
                    );
                    out.extend_from_slice(notice.as_bytes());
                } else {
                    self.in_key = Some(left - 1);
                }
                return;
            }
            if begin.is_match(line) {
                out.extend_from_slice(REDACTED);
                if line.ends_with(b"\n") {
                    out.push(b'\n');
                }
                if !end.is_match(line) {
                    self.in_key = Some(PEM_LINES_MAX);
                }
                return;
            }
        }
        let (spans, _) = self.rules.scan(line);
        write_redacted(line, &spans, out);
    }
}

/// `text` with the `spans` (sorted by start) replaced, overlapping ones as one.
fn write_redacted(text: &[u8], spans: &[(usize, usize)], out: &mut Vec<u8>) {
    let mut at = 0;
    for &(start, end) in spans {
        if end <= at {
            continue;
        }
        if start >= at {
            out.extend_from_slice(&text[at..start]);
            out.extend_from_slice(REDACTED);
        }
        at = end;
    }
    out.extend_from_slice(&text[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    const REDACTED_STR: &str = "[REDACTED]";

    fn rules(redact: bool, patterns: &[&str], max_bytes: Option<u64>) -> Rules {
        Rules::new(&OutputConfig {
            redact,
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            max_bytes,
            terminals: false,
        })
        .unwrap()
    }

    /// Feeds `input` in pieces of `step` bytes.
    fn run(rules: &Rules, input: &str, step: usize) -> String {
        let mut filter = Filter::new(rules);
        let mut out = Vec::new();
        for piece in input.as_bytes().chunks(step) {
            filter.feed(piece, &mut out);
        }
        filter.finish(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn built_in_patterns_find_common_secrets_across_read_boundaries() {
        let r = rules(true, &[], None);
        let input = "key AKIAIOSFODNN7EXAMPLE ok\n\
                     export GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\n\
                     password = hunter22\n\
                     curl -H 'Authorization: Bearer abcdefghijklmnop0123'\n\
                     db: postgres://app:s3cr3t@db:5432/x\n\
                     -----BEGIN OPENSSH PRIVATE KEY-----\n\
                     b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n\
                     -----END OPENSSH PRIVATE KEY-----\n\
                     plain text stays\n";
        let expected = "key [REDACTED] ok\n\
                        export GITHUB_TOKEN=[REDACTED]\n\
                        password = [REDACTED]\n\
                        curl -H 'Authorization: Bearer [REDACTED]'\n\
                        db: postgres://app:[REDACTED]@db:5432/x\n\
                        [REDACTED]\n\
                        plain text stays\n";
        for step in [1, 3, 7, 64, 4096] {
            assert_eq!(run(&r, input, step), expected, "pieces of {step}");
        }
    }

    #[test]
    fn assignments_are_redacted_whatever_else_the_name_holds() {
        let r = rules(true, &[], None);
        let input = "SECRET_KEY=abcdef123\nDB_PASSWORD_PROD=abcdef123\n\
                     GITHUB_TOKEN_RO: abcdef\naws_access_key_id = AKIAEXAMPLEEXAMPLE0\n\
                     \"client_secret\": \"abc123\"\nname=plain\n";
        let expected = "SECRET_KEY=[REDACTED]\nDB_PASSWORD_PROD=[REDACTED]\n\
                        GITHUB_TOKEN_RO: [REDACTED]\naws_access_key_id = [REDACTED]\n\
                        \"client_secret\": [REDACTED]\nname=plain\n";
        assert_eq!(run(&r, input, 7), expected);
    }

    /// A quoted value is the whole of what the quotes hold, spaces and escaped quotes too.
    #[test]
    fn quoted_values_are_redacted_whole() {
        let r = rules(true, &[], None);
        let input = "password=\"correct horse battery staple\"\n{\"password\": \"a b c\"}\n\
                     DB_PASSWORD='hunter two'\n{\"password\": \"ab\\\"cdefgh\"}\n";
        let expected = "password=[REDACTED]\n{\"password\": [REDACTED]}\n\
                        DB_PASSWORD=[REDACTED]\n{\"password\": [REDACTED]}\n";
        for step in [1, 7, 1000] {
            assert_eq!(run(&r, input, step), expected, "pieces of {step}");
        }
    }

    #[test]
    fn policy_patterns_replace_their_secret_group_or_the_match() {
        let r = rules(false, &[r"ticket-\d+", r"pin=(?P<secret>\d{4})"], None);
        assert_eq!(
            run(&r, "see ticket-42 pin=1234 AKIAIOSFODNN7EXAMPLE\n", 5),
            "see [REDACTED] pin=[REDACTED] AKIAIOSFODNN7EXAMPLE\n"
        );
    }

    #[test]
    fn patterns_match_within_one_line_only() {
        // `\s*` could run over the end of `password:`; the value on the next line is no
        // secret, and an empty match changes nothing.
        let r = rules(true, &["x*"], None);
        let text = "password:\n  shown\nok token=abcdef\n";
        for step in [1, 5, 1000] {
            assert_eq!(
                run(&r, text, step),
                "password:\n  shown\nok token=[REDACTED]\n"
            );
        }
    }

    #[test]
    fn anchors_match_at_every_line() {
        let r = rules(false, &[r"^PIN (?P<secret>[0-9]+)$"], None);
        for step in [3, 1000] {
            assert_eq!(
                run(&r, "PIN 1234\nPIN 4444\r\nno PIN 5\n", step),
                "PIN [REDACTED]\nPIN [REDACTED]\r\nno PIN 5\n"
            );
        }
    }

    #[test]
    fn an_incomplete_line_goes_out_when_flushed() {
        let r = rules(true, &[], None);
        let mut filter = Filter::new(&r);
        let mut out = Vec::new();
        filter.feed(b"Password: ", &mut out);
        assert!(out.is_empty());
        filter.flush(&mut out);
        assert_eq!(out, b"Password: ");
    }

    #[test]
    fn output_past_max_bytes_is_cut_with_a_notice() {
        let r = rules(false, &[], Some(10));
        assert_eq!(
            run(&r, "0123456789abcdef\nmore\n", 4),
            "0123456789\n[rsh: output.max_bytes: 12 more bytes not shown]\n"
        );
        assert_eq!(run(&r, "short\n", 4), "short\n");
    }

    #[test]
    fn memory_stays_bounded_on_a_line_without_end() {
        let r = rules(true, &[], None);
        let mut filter = Filter::new(&r);
        let mut out = Vec::new();
        for _ in 0..100 {
            filter.feed(&[b'x'; 10_000], &mut out);
            assert!(filter.pending.len() < LINE_MAX);
        }
        filter.finish(&mut out);
        assert_eq!(out.len(), 1_000_000);
    }

    #[test]
    fn every_match_of_a_built_in_pattern_contains_a_needle() {
        use regex_syntax::hir::literal::{ExtractKind, Extractor};
        // Every match begins with one of a pattern's prefix literals; each of them must
        // contain a needle, within one line.
        for pattern in BUILT_IN.iter().chain([&PEM_BEGIN]) {
            let hir = regex_syntax::parse(pattern).unwrap();
            let prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
            let literals = prefixes
                .literals()
                .unwrap_or_else(|| panic!("{pattern}: no finite set of prefixes"));
            assert!(!literals.is_empty(), "{pattern}");
            for literal in literals {
                let bytes = literal.as_bytes();
                assert!(!bytes.contains(&b'\n'), "{pattern}: {literal:?}");
                assert!(
                    NEEDLES
                        .concat()
                        .iter()
                        .any(|n| bytes.windows(n.len()).any(|w| w == n.as_bytes())),
                    "{pattern}: {literal:?} contains no needle"
                );
            }
        }
    }

    #[test]
    fn each_row_of_needles_is_a_group_of_its_own() {
        // A needle whose first three bytes have the low nibbles of another row's needle
        // would be put in that row's bucket.
        let group = |n: &str| n.bytes().take(3).map(|b| b & 0xf).collect::<Vec<_>>();
        for (r, row) in NEEDLES.iter().enumerate() {
            for other in NEEDLES.iter().skip(r + 1) {
                for n in row.iter() {
                    for m in other.iter() {
                        assert_ne!(group(n), group(m), "{n} and {m}");
                    }
                }
            }
        }
        let order = needles_in_bucket_order();
        for (r, row) in NEEDLES.iter().enumerate() {
            for (i, needle) in row.iter().enumerate() {
                assert_eq!(order[i * 8 + 7 - r], *needle);
            }
        }
    }

    /// Lines of every kind the patterns care about: secrets of each kind, their keywords
    /// without a secret, values on the next line, private keys, CRLF, long lines.
    fn mixed_lines() -> Vec<String> {
        [
            "key AKIAIOSFODNN7EXAMPLE ok",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "GH=ghp_0123456789abcdefghijABCDEFGHIJ012345 and gho_0123456789abcdefghijABCDEFGHIJ012345",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop glpat-abcdefghij0123456789",
            "xoxb-1234567890-abcdef sk-ant-abcdefghijklmnopqrstuvwx AIzaSyA-1234567890abcdefghijklmnopqrstu",
            "sk_live_0123456789abcdefgh eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4",
            "curl -H 'Authorization: Bearer abcdefghijklmnop0123' https://user:pa55@host/",
            "password = hunter22; PASSWD: 'abc def'; Pwd=\"quoted\" api_key: k3y, ACCESS-KEY=zzz",
            "token",
            "token abcdefghijklmnopqrstuvwxyz",
            "password:",
            "  shown on its own line",
            "the access key, the secret, a token, a password: words without values",
            "let key = map.get(&token).unwrap(); // pass: 1",
            "PIN 1234\r",
            "ticket-42 and ticket-",
            "-----BEGIN RSA PRIVATE KEY-----",
            "MIIEowIBAAKCAQEA",
            "-----END RSA PRIVATE KEY-----",
            "-----BEGIN CERTIFICATE----- not a key",
            "",
        ]
        .iter()
        .map(|l| l.to_string())
        .collect()
    }

    #[test]
    fn looking_only_at_lines_with_a_needle_redacts_as_searching_everything() {
        let fast = rules(true, &[r"ticket-\d+", r"^PIN (?P<secret>[0-9]+)$"], None);
        let mut slow = rules(true, &[r"ticket-\d+", r"^PIN (?P<secret>[0-9]+)$"], None);
        assert!(fast.built_in.as_ref().unwrap().needles.is_some());
        slow.built_in.as_mut().unwrap().needles = None;
        // Lines in a random order, and rsh's own sources and manual, which have these words
        // everywhere.
        let lines = mixed_lines();
        let mut input = String::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for i in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            input.push_str(&lines[seed as usize % lines.len()]);
            input.push('\n');
            if i == 1000 {
                // Longer than LINE_MAX, with secrets near its pieces' ends.
                let x = "x".repeat(LINE_MAX - 12);
                input.push_str(&format!("{x} password=long {x} AKIAIOSFODNN7EXAMPLE\n"));
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for file in ["src/redact/mod.rs", "README.md", "man/rsh-policy.5"] {
            input.push_str(&std::fs::read_to_string(root.join(file)).unwrap());
        }
        input.push_str("no newline at the end: token=abcdef");
        let expected = run(&slow, &input, input.len());
        assert!(
            expected.matches(REDACTED_STR).count() > 1000,
            "{expected:.2000}"
        );
        for step in [1, 2, 7, 100, 4093, 65536, 131072, input.len()] {
            assert!(
                run(&fast, &input, step) == expected,
                "fast, pieces of {step}"
            );
            assert!(
                run(&slow, &input, step) == expected,
                "slow, pieces of {step}"
            );
        }
    }

    /// An output that takes passed bytes from where they are in the data fed, by their
    /// place, as the filter process moves them from its pipe.
    struct ByPlace<'d> {
        data: &'d [u8],
        out: Vec<u8>,
        next: usize,
        passed: usize,
    }

    impl Output for ByPlace<'_> {
        fn put(&mut self, bytes: &[u8]) {
            self.out.extend_from_slice(bytes);
        }

        fn pass(&mut self, at: usize, bytes: &[u8]) {
            assert!(at >= self.next, "passed out of order");
            assert_eq!(&self.data[at..at + bytes.len()], bytes);
            self.out.extend_from_slice(&self.data[at..at + bytes.len()]);
            self.next = at + bytes.len();
            self.passed += bytes.len();
        }
    }

    #[test]
    fn passed_bytes_are_where_they_were_fed_in_order() {
        let r = rules(true, &[r"ticket-\d+"], Some(300_000));
        let mut input: String = mixed_lines().join("\n").repeat(20);
        input.push_str(&"plain\n".repeat(50_000));
        for step in [1, 100, 4096, 131072] {
            let mut filter = Filter::new(&r);
            let (mut out, mut passed) = (Vec::new(), 0);
            for piece in input.as_bytes().chunks(step) {
                let mut by_place = ByPlace {
                    data: piece,
                    out: Vec::new(),
                    next: 0,
                    passed: 0,
                };
                filter.feed(piece, &mut by_place);
                out.extend(by_place.out);
                passed += by_place.passed;
            }
            filter.finish(&mut out);
            assert!(
                String::from_utf8(out).unwrap() == run(&r, &input, step),
                "pieces of {step}"
            );
            if step >= 4096 {
                assert!(passed > 150_000, "pieces of {step}: {passed} bytes passed");
            }
        }
    }

    #[test]
    fn an_unended_key_block_stops_hiding_after_its_limit() {
        let r = rules(true, &[], None);
        let mut input = String::from("-----BEGIN RSA PRIVATE KEY-----\n");
        for _ in 0..PEM_LINES_MAX + 5 {
            input.push_str("AAAA\n");
        }
        let out = run(&r, &input, 100);
        assert!(
            out.starts_with(&format!(
                "[REDACTED]\n[rsh: output.redact: a private key block had no END line; {} \
                 lines after it were hidden]\nAAAA\n",
                PEM_LINES_MAX + 1
            )),
            "{out:.200}"
        );
        assert_eq!(out.matches("AAAA").count(), 4);
    }
}
