//! Who rsh runs for: the user and the groups that pick `[users.NAME]` and `[groups.NAME]`
//! sections of the policy.

use std::ffi::CString;

/// A user by name, and the names of the groups they belong to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Who {
    pub user: String,
    pub groups: Vec<String>,
}

impl Who {
    /// The user of the real user id, with their groups as the group database lists them (the
    /// primary group included), as sshd's `Match Group` sees them. A user id without a name
    /// matches no section; neither does a group without one.
    pub fn current() -> Who {
        let Some(user) = current_user() else {
            return Who::default();
        };
        let groups = CString::new(user.name.as_str())
            .ok()
            .and_then(|name| nix::unistd::getgrouplist(&name, user.gid).ok())
            .unwrap_or_else(|| vec![user.gid]);
        let groups = groups
            .into_iter()
            .filter_map(|gid| nix::unistd::Group::from_gid(gid).ok().flatten())
            .map(|group| group.name)
            .collect();
        Who {
            user: user.name.clone(),
            groups,
        }
    }
}

/// The password database's entry of the real user, looked up once: the policy's `~`, the
/// audit trail's user, a login's `HOME` and the sections that apply all come from it, and
/// every look-up reads the database again (a tenth of a millisecond with nscd tried first).
/// rsh never changes its user id.
pub fn current_user() -> Option<&'static nix::unistd::User> {
    static USER: std::sync::OnceLock<Option<nix::unistd::User>> = std::sync::OnceLock::new();
    USER.get_or_init(|| {
        nix::unistd::User::from_uid(nix::unistd::getuid())
            .ok()
            .flatten()
    })
    .as_ref()
}

/// The name of the real user, or its number when it has none (for messages and records).
pub fn user_name() -> String {
    current_user().map_or_else(|| nix::unistd::getuid().to_string(), |u| u.name.clone())
}

/// This machine's name, or nothing when it cannot be read.
pub fn host_name() -> String {
    nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_user_has_a_name_and_their_primary_group() {
        let who = Who::current();
        let uid = nix::unistd::getuid();
        let user = nix::unistd::User::from_uid(uid).unwrap().unwrap();
        assert_eq!(who.user, user.name);
        let primary = nix::unistd::Group::from_gid(user.gid).unwrap().unwrap();
        assert!(who.groups.contains(&primary.name), "{who:?}");
    }
}
