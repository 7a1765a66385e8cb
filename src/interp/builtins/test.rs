//! The `test` and `[` builtins as bash 5.2 does them, and the unary and binary operators that
//! `[[ ]]` shares with them.
//!
//! The argument-count rules and the expression grammar (`!`, `-a`, `-o`, parentheses) follow
//! bash's own parser so that odd inputs give the same answers and messages. File tests look at the
//! file system relative to the process's current directory; everything about the shell itself
//! (variables, options) comes through [`TestEnv`]. This module must not write to stdout or
//! stderr: errors are returned for the caller to print.

use nix::fcntl::AT_FDCWD;
use nix::sys::stat::{FileStat, SFlag, lstat, stat};
use nix::unistd::{AccessFlags, faccessat, getegid, geteuid};

/// What `test`/`[`/`[[` need from the shell beyond the file system.
pub trait TestEnv {
    /// For `-v NAME`: whether the variable (or array element `a[1]`) is set.
    fn var_is_set(&self, name: &str) -> bool;
    /// For `-o NAME`: whether the `set -o` option is on (None: unknown option).
    fn option_is_on(&self, name: &str) -> Option<bool>;
    /// For `-R NAME`: whether the variable is set and is a name reference. Shells without
    /// namerefs can keep the default.
    fn var_is_nameref(&self, _name: &str) -> bool {
        false
    }
    /// For `-r` and `-w`, after the file's modes: whether the shell's commands may have the
    /// file (read it, or write it). Shells without such rules can keep the default.
    fn may_have(&self, _path: &str, _write: bool) -> bool {
        true
    }
}

/// `test ARGS` / `[ ARGS ]` (for `[` the caller strips the final `]`; if it is missing the caller
/// reports "[: missing `]'"). Ok(true) → status 0, Ok(false) → 1, Err(message) → status 2
/// (message without a `test: ` prefix, e.g. "too many arguments", "a: integer expression
/// expected", "x: unary operator expected").
pub fn test(args: &[String], env: &dyn TestEnv) -> Result<bool, String> {
    let mut parser = Parser { args, pos: 0, env };
    let value = parser.posix_test()?;
    if let Some(extra) = args.get(parser.pos) {
        return Err(if extra.starts_with('-') {
            format!("syntax error: `{extra}' unexpected")
        } else {
            "too many arguments".to_string()
        });
    }
    Ok(value)
}

/// Unary operators shared with [[ ]]: -a -b -c -d -e -f -g -h -k -p -r -s -t -u -w -x -G -L -N
/// -O -S -z -n -o -v (and -R). Returns None if `op` is not a unary operator.
///
/// `-r`, `-w` and `-x` ask the kernel with the effective ids (so for root `-r` holds for any
/// existing file and `-x` when any execute bit is set), and `-r` and `-w` then the policy
/// (`TestEnv::may_have`); `-t FD` is isatty; `-N` is true when the
/// modification time is later than the access time.
pub fn unary(op: &str, arg: &str, env: &dyn TestEnv) -> Option<Result<bool, String>> {
    let letter = unary_letter(op)?;
    let value = match letter {
        'a' | 'e' => file_stat(arg).is_some(),
        'b' => has_type(arg, SFlag::S_IFBLK),
        'c' => has_type(arg, SFlag::S_IFCHR),
        'd' => has_type(arg, SFlag::S_IFDIR),
        'f' => file_stat(arg).is_some_and(|st| {
            let kind = st.st_mode & SFlag::S_IFMT.bits();
            kind == SFlag::S_IFREG.bits() || kind == 0
        }),
        'g' => has_mode_bit(arg, libc::S_ISGID),
        'h' | 'L' => is_symlink(arg),
        'k' => has_mode_bit(arg, libc::S_ISVTX),
        'p' => has_type(arg, SFlag::S_IFIFO),
        'r' => accessible(arg, AccessFlags::R_OK) && env.may_have(arg, false),
        's' => file_stat(arg).is_some_and(|st| st.st_size > 0),
        't' => is_terminal(arg),
        'u' => has_mode_bit(arg, libc::S_ISUID),
        'w' => accessible(arg, AccessFlags::W_OK) && env.may_have(arg, true),
        'x' => accessible(arg, AccessFlags::X_OK),
        'G' => file_stat(arg).is_some_and(|st| st.st_gid == getegid().as_raw()),
        'N' => file_stat(arg)
            .is_some_and(|st| (st.st_mtime, st.st_mtime_nsec) > (st.st_atime, st.st_atime_nsec)),
        'O' => file_stat(arg).is_some_and(|st| st.st_uid == geteuid().as_raw()),
        'S' => has_type(arg, SFlag::S_IFSOCK),
        'z' => arg.is_empty(),
        'n' => !arg.is_empty(),
        'o' => env.option_is_on(arg) == Some(true),
        'v' => env.var_is_set(arg),
        'R' => env.var_is_nameref(arg),
        _ => return None,
    };
    Some(Ok(value))
}

/// Binary operators: the file and string ones shared with [[ ]] (-ef -nt -ot = == != < >; string
/// comparisons byte-wise like LC_ALL=C), and the integer ones -eq -ne -lt -le -gt -ge as `test`
/// does them, on plain integers (leading and trailing blanks allowed, optional sign), failing
/// with "X: integer expression expected". [[ ]] evaluates the integer operators arithmetically
/// itself and should not pass them here. Returns None if `op` is not a binary operator.
pub fn binary(op: &str, left: &str, right: &str) -> Option<Result<bool, String>> {
    let value = match op {
        "=" | "==" => left == right,
        "!=" => left != right,
        "<" => left.as_bytes() < right.as_bytes(),
        ">" => left.as_bytes() > right.as_bytes(),
        "-ef" => same_file(left, right),
        "-nt" => newer_than(left, right),
        "-ot" => newer_than(right, left),
        "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
            return Some(compare_integers(op, left, right));
        }
        _ => return None,
    };
    Some(Ok(value))
}

// ---------------------------------------------------------------------------------------------
// The expression parser, following bash's test.c.
// ---------------------------------------------------------------------------------------------

struct Parser<'a> {
    args: &'a [String],
    /// The index of the next argument to look at.
    pos: usize,
    env: &'a dyn TestEnv,
}

impl<'a> Parser<'a> {
    fn arg(&self, i: usize) -> &'a str {
        self.args.get(i).map_or("", String::as_str)
    }

    fn count(&self) -> usize {
        self.args.len()
    }

    /// Moves past the current argument; with `needed`, it is an error to run out.
    fn advance(&mut self, needed: bool) -> Result<(), String> {
        self.pos += 1;
        if needed && self.pos >= self.count() {
            return Err(beyond());
        }
        Ok(())
    }

    /// POSIX's rules by argument count, falling back to the full grammar.
    fn posix_test(&mut self) -> Result<bool, String> {
        let n = self.count();
        match n {
            0 => Ok(false),
            1 => {
                self.pos = n;
                Ok(!self.arg(0).is_empty())
            }
            2 => {
                let value = self.two_arguments()?;
                self.pos = n;
                Ok(value)
            }
            3 => self.three_arguments(),
            4 if self.arg(0) == "!" => {
                self.advance(true)?;
                Ok(!self.three_arguments()?)
            }
            4 if self.arg(0) == "(" && self.arg(3) == ")" => {
                self.advance(true)?;
                let value = self.two_arguments()?;
                self.pos = n;
                Ok(value)
            }
            _ => self.expr(),
        }
    }

    fn two_arguments(&mut self) -> Result<bool, String> {
        let first = self.arg(self.pos);
        if first == "!" {
            return Ok(self.arg(self.pos + 1).is_empty());
        }
        if unary_letter(first).is_some() {
            return self.unary_operator();
        }
        Err(format!("{first}: unary operator expected"))
    }

    fn three_arguments(&mut self) -> Result<bool, String> {
        let (a, op, b) = (
            self.arg(self.pos),
            self.arg(self.pos + 1),
            self.arg(self.pos + 2),
        );
        let value = if is_binary_op(op) {
            self.binary_operator()?
        } else if op == "-a" {
            !a.is_empty() && !b.is_empty()
        } else if op == "-o" {
            !a.is_empty() || !b.is_empty()
        } else if a == "!" {
            self.advance(true)?;
            !self.two_arguments()?
        } else if a.starts_with('(') && b.starts_with(')') {
            // bash looks only at the first character of each parenthesis here.
            !op.is_empty()
        } else {
            return Err(format!("{op}: binary operator expected"));
        };
        self.pos = self.count();
        Ok(value)
    }

    fn expr(&mut self) -> Result<bool, String> {
        if self.pos >= self.count() {
            return Err(beyond());
        }
        self.or()
    }

    fn or(&mut self) -> Result<bool, String> {
        let value = self.and()?;
        if self.pos < self.count() && self.arg(self.pos) == "-o" {
            self.advance(false)?;
            // Both sides are always evaluated, so errors on the right still count.
            let right = self.or()?;
            return Ok(value || right);
        }
        Ok(value)
    }

    fn and(&mut self) -> Result<bool, String> {
        let value = self.term()?;
        if self.pos < self.count() && self.arg(self.pos) == "-a" {
            self.advance(false)?;
            let right = self.and()?;
            return Ok(value && right);
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<bool, String> {
        if self.pos >= self.count() {
            return Err(beyond());
        }
        if self.arg(self.pos) == "!" {
            let mut negate = false;
            while self.pos < self.count() && self.arg(self.pos) == "!" {
                self.advance(true)?;
                negate = !negate;
            }
            return Ok(self.term()? != negate);
        }
        if self.arg(self.pos) == "(" {
            self.advance(true)?;
            let value = self.expr()?;
            match self.args.get(self.pos) {
                None => return Err("`)' expected".to_string()),
                Some(close) if close != ")" => {
                    return Err(format!("`)' expected, found {close}"));
                }
                Some(_) => {}
            }
            self.advance(false)?;
            return Ok(value);
        }
        if self.pos + 3 <= self.count() && is_binary_op(self.arg(self.pos + 1)) {
            return self.binary_operator();
        }
        if self.pos + 2 <= self.count() && unary_letter(self.arg(self.pos)).is_some() {
            return self.unary_operator();
        }
        let value = !self.arg(self.pos).is_empty();
        self.advance(false)?;
        Ok(value)
    }

    /// The operator at `pos + 1` applied to its neighbours.
    fn binary_operator(&mut self) -> Result<bool, String> {
        let (left, op, right) = (
            self.arg(self.pos),
            self.arg(self.pos + 1),
            self.arg(self.pos + 2),
        );
        let value = match binary(op, left, right) {
            Some(result) => result?,
            None => return Err(format!("{op}: binary operator expected")),
        };
        self.pos += 3;
        Ok(value)
    }

    /// The unary operator at `pos` with its argument.
    fn unary_operator(&mut self) -> Result<bool, String> {
        let op = self.arg(self.pos);
        if op == "-t" {
            // `-t` alone means `-t 1`, and a following non-number is not its argument.
            self.advance(false)?;
            if self.pos >= self.count() {
                return Ok(is_terminal("1"));
            }
            if legal_number(self.arg(self.pos)).is_none() {
                return Ok(false);
            }
            self.advance(false)?;
            return Ok(is_terminal(self.arg(self.pos - 1)));
        }
        self.advance(true)?;
        self.pos += 1;
        let arg = self.arg(self.pos - 1);
        unary(op, arg, self.env).unwrap_or(Ok(false))
    }
}

fn beyond() -> String {
    "argument expected".to_string()
}

/// The letter of a unary operator like `-f`, or None.
fn unary_letter(op: &str) -> Option<char> {
    let letter = match op.as_bytes() {
        [b'-', c] => *c as char,
        _ => return None,
    };
    "abcdefghknoprstuvwxzGLNORS"
        .contains(letter)
        .then_some(letter)
}

fn is_binary_op(op: &str) -> bool {
    matches!(
        op,
        "=" | "=="
            | "!="
            | "<"
            | ">"
            | "-nt"
            | "-ot"
            | "-ef"
            | "-eq"
            | "-ne"
            | "-lt"
            | "-le"
            | "-gt"
            | "-ge"
    )
}

// ---------------------------------------------------------------------------------------------
// Operands.
// ---------------------------------------------------------------------------------------------

/// bash's `legal_number`: optional leading white space and sign, decimal digits, optional
/// trailing blanks, no overflow.
fn legal_number(s: &str) -> Option<i64> {
    let leading = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let body = leading.trim_end_matches([' ', '\t']);
    let (negative, digits) = match body.as_bytes().first() {
        Some(b'-') => (true, &body[1..]),
        Some(b'+') => (false, &body[1..]),
        _ => (false, body),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut value: i64 = 0;
    for b in digits.bytes() {
        let d = (b - b'0') as i64;
        value = value.checked_mul(10)?;
        value = if negative {
            value.checked_sub(d)?
        } else {
            value.checked_add(d)?
        };
    }
    Some(value)
}

fn compare_integers(op: &str, left: &str, right: &str) -> Result<bool, String> {
    let expected = |s: &str| format!("{s}: integer expression expected");
    let l = legal_number(left).ok_or_else(|| expected(left))?;
    let r = legal_number(right).ok_or_else(|| expected(right))?;
    Ok(match op {
        "-eq" => l == r,
        "-ne" => l != r,
        "-lt" => l < r,
        "-le" => l <= r,
        "-gt" => l > r,
        _ => l >= r,
    })
}

// ---------------------------------------------------------------------------------------------
// The file system.
// ---------------------------------------------------------------------------------------------

/// stat(2) following symlinks; None for a missing or unreadable file (and for "").
fn file_stat(path: &str) -> Option<FileStat> {
    if path.is_empty() {
        return None;
    }
    stat(path).ok()
}

fn has_type(path: &str, kind: SFlag) -> bool {
    file_stat(path).is_some_and(|st| st.st_mode & SFlag::S_IFMT.bits() == kind.bits())
}

fn has_mode_bit(path: &str, bit: libc::mode_t) -> bool {
    file_stat(path).is_some_and(|st| st.st_mode & bit != 0)
}

fn is_symlink(path: &str) -> bool {
    !path.is_empty()
        && lstat(path).is_ok_and(|st| st.st_mode & SFlag::S_IFMT.bits() == SFlag::S_IFLNK.bits())
}

/// faccessat(2) with AT_EACCESS: the effective ids decide, as for bash.
fn accessible(path: &str, mode: AccessFlags) -> bool {
    !path.is_empty() && faccessat(AT_FDCWD, path, mode, nix::fcntl::AtFlags::AT_EACCESS).is_ok()
}

fn same_file(a: &str, b: &str) -> bool {
    match (file_stat(a), file_stat(b)) {
        (Some(x), Some(y)) => x.st_dev == y.st_dev && x.st_ino == y.st_ino,
        _ => false,
    }
}

/// `a -nt b`: a exists and b does not, or both exist and a's mtime is later (to the nanosecond).
fn newer_than(a: &str, b: &str) -> bool {
    let mtime = |st: FileStat| (st.st_mtime, st.st_mtime_nsec);
    match (file_stat(a), file_stat(b)) {
        (Some(_), None) => true,
        (Some(x), Some(y)) => mtime(x) > mtime(y),
        _ => false,
    }
}

/// `-t FD`: whether the descriptor given as a plain integer is a terminal.
fn is_terminal(fd: &str) -> bool {
    match legal_number(fd).and_then(|n| i32::try_from(n).ok()) {
        Some(fd) => isatty(fd),
        None => false,
    }
}

#[allow(unsafe_code)]
fn isatty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor number; an invalid or closed descriptor makes
    // it return 0 with EBADF, and no memory is passed.
    unsafe { libc::isatty(fd) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::{Path, PathBuf};

    /// A shell with `HOME` set, `ref` a nameref, and two known options.
    struct Env;

    impl TestEnv for Env {
        fn var_is_set(&self, name: &str) -> bool {
            name == "HOME" || name == "ref"
        }
        fn option_is_on(&self, name: &str) -> Option<bool> {
            match name {
                "hashall" => Some(true),
                "noclobber" => Some(false),
                _ => None,
            }
        }
        fn var_is_nameref(&self, name: &str) -> bool {
            name == "ref"
        }
    }

    /// `test` on whitespace-separated words ('' stands for the empty string): 0, 1, or the
    /// error message.
    fn t(words: &str) -> Result<u8, String> {
        let args: Vec<String> = words
            .split_whitespace()
            .map(|w| {
                if w == "''" {
                    String::new()
                } else {
                    w.to_string()
                }
            })
            .collect();
        test(&args, &Env).map(|v| if v { 0 } else { 1 })
    }

    fn err(msg: &str) -> Result<u8, String> {
        Err(msg.to_string())
    }

    /// A fresh scratch directory for file tests.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rsh-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn s(p: &Path) -> String {
        p.to_str().unwrap().to_string()
    }

    #[test]
    fn argument_counts() {
        assert_eq!(t(""), Ok(1));
        assert_eq!(t("x"), Ok(0));
        assert_eq!(t("''"), Ok(1));
        assert_eq!(t("-n"), Ok(0));
        assert_eq!(t("!"), Ok(0));
        assert_eq!(t("-z"), Ok(0));
        assert_eq!(t("-t"), Ok(0));
        assert_eq!(t("! x"), Ok(1));
        assert_eq!(t("! ''"), Ok(0));
        assert_eq!(t("-t abc"), Ok(1));
        assert_eq!(t("a b"), err("a: unary operator expected"));
        assert_eq!(t("-l a"), err("-l: unary operator expected"));
        assert_eq!(t("-- x"), err("--: unary operator expected"));
        assert_eq!(t("x y z"), err("y: binary operator expected"));
        assert_eq!(t("! a b"), err("a: unary operator expected"));
        assert_eq!(t("! -x a b"), err("a: binary operator expected"));
        assert_eq!(t("a b c d e"), err("too many arguments"));
        assert_eq!(t("a = b = c"), err("too many arguments"));
    }

    #[test]
    fn three_and_four_arguments() {
        assert_eq!(t("! -z x"), Ok(0));
        assert_eq!(t("-x -a"), Ok(1));
        assert_eq!(t("a -a b"), Ok(0));
        assert_eq!(t("'' -o a"), Ok(0));
        assert_eq!(t("'' -a a"), Ok(1));
        assert_eq!(t("! a = b"), Ok(0));
        assert_eq!(t("( x )"), Ok(0));
        assert_eq!(t("( '' )"), Ok(1));
        assert_eq!(t("(x a )y"), Ok(0));
        assert_eq!(t("( a b )"), err("a: unary operator expected"));
        assert_eq!(t("( ! )"), Ok(0));
        assert_eq!(t("= = ="), Ok(0));
        assert_eq!(t("-a -a -a"), Ok(0));
        assert_eq!(t("-o -o -o"), Ok(0));
        assert_eq!(t("! -a !"), Ok(0));
        assert_eq!(t("< < <"), Ok(1));
        assert_eq!(t("a ( b"), err("(: binary operator expected"));
        assert_eq!(t("-n x y"), err("x: binary operator expected"));
        assert_eq!(t("-- -- --"), err("--: binary operator expected"));
        assert_eq!(t("! -- --"), err("--: unary operator expected"));
        assert_eq!(t("x -nt"), err("x: unary operator expected"));
        assert_eq!(t("-t 1 -a x"), Ok(1));
    }

    #[test]
    fn full_expressions() {
        assert_eq!(t("! ! a"), Ok(0));
        assert_eq!(t("! ! ! a"), Ok(1));
        assert_eq!(t("! ! ! ! x"), Ok(0));
        assert_eq!(t("x -a ! -n"), Ok(1));
        assert_eq!(t("-n a -a -z"), Ok(0));
        assert_eq!(t("-z -a -z"), Ok(0));
        assert_eq!(t("a -a -l"), Ok(0));
        assert_eq!(t("x = y -o a"), Ok(0));
        assert_eq!(t("( ( a ) )"), Ok(0));
        assert_eq!(t("( ( a )"), err("(: unary operator expected"));
        assert_eq!(t("( x ) -a y"), Ok(0));
        assert_eq!(t("1 -eq 1 -a ( 2 -eq 2 )"), Ok(0));
        assert_eq!(t("( 1 -eq 1 ) )"), err("too many arguments"));
        assert_eq!(t("-l a -a b c"), err("too many arguments"));
        assert_eq!(t("-t x -a y"), err("too many arguments"));
        assert_eq!(t("! = ! -a x"), err("too many arguments"));
        assert_eq!(t("x -eq -a 3 y"), err("x: integer expression expected"));
        assert_eq!(t("a -a ( b c"), err("`)' expected, found c"));
        assert_eq!(t("( a -a b"), err("`)' expected"));
        assert_eq!(t("a -a ( ! b"), err("`)' expected"));
        assert_eq!(t("a -o b -o ("), err("argument expected"));
        assert_eq!(t("a -a -o b -a"), err("argument expected"));
        assert_eq!(t("a -n b c d"), err("syntax error: `-n' unexpected"));
        assert_eq!(t("x -o -a -o"), Ok(0));
        assert_eq!(t("x -a )"), Ok(0));
        assert_eq!(t("-e / -o -e"), Ok(0));
    }

    #[test]
    fn integers() {
        assert_eq!(t("1 -eq 01"), Ok(0));
        assert_eq!(t("-5 -lt +3"), Ok(0));
        assert_eq!(t("3 -le 3"), Ok(0));
        assert_eq!(t("3 -ge 4"), Ok(1));
        assert_eq!(t("3 -ne 4"), Ok(0));
        assert_eq!(t("a -eq 1"), err("a: integer expression expected"));
        assert_eq!(t("1x -eq 1"), err("1x: integer expression expected"));
        assert_eq!(t("a -gt b"), err("a: integer expression expected"));
        assert_eq!(
            t("1 -eq 99999999999999999999"),
            err("99999999999999999999: integer expression expected")
        );
        assert_eq!(binary("-eq", " \t 7\t ", "7"), Some(Ok(true)));
        assert_eq!(
            binary("-eq", "7\n", "7"),
            Some(Err("7\n: integer expression expected".to_string()))
        );
        assert_eq!(binary("-eq", "\n7", "7"), Some(Ok(true)));
        assert_eq!(binary("-lt", "-9223372036854775808", "0"), Some(Ok(true)));
        assert_eq!(
            binary("-eq", "", "0"),
            Some(Err(": integer expression expected".into()))
        );
        assert_eq!(
            binary("-eq", "+", "0"),
            Some(Err("+: integer expression expected".into()))
        );
    }

    #[test]
    fn strings() {
        assert_eq!(t("'' = ''"), Ok(0));
        assert_eq!(t("a == a"), Ok(0));
        assert_eq!(t("a != a"), Ok(1));
        assert_eq!(t("a < b"), Ok(0));
        assert_eq!(t("b > a"), Ok(0));
        assert_eq!(t("é > z"), Ok(0));
        assert_eq!(t("B < a"), Ok(0));
        assert_eq!(binary("=~", "a", "a"), None);
        assert_eq!(binary("-a", "a", "a"), None);
    }

    #[test]
    fn variables_and_options() {
        assert_eq!(t("-v HOME"), Ok(0));
        assert_eq!(t("-v nosuch"), Ok(1));
        assert_eq!(t("-o hashall"), Ok(0));
        assert_eq!(t("-o noclobber"), Ok(1));
        assert_eq!(t("-o nosuch"), Ok(1));
        assert_eq!(t("-o -o hashall"), Ok(0));
        assert_eq!(t("-R ref"), Ok(0));
        assert_eq!(t("-R HOME"), Ok(1));
        assert_eq!(unary("-q", "x", &Env), None);
        assert_eq!(unary("-nn", "x", &Env), None);
        assert_eq!(unary("n", "x", &Env), None);
    }

    #[test]
    fn terminals() {
        assert_eq!(unary("-t", "abc", &Env), Some(Ok(false)));
        assert_eq!(unary("-t", "99999999999", &Env), Some(Ok(false)));
        assert_eq!(unary("-t", "-1", &Env), Some(Ok(false)));
        assert_eq!(unary("-t", "987", &Env), Some(Ok(false)));
        assert_eq!(t("-t 987"), Ok(1));
    }

    #[test]
    fn file_types() {
        let dir = scratch("types");
        let file = dir.join("file");
        fs::write(&file, "data").unwrap();
        let empty = dir.join("empty");
        fs::write(&empty, "").unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
        let fifo = dir.join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let sock = dir.join("sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let u = |op: &str, p: &Path| unary(op, &s(p), &Env).unwrap().unwrap();

        assert!(u("-e", &file) && u("-a", &file) && u("-f", &file) && u("-s", &file));
        assert!(!u("-d", &file) && !u("-s", &empty) && u("-f", &empty));
        assert!(u("-d", &dir) && !u("-f", &dir));
        assert!(u("-h", &link) && u("-L", &link) && u("-f", &link) && !u("-h", &file));
        assert!(u("-h", &dangling) && !u("-e", &dangling));
        assert!(u("-p", &fifo) && !u("-f", &fifo));
        assert!(u("-S", &sock) && !u("-p", &sock));
        assert!(u("-c", Path::new("/dev/null")) && !u("-b", Path::new("/dev/null")));
        assert!(!u("-e", &dir.join("missing")));
        assert!(u("-O", &file) && u("-G", &file));
        for op in ["-e", "-f", "-d", "-h", "-r", "-w", "-x", "-s"] {
            assert_eq!(unary(op, "", &Env), Some(Ok(false)), "{op} ''");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn mode_bits() {
        let dir = scratch("modes");
        let file = dir.join("file");
        fs::write(&file, "x").unwrap();
        let u = |op: &str| unary(op, &s(&file), &Env).unwrap().unwrap();
        for (mode, op) in [(0o4644, "-u"), (0o2644, "-g"), (0o1644, "-k")] {
            fs::set_permissions(&file, fs::Permissions::from_mode(mode)).unwrap();
            assert!(u(op), "{op} with {mode:o}");
            fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
            assert!(!u(op), "{op} with 644");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn access_rights_follow_the_effective_user() {
        let dir = scratch("access");
        let file = dir.join("file");
        fs::write(&file, "x").unwrap();
        let u = |op: &str| unary(op, &s(&file), &Env).unwrap().unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o000)).unwrap();
        let root = geteuid().is_root();
        // Root may read and write anything, but execute only with some execute bit.
        assert_eq!(u("-r"), root);
        assert_eq!(u("-w"), root);
        assert!(!u("-x"));
        fs::set_permissions(&file, fs::Permissions::from_mode(0o001)).unwrap();
        assert_eq!(u("-x"), root);
        fs::set_permissions(&file, fs::Permissions::from_mode(0o700)).unwrap();
        assert!(u("-r") && u("-w") && u("-x"));
        assert!(unary("-x", &s(&dir), &Env).unwrap().unwrap());
        assert!(
            !unary("-r", &s(&dir.join("missing")), &Env)
                .unwrap()
                .unwrap()
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn times_and_identity() {
        let dir = scratch("times");
        let old = dir.join("old");
        let new = dir.join("new");
        fs::write(&old, "x").unwrap();
        fs::write(&new, "x").unwrap();
        let set = |p: &Path, atime: (i64, i64), mtime: (i64, i64)| {
            let ts = |(s, ns): (i64, i64)| nix::sys::time::TimeSpec::new(s, ns);
            nix::sys::stat::utimensat(
                AT_FDCWD,
                p,
                &ts(atime),
                &ts(mtime),
                nix::sys::stat::UtimensatFlags::FollowSymlink,
            )
            .unwrap();
        };
        set(&old, (1000, 0), (1000, 5));
        set(&new, (1000, 0), (1000, 6));
        let b = |op: &str, l: &Path, r: &Path| binary(op, &s(l), &s(r)).unwrap().unwrap();
        let missing = dir.join("missing");
        assert!(b("-nt", &new, &old) && !b("-nt", &old, &new) && !b("-nt", &old, &old));
        assert!(b("-ot", &old, &new) && !b("-ot", &new, &old));
        assert!(b("-nt", &old, &missing) && !b("-nt", &missing, &old));
        assert!(b("-ot", &missing, &old) && !b("-ot", &old, &missing));
        assert!(!b("-nt", &missing, &missing) && !b("-ot", &missing, &missing));
        assert!(b("-ef", &old, &dir.join(".").join("old")) && !b("-ef", &old, &new));
        assert!(!b("-ef", &missing, &missing));
        // -N: modified after it was last read.
        assert!(unary("-N", &s(&old), &Env).unwrap().unwrap());
        set(&old, (1000, 5), (1000, 5));
        assert!(!unary("-N", &s(&old), &Env).unwrap().unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn random_arguments_never_panic() {
        let pool = [
            "!", "(", ")", "-a", "-o", "-n", "-z", "-t", "-e", "-f", "=", "!=", "<", "-eq", "-lt",
            "-nt", "-ef", "", "x", "1", "-", "--", "-v", "-x", "/", "((", "-N", "2",
        ];
        let mut seed: u64 = 0x2545f4914f6cdd1d;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..20000 {
            let args: Vec<String> = (0..next(9))
                .map(|_| pool[next(pool.len())].to_string())
                .collect();
            let _ = test(&args, &Env);
        }
    }
}
