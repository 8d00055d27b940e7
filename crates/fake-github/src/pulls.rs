//! What GitHub does with pull requests built by [`crate::objects::pull_request`]: the
//! listings and the update. Each side keeps its pull requests as it indexes them (the
//! tests one repository's, the load tool many); these work on any of them.

use serde_json::Value;

use crate::objects::pull_request_listed;

/// `GET /repos/{repo}/pulls?state=`: the pull requests in that state (`open` when not
/// given, `closed` or `all`), newest first, in the listing's shape.
pub fn listed<'a>(pulls: impl Iterator<Item = &'a Value>, state: Option<&str>) -> Vec<Value> {
    let wanted = state.unwrap_or("open");
    let mut list: Vec<&Value> = pulls
        .filter(|p| wanted == "all" || p["state"] == wanted)
        .collect();
    list.sort_by_key(|p| std::cmp::Reverse(p["number"].as_u64()));
    list.into_iter().map(pull_request_listed).collect()
}

/// `GET /repos/{repo}/commits/{sha}/pulls`: the pull requests whose head is `sha`. As on
/// GitHub, one from a fork is not listed for the commit.
pub fn for_commit<'a>(pulls: impl Iterator<Item = &'a Value>, sha: &str) -> Vec<Value> {
    pulls
        .filter(|p| p["head"]["sha"] == sha)
        .filter(|p| p["head"]["repo"]["full_name"] == p["base"]["repo"]["full_name"])
        .map(pull_request_listed)
        .collect()
}

/// `PATCH /repos/{repo}/pulls/{number}`: the fields the request gives replace the pull
/// request's; the others stay.
pub fn update(pull: &mut Value, fields: &Value) {
    for field in ["title", "body", "state"] {
        if let Some(value) = fields.get(field) {
            pull[field] = value.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objects::{close_pull, pull_request};
    use serde_json::json;

    fn three() -> Vec<Value> {
        let mut closed = pull_request("o/r", 1, "a", "old", "alice");
        close_pull(&mut closed, false);
        let mut fork = pull_request("o/r", 3, "a", "from a fork", "bob");
        fork["head"]["repo"]["full_name"] = json!("bob/r");
        vec![closed, pull_request("o/r", 2, "a", "new", "alice"), fork]
    }

    #[test]
    fn the_listing_keeps_the_state_asked_for_newest_first() {
        let pulls = three();
        let numbers = |state| {
            listed(pulls.iter(), state)
                .iter()
                .filter_map(|p| p["number"].as_u64())
                .collect::<Vec<_>>()
        };
        assert_eq!(numbers(None), [3, 2]);
        assert_eq!(numbers(Some("closed")), [1]);
        assert_eq!(numbers(Some("all")), [3, 2, 1]);
        assert!(listed(pulls.iter(), None)[0].get("mergeable").is_none());
    }

    #[test]
    fn a_commit_lists_the_pulls_on_it_but_not_a_forks() {
        let pulls = three();
        let numbers: Vec<u64> = for_commit(pulls.iter(), "a")
            .iter()
            .filter_map(|p| p["number"].as_u64())
            .collect();
        assert_eq!(numbers, [1, 2]);
        assert!(for_commit(pulls.iter(), "b").is_empty());
    }

    #[test]
    fn an_update_replaces_only_the_fields_it_gives() {
        let mut pull = pull_request("o/r", 2, "a", "before", "alice");
        update(&mut pull, &json!({"body": "after"}));
        assert_eq!(
            (pull["body"].clone(), pull["state"].clone()),
            (json!("after"), json!("open"))
        );
    }
}
