//! Hostile input at the webhook intake, case by case, each with its expected answer
//! (SECURITY.md lists them): signatures, replays, sizes, nesting, encodings, unknown
//! events and actions, and `null` where GitHub sometimes sends it.

use crate::support;

use serde_json::{json, Value};
use support::audit::{Loop, SHA1};
use support::deliveries::{pr_comment, pull_request, sign};
use support::harness::SECRET;

pub fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
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
