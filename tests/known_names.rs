//! What the policy's names resolved to, kept between starts in /run/rsh (see
//! `src/policy/known_names.rs`): written only by root, used by anyone while the search
//! directories are unchanged, and never wrong: a program added to a search directory, a
//! symbolic link that comes to lead somewhere, and a store someone else owns are all seen,
//! and a program denied by name stays denied under another name while the store is used.
//!
//! The search directory is one only root can change (the store is kept for no other), made
//! under /run; the test needs root, and says so where it cannot run. Whether a start used
//! the store is what rsh says with `RSH_LOG=debug`.

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
    Path::new("/run/rsh").join(format!("names-{hash:016x}"))
}

/// Waits until `dir`'s change time is old enough for rsh to store what it holds.
fn settle(dir: &Path) {
    let ctime = fs::metadata(dir).unwrap().ctime();
    let ready = SystemTime::UNIX_EPOCH + Duration::from_secs(ctime as u64 + 3);
    if let Ok(left) = ready.duration_since(SystemTime::now()) {
        std::thread::sleep(left);
    }
}

/// `rsh --policy POLICY -c LINE`, as `user` if given, with rsh's own account on stderr.
fn rsh(policy: &Path, line: &str, user: Option<(u32, u32)>) -> Run {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(RSH);
    if let Some((uid, gid)) = user {
        command.uid(uid).gid(gid);
    }
    run_rsh(command, policy, line)
}

/// `command` (rsh, or what starts it) run with rsh's arguments for `policy` and `line`.
fn run_rsh(mut command: Command, policy: &Path, line: &str) -> Run {
    command
        .arg("--policy")
        .arg(policy)
        .arg("-c")
        .arg(line)
        .current_dir("/")
        .env("RSH_LOG", "rsh::policy::known_names=debug")
        .stdin(Stdio::null());
    Run::of(command.output().expect("run rsh"))
}

/// A policy in `conf` that searches `bin` only, confines nothing, and says `commands`.
fn write_policy(conf: &Path, bin: &Path, unknown: &str, commands: &str) -> PathBuf {
    let policy = conf.join("policy.toml");
    let text = format!(
        "[shell]\npath = [{bin:?}]\nunknown = {unknown:?}\n\n[sandbox]\nmode = \"off\"\n\n\
         [commands]\n{commands}\n"
    );
    fs::write(&policy, text).unwrap();
    policy
}

/// Whether the run looked its names up from the store.
fn used_store(run: &Run) -> bool {
    assert!(
        run.stderr.contains("policy names resolved"),
        "rsh did not say how it resolved its names\n{}",
        run.describe()
    );
    run.stderr.contains("store=true")
}

/// The run refused `denied` (status 126), having used the store or not as `from_store` says.
fn assert_refused(run: &Run, denied: &str, from_store: bool) {
    assert_eq!(
        used_store(run),
        from_store,
        "the store was {}used\n{}",
        if from_store { "not " } else { "" },
        run.describe()
    );
    assert_eq!(run.status, 126, "{}", run.describe());
    run.assert_stderr_has(&format!("rsh: denied: {denied}"));
}

/// The store's identity and contents, to tell whether rsh wrote it again.
fn snapshot(store: &Path) -> (u64, Vec<u8>) {
    (
        fs::metadata(store).map(|m| m.ino()).unwrap_or(0),
        fs::read(store).unwrap_or_default(),
    )
}

/// A directory under /run that only root can change and everyone can search.
fn under_run(prefix: &str) -> tempfile::TempDir {
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
}

/// Whether /run can hold search directories rsh stores: root's alone, on a local file
/// system rsh trusts the change times of.
fn run_dir_usable() -> bool {
    let meta = fs::metadata("/run");
    if !meta.is_ok_and(|m| m.is_dir() && m.uid() == 0 && m.mode() & 0o022 == 0) {
        eprintln!("SKIPPED: no /run of root's alone to make a search directory in");
        return false;
    }
    let out = Command::new("stat")
        .args(["-f", "-c", "%T", "/run"])
        .output()
        .expect("run stat");
    let kind = String::from_utf8_lossy(&out.stdout);
    if !["ext2/ext3", "tmpfs", "xfs", "btrfs"].contains(&kind.trim()) {
        eprintln!("SKIPPED: /run is on {kind:?}, whose directories rsh does not store");
        return false;
    }
    true
}

/// The throwaway user, where this machine can run these tests (root, a usable /run);
/// None, with a message, elsewhere.
fn store_test_user() -> Option<(u32, u32)> {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("SKIPPED: the store of resolved names is written by root only");
        return None;
    }
    if !run_dir_usable() {
        return None;
    }
    common::test_user()
}

#[test]
fn stored_names_are_used_only_while_they_are_right() {
    let Some(user) = store_test_user() else {
        return;
    };
    let (bin, other, conf) = (
        under_run("rsh-names-bin-"),
        under_run("rsh-names-other-"),
        under_run("rsh-names-conf-"),
    );
    let (bin, other) = (bin.path(), other.path());
    fs::copy("/bin/echo", bin.join("tool")).unwrap();
    fs::copy("/bin/echo", bin.join("banned")).unwrap();
    // The same file under another name, outside the search directory.
    fs::hard_link(bin.join("banned"), other.join("alias")).unwrap();
    // A link that leads nowhere yet: what it leads to appears later, outside the directory.
    std::os::unix::fs::symlink(other.join("vi-real"), bin.join("vi")).unwrap();
    let policy = write_policy(
        conf.path(),
        bin,
        "allow",
        "allow = [\"tool\"]\ndeny = [\"banned\", \"evil\", \"vi\"]",
    );
    let alias = other.join("alias").display().to_string();
    let store = store_for(&[bin]);
    let _ = fs::remove_file(&store);
    settle(bin);

    // Only root writes the store.
    let run = rsh(&policy, "tool by-the-user", Some(user));
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(
        !used_store(&run) && !store.exists(),
        "a user's rsh wrote {store:?}"
    );
    let run = rsh(&policy, "tool by-root", None);
    assert_eq!(run.status, 0, "{}", run.describe());
    run.assert_stdout_has("by-root");
    let meta = fs::metadata(&store).expect("root's rsh stored the names");
    assert_eq!((meta.uid(), meta.mode() & 0o777), (0, 0o644));
    let written = snapshot(&store);

    // The program denied by name is denied under another name, through the stored file's
    // identity; the link that now leads to a program makes `vi` that program, and denied,
    // though the directory itself did not change.
    fs::copy("/bin/echo", other.join("vi-real")).unwrap();
    for who in [Some(user), None] {
        let run = rsh(&policy, &format!("tool before; {alias} x"), who);
        assert_refused(&run, &format!("{alias} x"), true);
        run.assert_stdout_has("before");
        assert_refused(&rsh(&policy, "vi x", who), "vi x", true);
        if who.is_some() {
            assert_eq!(snapshot(&store), written, "a user's rsh wrote the store");
        }
    }
    // Root's rsh stored the names again: a directory the link went through had changed.
    assert_ne!(
        snapshot(&store),
        written,
        "the link's change was not stored"
    );
    let written = snapshot(&store);

    // A program added to the directory changes it: the store is not used, nor written while
    // the change is recent.
    fs::copy("/bin/echo", bin.join("evil")).unwrap();
    for who in [Some(user), None] {
        assert_refused(&rsh(&policy, "evil x", who), "evil x", false);
    }
    assert_eq!(
        snapshot(&store),
        written,
        "an unsettled directory was stored"
    );

    // Once the directory has settled, root's rsh stores it as it is now, and the next start
    // uses that.
    settle(bin);
    let run = rsh(&policy, "evil y", None);
    assert_eq!(run.status, 126, "{}", run.describe());
    let current = snapshot(&store);
    assert_ne!(current, written, "the store was not written again");
    assert_refused(&rsh(&policy, "evil y", Some(user)), "evil y", true);

    // A store that is not root's alone is not read, by the user or by root; root's rsh
    // writes it again.
    std::os::unix::fs::chown(&store, Some(user.0), None).unwrap();
    for who in [Some(user), None] {
        assert_refused(&rsh(&policy, "evil z", who), "evil z", false);
    }
    assert_eq!(fs::metadata(&store).unwrap().uid(), 0, "not written again");
    fs::set_permissions(&store, std::os::unix::fs::PermissionsExt::from_mode(0o666)).unwrap();
    assert_refused(&rsh(&policy, "evil z", Some(user)), "evil z", false);
    let _ = fs::remove_file(&store);
}

/// The number of links the run answered from the store.
fn stored_links(run: &Run) -> usize {
    let field = run.stderr.split("stored_links=").nth(1).unwrap_or_else(|| {
        panic!(
            "rsh did not say how many links it stored\n{}",
            run.describe()
        )
    });
    field
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number of links")
}

/// A link whose chain runs through another directory (as `/etc/alternatives`) is answered
/// from the store while that directory is unchanged, and looked up again once it changes,
/// though the search directory does not: switching the alternative moves the name `vi`, and
/// the policy's denial with it, from one program to the other, for the user as for root.
#[test]
fn a_stored_link_follows_its_chain() {
    let Some(user) = store_test_user() else {
        return;
    };
    let (bin, alternatives, real, conf) = (
        under_run("rsh-links-bin-"),
        under_run("rsh-links-alt-"),
        under_run("rsh-links-real-"),
        under_run("rsh-links-conf-"),
    );
    let (bin, alternatives, real) = (bin.path(), alternatives.path(), real.path());
    fs::copy("/bin/echo", real.join("vim")).unwrap();
    fs::copy("/bin/echo", real.join("nano")).unwrap();
    std::os::unix::fs::symlink(alternatives.join("vi"), bin.join("vi")).unwrap();
    std::os::unix::fs::symlink(real.join("vim"), alternatives.join("vi")).unwrap();
    fs::copy("/bin/echo", bin.join("tool")).unwrap();
    let policy = write_policy(
        conf.path(),
        bin,
        "allow",
        "allow = [\"tool\"]\ndeny = [\"vi\"]",
    );
    let (vim, nano) = (
        real.join("vim").display().to_string(),
        real.join("nano").display().to_string(),
    );
    let store = store_for(&[bin]);
    let _ = fs::remove_file(&store);
    for dir in [bin, alternatives, real] {
        settle(dir);
    }
    let run = rsh(&policy, "tool stored", None);
    assert_eq!(run.status, 0, "{}", run.describe());
    assert!(store.exists(), "root's rsh stored the names");

    // vim is `vi`, known from the store.
    for who in [Some(user), None] {
        let run = rsh(&policy, &format!("{vim} x"), who);
        assert_refused(&run, &format!("{vim} x"), true);
        assert_eq!(stored_links(&run), 1, "{}", run.describe());
        let run = rsh(&policy, &format!("{nano} x"), who);
        assert_eq!(run.status, 0, "{}", run.describe());
    }

    // The alternative switches to nano: the search directory is the same, the store is
    // used, but not for the link.
    fs::remove_file(alternatives.join("vi")).unwrap();
    std::os::unix::fs::symlink(real.join("nano"), alternatives.join("vi")).unwrap();
    for who in [Some(user), None] {
        let run = rsh(&policy, &format!("{nano} x"), who);
        assert_refused(&run, &format!("{nano} x"), true);
        assert_eq!(stored_links(&run), 0, "{}", run.describe());
        let run = rsh(&policy, &format!("{vim} x"), who);
        assert_eq!(run.status, 0, "{}", run.describe());
        run.assert_stdout_has("x");
    }
    let _ = fs::remove_file(&store);
}

/// `rsh` as `user` (or root), started in a mount namespace of its own (`unshare --mount`).
fn rsh_in_new_namespace(policy: &Path, line: &str, user: Option<(u32, u32)>) -> Run {
    let mut command = Command::new("unshare");
    command.args(["--mount", "--"]);
    if let Some((uid, gid)) = user {
        command.args([
            "setpriv",
            &format!("--reuid={uid}"),
            &format!("--regid={gid}"),
            "--clear-groups",
        ]);
    }
    command.arg(RSH);
    run_rsh(command, policy, line)
}

/// Another mount namespace may show other files at the same paths: a store made in one is
/// not used from another (`unshare --mount`, whose mounts are copies with ids of their own),
/// though every directory is the same one, unchanged; and the store root's rsh makes there is
/// not used back in the first. Which of the mount ids and the namespace decides is the unit
/// test `a_store_is_used_in_its_boot_and_namespace`.
#[test]
fn a_store_is_used_only_from_the_mount_namespace_it_was_made_in() {
    let Some(user) = store_test_user() else {
        return;
    };
    let probe = Command::new("unshare").args(["--mount", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: `unshare --mount` cannot make a mount namespace here");
        return;
    }
    let probe = Command::new("setpriv")
        .args(["--clear-groups", "true"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: no `setpriv` to run rsh as the test user in the new namespace");
        return;
    }
    let (bin, conf) = (under_run("rsh-ns-bin-"), under_run("rsh-ns-conf-"));
    let bin = bin.path();
    fs::copy("/bin/echo", bin.join("tool")).unwrap();
    let policy = write_policy(conf.path(), bin, "deny", "allow = [\"tool\"]");
    let store = store_for(&[bin]);
    let _ = fs::remove_file(&store);
    settle(bin);
    let stored_here = |who| {
        let run = rsh(&policy, "tool here", who);
        assert_eq!(run.status, 0, "{}", run.describe());
        used_store(&run)
    };
    let stored_there = |who| {
        let run = rsh_in_new_namespace(&policy, "tool there", who);
        assert_eq!(run.status, 0, "{}", run.describe());
        run.assert_stdout_has("there");
        used_store(&run)
    };
    assert!(!stored_here(None), "no store yet");
    assert!(stored_here(Some(user)), "root's store was not used");
    let written = snapshot(&store);
    assert!(!stored_there(Some(user)), "used from another namespace");
    assert_eq!(snapshot(&store), written, "a user's rsh wrote the store");
    // Root's rsh in the other namespace stores the names as it sees them; that store is
    // not used here.
    assert!(!stored_there(None), "used from another namespace");
    assert_ne!(snapshot(&store), written, "not stored again from there");
    assert!(
        !stored_here(Some(user)),
        "a store from another namespace was used"
    );
    assert!(
        !stored_here(None),
        "a store from another namespace was used"
    );
    assert!(stored_here(Some(user)), "root's store was not used");
    let _ = fs::remove_file(&store);
}
