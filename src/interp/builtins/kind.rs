//! What a name is and how to reach it: `type`, `command`, `builtin`, `hash`, `alias`,
//! `unalias`. `command` and `builtin` run their command through the same decision as any
//! other.

use super::super::simple::{Lookup, Redirects, Target};
use super::{Outcome, Shell};

/// What `type` reports for a name, in bash's order: alias, keyword, function, builtin, file.
enum Kind {
    Alias(String),
    Keyword,
    Function(String),
    Builtin,
    File(String),
}

fn kinds(shell: &mut Shell, name: &str, all: bool, files_only: bool) -> Vec<Kind> {
    let mut found = Vec::new();
    if !files_only {
        if let Some(value) = shell.aliases().get(name) {
            found.push(Kind::Alias(value.clone()));
        }
        if super::is_keyword(name) {
            found.push(Kind::Keyword);
        }
        if let Some(def) = shell.function(name) {
            found.push(Kind::Function(def.source.clone()));
        }
        if super::lookup(name).is_some() {
            found.push(Kind::Builtin);
        }
    }
    if (found.is_empty() || all) && !name.is_empty() {
        if all && !name.contains('/') {
            for path in shell.all_executables(name) {
                found.push(Kind::File(path.display().to_string()));
            }
        } else if let Ok(resolved) = shell.resolve_external(name) {
            found.push(Kind::File(resolved.path.display().to_string()));
        }
    }
    if !all {
        found.truncate(1);
    }
    found
}

pub fn type_(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut terse = false;
    let mut path_only = false;
    let mut all = false;
    let mut force_path = false;
    let mut skip_functions = false;
    let mut names = Vec::new();
    for arg in &argv[1..] {
        match arg.as_str() {
            "-t" => terse = true,
            "-p" => path_only = true,
            "-P" => {
                path_only = true;
                force_path = true;
            }
            "-a" => all = true,
            "-f" => skip_functions = true,
            s if s.starts_with('-') && s.len() > 1 => {
                shell.builtin_error("type", &format!("{s}: invalid option"));
                return Ok(2);
            }
            _ => names.push(arg.clone()),
        }
    }
    let mut status = 0;
    let mut out = String::new();
    for name in &names {
        let mut found = kinds(shell, name, all, force_path);
        if skip_functions {
            found.retain(|k| !matches!(k, Kind::Function(_)));
        }
        if found.is_empty() {
            if !terse && !path_only {
                shell.builtin_error("type", &format!("{name}: not found"));
            }
            status = 1;
            continue;
        }
        for kind in found {
            out.push_str(&describe(name, &kind, terse, path_only));
        }
    }
    Ok(status.max(shell.write_out("type", out.as_bytes())))
}

fn describe(name: &str, kind: &Kind, terse: bool, path_only: bool) -> String {
    if path_only {
        return match kind {
            Kind::File(path) => format!("{path}\n"),
            _ => String::new(),
        };
    }
    if terse {
        let word = match kind {
            Kind::Alias(_) => "alias",
            Kind::Keyword => "keyword",
            Kind::Function(_) => "function",
            Kind::Builtin => "builtin",
            Kind::File(_) => "file",
        };
        return format!("{word}\n");
    }
    match kind {
        Kind::Alias(value) => format!("{name} is aliased to `{value}'\n"),
        Kind::Keyword => format!("{name} is a shell keyword\n"),
        Kind::Function(source) => format!("{name} is a function\n{source}\n"),
        Kind::Builtin => format!("{name} is a shell builtin\n"),
        Kind::File(path) => format!("{name} is {path}\n"),
    }
}

/// `command [-pvV] name [args…]`: runs name bypassing functions, or describes it.
pub fn command(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut describe_mode = None;
    let mut index = 1;
    while let Some(arg) = argv.get(index) {
        match arg.as_str() {
            "-v" => describe_mode = Some(false),
            "-V" => describe_mode = Some(true),
            // rsh always searches the policy's PATH: -p changes nothing.
            "-p" => {}
            "--" => {
                index += 1;
                break;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                shell.builtin_error("command", &format!("{s}: invalid option"));
                return Ok(2);
            }
            _ => break,
        }
        index += 1;
    }
    let rest = &argv[index..];
    if rest.is_empty() {
        return Ok(0);
    }
    match describe_mode {
        Some(verbose) => Ok(command_describe(shell, rest, verbose)),
        None => shell.run_argv(rest, Redirects::NONE, Lookup::SkipFunctions, false),
    }
}

fn command_describe(shell: &mut Shell, names: &[String], verbose: bool) -> i32 {
    let mut status = 0;
    let mut out = String::new();
    for name in names {
        let found = kinds(shell, name, false, false);
        match found.first() {
            None => {
                if verbose {
                    shell.builtin_error("command", &format!("{name}: not found"));
                }
                status = 1;
            }
            Some(kind) if verbose => out.push_str(&describe(name, kind, false, false)),
            Some(Kind::Alias(value)) => {
                out.push_str(&format!("alias {name}={}\n", super::printf::quote(value)))
            }
            Some(Kind::File(path)) => out.push_str(&format!("{path}\n")),
            Some(_) => out.push_str(&format!("{name}\n")),
        }
    }
    status.max(shell.write_out("command", out.as_bytes()))
}

/// `builtin name [args…]`: runs the builtin, never a function or file of that name.
pub fn builtin(shell: &mut Shell, argv: &[String]) -> Outcome {
    let Some(name) = argv.get(1) else {
        return Ok(0);
    };
    match shell.resolve_target(name, Lookup::SkipFunctions) {
        Ok(Target::Builtin(_)) => {
            shell.run_argv(&argv[1..], Redirects::NONE, Lookup::SkipFunctions, false)
        }
        _ => {
            shell.builtin_error("builtin", &format!("{name}: not a shell builtin"));
            Ok(1)
        }
    }
}

/// `hash name…`: succeeds when each name is an executable on the search path; nothing is
/// cached (every command is looked up and decided afresh).
pub fn hash(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut status = 0;
    for name in argv[1..].iter().filter(|a| !a.starts_with('-')) {
        if shell.resolve_external(name).is_err() {
            shell.builtin_error("hash", &format!("{name}: not found"));
            status = 1;
        }
    }
    Ok(status)
}

pub fn alias(shell: &mut Shell, argv: &[String]) -> Outcome {
    let args: Vec<&String> = argv[1..].iter().filter(|a| a.as_str() != "-p").collect();
    if args.is_empty() {
        let listing: String = shell
            .aliases()
            .iter()
            .map(|(k, v)| format!("alias {k}={}\n", single_quote(v)))
            .collect();
        return Ok(shell.write_out("alias", listing.as_bytes()));
    }
    let mut status = 0;
    let mut out = String::new();
    for arg in args {
        match arg.split_once('=') {
            Some((name, value)) if valid_alias_name(name) => {
                shell.aliases().insert(name.to_string(), value.to_string());
            }
            Some((name, _)) => {
                shell.builtin_error("alias", &format!("`{name}': invalid alias name"));
                status = 1;
            }
            None => match shell.aliases().get(arg.as_str()) {
                Some(value) => out.push_str(&format!("alias {arg}={}\n", single_quote(value))),
                None => {
                    shell.builtin_error("alias", &format!("{arg}: not found"));
                    status = 1;
                }
            },
        }
    }
    Ok(status.max(shell.write_out("alias", out.as_bytes())))
}

fn valid_alias_name(name: &str) -> bool {
    !name.is_empty()
        && !name.chars().any(|c| {
            matches!(
                c,
                '/' | '$' | '`' | '=' | ' ' | '\t' | '\n' | '\'' | '"' | '\\'
            )
        })
}

fn single_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

pub fn unalias(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut status = 0;
    for arg in &argv[1..] {
        if arg == "-a" {
            shell.aliases().clear();
            continue;
        }
        if shell.aliases().remove(arg.as_str()).is_none() {
            shell.builtin_error("unalias", &format!("{arg}: not found"));
            status = 1;
        }
    }
    Ok(status)
}
