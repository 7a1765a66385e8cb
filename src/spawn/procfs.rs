//! The few things rsh reads about processes in /proc, parsed from bytes.
//!
//! A process names itself (`prctl(PR_SET_NAME)`, or the name of the file it runs), and the
//! name may be anything: not UTF-8, with spaces, parentheses or line breaks in it. Nothing
//! here reads /proc as text, and nothing takes a process it could not parse for one that is
//! not there: only a process that is gone (ENOENT, ESRCH) is.

use std::io;

/// What `/proc/PID/stat` says of a process (or a thread, under `task/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// The state letter (`R`, `S`, `T`, `Z`, …).
    pub state: u8,
    /// Its process group.
    pub group: i32,
    /// The device number of its controlling terminal (0: none).
    pub terminal: u64,
}

/// Parses a `/proc/PID/stat` line: the fields after the command name, which is in parentheses
/// and may hold anything, parentheses included (so the last `)` ends it).
pub fn parse_stat(bytes: &[u8]) -> Option<Stat> {
    let close = bytes.iter().rposition(|&b| b == b')')?;
    let mut fields = bytes[close + 1..]
        .split(u8::is_ascii_whitespace)
        .filter(|field| !field.is_empty());
    let state = match fields.next()? {
        [letter] => *letter,
        _ => return None,
    };
    let _parent = fields.next()?;
    let group = number(fields.next()?)?;
    let _session = fields.next()?;
    let terminal = number(fields.next()?)?;
    Some(Stat {
        state,
        group: i32::try_from(group).ok()?,
        terminal: u64::try_from(terminal).ok()?,
    })
}

/// A decimal number, possibly negative.
fn number(field: &[u8]) -> Option<i64> {
    std::str::from_utf8(field).ok()?.parse().ok()
}

/// Reads and parses a stat file (`/proc/PID/stat`, `/proc/self/stat`, a thread's). Ok(None):
/// the process is gone; Err: it is there and could not be read or parsed.
pub fn read_stat(path: &str) -> io::Result<Option<Stat>> {
    match read(path)? {
        None => Ok(None),
        Some(bytes) => parse_stat(&bytes)
            .map(Some)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("{path}: unparsed"))),
    }
}

/// A file of a process in /proc; Ok(None) when the process (or thread) is gone.
pub fn read(path: &str) -> io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(err) if gone(&err) => Ok(None),
        Err(err) => Err(err),
    }
}

/// Whether an error reading a process's file means the process has gone (its directory went
/// away, or it ended between the open and the read).
pub fn gone(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::ENOENT | libc::ESRCH))
}

/// The numbered entries of a /proc directory (`/proc`: processes, `/proc/PID/task`: threads).
/// Ok(None) when the directory is gone (its process ended).
pub fn numbered(dir: &str) -> io::Result<Option<Vec<i32>>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if gone(&err) => return Ok(None),
        Err(err) => return Err(err),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) if gone(&err) => return Ok(None),
            Err(err) => return Err(err),
        };
        use std::os::unix::ffi::OsStrExt;
        let name = entry.file_name();
        if let Some(n) = number(name.as_bytes()).and_then(|n| i32::try_from(n).ok()) {
            found.push(n);
        }
    }
    Ok(Some(found))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_after_any_name() {
        let stat = b"4242 (a) b (c)) T 1 4240 4240 34816 4240 4194560 0";
        assert_eq!(
            parse_stat(stat),
            Some(Stat {
                state: b'T',
                group: 4240,
                terminal: 34816
            })
        );
        // A name that is not UTF-8, with a line break in it.
        let odd = b"7 (\xff\xfe\n) S 1 7 7 0 -1 4194560 0";
        assert_eq!(parse_stat(odd).map(|s| (s.state, s.group)), Some((b'S', 7)));
        assert_eq!(parse_stat(b"no parenthesis"), None);
        assert_eq!(parse_stat(b"7 (x) T 1"), None);
    }

    #[test]
    fn a_process_gone_is_not_an_error() {
        assert!(matches!(read_stat("/proc/self/stat"), Ok(Some(_))));
        assert!(matches!(read_stat("/proc/0/stat"), Ok(None)));
        assert!(matches!(numbered("/proc/0/task"), Ok(None)));
        let own = std::process::id() as i32;
        assert!(numbered("/proc").unwrap().unwrap().contains(&own));
    }
}
