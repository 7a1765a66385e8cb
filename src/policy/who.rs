//! Who rsh runs for: the user and the groups that pick `[users.NAME]` and `[groups.NAME]`
//! sections of the policy.

use std::ffi::CString;

/// A user by name, and the names of the groups they belong to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Who {
    pub user: String,
    pub groups: Vec<String>,
}

impl Who {
    /// The user of the real user id, with their groups as the group database lists them (the
    /// primary group included), as sshd's `Match Group` sees them. A user id without a name
    /// matches no section; neither does a group without one.
    pub fn current() -> Who {
        let Some(user) = current_user() else {
            return Who::default();
        };
        let groups = CString::new(user.name.as_str())
            .ok()
            .and_then(|name| nix::unistd::getgrouplist(&name, user.gid).ok())
            .unwrap_or_else(|| vec![user.gid]);
        let groups = groups
            .into_iter()
            .filter_map(|gid| nix::unistd::Group::from_gid(gid).ok().flatten())
            .map(|group| group.name)
            .collect();
        Who {
            user: user.name.clone(),
            groups,
        }
    }
}

/// The password database's entry of the real user, looked up once: the policy's `~`, the
/// audit trail's user, a login's `HOME` and the sections that apply all come from it, and
/// every look-up reads the database again (a tenth of a millisecond with nscd tried first).
/// rsh never changes its user id.
pub fn current_user() -> Option<&'static nix::unistd::User> {
    static USER: std::sync::OnceLock<Option<nix::unistd::User>> = std::sync::OnceLock::new();
    USER.get_or_init(|| {
        let uid = nix::unistd::getuid();
        from_passwd_file(uid).or_else(|| nix::unistd::User::from_uid(uid).ok().flatten())
    })
    .as_ref()
}

/// The home directory of the user running rsh, from the password database (`$HOME` only when
/// the user has no entry): what the policy's `~` means.
pub fn home_dir() -> std::path::PathBuf {
    current_user()
        .map(|user| user.dir.clone())
        .or_else(|| std::env::var_os("HOME").map(std::path::PathBuf::from))
        .unwrap_or_else(|| std::path::PathBuf::from("/"))
}

/// `uid`'s entry read from /etc/passwd itself, where that file is what the password database
/// asks first and whose answer it takes (`passwd: files ...` in nsswitch.conf, with no
/// action after `files`): then it is what the C library would find, without its two
/// attempts to reach nscd and its machinery, most of the cost of a look-up. None, so that
/// the C library is asked, for any other configuration, a user the file does not have, or a
/// file with anything unusual in it (`+`/`-` entries, a malformed line).
fn from_passwd_file(uid: nix::unistd::Uid) -> Option<nix::unistd::User> {
    let conf = std::fs::read_to_string("/etc/nsswitch.conf").ok()?;
    if !files_decide(&conf) {
        return None;
    }
    let text = std::fs::read("/etc/passwd").ok()?;
    find_in_passwd(&text, uid.as_raw())
}

/// Whether nsswitch.conf has one `passwd:` line, whose first source is `files` with no
/// action after it.
fn files_decide(conf: &str) -> bool {
    let mut lines = conf
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter_map(|line| line.strip_prefix("passwd:"));
    let (Some(sources), None) = (lines.next(), lines.next()) else {
        return false;
    };
    let mut sources = sources.split_whitespace();
    sources.next() == Some("files") && !sources.next().is_some_and(|s| s.starts_with('['))
}

/// The first entry of `uid` in the text of a passwd file; None when there is none, or when a
/// line before it is anything but a well-formed entry (or empty).
fn find_in_passwd(text: &[u8], uid: u32) -> Option<nix::unistd::User> {
    use std::os::unix::ffi::OsStrExt;
    for line in text.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&[u8]> = line.split(|&b| b == b':').collect();
        let [name, passwd, id, gid, gecos, dir, shell] = fields[..] else {
            return None;
        };
        let number = |field: &[u8]| -> Option<u32> {
            let digits = std::str::from_utf8(field).ok()?;
            digits
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| digits.parse().ok())?
        };
        if name.is_empty() || matches!(name[0], b'+' | b'-' | b'#') || line.contains(&0) {
            return None;
        }
        if number(id)? != uid {
            number(gid)?;
            continue;
        }
        let path = |field: &[u8]| std::path::PathBuf::from(std::ffi::OsStr::from_bytes(field));
        return Some(nix::unistd::User {
            name: String::from_utf8(name.to_vec()).ok()?,
            passwd: CString::new(passwd).ok()?,
            uid: nix::unistd::Uid::from_raw(uid),
            gid: nix::unistd::Gid::from_raw(number(gid)?),
            gecos: CString::new(gecos).ok()?,
            dir: path(dir),
            shell: path(shell),
        });
    }
    None
}

/// The name of the real user, or its number when it has none (for messages and records).
pub fn user_name() -> String {
    current_user().map_or_else(|| nix::unistd::getuid().to_string(), |u| u.name.clone())
}

/// This machine's name, or nothing when it cannot be read.
pub fn host_name() -> String {
    nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the file decides, every user in it is what the C library gives.
    #[test]
    fn the_passwd_file_gives_what_the_c_library_gives() {
        let conf = std::fs::read_to_string("/etc/nsswitch.conf").unwrap_or_default();
        if !files_decide(&conf) {
            eprintln!("SKIPPED: nsswitch.conf does not ask the passwd file first");
            return;
        }
        let text = std::fs::read("/etc/passwd").unwrap();
        let uids: Vec<u32> = String::from_utf8_lossy(&text)
            .lines()
            .filter_map(|l| l.split(':').nth(2)?.parse().ok())
            .collect();
        assert!(uids.contains(&0), "{uids:?}");
        for uid in uids {
            let ours = find_in_passwd(&text, uid).expect("found in the file");
            let libc = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
                .unwrap()
                .unwrap();
            assert_eq!(format!("{ours:?}"), format!("{libc:?}"));
        }
        assert!(find_in_passwd(&text, 4_000_000_000).is_none());
    }

    #[test]
    fn only_a_plain_files_first_configuration_is_read_directly() {
        assert!(files_decide("passwd: files\n"));
        assert!(files_decide(
            "# x\npasswd:         files systemd # y\ngroup: files\n"
        ));
        assert!(!files_decide("passwd: sss files\n"));
        assert!(!files_decide("passwd: files [NOTFOUND=return] ldap\n"));
        assert!(!files_decide("passwd: compat\n"));
        assert!(!files_decide("passwd: files\npasswd: ldap\n"));
        assert!(!files_decide("group: files\n"));
        assert!(!files_decide("#passwd: files\n"));
    }

    #[test]
    fn an_unusual_passwd_file_is_left_to_the_c_library() {
        let plain = b"root:x:0:0:root:/root:/bin/bash\nann:x:1000:100::/home/ann:/bin/sh\n";
        let ann = find_in_passwd(plain, 1000).unwrap();
        assert_eq!(
            (ann.name.as_str(), ann.dir.to_str()),
            ("ann", Some("/home/ann"))
        );
        assert_eq!(ann.gid.as_raw(), 100);
        for odd in [
            &b"+::::::\nann:x:1000:100::/home/ann:/bin/sh\n"[..],
            b"root:x:0:0:root:/root\nann:x:1000:100::/home/ann:/bin/sh\n",
            b"root:x: 0:0:root:/root:/bin/bash\nann:x:1000:100::/home/ann:/bin/sh\n",
            b"#comment\nann:x:1000:100::/home/ann:/bin/sh\n",
        ] {
            assert!(
                find_in_passwd(odd, 1000).is_none(),
                "{}",
                String::from_utf8_lossy(odd)
            );
        }
    }

    #[test]
    fn the_current_user_has_a_name_and_their_primary_group() {
        let who = Who::current();
        let uid = nix::unistd::getuid();
        let user = nix::unistd::User::from_uid(uid).unwrap().unwrap();
        assert_eq!(who.user, user.name);
        let primary = nix::unistd::Group::from_gid(user.gid).unwrap().unwrap();
        assert!(who.groups.contains(&primary.name), "{who:?}");
    }
}
