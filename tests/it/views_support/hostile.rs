//! Hostile text in every field a report or command can fill, and what escaping must
//! guarantee about any view that shows it.

use auditloop::engine::record::*;
use auditloop::engine::report::{InvocationMode, Severity, Verdict};

use super::*;

/// Hostile text in every field a report or command can fill.
pub const HOSTILE: &str = "x --> <!-- auditloop:rounds:end --> <script>alert(1)</script> | cell\nnext @octocat [l](https://evil.example) ![i](https://evil.example/i.png) https://evil.example www.evil.example ``` ~~~";

pub fn hostile_record() -> Record {
    let bad = HOSTILE;
    let history = vec![
        event(created(3), at(10, 0), "dev"),
        event(
            EventKind::Report(ReportRun {
                run: 1,
                invocation_ref: bad.to_owned(),
                invocation_mode: InvocationMode::HostSubagent,
                candidate_artifact: commit('a'),
                covered_tasks: vec![],
                verdict: Verdict::NeedsHumanDecision,
                report_digest: String::new(),
                grade: Grade::SessionReported,
                report: String::new(),
                receipt_id: None,
                receipt: None,
                self_audit: false,
                handoff: auditloop::engine::record::HandoffMark::Flag(false),
                findings: vec![
                    finding("A-01", Some("k1"), Severity::High, true, bad, &[bad]),
                    finding("A-02", Some("k2"), Severity::Low, false, bad, &[]),
                    finding("A-03", Some("k3"), Severity::Low, false, bad, &[]),
                    finding("A-04", Some("k4"), Severity::Low, false, bad, &[]),
                ],
                limitations: vec![limitation("L-01", "l1", bad, Some(bad))],
                elegance: None,
            }),
            at(11, 0),
            "bot",
        ),
        event(
            dispose(
                fref("A-01", Some("k1"), 1),
                DispositionKind::Reject,
                bad,
                None,
            ),
            at(11, 1),
            "maint",
        ),
        event(
            dispose(
                fref("A-02", Some("k2"), 1),
                DispositionKind::FollowUp,
                bad,
                None,
            ),
            at(11, 2),
            "maint",
        ),
        event(
            dispose(
                fref("A-03", Some("k3"), 1),
                DispositionKind::File,
                bad,
                Some(9),
            ),
            at(11, 3),
            "maint",
        ),
        event(
            EventKind::Waiver(Waiver {
                findings: vec![fref("A-04", Some("k4"), 1)],
                basis: WaiverBasis::TriageThreshold,
                reason: bad.to_owned(),
                authority: bad.to_owned(),
            }),
            at(11, 4),
            "maint",
        ),
        event(
            EventKind::Veto(Veto {
                key: key("k1"),
                effective_from_round: 2,
                reason: bad.to_owned(),
                authority: bad.to_owned(),
            }),
            at(11, 5),
            "maint",
        ),
        event(
            EventKind::InvocationFailure(InvocationFailure {
                invocation_ref: bad.to_owned(),
                candidate_artifact: commit('b'),
                reason: bad.to_owned(),
            }),
            at(11, 6),
            "bot",
        ),
    ];
    let mut r = record(history, 3, AuditState::AwaitingHuman);
    bad.clone_into(&mut r.goal);
    bad.clone_into(&mut r.completion_oracle);
    r
}

/// `view` shows hostile text only escaped: no marker but its own, no HTML, no mention,
/// no link but the ones the view makes, and (for tables) no broken row.
pub fn assert_contained(view: &str, own_markers: usize) {
    assert_escaped(view, own_markers);
    assert!(
        !view.lines().any(|l| l.starts_with("next")),
        "a newline survived: {view}"
    );
}

/// As [`assert_contained`], for views that keep the line breaks of block text.
pub fn assert_escaped(view: &str, own_markers: usize) {
    assert_eq!(view.matches("<!--").count(), own_markers, "{view}");
    assert_eq!(view.matches("-->").count(), own_markers, "{view}");
    assert!(!view.contains("<script"), "{view}");
    assert!(!view.contains("@octocat"), "{view}");
    assert!(!view.contains("](https://evil"), "{view}");
    assert!(!view.contains("https://evil"), "{view}");
    assert!(!view.contains("www.evil"), "{view}");
    assert!(!view.contains("``` ~~~"), "{view}");
    for line in view.lines().filter(|l| l.starts_with("| ")) {
        let header_cells = view
            .lines()
            .find(|l| l.starts_with("| "))
            .map(|h| h.matches(" | ").count());
        assert_eq!(
            Some(line.matches(" | ").count()),
            header_cells,
            "row breaks the table: {line}"
        );
    }
}
