//! Shell variables: global values, function-local scopes (dynamic scoping, like bash), the
//! exported and readonly attributes.

use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Default)]
pub struct Var {
    /// None: declared (`local x`, `export x`) but without a value.
    pub value: Option<String>,
    pub exported: bool,
    pub readonly: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Vars {
    globals: HashMap<String, Var>,
    /// Innermost last. An entry shadows every outer scope and the globals.
    scopes: Vec<HashMap<String, Var>>,
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
        }
    }

    pub fn get(&self, name: &str) -> Option<&Var> {
        for scope in self.scopes.iter().rev() {
            if let Some(var) = scope.get(name) {
                return Some(var);
            }
        }
        self.globals.get(name)
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        self.get(name).and_then(|v| v.value.as_deref())
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut Var> {
        for scope in self.scopes.iter_mut().rev() {
            if scope.contains_key(name) {
                return scope.get_mut(name);
            }
        }
        self.globals.get_mut(name)
    }

    /// Assigns where the name is visible (innermost scope that has it, else global).
    pub fn set(&mut self, name: &str, value: String) -> Result<(), String> {
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
        let var = self.globals.entry(name.to_string()).or_default();
        if var.readonly {
            return Err(format!("{name}: readonly variable"));
        }
        var.value = Some(value);
        Ok(())
    }

    /// `declare name`: makes the variable exist, unset, where it is visible (global if new).
    pub fn declare(&mut self, name: &str) {
        if self.get(name).is_none() {
            self.globals.insert(name.to_string(), Var::default());
        }
    }

    /// `local name[=value]` in the innermost function scope (global when not in a function).
    pub fn declare_local(&mut self, name: &str, value: Option<String>) -> Result<(), String> {
        let Some(scope) = self.scopes.last_mut() else {
            return Err("local: can only be used in a function".to_string());
        };
        let var = scope.entry(name.to_string()).or_default();
        if var.readonly {
            return Err(format!("{name}: readonly variable"));
        }
        if value.is_some() {
            var.value = value;
        }
        Ok(())
    }

    pub fn unset(&mut self, name: &str) -> Result<(), String> {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(var) = scope.get_mut(name) {
                if var.readonly {
                    return Err(format!("{name}: cannot unset: readonly variable"));
                }
                // Stays declared in that scope, so an outer value does not reappear.
                var.value = None;
                var.exported = false;
                return Ok(());
            }
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

    /// Puts back what `get` returned before a temporary assignment (`VAR=x builtin`).
    pub fn restore(&mut self, name: &str, old: Option<Var>) {
        for scope in self.scopes.iter_mut().rev() {
            if scope.contains_key(name) {
                match old {
                    Some(var) => {
                        scope.insert(name.to_string(), var);
                    }
                    None => {
                        scope.remove(name);
                    }
                }
                return;
            }
        }
        match old {
            Some(var) => {
                self.globals.insert(name.to_string(), var);
            }
            None => {
                self.globals.remove(name);
            }
        }
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub fn in_function(&self) -> bool {
        !self.scopes.is_empty()
    }

    /// Every visible variable, sorted by name (for `set`, `declare -p`, `export -p`).
    pub fn visible(&self) -> BTreeMap<&str, &Var> {
        let mut out: BTreeMap<&str, &Var> =
            self.globals.iter().map(|(k, v)| (k.as_str(), v)).collect();
        for scope in &self.scopes {
            for (k, v) in scope {
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

/// A valid shell variable name.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
