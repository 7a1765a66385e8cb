//! Asking before a command the policy asks about: the question, and the answers "always"
//! that hold for the rest of the session.

use std::time::Instant;

use super::Shell;
use super::builtins;
use super::simple::{Refusal, Target};
use crate::audit::Approval;
use crate::confirm::{self, Answer, By, Question};
use crate::policy::Verdict;

impl Shell {
    /// Asks about a command whose decision is Ask. Returns the refusal that still stands
    /// (None when the command may run) and, when it was asked, how, for its record.
    pub(super) fn confirm(
        &mut self,
        argv: &[String],
        target: &Target,
        refusal: Refusal,
    ) -> (Option<Refusal>, Option<(Approval, String)>) {
        let program = match target {
            Target::External(resolved) => Some(resolved.canonical.display().to_string()),
            _ => None,
        };
        self.ask(argv, program, refusal)
    }

    /// Asks about a file a redirection would open, whose decision is Ask (a medium-risk
    /// sensitive file): the question is about the command being run. True when it may.
    pub(crate) fn confirm_file(&mut self, path: &str, decision: &crate::decide::Decision) -> bool {
        if self.explaining {
            return false;
        }
        let (argv, program) = match &self.segment {
            Some(command) => (command.argv.clone(), command.program.clone()),
            None => (vec![path.to_owned()], None),
        };
        let refusal = Refusal {
            decision: decision.clone(),
            interpreter: None,
        };
        let (refusal, confirmed) = self.ask(&argv, program, refusal);
        if let (Some((approval, detail)), Some(command)) = (confirmed, &mut self.segment) {
            command.approval = approval;
            command.confirmation = Some(detail);
        }
        refusal.is_none()
    }

    fn ask(
        &mut self,
        argv: &[String],
        program: Option<String>,
        refusal: Refusal,
    ) -> (Option<Refusal>, Option<(Approval, String)>) {
        let key = remember_key(program.as_deref(), argv, &self.logical_cwd);
        if self
            .remembered
            .get(&key)
            .is_some_and(|until| Instant::now() < *until)
        {
            return (
                None,
                Some((Approval::Remembered, "answered always before".to_owned())),
            );
        }
        let command = builtins::display_command(argv);
        let who = self.who();
        let decision = &refusal.decision;
        let question = Question {
            command: &command,
            argv,
            program: program.as_deref(),
            reason: &decision.reason,
            risk: decision.risk,
            risk_reason: &decision.risk_reason,
            cwd: &self.logical_cwd,
            user: &who.0,
            host: &who.1,
        };
        let Some(confirmation) = confirm::ask(&question, self.policy().approval()) else {
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

    /// The user's name and the host's, for the approver.
    fn who(&self) -> (String, String) {
        let uid = nix::unistd::getuid();
        let user = nix::unistd::User::from_uid(uid)
            .ok()
            .flatten()
            .map_or_else(|| uid.to_string(), |u| u.name);
        let host = nix::unistd::gethostname()
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_default();
        (user, host)
    }
}

/// What an "always" answer is about: the same program, words and directory.
fn remember_key(program: Option<&str>, argv: &[String], cwd: &str) -> String {
    let mut key = String::from(program.unwrap_or(""));
    for part in argv.iter().map(String::as_str).chain([cwd]) {
        key.push('\0');
        key.push_str(part);
    }
    key
}
