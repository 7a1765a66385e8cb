//! `cd` and `pwd`, with bash's logical (`-L`, default) and physical (`-P`) views of the
//! working directory.

use std::path::{Component, PathBuf};

use super::super::redirect::ReadError;
use super::{Outcome, Shell};
use crate::spawn::fd::io_message;

pub fn cd(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut physical = false;
    let mut args = &argv[1..];
    while let Some(first) = args.first() {
        match first.as_str() {
            "-P" => physical = true,
            "-L" => physical = false,
            "--" => {
                args = &args[1..];
                break;
            }
            s if s.starts_with('-') && s.len() > 1 && s != "-" => {
                shell.builtin_error("cd", &format!("{s}: invalid option"));
                return Ok(2);
            }
            _ => break,
        }
        args = &args[1..];
    }
    if args.len() > 1 {
        shell.builtin_error("cd", "too many arguments");
        return Ok(1);
    }
    let (dir, print) = match args.first().map(String::as_str) {
        None => match shell.vars.value("HOME") {
            Some(home) => (home.to_string(), false),
            None => {
                shell.builtin_error("cd", "HOME not set");
                return Ok(1);
            }
        },
        Some("-") => match shell.vars.value("OLDPWD") {
            Some(old) => (old.to_string(), true),
            None => {
                shell.builtin_error("cd", "OLDPWD not set");
                return Ok(1);
            }
        },
        Some(dir) => (dir.to_string(), false),
    };
    if dir.is_empty() {
        return Ok(0);
    }
    change_dir(shell, &dir, physical, print)
}

fn change_dir(shell: &mut Shell, dir: &str, physical: bool, print: bool) -> Outcome {
    let current = shell.logical_cwd.clone();
    let logical = if physical {
        None
    } else {
        logical_path(&current, dir)
    };
    // Like bash, `cd missing/..` fails even though the logical result would exist.
    if logical.is_some() && dir.contains("..") && std::fs::metadata(dir).is_err() {
        shell.builtin_error("cd", &format!("{dir}: No such file or directory"));
        return Ok(1);
    }
    let target = logical.clone().unwrap_or_else(|| PathBuf::from(dir));
    // Also where the directory comes from $HOME, $OLDPWD or $CDPATH, not the command line.
    let shown = target.to_string_lossy().into_owned();
    if let Err(ReadError::Denied(message)) = shell.checked_landing(&shown, false) {
        // Named as the command it is: `denied: cd ~/.ssh: ...`, not `denied: /home/u/.ssh: ...`.
        let command = super::display_command(&["cd".to_owned(), dir.to_owned()]);
        let message = match message.strip_prefix(&format!("denied: {shown}: ")) {
            Some(reason) => format!("denied: {command}: {reason}"),
            None => message,
        };
        shell.error(&message);
        return Ok(1);
    }
    if let Err(err) = std::env::set_current_dir(&target) {
        shell.builtin_error("cd", &format!("{dir}: {}", io_message(&err)));
        return Ok(1);
    }
    let new_pwd = match logical {
        Some(path) if !physical => path.display().to_string(),
        _ => std::env::current_dir()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| dir.to_string()),
    };
    let _ = shell.assign("OLDPWD", current);
    shell.vars.set_exported("OLDPWD", true);
    shell.logical_cwd = new_pwd.clone();
    let _ = shell.assign("PWD", new_pwd.clone());
    if print {
        return Ok(shell.write_out("cd", format!("{new_pwd}\n").as_bytes()));
    }
    Ok(0)
}

/// `dir` resolved against the logical `$PWD` with `.` and `..` removed textually, as bash's
/// `cd -L` does. None when there is no usable `$PWD`.
fn logical_path(pwd: &str, dir: &str) -> Option<PathBuf> {
    let base = if dir.starts_with('/') {
        PathBuf::from("/")
    } else if pwd.starts_with('/') {
        PathBuf::from(pwd)
    } else {
        return None;
    };
    let mut out = PathBuf::from("/");
    for component in base.join(dir).components() {
        match component {
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    Some(out)
}

pub fn pwd(shell: &mut Shell, argv: &[String]) -> Outcome {
    let mut physical = false;
    // Operands are ignored, as bash does; only options are checked.
    for arg in argv[1..]
        .iter()
        .take_while(|a| a.starts_with('-') && a.len() > 1)
    {
        match arg.as_str() {
            "-P" => physical = true,
            "-L" => physical = false,
            "--" => break,
            other => {
                shell.builtin_error("pwd", &format!("{other}: invalid option"));
                return Ok(2);
            }
        }
    }
    let text = if physical || shell.logical_cwd.is_empty() {
        match std::env::current_dir() {
            Ok(dir) => dir.display().to_string(),
            Err(err) => {
                shell.builtin_error("pwd", &io_message(&err));
                return Ok(1);
            }
        }
    } else {
        shell.logical_cwd.clone()
    };
    Ok(shell.write_out("pwd", format!("{text}\n").as_bytes()))
}
