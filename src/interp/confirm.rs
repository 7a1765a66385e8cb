//! Asking before a command the policy asks about: the question, and the answers "always"
//! that hold for the rest of the session.

use std::time::Instant;

use super::Shell;
use super::builtins;
use super::simple::{Refusal, Target};
use crate::audit::Approval;
use crate::confirm::{self, Answer, By, Question};
use crate::policy::Verdict;
use crate::spawn;

impl Shell {
    /// Asks about a command whose decision is Ask. Returns the refusal that still stands
    /// (None when the command may run) and, when it was asked, how, for its record.
    pub(super) fn confirm(
        &mut self,
        argv: &[String],
        target: &Target,
        refusal: Refusal,
    ) -> (Option<Refusal>, Option<(Approval, String)>) {
        self.ask(argv, super::audit::program_of(target), None, refusal)
    }

    /// Asks about a file a redirection would open, whose decision is Ask (a medium-risk
    /// sensitive file): the question is about the command being run. True when it may.
    /// Err: the decision that stands (refused after the question, or never asked).
    pub(crate) fn confirm_file(
        &mut self,
        path: &str,
        decision: crate::decide::Decision,
    ) -> Result<(), Box<crate::decide::Decision>> {
        if self.explaining {
            return Err(Box::new(decision));
        }
        let (argv, program) = match &self.segment {
            Some(command) => (command.argv.clone(), command.program.clone()),
            None => (vec![path.to_owned()], None),
        };
        let refusal = Refusal {
            decision,
            interpreter: None,
        };
        let (refusal, confirmed) = self.ask(&argv, program, Some(path), refusal);
        if let (Some((approval, detail)), Some(command)) = (confirmed, &mut self.segment) {
            command.approval = approval;
            command.confirmation = Some(detail);
        }
        match refusal {
            None => Ok(()),
            Some(refusal) => Err(Box::new(refusal.decision)),
        }
    }

    /// `file`: the question is about a file a redirection opens, not the command itself.
    fn ask(
        &mut self,
        argv: &[String],
        program: Option<String>,
        file: Option<&str>,
        refusal: Refusal,
    ) -> (Option<Refusal>, Option<(Approval, String)>) {
        // The directory itself, not the name it was reached by: a link changed since the
        // answer would make the same words mean other files.
        let cwd = self.physical_cwd();
        let key = remember_key(program.as_deref(), argv, file, &cwd);
        // Only a question that could have been answered "always" is answered by one.
        if refusal.decision.risk == crate::policy::Risk::Medium
            && self
                .remembered
                .get(&key)
                .is_some_and(|until| Instant::now() < *until)
        {
            return (
                None,
                Some((Approval::Remembered, "answered always before".to_owned())),
            );
        }
        // All of it: a question must not hide the end of what it is about.
        let command = builtins::quote_command(argv);
        let (user, host) = (crate::policy::user_name(), crate::policy::host_name());
        let decision = &refusal.decision;
        let question = Question {
            command: &command,
            argv,
            program: program.as_deref(),
            reason: &decision.reason,
            risk: decision.risk,
            risk_reason: &decision.risk_reason,
            cwd: &cwd,
            user: &user,
            host: &host,
        };
        // The approver gets the bounding set of the programs, whether asked before the first
        // or after one. A failure is the program's to report: its confinement tries again.
        if let Ok(sandbox) = self.sandbox() {
            let _ = sandbox.drop_bounding_set();
        }
        let Some(confirmation) = confirm::ask(
            &question,
            self.policy().approval(),
            spawn::signals::restore_entry_dispositions,
        ) else {
            // No terminal and no approver: the refusal says it needs confirmation.
            return (Some(refusal), None);
        };
        let (approval, by) = match confirmation.by {
            By::Terminal => (Approval::User, "terminal"),
            By::Approver => (Approval::Approver, "approver"),
        };
        match confirmation.answer {
            Answer::Once => (None, Some((approval, format!("{by}: yes")))),
            Answer::Always(window) => {
                self.remembered.insert(key, Instant::now() + window);
                let detail = format!("{by}: always, for {} s", window.as_secs());
                (None, Some((approval, detail)))
            }
            Answer::No(why) => {
                let mut refusal = refusal;
                refusal.decision.verdict = Verdict::Deny;
                refusal.decision.reason =
                    format!("{}; not confirmed: {why}", refusal.decision.reason);
                (
                    Some(refusal),
                    Some((Approval::Refused, format!("{by}: {why}"))),
                )
            }
        }
    }
}

/// What an "always" answer is about: the same program, words, directory, and the file when
/// the question was about one.
fn remember_key(program: Option<&str>, argv: &[String], file: Option<&str>, cwd: &str) -> String {
    let mut key = String::from(program.unwrap_or(""));
    key.push('\0');
    key.push_str(file.unwrap_or(""));
    for part in argv.iter().map(String::as_str).chain([cwd]) {
        key.push('\0');
        key.push_str(part);
    }
    key
}
