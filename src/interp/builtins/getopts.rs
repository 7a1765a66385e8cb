//! `getopts OPTSTRING NAME [ARG…]`: one option of the positional parameters (or of the ARGs)
//! per call, as bash parses them: grouped flags (`-ab`), values attached or in the next word
//! (`-pVALUE`, `-p VALUE`), `--` and a word not starting with `-` end the options, and a
//! leading `:` in OPTSTRING reports errors in NAME and OPTARG instead of on standard error.
//!
//! Where the scan is (which word, which letter in it) is kept between calls, as bash keeps it;
//! the script starts over by assigning OPTIND (1, 0, or anything that is not a number).

use super::super::vars::is_name;
use super::{Outcome, Shell};
use crate::spawn::fd;

/// Where the scan stands between calls.
#[derive(Debug, Default, Clone)]
pub struct State {
    /// OPTIND as getopts left it (bash's `sh_optind`): the index of the next word to look at,
    /// 1 for the first; 0 before the first call and after the script reset it.
    next_word: usize,
    /// Inside a group of flags (`-abc` after `a`): the word's index and the byte offset of
    /// its next letter.
    in_word: Option<(usize, usize)>,
    /// `Vars::optind_changes` after getopts' own assignment: a different count means the
    /// script assigned or unset OPTIND since.
    changes_seen: Option<u64>,
}

/// What one step of the scan found.
enum Found {
    /// The options have ended.
    End,
    /// An option from OPTSTRING, with its value when it takes one.
    Option(char, Option<String>),
    /// A letter OPTSTRING does not have.
    Unknown(char),
    /// An option whose value is missing: it was the last word.
    NoValue(char),
}

pub fn getopts(shell: &mut Shell, argv: &[String]) -> Outcome {
    // `--` ends getopts' own (no) options, as for every builtin.
    let args = match argv.get(1) {
        Some(first) if first == "--" => &argv[2..],
        _ => &argv[1..],
    };
    let [optstring, name, words @ ..] = args else {
        shell.builtin_error("getopts", "usage: getopts optstring name [arg ...]");
        return Ok(2);
    };
    let (silent, optstring) = match optstring.strip_prefix(':') {
        Some(rest) => (true, rest),
        None => (false, optstring.as_str()),
    };
    let mut state = std::mem::take(&mut shell.getopts);
    if state.changes_seen != Some(shell.vars.optind_changes()) {
        state.next_word = restart_at(shell.vars.value("OPTIND"));
    }
    let words = if words.is_empty() {
        shell.positional_args()
    } else {
        words
    };
    let found = state.step(optstring, words);
    let report = !silent && opterr(shell.vars.value("OPTERR"));
    let optind = state.next_word.to_string();
    let _ = shell.assign("OPTIND", optind);
    state.changes_seen = Some(shell.vars.optind_changes());
    shell.getopts = state;

    let (letter, optarg, status) = match found {
        Found::End => ("?".to_string(), None, 1),
        Found::Option(c, value) => (c.to_string(), value, 0),
        Found::Unknown(c) => {
            if report {
                option_error(shell, &format!("illegal option -- {c}"));
            }
            ("?".to_string(), silent.then(|| c.to_string()), 0)
        }
        Found::NoValue(c) => {
            if report {
                option_error(shell, &format!("option requires an argument -- {c}"));
            }
            let letter = if silent { ":" } else { "?" };
            (letter.to_string(), silent.then(|| c.to_string()), 0)
        }
    };
    let _ = match optarg {
        Some(value) => shell.assign("OPTARG", value),
        None => shell.vars.unset("OPTARG"),
    };
    if !is_name(name) {
        shell.builtin_error("getopts", &format!("`{name}': not a valid identifier"));
        return Ok(1);
    }
    if let Err(message) = shell.assign(name, letter) {
        shell.builtin_error("getopts", &message);
        // bash's statuses: the end of the options stays 1, a found option becomes 2.
        return Ok(if status == 1 { 1 } else { 2 });
    }
    Ok(status)
}

/// A script's usage error, named as bash names it: by the script (`$0`), not the builtin.
fn option_error(shell: &Shell, message: &str) {
    let line = format!("{}: {message}\n", shell.arg0());
    let _ = fd::write_all(2, line.as_bytes());
}

/// Where a scan starts after the script assigned OPTIND (bash's `sv_optind`): at that word,
/// or afresh (0) for 1, 0, a negative number, or anything `atoi` reads as 0.
fn restart_at(optind: Option<&str>) -> usize {
    match atoi(optind.unwrap_or("")) {
        n if n <= 1 => 0,
        n => n as usize,
    }
}

/// Whether messages are printed: OPTERR unset, empty or not 0 as `atoi` reads it.
fn opterr(value: Option<&str>) -> bool {
    match value {
        Some(text) if !text.is_empty() => atoi(text) != 0,
        _ => true,
    }
}

/// C's `atoi`: leading blanks, a sign, then digits as far as they go; 0 when there are none.
fn atoi(text: &str) -> i64 {
    let text = text.trim_start_matches([' ', '\t', '\n']);
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let value = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| {
            n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
    if negative { -value } else { value }
}

impl State {
    /// The caller's position, back from a function that made OPTIND local, as bash saves and
    /// restores it around such a call: `self` is the state at the call, when OPTIND had seen
    /// `changes_at_call` changes; it still stands unless the caller had changed OPTIND since
    /// its last `getopts`.
    pub fn handed_back(mut self, changes_at_call: u64, changes_now: u64) -> State {
        if self.changes_seen == Some(changes_at_call) {
            self.changes_seen = Some(changes_now);
        }
        self
    }

    /// One step of bash's `sh_getopt` over `words` (word N is OPTIND N).
    fn step(&mut self, optstring: &str, words: &[String]) -> Found {
        let end = words.len() + 1;
        if self.next_word >= end {
            self.next_word = end;
            self.in_word = None;
            return Found::End;
        }
        if self.next_word == 0 {
            self.next_word = 1;
            self.in_word = None;
        }
        // A group left half-read is only resumed in a word that still has a letter there (the
        // words may have changed since: other arguments, other positional parameters).
        let resumed = self.in_word.filter(|&(word, at)| {
            words
                .get(word.wrapping_sub(1))
                .is_some_and(|w| at < w.len() && w.is_char_boundary(at))
        });
        let (word, at) = match resumed {
            Some(place) => place,
            None => {
                if self.next_word >= end {
                    return Found::End;
                }
                let text = &words[self.next_word - 1];
                if text == "--" {
                    self.next_word += 1;
                    return Found::End;
                }
                if !text.starts_with('-') || text.len() == 1 {
                    return Found::End;
                }
                (self.next_word, 1)
            }
        };
        let text = &words[word - 1];
        let Some(letter) = text[at..].chars().next() else {
            return Found::End;
        };
        let rest = &text[at + letter.len_utf8()..];
        self.in_word = Some((word, at + letter.len_utf8()));
        if rest.is_empty() {
            self.next_word += 1;
            self.in_word = None;
        }
        let Some(spec) = optstring.find(letter).filter(|_| letter != ':') else {
            return Found::Unknown(letter);
        };
        if !optstring[spec + letter.len_utf8()..].starts_with(':') {
            return Found::Option(letter, None);
        }
        self.in_word = None;
        if !rest.is_empty() {
            self.next_word += 1;
            return Found::Option(letter, Some(rest.to_string()));
        }
        match words.get(self.next_word - 1) {
            Some(value) => {
                self.next_word += 1;
                Found::Option(letter, Some(value.clone()))
            }
            None => Found::NoValue(letter),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// Every step until the end, as `letter[=value]`, `?c` and `:c`, then OPTIND.
    fn scan(optstring: &str, list: &[&str]) -> (Vec<String>, usize) {
        let words = words(list);
        let mut state = State::default();
        let mut seen = Vec::new();
        loop {
            match state.step(optstring, &words) {
                Found::End => return (seen, state.next_word),
                Found::Option(c, None) => seen.push(c.to_string()),
                Found::Option(c, Some(v)) => seen.push(format!("{c}={v}")),
                Found::Unknown(c) => seen.push(format!("?{c}")),
                Found::NoValue(c) => seen.push(format!(":{c}")),
            }
        }
    }

    #[test]
    fn groups_values_and_the_end_of_options() {
        assert_eq!(
            scan("ab:c", &["-a", "-b", "x", "-cb", "y", "file", "-a"]),
            (words(&["a", "b=x", "c", "b=y"]), 6)
        );
        assert_eq!(
            scan("ab:", &["-abVALUE", "z"]),
            (words(&["a", "b=VALUE"]), 2)
        );
        assert_eq!(scan("a", &["-a", "--", "-a"]), (words(&["a"]), 3));
        assert_eq!(scan("a", &["-", "-a"]), (words(&[]), 1));
        assert_eq!(scan("a", &[""]), (words(&[]), 1));
        assert_eq!(scan("a", &[]), (words(&[]), 1));
    }

    #[test]
    fn unknown_letters_and_missing_values() {
        assert_eq!(scan("ac", &["-axc"]), (words(&["a", "?x", "c"]), 2));
        assert_eq!(scan("a:b", &["-ba"]), (words(&["b", ":a"]), 2));
        assert_eq!(scan("a:", &["-:"]), (words(&["?:"]), 2));
        assert_eq!(scan("a:", &["-a", "-b"]), (words(&["a=-b"]), 3));
    }

    #[test]
    fn a_group_is_not_resumed_inside_a_letter_of_other_words() {
        let mut state = State::default();
        let found = state.step("abc", &words(&["-abc"]));
        assert!(matches!(found, Found::Option('a', None)));
        let found = state.step("é:", &words(&["-éx"]));
        assert!(matches!(found, Found::Option('é', Some(ref v)) if v == "x"));
    }

    #[test]
    fn optind_assignments_restart_as_in_bash() {
        assert_eq!(restart_at(Some("1")), 0);
        assert_eq!(restart_at(Some("0")), 0);
        assert_eq!(restart_at(Some("-1")), 0);
        assert_eq!(restart_at(Some("abc")), 0);
        assert_eq!(restart_at(None), 0);
        assert_eq!(restart_at(Some("3")), 3);
        assert!(opterr(None) && opterr(Some("")) && opterr(Some("42")));
        assert!(!opterr(Some("0")) && !opterr(Some("abc")));
    }
}
