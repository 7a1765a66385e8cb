//! `source` / `.`: reads a file and runs it in the current shell. Its text is parsed and every
//! command in it is decided like a typed line.

use std::path::{Path, PathBuf};

use super::super::Flow;
use super::super::redirect::ReadError;
use super::{Outcome, Shell};

pub fn source(shell: &mut Shell, argv: &[String]) -> Outcome {
    let name = argv[0].clone();
    let argv: Vec<String> = match argv.get(1).map(String::as_str) {
        Some("--") => std::iter::once(name.clone())
            .chain(argv[2..].iter().cloned())
            .collect(),
        _ => argv.to_vec(),
    };
    let Some(file) = argv.get(1) else {
        shell.builtin_error(&name, "filename argument required");
        return Ok(2);
    };
    let Some(path) = find(shell, file) else {
        shell.builtin_error(&name, &format!("{file}: No such file or directory"));
        return Ok(1);
    };
    let text = match shell.read_for_command(&path.to_string_lossy()) {
        Ok(text) => text,
        Err(ReadError::Denied(message)) => {
            shell.error(&message);
            return Ok(1);
        }
        Err(ReadError::Io(message)) => {
            shell.builtin_error(&name, &format!("{file}: {message}"));
            return Ok(1);
        }
    };
    let program = match crate::parse::parse_bytes(&text) {
        Ok(program) => program,
        Err(err) => {
            shell.error(&format!("{file}: {err}"));
            return Ok(2);
        }
    };
    let new_args = (argv.len() > 2).then(|| argv[2..].to_vec());
    let saved_args = new_args.map(|args| {
        let old = shell.positional_args().to_vec();
        shell.set_positional(args);
        old
    });
    shell.source_depth += 1;
    let result = shell.run_nested(|shell| shell.run_program(&program));
    shell.source_depth -= 1;
    if let Some(old) = saved_args {
        shell.set_positional(old);
    }
    match result {
        Err(Flow::Return(status)) => Ok(status),
        other => other,
    }
}

/// A name with a slash is used as written; a bare name is looked for on `$PATH`, then in the
/// current directory, as bash does.
fn find(shell: &Shell, file: &str) -> Option<PathBuf> {
    if file.contains('/') {
        return readable_file(Path::new(file)).then(|| PathBuf::from(file));
    }
    let path = shell.vars.value("PATH").unwrap_or("");
    path.split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(file))
        .find(|candidate| readable_file(candidate))
        .or_else(|| readable_file(Path::new(file)).then(|| PathBuf::from(file)))
}

/// Anything but a directory can be sourced (`. /dev/null` is a common idiom).
fn readable_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_dir())
}
