//! Shell arithmetic: evaluates the text of `$(( ))`, `(( ))`, `let`, arithmetic `for (( ; ; ))`
//! and the integer operands of `[[ a -eq b ]]` the way bash 5.2 does.
//!
//! The caller hands over text on which parameter expansion, command substitution and quote
//! removal are already done. Variables are read and written only through [`ArithEnv`]. This
//! module does no I/O and knows nothing else about the shell: no policy, no processes, no shell
//! options (so `set -u` is the caller's business), no arrays.
//!
//! The evaluator follows the layout of bash's `expr.c`: values are computed while parsing, and
//! a "no evaluation" counter silences side effects and errors in the operands that `&&`, `||`
//! and `?:` skip. The token bookkeeping (current and previous token, start of the last token)
//! copies bash closely, because bash's error messages and its decision whether a name is about
//! to be assigned depend on it.

use std::fmt;

/// Access to shell variables for arithmetic.
pub trait ArithEnv {
    /// The variable's current value; None when unset.
    fn var(&self, name: &str) -> Option<String>;
    /// Assigns a variable (as a decimal string). Err(message) e.g. for a readonly variable.
    fn set_var(&mut self, name: &str, value: &str) -> Result<(), String>;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithError {
    /// bash-like text, e.g. `division by 0 (error token is "0")`, `syntax error: operand expected (error token is "+")`,
    /// `value too great for base (error token is "09")`, `attempted assignment to non-variable (error token is "= 2")`.
    ///
    /// The evaluated expression itself is not part of the text (the caller prints it, as bash
    /// does), except when the error lies in the value of a variable: then the message starts
    /// with that value and `: `, because that is the text bash names.
    pub message: String,
}

impl ArithError {
    pub fn new(message: impl Into<String>) -> Self {
        ArithError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ArithError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ArithError {}

/// Evaluates `expr` as bash arithmetic. An empty or all-blank expression is 0.
///
/// # Errors
///
/// Syntax errors, bad constants, division by zero, a negative exponent, assignment to
/// something that is not a name, array subscripts, nesting deeper than the evaluator allows,
/// and assignments refused by `env` (whose message is passed on unchanged).
pub fn eval(expr: &str, env: &mut dyn ArithEnv) -> Result<i64, ArithError> {
    evaluate(expr, env, 0, false)
}

/// Limit on nesting: each parenthesis, right-associative operand (`**`, `=`, `?:`) and variable
/// whose value is evaluated as an expression costs one level. Bash allows 1024 levels of
/// variables and does not bound parentheses at all; one shared, smaller budget keeps the worst
/// case well inside a 2 MiB thread stack even in unoptimized builds, and no real script nests
/// this deep.
const MAX_DEPTH: usize = 256;

type Outcome<T> = Result<T, ArithError>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok {
    /// Before the first token and after the last one.
    End,
    Num,
    Name,
    Assign,
    Gt,
    Lt,
    Plus,
    Minus,
    Mul,
    Div,
    Mod,
    Not,
    LParen,
    RParen,
    BitAnd,
    BitOr,
    BitXor,
    BitNot,
    Question,
    Colon,
    Comma,
    EqEq,
    NotEq,
    LessEq,
    GreaterEq,
    And,
    Or,
    ShiftLeft,
    ShiftRight,
    /// `op=`; the operator is kept in `Cursor::op`.
    OpAssign,
    Power,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

/// Tokenizer state. It is `Copy` because bash saves and restores all of it to look one token
/// ahead after a name.
#[derive(Clone, Copy)]
struct Cursor<'t> {
    cur: Tok,
    last: Tok,
    /// Where the next token is read from.
    pos: usize,
    /// Start of the last token read; bash quotes the text from here on in errors.
    token_start: usize,
    /// Value of the current number, or of the current name's variable.
    value: i64,
    /// The most recent name, target of a following assignment.
    name: Option<&'t str>,
    /// Operator of the most recent `op=`.
    op: Tok,
    /// Nonzero while parsing an operand whose value is not used.
    noeval: u32,
}

/// A binary operator waiting for its right operand.
struct Pending {
    op: Tok,
    level: u8,
    lhs: i64,
    /// Just past the operator; bash quotes the divisor from here on.
    after_op: usize,
    /// Whether this operator switched evaluation off for its right operand.
    skips: bool,
}

struct Parser<'t, 'e> {
    text: &'t str,
    env: &'e mut dyn ArithEnv,
    depth: usize,
    /// True when `text` is the value of a variable; bash then names that value in errors.
    nested: bool,
    st: Cursor<'t>,
}

fn evaluate(text: &str, env: &mut dyn ArithEnv, depth: usize, nested: bool) -> Outcome<i64> {
    if is_blank(text) {
        return Ok(0);
    }
    let mut parser = Parser::new(text, env, depth, nested);
    parser.read_token()?;
    let value = parser.comma()?;
    if parser.st.cur != Tok::End {
        return Err(parser.fail("syntax error in expression"));
    }
    Ok(value)
}

// Character classes. Bash skips newlines between tokens but not other control characters.

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n')
}

fn is_blank(text: &str) -> bool {
    text.bytes().all(is_space)
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn is_digit_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'@' || c == b'_'
}

fn is_number_char(c: u8) -> bool {
    is_digit_char(c) || c == b'#'
}

fn skip_while(bytes: &[u8], mut at: usize, keep: impl Fn(u8) -> bool) -> usize {
    while at < bytes.len() && keep(bytes[at]) {
        at += 1;
    }
    at
}

fn single_char_token(c: u8) -> Option<Tok> {
    let tok = match c {
        b'=' => Tok::Assign,
        b'>' => Tok::Gt,
        b'<' => Tok::Lt,
        b'+' => Tok::Plus,
        b'-' => Tok::Minus,
        b'*' => Tok::Mul,
        b'/' => Tok::Div,
        b'%' => Tok::Mod,
        b'!' => Tok::Not,
        b'(' => Tok::LParen,
        b')' => Tok::RParen,
        b'&' => Tok::BitAnd,
        b'|' => Tok::BitOr,
        b'^' => Tok::BitXor,
        b'~' => Tok::BitNot,
        b'?' => Tok::Question,
        b':' => Tok::Colon,
        b',' => Tok::Comma,
        _ => return None,
    };
    Some(tok)
}

/// Binding strength of the left-associative binary operators, loosest first.
fn precedence(tok: Tok) -> Option<u8> {
    let level = match tok {
        Tok::Or => 1,
        Tok::And => 2,
        Tok::BitOr => 3,
        Tok::BitXor => 4,
        Tok::BitAnd => 5,
        Tok::EqEq | Tok::NotEq => 6,
        Tok::Lt | Tok::Gt | Tok::LessEq | Tok::GreaterEq => 7,
        Tok::ShiftLeft | Tok::ShiftRight => 8,
        Tok::Plus | Tok::Minus => 9,
        Tok::Mul | Tok::Div | Tok::Mod => 10,
        _ => return None,
    };
    Some(level)
}

/// Applies a binary operator; division by zero has been ruled out by the caller.
/// Shift counts are taken modulo 64, which is what bash does on x86-64.
fn apply(op: Tok, a: i64, b: i64) -> i64 {
    match op {
        Tok::Mul => a.wrapping_mul(b),
        Tok::Div => a.wrapping_div(b),
        Tok::Mod => a.wrapping_rem(b),
        Tok::Plus => a.wrapping_add(b),
        Tok::Minus => a.wrapping_sub(b),
        Tok::ShiftLeft => a.wrapping_shl((b & 63) as u32),
        Tok::ShiftRight => a.wrapping_shr((b & 63) as u32),
        Tok::Lt => i64::from(a < b),
        Tok::Gt => i64::from(a > b),
        Tok::LessEq => i64::from(a <= b),
        Tok::GreaterEq => i64::from(a >= b),
        Tok::EqEq => i64::from(a == b),
        Tok::NotEq => i64::from(a != b),
        Tok::BitAnd => a & b,
        Tok::BitXor => a ^ b,
        Tok::BitOr => a | b,
        Tok::And => i64::from(a != 0 && b != 0),
        Tok::Or => i64::from(a != 0 || b != 0),
        // Only the operators above reach here; a harmless value beats a panic.
        _ => 0,
    }
}

fn apply_unary(op: Tok, value: i64) -> i64 {
    match op {
        Tok::Not => i64::from(value == 0),
        Tok::BitNot => !value,
        Tok::Minus => value.wrapping_neg(),
        _ => value,
    }
}

fn int_power(mut base: i64, mut exp: i64) -> i64 {
    let mut result: i64 = 1;
    while exp != 0 {
        if exp & 1 != 0 {
            result = result.wrapping_mul(base);
        }
        exp >>= 1;
        base = base.wrapping_mul(base);
    }
    result
}

/// Value of one digit in `base`. For bases up to 36 upper and lower case letters are the same
/// digit; above that upper case letters come after lower case, then `@` and `_`.
fn digit_value(c: u8, base: i64) -> i64 {
    let value = match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'z' => c - b'a' + 10,
        b'A'..=b'Z' if base <= 36 => c - b'A' + 10,
        b'A'..=b'Z' => c - b'A' + 36,
        b'@' => 62,
        _ => 63,
    };
    i64::from(value)
}

/// Parses an integer constant: `17`, `017`, `0x1f` or `base#digits`. Like bash, a value too
/// large for 64 bits wraps.
fn parse_constant(text: &[u8]) -> Result<i64, &'static str> {
    let (mut base, digits, mut found_base) = match text {
        [b'0'] => return Ok(0),
        [b'0', b'x' | b'X', rest @ ..] => (16, rest, true),
        [b'0', rest @ ..] => (8, rest, true),
        _ => (10, text, false),
    };
    let mut value: i64 = 0;
    for (i, &c) in digits.iter().enumerate() {
        if c != b'#' {
            let digit = digit_value(c, base);
            if digit >= base {
                return Err("value too great for base");
            }
            value = value.wrapping_mul(base).wrapping_add(digit);
            continue;
        }
        if found_base {
            return Err("invalid number");
        }
        if !(2..=64).contains(&value) {
            return Err("invalid arithmetic base");
        }
        if !digits.get(i + 1).is_some_and(|&d| is_digit_char(d)) {
            return Err("invalid integer constant");
        }
        base = value;
        value = 0;
        found_base = true;
    }
    Ok(value)
}

impl<'t, 'e> Parser<'t, 'e> {
    fn new(text: &'t str, env: &'e mut dyn ArithEnv, depth: usize, nested: bool) -> Self {
        Parser {
            text,
            env,
            depth,
            nested,
            st: Cursor {
                cur: Tok::End,
                last: Tok::End,
                pos: 0,
                token_start: 0,
                value: 0,
                name: None,
                op: Tok::End,
                noeval: 0,
            },
        }
    }

    // ---- errors ----

    fn fail(&self, msg: &str) -> ArithError {
        self.error_at(msg, self.st.token_start, self.text.len())
    }

    /// Builds bash's `msg (error token is "...")` from the text between `start` and `end`.
    /// `end` is short of the text's end only for bad constants: bash cuts the expression
    /// after the constant while converting it.
    fn error_at(&self, msg: &str, start: usize, end: usize) -> ArithError {
        let bytes = self.text.as_bytes();
        let token = String::from_utf8_lossy(bytes.get(start..end).unwrap_or_default());
        let message = format!("{msg} (error token is \"{token}\")");
        if !self.nested {
            return ArithError { message };
        }
        let head = &bytes[..end.min(bytes.len())];
        let head = &head[skip_while(head, 0, |c| c == b' ' || c == b'\t')..];
        ArithError {
            message: format!("{}: {message}", String::from_utf8_lossy(head)),
        }
    }

    // ---- tokens ----

    fn read_token(&mut self) -> Outcome<()> {
        self.scan(false)
    }

    /// Reads the next token. `peeking` is set while looking ahead after a name; the names met
    /// then are neither evaluated nor looked past themselves (bash looks past them recursively;
    /// the loop in `peek_after_name` does the same without recursion).
    fn scan(&mut self, peeking: bool) -> Outcome<()> {
        let bytes = self.text.as_bytes();
        let start = skip_while(bytes, self.st.pos, is_space);
        if start >= bytes.len() {
            self.st.last = self.st.cur;
            self.st.cur = Tok::End;
            self.st.pos = start;
            return Ok(());
        }
        self.st.token_start = start;
        self.st.pos = start;
        let c = bytes[start];
        if is_name_start(c) {
            self.scan_name(start, peeking)
        } else if c.is_ascii_digit() {
            self.scan_number(start)
        } else {
            self.scan_operator(start)
        }
    }

    fn set_token(&mut self, tok: Tok, end: usize) {
        self.st.last = self.st.cur;
        self.st.cur = tok;
        self.st.pos = end;
    }

    fn scan_name(&mut self, start: usize, peeking: bool) -> Outcome<()> {
        let end = skip_while(self.text.as_bytes(), start, is_name_char);
        if self.text.as_bytes().get(end) == Some(&b'[') {
            return Err(self.fail("unsupported: array subscript"));
        }
        let name = &self.text[start..end];
        let value = if peeking {
            0
        } else {
            self.name_value(name, end)?
        };
        self.st.name = Some(name);
        self.st.value = value;
        self.set_token(Tok::Name, end);
        Ok(())
    }

    /// A name about to be assigned with `=` is not evaluated, so that `x=1` works whatever
    /// garbage `x` holds; `++x=1` still evaluates it (and then fails, as in bash).
    fn name_value(&mut self, name: &str, end: usize) -> Outcome<i64> {
        let next = self.peek_after_name(end)?;
        if matches!(self.st.last, Tok::PreInc | Tok::PreDec) || next != Tok::Assign {
            self.variable(name)
        } else {
            Ok(0)
        }
    }

    fn peek_after_name(&mut self, end: usize) -> Outcome<Tok> {
        let saved = self.st;
        self.st.pos = end;
        self.st.noeval = 1;
        self.st.cur = Tok::Name;
        self.scan(true)?;
        let next = self.st.cur;
        while self.st.cur == Tok::Name {
            self.scan(true)?;
        }
        self.st = saved;
        Ok(next)
    }

    fn scan_number(&mut self, start: usize) -> Outcome<()> {
        let end = skip_while(self.text.as_bytes(), start, is_number_char);
        match parse_constant(&self.text.as_bytes()[start..end]) {
            Ok(value) => {
                self.st.value = value;
                self.set_token(Tok::Num, end);
                Ok(())
            }
            Err(msg) => Err(self.error_at(msg, start, end)),
        }
    }

    fn scan_operator(&mut self, start: usize) -> Outcome<()> {
        let bytes = self.text.as_bytes();
        let c = bytes[start];
        let next = bytes.get(start + 1).copied().unwrap_or(0);
        let third = bytes.get(start + 2).copied().unwrap_or(0);
        let (tok, len) = match (c, next) {
            (b'=', b'=') => (Tok::EqEq, 2),
            (b'!', b'=') => (Tok::NotEq, 2),
            (b'>', b'=') => (Tok::GreaterEq, 2),
            (b'<', b'=') => (Tok::LessEq, 2),
            (b'<', b'<') => self.shift_token(Tok::ShiftLeft, third),
            (b'>', b'>') => self.shift_token(Tok::ShiftRight, third),
            (b'&', b'&') => (Tok::And, 2),
            (b'|', b'|') => (Tok::Or, 2),
            (b'*', b'*') => (Tok::Power, 2),
            (b'+', b'+') | (b'-', b'-') => self.double_sign_token(c, start)?,
            (b'*' | b'/' | b'%' | b'+' | b'-' | b'&' | b'^' | b'|', b'=') => {
                self.st.op = single_char_token(c).unwrap_or(Tok::End);
                (Tok::OpAssign, 2)
            }
            _ => match single_char_token(c) {
                Some(tok) => (tok, 1),
                None => return Err(self.invalid_char()),
            },
        };
        self.set_token(tok, start + len);
        Ok(())
    }

    fn invalid_char(&self) -> ArithError {
        if matches!(self.st.cur, Tok::Num | Tok::Name) {
            self.fail("syntax error: invalid arithmetic operator")
        } else {
            self.fail("syntax error: operand expected")
        }
    }

    fn shift_token(&mut self, shift: Tok, third: u8) -> (Tok, usize) {
        if third == b'=' {
            self.st.op = shift;
            (Tok::OpAssign, 3)
        } else {
            (shift, 2)
        }
    }

    /// `++`/`--` is postfix after a name, prefix before a name, and otherwise two signs.
    fn double_sign_token(&self, c: u8, start: usize) -> Outcome<(Tok, usize)> {
        let plus = c == b'+';
        if self.st.cur == Tok::Name {
            let tok = if plus { Tok::PostInc } else { Tok::PostDec };
            return Ok((tok, 2));
        }
        if self.st.cur == Tok::Num && matches!(self.st.last, Tok::PreInc | Tok::PreDec) {
            let msg = if plus { "++" } else { "--" };
            return Err(self.fail(&format!("{msg}: assignment requires lvalue")));
        }
        let bytes = self.text.as_bytes();
        let after = skip_while(bytes, start + 2, is_space);
        if bytes.get(after).is_some_and(|&b| is_name_start(b)) {
            let tok = if plus { Tok::PreInc } else { Tok::PreDec };
            return Ok((tok, 2));
        }
        let tok = if plus { Tok::Plus } else { Tok::Minus };
        Ok((tok, 1))
    }

    // ---- variables ----

    fn variable(&mut self, name: &str) -> Outcome<i64> {
        if self.st.noeval > 0 {
            return Ok(0);
        }
        let Some(value) = self.env.var(name) else {
            return Ok(0);
        };
        if is_blank(&value) {
            return Ok(0);
        }
        if self.depth + 1 >= MAX_DEPTH {
            return Err(self.fail("expression recursion level exceeded"));
        }
        evaluate(&value, &mut *self.env, self.depth + 1, true)
    }

    fn store(&mut self, name: &str, value: i64) -> Outcome<()> {
        if self.st.noeval > 0 {
            return Ok(());
        }
        self.env
            .set_var(name, &value.to_string())
            .map_err(ArithError::new)
    }

    // ---- grammar, loosest binding first ----

    /// Runs a nested piece of grammar, refusing to go deeper than `MAX_DEPTH`.
    fn nest(&mut self, part: fn(&mut Self) -> Outcome<i64>) -> Outcome<i64> {
        if self.depth >= MAX_DEPTH {
            return Err(self.fail("expression recursion level exceeded"));
        }
        self.depth += 1;
        let result = part(self);
        self.depth -= 1;
        result
    }

    /// Runs `part` with evaluation switched off when `skip` is true.
    fn skipping(
        &mut self,
        skip: bool,
        part: impl FnOnce(&mut Self) -> Outcome<i64>,
    ) -> Outcome<i64> {
        if skip {
            self.st.noeval += 1;
        }
        let result = part(self);
        if skip {
            self.st.noeval -= 1;
        }
        result
    }

    // The functions on the recursive path (comma, assignment, conditional, binary, power,
    // unary, primary, group) keep their own bodies short and hand the rest of the work to
    // separate functions, because unoptimized builds give every temporary its own stack slot.

    fn comma(&mut self) -> Outcome<i64> {
        let mut value = self.assignment()?;
        while self.st.cur == Tok::Comma {
            self.read_token()?;
            value = self.assignment()?;
        }
        Ok(value)
    }

    fn assignment(&mut self) -> Outcome<i64> {
        let value = self.conditional()?;
        match self.st.cur {
            Tok::Assign | Tok::OpAssign => self.assign(value),
            _ => Ok(value),
        }
    }

    /// At `=` or `op=`; `value` is the left side's value.
    fn assign(&mut self, value: i64) -> Outcome<i64> {
        let op = (self.st.cur == Tok::OpAssign).then_some(self.st.op);
        // Only a name directly before the operator can be assigned: `(x)=1`, `1+x=1` fail.
        if self.st.last != Tok::Name {
            return Err(self.fail("attempted assignment to non-variable"));
        }
        let Some(name) = self.st.name else {
            return Err(self.fail("syntax error in variable assignment"));
        };
        self.read_token()?;
        let rhs = self.nest(Self::assignment)?;
        let result = match op {
            Some(op) => self.compound(op, value, rhs)?,
            None => rhs,
        };
        self.store(name, result)?;
        self.st.name = None;
        Ok(result)
    }

    fn compound(&self, op: Tok, lhs: i64, mut rhs: i64) -> Outcome<i64> {
        if matches!(op, Tok::Div | Tok::Mod) && rhs == 0 {
            if self.st.noeval == 0 {
                return Err(self.fail("division by 0"));
            }
            rhs = 1;
        }
        Ok(apply(op, lhs, rhs))
    }

    fn conditional(&mut self) -> Outcome<i64> {
        let cond = self.binary()?;
        if self.st.cur != Tok::Question {
            return Ok(cond);
        }
        self.choose(cond)
    }

    /// At `?`: both branches are parsed, only the one `cond` selects is evaluated.
    fn choose(&mut self, cond: i64) -> Outcome<i64> {
        let chosen = self.skipping(cond == 0, |p| {
            p.read_token()?;
            if matches!(p.st.cur, Tok::End | Tok::Colon) {
                return Err(p.fail("expression expected"));
            }
            p.nest(Self::comma)
        })?;
        if self.st.cur != Tok::Colon {
            return Err(self.fail("`:' expected for conditional expression"));
        }
        let other = self.skipping(cond != 0, |p| {
            p.read_token()?;
            if p.st.cur == Tok::End {
                return Err(p.fail("expression expected"));
            }
            p.nest(Self::conditional)
        })?;
        self.st.last = Tok::Num;
        Ok(if cond != 0 { chosen } else { other })
    }

    /// The left-associative binary operators, parsed with an explicit operator stack rather than
    /// one function per precedence level, so that they cost no stack depth.
    fn binary(&mut self) -> Outcome<i64> {
        let mut pending: Vec<Pending> = Vec::new();
        let mut value = self.power()?;
        while self.take_operator(&mut pending, &mut value)? {
            value = self.power()?;
        }
        Ok(value)
    }

    /// Reduces what the current token's precedence allows, then, if the token is a binary
    /// operator, stacks it and moves to its right operand. False at the end of the chain.
    fn take_operator(&mut self, pending: &mut Vec<Pending>, value: &mut i64) -> Outcome<bool> {
        let level = precedence(self.st.cur);
        while let Some(top) = pending.pop() {
            if level.is_some_and(|level| level > top.level) {
                pending.push(top);
                break;
            }
            *value = self.reduce(top, *value)?;
        }
        let Some(level) = level else {
            return Ok(false);
        };
        let op = self.st.cur;
        // The right operand of a decided `&&`/`||` is parsed without effects, up to the point
        // where this entry is reduced.
        let skips = match op {
            Tok::And => *value == 0,
            Tok::Or => *value != 0,
            _ => false,
        };
        if skips {
            self.st.noeval += 1;
        }
        pending.push(Pending {
            op,
            level,
            lhs: *value,
            after_op: self.st.pos,
            skips,
        });
        self.read_token()?;
        Ok(true)
    }

    fn reduce(&mut self, entry: Pending, rhs: i64) -> Outcome<i64> {
        let value = self.binary_value(entry.op, entry.lhs, rhs, entry.after_op)?;
        if entry.skips {
            self.st.noeval -= 1;
        }
        self.st.last = Tok::Num;
        Ok(value)
    }

    fn binary_value(&self, op: Tok, lhs: i64, mut rhs: i64, after_op: usize) -> Outcome<i64> {
        if matches!(op, Tok::Div | Tok::Mod) && rhs == 0 {
            if self.st.noeval == 0 {
                // Bash names the divisor, not the last token read.
                let bytes = self.text.as_bytes();
                let at = skip_while(bytes, after_op, |c| c == b' ' || c == b'\t');
                return Err(self.error_at("division by 0", at, bytes.len()));
            }
            rhs = 1;
        }
        Ok(apply(op, lhs, rhs))
    }

    /// `**`, right-associative, binding looser than the unary operators (`-2**2` is 4).
    fn power(&mut self) -> Outcome<i64> {
        let base = self.unary()?;
        if self.st.cur != Tok::Power {
            return Ok(base);
        }
        self.exponent(base)
    }

    fn exponent(&mut self, base: i64) -> Outcome<i64> {
        self.read_token()?;
        let exp = self.nest(Self::power)?;
        self.st.last = Tok::Num;
        if exp == 0 {
            return Ok(1);
        }
        // Bash reports this even in an operand that is not evaluated.
        if exp < 0 {
            return Err(self.fail("exponent less than 0"));
        }
        Ok(int_power(base, exp))
    }

    /// Prefix `! ~ - +`, collected in a loop so that long runs of them need no recursion.
    fn unary(&mut self) -> Outcome<i64> {
        let ops = self.prefix_operators()?;
        let value = self.primary()?;
        Ok(self.apply_prefix(&ops, value))
    }

    fn prefix_operators(&mut self) -> Outcome<Vec<Tok>> {
        let mut ops = Vec::new();
        while matches!(self.st.cur, Tok::Not | Tok::BitNot | Tok::Minus | Tok::Plus) {
            ops.push(self.st.cur);
            self.read_token()?;
        }
        Ok(ops)
    }

    fn apply_prefix(&mut self, ops: &[Tok], mut value: i64) -> i64 {
        if ops.is_empty() {
            return value;
        }
        for &op in ops.iter().rev() {
            value = apply_unary(op, value);
        }
        self.st.last = Tok::Num;
        value
    }

    fn primary(&mut self) -> Outcome<i64> {
        match self.st.cur {
            Tok::PreInc | Tok::PreDec => self.pre_step(),
            Tok::LParen => self.group(),
            Tok::Num => {
                let value = self.st.value;
                self.read_token()?;
                Ok(value)
            }
            Tok::Name => self.name_operand(),
            _ => Err(self.fail("syntax error: operand expected")),
        }
    }

    fn group(&mut self) -> Outcome<i64> {
        self.read_token()?;
        let value = self.nest(Self::comma)?;
        if self.st.cur != Tok::RParen {
            return Err(self.fail("missing `)'"));
        }
        self.read_token()?;
        Ok(value)
    }

    fn pre_step(&mut self) -> Outcome<i64> {
        let step = if self.st.cur == Tok::PreInc { 1 } else { -1 };
        // The name token sees this as the previous token and so gets evaluated even before `=`.
        self.st.last = self.st.cur;
        self.read_token()?;
        let (Tok::Name, Some(name)) = (self.st.cur, self.st.name) else {
            return Err(self.fail("identifier expected after pre-increment or pre-decrement"));
        };
        let value = self.st.value.wrapping_add(step);
        self.store(name, value)?;
        // Not a name any more, so `++x=7` is refused.
        self.st.cur = Tok::Num;
        self.read_token()?;
        Ok(value)
    }

    fn name_operand(&mut self) -> Outcome<i64> {
        let value = self.st.value;
        // Look at the next token without effects to spot a postfix `++`/`--`; anything else
        // is read again for real, since a name met during this look was not evaluated.
        let saved = self.st;
        self.st.noeval = 1;
        self.read_token()?;
        let step = match self.st.cur {
            Tok::PostInc => 1,
            Tok::PostDec => -1,
            _ => {
                self.st = saved;
                self.read_token()?;
                return Ok(value);
            }
        };
        self.st.name = saved.name;
        self.st.noeval = saved.noeval;
        if let Some(name) = saved.name {
            self.store(name, value.wrapping_add(step))?;
        }
        // Not a name any more, so `x++=7` is refused.
        self.st.cur = Tok::Num;
        self.read_token()?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Variables in a map; names listed in `readonly` refuse assignment like bash's readonly.
    #[derive(Default)]
    struct TestEnv {
        vars: HashMap<String, String>,
        readonly: Vec<String>,
    }

    impl TestEnv {
        fn with(pairs: &[(&str, &str)]) -> Self {
            TestEnv {
                vars: pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                readonly: Vec::new(),
            }
        }

        fn get(&self, name: &str) -> Option<&str> {
            self.vars.get(name).map(String::as_str)
        }
    }

    impl ArithEnv for TestEnv {
        fn var(&self, name: &str) -> Option<String> {
            self.vars.get(name).cloned()
        }

        fn set_var(&mut self, name: &str, value: &str) -> Result<(), String> {
            if self.readonly.iter().any(|r| r == name) {
                return Err(format!("{name}: readonly variable"));
            }
            self.vars.insert(name.to_string(), value.to_string());
            Ok(())
        }
    }

    fn value(expr: &str) -> i64 {
        value_in(expr, &mut TestEnv::default())
    }

    fn value_in(expr: &str, env: &mut TestEnv) -> i64 {
        match eval(expr, env) {
            Ok(v) => v,
            Err(e) => panic!("{expr:?} failed: {}", e.message),
        }
    }

    fn error(expr: &str) -> String {
        error_in(expr, &mut TestEnv::default())
    }

    fn error_in(expr: &str, env: &mut TestEnv) -> String {
        match eval(expr, env) {
            Ok(v) => panic!("{expr:?} gave {v}, expected an error"),
            Err(e) => e.message,
        }
    }

    // ---- constants ----

    #[test]
    fn decimal_octal_hex() {
        assert_eq!(value("42"), 42);
        assert_eq!(value("017"), 15);
        assert_eq!(value("007"), 7);
        assert_eq!(value("0"), 0);
        assert_eq!(value("00"), 0);
        assert_eq!(value("0x1F"), 31);
        assert_eq!(value("0X1f"), 31);
        assert_eq!(value("0x0"), 0);
        assert_eq!(value("0x1F + 0X1f + 017"), 77);
    }

    #[test]
    fn bare_hex_prefix_is_zero() {
        assert_eq!(value("0x"), 0);
        assert_eq!(value("0x+1"), 1);
    }

    #[test]
    fn explicit_bases() {
        assert_eq!(value("2#101"), 5);
        assert_eq!(value("2#0"), 0);
        assert_eq!(value("16#fF"), 255);
        assert_eq!(value("10#08"), 8);
        assert_eq!(value("64#@_"), 4031);
        assert_eq!(value("36#Zz"), 1295);
        assert_eq!(value("36#zZ"), 1295);
        assert_eq!(value("64#zZ"), 2301);
        assert_eq!(value("64#Zz"), 3939);
    }

    #[test]
    fn constants_wrap_like_bash() {
        assert_eq!(value("9223372036854775807"), i64::MAX);
        assert_eq!(value("9223372036854775808"), i64::MIN);
        assert_eq!(value("99999999999999999999"), 7766279631452241919);
    }

    #[test]
    fn bad_constants() {
        assert_eq!(
            error("09"),
            r#"value too great for base (error token is "09")"#
        );
        assert_eq!(
            error("1a"),
            r#"value too great for base (error token is "1a")"#
        );
        assert_eq!(
            error("0xG"),
            r#"value too great for base (error token is "0xG")"#
        );
        assert_eq!(
            error("1@"),
            r#"value too great for base (error token is "1@")"#
        );
        assert_eq!(
            error("1_"),
            r#"value too great for base (error token is "1_")"#
        );
        assert_eq!(
            error("2#2"),
            r#"value too great for base (error token is "2#2")"#
        );
        assert_eq!(
            error("2#@"),
            r#"value too great for base (error token is "2#@")"#
        );
        assert_eq!(
            error("10#0x"),
            r#"value too great for base (error token is "10#0x")"#
        );
        assert_eq!(
            error("37#Zz"),
            r#"value too great for base (error token is "37#Zz")"#
        );
        assert_eq!(
            error("1a#1"),
            r#"value too great for base (error token is "1a#1")"#
        );
        assert_eq!(
            error("1#1"),
            r#"invalid arithmetic base (error token is "1#1")"#
        );
        assert_eq!(
            error("65#1"),
            r#"invalid arithmetic base (error token is "65#1")"#
        );
        assert_eq!(
            error("1#"),
            r#"invalid arithmetic base (error token is "1#")"#
        );
        assert_eq!(error("0#1"), r#"invalid number (error token is "0#1")"#);
        assert_eq!(error("2#1#1"), r#"invalid number (error token is "2#1#1")"#);
        assert_eq!(error("0x#1"), r#"invalid number (error token is "0x#1")"#);
        assert_eq!(error("0##"), r#"invalid number (error token is "0##")"#);
        assert_eq!(
            error("2#"),
            r#"invalid integer constant (error token is "2#")"#
        );
        assert_eq!(
            error("64#"),
            r#"invalid integer constant (error token is "64#")"#
        );
        assert_eq!(
            error("2##1"),
            r#"invalid integer constant (error token is "2##1")"#
        );
        assert_eq!(
            error("2#+1"),
            r#"invalid integer constant (error token is "2#")"#
        );
    }

    #[test]
    fn bad_constant_names_only_the_constant() {
        assert_eq!(
            error(" 1 + 08 + 1"),
            r#"value too great for base (error token is "08")"#
        );
        assert_eq!(
            error("1.5"),
            r#"syntax error: invalid arithmetic operator (error token is ".5")"#
        );
    }

    // ---- operators ----

    #[test]
    fn precedence() {
        assert_eq!(value("1+2*3"), 7);
        assert_eq!(value("(1+2)*3"), 9);
        assert_eq!(value("10-4-3"), 3);
        assert_eq!(value("100/10/5"), 2);
        assert_eq!(value("3>2>1"), 0);
        assert_eq!(value("1<2==1"), 1);
        assert_eq!(value("1|2^3&4"), 3);
        assert_eq!(value("5 & 3 == 3"), 1);
        assert_eq!(value("1 && 2 || 0"), 1);
        assert_eq!(value("1 << 2 + 1"), 8);
        assert_eq!(value("2 + 3 << 1"), 10);
        assert_eq!(value("1 + 2 < 4"), 1);
    }

    #[test]
    fn comparisons() {
        assert_eq!(value("1<2"), 1);
        assert_eq!(value("2<=2"), 1);
        assert_eq!(value("3>4"), 0);
        assert_eq!(value("4>=5"), 0);
        assert_eq!(value("5==5"), 1);
        assert_eq!(value("5!=5"), 0);
    }

    #[test]
    fn unary() {
        assert_eq!(value("!0 + ~0 + !5"), 0);
        assert_eq!(value("!!7"), 1);
        assert_eq!(value("~ ~ 5"), 5);
        assert_eq!(value("--5"), 5);
        assert_eq!(value("- -5"), 5);
        assert_eq!(value("-+-5"), 5);
        assert_eq!(value("+1"), 1);
        assert_eq!(value("1 - -1"), 2);
        assert_eq!(value("1--1"), 2);
        assert_eq!(value("-(-9223372036854775807-1)"), i64::MIN);
    }

    #[test]
    fn power() {
        assert_eq!(value("2**10"), 1024);
        assert_eq!(value("-2**2"), 4);
        assert_eq!(value("-3**3"), -27);
        assert_eq!(value("2**3**2"), 512);
        assert_eq!(value("3**0"), 1);
        assert_eq!(value("0**0"), 1);
        assert_eq!(value("2**63"), i64::MIN);
        assert_eq!(value("2**64"), 0);
    }

    #[test]
    fn negative_exponent() {
        assert_eq!(
            error("3**-1"),
            r#"exponent less than 0 (error token is "1")"#
        );
        // Bash checks the exponent even where evaluation is switched off.
        assert_eq!(
            error("0 && 2**-1"),
            r#"exponent less than 0 (error token is "1")"#
        );
        assert_eq!(
            error("0 && (2 ** -1) "),
            r#"exponent less than 0 (error token is ") ")"#
        );
    }

    #[test]
    fn wrapping() {
        assert_eq!(value("9223372036854775807+1"), i64::MIN);
        assert_eq!(value("-9223372036854775807-2"), i64::MAX);
        assert_eq!(value("4611686018427387904*2"), i64::MIN);
        assert_eq!(value("(-9223372036854775807-1)/-1"), i64::MIN);
        assert_eq!(value("(-9223372036854775807-1)%-1"), 0);
    }

    #[test]
    fn division_truncates_toward_zero() {
        assert_eq!(value("7/2"), 3);
        assert_eq!(value("-7/2"), -3);
        assert_eq!(value("7/-2"), -3);
        assert_eq!(value("-7%2"), -1);
        assert_eq!(value("7%-2"), 1);
    }

    #[test]
    fn division_by_zero() {
        assert_eq!(error("1/0"), r#"division by 0 (error token is "0")"#);
        assert_eq!(error("4 / 0+1"), r#"division by 0 (error token is "0+1")"#);
        assert_eq!(error("4 /  (0)"), r#"division by 0 (error token is "(0)")"#);
        assert_eq!(error("5%0"), r#"division by 0 (error token is "0")"#);
        assert_eq!(error("x/=0, 3"), r#"division by 0 (error token is ", 3")"#);
        assert_eq!(error("x %= 0 "), r#"division by 0 (error token is "0 ")"#);
        // Bash skips blanks but not newlines before the divisor.
        assert_eq!(error("\n1/\n0 "), "division by 0 (error token is \"\n0 \")");
    }

    #[test]
    fn shifts_take_count_modulo_64() {
        assert_eq!(value("1<<3"), 8);
        assert_eq!(value("1<<64"), 1);
        assert_eq!(value("1<<65"), 2);
        assert_eq!(value("1<<-1"), i64::MIN);
        assert_eq!(value("-8>>1"), -4);
        assert_eq!(value("-1>>70"), -1);
    }

    #[test]
    fn comma() {
        assert_eq!(value("1,2"), 2);
        assert_eq!(value("x=1, x+1"), 2);
    }

    // ---- short circuit and conditional ----

    #[test]
    fn short_circuit_skips_errors() {
        assert_eq!(value("0 && 1/0"), 0);
        assert_eq!(value("1 || 1/0"), 1);
        assert_eq!(value("0 || 1/1"), 1);
        assert_eq!(value("1 || 0 && 1/0"), 1);
        assert_eq!(error("1 && 1/0"), r#"division by 0 (error token is "0")"#);
        assert_eq!(value("0 && 2 || 3"), 1);
    }

    #[test]
    fn short_circuit_skips_assignments() {
        let mut env = TestEnv::with(&[("x", "1")]);
        assert_eq!(value_in("0 && (x = 5)", &mut env), 0);
        assert_eq!(value_in("0 && x++", &mut env), 0);
        assert_eq!(value_in("0 && ++x", &mut env), 0);
        assert_eq!(value_in("1 || (x/=0)", &mut env), 1);
        assert_eq!(value_in("1 || (x+=1)", &mut env), 1);
        assert_eq!(value_in("0 && (x %= 0)", &mut env), 0);
        assert_eq!(env.get("x"), Some("1"));
    }

    #[test]
    fn short_circuit_does_not_evaluate_variables() {
        let mut env = TestEnv::with(&[("bad", "1+"), ("set", "y=5"), ("zero", "1/0")]);
        assert_eq!(value_in("0 && bad", &mut env), 0);
        assert_eq!(value_in("0 && set", &mut env), 0);
        assert_eq!(value_in("0 && zero", &mut env), 0);
        assert_eq!(env.get("y"), None);
    }

    #[test]
    fn conditional() {
        assert_eq!(value("1?2:3"), 2);
        assert_eq!(value("0?2:3"), 3);
        assert_eq!(value("1?2:3?4:5"), 2);
        assert_eq!(value("0?2:0?4:5"), 5);
        assert_eq!(value("0 ? 1/0 : 7"), 7);
        assert_eq!(value("1 ? 7 : 1/0"), 7);
    }

    #[test]
    fn conditional_evaluates_only_the_chosen_branch() {
        let mut env = TestEnv::with(&[("bad", "1+"), ("set", "y=5")]);
        assert_eq!(value_in("0 ? bad : 1", &mut env), 1);
        assert_eq!(value_in("0 ? set : 1", &mut env), 1);
        assert_eq!(value_in("1 ? 1 : set", &mut env), 1);
        assert_eq!(value_in("1 ? 2 : 3+set", &mut env), 2);
        assert_eq!(value_in("0 ? 2+set : 3", &mut env), 3);
        assert_eq!(env.get("y"), None);
        assert_eq!(value_in("0 ? 2 : set", &mut env), 5);
        assert_eq!(env.get("y"), Some("5"));
    }

    #[test]
    fn conditional_with_assignments() {
        let mut env = TestEnv::default();
        assert_eq!(value_in("1?x=2:3", &mut env), 2);
        assert_eq!(env.get("x"), Some("2"));
        assert_eq!(value_in("0?y=2:3", &mut env), 3);
        assert_eq!(env.get("y"), None);
        assert_eq!(value_in("z=1?2:3", &mut env), 2);
        assert_eq!(env.get("z"), Some("2"));
    }

    #[test]
    fn conditional_errors() {
        assert_eq!(
            error("1?:2"),
            r#"expression expected (error token is ":2")"#
        );
        assert_eq!(error("1?2:"), r#"expression expected (error token is ":")"#);
        assert_eq!(
            error("1?2"),
            r#"`:' expected for conditional expression (error token is "2")"#
        );
        assert_eq!(
            error("0?2:x=3"),
            r#"attempted assignment to non-variable (error token is "=3")"#
        );
        assert_eq!(
            error("1 ? 2 : 3 = 4"),
            r#"attempted assignment to non-variable (error token is "= 4")"#
        );
    }

    // ---- assignment ----

    #[test]
    fn assignment_operators() {
        let mut env = TestEnv::default();
        let expr = "x=1, x+=2, x*=3, x-=1, x/=2, x%=3, x<<=4, x>>=1, x&=12, x|=3, x^=5";
        assert_eq!(value_in(expr, &mut env), 14);
        assert_eq!(env.get("x"), Some("14"));
        let mut env = TestEnv::with(&[("x", "9")]);
        let steps = [
            ("x <<= 2", 36),
            ("x >>= 1", 18),
            ("x &= 6", 2),
            ("x |= 1", 3),
            ("x ^= 3", 0),
        ];
        for (expr, want) in steps {
            assert_eq!(value_in(expr, &mut env), want, "{expr}");
        }
        assert_eq!(env.get("x"), Some("0"));
    }

    #[test]
    fn assignment_is_right_associative_and_stores_decimal() {
        let mut env = TestEnv::default();
        assert_eq!(value_in("x = y = 0x10", &mut env), 16);
        assert_eq!(env.get("x"), Some("16"));
        assert_eq!(env.get("y"), Some("16"));
        assert_eq!(value_in("x += y = 2", &mut env), 18);
        assert_eq!(value_in("x = (y = 2) + 1", &mut env), 3);
        assert_eq!(value_in("n = -5", &mut env), -5);
        assert_eq!(env.get("n"), Some("-5"));
    }

    #[test]
    fn assignment_does_not_evaluate_the_old_value() {
        let mut env = TestEnv::with(&[("x", "a b"), ("y", "1+")]);
        assert_eq!(value_in("x=4", &mut env), 4);
        assert_eq!(env.get("x"), Some("4"));
        assert_eq!(value_in("y = 3", &mut env), 3);
        let mut env = TestEnv::with(&[("x", "a b")]);
        assert_eq!(
            error_in("x+=4", &mut env),
            r#"a b: syntax error in expression (error token is "b")"#
        );
    }

    #[test]
    fn assignment_to_non_variable() {
        assert_eq!(
            error("1 = 2"),
            r#"attempted assignment to non-variable (error token is "= 2")"#
        );
        assert_eq!(
            error("1+x=2"),
            r#"attempted assignment to non-variable (error token is "=2")"#
        );
        assert_eq!(
            error("(x)=1 "),
            r#"attempted assignment to non-variable (error token is "=1 ")"#
        );
        assert_eq!(
            error("5 +=2 "),
            r#"attempted assignment to non-variable (error token is "+=2 ")"#
        );
        assert_eq!(
            error("1 = = 2"),
            r#"attempted assignment to non-variable (error token is "= = 2")"#
        );
        for expr in [
            "1|x=2", "1&x=2", "1^x=2", "1&&x=2", "0||x=2", "1==x=2", "1<x=2", "1<<x=2", "1*x=2",
            "2**x=2", "-x=2", "!x=2",
        ] {
            assert_eq!(
                error(expr),
                r#"attempted assignment to non-variable (error token is "=2")"#,
                "{expr}"
            );
        }
    }

    #[test]
    fn power_assignment_does_not_exist() {
        assert_eq!(
            error("x=5, x**=2"),
            r#"syntax error: operand expected (error token is "=2")"#
        );
    }

    #[test]
    fn readonly_variable() {
        let mut env = TestEnv::with(&[("r", "7")]);
        env.readonly.push("r".to_string());
        for expr in ["r=2", "r++", "++r", "r+=1", "x=r=3"] {
            assert_eq!(error_in(expr, &mut env), "r: readonly variable", "{expr}");
        }
        assert_eq!(value_in("0 && (r=2)", &mut env), 0);
        assert_eq!(value_in("r*2", &mut env), 14);
        assert_eq!(env.get("r"), Some("7"));
    }

    // ---- increment and decrement ----

    #[test]
    fn increments() {
        let mut env = TestEnv::with(&[("x", "5")]);
        assert_eq!(value_in("x--", &mut env), 5);
        assert_eq!(value_in("x", &mut env), 4);
        assert_eq!(value_in("x-- - --x", &mut env), 2);
        assert_eq!(env.get("x"), Some("2"));
        assert_eq!(value_in("++x", &mut env), 3);
        assert_eq!(value_in("x ++", &mut env), 3);
        assert_eq!(value_in("++ x", &mut env), 5);
        assert_eq!(value_in("x = x++ + 1", &mut env), 6);
        assert_eq!(env.get("x"), Some("6"));
    }

    #[test]
    fn increment_tokenization() {
        let mut env = TestEnv::with(&[("x", "3")]);
        assert_eq!(value_in("x+++x", &mut env), 7);
        assert_eq!(env.get("x"), Some("4"));
        let mut env = TestEnv::default();
        assert_eq!(value_in("x+++++y", &mut env), 1);
        let mut env = TestEnv::default();
        assert_eq!(value_in("x+++-y", &mut env), 0);
        assert_eq!(value_in("1+++z", &mut env), 2);
        assert_eq!(value("+ + x"), 0);
        assert_eq!(value("++5"), 5);
        assert_eq!(value("- - -x"), 0);
        assert_eq!(value("x+1"), 1);
    }

    #[test]
    fn increment_of_an_expression_value() {
        let mut env = TestEnv::with(&[("x", "1+1")]);
        assert_eq!(value_in("x++", &mut env), 2);
        assert_eq!(env.get("x"), Some("3"));
        let mut env = TestEnv::with(&[("x", "1+1")]);
        assert_eq!(value_in("++x", &mut env), 3);
        let mut env = TestEnv::with(&[("x", "-5")]);
        assert_eq!(value_in("--x", &mut env), -6);
        let mut env = TestEnv::with(&[("x", "9223372036854775807")]);
        assert_eq!(value_in("++x", &mut env), i64::MIN);
    }

    #[test]
    fn increment_errors() {
        let mut env = TestEnv::with(&[("x", "1")]);
        assert_eq!(
            error_in("--x++", &mut env),
            r#"++: assignment requires lvalue (error token is "++")"#
        );
        assert_eq!(
            error_in("++x--", &mut env),
            r#"--: assignment requires lvalue (error token is "--")"#
        );
        assert_eq!(
            error_in("x++=7", &mut env),
            r#"attempted assignment to non-variable (error token is "=7")"#
        );
        assert_eq!(
            error_in("++x=7", &mut env),
            r#"attempted assignment to non-variable (error token is "=7")"#
        );
        assert_eq!(
            error("--4++"),
            r#"syntax error: operand expected (error token is "+")"#
        );
        assert_eq!(
            error("1--x"),
            r#"syntax error in expression (error token is "--x")"#
        );
        assert_eq!(
            error("1 ++x"),
            r#"syntax error in expression (error token is "++x")"#
        );
        assert_eq!(
            error("y--x"),
            r#"syntax error in expression (error token is "x")"#
        );
        assert_eq!(
            error("x ++ y"),
            r#"syntax error in expression (error token is "y")"#
        );
        assert_eq!(
            error("x++ ++"),
            r#"syntax error: operand expected (error token is "+")"#
        );
        assert_eq!(
            error("5 ++"),
            r#"syntax error: operand expected (error token is "+")"#
        );
        assert_eq!(
            error("++"),
            r#"syntax error: operand expected (error token is "+")"#
        );
        let mut env = TestEnv::with(&[("x", "1+")]);
        assert_eq!(
            error_in("++x", &mut env),
            r#"1+: syntax error: operand expected (error token is "+")"#
        );
    }

    // ---- variables ----

    #[test]
    fn unset_and_empty_variables_are_zero() {
        let mut env = TestEnv::with(&[("e", ""), ("b", " \t\n")]);
        assert_eq!(value_in("unset + 1", &mut env), 1);
        assert_eq!(value_in("e + 1", &mut env), 1);
        assert_eq!(value_in("b + 1", &mut env), 1);
    }

    #[test]
    fn variable_values_are_expressions() {
        let mut env = TestEnv::with(&[
            ("sum", "1+2"),
            ("oct", "010"),
            ("pad", " 5 "),
            ("x", "y"),
            ("y", "z"),
            ("z", "7"),
            ("p", "q+1"),
            ("q", "z*2"),
            ("pair", " 2 , 4 "),
            ("guard", "0 && 1/0"),
            ("_a1", "3"),
        ]);
        assert_eq!(value_in("sum*3", &mut env), 9);
        assert_eq!(value_in("oct+1", &mut env), 9);
        assert_eq!(value_in("pad", &mut env), 5);
        assert_eq!(value_in("x", &mut env), 7);
        assert_eq!(value_in("p", &mut env), 15);
        assert_eq!(value_in("pair", &mut env), 4);
        assert_eq!(value_in("guard", &mut env), 0);
        assert_eq!(value_in("_a1 * 2", &mut env), 6);
    }

    #[test]
    fn variable_value_with_assignment() {
        let mut env = TestEnv::with(&[("x", "y=3")]);
        assert_eq!(value_in("x", &mut env), 3);
        assert_eq!(env.get("y"), Some("3"));
    }

    #[test]
    fn invalid_variable_value_is_named() {
        let mut env = TestEnv::with(&[
            ("bad", "1+"),
            ("two", "3 4"),
            ("via", "bad"),
            ("oct", "08+1"),
            ("mid", "1 + 08 + 1"),
            ("lead", "\n 1+"),
        ]);
        let cases = [
            (
                "bad*3",
                r#"1+: syntax error: operand expected (error token is "+")"#,
            ),
            (
                "two",
                r#"3 4: syntax error in expression (error token is "4")"#,
            ),
            (
                "via*3",
                r#"1+: syntax error: operand expected (error token is "+")"#,
            ),
            (
                "oct",
                r#"08: value too great for base (error token is "08")"#,
            ),
            (
                "mid",
                r#"1 + 08: value too great for base (error token is "08")"#,
            ),
            (
                "lead",
                "\n 1+: syntax error: operand expected (error token is \"+\")",
            ),
        ];
        for (expr, want) in cases {
            assert_eq!(error_in(expr, &mut env), want, "{expr}");
        }
    }

    #[test]
    fn recursive_variable_is_an_error() {
        let mut env = TestEnv::with(&[("x", "x")]);
        assert_eq!(
            error_in("x*3", &mut env),
            r#"x: expression recursion level exceeded (error token is "x")"#
        );
        let mut env = TestEnv::with(&[("a", "b+1"), ("b", "(a)")]);
        assert!(error_in("a", &mut env).contains("expression recursion level exceeded"));
    }

    #[test]
    fn array_subscripts_are_unsupported() {
        for expr in ["a[1]", "a[1", "x[1]=2", "1 + b[0]"] {
            let message = error(expr);
            assert!(
                message.contains("unsupported: array subscript"),
                "{expr}: {message}"
            );
        }
    }

    // ---- syntax ----

    #[test]
    fn whitespace() {
        assert_eq!(value(""), 0);
        assert_eq!(value("   "), 0);
        assert_eq!(value(" \t\n "), 0);
        assert_eq!(value("1\t+\n2"), 3);
        assert_eq!(value("\n  x = 2 ,\t x * 3\n"), 6);
    }

    #[test]
    fn other_control_characters_are_not_whitespace() {
        assert_eq!(
            error("1\r+2"),
            "syntax error: invalid arithmetic operator (error token is \"\r+2\")"
        );
        assert_eq!(
            error("1\x0b+2"),
            "syntax error: invalid arithmetic operator (error token is \"\x0b+2\")"
        );
    }

    #[test]
    fn syntax_errors() {
        let cases = [
            (
                "1+",
                r#"syntax error: operand expected (error token is "+")"#,
            ),
            (
                "1 + ",
                r#"syntax error: operand expected (error token is "+ ")"#,
            ),
            (
                "-",
                r#"syntax error: operand expected (error token is "-")"#,
            ),
            (
                "2 ** ",
                r#"syntax error: operand expected (error token is "** ")"#,
            ),
            (
                "1,",
                r#"syntax error: operand expected (error token is ",")"#,
            ),
            (
                ",1",
                r#"syntax error: operand expected (error token is ",1")"#,
            ),
            (
                "1 ,, 2",
                r#"syntax error: operand expected (error token is ", 2")"#,
            ),
            (
                "1 ==",
                r#"syntax error: operand expected (error token is "==")"#,
            ),
            (
                "x =",
                r#"syntax error: operand expected (error token is "=")"#,
            ),
            (
                "x ===",
                r#"syntax error: operand expected (error token is "=")"#,
            ),
            (
                "$ ",
                r#"syntax error: operand expected (error token is "$ ")"#,
            ),
            (
                "$x",
                r#"syntax error: operand expected (error token is "$x")"#,
            ),
            (
                "@",
                r#"syntax error: operand expected (error token is "@")"#,
            ),
            (
                "#1",
                r##"syntax error: operand expected (error token is "#1")"##,
            ),
            (
                "'1'",
                r#"syntax error: operand expected (error token is "'1'")"#,
            ),
            (
                "\"1\"",
                r#"syntax error: operand expected (error token is ""1"")"#,
            ),
            (
                "ä",
                r#"syntax error: operand expected (error token is "ä")"#,
            ),
            (
                "1+ä",
                r#"syntax error: operand expected (error token is "ä")"#,
            ),
            (
                "1 $ ",
                r#"syntax error: invalid arithmetic operator (error token is "$ ")"#,
            ),
            (
                "1 # 2",
                r##"syntax error: invalid arithmetic operator (error token is "# 2")"##,
            ),
            (
                "xä",
                r#"syntax error: invalid arithmetic operator (error token is "ä")"#,
            ),
            ("1 2", r#"syntax error in expression (error token is "2")"#),
            ("x y", r#"syntax error in expression (error token is "y")"#),
            (
                "x(1)",
                r#"syntax error in expression (error token is "(1)")"#,
            ),
            (
                "(1) (2)",
                r#"syntax error in expression (error token is "(2)")"#,
            ),
            ("(1))", r#"syntax error in expression (error token is ")")"#),
            ("1)", r#"syntax error in expression (error token is ")")"#),
            (
                ")",
                r#"syntax error: operand expected (error token is ")")"#,
            ),
            (
                "()",
                r#"syntax error: operand expected (error token is ")")"#,
            ),
            (
                "( )",
                r#"syntax error: operand expected (error token is ")")"#,
            ),
            ("((1)", r#"missing `)' (error token is ")")"#),
            ("(1", r#"missing `)' (error token is "1")"#),
        ];
        for (expr, want) in cases {
            assert_eq!(error(expr), want, "{expr:?}");
        }
    }

    #[test]
    fn display_is_the_message() {
        let err = eval("1/0", &mut TestEnv::default()).unwrap_err();
        assert_eq!(err.to_string(), err.message);
    }

    // ---- robustness ----

    #[test]
    fn deep_parentheses_are_refused() {
        let expr = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(error(&expr).starts_with("expression recursion level exceeded"));
        let expr = format!("{}1{}", "(".repeat(200), ")".repeat(200));
        assert_eq!(value(&expr), 1);
    }

    #[test]
    fn deep_right_associative_chains_are_refused() {
        let long = [
            "2**".repeat(100_000) + "1",
            "x=".repeat(100_000) + "1",
            "1?".repeat(100_000) + "1" + &":1".repeat(100_000),
            "0?1:".repeat(100_000) + "1",
            "1||1&&1|1^1&1==1<1<<1+1*(".repeat(100_000),
        ];
        for expr in &long {
            assert!(error(expr).contains("expression recursion level exceeded"));
        }
    }

    #[test]
    fn long_flat_input() {
        assert_eq!(value(&("1+".repeat(200_000) + "1")), 200_001);
        assert_eq!(value(&("-".repeat(200_001) + "1")), -1);
        assert_eq!(value(&("!".repeat(200_000) + "5")), 1);
        assert_eq!(value("1,".repeat(100_000).trim_end_matches(',')), 1);
        let names = "a ".repeat(100_000);
        assert!(error(&names).starts_with("syntax error in expression"));
    }

    #[test]
    fn garbage_never_panics() {
        const PIECES: &[&str] = &[
            "a",
            "b",
            "x",
            "r",
            "1",
            "0",
            "09",
            "0x",
            "2#",
            "64#@_",
            "#",
            "@",
            "[",
            "]",
            "+",
            "-",
            "++",
            "--",
            "*",
            "/",
            "%",
            "**",
            "<<",
            ">>=",
            "<",
            "=",
            "==",
            "!",
            "!=",
            "~",
            "&",
            "&&",
            "|",
            "||",
            "^",
            "?",
            ":",
            "(",
            ")",
            ",",
            " ",
            "\t",
            "\n",
            "\r",
            "\0",
            "$",
            ".",
            "'",
            "é",
            "9223372036854775808",
        ];
        let mut env = TestEnv::with(&[("a", "b+1"), ("b", "(a)"), ("x", "1+"), ("r", "2")]);
        env.readonly.push("r".to_string());
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 12) as usize;
            let expr: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            let _ = eval(&expr, &mut env);
        }
        for _ in 0..5_000 {
            let len = (next() % 24) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| (next() % 128) as u8).collect();
            let _ = eval(&String::from_utf8_lossy(&bytes), &mut env);
        }
    }
}
