//! The files a copy, move or link creates under names of its own making. `cp stage/config
//! .git` writes `.git/config` though no argument says so; `cp -r stage/. .git` writes every
//! name in `stage` into `.git`; `ln -s ../stage repo/.git` makes `repo/.git/config` out of
//! `stage/config`; `mv -b -S ig f .git/conf` renames the `.git/conf` already there to
//! `.git/config`. These are decided as if the command had named them.

use std::path::{Path, PathBuf};

use crate::decide::args::{Arrival, Into, Touch};

use super::Shell;
use super::redirect::would_open;

impl Shell {
    /// The files `arrivals` create that the policy may have something to say about: each
    /// file put inside a directory (`cp F DIR` writes `DIR/F`), and, below a directory that
    /// arrives, each file whose new name is sensitive where its old one was not. A file that
    /// keeps a sensitive name (`cp -r repo backup` copies `repo/.git/config`) is not one:
    /// the name was decided when the file got it.
    pub(crate) fn arrived(&self, arrivals: &[Arrival]) -> Vec<Touch> {
        let mut touches = Vec::new();
        for arrival in arrivals {
            let Some(created) = self.created(arrival) else {
                continue;
            };
            if created != arrival.dest {
                touches.push(Touch {
                    path: created.clone(),
                    write: true,
                    look: false,
                });
            }
            let source = self.source_of(arrival, &created);
            if source.is_dir() {
                touches.extend(self.renamed_below(&source, &created));
                if arrival.moves {
                    touches.extend(self.unprotected_below(&source, &arrival.source, &created));
                }
            }
            if let Some(suffix) = &arrival.backup {
                touches.extend(self.backed_up(&created, suffix));
            }
        }
        touches
    }

    /// What a backup of whatever is at `created` makes: the same file or directory under
    /// its name with `suffix` added, and, for a directory, the files below it.
    fn backed_up(&self, created: &str, suffix: &str) -> Vec<Touch> {
        let backup = format!("{}{suffix}", created.trim_end_matches('/'));
        let mut touches = vec![Touch {
            path: backup.clone(),
            write: true,
            look: false,
        }];
        let old = self.absolute(Path::new(created));
        if old.is_dir() {
            touches.extend(self.renamed_below(&old, &backup));
        }
        touches
    }

    /// Where the source lands, as the command will name it; None when it has no name.
    fn created(&self, arrival: &Arrival) -> Option<String> {
        let inside = match arrival.into {
            Into::Directory => true,
            Into::Itself => false,
            Into::IfDirectory => self.absolute(Path::new(&arrival.dest)).is_dir(),
        };
        if !inside {
            return Some(arrival.dest.clone());
        }
        let source = arrival.source.trim_end_matches('/');
        let name = if arrival.parents {
            source.trim_start_matches('/')
        } else {
            source.rsplit('/').next().unwrap_or(source)
        };
        let dest = arrival.dest.trim_end_matches('/');
        match name {
            "" => None,
            // `cp -r stage/. dir` copies what is in stage into dir itself.
            "." => Some(arrival.dest.clone()),
            _ => Some(format!("{dest}/{name}")),
        }
    }

    /// The source as the file system finds it: a relative `ln -s` target is relative to
    /// the link.
    fn source_of(&self, arrival: &Arrival, created: &str) -> PathBuf {
        let source = Path::new(&arrival.source);
        if arrival.link && source.is_relative() {
            let link = self.absolute(Path::new(created));
            return link.parent().unwrap_or(Path::new("/")).join(source);
        }
        self.absolute(source)
    }

    /// The files below `source`, a directory arriving as `created`, whose new names are
    /// sensitive where their old ones were not; as deep as a pattern could reach.
    fn renamed_below(&self, source: &Path, created: &str) -> Vec<Touch> {
        let home = self.home();
        let landing = would_open(&self.absolute(Path::new(created))).0;
        let sensitive = self.policy().sensitive();
        let depth = sensitive.depth_at_risk(&landing, home);
        let was = std::fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf());
        let found = self.pairs_below(&was, &landing, depth, &|was, landing| match sensitive
            .level_renamed(landing, was, home)
            .is_some()
        {
            true => Step::Found,
            false => Step::Below,
        });
        written(created, found)
    }

    /// The files below `source`, a directory moved to `created`, whose names are protected
    /// for writing where they are and not where they go (`mv .git g` takes `.git/config` out
    /// of its protection): shown by their name under `shown`, the source as written, and
    /// decided as written to.
    fn unprotected_below(&self, source: &Path, shown: &str, created: &str) -> Vec<Touch> {
        let was = std::fs::canonicalize(source).unwrap_or_else(|_| source.to_path_buf());
        let landing = would_open(&self.absolute(Path::new(created))).0;
        let home = self.home();
        let sensitive = self.policy().sensitive();
        let depth = sensitive.depth_at_risk(&was, home);
        let found = self.pairs_below(&was, &landing, depth, &|was, landing| {
            // Where it lands it is what it was.
            let dir = || was.is_dir();
            match sensitive.level(was, home, true, &dir) {
                Some(_) if sensitive.level(landing, home, true, &dir).is_none() => Step::Found,
                Some(_) => Step::Past,
                None => Step::Below,
            }
        });
        written(shown.trim_end_matches('/'), found)
    }

    /// The names, relative to `was`, of the entries below it (down to `depth` levels) that
    /// `judge` finds, given each entry where it is and where it lands below `landing`.
    fn pairs_below(
        &self,
        was: &Path,
        landing: &Path,
        depth: usize,
        judge: &dyn Fn(&Path, &Path) -> Step,
    ) -> Vec<String> {
        let mut found = Vec::new();
        let Some(below) = depth.checked_sub(1) else {
            return found;
        };
        let Ok(entries) = std::fs::read_dir(was) else {
            return found;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let (was, landing) = (was.join(&name), landing.join(&name));
            let shown = name.to_string_lossy();
            match judge(&was, &landing) {
                Step::Found => found.push(shown.into_owned()),
                Step::Below if was.is_dir() => found.extend(
                    self.pairs_below(&was, &landing, below, judge)
                        .into_iter()
                        .map(|rest| format!("{shown}/{rest}")),
                ),
                Step::Below | Step::Past => {}
            }
        }
        found
    }
}

/// What `pairs_below` does with an entry.
enum Step {
    Found,
    /// Looks below it (a directory).
    Below,
    /// Neither: nothing below it can be found.
    Past,
}

/// Each of `found`, names below `top`, as a file written.
fn written(top: &str, found: Vec<String>) -> Vec<Touch> {
    found
        .into_iter()
        .map(|rest| Touch {
            path: format!("{top}/{rest}"),
            write: true,
            look: false,
        })
        .collect()
}
