//! A record with everything the views show.

use auditloop::engine::ids::LimitationId;
use auditloop::engine::record::*;
use auditloop::engine::report::{Severity, Verdict};

use super::*;

/// Three runs, two waivers, every disposition kind, a veto, an accepted limitation, an
/// invocation failure, a resolution and a budget override.
pub fn rich_record() -> Record {
    use Severity::*;
    let mut a03 = finding(
        "A-03",
        Some("docs-gap"),
        Medium,
        false,
        "The operator guide lacks the replay window",
        &["docs/ops.md:14"],
    );
    a03.cross_remit = true;
    let history = vec![
        event(created(3), at(10, 0), "dev"),
        event(
            run(
                1,
                'a',
                Verdict::NeedsRemediation,
                Grade::SessionReported,
                vec![
                    finding(
                        "A-01",
                        Some("webhook-replay"),
                        Critical,
                        true,
                        "Replayed deliveries are applied twice",
                        &["src/webhook.rs:88"],
                    ),
                    finding(
                        "A-02",
                        Some("token-leak"),
                        High,
                        true,
                        "The installation token is logged at debug level",
                        &["src/auth.rs:10-20"],
                    ),
                    a03,
                    finding(
                        "A-04",
                        None,
                        Low,
                        false,
                        "A helper name is misleading",
                        &["../etc/passwd:1"],
                    ),
                ],
                vec![],
            ),
            at(11, 0),
            "auditor-bot",
        ),
        event(
            dispose(
                fref("A-01", Some("webhook-replay"), 1),
                DispositionKind::Fix,
                "Dedupe on delivery id",
                None,
            ),
            at(11, 10),
            "maint",
        ),
        event(
            dispose(
                fref("A-02", Some("token-leak"), 1),
                DispositionKind::Reject,
                "The token is redacted by the log layer, see src/log.rs:30",
                None,
            ),
            at(11, 11),
            "maint",
        ),
        event(
            dispose(
                fref("A-04", None, 1),
                DispositionKind::FollowUp,
                "Rename in the next cleanup",
                None,
            ),
            at(11, 12),
            "maint",
        ),
        event(
            EventKind::Waiver(Waiver {
                findings: vec![fref("A-03", Some("docs-gap"), 1)],
                basis: WaiverBasis::CrossRemit,
                reason: "Docs are owned by the handbook repository".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(11, 13),
            "maint",
        ),
        event(
            EventKind::Veto(Veto {
                key: key("webhook-replay"),
                effective_from_round: 2,
                reason: "Replay safety is the goal of this change".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(11, 14),
            "maint",
        ),
        event(
            EventKind::InvocationFailure(InvocationFailure {
                invocation_ref: "ci-run-88".to_owned(),
                candidate_artifact: commit('b'),
                reason: "The auditor timed out".to_owned(),
            }),
            at(12, 0),
            "auditor-bot",
        ),
        event(
            run(
                2,
                'b',
                Verdict::NeedsHumanDecision,
                Grade::SessionReported,
                vec![
                    finding(
                        "A-01",
                        Some("token-leak"),
                        High,
                        true,
                        "The installation token is still logged",
                        &["src/auth.rs:12"],
                    ),
                    finding(
                        "A-02",
                        Some("perf-regression"),
                        Medium,
                        false,
                        "Intake allocates per header",
                        &["src/intake.rs:40-44"],
                    ),
                    finding("A-03", Some("style-nit"), Low, false, "Import order", &[]),
                ],
                vec![limitation(
                    "L-01",
                    "no-ghes-e2e",
                    "No end-to-end test against GHES",
                    None,
                )],
            ),
            at(13, 0),
            "auditor-bot",
        ),
        event(
            dispose(
                fref("A-02", Some("perf-regression"), 2),
                DispositionKind::File,
                "Track as tech debt",
                Some(77),
            ),
            at(13, 10),
            "maint",
        ),
        event(
            EventKind::Waiver(Waiver {
                findings: vec![fref("A-03", Some("style-nit"), 2)],
                basis: WaiverBasis::TriageThreshold,
                reason: "Below the triage threshold".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(13, 11),
            "maint",
        ),
        event(
            EventKind::Resolution(Resolution {
                note: "GHES e2e is out of scope for this PR".to_owned(),
                authority: "human: maint".to_owned(),
                finding: None,
            }),
            at(13, 20),
            "maint",
        ),
        event(
            EventKind::LimitationAcceptance(LimitationAcceptance {
                run: 2,
                limitations: vec![AcceptedLimitation {
                    id: LimitationId::new("L-01").unwrap(),
                    key: key("no-ghes-e2e"),
                }],
                note: "Accepted until the GHES runner exists".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(13, 21),
            "maint",
        ),
        event(
            EventKind::Override(Override {
                budget: 4,
                previous_budget: 3,
                note: "One more round for the token fix".to_owned(),
                authority: "human: maint".to_owned(),
            }),
            at(13, 30),
            "maint",
        ),
        event(
            run(
                3,
                'c',
                Verdict::CertifiedWithAcceptedLimitations,
                Grade::Authenticated,
                vec![finding(
                    "A-01",
                    Some("token-leak"),
                    Low,
                    false,
                    "Token redaction relies on the log layer",
                    &["src/auth.rs:12", "/abs/path.rs:3"],
                )],
                vec![limitation(
                    "L-01",
                    "no-ghes-e2e",
                    "No end-to-end test against GHES",
                    Some("human: maint"),
                )],
            ),
            at(15, 0),
            "auditor-bot",
        ),
    ];
    record(history, 4, AuditState::Certified)
}
