//! The `echo` builtin as bash 5.2 does it with `xpg_echo` off: leading option words made only of
//! `n`, `e` and `E` are options, everything else is printed, and `-e` turns on backslash escapes.
//!
//! This is a pure function from already-expanded arguments to output bytes. It must not write to
//! stdout or stderr, and it knows nothing about the interpreter: the caller does the I/O.

/// bash's builtin echo (xpg_echo off): options -n -e -E, combinable (`-ne`, `-En`); any other
/// argument starting with '-' (e.g. `-x`, `--`, `-n-`, `-`) is printed literally. With -e:
/// \a \b \c (stop all output, no newline) \e \E \f \n \r \t \v \\ \0nnn \xHH \uHHHH \UHHHHHHHH.
/// Any other backslash sequence (including `\1`..`\7`) is printed as it is.
use super::printf::{push_code_point, read_radix};

pub fn echo(args: &[String]) -> Vec<u8> {
    let mut newline = true;
    let mut escapes = false;
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        let Some(flags) = option_flags(first) else {
            break;
        };
        for flag in flags.chars() {
            match flag {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        rest = tail;
    }

    let mut out = Vec::new();
    for (i, arg) in rest.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        if !escapes {
            out.extend_from_slice(arg.as_bytes());
        } else if expand_escapes(arg.as_bytes(), &mut out) == Flow::Stop {
            // `\c` ends everything, including the trailing newline.
            return out;
        }
    }
    if newline {
        out.push(b'\n');
    }
    out
}

/// The flag letters of an option word, or None if the word is not one: it must be `-` followed by
/// at least one letter, all from `neE` (bash prints `-` and `-n-` literally).
fn option_flags(word: &str) -> Option<&str> {
    let flags = word.strip_prefix('-')?;
    if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
        return None;
    }
    Some(flags)
}

#[derive(PartialEq, Eq, Debug)]
enum Flow {
    Continue,
    Stop,
}

/// Appends `arg` to `out` with echo's escapes processed; Stop when `\c` was seen.
fn expand_escapes(arg: &[u8], out: &mut Vec<u8>) -> Flow {
    let mut i = 0;
    while i < arg.len() {
        let c = arg[i];
        i += 1;
        // A lone trailing backslash stays a backslash.
        if c != b'\\' || i >= arg.len() {
            out.push(c);
            continue;
        }
        let e = arg[i];
        i += 1;
        match e {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'c' => return Flow::Stop,
            b'e' | b'E' => out.push(0x1b),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'0' => {
                // echo takes up to three octal digits after `\0`.
                let (value, used) = read_radix(&arg[i..], 8, 3);
                i += used;
                out.push((value & 0xff) as u8);
            }
            b'x' => {
                let (value, used) = read_radix(&arg[i..], 16, 2);
                i += used;
                if used == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(value as u8);
                }
            }
            b'u' | b'U' => {
                let max = if e == b'u' { 4 } else { 8 };
                let (value, used) = read_radix(&arg[i..], 16, max);
                i += used;
                if used == 0 {
                    out.push(b'\\');
                    out.push(e);
                } else {
                    push_code_point(value, out);
                }
            }
            _ => {
                out.push(b'\\');
                out.push(e);
            }
        }
    }
    Flow::Continue
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Vec<u8> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        echo(&args)
    }

    #[test]
    fn plain_words_are_joined_with_spaces() {
        assert_eq!(run(&["a", "b  c"]), b"a b  c\n");
        assert_eq!(run(&[]), b"\n");
        assert_eq!(run(&["", ""]), b" \n");
    }

    #[test]
    fn options_are_recognised_only_when_every_letter_is_valid() {
        assert_eq!(run(&["-n", "a"]), b"a");
        assert_eq!(run(&["-nn", "a\\tb"]), b"a\\tb");
        assert_eq!(run(&["-nE", "a\\tb"]), b"a\\tb");
        assert_eq!(run(&["-ne", "a\\tb"]), b"a\tb");
        assert_eq!(run(&["-e", "a\\tb"]), b"a\tb\n");
        assert_eq!(run(&["-e", "-n", "-E", "a\\n"]), b"a\\n");
        assert_eq!(run(&["-n", "-e", "x\\n", "-n"]), b"x\n -n");
    }

    #[test]
    fn other_dash_words_are_printed() {
        assert_eq!(run(&["-", "a\\tb"]), b"- a\\tb\n");
        assert_eq!(run(&["--", "a"]), b"-- a\n");
        assert_eq!(run(&["-n-", "a"]), b"-n- a\n");
        assert_eq!(run(&["-x", "a"]), b"-x a\n");
        assert_eq!(run(&["a", "-n"]), b"a -n\n");
    }

    #[test]
    fn simple_escapes() {
        assert_eq!(
            run(&["-e", "\\e\\E\\a\\b\\f\\v\\r\\z"]),
            b"\x1b\x1b\x07\x08\x0c\x0b\r\\z\n"
        );
        assert_eq!(
            run(&["-e", "\\", "a\\", "\\\\", "\\'", "\\\"", "\\?"]),
            b"\\ a\\ \\ \\' \\\" \\?\n"
        );
    }

    #[test]
    fn octal_escapes_need_a_leading_zero() {
        assert_eq!(run(&["-e", "a\\1b\\0101\\01234x"]), b"a\\1bAS4x\n");
        assert_eq!(run(&["-e", "\\0", "\\08", "\\0777"]), b"\0 \x008 \xff\n");
    }

    #[test]
    fn hex_and_unicode_escapes() {
        assert_eq!(run(&["-e", "\\x41\\x4g\\xg"]), b"A\x04g\\xg\n");
        assert_eq!(run(&["-e", "\\u00e9\\u\\U1F600"]), "é\\u😀\n".as_bytes());
        assert_eq!(run(&["-e", "\\ud800"]), b"\xed\xa0\x80\n");
        assert_eq!(run(&["-e", "\\U110000"]), b"\xf4\x90\x80\x80\n");
        assert_eq!(run(&["-e", "\\U7fffffff"]), b"\xfd\xbf\xbf\xbf\xbf\xbf\n");
        assert_eq!(run(&["-e", "\\UFFFFFFFF z"]), b" z\n");
        assert_eq!(run(&["-e", "\\u41x"]), b"Ax\n");
    }

    #[test]
    fn backslash_c_stops_everything() {
        assert_eq!(run(&["-e", "a\\cb", "c"]), b"a");
        assert_eq!(run(&["-e", "x", "y\\c", "z"]), b"x y");
        assert_eq!(run(&["-E", "a\\cb"]), b"a\\cb\n");
    }

    #[test]
    fn multibyte_text_passes_through() {
        assert_eq!(run(&["-e", "é\\tü"]), "é\tü\n".as_bytes());
    }
}
