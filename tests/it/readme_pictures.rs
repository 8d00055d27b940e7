//! The README's pictures are the views as they are now. Each `docs/images/NAME.png` is a
//! screenshot `views_browser` takes in headless Chromium at a PR page's width of the
//! Markdown kept beside it as `docs/images/NAME.md`; a view that changes fails here until the
//! pictures are made again:
//!
//! ```sh
//! AUDITLOOP_PICTURES=update cargo test --test it -- views_browser readme_pictures
//! ```

use auditloop::engine::dashboard::{body, rows, OpenPull, Sources};
use auditloop::engine::gate::{CheckObservation, CheckStatus};
use auditloop::engine::ids::{AuditId, PrNumber};
use auditloop::engine::md::Md;
use auditloop::engine::record::{AuditState, BlockedReason, Record};
use auditloop::engine::repo_config::RepoConfig;
use auditloop::engine::views::{self, check_run, reply, BodyStatus};

use crate::views_support::*;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Set to `update` to write the pictures and their Markdown into `docs/images/`.
pub const UPDATE: &str = "AUDITLOOP_PICTURES";

/// The candidates' SHAs as a repository has them, for the pictures (the tests' records
/// use `aaaa…`, `bbbb…`, `cccc…`).
const SHAS: [(char, &str); 3] = [
    ('a', "4f2b9e17c0d35a8e6b1f0c29d7e4a5b3c8d1e6f0"),
    ('b', "9c3e5a7d1b2f4e6a8c0d2e4f6a8b0c1d3e5f7a9b"),
    ('c', "e81d4b6f9a2c5e7b0d3f6a9c1e4b7d0f2a5c8e1b"),
];

fn real_shas(markdown: &str) -> String {
    let mut out = markdown.to_owned();
    for (c, sha) in SHAS {
        out = out.replace(&c.to_string().repeat(40), sha);
        out = out.replace(&c.to_string().repeat(7), &sha[..7]);
    }
    // The fixtures' hostile path, which the views escape, is no example to show.
    out.replace("../etc/passwd:1", "src/naming.rs:3")
}

fn checks() -> (Vec<CheckObservation>, RepoConfig) {
    let mut config = RepoConfig::default();
    config.evidence.required_checks = vec!["test".to_owned()];
    let checks = vec![CheckObservation {
        name: "test".to_owned(),
        status: CheckStatus::Completed,
        conclusion: Some("success".to_owned()),
    }];
    (checks, config)
}

fn upto(n: usize, state: AuditState, id: &str) -> Record {
    let mut r = record(uncontested(&rich_record().history[..n]), 3, state);
    crate::gate_support::rechain(&mut r);
    r.id = AuditId::new(id.to_owned()).unwrap();
    r
}

/// The dashboard a team would keep open: one PR in each section, none damaged.
fn dashboard() -> String {
    let mut certified = rich_record();
    certified.history = uncontested(&certified.history);
    crate::gate_support::rechain(&mut certified);
    let remediation = upto(7, AuditState::Open, "AUD-2");
    let awaiting = upto(9, AuditState::AwaitingHuman, "AUD-3");
    let mut blocked = upto(7, AuditState::Blocked, "AUD-4");
    blocked.audit_blocked_reason = Some(BlockedReason::AuditBudgetExhausted);
    blocked.audit_budget = 1;
    let waiting = upto(1, AuditState::Open, "AUD-5");
    let pull = |n: u64, title: &'static str, r: &'static Record| OpenPull {
        number: PrNumber(n),
        title,
        record_id: &r.id,
        record: Ok(r),
        gate: auditloop::engine::dashboard::Standing::passing(auditloop::engine::md::Md::lit(
            "Audit gate passes",
        )),
    };
    // Leaked for the borrow: a picture is made once per test process.
    let keep = |r: Record| -> &'static Record { Box::leak(Box::new(r)) };
    let pulls = [
        pull(42, "Refuse replayed webhook deliveries", keep(certified)),
        pull(
            43,
            "Bound the retry queue and log what was dropped",
            keep(remediation),
        ),
        pull(
            44,
            "Move the records branch to the new layout",
            keep(awaiting),
        ),
        pull(
            45,
            "Rotate the webhook secret without downtime",
            keep(blocked),
        ),
        pull(
            46,
            "Cache installation tokens per repository",
            keep(waiting),
        ),
    ];
    let view = ctx();
    body(
        &rows(&pulls),
        &Sources {
            view: &view,
            patterns: None,
            records_commit: None,
        },
    )
}

/// The README's pictures by name, each as the Markdown GitHub renders.
pub fn pictures() -> Vec<(&'static str, String)> {
    let (checks, config) = checks();
    let rich = rich_record();
    let s = views::sections(Some(&rich), &ctx());
    let pr_body = format!(
        "Fixes the webhook replay window.\n\nCloses #12\n\n{}\n\n{}\n\n{}\n",
        s.rounds, s.waivers, s.residual
    );
    let r = upto(7, AuditState::Open, "AUD-7");
    let g = evaluated(Some(&r), r.candidate_artifact.sha(), &checks, &config);
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    let check = format!("## {}\n\n{}\n\n{}", v.title, v.summary, v.text);
    let refusal = reply::refused(
        &Md::lit("finding A-02 is not marked cross_remit, so it cannot be waived as cross-remit (`not-cross-remit`)"),
        &Md::lit("use `--basis triage-threshold` for a finding below the bar, or ask the auditor to mark it `cross_remit` in its next report"),
        "d-1",
    );
    let mut out = vec![
        ("pr-body-sections", pr_body),
        ("check-run", check),
        ("refusal", refusal),
        ("dashboard", dashboard()),
        (
            "thread-and-convergence",
            crate::views_browser::thread_and_convergence(&checks, &config),
        ),
    ];
    for (_, md) in &mut out {
        *md = real_shas(md);
    }
    out
}

#[test]
fn the_readme_pictures_show_the_views_as_they_are_now() {
    if std::env::var(UPDATE).is_ok_and(|v| v == "update") {
        return;
    }
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    for (name, markdown) in pictures() {
        let kept =
            std::fs::read_to_string(format!("{ROOT}/docs/images/{name}.md")).unwrap_or_default();
        assert!(
            kept == markdown,
            "docs/images/{name}.png shows an older view: make the pictures again with\n{UPDATE}=update cargo test --test it -- views_browser readme_pictures"
        );
        assert!(
            std::path::Path::new(&format!("{ROOT}/docs/images/{name}.png")).exists(),
            "docs/images/{name}.png is missing"
        );
        assert!(
            readme.contains(&format!("(docs/images/{name}.png)")),
            "the README does not show {name}"
        );
    }
}
