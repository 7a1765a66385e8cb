//! `set` and `shopt`: shell options and positional parameters.
//!
//! Options that change what rsh does are implemented; options that only matter to bash's
//! interactive machinery (history, completion, terminal size) are accepted and remembered so
//! that scripts and agent snapshots that set them keep working; options that would change
//! semantics rsh does not implement are refused by name.

use super::super::Options;
use super::{Outcome, Shell};

/// `set -o` names and their single-letter flags, in bash's listing order.
const SET_OPTIONS: &[(&str, Option<char>)] = &[
    ("allexport", Some('a')),
    ("braceexpand", Some('B')),
    ("emacs", None),
    ("errexit", Some('e')),
    ("errtrace", Some('E')),
    ("functrace", Some('T')),
    ("hashall", Some('h')),
    ("histexpand", Some('H')),
    ("history", None),
    ("ignoreeof", None),
    ("interactive-comments", None),
    ("keyword", Some('k')),
    ("monitor", Some('m')),
    ("noclobber", Some('C')),
    ("noexec", Some('n')),
    ("noglob", Some('f')),
    ("nolog", None),
    ("notify", Some('b')),
    ("nounset", Some('u')),
    ("onecmd", Some('t')),
    ("physical", Some('P')),
    ("pipefail", None),
    ("posix", None),
    ("privileged", Some('p')),
    ("verbose", Some('v')),
    ("vi", None),
    ("xtrace", Some('x')),
];

/// `set -o` options rsh refuses to turn on: they would change semantics it does not implement.
const SET_REFUSED: &[&str] = &["noexec", "onecmd", "posix", "keyword", "privileged"];

/// shopt options that only concern bash's interactive machinery or defaults rsh already
/// follows, with bash's default values. Accepted and remembered, nothing more.
const SHOPT_REMEMBERED: &[(&str, bool)] = &[
    ("autocd", false),
    ("cdable_vars", false),
    ("cdspell", false),
    ("checkhash", false),
    ("checkjobs", false),
    ("checkwinsize", true),
    ("cmdhist", true),
    ("complete_fullquote", true),
    ("direxpand", false),
    ("dirspell", false),
    ("execfail", false),
    ("extquote", true),
    ("force_fignore", true),
    ("globasciiranges", true),
    ("globskipdots", true),
    ("gnu_errfmt", false),
    ("histappend", false),
    ("histreedit", false),
    ("histverify", false),
    ("hostcomplete", true),
    ("huponexit", false),
    ("inherit_errexit", false),
    ("interactive_comments", true),
    ("lithist", false),
    ("localvar_inherit", false),
    ("localvar_unset", false),
    ("login_shell", false),
    ("mailwarn", false),
    ("no_empty_cmd_completion", false),
    ("progcomp", true),
    ("progcomp_alias", false),
    ("promptvars", true),
    ("shift_verbose", false),
    ("sourcepath", true),
    ("varredir_close", false),
];

/// shopt options that are part of rsh's fixed semantics: they may be queried and set to
/// their current value, but not changed.
const SHOPT_FIXED: &[(&str, bool)] = &[
    ("assoc_expand_once", false),
    ("compat31", false),
    ("compat32", false),
    ("compat40", false),
    ("compat41", false),
    ("compat42", false),
    ("compat43", false),
    ("compat44", false),
    ("extdebug", false),
    ("lastpipe", false),
    ("noexpand_translation", false),
    ("patsub_replacement", true),
    ("xpg_echo", false),
];

/// Where an option's flag is kept.
type FlagOf = fn(&mut Options) -> &mut bool;

/// The shopt options rsh implements, with the option each one sets.
const SHOPT_FLAGS: &[(&str, FlagOf)] = &[
    ("dotglob", |o| &mut o.dotglob),
    ("expand_aliases", |o| &mut o.expand_aliases),
    ("extglob", |o| &mut o.extglob),
    ("failglob", |o| &mut o.failglob),
    ("globstar", |o| &mut o.globstar),
    ("nocaseglob", |o| &mut o.nocaseglob),
    ("nocasematch", |o| &mut o.nocasematch),
    ("nullglob", |o| &mut o.nullglob),
];

fn shopt_flag<'o>(options: &'o mut Options, name: &str) -> Option<&'o mut bool> {
    SHOPT_FLAGS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, flag)| flag(options))
}

fn set_flag<'o>(options: &'o mut Options, name: &str) -> Option<&'o mut bool> {
    Some(match name {
        "allexport" => &mut options.allexport,
        "errexit" => &mut options.errexit,
        "noclobber" => &mut options.noclobber,
        "noglob" => &mut options.noglob,
        "nounset" => &mut options.nounset,
        "pipefail" => &mut options.pipefail,
        "xtrace" => &mut options.xtrace,
        _ => return None,
    })
}

/// The value of a `set -o` option, for `test -o` and listings; None if the name is unknown.
pub fn option_value(shell: &Shell, name: &str) -> Option<bool> {
    let mut options = shell.options.clone();
    if let Some(flag) = set_flag(&mut options, name) {
        return Some(*flag);
    }
    SET_OPTIONS.iter().any(|(n, _)| *n == name).then(|| {
        shell
            .remembered_options
            .get(name)
            .copied()
            .unwrap_or(default_set_option(shell, name))
    })
}

fn default_set_option(shell: &Shell, name: &str) -> bool {
    match name {
        "braceexpand" | "hashall" | "interactive-comments" => true,
        "emacs" | "history" | "monitor" | "histexpand" => {
            shell.mode() == super::super::Mode::Interactive
        }
        _ => false,
    }
}

fn set_option(shell: &mut Shell, name: &str, on: bool) -> Result<(), String> {
    if let Some(flag) = set_flag(&mut shell.options, name) {
        *flag = on;
        return Ok(());
    }
    if !SET_OPTIONS.iter().any(|(n, _)| *n == name) {
        return Err(format!("{name}: invalid option name"));
    }
    if on && SET_REFUSED.contains(&name) {
        return Err(format!("{name}: not supported by rsh"));
    }
    if name == "braceexpand" && !on {
        return Err("braceexpand: turning brace expansion off is not supported by rsh".into());
    }
    shell.remembered_options.insert(name.to_string(), on);
    Ok(())
}

fn letter_option(letter: char) -> Option<&'static str> {
    SET_OPTIONS
        .iter()
        .find(|(_, l)| *l == Some(letter))
        .map(|(name, _)| *name)
}

pub fn set(shell: &mut Shell, argv: &[String]) -> Outcome {
    if argv.len() == 1 {
        return Ok(print_variables(shell));
    }
    let mut index = 1;
    while let Some(arg) = argv.get(index) {
        let (on, body) = match arg.as_bytes().first() {
            Some(b'-') => (true, &arg[1..]),
            Some(b'+') => (false, &arg[1..]),
            _ => break,
        };
        if body.is_empty() || body == "-" {
            // `set --` and `set -` end the options; `set --` alone clears the parameters,
            // `set -` alone leaves them (and turns off -x and -v).
            index += 1;
            if body.is_empty() {
                shell.options.xtrace = false;
                if argv.len() > index {
                    shell.set_positional(argv[index..].to_vec());
                }
                return Ok(0);
            }
            shell.set_positional(argv[index..].to_vec());
            return Ok(0);
        }
        if body == "o" {
            index += 1;
            match argv.get(index) {
                None => return Ok(list_options(shell, on)),
                Some(name) => {
                    if let Err(message) = set_option(shell, name, on) {
                        shell.builtin_error("set", &message);
                        return Ok(2);
                    }
                }
            }
            index += 1;
            continue;
        }
        let mut takes_name = false;
        for letter in body.chars() {
            if letter == 'o' {
                // `set -euo pipefail`: the option name is the next argument.
                takes_name = true;
                continue;
            }
            let Some(name) = letter_option(letter) else {
                shell.builtin_error(
                    "set",
                    &format!("{}{letter}: invalid option", if on { '-' } else { '+' }),
                );
                return Ok(2);
            };
            if let Err(message) = set_option(shell, name, on) {
                shell.builtin_error("set", &message);
                return Ok(2);
            }
        }
        index += 1;
        if takes_name {
            let Some(name) = argv.get(index) else {
                return Ok(list_options(shell, on));
            };
            if let Err(message) = set_option(shell, name, on) {
                shell.builtin_error("set", &message);
                return Ok(2);
            }
            index += 1;
        }
    }
    if index < argv.len() {
        shell.set_positional(argv[index..].to_vec());
    }
    Ok(0)
}

fn print_variables(shell: &Shell) -> i32 {
    let mut out = String::new();
    for (name, var) in shell.vars.visible() {
        if let Some(value) = &var.value {
            out.push_str(&format!(
                "{name}={}\n",
                super::declare::listing_quote(value)
            ));
        }
    }
    shell.write_out("set", out.as_bytes())
}

/// `set -o` (a table) or `set +o` (commands that recreate the settings).
fn list_options(shell: &Shell, table: bool) -> i32 {
    let mut out = String::new();
    for (name, _) in SET_OPTIONS {
        let on = option_value(shell, name).unwrap_or(false);
        if table {
            out.push_str(&format!("{name:<15}\t{}\n", if on { "on" } else { "off" }));
        } else {
            out.push_str(&format!("set {}o {name}\n", if on { '-' } else { '+' }));
        }
    }
    shell.write_out("set", out.as_bytes())
}

/// The current value of a shopt option; None when rsh does not know the name.
fn shopt_value(shell: &Shell, name: &str) -> Option<bool> {
    let mut options = shell.options.clone();
    if let Some(flag) = shopt_flag(&mut options, name) {
        return Some(*flag);
    }
    if name == "login_shell" {
        return Some(shell.login);
    }
    if name == "restricted_shell" {
        // bash's rbash mode, which rsh does not imitate: its policy is the restriction.
        return Some(false);
    }
    if let Some(value) = shell.remembered_options.get(name) {
        return Some(*value);
    }
    SHOPT_REMEMBERED
        .iter()
        .chain(SHOPT_FIXED)
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
}

fn set_shopt(shell: &mut Shell, name: &str, on: bool) -> Result<(), String> {
    if let Some(flag) = shopt_flag(&mut shell.options, name) {
        *flag = on;
        return Ok(());
    }
    if let Some((_, fixed)) = SHOPT_FIXED.iter().find(|(n, _)| *n == name) {
        return if *fixed == on {
            Ok(())
        } else {
            Err(format!(
                "{name}: changing this option is not supported by rsh"
            ))
        };
    }
    if name == "login_shell" {
        return Err("login_shell: read-only option".to_string());
    }
    if name == "restricted_shell" {
        // Read-only in bash too, where setting it is silently ignored (snapshots do).
        return Ok(());
    }
    if SHOPT_REMEMBERED.iter().any(|(n, _)| *n == name) {
        shell.remembered_options.insert(name.to_string(), on);
        return Ok(());
    }
    Err(format!("{name}: invalid shell option name"))
}

fn all_shopt_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = SHOPT_FLAGS
        .iter()
        .map(|(n, _)| *n)
        .chain(SHOPT_REMEMBERED.iter().map(|(n, _)| *n))
        .chain(SHOPT_FIXED.iter().map(|(n, _)| *n))
        .chain(["restricted_shell"])
        .collect();
    // bash lists them alphabetically, except that autocd comes first.
    names.sort_unstable_by_key(|n| (*n != "autocd", *n));
    names.dedup();
    names
}

pub fn shopt(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut action: Option<bool> = None;
    let mut print = false;
    let mut quiet = false;
    let mut set_o = false;
    let mut index = 1;
    while let Some(arg) = argv.get(index) {
        if !arg.starts_with('-') || arg.len() < 2 {
            break;
        }
        for letter in arg[1..].chars() {
            match letter {
                's' => action = Some(true),
                'u' => action = Some(false),
                'p' => print = true,
                'q' => quiet = true,
                'o' => set_o = true,
                _ => {
                    shell.builtin_error("shopt", &format!("-{letter}: invalid option"));
                    return Ok(2);
                }
            }
        }
        index += 1;
    }
    let names: Vec<String> = argv[index..].to_vec();
    if set_o {
        return Ok(shopt_set_o(shell, &names, action, print, quiet));
    }
    let listed: Vec<String> = if names.is_empty() {
        all_shopt_names().into_iter().map(String::from).collect()
    } else {
        names.clone()
    };
    let mut status = 0;
    if let Some(on) = action.filter(|_| !names.is_empty()) {
        for name in &names {
            if let Err(message) = set_shopt(shell, name, on) {
                shell.builtin_error("shopt", &message);
                status = 1;
            }
        }
        return Ok(status);
    }
    let mut out = String::new();
    for name in &listed {
        let Some(value) = shopt_value(shell, name) else {
            shell.builtin_error("shopt", &format!("{name}: invalid shell option name"));
            status = 1;
            continue;
        };
        if action.is_some_and(|want| want != value) {
            continue;
        }
        if !value && !names.is_empty() {
            status = 1;
        }
        if quiet {
            continue;
        }
        if print {
            out.push_str(&format!(
                "shopt {} {name}\n",
                if value { "-s" } else { "-u" }
            ));
        } else {
            out.push_str(&format!(
                "{name:<23}\t{}\n",
                if value { "on" } else { "off" }
            ));
        }
    }
    Ok(status.max(shell.write_out("shopt", out.as_bytes())))
}

fn shopt_set_o(
    shell: &mut Shell,
    names: &[String],
    action: Option<bool>,
    print: bool,
    quiet: bool,
) -> i32 {
    if let Some(on) = action.filter(|_| !names.is_empty()) {
        let mut status = 0;
        for name in names {
            if let Err(message) = set_option(shell, name, on) {
                shell.builtin_error("shopt", &message);
                status = 1;
            }
        }
        return status;
    }
    let listed: Vec<String> = if names.is_empty() {
        SET_OPTIONS.iter().map(|(n, _)| n.to_string()).collect()
    } else {
        names.to_vec()
    };
    let mut status = 0;
    let mut out = String::new();
    for name in listed {
        let Some(value) = option_value(shell, &name) else {
            shell.builtin_error("shopt", &format!("{name}: invalid option name"));
            status = 1;
            continue;
        };
        if !value && !names.is_empty() {
            status = 1;
        }
        if quiet {
            continue;
        }
        if print {
            out.push_str(&format!("set {}o {name}\n", if value { '-' } else { '+' }));
        } else {
            out.push_str(&format!(
                "{name:<15}\t{}\n",
                if value { "on" } else { "off" }
            ));
        }
    }
    status.max(shell.write_out("shopt", out.as_bytes()))
}
