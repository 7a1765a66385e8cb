//! What the policy's names resolved to, kept between starts in /var/cache/rsh (see
//! `src/policy/known_names.rs`): written only by root, used by anyone while the search
//! directories are unchanged, and never wrong: a program added to a search directory, a
//! symbolic link that comes to lead somewhere, and a store someone else owns are all seen.
//!
//! The search directory is one only root can change (the store is kept for no other), made
//! under /run; the test needs root, and says so where it cannot run.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

mod common;

use common::Run;

const RSH: &str = env!("CARGO_BIN_EXE_rsh");

/// Where rsh keeps the names resolved for the search directories `dirs`.
fn store_for(dirs: &[&Path]) -> PathBuf {
    // 64-bit FNV-1a over each directory and a NUL, as rsh names the file.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for dir in dirs {
        for &byte in dir.as_os_str().as_encoded_bytes().iter().chain(&[0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    Path::new("/var/cache/rsh").join(format!("names-{hash:016x}"))
}

/// Waits until `dir`'s change time is old enough for rsh to store what it holds.
fn settle(dir: &Path) {
    let changed = fs::metadata(dir).unwrap().modified().unwrap();
    let ctime = fs::metadata(dir).unwrap().ctime();
    let changed = changed.max(SystemTime::UNIX_EPOCH + Duration::from_secs(ctime as u64));
    let ready = changed + Duration::from_millis(2100);
    if let Ok(left) = ready.duration_since(SystemTime::now()) {
        std::thread::sleep(left);
    }
}

fn rsh(policy: &Path, line: &str, as_user: Option<(u32, u32)>) -> Run {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(RSH);
    command
        .arg("--policy")
        .arg(policy)
        .arg("-c")
        .arg(line)
        .current_dir("/")
        .stdin(Stdio::null());
    if let Some((uid, gid)) = as_user {
        command.uid(uid).gid(gid);
    }
    Run::of(command.output().expect("run rsh"))
}

/// The store's identity and contents, to tell whether rsh wrote it again.
fn snapshot(store: &Path) -> (u64, Vec<u8>) {
    (
        fs::metadata(store).map(|m| m.ino()).unwrap_or(0),
        fs::read(store).unwrap_or_default(),
    )
}

#[test]
fn stored_names_are_used_only_while_they_are_right() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: the store of resolved names is written by root only");
        return;
    }
    let run_dir = fs::metadata("/run");
    if !run_dir.is_ok_and(|m| m.is_dir() && m.uid() == 0 && m.mode() & 0o022 == 0) {
        eprintln!("SKIPPED: no /run of root's alone to make a search directory in");
        return;
    }
    let Some(user) = common::test_user() else {
        return;
    };
    let under_run = |prefix: &str| {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in("/run")
            .expect("a directory under /run");
        fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        dir
    };
    let bin = under_run("rsh-names-bin-");
    let other = under_run("rsh-names-other-");
    let conf = under_run("rsh-names-conf-");
    let (bin, other) = (bin.path(), other.path());
    fs::copy("/bin/echo", bin.join("tool")).unwrap();
    // A link that leads nowhere yet: what it leads to appears later, outside the directory.
    std::os::unix::fs::symlink(other.join("vi-real"), bin.join("vi")).unwrap();
    let policy = conf.path().join("policy.toml");
    fs::write(
        &policy,
        format!(
            r#"[shell]
path = [{bin:?}]
unknown = "allow"

[sandbox]
mode = "off"

[commands]
allow = ["tool"]
deny = ["evil", "vi"]
"#
        ),
    )
    .unwrap();
    let store = store_for(&[bin]);
    let _ = fs::remove_file(&store);
    settle(bin);

    // Only root writes the store.
    let run = rsh(&policy, "tool by-the-user", Some(user));
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(!store.exists(), "a user's rsh wrote {store:?}");
    let run = rsh(&policy, "tool by-root", None);
    assert_eq!(run.status, 0, "{}", run.describe());
    run.assert_stdout_has("by-root");
    let meta = fs::metadata(&store).expect("root's rsh stored the names");
    assert_eq!((meta.uid(), meta.mode() & 0o777), (0, 0o644));
    let written = snapshot(&store);

    // The link now leads to a program: `vi` is that program, and denied, though the
    // directory itself did not change and the store is used as it is.
    fs::copy("/bin/echo", other.join("vi-real")).unwrap();
    for as_user in [None, Some(user)] {
        let run = rsh(&policy, "tool before; vi x", as_user);
        assert_eq!(run.status, 126, "{}", run.describe());
        run.assert_stderr_has("rsh: denied: vi x");
        run.assert_stdout_has("before");
    }
    assert_eq!(
        snapshot(&store),
        written,
        "the store was not used as it was"
    );

    // A program added to the directory changes it: the store is not used.
    fs::copy("/bin/echo", bin.join("evil")).unwrap();
    for as_user in [Some(user), None] {
        let run = rsh(&policy, "evil x", as_user);
        assert_eq!(run.status, 126, "{}", run.describe());
        run.assert_stderr_has("rsh: denied: evil x");
    }

    // Once the directory has settled, root's rsh stores it as it is now, and the next start
    // uses that.
    settle(bin);
    let run = rsh(&policy, "evil y", None);
    assert_eq!(run.status, 126, "{}", run.describe());
    let current = snapshot(&store);
    assert_ne!(current, written, "the store was not written again");
    let run = rsh(&policy, "evil y", None);
    assert_eq!(run.status, 126, "{}", run.describe());
    assert_eq!(
        snapshot(&store),
        current,
        "the store was not used as it was"
    );

    // A store that is not root's alone is not read, and root's rsh writes it again.
    std::os::unix::fs::chown(&store, Some(user.0), None).unwrap();
    let run = rsh(&policy, "evil z", None);
    assert_eq!(run.status, 126, "{}", run.describe());
    assert_eq!(
        fs::metadata(&store).unwrap().uid(),
        0,
        "the store was not written again"
    );
    let _ = fs::remove_file(&store);
}
