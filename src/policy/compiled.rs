//! The built-in default policy, built when rsh is built. Parsing and checking
//! `policy/default.toml` was half of what rsh did before its first command; `build.rs` runs
//! this module's loader on the text once, and stores what it built (every entry, pattern and
//! place, with no name looked up yet) with postcard. rsh starts from that, and looks the
//! names up as for any policy.
//!
//! The stored form carries the text it was built from: one built from another text is not
//! used, nor one that does not decode; the text is then loaded as before. A test checks that
//! both ways give the same policy.
//!
//! The text and the sandbox settings come first, decoded on their own: with them rsh starts
//! building the file-system layer on another thread (as root, the longest part of confining)
//! while the rest decodes, a fifth of a millisecond.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{
    ApprovalConfig, AuditConfig, Built, DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, Loader,
    OutputConfig, Policy, PolicyError, PolicyText, SandboxConfig, Text, Unresolved,
};

/// The start of the stored form.
#[derive(Serialize, Deserialize)]
struct Head<'t> {
    /// The text it was built from.
    text: &'t str,
    sandbox: SandboxConfig,
}

/// The rest of what a load of the built-in policy builds, less what depends on where rsh
/// runs.
#[derive(Serialize, Deserialize)]
#[serde(bound(deserialize = "'de: 'static"))]
struct Compiled {
    /// The text's SHA-256, for the audit trail.
    sha256: String,
    settings: Built,
    audit: AuditConfig,
    approval: ApprovalConfig,
    output: OutputConfig,
}

/// The built-in policy, loaded from its text and stored (for `build.rs`).
pub fn compile_built_in() -> Result<Vec<u8>, PolicyError> {
    let Unresolved(policy) =
        Loader::new(DEFAULT_POLICY, DEFAULT_POLICY_ORIGIN, None, 0).load(None)?;
    // Sections depend on who runs rsh; the built-in policy has none.
    assert!(
        policy.sections.is_empty(),
        "the built-in policy cannot be compiled with [users] or [groups] sections"
    );
    let head = Head {
        text: DEFAULT_POLICY,
        sandbox: policy.settings.sandbox.clone(),
    };
    let compiled = Compiled {
        sha256: super::sha256_hex(DEFAULT_POLICY),
        settings: policy.settings,
        audit: policy.audit,
        approval: policy.approval,
        output: policy.output,
    };
    let mut stored = postcard::to_allocvec(&head).expect("a policy can be stored");
    stored.extend(postcard::to_allocvec(&compiled).expect("a policy can be stored"));
    Ok(stored)
}

/// The built-in policy from its stored form, with its names looked up on `env_path` when it
/// has no `[shell] path`, telling `sandbox_known` its sandbox settings before the rest is
/// decoded; None when `stored` was not made from this rsh's built-in text. The policy's
/// entries borrow their text from `stored`.
pub(super) fn built_in(
    stored: &'static [u8],
    env_path: Option<&str>,
    sandbox_known: &mut dyn FnMut(&SandboxConfig),
) -> Option<Unresolved> {
    let (head, rest) = postcard::take_from_bytes::<Head>(stored).ok()?;
    if head.text != DEFAULT_POLICY {
        return None;
    }
    sandbox_known(&head.sandbox);
    let mut compiled: Compiled = postcard::from_bytes(rest).ok()?;
    compiled.settings.sandbox = head.sandbox;
    let resolve_dirs: Vec<PathBuf> = super::resolve_dirs(&compiled.settings.search_path, env_path);
    Some(Unresolved(Policy {
        origin: DEFAULT_POLICY_ORIGIN.to_owned(),
        included: Vec::new(),
        end: DEFAULT_POLICY.len() + 1,
        resolve_dirs,
        settings: compiled.settings,
        sections: Vec::new(),
        audit: compiled.audit,
        approval: compiled.approval,
        output: compiled.output,
        who: None,
        texts: vec![PolicyText {
            origin: DEFAULT_POLICY_ORIGIN.to_owned(),
            text: Text::Borrowed(DEFAULT_POLICY),
            sha256: Some(compiled.sha256),
        }],
    }))
}
