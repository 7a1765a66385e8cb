//! `[users.NAME]` and `[groups.NAME]`: one policy file, different rules for different people.
//!
//! The tests make a real user and group (`useradd`, `groupadd`), run the real rsh as that user
//! and as root on the same policy, and check what each may run, by the file a command leaves
//! behind and by the rule the refusal names. They need root; elsewhere they say they were
//! skipped.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const RSH: &str = env!("CARGO_BIN_EXE_rsh");
mod common;

use common::test_user;

const POLICY: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]

[commands]
allow = ["echo", "id"]

[groups.rsh-t-ops.commands]
allow = ["echo", "id", "touch"]

[users.rsh-t-ann.commands]
deny = ["id"]
"#;

struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    /// root's directory with the policy, and in it `work`, the test user's, where rsh runs. The
    /// policy must not sit in the user's directory: root would refuse it there.
    fn new(uid: u32, gid: u32) -> Dir {
        let dir = tempfile::tempdir().expect("temporary directory");
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
        fs::write(dir.path().join("policy.toml"), POLICY).expect("write the policy");
        let work = dir.path().join("work");
        fs::create_dir(&work).expect("mkdir work");
        std::os::unix::fs::chown(&work, Some(uid), Some(gid)).expect("chown");
        Dir { dir }
    }

    /// Where rsh runs.
    fn path(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// rsh on the policy, as UID when given, else as root.
    fn rsh(&self, ids: Option<(u32, u32)>, args: &[&str]) -> Output {
        let mut command = Command::new(RSH);
        command
            .arg("--policy")
            .arg(self.dir.path().join("policy.toml"))
            .args(args)
            .current_dir(self.path())
            .stdin(Stdio::null());
        if let Some((uid, gid)) = ids {
            command.uid(uid).gid(gid);
        }
        command.output().expect("run rsh")
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_users_group_and_own_sections_apply_to_them_only() {
    let Some(ids) = test_user() else { return };
    let d = Dir::new(ids.0, ids.1);

    // root is neither the user nor in the group: touch is not allowed, id is.
    let out = d.rsh(None, &["-c", "touch by-root; id -u"]);
    assert!(!d.path().join("by-root").exists());
    assert!(stderr(&out).contains("rsh: denied: touch by-root: not allowed by the policy"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");

    // The user: the group's list lets touch through; their own section refuses id.
    let out = d.rsh(Some(ids), &["-c", "touch by-ann; id -u"]);
    assert!(d.path().join("by-ann").exists(), "{}", stderr(&out));
    let policy = d.dir.path().join("policy.toml");
    let expected = format!(
        "rsh: denied: id -u: listed in users.rsh-t-ann.commands.deny ({}:11)\n",
        policy.display()
    );
    assert_eq!(stderr(&out), expected);
    assert_eq!(out.status.code(), Some(126));
}

#[test]
fn explain_shows_the_section_that_decided() {
    let Some(ids) = test_user() else { return };
    let d = Dir::new(ids.0, ids.1);
    let out = d.rsh(Some(ids), &["--explain", "touch x"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("allow: listed in groups.rsh-t-ops.commands.allow"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(!d.path().join("x").exists());
}
