//! Secrets never reach logs or /metrics, even at trace level and on failures.

use crate::support;

use std::io::Write;
use std::sync::{Arc, Mutex};

use support::deliveries::pull_request;
use support::fake::FakeGitHub;
use support::harness::{app_key, TestApp, SECRET};

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_secret_appears_in_logs_or_metrics() {
    let capture = Capture::default();
    let writer = capture.clone();
    tracing_subscriber::fmt()
        .with_env_filter("trace")
        .json()
        .with_writer(move || writer.clone())
        .init();

    let gh = FakeGitHub::start().await;
    let app = TestApp::start(&gh).await;
    app.deliver(
        "pull_request",
        "d-s1",
        &pull_request("opened", 1, "ec26c3e57ca3a959ca5aad62de7213c562f8c821"),
    )
    .await;
    gh.fail_next("POST", "/check-runs", 500, &[]);
    app.deliver(
        "pull_request",
        "d-s2",
        &pull_request("opened", 2, "ec26c3e57ca3a959ca5aad62de7213c562f8c821"),
    )
    .await;
    let bad = app
        .post_raw("pull_request", "d-s3", b"{}".to_vec(), Some("sha256=00"))
        .await;
    assert_eq!(bad.status(), 401);
    // The paths added for hostile and damaged states: refusals, status, a forged gate's
    // warning, claims, a damaged records branch, paged listings.
    let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
    gh.add_pull(7, head, "Closes #12", "alice");
    gh.set_permission("reader", "read");
    gh.set_permission("maint", "maintain");
    gh.add_foreign_check(head, "audit-gate", "mallory-ci", "success");
    for (n, (login, body)) in [
        ("reader", "/audit veto k --reason \"no\""),
        ("reader", "/audit status"),
        ("reader", "/audit gate"),
        ("alice", "/audit new --goal g --oracle o --evidence e"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("d-s-new-{n}");
        app.deliver(
            "issue_comment",
            &id,
            &support::deliveries::pr_comment(7, login, body),
        )
        .await;
    }
    gh.commit_files(
        support::deliveries::REPO,
        "auditloop-records",
        &[("records/AUD-1.json", "{")],
        "oops",
    );
    for (n, body) in [
        "/audit override --budget 9 --note n",
        "/audit status",
        "/audit gate",
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("d-s-damaged-{n}");
        app.deliver(
            "issue_comment",
            &id,
            &support::deliveries::pr_comment(7, "maint", body),
        )
        .await;
    }
    let replies = gh.comments_on(7).join("\n");
    assert!(replies.contains("auditloop: warning"), "{replies}");
    assert!(replies.contains("is damaged"), "{replies}");
    let outputs: String = gh
        .state()
        .check_runs
        .iter()
        .map(|c| c.body.to_string())
        .collect();
    let refs: String = gh
        .state()
        .git
        .values()
        .flat_map(|g| g.refs.keys().cloned())
        .collect();
    let (_, metrics) = app.get_text("/metrics").await;

    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("d-s1"), "logs were captured");
    let key = app_key();
    let key_line = key.lines().nth(1).unwrap();
    for (what, text) in [
        ("logs", &logs),
        ("metrics", &metrics),
        ("replies", &replies),
        ("check runs", &outputs),
        ("claim refs", &refs),
    ] {
        assert!(!text.contains(SECRET), "webhook secret in {what}");
        assert!(!text.contains(key_line), "private key in {what}");
        assert!(
            !text.contains("ghs_faketoken"),
            "installation token in {what}"
        );
    }
}
