//! Shell variables: global values, function-local scopes (dynamic scoping, like bash), the
//! temporary scope of `VAR=value command`, and the exported and readonly attributes.

use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Default)]
pub struct Var {
    /// None: declared (`local x`, `export x`) but without a value.
    pub value: Option<String>,
    pub exported: bool,
    pub readonly: bool,
}

/// What kind of scope shadows the globals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    /// A function call: `local` variables.
    Function,
    /// `VAR=value command`: exported bindings that disappear after the command; unsetting
    /// one reveals the variable underneath, as in bash.
    Temporary,
}

#[derive(Debug, Clone)]
struct Scope {
    kind: ScopeKind,
    vars: HashMap<String, Var>,
}

#[derive(Debug, Clone, Default)]
pub struct Vars {
    globals: HashMap<String, Var>,
    /// Innermost last. An entry shadows every outer scope and the globals.
    scopes: Vec<Scope>,
    /// How often OPTIND was assigned, declared, unset or uncovered (a temporary binding of it
    /// ended): `getopts` starts over when the script changed it, even to the value it had.
    optind_changes: u64,
    /// A temporary scope that lookups pass over (see `hide_temporaries`).
    hidden: Option<usize>,
}

impl Vars {
    /// Imports the process environment: every variable is exported.
    pub fn from_env(env: impl Iterator<Item = (String, String)>) -> Vars {
        let globals = env
            .filter(|(k, _)| is_name(k))
            .map(|(k, v)| {
                (
                    k,
                    Var {
                        value: Some(v),
                        exported: true,
                        readonly: false,
                    },
                )
            })
            .collect();
        Vars {
            globals,
            scopes: Vec::new(),
            optind_changes: 0,
            hidden: None,
        }
    }

    /// See `optind_changes`.
    pub fn optind_changes(&self) -> u64 {
        self.optind_changes
    }

    fn note_change(&mut self, name: &str) {
        if name == "OPTIND" {
            self.optind_changes += 1;
        }
    }

    /// Hides the innermost scope, when it is a temporary one, from lookups until
    /// `show_temporaries` is given what this returned: the redirections of `VAR=value command`
    /// are expanded without its bindings, as in bash (`x=b cmd >$x` opens where `$x` led
    /// before).
    pub fn hide_temporaries(&mut self) -> Option<usize> {
        let innermost = self.scopes.len().checked_sub(1);
        let temporary = innermost.filter(|&i| self.scopes[i].kind == ScopeKind::Temporary);
        let hidden = self.hidden;
        self.hidden = temporary.or(hidden);
        hidden
    }

    pub fn show_temporaries(&mut self, hidden: Option<usize>) {
        self.hidden = hidden;
    }

    /// The scopes lookups see, outermost first.
    fn seen(&self) -> impl DoubleEndedIterator<Item = &Scope> {
        let hidden = self.hidden;
        self.scopes
            .iter()
            .enumerate()
            .filter(move |&(i, _)| Some(i) != hidden)
            .map(|(_, scope)| scope)
    }

    pub fn get(&self, name: &str) -> Option<&Var> {
        for scope in self.seen().rev() {
            if let Some(var) = scope.vars.get(name) {
                return Some(var);
            }
        }
        self.globals.get(name)
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.value.as_deref())
    }

    /// Where an assignment goes: past the hidden scope (see `hide_temporaries`) too, so that
    /// `x=b cmd >${x:=f}` leaves the command its `x=b`, as in bash.
    fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        let hidden = self.hidden;
        for (_, scope) in self
            .scopes
            .iter_mut()
            .enumerate()
            .rev()
            .filter(|&(i, _)| Some(i) != hidden)
        {
            if scope.vars.contains_key(name) {
                return scope.vars.get_mut(name);
            }
        }
        self.globals.get_mut(name)
    }

    /// Assigns where the name is visible (innermost scope that has it, else global).
    pub fn set(&mut self, name: &str, value: String) -> Result<(), String> {
        self.note_change(name);
        match self.get_mut(name) {
            Some(var) if var.readonly => Err(format!("{name}: readonly variable")),
            Some(var) => {
                var.value = Some(value);
                Ok(())
            }
            None => {
                self.globals.insert(
                    name.to_string(),
                    Var {
                        value: Some(value),
                        ..Var::default()
                    },
                );
                Ok(())
            }
        }
    }

    /// Assigns in the global scope regardless of locals (`declare -g`).
    pub fn set_global(&mut self, name: &str, value: String) -> Result<(), String> {
        self.note_change(name);
        let var = self.globals.entry(name.to_string()).or_default();
        if var.readonly {
            return Err(format!("{name}: readonly variable"));
        }
        var.value = Some(value);
        Ok(())
    }

    /// `declare name`: makes the variable exist, unset, where it is visible (global if new).
    pub fn declare(&mut self, name: &str) {
        self.note_change(name);
        if self.get(name).is_none() {
            self.globals.insert(name.to_string(), Var::default());
        }
    }

    /// `local name[=value]` in the innermost function scope.
    pub fn declare_local(&mut self, name: &str, value: Option<String>) -> Result<(), String> {
        self.note_change(name);
        let Some(scope) = self
            .scopes
            .iter_mut()
            .rev()
            .find(|s| s.kind == ScopeKind::Function)
        else {
            return Err("local: can only be used in a function".to_string());
        };
        let var = scope.vars.entry(name.to_string()).or_default();
        if var.readonly {
            return Err(format!("{name}: readonly variable"));
        }
        if value.is_some() {
            var.value = value;
        }
        Ok(())
    }

    /// Binds `name` in the innermost (temporary) scope, exported: `VAR=value command`.
    pub fn bind_temporary(&mut self, name: &str, value: String) -> Result<(), String> {
        self.note_change(name);
        if self.get(name).is_some_and(|v| v.readonly) {
            return Err(format!("{name}: readonly variable"));
        }
        let scope = self
            .scopes
            .last_mut()
            .filter(|s| s.kind == ScopeKind::Temporary)
            .ok_or_else(|| "no temporary scope".to_string())?;
        scope.vars.insert(
            name.to_string(),
            Var {
                value: Some(value),
                exported: true,
                readonly: false,
            },
        );
        Ok(())
    }

    pub fn unset(&mut self, name: &str) -> Result<(), String> {
        self.note_change(name);
        for scope in self.scopes.iter_mut().rev() {
            let Some(var) = scope.vars.get_mut(name) else {
                continue;
            };
            if var.readonly {
                return Err(format!("{name}: cannot unset: readonly variable"));
            }
            match scope.kind {
                // A local stays declared in its function, so an outer value does not
                // reappear there.
                ScopeKind::Function => {
                    var.value = None;
                    var.exported = false;
                }
                ScopeKind::Temporary => {
                    scope.vars.remove(name);
                }
            }
            return Ok(());
        }
        match self.globals.get(name) {
            Some(var) if var.readonly => Err(format!("{name}: cannot unset: readonly variable")),
            _ => {
                self.globals.remove(name);
                Ok(())
            }
        }
    }

    pub fn set_exported(&mut self, name: &str, exported: bool) {
        match self.get_mut(name) {
            Some(var) => var.exported = exported,
            None if exported => {
                self.globals.insert(
                    name.to_string(),
                    Var {
                        exported: true,
                        ..Var::default()
                    },
                );
            }
            None => {}
        }
    }

    pub fn set_readonly(&mut self, name: &str) {
        match self.get_mut(name) {
            Some(var) => var.readonly = true,
            None => {
                self.globals.insert(
                    name.to_string(),
                    Var {
                        readonly: true,
                        ..Var::default()
                    },
                );
            }
        }
    }

    pub fn push_scope(&mut self, kind: ScopeKind) {
        self.scopes.push(Scope {
            kind,
            vars: HashMap::new(),
        });
    }

    /// The end of a temporary binding of OPTIND (`OPTIND=1 cmd`) counts as a change, as in
    /// bash; the end of a function's `local OPTIND` does not (the caller's `getopts` position
    /// comes back with its OPTIND, see `Shell::call_function`).
    pub fn pop_scope(&mut self) {
        if let Some(scope) = self.scopes.pop()
            && scope.kind == ScopeKind::Temporary
            && scope.vars.contains_key("OPTIND")
        {
            self.note_change("OPTIND");
        }
    }

    /// Whether the innermost scope has its own `name`.
    pub fn innermost_holds(&self, name: &str) -> bool {
        self.scopes
            .last()
            .is_some_and(|s| s.vars.contains_key(name))
    }

    pub fn in_function(&self) -> bool {
        self.scopes.iter().any(|s| s.kind == ScopeKind::Function)
    }

    /// Every visible variable, sorted by name (for `set`, `declare -p`, `export -p`).
    pub fn visible(&self) -> BTreeMap<&str, &Var> {
        let mut out: BTreeMap<&str, &Var> =
            self.globals.iter().map(|(k, v)| (k.as_str(), v)).collect();
        for scope in self.seen() {
            for (k, v) in &scope.vars {
                out.insert(k.as_str(), v);
            }
        }
        out
    }

    /// The environment for a child: exported variables that have a value.
    pub fn exported(&self) -> Vec<(String, String)> {
        self.visible()
            .into_iter()
            .filter(|(_, v)| v.exported)
            .filter_map(|(k, v)| v.value.as_ref().map(|val| (k.to_string(), val.clone())))
            .collect()
    }
}

pub use crate::parse::is_name;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_of_a_temporary_binding_reveals_the_global() {
        let mut vars = Vars::default();
        vars.set("x", "global".into()).unwrap();
        vars.push_scope(ScopeKind::Temporary);
        vars.bind_temporary("x", "temp".into()).unwrap();
        assert_eq!(vars.value("x"), Some("temp"));
        vars.unset("x").unwrap();
        assert_eq!(vars.value("x"), Some("global"));
        vars.pop_scope();
        assert_eq!(vars.value("x"), Some("global"));
    }

    #[test]
    fn unset_of_a_local_does_not_reveal_the_global() {
        let mut vars = Vars::default();
        vars.set("x", "global".into()).unwrap();
        vars.push_scope(ScopeKind::Function);
        vars.declare_local("x", Some("local".into())).unwrap();
        vars.unset("x").unwrap();
        assert_eq!(vars.value("x"), None);
        vars.pop_scope();
        assert_eq!(vars.value("x"), Some("global"));
    }

    #[test]
    fn local_goes_to_the_function_under_a_temporary_scope() {
        let mut vars = Vars::default();
        vars.push_scope(ScopeKind::Function);
        vars.push_scope(ScopeKind::Temporary);
        vars.declare_local("y", Some("1".into())).unwrap();
        vars.pop_scope();
        assert_eq!(vars.value("y"), Some("1"));
    }
}
