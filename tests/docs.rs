//! The README and the manual pages quote rule locations of the built-in policy
//! (`listed in commands.deny (built-in default policy:139)`); each must still point into the
//! list it names, or the examples teach readers to look in the wrong place.

use std::fs;
use std::path::Path;

/// The `[commands]` list (`allow`, `ask`, `deny`) each line of the policy text is in, if any.
fn commands_lists(policy: &str) -> Vec<Option<&str>> {
    let mut section = "";
    let mut list = None;
    policy
        .lines()
        .map(|line| {
            if line.starts_with('[') {
                section = line;
                list = None;
            } else if section == "[commands]" {
                if let Some((key, rest)) = line.split_once(" = [") {
                    list = (!rest.contains(']')).then_some(key);
                    return Some(key);
                }
                if line == "]" {
                    list = None;
                    return None;
                }
            }
            list
        })
        .collect()
}

#[test]
fn quoted_rule_locations_point_into_their_lists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let policy = fs::read_to_string(root.join("policy/default.toml")).unwrap();
    let lists = commands_lists(&policy);
    let mut checked = 0;
    for doc in ["README.md", "man/rsh.1", "man/rsh-policy.5"] {
        let text = fs::read_to_string(root.join(doc))
            .unwrap()
            .replace("\\-", "-");
        for (number, line) in text.lines().enumerate() {
            let Some((before, after)) = line.split_once("(built-in default policy:") else {
                continue;
            };
            let Some(list) = before.rsplit_once("commands.").map(|(_, l)| l) else {
                continue;
            };
            let list = list.split_whitespace().next().unwrap_or_default();
            let at: usize = after
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{doc}:{}: no line number", number + 1));
            let found = lists.get(at - 1).copied().flatten();
            assert_eq!(
                found,
                Some(list),
                "{doc}:{}: default policy line {at} is not in commands.{list}",
                number + 1
            );
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} quoted locations found");
}
