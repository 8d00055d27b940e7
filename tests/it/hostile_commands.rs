//! Hostile commands, case by case, each with its expected answer (SECURITY.md lists
//! them): hostile text in every field a user writes, maintainer commands from lesser
//! permissions, logins that differ in case or by a look-alike character, self-approval,
//! authorities that do not hold, and rules or keys placed in the PR head.

use crate::hostile_intake::nested;
use crate::support;

use serde_json::json;
use support::audit::{report, report_comment, Loop, SHA1};

/// Markers, table pipes, HTML, mentions and links at once.
const HOSTILE: &str = "<!-- auditloop:rounds:end --> x | y | z <script>alert(1)</script> @mallory @octo-org/admins [x](https://evil.example) --> <img src=x onerror=1>";

fn is_escaped(text: &str, what: &str) {
    assert!(!text.contains("<script"), "{what}: raw HTML: {text}");
    assert!(!text.contains("<img"), "{what}: raw HTML: {text}");
    assert!(
        !text.contains(" @mallory"),
        "{what}: a live mention: {text}"
    );
    assert!(
        !text.contains("[x](https://evil"),
        "{what}: a live link: {text}"
    );
    for marker in ["rounds", "waivers", "residual"] {
        let end = format!("<!-- auditloop:{marker}:end -->");
        assert!(
            text.matches(end.as_str()).count() <= 1,
            "{what}: a forged {marker} marker: {text}"
        );
    }
}

#[derive(Debug)]
enum Want {
    /// Carried out: a `+1`, no refusal.
    Done,
    /// Refused, saying this.
    Refused(&'static str),
    /// Not acted on at all: no reply, no reaction, nothing recorded.
    Ignored,
}

#[tokio::test]
async fn command_cases_get_their_answers() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    l.gh.set_permission("tria", "triage");
    l.gh.set_permission("wendy", "write");
    l.gh.set_permission("ALICE", "maintain");
    l.gh.set_permission("a1ice", "maintain");
    l.gh.set_permission("\u{430}lice", "maintain");
    let mut claim = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    claim["findings"][0]["claim"] = json!(HOSTILE);
    claim["assessment"] = json!(HOSTILE);
    // A certifying report whose accepted limitation cites an authority that does not hold.
    let certifying = |inv: &str, authority: &str| {
        let mut r = report("AUD-1", 42, SHA1, inv, "needs_remediation");
        r["verdict"] = json!("certified_with_accepted_limitations");
        for f in r["findings"].as_array_mut().unwrap() {
            f["blocking"] = json!(false);
        }
        r["limitations"][0]["authority"] = json!(authority);
        r
    };
    let other_authority = certifying("ci-run-3", "human: maint");
    let no_decision = certifying("ci-run-4", "D-99");
    let deep = format!("/audit report\n\n```json\n{}\n```\n", nested(30_000));
    let long_goal = format!(
        "/audit new --goal \"{}\" --oracle o --evidence e",
        "g".repeat(65_400)
    );
    let hostile = |cmd: &str| cmd.replace("{H}", &HOSTILE.replace('"', "'"));
    let cases: Vec<(&str, &str, String, Want)> = vec![
        (
            "override with a hostile note",
            "maint",
            hostile("/audit override --budget 9 --note \"{H}\""),
            Want::Done,
        ),
        (
            "veto with a hostile reason",
            "maint",
            hostile("/audit veto hostile-key --reason \"{H}\""),
            Want::Done,
        ),
        (
            "waive with a hostile reason",
            "maint",
            hostile("/audit waive A-02 --basis triage-threshold --reason \"{H}\""),
            Want::Done,
        ),
        (
            "dispose with a hostile note",
            "maint",
            hostile("/audit dispose A-02 follow-up --note \"{H}\""),
            Want::Done,
        ),
        (
            "resolve with a hostile note, nothing to resolve",
            "maint",
            hostile("/audit resolve --note \"{H}\""),
            Want::Refused(""),
        ),
        (
            "a report with hostile claim and assessment",
            "auditor",
            report_comment(&claim),
            Want::Done,
        ),
        (
            "a hostile unknown command",
            "alice",
            hostile("/audit {H}"),
            Want::Refused(""),
        ),
        (
            "a hostile finding key",
            "maint",
            "/audit veto \"<!--x-->\" --reason r".to_owned(),
            Want::Refused(""),
        ),
        (
            "a hostile flag",
            "maint",
            hostile("/audit veto k --{H} x"),
            Want::Refused(""),
        ),
        (
            "a report nested 30,000 deep",
            "alice",
            deep,
            Want::Refused(""),
        ),
        (
            "a 65,536-character command",
            "alice",
            long_goal,
            Want::Refused(""),
        ),
        (
            "veto by a writer",
            "wendy",
            "/audit veto k1 --reason r".into(),
            Want::Refused("needs `maintain` permission"),
        ),
        (
            "veto by triage",
            "tria",
            "/audit veto k1 --reason r".into(),
            Want::Refused("needs `maintain` permission"),
        ),
        (
            "veto by a reader",
            "reader",
            "/audit veto k1 --reason r".into(),
            Want::Refused("needs `maintain` permission"),
        ),
        (
            "veto by no access",
            "nobody",
            "/audit veto k1 --reason r".into(),
            Want::Refused("has no access"),
        ),
        (
            "override by a writer",
            "wendy",
            "/audit override --budget 12 --note n".into(),
            Want::Refused("needs `maintain` permission"),
        ),
        (
            "dispose by triage",
            "tria",
            "/audit dispose A-01 fix --note n".into(),
            Want::Refused("needs `maintain` permission"),
        ),
        (
            "report by a reader",
            "reader",
            report_comment(&report("AUD-1", 42, SHA1, "ci-run-9", "needs_remediation")),
            Want::Refused("needs `write` permission"),
        ),
        (
            "baseline by a reader",
            "reader",
            "/audit baseline".into(),
            Want::Refused("needs `write` permission"),
        ),
        (
            "the author's own waiver, login in other case",
            "ALICE",
            "/audit waive A-01 --basis triage-threshold --reason r".into(),
            Want::Refused("author may not"),
        ),
        (
            "the author's own veto, login in other case",
            "ALICE",
            "/audit veto k2 --reason r".into(),
            Want::Refused("author may not"),
        ),
        (
            "a look-alike login (digit)",
            "a1ice",
            "/audit veto k3 --reason r".into(),
            Want::Done,
        ),
        (
            "a look-alike login (Cyrillic)",
            "\u{430}lice",
            "/audit veto k4 --reason r".into(),
            Want::Ignored,
        ),
        (
            "a limitation authority naming someone else",
            "auditor",
            report_comment(&other_authority),
            Want::Refused("maint"),
        ),
        (
            "a decision record that does not exist",
            "auditor",
            report_comment(&no_decision),
            Want::Refused("D-99"),
        ),
        (
            "status by anyone",
            "nobody",
            "/audit status".into(),
            Want::Done,
        ),
    ];
    let mut wrong = Vec::new();
    for (name, login, body, want) in &cases {
        let before = l.mark();
        let replies = l.gh.comments_on(42).len();
        l.comment(42, login, body).await;
        let after = l.mark();
        let new: Vec<String> = l.gh.comments_on(42)[replies..].to_vec();
        let refusal = new.iter().find(|c| c.starts_with("auditloop: refused"));
        let ok = match want {
            Want::Done => refusal.is_none() && after.reactions == before.reactions + 1,
            Want::Refused(words) => {
                refusal.is_some_and(|r| r.contains(words)) && after.commits == before.commits
            }
            Want::Ignored => new.is_empty() && after == before,
        };
        if !ok {
            wrong.push(format!("{name}: want {want:?}, got {new:#?}"));
        }
        for c in &new {
            is_escaped(c, name);
            assert!(c.chars().count() <= 65_536, "{name}: reply too long");
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    let body = l.gh.pull_body(42);
    is_escaped(&body, "PR body");
    let gate = l.gate(SHA1);
    is_escaped(
        gate["output"]["summary"].as_str().unwrap(),
        "check run summary",
    );
    is_escaped(
        gate["output"]["text"].as_str().unwrap_or_default(),
        "check run text",
    );
    assert_eq!(gate["conclusion"], "failure");
}

#[tokio::test]
async fn rules_in_the_pr_head_change_nothing() {
    let mut l = Loop::start(42).await;
    l.with_run("certified").await;
    assert_eq!(l.gate(SHA1)["conclusion"], "success");
    // The PR's own branch tries to relax the rules and trust its own key.
    l.gh.set_head_file(
        ".github/auditloop.yml",
        "work_unit_audit: disabled\nallow_self_approval: true\n",
    );
    l.gh.set_head_file(
        ".github/auditloop-trust.toml",
        "[keys]\nmallory = \"AAAA\"\n",
    );
    l.gh.set_permission("alice", "maintain");
    l.comment(42, "alice", "/audit veto self-key --reason r")
        .await;
    assert!(
        l.last_reply(42).contains("author may not"),
        "{}",
        l.last_reply(42)
    );
    l.comment(42, "reader", "/audit gate").await;
    assert_eq!(
        l.gate(SHA1)["conclusion"],
        "success",
        "still gated by the default branch's rules"
    );
}
