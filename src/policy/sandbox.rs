//! The confinement part of a policy: `[sandbox]`, `[paths]`, `[limits]`, `[env]`, and the
//! `network` / `subprocesses` settings of command tables, validated. Only data: building
//! landlock rulesets and seccomp filters from it is the sandbox stage's business.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which pseudo-terminals (`/dev/pts`) programs may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Terminals {
    /// The session's own, by name: no other session's.
    #[default]
    Own,
    /// Every one, and so new ones a program makes (`script`, a pty library).
    All,
}

/// How strictly started programs are confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxMode {
    /// Every mechanism the policy asks for must be enforced by the kernel, or nothing runs.
    Enforce,
    /// Run with what the kernel can enforce; what it cannot is reported on every command.
    Degraded,
    /// No confinement at all (the permissive policy, for auditing before enforcing).
    Off,
}

/// A path written in the policy: absolute, under the home directory (`~`), or under the
/// directory rsh started in (`.`). Resolved when rsh starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathSpec {
    Absolute(PathBuf),
    Home(PathBuf),
    Workdir(PathBuf),
}

impl PathSpec {
    /// Parses a `[paths]` entry; Err(message) for a relative path.
    pub(crate) fn parse(text: &str) -> Result<PathSpec, String> {
        // `..` would be taken literally where a component does not exist yet, so a deny
        // entry such as /a/missing/../secret would deny nothing.
        if Path::new(text)
            .components()
            .any(|c| c == std::path::Component::ParentDir)
        {
            return Err(format!("{text:?} contains `..`: write the path it means"));
        }
        let rest = |prefix: &str| PathBuf::from(text[prefix.len()..].trim_start_matches('/'));
        if text == "~" || text.starts_with("~/") {
            Ok(PathSpec::Home(rest("~")))
        } else if text == "." || text.starts_with("./") {
            Ok(PathSpec::Workdir(rest(".")))
        } else if text.starts_with('/') {
            Ok(PathSpec::Absolute(PathBuf::from(text)))
        } else {
            Err(format!(
                "{text:?} is neither absolute nor under `~` or `.` (the directory rsh starts in)"
            ))
        }
    }

    /// The absolute path, given the home directory and the directory rsh started in.
    pub fn resolve(&self, home: &Path, workdir: &Path) -> PathBuf {
        match self {
            PathSpec::Absolute(path) => path.clone(),
            PathSpec::Home(rest) => home.join(rest),
            PathSpec::Workdir(rest) => workdir.join(rest),
        }
    }
}

/// `[paths]`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Paths {
    /// Readable (files and directory listings).
    pub read: Vec<PathSpec>,
    /// Writable (and readable): create, change, remove.
    pub write: Vec<PathSpec>,
    /// Where a program that may start others finds them (besides the program decided).
    pub exec: Vec<PathSpec>,
    /// Never reachable, even under a read or write root.
    pub deny: Vec<PathSpec>,
    /// Which terminals under /dev/pts are reachable.
    pub terminals: Terminals,
}

/// `[limits]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU seconds.
    pub cpu: Option<u64>,
    /// Address space, bytes.
    pub memory: Option<u64>,
    /// Largest file a program may write, bytes.
    pub file_size: Option<u64>,
    pub open_files: Option<u64>,
    /// Processes and threads of the user, all counted (RLIMIT_NPROC; the kernel exempts root).
    pub processes: Option<u64>,
    /// Wall-clock seconds before the command's process group is ended.
    pub timeout: u64,
}

/// The wall-clock timeout when the policy sets none, and the most it may set.
pub const DEFAULT_TIMEOUT: u64 = 120;
pub const MAX_TIMEOUT: u64 = 600;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            cpu: None,
            memory: None,
            file_size: None,
            open_files: None,
            processes: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Environment variables passed to started programs when the policy has no `[env] allow`.
pub const DEFAULT_ENV_ALLOW: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "TMPDIR",
    "PWD",
    "OLDPWD",
    "SHLVL",
    "COLUMNS",
    "LINES",
    // Where toolchains live: without these, compilers and package managers installed per user
    // are not found.
    "CARGO_HOME",
    "RUSTUP_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "VIRTUAL_ENV",
];

/// Variables that make a program load or run code chosen by their value. Dropped from every
/// started program's environment unless `[env] allow` names them exactly (a pattern such as
/// `*` does not let them through).
pub fn is_code_injecting(name: &str) -> bool {
    // Lua 5.2 and later read LUA_INIT_5_4 (and the like) before LUA_INIT.
    const PREFIXES: [&str; 6] = [
        "LD_",
        "GIT_CONFIG",
        "BASH_FUNC_",
        "LUA_INIT_",
        "LUA_PATH_",
        "LUA_CPATH_",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || matches!(
            name,
            "BASH_ENV"
                | "ENV"
                | "PROMPT_COMMAND"
                | "GCONV_PATH"
                | "PYTHONSTARTUP"
                | "PYTHONINSPECT"
                | "PYTHONPATH"
                | "PYTHONHOME"
                | "PERL5OPT"
                | "PERL5DB"
                | "PERL5LIB"
                | "PERLLIB"
                | "RUBYOPT"
                | "RUBYLIB"
                | "NODE_OPTIONS"
                | "NODE_PATH"
                | "LUA_INIT"
                | "LUA_PATH"
                | "LUA_CPATH"
                | "JAVA_TOOL_OPTIONS"
                | "_JAVA_OPTIONS"
                | "JDK_JAVA_OPTIONS"
                | "GIT_SSH"
                | "GIT_SSH_COMMAND"
                | "GIT_EXEC_PATH"
                | "GIT_EDITOR"
                | "GIT_SEQUENCE_EDITOR"
                | "GIT_PAGER"
                | "GIT_EXTERNAL_DIFF"
                | "GIT_ASKPASS"
                | "GIT_TEMPLATE_DIR"
                | "GIT_PROXY_COMMAND"
                | "SSH_ASKPASS"
                | "PAGER"
                | "MANPAGER"
                | "EDITOR"
                | "VISUAL"
                | "BROWSER"
                | "LESSOPEN"
                | "LESSCLOSE"
                | "VIMINIT"
                | "GVIMINIT"
                | "EXINIT"
                | "OPENSSL_CONF"
                | "OPENSSL_ENGINES"
                | "OPENSSL_MODULES"
                | "PHPRC"
                | "PHP_INI_SCAN_DIR"
                | "R_PROFILE"
                | "R_PROFILE_USER"
                | "DOTNET_STARTUP_HOOKS"
                | "RUSTC_WRAPPER"
                | "RUSTC_WORKSPACE_WRAPPER"
                | "CARGO_BUILD_RUSTC_WRAPPER"
        )
}

/// Everything the policy says about confinement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SandboxConfig {
    pub mode: SandboxMode,
    /// Defaults for commands whose table does not say.
    pub network: bool,
    pub unix_sockets: bool,
    pub subprocesses: bool,
    /// None: the file system is not restricted.
    pub paths: Option<Paths>,
    pub limits: Limits,
    /// Patterns (`*` at the end or alone) of variables passed to programs.
    pub env_allow: Vec<String>,
}

impl Default for SandboxConfig {
    fn default() -> SandboxConfig {
        SandboxConfig {
            mode: SandboxMode::Enforce,
            network: false,
            unix_sockets: false,
            subprocesses: false,
            paths: None,
            limits: Limits::default(),
            env_allow: DEFAULT_ENV_ALLOW.iter().map(|s| s.to_string()).collect(),
        }
    }
}

impl SandboxConfig {
    /// Whether a variable may be passed to a started program.
    pub fn passes_env(&self, name: &str) -> bool {
        if is_code_injecting(name) {
            return self.env_allow.iter().any(|p| p == name);
        }
        self.env_allow
            .iter()
            .any(|pattern| match pattern.strip_suffix('*') {
                Some(prefix) => name.starts_with(prefix),
                None => pattern == name,
            })
    }
}
