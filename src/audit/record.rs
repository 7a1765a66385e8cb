//! The JSON body of a record, written by hand: every string is cut to a bounded length and
//! escaped beyond what JSON requires (DEL, C1 controls, U+2028/9), so that no byte of a
//! command line can end a record or start a forged one, in syslog or in a log viewer.

use std::fmt::Write as _;
use std::time::Duration;

use crate::decide::Decision;
use crate::spawn::Usage;

/// Longest string field, in bytes as written (escaped). With these, a record stays under the
/// 8 KiB a syslog daemon takes by default (rsyslog's maxMessageSize).
const FIELD_MAX: usize = 512;
/// Longest command line.
pub(super) const LINE_MAX: usize = 1536;
/// Longest single argument, and all arguments together (each costs at least 3 bytes).
const ARG_MAX: usize = 512;
const ARGV_MAX: usize = 2048;

/// A JSON object being written.
pub struct Json(String);

impl Json {
    pub fn new() -> Json {
        Json(String::with_capacity(512))
    }

    fn key(&mut self, key: &str) {
        self.0.push(if self.0.is_empty() { '{' } else { ',' });
        self.0.push('"');
        self.0.push_str(key);
        self.0.push_str("\":");
    }

    pub fn str(&mut self, key: &str, value: &str) {
        self.str_max(key, value, FIELD_MAX);
    }

    pub fn str_max(&mut self, key: &str, value: &str, max: usize) {
        self.key(key);
        string(&mut self.0, value, max);
    }

    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(value) => self.str(key, value),
            None => self.raw(key, "null"),
        }
    }

    pub fn int(&mut self, key: &str, value: i64) {
        self.key(key);
        let _ = write!(self.0, "{value}");
    }

    pub fn float(&mut self, key: &str, value: f64) {
        self.key(key);
        let _ = write!(self.0, "{value}");
    }

    pub fn bool(&mut self, key: &str, value: bool) {
        self.raw(key, if value { "true" } else { "false" });
    }

    /// A value already written as JSON.
    pub fn raw(&mut self, key: &str, json: &str) {
        self.key(key);
        self.0.push_str(json);
    }

    /// An array of strings: each cut to ARG_MAX, all together to ARGV_MAX, then a last
    /// element saying how many were left out.
    pub fn strings(&mut self, key: &str, values: &[String]) {
        self.key(key);
        self.0.push('[');
        let mut budget = ARGV_MAX;
        for (i, value) in values.iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            if budget == 0 {
                let left = values.len() - i;
                let _ = write!(self.0, "\"[{left} more arguments cut]\"");
                break;
            }
            let max = ARG_MAX.min(budget);
            let before = self.0.len();
            string(&mut self.0, value, max);
            budget = budget.saturating_sub((self.0.len() - before).max(3));
        }
        self.0.push(']');
    }

    /// The object so far, to be continued by [`Json::resume`] (in another process).
    pub fn unfinished(self) -> String {
        self.0
    }

    pub fn resume(partial: &str) -> Json {
        Json(partial.to_owned())
    }

    pub fn finish(mut self) -> String {
        if self.0.is_empty() {
            self.0.push('{');
        }
        self.0.push('}');
        self.0
    }
}

/// Writes `value` as a JSON string of at most about `max` bytes as written (escapes count),
/// cut at a character with a marker saying how much of the value was left out.
fn string(out: &mut String, value: &str, max: usize) {
    out.push('"');
    let start = out.len();
    let mut escaped = [0u8; 8];
    for (at, c) in value.char_indices() {
        let piece: &str = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\t' => "\\t",
            '\r' => "\\r",
            c if c < ' '
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || c == '\u{2028}'
                || c == '\u{2029}' =>
            {
                let text = format!("\\u{:04x}", c as u32);
                escaped[..6].copy_from_slice(text.as_bytes());
                std::str::from_utf8(&escaped[..6]).expect("ASCII")
            }
            c => c.encode_utf8(&mut escaped),
        };
        if out.len() - start + piece.len() > max {
            let _ = write!(out, "…[{} bytes cut]", value.len() - at);
            break;
        }
        out.push_str(piece);
    }
    out.push('"');
}

/// Longest list of policy files, so that a policy read from many files still leaves its
/// session's first record whole.
const FILES_MAX: usize = 3072;

/// `[{"file":…,"sha256":…},…]`, as many as fit in `FILES_MAX`, and how many did not.
pub(super) fn files(digests: &[(String, String)]) -> (String, usize) {
    let mut out = String::from("[");
    for (i, (file, sha)) in digests.iter().enumerate() {
        let mut json = Json::new();
        json.str("file", file);
        json.str("sha256", sha);
        let entry = json.finish();
        if out.len() + 1 + entry.len() + 1 > FILES_MAX {
            out.push(']');
            return (out, digests.len() - i);
        }
        if i > 0 {
            out.push(',');
        }
        out.push_str(&entry);
    }
    out.push(']');
    (out, 0)
}

/// How a command got to run, or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// The policy allowed it.
    Auto,
    /// Refused, by the policy or for a reason of rsh's own.
    Refused,
    /// `[shell] mode = "audit"`: the policy would have refused or asked, and it ran.
    AuditMode,
    /// Asked: a person said yes on the terminal.
    User,
    /// Asked before, and a person said "always" within the policy's window.
    Remembered,
    /// Asked: the approver program said yes.
    Approver,
}

impl Approval {
    fn as_str(self) -> &'static str {
        match self {
            Approval::Auto => "auto",
            Approval::Refused => "none",
            Approval::AuditMode => "audit-mode",
            Approval::User => "user",
            Approval::Remembered => "remembered",
            Approval::Approver => "approver",
        }
    }
}

/// What was decided about one command.
#[derive(Debug, Clone)]
pub struct Command {
    /// When it was decided (RFC 3339, UTC).
    pub started: String,
    pub cwd: String,
    /// The input line the command is on (shared by the commands on it).
    pub line: std::rc::Rc<str>,
    /// The expanded words, as decided.
    pub argv: Vec<String>,
    /// The file that runs (for a script, the script), when it is a program.
    pub program: Option<String>,
    pub decision: Decision,
    pub approval: Approval,
    /// For a command that was asked about: who answered what (`terminal: answered n`).
    pub confirmation: Option<String>,
}

impl Command {
    pub fn refused(&self) -> bool {
        self.approval == Approval::Refused
    }

    /// The decision first: should a daemon cut a record anyway, the user's text goes.
    pub(super) fn write(&self, json: &mut Json) {
        let d = &self.decision;
        json.str("decision", d.verdict.as_str());
        json.str("approval", self.approval.as_str());
        json.str("risk", d.risk.as_str());
        json.str("rule", &d.rule.to_string());
        json.str("reason", &d.reason);
        if let Some(confirmation) = &self.confirmation {
            json.str("confirmation", confirmation);
        }
        json.str("started", &self.started);
        json.str("cwd", &self.cwd);
        json.opt_str("program", self.program.as_deref());
        json.str_max("line", &self.line, LINE_MAX);
        json.strings("argv", &self.argv);
    }
}

/// How a command ended; all None for a refused one.
#[derive(Debug, Clone, Default)]
pub struct Ended {
    /// The shell status ($?), 126 for a refusal.
    pub status: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub duration: Option<Duration>,
    pub usage: Option<Usage>,
    /// It replaced rsh (`exec`): how it ends is not known to rsh.
    pub replaced: bool,
    /// The shell that ran and waited for it ended first (killed with its pipeline): the
    /// status and signal are that shell's, and the program's own end was not seen.
    pub unseen: bool,
}

impl Ended {
    pub(super) fn write(&self, json: &mut Json) {
        match self.status {
            Some(status) => json.int("status", i64::from(status)),
            None => json.raw("status", "null"),
        }
        if let Some(signal) = self.signal {
            let name = nix::sys::signal::Signal::try_from(signal)
                .map(|s| s.as_str().to_owned())
                .unwrap_or_else(|_| signal.to_string());
            json.str("signal", &name);
        }
        if self.timed_out {
            json.bool("timed_out", true);
        }
        if self.replaced {
            json.bool("replaced_shell", true);
        }
        if self.unseen {
            json.bool("end_unseen", true);
        }
        if let Some(duration) = self.duration {
            json.float("duration_ms", super::millis(duration));
        }
        if let Some(usage) = self.usage {
            json.float("cpu_ms", super::millis(usage.cpu));
            json.int("max_rss_kib", usage.max_rss_kib as i64);
        }
    }
}

/// The time now, UTC, as RFC 3339 with milliseconds.
pub fn utc_now() -> String {
    utc(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default())
}

/// A time given since the Unix epoch, UTC, as RFC 3339 with milliseconds.
pub fn utc(now: std::time::Duration) -> String {
    let secs = now.as_secs() as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        now.subsec_millis()
    )
}

/// Year, month, day of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_end_a_record_or_forge_one() {
        let mut out = String::new();
        let hostile = "a\"}\n{\"event\":\"fake\"}\r\u{7f}\u{85}\u{2028}\\";
        string(&mut out, hostile, 1000);
        assert_eq!(out, r#""a\"}\n{\"event\":\"fake\"}\r\u007f\u0085\u2028\\""#);
        let parsed: String = serde_json::from_str(&out).unwrap();
        assert_eq!(parsed, hostile);
        assert!(!out.contains('\n'));
    }

    #[test]
    fn a_long_list_of_policy_files_is_cut_and_counted() {
        let digests: Vec<(String, String)> = (0..200)
            .map(|i| (format!("/etc/rsh/policy.d/{i:0>200}.toml"), "0".repeat(64)))
            .collect();
        let (list, cut) = files(&digests);
        assert!(list.len() <= FILES_MAX, "{}", list.len());
        let parsed: Vec<serde_json::Value> = serde_json::from_str(&list).unwrap();
        assert!(!parsed.is_empty());
        assert_eq!(parsed.len() + cut, 200);
        assert_eq!(parsed[0]["file"], digests[0].0);
        let (few, none) = files(&digests[..3]);
        assert_eq!(none, 0);
        assert_eq!(
            serde_json::from_str::<Vec<serde_json::Value>>(&few)
                .unwrap()
                .len(),
            3
        );
        assert_eq!(files(&[]), ("[]".to_string(), 0));
    }

    #[test]
    fn long_values_are_cut_with_a_marker() {
        let mut out = String::new();
        string(&mut out, &"é".repeat(600), 1001);
        // 500 two-byte characters fit in 1001 bytes; the odd byte is not split.
        assert_eq!(out, format!("\"{}…[200 bytes cut]\"", "é".repeat(500)));

        let mut json = Json::new();
        let argv: Vec<String> = (0..100).map(|i| format!("{i:0>500}")).collect();
        json.strings("argv", &argv);
        let text = json.finish();
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        let list = parsed["argv"].as_array().unwrap();
        // Four whole arguments (2008 bytes with quotes), the fifth cut to what is left, then
        // the marker.
        assert_eq!(list.len(), 6);
        assert!(
            list[4].as_str().unwrap().ends_with("…[460 bytes cut]"),
            "{}",
            list[4]
        );
        assert_eq!(list[5], "[95 more arguments cut]");
        assert!(text.len() < ARGV_MAX + 200, "{}", text.len());

        // Empty arguments and escapes count too.
        for argv in [vec![String::new(); 100_000], vec!["\u{1}".repeat(400); 100]] {
            let mut json = Json::new();
            json.strings("argv", &argv);
            let text = json.finish();
            assert!(text.len() < ARGV_MAX + 200, "{}", text.len());
            serde_json::from_str::<serde_json::Value>(&text).unwrap();
        }
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_781), (2026, 11, 24));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
