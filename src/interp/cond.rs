//! `[[ … ]]`: operands are expanded without splitting or globbing, `==` takes a pattern,
//! `=~` an extended regular expression, and the integer operators evaluate arithmetic.

use crate::expand;
use crate::parse::{CondExpr, CondOp};

use super::builtins::test;
use super::{Outcome, Shell};

/// Why a `[[ ]]` could not be evaluated: status 2 for a bad regex, 1 for arithmetic errors.
struct CondError {
    message: String,
    status: i32,
}

impl Shell {
    pub(super) fn eval_cond(&mut self, expr: &CondExpr) -> Outcome {
        match self.cond_true(expr) {
            Ok(true) => Ok(0),
            Ok(false) => Ok(1),
            Err(Fatal(err)) => self.expansion_failed(err),
            Err(Failed(err)) => {
                self.error(&format!("[[: {}", err.message));
                Ok(err.status)
            }
        }
    }

    fn cond_true(&mut self, expr: &CondExpr) -> Result<bool, Failure> {
        match expr {
            CondExpr::Word(word) => Ok(!expand::string(self, word).map_err(Fatal)?.is_empty()),
            CondExpr::Not(inner) => Ok(!self.cond_true(inner)?),
            CondExpr::And(a, b) => Ok(self.cond_true(a)? && self.cond_true(b)?),
            CondExpr::Or(a, b) => Ok(self.cond_true(a)? || self.cond_true(b)?),
            CondExpr::Unary(op, word) => {
                let operand = expand::string(self, word).map_err(Fatal)?;
                match test::unary(op, &operand, self) {
                    Some(result) => {
                        result.map_err(|message| Failed(CondError { message, status: 2 }))
                    }
                    None => Err(Failed(CondError {
                        message: format!("{op}: unary operator expected"),
                        status: 2,
                    })),
                }
            }
            CondExpr::Binary(left, op, right) => {
                let left = expand::string(self, left).map_err(Fatal)?;
                match op {
                    CondOp::Match | CondOp::NoMatch => {
                        let pattern = expand::pattern_text(self, right).map_err(Fatal)?;
                        let matched = self.pattern_matches(&pattern, &left, true);
                        Ok(matched == (*op == CondOp::Match))
                    }
                    CondOp::Regex => {
                        let regex = expand::regex_text(self, right).map_err(Fatal)?;
                        self.regex_matches(&regex, &left)
                    }
                    CondOp::Other(op) => {
                        let right = expand::string(self, right).map_err(Fatal)?;
                        self.binary(op, &left, &right)
                    }
                }
            }
        }
    }

    fn regex_matches(&self, regex: &str, text: &str) -> Result<bool, Failure> {
        let compiled = regex::RegexBuilder::new(regex)
            .case_insensitive(self.options.nocasematch)
            .build()
            .map_err(|_| {
                Failed(CondError {
                    message: format!("{regex}: invalid regular expression"),
                    status: 2,
                })
            })?;
        Ok(compiled.is_match(text))
    }

    fn binary(&mut self, op: &str, left: &str, right: &str) -> Result<bool, Failure> {
        let integer = |shell: &mut Shell, text: &str| {
            expand::arith_str(shell, text).map_err(|err| {
                if err.arithmetic {
                    Failed(CondError {
                        message: err.message,
                        status: 1,
                    })
                } else {
                    Fatal(err)
                }
            })
        };
        let (a, b) = match op {
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => {
                (integer(self, left)?, integer(self, right)?)
            }
            _ => {
                return match test::binary(op, left, right) {
                    Some(result) => {
                        result.map_err(|message| Failed(CondError { message, status: 2 }))
                    }
                    None => Err(Failed(CondError {
                        message: format!("{op}: binary operator expected"),
                        status: 2,
                    })),
                };
            }
        };
        Ok(match op {
            "-eq" => a == b,
            "-ne" => a != b,
            "-lt" => a < b,
            "-le" => a <= b,
            "-gt" => a > b,
            _ => a >= b,
        })
    }
}

enum Failure {
    /// An expansion error: handled like anywhere else (fatal in scripts).
    Fatal(expand::ExpandError),
    /// The test itself failed.
    Failed(CondError),
}

use Failure::{Failed, Fatal};

impl test::TestEnv for Shell {
    fn var_is_set(&self, name: &str) -> bool {
        self.vars.value(name).is_some()
    }

    fn option_is_on(&self, name: &str) -> Option<bool> {
        super::builtins::set::option_value(self, name)
    }

    fn may_have(&self, path: &str, write: bool) -> bool {
        self.policy_lets_have(std::path::Path::new(path), write)
    }
}
