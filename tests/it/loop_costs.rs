//! What each command and pull-request event costs in GitHub API calls: the requests the
//! fake received for one delivery (by its `X-GitHub-Delivery` header; the token mint
//! excluded), by route, each held under an upper bound so that a change that adds calls
//! shows up here. `cargo test --test it loop_costs -- --nocapture` prints the table.

use crate::support;

use std::collections::BTreeMap;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::deliveries::pull_request;

/// `GET /repos/o/r/git/blobs/<sha>` -> `GET git/blobs/{sha}`: ids, SHAs and file paths
/// folded so that calls group by route.
fn route(method: &str, path: &str) -> String {
    let rest = path
        .split_once("/repos/")
        .map_or(path, |(_, r)| r.splitn(3, '/').nth(2).unwrap_or(""));
    let mut out: Vec<String> = Vec::new();
    for seg in rest.split('/') {
        let after = out.last().map(String::as_str);
        let folded = if after == Some("collaborators") {
            "{username}"
        } else if seg.len() == 40 && seg.bytes().all(|b| b.is_ascii_hexdigit()) {
            "{sha}"
        } else if !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()) {
            "{n}"
        } else if seg.contains("...") {
            "{basehead}"
        } else {
            seg
        };
        out.push(folded.to_owned());
        if matches!(seg, "contents" | "heads") {
            out.push("{path}".to_owned());
            break;
        }
    }
    format!("{method} {}", out.join("/"))
}

/// The calls made for delivery `id`, by route.
fn calls_for(l: &Loop, id: &str) -> BTreeMap<String, usize> {
    let mut by_route = BTreeMap::new();
    for r in l.gh.requests() {
        if r.headers.get("x-github-delivery").map(String::as_str) != Some(id)
            || r.path.ends_with("/access_tokens")
        {
            continue;
        }
        *by_route.entry(route(&r.method, &r.path)).or_insert(0) += 1;
    }
    by_route
}

struct Costs {
    rows: Vec<(String, BTreeMap<String, usize>)>,
    over: Vec<String>,
}

impl Costs {
    fn check(&mut self, l: &Loop, what: &str, id: &str, bound: usize) {
        let calls = calls_for(l, id);
        let total: usize = calls.values().sum();
        assert!(total > 0, "{what}: no call carried delivery {id}");
        if total > bound {
            self.over
                .push(format!("{what}: {total} calls, bound {bound}: {calls:#?}"));
        }
        self.rows.push((what.to_owned(), calls));
    }

    fn print(&self) {
        println!("\n| command | calls | by route |\n| --- | --- | --- |");
        for (what, calls) in &self.rows {
            let total: usize = calls.values().sum();
            let detail: Vec<String> = calls.iter().map(|(r, n)| format!("{r} ×{n}")).collect();
            println!("| {what} | {total} | {} |", detail.join("; "));
        }
    }
}

async fn command(
    l: &mut Loop,
    costs: &mut Costs,
    what: &str,
    login: &str,
    body: &str,
    bound: usize,
) {
    let id = l.comment(42, login, body).await;
    assert!(l.refusals(42).is_empty(), "{what}: {:?}", l.refusals(42));
    costs.check(l, what, &id, bound);
}

#[tokio::test]
async fn each_command_stays_within_its_api_call_budget() {
    let mut l = Loop::start(42).await;
    let mut costs = Costs {
        rows: Vec::new(),
        over: Vec::new(),
    };
    let opened = "cost-opened";
    let mut payload = pull_request("opened", 42, SHA1);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(42));
    assert_eq!(
        l.app
            .deliver("pull_request", opened, &payload)
            .await
            .status(),
        200
    );
    costs.check(&l, "PR opened (no record)", opened, 6);

    let new = "/audit new --goal \"Refuse replayed webhook deliveries\" --oracle \"A replayed delivery id has no second effect\" --evidence \"CI run 1 green\"";
    command(&mut l, &mut costs, "new (first write)", "alice", new, 16).await;

    let mut first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    let mut extra = first["findings"][0].clone();
    extra["id"] = json!("A-03");
    extra["key"] = json!("413-body-2");
    first["findings"].as_array_mut().unwrap().push(extra);
    command(
        &mut l,
        &mut costs,
        "report",
        "auditor",
        &report_comment(&first),
        17,
    )
    .await;
    command(
        &mut l,
        &mut costs,
        "waive",
        "maint",
        "/audit waive A-02 --basis triage-threshold --reason \"cosmetic\"",
        17,
    )
    .await;
    command(
        &mut l,
        &mut costs,
        "veto",
        "maint",
        "/audit veto webhook-replay --reason \"must be fixed\"",
        17,
    )
    .await;
    command(
        &mut l,
        &mut costs,
        "dispose fix",
        "maint",
        "/audit dispose A-01 fix --note \"fixing now\"",
        17,
    )
    .await;
    command(
        &mut l,
        &mut costs,
        "dispose file",
        "maint",
        "/audit dispose A-03 file --note \"tracked separately\"",
        // + GET issues: a redelivery finds the issue it opened instead of filing twice;
        // + POST git/refs: the claim that keeps two replicas from filing it twice.
        25,
    )
    .await;
    command(
        &mut l,
        &mut costs,
        "override",
        "maint",
        "/audit override --budget 5 --note \"more runs\"",
        17,
    )
    .await;

    l.gh.set_pull_head(42, SHA2);
    let sync = "cost-sync";
    let mut payload = pull_request("synchronize", 42, SHA2);
    payload["pull_request"]["body"] = json!(l.gh.pull_body(42));
    assert_eq!(
        l.app.deliver("pull_request", sync, &payload).await.status(),
        200
    );
    // + GET check-runs on the old head: the records commit its run names, which the
    // rebind must find in the branch's history (a rewound branch is never written on).
    costs.check(&l, "PR synchronize (rebind)", sync, 20);

    command(
        &mut l,
        &mut costs,
        "baseline",
        "alice",
        "/audit baseline --evidence \"CI run 2 green\"",
        16,
    )
    .await;
    let mut second = report("AUD-1", 42, SHA2, "ci-run-2", "needs_human_decision");
    second["limitations"][0]
        .as_object_mut()
        .unwrap()
        .remove("authority");
    command(
        &mut l,
        &mut costs,
        "report (needs_human_decision)",
        "auditor",
        &report_comment(&second),
        17,
    )
    .await;
    command(
        &mut l,
        &mut costs,
        "resolve",
        "maint",
        "/audit resolve L-01 --note \"accepted for now\"",
        17,
    )
    .await;
    // Every reply: + POST git/refs, the claim that keeps replicas from replying twice, at
    // the PR's head (GET pulls for help). Status: + GET check-runs, for the rewind check.
    command(&mut l, &mut costs, "status", "reader", "/audit status", 12).await;
    assert!(l.last_reply(42).starts_with("auditloop: status"));
    command(&mut l, &mut costs, "gate", "reader", "/audit gate", 11).await;
    command(&mut l, &mut costs, "help", "reader", "/audit help", 6).await;
    assert!(l.last_reply(42).starts_with("auditloop: help"));

    let refused = l
        .comment(42, "reader", "/audit veto x --reason \"not mine to give\"")
        .await;
    assert_eq!(l.refusals(42).len(), 1);
    // The records ref is read together with the permission, before the refusal is known;
    // + POST git/refs, the claim that keeps replicas from replying twice.
    costs.check(&l, "refusal (permission)", &refused, 8);
    costs.print();
    assert!(costs.over.is_empty(), "{:#?}", costs.over);
}
