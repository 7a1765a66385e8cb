//! The policy file as written: serde types that mirror the TOML, with every value that a later
//! message may need to point at wrapped in `Spanned`. Unknown keys and wrong types are rejected
//! here, by serde, with the byte span of the offending key or value. Nothing here resolves names
//! or parses patterns; `super` does that.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use toml::Spanned;

use super::{Mode, Risk, SandboxMode, Terminals, Verdict};

pub(crate) type SpannedList = Spanned<Vec<Spanned<String>>>;

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a policy document")]
pub(crate) struct RawPolicy {
    pub shell: Option<RawShell>,
    pub commands: Option<RawCommands>,
    pub rules: Option<RawLists>,
    pub sandbox: Option<RawSandbox>,
    pub paths: Option<RawPaths>,
    pub limits: Option<RawLimits>,
    pub env: Option<RawEnv>,
    pub sensitive: Option<RawSensitive>,
    pub risk: Option<RawRisk>,
    pub audit: Option<RawAudit>,
    pub approval: Option<RawApproval>,
    pub output: Option<RawOutput>,
    pub users: Option<BTreeMap<String, Spanned<RawSection>>>,
    pub groups: Option<BTreeMap<String, Spanned<RawSection>>>,
}

/// The settings of a policy without its `[users]` and `[groups]`: the part a `[users.NAME]`
/// or `[groups.NAME]` section can override.
/// (Its fields repeat `RawPolicy`'s: serde cannot flatten a struct into one that denies
/// unknown fields.)
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a policy section (tables `shell`, `commands`, `rules`, `sandbox`, `paths`, `limits`, `env`, `sensitive`, `risk`)"
)]
pub(crate) struct RawSection {
    pub shell: Option<RawShell>,
    pub commands: Option<RawCommands>,
    pub rules: Option<RawLists>,
    pub sandbox: Option<RawSandbox>,
    pub paths: Option<RawPaths>,
    pub limits: Option<RawLimits>,
    pub env: Option<RawEnv>,
    pub sensitive: Option<RawSensitive>,
    pub risk: Option<RawRisk>,
}

/// A `[users.NAME]` or `[groups.NAME]` section, with where it is written.
pub(crate) struct NamedSection {
    pub name: String,
    pub span: std::ops::Range<usize>,
    pub section: RawSection,
}

impl RawPolicy {
    /// The top-level settings, the `[users.NAME]` sections and the `[groups.NAME]` sections,
    /// each in file order.
    /// (`[audit]` is for everyone and not part of a section; take it out first.)
    pub fn split(self) -> (RawSection, Vec<NamedSection>, Vec<NamedSection>) {
        let base = RawSection {
            shell: self.shell,
            commands: self.commands,
            rules: self.rules,
            sandbox: self.sandbox,
            paths: self.paths,
            limits: self.limits,
            env: self.env,
            sensitive: self.sensitive,
            risk: self.risk,
        };
        let named = |map: Option<BTreeMap<String, Spanned<RawSection>>>| {
            let mut sections: Vec<NamedSection> = map
                .unwrap_or_default()
                .into_iter()
                .map(|(name, section)| NamedSection {
                    span: section.span(),
                    section: section.into_inner(),
                    name,
                })
                .collect();
            sections.sort_by_key(|s| s.span.start);
            sections
        };
        (base, named(self.users), named(self.groups))
    }
}

impl RawSection {
    /// Lays `over` on top of this section: every setting `over` gives replaces this one's (a
    /// list as a whole; a `[commands.NAME]` table as a whole), the rest stays.
    pub fn overlay(&mut self, over: RawSection) {
        fn set<T>(slot: &mut Option<T>, value: Option<T>) {
            if value.is_some() {
                *slot = value;
            }
        }
        if let Some(o) = over.shell {
            let s = self.shell.get_or_insert_with(Default::default);
            set(&mut s.path, o.path);
            set(&mut s.unknown, o.unknown);
            set(&mut s.mode, o.mode);
            set(&mut s.strict, o.strict);
            set(&mut s.warnings, o.warnings);
            set(&mut s.prompt, o.prompt);
            set(&mut s.prompt_from_env, o.prompt_from_env);
            set(&mut s.history, o.history);
            set(&mut s.history_size, o.history_size);
            set(&mut s.idle_timeout, o.idle_timeout);
            set(&mut s.motd, o.motd);
        }
        if let Some(o) = over.commands {
            let c = self.commands.get_or_insert_with(Default::default);
            set(&mut c.lists.allow, o.lists.allow);
            set(&mut c.lists.ask, o.lists.ask);
            set(&mut c.lists.deny, o.lists.deny);
            for (name, table) in o.tables {
                c.tables.retain(|(n, _)| n.get_ref() != name.get_ref());
                c.tables.push((name, table));
            }
        }
        if let Some(o) = over.rules {
            let r = self.rules.get_or_insert_with(Default::default);
            set(&mut r.allow, o.allow);
            set(&mut r.ask, o.ask);
            set(&mut r.deny, o.deny);
        }
        if let Some(o) = over.sandbox {
            let s = self.sandbox.get_or_insert_with(Default::default);
            set(&mut s.mode, o.mode);
            set(&mut s.network, o.network);
            set(&mut s.unix_sockets, o.unix_sockets);
            set(&mut s.subprocesses, o.subprocesses);
        }
        if let Some(o) = over.paths {
            let p = self.paths.get_or_insert_with(Default::default);
            set(&mut p.read, o.read);
            set(&mut p.write, o.write);
            set(&mut p.exec, o.exec);
            set(&mut p.deny, o.deny);
            set(&mut p.terminals, o.terminals);
        }
        if let Some(o) = over.limits {
            let l = self.limits.get_or_insert_with(Default::default);
            set(&mut l.cpu, o.cpu);
            set(&mut l.memory, o.memory);
            set(&mut l.file_size, o.file_size);
            set(&mut l.open_files, o.open_files);
            set(&mut l.processes, o.processes);
            set(&mut l.timeout, o.timeout);
        }
        if let Some(o) = over.env {
            set(
                &mut self.env.get_or_insert_with(Default::default).allow,
                o.allow,
            );
        }
        if let Some(o) = over.sensitive {
            let s = self.sensitive.get_or_insert_with(Default::default);
            set(&mut s.high, o.high);
            set(&mut s.medium, o.medium);
            set(&mut s.allow, o.allow);
            set(&mut s.builtin, o.builtin);
        }
        if let Some(o) = over.risk {
            let r = self.risk.get_or_insert_with(Default::default);
            set(&mut r.low, o.low);
            set(&mut r.medium, o.medium);
            set(&mut r.high, o.high);
            set(&mut r.builtin, o.builtin);
        }
    }
}

/// `[sandbox]`: how started programs are confined.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `mode`, `network`, `unix_sockets` and `subprocesses`"
)]
pub(crate) struct RawSandbox {
    pub mode: Option<SandboxMode>,
    pub network: Option<bool>,
    pub unix_sockets: Option<bool>,
    pub subprocesses: Option<bool>,
}

/// `[paths]`: the file system a started program may see.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `read`, `write`, `exec`, `deny` and `terminals`"
)]
pub(crate) struct RawPaths {
    pub read: Option<SpannedList>,
    pub write: Option<SpannedList>,
    pub exec: Option<SpannedList>,
    pub deny: Option<SpannedList>,
    pub terminals: Option<Terminals>,
}

/// `[limits]`: resource limits of every started program.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `cpu`, `memory`, `file_size`, `open_files`, `processes` and `timeout`"
)]
pub(crate) struct RawLimits {
    pub cpu: Option<Spanned<u64>>,
    pub memory: Option<Spanned<Size>>,
    pub file_size: Option<Spanned<Size>>,
    pub open_files: Option<Spanned<u64>>,
    pub processes: Option<Spanned<u64>>,
    pub timeout: Option<Spanned<u64>>,
}

/// `[audit]`: where the record of every command goes.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `syslog`, `facility`, `socket`, `required` and `fallback`"
)]
pub(crate) struct RawAudit {
    pub syslog: Option<bool>,
    pub facility: Option<Spanned<String>>,
    pub socket: Option<Spanned<String>>,
    pub required: Option<Spanned<bool>>,
    pub fallback: Option<Spanned<String>>,
}

/// `[approval]`: how commands the policy asks about are confirmed.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `timeout`, `remember`, `on_no_tty` and `approver`"
)]
pub(crate) struct RawApproval {
    pub timeout: Option<Spanned<u64>>,
    pub remember: Option<Spanned<u64>>,
    pub on_no_tty: Option<Spanned<String>>,
    pub approver: Option<Spanned<String>>,
}

/// `[output]`: what is done to the session's output on its way out.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `redact`, `patterns`, `max_bytes` and `terminals`"
)]
pub(crate) struct RawOutput {
    pub redact: Option<bool>,
    pub patterns: Option<SpannedList>,
    pub max_bytes: Option<Spanned<Size>>,
    pub terminals: Option<bool>,
}

/// `[env]`: which variables reach started programs.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a table with the key `allow`")]
pub(crate) struct RawEnv {
    pub allow: Option<SpannedList>,
}

/// `[sensitive]`: files recognised by name, wherever they are.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `high`, `medium`, `allow` and `builtin`"
)]
pub(crate) struct RawSensitive {
    pub high: Option<SpannedList>,
    pub medium: Option<SpannedList>,
    pub allow: Option<SpannedList>,
    pub builtin: Option<bool>,
}

/// `[risk]`: the risk of commands, by whole-command patterns as in `[rules]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `low`, `medium`, `high` and `builtin`"
)]
pub(crate) struct RawRisk {
    pub low: Option<SpannedList>,
    pub medium: Option<SpannedList>,
    pub high: Option<SpannedList>,
    pub builtin: Option<bool>,
}

/// A size in bytes: an integer, or a string with a K, M, G or T suffix (powers of 1024).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Size(pub u64);

impl<'de> Deserialize<'de> for Size {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SizeVisitor)
    }
}

struct SizeVisitor;

impl Visitor<'_> for SizeVisitor {
    type Value = Size;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a size: a number of bytes, or a string such as "512M" or "4G""#)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Size, E> {
        u64::try_from(value)
            .map(Size)
            .map_err(|_| E::custom("a size cannot be negative"))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Size, E> {
        Ok(Size(value))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Size, E> {
        let text = value.trim();
        let (digits, factor) = match text.char_indices().last() {
            Some((i, 'K' | 'k')) => (&text[..i], 1u64 << 10),
            Some((i, 'M' | 'm')) => (&text[..i], 1 << 20),
            Some((i, 'G' | 'g')) => (&text[..i], 1 << 30),
            Some((i, 'T' | 't')) => (&text[..i], 1 << 40),
            _ => (text, 1),
        };
        digits
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(factor))
            .map(Size)
            .ok_or_else(|| {
                E::custom(format!(
                    "{value:?} is not a size (such as \"512M\" or \"4G\")"
                ))
            })
    }
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `path`, `unknown`, `mode`, `strict`, `warnings`, `prompt`, `prompt_from_env`, `history`, `history_size`, `idle_timeout` and `motd`"
)]
pub(crate) struct RawShell {
    pub path: Option<SpannedList>,
    pub unknown: Option<Spanned<Verdict>>,
    pub mode: Option<Mode>,
    pub strict: Option<bool>,
    pub warnings: Option<u64>,
    pub prompt: Option<String>,
    pub prompt_from_env: Option<bool>,
    pub history: Option<Spanned<String>>,
    pub history_size: Option<u64>,
    pub idle_timeout: Option<u64>,
    pub motd: Option<String>,
}

/// `[rules]`: three optional lists.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table with keys `allow`, `ask` and `deny`"
)]
pub(crate) struct RawLists {
    pub allow: Option<SpannedList>,
    pub ask: Option<SpannedList>,
    pub deny: Option<SpannedList>,
}

/// `[commands.NAME]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a command table with keys `default`, `allow`, `ask`, `deny`, `risk`, `network`, `unix_sockets`, `subprocesses` and `description`"
)]
pub(crate) struct RawCommandTable {
    pub description: Option<String>,
    pub default: Option<Spanned<Verdict>>,
    pub risk: Option<Spanned<Risk>>,
    pub allow: Option<SpannedList>,
    pub ask: Option<SpannedList>,
    pub deny: Option<SpannedList>,
    pub network: Option<bool>,
    pub unix_sockets: Option<bool>,
    pub subprocesses: Option<bool>,
}

/// `[commands]`: the reserved keys `allow`, `ask` and `deny` hold lists of names; every other
/// key names a command and holds its table. Written by hand (not `#[serde(flatten)]`) so that
/// errors inside the tables keep their spans.
#[derive(Debug, Default, Clone)]
pub(crate) struct RawCommands {
    pub lists: RawLists,
    pub tables: Vec<(Spanned<String>, RawCommandTable)>,
}

impl<'de> Deserialize<'de> for RawCommands {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(CommandsVisitor)
    }
}

struct CommandsVisitor;

impl<'de> Visitor<'de> for CommandsVisitor {
    type Value = RawCommands;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table of command lists (`allow`, `ask`, `deny`) and command tables")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawCommands, A::Error> {
        let mut commands = RawCommands::default();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let slot = match key.get_ref().as_str() {
                "allow" => &mut commands.lists.allow,
                "ask" => &mut commands.lists.ask,
                "deny" => &mut commands.lists.deny,
                _ => {
                    let table = map.next_value_seed(CommandTableSeed(key.get_ref()))?;
                    commands.tables.push((key, table));
                    continue;
                }
            };
            // TOML itself rejects a key given twice, so the slot is always empty here.
            *slot = Some(map.next_value::<SpannedList>()?);
        }
        Ok(commands)
    }
}

/// The value of a command key in `[commands]`. Only a table is accepted: a derived struct would
/// also take an array, field by field, so a misspelled list (`alow = ["ls"]`) would be read as
/// a command table named `alow`.
struct CommandTableSeed<'k>(&'k str);

impl<'de> de::DeserializeSeed<'de> for CommandTableSeed<'_> {
    type Value = RawCommandTable;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CommandTableSeed<'_> {
    type Value = RawCommandTable;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a command table (argument patterns for `{}`; in [commands] only `allow`, `ask` \
             and `deny` are lists)",
            self.0
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawCommandTable, A::Error> {
        RawCommandTable::deserialize(de::value::MapAccessDeserializer::new(map))
    }
}

/// The value of a policy word (see `policy_words!`), one of `words`.
pub(crate) fn word<T: Copy>(text: &str, words: &[(&str, T)]) -> Result<T, String> {
    match words.iter().find(|(word, _)| *word == text) {
        Some(&(_, value)) => Ok(value),
        None => Err(format!("expected {}, found {text:?}", one_of(words))),
    }
}

/// `"a", "b" or "c"`.
fn one_of<T>(words: &[(&str, T)]) -> String {
    let quoted: Vec<String> = words.iter().map(|(word, _)| format!("{word:?}")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Reads a policy word: a string, one of the words.
pub(crate) struct WordVisitor<T: 'static>(pub &'static [(&'static str, T)]);

impl<T: Copy> Visitor<'_> for WordVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&one_of(self.0))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<T, E> {
        word(value, self.0).map_err(E::custom)
    }
}
