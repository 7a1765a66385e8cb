//! What the line editor may offer when Tab is pressed: only commands the policy would let run
//! typed alone (not everything on PATH), and only files under the policy's readable roots.
//! Nothing here runs or records anything.

use std::collections::BTreeSet;
use std::path::Path;

use super::Shell;
use super::simple::{Lookup, Target, strongest};
use crate::policy::Verdict;

impl Shell {
    /// Names starting with `prefix` that would run as a command, or ask first: functions,
    /// aliases, builtins and programs on the search path. Sorted, without repeats.
    pub fn command_completions(&mut self, prefix: &str) -> Vec<String> {
        let mut names: BTreeSet<String> = self
            .functions
            .keys()
            .chain(self.aliases.keys())
            .filter(|n| n.starts_with(prefix))
            .cloned()
            .collect();
        // Functions come first when a name is run: those names need no other decision.
        let builtins = super::builtins::names()
            .filter(|n| n.starts_with(prefix) && !super::builtins::is_refused(n))
            .map(str::to_string);
        let mut others: BTreeSet<String> = builtins.collect();
        for dir in self.search_dirs() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            others.extend(
                entries
                    .flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|name| name.starts_with(prefix)),
            );
        }
        for name in others {
            if !names.contains(&name) && self.would_run(&name) {
                names.insert(name);
            }
        }
        names.into_iter().collect()
    }

    /// Whether `name`, typed alone, would run or ask rather than be refused.
    fn would_run(&mut self, name: &str) -> bool {
        let target = match self.resolve_target(name, Lookup::All) {
            Ok(Target::Function(_)) => return true,
            Ok(target) => target,
            Err(_) => return false,
        };
        let argv = [name.to_string()];
        let mut decisions = self.all_decisions(&argv, &target, 0);
        self.add_mode(&mut decisions);
        strongest(&decisions).is_none_or(|d| d.decision.verdict != Verdict::Deny)
    }

    /// Whether the policy lets programs read `path` (for a directory: list it). A file it
    /// would ask about counts as readable: the question comes when it is used.
    /// A confinement that cannot be set up lets nothing be read.
    pub fn may_read(&mut self, path: &Path) -> bool {
        self.sandbox().is_ok() && self.policy_lets_have(path, false)
    }
}
