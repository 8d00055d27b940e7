//! What GitHub does with issues (the audit dashboard, a `file` disposition's issue). Each
//! side keeps an issue as its fields (`number`, `title`, `body`, `labels` by name,
//! `state`), in the order they were opened; these answer as GitHub does from them.

use serde_json::{json, Value};

use crate::objects;

/// `POST /repos/{repo}/issues` by App `app`: the fields to keep for issue `number`, and the
/// issue as GitHub answers it.
pub fn open(repo: &str, number: u64, app: &str, request: &Value) -> (Value, Value) {
    let mut kept = json!({"number": number, "title": request["title"], "body": request["body"],
        "labels": request.get("labels").cloned().unwrap_or_else(|| json!([])), "state": "open"});
    if let Some(state) = request.get("state") {
        kept["state"] = state.clone();
    }
    let shown = objects::issue(repo, number, app, &kept);
    (kept, shown)
}

/// `PATCH /repos/{repo}/issues/{number}`: the fields given replace the kept ones; the issue
/// as GitHub answers it.
pub fn update(repo: &str, app: &str, kept: &mut Value, fields: &Value) -> Value {
    for field in ["title", "body", "state", "labels"] {
        if let Some(value) = fields.get(field) {
            kept[field] = value.clone();
        }
    }
    let number = kept["number"].as_u64().unwrap_or_default();
    objects::issue(repo, number, app, kept)
}

/// `GET /repos/{repo}/issues?state=&labels=`: the issues in that state (`open` when not
/// given, `closed` or `all`) that carry every label named, newest first (as
/// `sort=created&direction=desc` asks).
pub fn listed<'a>(
    repo: &str,
    app: &str,
    issues: impl DoubleEndedIterator<Item = &'a Value>,
    query: &str,
) -> Vec<Value> {
    let param = |name: &str| {
        query.split('&').find_map(|kv| {
            kv.strip_prefix(name)
                .and_then(|v| v.strip_prefix('='))
                .map(|v| v.replace("%2C", ",").replace("%2c", ","))
        })
    };
    let wanted = param("state").unwrap_or_else(|| "open".to_owned());
    let labels: Vec<String> = param("labels")
        .map(|l| l.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    issues
        .rev()
        .filter(|i| wanted == "all" || i["state"].as_str().unwrap_or("open") == wanted)
        .filter(|i| {
            labels.iter().all(|l| {
                i["labels"]
                    .as_array()
                    .is_some_and(|ls| ls.iter().any(|x| x.as_str() == Some(l.as_str())))
            })
        })
        .map(|i| objects::issue(repo, i["number"].as_u64().unwrap_or(0), app, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issues_are_listed_by_state_and_labels_newest_first() {
        let mut kept = Vec::new();
        for (n, labels) in [
            (1, vec!["audit-dashboard"]),
            (2, vec![]),
            (3, vec!["audit-dashboard", "x"]),
        ] {
            let request = json!({"title": format!("t{n}"), "body": "b", "labels": labels});
            kept.push(open("o/r", n, "app", &request).0);
        }
        let closed = update("o/r", "app", &mut kept[2], &json!({"state": "closed"}));
        assert_eq!(closed["state"], "closed");
        let numbers = |query: &str| {
            listed("o/r", "app", kept.iter(), query)
                .iter()
                .filter_map(|i| i["number"].as_u64())
                .collect::<Vec<_>>()
        };
        assert_eq!(numbers(""), [2, 1]);
        assert_eq!(numbers("labels=audit-dashboard&state=all"), [3, 1]);
        assert_eq!(numbers("labels=audit-dashboard%2Cx&state=closed"), [3]);
        let shown = &listed("o/r", "app", kept.iter(), "labels=x&state=all")[0];
        assert_eq!(shown["labels"][1]["name"], "x");
    }
}
