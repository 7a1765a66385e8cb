//! The typed syntax tree rsh executes.
//!
//! Built once per line by `parse::convert` from the tree-sitter-bash tree and never re-parsed:
//! the tree that is checked is the tree that runs. Nothing here knows how to expand or execute;
//! the types only say what the user wrote.

use std::rc::Rc;

/// A byte range in the source the node came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// A sequence of and-or lists run one after another (`;`, newline).
pub type List = Vec<AndOr>;

/// A whole parsed script or line.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub body: List,
    /// Indices into `body` where a new line of input begins. bash reads and runs a script one
    /// line (one complete command) at a time, and some errors abandon only the current line.
    pub line_starts: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connector {
    And,
    Or,
}

/// `p1 && p2 || p3`
#[derive(Debug, Clone)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(Connector, Pipeline)>,
}

/// `! a | b |& c`; a single command is a pipeline of one.
#[derive(Debug, Clone)]
pub struct Pipeline {
    pub negated: bool,
    /// `time [-p] a | b`: how long the pipeline took is reported when it ends.
    pub timed: Option<TimeFormat>,
    pub commands: Vec<Command>,
    pub span: Span,
}

/// How `time` reports: as `TIMEFORMAT` says, or POSIX's `real 0.00` (`time -p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeFormat {
    Default,
    Posix,
}

#[derive(Debug, Clone)]
pub enum Command {
    Simple(SimpleCommand),
    Compound(CompoundCommand),
    FunctionDef(Rc<FunctionDef>),
}

/// Assignments, words and redirections, in the order bash applies them.
#[derive(Debug, Clone, Default)]
pub struct SimpleCommand {
    pub assignments: Vec<Assignment>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub span: Span,
    /// 1-based line of the command in its source, for `$LINENO` and messages.
    pub line: usize,
    /// The text the command was parsed from (`span` indexes it): alias expansion re-reads it.
    pub source: Rc<str>,
}

#[derive(Debug, Clone)]
pub struct CompoundCommand {
    pub kind: Compound,
    pub redirects: Vec<Redirect>,
    pub span: Span,
    /// 1-based line where the command starts, for `$LINENO`.
    pub line: usize,
}

#[derive(Debug, Clone)]
pub enum Compound {
    /// `{ list; }`
    Group(List),
    /// `( list )`
    Subshell(List),
    If {
        /// `if c1; then b1; elif c2; then b2; …`
        branches: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    For {
        var: String,
        /// `None` for `for x; do …` (iterate over "$@").
        words: Option<Vec<Word>>,
        body: List,
    },
    /// `for ((init; cond; step))`; each part is arithmetic text.
    ArithFor {
        init: Option<Word>,
        cond: Option<Word>,
        step: Option<Word>,
        body: List,
    },
    While {
        cond: List,
        body: List,
        until: bool,
    },
    Case {
        subject: Word,
        items: Vec<CaseItem>,
    },
    /// `[[ … ]]`
    Cond(CondExpr),
    /// `(( … ))`
    Arith(Word),
}

#[derive(Debug, Clone)]
pub struct CaseItem {
    pub patterns: Vec<Word>,
    pub body: List,
    pub terminator: CaseTerminator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseTerminator {
    /// `;;`
    Break,
    /// `;&`
    FallThrough,
}

#[derive(Debug, Clone)]
pub struct FunctionDef {
    pub name: String,
    pub body: CompoundCommand,
    pub span: Span,
    /// The definition as written, for `declare -f` and `type`.
    pub source: String,
}

/// The expression inside `[[ … ]]`.
#[derive(Debug, Clone)]
pub enum CondExpr {
    /// `[[ word ]]`: true when the word is not empty.
    Word(Word),
    /// `-f file`, `-z str`, …
    Unary(String, Word),
    /// `a == pat`, `a =~ re`, `a -eq b`, `a < b`, …
    Binary(Word, CondOp, Word),
    Not(Box<CondExpr>),
    And(Box<CondExpr>, Box<CondExpr>),
    Or(Box<CondExpr>, Box<CondExpr>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CondOp {
    /// `==` / `=`: the right side is a pattern.
    Match,
    /// `!=`: the right side is a pattern.
    NoMatch,
    /// `=~`: the right side is an extended regular expression.
    Regex,
    /// Any other binary operator (`<`, `>`, `-eq`, `-nt`, …), kept as written.
    Other(String),
}

#[derive(Debug, Clone)]
pub struct Assignment {
    pub name: String,
    pub append: bool,
    pub value: Word,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct Redirect {
    /// The explicit descriptor (`2>`); `None` means the operator's default.
    pub fd: Option<i32>,
    pub op: RedirOp,
    pub target: Word,
    /// The target as written, for messages (`$x: ambiguous redirect`).
    pub written: String,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirOp {
    /// `<`
    Read,
    /// `>`
    Write,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<>`
    ReadWrite,
    /// `<&`: the target is a descriptor number, `-`, or `N-`.
    DupRead,
    /// `>&`: as `<&`, or a file name (then it means `&>`).
    DupWrite,
    /// `&>`
    WriteBoth,
    /// `&>>`
    AppendBoth,
    /// `<<` and `<<-`: the target is the (already tab-stripped) body.
    HereDoc,
    /// `<<<`
    HereString,
}

/// One shell word before expansion.
#[derive(Debug, Clone, Default)]
pub struct Word {
    pub parts: Vec<WordPart>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub enum WordPart {
    /// Unquoted text: subject to tilde, brace and pathname expansion.
    Literal(String),
    /// Text whose characters are all literal: `'…'`, `$'…'`, `\x`.
    Quoted(String),
    /// `"…"`: its parts are not split or globbed.
    DoubleQuoted(Vec<WordPart>),
    Param(Box<ParamExp>),
    /// `$(…)` or `` `…` ``.
    CommandSub(Rc<Program>),
    /// `<(…)` (`output` false: the command reads what the program writes) or `>(…)` (`output`
    /// true: the command writes to the program), both named as `/dev/fd/N`.
    ProcessSub {
        program: Rc<Program>,
        output: bool,
    },
    /// `$((…))`: the text is expanded, then evaluated.
    Arith(Word),
}

/// `$x`, `${x}`, `${x:-w}`, `${#x}`, …
#[derive(Debug, Clone)]
pub struct ParamExp {
    pub param: Param,
    /// `${!x}`: the value of the variable named by x.
    pub indirect: bool,
    pub op: ParamOp,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    Var(String),
    /// `$0`, `$1`, `${10}`
    Positional(usize),
    Special(Special),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// `$@`
    At,
    /// `$*`
    Star,
    /// `$#`
    Count,
    /// `$?`
    Status,
    /// `$$`
    Pid,
    /// `$!`
    LastBackground,
    /// `$-`
    Flags,
}

#[derive(Debug, Clone)]
pub enum ParamOp {
    Plain,
    /// `${#x}`
    Length,
    /// `${x-w}` `${x:-w}` `${x=w}` `${x:=w}` `${x+w}` `${x:+w}` `${x?w}` `${x:?w}`
    Test {
        colon: bool,
        kind: TestKind,
        word: Word,
    },
    /// `${x#p}` `${x##p}` `${x%p}` `${x%%p}`
    Strip {
        suffix: bool,
        longest: bool,
        pattern: Word,
    },
    /// `${x/p/r}` `${x//p/r}` `${x/#p/r}` `${x/%p/r}`
    Replace {
        mode: ReplaceMode,
        pattern: Word,
        replacement: Word,
    },
    /// `${x:off}` `${x:off:len}` (arithmetic text)
    Slice {
        offset: Word,
        length: Option<Word>,
    },
    /// `${x^p}` `${x^^p}` `${x,p}` `${x,,p}`
    Case {
        upper: bool,
        all: bool,
        pattern: Word,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestKind {
    /// `-`: use the word when unset (or null with `:`).
    Default,
    /// `=`: assign the word when unset.
    Assign,
    /// `+`: use the word when set.
    Alternate,
    /// `?`: fail with the word as message when unset.
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceMode {
    First,
    All,
    Prefix,
    Suffix,
}

impl Word {
    /// A word made of one piece of literal text, e.g. a builtin name supplied by the parser.
    pub fn literal(text: &str, span: Span) -> Word {
        Word {
            parts: vec![WordPart::Literal(text.to_string())],
            span,
        }
    }

    /// The word's text when it contains no expansions and no quoting, e.g. `echo`, `fi`.
    pub fn as_plain_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [WordPart::Literal(s)] => Some(s),
            _ => None,
        }
    }

    /// The word's text when it contains no expansions (quotes removed), e.g. `"EOF"` → `EOF`.
    pub fn static_text(&self) -> Option<String> {
        fn walk(parts: &[WordPart], out: &mut String) -> bool {
            for part in parts {
                match part {
                    WordPart::Literal(s) | WordPart::Quoted(s) => out.push_str(s),
                    WordPart::DoubleQuoted(inner) => {
                        if !walk(inner, out) {
                            return false;
                        }
                    }
                    _ => return false,
                }
            }
            true
        }
        let mut out = String::new();
        walk(&self.parts, &mut out).then_some(out)
    }
}
