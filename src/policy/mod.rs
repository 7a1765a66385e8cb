//! The policy: its TOML schema, loading, validation and matching. Loading reads one file and
//! resolves every command name the policy mentions to the files it names on disk; after that a
//! `Policy` is immutable and matching is pure.
//!
//! This module knows nothing of parsing shell syntax, expansion or spawning, and never imports
//! another part of rsh. Any error in a policy is fatal (rsh refuses to start), so every error
//! names the file, line, column and key that is wrong.

pub mod audit;
mod compiled;
mod identity;
mod known_names;
pub mod output;
pub mod pattern;
pub mod sandbox;
mod schema;
pub mod sensitive;
pub mod session;
mod trust;
mod who;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

pub use audit::{ApprovalConfig, AuditConfig};
pub use compiled::compile_built_in;
pub(crate) use identity::CommandRef;
pub use output::OutputConfig;
use pattern::ArgPattern;
use sandbox::MAX_TIMEOUT;
pub use sandbox::{Limits, PathSpec, Paths, SandboxConfig, SandboxMode, Terminals};
use schema::{
    NamedSection, RawCommandTable, RawLists, RawPolicy, RawRisk, RawSection, RawSensitive,
    RawShell, SpannedList,
};
pub use sensitive::{Level, PathPattern, Sensitive, SensitiveEntry};
use serde::{Deserialize, Serialize};
pub use session::SessionConfig;
pub use trust::Owners;
pub use who::{Who, current_user, home_dir, host_name, user_name};

/// The compiled-in default policy, used when no system policy exists.
pub const DEFAULT_POLICY: &str = include_str!("../../policy/default.toml");

/// How the compiled-in default policy is named in messages.
pub const DEFAULT_POLICY_ORIGIN: &str = "built-in default policy";

/// The permissive policy shipped with rsh: everything allowed, commands found on `$PATH`.
pub const PERMISSIVE_POLICY: &str = include_str!("../../policy/permissive.toml");

/// Where the system policy lives.
pub const SYSTEM_POLICY_PATH: &str = "/etc/rsh/policy.toml";

/// The directory beside a policy file whose `*.toml` files add to it.
pub const INCLUDE_DIR: &str = "policy.d";

/// The include directory of the system policy, also read on top of the built-in default
/// policy.
pub const SYSTEM_INCLUDE_DIR: &str = "/etc/rsh/policy.d";

/// The most symbolic links the kernel follows in one look-up (`MAXSYMLINKS`): for the walks
/// that follow links as it does (a name's target, where a file rsh opens lands).
pub(crate) const MAX_LINKS: usize = 40;

/// What the policy says about a command. Ordered so that combining verdicts is `max()`:
/// `Allow < Ask < Deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    Allow,
    Ask,
    Deny,
}

/// How much harm a command can do, by what it is known to do with its arguments. Ordered:
/// `Low < Medium < High`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Risk {
    /// Reads only: the files it reads are the only thing it touches.
    Low,
    /// Changes files, or may: most commands that are not known to read only.
    Medium,
    /// Hard to undo (recursive removal, force pushes, raw disk writes), or runs what rsh
    /// cannot see.
    High,
}

/// `[shell] mode`: what the decisions are used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Decisions are enforced.
    #[default]
    Enforce,
    /// As enforce, and only low-risk commands run: the others are denied.
    Readonly,
    /// Every command runs; what enforce would refuse is reported instead. The confinement
    /// (`[sandbox]`, `[paths]`, `[limits]`) still holds.
    Audit,
}

/// The words a policy file uses for the values of an enum: `as_str`, `Display`, `FromStr`
/// (whose error lists the words) and `Deserialize`, all from one list.
macro_rules! policy_words {
    ($ty:ident { $($variant:ident => $word:literal),+ $(,)? }) => {
        impl $ty {
            /// The word used in policy files.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$variant => $word),+
                }
            }

            const WORDS: &'static [(&'static str, $ty)] = &[$(($word, $ty::$variant)),+];
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $ty {
            type Err = String;

            fn from_str(s: &str) -> Result<$ty, String> {
                schema::word(s, $ty::WORDS)
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                deserializer.deserialize_str(schema::WordVisitor($ty::WORDS))
            }
        }
    };
}

policy_words!(Verdict { Allow => "allow", Ask => "ask", Deny => "deny" });
policy_words!(Risk { Low => "low", Medium => "medium", High => "high" });
policy_words!(Mode { Enforce => "enforce", Readonly => "readonly", Audit => "audit" });
policy_words!(SandboxMode { Enforce => "enforce", Degraded => "degraded", Off => "off" });
policy_words!(Terminals { Own => "own", All => "all" });

/// A policy that cannot be used. Displays as `ORIGIN:LINE:COLUMN: MESSAGE` (or `ORIGIN: MESSAGE`
/// when there is no position, as for a file that cannot be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    pub origin: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for PolicyError {}

/// Text of a policy's entry: borrowed from the built-in policy's stored form, which is part of
/// rsh's binary, so that a start does not copy its ~850 strings (three quarters of the
/// allocations its decoding made); owned when loaded from a file.
type Text = std::borrow::Cow<'static, str>;

/// A `Text` field of the stored form, borrowed from it. The types that hold one decode only
/// from input that lives as long as rsh (`'de: 'static`).
fn borrowed<'de: 'static, D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
    <&'de str>::deserialize(d).map(Text::Borrowed)
}

/// As `borrowed`, for an optional field.
fn borrowed_opt<'de: 'static, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Text>, D::Error> {
    <Option<&'de str>>::deserialize(d).map(|text| text.map(Text::Borrowed))
}

/// Where something was written in the policy file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Place {
    /// 1-based line.
    pub line: usize,
    /// Byte offset, used to order entries as they appear in the file; the entries of an
    /// included file come after those of the files before it.
    pub offset: usize,
}

/// A command named in a `[commands]` list.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct Listed {
    pub command: CommandRef,
    pub verdict: Verdict,
    /// `commands.allow`, `commands.ask` or `commands.deny` (after `users.NAME.` or
    /// `groups.NAME.` when written in such a section).
    #[serde(deserialize_with = "borrowed")]
    pub key: Text,
    pub at: Place,
}

/// One argument pattern with its verdict, from a command table or from `[rules]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct PatternRule {
    /// The list it came from, e.g. `commands.git.deny` or `rules.allow`.
    #[serde(deserialize_with = "borrowed")]
    pub key: Text,
    pub verdict: Verdict,
    /// The entry exactly as written (for `[rules]`, including the command word).
    #[serde(deserialize_with = "borrowed")]
    pub text: Text,
    pub pattern: ArgPattern,
    pub at: Place,
}

/// A `[commands.NAME]` table.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct CommandTable {
    pub command: CommandRef,
    /// `commands.NAME`, quoted as TOML would need it.
    #[serde(deserialize_with = "borrowed")]
    pub key: Text,
    /// Where the table's name is written.
    pub at: Place,
    pub default: Option<(Verdict, Place)>,
    pub patterns: Vec<PatternRule>,
    /// `risk`: the command's risk whatever its arguments.
    pub risk: Option<(Risk, Place)>,
    /// Confinement settings for this command; None: the `[sandbox]` default.
    pub network: Option<bool>,
    pub unix_sockets: Option<bool>,
    pub subprocesses: Option<bool>,
    /// What the command is for, shown by `help`.
    #[serde(deserialize_with = "borrowed_opt")]
    pub description: Option<Text>,
}

/// A whole-command pattern as written in `[rules]` or `[risk]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct Entry {
    /// The list it came from, e.g. `risk.high`.
    #[serde(deserialize_with = "borrowed")]
    pub key: Text,
    /// The entry exactly as written, including the command word.
    #[serde(deserialize_with = "borrowed")]
    pub text: Text,
    pub pattern: ArgPattern,
    pub at: Place,
}

/// A `[risk]` entry: the risk of a command when its arguments match.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct RiskRule {
    pub command: CommandRef,
    pub risk: Risk,
    pub entry: Entry,
}

/// A `[rules]` entry: a command and an argument pattern.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
pub(crate) struct Rule {
    pub command: CommandRef,
    pub rule: PatternRule,
}

/// A parsed and validated policy whose command names are not looked up yet. Looking them up
/// is most of the cost of loading (a `stat` per name and search directory), so the shell
/// starts work that needs only the policy's settings (its file-system confinement) before
/// `resolve`, and the two overlap.
#[derive(Debug)]
pub struct Unresolved(Policy);

impl Unresolved {
    /// As [`Policy::from_toml`], without looking up the command names.
    pub fn from_toml(
        text: &str,
        origin: &str,
        env_path: Option<&str>,
    ) -> Result<Unresolved, PolicyError> {
        Unresolved::from_toml_for(text, origin, env_path, None)
    }

    /// As [`Unresolved::from_toml`], with the `[users]` and `[groups]` sections of `who`
    /// rather than of the user running rsh.
    pub fn from_toml_for(
        text: &str,
        origin: &str,
        env_path: Option<&str>,
        who: Option<Who>,
    ) -> Result<Unresolved, PolicyError> {
        Loader::new(text, origin, who, 0).load(env_path)
    }

    /// Adds the policy files of `dir` (`*.toml`, in name order) to this policy, each with the
    /// owners a policy file may have. A missing directory adds nothing. Included files add
    /// entries (see [`Loader::include`]); what they say is decided as if written in the main
    /// file, and each entry keeps its own file and line.
    pub fn include_dir(mut self, dir: &Path, owners: Owners) -> Result<Unresolved, PolicyError> {
        let error = |message: String| PolicyError {
            origin: dir.display().to_string(),
            line: None,
            column: None,
            message,
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(self),
            Err(e) => return Err(error(format!("cannot read the include directory: {e}"))),
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(".toml") && !n.starts_with('.'))
            })
            .collect();
        files.sort();
        for file in files {
            let origin = file.display().to_string();
            let (text, _) = trust::read_trusted(&file, owners).map_err(|message| PolicyError {
                origin: origin.clone(),
                line: None,
                column: None,
                message,
            })?;
            let base = self.0.end;
            let who = self.0.who.clone();
            let added = Loader::new(&text, &origin, who, base).include()?;
            self.0.add(added, base, origin, &text);
        }
        Ok(self)
    }

    /// As [`Policy::load`], without looking up the command names, and with the owners the
    /// file may have (see [`Owners`]).
    pub fn load(
        path: &Path,
        env_path: Option<&str>,
        owners: Owners,
    ) -> Result<Unresolved, PolicyError> {
        Unresolved::load_then(path, env_path, owners, &mut |_| {})
    }

    /// As [`Unresolved::load`], telling `sandbox_known` the policy's sandbox settings as soon
    /// as they are built, before its commands are: the shell starts preparing the programs'
    /// confinement (a second thread) while the rest of the policy is built and checked. An
    /// included file cannot change them. Not called when the file cannot be read or parsed.
    pub fn load_then(
        path: &Path,
        env_path: Option<&str>,
        owners: Owners,
        sandbox_known: &mut dyn FnMut(&SandboxConfig),
    ) -> Result<Unresolved, PolicyError> {
        let origin = path.display().to_string();
        let (text, real) = trust::read_trusted(path, owners).map_err(|message| PolicyError {
            origin: origin.clone(),
            line: None,
            column: None,
            message,
        })?;
        let mut loader = Loader::new(&text, &origin, None, 0);
        loader.sandbox_known = Some(sandbox_known);
        let policy = loader.load(env_path)?;
        // The included files sit beside the policy, not necessarily in the administrator's
        // directory itself.
        let owners = match owners {
            Owners::SystemDir => Owners::RootOnly,
            other => other,
        };
        policy.include_dir(&real.with_file_name(INCLUDE_DIR), owners)
    }

    /// As [`Policy::built_in`], without looking up the command names.
    pub fn built_in(env_path: Option<&str>) -> Result<Unresolved, PolicyError> {
        Unresolved::built_in_then(&[], env_path, &mut |_| {})
    }

    /// As [`Unresolved::built_in`], from `compiled`, the form [`compile_built_in`] stored
    /// when rsh was built, and telling `sandbox_known` the sandbox settings as soon as they
    /// are known (see [`Unresolved::load_then`]). When `compiled` was not made from this
    /// rsh's built-in policy, the text is loaded instead.
    pub fn built_in_then(
        compiled: &'static [u8],
        env_path: Option<&str>,
        sandbox_known: &mut dyn FnMut(&SandboxConfig),
    ) -> Result<Unresolved, PolicyError> {
        let mut told = false;
        let stored = compiled::built_in(compiled, env_path, &mut |sandbox| {
            told = true;
            sandbox_known(sandbox);
        });
        if let Some(policy) = stored {
            return Ok(policy);
        }
        let mut loader = Loader::new(DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, None, 0);
        loader.built_in = true;
        // Told once: the settings a stored form gave before the rest failed to decode are
        // those of this same text.
        if !told {
            loader.sandbox_known = Some(sandbox_known);
        }
        loader.load(env_path)
    }

    /// How started programs are confined; needs no command name.
    pub fn sandbox(&self) -> &SandboxConfig {
        &self.0.settings.sandbox
    }

    /// Looks up every command name the policy mentions.
    pub fn resolve(self) -> Policy {
        let mut policy = self.0;
        let settings = &mut policy.settings;
        // Looked up with the names borrowed, then handed to the entries.
        let names: Vec<&str> = settings.commands().map(|c| &*c.name).collect();
        let targets = known_names::targets(&policy.resolve_dirs, &names);
        for (command, targets) in settings.commands_mut().zip(targets) {
            command.targets = targets;
        }
        policy
    }
}

/// A loaded, validated policy. Immutable; share it freely between threads.
#[derive(Debug, Clone)]
pub struct Policy {
    origin: String,
    /// The files included after the main one: where each one's entries start in the order
    /// of all entries (see [`Place::offset`]), and its name.
    included: Vec<(usize, String)>,
    /// Where the next included file's entries start.
    end: usize,
    /// Where the command names are looked up: the policy's path, or the absolute entries of
    /// the PATH it was loaded with.
    resolve_dirs: Vec<PathBuf>,
    settings: Built,
    /// Every `[users.NAME]` and `[groups.NAME]` section, whoever it is for: `users` or
    /// `groups`, the name, and where it is written.
    sections: Vec<(&'static str, String, Place)>,
    /// `[audit]`.
    audit: AuditConfig,
    /// `[approval]`.
    approval: ApprovalConfig,
    /// `[output]`.
    output: OutputConfig,
    /// Whose sections apply, when not the user running rsh (for included files).
    who: Option<Who>,
    /// Every file the policy was read from (the main one first), for the audit trail.
    texts: Vec<PolicyText>,
}

/// A file a policy was read from: its origin and text, and the SHA-256 of the text when it
/// is known already. Otherwise it is computed when asked for: it costs a fifth of loading
/// the default policy, and only the audit trail's first record needs it.
#[derive(Clone)]
struct PolicyText {
    origin: String,
    /// Only read for its digest, when that is not known yet.
    text: Text,
    sha256: Option<String>,
}

/// Without the digest: a policy is the same whether its digest is known yet or not.
impl std::fmt::Debug for PolicyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("PolicyText")
            .field(&self.origin)
            .field(&self.text)
            .finish()
    }
}

impl PolicyText {
    fn new(origin: &str, text: &str) -> PolicyText {
        PolicyText {
            origin: origin.to_owned(),
            text: Text::Owned(text.to_owned()),
            sha256: None,
        }
    }
}

impl Policy {
    /// Parses `text`; `origin` names it in messages (a path, or "built-in default policy").
    /// `env_path` is the PATH used for resolving names when the policy has no [shell] path.
    pub fn from_toml(
        text: &str,
        origin: &str,
        env_path: Option<&str>,
    ) -> Result<Policy, PolicyError> {
        Unresolved::from_toml(text, origin, env_path).map(Unresolved::resolve)
    }

    /// Reads and parses the policy file at `path`; read errors also name the file. The file,
    /// and every directory above it, must be owned by root or the user running rsh and
    /// writable by nobody else.
    pub fn load(path: &Path, env_path: Option<&str>) -> Result<Policy, PolicyError> {
        let owners = Owners::RootOr(trust::real_uid());
        Unresolved::load(path, env_path, owners).map(Unresolved::resolve)
    }

    /// The compiled-in default policy ([`DEFAULT_POLICY`]).
    pub fn built_in(env_path: Option<&str>) -> Result<Policy, PolicyError> {
        Unresolved::built_in(env_path).map(Unresolved::resolve)
    }

    /// Directories to search for a command name, in order: the policy's path, or None to mean "use $PATH".
    pub fn search_path(&self) -> Option<&[PathBuf]> {
        self.settings.search_path.as_deref()
    }

    /// Where the policy's command names were looked up: its `[shell] path`, or the absolute
    /// entries of the PATH it was loaded with.
    pub fn resolve_dirs(&self) -> &[PathBuf] {
        &self.resolve_dirs
    }

    /// The file name or description given when loading.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The file an entry is written in: the main policy's origin, or an included file.
    pub(crate) fn origin_of(&self, at: Place) -> &str {
        self.included
            .iter()
            .rev()
            .find(|(start, _)| *start <= at.offset)
            .map_or(&self.origin, |(_, origin)| origin)
    }

    /// `FILE:LINE` of an entry, naming the file it is written in.
    pub(crate) fn location(&self, at: Place) -> String {
        format!("{}:{}", self.origin_of(at), at.line)
    }

    /// The files included after the main one, in order.
    pub fn included(&self) -> impl Iterator<Item = &str> {
        self.included.iter().map(|(_, origin)| origin.as_str())
    }

    /// Adds the entries of an included file, loaded with its offsets starting at `base`.
    fn add(&mut self, added: Included, base: usize, origin: String, text: &str) {
        let len = text.len();
        self.texts.push(PolicyText::new(&origin, text));
        self.settings.add_entries(added.settings);
        self.sections.extend(added.sections);
        self.included.push((base, origin));
        self.end = base + len + 1;
    }

    /// The verdict for commands the policy does not name (`[shell] unknown`).
    pub fn unknown(&self) -> Verdict {
        self.settings.unknown
    }

    /// Command names the policy mentions that resolved to no file when it was loaded, in the
    /// order they first appear. They still match shell builtins of the same name, but no
    /// external program. Useful for warnings; not an error.
    pub fn unresolved_names(&self) -> Vec<&str> {
        let mut refs: Vec<(&CommandRef, usize)> = Vec::new();
        refs.extend(
            self.settings
                .listed
                .iter()
                .map(|l| (&l.command, l.at.offset)),
        );
        refs.extend(
            self.settings
                .tables
                .iter()
                .map(|t| (&t.command, t.at.offset)),
        );
        refs.extend(
            self.settings
                .rules
                .iter()
                .map(|r| (&r.command, r.rule.at.offset)),
        );
        refs.extend(
            self.settings
                .risks
                .iter()
                .map(|r| (&r.command, r.entry.at.offset)),
        );
        refs.sort_by_key(|(_, offset)| *offset);
        let mut names: Vec<&str> = Vec::new();
        for (command, _) in refs {
            if command.targets.is_empty() && !names.contains(&&*command.name) {
                names.push(&command.name);
            }
        }
        names
    }

    /// How started programs are confined (`[sandbox]`, `[paths]`, `[limits]`, `[env]`).
    pub fn sandbox(&self) -> &SandboxConfig {
        &self.settings.sandbox
    }

    /// Files recognised by name (`[sensitive]` and the built-in lists).
    pub fn sensitive(&self) -> &Sensitive {
        &self.settings.sensitive
    }

    pub(crate) fn unknown_at(&self) -> Option<Place> {
        self.settings.unknown_at
    }

    /// Every `[users.NAME]` and `[groups.NAME]` section: `users` or `groups`, and the name.
    pub(crate) fn sections(&self) -> &[(&'static str, String, Place)] {
        &self.sections
    }

    pub(crate) fn listed(&self) -> &[Listed] {
        &self.settings.listed
    }

    pub(crate) fn tables(&self) -> &[CommandTable] {
        &self.settings.tables
    }

    pub(crate) fn rules(&self) -> &[Rule] {
        &self.settings.rules
    }

    pub(crate) fn risks(&self) -> &[RiskRule] {
        &self.settings.risks
    }

    /// Whether rsh's built-in classification of commands by risk applies (`[risk] builtin`).
    pub fn builtin_risk(&self) -> bool {
        self.settings.builtin_risk
    }

    /// `[audit]`.
    pub fn audit(&self) -> &AuditConfig {
        &self.audit
    }

    /// `[approval]`.
    pub fn approval(&self) -> &ApprovalConfig {
        &self.approval
    }

    /// `[output]`.
    pub fn output(&self) -> &OutputConfig {
        &self.output
    }

    /// Every file the policy was read from, the main one first, with the SHA-256 of its
    /// text (what `sha256sum FILE` prints).
    pub fn digests(&self) -> Vec<(String, String)> {
        self.texts
            .iter()
            .map(|t| {
                let sha256 = t.sha256.clone().unwrap_or_else(|| sha256_hex(&t.text));
                (t.origin.clone(), sha256)
            })
            .collect()
    }

    /// `[shell] mode`.
    pub fn mode(&self) -> Mode {
        self.settings.mode
    }

    /// `[shell] strict`: every command that is not low-risk needs confirmation.
    pub fn strict(&self) -> bool {
        self.settings.strict
    }

    /// `[shell] warnings`: after this many refused commands the session ends (None: never).
    pub fn warnings(&self) -> Option<u64> {
        self.settings.warnings
    }

    /// `[shell]` prompt, history, idle timeout and message of the day.
    pub fn session(&self) -> &SessionConfig {
        &self.settings.session
    }
}

pub(crate) fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Renders a dotted key the way TOML would need it written: bare segments as they are, others
/// quoted.
pub(crate) fn toml_key<S: AsRef<str>>(segments: &[S]) -> String {
    segments
        .iter()
        .map(|s| {
            let s = s.as_ref();
            let bare = !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if bare { s.to_owned() } else { format!("{s:?}") }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Where a policy's command names are looked up: its `[shell] path`, or the absolute entries
/// of `env_path`.
fn resolve_dirs(search_path: &Option<Vec<PathBuf>>, env_path: Option<&str>) -> Vec<PathBuf> {
    match search_path {
        Some(dirs) => dirs.clone(),
        // Relative PATH entries (".", "") are ignored: a name in the policy never means a
        // file that depends on the directory rsh was started in.
        None => env_path
            .unwrap_or("")
            .split(':')
            .filter(|d| d.starts_with('/'))
            .map(PathBuf::from)
            .collect(),
    }
}

/// One load: the text and its name, and the functions that turn byte offsets into positions.
struct Loader<'t> {
    text: &'t str,
    origin: &'t str,
    /// Byte offsets where lines start: every entry records its line, so finding one must not
    /// rescan the file.
    line_starts: Vec<usize>,
    /// Whose `[users]` and `[groups]` sections apply; None: the user running rsh, looked up
    /// only when the policy has such sections.
    who: Option<Who>,
    /// Where each `[users.NAME]` and `[groups.NAME]` section is written, with its key prefix.
    sections: Vec<(std::ops::Range<usize>, String)>,
    /// Added to this text's offsets in the places it records, so that entries of several
    /// files are ordered file after file.
    base: usize,
    /// The text is the built-in policy: its argument patterns are parsed without checking
    /// their regular expressions again (see `ArgPattern::parse_checking`).
    built_in: bool,
    /// Told the sandbox settings as soon as they are built (see `Unresolved::load_then`).
    sandbox_known: Option<&'t mut dyn FnMut(&SandboxConfig)>,
}

/// The settings of a policy (or of one section), built and checked.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
struct Built {
    search_path: Option<Vec<PathBuf>>,
    unknown: Verdict,
    unknown_at: Option<Place>,
    listed: Vec<Listed>,
    tables: Vec<CommandTable>,
    rules: Vec<Rule>,
    /// Stored apart, ahead of everything else, in the built-in policy's stored form (see
    /// `compiled`).
    #[serde(skip)]
    sandbox: SandboxConfig,
    sensitive: Sensitive,
    mode: Mode,
    strict: bool,
    warnings: Option<u64>,
    session: SessionConfig,
    risks: Vec<RiskRule>,
    /// Whether the built-in classification of commands applies (`risk.builtin`).
    builtin_risk: bool,
}

impl Built {
    /// Every command an entry names, in the order `Unresolved::resolve` hands out targets.
    fn commands(&self) -> impl Iterator<Item = &CommandRef> {
        self.listed
            .iter()
            .map(|l| &l.command)
            .chain(self.tables.iter().map(|t| &t.command))
            .chain(self.rules.iter().map(|r| &r.command))
            .chain(self.risks.iter().map(|r| &r.command))
    }

    /// As `commands`, to change them.
    fn commands_mut(&mut self) -> impl Iterator<Item = &mut CommandRef> {
        self.listed
            .iter_mut()
            .map(|l| &mut l.command)
            .chain(self.tables.iter_mut().map(|t| &mut t.command))
            .chain(self.rules.iter_mut().map(|r| &mut r.command))
            .chain(self.risks.iter_mut().map(|r| &mut r.command))
    }

    /// serde hands tables over in name order; everything is kept in file order instead.
    fn in_file_order(&mut self) {
        self.listed.sort_by_key(|l| l.at.offset);
        self.tables.sort_by_key(|t| t.at.offset);
        self.rules.sort_by_key(|r| r.rule.at.offset);
        self.risks.sort_by_key(|r| r.entry.at.offset);
    }

    /// Adds the entries of `other` (an included file's, or one of its sections') to these.
    fn add_entries(&mut self, other: Built) {
        self.listed.extend(other.listed);
        self.tables.extend(other.tables);
        self.rules.extend(other.rules);
        self.risks.extend(other.risks);
        let sensitive = other.sensitive;
        self.sensitive.high.extend(sensitive.high);
        self.sensitive.medium.extend(sensitive.medium);
        self.sensitive.allow.extend(sensitive.allow);
    }
}

/// What an included file adds: its entries for the user rsh runs for, and every section it
/// has (for `--check-policy`).
struct Included {
    settings: Built,
    sections: Vec<(&'static str, String, Place)>,
}

/// Validation errors found so far; the one reported is the first in the file.
#[derive(Default)]
struct Problems(Vec<(usize, String)>);

impl Problems {
    fn add(&mut self, offset: usize, message: String) {
        self.0.push((offset, message));
    }

    /// The settings of a table read on its own: the defaults when it is absent, or when it
    /// has a problem (which is kept).
    fn settle<T: Default>(&mut self, read: Option<Result<T, (usize, String)>>) -> T {
        match read {
            Some(Ok(settings)) => settings,
            Some(Err((offset, message))) => {
                self.add(offset, message);
                T::default()
            }
            None => T::default(),
        }
    }

    /// The problem written first in the file.
    fn first(self) -> Option<(usize, String)> {
        self.0.into_iter().min_by_key(|(offset, _)| *offset)
    }
}

/// The entries of one list seen so far, to reject an entry written twice.
#[derive(Default)]
struct Seen(HashMap<String, usize>);

/// A path as its components say it: `/usr/bin/` and `/usr//bin` are `/usr/bin`.
fn same_path(text: &str) -> String {
    Path::new(text)
        .components()
        .collect::<PathBuf>()
        .to_string_lossy()
        .into_owned()
}

impl Seen {
    /// Records `text` at `offset`; returns the offset of an earlier identical entry.
    fn check(&mut self, text: &str, offset: usize) -> Option<usize> {
        match self.0.get(text) {
            Some(&first) => Some(first),
            None => {
                self.0.insert(text.to_owned(), offset);
                None
            }
        }
    }
}

impl<'t> Loader<'t> {
    fn new(text: &'t str, origin: &'t str, who: Option<Who>, base: usize) -> Loader<'t> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Loader {
            text,
            origin,
            line_starts,
            who,
            sections: Vec::new(),
            base,
            built_in: false,
            sandbox_known: None,
        }
    }

    fn arg_pattern(&self, text: &str) -> Result<ArgPattern, pattern::PatternError> {
        ArgPattern::parse_checking(text, !self.built_in)
    }
}

impl Loader<'_> {
    /// An included file: it may add to the lists and tables of `[commands]`, `[rules]`,
    /// `[risk]` and `[sensitive]`, at its top level and in `[users.NAME]` and `[groups.NAME]`
    /// sections (a team's file adds what its group may run), and nothing else. Settings with
    /// one value (`[shell]`, `[sandbox]`, `[paths]`, ...) stay in the main file, so that what
    /// an included file can change is easy to see. Its entries are decided as if written
    /// after the main file's; a section's entries apply to its user or the members of its
    /// group only, added to (never replacing) what the main file gives them.
    fn include(mut self) -> Result<Included, PolicyError> {
        let raw = self.parse()?;
        let whole = [
            ("audit", raw.audit.is_some()),
            ("approval", raw.approval.is_some()),
            ("output", raw.output.is_some()),
        ];
        if let Some((key, _)) = whole.iter().find(|(_, given)| *given) {
            return Err(self.not_in_include(&[key]));
        }
        let (top, users, groups) = raw.split();
        self.only_entries(&[], &top)?;
        let named: Vec<(&'static str, NamedSection)> = users
            .into_iter()
            .map(|u| ("users", u))
            .chain(groups.into_iter().map(|g| ("groups", g)))
            .collect();
        for (kind, section) in &named {
            self.only_entries(&[kind, &section.name], &section.section)?;
        }
        if !named.is_empty() {
            self.sections = self.section_spans();
        }
        let mut problems = Problems::default();
        let mut settings = self.section(top, &mut problems);
        let mut sections = Vec::with_capacity(named.len());
        let who = (!named.is_empty()).then(|| self.who.clone().unwrap_or_else(Who::current));
        // Groups first, then the user, each in file order, as in the main file.
        let (users, groups): (Vec<_>, Vec<_>) = named.into_iter().partition(|(k, _)| *k == "users");
        for (kind, section) in groups.into_iter().chain(users) {
            sections.push((kind, section.name.clone(), self.place(section.span.start)));
            // Every section is checked, whoever it is for.
            let built = self.section(section.section, &mut problems);
            let applies = who.as_ref().is_some_and(|who| match kind {
                "users" => section.name == who.user,
                _ => who.groups.contains(&section.name),
            });
            if applies {
                settings.add_entries(built);
            }
        }
        if let Some((offset, message)) = problems.first() {
            return Err(self.error_at(Some(offset), message));
        }
        // The built-in lists are the main policy's already.
        settings.sensitive.high.retain(|e| e.at.is_some());
        settings.sensitive.medium.retain(|e| e.at.is_some());
        settings.sensitive.allow.retain(|e| e.at.is_some());
        settings.in_file_order();
        Ok(Included { settings, sections })
    }

    /// Refuses, in an included file, a table or key of `section` (at the top level, or in
    /// the section named by `prefix`) other than entries to add.
    fn only_entries(&self, prefix: &[&str], section: &RawSection) -> Result<(), PolicyError> {
        let settings = [
            (&["shell"][..], section.shell.is_some()),
            (&["sandbox"], section.sandbox.is_some()),
            (&["paths"], section.paths.is_some()),
            (&["limits"], section.limits.is_some()),
            (&["env"], section.env.is_some()),
            (
                &["sensitive", "builtin"],
                section
                    .sensitive
                    .as_ref()
                    .is_some_and(|s| s.builtin.is_some()),
            ),
            (
                &["risk", "builtin"],
                section.risk.as_ref().is_some_and(|r| r.builtin.is_some()),
            ),
        ];
        match settings.iter().find(|(_, given)| *given) {
            Some((key, _)) => {
                let path: Vec<&str> = prefix.iter().chain(key.iter()).copied().collect();
                Err(self.not_in_include(&path))
            }
            None => Ok(()),
        }
    }

    fn not_in_include(&self, path: &[&str]) -> PolicyError {
        let offset = key_offset(self.text, path);
        let key = if path.last().is_some_and(|k| *k == "builtin") {
            toml_key(path)
        } else {
            format!("[{}]", toml_key(path))
        };
        self.error_at(
            offset,
            format!(
                "{key} cannot be set in an included file: included files add entries to \
                 [commands], [rules], [risk] and [sensitive] (also in [users.NAME] and \
                 [groups.NAME] sections); set it in the main policy"
            ),
        )
    }

    fn load(mut self, env_path: Option<&str>) -> Result<Unresolved, PolicyError> {
        let raw = self.parse()?;
        self.build(raw, env_path)
    }

    /// The text read into the schema.
    fn parse(&self) -> Result<RawPolicy, PolicyError> {
        toml::from_str::<RawPolicy>(self.text).map_err(|e| {
            // Parse again, without the schema, to tell a syntax error from a schema error and
            // to find the key the schema error is about.
            match DeTable::parse(self.text) {
                Err(syntax) => self.syntax_error(&syntax),
                Ok(doc) => self.schema_error(&e, doc.get_ref()),
            }
        })
    }

    fn place(&self, offset: usize) -> Place {
        Place {
            line: self.line_of(offset),
            offset: self.base + offset,
        }
    }

    /// 1-based line of a byte offset. Every entry's place is taken at load, so this is not
    /// `position`, whose column costs a pass over the line.
    fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        self.line_starts.partition_point(|&start| start <= offset)
    }

    /// 1-based (line, column) of a byte offset; the column counts characters.
    fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_of(offset);
        let line_start = self.line_starts[line - 1];
        let before = &self.text.as_bytes()[..offset];
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        (line, column)
    }

    fn error_at(&self, offset: Option<usize>, message: String) -> PolicyError {
        let (line, column) = match offset.map(|o| self.position(o)) {
            Some((line, column)) => (Some(line), Some(column)),
            None => (None, None),
        };
        PolicyError {
            origin: self.origin.to_owned(),
            line,
            column,
            message,
        }
    }

    fn syntax_error(&self, e: &toml::de::Error) -> PolicyError {
        let span = e.span();
        let mut message = e.message().trim_end().to_owned();
        if message == "duplicate key"
            && let Some(key) = span.clone().and_then(|s| self.text.get(s))
        {
            message = format!("duplicate key `{key}`");
        }
        self.error_at(span.map(|s| s.start), format!("TOML syntax: {message}"))
    }

    /// Turns a serde error into one that names the key: `unknown key `foo` in [shell]` rather
    /// than serde's `unknown field`, and `shell.unknown: ...` for a bad value.
    fn schema_error(&self, e: &toml::de::Error, doc: &DeTable<'_>) -> PolicyError {
        let span = e.span();
        // serde speaks of sequences and maps; TOML of arrays and tables.
        let message = e
            .message()
            .trim_end()
            .replace("expected a sequence", "expected an array of strings")
            .replace("invalid type: sequence", "invalid type: array")
            .replace("invalid type: map", "invalid type: table");
        let message = message.as_str();
        let located = span.as_ref().and_then(|s| locate(doc, s.start));
        let message = match located {
            Some((path, Hit::Key)) if message.starts_with("unknown field `") => {
                let rest = &message["unknown field ".len()..];
                let (field, expected) = rest.split_once(", ").unwrap_or((rest, ""));
                let table = &path[..path.len() - 1];
                let place = if table.is_empty() {
                    "at the top level".to_owned()
                } else {
                    format!("in [{}]", toml_key(table))
                };
                if expected.is_empty() {
                    format!("unknown key {field} {place}")
                } else {
                    format!("unknown key {field} {place} ({expected})")
                }
            }
            Some((path, _)) if !path.is_empty() => format!("{}: {message}", toml_key(&path)),
            _ => message.to_owned(),
        };
        self.error_at(span.map(|s| s.start), message)
    }

    fn build(
        &mut self,
        mut raw: RawPolicy,
        env_path: Option<&str>,
    ) -> Result<Unresolved, PolicyError> {
        let mut problems = Problems::default();
        let audit = problems.settle(raw.audit.take().map(AuditConfig::from_raw));
        let approval = problems.settle(raw.approval.take().map(ApprovalConfig::from_raw));
        let output = problems.settle(raw.output.take().map(OutputConfig::from_raw));
        let (mut raw, users, groups) = raw.split();
        let sections: Vec<(&'static str, String, Place)> = users
            .iter()
            .map(|u| ("users", u))
            .chain(groups.iter().map(|g| ("groups", g)))
            .map(|(kind, n)| (kind, n.name.clone(), self.place(n.span.start)))
            .collect();
        if !users.is_empty() || !groups.is_empty() {
            self.sections = self.section_spans();
            // Every section is checked, whoever it is for: a mistake must not wait for the
            // one user it applies to.
            for named in users.iter().chain(&groups) {
                self.section(named.section.clone(), &mut problems);
            }
            let who = self.who.clone().unwrap_or_else(Who::current);
            let applies = groups
                .into_iter()
                .filter(|g| who.groups.contains(&g.name))
                .chain(users.into_iter().filter(|u| u.name == who.user));
            for named in applies {
                raw.overlay(named.section);
            }
        }
        let sandbox = self.section_sandbox(&mut raw, &mut problems);
        if let Some(known) = self.sandbox_known.take() {
            known(&sandbox);
        }
        let mut settings = self.section_with(raw, sandbox, &mut problems);
        let resolve_dirs = resolve_dirs(&settings.search_path, env_path);
        if let Some((offset, message)) = problems.first() {
            return Err(self.error_at(Some(offset), message));
        }
        settings.in_file_order();
        Ok(Unresolved(Policy {
            origin: self.origin.to_owned(),
            included: Vec::new(),
            end: self.text.len() + 1,
            resolve_dirs,
            settings,
            sections,
            audit,
            approval,
            output,
            who: self.who.clone(),
            texts: vec![PolicyText::new(self.origin, self.text)],
        }))
    }

    /// Builds the settings of a policy, or of one `[users.NAME]` or `[groups.NAME]` section
    /// alone (for its problems), adding what is wrong to `problems`.
    fn section(&self, mut raw: RawSection, problems: &mut Problems) -> Built {
        let sandbox = self.section_sandbox(&mut raw, problems);
        self.section_with(raw, sandbox, problems)
    }

    /// The confinement of a section's programs, taken out of it first: the shell starts
    /// preparing it while the rest is built.
    fn section_sandbox(&self, raw: &mut RawSection, problems: &mut Problems) -> SandboxConfig {
        let mut sandbox = self.sandbox(
            &raw.sandbox,
            raw.paths.take(),
            raw.limits.take(),
            raw.env.take(),
            problems,
        );
        let mode = raw.shell.as_ref().and_then(|s| s.mode).unwrap_or_default();
        // Read-only is the kernel's too: the programs that run get no write roots, so what
        // the classification gets wrong still writes nothing.
        if mode == Mode::Readonly
            && let Some(paths) = &mut sandbox.paths
        {
            paths.write.clear();
        }
        sandbox
    }

    fn section_with(
        &self,
        raw: RawSection,
        sandbox: SandboxConfig,
        problems: &mut Problems,
    ) -> Built {
        let shell = raw.shell.unwrap_or_default();
        let session = self.session(&shell, problems);
        let search_path = shell.path.map(|list| self.search_path(list, problems));
        let (unknown, unknown_at) = match shell.unknown {
            Some(v) => (*v.get_ref(), Some(self.place(v.span().start))),
            None => (Verdict::Deny, None),
        };
        let commands = raw.commands.unwrap_or_default();
        let listed = self.listed(&commands.lists, problems);
        let tables = commands
            .tables
            .into_iter()
            .filter_map(|(name, table)| self.command_table(name, table, problems))
            .collect();
        let rules = self.rules(raw.rules.unwrap_or_default(), problems);
        let sensitive = self.sensitive(raw.sensitive.unwrap_or_default(), problems);
        let mode = shell.mode.unwrap_or_default();
        let (risks, builtin_risk) = self.risk(raw.risk.unwrap_or_default(), problems);
        Built {
            mode,
            strict: shell.strict.unwrap_or(false),
            warnings: shell.warnings.filter(|&n| n > 0),
            session,
            risks,
            builtin_risk,
            search_path,
            unknown,
            unknown_at,
            listed,
            tables,
            rules,
            sandbox,
            sensitive,
        }
    }

    /// The `[shell]` settings for people at a terminal.
    fn session(&self, shell: &RawShell, problems: &mut Problems) -> SessionConfig {
        let defaults = SessionConfig::default();
        let history = match &shell.history {
            None => defaults.history,
            Some(file) => {
                if let Err(why) = session::check_history_file(file.get_ref()) {
                    problems.add(file.span().start, why);
                }
                Some(file.get_ref().clone()).filter(|f| !f.is_empty())
            }
        };
        SessionConfig {
            prompt: shell.prompt.clone(),
            prompt_from_env: shell.prompt_from_env.unwrap_or(defaults.prompt_from_env),
            history,
            history_size: shell
                .history_size
                .map_or(defaults.history_size, |n| n.min(1_000_000) as usize),
            idle_timeout: shell
                .idle_timeout
                .filter(|&s| s > 0)
                .map(std::time::Duration::from_secs),
            motd: shell.motd.clone().filter(|m| !m.is_empty()),
        }
    }

    /// `[sensitive]`: the built-in lists (unless `builtin = false`), then the policy's.
    fn sensitive(&self, raw: RawSensitive, problems: &mut Problems) -> Sensitive {
        let mut sensitive = if raw.builtin.unwrap_or(true) {
            Sensitive::built_in()
        } else {
            Sensitive::default()
        };
        for (name, list, into) in [
            ("high", raw.high, &mut sensitive.high),
            ("medium", raw.medium, &mut sensitive.medium),
            ("allow", raw.allow, &mut sensitive.allow),
        ] {
            let mut seen = Seen::default();
            for entry in list.map(Spanned::into_inner).unwrap_or_default() {
                let offset = entry.span().start;
                let text = entry.into_inner();
                let key = format!("{}sensitive.{name}", self.section_at(offset));
                if let Some(first) = seen.check(&text, offset) {
                    problems.add(offset, self.twice(&key, &text, first));
                }
                match PathPattern::parse(&text) {
                    Ok(pattern) => into.push(SensitiveEntry {
                        key: Text::Owned(key),
                        text: Text::Owned(text),
                        pattern,
                        at: Some(self.place(offset)),
                    }),
                    Err(why) => problems.add(offset, format!("{key}: {text:?} {why}")),
                }
            }
        }
        sensitive
    }

    /// Where every key and value inside a `[users.NAME]` or `[groups.NAME]` section is written, with
    /// the section's key prefix. A section's own span does not cover the tables written under
    /// their own headers (`[users.ann.commands]`), so the values are collected one by one.
    fn section_spans(&self) -> Vec<(std::ops::Range<usize>, String)> {
        fn values(
            table: &DeTable<'_>,
            prefix: &str,
            out: &mut Vec<(std::ops::Range<usize>, String)>,
        ) {
            for (key, value) in table.iter() {
                out.push((key.span(), prefix.to_owned()));
                match value.get_ref() {
                    DeValue::Table(inner) => values(inner, prefix, out),
                    _ => out.push((value.span(), prefix.to_owned())),
                }
            }
        }
        let Ok(doc) = DeTable::parse(self.text) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for kind in ["users", "groups"] {
            let Some(DeValue::Table(sections)) = doc.get_ref().get(kind).map(|v| v.get_ref())
            else {
                continue;
            };
            for (name, section) in sections.iter() {
                let prefix = format!("{}.", toml_key(&[kind, name.get_ref()]));
                if let DeValue::Table(table) = section.get_ref() {
                    values(table, &prefix, &mut out);
                }
            }
        }
        out
    }

    /// The section an entry written at `offset` belongs to, as a key prefix: `users.ann.`,
    /// or nothing at the top level.
    fn section_at(&self, offset: usize) -> &str {
        self.sections
            .iter()
            .find(|(span, _)| span.contains(&offset))
            .map_or("", |(_, prefix)| prefix.as_str())
    }

    /// `[sandbox]`, `[paths]`, `[limits]` and `[env]`.
    fn sandbox(
        &self,
        raw: &Option<schema::RawSandbox>,
        paths: Option<schema::RawPaths>,
        limits: Option<schema::RawLimits>,
        env: Option<schema::RawEnv>,
        problems: &mut Problems,
    ) -> SandboxConfig {
        let mut config = SandboxConfig::default();
        if let Some(raw) = raw {
            if let Some(mode) = raw.mode {
                config.mode = mode;
            }
            config.network = raw.network.unwrap_or(false);
            config.unix_sockets = raw.unix_sockets.unwrap_or(false);
            config.subprocesses = raw.subprocesses.unwrap_or(false);
        }
        if let Some(paths) = paths {
            let mut list = |name: &str, list: Option<SpannedList>| {
                let Some(list) = list else { return Vec::new() };
                let mut seen = Seen::default();
                let mut specs = Vec::new();
                for entry in list.into_inner() {
                    let offset = entry.span().start;
                    let text = entry.into_inner();
                    if let Some(first) = seen.check(&same_path(&text), offset) {
                        let line = self.line_of(first);
                        problems.add(
                            offset,
                            format!(
                                "paths.{name}: {text:?} is listed twice (first on line {line})"
                            ),
                        );
                    }
                    match PathSpec::parse(&text) {
                        Ok(spec) => specs.push(spec),
                        Err(why) => problems.add(offset, format!("paths.{name}: {why}")),
                    }
                }
                specs
            };
            config.paths = Some(Paths {
                read: list("read", paths.read),
                write: list("write", paths.write),
                exec: list("exec", paths.exec),
                deny: list("deny", paths.deny),
                terminals: paths.terminals.unwrap_or_default(),
            });
        }
        if let Some(limits) = limits {
            config.limits.cpu = limits.cpu.map(|v| v.into_inner());
            config.limits.memory = limits.memory.map(|v| v.into_inner().0);
            config.limits.file_size = limits.file_size.map(|v| v.into_inner().0);
            config.limits.open_files = limits.open_files.map(|v| v.into_inner());
            config.limits.processes = limits.processes.map(|v| v.into_inner());
            if let Some(timeout) = limits.timeout {
                let seconds = *timeout.get_ref();
                if seconds == 0 || seconds > MAX_TIMEOUT {
                    problems.add(
                        timeout.span().start,
                        format!(
                            "limits.timeout: {seconds} is not between 1 and {MAX_TIMEOUT} seconds"
                        ),
                    );
                }
                config.limits.timeout = seconds.clamp(1, MAX_TIMEOUT);
            }
        }
        if let Some(allow) = env.and_then(|e| e.allow) {
            config.env_allow = allow
                .into_inner()
                .into_iter()
                .map(|v| v.into_inner())
                .collect();
        }
        config
    }

    /// `[shell] path`: absolute directories, each once.
    fn search_path(&self, list: SpannedList, problems: &mut Problems) -> Vec<PathBuf> {
        let mut seen = Seen::default();
        let mut dirs = Vec::new();
        for dir in list.into_inner() {
            let offset = dir.span().start;
            let text = dir.into_inner();
            if !text.starts_with('/') {
                problems.add(
                    offset,
                    format!("shell.path: {text:?} is not an absolute directory"),
                );
            } else if let Some(first) = seen.check(&same_path(&text), offset) {
                problems.add(offset, self.twice("shell.path", &text, first));
            }
            dirs.push(PathBuf::from(text));
        }
        dirs
    }

    /// The `allow`, `ask` and `deny` lists of `[commands]`.
    fn listed(&self, lists: &RawLists, problems: &mut Problems) -> Vec<Listed> {
        let mut listed = Vec::new();
        for (verdict, key, list) in [
            (Verdict::Allow, "commands.allow", &lists.allow),
            (Verdict::Ask, "commands.ask", &lists.ask),
            (Verdict::Deny, "commands.deny", &lists.deny),
        ] {
            let Some(list) = list else { continue };
            let key = format!("{}{key}", self.section_at(list.span().start));
            let key = key.as_str();
            let mut seen = Seen::default();
            for name in list.get_ref() {
                let offset = name.span().start;
                let text = name.get_ref().as_str();
                if let Err(why) = identity::check_name(text) {
                    problems.add(offset, format!("{key}: {why}"));
                } else if let Some(first) = seen.check(text, offset) {
                    problems.add(offset, self.twice(key, text, first));
                } else {
                    listed.push(Listed {
                        command: CommandRef::named(text),
                        verdict,
                        key: Text::Owned(key.to_owned()),
                        at: self.place(offset),
                    });
                }
            }
        }
        listed
    }

    /// One `[commands.NAME]` table.
    fn command_table(
        &self,
        name: Spanned<String>,
        table: RawCommandTable,
        problems: &mut Problems,
    ) -> Option<CommandTable> {
        let key = format!(
            "{}{}",
            self.section_at(name.span().start),
            toml_key(&["commands", name.get_ref().as_str()])
        );
        if let Err(why) = identity::check_name(name.get_ref()) {
            problems.add(name.span().start, format!("[{key}]: {why}"));
            return None;
        }
        let default = table
            .default
            .map(|d| (*d.get_ref(), self.place(d.span().start)));
        let mut patterns = Vec::new();
        for (verdict, list_name, list) in [
            (Verdict::Allow, "allow", table.allow),
            (Verdict::Ask, "ask", table.ask),
            (Verdict::Deny, "deny", table.deny),
        ] {
            let Some(list) = list else { continue };
            let list_key = format!("{key}.{list_name}");
            patterns.extend(self.pattern_list(&list_key, verdict, list, problems));
        }
        Some(CommandTable {
            command: CommandRef::named(name.get_ref()),
            key: Text::Owned(key),
            at: self.place(name.span().start),
            default,
            patterns,
            risk: table
                .risk
                .map(|r| (*r.get_ref(), self.place(r.span().start))),
            network: table.network,
            unix_sockets: table.unix_sockets,
            subprocesses: table.subprocesses,
            description: table
                .description
                .filter(|d| !d.trim().is_empty())
                .map(Text::Owned),
        })
    }

    /// `[rules]`: a command word, then an argument pattern.
    fn rules(&self, lists: RawLists, problems: &mut Problems) -> Vec<Rule> {
        let lists = vec![
            (Verdict::Allow, "allow", lists.allow),
            (Verdict::Ask, "ask", lists.ask),
            (Verdict::Deny, "deny", lists.deny),
        ];
        self.command_patterns("rules", lists, problems)
            .into_iter()
            .map(|(verdict, command, entry)| Rule {
                command,
                rule: PatternRule {
                    key: entry.key,
                    verdict,
                    text: entry.text,
                    pattern: entry.pattern,
                    at: entry.at,
                },
            })
            .collect()
    }

    /// `[risk]`: the policy's own risk patterns, and whether the built-in classification
    /// applies.
    fn risk(&self, raw: RawRisk, problems: &mut Problems) -> (Vec<RiskRule>, bool) {
        let lists = vec![
            (Risk::Low, "low", raw.low),
            (Risk::Medium, "medium", raw.medium),
            (Risk::High, "high", raw.high),
        ];
        let rules = self
            .command_patterns("risk", lists, problems)
            .into_iter()
            .map(|(risk, command, entry)| RiskRule {
                command,
                risk,
                entry,
            })
            .collect();
        (rules, raw.builtin.unwrap_or(true))
    }

    /// The lists of a table of whole-command patterns (`[rules]`, `[risk]`): each entry a
    /// command word, then an argument pattern, with the value its list stands for.
    fn command_patterns<T: Copy>(
        &self,
        table: &str,
        lists: Vec<(T, &str, Option<SpannedList>)>,
        problems: &mut Problems,
    ) -> Vec<(T, CommandRef, Entry)> {
        let mut out = Vec::new();
        for (value, list_name, list) in lists {
            let Some(list) = list else { continue };
            let key = format!("{}{table}.{list_name}", self.section_at(list.span().start));
            let mut seen = Seen::default();
            for entry in list.into_inner() {
                let offset = entry.span().start;
                let text = entry.into_inner();
                if let Some(first) = seen.check(&text, offset) {
                    problems.add(offset, self.twice(&key, &text, first));
                    continue;
                }
                match self.parse_rule(&text) {
                    Ok((command, pattern)) => out.push((
                        value,
                        CommandRef::named(&command),
                        Entry {
                            key: Text::Owned(key.clone()),
                            text: Text::Owned(text),
                            pattern,
                            at: self.place(offset),
                        },
                    )),
                    Err(e) => problems.add(offset, format!("{key}: invalid rule {text:?}: {e}")),
                }
            }
        }
        out
    }

    fn pattern_list(
        &self,
        key: &str,
        verdict: Verdict,
        list: SpannedList,
        problems: &mut Problems,
    ) -> Vec<PatternRule> {
        let mut seen = Seen::default();
        let mut out = Vec::new();
        for entry in list.into_inner() {
            let offset = entry.span().start;
            let text = entry.into_inner();
            if let Some(first) = seen.check(&text, offset) {
                problems.add(offset, self.twice(key, &text, first));
                continue;
            }
            match self.arg_pattern(&text) {
                Ok(pattern) => out.push(PatternRule {
                    key: Text::Owned(key.to_owned()),
                    verdict,
                    text: Text::Owned(text),
                    pattern,
                    at: self.place(offset),
                }),
                Err(e) => problems.add(offset, format!("{key}: invalid pattern {text:?}: {e}")),
            }
        }
        out
    }

    /// Splits a `[rules]` entry into its command name and its argument pattern.
    fn parse_rule(&self, text: &str) -> Result<(String, ArgPattern), pattern::PatternError> {
        let (command, rest) = pattern::split_command_word(text)?;
        identity::check_name(&command).map_err(|message| pattern::PatternError { message })?;
        Ok((command, self.arg_pattern(rest)?))
    }

    fn twice(&self, key: &str, text: &str, first: usize) -> String {
        let line = self.line_of(first);
        format!("{key}: {text:?} is listed twice (first on line {line})")
    }
}

/// Where the dotted key `key` (`shell`, `risk.builtin`) is written in `text`.
fn key_offset(text: &str, key: &[&str]) -> Option<usize> {
    let doc = DeTable::parse(text).ok()?;
    let mut table = doc.get_ref();
    let mut found = None;
    for part in key {
        let (k, v) = table.get_key_value(*part)?;
        found = Some(k.span().start);
        match v.get_ref() {
            DeValue::Table(inner) => table = inner,
            _ => break,
        }
    }
    found
}

/// What a byte offset falls on: a key, or a value (or inside one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hit {
    Key,
    Value,
}

/// Finds the dotted key path of whatever is at `offset` in the parsed document.
fn locate(table: &DeTable<'_>, offset: usize) -> Option<(Vec<String>, Hit)> {
    let contains = |span: std::ops::Range<usize>| {
        span.start <= offset && offset < span.end.max(span.start + 1)
    };
    for (key, value) in table.iter() {
        let here = || vec![key.get_ref().to_string()];
        if contains(key.span()) {
            return Some((here(), Hit::Key));
        }
        let found = match value.get_ref() {
            DeValue::Table(inner) => locate(inner, offset),
            DeValue::Array(items) => items.iter().find_map(|item| match item.get_ref() {
                DeValue::Table(inner) => locate(inner, offset),
                _ => None,
            }),
            _ => None,
        };
        if let Some((mut path, hit)) = found {
            path.insert(0, key.get_ref().to_string());
            return Some((path, hit));
        }
        if contains(value.span()) {
            return Some((here(), Hit::Value));
        }
    }
    None
}

#[cfg(test)]
mod tests;
