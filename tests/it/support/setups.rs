//! Repository states that refusals (and the commands that undo them) are tried on.

use serde_json::json;

use super::audit::{report, report_comment, Loop, SHA1, SHA2};
use super::steps::{asks_human, new_command};

#[derive(Debug, Clone, Copy)]
pub enum Setup {
    /// PR 42 opened; no record.
    Opened,
    /// `AUD-1` created by `alice` with defaults.
    Record,
    /// `AUD-1` with one accepted run of this verdict.
    Run(&'static str),
    /// Run 1 asked for a human decision.
    AwaitingHuman,
    /// A budget of 1, spent by a `needs_remediation` run.
    Blocked,
    /// Run 1 `needs_remediation`, then key `webhook-replay` vetoed.
    Vetoed,
    /// `AUD-1` exists, then PR 42 closed.
    Closed,
    /// Run 1, and the PR's author `alice` maintains the repository.
    AuthorMaintains,
    /// `AUD-1` rebound to SHA2 by a push.
    Pushed,
    /// `AUD-1` on PR 42 holds work unit `phase:4`; PR 43 opened.
    UnitOnOtherPr,
    /// `AUD-1` on PR 42, still open; PR 43 opened.
    SourceOpen,
    /// `AUD-1` on PR 42, merged; PR 43 opened.
    SourceMerged,
    /// PR 42 opened, its body closing no issue.
    NoClosing,
    /// `AUD-1` exists; then `.github/auditloop.yml` on the default branch holds `text`.
    Config(&'static str),
}

pub async fn set_up(l: &mut Loop, setup: Setup) {
    l.gh.set_permission("wendy", "write");
    match setup {
        Setup::Opened => l.pull_event("opened", 42, SHA1).await,
        Setup::Record => l.with_record().await,
        Setup::Run(verdict) => l.with_run(verdict).await,
        Setup::AwaitingHuman => {
            l.with_record().await;
            l.ok("auditor", &report_comment(&asks_human("ci-run-1")), true)
                .await;
        }
        Setup::Blocked => {
            l.pull_event("opened", 42, SHA1).await;
            l.ok("alice", &new_command("--budget 1"), true).await;
            let r = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
            l.ok("auditor", &report_comment(&r), true).await;
            assert_eq!(l.record("AUD-1")["audit_state"], "blocked");
        }
        Setup::Vetoed => {
            l.with_run("needs_remediation").await;
            l.ok(
                "maint",
                "/audit veto webhook-replay --reason \"Replay must be fixed\"",
                true,
            )
            .await;
        }
        Setup::Closed => {
            l.with_record().await;
            l.gh.close_pull(42, false);
        }
        Setup::AuthorMaintains => {
            l.with_run("needs_remediation").await;
            l.gh.set_permission("alice", "maintain");
        }
        Setup::Pushed => {
            l.with_record().await;
            l.gh.set_pull_head(42, SHA2);
            l.pull_event("synchronize", 42, SHA2).await;
            assert_eq!(
                l.record("AUD-1")["candidate_artifact"],
                format!("commit:{SHA2}")
            );
        }
        Setup::UnitOnOtherPr => {
            l.pull_event("opened", 42, SHA1).await;
            l.ok(
                "alice",
                &new_command("--work-unit phase:4 --covered-tasks \"#12\""),
                true,
            )
            .await;
            l.gh.add_pull(43, SHA2, "Another take.\n\nCloses #12\n", "alice");
            l.pull_event("opened", 43, SHA2).await;
        }
        Setup::SourceOpen => {
            l.with_record().await;
            l.gh.add_pull(43, SHA2, "Another take.\n\nCloses #12\n", "alice");
            l.pull_event("opened", 43, SHA2).await;
        }
        Setup::SourceMerged => {
            l.with_record().await;
            l.gh.close_pull(42, true);
            l.gh.add_pull(43, SHA2, "Another take.\n\nCloses #12\n", "alice");
            l.pull_event("opened", 43, SHA2).await;
        }
        Setup::NoClosing => {
            l.gh.state().pulls.get_mut(&42).unwrap()["body"] = json!("Refs #12 only.");
            l.pull_event("opened", 42, SHA1).await;
        }
        Setup::Config(text) => {
            l.with_record().await;
            l.gh.set_file(".github/auditloop.yml", text);
        }
    }
}
