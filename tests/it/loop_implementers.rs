//! Who wrote what is audited (docs/reference.md#independence-of-the-auditor): the PR's
//! author, every account that pushed to it (kept whether or not the push rebinds the
//! record, and never taken back), and the accounts GitHub links to its commits. A command
//! that binds a candidate makes its commenter none of them.

use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::deliveries::pull_request;
use support::steps::new_command;

const CONFIG: &str = ".github/auditloop.yml";

/// PR 42 (by `alice`) with its record made by `maint`; `fixer-bot` and `ci-bot` can write.
async fn recorded(config: &str) -> Loop {
    let mut l = Loop::start(42).await;
    if !config.is_empty() {
        l.gh.set_file(CONFIG, config);
    }
    l.gh.set_permission("fixer-bot", "write");
    l.gh.set_permission("ci-bot", "write");
    l.pull_event("opened", 42, SHA1).await;
    l.ok("maint", &new_command(""), true).await;
    l
}

/// `fixer-bot` pushes SHA2 to the PR.
async fn fixer_pushes(l: &mut Loop) {
    l.gh.set_pull_head(42, SHA2);
    let mut push = pull_request("synchronize", 42, SHA2);
    push["pull_request"]["body"] = json!(l.gh.pull_body(42));
    push["sender"]["login"] = json!("fixer-bot");
    push["before"] = json!(SHA1);
    l.deliver("pull_request", &push).await;
}

/// The newest reply is a `self-audit` refusal naming `how`, and nothing was recorded.
fn refused_as(l: &Loop, commits: usize, how: &str) -> String {
    let reply = l.last_reply(42);
    assert!(
        reply.starts_with("auditloop: refused: self-audit"),
        "{reply}"
    );
    assert!(reply.contains(how), "names {how}: {reply}");
    assert_eq!(l.log_len(), commits, "nothing recorded");
    reply
}

#[tokio::test]
async fn a_maintainers_baseline_on_the_pushed_head_does_not_erase_the_pusher() {
    let mut l = recorded("").await;
    fixer_pushes(&mut l).await;
    // The maintainer gives evidence on the same head: a baseline that names the maintainer
    // as its actor, not as a pusher.
    l.ok(
        "maint",
        "/audit baseline --evidence \"CI run 88 green\"",
        true,
    )
    .await;
    assert_eq!(l.last_event()["type"], "baseline");
    assert!(l.last_event().get("candidate_pushed_by").is_none());
    let commits = l.log_len();
    let r = report("AUD-1", 42, SHA2, "ci-fixer-1", "certified");
    l.comment(42, "fixer-bot", &report_comment(&r)).await;
    let reply = refused_as(&l, commits, "(pushed `2222222`)");
    insta::assert_snapshot!("refusal_self_audit_pushed", reply);
}

#[tokio::test]
async fn a_push_is_kept_without_baseline_on_push_and_the_pusher_is_refused() {
    let mut l = recorded("baseline_on_push: false\n").await;
    let commits = l.log_len();
    fixer_pushes(&mut l).await;
    // One records write: the push, with the head it brought.
    assert_eq!(l.log_len(), commits + 1);
    let event = l.last_event();
    assert_eq!(event["type"], "push", "{event:#}");
    assert_eq!(event["actor"], "fixer-bot");
    assert_eq!(event["head"], format!("commit:{SHA2}"));
    assert_eq!(
        l.record("AUD-1")["candidate_artifact"],
        format!("commit:{SHA1}")
    );
    // A second push by the same account costs nothing more.
    let again = l.log_len();
    fixer_pushes(&mut l).await;
    assert_eq!(l.log_len(), again, "an implementer already");
    // The maintainer rebinds by hand; the pusher is still one of the implementers.
    l.ok(
        "maint",
        "/audit baseline --evidence \"CI run 89 green\"",
        true,
    )
    .await;
    let commits = l.log_len();
    let r = report("AUD-1", 42, SHA2, "ci-fixer-2", "needs_remediation");
    l.comment(42, "fixer-bot", &report_comment(&r)).await;
    refused_as(&l, commits, "(pushed `2222222`)");
    assert_eq!(
        l.record("AUD-1")["implementers"],
        json!([{"login": "fixer-bot", "head": format!("commit:{SHA2}")}])
    );
}

#[tokio::test]
async fn an_account_that_only_gave_evidence_posts_an_accepted_report() {
    let mut l = recorded("").await;
    l.ok(
        "ci-bot",
        "/audit baseline --evidence \"CI run 90 green\"",
        true,
    )
    .await;
    let commits = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-bot-1", "needs_remediation");
    l.comment(42, "ci-bot", &report_comment(&r)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.log_len(), commits + 1);
    assert_eq!(l.last_event()["type"], "report");
}

#[tokio::test]
async fn the_author_of_a_commit_of_the_pr_is_refused_though_it_never_pushed() {
    let mut l = recorded("").await;
    let early = "aaaaaaabbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    l.gh.set_pull_commits(
        42,
        &[
            (early, Some("helper"), Some("web-flow")),
            (SHA1, Some("alice"), Some("alice")),
        ],
    );
    l.gh.set_permission("helper", "write");
    l.gh.set_permission("web-flow", "write");
    let commits = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-helper-1", "needs_remediation");
    l.comment(42, "helper", &report_comment(&r)).await;
    let reply = refused_as(&l, commits, "(author of commit `aaaaaaa`)");
    insta::assert_snapshot!("refusal_self_audit_commit_author", reply);
    // GitHub's `web-flow`, the committer of web edits, wrote nothing.
    let r = report("AUD-1", 42, SHA1, "ci-web-1", "needs_remediation");
    l.comment(42, "web-flow", &report_comment(&r)).await;
    assert_eq!(l.refusals(42).len(), 1, "{:?}", l.refusals(42));
    assert_eq!(l.log_len(), commits + 1);
}

#[tokio::test]
async fn a_pull_request_of_more_than_a_hundred_commits_is_read_to_the_last() {
    let mut l = recorded("").await;
    let shas: Vec<String> = (0..130).map(|i| format!("{i:040x}")).collect();
    let mut commits: Vec<(&str, Option<&str>, Option<&str>)> = shas
        .iter()
        .map(|s| (s.as_str(), Some("alice"), Some("alice")))
        .collect();
    commits[120].1 = Some("late-helper");
    l.gh.set_pull_commits(42, &commits);
    l.gh.set_permission("late-helper", "write");
    let before = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-late-1", "needs_remediation");
    l.comment(42, "late-helper", &report_comment(&r)).await;
    refused_as(&l, before, "author of commit");
    let paged =
        l.gh.requests()
            .iter()
            .filter(|r| {
                r.path.contains("/graphql/repository")
                    && r.body["query"]
                        .as_str()
                        .is_some_and(|q| q.contains("PullCommits"))
            })
            .count();
    assert_eq!(paged, 1, "the second page, once");
}

#[tokio::test]
async fn commits_the_first_reads_could_not_give_are_read_on_their_own() {
    let mut l = recorded("").await;
    l.gh.set_pull_commits(42, &[(SHA1, Some("helper"), Some("helper"))]);
    l.gh.set_permission("helper", "write");
    // GitHub fails the accounts of the first reads' commits (and so their pull request).
    l.gh.state()
        .graphql_failing_next
        .push(("GitActor".into(), "user".into()));
    let before = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-helper-3", "needs_remediation");
    l.comment(42, "helper", &report_comment(&r)).await;
    refused_as(&l, before, "(author of commit `1111111`)");
}

#[tokio::test]
async fn commits_github_cannot_give_fail_the_delivery_and_the_redelivery_decides() {
    let l = recorded("").await;
    l.gh.set_pull_commits(42, &[(SHA1, Some("helper"), Some("helper"))]);
    l.gh.set_permission("helper", "write");
    // GitHub fails the commits' part of the first reads (and so the whole pull request's).
    l.gh.state()
        .graphql_failing
        .push(("PullRequestCommit".into(), "commit".into()));
    let before = l.log_len();
    let r = report("AUD-1", 42, SHA1, "ci-helper-2", "needs_remediation");
    let payload = support::deliveries::pr_comment(42, "helper", &report_comment(&r));
    let first = l
        .app
        .deliver("issue_comment", "commits-failed", &payload)
        .await;
    // Read again on their own, they failed too: GitHub failed, nothing was decided.
    assert_eq!(first.status(), 502);
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(l.log_len(), before);
    l.gh.state().graphql_failing.clear();
    // The redelivery reads them and refuses.
    let again = l
        .app
        .deliver("issue_comment", "commits-failed", &payload)
        .await;
    assert_eq!(again.status(), 200);
    refused_as(&l, before, "(author of commit `1111111`)");
}
