//! tree-sitter-bash tree → `ast`, statement by statement.
//!
//! Every node kind is matched explicitly; anything not handled becomes `Unsupported` naming the
//! construct, never a silent skip. Words are not taken from tree-sitter's word structure (which
//! mis-parses several expansions); `word.rs` lexes each word's source span itself. This module
//! also repairs tree-sitter's placement of trailing redirections: bash applies `a | b > f` to `b`.

use std::rc::Rc;

use tree_sitter::{Node, Tree};

use super::ast::*;
use super::{MAX_DEPTH, ParseError, line_column};

pub(super) struct Converter<'a> {
    pub(super) src: &'a str,
    /// None when a line was read without tree-sitter (`fast`): its words hold nothing that
    /// needs a node looked up.
    pub(super) root: Option<Node<'a>>,
    /// Offsets of `<>` operators that were rewritten to `>|` before parsing.
    read_write_ops: &'a [usize],
    line_starts: Vec<usize>,
    pub(super) depth: usize,
    /// The source again, shared by every command (see `command_at`).
    pub(super) source: Rc<str>,
    /// Commands whose leading children were split off as separate lines (see
    /// `leading_assignment_lines`): node id → offset where the command really starts.
    command_starts: std::collections::HashMap<usize, usize>,
    /// Where each pipeline led by a hidden `time` keyword starts, and its format.
    times: Vec<(usize, TimeFormat)>,
    /// Where a lone assignment was parted from its redirections (see `statements_of`).
    lone_assignments: Vec<usize>,
}

/// What a here-document redirect drags along: tree-sitter nests the rest of the line
/// (`cat <<EOF | tr a b && echo x`) inside the redirect node.
#[derive(Default)]
struct Continuation {
    pipe_rest: Option<AndOr>,
    and_or_rest: Vec<(Connector, AndOr)>,
}

impl<'a> Converter<'a> {
    pub(super) fn new(
        src: &'a str,
        tree: Option<&'a Tree>,
        read_write_ops: &'a [usize],
        depth: usize,
    ) -> Converter<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Converter {
            src,
            root: tree.map(Tree::root_node),
            read_write_ops,
            line_starts,
            depth,
            source: Rc::from(src),
            command_starts: std::collections::HashMap::new(),
            times: Vec::new(),
            lone_assignments: Vec::new(),
        }
    }

    /// See `lone_assignments_before_redirects`.
    pub(super) fn with_lone_assignments(mut self, at: Vec<usize>) -> Converter<'a> {
        self.lone_assignments = at;
        self
    }

    /// Where pipelines led by a `time` keyword hidden from tree-sitter start (see
    /// `hide_time_keywords`).
    pub(super) fn with_times(mut self, times: Vec<(usize, TimeFormat)>) -> Converter<'a> {
        self.times = times;
        self
    }

    /// Marks a pipeline led by the keyword `time`.
    fn timed(&self, pipeline: &mut Pipeline) {
        let start = pipeline_start(pipeline);
        match self.times.iter().find(|(at, _)| Some(*at) == start) {
            Some((_, format)) => pipeline.timed = Some(*format),
            None => timed_alone(pipeline),
        }
    }

    pub(super) fn program(&mut self, root: Node<'a>) -> Result<Program, ParseError> {
        self.reject_unsupported_nodes(root)?;
        let body = self.statements(root)?;
        let line_starts = self.line_starts_of(&body);
        Ok(Program { body, line_starts })
    }

    /// Which statements begin a new line: those whose first line is after the line where the
    /// previous statement ended.
    fn line_starts_of(&self, body: &List) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut previous_end_line = 0;
        for (i, and_or) in body.iter().enumerate() {
            let start = and_or.first.span.start;
            let end = and_or
                .rest
                .last()
                .map_or(and_or.first.span.end, |(_, p)| p.span.end);
            if i == 0 || self.line_of(start) > previous_end_line {
                starts.push(i);
            }
            previous_end_line = self.line_of(end.saturating_sub(1).max(start));
        }
        starts
    }

    // ----- positions and errors -------------------------------------------------------------

    pub(super) fn position(&self, offset: usize) -> (usize, usize) {
        // Offsets computed as `end - 1` may fall inside a multi-byte character.
        let mut offset = offset.min(self.src.len());
        while !self.src.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.line_starts[line - 1];
        let column = self.src[start..offset].chars().count() + 1;
        (line, column)
    }

    /// The line of `offset` alone: counting the column is a walk along the line, which for
    /// every command of one long line would take time growing with its square.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.src.len());
        self.line_starts.partition_point(|&s| s <= offset)
    }

    pub(super) fn unsupported(&self, construct: &str, offset: usize) -> ParseError {
        let (line, column) = self.position(offset);
        ParseError::Unsupported {
            construct: construct.to_string(),
            line,
            column,
        }
    }

    pub(super) fn syntax(&self, message: &str, offset: usize) -> ParseError {
        let (line, column) = self.position(offset);
        ParseError::Syntax {
            line,
            column,
            message: message.to_string(),
        }
    }

    fn unexpected(&self, node: Node) -> ParseError {
        self.unsupported(
            &format!("`{}` ({})", snippet(self.text(node)), node.kind()),
            node.start_byte(),
        )
    }

    pub(super) fn text(&self, node: Node) -> &'a str {
        &self.src[node.start_byte()..node.end_byte()]
    }

    fn span(node: Node) -> Span {
        Span {
            start: node.start_byte(),
            end: node.end_byte(),
        }
    }

    pub(super) fn enter(&mut self, offset: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let (line, column) = self.position(offset);
            return Err(ParseError::Input(format!(
                "nesting deeper than {MAX_DEPTH} levels at {line}:{column}"
            )));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Constructs rsh refuses wherever they appear, found before anything is converted so
    /// that nothing of the line runs. Iterative: the tree may be very deep.
    fn reject_unsupported_nodes(&self, root: Node<'a>) -> Result<(), ParseError> {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let construct = match node.kind() {
                "array" => Some("array assignment (...)"),
                "subscript" => Some("array subscript [...]"),
                "&" if node
                    .parent()
                    .is_none_or(|p| p.kind() != "binary_expression") =>
                {
                    Some("background job &")
                }
                _ => None,
            };
            if let Some(construct) = construct {
                return Err(self.unsupported(construct, node.start_byte()));
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        Ok(())
    }

    // ----- statement lists --------------------------------------------------------------------

    /// The statements that are direct children of `parent` (program, group, do-group, …).
    fn statements(&mut self, parent: Node<'a>) -> Result<List, ParseError> {
        let mut cursor = parent.walk();
        let children: Vec<Node<'a>> = parent.children(&mut cursor).collect();
        self.statements_of(&children)
    }

    /// Statements among `nodes`, skipping keywords and separators.
    fn statements_of(&mut self, nodes: &[Node<'a>]) -> Result<List, ParseError> {
        let mut list = Vec::new();
        for &node in nodes {
            self.refuse_case_terminator(node)?;
            if node.is_named() && node.kind() != "comment" {
                list.extend(self.leading_assignment_lines(node)?);
                let statement = self.statement(node)?;
                self.push_statement(&mut list, statement, node)?;
            }
        }
        Ok(list)
    }

    /// A case terminator among statements, outside `case` (`echo a;; echo b`): bash's syntax
    /// error, which tree-sitter-bash lets pass.
    pub(super) fn refuse_case_terminator(&self, node: Node) -> Result<(), ParseError> {
        match node.kind() {
            token @ (";;" | ";&" | ";;&") => {
                Err(self.syntax(&format!("unexpected `{token}`"), node.start_byte()))
            }
            _ => Ok(()),
        }
    }

    /// Adds the statement converted from `node` to `list`, joined to the lone assignment
    /// before it that tree-sitter was made to part from it (see
    /// `lone_assignments_before_redirects`).
    pub(super) fn push_statement(
        &self,
        list: &mut List,
        mut statement: AndOr,
        node: Node,
    ) -> Result<(), ParseError> {
        let parted = node
            .prev_named_sibling()
            .is_some_and(|before| self.lone_assignments.contains(&before.end_byte()));
        if parted && let Some(assignment) = list.pop() {
            statement = self.join_lone_assignment(assignment, statement, node)?;
        }
        list.push(statement);
        Ok(())
    }

    /// `x=1 >f` again, from the statements `x=1` and `>f…` tree-sitter was given (see
    /// `lone_assignments_before_redirects`): the assignment goes to the command of
    /// redirections that leads the statement after it.
    fn join_lone_assignment(
        &self,
        mut before: AndOr,
        statement: AndOr,
        node: Node,
    ) -> Result<AndOr, ParseError> {
        let cannot_tell = || {
            self.syntax(
                "cannot tell what this assignment belongs to",
                node.start_byte(),
            )
        };
        // The assignment is the last pipeline of the statement before (`false && x=1`).
        let lone = match before.rest.last_mut() {
            Some((_, last)) => last,
            None => &mut before.first,
        };
        let (assignments, line) = match &mut lone.commands[..] {
            [Command::Simple(simple)] if simple.words.is_empty() && simple.redirects.is_empty() => {
                (std::mem::take(&mut simple.assignments), simple.line)
            }
            _ => return Err(cannot_tell()),
        };
        let start = lone.span.start;
        let mut joined = statement.first;
        match joined.commands.first_mut() {
            Some(Command::Simple(command))
                if command.assignments.is_empty() && command.words.is_empty() =>
            {
                command.assignments = assignments;
                command.span.start = start;
                command.line = line;
            }
            _ => return Err(cannot_tell()),
        }
        joined.span.start = start;
        // `time x=1 >f | cat`, `! x=1 >f && y`: what leads the assignment leads the pipeline.
        joined.timed = joined.timed.or(lone.timed);
        joined.negated |= lone.negated;
        *lone = joined;
        before.rest.extend(statement.rest);
        Ok(before)
    }

    /// tree-sitter-bash joins `a=1 b=2` with the command on the *next* line (`a=1 b=2\necho`
    /// becomes one command with temporary assignments). The assignment lines at the front of
    /// a statement are split off here as statements of their own; the command conversion then
    /// skips them. (A merged line anywhere else is refused in `simple_command`.)
    fn leading_assignment_lines(&mut self, node: Node<'a>) -> Result<Vec<AndOr>, ParseError> {
        let Some(command) = leftmost_command(node) else {
            return Ok(Vec::new());
        };
        let children = all_children(command);
        let Some(split) = self.last_line_break(&children) else {
            return Ok(Vec::new());
        };
        let mut lines = Vec::new();
        let mut current: Option<SimpleCommand> = None;
        let mut i = 0;
        while i < split {
            let child = children[i];
            i += 1;
            if child.kind() == "comment" {
                continue;
            }
            if child.kind() != "variable_assignment" {
                return Err(self.syntax("unexpected line break in a command", child.start_byte()));
            }
            let starts_line = i == 1 || self.line_break_between(children[i - 2], child);
            if starts_line {
                lines.extend(current.take());
                current = Some(self.command_at(child));
            }
            let end = self.joined_end(command, &children[..split], &mut i);
            let assignment = self.assignment(child, end)?;
            if let Some(command) = current.as_mut() {
                command.assignments.push(assignment);
            }
        }
        lines.extend(current);
        self.command_starts
            .insert(command.id(), children[split].start_byte());
        Ok(lines
            .into_iter()
            .map(|c| {
                let span = c.span;
                single(Command::Simple(c), span)
            })
            .collect())
    }

    /// Index of the first child after the last unescaped newline between children.
    fn last_line_break(&self, children: &[Node<'a>]) -> Option<usize> {
        (1..children.len())
            .rev()
            .find(|&i| self.line_break_between(children[i - 1], children[i]))
    }

    fn line_break_between(&self, a: Node, b: Node) -> bool {
        let gap = &self.src[a.end_byte()..b.start_byte()];
        gap.replace("\\\n", "").contains('\n')
    }

    /// An empty command for `node`: its span, line and the source text (kept for alias
    /// expansion, which re-reads the command's text).
    fn command_at(&self, node: Node) -> SimpleCommand {
        SimpleCommand {
            span: Self::span(node),
            line: self.line_of(node.start_byte()),
            source: Rc::clone(&self.source),
            ..SimpleCommand::default()
        }
    }

    pub(super) fn statement_node(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        self.statement(node)
    }

    /// A redirection standing alone (`$(<file)`): a command with no words.
    pub(super) fn bare_redirect(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        let (redirects, words, _) = self.redirect(node, node.end_byte())?;
        let command = SimpleCommand {
            words,
            redirects,
            ..self.command_at(node)
        };
        Ok(single(Command::Simple(command), Self::span(node)))
    }

    fn statement(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        self.enter(node.start_byte())?;
        let result = self.statement_inner(node).map(|mut and_or| {
            self.timed(&mut and_or.first);
            for (_, pipeline) in &mut and_or.rest {
                self.timed(pipeline);
            }
            and_or
        });
        self.leave();
        result
    }

    fn statement_inner(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        match node.kind() {
            "list" => self.and_or_list(node),
            "pipeline" => self.pipeline(node),
            "negated_command" => self.negated(node),
            "redirected_statement" => self.redirected_statement(node),
            "command" => {
                let (command, continuation) = self.simple_command(node, &[])?;
                let span = command.span;
                Ok(self.extend_with(single(Command::Simple(command), span), node, continuation))
            }
            "variable_assignment" | "variable_assignments" => {
                let command = self.assignment_statement(node)?;
                Ok(single(Command::Simple(command), Self::span(node)))
            }
            "declaration_command" | "unset_command" => {
                let command = self.declaration(node)?;
                Ok(single(Command::Simple(command), Self::span(node)))
            }
            "test_command" => {
                let command = self.test_command(node)?;
                Ok(single(command, Self::span(node)))
            }
            "function_definition" => {
                let def = self.function_definition(node)?;
                Ok(single(Command::FunctionDef(Rc::new(def)), Self::span(node)))
            }
            "compound_statement"
            | "subshell"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement" => {
                let compound = self.compound(node)?;
                Ok(single(Command::Compound(compound), Self::span(node)))
            }
            _ => Err(self.unexpected(node)),
        }
    }

    fn and_or_list(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        let mut result: Option<AndOr> = None;
        let mut connector = None;
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match child.kind() {
                "&&" => connector = Some(Connector::And),
                "||" => connector = Some(Connector::Or),
                "comment" => {}
                _ if child.is_named() => {
                    let next = self.statement(child)?;
                    result = Some(match (result, connector.take()) {
                        (None, _) => next,
                        (Some(mut acc), Some(op)) => {
                            acc.rest.push((op, next.first));
                            acc.rest.extend(next.rest);
                            acc
                        }
                        (Some(_), None) => return Err(self.unexpected(child)),
                    });
                }
                _ => return Err(self.unexpected(child)),
            }
        }
        result.ok_or_else(|| self.syntax("empty list", node.start_byte()))
    }

    /// tree-sitter-bash hangs lists inside pipelines: `a | b | c && d` is a pipeline whose
    /// last stage is `c && d`, and `a && b 2>&1 | c` one whose first stage is `a && b` with
    /// the redirection. bash reads both as and-or lists of pipelines (`&&` binds looser than
    /// `|`), so the commands after such a stage join the list's last pipeline.
    fn pipeline(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        let mut result = AndOr {
            first: Pipeline {
                negated: false,
                timed: None,
                commands: Vec::new(),
                span: Self::span(node),
            },
            rest: Vec::new(),
        };
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (index, &child) in children.iter().enumerate() {
            // The pipeline being built came out of such a list: its span grows with every
            // stage added (otherwise it is the node's).
            let from_list = !result.rest.is_empty();
            let current = match result.rest.last_mut() {
                Some((_, pipeline)) => pipeline,
                None => &mut result.first,
            };
            match child.kind() {
                "|" => {}
                "|&" => {
                    // `a |& b` is `a 2>&1 | b`, applied after a's own redirections.
                    let last = current
                        .commands
                        .last_mut()
                        .ok_or_else(|| self.unexpected(child))?;
                    if !push_redirect(last, stderr_to_stdout(Self::span(child))) {
                        return Err(self.unexpected(child));
                    }
                }
                "comment" => {}
                _ if child.is_named() => {
                    let stage = self.statement(child)?;
                    if index == 0 && stage.rest.is_empty() {
                        // tree-sitter puts `!` on the first command; bash negates the pipeline.
                        current.negated = stage.first.negated;
                    } else if stage.first.negated {
                        return Err(self.syntax("`!` inside a pipeline", child.start_byte()));
                    }
                    if index == 0 {
                        current.timed = stage.first.timed;
                    } else if stage.first.timed.is_some() {
                        // bash runs a program named time there.
                        return Err(self.unsupported("time after |", child.start_byte()));
                    }
                    current.commands.extend(stage.first.commands);
                    if from_list || !stage.rest.is_empty() {
                        current.span.end = current
                            .commands
                            .last()
                            .map_or(current.span.end, command_end);
                    }
                    result.rest.extend(stage.rest);
                }
                _ => return Err(self.unexpected(child)),
            }
        }
        Ok(result)
    }

    fn negated(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        let inner = node
            .named_children(&mut node.walk())
            .find(|c| c.kind() != "comment")
            .ok_or_else(|| self.syntax("`!` without a command", node.start_byte()))?;
        let mut stage = self.statement(inner)?;
        stage.first.negated = !stage.first.negated;
        // tree-sitter reads the second `!` of `! ! cmd` as a command named `!`.
        while let Some(Command::Simple(simple)) = stage.first.commands.first_mut() {
            if simple.words.first().and_then(Word::as_plain_literal) != Some("!") {
                break;
            }
            simple.words.remove(0);
            stage.first.negated = !stage.first.negated;
        }
        Ok(stage)
    }

    fn redirected_statement(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        let body = node.child_by_field_name("body");
        let mut redirects = Vec::new();
        let mut extra_words = Vec::new();
        let mut continuation = Continuation::default();
        let mut cursor = node.walk();
        let mut previous_end = None;
        for (i, child) in node.children(&mut cursor).enumerate() {
            if let Some(end) = previous_end.replace(child.end_byte()) {
                extra_words.extend(self.skipped_words(end, child.start_byte())?);
            }
            if node.field_name_for_child(i as u32) == Some("redirect")
                || child.kind() == "herestring_redirect"
            {
                let (more_redirects, words, more) = self.redirect(child, child.end_byte())?;
                redirects.extend(more_redirects);
                extra_words.extend(words);
                continuation.merge(more);
            }
        }
        let Some(body) = body else {
            // `>f` alone: a command with nothing but redirections.
            let command = SimpleCommand {
                words: extra_words,
                redirects,
                ..self.command_at(node)
            };
            return Ok(self.continue_with(Command::Simple(command), node, continuation));
        };
        let mut result = match body.kind() {
            "command" => {
                let (command, more) = self.simple_command(body, &[])?;
                continuation.merge(more);
                let span = command.span;
                single(Command::Simple(command), span)
            }
            // `f() { …; } >out 2>&1`: tree-sitter keeps the first redirection on the
            // definition and hangs the others on a statement around it; all belong to the body.
            "function_definition" if extra_words.is_empty() => {
                let mut def = self.function_definition(body)?;
                def.body.redirects.append(&mut redirects);
                return Ok(single(Command::FunctionDef(Rc::new(def)), Self::span(node)));
            }
            _ => self.statement(body)?,
        };
        let last = last_command(&mut result).ok_or_else(|| self.unexpected(body))?;
        if let (Command::Simple(simple), Some(first)) = (&mut *last, redirects.first_mut()) {
            reclaim_descriptor(simple, first);
        }
        for redirect in redirects {
            if !push_redirect(last, redirect) {
                return Err(self.unexpected(node));
            }
        }
        match last {
            Command::Simple(simple) => {
                // `simple_command` took the body's own; these came with the redirections.
                if !extra_words.is_empty() {
                    simple.words.extend(extra_words);
                    self.leading_assignments(simple)?;
                }
                self.refuse_named_descriptors(simple)?;
            }
            _ if extra_words.is_empty() => {}
            _ => return Err(self.unexpected(node)),
        }
        Ok(self.extend_with(result, node, continuation))
    }

    /// Words tree-sitter-bash made no node for: it drops the `-` of `echo a - 2>f`. Plain
    /// text between two children is read as words; anything else there is refused rather than
    /// guessed at.
    fn skipped_words(&mut self, start: usize, end: usize) -> Result<Vec<Word>, ParseError> {
        let gap = &self.src[start..end.max(start)];
        let mut words = Vec::new();
        let mut offset = start;
        for piece in gap.split([' ', '\t']) {
            let at = offset;
            offset += piece.len() + 1;
            if piece.is_empty() || piece == "\\\n" || piece == "\n" {
                continue;
            }
            let plain = piece.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'_' | b'.' | b'/')
            });
            if !plain {
                return Err(self.syntax(&format!("cannot tell what `{piece}` belongs to"), at));
            }
            words.push(self.word(at, at + piece.len())?);
        }
        Ok(words)
    }

    /// Wraps a command in its pipeline/list continuation (see `Continuation`).
    fn continue_with(&self, command: Command, node: Node, continuation: Continuation) -> AndOr {
        self.extend_with(single(command, Self::span(node)), node, continuation)
    }

    fn extend_with(&self, mut result: AndOr, _node: Node, continuation: Continuation) -> AndOr {
        if let Some(rest) = continuation.pipe_rest {
            let target = match result.rest.last_mut() {
                Some((_, pipeline)) => pipeline,
                None => &mut result.first,
            };
            target.commands.extend(rest.first.commands);
            result.rest.extend(rest.rest);
        }
        for (op, more) in continuation.and_or_rest {
            result.rest.push((op, more.first));
            result.rest.extend(more.rest);
        }
        result
    }

    // ----- simple commands --------------------------------------------------------------------

    fn simple_command(
        &mut self,
        node: Node<'a>,
        outer_redirects: &[Redirect],
    ) -> Result<(SimpleCommand, Continuation), ParseError> {
        let mut command = SimpleCommand {
            redirects: outer_redirects.to_vec(),
            ..self.command_at(node)
        };
        let mut continuation = Continuation::default();
        let mut word_nodes = Vec::new();
        let skip_before = self.command_starts.get(&node.id()).copied().unwrap_or(0);
        if skip_before > command.span.start {
            // The lines before were split off (see `leading_assignment_lines`).
            command.span.start = skip_before;
            command.line = self.line_of(skip_before);
        }
        let children = all_children(node);
        if let Some(split) = self.last_line_break(&children) {
            if children[split].start_byte() > skip_before {
                return Err(self.unsupported(
                    "assignments and a command on separate lines in this position",
                    children[split].start_byte(),
                ));
            }
        }
        let mut i = 0;
        while i < children.len() {
            let child = children[i];
            let field = node.field_name_for_child(i as u32);
            i += 1;
            if child.start_byte() < skip_before {
                continue;
            }
            match (field, child.kind()) {
                (_, "variable_assignment") => {
                    let end = self.joined_end(node, &children, &mut i);
                    command.assignments.push(self.assignment(child, end)?)
                }
                // `a=1 >f`: tree-sitter wants a command name and marks it MISSING; the
                // error was tolerated (see `missing_command_name`).
                (Some("name"), _) if child.child(0).is_some_and(|w| w.is_missing()) => {}
                (Some("name"), _) => {
                    let name = self.text(child);
                    if let Some(keyword) = refused_keyword(name) {
                        return Err(self.unsupported(keyword, child.start_byte()));
                    }
                    if is_reserved_word(name) {
                        // tree-sitter takes e.g. `! { a; }` and a stray `fi` for commands.
                        return Err(
                            self.syntax(&format!("unexpected `{name}`"), child.start_byte())
                        );
                    }
                    word_nodes.push(child)
                }
                (Some("argument"), _) => word_nodes.push(child),
                (Some("redirect"), _) | (_, "herestring_redirect") => {
                    let end = self.joined_end(node, &children, &mut i);
                    let (redirects, words, more) = self.redirect(child, end)?;
                    command.redirects.extend(redirects);
                    // Words tree-sitter hung on the redirect belong to the command.
                    command.words.extend(words);
                    continuation.merge(more);
                }
                (_, "comment") => {}
                _ => return Err(self.unexpected(child)),
            }
        }
        let mut words = self.words_from_nodes(&word_nodes)?;
        words.append(&mut command.words);
        command.words = words;
        self.leading_assignments(&mut command)?;
        self.refuse_named_descriptors(&command)?;
        Ok((command, continuation))
    }

    /// `{name}>file`: bash opens the file on a descriptor of its own and puts its number in
    /// `name`; rsh does not, and would take `{name}` for a word of the command.
    fn refuse_named_descriptors(&self, command: &SimpleCommand) -> Result<(), ParseError> {
        for redirect in &command.redirects {
            let named = command
                .words
                .iter()
                .find(|word| self.names_descriptor(word.span, redirect));
            if let Some(word) = named {
                return Err(self.unsupported("named file descriptors ({fd}>file)", word.span.start));
            }
        }
        Ok(())
    }

    /// Whether the word at `word` is `{name}` written right against `redirect` (line
    /// continuations are gone before bash reads words): a descriptor bash names. Not before
    /// `&>` and `&>>`, which name none.
    pub(super) fn names_descriptor(&self, word: Span, redirect: &Redirect) -> bool {
        redirect.fd.is_none()
            && !matches!(redirect.op, RedirOp::WriteBoth | RedirOp::AppendBoth)
            && self.adjacent(word.end, redirect.span.start)
            && self.src[word.start..word.end]
                .replace("\\\n", "")
                .strip_prefix('{')
                .and_then(|t| t.strip_suffix('}'))
                .is_some_and(super::is_name)
    }

    /// Adjacent nodes without blanks between them are one shell word (`$"x"` arrives as two).
    fn words_from_nodes(&mut self, nodes: &[Node<'a>]) -> Result<Vec<Word>, ParseError> {
        let spans: Vec<(usize, usize)> = nodes
            .iter()
            .map(|n| (n.start_byte(), n.end_byte()))
            .collect();
        self.words_from_spans(&spans)
    }

    /// Words from (start, end) offsets, joining those with nothing between them.
    fn words_from_spans(&mut self, spans: &[(usize, usize)]) -> Result<Vec<Word>, ParseError> {
        let mut words = Vec::new();
        let mut i = 0;
        while i < spans.len() {
            let (start, mut end) = spans[i];
            while i + 1 < spans.len() && self.adjacent(end, spans[i + 1].0) {
                i += 1;
                end = spans[i].1;
            }
            words.push(self.word(start, end)?);
            i += 1;
        }
        Ok(words)
    }

    /// Nothing but line continuations between two nodes: they are one word (`a\<newline>b`
    /// is `ab`; tree-sitter makes two words of it).
    pub(super) fn adjacent(&self, end: usize, next_start: usize) -> bool {
        next_start >= end && self.src[end..next_start].replace("\\\n", "").is_empty()
    }

    /// Where the word that ends `children[*next - 1]` (an assignment's value, a redirection's
    /// target) really ends, taking in the words written right against it: tree-sitter-bash
    /// ends a word early after some expansions (`x=a/$y/$z/b` came as `x=a/$y/$` and a
    /// command `z/b`, `<<<a$?b$?c` as `a$?b$` and an argument), where bash reads one word.
    /// `next` moves past the words taken.
    fn joined_end(&self, parent: Node<'a>, children: &[Node<'a>], next: &mut usize) -> usize {
        let mut end = children[*next - 1].end_byte();
        while let Some(&child) = children.get(*next) {
            let word = matches!(
                parent.field_name_for_child(*next as u32),
                Some("name" | "argument")
            ) || child.kind() == "variable_assignment";
            if !word || !self.adjacent(end, child.start_byte()) {
                break;
            }
            end = child.end_byte();
            *next += 1;
        }
        end
    }

    /// Takes the `NAME=value` words before `command`'s first other word for assignments, as
    /// bash reads them. tree-sitter makes words of them after a word it cut short (see
    /// `joined_end`): `x=a/$y/$z w=1 cmd`, or `… >f w=1 cmd` with the words hung on the
    /// redirection.
    fn leading_assignments(&mut self, command: &mut SimpleCommand) -> Result<(), ParseError> {
        let taken = command
            .words
            .iter()
            .take_while(|w| assignment_prefix(&self.src[w.span.start..w.span.end]).is_some())
            .count();
        for word in command.words.drain(..taken).collect::<Vec<_>>() {
            let assignment = self.assignment_in_word(word.span.start, word.span.end)?;
            command.assignments.push(assignment);
        }
        Ok(())
    }

    /// An assignment that tree-sitter took for a word (the text from `start` to `end`).
    fn assignment_in_word(&mut self, start: usize, end: usize) -> Result<Assignment, ParseError> {
        let (name, append, value) = assignment_prefix(&self.src[start..end])
            .ok_or_else(|| self.syntax("not an assignment", start))?;
        self.assignment_of(name, append, Span { start, end }, start + value)
    }

    /// An assignment spanning `span` whose value is the text from `value_start` to its end.
    fn assignment_of(
        &mut self,
        name: String,
        append: bool,
        span: Span,
        value_start: usize,
    ) -> Result<Assignment, ParseError> {
        let value = if value_start < span.end {
            self.word(value_start, span.end)?
        } else {
            Word {
                parts: Vec::new(),
                span: Span {
                    start: span.end,
                    end: span.end,
                },
            }
        };
        Ok(Assignment {
            name,
            append,
            value,
            span,
        })
    }

    /// The assignment `node`, its value running to `end` (see [`Self::joined_end`]).
    fn assignment(&mut self, node: Node<'a>, end: usize) -> Result<Assignment, ParseError> {
        let name_node = node
            .child_by_field_name("name")
            .ok_or_else(|| self.unexpected(node))?;
        if name_node.kind() != "variable_name" {
            return Err(self.unexpected(name_node));
        }
        let operator = {
            let mut cursor = node.walk();
            node.children(&mut cursor)
                .find(|c| matches!(c.kind(), "=" | "+="))
        };
        let append = operator.is_some_and(|o| o.kind() == "+=");
        // The value may be split by tree-sitter (`a=$"x"`): take everything after the `=`.
        let start = node
            .child_by_field_name("value")
            .map_or(node.end_byte(), |value| value.start_byte());
        // `x=\<newline> cmd`: tree-sitter reads on over the blank after the line
        // continuation and takes `cmd` for the value, where bash assigns nothing and runs it.
        let operator_end = operator.map_or(start, |o| o.end_byte());
        if !self.adjacent(operator_end, start) {
            return Err(self.unsupported(
                "a blank after a line continuation that follows `=`",
                operator_end,
            ));
        }
        let name = self.text(name_node).to_string();
        let span = Span {
            start: node.start_byte(),
            end,
        };
        self.assignment_of(name, append, span, start)
    }

    fn assignment_statement(&mut self, node: Node<'a>) -> Result<SimpleCommand, ParseError> {
        let mut command = self.command_at(node);
        if node.kind() == "variable_assignment" {
            command
                .assignments
                .push(self.assignment(node, node.end_byte())?);
        } else {
            let children = all_children(node);
            let mut i = 0;
            while i < children.len() {
                let child = children[i];
                i += 1;
                if child.kind() == "variable_assignment" {
                    let end = self.joined_end(node, &children, &mut i);
                    command.assignments.push(self.assignment(child, end)?);
                }
            }
        }
        Ok(command)
    }

    /// `export a=b`, `local x`, `declare -x y=1`, `unset -v z`: a simple command whose arguments
    /// keep their source text; the builtin treats `name=value` arguments as assignments.
    fn declaration(&mut self, node: Node<'a>) -> Result<SimpleCommand, ParseError> {
        let mut command = self.command_at(node);
        let mut word_nodes = Vec::new();
        let children = all_children(node);
        let mut i = 0;
        while i < children.len() {
            let child = children[i];
            i += 1;
            match child.kind() {
                "comment" => {}
                "file_redirect" | "herestring_redirect" => {
                    let end = self.joined_end(node, &children, &mut i);
                    let (redirects, words, _) = self.redirect(child, end)?;
                    command.redirects.extend(redirects);
                    command.words.extend(words);
                }
                _ => word_nodes.push(child),
            }
        }
        let mut words = self.words_from_nodes(&word_nodes)?;
        words.append(&mut command.words);
        command.words = words;
        Ok(command)
    }

    // ----- redirections -----------------------------------------------------------------------

    /// One redirect node → its redirections (a here-document node also carries those written
    /// after it), any command words tree-sitter attached to it, and a here-document's
    /// continuation. Its last word runs to `end` (see [`Self::joined_end`]).
    fn redirect(
        &mut self,
        node: Node<'a>,
        end: usize,
    ) -> Result<(Vec<Redirect>, Vec<Word>, Continuation), ParseError> {
        match node.kind() {
            "file_redirect" => {
                let (redirect, words) = self.file_redirect(node, end)?;
                Ok((vec![redirect], words, Continuation::default()))
            }
            "herestring_redirect" => Ok((
                vec![self.herestring(node, end)?],
                Vec::new(),
                Continuation::default(),
            )),
            "heredoc_redirect" => self.heredoc(node),
            _ => Err(self.unexpected(node)),
        }
    }

    fn descriptor(&self, node: Node) -> Result<Option<i32>, ParseError> {
        match node.child_by_field_name("descriptor") {
            None => Ok(None),
            Some(fd) => self
                .text(fd)
                .parse::<i32>()
                .map(Some)
                .map_err(|_| self.unsupported("named file descriptor {var}>", fd.start_byte())),
        }
    }

    fn file_redirect(
        &mut self,
        node: Node<'a>,
        end: usize,
    ) -> Result<(Redirect, Vec<Word>), ParseError> {
        let fd = self.descriptor(node)?;
        let mut op = None;
        let mut destinations = Vec::new();
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            let field = node.field_name_for_child(i as u32);
            if field == Some("destination") {
                destinations.push(child);
            } else if field == Some("descriptor") {
            } else if !child.is_named() {
                op = Some((child.kind(), child.start_byte()));
            } else {
                return Err(self.unexpected(child));
            }
        }
        let (op_text, op_at) = op.ok_or_else(|| self.unexpected(node))?;
        let (op, close) = match op_text {
            "<" => (RedirOp::Read, false),
            ">" => (RedirOp::Write, false),
            ">>" => (RedirOp::Append, false),
            ">|" if self.read_write_ops.contains(&op_at) => (RedirOp::ReadWrite, false),
            ">|" => (RedirOp::Clobber, false),
            "<&" => (RedirOp::DupRead, false),
            ">&" => (RedirOp::DupWrite, false),
            "&>" => (RedirOp::WriteBoth, false),
            "&>>" => (RedirOp::AppendBoth, false),
            "<&-" => (RedirOp::DupRead, true),
            ">&-" => (RedirOp::DupWrite, true),
            _ => return Err(self.unexpected(node)),
        };
        let mut spans: Vec<(usize, usize)> = destinations
            .iter()
            .map(|d| (d.start_byte(), d.end_byte()))
            .collect();
        if end > node.end_byte() {
            match spans.last_mut() {
                Some(last) => last.1 = end,
                None => return Err(self.syntax("unexpected text after `&-`", node.end_byte())),
            }
        }
        // tree-sitter-bash may end the target early after an expansion (`>a/$x/$y/b` came as
        // `a/$x/$` and a word `y/b`): destinations with nothing between are one word.
        let mut words = self.words_from_spans(&spans)?.into_iter();
        let target = if close {
            Word::literal(
                "-",
                Span {
                    start: op_at + 2,
                    end: op_at + 3,
                },
            )
        } else {
            words
                .next()
                .ok_or_else(|| self.syntax("redirection without a target", node.start_byte()))?
        };
        Ok((
            Redirect {
                fd,
                op,
                written: self.written(&target),
                target,
                span: Span {
                    start: node.start_byte(),
                    end: node.end_byte().max(end),
                },
            },
            words.collect(),
        ))
    }

    /// A word as it was written.
    pub(super) fn written(&self, word: &Word) -> String {
        let text = self.src.get(word.span.start..word.span.end);
        text.unwrap_or_default().to_string()
    }

    fn herestring(&mut self, node: Node<'a>, end: usize) -> Result<Redirect, ParseError> {
        let fd = self.descriptor(node)?;
        let mut cursor = node.walk();
        let operand: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() != "file_descriptor")
            .collect();
        let (first, last) = match (operand.first(), operand.last()) {
            (Some(f), Some(l)) => (*f, *l),
            _ => return Err(self.syntax("here-string without a word", node.start_byte())),
        };
        let target = self.word(first.start_byte(), last.end_byte().max(end))?;
        Ok(Redirect {
            fd,
            op: RedirOp::HereString,
            written: self.written(&target),
            target,
            span: Span {
                start: node.start_byte(),
                end: node.end_byte().max(end),
            },
        })
    }

    fn heredoc(
        &mut self,
        node: Node<'a>,
    ) -> Result<(Vec<Redirect>, Vec<Word>, Continuation), ParseError> {
        let fd = self.descriptor(node)?;
        let mut strip_tabs = false;
        let mut delimiter = None;
        let mut body = None;
        let mut words = Vec::new();
        let mut continuation = Continuation::default();
        let mut extra_redirects = Vec::new();
        let mut pending_op = None;
        let children = all_children(node);
        let mut i = 0;
        while i < children.len() {
            let child = children[i];
            let field = node.field_name_for_child(i as u32);
            i += 1;
            match (field, child.kind()) {
                (_, "<<") => {}
                (_, "<<-") => strip_tabs = true,
                (_, "heredoc_start") => delimiter = Some(child),
                (_, "heredoc_body") => body = Some(child),
                (_, "heredoc_end") => {}
                (Some("descriptor"), _) => {}
                (Some("redirect"), _) => {
                    let end = self.joined_end(node, &children, &mut i);
                    let (redirects, more_words, more) = self.redirect(child, end)?;
                    extra_redirects.extend(redirects);
                    words.extend(more_words);
                    continuation.merge(more);
                }
                (Some("argument"), _) => {
                    let end = self.joined_end(node, &children, &mut i);
                    words.push(self.word(child.start_byte(), end)?)
                }
                (Some("operator"), "&&") => pending_op = Some(Connector::And),
                (Some("operator"), "||") => pending_op = Some(Connector::Or),
                (Some("right"), _) => {
                    let op = pending_op.take().ok_or_else(|| self.unexpected(child))?;
                    let rest = self.statement(child)?;
                    continuation.and_or_rest.push((op, rest));
                }
                (_, "pipeline") => {
                    let rest = self.pipe_continuation(child)?;
                    continuation.pipe_rest = Some(rest);
                }
                _ => return Err(self.unexpected(child)),
            }
        }
        let delimiter = delimiter
            .ok_or_else(|| self.syntax("here-document without a delimiter", node.start_byte()))?;
        let quoted = self.text(delimiter).contains(['\'', '"', '\\']);
        let target = match body {
            None => Word {
                parts: Vec::new(),
                span: Self::span(node),
            },
            Some(body) => {
                let start = self.heredoc_body_start(body.start_byte());
                self.heredoc_body(start, body.end_byte(), quoted, strip_tabs)?
            }
        };
        let redirect = Redirect {
            fd,
            op: RedirOp::HereDoc,
            target,
            written: String::new(),
            span: Self::span(node),
        };
        // `cat <<EOF >out`: the other redirections follow the here-document in order.
        let mut redirects = vec![redirect];
        redirects.extend(extra_redirects);
        Ok((redirects, words, continuation))
    }

    /// Where a here-document body really starts: tree-sitter starts it after its first
    /// line's indentation, and after any blank lines before its first word.
    fn heredoc_body_start(&self, found: usize) -> usize {
        let bytes = self.src.as_bytes();
        let mut start = found;
        while start > 0 && matches!(bytes[start - 1], b' ' | b'\t') {
            start -= 1;
        }
        // A blank line before it is the body's (the line the `<<` is on holds the operator,
        // so it is never blank).
        while start > 0 && bytes[start - 1] == b'\n' {
            let line_start = bytes[..start - 1]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            let blank = bytes[line_start..start - 1]
                .iter()
                .all(|&b| matches!(b, b' ' | b'\t'));
            // After a line ending in `\`, a blank line continues the command, not the body.
            let continued = line_start >= 2 && bytes[line_start - 2] == b'\\';
            if !blank || continued {
                break;
            }
            start = line_start;
        }
        start
    }

    /// `| rest` inside a here-document node: the statements after the `|`.
    fn pipe_continuation(&mut self, node: Node<'a>) -> Result<AndOr, ParseError> {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        match children.as_slice() {
            [bar, rest @ ..] if bar.kind() == "|" && !rest.is_empty() => {
                let mut result: Option<AndOr> = None;
                for &child in rest {
                    if child.kind() == "|" || child.kind() == "comment" {
                        continue;
                    }
                    let stage = self.statement(child)?;
                    match &mut result {
                        None => result = Some(stage),
                        Some(acc) if acc.rest.is_empty() => {
                            acc.first.commands.extend(stage.first.commands);
                            acc.rest = stage.rest;
                        }
                        Some(_) => return Err(self.unexpected(child)),
                    }
                }
                result.ok_or_else(|| self.unexpected(node))
            }
            _ => Err(self.unexpected(node)),
        }
    }

    // ----- compound commands ------------------------------------------------------------------

    fn compound(&mut self, node: Node<'a>) -> Result<CompoundCommand, ParseError> {
        let kind = match node.kind() {
            "compound_statement" => self.group_or_arith(node)?,
            "subshell" => Compound::Subshell(self.statements(node)?),
            "if_statement" => self.if_statement(node)?,
            "while_statement" => self.while_statement(node)?,
            "for_statement" => self.for_statement(node)?,
            "c_style_for_statement" => self.arith_for(node)?,
            "case_statement" => self.case_statement(node)?,
            _ => return Err(self.unexpected(node)),
        };
        Ok(CompoundCommand {
            kind,
            redirects: Vec::new(),
            span: Self::span(node),
            line: self.line_of(node.start_byte()),
        })
    }

    fn group_or_arith(&mut self, node: Node<'a>) -> Result<Compound, ParseError> {
        let first = node.child(0).ok_or_else(|| self.unexpected(node))?;
        match first.kind() {
            "{" => Ok(Compound::Group(self.statements(node)?)),
            "((" => {
                let close = node
                    .child(node.child_count() - 1)
                    .filter(|c| c.kind() == "))")
                    .ok_or_else(|| self.unexpected(node))?;
                Ok(Compound::Arith(
                    self.arith_text(first.end_byte(), close.start_byte())?,
                ))
            }
            _ => Err(self.unexpected(node)),
        }
    }

    fn if_statement(&mut self, node: Node<'a>) -> Result<Compound, ParseError> {
        let mut branches = Vec::new();
        let mut otherwise = None;
        let children = all_children(node);
        let (condition, body) = self.split_at_keyword(&children, "then", node)?;
        let body_end = body
            .iter()
            .position(|c| matches!(c.kind(), "elif_clause" | "else_clause" | "fi"))
            .unwrap_or(body.len());
        branches.push((
            self.statements_of(condition)?,
            self.statements_of(&body[..body_end])?,
        ));
        for &clause in &body[body_end..] {
            match clause.kind() {
                "elif_clause" => {
                    let parts = all_children(clause);
                    let (cond, then) = self.split_at_keyword(&parts, "then", clause)?;
                    branches.push((self.statements_of(cond)?, self.statements_of(then)?));
                }
                "else_clause" => otherwise = Some(self.statements(clause)?),
                "fi" | "comment" => {}
                _ => return Err(self.unexpected(clause)),
            }
        }
        Ok(Compound::If {
            branches,
            otherwise,
        })
    }

    /// Splits children at a keyword token: (after the leading keyword, before it), (after it).
    fn split_at_keyword<'n>(
        &self,
        children: &'n [Node<'a>],
        keyword: &str,
        node: Node,
    ) -> Result<(&'n [Node<'a>], &'n [Node<'a>]), ParseError> {
        let at = children
            .iter()
            .position(|c| c.kind() == keyword)
            .ok_or_else(|| self.syntax(&format!("missing `{keyword}`"), node.start_byte()))?;
        Ok((&children[1..at], &children[at + 1..]))
    }

    fn while_statement(&mut self, node: Node<'a>) -> Result<Compound, ParseError> {
        let until = node.child(0).is_some_and(|c| c.kind() == "until");
        let body = node
            .child_by_field_name("body")
            .ok_or_else(|| self.unexpected(node))?;
        let children = all_children(node);
        let cond_nodes: Vec<Node> = children
            .iter()
            .copied()
            .skip(1)
            .take_while(|c| c.id() != body.id())
            .collect();
        Ok(Compound::While {
            cond: self.statements_of(&cond_nodes)?,
            body: self.do_group(body)?,
            until,
        })
    }

    fn do_group(&mut self, node: Node<'a>) -> Result<List, ParseError> {
        match node.kind() {
            "do_group" => self.statements(node),
            // `for x in a; { …; }` is accepted by bash and tree-sitter alike.
            "compound_statement" => self.statements(node),
            _ => Err(self.unexpected(node)),
        }
    }

    fn for_statement(&mut self, node: Node<'a>) -> Result<Compound, ParseError> {
        let keyword = node.child(0).ok_or_else(|| self.unexpected(node))?;
        if keyword.kind() == "select" {
            return Err(self.unsupported("select loop", node.start_byte()));
        }
        let var = node
            .child_by_field_name("variable")
            .ok_or_else(|| self.unexpected(node))?;
        let has_in = all_children(node).iter().any(|c| c.kind() == "in");
        let mut value_nodes = Vec::new();
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if node.field_name_for_child(i as u32) == Some("value") {
                value_nodes.push(child);
            }
        }
        let words = if has_in {
            Some(self.words_from_nodes(&value_nodes)?)
        } else {
            None
        };
        let body = node
            .child_by_field_name("body")
            .ok_or_else(|| self.unexpected(node))?;
        Ok(Compound::For {
            var: self.text(var).to_string(),
            words,
            body: self.do_group(body)?,
        })
    }

    fn arith_for(&mut self, node: Node<'a>) -> Result<Compound, ParseError> {
        let children = all_children(node);
        let open = children.iter().position(|c| c.kind() == "((");
        let close = children.iter().position(|c| c.kind() == "))");
        let (Some(open), Some(close)) = (open, close) else {
            return Err(self.unexpected(node));
        };
        // The three clauses are the text between `((`, the two `;` and `))`.
        let mut bounds = vec![children[open].end_byte()];
        for c in &children[open + 1..close] {
            if c.kind() == ";" {
                bounds.push(c.start_byte());
                bounds.push(c.end_byte());
            }
        }
        bounds.push(children[close].start_byte());
        if bounds.len() != 6 {
            return Err(self.syntax("`for ((…))` needs two `;`", node.start_byte()));
        }
        let mut clauses = Vec::new();
        for pair in bounds.chunks(2) {
            let text = &self.src[pair[0]..pair[1]];
            clauses.push(if text.trim().is_empty() {
                None
            } else {
                Some(self.arith_text(pair[0], pair[1])?)
            });
        }
        let body = node
            .child_by_field_name("body")
            .ok_or_else(|| self.unexpected(node))?;
        let step = clauses.pop().flatten();
        let cond = clauses.pop().flatten();
        let init = clauses.pop().flatten();
        Ok(Compound::ArithFor {
            init,
            cond,
            step,
            body: self.do_group(body)?,
        })
    }

    fn case_statement(&mut self, node: Node<'a>) -> Result<Compound, ParseError> {
        let subject = node
            .child_by_field_name("value")
            .ok_or_else(|| self.unexpected(node))?;
        let subject = self.word(subject.start_byte(), subject.end_byte())?;
        let mut items = Vec::new();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "case_item" {
                items.push(self.case_item(child)?);
            }
        }
        self.refuse_esac_argument(node)?;
        Ok(Compound::Case { subject, items })
    }

    /// `case a in a) echo 1 esac`: bash ends `case` only where `esac` can be a reserved word,
    /// and takes this one for `echo`'s argument (then misses the end, a syntax error);
    /// tree-sitter-bash ends the `case` there, and `echo 1` would run.
    fn refuse_esac_argument(&self, node: Node<'a>) -> Result<(), ParseError> {
        let children = all_children(node);
        let (Some(esac), Some(item)) = (
            children.iter().rev().find(|c| c.kind() == "esac"),
            children.iter().rev().find(|c| c.kind() == "case_item"),
        ) else {
            return Ok(());
        };
        let parts = all_children(*item);
        // The item's commands come after the `)` of its patterns.
        let Some(paren) = parts.iter().position(|c| c.kind() == ")") else {
            return Ok(());
        };
        let last = parts[paren + 1..]
            .iter()
            .rfind(|c| c.kind() != "comment")
            .filter(|c| c.is_named());
        let Some(last) = last.filter(|last| ends_in_words(**last)) else {
            return Ok(());
        };
        let between = &self.source[last.end_byte()..esac.start_byte()];
        if between.contains(['\n', ';', '&']) {
            return Ok(());
        }
        Err(self.syntax(
            "`esac` here is an argument of the command before it (end that command with `;;` or a new line)",
            esac.start_byte(),
        ))
    }

    fn case_item(&mut self, node: Node<'a>) -> Result<CaseItem, ParseError> {
        // Byte ranges of the patterns: tree-sitter-bash gives `*"?"` as two values, `*` and
        // `"?"`, one after the other; without a `|` between them they are one pattern.
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let mut body_nodes = Vec::new();
        let mut terminator = CaseTerminator::Break;
        let mut seen_paren = false;
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            let field = node.field_name_for_child(i as u32);
            match (field, child.kind()) {
                (Some("value"), _) => match ranges.last_mut() {
                    Some((_, end)) if *end == child.start_byte() => *end = child.end_byte(),
                    _ => ranges.push((child.start_byte(), child.end_byte())),
                },
                // The last item's terminator comes without its field.
                (Some("termination"), _) | (None, ";;") => terminator = CaseTerminator::Break,
                (Some("fallthrough") | None, ";&") => terminator = CaseTerminator::FallThrough,
                (Some("fallthrough"), _) | (None, ";;&") => {
                    return Err(self.unsupported("case terminator ;;&", child.start_byte()));
                }
                (_, ")") if !seen_paren => seen_paren = true,
                (_, "(") | (_, "|") => {}
                _ if seen_paren => body_nodes.push(child),
                _ => return Err(self.unexpected(child)),
            }
        }
        let patterns = ranges
            .into_iter()
            .map(|(start, end)| self.word(start, end))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CaseItem {
            patterns,
            body: self.statements_of(&body_nodes)?,
            terminator,
        })
    }

    fn function_definition(&mut self, node: Node<'a>) -> Result<FunctionDef, ParseError> {
        let name = node
            .child_by_field_name("name")
            .ok_or_else(|| self.unexpected(node))?;
        let body = node
            .child_by_field_name("body")
            .ok_or_else(|| self.unexpected(node))?;
        let mut body = match body.kind() {
            "test_command" => match self.test_command(body)? {
                Command::Compound(compound) => compound,
                _ => return Err(self.unsupported("function body `[ … ]`", body.start_byte())),
            },
            _ => self.compound(body)?,
        };
        let mut cursor = node.walk();
        for (i, child) in node.children(&mut cursor).enumerate() {
            if node.field_name_for_child(i as u32) == Some("redirect") {
                let (redirects, words, _) = self.redirect(child, child.end_byte())?;
                if !words.is_empty() {
                    return Err(self.unexpected(child));
                }
                body.redirects.extend(redirects);
            }
        }
        Ok(FunctionDef {
            name: self.text(name).to_string(),
            body,
            span: Self::span(node),
            source: self.text(node).to_string(),
        })
    }

    // ----- [ ] and [[ ]] ----------------------------------------------------------------------

    fn test_command(&mut self, node: Node<'a>) -> Result<Command, ParseError> {
        let children = all_children(node);
        let (open, close) = match (children.first(), children.last()) {
            (Some(o), Some(c)) => (*o, *c),
            _ => return Err(self.unexpected(node)),
        };
        let inner = &children[1..children.len().saturating_sub(1)];
        let mut tokens = Vec::new();
        for &child in inner {
            self.flatten_test(child, &mut tokens);
        }
        match (open.kind(), close.kind()) {
            ("[", "]") => {
                // `[ … ]` is the `[` builtin with ordinary words.
                let mut words = vec![Word::literal("[", Self::span(open))];
                words.extend(self.words_from_nodes(&tokens)?);
                words.push(Word::literal("]", Self::span(close)));
                Ok(Command::Simple(SimpleCommand {
                    words,
                    ..self.command_at(node)
                }))
            }
            ("[[", "]]") => {
                let mut parser = CondParser {
                    conv: self,
                    tokens: &tokens,
                    pos: 0,
                    depth: 0,
                };
                let expr = parser.or()?;
                if let Some(extra) = tokens.get(parser.pos) {
                    return Err(self.syntax("unexpected token in [[ ]]", extra.start_byte()));
                }
                Ok(Command::Compound(CompoundCommand {
                    kind: Compound::Cond(expr),
                    redirects: Vec::new(),
                    span: Self::span(node),
                    line: self.line_of(node.start_byte()),
                }))
            }
            _ => Err(self.unexpected(node)),
        }
    }

    /// The leaves of a test expression in source order: tree-sitter's precedence inside
    /// `[[ ]]` is wrong (`a || b =~ c` groups as `(a || b) =~ c`), so rsh re-parses the tokens.
    fn flatten_test(&self, node: Node<'a>, out: &mut Vec<Node<'a>>) {
        match node.kind() {
            "binary_expression" | "unary_expression" | "parenthesized_expression" => {
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    self.flatten_test(child, out);
                }
            }
            "comment" => {}
            _ => out.push(node),
        }
    }
}

impl Continuation {
    fn merge(&mut self, other: Continuation) {
        if other.pipe_rest.is_some() {
            self.pipe_rest = other.pipe_rest;
        }
        self.and_or_rest.extend(other.and_or_rest);
    }
}

/// Recursive-descent parser for the tokens of `[[ … ]]`.
struct CondParser<'c, 'a> {
    conv: &'c mut Converter<'a>,
    tokens: &'c [Node<'a>],
    pos: usize,
    depth: usize,
}

impl<'a> CondParser<'_, 'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.pos).map(|n| self.conv.text(*n))
    }

    fn peek_is_operator(&self, text: &str) -> bool {
        self.tokens
            .get(self.pos)
            .is_some_and(|n| !n.is_named() && self.conv.text(*n) == text)
    }

    fn end_offset(&self) -> usize {
        self.tokens.last().map_or(0, |n| n.end_byte())
    }

    fn or(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.and()?;
        while self.peek_is_operator("||") {
            self.pos += 1;
            let right = self.and()?;
            left = CondExpr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.not()?;
        while self.peek_is_operator("&&") {
            self.pos += 1;
            let right = self.not()?;
            left = CondExpr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<CondExpr, ParseError> {
        if self.peek_is_operator("!") && self.pos + 1 < self.tokens.len() {
            self.pos += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self
                    .conv
                    .syntax("[[ ]] nested too deeply", self.end_offset()));
            }
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(CondExpr::Not(Box::new(inner)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<CondExpr, ParseError> {
        let Some(&token) = self.tokens.get(self.pos) else {
            return Err(self
                .conv
                .syntax("expression expected in [[ ]]", self.end_offset()));
        };
        if !token.is_named() && self.conv.text(token) == "(" {
            self.pos += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self
                    .conv
                    .syntax("[[ ]] nested too deeply", token.start_byte()));
            }
            let inner = self.or()?;
            self.depth -= 1;
            if !self.peek_is_operator(")") {
                return Err(self.conv.syntax("missing `)` in [[ ]]", token.start_byte()));
            }
            self.pos += 1;
            return Ok(inner);
        }
        let text = self.conv.text(token);
        let next_is_operand = self
            .tokens
            .get(self.pos + 1)
            .is_some_and(|n| !is_cond_connector(self.conv.text(*n), n.is_named()));
        if is_unary_test(text) && next_is_operand {
            self.pos += 1;
            let operand = self.operand()?;
            return Ok(CondExpr::Unary(text.to_string(), operand));
        }
        let left = self.operand()?;
        if let Some(op) = self.peek().and_then(binary_cond_op) {
            self.pos += 1;
            let right = self.operand()?;
            return Ok(CondExpr::Binary(left, op, right));
        }
        Ok(CondExpr::Word(left))
    }

    fn operand(&mut self) -> Result<Word, ParseError> {
        let Some(&token) = self.tokens.get(self.pos) else {
            return Err(self
                .conv
                .syntax("operand expected in [[ ]]", self.end_offset()));
        };
        self.pos += 1;
        let mut end = token.end_byte();
        // Adjacent leaves form one word (`$a"b"`).
        while let Some(next) = self.tokens.get(self.pos) {
            if !self.conv.adjacent(end, next.start_byte()) {
                break;
            }
            end = next.end_byte();
            self.pos += 1;
        }
        self.conv.word(token.start_byte(), end)
    }
}

fn is_cond_connector(text: &str, named: bool) -> bool {
    !named && matches!(text, "&&" | "||" | ")")
}

fn is_unary_test(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 2 && bytes[0] == b'-' && b"abcdefghknoprstuvwxzGLNOS".contains(&bytes[1])
}

fn binary_cond_op(text: &str) -> Option<CondOp> {
    match text {
        "==" | "=" => Some(CondOp::Match),
        "!=" => Some(CondOp::NoMatch),
        "=~" => Some(CondOp::Regex),
        "<" | ">" | "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" | "-nt" | "-ot" | "-ef" => {
            Some(CondOp::Other(text.to_string()))
        }
        _ => None,
    }
}

/// Reserved words that can never name a command.
fn is_reserved_word(text: &str) -> bool {
    matches!(
        text,
        "{" | "}" | "then" | "else" | "elif" | "fi" | "do" | "done" | "esac"
    )
}

/// Words that bash parses as keywords but rsh refuses for now.
fn refused_keyword(text: &str) -> Option<&'static str> {
    match text {
        "coproc" => Some("coproc"),
        "select" => Some("select loop"),
        _ => None,
    }
}

/// The command a statement starts with, through pipelines, lists, negations and redirections.
fn leftmost_command(node: Node) -> Option<Node> {
    let mut node = node;
    loop {
        match node.kind() {
            "command" => return Some(node),
            "redirected_statement" => node = node.child_by_field_name("body")?,
            "pipeline" | "list" | "negated_command" => {
                let mut cursor = node.walk();
                node = node
                    .named_children(&mut cursor)
                    .find(|c| c.kind() != "comment")?;
            }
            _ => return None,
        }
    }
}

/// Whether a statement ends in words of a simple command or of a redirection, after which a
/// reserved word is only a word; not when it ends a compound command (`)`, `}`, `fi`, `]]`).
fn ends_in_words(node: Node) -> bool {
    let mut node = node;
    loop {
        match node.kind() {
            "pipeline" | "list" | "negated_command" => {
                let mut cursor = node.walk();
                let last = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .last();
                match last {
                    Some(last) => node = last,
                    None => return true,
                }
            }
            "subshell"
            | "compound_statement"
            | "if_statement"
            | "while_statement"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "function_definition" => return false,
            "test_command" => return node.child(0).is_none_or(|open| open.kind() != "[["),
            _ => return true,
        }
    }
}

/// `NAME=` or `NAME+=` at the start of `text`, read as bash reads it, with its line
/// continuations gone (`x\<newline>=1`, which tree-sitter-bash takes for a command name): the
/// name, whether it appends, and where in `text` the value starts.
fn assignment_prefix(text: &str) -> Option<(String, bool, usize)> {
    let bytes = text.as_bytes();
    let past_continuations = |mut i: usize| {
        while bytes[i..].starts_with(b"\\\n") {
            i += 2;
        }
        i
    };
    let mut name = String::new();
    let mut i = past_continuations(0);
    while let Some(&c) = bytes
        .get(i)
        .filter(|&&c| c == b'_' || c.is_ascii_alphanumeric())
    {
        name.push(char::from(c));
        i = past_continuations(i + 1);
    }
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let append = bytes.get(i) == Some(&b'+');
    if append {
        i = past_continuations(i + 1);
    }
    (bytes.get(i) == Some(&b'=')).then_some((name, append, i + 1))
}

fn all_children<'a>(node: Node<'a>) -> Vec<Node<'a>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// Where a command ends, without the redirections after a simple command's words (as
/// tree-sitter's spans have it).
fn command_end(command: &Command) -> usize {
    match command {
        Command::Simple(simple) => simple.span.end,
        Command::Compound(compound) => compound.span.end,
        Command::FunctionDef(def) => def.span.end,
    }
}

/// Where a pipeline starts (its first command).
fn pipeline_start(pipeline: &Pipeline) -> Option<usize> {
    Some(match pipeline.commands.first()? {
        Command::Simple(simple) => simple.span.start,
        Command::Compound(compound) => compound.span.start,
        Command::FunctionDef(def) => def.span.start,
    })
}

/// `time` alone (or `time -p`), which stays a word for tree-sitter: the keyword of an empty
/// pipeline.
fn timed_alone(pipeline: &mut Pipeline) {
    let Some(Command::Simple(first)) = pipeline.commands.first_mut() else {
        return;
    };
    let word = |i: usize| first.words.get(i).and_then(Word::as_plain_literal);
    let posix = match (word(0), word(1), first.words.len()) {
        (Some("time"), _, 1) => false,
        (Some("time"), Some("-p" | "--"), 2) => true,
        _ => return,
    };
    if !first.assignments.is_empty() {
        return;
    }
    first.words.clear();
    pipeline.timed = Some(if posix {
        TimeFormat::Posix
    } else {
        TimeFormat::Default
    });
}

fn single(command: Command, span: Span) -> AndOr {
    AndOr {
        first: Pipeline {
            negated: false,
            timed: None,
            commands: vec![command],
            span,
        },
        rest: Vec::new(),
    }
}

/// tree-sitter reads `exec 0<&-` as an argument `0` and a redirection without descriptor:
/// digits written right against the operator are its descriptor.
fn reclaim_descriptor(command: &mut SimpleCommand, redirect: &mut Redirect) {
    if redirect.fd.is_some() {
        return;
    }
    let Some(last) = command.words.last() else {
        return;
    };
    let digits = last
        .as_plain_literal()
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()));
    if let Some(fd) = digits.and_then(|t| t.parse::<i32>().ok())
        && last.span.end == redirect.span.start
    {
        redirect.fd = Some(fd);
        command.words.pop();
    }
}

/// The command a trailing redirection applies to: the last command of the last pipeline.
fn last_command(and_or: &mut AndOr) -> Option<&mut Command> {
    let pipeline = match and_or.rest.last_mut() {
        Some((_, pipeline)) => pipeline,
        None => &mut and_or.first,
    };
    pipeline.commands.last_mut()
}

/// False when the command cannot take a redirection (a function definition: tree-sitter puts
/// `f() { …; } > out` on the definition node itself, so this is not reached for that).
fn push_redirect(command: &mut Command, redirect: Redirect) -> bool {
    match command {
        Command::Simple(simple) => simple.redirects.push(redirect),
        Command::Compound(compound) => compound.redirects.push(redirect),
        Command::FunctionDef(_) => return false,
    }
    true
}

/// `|&` as the redirection bash makes of it: `2>&1` on the command before the pipe.
pub(super) fn stderr_to_stdout(span: Span) -> Redirect {
    Redirect {
        fd: Some(2),
        op: RedirOp::DupWrite,
        target: Word::literal("1", span),
        written: "1".to_string(),
        span,
    }
}

fn snippet(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out.replace('\n', "\\n")
}

/// The first ERROR or MISSING node, as a syntax error with its position; None when every
/// error is one rsh can ignore (see `inside_closed_arithmetic`).
pub(super) fn first_syntax_error(tree: &Tree, source: &str) -> Option<ParseError> {
    let mut stack = vec![tree.root_node()];
    let mut best: Option<Node> = None;
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            if !inside_closed_arithmetic(node)
                && !missing_command_name(node)
                && best.is_none_or(|b| node.start_byte() < b.start_byte())
            {
                best = Some(node);
            }
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    let node = best?;
    // tree-sitter often wraps the complete statements before the mistake in the ERROR node
    // too; point at what follows them.
    let at = if node.is_error() {
        first_broken_child(node).unwrap_or(node)
    } else {
        node
    };
    let (line, column) = line_column(source.as_bytes(), at.start_byte());
    let message = if at.is_missing() {
        format!("missing `{}`", at.kind())
    } else {
        let text = &source[at.start_byte()..at.end_byte()];
        let token = text.split_whitespace().next().unwrap_or("");
        match token {
            "" => "unexpected end of input".to_string(),
            "if" | "while" | "until" | "for" | "case" | "select" | "{" | "(" | "[[" | "((" => {
                format!("unfinished or malformed `{token}`")
            }
            _ => format!("unexpected `{}`", snippet(token)),
        }
    };
    Some(ParseError::Syntax {
        line,
        column,
        message,
    })
}

/// `a=1 >f` is valid (an assignment and a redirection), but tree-sitter-bash expects a command
/// name after a redirection and reports it MISSING. Tolerated when the command has an
/// assignment or a redirection of its own; the converter then leaves the name out.
fn missing_command_name(node: Node) -> bool {
    let Some(name) = node.parent().filter(|p| p.kind() == "command_name") else {
        return false;
    };
    let Some(command) = name.parent().filter(|p| p.kind() == "command") else {
        return false;
    };
    let mut cursor = command.walk();
    let children: Vec<Node> = command.children(&mut cursor).collect();
    node.is_missing()
        && node.kind() == "word"
        && children
            .iter()
            .any(|c| matches!(c.kind(), "variable_assignment" | "file_redirect"))
        && children.iter().all(|c| {
            c.id() == name.id() || matches!(c.kind(), "variable_assignment" | "file_redirect")
        })
}

/// The first child of an ERROR node that is not a complete statement or a separator.
fn first_broken_child(error: Node) -> Option<Node> {
    let mut cursor = error.walk();
    let children: Vec<Node> = error.children(&mut cursor).collect();
    children.into_iter().find(|child| {
        let complete_statement = child.is_named() && !child.has_error() && child.kind() != "ERROR";
        let separator = !child.is_named() && matches!(child.kind(), ";" | "&" | "\n" | "&&" | "||");
        !(complete_statement || separator || child.kind() == "comment")
    })
}

/// tree-sitter's arithmetic grammar rejects much that bash accepts (`${base}#a`, `0x$n`,
/// `f$x`), but rsh never uses that part of the tree: it evaluates the text of `$((…))`,
/// `((…))` and `for ((…))` itself. An error inside such a construct whose closing token is
/// really there is therefore not a syntax error of the line.
fn inside_closed_arithmetic(node: Node) -> bool {
    if node.is_missing() {
        return false;
    }
    let mut current = node.parent();
    while let Some(parent) = current {
        let closed = |tokens: &[&str]| {
            parent
                .child(parent.child_count().saturating_sub(1))
                .is_some_and(|last| !last.is_missing() && tokens.contains(&last.kind()))
        };
        match parent.kind() {
            "arithmetic_expansion" => return closed(&["))", "]"]),
            "compound_statement" if parent.child(0).is_some_and(|c| c.kind() == "((") => {
                return closed(&["))"]);
            }
            "c_style_for_statement" => {
                let mut cursor = parent.walk();
                return parent
                    .children(&mut cursor)
                    .any(|c| c.kind() == "))" && !c.is_missing());
            }
            _ => {}
        }
        current = parent.parent();
    }
    false
}
