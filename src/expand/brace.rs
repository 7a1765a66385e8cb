//! Brace expansion (`a{b,c}d`, `{1..10..2}`, `{a..e}`), the first expansion bash performs.
//!
//! Only unquoted literal text takes part: `"{a,b}"` and `${x}` are opaque. The number of words
//! one expansion may produce is bounded (`MAX_BRACE_WORDS`) so that `{1..99999999}` or a chain of
//! `{a,b}` is an error, not an out-of-memory kill.

use crate::parse::{Word, WordPart};

use super::{ExpandError, MAX_BRACE_WORDS};

#[derive(Clone, Debug)]
enum Tok {
    Char(char),
    Part(WordPart),
}

/// The words a word expands to (just the word itself when it has no brace expression).
pub(super) fn expand(word: &Word) -> Result<Vec<Word>, ExpandError> {
    let has_brace = word.parts.iter().any(|p| match p {
        WordPart::Literal(s) => s.contains('{'),
        _ => false,
    });
    if !has_brace {
        return Ok(vec![word.clone()]);
    }
    let toks = tokens(word);
    let mut out = Vec::new();
    expand_toks(toks, &mut out)?;
    Ok(out
        .into_iter()
        .map(|toks| Word {
            parts: parts(toks),
            span: word.span,
        })
        .collect())
}

fn tokens(word: &Word) -> Vec<Tok> {
    let mut toks = Vec::new();
    for part in &word.parts {
        match part {
            WordPart::Literal(s) => toks.extend(s.chars().map(Tok::Char)),
            other => toks.push(Tok::Part(other.clone())),
        }
    }
    toks
}

fn parts(toks: Vec<Tok>) -> Vec<WordPart> {
    let mut parts = Vec::new();
    let mut text = String::new();
    for tok in toks {
        match tok {
            Tok::Char(c) => text.push(c),
            Tok::Part(part) => {
                if !text.is_empty() {
                    parts.push(WordPart::Literal(std::mem::take(&mut text)));
                }
                parts.push(part);
            }
        }
    }
    if !text.is_empty() {
        parts.push(WordPart::Literal(text));
    }
    parts
}

fn is_char(tok: &Tok, c: char) -> bool {
    matches!(tok, Tok::Char(x) if *x == c)
}

fn too_many() -> ExpandError {
    ExpandError::new(
        format!("brace expansion produces more than {MAX_BRACE_WORDS} words"),
        1,
    )
}

fn expand_toks(toks: Vec<Tok>, out: &mut Vec<Vec<Tok>>) -> Result<(), ExpandError> {
    let mut search_from = 0;
    while let Some(open) = (search_from..toks.len()).find(|&i| is_char(&toks[i], '{')) {
        // `${` belongs to a parameter expansion that the lexer already took; a literal `$`
        // right before `{` is not special either, like bash.
        if let Some((close, commas)) = matching_close(&toks, open) {
            let alternatives: Vec<Vec<Tok>> = if !commas.is_empty() {
                split_at(&toks[open + 1..close], &commas, open + 1)
            } else if let Some(seq) = sequence(&toks[open + 1..close])? {
                seq.into_iter()
                    .map(|s| s.chars().map(Tok::Char).collect())
                    .collect()
            } else {
                search_from = open + 1;
                continue;
            };
            for alternative in alternatives {
                let mut word = toks[..open].to_vec();
                word.extend(alternative);
                word.extend_from_slice(&toks[close + 1..]);
                expand_toks(word, out)?;
                if out.len() > MAX_BRACE_WORDS {
                    return Err(too_many());
                }
            }
            return Ok(());
        }
        search_from = open + 1;
    }
    out.push(toks);
    Ok(())
}

/// The `}` matching the `{` at `open`, and the positions of the top-level commas between.
fn matching_close(toks: &[Tok], open: usize) -> Option<(usize, Vec<usize>)> {
    let mut depth = 0;
    let mut commas = Vec::new();
    for (i, tok) in toks.iter().enumerate().skip(open) {
        match tok {
            Tok::Char('{') => depth += 1,
            Tok::Char('}') => {
                depth -= 1;
                if depth == 0 {
                    return Some((i, commas));
                }
            }
            Tok::Char(',') if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    None
}

fn split_at(inner: &[Tok], commas: &[usize], base: usize) -> Vec<Vec<Tok>> {
    let mut out = Vec::new();
    let mut start = 0;
    for &comma in commas {
        out.push(inner[start..comma - base].to_vec());
        start = comma - base + 1;
    }
    out.push(inner[start..].to_vec());
    out
}

/// `{x..y}` or `{x..y..step}` with integers or single letters; None when it is not one.
fn sequence(inner: &[Tok]) -> Result<Option<Vec<String>>, ExpandError> {
    let mut text = String::new();
    for tok in inner {
        match tok {
            Tok::Char(c) => text.push(*c),
            Tok::Part(_) => return Ok(None),
        }
    }
    let pieces: Vec<&str> = text.split("..").collect();
    let (from, to, step) = match pieces.as_slice() {
        [a, b] => (*a, *b, None),
        [a, b, c] => (*a, *b, Some(*c)),
        _ => return Ok(None),
    };
    let step = match step {
        None => 1,
        Some(s) => match s.parse::<i64>() {
            Ok(n) => n.unsigned_abs().max(1) as i64,
            Err(_) => return Ok(None),
        },
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        return numeric_sequence(from, to, a, b, step).map(Some);
    }
    let (mut fa, mut fb) = (from.chars(), to.chars());
    match (fa.next(), fa.next(), fb.next(), fb.next()) {
        (Some(a), None, Some(b), None) if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            let (a, b) = (a as i64, b as i64);
            let values = stepped(a, b, step)?;
            Ok(Some(
                values
                    .into_iter()
                    .map(|v| char::from(v as u8).to_string())
                    .collect(),
            ))
        }
        _ => Ok(None),
    }
}

fn numeric_sequence(
    from: &str,
    to: &str,
    a: i64,
    b: i64,
    step: i64,
) -> Result<Vec<String>, ExpandError> {
    // `{01..10}`: a leading zero on either end pads every number to the widest end.
    let padded = |s: &str| {
        let digits = s.trim_start_matches(['-', '+']);
        digits.len() > 1 && digits.starts_with('0')
    };
    let width = if padded(from) || padded(to) {
        from.len().max(to.len())
    } else {
        0
    };
    Ok(stepped(a, b, step)?
        .into_iter()
        .map(|v| {
            if width > 0 && v < 0 {
                format!("-{:0w$}", -v, w = width - 1)
            } else {
                format!("{v:0width$}")
            }
        })
        .collect())
}

fn stepped(a: i64, b: i64, step: i64) -> Result<Vec<i64>, ExpandError> {
    let count = (a.abs_diff(b) / step.unsigned_abs()) as usize + 1;
    if count > MAX_BRACE_WORDS {
        return Err(too_many());
    }
    let mut values = Vec::with_capacity(count);
    let mut v = a;
    for _ in 0..count {
        values.push(v);
        // Saturating: the last step may go past i64's range, and is never used.
        v = if a <= b {
            v.saturating_add(step)
        } else {
            v.saturating_sub(step)
        };
    }
    Ok(values)
}
