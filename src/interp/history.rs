//! The command history of an interactive shell: what `history` lists and the line editor
//! recalls. The shell's reader adds to it and keeps the file (see `repl`).

use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct History {
    entries: VecDeque<String>,
    limit: usize,
    /// The number of the first entry kept (entries are numbered from 1, as in bash).
    first: usize,
    /// Changes other than adding at the end (for copies that follow along, see `changes`).
    removals: u64,
}

impl History {
    pub fn new(limit: usize) -> History {
        History {
            entries: VecDeque::new(),
            limit,
            first: 1,
            removals: 0,
        }
    }

    /// Keeps `entry` unless it is blank or repeats the last one; whether it was kept.
    pub fn add(&mut self, entry: &str) -> bool {
        let entry = entry.trim_end_matches('\n');
        if self.limit == 0 || entry.trim().is_empty() || self.last() == Some(entry) {
            return false;
        }
        self.entries.push_back(entry.to_string());
        while self.entries.len() > self.limit {
            self.entries.pop_front();
            self.first += 1;
        }
        true
    }

    /// Takes back the last entry (a line that turned out to be refused).
    pub fn forget_last(&mut self) {
        self.entries.pop_back();
        self.removals += 1;
    }

    /// (entries ever added, other changes): a copy made when this was `(a, r)` catches up
    /// by adding the last `now.0 - a` entries while `r` is unchanged, else starts over.
    pub fn changes(&self) -> (usize, u64) {
        (self.first - 1 + self.entries.len(), self.removals)
    }

    /// Numbers the entries from 1 again (after loading them from a file, as bash does).
    pub fn renumber(&mut self) {
        self.first = 1;
        self.removals += 1;
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    pub fn last(&self) -> Option<&str> {
        self.entries.back().map(String::as_str)
    }

    /// Entries with their numbers, oldest first.
    pub fn numbered(&self) -> impl Iterator<Item = (usize, &str)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| (self.first + i, e.as_str()))
    }

    pub fn entries(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.first += self.entries.len();
        self.entries.clear();
        self.removals += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_entries_numbered_from_one() {
        let mut h = History::new(2);
        assert!(h.add("a\n"));
        assert!(!h.add("a"), "a repeat is not kept");
        assert!(!h.add("  "), "a blank line is not kept");
        assert!(h.add("b"));
        assert!(h.add("c"));
        let listed: Vec<_> = h.numbered().collect();
        assert_eq!(listed, vec![(2, "b"), (3, "c")]);
        h.clear();
        assert!(h.is_empty());
        h.add("d");
        assert_eq!(h.numbered().next(), Some((4, "d")));
    }

    #[test]
    fn a_size_of_zero_keeps_nothing() {
        let mut h = History::new(0);
        assert!(!h.add("ls"));
        assert_eq!(h.len(), 0);
    }
}
