use super::*;

#[test]
fn dump() {
    let text = std::env::var("DUMP").unwrap_or_default();
    match parse(&text) {
        Ok(p) => println!(
            "{}\nline_starts={:?} lines={:?}",
            show_program(&p),
            p.line_starts,
            lines(&p)
        ),
        Err(e) => println!("ERR {e:?} / {e}"),
    }
    println!("needs_more_input={}", needs_more_input(&text));
}

fn lines(p: &Program) -> Vec<usize> {
    p.body
        .iter()
        .flat_map(|ao| std::iter::once(&ao.first).chain(ao.rest.iter().map(|(_, p)| p)))
        .flat_map(|p| p.commands.iter())
        .map(|c| match c {
            Command::Simple(s) => s.line,
            Command::Compound(c) => c.line,
            Command::FunctionDef(f) => f.body.line,
        })
        .collect()
}

fn show_program(program: &Program) -> String {
    show_list(&program.body)
}

fn show_list(list: &List) -> String {
    list.iter().map(show_and_or).collect::<Vec<_>>().join("; ")
}

fn show_and_or(and_or: &AndOr) -> String {
    let mut out = show_pipeline(&and_or.first);
    for (connector, pipeline) in &and_or.rest {
        out.push_str(match connector {
            Connector::And => " && ",
            Connector::Or => " || ",
        });
        out.push_str(&show_pipeline(pipeline));
    }
    out
}

fn show_pipeline(pipeline: &Pipeline) -> String {
    let commands: Vec<String> = pipeline.commands.iter().map(show_command).collect();
    let body = commands.join(" | ");
    if pipeline.negated {
        format!("! {body}")
    } else {
        body
    }
}

fn show_command(command: &Command) -> String {
    match command {
        Command::Simple(simple) => {
            let mut items = Vec::new();
            for a in &simple.assignments {
                items.push(format!(
                    "{}{}{}",
                    a.name,
                    if a.append { "+=" } else { "=" },
                    show_word(&a.value)
                ));
            }
            items.extend(simple.words.iter().map(show_word));
            items.extend(simple.redirects.iter().map(show_redirect));
            items.join(" ")
        }
        Command::Compound(compound) => show_compound(compound),
        Command::FunctionDef(def) => format!("{}() {}", def.name, show_compound(&def.body)),
    }
}

fn show_compound(compound: &CompoundCommand) -> String {
    let mut out = match &compound.kind {
        Compound::Group(list) => format!("{{ {}; }}", show_list(list)),
        Compound::Subshell(list) => format!("( {} )", show_list(list)),
        Compound::If {
            branches,
            otherwise,
        } => {
            let mut out = String::new();
            for (i, (cond, body)) in branches.iter().enumerate() {
                out.push_str(if i == 0 { "if " } else { "; elif " });
                out.push_str(&format!("{}; then {}", show_list(cond), show_list(body)));
            }
            if let Some(otherwise) = otherwise {
                out.push_str(&format!("; else {}", show_list(otherwise)));
            }
            out.push_str("; fi");
            out
        }
        Compound::For { var, words, body } => match words {
            Some(words) => format!(
                "for {var} in {}; do {}; done",
                words.iter().map(show_word).collect::<Vec<_>>().join(" "),
                show_list(body)
            ),
            None => format!("for {var}; do {}; done", show_list(body)),
        },
        Compound::ArithFor {
            init,
            cond,
            step,
            body,
        } => {
            let part = |w: &Option<Word>| w.as_ref().map(show_word).unwrap_or_default();
            format!(
                "for (({}; {}; {})); do {}; done",
                part(init),
                part(cond),
                part(step),
                show_list(body)
            )
        }
        Compound::While { cond, body, until } => format!(
            "{} {}; do {}; done",
            if *until { "until" } else { "while" },
            show_list(cond),
            show_list(body)
        ),
        Compound::Case { subject, items } => {
            let mut out = format!("case {} in", show_word(subject));
            for item in items {
                out.push_str(&format!(
                    " {}) {} {}",
                    item.patterns
                        .iter()
                        .map(show_word)
                        .collect::<Vec<_>>()
                        .join("|"),
                    show_list(&item.body),
                    match item.terminator {
                        CaseTerminator::Break => ";;",
                        CaseTerminator::FallThrough => ";&",
                    }
                ));
            }
            out.push_str(" esac");
            out
        }
        Compound::Cond(expr) => format!("[[ {} ]]", show_cond(expr)),
        Compound::Arith(word) => format!("(({}))", show_word(word)),
    };
    for redirect in &compound.redirects {
        out.push(' ');
        out.push_str(&show_redirect(redirect));
    }
    out
}

fn show_cond(expr: &CondExpr) -> String {
    match expr {
        CondExpr::Word(w) => show_word(w),
        CondExpr::Unary(op, w) => format!("{op} {}", show_word(w)),
        CondExpr::Binary(l, op, r) => {
            let op = match op {
                CondOp::Match => "==",
                CondOp::NoMatch => "!=",
                CondOp::Regex => "=~",
                CondOp::Other(op) => op,
            };
            format!("{} {op} {}", show_word(l), show_word(r))
        }
        CondExpr::Not(inner) => format!("!({})", show_cond(inner)),
        CondExpr::And(l, r) => format!("({} && {})", show_cond(l), show_cond(r)),
        CondExpr::Or(l, r) => format!("({} || {})", show_cond(l), show_cond(r)),
    }
}

fn show_redirect(redirect: &Redirect) -> String {
    let op = match redirect.op {
        RedirOp::Read => "<",
        RedirOp::Write => ">",
        RedirOp::Append => ">>",
        RedirOp::Clobber => ">|",
        RedirOp::ReadWrite => "<>",
        RedirOp::DupRead => "<&",
        RedirOp::DupWrite => ">&",
        RedirOp::WriteBoth => "&>",
        RedirOp::AppendBoth => "&>>",
        RedirOp::HereDoc => "<<",
        RedirOp::HereString => "<<<",
    };
    let fd = redirect.fd.map(|fd| fd.to_string()).unwrap_or_default();
    format!("{fd}{op}{}", show_word(&redirect.target))
}

fn show_word(word: &Word) -> String {
    show_parts(&word.parts)
}

fn show_parts(parts: &[WordPart]) -> String {
    parts.iter().map(show_part).collect()
}

fn show_part(part: &WordPart) -> String {
    match part {
        WordPart::Literal(s) => s.clone(),
        WordPart::Quoted(s) => format!("'{s}'"),
        WordPart::DoubleQuoted(parts) => format!("\"{}\"", show_parts(parts)),
        WordPart::Param(p) => show_param(p),
        WordPart::CommandSub(program) => format!("$({})", show_program(program)),
        WordPart::Arith(word) => format!("$(({}))", show_word(word)),
    }
}

fn show_param(p: &ParamExp) -> String {
    let name = match &p.param {
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
    };
    let bang = if p.indirect { "!" } else { "" };
    let op = match &p.op {
        ParamOp::Plain => String::new(),
        ParamOp::Length => return format!("${{#{name}}}"),
        ParamOp::Test { colon, kind, word } => {
            let k = match kind {
                TestKind::Default => "-",
                TestKind::Assign => "=",
                TestKind::Alternate => "+",
                TestKind::Error => "?",
            };
            format!("{}{k}{}", if *colon { ":" } else { "" }, show_word(word))
        }
        ParamOp::Strip {
            suffix,
            longest,
            pattern,
        } => {
            let c = if *suffix { "%" } else { "#" };
            format!(
                "{}{}",
                if *longest { c.repeat(2) } else { c.to_string() },
                show_word(pattern)
            )
        }
        ParamOp::Replace {
            mode,
            pattern,
            replacement,
        } => {
            let m = match mode {
                ReplaceMode::First => "/",
                ReplaceMode::All => "//",
                ReplaceMode::Prefix => "/#",
                ReplaceMode::Suffix => "/%",
            };
            format!("{m}{}/{}", show_word(pattern), show_word(replacement))
        }
        ParamOp::Slice { offset, length } => match length {
            Some(l) => format!(":{}:{}", show_word(offset), show_word(l)),
            None => format!(":{}", show_word(offset)),
        },
        ParamOp::Case {
            upper,
            all,
            pattern,
        } => {
            let c = if *upper { "^" } else { "," };
            format!(
                "{}{}",
                if *all { c.repeat(2) } else { c.to_string() },
                show_word(pattern)
            )
        }
    };
    format!("${{{bang}{name}{op}}}")
}
