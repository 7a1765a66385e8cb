//! Variable declarations: `export`, `readonly`, `local`, `declare`/`typeset`, `unset`.
//!
//! Arrays, integers, case-folding and namerefs (`-a -A -i -l -u -n`) are outside rsh's subset
//! and refused with a message rather than half-emulated.

use super::super::vars::{Var, is_name};
use super::{Outcome, Shell};

/// Attribute flags given to a declaration builtin.
#[derive(Default)]
struct Flags {
    print: bool,
    functions: bool,
    function_names: bool,
    export: Option<bool>,
    readonly: bool,
    /// `+r`: refused on a readonly variable.
    unset_readonly: bool,
    global: bool,
}

/// Splits leading `-x`/`+x` option words off; Err(status) after printing a message.
fn parse_flags<'a>(
    shell: &Shell,
    name: &str,
    argv: &'a [String],
    allowed: &str,
) -> Result<(Flags, &'a [String]), i32> {
    let mut flags = Flags::default();
    let mut rest = &argv[1..];
    while let Some(word) = rest.first() {
        if word == "--" {
            rest = &rest[1..];
            break;
        }
        let (on, letters) = match word.as_bytes().first() {
            Some(b'-') if word.len() > 1 => (true, &word[1..]),
            Some(b'+') if word.len() > 1 => (false, &word[1..]),
            _ => break,
        };
        for letter in letters.chars() {
            if !allowed.contains(letter) {
                let message = if "aAilnutI".contains(letter) {
                    format!(
                        "-{letter}: not supported by rsh (arrays, integer and case attributes, namerefs)"
                    )
                } else {
                    format!("-{letter}: invalid option")
                };
                shell.builtin_error(name, &message);
                return Err(2);
            }
            match letter {
                'p' => flags.print = true,
                'f' => flags.functions = true,
                'F' => flags.function_names = true,
                'x' => flags.export = Some(on),
                'n' => flags.export = Some(false),
                'r' => {
                    flags.readonly = on;
                    flags.unset_readonly = !on;
                }
                'g' => flags.global = true,
                _ => {}
            }
        }
        rest = &rest[1..];
    }
    Ok((flags, rest))
}

/// `name=value`, `name+=value` or `name`.
fn split_arg(arg: &str) -> (&str, Option<(&str, bool)>) {
    match arg.find('=') {
        Some(eq) => {
            let (name, append) = match arg[..eq].strip_suffix('+') {
                Some(name) => (name, true),
                None => (&arg[..eq], false),
            };
            (name, Some((&arg[eq + 1..], append)))
        }
        None => (arg, None),
    }
}

/// Quotes a value as `set` and `declare` (without -p) list it: bare when safe, else in
/// single quotes, `$'…'` when it holds control characters.
pub fn listing_quote(value: &str) -> String {
    if value.chars().any(|c| c.is_control()) {
        return super::printf::quote(value);
    }
    if value == "'" {
        return "\\'".to_string();
    }
    let special = |c: char| " \t\n'\"\\|&;()<>!{}*[?]^$`".contains(c);
    if !value.contains(special) && !value.starts_with(['~', '#']) {
        return value.to_string();
    }
    format!("'{}'", value.replace('\'', "'\\''"))
}

/// Double-quotes a value as `declare -p` prints it (`$'…'` for control characters).
fn dq_quote(value: &str) -> String {
    if value.chars().any(|c| c.is_control()) {
        return super::printf::quote(value);
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn declaration_line(name: &str, var: &Var) -> String {
    let mut attrs = String::new();
    if var.readonly {
        attrs.push('r');
    }
    if var.exported {
        attrs.push('x');
    }
    let attrs = if attrs.is_empty() {
        "--".to_string()
    } else {
        format!("-{attrs}")
    };
    match &var.value {
        Some(value) => format!("declare {attrs} {name}={}\n", dq_quote(value)),
        None => format!("declare {attrs} {name}\n"),
    }
}

/// The visible variables `filter` keeps (given each one's name and value), as declarations.
fn print_vars(shell: &Shell, name: &str, filter: impl Fn(&str, &Var) -> bool) -> i32 {
    let mut out = String::new();
    for (var_name, var) in shell.vars.visible() {
        if filter(var_name, var) {
            out.push_str(&declaration_line(var_name, var));
        }
    }
    shell.write_out(name, out.as_bytes())
}

/// Assigns and sets attributes for each `name[=value]` argument.
fn declare_each(
    shell: &mut Shell,
    builtin: &str,
    args: &[String],
    flags: &Flags,
    local: bool,
) -> i32 {
    let mut status = 0;
    for arg in args {
        let (name, value) = split_arg(arg);
        if !is_name(name) {
            shell.builtin_error(builtin, &format!("`{arg}': not a valid identifier"));
            status = 1;
            continue;
        }
        if let Err(message) = declare_one(shell, name, value, flags, local) {
            shell.builtin_error(builtin, &message);
            status = 1;
        }
    }
    status
}

fn declare_one(
    shell: &mut Shell,
    name: &str,
    value: Option<(&str, bool)>,
    flags: &Flags,
    local: bool,
) -> Result<(), String> {
    let value = value.map(|(text, append)| {
        if append {
            format!("{}{text}", shell.vars.value(name).unwrap_or(""))
        } else {
            text.to_string()
        }
    });
    if flags.unset_readonly && shell.vars.get(name).is_some_and(|v| v.readonly) {
        return Err(format!("{name}: readonly variable"));
    }
    if local {
        shell.vars.declare_local(name, value)?;
    } else if let Some(value) = value {
        if flags.global {
            shell.vars.set_global(name, value)?;
        } else {
            shell.assign(name, value)?;
        }
    } else {
        // `declare x`: x exists (for `declare -p`) but stays unset.
        shell.vars.declare(name);
    }
    if let Some(export) = flags.export {
        shell.vars.set_exported(name, export);
    } else if shell.options.allexport {
        shell.vars.set_exported(name, true);
    }
    if flags.readonly {
        shell.vars.set_readonly(name);
    }
    Ok(())
}

pub fn export(shell: &mut Shell, argv: &[String]) -> Outcome {
    let (mut flags, args) = match parse_flags(shell, "export", argv, "fnp") {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    if flags.functions {
        shell.builtin_error("export", "-f: exporting functions is not supported by rsh");
        return Ok(2);
    }
    if args.is_empty() {
        return Ok(print_vars(shell, "export", |_, v| v.exported));
    }
    if flags.export.is_none() {
        flags.export = Some(true);
    }
    Ok(declare_each(shell, "export", args, &flags, false))
}

pub fn readonly(shell: &mut Shell, argv: &[String]) -> Outcome {
    let (mut flags, args) = match parse_flags(shell, "readonly", argv, "p") {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    if args.is_empty() {
        return Ok(print_vars(shell, "readonly", |_, v| v.readonly));
    }
    flags.readonly = true;
    Ok(declare_each(shell, "readonly", args, &flags, false))
}

pub fn local(shell: &mut Shell, argv: &[String]) -> Outcome {
    if !shell.in_function() {
        shell.builtin_error("local", "can only be used in a function");
        return Ok(1);
    }
    let (flags, args) = match parse_flags(shell, "local", argv, "prx") {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    if flags.print && !args.is_empty() {
        return Ok(print_declarations(shell, "local", args, true));
    }
    if args.is_empty() {
        // The function's own variables (the innermost scope's, not its caller's).
        return Ok(print_vars(shell, "local", |name, _| {
            shell.vars.innermost_holds(name)
        }));
    }
    Ok(declare_each(shell, "local", args, &flags, true))
}

pub fn declare(shell: &mut Shell, argv: &[String]) -> Outcome {
    let name = argv[0].clone();
    let (flags, args) = match parse_flags(shell, &name, argv, "pfFxrg") {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    if flags.functions || flags.function_names {
        return Ok(print_functions(shell, &name, args, flags.function_names));
    }
    if flags.print || args.is_empty() {
        return Ok(print_declarations(shell, &name, args, flags.print));
    }
    // Inside a function, declare makes locals unless -g says otherwise.
    let local = shell.in_function() && !flags.global;
    Ok(declare_each(shell, &name, args, &flags, local))
}

fn print_declarations(shell: &Shell, builtin: &str, names: &[String], as_declare: bool) -> i32 {
    if names.is_empty() {
        if as_declare {
            return print_vars(shell, builtin, |_, _| true);
        }
        let mut out = String::new();
        for (name, var) in shell.vars.visible() {
            if let Some(value) = &var.value {
                out.push_str(&format!("{name}={}\n", listing_quote(value)));
            }
        }
        return shell.write_out(builtin, out.as_bytes());
    }
    let mut status = 0;
    let mut out = String::new();
    for name in names {
        match shell.vars.get(name) {
            Some(var) => out.push_str(&declaration_line(name, var)),
            None => {
                shell.builtin_error(builtin, &format!("{name}: not found"));
                status = 1;
            }
        }
    }
    status.max(shell.write_out(builtin, out.as_bytes()))
}

fn print_functions(shell: &mut Shell, builtin: &str, names: &[String], names_only: bool) -> i32 {
    let mut defs: Vec<_> = if names.is_empty() {
        shell.functions().values().cloned().collect()
    } else {
        let mut found = Vec::new();
        for name in names {
            match shell.function(name) {
                Some(def) => found.push(def),
                None => return 1,
            }
        }
        found
    };
    defs.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = String::new();
    for def in defs {
        if names_only {
            out.push_str(&format!("declare -f {}\n", def.name));
        } else {
            out.push_str(&def.source);
            out.push('\n');
        }
    }
    let _ = builtin;
    shell.write_out(builtin, out.as_bytes())
}

pub fn unset(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut functions = false;
    let mut variables = false;
    let mut args = &argv[1..];
    while let Some(word) = args.first() {
        match word.as_str() {
            "-f" => functions = true,
            "-v" => variables = true,
            "--" => {
                args = &args[1..];
                break;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                shell.builtin_error("unset", &format!("{s}: invalid option"));
                return Ok(2);
            }
            _ => break,
        }
        args = &args[1..];
    }
    let mut status = 0;
    for name in args {
        if functions {
            shell.functions().remove(name);
            continue;
        }
        if !is_name(name) {
            shell.builtin_error("unset", &format!("`{name}': not a valid identifier"));
            status = 1;
            continue;
        }
        let had_var = shell.vars.get(name).is_some();
        if let Err(message) = shell.vars.unset(name) {
            shell.builtin_error("unset", &message);
            status = 1;
        } else if !had_var && !variables {
            // `unset name` falls back to a function of that name, as in bash.
            shell.functions().remove(name);
        }
    }
    Ok(status)
}
