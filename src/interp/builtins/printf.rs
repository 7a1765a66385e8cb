//! The `printf` builtin as bash 5.2 does it on x86-64 Linux, and the `%q` quoting that
//! `declare -p`, `alias -p` and `set` share.
//!
//! bash hands most conversions to the C library's printf and reads numbers with `strtoimax` and
//! `strtold`, so this file reproduces those too: floating-point arguments are parsed and printed
//! as x87 80-bit `long double` values (exactly, with a small big-integer type), and a few odd
//! corners of glibc's format parser are copied on purpose.
//!
//! Everything here is a pure function of the format and the already-expanded arguments. It must
//! not write to stdout or stderr and knows nothing about the interpreter: the caller prints the
//! output and the error messages, and handles `-v VAR` and `--`.

use std::cmp::Ordering;

/// What one `printf` call produced.
pub struct PrintfOutput {
    /// The bytes to write (also what `-v VAR` assigns).
    pub out: Vec<u8>,
    /// Diagnostics in order, without any prefix: the caller writes each as `rsh: printf: MESSAGE`.
    /// Warnings carry bash's own `warning: ` at the start of the message.
    pub errors: Vec<String>,
    /// The exit status: 0, or 1 after an invalid number, an invalid conversion and the like.
    pub status: i32,
}

/// bash's builtin printf FORMAT [ARGS...] (args after the format; the caller handles `-v VAR` and
/// `--`).
///
/// Messages in `errors` have no `printf: ` prefix, e.g. `abc: invalid number`,
/// `` `z': invalid format character ``, `warning: 99999999999999999999: Numerical result out of
/// range`, `missing hex digit for \x`.
///
/// Differences from bash: `%n` checks its variable name but assigns nothing; `%(fmt)T` with `-2`
/// (shell start) uses the current time and reads `TZ` from the process environment; a single
/// field's width or precision is capped at 2^26 bytes instead of 2^31 so one field cannot use
/// gigabytes; a NUL character ends the format or an argument, as in C.
pub fn printf(format: &str, args: &[String]) -> PrintfOutput {
    let args: Vec<&[u8]> = args.iter().map(|a| until_nul(a.as_bytes())).collect();
    let mut printer = Printer {
        args: &args,
        next: 0,
        out: Vec::new(),
        errors: Vec::new(),
        conversion_error: false,
    };
    let status = printer.run(until_nul(format.as_bytes()));
    PrintfOutput {
        out: printer.out,
        errors: printer.errors,
        status,
    }
}

/// bash's `printf %q` quoting (also used for `declare -p`, `alias -p`, `set`): `a b` -> `a\ b`,
/// `` -> `''`, a newline -> `$'\n'`, etc.
///
/// Strings with a character that is not printable use `$'...'`, everything else gets
/// backslashes. Printable means what glibc's C.UTF-8 locale says (a table of its Unicode 14 data),
/// as for bash in a UTF-8 locale.
pub fn quote(s: &str) -> String {
    let quoted = quote_bytes(s.as_bytes());
    match String::from_utf8(quoted) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// C strings end at the first NUL.
fn until_nul(s: &[u8]) -> &[u8] {
    match s.iter().position(|&b| b == 0) {
        Some(n) => &s[..n],
        None => s,
    }
}

/// The largest width or precision honoured for one field.
const FIELD_LIMIT: i64 = 1 << 26;
const INT_MAX: i64 = i32::MAX as i64;

// ---------------------------------------------------------------------------------------------
// The driver: walks the format, consuming arguments.
// ---------------------------------------------------------------------------------------------

struct Printer<'a> {
    args: &'a [&'a [u8]],
    next: usize,
    out: Vec<u8>,
    errors: Vec<String>,
    conversion_error: bool,
}

/// What a conversion tells the format walker.
enum Step {
    /// Carry on at this index of the format.
    Next(usize),
    /// Stop printing with this status.
    Stop(i32),
}

#[derive(Default, Clone, Copy)]
struct Flags {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    group: bool,
}

#[derive(Clone, Copy)]
enum Width {
    None,
    Literal(i64),
    Star(i32),
}

#[derive(Clone, Copy)]
enum Precision {
    None,
    /// `.` followed by an optional `-` and digits; `digits` is how many digits there were.
    Literal {
        value: i64,
        digits: usize,
        minus: bool,
    },
    Star(i32),
}

/// One parsed `%...X` conversion.
struct Spec {
    flags: Flags,
    width: Width,
    precision: Precision,
    /// The precision's digits as written, for echoing a spec glibc does not understand.
    precision_text: Vec<u8>,
    /// Where length modifiers (if any) start; the conversion character is at the end of them.
    modifiers_at: usize,
    conv: u8,
}

impl Spec {
    /// The precision taken from the arguments by `.*`, 0 without one (bash's `precision`).
    fn star_precision(&self) -> i32 {
        match self.precision {
            Precision::Star(p) => p,
            _ => 0,
        }
    }
}

impl<'a> Printer<'a> {
    fn run(&mut self, format: &[u8]) -> i32 {
        if format.is_empty() {
            return 0;
        }
        // A bad %(...)T can change the format for later passes, as in bash.
        let mut format = format.to_vec();
        // The format is reused while arguments remain, but only if it consumes any.
        loop {
            if let Some(status) = self.one_pass(&mut format) {
                return status;
            }
            if self.next == 0 || self.next >= self.args.len() {
                break;
            }
        }
        if self.conversion_error { 1 } else { 0 }
    }

    fn one_pass(&mut self, fmt: &mut [u8]) -> Option<i32> {
        let mut i = 0;
        while i < fmt.len() {
            match fmt[i] {
                b'\\' => {
                    let escape = escape(&fmt[i + 1..], EscapeMode::Format, &mut self.errors);
                    self.out.extend_from_slice(&escape.bytes);
                    i += 1 + escape.used;
                }
                b'%' => match self.conversion(fmt, i) {
                    Step::Next(j) => i = j,
                    Step::Stop(status) => return Some(status),
                },
                c => {
                    self.out.push(c);
                    i += 1;
                }
            }
        }
        None
    }

    /// Handles the conversion whose `%` is at `fmt[start]`.
    fn conversion(&mut self, fmt: &mut [u8], start: usize) -> Step {
        let mut i = start + 1;
        if fmt.get(i) == Some(&b'%') {
            self.out.push(b'%');
            return Step::Next(i + 1);
        }
        let mut flags = Flags::default();
        while let Some(&b) = fmt.get(i) {
            match b {
                b'-' => flags.left = true,
                b'+' => flags.plus = true,
                b' ' => flags.space = true,
                b'#' => flags.alt = true,
                b'0' => flags.zero = true,
                b'\'' => flags.group = true,
                _ => break,
            }
            i += 1;
        }
        let width = if fmt.get(i) == Some(&b'*') {
            i += 1;
            Width::Star(self.get_int())
        } else {
            let (value, n) = read_decimal(&fmt[i..]);
            i += n;
            if n > 0 {
                Width::Literal(value)
            } else {
                Width::None
            }
        };
        let mut precision = Precision::None;
        let mut precision_text = Vec::new();
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                precision = Precision::Star(self.get_int());
            } else {
                let minus = fmt.get(i) == Some(&b'-');
                if minus {
                    i += 1;
                }
                let (value, digits) = read_decimal(&fmt[i..]);
                precision_text = fmt[i..i + digits].to_vec();
                i += digits;
                precision = Precision::Literal {
                    value,
                    digits,
                    minus,
                };
            }
        }
        // Length modifiers are accepted and ignored.
        let modifiers_at = i;
        while fmt.get(i).is_some_and(|b| b"hjlLtz".contains(b)) {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            let text = String::from_utf8_lossy(&fmt[start..]);
            self.errors
                .push(format!("`{text}': missing format character"));
            return Step::Stop(1);
        };
        let spec = Spec {
            flags,
            width,
            precision,
            precision_text,
            modifiers_at,
            conv,
        };
        self.convert(&spec, fmt, start, i)
    }

    /// Performs a parsed conversion; `at` is the index of the conversion character.
    fn convert(&mut self, spec: &Spec, fmt: &mut [u8], start: usize, at: usize) -> Step {
        match spec.conv {
            b'c' => {
                let c = self.get_chr();
                self.emit_c(spec, Value::Char(c));
            }
            b's' => {
                let s = self.get_str();
                self.emit_c(spec, Value::Str(s));
            }
            b'd' | b'i' => {
                let v = self.get_intmax();
                self.emit_c(spec, Value::Signed(v));
            }
            b'o' | b'u' | b'x' | b'X' => {
                let v = self.get_uintmax();
                self.emit_c(spec, Value::Unsigned(v));
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' | b'a' | b'A' => {
                let v = self.get_float();
                self.emit_c(spec, Value::Float(v));
            }
            b'b' => {
                let s = self.get_str();
                let (expanded, stop) = expand_b(s, &mut self.errors);
                self.print_str(spec, &expanded, spec.star_precision());
                if stop {
                    // bash returns at once here, without looking at earlier conversion errors.
                    return Step::Stop(0);
                }
            }
            b'q' | b'Q' => self.quote_conversion(spec),
            b'(' => return self.time_conversion(spec, fmt, start, at),
            b'n' => {
                let name = self.get_str();
                if !name.is_empty() && !is_identifier(name) {
                    let name = String::from_utf8_lossy(name);
                    self.errors
                        .push(format!("`{name}': not a valid identifier"));
                    return Step::Stop(1);
                }
            }
            other => {
                let c = String::from_utf8_lossy(&[other]).into_owned();
                self.errors.push(format!("`{c}': invalid format character"));
                return Step::Stop(1);
            }
        }
        Step::Next(at + 1)
    }

    fn quote_conversion(&mut self, spec: &Spec) {
        let mut arg = self.get_str();
        let mut precision = spec.star_precision();
        if spec.conv == b'Q' {
            // %Q applies a written precision to the unquoted text and never cuts the result.
            if let Precision::Literal { value, digits, .. } = spec.precision
                && digits > 0
            {
                precision = value.min(INT_MAX) as i32;
                if (precision as usize) < arg.len() {
                    arg = &arg[..precision as usize];
                }
            }
        }
        let quoted = quote_bytes(arg);
        if spec.conv == b'Q' && quoted.len() as i64 > precision as i64 {
            precision = quoted.len().min(i32::MAX as usize) as i32;
        }
        self.print_str(spec, &quoted, precision);
    }

    /// `%(FMT)T`: strftime of a time given in seconds since the epoch.
    fn time_conversion(&mut self, spec: &Spec, fmt: &mut [u8], start: usize, at: usize) -> Step {
        let mut depth = 1;
        let mut j = at + 1;
        while j < fmt.len() {
            match fmt[j] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            j += 1;
        }
        let time_format = &fmt[(at + 1).min(j)..j];
        if j >= fmt.len() || fmt.get(j + 1) != Some(&b'T') {
            let c = fmt
                .get(j + 1)
                .map(|&b| String::from_utf8_lossy(&[b]).into_owned())
                .unwrap_or_default();
            self.errors
                .push(format!("warning: `{c}': invalid time format specification"));
            // bash prints the `%` and carries on with the character after it, leaving the first
            // length modifier overwritten by the `(`.
            if let Some(m) = fmt.get_mut(spec.modifiers_at) {
                *m = b'(';
            }
            self.out.push(b'%');
            return Step::Next(start + 1);
        }
        let time_format: &[u8] = if time_format.is_empty() {
            b"%X"
        } else {
            time_format
        };
        let when = if self.next < self.args.len() {
            self.get_intmax()
        } else {
            -1
        };
        let secs = if when == -1 || when == -2 {
            now()
        } else {
            when
        };
        let text = format_time(time_format, secs);
        self.print_str(spec, &text, spec.star_precision());
        Step::Next(j + 2)
    }

    // --- arguments -----------------------------------------------------------------------------

    fn take_arg(&mut self) -> Option<&'a [u8]> {
        let arg = self.args.get(self.next).copied();
        if arg.is_some() {
            self.next += 1;
        }
        arg
    }

    fn get_str(&mut self) -> &'a [u8] {
        self.take_arg().unwrap_or(b"")
    }

    fn get_chr(&mut self) -> u8 {
        self.take_arg()
            .and_then(|a| a.first().copied())
            .unwrap_or(0)
    }

    /// A `*` width or precision: like bash, an out-of-range value is clamped and reported with
    /// the text of the following argument, or silently truncated when it was the last one.
    fn get_int(&mut self) -> i32 {
        let value = self.get_intmax();
        let Some(&following) = self.args.get(self.next) else {
            return value as i32;
        };
        if value > INT_MAX || value < i32::MIN as i64 {
            self.erange(following);
            return value.clamp(i32::MIN as i64, INT_MAX) as i32;
        }
        value as i32
    }

    fn get_intmax(&mut self) -> i64 {
        let Some(arg) = self.take_arg() else {
            return 0;
        };
        if let Some(code) = char_code(arg) {
            return code;
        }
        let parsed = parse_integer(arg);
        let limit = if parsed.negative {
            i64::MIN.unsigned_abs()
        } else {
            i64::MAX as u64
        };
        let out_of_range = parsed.overflow || parsed.magnitude > limit;
        self.number_error(arg, &parsed, out_of_range);
        match (out_of_range, parsed.negative) {
            (true, true) => i64::MIN,
            (true, false) => i64::MAX,
            // 2^63 wraps to i64::MIN, which is right.
            (false, true) => (parsed.magnitude as i64).wrapping_neg(),
            (false, false) => parsed.magnitude as i64,
        }
    }

    fn get_uintmax(&mut self) -> u64 {
        let Some(arg) = self.take_arg() else {
            return 0;
        };
        if let Some(code) = char_code(arg) {
            return code as u64;
        }
        let parsed = parse_integer(arg);
        self.number_error(arg, &parsed, parsed.overflow);
        if parsed.overflow {
            u64::MAX
        } else if parsed.negative {
            parsed.magnitude.wrapping_neg()
        } else {
            parsed.magnitude
        }
    }

    fn get_float(&mut self) -> Ld {
        let Some(arg) = self.take_arg() else {
            return Ld::zero(false);
        };
        if let Some(code) = char_code(arg) {
            return Ld::from_int(code);
        }
        let (value, end, erange) = parse_float(arg);
        if end < arg.len() {
            self.invalid_number(arg);
        } else if erange {
            self.erange(arg);
        }
        value
    }

    /// Reports a partly or wholly invalid number, or else an out-of-range one.
    fn number_error(&mut self, arg: &[u8], parsed: &ParsedInt, out_of_range: bool) {
        if parsed.end < arg.len() {
            self.invalid_number(arg);
        } else if out_of_range {
            self.erange(arg);
        }
    }

    fn invalid_number(&mut self, arg: &[u8]) {
        let what = match arg {
            [b'0', d, ..] if d.is_ascii_digit() => "invalid octal number",
            [b'0', b'x', ..] => "invalid hex number",
            _ => "invalid number",
        };
        let text = String::from_utf8_lossy(arg);
        self.errors.push(format!("{text}: {what}"));
        self.conversion_error = true;
    }

    fn erange(&mut self, arg: &[u8]) {
        let text = String::from_utf8_lossy(arg);
        self.errors
            .push(format!("warning: {text}: Numerical result out of range"));
    }

    // --- output --------------------------------------------------------------------------------

    /// bash's own field printer, used for %b, %q, %Q and %(...)T. `precision` is the `*` value
    /// (or %Q's adjusted precision), which a written precision is raised to.
    fn print_str(&mut self, spec: &Spec, s: &[u8], precision: i32) {
        let mut left = spec.flags.left;
        let width: i64 = match spec.width {
            Width::None => 0,
            Width::Literal(w) => w.min(INT_MAX),
            Width::Star(w) => {
                if w < 0 {
                    left = true;
                }
                // bash negates a negative width, which leaves i32::MIN negative: no padding.
                w.checked_abs().unwrap_or(0) as i64
            }
        };
        let precision: i64 = match spec.precision {
            Precision::None => -1,
            Precision::Star(_) => precision as i64,
            Precision::Literal {
                value,
                digits,
                minus,
            } => {
                if minus || digits == 0 {
                    0
                } else {
                    let written = value.min(INT_MAX);
                    if written < precision as i64 && (precision as i64) < INT_MAX {
                        precision as i64
                    } else {
                        written
                    }
                }
            }
        };
        let len = s.len() as i64;
        let shown = if precision >= 0 && precision <= len {
            precision
        } else {
            len
        };
        let pad = (width - shown).clamp(0, FIELD_LIMIT) as usize;
        let body = &s[..shown as usize];
        if !left {
            self.out.resize(self.out.len() + pad, b' ');
        }
        self.out.extend_from_slice(body);
        if left {
            self.out.resize(self.out.len() + pad, b' ');
        }
    }

    /// A conversion bash hands to the C library's printf.
    fn emit_c(&mut self, spec: &Spec, value: Value) {
        let mut flags = spec.flags;
        let width = match spec.width {
            Width::None => 0,
            Width::Literal(w) => w,
            Width::Star(w) => {
                if w < 0 {
                    flags.left = true;
                }
                (w as i64).abs()
            }
        };
        if width > INT_MAX {
            return; // glibc fails with EOVERFLOW and prints nothing
        }
        let precision = match spec.precision {
            Precision::None => -1,
            Precision::Star(p) => (p as i64).max(-1),
            Precision::Literal { minus: true, .. } => {
                self.unknown_spec(spec, flags, width);
                return;
            }
            Precision::Literal { value, .. } => value,
        };
        if precision > INT_MAX {
            return;
        }
        let width = width.min(FIELD_LIMIT) as usize;
        let precision = precision.min(FIELD_LIMIT);
        if flags.left {
            flags.zero = false;
        }
        let field = match value {
            Value::Char(c) => Field::plain(vec![c]),
            Value::Str(s) => {
                let n = if precision >= 0 {
                    (precision as usize).min(s.len())
                } else {
                    s.len()
                };
                Field::plain(s[..n].to_vec())
            }
            Value::Signed(v) => format_signed(v, flags, precision),
            Value::Unsigned(v) => format_unsigned(v, spec.conv, flags, precision),
            Value::Float(v) => format_float(v, spec.conv, flags, precision),
        };
        field.write(&mut self.out, width, flags);
    }

    /// glibc prints a conversion it cannot parse (here: a precision written as `.-N`) as text:
    /// the spec rebuilt from what it understood, then the rest of bash's converted spec.
    fn unknown_spec(&mut self, spec: &Spec, flags: Flags, width: i64) {
        let mut text = String::from("%");
        if flags.alt {
            text.push('#');
        }
        if flags.group {
            text.push('\'');
        }
        if flags.plus {
            text.push('+');
        } else if flags.space {
            text.push(' ');
        }
        if flags.left {
            text.push('-');
        } else if flags.zero {
            text.push('0');
        }
        if width != 0 {
            text.push_str(&width.to_string());
        }
        text.push_str(".0-");
        self.out.extend_from_slice(text.as_bytes());
        self.out.extend_from_slice(&spec.precision_text);
        let modifier: &[u8] = match spec.conv {
            b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => b"l",
            b'c' | b's' => b"",
            _ => b"L",
        };
        self.out.extend_from_slice(modifier);
        self.out.push(spec.conv);
    }
}

enum Value<'a> {
    Char(u8),
    Str(&'a [u8]),
    Signed(i64),
    Unsigned(u64),
    Float(Ld),
}

/// A formatted value before padding: `prefix` (sign, `0x`) goes before any zero padding.
struct Field {
    prefix: Vec<u8>,
    body: Vec<u8>,
    /// Whether the `0` flag may pad this field (not for strings, or integers with a precision,
    /// or inf/nan).
    zero_pad: bool,
}

impl Field {
    fn plain(body: Vec<u8>) -> Field {
        Field {
            prefix: Vec::new(),
            body,
            zero_pad: false,
        }
    }

    fn write(&self, out: &mut Vec<u8>, width: usize, flags: Flags) {
        let len = self.prefix.len() + self.body.len();
        let pad = width.saturating_sub(len);
        if flags.left {
            out.extend_from_slice(&self.prefix);
            out.extend_from_slice(&self.body);
            out.resize(out.len() + pad, b' ');
        } else if flags.zero && self.zero_pad {
            out.extend_from_slice(&self.prefix);
            out.resize(out.len() + pad, b'0');
            out.extend_from_slice(&self.body);
        } else {
            out.resize(out.len() + pad, b' ');
            out.extend_from_slice(&self.prefix);
            out.extend_from_slice(&self.body);
        }
    }
}

fn sign_prefix(negative: bool, flags: Flags) -> Vec<u8> {
    if negative {
        b"-".to_vec()
    } else if flags.plus {
        b"+".to_vec()
    } else if flags.space {
        b" ".to_vec()
    } else {
        Vec::new()
    }
}

/// Digits of `v` in `radix`, at least `precision` of them (none for 0 with precision 0).
fn integer_digits(v: u64, radix: u64, upper: bool, precision: i64) -> Vec<u8> {
    let table: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut digits = Vec::new();
    let mut n = v;
    while n > 0 {
        digits.push(table[(n % radix) as usize]);
        n /= radix;
    }
    if v == 0 && precision != 0 {
        digits.push(b'0');
    }
    while (digits.len() as i64) < precision {
        digits.push(b'0');
    }
    digits.reverse();
    digits
}

fn format_signed(v: i64, flags: Flags, precision: i64) -> Field {
    Field {
        prefix: sign_prefix(v < 0, flags),
        body: integer_digits(v.unsigned_abs(), 10, false, precision),
        zero_pad: precision < 0,
    }
}

fn format_unsigned(v: u64, conv: u8, flags: Flags, precision: i64) -> Field {
    let radix = match conv {
        b'o' => 8,
        b'u' => 10,
        _ => 16,
    };
    let mut body = integer_digits(v, radix, conv == b'X', precision);
    let mut prefix = Vec::new();
    if flags.alt {
        if conv == b'o' && body.first() != Some(&b'0') {
            body.insert(0, b'0');
        }
        if (conv == b'x' || conv == b'X') && v != 0 {
            prefix = vec![b'0', conv];
        }
    }
    Field {
        prefix,
        body,
        zero_pad: precision < 0,
    }
}

// ---------------------------------------------------------------------------------------------
// Escapes (format strings, %b) and quoting.
// ---------------------------------------------------------------------------------------------

#[derive(PartialEq, Eq, Clone, Copy)]
enum EscapeMode {
    /// In the format: `\'`, `\"`, `\?` lose the backslash; `\NNN` is octal; no `\c`.
    Format,
    /// In a %b argument: `\c` stops, `\0NNN` takes three more digits.
    Argument,
}

struct Escape {
    bytes: Vec<u8>,
    /// How many bytes after the backslash were consumed; 0 means the backslash stands alone.
    used: usize,
    stop: bool,
}

/// Translates the escape whose backslash precedes `s`, like bash's `tescape`.
fn escape(s: &[u8], mode: EscapeMode, errors: &mut Vec<String>) -> Escape {
    let done = |byte: u8, used: usize| Escape {
        bytes: vec![byte],
        used,
        stop: false,
    };
    let lone_backslash = Escape {
        bytes: vec![b'\\'],
        used: 0,
        stop: false,
    };
    let Some(&c) = s.first() else {
        return lone_backslash;
    };
    match c {
        b'a' => done(0x07, 1),
        b'b' => done(0x08, 1),
        b'e' | b'E' => done(0x1b, 1),
        b'f' => done(0x0c, 1),
        b'n' => done(b'\n', 1),
        b'r' => done(b'\r', 1),
        b't' => done(b'\t', 1),
        b'v' => done(0x0b, 1),
        b'\\' => done(b'\\', 1),
        b'0'..=b'7' => {
            let extra = if c == b'0' && mode == EscapeMode::Argument {
                3
            } else {
                2
            };
            let (more, n) = read_radix(&s[1..], 8, extra);
            let value = (c - b'0') as u32 * 8u32.pow(n as u32) + more;
            done((value & 0xff) as u8, 1 + n)
        }
        b'x' => {
            let (value, n) = read_radix(&s[1..], 16, 2);
            if n == 0 {
                errors.push("missing hex digit for \\x".to_string());
                return lone_backslash;
            }
            done(value as u8, 1 + n)
        }
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            let (value, n) = read_radix(&s[1..], 16, max);
            if n == 0 {
                errors.push(format!("missing unicode digit for \\{}", c as char));
                return lone_backslash;
            }
            let mut bytes = Vec::new();
            push_code_point(value, &mut bytes);
            Escape {
                bytes,
                used: 1 + n,
                stop: false,
            }
        }
        b'\'' | b'"' | b'?' if mode == EscapeMode::Format => done(c, 1),
        b'c' if mode == EscapeMode::Argument => Escape {
            bytes: Vec::new(),
            used: 1,
            stop: true,
        },
        _ => lone_backslash,
    }
}

/// %b's expansion of an argument: the bytes, and whether `\c` asked to stop all output.
fn expand_b(arg: &[u8], errors: &mut Vec<String>) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(arg.len());
    let mut i = 0;
    while i < arg.len() {
        let c = arg[i];
        i += 1;
        if c != b'\\' || i >= arg.len() {
            out.push(c);
            continue;
        }
        let e = escape(&arg[i..], EscapeMode::Argument, errors);
        if e.stop {
            return (out, true);
        }
        out.extend_from_slice(&e.bytes);
        i += e.used;
    }
    (out, false)
}

/// Reads up to `max` digits in `radix`: (value, digits used).
pub(super) fn read_radix(s: &[u8], radix: u32, max: usize) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut used = 0;
    for &b in s.iter().take(max) {
        let Some(d) = (b as char).to_digit(radix) else {
            break;
        };
        value = value.wrapping_mul(radix).wrapping_add(d);
        used += 1;
    }
    (value, used)
}

/// Reads a run of decimal digits, saturating: (value, digits used).
fn read_decimal(s: &[u8]) -> (i64, usize) {
    let mut value: i64 = 0;
    let mut used = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            break;
        }
        value = value.saturating_mul(10).saturating_add((b - b'0') as i64);
        used += 1;
    }
    (value, used)
}

/// Encodes a code point as bash does in a UTF-8 locale: surrogates and values past U+10FFFF still
/// get the old UTF-8 scheme (up to six bytes), values of 2^31 and above produce nothing.
pub(super) fn push_code_point(v: u32, out: &mut Vec<u8>) {
    let cont = |shift: u32| 0x80 | ((v >> shift) & 0x3f) as u8;
    match v {
        0..=0x7f => out.push(v as u8),
        0x80..=0x7ff => out.extend_from_slice(&[0xc0 | (v >> 6) as u8, cont(0)]),
        0x800..=0xffff => out.extend_from_slice(&[0xe0 | (v >> 12) as u8, cont(6), cont(0)]),
        0x1_0000..=0x1f_ffff => {
            out.extend_from_slice(&[0xf0 | (v >> 18) as u8, cont(12), cont(6), cont(0)])
        }
        0x20_0000..=0x3ff_ffff => {
            out.extend_from_slice(&[0xf8 | (v >> 24) as u8, cont(18), cont(12), cont(6), cont(0)])
        }
        0x400_0000..=0x7fff_ffff => out.extend_from_slice(&[
            0xfc | (v >> 30) as u8,
            cont(24),
            cont(18),
            cont(12),
            cont(6),
            cont(0),
        ]),
        _ => {}
    }
}

fn is_identifier(s: &[u8]) -> bool {
    match s.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        None => false,
    }
}

/// Quotes bytes the way `printf %q` does: `''` for nothing, `$'...'` when anything is not
/// printable (or not valid UTF-8), backslashes otherwise.
fn quote_bytes(s: &[u8]) -> Vec<u8> {
    if s.is_empty() {
        return b"''".to_vec();
    }
    match std::str::from_utf8(s) {
        Ok(text) if text.chars().all(is_printable) => backslash_quote(text),
        _ => ansi_c_quote(s),
    }
}

/// Whether `c` is printable for glibc's `iswprint` in the C.UTF-8 locale, which is what decides
/// between backslashes and `$'...'` in bash.
fn is_printable(c: char) -> bool {
    let v = c as u32;
    let ranges = not_printable_ranges();
    let i = ranges.partition_point(|&(_, last)| last < v);
    ranges.get(i).is_none_or(|&(first, _)| first > v)
}

/// [`NOT_PRINTABLE`] parsed into sorted inclusive ranges.
fn not_printable_ranges() -> &'static [(u32, u32)] {
    static RANGES: std::sync::OnceLock<Vec<(u32, u32)>> = std::sync::OnceLock::new();
    RANGES.get_or_init(|| {
        let hex = |t: &str| u32::from_str_radix(t, 16).unwrap_or(0);
        NOT_PRINTABLE
            .split_ascii_whitespace()
            .map(|item| match item.split_once('-') {
                Some((first, last)) => (hex(first), hex(last)),
                None => (hex(item), hex(item)),
            })
            .collect()
    })
}

/// The code points (hex, inclusive ranges) that glibc 2.36's C.UTF-8 locale does not count as
/// printable: controls, separators U+2028/U+2029, noncharacters and unassigned code points
/// (Unicode 14). Surrogates are included since they cannot occur in a `str`.
const NOT_PRINTABLE: &str = "\
0-1f 7f-9f 378-379 380-383 38b 38d 3a2 530 557-558 58b-58c 590 5c8-5cf 5eb-5ee 5f5-5ff 70e \
74b-74c 7b2-7bf 7fb-7fc 82e-82f 83f 85c-85d 85f 86b-86f 88f 892-897 984 98d-98e 991-992 9a9 \
9b1 9b3-9b5 9ba-9bb 9c5-9c6 9c9-9ca 9cf-9d6 9d8-9db 9de 9e4-9e5 9ff-a00 a04 a0b-a0e a11-a12 \
a29 a31 a34 a37 a3a-a3b a3d a43-a46 a49-a4a a4e-a50 a52-a58 a5d a5f-a65 a77-a80 a84 a8e a92 \
aa9 ab1 ab4 aba-abb ac6 aca ace-acf ad1-adf ae4-ae5 af2-af8 b00 b04 b0d-b0e b11-b12 b29 b31 \
b34 b3a-b3b b45-b46 b49-b4a b4e-b54 b58-b5b b5e b64-b65 b78-b81 b84 b8b-b8d b91 b96-b98 b9b \
b9d ba0-ba2 ba5-ba7 bab-bad bba-bbd bc3-bc5 bc9 bce-bcf bd1-bd6 bd8-be5 bfb-bff c0d c11 c29 \
c3a-c3b c45 c49 c4e-c54 c57 c5b-c5c c5e-c5f c64-c65 c70-c76 c8d c91 ca9 cb4 cba-cbb cc5 cc9 \
cce-cd4 cd7-cdc cdf ce4-ce5 cf0 cf3-cff d0d d11 d45 d49 d50-d53 d64-d65 d80 d84 d97-d99 db2 \
dbc dbe-dbf dc7-dc9 dcb-dce dd5 dd7 de0-de5 df0-df1 df5-e00 e3b-e3e e5c-e80 e83 e85 e8b ea4 \
ea6 ebe-ebf ec5 ec7 ece-ecf eda-edb ee0-eff f48 f6d-f70 f98 fbd fcd fdb-fff 10c6 10c8-10cc \
10ce-10cf 1249 124e-124f 1257 1259 125e-125f 1289 128e-128f 12b1 12b6-12b7 12bf 12c1 \
12c6-12c7 12d7 1311 1316-1317 135b-135c 137d-137f 139a-139f 13f6-13f7 13fe-13ff 169d-169f \
16f9-16ff 1716-171e 1737-173f 1754-175f 176d 1771 1774-177f 17de-17df 17ea-17ef 17fa-17ff \
181a-181f 1879-187f 18ab-18af 18f6-18ff 191f 192c-192f 193c-193f 1941-1943 196e-196f \
1975-197f 19ac-19af 19ca-19cf 19db-19dd 1a1c-1a1d 1a5f 1a7d-1a7e 1a8a-1a8f 1a9a-1a9f \
1aae-1aaf 1acf-1aff 1b4d-1b4f 1b7f 1bf4-1bfb 1c38-1c3a 1c4a-1c4c 1c89-1c8f 1cbb-1cbc \
1cc8-1ccf 1cfb-1cff 1f16-1f17 1f1e-1f1f 1f46-1f47 1f4e-1f4f 1f58 1f5a 1f5c 1f5e 1f7e-1f7f \
1fb5 1fc5 1fd4-1fd5 1fdc 1ff0-1ff1 1ff5 1fff 2028-2029 2065 2072-2073 208f 209d-209f \
20c1-20cf 20f1-20ff 218c-218f 2427-243f 244b-245f 2b74-2b75 2b96 2cf4-2cf8 2d26 2d28-2d2c \
2d2e-2d2f 2d68-2d6e 2d71-2d7e 2d97-2d9f 2da7 2daf 2db7 2dbf 2dc7 2dcf 2dd7 2ddf 2e5e-2e7f \
2e9a 2ef4-2eff 2fd6-2fef 2ffc-2fff 3040 3097-3098 3100-3104 3130 318f 31e4-31ef 321f \
a48d-a48f a4c7-a4cf a62c-a63f a6f8-a6ff a7cb-a7cf a7d2 a7d4 a7da-a7f1 a82d-a82f a83a-a83f \
a878-a87f a8c6-a8cd a8da-a8df a954-a95e a97d-a97f a9ce a9da-a9dd a9ff aa37-aa3f aa4e-aa4f \
aa5a-aa5b aac3-aada aaf7-ab00 ab07-ab08 ab0f-ab10 ab17-ab1f ab27 ab2f ab6c-ab6f abee-abef \
abfa-abff d7a4-d7af d7c7-d7ca d7fc-dfff fa6e-fa6f fada-faff fb07-fb12 fb18-fb1c fb37 fb3d \
fb3f fb42 fb45 fbc3-fbd2 fd90-fd91 fdc8-fdce fdd0-fdef fe1a-fe1f fe53 fe67 fe6c-fe6f fe75 \
fefd-fefe ff00 ffbf-ffc1 ffc8-ffc9 ffd0-ffd1 ffd8-ffd9 ffdd-ffdf ffe7 ffef-fff8 fffe-ffff \
1000c 10027 1003b 1003e 1004e-1004f 1005e-1007f 100fb-100ff 10103-10106 10134-10136 1018f \
1019d-1019f 101a1-101cf 101fe-1027f 1029d-1029f 102d1-102df 102fc-102ff 10324-1032c \
1034b-1034f 1037b-1037f 1039e 103c4-103c7 103d6-103ff 1049e-1049f 104aa-104af 104d4-104d7 \
104fc-104ff 10528-1052f 10564-1056e 1057b 1058b 10593 10596 105a2 105b2 105ba 105bd-105ff \
10737-1073f 10756-1075f 10768-1077f 10786 107b1 107bb-107ff 10806-10807 10809 10836 \
10839-1083b 1083d-1083e 10856 1089f-108a6 108b0-108df 108f3 108f6-108fa 1091c-1091e \
1093a-1093e 10940-1097f 109b8-109bb 109d0-109d1 10a04 10a07-10a0b 10a14 10a18 10a36-10a37 \
10a3b-10a3e 10a49-10a4f 10a59-10a5f 10aa0-10abf 10ae7-10aea 10af7-10aff 10b36-10b38 \
10b56-10b57 10b73-10b77 10b92-10b98 10b9d-10ba8 10bb0-10bff 10c49-10c7f 10cb3-10cbf \
10cf3-10cf9 10d28-10d2f 10d3a-10e5f 10e7f 10eaa 10eae-10eaf 10eb2-10eff 10f28-10f2f \
10f5a-10f6f 10f8a-10faf 10fcc-10fdf 10ff7-10fff 1104e-11051 11076-1107e 110c3-110cc \
110ce-110cf 110e9-110ef 110fa-110ff 11135 11148-1114f 11177-1117f 111e0 111f5-111ff 11212 \
1123f-1127f 11287 11289 1128e 1129e 112aa-112af 112eb-112ef 112fa-112ff 11304 1130d-1130e \
11311-11312 11329 11331 11334 1133a 11345-11346 11349-1134a 1134e-1134f 11351-11356 \
11358-1135c 11364-11365 1136d-1136f 11375-113ff 1145c 11462-1147f 114c8-114cf 114da-1157f \
115b6-115b7 115de-115ff 11645-1164f 1165a-1165f 1166d-1167f 116ba-116bf 116ca-116ff \
1171b-1171c 1172c-1172f 11747-117ff 1183c-1189f 118f3-118fe 11907-11908 1190a-1190b 11914 \
11917 11936 11939-1193a 11947-1194f 1195a-1199f 119a8-119a9 119d8-119d9 119e5-119ff \
11a48-11a4f 11aa3-11aaf 11af9-11bff 11c09 11c37 11c46-11c4f 11c6d-11c6f 11c90-11c91 11ca8 \
11cb7-11cff 11d07 11d0a 11d37-11d39 11d3b 11d3e 11d48-11d4f 11d5a-11d5f 11d66 11d69 11d8f \
11d92 11d99-11d9f 11daa-11edf 11ef9-11faf 11fb1-11fbf 11ff2-11ffe 1239a-123ff 1246f \
12475-1247f 12544-12f8f 12ff3-12fff 1342f 13439-143ff 14647-167ff 16a39-16a3f 16a5f \
16a6a-16a6d 16abf 16aca-16acf 16aee-16aef 16af6-16aff 16b46-16b4f 16b5a 16b62 16b78-16b7c \
16b90-16e3f 16e9b-16eff 16f4b-16f4e 16f88-16f8e 16fa0-16fdf 16fe5-16fef 16ff2-16fff \
187f8-187ff 18cd6-18cff 18d09-1afef 1aff4 1affc 1afff 1b123-1b14f 1b153-1b163 1b168-1b16f \
1b2fc-1bbff 1bc6b-1bc6f 1bc7d-1bc7f 1bc89-1bc8f 1bc9a-1bc9b 1bca4-1ceff 1cf2e-1cf2f \
1cf47-1cf4f 1cfc4-1cfff 1d0f6-1d0ff 1d127-1d128 1d1eb-1d1ff 1d246-1d2df 1d2f4-1d2ff \
1d357-1d35f 1d379-1d3ff 1d455 1d49d 1d4a0-1d4a1 1d4a3-1d4a4 1d4a7-1d4a8 1d4ad 1d4ba 1d4bc \
1d4c4 1d506 1d50b-1d50c 1d515 1d51d 1d53a 1d53f 1d545 1d547-1d549 1d551 1d6a6-1d6a7 \
1d7cc-1d7cd 1da8c-1da9a 1daa0 1dab0-1deff 1df1f-1dfff 1e007 1e019-1e01a 1e022 1e025 \
1e02b-1e0ff 1e12d-1e12f 1e13e-1e13f 1e14a-1e14d 1e150-1e28f 1e2af-1e2bf 1e2fa-1e2fe \
1e300-1e7df 1e7e7 1e7ec 1e7ef 1e7ff 1e8c5-1e8c6 1e8d7-1e8ff 1e94c-1e94f 1e95a-1e95d \
1e960-1ec70 1ecb5-1ed00 1ed3e-1edff 1ee04 1ee20 1ee23 1ee25-1ee26 1ee28 1ee33 1ee38 1ee3a \
1ee3c-1ee41 1ee43-1ee46 1ee48 1ee4a 1ee4c 1ee50 1ee53 1ee55-1ee56 1ee58 1ee5a 1ee5c 1ee5e \
1ee60 1ee63 1ee65-1ee66 1ee6b 1ee73 1ee78 1ee7d 1ee7f 1ee8a 1ee9c-1eea0 1eea4 1eeaa \
1eebc-1eeef 1eef2-1efff 1f02c-1f02f 1f094-1f09f 1f0af-1f0b0 1f0c0 1f0d0 1f0f6-1f0ff \
1f1ae-1f1e5 1f203-1f20f 1f23c-1f23f 1f249-1f24f 1f252-1f25f 1f266-1f2ff 1f6d8-1f6dc \
1f6ed-1f6ef 1f6fd-1f6ff 1f774-1f77f 1f7d9-1f7df 1f7ec-1f7ef 1f7f1-1f7ff 1f80c-1f80f \
1f848-1f84f 1f85a-1f85f 1f888-1f88f 1f8ae-1f8af 1f8b2-1f8ff 1fa54-1fa5f 1fa6e-1fa6f \
1fa75-1fa77 1fa7d-1fa7f 1fa87-1fa8f 1faad-1faaf 1fabb-1fabf 1fac6-1facf 1fada-1fadf \
1fae8-1faef 1faf7-1faff 1fb93 1fbcb-1fbef 1fbfa-1ffff 2a6e0-2a6ff 2b739-2b73f 2b81e-2b81f \
2cea2-2ceaf 2ebe1-2f7ff 2fa1e-2ffff 3134b-e0000 e0002-e001f e0080-e00ff e01f0-effff \
ffffe-fffff 10fffe-10ffff\
";

/// Backslashes before the shell's special characters.
fn backslash_quote(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 2);
    let mut previous: Option<char> = None;
    for (i, c) in s.char_indices() {
        let special = matches!(
            c,
            ' ' | '\t'
                | '\n'
                | '!'
                | '"'
                | '$'
                | '&'
                | '\''
                | '('
                | ')'
                | '*'
                | ','
                | ';'
                | '<'
                | '>'
                | '?'
                | '['
                | '\\'
                | ']'
                | '^'
                | '`'
                | '{'
                | '|'
                | '}'
        );
        // `#` starts a comment only at the start of a word; `~` expands at the start or after
        // `:` or `=`.
        let comment = c == '#' && i == 0;
        let tilde = c == '~' && matches!(previous, None | Some(':') | Some('='));
        if special || comment || tilde {
            out.push(b'\\');
        }
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        previous = Some(c);
    }
    out
}

/// `$'...'` quoting; non-printable bytes become three-digit octal escapes.
fn ansi_c_quote(s: &[u8]) -> Vec<u8> {
    let mut out = b"$'".to_vec();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let named = match c {
            0x1b => Some(b'E'),
            0x07 => Some(b'a'),
            0x0b => Some(b'v'),
            0x08 => Some(b'b'),
            0x0c => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            b'\\' | b'\'' => Some(c),
            _ => None,
        };
        if let Some(n) = named {
            out.extend_from_slice(&[b'\\', n]);
            i += 1;
            continue;
        }
        match printable_char_len(&s[i..]) {
            Some(len) => {
                out.extend_from_slice(&s[i..i + len]);
                i += len;
            }
            None => {
                out.extend_from_slice(&[
                    b'\\',
                    b'0' + (c >> 6),
                    b'0' + ((c >> 3) & 7),
                    b'0' + (c & 7),
                ]);
                i += 1;
            }
        }
    }
    out.push(b'\'');
    out
}

/// The byte length of the printable UTF-8 character at the start of `s`, if there is one.
fn printable_char_len(s: &[u8]) -> Option<usize> {
    let len = match s.first()? {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let text = std::str::from_utf8(s.get(..len)?).ok()?;
    let c = text.chars().next()?;
    is_printable(c).then_some(len)
}

// ---------------------------------------------------------------------------------------------
// Numbers in arguments.
// ---------------------------------------------------------------------------------------------

/// `'c` or `"c`: the code point of the character after the quote (its first byte if that is not
/// valid UTF-8, 0 if there is none).
fn char_code(arg: &[u8]) -> Option<i64> {
    let (&quote, rest) = arg.split_first()?;
    if quote != b'\'' && quote != b'"' {
        return None;
    }
    let first = *rest.first().unwrap_or(&0);
    let len = match first {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    };
    let code = rest
        .get(..len)
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| t.chars().next())
        .map(|c| c as i64)
        .unwrap_or(first as i64);
    Some(code)
}

/// The result of reading an integer the way `strtoimax(s, &end, 0)` does.
struct ParsedInt {
    negative: bool,
    magnitude: u64,
    overflow: bool,
    /// Where parsing stopped; 0 when nothing was converted.
    end: usize,
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn parse_integer(s: &[u8]) -> ParsedInt {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = s.get(i) {
        negative = sign == b'-';
        i += 1;
    }
    let hex = s.get(i) == Some(&b'0')
        && matches!(s.get(i + 1), Some(b'x' | b'X'))
        && s.get(i + 2).is_some_and(|b| b.is_ascii_hexdigit());
    let radix: u64 = if hex {
        i += 2;
        16
    } else if s.get(i) == Some(&b'0') {
        8
    } else {
        10
    };
    let digits_start = i;
    let mut magnitude: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&b| (b as char).to_digit(radix as u32)) {
        match magnitude
            .checked_mul(radix)
            .and_then(|m| m.checked_add(d as u64))
        {
            Some(m) => magnitude = m,
            None => overflow = true,
        }
        i += 1;
    }
    let end = if i == digits_start { 0 } else { i };
    ParsedInt {
        negative,
        magnitude,
        overflow,
        end,
    }
}

// ---------------------------------------------------------------------------------------------
// x87 extended precision: parsing like glibc's strtold, printing like its %Le %Lf %Lg %La.
// ---------------------------------------------------------------------------------------------

/// An x87 80-bit `long double`. A finite value is `mant * 2^exp`; normal values have the top bit
/// of `mant` set, subnormals have `exp == MIN_EXP`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ld {
    Finite { negative: bool, mant: u64, exp: i64 },
    Inf { negative: bool },
    Nan { negative: bool },
}

/// The exponent of the lowest mantissa bit of the smallest normal and of every subnormal.
const MIN_EXP: i64 = -16445;
/// The exponent of the lowest mantissa bit of the largest finite value.
const MAX_EXP: i64 = 16320;
/// Decimal digits kept when reading a number; later ones only matter as "something non-zero".
const MAX_DIGITS: usize = 5000;

impl Ld {
    fn zero(negative: bool) -> Ld {
        Ld::Finite {
            negative,
            mant: 0,
            exp: 0,
        }
    }

    fn from_int(v: i64) -> Ld {
        round_to_ld(v < 0, v.unsigned_abs() as u128, 0, false).0
    }
}

/// Rounds `q * 2^e2` (plus a little more when `sticky`) to the nearest `Ld`, ties to even.
/// Also says whether strtold would set ERANGE: on overflow, or when the result is inexact and
/// tiny (below the smallest normal even if rounded with an unbounded exponent, as on x86).
fn round_to_ld(negative: bool, q: u128, e2: i64, sticky: bool) -> (Ld, bool) {
    if q == 0 {
        return (Ld::zero(negative), false);
    }
    let len = 128 - q.leading_zeros() as i64;
    let unbounded_shift = len - 64;
    let shift = unbounded_shift.max(MIN_EXP.saturating_sub(e2));
    let (mant, inexact) = if shift > unbounded_shift && unbounded_shift > 0 {
        // glibc makes a subnormal from the mantissa truncated to 64 bits plus "more bits
        // below", forgetting the bit just below those 64; copied for identical results.
        let below_round_bit = q & ((1u128 << (unbounded_shift - 1)) - 1) != 0;
        round_off(
            q >> unbounded_shift,
            shift - unbounded_shift,
            sticky || below_round_bit,
        )
    } else {
        round_off(q, shift, sticky)
    };
    let (mant, exp) = normalize_carry(mant, e2.saturating_add(shift));
    if exp > MAX_EXP {
        return (Ld::Inf { negative }, true);
    }
    let (_, unbounded_exp) = normalize_carry(
        round_off(q, unbounded_shift, sticky).0,
        e2.saturating_add(unbounded_shift),
    );
    let tiny = unbounded_exp < MIN_EXP;
    let value = Ld::Finite {
        negative,
        mant: mant as u64,
        exp: if mant == 0 { 0 } else { exp },
    };
    (value, tiny && inexact)
}

/// `q >> shift` rounded to nearest, ties to even (`sticky`: there is more below `q`), and whether
/// anything was lost. A negative shift moves left.
fn round_off(q: u128, shift: i64, sticky: bool) -> (u128, bool) {
    if shift <= 0 {
        return (q << (-shift).min(127) as u32, sticky);
    }
    let kept = if shift >= 128 { 0 } else { q >> shift };
    let half_shift = shift - 1;
    let half = half_shift < 128 && (q >> half_shift) & 1 == 1;
    let below = sticky
        || if half_shift >= 128 {
            q != 0
        } else {
            q & ((1u128 << half_shift) - 1) != 0
        };
    let up = half && (below || kept & 1 == 1);
    (kept + up as u128, half || below)
}

/// A rounded mantissa of 2^64 becomes 2^63 with the exponent one higher.
fn normalize_carry(mant: u128, exp: i64) -> (u128, i64) {
    if mant >> 64 != 0 {
        (mant >> 1, exp.saturating_add(1))
    } else {
        (mant, exp)
    }
}

fn starts_with_ignore_case(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// glibc's strtold: (value, index where parsing stopped (0 if nothing was read), ERANGE).
fn parse_float(s: &[u8]) -> (Ld, usize, bool) {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = s.get(i) {
        negative = sign == b'-';
        i += 1;
    }
    let rest = &s[i..];
    if starts_with_ignore_case(rest, b"inf") {
        let n = if starts_with_ignore_case(rest, b"infinity") {
            8
        } else {
            3
        };
        return (Ld::Inf { negative }, i + n, false);
    }
    if starts_with_ignore_case(rest, b"nan") {
        let mut n = 3;
        if rest.get(3) == Some(&b'(') {
            let body = rest[4..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if rest.get(4 + body) == Some(&b')') {
                n = 5 + body;
            }
        }
        return (Ld::Nan { negative }, i + n, false);
    }
    let hex_digit_at = |k: usize| rest.get(k).is_some_and(|b| b.is_ascii_hexdigit());
    if rest.first() == Some(&b'0')
        && matches!(rest.get(1), Some(b'x' | b'X'))
        && (hex_digit_at(2) || (rest.get(2) == Some(&b'.') && hex_digit_at(3)))
    {
        let (value, n, erange) = parse_hex_float(&rest[2..], negative);
        return (value, i + 2 + n, erange);
    }
    match parse_decimal_float(rest, negative) {
        Some((value, n, erange)) => (value, i + n, erange),
        None => (Ld::zero(false), 0, false),
    }
}

/// Reads an optional exponent (`e`/`p` already checked by the caller) at `s`: (value, length),
/// or None if no digits follow.
fn read_exponent(s: &[u8]) -> Option<(i64, usize)> {
    let mut i = 1;
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = s.get(i) {
        negative = sign == b'-';
        i += 1;
    }
    let (value, n) = read_decimal(&s[i..]);
    if n == 0 {
        return None;
    }
    // Clamped far beyond any meaningful exponent so arithmetic on it cannot overflow.
    let value = value.min(1_000_000_000);
    Some((if negative { -value } else { value }, i + n))
}

fn parse_hex_float(s: &[u8], negative: bool) -> (Ld, usize, bool) {
    let mut q: u128 = 0;
    let mut e2: i64 = 0;
    let mut sticky = false;
    let mut i = 0;
    let mut seen_point = false;
    while let Some(&b) = s.get(i) {
        if b == b'.' && !seen_point {
            seen_point = true;
            i += 1;
            continue;
        }
        let Some(d) = (b as char).to_digit(16) else {
            break;
        };
        if q >> 116 == 0 {
            q = (q << 4) | d as u128;
            if seen_point {
                e2 -= 4;
            }
        } else {
            sticky |= d != 0;
            if !seen_point {
                e2 += 4;
            }
        }
        i += 1;
    }
    if matches!(s.get(i), Some(b'p' | b'P'))
        && let Some((exp, n)) = read_exponent(&s[i..])
    {
        e2 += exp;
        i += n;
    }
    let (value, erange) = round_to_ld(negative, q, e2, sticky);
    (value, i, erange)
}

fn parse_decimal_float(s: &[u8], negative: bool) -> Option<(Ld, usize, bool)> {
    let mut digits: Vec<u8> = Vec::new();
    let mut exp10: i64 = 0;
    let mut any_digit = false;
    let mut dropped_nonzero = false;
    let mut seen_point = false;
    let mut i = 0;
    while let Some(&b) = s.get(i) {
        if b == b'.' && !seen_point {
            seen_point = true;
            i += 1;
            continue;
        }
        if !b.is_ascii_digit() {
            break;
        }
        any_digit = true;
        let d = b - b'0';
        if digits.is_empty() && d == 0 {
            // Leading zeros only move the decimal point.
            if seen_point {
                exp10 -= 1;
            }
        } else if digits.len() < MAX_DIGITS {
            digits.push(d);
            if seen_point {
                exp10 -= 1;
            }
        } else {
            dropped_nonzero |= d != 0;
            if !seen_point {
                exp10 += 1;
            }
        }
        i += 1;
    }
    if !any_digit {
        return None;
    }
    if matches!(s.get(i), Some(b'e' | b'E'))
        && let Some((exp, n)) = read_exponent(&s[i..])
    {
        exp10 += exp;
        i += n;
    }
    if dropped_nonzero {
        // A trailing 1 stands for the dropped digits: enough to round the right way.
        digits.push(1);
        exp10 -= 1;
    }
    let (value, erange) = decimal_to_ld(negative, &digits, exp10);
    Some((value, i, erange))
}

/// Rounds `digits * 10^exp10` to the nearest `Ld`.
fn decimal_to_ld(negative: bool, digits: &[u8], exp10: i64) -> (Ld, bool) {
    if digits.is_empty() {
        return (Ld::zero(negative), false);
    }
    let magnitude = digits.len() as i64 + exp10;
    if magnitude > 4934 {
        return (Ld::Inf { negative }, true);
    }
    if magnitude < -4952 {
        return (Ld::zero(negative), true);
    }
    let mut d = Big::zero();
    for &digit in digits {
        d.mul_small(10);
        d.add_small(digit as u32);
    }
    if exp10 >= 0 {
        let n = d.mul(&Big::pow10(exp10 as u32));
        let len = n.bit_len() as i64;
        let shift = (len - 120).max(0);
        let (top, sticky) = n.shr_sticky(shift as u64);
        return round_to_ld(negative, top.low_u128(), shift, sticky);
    }
    let p = Big::pow10((-exp10) as u32);
    // Scale so that the quotient has 71 or 72 bits: plenty for rounding to 64.
    let s = 71 - (d.bit_len() as i64 - p.bit_len() as i64);
    let (num, den) = if s >= 0 {
        (d.shl(s as u64), p)
    } else {
        (d, p.shl((-s) as u64))
    };
    let (q, sticky) = divide(&num, &den, 73);
    round_to_ld(negative, q, -s, sticky)
}

/// `num / den` when the quotient is below 2^bits: (quotient, remainder is non-zero).
fn divide(num: &Big, den: &Big, bits: u32) -> (u128, bool) {
    let mut rem = num.clone();
    let mut q: u128 = 0;
    for bit in (0..bits).rev() {
        let d = den.shl(bit as u64);
        if rem.cmp(&d) != Ordering::Less {
            rem.sub_assign(&d);
            q |= 1 << bit;
        }
    }
    (q, !rem.is_zero())
}

/// Formats a value for %e %E %f %F %g %G %a %A like glibc's `%L` conversions.
fn format_float(v: Ld, conv: u8, flags: Flags, precision: i64) -> Field {
    let upper = conv.is_ascii_uppercase();
    let (negative, mant, exp) = match v {
        Ld::Inf { negative } | Ld::Nan { negative } => {
            let word: &[u8] = match (matches!(v, Ld::Inf { .. }), upper) {
                (true, false) => b"inf",
                (true, true) => b"INF",
                (false, false) => b"nan",
                (false, true) => b"NAN",
            };
            return Field {
                prefix: sign_prefix(negative, flags),
                body: word.to_vec(),
                zero_pad: false,
            };
        }
        Ld::Finite {
            negative,
            mant,
            exp,
        } => (negative, mant, exp),
    };
    let mut prefix = sign_prefix(negative, flags);
    let body = match conv.to_ascii_lowercase() {
        b'f' => fixed(mant, exp, precision.max(-1), flags.alt),
        b'e' => scientific(mant, exp, precision, flags.alt, upper),
        b'g' => general(mant, exp, precision, flags.alt, upper),
        _ => {
            prefix.extend_from_slice(if upper { b"0X" } else { b"0x" });
            hex_float(mant, exp, precision, flags.alt, upper)
        }
    };
    Field {
        prefix,
        body,
        zero_pad: true,
    }
}

/// The exact decimal digits of `mant * 2^exp`: the integer part, then the fraction on demand.
struct DigitStream {
    int: Vec<u8>,
    pos: usize,
    frac: Big,
    frac_bits: u64,
}

impl DigitStream {
    fn new(mant: u64, exp: i64) -> DigitStream {
        let m = Big::from_u128(mant as u128);
        if exp >= 0 {
            let int = m.shl(exp as u64).to_decimal();
            return DigitStream {
                int,
                pos: 0,
                frac: Big::zero(),
                frac_bits: 0,
            };
        }
        let bits = (-exp) as u64;
        let (int, frac) = m.split_at_bit(bits);
        DigitStream {
            int: int.to_decimal(),
            pos: 0,
            frac,
            frac_bits: bits,
        }
    }

    fn int_len(&self) -> usize {
        self.int.len()
    }

    fn next_digit(&mut self) -> u8 {
        if let Some(&d) = self.int.get(self.pos) {
            self.pos += 1;
            return d;
        }
        if self.frac.is_zero() {
            return b'0';
        }
        self.frac.mul_small(10);
        let (high, low) = self.frac.split_at_bit(self.frac_bits);
        self.frac = low;
        b'0' + high.low_u128() as u8
    }

    fn rest_is_zero(&self) -> bool {
        self.int[self.pos.min(self.int.len())..]
            .iter()
            .all(|&d| d == b'0')
            && self.frac.is_zero()
    }

    /// Takes `n` digits and rounds them (ties to even) by what follows; true if the rounding
    /// carried out of the first digit (all nines became zeros).
    fn take_rounded(&mut self, n: usize, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        for _ in 0..n {
            if self.pos >= self.int.len() && self.frac.is_zero() {
                break;
            }
            out.push(self.next_digit());
        }
        // Past the exact expansion every digit is a zero.
        out.resize(start + n, b'0');
        let next = self.next_digit();
        let more = (next != b'0' && next != b'5') || !self.rest_is_zero();
        // The digit rounded is the last one kept, which may precede this call's digits.
        let last_odd = out.last().is_some_and(|d| d & 1 == 1);
        let up = next >= b'5' && (more || last_odd);
        up && increment(&mut out[start..])
    }
}

/// Adds one to a string of decimal digits; true if it overflowed (the digits are then zeros).
fn increment(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return false;
        }
    }
    true
}

/// %f: `precision` is -1 for the default of 6.
fn fixed(mant: u64, exp: i64, precision: i64, alt: bool) -> Vec<u8> {
    let precision = if precision < 0 { 6 } else { precision as usize };
    let mut stream = DigitStream::new(mant, exp);
    let int_len = stream.int_len().max(1);
    let mut digits = Vec::new();
    if stream.int_len() == 0 {
        digits.push(b'0');
        if stream.take_rounded(precision, &mut digits) {
            digits[0] = b'1';
        }
    } else if stream.take_rounded(int_len + precision, &mut digits) {
        digits.insert(0, b'1');
    }
    let split = digits.len() - precision;
    let mut out = digits[..split].to_vec();
    if precision > 0 || alt {
        out.push(b'.');
    }
    out.extend_from_slice(&digits[split..]);
    out
}

/// The significant digits for %e: `count` of them, rounded, the decimal exponent, and whether
/// rounding carried into a new leading digit (raising the exponent).
fn significant(mant: u64, exp: i64, count: usize) -> (Vec<u8>, i64, bool) {
    let mut digits = Vec::new();
    if mant == 0 {
        digits.resize(count, b'0');
        return (digits, 0, false);
    }
    let mut stream = DigitStream::new(mant, exp);
    let mut exponent = stream.int_len() as i64 - 1;
    let carried = if stream.int_len() == 0 {
        // Skip the fraction's leading zeros.
        let mut first = stream.next_digit();
        exponent = -1;
        while first == b'0' {
            first = stream.next_digit();
            exponent -= 1;
        }
        digits.push(first);
        // A carry out of the rounded digits goes into the first one.
        stream.take_rounded(count.saturating_sub(1), &mut digits) && increment(&mut digits[..1])
    } else {
        stream.take_rounded(count, &mut digits)
    };
    if carried {
        digits.insert(0, b'1');
        digits.truncate(count);
        exponent += 1;
    }
    (digits, exponent, carried)
}

fn exponent_text(exponent: i64, upper: bool) -> Vec<u8> {
    let sign = if exponent < 0 { '-' } else { '+' };
    let e = if upper { 'E' } else { 'e' };
    format!("{e}{sign}{:02}", exponent.unsigned_abs()).into_bytes()
}

/// %e: d.ddde+XX.
fn scientific(mant: u64, exp: i64, precision: i64, alt: bool, upper: bool) -> Vec<u8> {
    let precision = if precision < 0 { 6 } else { precision as usize };
    let (digits, exponent, _) = significant(mant, exp, precision + 1);
    let mut out = vec![digits[0]];
    if precision > 0 || alt {
        out.push(b'.');
    }
    out.extend_from_slice(&digits[1..]);
    out.extend_from_slice(&exponent_text(exponent, upper));
    out
}

/// %g: %e or %f by the exponent, without trailing zeros unless `#`.
fn general(mant: u64, exp: i64, precision: i64, alt: bool, upper: bool) -> Vec<u8> {
    let p = match precision {
        p if p < 0 => 6,
        0 => 1,
        p => p,
    };
    let (_, x, carried) = significant(mant, exp, p as usize);
    if alt && carried && x == p {
        // glibc decides on the unrounded exponent, and when rounding then pushes the number
        // into exponent form it prints only the leading "1.".
        let mut out = b"1.".to_vec();
        out.extend_from_slice(&exponent_text(x, upper));
        return out;
    }
    let mut out = if p > x && x >= -4 {
        fixed(mant, exp, p - 1 - x, alt)
    } else {
        scientific(mant, exp, p - 1, alt, upper)
    };
    if !alt {
        strip_fraction_zeros(&mut out);
    }
    out
}

/// Removes trailing zeros of the fraction, and the point if nothing is left after it.
fn strip_fraction_zeros(text: &mut Vec<u8>) {
    let Some(point) = text.iter().position(|&b| b == b'.') else {
        return;
    };
    let mantissa_end = text[point..]
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .map_or(text.len(), |n| point + n);
    let mut keep = mantissa_end;
    while keep > point + 1 && text[keep - 1] == b'0' {
        keep -= 1;
    }
    if keep == point + 1 {
        keep = point;
    }
    text.drain(keep..mantissa_end);
}

/// %a for the x87 format as glibc prints it: the leading hex digit holds the top four bits of
/// the 64-bit mantissa, so 1.0 is `0x8p-3`. The `0x` prefix is added by the caller.
fn hex_float(mant: u64, exp: i64, precision: i64, alt: bool, upper: bool) -> Vec<u8> {
    let table: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let nibble = |k: usize| ((mant >> (60 - 4 * k)) & 0xf) as u8;
    let mut leading = nibble(0);
    let mut fraction: Vec<u8> = (1..16).map(nibble).collect();
    // The binary exponent shown is that of the leading digit's lowest bit.
    let mut exponent: i64 = if mant == 0 { 0 } else { exp + 60 };
    if mant == 0 {
        fraction.clear();
    }
    while fraction.last() == Some(&0) {
        fraction.pop();
    }
    let precision = if precision < 0 {
        fraction.len()
    } else {
        precision as usize
    };
    if precision < fraction.len() {
        let last = if precision > 0 {
            fraction[precision - 1]
        } else {
            leading
        };
        let next = fraction[precision];
        let more = next & 7 != 0 || precision + 1 < fraction.len();
        let up = next >= 8 && (last & 1 == 1 || more);
        fraction.truncate(precision);
        if up {
            let mut carry = true;
            for d in fraction.iter_mut().rev() {
                if *d == 15 {
                    *d = 0;
                } else {
                    *d += 1;
                    carry = false;
                    break;
                }
            }
            if carry {
                if leading == 15 {
                    leading = 1;
                    exponent += 4;
                } else {
                    leading += 1;
                }
            }
        }
    }
    let mut out = vec![table[leading as usize]];
    if precision > 0 || alt {
        out.push(b'.');
    }
    out.extend(fraction.iter().map(|&d| table[d as usize]));
    out.resize(out.len() + precision.saturating_sub(fraction.len()), b'0');
    let sign = if exponent < 0 { '-' } else { '+' };
    let p = if upper { 'P' } else { 'p' };
    out.extend_from_slice(format!("{p}{sign}{}", exponent.unsigned_abs()).as_bytes());
    out
}

// ---------------------------------------------------------------------------------------------
// A small unsigned big integer, enough for exact conversions of 80-bit floats.
// ---------------------------------------------------------------------------------------------

/// Little-endian 32-bit limbs without high zero limbs.
#[derive(Clone, Debug, Default)]
struct Big(Vec<u32>);

impl Big {
    fn zero() -> Big {
        Big(Vec::new())
    }

    fn from_u128(v: u128) -> Big {
        let mut b = Big((0..4).map(|k| (v >> (32 * k)) as u32).collect());
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bit_len(&self) -> u64 {
        match self.0.last() {
            Some(&top) => 32 * self.0.len() as u64 - top.leading_zeros() as u64,
            None => 0,
        }
    }

    fn low_u128(&self) -> u128 {
        self.0
            .iter()
            .take(4)
            .enumerate()
            .fold(0, |acc, (k, &limb)| acc | (limb as u128) << (32 * k))
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry: u64 = 0;
        for limb in self.0.iter_mut() {
            let v = *limb as u64 * m as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = a as u64;
        for limb in self.0.iter_mut() {
            if carry == 0 {
                break;
            }
            let v = *limb as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul(&self, other: &Big) -> Big {
        let mut r = vec![0u32; self.0.len() + other.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry: u64 = 0;
            for (j, &b) in other.0.iter().enumerate() {
                let v = r[i + j] as u64 + a as u64 * b as u64 + carry;
                r[i + j] = v as u32;
                carry = v >> 32;
            }
            r[i + other.0.len()] = carry as u32;
        }
        let mut big = Big(r);
        big.trim();
        big
    }

    fn pow10(n: u32) -> Big {
        let mut result = Big::from_u128(1);
        let mut base = Big::from_u128(10);
        let mut e = n;
        while e > 0 {
            if e & 1 == 1 {
                result = result.mul(&base);
            }
            e >>= 1;
            if e > 0 {
                base = base.mul(&base);
            }
        }
        result
    }

    fn shl(&self, bits: u64) -> Big {
        if self.is_zero() {
            return Big::zero();
        }
        let limbs = (bits / 32) as usize;
        let rem = (bits % 32) as u32;
        let mut r = vec![0u32; limbs];
        if rem == 0 {
            r.extend_from_slice(&self.0);
        } else {
            let mut carry = 0u32;
            for &limb in &self.0 {
                r.push((limb << rem) | carry);
                carry = limb >> (32 - rem);
            }
            r.push(carry);
        }
        let mut big = Big(r);
        big.trim();
        big
    }

    /// `self >> bits`, and whether any bit shifted out was set.
    fn shr_sticky(&self, bits: u64) -> (Big, bool) {
        let (high, low) = self.split_at_bit(bits);
        (high, !low.is_zero())
    }

    /// (`self >> bits`, `self mod 2^bits`).
    fn split_at_bit(&self, bits: u64) -> (Big, Big) {
        let limbs = (bits / 32) as usize;
        let rem = (bits % 32) as u32;
        if limbs >= self.0.len() {
            return (Big::zero(), self.clone());
        }
        let mut low: Vec<u32> = self.0[..limbs].to_vec();
        if rem > 0 {
            low.push(self.0[limbs] & ((1u32 << rem) - 1));
        }
        let mut high = Vec::with_capacity(self.0.len() - limbs);
        for k in limbs..self.0.len() {
            let lo = self.0[k] as u64;
            let hi = *self.0.get(k + 1).unwrap_or(&0) as u64;
            high.push((((hi << 32) | lo) >> rem) as u32);
        }
        let mut high = Big(high);
        let mut low = Big(low);
        high.trim();
        low.trim();
        (high, low)
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// `self -= other`; requires `self >= other`.
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow: i64 = 0;
        for (k, limb) in self.0.iter_mut().enumerate() {
            let v = *limb as i64 - *other.0.get(k).unwrap_or(&0) as i64 - borrow;
            borrow = (v < 0) as i64;
            *limb = v.rem_euclid(1 << 32) as u32;
        }
        self.trim();
    }

    /// Divides in place by `d`, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem: u64 = 0;
        for limb in self.0.iter_mut().rev() {
            let v = (rem << 32) | *limb as u64;
            *limb = (v / d as u64) as u32;
            rem = v % d as u64;
        }
        self.trim();
        rem as u32
    }

    /// Decimal digits in ASCII; empty for zero.
    fn to_decimal(&self) -> Vec<u8> {
        let mut n = self.clone();
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.div_small(1_000_000_000));
        }
        let mut out = Vec::new();
        for (k, chunk) in chunks.iter().rev().enumerate() {
            let text = if k == 0 {
                chunk.to_string()
            } else {
                format!("{chunk:09}")
            };
            out.extend_from_slice(text.as_bytes());
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Time, for %(...)T.
// ---------------------------------------------------------------------------------------------

fn now() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    }
}

#[allow(unsafe_code)]
mod c_time {
    // tzset is in every C library but not declared by the libc crate for Linux.
    unsafe extern "C" {
        pub safe fn tzset();
    }
}

/// strftime of local time like bash: a time localtime cannot represent becomes the epoch, and a
/// result of 128 bytes or more becomes empty.
#[allow(unsafe_code)]
fn format_time(format: &[u8], secs: i64) -> Vec<u8> {
    let Ok(c_format) = std::ffi::CString::new(format) else {
        return Vec::new();
    };
    c_time::tzset();
    // SAFETY: `libc::tm` is plain data for which all-zero bytes (with a null tm_zone) is valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let mut t: libc::time_t = secs as libc::time_t;
    // SAFETY: both pointers are to live locals of the right types.
    if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
        t = 0;
        // SAFETY: as above.
        if unsafe { libc::localtime_r(&t, &mut tm) }.is_null() {
            return Vec::new();
        }
    }
    let mut buf = [0u8; 128];
    // SAFETY: the buffer pointer and its length match, the format is NUL-terminated and `tm`
    // was filled by localtime_r; strftime writes at most `buf.len()` bytes.
    let n = unsafe {
        libc::strftime(
            buf.as_mut_ptr().cast::<libc::c_char>(),
            buf.len(),
            c_format.as_ptr(),
            &tm,
        )
    };
    buf[..n.min(buf.len())].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs printf and returns (output, errors, status).
    fn run(format: &str, args: &[&str]) -> (Vec<u8>, Vec<String>, i32) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let r = printf(format, &args);
        (r.out, r.errors, r.status)
    }

    fn out(format: &str, args: &[&str]) -> String {
        let (o, _, _) = run(format, args);
        String::from_utf8_lossy(&o).into_owned()
    }

    #[test]
    fn integers_with_flags_width_and_precision() {
        assert_eq!(
            out("%d|%i|%o|%u|%x|%X", &["10", "-10", "8", "-1", "255", "255"]),
            "10|-10|10|18446744073709551615|ff|FF"
        );
        assert_eq!(
            out(
                "[%5d][%-5d][%05d][%+d][% d][%.3d][%8.3d][%-+8.3d][%.0d][%#o][%#x][%#X][%#.0o][%#o][%05.2d][%+u][% x]",
                &[
                    "42", "42", "42", "42", "42", "42", "42", "42", "0", "8", "255", "255", "0",
                    "0", "7", "5", "5"
                ]
            ),
            "[   42][42   ][00042][+42][ 42][042][     042][+042    ][][010][0xff][0XFF][0][0][   07][5][5]"
        );
        assert_eq!(
            out(
                "%+x|% o|%+u|%#5x|%#o|%#.3o|%#x|%-#8X|%08.3x",
                &["5", "5", "5", "255", "0", "8", "0", "255", "255"]
            ),
            "5|5|5| 0xff|0|010|0|0XFF    |     0ff"
        );
    }

    #[test]
    fn star_width_and_precision() {
        assert_eq!(
            out(
                "[%*d][%-*d][%*d][%.*d][%.*d][%*.*d]",
                &[
                    "5", "1", "5", "1", "-5", "1", "3", "1", "-3", "1", "6", "3", "1"
                ]
            ),
            "[    1][1    ][1    ][001][1][   001]"
        );
        let (o, e, s) = run("%*d|", &["4294967301"]);
        assert_eq!((o, e, s), (b"    0|".to_vec(), vec![], 0));
    }

    #[test]
    fn numeric_arguments() {
        let (o, e, s) = run(
            "%d\n",
            &[
                "abc",
                "12abc",
                "0x1f",
                "010",
                " 12",
                "12 ",
                "+5",
                "'A",
                "\"é",
                "'",
                "",
                "99999999999999999999",
                "-99999999999999999999",
            ],
        );
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "0\n12\n31\n8\n12\n12\n5\n65\n233\n0\n0\n9223372036854775807\n-9223372036854775808\n"
        );
        assert_eq!(
            e,
            vec![
                "abc: invalid number",
                "12abc: invalid number",
                "12 : invalid number",
                "warning: 99999999999999999999: Numerical result out of range",
                "warning: -99999999999999999999: Numerical result out of range",
            ]
        );
        assert_eq!(s, 1);
        let (o, e, s) = run(
            "%u %x\n",
            &["99999999999999999999", "-99999999999999999999"],
        );
        assert_eq!(o, b"18446744073709551615 ffffffffffffffff\n");
        assert_eq!(e.len(), 2);
        assert_eq!(s, 0);
    }

    #[test]
    fn invalid_number_messages() {
        let (o, e, s) = run(
            "%d|",
            &["09", "0xg", "0X1g", "0x", "08.5", " 09", "1.5", "-09"],
        );
        assert_eq!(o, b"0|0|1|0|0|0|1|0|");
        assert_eq!(
            e,
            vec![
                "09: invalid octal number",
                "0xg: invalid hex number",
                "0X1g: invalid number",
                "0x: invalid hex number",
                "08.5: invalid octal number",
                " 09: invalid number",
                "1.5: invalid number",
                "-09: invalid number",
            ]
        );
        assert_eq!(s, 1);
    }

    #[test]
    fn chars_and_strings() {
        assert_eq!(
            run("[%c][%c][%5c][%-3c][%c]", &["abc", "é", "x", "y"]).0,
            b"[a][\xc3][    x][y  ][\0]"
        );
        assert_eq!(run("%c|%c", &[]).0, b"\0|\0");
        assert_eq!(
            out(
                "[%s][%.2s][%5s][%-5s][%.s][%5.1s][%*s][%.*s]",
                &[
                    "abc", "abc", "ab", "ab", "abc", "abc", "-4", "a", "-1", "abc"
                ]
            ),
            "[abc][ab][   ab][ab   ][][    a][a   ][abc]"
        );
        assert_eq!(run("[%.1s][%3s]", &["é", "é"]).0, b"[\xc3][ \xc3\xa9]");
        assert_eq!(
            out("[%#s][%+s][%0s][%05s][% 5s]", &["a", "b", "c", "d", "e"]),
            "[a][b][c][    d][    e]"
        );
        assert_eq!(
            out("[%05c][%#c][%.3c|%-3c|]", &["a", "b", "c", "d"]),
            "[    a][b][c|d  |]"
        );
    }

    #[test]
    fn negative_written_precision_is_echoed_like_glibc() {
        assert_eq!(out("[%.-5s]", &["abc"]), "[%.0-5s]");
        assert_eq!(out("[%.-5d]", &["3"]), "[%.0-5ld]");
        assert_eq!(out("[%5.-5s]", &["abc"]), "[%5.0-5s]");
        assert_eq!(out("[%.-5f]", &["3"]), "[%.0-5Lf]");
        assert_eq!(out("[%-+ #0'12.-5d]", &["3"]), "[%#'+-12.0-5ld]");
        assert_eq!(out("[% 0-.-d]", &["3"]), "[% -.0-ld]");
        assert_eq!(out("[%*.-d]", &["-7", "3"]), "[%-7.0-ld]");
        assert_eq!(out("[%.-5c][%.-5hhd]", &["3", "3"]), "[%.0-5c][%.0-5ld]");
        assert_eq!(out("[%.-5q][%.-5b][%.-5(%Y)T]", &["3", "3", "3"]), "[][][]");
        let (o, e, s) = run("[%.*.-d]", &["7", "3"]);
        assert_eq!(
            (o, e, s),
            (
                b"[".to_vec(),
                vec!["`.': invalid format character".to_string()],
                1
            )
        );
    }

    #[test]
    fn format_reuse_and_missing_arguments() {
        assert_eq!(out("%s-%s\n", &["a", "b", "c"]), "a-b\nc-\n");
        assert_eq!(out("x\n", &["a", "b"]), "x\n");
        assert_eq!(out("%s\n", &[]), "\n");
        assert_eq!(out("%d %s|", &["1"]), "1 |");
        assert_eq!(run("", &["a"]).0, b"");
    }

    #[test]
    fn format_errors() {
        let (o, e, s) = run("ab%", &[]);
        assert_eq!(
            (o, e, s),
            (
                b"ab".to_vec(),
                vec!["`%': missing format character".to_string()],
                1
            )
        );
        assert_eq!(run("ab%-5", &[]).1, vec!["`%-5': missing format character"]);
        assert_eq!(
            run("ab%5l", &["x"]).1,
            vec!["`%5l': missing format character"]
        );
        assert_eq!(run("a%zb", &["1"]), (b"a1".to_vec(), vec![], 0));
        assert_eq!(
            run("%d%z", &["1", "2", "3"]),
            (
                b"1".to_vec(),
                vec!["`%z': missing format character".to_string()],
                1
            )
        );
        for f in ["%5%|", "%.3%", "%*%"] {
            let (o, e, s) = run(f, &["3"]);
            assert_eq!(
                (o, e, s),
                (vec![], vec!["`%': invalid format character".to_string()], 1)
            );
        }
        let (o, e, s) = run("a%yb", &[]);
        assert_eq!(
            (o, e, s),
            (
                b"a".to_vec(),
                vec!["`y': invalid format character".to_string()],
                1
            )
        );
    }

    #[test]
    fn escapes_in_the_format() {
        let (o, e, s) = run(
            "a\\cb\\qc\\\\\\\"\\'\\?\\x41\\xg\\u00e9\\u\\U1F600\\0101\\101\\1011\\08\\e\\E",
            &[],
        );
        assert_eq!(
            o,
            b"a\\cb\\qc\\\"'?A\\xg\xc3\xa9\\u\xf0\x9f\x98\x80\x081AA1\x008\x1b\x1b".to_vec()
        );
        assert_eq!(
            e,
            vec!["missing hex digit for \\x", "missing unicode digit for \\u"]
        );
        assert_eq!(s, 0);
        assert_eq!(out("\\n\\t\\a\\b\\f\\r\\v", &[]), "\n\t\x07\x08\x0c\r\x0b");
        assert_eq!(out("x\\", &[]), "x\\");
        assert_eq!(out("\\%d", &["5"]), "\\5");
    }

    #[test]
    fn percent_b() {
        assert_eq!(run("%b|", &["a\\cb", "x"]), (b"a".to_vec(), vec![], 0));
        let (o, e, _) = run(
            "%b|%s",
            &[
                "a\\101\\0101\\01011\\x41\\xz\\u\\q\\\\\\\"\\'\\?\\e\\E\\n",
                "x",
            ],
        );
        assert_eq!(o, b"aAAA1A\\xz\\u\\q\\\\\"\\'\\?\x1b\x1b\n|x".to_vec());
        assert_eq!(e.len(), 2);
        assert_eq!(
            out("[%5b][%-5b][%.2b][%.3b]", &["a\\tb", "x", "abc", "\\101bc"]),
            "[  a\tb][x    ][ab][Abc]"
        );
        // \c ends with status 0 even after an invalid number.
        assert_eq!(run("%d%b|%s", &["abc", "\\c", "z"]).2, 0);
        assert_eq!(run("%d%b|%s", &["abc", "x", "z"]).2, 1);
        assert_eq!(run("%b", &["a\\0"]).0, b"a\0");
    }

    #[test]
    fn percent_q_and_upper_q() {
        assert_eq!(
            out(
                "[%10q][%-6q][%.2q][%Q][%.2Q]",
                &["a b", "x", "a b", "a b", "a b"]
            ),
            "[      a\\ b][x     ][a\\][a\\ b][a\\ ]"
        );
        assert_eq!(
            out(
                "[%6.2Q][%.*Q][%-6.0Q][%.Q][%.*Q][%.5Q]",
                &["a b", "1", "a b", "a b", "a b", "-1", "a b", "a'b"]
            ),
            "[   a\\ ][a\\ b][''    ][][a\\ b][a\\'b]"
        );
    }

    #[test]
    fn quoting() {
        let cases = [
            ("a:~", "a:\\~"),
            ("a=~", "a=\\~"),
            ("~/x", "\\~/x"),
            ("a~b", "a~b"),
            ("", "''"),
            ("a\nb", "$'a\\nb'"),
            ("\t", "$'\\t'"),
            ("é", "é"),
            ("a b\tc", "$'a b\\tc'"),
            ("\x01\x7f", "$'\\001\\177'"),
            ("a\x1bb\\c'd", "$'a\\Eb\\\\c\\'d'"),
            ("\u{85}", "$'\\302\\205'"),
            ("\u{a0}", "\u{a0}"),
            ("\u{200b}", "\u{200b}"),
            ("\u{e000}", "\u{e000}"),
            ("\u{ffff}", "$'\\357\\277\\277'"),
            ("\u{10ffff}", "$'\\364\\217\\277\\277'"),
            ("\u{2028}", "$'\\342\\200\\250'"),
            ("\u{e0001}", "\u{e0001}"),
            ("😀", "😀"),
            ("é\t", "$'é\\t'"),
            ("#a", "\\#a"),
            ("a#", "a#"),
            ("a%=@+-_.,/:", "a%=@+-_.\\,/:"),
        ];
        for (input, expected) in cases {
            assert_eq!(quote(input), expected, "quoting {input:?}");
        }
        for c in " !\"$&'()*,;<>?[\\]^`{|}".chars() {
            assert_eq!(quote(&format!("a{c}b")), format!("a\\{c}b"));
        }
    }

    #[test]
    fn floats_are_long_doubles() {
        assert_eq!(
            out(
                "%f|%.20f|%.17g|%g|%e|%E|%a|%A|%F",
                &[
                    "1.5",
                    "0.1",
                    "0.1",
                    "0.0001",
                    "12345.678",
                    "1e300",
                    "1",
                    "0.1",
                    "inf"
                ]
            ),
            "1.500000|0.10000000000000000000|0.1|0.0001|1.234568e+04|1.000000E+300|0x8p-3|0XC.CCCCCCCCCCCCCCDP-7|INF"
        );
        assert_eq!(
            out(
                "%f|%f|%F|%5.1f|%05f|%-8f|%e|%g|%a",
                &[
                    "nan", "-nan", "nan", "inf", "inf", "-inf", "NaN", "Infinity", "-inf"
                ]
            ),
            "nan|-nan|NAN|  inf|  inf|-inf    |nan|inf|-inf"
        );
        let (o, e, s) = run("%f %f %f %f", &["0x1p3", "1e5000", "1e-5000", "  3.5"]);
        assert_eq!(o, b"8.000000 inf 0.000000 3.500000");
        assert_eq!(
            e,
            vec![
                "warning: 1e5000: Numerical result out of range",
                "warning: 1e-5000: Numerical result out of range"
            ]
        );
        assert_eq!(s, 0);
        let (o, e, s) = run("%f\n", &["1.5x", "abc", "'A", "", "1e"]);
        assert_eq!(o, b"1.500000\n0.000000\n65.000000\n0.000000\n1.000000\n");
        assert_eq!(
            e,
            vec![
                "1.5x: invalid number",
                "abc: invalid number",
                "1e: invalid number"
            ]
        );
        assert_eq!(s, 1);
    }

    #[test]
    fn float_rounding_is_exact_with_ties_to_even() {
        assert_eq!(
            out(
                "%.0f %.0f %.0f %.1f %.2f %.3f %.14f %.0e %.0e %.1e %.14e",
                &[
                    "0.5",
                    "1.5",
                    "2.5",
                    "0.25",
                    "0.125",
                    "0.0625",
                    "0.000030517578125",
                    "2.5",
                    "3.5",
                    "0.125",
                    "0.000030517578125"
                ]
            ),
            "0 2 2 0.2 0.12 0.062 0.00003051757812 2e+00 4e+00 1.2e-01 3.05175781250000e-05"
        );
        assert_eq!(
            out("%.19f %.20e %.4f", &["0x1p-60", "0x1p-60", "0.00005"]),
            "0.0000000000000000009 8.67361737988403547206e-19 0.0001"
        );
        assert_eq!(
            out(
                "%.0f %.0f %.1f %.0e",
                &["5e-1", "0x1.8p0", "0x1.4p-1", "0x1.4p-3"]
            ),
            "0 2 0.6 2e-01"
        );
    }

    #[test]
    fn glibc_quirks_are_kept() {
        // %#g prints only "1." when rounding pushes the number into exponent form.
        assert_eq!(
            out(
                "%#g|%#.1g|%#.3g|%#g|%g",
                &["999999.5", "9.6", "999.6", "9.9999995", "999999.5"]
            ),
            "1.e+06|1.e+01|1.e+03|10.0000|1e+06"
        );
        // Subnormals are made from the mantissa truncated to 64 bits.
        let (o, e, _) = run(
            "%a %a %a",
            &[
                "0x1.0000000000000003p-16383",
                "0x1.0000000000000001p-16383",
                "0x1.fffffffffffffffep-16383",
            ],
        );
        assert_eq!(o, b"0x4p-16385 0x4p-16385 0x8p-16385");
        assert_eq!(
            e,
            vec![
                "warning: 0x1.0000000000000003p-16383: Numerical result out of range",
                "warning: 0x1.fffffffffffffffep-16383: Numerical result out of range",
            ]
        );
        // A bad %(...)T leaves its first length modifier replaced by `(` for later passes.
        let (o, _, _) = run(")U7%j(", &[" 5", "x"]);
        assert_eq!(o, b")U7%((");
    }

    #[test]
    fn hex_floats() {
        let (o, e, _) = run(
            "%a|%a|%a|%a|%.3a|%.0a|%#.0a|%A",
            &["0", "-0", "3", "1e-4940", "0.1", "1.5", "1", "255.5"],
        );
        assert_eq!(
            String::from_utf8(o).unwrap(),
            "0x0p+0|-0x0p+0|0xcp-2|0x0.000000663278e62p-16385|0xc.ccdp-7|0xcp-3|0x8.p-3|0XF.F8P+4"
        );
        assert_eq!(e, vec!["warning: 1e-4940: Numerical result out of range"]);
    }

    #[test]
    fn time_conversion() {
        let (o, e, s) = run("%(%s)T|%(%s)T|%(%s)T", &["1700000000", "abc", ""]);
        assert_eq!(o, b"1700000000|0|0");
        assert_eq!(e, vec!["abc: invalid number"]);
        assert_eq!(s, 1);
        assert_eq!(
            out("[%20(%s)T][%-8(%s)T][%.2(%s)T]", &["0", "0", "10"]),
            "[                   0][0       ][10]"
        );
        assert_eq!(out("%(a(b)c)T|", &[]), "a(b)c|");
        let (o, e, s) = run("%(%Y)x|", &["0"]);
        assert_eq!(o, b"%(");
        assert_eq!(
            e,
            vec![
                "warning: `x': invalid time format specification",
                "`Y': invalid format character"
            ]
        );
        assert_eq!(s, 1);
        let now = now();
        let shown: i64 = out("%(%s)T", &[]).parse().unwrap();
        assert!((shown - now).abs() <= 2);
        let shown: i64 = out("%(%s)T", &["-1"]).parse().unwrap();
        assert!((shown - now).abs() <= 2);
        // strftime results that do not fit in bash's 128-byte buffer are dropped.
        assert_eq!(out(&format!("%({})T", "x".repeat(127)), &["0"]).len(), 127);
        assert_eq!(out(&format!("%({})T", "x".repeat(128)), &["0"]), "");
    }

    #[test]
    fn percent_n_checks_the_name() {
        assert_eq!(run("%n|%s", &["x", "y"]), (b"|y".to_vec(), vec![], 0));
        let (o, e, s) = run("%s%n|%s", &["abc", "1x", "y"]);
        assert_eq!(
            (o, e, s),
            (
                b"abc".to_vec(),
                vec!["`1x': not a valid identifier".to_string()],
                1
            )
        );
    }

    #[test]
    fn huge_widths_are_bounded() {
        assert_eq!(run("[%2147483648d]", &["5"]).0, b"[]");
        assert_eq!(run("[%.2147483648d]", &["5"]).0, b"[]");
        assert_eq!(run("[%99999999999999999999s]", &["5"]).0, b"[]");
        assert_eq!(run("%2000000000s", &["x"]).0.len(), FIELD_LIMIT as usize);
    }

    #[test]
    fn random_formats_never_panic() {
        let pieces = [
            "%",
            "d",
            "s",
            "b",
            "q",
            "Q",
            "c",
            "f",
            "e",
            "g",
            "a",
            "x",
            "*",
            ".",
            "-",
            "+",
            " ",
            "#",
            "0",
            "9",
            "(",
            ")",
            "T",
            "\\",
            "x",
            "u",
            "U",
            "c",
            "0",
            "7",
            "l",
            "h",
            "%%",
            "n",
            "é",
            "'",
            "99999999999",
            ".*",
            "z",
            "\\0",
        ];
        let arg_pool = [
            "",
            "0",
            "-1",
            "abc",
            "1e4000",
            "'x",
            "\\c",
            "0x1p-16445",
            "99999999999999999999",
            "nan(x)",
            "-0",
            "3.25",
            "\\u12",
            "0x",
            "1e-4950",
            "7",
        ];
        let mut seed: u64 = 0x9e3779b97f4a7c15;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let len = next(8);
            let format: String = (0..len).map(|_| pieces[next(pieces.len())]).collect();
            let args: Vec<String> = (0..next(4))
                .map(|_| arg_pool[next(arg_pool.len())].to_string())
                .collect();
            let _ = printf(&format, &args);
        }
    }

    #[test]
    fn parse_float_edges() {
        let end = |s: &str| parse_float(s.as_bytes()).1;
        assert_eq!(end("0x"), 1);
        assert_eq!(end("0x.p1"), 1);
        assert_eq!(end("0x.8p1"), 6);
        assert_eq!(end("1.e5"), 4);
        assert_eq!(end("."), 0);
        assert_eq!(end("+"), 0);
        assert_eq!(end("  "), 0);
        assert_eq!(end("nan(abc"), 3);
        assert_eq!(end("nan(a_1)x"), 8);
        assert_eq!(end("infinityx"), 8);
        assert_eq!(end("infinit"), 3);
        assert_eq!(parse_float(b"0x1p-16446").0, Ld::zero(false));
        assert!(matches!(
            parse_float(b"0x1p16384").0,
            Ld::Inf { negative: false }
        ));
        assert_eq!(parse_float(b"1.8e-4951").0, Ld::zero(false));
        assert_eq!(
            parse_float(b"1.9e-4951").0,
            Ld::Finite {
                negative: false,
                mant: 1,
                exp: MIN_EXP
            }
        );
    }
}
