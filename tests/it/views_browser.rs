//! The PR body and the check run's summary as a maintainer sees them: rendered as GitHub
//! renders Markdown (see `views_render`), inside a stylesheet close to GitHub's
//! (`tests/fixtures/github/markdown-body.css`), at a PR page's 900 px, in headless
//! Chromium. No table may scroll sideways. Screenshots go to
//! `target/view-screenshots/` for review. The `/audit help` reply is among them, and no
//! code span in its table may wrap onto a second line.

use std::path::PathBuf;

use auditloop::engine::gate::{CheckObservation, CheckStatus};
use auditloop::engine::repo_config::RepoConfig;
use auditloop::engine::views::{self, check_run, BodyStatus};
use fantoccini::{ClientBuilder, Locator};

use crate::setup_browser::{capabilities, chromedriver, start_driver};
use crate::views_render::gfm;
use crate::views_support::*;

const CSS: &str = include_str!("../fixtures/github/markdown-body.css");

/// 92 characters without a space, as generated code's paths run.
const LONG_PATH: &str =
    "src/generated/protocol_buffers/webhook_delivery_verification/nested/deeper/module_name.rs:10";

fn page(title: &str, markdown: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title><style>{CSS}</style></head><body><article class=\"markdown-body\">{}</article></body></html>",
        gfm(markdown)
    )
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/view-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The views to look at: the PR body of a rich record (human text around the sections)
/// and the check run of a remediation round, of a record awaiting a human, and of a
/// certified one.
fn views_to_show() -> Vec<(&'static str, String)> {
    let mut rich = rich_record();
    // Evidence at a 90-character path with no space to wrap at, on every run's findings.
    for event in &mut rich.history {
        if let auditloop::engine::record::EventKind::Report(run) = &mut event.kind {
            for f in &mut run.findings {
                f.evidence_refs.push(LONG_PATH.to_owned());
            }
        }
    }
    crate::gate_support::rechain(&mut rich);
    let s = views::sections(Some(&rich), &ctx());
    let body = format!(
        "Fixes the webhook replay window.\n\nCloses #12\n\n{}\n\n{}\n\n{}\n",
        s.rounds, s.waivers, s.residual
    );
    let mut config = RepoConfig::default();
    config.evidence.required_checks = vec!["test".to_owned()];
    let checks = [CheckObservation {
        name: "test".to_owned(),
        status: CheckStatus::Completed,
        conclusion: Some("success".to_owned()),
    }];
    let help = format!("auditloop: help\n\n{}", auditloop::commands::help_table());
    let mut out = vec![("pr-body", body), ("help-reply", help)];
    for (name, upto, state) in [
        (
            "check-remediation",
            7,
            auditloop::engine::record::AuditState::Open,
        ),
        (
            "check-awaiting-human",
            9,
            auditloop::engine::record::AuditState::AwaitingHuman,
        ),
    ] {
        let mut r = record(rich.history[..upto].to_vec(), 3, state);
        crate::gate_support::rechain(&mut r);
        let g = evaluated(Some(&r), r.candidate_artifact.sha(), &checks, &config);
        let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
        out.push((
            name,
            format!("## {}\n\n{}\n\n{}", v.title, v.summary, v.text),
        ));
    }
    let g = evaluated(Some(&rich), rich.candidate_artifact.sha(), &checks, &config);
    let v = check_run::check_run(&g, Some(&rich), &ctx(), BodyStatus::Current);
    out.push((
        "check-certified",
        format!("## {}\n\n{}\n\n{}", v.title, v.summary, v.text),
    ));
    out.push(("dashboard-all", dashboard_body(&rich)));
    out.extend(crate::readme_pictures::pictures());
    out
}

/// What the README shows: a blocking finding's review thread as it stands on the diff, and
/// the check run's convergence line of the same round.
pub(crate) fn thread_and_convergence(checks: &[CheckObservation], config: &RepoConfig) -> String {
    let rich = rich_record();
    let history = rich.history[..9].to_vec();
    let mut r = record(
        history,
        3,
        auditloop::engine::record::AuditState::AwaitingHuman,
    );
    crate::gate_support::rechain(&mut r);
    let run = r.latest_run().expect("a run");
    let f = run
        .findings
        .iter()
        .find(|f| f.blocking)
        .expect("a blocking finding");
    // On the diff GitHub names the thread's lines; the first reference is where it sits.
    let place = f.evidence_refs.first().cloned().unwrap_or_default();
    let body = views::threads::body(&r, run.run, f, &ctx());
    let g = evaluated(Some(&r), r.candidate_artifact.sha(), checks, config);
    let v = check_run::check_run(&g, Some(&r), &ctx(), BodyStatus::Current);
    let convergence = v
        .summary
        .lines()
        .find(|l| l.starts_with("**Convergence:**"))
        .unwrap_or_default()
        .to_owned();
    format!(
        "#### auditloop `bot` reviewed `{place}`\n\n{body}\n\n---\n\n#### audit-gate: {}\n\n{convergence}\n",
        v.title
    )
}

/// With `AUDITLOOP_PICTURES=update`, a README picture and the Markdown it shows go to
/// `docs/images/` (see `readme_pictures`).
fn keep_picture(name: &str, markdown: &str, png: &[u8]) {
    let update = std::env::var(crate::readme_pictures::UPDATE).is_ok_and(|v| v == "update");
    if !update
        || !crate::readme_pictures::pictures()
            .iter()
            .any(|(n, _)| *n == name)
    {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/images");
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    std::fs::write(dir.join(format!("{name}.md")), markdown).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pr_body_and_the_check_run_fit_a_pr_page() {
    let Some(driver_bin) = chromedriver() else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false");
        assert!(
            !ci,
            "chromedriver is missing: install Debian's chromium and chromium-driver (.ci/run does)"
        );
        eprintln!("SKIPPED: no chromedriver (apt-get install chromium chromium-driver)");
        return;
    };
    let dir = out_dir();
    let profile = tempfile::tempdir().unwrap();
    let driver = start_driver(&driver_bin).await;
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let c = ClientBuilder::new(connector)
        .capabilities(capabilities(profile.path()))
        .connect(&driver.url)
        .await
        .expect("a Chromium session through chromedriver");
    let mut overflowing = Vec::new();
    for (name, markdown) in views_to_show() {
        let html = dir.join(format!("{name}.html"));
        std::fs::write(&html, page(name, &markdown)).unwrap();
        c.goto(&format!("file://{}", html.display())).await.unwrap();
        // Open every <details> so that the screenshot shows what it folds.
        let measured = c
            .execute(
                "document.querySelectorAll('details').forEach(d => d.open = true);
                 const body = document.querySelector('.markdown-body');
                 const tables = [...document.querySelectorAll('table')].map(t =>
                     [t.scrollWidth, t.clientWidth, t.rows[0].cells.length]);
                 const wrapped = [...document.querySelectorAll('td code, th code')]
                     .filter(c => c.getClientRects().length > 1).map(c => c.textContent);
                 return {tables, wrapped, body: [body.scrollWidth, body.clientWidth],
                         height: document.documentElement.scrollHeight};",
                vec![],
            )
            .await
            .unwrap();
        let height = measured["height"].as_u64().unwrap_or(1000).min(8000);
        // Room for the browser's own frame: the page's end must be inside the window.
        c.set_window_size(940, u32::try_from(height).unwrap_or(1000) + 200)
            .await
            .unwrap();
        let png = c.screenshot().await.unwrap();
        std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
        // A picture is the rendered Markdown alone, cut at its edges.
        let article = c.find(Locator::Css(".markdown-body")).await.unwrap();
        keep_picture(name, &markdown, &article.screenshot().await.unwrap());
        for t in measured["tables"].as_array().unwrap() {
            let (scroll, client) = (t[0].as_u64().unwrap(), t[1].as_u64().unwrap());
            if scroll > client {
                overflowing.push(format!(
                    "{name}: a {}-column table is {scroll} px wide in {client} px",
                    t[2]
                ));
            }
        }
        // The help table's rows are short enough to stand at their natural width.
        if name == "help-reply" {
            for code in measured["wrapped"].as_array().unwrap() {
                overflowing.push(format!("{name}: a code span in a table wraps: {code}"));
            }
        }
        let body = &measured["body"];
        if body[0].as_u64() > body[1].as_u64() {
            overflowing.push(format!("{name}: the body scrolls sideways: {body}"));
        }
    }
    let _ = c.close().await;
    drop(driver);
    assert!(overflowing.is_empty(), "{overflowing:#?}");
}
