//! Hostile input, case by case, each with its expected answer (SECURITY.md lists them):
//! the webhook intake (signatures, replays, sizes, nesting, encodings, unknown and null
//! fields), commands (hostile text in every field a user writes, permissions, logins that
//! differ in case or by a look-alike character, self-approval, authorities), rules and
//! keys in the PR head, and every receipt forgery.

use crate::support;

use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1, SHA2};
use support::deliveries::{pr_comment, pull_request, sign};
use support::harness::{TestApp, SECRET};

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

/// One intake case: the raw request and the status it must get.
struct Intake {
    name: &'static str,
    event: Option<&'static str>,
    id: Option<String>,
    body: Vec<u8>,
    signature: Sig,
    expect: u16,
}

enum Sig {
    Good,
    None,
    Wrong,
    Truncated,
    Upper,
    Sha1Only,
    Sha1Prefix,
    OtherBody,
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

fn with_field(mut v: Value, at: &[&str], field: &str, raw: &str) -> Vec<u8> {
    let mut target = &mut v;
    for k in at {
        target = &mut target[*k];
    }
    target[field] = json!("__RAW__");
    serde_json::to_string(&v)
        .unwrap()
        .replace("\"__RAW__\"", raw)
        .into_bytes()
}

fn intake_cases() -> Vec<Intake> {
    let comment = |body: &str| serde_json::to_vec(&pr_comment(42, "reader", body)).unwrap();
    let help = comment("/audit help");
    let mut cases = Vec::new();
    let mut n = 0;
    let mut case = |name, event, body: Vec<u8>, signature, expect| {
        n += 1;
        cases.push(Intake {
            name,
            event,
            id: Some(format!("hostile-{n}")),
            body,
            signature,
            expect,
        });
    };
    case(
        "valid signature",
        Some("issue_comment"),
        help.clone(),
        Sig::Good,
        200,
    );
    case(
        "missing signature",
        Some("issue_comment"),
        help.clone(),
        Sig::None,
        401,
    );
    case(
        "wrong secret",
        Some("issue_comment"),
        help.clone(),
        Sig::Wrong,
        401,
    );
    case(
        "truncated signature",
        Some("issue_comment"),
        help.clone(),
        Sig::Truncated,
        401,
    );
    // The same HMAC in upper-case hex is the same MAC: accepted.
    case(
        "upper-case hex",
        Some("issue_comment"),
        help.clone(),
        Sig::Upper,
        200,
    );
    case(
        "only the SHA-1 header",
        Some("issue_comment"),
        help.clone(),
        Sig::Sha1Only,
        401,
    );
    case(
        "sha1= in the SHA-256 header",
        Some("issue_comment"),
        help.clone(),
        Sig::Sha1Prefix,
        401,
    );
    case(
        "signature of another body",
        Some("issue_comment"),
        help.clone(),
        Sig::OtherBody,
        401,
    );
    case(
        "25 MiB + 1",
        Some("issue_comment"),
        vec![b' '; 25 * 1024 * 1024 + 1],
        Sig::Good,
        413,
    );
    case(
        "not JSON",
        Some("issue_comment"),
        b"not json".to_vec(),
        Sig::Good,
        400,
    );
    case(
        "invalid UTF-8 in a string",
        Some("issue_comment"),
        String::from_utf8_lossy(&help)
            .replace("/audit help", "/audit help \u{FFFD}")
            .into_bytes()
            .into_iter()
            .map(|b| if b == 0xBD { 0xFF } else { b })
            .collect(),
        Sig::Good,
        400,
    );
    case(
        "invalid UTF-8 outside strings",
        Some("issue_comment"),
        [&help[..help.len() - 1], b"\xff}"].concat(),
        Sig::Good,
        400,
    );
    // Valid JSON nested far deeper than any payload: the fields we do not read are skipped
    // without recursion, so the delivery is handled (a help reply each) and nothing
    // overflows a stack.
    case(
        "100,000 levels of nesting in the payload",
        Some("issue_comment"),
        with_field(
            pr_comment(42, "reader", "/audit help"),
            &[],
            "deep",
            &nested(100_000),
        ),
        Sig::Good,
        200,
    );
    case(
        "nesting inside the comment object",
        Some("issue_comment"),
        with_field(
            pr_comment(42, "reader", "/audit help"),
            &["comment"],
            "deep",
            &nested(5_000),
        ),
        Sig::Good,
        200,
    );
    case(
        "nesting in an unknown event",
        Some("star"),
        nested(100_000).into_bytes(),
        Sig::Good,
        200,
    );
    case(
        "nesting where a field is read",
        Some("issue_comment"),
        with_field(
            pr_comment(42, "reader", "/audit help"),
            &["comment"],
            "body",
            &nested(100_000),
        ),
        Sig::Good,
        400,
    );
    case("missing X-GitHub-Event", None, help.clone(), Sig::Good, 400);
    case(
        "unknown event",
        Some("star"),
        br#"{"action":"created"}"#.to_vec(),
        Sig::Good,
        200,
    );
    case(
        "future event",
        Some("sub_issues"),
        br#"{"action":"anything"}"#.to_vec(),
        Sig::Good,
        200,
    );
    let mut stacked = pull_request("opened", 42, SHA1);
    stacked["action"] = json!("stacked");
    case(
        "unknown pull_request action",
        Some("pull_request"),
        serde_json::to_vec(&stacked).unwrap(),
        Sig::Good,
        200,
    );
    let mut pinned = pr_comment(42, "reader", "/audit help");
    pinned["action"] = json!("pinned");
    case(
        "unknown issue_comment action",
        Some("issue_comment"),
        serde_json::to_vec(&pinned).unwrap(),
        Sig::Good,
        200,
    );
    let mut null_body = pull_request("opened", 42, SHA1);
    null_body["pull_request"]["body"] = Value::Null;
    case(
        "null PR body",
        Some("pull_request"),
        serde_json::to_vec(&null_body).unwrap(),
        Sig::Good,
        200,
    );
    let mut null_comment = pr_comment(42, "reader", "x");
    null_comment["comment"]["body"] = Value::Null;
    case(
        "null comment body",
        Some("issue_comment"),
        serde_json::to_vec(&null_comment).unwrap(),
        Sig::Good,
        200,
    );
    let mut null_installation = pr_comment(42, "reader", "/audit help");
    null_installation["installation"] = Value::Null;
    case(
        "null installation",
        Some("issue_comment"),
        serde_json::to_vec(&null_installation).unwrap(),
        Sig::Good,
        200,
    );
    let mut null_branch = pr_comment(42, "reader", "/audit help");
    null_branch["repository"]["default_branch"] = Value::Null;
    case(
        "null default branch",
        Some("issue_comment"),
        serde_json::to_vec(&null_branch).unwrap(),
        Sig::Good,
        200,
    );
    let mut on_issue = pr_comment(42, "reader", "/audit help");
    on_issue["issue"]
        .as_object_mut()
        .unwrap()
        .remove("pull_request");
    case(
        "a command on a plain issue",
        Some("issue_comment"),
        serde_json::to_vec(&on_issue).unwrap(),
        Sig::Good,
        200,
    );
    let mut edited = pr_comment(42, "reader", "/audit help");
    edited["action"] = json!("edited");
    case(
        "an edited command",
        Some("issue_comment"),
        serde_json::to_vec(&edited).unwrap(),
        Sig::Good,
        200,
    );
    let mut check = support::checks::check_run("completed", "ci", SHA1, None);
    check["check_run"]["conclusion"] = Value::Null;
    case(
        "null check conclusion",
        Some("check_run"),
        serde_json::to_vec(&check).unwrap(),
        Sig::Good,
        200,
    );
    let mut no_pr_head = pull_request("opened", 42, SHA1);
    no_pr_head["pull_request"]["head"]["sha"] = json!("../../../etc");
    case(
        "a head that is not a SHA",
        Some("pull_request"),
        serde_json::to_vec(&no_pr_head).unwrap(),
        Sig::Good,
        200,
    );
    cases
}

#[tokio::test]
async fn intake_cases_get_their_answers() {
    let l = Loop::start(42).await;
    let cases = intake_cases();
    assert!(cases.len() >= 28);
    let mut wrong = Vec::new();
    for c in &cases {
        let signature = match c.signature {
            Sig::Good => Some(sign(SECRET, &c.body)),
            Sig::None | Sig::Sha1Only => None,
            Sig::Wrong => Some(sign("another secret", &c.body)),
            Sig::Truncated => Some(sign(SECRET, &c.body)[..40].to_owned()),
            Sig::Upper => Some(format!(
                "sha256={}",
                sign(SECRET, &c.body)[7..].to_uppercase()
            )),
            Sig::Sha1Prefix => Some(sign(SECRET, &c.body).replacen("sha256=", "sha1=", 1)),
            Sig::OtherBody => Some(sign(SECRET, b"{}")),
        };
        let mut req = l
            .app
            .http
            .post(l.app.url("/webhook"))
            .header("content-type", "application/json");
        if let Some(e) = c.event {
            req = req.header("x-github-event", e);
        }
        if let Some(id) = &c.id {
            req = req.header("x-github-delivery", id.as_str());
        }
        if let Some(s) = signature {
            req = req.header("x-hub-signature-256", s);
        }
        if matches!(c.signature, Sig::Sha1Only) {
            req = req.header(
                "x-hub-signature",
                "sha1=0123456789abcdef0123456789abcdef01234567",
            );
        }
        let status = req
            .body(c.body.clone())
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        if status != c.expect {
            wrong.push(format!("{}: got {status}, want {}", c.name, c.expect));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // Still serving: nothing overflowed a stack.
    assert_eq!(l.app.get_text("/healthz").await.0, 200);
    // A body streamed past 25 MiB with no declared length is cut off too.
    let chunks = (0..26).map(|_| Ok::<_, std::io::Error>(vec![b' '; 1024 * 1024]));
    let r = l
        .app
        .http
        .post(l.app.url("/webhook"))
        .header("x-github-event", "issue_comment")
        .header("x-github-delivery", "hostile-stream")
        .header("x-hub-signature-256", "sha256=00")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413, "streamed 26 MiB");
    // Only the helps with a good signature were answered: cases 1 and 5, the two deeply
    // nested ones, and the one whose default branch is null.
    let replies = l.gh.comments_on(42);
    assert_eq!(replies.len(), 5, "{replies:#?}");
}

#[tokio::test]
async fn a_replayed_delivery_has_no_second_effect() {
    let mut l = Loop::start(42).await;
    l.with_run("needs_remediation").await;
    let payload = pr_comment(42, "maint", "/audit veto replayed-key --reason \"r\"");
    for _ in 0..3 {
        assert_eq!(
            l.app
                .deliver("issue_comment", "replayed", &payload)
                .await
                .status(),
            200
        );
    }
    assert_eq!(l.events_of("AUD-1", "replayed"), 1);
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
            "alice",
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
            Want::Refused("needs &#96;maintain&#96; permission"),
        ),
        (
            "veto by triage",
            "tria",
            "/audit veto k1 --reason r".into(),
            Want::Refused("needs &#96;maintain&#96; permission"),
        ),
        (
            "veto by a reader",
            "reader",
            "/audit veto k1 --reason r".into(),
            Want::Refused("needs &#96;maintain&#96; permission"),
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
            Want::Refused("needs &#96;maintain&#96; permission"),
        ),
        (
            "dispose by triage",
            "tria",
            "/audit dispose A-01 fix --note n".into(),
            Want::Refused("needs &#96;maintain&#96; permission"),
        ),
        (
            "report by a reader",
            "reader",
            report_comment(&report("AUD-1", 42, SHA1, "ci-run-9", "needs_remediation")),
            Want::Refused("needs &#96;write&#96; permission"),
        ),
        (
            "baseline by a reader",
            "reader",
            "/audit baseline".into(),
            Want::Refused("needs &#96;write&#96; permission"),
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
            "alice",
            report_comment(&other_authority),
            Want::Refused("maint"),
        ),
        (
            "a decision record that does not exist",
            "alice",
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
        &gate["output"]["summary"].as_str().unwrap().to_owned(),
        "check run summary",
    );
    is_escaped(
        &gate["output"]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
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

fn key(n: u8) -> ed25519_dalek::SigningKey {
    ed25519_dalek::SigningKey::from_bytes(&[n; 32])
}

/// A report signed by `signer` under key id `key_id` for `repo`, issued at `issued`.
fn signed(
    r: Value,
    signer: u8,
    key_id: &str,
    repo: &str,
    issued: chrono::DateTime<chrono::Utc>,
    receipt: &str,
) -> Value {
    let parsed = auditloop::engine::report::parse_report(&r.to_string())
        .unwrap()
        .report;
    let out = auditloop::engine::receipt::sign_report(
        parsed,
        &key(signer),
        key_id,
        &auditloop::ids::RepoName::new(repo.to_owned()).unwrap(),
        issued,
        chrono::Duration::hours(1),
        receipt.to_owned(),
    );
    serde_json::to_value(&out).unwrap()
}

#[tokio::test]
async fn receipt_forgeries_are_refused_by_rule() {
    use auditloop::engine::config::Assurance;
    use auditloop::engine::receipt::TrustStore;
    let trust = TrustStore::with_keys([("ci".to_owned(), key(9).verifying_key())]);
    let mut l = Loop::start_full(42, trust, Assurance::Standard).await;
    l.gh.set_file(".github/auditloop.yml", "assurance: hardened\n");
    l.gh.add_pull(43, SHA2, "Other.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let now = chrono::Utc::now() - chrono::Duration::minutes(1);
    let repo = support::deliveries::REPO;
    let base = |inv: &str| report("AUD-1", 42, SHA1, inv, "needs_remediation");
    let mut flipped = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    let sig = flipped["receipt"]["signature"].as_str().unwrap().to_owned();
    let mut bytes =
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, sig).unwrap();
    bytes[3] ^= 0x80;
    flipped["receipt"]["signature"] = json!(base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        bytes
    ));
    let mut changed = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    changed["assessment"] = json!("Changed after signing.");
    let mut other_pr = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    other_pr["work_unit"] = json!("pr:43");
    let mut other_commit = signed(base("r-1"), 9, "ci", repo, now, "rc-00001");
    other_commit["receipt"]["candidate_artifact"] = json!(format!("commit:{SHA2}"));
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "no receipt under hardened assurance",
            base("r-1"),
            "hardened",
        ),
        (
            "a key the operator does not trust",
            signed(base("r-1"), 5, "mallory", repo, now, "rc-00001"),
            "receipt-unknown-key",
        ),
        (
            "the trusted key id, another key",
            signed(base("r-1"), 5, "ci", repo, now, "rc-00001"),
            "receipt-signature",
        ),
        ("a flipped signature byte", flipped, "receipt-signature"),
        (
            "the report changed after signing",
            changed,
            "receipt-digest",
        ),
        ("rebound to another PR", other_pr, "receipt-"),
        ("rebound to another commit", other_commit, "receipt-"),
        (
            "rebound to another repository",
            signed(base("r-1"), 9, "ci", "octo-org/other", now, "rc-00001"),
            "receipt-repository",
        ),
        (
            "expired",
            signed(
                base("r-1"),
                9,
                "ci",
                repo,
                now - chrono::Duration::hours(3),
                "rc-00001",
            ),
            "receipt-expired",
        ),
        (
            "issued in the future",
            signed(
                base("r-1"),
                9,
                "ci",
                repo,
                now + chrono::Duration::hours(2),
                "rc-00001",
            ),
            "receipt-",
        ),
    ];
    let before = l.log_len();
    let mut wrong = Vec::new();
    for (n, (name, bad, rule)) in cases.iter().enumerate() {
        // Anyone may submit a signed report; the unsigned one comes from a writer.
        let login = if n == 0 { "alice" } else { "mallory" };
        l.comment(42, login, &report_comment(bad)).await;
        let reply = l.last_reply(42);
        if !reply.starts_with("auditloop: refused")
            || !reply.contains(rule)
            || l.log_len() != before
        {
            wrong.push(format!("{name}: want {rule}: {reply}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // A good one is taken; the same receipt id again is a replay.
    l.comment(
        42,
        "mallory",
        &report_comment(&signed(base("r-1"), 9, "ci", repo, now, "rc-00001")),
    )
    .await;
    assert_eq!(l.log_len(), before + 1, "{}", l.last_reply(42));
    l.comment(
        42,
        "mallory",
        &report_comment(&signed(base("r-2"), 9, "ci", repo, now, "rc-00001")),
    )
    .await;
    assert!(
        l.last_reply(42).contains("receipt-replayed"),
        "{}",
        l.last_reply(42)
    );
    assert_eq!(l.log_len(), before + 1);
    let _ = TestApp::url;
}
