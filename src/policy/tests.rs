//! Loading and validation: what is accepted, and that every error names the right line.

use super::*;

const ORIGIN: &str = "/etc/rsh/policy.toml";

fn load(text: &str) -> Policy {
    Policy::from_toml(text, ORIGIN, Some("")).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str) -> PolicyError {
    match Policy::from_toml(text, ORIGIN, Some("")) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

/// Asserts the error is on `line` and its message contains `needle`.
#[track_caller]
fn assert_error(text: &str, line: usize, needle: &str) -> PolicyError {
    let e = error(text);
    assert_eq!(e.origin, ORIGIN);
    assert_eq!(e.line, Some(line), "wrong line for: {e}");
    assert!(e.column.is_some(), "no column: {e}");
    assert!(e.message.contains(needle), "{e:?} lacks {needle:?}");
    e
}

#[test]
fn verdicts_are_ordered_and_named() {
    assert!(Verdict::Allow < Verdict::Ask && Verdict::Ask < Verdict::Deny);
    assert_eq!(
        [Verdict::Ask, Verdict::Deny, Verdict::Allow]
            .into_iter()
            .max(),
        Some(Verdict::Deny)
    );
    assert_eq!(Verdict::Ask.to_string(), "ask");
    assert_eq!("deny".parse::<Verdict>(), Ok(Verdict::Deny));
    assert!("Deny".parse::<Verdict>().is_err());
}

#[test]
fn policy_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Policy>();
}

#[test]
fn accepts_empty_policy() {
    let p = load("");
    assert_eq!(p.unknown(), Verdict::Deny);
    assert_eq!(p.search_path(), None);
    assert_eq!(p.origin(), ORIGIN);
}

#[test]
fn accepts_the_documented_example() {
    let p = load(
        r#"
[shell]
path = ["/usr/local/bin", "/usr/bin", "/bin"]
unknown = "ask"

[commands]
allow = ["ls", "cat", "grep"]
ask   = ["make"]
deny  = ["sh", "bash", "ls"]

[commands.git]
default = "allow"
allow = ["status:*", "log:*"]
ask   = ["push:*"]
deny  = ["*:-c:*", "*:--exec-path*:*"]

[commands."/usr/lib/openssh/sftp-server"]
deny = [":*"]

[rules]
allow = ["npm run test:*"]
ask   = ["git push:*"]
deny  = ["rm -rf /:*", "'/opt/my tool' re:.*"]
"#,
    );
    assert_eq!(p.unknown(), Verdict::Ask);
    let path: Vec<PathBuf> = ["/usr/local/bin", "/usr/bin", "/bin"]
        .iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(p.search_path(), Some(path.as_slice()));
    assert_eq!(p.listed().len(), 7);
    assert_eq!(p.tables().len(), 2);
    assert_eq!(p.tables()[0].key, "commands.git");
    assert_eq!(
        p.tables()[1].key,
        r#"commands."/usr/lib/openssh/sftp-server""#
    );
    assert_eq!(p.tables()[0].patterns.len(), 5);
    assert_eq!(p.rules().len(), 4);
    assert_eq!(p.rules()[3].command.name, "/opt/my tool");
    // Everything is kept in file order, with its line.
    let lines: Vec<usize> = p.listed().iter().map(|l| l.at.line).collect();
    assert_eq!(lines, [7, 7, 7, 8, 9, 9, 9]);
    assert_eq!(p.tables()[0].default.map(|d| d.1.line), Some(12));
    assert_eq!(p.rules()[0].rule.at.line, 21);
}

#[test]
fn accepts_dotted_and_inline_command_tables() {
    let p = load(
        r#"
[commands]
git.deny = ["-c:*"]
find = { deny = ["*:-exec:*"], default = "allow" }
"#,
    );
    assert_eq!(p.tables().len(), 2);
    assert_eq!(p.tables()[0].key, "commands.git");
    assert_eq!(p.tables()[1].default.map(|d| d.0), Some(Verdict::Allow));
}

#[test]
fn error_display_names_file_line_and_column() {
    let e = assert_error(
        "[shell]\nunknown = \"deny\"\nfoo = 1\n",
        3,
        "unknown key `foo`",
    );
    assert_eq!(
        e.to_string(),
        "/etc/rsh/policy.toml:3:1: unknown key `foo` in [shell] (expected one of `path`, `unknown`, `mode`, `strict`, `warnings`, `prompt`, `prompt_from_env`, `history`, `history_size`, `idle_timeout`, `motd`)"
    );
    let e = PolicyError {
        origin: "p.toml".into(),
        line: None,
        column: None,
        message: "cannot read policy: gone".into(),
    };
    assert_eq!(e.to_string(), "p.toml: cannot read policy: gone");
}

#[test]
fn rejects_unknown_keys_with_their_line() {
    assert_error("\n\n[sehll]\n", 3, "unknown key `sehll` at the top level");
    assert_error("version = 1\n", 1, "unknown key `version`");
    assert_error(
        "[commands.git]\nallow = []\n\nalow = []\n",
        4,
        "unknown key `alow` in [commands.git] (expected one of `description`, `default`, `risk`, `allow`, `ask`, `deny`, `network`, `unix_sockets`, `subprocesses`)",
    );
    assert_error(
        "[commands]\nls = {}\ngit.alow = []\n",
        3,
        "in [commands.git]",
    );
    assert_error(
        "[commands]\n\nfind = { deny = [], exec = true }\n",
        3,
        "unknown key `exec` in [commands.find]",
    );
    assert_error(
        "[commands.\"/usr/bin/x\"]\nnope = 1\n",
        2,
        r#"in [commands."/usr/bin/x"]"#,
    );
    assert_error(
        "[rules]\nallow = []\npermit = []\n",
        3,
        "unknown key `permit` in [rules]",
    );
}

#[test]
fn rejects_wrong_types_with_their_line() {
    assert_error(
        "[shell]\npath = \"/bin\"\n",
        2,
        "shell.path: invalid type: string",
    );
    assert_error(
        "[shell]\npath = [\n  \"/bin\",\n  3,\n]\n",
        4,
        "shell.path: invalid type: integer",
    );
    assert_error(
        "[shell]\n\nunknown = \"maybe\"\n",
        3,
        r#"shell.unknown: expected "allow", "ask" or "deny", found "maybe""#,
    );
    assert_error(
        "[shell]\nunknown = true\n",
        2,
        "shell.unknown: invalid type: boolean",
    );
    assert_error(
        "shell = 3\n",
        1,
        "shell: invalid type: integer `3`, expected a table",
    );
    assert_error(
        "[commands]\nallow = \"ls\"\n",
        2,
        "commands.allow: invalid type: string",
    );
    assert_error("[commands]\nallow = [\"ls\", 1]\n", 2, "commands.allow");
    assert_error(
        "[commands]\n\ngit = 4\n",
        3,
        "commands.git: invalid type: integer `4`, expected a command table",
    );
    // A derived struct would read an array field by field: a misspelled list must not pass
    // as a command table.
    assert_error(
        "[commands]\nalow = [\"ls\"]\n",
        2,
        "commands.alow: invalid type: array, expected a command table",
    );
    assert_error(
        "[commands]\ntouch = [\"allow\", [], [], []]\n",
        2,
        "commands.touch: invalid type: array",
    );
    assert_error(
        "[commands.git]\ndefault = \"sometimes\"\n",
        2,
        "commands.git.default: expected",
    );
    assert_error(
        "[commands.allow]\n",
        1,
        "commands.allow: invalid type: table",
    );
    assert_error("[rules]\ndeny = [[\"x\"]]\n", 2, "rules.deny");
}

#[test]
fn rejects_toml_syntax_errors_with_their_line() {
    assert_error("[shell]\npath = [\"/bin\"\n", 2, "TOML syntax");
    assert_error("[shell]\nunknown = deny\n", 2, "TOML syntax");
    assert_error("[shell]\n[commands]\n[shell]\n", 3, "duplicate key `shell`");
    assert_error(
        "[commands]\nallow = []\nallow = []\n",
        3,
        "duplicate key `allow`",
    );
}

#[test]
fn rejects_names_listed_twice_in_one_list() {
    let e = assert_error(
        "[commands]\nallow = [\n  \"ls\",\n  \"cat\",\n  \"ls\",\n]\n",
        5,
        r#"commands.allow: "ls" is listed twice (first on line 3)"#,
    );
    assert_eq!(e.column, Some(3));
    assert_error(
        "[commands.git]\ndeny = [\"-c:*\",\n \"-c:*\"]\n",
        3,
        r#"commands.git.deny: "-c:*" is listed twice"#,
    );
    assert_error(
        "[rules]\nask = [\"git push\", \"git push\"]\n",
        2,
        "rules.ask",
    );
    assert_error(
        "[shell]\npath = [\"/bin\", \"/usr/bin\",\n\"/bin\"]\n",
        3,
        "shell.path",
    );
    // The same directory spelled otherwise.
    assert_error(
        "[shell]\npath = [\"/usr/bin\",\n\"/usr//bin/\"]\n",
        3,
        "shell.path: \"/usr//bin/\" is listed twice",
    );
}

#[test]
fn accepts_a_name_in_several_lists_and_a_builtin_table() {
    let p =
        load("[commands]\nallow = [\"ls\"]\ndeny = [\"ls\"]\n[commands.cd]\ndeny = [\"/etc*\"]\n");
    assert_eq!(p.listed().len(), 2);
    assert_eq!(p.tables()[0].command.name, "cd");
}

#[test]
fn rejects_bad_command_names() {
    assert_error(
        "[commands]\n\ndeny = [\"\"]\n",
        3,
        "commands.deny: empty command name",
    );
    assert_error(
        "[commands]\nallow = [\"ok\",\n \"bin/ls\"]\n",
        3,
        "not an absolute path",
    );
    assert_error(
        "[commands.\"./x\"]\ndeny = []\n",
        1,
        "[commands.\"./x\"]: command name",
    );
    assert_error("[commands]\n\"\" = {}\n", 2, "empty command name");
    assert_error(
        "[rules]\ndeny = [\"./x :*\"]\n",
        2,
        "rules.deny: invalid rule",
    );
    assert_error("[rules]\n\ndeny = [\"  \"]\n", 3, "empty rule");
}

#[test]
fn rejects_relative_search_directories() {
    assert_error(
        "[shell]\npath = [\"/bin\", \"bin\"]\n",
        2,
        "\"bin\" is not an absolute directory",
    );
    assert_error("[shell]\npath = [\"\"]\n", 2, "not an absolute directory");
}

#[test]
fn rejects_bad_patterns_with_their_line() {
    assert_error(
        "[commands.git]\nallow = [\n  \"status:*\",\n  \"log 'x\",\n]\n",
        4,
        r#"commands.git.allow: invalid pattern "log 'x": unbalanced ' quote"#,
    );
    assert_error(
        "[commands.git]\n\n\ndeny = [\"re:(\"]\n",
        4,
        "invalid regular expression",
    );
    assert_error(
        "[commands.git]\nask = [\"push:* -f\"]\n",
        2,
        "`:*` may only end",
    );
    assert_error(
        "[rules]\nallow = [\"ls\"]\ndeny = [\n\"rm -rf /:* x\"]\n",
        4,
        r#"rules.deny: invalid rule "rm -rf /:* x": `:*` may only end"#,
    );
    assert_error(
        "[rules]\nallow = [\"npm \\\"run\"]\n",
        2,
        "unbalanced \" quote",
    );
}

#[test]
fn reports_the_first_error_in_the_file() {
    let text = "[commands]\nallow = [\"a\", \"a\"]\n[commands.git]\ndeny = [\"'\"]\n[rules]\ndeny = [\"\"]\n";
    assert_error(text, 2, "listed twice");
    let text = "[rules]\ndeny = [\"\"]\n[commands.git]\ndeny = [\"'\"]\n";
    assert_error(text, 2, "empty rule");
}

#[test]
fn load_reads_the_file_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    std::fs::write(&file, "[shell]\nunknown = \"allow\"\n").unwrap();
    let p = Policy::load(&file, None).unwrap();
    assert_eq!(p.origin(), file.display().to_string());
    assert_eq!(p.unknown(), Verdict::Allow);

    std::fs::write(&file, "[shell]\nunknown = \"allow\"\nx = 1\n").unwrap();
    let e = Policy::load(&file, None).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("{}:3:1: unknown key `x`", file.display())),
        "{e}"
    );

    let missing = dir.path().join("missing.toml");
    let e = Policy::load(&missing, None).unwrap_err();
    assert_eq!(e.origin, missing.display().to_string());
    assert_eq!(e.line, None);
    assert!(e.message.starts_with("cannot read policy: "), "{e}");
}

/// The sandbox settings the shell is told before the commands are built are those of the
/// loaded policy: the user's own section applied, read-only's write roots gone. A policy that
/// cannot be parsed tells nothing.
#[test]
fn the_sandbox_is_known_before_the_commands_and_is_the_policys() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("policy.toml");
    let me = Who::current().user;
    let text = format!(
        "[paths]\nread = [\"/usr\"]\nwrite = [\"/tmp\"]\n[commands]\nallow = [\"ls\"]\n\
         [users.\"{me}\".shell]\nmode = \"readonly\"\n[users.\"{me}\".paths]\nread = [\"/etc\"]\n"
    );
    std::fs::write(&file, text).unwrap();
    let mut told = Vec::new();
    let owners = Owners::RootOr(trust::real_uid());
    let p = Unresolved::load_then(&file, None, owners, &mut |config| {
        told.push(format!("{config:?}"))
    })
    .unwrap();
    assert_eq!(told, [format!("{:?}", p.sandbox())]);
    let paths = p.sandbox().paths.as_ref().unwrap();
    assert!(paths.write.is_empty(), "{paths:?}");
    assert_eq!(paths.read, [PathSpec::parse("/etc").unwrap()]);

    std::fs::write(&file, "[paths\n").unwrap();
    let mut told = 0;
    assert!(Unresolved::load_then(&file, None, owners, &mut |_| told += 1).is_err());
    assert_eq!(told, 0);
    let mut told = 0;
    Unresolved::built_in_then(STORED_BUILT_IN, None, &mut |_| told += 1).unwrap();
    assert_eq!(told, 1);
}

#[test]
fn resolves_names_on_the_policy_path_or_the_given_path() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(bin.join("tool"), "").unwrap();
    let bin_str = bin.to_str().unwrap();

    let text =
        format!("[shell]\npath = [{bin_str:?}]\n[commands]\nallow = [\"tool\", \"ghost\"]\n");
    let p = Policy::from_toml(&text, ORIGIN, Some("/nowhere")).unwrap();
    assert_eq!(p.listed()[0].command.targets.len(), 1);
    assert_eq!(p.unresolved_names(), ["ghost"]);

    // Without [shell] path, the given PATH is used; relative entries are ignored.
    let text = "[commands]\nallow = [\"tool\"]\n";
    let env_path = format!(".:relative:{bin_str}");
    let p = Policy::from_toml(text, ORIGIN, Some(&env_path)).unwrap();
    assert_eq!(p.search_path(), None);
    assert_eq!(p.listed()[0].command.targets.len(), 1);
    let p = Policy::from_toml(text, ORIGIN, None).unwrap();
    assert_eq!(p.unresolved_names(), ["tool"]);
}

#[test]
fn quotes_keys_that_are_not_bare() {
    assert_eq!(toml_key(&["commands", "git"]), "commands.git");
    assert_eq!(
        toml_key(&["commands", "/usr/bin/x"]),
        r#"commands."/usr/bin/x""#
    );
    assert_eq!(toml_key(&["commands", "["]), r#"commands."[""#);
}

/// The built-in policy is loaded without checking its regular expressions (see
/// `ArgPattern::parse_checking`): they are checked here, and compiled.
#[test]
fn built_in_regular_expressions_are_valid() {
    fn strings<'v>(value: &'v toml::Value, out: &mut Vec<&'v str>) {
        match value {
            toml::Value::String(s) => out.push(s),
            toml::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            toml::Value::Table(table) => table.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    Unresolved::from_toml(DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, None)
        .expect("the built-in policy loads with every pattern checked");
    let document: toml::Value = toml::from_str(DEFAULT_POLICY).unwrap();
    let mut all = Vec::new();
    strings(&document, &mut all);
    let patterns: Vec<&str> = all
        .into_iter()
        // A list's pattern, or a `[rules]` entry's after its command name.
        .filter_map(|s| match s.strip_prefix("re:") {
            Some(_) => Some(s),
            None => s.find(" re:").map(|at| &s[at + 1..]),
        })
        .collect();
    assert!(patterns.len() >= 3, "{patterns:?}");
    for text in patterns {
        let pattern = ArgPattern::parse(text).unwrap();
        assert_eq!(pattern.compile_error(), None, "{text}");
    }
}

/// What `build.rs` stored for this build.
const STORED_BUILT_IN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default-policy.bin"));

/// rsh starts from the built-in policy as stored when it was built: it must be the policy the
/// text loads to, entry for entry, before and after the names are looked up.
#[test]
fn the_stored_built_in_policy_is_the_loaded_one() {
    let env_path = Some("/usr/bin:relative:/bin");
    let mut told = Vec::new();
    let stored = compiled::built_in(STORED_BUILT_IN, env_path, &mut |s| {
        told.push(format!("{s:#?}"))
    })
    .expect("the stored policy is used");
    let loaded = Unresolved::built_in(env_path).unwrap();
    assert_eq!(format!("{stored:#?}"), format!("{loaded:#?}"));
    // The sandbox settings told before the rest was decoded are the policy's.
    assert_eq!(told, [format!("{:#?}", loaded.sandbox())]);
    let (stored, loaded) = (stored.resolve(), loaded.resolve());
    assert!(stored.listed().len() > 100);
    assert_eq!(format!("{stored:#?}"), format!("{loaded:#?}"));
    // The digest stored with it is the text's.
    assert_eq!(stored.digests(), loaded.digests());
    assert_eq!(stored.digests()[0].1, super::sha256_hex(DEFAULT_POLICY));
}

/// Starting from the stored form copies none of its text: the policy's text, its names, keys
/// and patterns borrow it from the stored form and the binary.
#[test]
fn the_stored_built_in_policy_borrows_its_text() {
    use std::borrow::Cow;
    let stored = compiled::built_in(STORED_BUILT_IN, None, &mut |_| {}).unwrap();
    let settings = &stored.0.settings;
    let borrowed = |text: &Text| matches!(text, Cow::Borrowed(_));
    // The whole text too, kept for its digest.
    assert!(stored.0.texts.iter().all(|t| borrowed(&t.text)));
    assert!(settings.commands().all(|c| borrowed(&c.name)));
    assert!(settings.listed.iter().all(|l| borrowed(&l.key)));
    let patterns: Vec<&PatternRule> = settings.tables.iter().flat_map(|t| &t.patterns).collect();
    assert!(!patterns.is_empty());
    assert!(patterns.iter().all(|p| borrowed(&p.key)));
    assert!(patterns.iter().all(|p| borrowed(&p.text)));
    let sensitive = &settings.sensitive;
    assert!(!sensitive.high.is_empty());
    for entry in sensitive.high.iter().chain(&sensitive.medium) {
        assert!(borrowed(&entry.key) && borrowed(&entry.text), "{entry:?}");
    }
}

/// A stored form that is damaged, or was built from another text, is not used: the text is
/// loaded instead. The sandbox settings are told once, whether the stored form's first part
/// told them before the rest failed to decode or not.
#[test]
fn a_stored_built_in_policy_not_made_from_this_text_is_not_used() {
    // Leaked: a policy borrows its entries' text from the stored form, which lasts as long
    // as rsh.
    let other = STORED_BUILT_IN.to_vec().leak();
    // The text is stored first, after its length (two bytes).
    assert_eq!(&other[2..10], &DEFAULT_POLICY.as_bytes()[..8]);
    other[2] ^= 1;
    let truncated = &STORED_BUILT_IN[..STORED_BUILT_IN.len() / 2];
    // Its first part (the text and the sandbox settings) decodes, the rest does not.
    let end_cut = &STORED_BUILT_IN[..STORED_BUILT_IN.len() - 1];
    let loaded = format!("{:?}", Unresolved::built_in(None).unwrap());
    for stored in [&other[..], truncated, end_cut, &[]] {
        assert!(compiled::built_in(stored, None, &mut |_| {}).is_none());
        let mut told = 0;
        let policy = Unresolved::built_in_then(stored, None, &mut |_| told += 1).unwrap();
        assert_eq!(told, 1, "the sandbox settings are told once");
        assert_eq!(format!("{policy:?}"), loaded);
    }
}

#[test]
fn shipped_policies_parse() {
    let default = Policy::built_in(None).unwrap();
    assert_eq!(default.origin(), DEFAULT_POLICY_ORIGIN);
    let expected: Vec<PathBuf> = [
        "/usr/local/bin",
        "/usr/bin",
        "/bin",
        "/usr/local/sbin",
        "/usr/sbin",
        "/sbin",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    assert_eq!(default.search_path(), Some(expected.as_slice()));
    assert_eq!(default.unknown(), Verdict::Deny);

    let permissive = Policy::from_toml(PERMISSIVE_POLICY, "permissive.toml", None).unwrap();
    assert_eq!(permissive.search_path(), None);
    assert_eq!(permissive.unknown(), Verdict::Allow);
    assert!(
        permissive
            .listed()
            .iter()
            .all(|l| l.verdict == Verdict::Allow)
    );
    assert!(permissive.tables().is_empty() && permissive.rules().is_empty());
}

#[test]
fn sandbox_defaults_when_the_policy_says_nothing() {
    let p = load("[shell]\n");
    let s = p.sandbox();
    assert_eq!(s.mode, SandboxMode::Enforce);
    assert!(!s.network && !s.unix_sockets && !s.subprocesses);
    assert!(s.paths.is_none());
    assert_eq!(s.limits, Limits::default());
    assert_eq!(s.limits.timeout, 120);
}

#[test]
fn reads_sandbox_paths_limits_and_env() {
    let p = load(
        r#"
[sandbox]
mode = "degraded"
network = true
unix_sockets = true
[paths]
read = ["/", "~/notes"]
write = [".", "./build", "/tmp"]
exec = ["/usr/bin"]
deny = ["~/.ssh"]
[limits]
cpu = 30
memory = "512M"
file_size = 1048576
open_files = 64
processes = 200
timeout = 600
[env]
allow = ["HOME", "LC_*"]
"#,
    );
    let s = p.sandbox();
    assert_eq!(s.mode, SandboxMode::Degraded);
    assert!(s.network && s.unix_sockets && !s.subprocesses);
    let paths = s.paths.as_ref().unwrap();
    assert_eq!(
        paths.read,
        [
            PathSpec::Absolute("/".into()),
            PathSpec::Home("notes".into())
        ]
    );
    assert_eq!(
        paths.write,
        [
            PathSpec::Workdir("".into()),
            PathSpec::Workdir("build".into()),
            PathSpec::Absolute("/tmp".into())
        ]
    );
    assert_eq!(paths.deny, [PathSpec::Home(".ssh".into())]);
    assert_eq!(paths.terminals, Terminals::Own);
    let all = load("[paths]\nread = [\"/\"]\nterminals = \"all\"\n");
    assert_eq!(
        all.sandbox().paths.as_ref().unwrap().terminals,
        Terminals::All
    );
    assert_error("[paths]\nterminals = \"mine\"\n", 2, "\"own\"");
    let home = std::path::Path::new("/home/u");
    let work = std::path::Path::new("/src/app");
    assert_eq!(paths.write[1].resolve(home, work), work.join("build"));
    assert_eq!(paths.deny[0].resolve(home, work), home.join(".ssh"));
    assert_eq!(
        s.limits,
        Limits {
            cpu: Some(30),
            memory: Some(512 << 20),
            file_size: Some(1 << 20),
            open_files: Some(64),
            processes: Some(200),
            timeout: 600,
        }
    );
    assert!(s.passes_env("HOME") && s.passes_env("LC_ALL"));
    assert!(!s.passes_env("AWS_SECRET_ACCESS_KEY"));
}

#[test]
fn code_injecting_variables_pass_only_by_exact_name() {
    let p = load("[env]\nallow = [\"*\", \"PYTHONPATH\"]\n");
    let s = p.sandbox();
    assert!(s.passes_env("ANYTHING"));
    assert!(s.passes_env("PYTHONPATH"));
    for name in [
        "LD_PRELOAD",
        "BASH_ENV",
        "NODE_OPTIONS",
        "GIT_SSH_COMMAND",
        "PAGER",
        "LUA_INIT_5_4",
        "LUA_PATH_5_3",
        "VIMINIT",
        "OPENSSL_CONF",
        "RUSTC_WRAPPER",
    ] {
        assert!(!s.passes_env(name), "{name}");
    }
    let default = load("[shell]\n");
    assert!(default.sandbox().passes_env("LANG"));
    assert!(!default.sandbox().passes_env("SSH_AUTH_SOCK"));
}

#[test]
fn rejects_bad_sandbox_settings_with_their_line() {
    assert_error(
        "[sandbox]\nmode = \"strict\"\n",
        2,
        r#"sandbox.mode: expected "enforce", "degraded" or "off", found "strict""#,
    );
    assert_error(
        "[paths]\nread = [\"/\",\n  \"relative/dir\"]\n",
        3,
        "paths.read: \"relative/dir\" is neither absolute nor under `~` or `.`",
    );
    assert_error(
        "[paths]\nwrite = [\"/tmp\", \"/tmp\"]\n",
        2,
        "paths.write: \"/tmp\" is listed twice",
    );
    assert_error(
        "[paths]\nread = [\"~/src\", \"~/src/\"]\n",
        2,
        "paths.read: \"~/src/\" is listed twice",
    );
    assert_error(
        "[limits]\ntimeout = 601\n",
        2,
        "limits.timeout: 601 is not between 1 and 600 seconds",
    );
    assert_error(
        "[limits]\ntimeout = 0\n",
        2,
        "limits.timeout: 0 is not between",
    );
    assert_error("[limits]\nmemory = \"lots\"\n", 2, "\"lots\" is not a size");
    assert_error("[limits]\nmemory = -1\n", 2, "a size cannot be negative");
    assert_error("[limits]\nwall = 5\n", 2, "unknown key `wall`");
    assert_error(
        "[paths]\ndeny = [\"/a/missing/../secret\"]\n",
        2,
        "paths.deny: \"/a/missing/../secret\" contains `..`",
    );
    assert_error("[sandbox]\nnetwork = \"yes\"\n", 2, "invalid type");
    assert_error("[commands.git]\nnetwork = 1\n", 2, "invalid type");
}

#[test]
fn sizes_take_binary_suffixes() {
    let p = load("[limits]\nmemory = \"4G\"\nfile_size = \"10k\"\n");
    assert_eq!(p.sandbox().limits.memory, Some(4 << 30));
    assert_eq!(p.sandbox().limits.file_size, Some(10 << 10));
}

// ----- [users.NAME] and [groups.NAME] --------------------------------------------------------

const SECTIONS: &str = r#"[commands]
allow = ["ls", "cat"]
deny = ["rm"]

[limits]
timeout = 60

[groups.ops.commands]
allow = ["ls", "cat", "rm"]
deny = []

[groups.ops.limits]
timeout = 300

[groups.interns]
commands.deny = ["rm", "cat"]

[users.ann.commands]
deny = ["rm", "ls"]

[users.ann.commands.git]
default = "allow"
"#;

fn load_for(text: &str, user: &str, groups: &[&str]) -> Policy {
    let who = Who {
        user: user.to_owned(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
    };
    Unresolved::from_toml_for(text, ORIGIN, Some(""), Some(who))
        .map(Unresolved::resolve)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Each listed name with its verdict and key, in file order.
fn listed_names(p: &Policy) -> Vec<(String, Verdict, String)> {
    p.listed()
        .iter()
        .map(|l| (l.command.name.to_string(), l.verdict, l.key.to_string()))
        .collect()
}

/// The denied names with the key that lists them.
fn denied_names(p: &Policy) -> Vec<(String, String)> {
    listed_names(p)
        .into_iter()
        .filter(|(_, v, _)| *v == Verdict::Deny)
        .map(|(name, _, key)| (name, key))
        .collect()
}

#[test]
fn a_section_for_someone_else_changes_nothing() {
    let p = load_for(SECTIONS, "bob", &["staff"]);
    let names = listed_names(&p);
    assert_eq!(
        names,
        [
            ("ls".into(), Verdict::Allow, "commands.allow".into()),
            ("cat".into(), Verdict::Allow, "commands.allow".into()),
            ("rm".into(), Verdict::Deny, "commands.deny".into()),
        ]
    );
    assert_eq!(p.sandbox().limits.timeout, 60);
    assert!(p.tables().is_empty());
}

#[test]
fn a_group_section_replaces_the_lists_it_gives() {
    let p = load_for(SECTIONS, "bob", &["staff", "ops"]);
    let names = listed_names(&p);
    assert_eq!(
        names,
        [
            (
                "ls".into(),
                Verdict::Allow,
                "groups.ops.commands.allow".into()
            ),
            (
                "cat".into(),
                Verdict::Allow,
                "groups.ops.commands.allow".into()
            ),
            (
                "rm".into(),
                Verdict::Allow,
                "groups.ops.commands.allow".into()
            ),
        ]
    );
    assert_eq!(p.sandbox().limits.timeout, 300);
}

#[test]
fn groups_apply_in_file_order_and_the_user_section_last() {
    // interns comes after ops in the file: its deny list replaces ops' empty one.
    let p = load_for(SECTIONS, "bob", &["interns", "ops"]);
    assert_eq!(
        denied_names(&p),
        [
            ("rm".into(), "groups.interns.commands.deny".into()),
            ("cat".into(), "groups.interns.commands.deny".into()),
        ]
    );
    // ann's own deny list beats every group's; her git table is added.
    let p = load_for(SECTIONS, "ann", &["ops", "interns"]);
    assert_eq!(
        denied_names(&p),
        [
            ("rm".into(), "users.ann.commands.deny".into()),
            ("ls".into(), "users.ann.commands.deny".into()),
        ]
    );
    assert_eq!(p.tables().len(), 1);
    assert_eq!(p.tables()[0].key, "users.ann.commands.git");
    assert_eq!(
        p.tables()[0].default.map(|(v, at)| (v, at.line)),
        Some((Verdict::Allow, 22))
    );
}

#[test]
fn every_section_is_checked_whoever_runs_rsh() {
    let text = "[commands]\nallow = [\"ls\"]\n\n[users.zed.commands]\nalow = [\"rm\"]\n";
    let e = assert_error(text, 5, "expected a command table");
    assert!(e.message.starts_with("users.zed.commands.alow: "), "{e}");
    let text = "[groups.ops.commands]\ndeny = [\"rm\", \"rm\"]\n";
    let e = assert_error(text, 2, "is listed twice");
    assert!(e.message.starts_with("groups.ops.commands.deny: "), "{e}");
    let text = "[users.ann]\nusers = 1\n";
    assert_error(text, 2, "unknown key `users`");
    let text = "[users]\nann = 1\n";
    assert_error(text, 2, "users.ann");
}

#[test]
fn sensitive_lists_come_from_the_built_in_the_top_level_and_the_sections() {
    let text = r#"[sensitive]
high = ["*.tfstate"]
medium = ["*.csv"]

[users.ann.sensitive]
allow = ["/srv/ann/.env"]
"#;
    let home = std::path::Path::new("/home/x");
    let level = |p: &Policy, path: &str| {
        p.sensitive()
            .level(std::path::Path::new(path), home, false, &|| false)
            .map(|(level, entry)| (level, entry.key.clone(), entry.at.is_some()))
    };
    let bob = load_for(text, "bob", &[]);
    assert_eq!(
        level(&bob, "/srv/ann/.env"),
        Some((Level::High, "sensitive.high".into(), false))
    );
    assert_eq!(
        level(&bob, "/srv/x.tfstate"),
        Some((Level::High, "sensitive.high".into(), true))
    );
    assert_eq!(
        level(&bob, "/srv/x.csv"),
        Some((Level::Medium, "sensitive.medium".into(), true))
    );
    let ann = load_for(text, "ann", &[]);
    assert_eq!(level(&ann, "/srv/ann/.env"), None);
    assert!(level(&ann, "/srv/bob/.env").is_some());
    // The section's allow list replaced nothing else.
    assert!(level(&ann, "/srv/x.tfstate").is_some());

    let err = Unresolved::from_toml(
        "[users.ann.sensitive]\nhigh = [\"x\", \"x\"]\n",
        ORIGIN,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("users.ann.sensitive.high: \"x\" is listed twice"),
        "{err}"
    );
}

#[test]
fn modes_and_risk_tables_load_and_a_user_section_overrides_them() {
    let p = load("[shell]\nmode = \"readonly\"\nstrict = true\n[risk]\nlow = [\"make -n :*\"]\n");
    assert_eq!(p.mode(), Mode::Readonly);
    assert!(p.strict());
    assert!(p.builtin_risk());
    assert_eq!(p.risks().len(), 1);
    assert_eq!(p.risks()[0].entry.key, "risk.low");
    assert_eq!(p.risks()[0].entry.at.line, 5);
    let p = load("");
    assert_eq!((p.mode(), p.strict()), (Mode::Enforce, false));

    let text = "[shell]\nmode = \"audit\"\n[risk]\nbuiltin = false\n\
                [users.ann.shell]\nmode = \"readonly\"\n[users.ann.risk]\nhigh = [\"rm :*\"]\n";
    let ann = Who {
        user: "ann".into(),
        groups: Vec::new(),
    };
    let p = Unresolved::from_toml_for(text, ORIGIN, Some(""), Some(ann))
        .unwrap()
        .resolve();
    assert_eq!(p.mode(), Mode::Readonly);
    assert!(!p.builtin_risk());
    assert_eq!(p.risks()[0].entry.key, "users.ann.risk.high");
}

#[test]
fn rejects_bad_modes_and_risks_with_their_place() {
    assert_error(
        "[shell]\nmode = \"plan\"\n",
        2,
        r#"shell.mode: expected "enforce", "readonly" or "audit""#,
    );
    assert_error("[shell]\nstrict = \"yes\"\n", 2, "shell.strict");
    assert_error(
        "[commands.ls]\nrisk = \"none\"\n",
        2,
        r#"expected "low", "medium" or "high", found "none""#,
    );
    assert_error(
        "[risk]\nlow = [\"ls\", \"ls\"]\n",
        2,
        "risk.low: \"ls\" is listed twice",
    );
    assert_error("[risk]\nmedium = [\"\"]\n", 2, "risk.medium: invalid rule");
    assert_error("[risk]\nlowest = []\n", 2, "unknown key `lowest` in [risk]");
}

#[test]
fn reads_audit_settings_and_their_defaults() {
    let p = load("");
    assert_eq!(p.audit(), &super::AuditConfig::default());
    assert!(!p.audit().configured);
    assert_eq!(p.audit().facility, "authpriv");
    assert_eq!(p.digests().len(), 1);
    assert_eq!(p.digests()[0].1.len(), 64);

    let p = load(
        "[audit]\nfacility = \"local3\"\nsocket = \"/run/log\"\nrequired = true\n\
         fallback = \"/var/log/rsh.jsonl\"\n",
    );
    let audit = p.audit();
    assert!(audit.configured && audit.syslog && audit.required);
    assert_eq!(audit.facility, "local3");
    assert_eq!(audit.socket, std::path::Path::new("/run/log"));
    assert_eq!(
        audit.fallback.as_deref(),
        Some(std::path::Path::new("/var/log/rsh.jsonl"))
    );
}

#[test]
fn rejects_bad_audit_settings_with_their_place() {
    assert_error(
        "[audit]\nfacility = \"kern\"\n",
        2,
        "audit.facility: \"kern\" is not a syslog facility",
    );
    assert_error(
        "[audit]\nsocket = \"dev/log\"\n",
        2,
        "audit.socket: \"dev/log\" is not an absolute path",
    );
    assert_error(
        "[audit]\nsyslog = false\nrequired = true\n",
        3,
        "audit.required = true needs audit.syslog = true",
    );
    assert_error(
        "[audit]\nfile = \"/x\"\n",
        2,
        "unknown key `file` in [audit]",
    );
    assert_error(
        "[users.ann.audit]\nrequired = true\n",
        1,
        "unknown key `audit`",
    );
}

#[test]
fn reads_approval_settings_and_rejects_bad_ones() {
    let p = load("");
    assert_eq!(p.approval(), &super::ApprovalConfig::default());
    let p = load("[approval]\ntimeout = 5\nremember = 0\napprover = \"/usr/lib/rsh/approve\"\n");
    assert_eq!(p.approval().timeout, std::time::Duration::from_secs(5));
    assert!(p.approval().remember.is_zero());
    assert_eq!(
        p.approval().approver.as_deref(),
        Some(std::path::Path::new("/usr/lib/rsh/approve"))
    );
    assert_error(
        "[approval]\ntimeout = 0\n",
        2,
        "approval.timeout: 0 is not between 1 and 3600",
    );
    assert_error(
        "[approval]\napprover = \"approve\"\n",
        2,
        "is not an absolute path",
    );
    assert_error(
        "[approval]\non_no_tty = \"approver\"\n",
        2,
        "approval.on_no_tty = \"approver\" needs approval.approver",
    );
    assert_error(
        "[approval]\napprover = \"/a\"\non_no_tty = \"deny\"\n",
        3,
        "then approval.approver would never be asked",
    );
}

#[test]
fn reads_output_settings_and_rejects_bad_patterns() {
    assert!(!load("").output().active());
    let p = load("[output]\nredact = true\npatterns = [\"pin=\\\\d+\"]\nmax_bytes = \"1M\"\n");
    let output = p.output();
    assert!(output.active() && output.redact && !output.terminals);
    assert_eq!(output.patterns, ["pin=\\d+"]);
    assert_eq!(output.max_bytes, Some(1 << 20));
    assert_error(
        "[output]\npatterns = [\"(unclosed\"]\n",
        2,
        "output.patterns: \"(unclosed\" is not a regular expression",
    );
    assert_error(
        "[output]\nmax_bytes = 0\n",
        2,
        "output.max_bytes: must be more than 0",
    );
}

#[test]
fn session_settings_have_defaults_and_are_checked() {
    let p = Policy::from_toml("", "p.toml", None).unwrap();
    let s = p.session();
    assert_eq!(s.history.as_deref(), Some("~/.rsh_history"));
    assert_eq!((s.history_size, s.prompt_from_env), (1000, true));
    assert_eq!((s.idle_timeout, s.motd.as_deref()), (None, None));
    let p = Policy::from_toml(
        "[shell]\nprompt = 'p> '\nhistory = ''\nidle_timeout = 300\nmotd = 'hi'\n",
        "p.toml",
        None,
    )
    .unwrap();
    let s = p.session();
    assert_eq!(s.prompt.as_deref(), Some("p> "));
    assert_eq!(s.history, None, "\"\" keeps no file");
    assert_eq!(s.idle_timeout, Some(std::time::Duration::from_secs(300)));
    assert_eq!(s.motd.as_deref(), Some("hi"));
    assert_error(
        "[shell]\nhistory = 'hist'\n",
        2,
        "shell.history: \"hist\" must be an absolute path or start with \"~/\"",
    );
}
