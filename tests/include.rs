//! The include directory: `policy.d/*.toml` beside a policy file add commands, rules, risks and
//! sensitive files to it, in name order, each entry keeping its own file and line. They are
//! trusted like the policy itself and cannot change its settings; their `[users.NAME]` and
//! `[groups.NAME]` sections add entries for that user or group alone.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;

use common::{Run, run_rsh};

const MAIN: &str = r#"[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]

[commands]
allow = ["echo", "ls"]
deny = ["rm"]
"#;

struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    /// A policy with `files` (name, text) in its include directory.
    fn new(files: &[(&str, &str)]) -> Case {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("policy.toml"), MAIN).unwrap();
        fs::create_dir(dir.path().join("policy.d")).unwrap();
        for (name, text) in files {
            fs::write(dir.path().join("policy.d").join(name), text).unwrap();
        }
        fs::write(dir.path().join("data.txt"), "data\n").unwrap();
        Case { dir }
    }

    fn include(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join("policy.d").join(name)
    }

    fn run(&self, args: &[&str]) -> Run {
        run_rsh(&self.dir.path().join("policy.toml"), self.dir.path(), args)
    }
}

#[test]
fn included_files_add_entries_that_keep_their_place() {
    let case = Case::new(&[
        ("10-team.toml", "[commands]\nallow = [\"cat\", \"touch\"]\n"),
        ("20-rules.toml", "\n[rules]\ndeny = [\"touch forbidden\"]\n"),
        ("README", "[shell]\nunknown = \"allow\"\n"),
        ("off.toml~", "[shell]\nunknown = \"allow\"\n"),
    ]);
    let run = case.run(&[
        "-c",
        "cat data.txt; touch made; touch forbidden; head data.txt",
    ]);
    assert_eq!(run.stdout, "data\n", "{}", run.describe());
    assert!(case.dir.path().join("made").exists(), "{}", run.describe());
    assert!(
        !case.dir.path().join("forbidden").exists(),
        "{}",
        run.describe()
    );
    let rules = case.include("20-rules.toml");
    run.assert_stderr_has(&format!(
        "rsh: denied: touch forbidden: matches rules.deny \"touch forbidden\" ({}:3)",
        rules.display()
    ));
    // Files that are not *.toml are not read: head stays unknown.
    assert!(
        run.stderr
            .contains("rsh: denied: head data.txt: not allowed by the policy"),
        "{}",
        run.describe()
    );

    let run = case.run(&["--explain", "cat data.txt"]);
    let team = case.include("10-team.toml");
    assert!(
        run.stdout
            .contains(&format!("listed in commands.allow ({}:2)", team.display())),
        "{}",
        run.describe()
    );
    let run = case.run(&["--check-policy"]);
    assert!(
        run.stdout
            .contains(&format!("(with {}, {})", team.display(), rules.display())),
        "{}",
        run.describe()
    );
}

#[test]
fn an_included_list_cannot_lift_a_listed_denial_nor_change_a_setting() {
    let case = Case::new(&[("team.toml", "[commands]\nallow = [\"rm\"]\n")]);
    let run = case.run(&["-c", "rm data.txt"]);
    assert!(
        case.dir.path().join("data.txt").exists(),
        "{}",
        run.describe()
    );
    run.assert_stderr_has("listed in commands.deny");

    for (text, key, at) in [
        ("[shell]\nunknown = \"allow\"\n", "[shell]", ":1:2:"),
        (
            "[commands]\nallow = []\n[paths]\nwrite = [\"/\"]\n",
            "[paths]",
            ":3:2:",
        ),
        (
            "[users.ann.commands]\nallow = [\"ls\"]\n[users.ann.shell]\nunknown = \"allow\"\n",
            "[users.ann.shell]",
            ":3:12:",
        ),
        ("[audit]\nrequired = false\n", "[audit]", ":1:2:"),
        ("[risk]\nbuiltin = false\n", "risk.builtin", ":2:1:"),
    ] {
        let case = Case::new(&[("team.toml", text)]);
        let run = case.run(&["-c", "touch canary"]);
        assert!(
            !case.dir.path().join("canary").exists(),
            "{}",
            run.describe()
        );
        assert_eq!(run.status, 2, "{}", run.describe());
        let expected = format!(
            "rsh: cannot start: policy {}{at} {key} cannot be set in an included file",
            case.include("team.toml").display()
        );
        assert!(
            run.stderr.contains(&expected),
            "{expected}\n{}",
            run.describe()
        );
    }
}

/// A team's file names its group: what a `[users.NAME]` or `[groups.NAME]` section of an
/// included file adds holds for that user or the group's members only, and like every
/// included entry it cannot lift a denial of the main file. (The tests run as root.)
#[test]
fn sections_of_an_included_file_add_entries_for_their_user_or_group() {
    let team = "[groups.root.commands]\nallow = [\"cat\"]\n\n\
                [users.root.commands]\nallow = [\"touch\", \"rm\"]\n\n\
                [users.rsh-nobody-here.commands]\nallow = [\"head\"]\n";
    let case = Case::new(&[("team.toml", team)]);
    let run = case.run(&[
        "-c",
        "cat data.txt; touch made; rm data.txt; head data.txt; ls made",
    ]);
    assert_eq!(run.stdout, "data\nmade\n", "{}", run.describe());
    assert!(case.dir.path().join("made").exists(), "{}", run.describe());
    // The main file's listed denial stands; the section for another user adds nothing.
    assert!(
        case.dir.path().join("data.txt").exists(),
        "{}",
        run.describe()
    );
    run.assert_stderr_has("rsh: denied: rm data.txt: listed in commands.deny");
    run.assert_stderr_has("rsh: denied: head data.txt: not allowed by the policy");

    let file = case.include("team.toml");
    let run = case.run(&["--explain", "touch x"]);
    assert!(
        run.stdout.contains(&format!(
            "listed in users.root.commands.allow ({}:5)",
            file.display()
        )),
        "{}",
        run.describe()
    );
    // A section for nobody on this system is reported where it is written, and so is the
    // entry the main file's denial makes useless.
    let run = case.run(&["--check-policy"]);
    assert_eq!(run.status, 1, "{}", run.describe());
    run.assert_stderr_has(&format!(
        "{}:7: [users.rsh-nobody-here] applies to no one",
        file.display()
    ));
    run.assert_stderr_has(&format!(
        "{}:5: users.root.commands.allow \"rm\" never decides",
        file.display()
    ));
}

#[test]
fn an_included_file_others_can_write_stops_rsh() {
    let case = Case::new(&[("team.toml", "[commands]\nallow = [\"touch\"]\n")]);
    let file = case.include("team.toml");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o666)).unwrap();
    let run = case.run(&["-c", "echo ran; touch canary"]);
    assert_eq!(run.stdout, "", "{}", run.describe());
    assert!(!case.dir.path().join("canary").exists());
    run.assert_stderr_has(&format!(
        "the file {} is writable by its group and by everyone (mode 0666)",
        file.display()
    ));
    // A bad pattern in an included file names that file.
    fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
    fs::write(&file, "[rules]\n\nallow = [\"\"]\n").unwrap();
    let run = case.run(&["-c", "echo ran"]);
    assert_eq!(run.stdout, "", "{}", run.describe());
    run.assert_stderr_has(&format!(
        "{}:3:10: rules.allow: invalid rule",
        file.display()
    ));
}
