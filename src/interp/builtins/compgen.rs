//! `compgen`, in the listing forms that shell snapshots use (`compgen -e` to enumerate the
//! exported variables, `-v`, `-a`, `-b`, `-A function`): names of what the shell holds, sorted,
//! one per line, optionally only those starting with a word. Completing commands, files or
//! word lists (`-c`, `-f`, `-W`, …) is refused: it belongs to the interactive line editor.

use std::collections::BTreeSet;

use super::super::{Outcome, Shell};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Alias,
    Builtin,
    Export,
    Function,
    Variable,
}

fn kind_of_letter(letter: char) -> Option<Kind> {
    match letter {
        'a' => Some(Kind::Alias),
        'b' => Some(Kind::Builtin),
        'e' => Some(Kind::Export),
        'v' => Some(Kind::Variable),
        _ => None,
    }
}

fn kind_of_action(action: &str) -> Option<Kind> {
    match action {
        "alias" => Some(Kind::Alias),
        "builtin" => Some(Kind::Builtin),
        "export" => Some(Kind::Export),
        "function" => Some(Kind::Function),
        "variable" => Some(Kind::Variable),
        _ => None,
    }
}

/// The kinds asked for and the word to match, or the message for what rsh does not offer.
fn parse(argv: &[String]) -> Result<(Vec<Kind>, Option<&str>), String> {
    let mut kinds = Vec::new();
    let mut i = 1;
    while let Some(arg) = argv.get(i) {
        match arg.as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-A" => {
                let action = argv.get(i + 1).ok_or("-A: option requires an argument")?;
                let kind = kind_of_action(action)
                    .ok_or_else(|| format!("-A {action}: not supported by rsh"))?;
                kinds.push(kind);
                i += 2;
                continue;
            }
            flags if flags.len() > 1 && flags.starts_with('-') => {
                for letter in flags[1..].chars() {
                    let kind = kind_of_letter(letter)
                        .ok_or_else(|| format!("-{letter}: not supported by rsh"))?;
                    kinds.push(kind);
                }
            }
            _ => break,
        }
        i += 1;
    }
    Ok((kinds, argv.get(i).map(String::as_str)))
}

pub fn compgen(shell: &mut Shell, argv: &[String]) -> Outcome {
    let (kinds, word) = match parse(argv) {
        Ok(parsed) => parsed,
        Err(message) => {
            shell.builtin_error("compgen", &message);
            return Ok(2);
        }
    };
    let mut names: BTreeSet<String> = BTreeSet::new();
    for kind in kinds {
        names.extend(names_of(shell, kind));
    }
    let word = word.unwrap_or("");
    let listing: String = names
        .iter()
        .filter(|name| name.starts_with(word))
        .map(|name| format!("{name}\n"))
        .collect();
    if listing.is_empty() {
        return Ok(1);
    }
    Ok(shell.write_out("compgen", listing.as_bytes()))
}

fn names_of(shell: &mut Shell, kind: Kind) -> Vec<String> {
    match kind {
        Kind::Alias => shell.aliases().keys().cloned().collect(),
        Kind::Builtin => super::names().map(str::to_string).collect(),
        Kind::Function => shell.functions.keys().cloned().collect(),
        Kind::Export | Kind::Variable => shell
            .vars
            .visible()
            .into_iter()
            .filter(|(_, var)| var.value.is_some() && (kind == Kind::Variable || var.exported))
            .map(|(name, _)| name.to_string())
            .collect(),
    }
}
