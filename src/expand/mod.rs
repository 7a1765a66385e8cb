//! Word expansion, in bash's order: brace, tilde, parameter / command / arithmetic substitution,
//! field splitting on IFS, pathname expansion, quote removal.
//!
//! The expander only sees the shell through `ExpandEnv`: variables, positional parameters,
//! options, and a way to run a command substitution. It never decides or executes anything
//! itself: `$(…)` is handed back to the interpreter, which runs its commands through the same
//! policy as any other.

pub mod arith;
mod brace;
pub mod glob;
pub mod pattern;
mod split;

use std::path::{Path, PathBuf};

use crate::parse::{
    Param, ParamExp, ParamOp, Program, ReplaceMode, Special, TestKind, Word, WordPart,
};
use pattern::{Pattern, PatternOpts};
use split::{Fields, Piece};

/// Most words a single brace expansion may produce; beyond this it is an error, not an
/// out-of-memory kill.
pub const MAX_BRACE_WORDS: usize = 100_000;

/// What the expander needs from the shell.
pub trait ExpandEnv {
    /// A variable's value (including dynamic ones such as `RANDOM`); None when unset.
    fn var(&self, name: &str) -> Option<String>;
    /// Assigns a variable (`${x:=w}`, arithmetic assignment). Err(message) when readonly.
    fn set_var(&mut self, name: &str, value: &str) -> Result<(), String>;
    /// `$0` for 0, `$n` otherwise; None when n > `$#`.
    fn positional(&self, n: usize) -> Option<String>;
    /// `$1 … $#`.
    fn positionals(&self) -> Vec<String>;
    /// `$?`, `$$`, `$!`, `$-` as text.
    fn special(&self, which: Special) -> String;
    /// Runs a command substitution and returns its standard output.
    fn command_output(&mut self, program: &Program) -> Result<String, ExpandError>;
    /// Starts a process substitution and returns the path that names its pipe.
    fn process_substitution(
        &mut self,
        program: &Program,
        output: bool,
    ) -> Result<String, ExpandError>;
    fn options(&self) -> ExpandOptions;
    /// The home directory of the current user (None) or of a named user.
    fn home_dir(&self, user: Option<&str>) -> Option<String>;
    /// The directory relative paths are resolved against.
    fn cwd(&self) -> PathBuf;
    /// Whether pathname expansion may list the directory `dir`.
    fn may_list(&mut self, dir: &Path) -> bool;
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ExpandOptions {
    /// `set -u`
    pub nounset: bool,
    /// `set -f`
    pub noglob: bool,
    pub nullglob: bool,
    pub failglob: bool,
    pub dotglob: bool,
    pub extglob: bool,
    pub nocaseglob: bool,
    pub nocasematch: bool,
    pub globstar: bool,
}

/// An expansion that stops the command: bash's non-interactive shell exits with `status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpandError {
    pub message: String,
    pub status: i32,
    /// An error in evaluating arithmetic (not in expanding its text): `((…))`, `let` and
    /// `[[ -eq ]]` fail with status 1 instead of abandoning the line.
    pub arithmetic: bool,
    /// `${x:?}` and `set -u`: a script stops here; other expansion errors abandon only the
    /// current line, as in bash.
    pub fatal: bool,
}

impl ExpandError {
    pub fn new(message: impl Into<String>, status: i32) -> ExpandError {
        ExpandError {
            message: message.into(),
            status,
            arithmetic: false,
            fatal: false,
        }
    }

    /// An error that ends a non-interactive shell (`${x:?}`, `set -u`).
    pub fn fatal(message: impl Into<String>) -> ExpandError {
        ExpandError {
            fatal: true,
            ..ExpandError::new(message, 127)
        }
    }
}

impl std::fmt::Display for ExpandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Full expansion of command words into argv fields.
pub fn words(env: &mut dyn ExpandEnv, words: &[Word]) -> Result<Vec<String>, ExpandError> {
    let mut out = Vec::new();
    for word in words {
        // bash expands `~` after `=` and `:` in any word that looks like an assignment
        // (`echo PATH=~/bin`), not only in real assignments.
        let ctx = if looks_like_assignment(word) {
            Context::AssignmentWord
        } else {
            Context::Unquoted
        };
        for word in brace::expand(word)? {
            let mut fields = Fields::new(ifs(env));
            expand_parts(env, &word.parts, ctx, &mut fields)?;
            glob_fields(env, fields.finish(), &mut out)?;
        }
    }
    Ok(out)
}

fn looks_like_assignment(word: &Word) -> bool {
    match word.parts.first() {
        Some(WordPart::Literal(text)) => text
            .split_once('=')
            .is_some_and(|(name, _)| crate::parse::is_name(name.trim_end_matches('+'))),
        _ => false,
    }
}

/// One word to one string: no splitting, no globbing (assignment values, `case` subjects,
/// `[[ ]]` operands, here-strings). `"$@"` joins with spaces.
pub fn string(env: &mut dyn ExpandEnv, word: &Word) -> Result<String, ExpandError> {
    let mut fields = Fields::joined();
    expand_parts(env, &word.parts, Context::Unquoted, &mut fields)?;
    Ok(fields.into_text())
}

/// An assignment's value: like `string`, with tilde expansion after `=` and `:` as well.
pub fn assignment_value(env: &mut dyn ExpandEnv, word: &Word) -> Result<String, ExpandError> {
    let mut fields = Fields::joined();
    expand_parts(env, &word.parts, Context::Assignment, &mut fields)?;
    Ok(fields.into_text())
}

/// A pattern (`case`, `[[ == ]]`, `${x#p}`): quoted characters come back escaped with `\`.
pub fn pattern_text(env: &mut dyn ExpandEnv, word: &Word) -> Result<String, ExpandError> {
    let mut fields = Fields::joined();
    expand_parts(env, &word.parts, Context::Pattern, &mut fields)?;
    Ok(fields.into_pattern())
}

/// The right side of `[[ =~ ]]`: quoted characters are matched literally.
pub fn regex_text(env: &mut dyn ExpandEnv, word: &Word) -> Result<String, ExpandError> {
    let mut fields = Fields::joined();
    expand_parts(env, &word.parts, Context::Pattern, &mut fields)?;
    Ok(fields.into_regex())
}

/// A here-document body (its parts are already quoted-literal where they must be).
pub fn heredoc(env: &mut dyn ExpandEnv, word: &Word) -> Result<String, ExpandError> {
    string(env, word)
}

/// A redirection target: expanded like a command word. None when that is not one field:
/// bash's "ambiguous redirect", a redirection that fails (status 1) rather than an expansion
/// that abandons the line.
pub fn redirect_target(
    env: &mut dyn ExpandEnv,
    word: &Word,
) -> Result<Option<String>, ExpandError> {
    let mut fields = words(env, std::slice::from_ref(word))?;
    Ok((fields.len() == 1).then(|| fields.remove(0)))
}

/// bash's message for a redirection target that is not one word, named as written.
pub fn ambiguous_redirect(written: &str) -> String {
    format!("{written}: ambiguous redirect")
}

/// Evaluates arithmetic text (`$((…))`, `((…))`, `let`, slices).
pub fn arith(env: &mut dyn ExpandEnv, word: &Word) -> Result<i64, ExpandError> {
    let text = string(env, word)?;
    arith_str(env, &text)
}

pub fn arith_str(env: &mut dyn ExpandEnv, text: &str) -> Result<i64, ExpandError> {
    let nounset = env.options().nounset;
    let mut adapter = ArithAdapter {
        env,
        nounset,
        unbound: std::cell::RefCell::new(None),
    };
    let result = arith::eval(text, &mut adapter);
    if let Some(name) = adapter.unbound.into_inner() {
        return Err(ExpandError::fatal(format!("{name}: unbound variable")));
    }
    result.map_err(|e| ExpandError {
        arithmetic: true,
        ..ExpandError::new(
            format!("{}: {}", shorten(text.trim()), shorten(&e.message)),
            1,
        )
    })
}

/// Text echoed in a message, cut to a readable length.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 120;
    if text.chars().count() <= LIMIT {
        return text.to_string();
    }
    let mut short: String = text.chars().take(LIMIT).collect();
    short.push('…');
    short
}

struct ArithAdapter<'e> {
    env: &'e mut dyn ExpandEnv,
    /// `set -u`: reading an unset variable is an error, reported after evaluation (the
    /// evaluator's interface has no error path for reads).
    nounset: bool,
    unbound: std::cell::RefCell<Option<String>>,
}

impl arith::ArithEnv for ArithAdapter<'_> {
    fn var(&self, name: &str) -> Option<String> {
        let value = self.env.var(name);
        if value.is_none() && self.nounset {
            self.unbound
                .borrow_mut()
                .get_or_insert_with(|| name.to_string());
        }
        value
    }

    fn set_var(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.env.set_var(name, value)
    }
}

/// The IFS in effect: None when IFS is unset (which splits like the default).
fn ifs(env: &dyn ExpandEnv) -> String {
    env.var("IFS").unwrap_or_else(|| " \t\n".to_string())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    /// A command word: unquoted expansions are split and globbed.
    Unquoted,
    /// A command word shaped like `name=value`: as `Unquoted`, with tilde expansion after
    /// `=` and `:` as in an assignment.
    AssignmentWord,
    /// Inside double quotes.
    Quoted,
    /// An assignment value: tilde after `:` too, nothing split.
    Assignment,
    /// A pattern or regex: quoted characters must be marked.
    Pattern,
}

impl Context {
    fn quoted(self) -> bool {
        self == Context::Quoted
    }
}

fn expand_parts(
    env: &mut dyn ExpandEnv,
    parts: &[WordPart],
    ctx: Context,
    out: &mut Fields,
) -> Result<(), ExpandError> {
    for (index, part) in parts.iter().enumerate() {
        match part {
            WordPart::Literal(text) => {
                let text = if ctx.quoted() {
                    text.clone()
                } else {
                    tilde(env, text, index == 0, ctx, parts.get(index + 1))
                };
                if ctx.quoted() {
                    out.push(Piece::quoted(text));
                } else {
                    out.push(Piece::literal(text));
                }
            }
            WordPart::Quoted(text) => out.push(Piece::quoted(text.clone())),
            WordPart::DoubleQuoted(inner) => {
                // `"…"` makes a field even when empty, except `"$@"` with no parameters.
                out.begin_quotes();
                expand_parts(env, inner, Context::Quoted, out)?;
                out.end_quotes();
            }
            WordPart::Param(param) => expand_param(env, param, ctx, out)?,
            WordPart::CommandSub(program) => {
                let mut text = env.command_output(program)?;
                let trimmed = text.trim_end_matches('\n').len();
                text.truncate(trimmed);
                out.push(Piece::expansion(text, ctx.quoted()));
            }
            WordPart::ProcessSub { program, output } => {
                let path = env.process_substitution(program, *output)?;
                out.push(Piece::expansion(path, true));
            }
            WordPart::Arith(word) => {
                let value = arith(env, word)?;
                out.push(Piece::expansion(value.to_string(), ctx.quoted()));
            }
        }
    }
    Ok(())
}

/// Tilde expansion of a literal part. Only the first part of a word (and in assignments, text
/// after `:` or `=`) can start a tilde prefix, and the prefix must end at `/` or the word's end.
fn tilde(
    env: &dyn ExpandEnv,
    text: &str,
    first: bool,
    ctx: Context,
    next: Option<&WordPart>,
) -> String {
    let ends_word = next.is_none();
    if ctx == Context::AssignmentWord && first {
        if let Some((name, value)) = text.split_once('=') {
            let value = tilde(env, value, true, Context::Assignment, next);
            return format!("{name}={value}");
        }
    }
    if ctx == Context::Assignment {
        let mut out = String::new();
        for (i, segment) in text.split(':').enumerate() {
            if i > 0 {
                out.push(':');
            }
            let last = i == text.split(':').count() - 1;
            if (i > 0 || first) && segment.starts_with('~') {
                out.push_str(&tilde_prefix(env, segment, !last || ends_word));
            } else {
                out.push_str(segment);
            }
        }
        return out;
    }
    if first && text.starts_with('~') {
        return tilde_prefix(env, text, ends_word);
    }
    text.to_string()
}

/// `text` (starting with `~`) with its tilde prefix replaced, as bash replaces it.
pub(crate) fn tilde_prefix(env: &dyn ExpandEnv, text: &str, ends_word: bool) -> String {
    let (prefix, rest) = match text.find('/') {
        Some(i) => (&text[1..i], &text[i..]),
        None if ends_word => (&text[1..], ""),
        None => return text.to_string(),
    };
    let home = match prefix {
        "" => env.var("HOME").or_else(|| env.home_dir(None)),
        "+" => env.var("PWD"),
        "-" => env.var("OLDPWD"),
        user => env.home_dir(Some(user)),
    };
    match home {
        Some(home) => format!("{home}{rest}"),
        None => text.to_string(),
    }
}

/// The value(s) a parameter stands for: one string, or a list for `$@`/`$*`.
enum Value {
    Unset,
    One(String),
    /// `$@` / `$*`: the positional parameters; `star` joins them in double quotes.
    Many {
        items: Vec<String>,
        star: bool,
    },
}

impl Value {
    fn is_null(&self) -> bool {
        match self {
            Value::Unset => true,
            Value::One(s) => s.is_empty(),
            Value::Many { items, .. } => items.iter().all(|s| s.is_empty()) || items.is_empty(),
        }
    }
}

fn lookup(env: &dyn ExpandEnv, param: &Param) -> Value {
    match param {
        Param::Var(name) => env.var(name).map_or(Value::Unset, Value::One),
        Param::Positional(n) => env.positional(*n).map_or(Value::Unset, Value::One),
        Param::Special(Special::At) => Value::Many {
            items: env.positionals(),
            star: false,
        },
        Param::Special(Special::Star) => Value::Many {
            items: env.positionals(),
            star: true,
        },
        Param::Special(Special::Count) => Value::One(env.positionals().len().to_string()),
        Param::Special(Special::LastBackground) => {
            let value = env.special(Special::LastBackground);
            if value.is_empty() {
                Value::Unset
            } else {
                Value::One(value)
            }
        }
        Param::Special(other) => Value::One(env.special(*other)),
    }
}

fn param_name(param: &Param) -> String {
    match param {
        Param::Var(name) => name.clone(),
        Param::Positional(n) => n.to_string(),
        Param::Special(s) => match s {
            Special::At => "@",
            Special::Star => "*",
            Special::Count => "#",
            Special::Status => "?",
            Special::Pid => "$",
            Special::LastBackground => "!",
            Special::Flags => "-",
        }
        .to_string(),
    }
}

/// `${!x}`: the parameter named by x's value.
fn indirect_target(env: &dyn ExpandEnv, exp: &ParamExp) -> Result<Param, ExpandError> {
    let name = match lookup(env, &exp.param) {
        Value::One(name) => name,
        Value::Many { items, .. } => items.join(" "),
        Value::Unset => String::new(),
    };
    parse_param_name(&name).ok_or_else(|| {
        ExpandError::new(
            format!("{}: invalid indirect expansion", param_name(&exp.param)),
            1,
        )
    })
}

fn parse_param_name(name: &str) -> Option<Param> {
    let mut chars = name.chars();
    let first = chars.next()?;
    if first == '_' || first.is_ascii_alphabetic() {
        return name
            .chars()
            .all(|c| c == '_' || c.is_ascii_alphanumeric())
            .then(|| Param::Var(name.to_string()));
    }
    if name.chars().all(|c| c.is_ascii_digit()) {
        return name.parse().ok().map(Param::Positional);
    }
    let special = match name {
        "@" => Special::At,
        "*" => Special::Star,
        "#" => Special::Count,
        "?" => Special::Status,
        "$" => Special::Pid,
        "!" => Special::LastBackground,
        "-" => Special::Flags,
        _ => return None,
    };
    Some(Param::Special(special))
}

fn expand_param(
    env: &mut dyn ExpandEnv,
    exp: &ParamExp,
    ctx: Context,
    out: &mut Fields,
) -> Result<(), ExpandError> {
    let param = if exp.indirect {
        indirect_target(env, exp)?
    } else {
        exp.param.clone()
    };
    let value = lookup(env, &param);
    let name = param_name(&param);
    let unbound = || ExpandError::fatal(format!("{name}: unbound variable"));
    match &exp.op {
        ParamOp::Test { colon, kind, word } => {
            return expand_test(env, &param, value, *colon, *kind, word, ctx, out);
        }
        _ if matches!(value, Value::Unset)
            && env.options().nounset
            && !matches!(param, Param::Special(Special::At | Special::Star)) =>
        {
            return Err(unbound());
        }
        _ => {}
    }
    let value = match &exp.op {
        ParamOp::Plain => value,
        ParamOp::Length => Value::One(length(&value).to_string()),
        ParamOp::Test { .. } => unreachable!("handled above"),
        ParamOp::Strip {
            suffix,
            longest,
            pattern,
        } => {
            let pat = compile_pattern(env, pattern)?;
            map_value(value, |s| strip(&pat, s, *suffix, *longest))
        }
        ParamOp::Replace {
            mode,
            pattern,
            replacement,
        } => {
            let pat_text = pattern_text(env, pattern)?;
            let replacement = pattern_text(env, replacement)?;
            let pat = Pattern::new(&pat_text, pattern_opts(env));
            map_value(value, |s| {
                if pat_text.is_empty() {
                    s.to_string()
                } else {
                    replace(&pat, s, *mode, &replacement)
                }
            })
        }
        ParamOp::Slice { offset, length } => slice(env, &param, value, offset, length.as_ref())?,
        ParamOp::Case {
            upper,
            all,
            pattern,
        } => {
            let pat_text = pattern_text(env, pattern)?;
            let pat = Pattern::new(
                if pat_text.is_empty() { "?" } else { &pat_text },
                pattern_opts(env),
            );
            map_value(value, |s| change_case(&pat, s, *upper, *all))
        }
    };
    push_value(env, value, ctx, out);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn expand_test(
    env: &mut dyn ExpandEnv,
    param: &Param,
    value: Value,
    colon: bool,
    kind: TestKind,
    word: &Word,
    ctx: Context,
    out: &mut Fields,
) -> Result<(), ExpandError> {
    let missing = match &value {
        Value::Unset => true,
        Value::Many { items, .. } if items.is_empty() => true,
        _ => colon && value.is_null(),
    };
    // The operand keeps the quoting of the expansion; in an assignment, its tildes after `:`
    // expand too (`x=${y-~:~}`).
    let operand_ctx = match ctx {
        Context::Quoted | Context::Assignment => ctx,
        _ => Context::Unquoted,
    };
    match kind {
        TestKind::Default if missing => expand_operand(env, word, operand_ctx, out),
        TestKind::Alternate if !missing => expand_operand(env, word, operand_ctx, out),
        TestKind::Alternate => Ok(()),
        TestKind::Assign if missing => {
            let Param::Var(name) = param else {
                let name = param_name(param);
                return Err(ExpandError::new(
                    format!("${name}: cannot assign in this way"),
                    1,
                ));
            };
            let text = string(env, word)?;
            env.set_var(name, &text)
                .map_err(|m| ExpandError::new(m, 1))?;
            push_value(env, Value::One(text), ctx, out);
            Ok(())
        }
        TestKind::Error if missing => {
            let text = string(env, word)?;
            let message = if text.is_empty() {
                "parameter null or not set".to_string()
            } else {
                text
            };
            Err(ExpandError::fatal(format!(
                "{}: {message}",
                param_name(param)
            )))
        }
        _ => {
            push_value(env, value, ctx, out);
            Ok(())
        }
    }
}

/// The operand of `${x:-w}` / `${x:+w}`: its literal text splits like an expansion result when
/// unquoted (`${x:-a b}` is two words), its quoted parts don't.
fn expand_operand(
    env: &mut dyn ExpandEnv,
    word: &Word,
    ctx: Context,
    out: &mut Fields,
) -> Result<(), ExpandError> {
    if ctx == Context::Quoted {
        return expand_parts(env, &word.parts, ctx, out);
    }
    for (index, part) in word.parts.iter().enumerate() {
        match part {
            WordPart::Literal(text) => {
                let text = tilde(env, text, index == 0, ctx, word.parts.get(index + 1));
                out.push(Piece::expansion(text, false));
            }
            other => expand_parts(env, std::slice::from_ref(other), ctx, out)?,
        }
    }
    Ok(())
}

fn push_value(env: &dyn ExpandEnv, value: Value, ctx: Context, out: &mut Fields) {
    match value {
        Value::Unset => out.push(Piece::expansion(String::new(), ctx.quoted())),
        Value::One(text) => out.push(Piece::expansion(text, ctx.quoted())),
        Value::Many { items, star } => {
            if items.is_empty() && !star && ctx.quoted() {
                out.empty_at();
            }
            if ctx.quoted() && star {
                let sep = ifs(env)
                    .chars()
                    .next()
                    .map(String::from)
                    .unwrap_or_default();
                out.push(Piece::expansion(items.join(&sep), true));
            } else if ctx.quoted() || matches!(ctx, Context::Unquoted | Context::AssignmentWord) {
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        out.field_break();
                    }
                    out.push(Piece::expansion(item, ctx.quoted()));
                }
            } else {
                // Assignment and pattern contexts: `$*` joins with IFS's first character,
                // `$@` with spaces.
                let sep = if star {
                    ifs(env)
                        .chars()
                        .next()
                        .map(String::from)
                        .unwrap_or_default()
                } else {
                    " ".to_string()
                };
                out.push(Piece::expansion(items.join(&sep), false));
            }
        }
    }
}

fn length(value: &Value) -> usize {
    match value {
        Value::Unset => 0,
        Value::One(s) => s.chars().count(),
        Value::Many { items, .. } => items.len(),
    }
}

fn map_value(value: Value, f: impl Fn(&str) -> String) -> Value {
    match value {
        Value::Unset => Value::Unset,
        Value::One(s) => Value::One(f(&s)),
        Value::Many { items, star } => Value::Many {
            items: items.iter().map(|s| f(s)).collect(),
            star,
        },
    }
}

fn pattern_opts(env: &dyn ExpandEnv) -> PatternOpts {
    let options = env.options();
    PatternOpts {
        extglob: options.extglob,
        nocase: false,
    }
}

fn compile_pattern(env: &mut dyn ExpandEnv, word: &Word) -> Result<Pattern, ExpandError> {
    let text = pattern_text(env, word)?;
    Ok(Pattern::new(&text, pattern_opts(env)))
}

fn strip(pat: &Pattern, s: &str, suffix: bool, longest: bool) -> String {
    if suffix {
        match pat.suffix_start(s, longest) {
            Some(start) => s[..start].to_string(),
            None => s.to_string(),
        }
    } else {
        match pat.prefix_len(s, longest) {
            Some(len) => s[len..].to_string(),
            None => s.to_string(),
        }
    }
}

fn replace(pat: &Pattern, s: &str, mode: ReplaceMode, replacement: &str) -> String {
    match mode {
        ReplaceMode::Prefix => match pat.prefix_len(s, true) {
            Some(len) => format!("{}{}", substitute(replacement, &s[..len]), &s[len..]),
            None => s.to_string(),
        },
        ReplaceMode::Suffix => match pat.suffix_start(s, true) {
            Some(start) => format!("{}{}", &s[..start], substitute(replacement, &s[start..])),
            None => s.to_string(),
        },
        ReplaceMode::First => match pat.find(s, 0) {
            Some((start, end)) => format!(
                "{}{}{}",
                &s[..start],
                substitute(replacement, &s[start..end]),
                &s[end..]
            ),
            None => s.to_string(),
        },
        ReplaceMode::All => {
            let mut out = String::with_capacity(s.len());
            let mut pos = 0;
            for (start, end) in pat.find_all(s) {
                out.push_str(&s[pos..start]);
                out.push_str(&substitute(replacement, &s[start..end]));
                pos = end;
            }
            out.push_str(&s[pos..]);
            out
        }
    }
}

/// bash 5.2 `patsub_replacement`: an unquoted `&` in the replacement is the matched text.
/// The replacement arrives in pattern form (quoted characters escaped).
fn substitute(replacement: &str, matched: &str) -> String {
    let mut out = String::new();
    let mut chars = replacement.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => out.push(next),
                None => out.push('\\'),
            },
            '&' => out.push_str(matched),
            _ => out.push(c),
        }
    }
    out
}

fn slice(
    env: &mut dyn ExpandEnv,
    param: &Param,
    value: Value,
    offset: &Word,
    length: Option<&Word>,
) -> Result<Value, ExpandError> {
    let offset = arith(env, offset)?;
    let length = match length {
        Some(word) => Some(arith(env, word)?),
        None => None,
    };
    let name = param_name(param);
    match value {
        Value::Unset => Ok(Value::Unset),
        Value::One(s) => {
            let chars: Vec<char> = s.chars().collect();
            let range = slice_range(chars.len(), offset, length)
                .map_err(|m| ExpandError::new(format!("{name}: {m}"), 1))?;
            Ok(Value::One(chars[range].iter().collect()))
        }
        Value::Many { items, star } => {
            // The list is indexed from $0: `${@:1}` is "$@", `${@:0}` adds $0.
            let mut all = vec![env.positional(0).unwrap_or_default()];
            all.extend(items);
            let range = slice_range(all.len(), offset, length)
                .map_err(|m| ExpandError::new(format!("{name}: {m}"), 1))?;
            Ok(Value::Many {
                items: all[range].to_vec(),
                star,
            })
        }
    }
}

fn slice_range(
    len: usize,
    offset: i64,
    length: Option<i64>,
) -> Result<std::ops::Range<usize>, String> {
    let len_i = len as i64;
    let start = if offset < 0 {
        len_i.saturating_add(offset)
    } else {
        offset
    };
    if start < 0 || start > len_i {
        return Ok(0..0);
    }
    let end = match length {
        None => len_i,
        Some(l) if l < 0 => {
            let end = len_i.saturating_add(l);
            if end < start {
                return Err(format!("{l}: substring expression < 0"));
            }
            end
        }
        Some(l) => start.saturating_add(l).min(len_i),
    };
    Ok(start as usize..end as usize)
}

fn change_case(pat: &Pattern, s: &str, upper: bool, all: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.chars().enumerate() {
        let eligible = (all || i == 0) && pat.matches(&c.to_string());
        if eligible && upper {
            out.extend(c.to_uppercase());
        } else if eligible {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Pathname expansion of split fields, appending the results to `out`.
fn glob_fields(
    env: &mut dyn ExpandEnv,
    fields: Vec<split::Field>,
    out: &mut Vec<String>,
) -> Result<(), ExpandError> {
    let options = env.options();
    for field in fields {
        if options.noglob || !pattern::has_glob_chars(&field.pattern, options.extglob) {
            out.push(field.text);
            continue;
        }
        let matches = glob::expand(
            &field.pattern,
            &env.cwd(),
            glob::GlobOpts {
                dotglob: options.dotglob,
                extglob: options.extglob,
                nocaseglob: options.nocaseglob,
                globstar: options.globstar,
            },
            &mut |dir| env.may_list(dir),
        );
        if !matches.is_empty() {
            out.extend(matches);
        } else if options.failglob {
            return Err(ExpandError::new(format!("no match: {}", field.text), 1));
        } else if !options.nullglob {
            out.push(field.text);
        }
    }
    Ok(())
}
