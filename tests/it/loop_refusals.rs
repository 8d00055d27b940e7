//! One row per refusal (docs/reference.md#answers-and-refusals), through the real server: the reply starts
//! `auditloop: refused`, says what was wrong (naming the rule), and nothing is recorded —
//! the records branch keeps its head and no `+1` is given.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1};
use support::setups::{set_up, Setup};
use support::steps::{handoff_comment, new_command, unknown_key_receipt};

/// The state a refusal is tried on.
struct Row {
    name: &'static str,
    setup: Setup,
    pr: u64,
    login: &'static str,
    comment: String,
    /// Fragments the reply must contain (the rule or problem it names).
    expect: &'static [&'static str],
}

fn row(
    name: &'static str,
    setup: Setup,
    login: &'static str,
    comment: impl Into<String>,
    expect: &'static [&'static str],
) -> Row {
    Row {
        name,
        setup,
        pr: 42,
        login,
        comment: comment.into(),
        expect,
    }
}

fn json_report(edit: impl FnOnce(&mut Value)) -> String {
    let mut r = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    edit(&mut r);
    report_comment(&r)
}

fn rows() -> Vec<Row> {
    use Setup::*;
    let certified = |r: &mut Value| {
        *r = report("AUD-1", 42, SHA1, "ci-run-2", "certified");
    };
    vec![
        // --- reading the comment
        row(
            "unknown command, with a suggestion",
            Opened,
            "alice",
            "/audit stauts",
            &["unknown command", "Did you mean", "/audit status"],
        ),
        row(
            "unknown flag",
            Opened,
            "alice",
            new_command("--colour red"),
            &["has no flag", "--colour"],
        ),
        row(
            "two commands in one comment",
            Opened,
            "alice",
            "/audit status\n/audit help",
            &["more than one command", "its own comment"],
        ),
        row(
            "report without a payload",
            Record,
            "auditor",
            "/audit report\n\nSee the CI log.",
            &["block follows", "/audit report"],
        ),
        row(
            "placeholder text",
            Opened,
            "alice",
            "/audit new --goal TODO --oracle \"Replays have no effect\" --evidence \"CI green\"",
            &["--goal", "placeholder"],
        ),
        // --- who may
        row(
            "a reader reports",
            Record,
            "reader",
            report_comment(&report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation")),
            &["/audit report", "needs", "write", "reader"],
        ),
        row(
            "a writer uses a maintainer command",
            Run("needs_remediation"),
            "wendy",
            "/audit override --budget 5 --note \"Two more rounds\"",
            &["/audit override", "maintain", "wendy"],
        ),
        row(
            "the author approves their own PR",
            AuthorMaintains,
            "alice",
            "/audit waive A-02 --basis triage-threshold --reason \"Below the bar\"",
            &["author", "/audit waive", "allow_self_approval"],
        ),
        row(
            "a writer raises the budget above the default",
            Opened,
            "wendy",
            new_command("--budget 9"),
            &["/audit new", "maintain", "wendy"],
        ),
        // --- the pull request and its record
        row(
            "closed PR",
            Closed,
            "alice",
            "/audit baseline --evidence \"CI run 2 green\"",
            &["PR is closed"],
        ),
        row(
            "no record yet",
            Opened,
            "alice",
            "/audit baseline --evidence \"CI run 2 green\"",
            &["no audit record", "/audit new"],
        ),
        row(
            "no covered tasks: the body closes nothing",
            NoClosing,
            "alice",
            new_command(""),
            &["no-covered-tasks"],
        ),
        row(
            "no evidence and no required checks",
            Opened,
            "alice",
            "/audit new --goal \"Refuse replays\" --oracle \"Replays have no effect\"",
            &["evidence-required"],
        ),
        row(
            "invalid repository configuration",
            Config("audit_budget: three\n"),
            "alice",
            "/audit baseline --evidence \"CI run 2 green\"",
            &["configuration is invalid", "audit_budget", "line 1"],
        ),
        row(
            "work-unit audit disabled",
            Config("work_unit_audit: disabled\n"),
            "alice",
            "/audit gate",
            &["disabled"],
        ),
        Row {
            pr: 43,
            ..row(
                "adopt a record whose PR was merged",
                SourceMerged,
                "maint",
                "/audit adopt AUD-1",
                &["adopt-source-active", "AUD-1"],
            )
        },
        Row {
            pr: 43,
            ..row(
                "adopt a record whose PR is still open",
                SourceOpen,
                "maint",
                "/audit adopt AUD-1",
                &["adopt-source-active", "AUD-1"],
            )
        },
        row(
            "a second /audit new",
            Record,
            "alice",
            new_command(""),
            &["pull-has-record", "AUD-1", "/audit baseline"],
        ),
        Row {
            pr: 43,
            ..row(
                "work unit held by another PR",
                UnitOnOtherPr,
                "alice",
                new_command("--work-unit phase:4 --covered-tasks \"#12\""),
                &["work-unit-has-record", "phase:4", "AUD-1", "PR #42"],
            )
        },
        // --- report rules
        row(
            "schema shape, with its path",
            Record,
            "auditor",
            json_report(|r| {
                r["perspectives"].as_object_mut().unwrap().remove("risk");
            }),
            &["not a valid auditor_report_v1", "shape", "perspectives"],
        ),
        row(
            "single_agent_fallback",
            Record,
            "auditor",
            json_report(|r| r["invocation"]["mode"] = json!("single_agent_fallback")),
            &["single_agent_fallback is refused"],
        ),
        row(
            "invocation ref reused",
            Run("needs_remediation"),
            "auditor",
            json_report(|r| r["invocation"]["ref"] = json!("ci-run-1")),
            &["invocation-ref-reused", "ci-run-1"],
        ),
        row(
            "stale candidate",
            Pushed,
            "auditor",
            json_report(|_| {}),
            &["stale-candidate", "stale"],
        ),
        row(
            "covered tasks mismatch",
            Record,
            "auditor",
            json_report(|r| r["covered_tasks"] = json!(["#13"])),
            &["covered-tasks-mismatch", "#13"],
        ),
        row(
            "awaiting a human decision",
            AwaitingHuman,
            "auditor",
            json_report(|_| {}),
            &["awaiting-human", "resolve"],
        ),
        row(
            "blocked: budget spent",
            Blocked,
            "auditor",
            json_report(|_| {}),
            &["budget-exhausted", "1 of 1"],
        ),
        row(
            "already certified",
            Run("certified"),
            "auditor",
            json_report(certified),
            &["already-certified"],
        ),
        row(
            "a vetoed key in a certifying report",
            Vetoed,
            "auditor",
            json_report(certified),
            &["vetoed-finding", "webhook-replay"],
        ),
        row(
            "limitation authority not held",
            Record,
            "auditor",
            json_report(|r| {
                let lims = r["limitations"].clone();
                *r = report(
                    "AUD-1",
                    42,
                    SHA1,
                    "ci-run-2",
                    "certified_with_accepted_limitations",
                );
                r["limitations"] = lims;
            }),
            &["limitation-not-accepted", "octocat", "no-ghes-e2e"],
        ),
        row(
            "limitation cites a missing decision record",
            Record,
            "auditor",
            json_report(|r| {
                let lims = r["limitations"].clone();
                *r = report(
                    "AUD-1",
                    42,
                    SHA1,
                    "ci-run-2",
                    "certified_with_accepted_limitations",
                );
                r["limitations"] = lims;
                r["limitations"][0]["authority"] = json!("D-3");
            }),
            &["decision-record-missing", "D-3"],
        ),
        row(
            "a receipt that does not verify, from a reader",
            Record,
            "reader",
            json_report(|r| {
                r["receipt"] = unknown_key_receipt();
            }),
            &["receipt", "never downgraded"],
        ),
        row(
            "handoff PASS",
            Record,
            "auditor",
            handoff_comment("PASS", "plan-audit-1", SHA1),
            &["AUDIT: PASS", "cannot certify"],
        ),
        // --- triage
        row(
            "cross-remit waiver of a finding that is not cross-remit",
            Run("needs_remediation"),
            "maint",
            "/audit waive A-02 --basis cross-remit --reason \"Another team's remit\"",
            &["not-cross-remit", "A-02"],
        ),
        row(
            "waiver of a vetoed key",
            Vetoed,
            "maint",
            "/audit waive A-01 --basis triage-threshold --reason \"Below the bar\"",
            &["waive-vetoed", "webhook-replay"],
        ),
        row(
            "waiver of a finding the latest run lacks",
            Run("needs_remediation"),
            "maint",
            "/audit waive A-07 --basis triage-threshold --reason \"Below the bar\"",
            &["unknown-finding", "A-07"],
        ),
        row(
            "resolve when no human decision is awaited",
            Run("needs_remediation"),
            "maint",
            "/audit resolve --note \"Go ahead\"",
            &["not-awaiting-human"],
        ),
        row(
            "resolve a finding that was not rejected",
            Run("needs_remediation"),
            "maint",
            "/audit resolve A-01 --note \"Fine as is\"",
            &["finding-not-rejected", "A-01"],
        ),
        row(
            "follow-up on a blocking finding",
            Run("needs_remediation"),
            "maint",
            "/audit dispose A-01 follow-up --note \"Next sprint\"",
            &["follow-up-blocking", "A-01"],
        ),
        row(
            "override not above the runs used",
            Run("needs_remediation"),
            "maint",
            "/audit override --budget 1 --note \"One is enough\"",
            &["override-too-low", "does not exceed"],
        ),
    ]
}

/// Runs one row on a fresh repository; returns the reply.
async fn refuse(r: &Row) -> String {
    let mut l = Loop::start(42).await;
    set_up(&mut l, r.setup).await;
    let before = l.mark();
    let replies = l.replies(r.pr).len();
    let issues = l.gh.state().issues.len();
    l.comment(r.pr, r.login, &r.comment).await;
    let after = l.mark();
    let new: Vec<String> = l.replies(r.pr).into_iter().skip(replies).collect();
    assert_eq!(new.len(), 1, "{}: one reply: {new:#?}", r.name);
    let reply = new[0].clone();
    assert!(
        reply.starts_with("auditloop: refused"),
        "{}: {reply}",
        r.name
    );
    for fragment in r.expect {
        assert!(
            reply.contains(fragment),
            "{}: {fragment:?} missing from {reply}",
            r.name
        );
    }
    assert_eq!(after, before, "{}: nothing recorded, no +1", r.name);
    assert_eq!(l.gh.state().issues.len(), issues, "{}: no issue", r.name);
    reply
}

#[tokio::test]
async fn every_refusal_records_nothing() {
    let rows = rows();
    let mut names = std::collections::BTreeSet::new();
    let mut failed = Vec::new();
    for r in rows {
        assert!(names.insert(r.name), "duplicate row {}", r.name);
        // Each row on its own task, so that one failing row still lets the others report.
        let name = r.name;
        if tokio::spawn(async move { refuse(&r).await }).await.is_err() {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "rows failed: {failed:#?}");
}

#[tokio::test]
async fn representative_refusal_replies() {
    let pick = [
        "unknown command, with a suggestion",
        "a reader reports",
        "schema shape, with its path",
        "stale candidate",
        "follow-up on a blocking finding",
    ];
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| pick.contains(&r.name))
        .collect();
    assert_eq!(rows.len(), pick.len(), "every picked row exists");
    for r in &rows {
        let reply = refuse(r).await;
        let name = format!("loop_refusal_{}", r.name.replace([' ', ',', ':'], "_"));
        insta::assert_snapshot!(name, reply);
    }
}
