//! Whether a policy file can be trusted, the way sshd's StrictModes trusts authorized_keys: the
//! file and every directory above it must be owned by root or by the user running rsh, and
//! writable by nobody else. A policy that someone else could change is no policy, so rsh
//! refuses to start with it and says which file or directory is wrong and how to fix it.

use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub(super) const GROUP_OR_OTHER_WRITE: u32 = 0o022;
const STICKY: u32 = 0o1000;

/// Who may own a policy file (and the directories above it) besides root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owners {
    /// Root, or this user (the one running rsh, for themself).
    RootOr(u32),
    /// Root only: a user's own policy may not replace the system policy.
    RootOnly,
    /// Root's, and in the system policy's directory (/etc/rsh): what a user may choose while a
    /// system policy exists.
    SystemDir,
}

/// Reads the policy at `path` if it can be trusted: the text and the canonical path it came
/// from. The file is opened once and its checks are made on the open file, so the text read
/// is the text checked.
pub(crate) fn read_trusted(path: &Path, owners: Owners) -> Result<(String, PathBuf), String> {
    let real = std::fs::canonicalize(path).map_err(|e| format!("cannot read policy: {e}"))?;
    let system_dir = Path::new(super::SYSTEM_POLICY_PATH)
        .parent()
        .unwrap_or(Path::new("/"));
    if owners == Owners::SystemDir && real.parent() != Some(system_dir) {
        return Err(format!(
            "refused: while the system policy {} exists, a policy that replaces it must be \
             one of the administrator's, in {}",
            super::SYSTEM_POLICY_PATH,
            system_dir.display()
        ));
    }
    let cannot_read = |e: std::io::Error| format!("cannot read policy: {e}");
    // Nothing but a regular file is opened: opening a device can do things.
    regular(&std::fs::metadata(&real).map_err(cannot_read)?)?;
    // Non-blocking, so that a FIFO put there since is refused rather than waited on; the
    // checks below are made on what was opened.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&real)
        .map_err(cannot_read)?;
    let meta = file.metadata().map_err(cannot_read)?;
    regular(&meta)?;
    check_one(&real, &meta, owners, false)?;
    for dir in real.ancestors().skip(1) {
        let meta =
            std::fs::metadata(dir).map_err(|e| format!("cannot check {}: {e}", dir.display()))?;
        check_one(dir, &meta, owners, true)?;
    }
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(cannot_read)?;
    Ok((text, real))
}

/// A policy is a regular file.
fn regular(meta: &std::fs::Metadata) -> Result<(), String> {
    if meta.is_dir() {
        Err("cannot read policy: it is a directory".to_owned())
    } else if !meta.is_file() {
        Err("cannot read policy: not a regular file".to_owned())
    } else {
        Ok(())
    }
}

/// One file or directory: owned by root (or the user `owners` names), and written by nobody
/// else. A sticky directory (such as /tmp) may be writable by all: nobody but the owner of an
/// entry can rename or remove it there.
fn check_one(
    path: &Path,
    meta: &std::fs::Metadata,
    owners: Owners,
    is_dir: bool,
) -> Result<(), String> {
    let what = if is_dir { "directory" } else { "file" };
    let owner = meta.uid();
    let trusted = match owners {
        Owners::RootOr(uid) => owner == 0 || owner == uid,
        Owners::RootOnly | Owners::SystemDir => owner == 0,
    };
    if !trusted {
        let whom = match owners {
            Owners::RootOr(0) => "root, so its owner could change the policy".to_owned(),
            Owners::RootOr(uid) => format!(
                "root or uid {uid} (the user running rsh), so its owner could change the policy"
            ),
            Owners::RootOnly | Owners::SystemDir => format!(
                "root: while the system policy {} exists, a policy that replaces it must be \
                 root's",
                super::SYSTEM_POLICY_PATH
            ),
        };
        return Err(format!(
            "refused: the {what} {} is owned by uid {owner}, not by {whom}",
            path.display()
        ));
    }
    let mode = meta.permissions().mode();
    if mode & GROUP_OR_OTHER_WRITE != 0 && !(is_dir && mode & STICKY != 0) {
        return Err(format!(
            "refused: the {what} {} is writable by {} (mode {:04o}), so they could change \
             the policy; fix it with `chmod go-w {}`",
            path.display(),
            writers(mode),
            mode & 0o7777,
            path.display()
        ));
    }
    Ok(())
}

fn writers(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "its group and by everyone",
        (true, false) => "its group",
        _ => "everyone",
    }
}

/// The real user id of this process: the user rsh runs for.
pub(crate) fn real_uid() -> u32 {
    nix::unistd::getuid().as_raw()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_private_file_in_private_directories_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "[shell]\n").unwrap();
        chmod(&file, 0o644);
        let (text, real) = read_trusted(&file, Owners::RootOr(real_uid())).unwrap();
        assert_eq!(text, "[shell]\n");
        assert_eq!(real, std::fs::canonicalize(&file).unwrap());
    }

    #[test]
    fn a_file_others_can_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "").unwrap();
        chmod(&file, 0o666);
        let err = read_trusted(&file, Owners::RootOr(real_uid())).unwrap_err();
        assert!(
            err.contains("is writable by its group and by everyone (mode 0666)"),
            "{err}"
        );
        assert!(err.contains("chmod go-w"), "{err}");
        chmod(&file, 0o620);
        let err = read_trusted(&file, Owners::RootOr(real_uid())).unwrap_err();
        assert!(err.contains("writable by its group (mode 0620)"), "{err}");
    }

    #[test]
    fn a_directory_others_can_write_is_refused_unless_sticky() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("d");
        std::fs::create_dir(&sub).unwrap();
        let file = sub.join("p.toml");
        std::fs::write(&file, "").unwrap();
        chmod(&sub, 0o777);
        let err = read_trusted(&file, Owners::RootOr(real_uid())).unwrap_err();
        assert!(err.contains("the directory"), "{err}");
        assert!(
            err.contains("writable by its group and by everyone"),
            "{err}"
        );
        chmod(&sub, 0o1777);
        read_trusted(&file, Owners::RootOr(real_uid())).unwrap();
    }

    #[test]
    fn a_symlink_is_judged_by_what_it_points_at() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        let file = open.join("p.toml");
        std::fs::write(&file, "").unwrap();
        chmod(&open, 0o777);
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let err = read_trusted(&link, Owners::RootOr(real_uid())).unwrap_err();
        assert!(err.contains(&open.display().to_string()), "{err}");
    }

    #[test]
    fn a_file_owned_by_someone_else_is_refused() {
        if real_uid() != 0 {
            eprintln!("SKIPPED: changing a file's owner needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "").unwrap();
        std::os::unix::fs::chown(&file, Some(4321), None).unwrap();
        let err = read_trusted(&file, Owners::RootOr(0)).unwrap_err();
        assert!(err.contains("is owned by uid 4321, not by root"), "{err}");
        read_trusted(&file, Owners::RootOr(4321)).unwrap();
        let err = read_trusted(&file, Owners::RootOnly).unwrap_err();
        assert!(
            err.contains("a policy that replaces it must be root's"),
            "{err}"
        );
        // The directory above is root's; one owned by the user counts as theirs too.
        std::os::unix::fs::chown(dir.path(), Some(4321), None).unwrap();
        read_trusted(&file, Owners::RootOr(4321)).unwrap();
        std::os::unix::fs::chown(&file, Some(0), None).unwrap();
        let err = read_trusted(&file, Owners::RootOr(0)).unwrap_err();
        assert!(err.contains("the directory"), "{err}");
    }

    #[test]
    fn a_replacement_for_the_system_policy_must_be_in_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "").unwrap();
        let err = read_trusted(&file, Owners::SystemDir).unwrap_err();
        assert!(
            err.contains("must be one of the administrator's, in /etc/rsh"),
            "{err}"
        );
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p.toml");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let err = read_trusted(&fifo, Owners::RootOr(real_uid())).unwrap_err();
        assert!(err.contains("not a regular file"), "{err}");
    }

    #[test]
    fn a_directory_is_not_a_policy() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_trusted(dir.path(), Owners::RootOr(real_uid())).unwrap_err();
        assert!(err.contains("it is a directory"), "{err}");
    }
}
