//! Reconcile against the fake GitHub through the real octocrab client: a delivery whose
//! records commit landed but whose views failed, never redelivered, is repaired by the
//! sweep; a current PR is left alone; the sweep's calls are bounded and counted in
//! `/metrics`; `serve` sweeps once at start unless disabled.

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use auditloop::app::{AuditApp, ReconcileLimits};
use auditloop::github::{GitHubApp, GitHubSettings, RetryPolicy};
use auditloop::metrics::Metrics;
use support::audit::{report, report_comment, Loop, BRANCH, SHA1};
use support::deliveries::{pr_comment, REPO};

fn app_for(l: &Loop) -> AuditApp {
    let gh = GitHubApp::new(
        GitHubSettings {
            app_id: 1,
            private_key: auditloop::github::PrivateKey(secrecy::SecretString::from(
                support::harness::app_key(),
            )),
            api_url: l.gh.api_url(),
            timeout: Duration::from_secs(5),
            retry: RetryPolicy {
                max_attempts: 3,
                max_wait: Duration::from_secs(3),
                backoff: Duration::from_millis(10),
            },
            write_gap: Duration::ZERO,
        },
        Metrics::new(),
    )
    .expect("client");
    AuditApp::new(Arc::new(gh))
}

/// PR 42 with a record and one run, every view current.
async fn with_run() -> Loop {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    l.comment(
        42,
        "auditor",
        &report_comment(&report("AUD-1", 42, SHA1, "ci-1", "needs_remediation")),
    )
    .await;
    l
}

fn head(l: &Loop) -> String {
    l.gh.branch_head(REPO, BRANCH).expect("a records branch")
}

const WAIVE: &str =
    "/audit waive A-02 --basis triage-threshold --reason \"Cosmetic, below the triage bar\"";

/// The waiver's records commit lands, then the PR-body update (with the +1) fails: the delivery answers
/// 5xx and is never redelivered, so body and check run are left behind the record. The two
/// views are published together, so both updates fail.
async fn views_left_behind(l: &mut Loop) {
    l.gh.fail_next("POST", "/graphql/updatePullRequest", 500, &[]);
    l.gh.fail_next("PATCH", "/check-runs/", 500, &[]);
    let r = l
        .app
        .deliver("issue_comment", "lost-1", &pr_comment(42, "maint", WAIVE))
        .await;
    assert!(r.status().is_server_error(), "{}", r.status());
    assert!(l
        .record_text("AUD-1")
        .contains("Cosmetic, below the triage bar"));
    assert!(!l
        .gh
        .pull_body(42)
        .contains("Cosmetic, below the triage bar"));
    assert_ne!(l.gate(SHA1)["external_id"], head(l).as_str());
}

#[tokio::test]
async fn a_pr_whose_views_fell_behind_its_record_is_republished_once() {
    let mut l = with_run().await;
    let app = app_for(&l);

    // Every view current: the sweep looks and changes nothing.
    let writes = |l: &Loop| {
        l.gh.requests()
            .iter()
            .filter(|r| r.is_write())
            .filter(|r| !r.path.ends_with("/access_tokens"))
            .count()
    };
    let before = writes(&l);
    let report = app.reconcile(ReconcileLimits::default()).await.unwrap();
    assert_eq!(report.installations, 1);
    assert_eq!(report.repositories, 1);
    assert_eq!(report.checked, 1);
    assert!(report.republished.is_empty(), "{report:?}");
    assert_eq!(writes(&l), before, "a current PR costs no write");

    views_left_behind(&mut l).await;
    let runs_before = l.gh.gate_runs(SHA1).len();
    let stale = l.gate(SHA1);
    let report = app.reconcile(ReconcileLimits::default()).await.unwrap();
    assert_eq!(report.republished, [format!("{REPO}#42")]);
    assert!(report.failed.is_empty(), "{report:?}");
    assert!(
        report.calls > 0 && report.calls <= 20,
        "calls: {}",
        report.calls
    );
    assert!(l
        .gh
        .pull_body(42)
        .contains("Cosmetic, below the triage bar"));
    let gate = l.gate(SHA1);
    assert_eq!(gate["external_id"], head(&l).as_str());
    let summary = |run: &serde_json::Value| {
        run["output"]["summary"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        summary(&stale).contains("history of 2 events"),
        "{}",
        summary(&stale)
    );
    assert!(
        summary(&gate).contains("history of 3 events"),
        "{}",
        summary(&gate)
    );
    assert_eq!(l.gh.gate_runs(SHA1).len(), runs_before + 1);

    // Repaired: the next sweep leaves it alone again.
    let before = writes(&l);
    let report = app.reconcile(ReconcileLimits::default()).await.unwrap();
    assert!(report.republished.is_empty(), "{report:?}");
    assert_eq!(writes(&l), before);
}

#[tokio::test]
async fn another_prs_commit_does_not_make_a_current_view_stale() {
    let mut l = with_run().await;
    // A later records commit that leaves AUD-1 as it was (another PR's record): the run
    // names an older commit, but the one AUD-1 last changed in.
    l.gh.add_pull(43, &"3".repeat(40), "Other work.\n\nCloses #13\n", "alice");
    l.pull_event("opened", 43, &"3".repeat(40)).await;
    l.comment(43, "alice", "/audit new --goal \"Other goal\" --oracle \"Other oracle\" --covered-tasks \"#13\" --evidence \"CI green\"").await;
    assert_ne!(l.gate(SHA1)["external_id"], head(&l).as_str());
    let report = app_for(&l)
        .reconcile(ReconcileLimits::default())
        .await
        .unwrap();
    assert_eq!(report.checked, 2, "{report:?}");
    assert!(report.republished.is_empty(), "{report:?}");
}

#[tokio::test]
async fn the_call_budget_bounds_a_sweep_and_the_sweep_is_counted_in_metrics() {
    let mut l = with_run().await;
    views_left_behind(&mut l).await;
    let app = app_for(&l);
    let metrics = Metrics::new();
    let tight = ReconcileLimits {
        max_calls: 2,
        max_pages: 10,
    };
    let report = auditloop::reconcile::sweep_once(&app, tight, &metrics)
        .await
        .unwrap();
    assert!(report.budget_spent);
    assert!(report.republished.is_empty());
    assert!(report.calls <= 3, "{report:?}");
    let report = auditloop::reconcile::sweep_once(&app, ReconcileLimits::default(), &metrics)
        .await
        .unwrap();
    assert_eq!(report.republished.len(), 1);
    let text = metrics.render();
    assert!(
        text.contains("auditloop_reconcile_sweeps_total{outcome=\"budget_spent\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("auditloop_reconcile_sweeps_total{outcome=\"ok\"} 1"),
        "{text}"
    );
    assert!(
        text.contains("auditloop_reconcile_republished_total 1"),
        "{text}"
    );
    let calls: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("auditloop_reconcile_github_calls_total "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(calls >= report.calls && calls > 0);
}

/// Serves with the reconcile interval set as operators do; the installation listings seen.
async fn installation_listings_while_serving(interval: &str) -> usize {
    let l = Loop::start(42).await;
    let key = support::harness::app_key();
    let api = l.gh.api_url();
    let env = move |name: &str| match name {
        "AUDITLOOP_APP_ID" => Some("1".to_owned()),
        "AUDITLOOP_PRIVATE_KEY" => Some(key.clone()),
        "AUDITLOOP_WEBHOOK_SECRET" => Some("s".to_owned()),
        "AUDITLOOP_GITHUB_API_URL" => Some(api.clone()),
        "AUDITLOOP_LISTEN" => Some("127.0.0.1:0".to_owned()),
        "AUDITLOOP_REDELIVER_INTERVAL" => Some("0".to_owned()),
        "AUDITLOOP_RECONCILE_INTERVAL" => Some(interval.to_owned()),
        _ => None,
    };
    let cfg = auditloop::operator_config::ServeConfig::resolve(
        &auditloop::operator_config::ServeArgs::default(),
        &env,
        &|_| Err(std::io::Error::other("no file")),
    )
    .unwrap();
    let listed = |l: &Loop| {
        l.gh.requests()
            .iter()
            .filter(|r| r.path.ends_with("/app/installations"))
            .count()
    };
    let server = tokio::spawn(auditloop::cli::serve::start(cfg));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while listed(&l) == 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.abort();
    listed(&l)
}

#[tokio::test]
async fn serve_reconciles_at_start_unless_disabled() {
    assert!(installation_listings_while_serving("600").await >= 1);
    assert_eq!(installation_listings_while_serving("0").await, 0);
}

/// A version-1 (time-based) UUID, as GitHub's delivery ids are, sent `age` ago.
fn delivery_id(age: chrono::TimeDelta) -> String {
    let at = chrono::Utc::now() - age;
    // 100-ns intervals since 1582-10-15, the UUID epoch.
    let ticks = u64::try_from(at.timestamp()).unwrap() * 10_000_000
        + u64::from(at.timestamp_subsec_nanos()) / 100
        + 0x01B2_1DD2_1381_4000;
    format!(
        "{:08x}-{:04x}-{:04x}-81ab-4c9367dc0958",
        ticks & 0xFFFF_FFFF,
        (ticks >> 32) & 0xFFFF,
        ((ticks >> 48) & 0x0FFF) | 0x1000
    )
}

#[tokio::test]
async fn the_sweep_prunes_claims_of_deliveries_too_old_to_come_again() {
    let l = with_run().await;
    let old = delivery_id(chrono::TimeDelta::days(9));
    let recent = delivery_id(chrono::TimeDelta::days(6));
    let claims = [
        format!("auditloop/claims/{old}/reply-42-1"),
        format!("auditloop/claims/{old}/file_AUD-1_A-01-2"),
        format!("auditloop/claims/{recent}/reply-42-1"),
        // GitHub's documented example id, from 2014.
        "auditloop/claims/72d3162e-cc78-11e3-81ab-4c9367dc0958/reply-42-1".to_owned(),
        // Ids whose age cannot be told, and the once-per-head claims, stay.
        "auditloop/claims/d9428888-122b-41e2-b8a2-0f3f5b6a6c5e/reply-42-1".to_owned(),
        "auditloop/claims/redelivered-7/reply-42-1".to_owned(),
        format!("auditloop/once/forged-{SHA1}"),
    ];
    {
        let mut state = l.gh.state();
        let git = state.git.entry(REPO.to_owned()).or_default();
        for name in &claims {
            git.refs.insert(name.clone(), SHA1.to_owned());
        }
    }
    let app = app_for(&l);
    let report = app.reconcile(ReconcileLimits::default()).await.unwrap();
    assert_eq!(report.pruned, 3, "{report:?}");
    assert!(report.failed.is_empty(), "{report:?}");
    let left: Vec<String> = {
        let state = l.gh.state();
        state.git[REPO]
            .refs
            .keys()
            .filter(|k| k.starts_with("auditloop/"))
            // The loop's own outcome claims (ids `loop-N`, whose age cannot be told).
            .filter(|k| !k.contains("/outcome-"))
            .cloned()
            .collect()
    };
    let mut kept: Vec<String> = claims[2..]
        .iter()
        .filter(|c| !c.contains("72d3162e"))
        .cloned()
        .collect();
    kept.sort();
    assert_eq!(left, kept);
    assert!(
        l.gh.branch_head(REPO, BRANCH).is_some(),
        "the records branch stays"
    );

    // Nothing old is left: the next sweep lists once and deletes nothing.
    let deletes = |l: &Loop| {
        l.gh.requests()
            .iter()
            .filter(|r| r.method == "DELETE")
            .count()
    };
    let before = deletes(&l);
    let report = app.reconcile(ReconcileLimits::default()).await.unwrap();
    assert_eq!(report.pruned, 0, "{report:?}");
    assert_eq!(deletes(&l), before);
}
