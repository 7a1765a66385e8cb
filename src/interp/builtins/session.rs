//! Builtins for a person at the shell: `help` (what the policy lets them run), `history` and
//! `logout`.

use super::{Flow, Outcome, Shell, quote_command};
use crate::parse;
use crate::policy::{Policy, Verdict};

/// `help`: the commands the policy names, by what it decides, with its descriptions.
/// `help COMMAND [ARGS]`: what it decides about that command line, as `rsh --explain`.
pub fn help(shell: &mut Shell, argv: &[String]) -> Outcome {
    let text = if argv.len() == 1 {
        overview(shell.policy())
    } else {
        let line = quote_command(&argv[1..]);
        match parse::parse(&line) {
            Ok(program) => {
                let segments = shell.explain(&program);
                let mut text = descriptions(shell.policy(), &argv[1]);
                text.push_str(&crate::interp::explain::render_text(&segments));
                text
            }
            Err(err) => {
                shell.builtin_error("help", &err.to_string());
                return Ok(2);
            }
        }
    };
    Ok(shell.write_out("help", text.as_bytes()))
}

/// One entry of the overview: a command the policy names.
struct Named<'a> {
    name: &'a str,
    /// None: it depends on the arguments.
    verdict: Option<Verdict>,
    description: Option<&'a str>,
}

fn named(policy: &Policy) -> Vec<Named<'_>> {
    let mut out: Vec<Named> = Vec::new();
    let exists = |command: &crate::policy::CommandRef| {
        !command.targets.is_empty() || super::lookup(&command.name).is_some()
    };
    for listed in policy.listed().iter().filter(|l| exists(&l.command)) {
        merge(&mut out, &listed.command.name, Some(listed.verdict), None);
    }
    for table in policy.tables().iter().filter(|t| exists(&t.command)) {
        // A default is the verdict only where no pattern can say otherwise.
        let opens = table.patterns.iter().any(|p| p.verdict != Verdict::Deny);
        let verdict = match table.default {
            Some((Verdict::Deny, _)) if !opens => Some(Verdict::Deny),
            Some((verdict, _)) if table.patterns.is_empty() => Some(verdict),
            _ => None,
        };
        let description = table.description.as_deref();
        merge(&mut out, &table.command.name, verdict, description);
    }
    out.sort_by(|a, b| a.name.cmp(b.name));
    out
}

/// Adds `name`, or combines with its earlier entry: the stronger verdict stands, so `help`
/// never shows as allowed what another entry refuses.
fn merge<'a>(
    out: &mut Vec<Named<'a>>,
    name: &'a str,
    verdict: Option<Verdict>,
    description: Option<&'a str>,
) {
    match out.iter_mut().find(|n| n.name == name) {
        Some(entry) => {
            entry.verdict = match (entry.verdict, verdict) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (Some(Verdict::Deny), None) | (None, Some(Verdict::Deny)) => Some(Verdict::Deny),
                _ => None,
            };
            entry.description = entry.description.or(description);
        }
        None => out.push(Named {
            name,
            verdict,
            description,
        }),
    }
}

fn overview(policy: &Policy) -> String {
    let entries = named(policy);
    let mut text = format!(
        "rsh: a restricted shell. Every command is checked against the policy ({}).\n",
        policy.origin()
    );
    match policy.mode() {
        crate::policy::Mode::Readonly => text.push_str(
            "shell.mode = \"readonly\": only commands that only read run, whatever the lists say.\n",
        ),
        crate::policy::Mode::Audit => text.push_str(
            "shell.mode = \"audit\": everything runs; what would be refused is reported.\n",
        ),
        crate::policy::Mode::Enforce => {}
    }
    for (title, verdict) in [
        ("You may run", Some(Verdict::Allow)),
        ("These ask for confirmation first", Some(Verdict::Ask)),
        (
            "These depend on their arguments (help NAME ARGS... tells)",
            None,
        ),
        ("Refused", Some(Verdict::Deny)),
    ] {
        let group: Vec<&Named> = entries.iter().filter(|e| e.verdict == verdict).collect();
        if !group.is_empty() {
            text.push_str(&format!("\n{title}:\n"));
            text.push_str(&columns(&group));
        }
    }
    let unknown = match policy.unknown() {
        Verdict::Allow => "run",
        Verdict::Ask => "ask for confirmation",
        Verdict::Deny => "are refused",
    };
    text.push_str(&format!(
        "\nCommands not named here {unknown} (shell.unknown = \"{}\").\n",
        policy.unknown()
    ));
    let builtins: Vec<&str> = super::names().filter(|n| !super::is_refused(n)).collect();
    text.push_str("\nShell builtins:\n");
    text.push_str(&wrap(&builtins));
    text.push_str(
        "\n`help COMMAND [ARGS...]` says what the policy decides about a command line, and why.\n",
    );
    text
}

/// Names with a description on a line each; the others wrapped together.
fn columns(group: &[&Named]) -> String {
    let mut text = String::new();
    let width = group
        .iter()
        .map(|n| n.name.len())
        .max()
        .unwrap_or(0)
        .min(20);
    for entry in group {
        if let Some(description) = entry.description {
            text.push_str(&format!("  {:width$}  {description}\n", entry.name));
        }
    }
    let bare: Vec<&str> = group
        .iter()
        .filter(|e| e.description.is_none())
        .map(|e| e.name)
        .collect();
    text.push_str(&wrap(&bare));
    text
}

/// Words on lines of at most 78 columns, indented by two.
fn wrap(words: &[&str]) -> String {
    let mut text = String::new();
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + 1 + word.len() > 76 {
            text.push_str(&format!("  {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        text.push_str(&format!("  {line}\n"));
    }
    text
}

/// The policy's description of `name`, if it has one, as a first line.
fn descriptions(policy: &Policy, name: &str) -> String {
    named(policy)
        .iter()
        .find(|n| n.name == name)
        .and_then(|n| n.description)
        .map(|d| format!("{name}: {d}\n"))
        .unwrap_or_default()
}

/// `history [N]`, `history -c`.
pub fn history(shell: &mut Shell, argv: &[String]) -> Outcome {
    let count = match argv.get(1).map(String::as_str) {
        None => None,
        Some("-c") if argv.len() == 2 => {
            shell.history.clear();
            return Ok(0);
        }
        Some(n) if argv.len() == 2 && n.parse::<usize>().is_ok() => n.parse().ok(),
        Some(_) => {
            shell.builtin_error("history", "usage: history [N] | history -c");
            return Ok(2);
        }
    };
    let skip = count.map_or(0, |n| shell.history.len().saturating_sub(n));
    let mut text = String::new();
    for (number, entry) in shell.history.numbered().skip(skip) {
        text.push_str(&format!("{number:5}  {entry}\n"));
    }
    Ok(shell.write_out("history", text.as_bytes()))
}

/// `logout`: `exit` for a login shell.
pub fn logout(shell: &mut Shell, argv: &[String]) -> Outcome {
    if !shell.is_login() {
        shell.builtin_error("logout", "not login shell: use `exit'");
        return Ok(1);
    }
    if shell.warn_of_kept_jobs("logout") {
        return Ok(1);
    }
    match argv.get(1).map(|n| n.parse::<i32>()) {
        None => Err(Flow::Exit(shell.last_status())),
        Some(Ok(n)) => Err(Flow::Exit(n & 0xff)),
        Some(Err(_)) => {
            shell.builtin_error("logout", &format!("{}: numeric argument required", argv[1]));
            Err(Flow::Exit(2))
        }
    }
}
