//! Confirmation of a command the policy asks about: a person answers on the controlling
//! terminal (never on standard input, which may be the command's pipe or file), or, where
//! there is no terminal, the policy's approver program does. Anything but a clear "yes" —
//! "no", a timeout, Ctrl-C, end of input, a crash, garbage — is "no".

mod approver;
mod tty;

use std::time::Duration;

use crate::policy::{ApprovalConfig, Risk};

/// What is asked about.
pub struct Question<'a> {
    /// The command as shown to people (quoted like `set -x`).
    pub command: &'a str,
    pub argv: &'a [String],
    /// The file that would run, if a program.
    pub program: Option<&'a str>,
    /// Why the policy asks: the rule, with its file and line.
    pub reason: &'a str,
    pub risk: Risk,
    pub risk_reason: &'a str,
    pub cwd: &'a str,
    pub user: &'a str,
    pub host: &'a str,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run it this time.
    Once,
    /// Run it, and the same command again without asking for this long.
    Always(Duration),
    /// Don't; why, for the message and the record (`answered n`, `no answer within 60 s`).
    No(String),
}

/// Who answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Terminal,
    Approver,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    pub answer: Answer,
    pub by: By,
}

/// `text` as it may be shown on a terminal: control characters as `\xNN`, so that a file
/// name cannot redraw the question, and characters that are invisible or reorder the text
/// around them (bidirectional overrides, zero-width spaces, line separators) as `\u{NNNN}`,
/// so that what is shown is what runs.
pub fn printable(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            shown.push_str(&format!("\\x{:02x}", c as u32));
        } else if invisible(c) {
            shown.push_str(&format!("\\u{{{:04x}}}", c as u32));
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Characters that draw nothing, or only blank space, or change how the text around them
/// looks: Unicode's default-ignorable code points (format characters, variation selectors,
/// fillers), every space but the plain one (a no-break space would show one word as two),
/// the braille blank, the interlinear annotation marks and the line and paragraph
/// separators.
fn invisible(c: char) -> bool {
    (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{ad}'
                | '\u{34f}'
                | '\u{61c}'
                | '\u{115f}'..='\u{1160}'
                | '\u{17b4}'..='\u{17b5}'
                | '\u{180b}'..='\u{180f}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
                | '\u{fff0}'..='\u{fffb}'
                | '\u{1bca0}'..='\u{1bca3}'
                | '\u{1d173}'..='\u{1d17a}'
                | '\u{e0000}'..='\u{e0fff}'
        )
}

/// Asks on the controlling terminal, else the approver; None when there is neither
/// (`on_no_tty = "deny"`). `prepare` runs in the approver's process before its exec (it must
/// be async-signal-safe): the shell puts back there what it changed for itself.
pub fn ask(question: &Question, config: &ApprovalConfig, prepare: fn()) -> Option<Confirmation> {
    // "Always" holds only where asking again would be the same question about the same risk.
    let can_remember = question.risk == Risk::Medium && !config.remember.is_zero();
    if let Some(terminal) = tty::Terminal::open() {
        let answer = terminal.ask(
            question,
            config.timeout,
            can_remember.then_some(config.remember),
        );
        return Some(Confirmation {
            answer,
            by: By::Terminal,
        });
    }
    let approver = config.approver.as_deref()?;
    let mut answer = approver::ask(approver, question, config.timeout, prepare);
    tracing::debug!(approver = %approver.display(), ?answer, "approver answered");
    if let Answer::Always(window) = answer {
        answer = if can_remember {
            Answer::Always(window.min(config.remember))
        } else {
            Answer::Once
        };
    }
    Some(Confirmation {
        answer,
        by: By::Approver,
    })
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn what_is_shown_is_what_runs() {
        assert_eq!(printable("rm a\u{1b}[2Jb"), "rm a\\x1b[2Jb");
        assert_eq!(printable("cat \u{202e}txt.sh"), "cat \\u{202e}txt.sh");
        assert_eq!(printable("a\u{200b}b\rc"), "a\\u{200b}b\\x0dc");
        for hidden in [
            "\u{fe0f}",
            "\u{34f}",
            "\u{3164}",
            "\u{a0}",
            "\u{3000}",
            "\u{e0100}",
        ] {
            let shown = printable(&format!("build{hidden}.py"));
            assert!(shown.contains("\\u{"), "{hidden:?} shown as {shown:?}");
        }
        assert_eq!(printable("caf\u{e9} a b"), "caf\u{e9} a b");
        assert_eq!(printable("café ls"), "café ls");
    }
}
