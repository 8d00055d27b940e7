//! The repository's audit dashboard (docs/reference.md#the-audit-dashboard): every open PR's
//! record sorted into the sections a maintainer acts on, as the body of one issue and as
//! `auditloop status --repo`. Rebuilt from the records alone, never from the text.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::gate::{verdict, Conclusion, GateResult};
use crate::ids::{AuditId, CommitSha, PrNumber};
use crate::ledger::Ledger;
use crate::md;
use crate::md::Md;
use crate::patterns::Library;
use crate::record::{AuditState, Record};
use crate::report::Verdict;
use crate::views::links::ViewContext;

/// The title, and the marker it is found again by.
pub const TITLE: &str = "Audit dashboard";
pub const MARKER: &str = "<!-- auditloop:dashboard -->";
/// The label the dashboard is created with, so that one listing finds it.
pub const LABEL: &str = "audit-dashboard";
/// GitHub's limit on an issue body, in characters.
pub const BODY_LIMIT: usize = 65_536;
/// Patterns the dashboard lists.
pub(crate) const PATTERNS: usize = 10;

/// The sections, in the order the dashboard shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    WaitingOnMaintainer,
    Blocked,
    NeedsRemediation,
    WaitingOnAuditor,
    Certified,
}

impl Section {
    pub(crate) const ALL: [Section; 5] = [
        Section::WaitingOnMaintainer,
        Section::Blocked,
        Section::NeedsRemediation,
        Section::WaitingOnAuditor,
        Section::Certified,
    ];

    #[must_use]
    pub(crate) fn heading(self) -> &'static str {
        match self {
            Section::WaitingOnMaintainer => "Waiting on a maintainer",
            Section::Blocked => "Blocked",
            Section::NeedsRemediation => "Needs remediation",
            Section::WaitingOnAuditor => "Waiting on the auditor",
            Section::Certified => "Certified, ready to merge",
        }
    }

    /// Who acts next, in a word or two.
    #[must_use]
    pub(crate) fn waits_on(self) -> &'static str {
        match self {
            Section::WaitingOnMaintainer | Section::Blocked => "maintainer",
            Section::NeedsRemediation => "fixer",
            Section::WaitingOnAuditor => "auditor",
            Section::Certified => "merge",
        }
    }
}

/// An open PR with a record, as the records branch holds it.
pub struct OpenPull<'a> {
    pub number: PrNumber,
    pub title: &'a str,
    pub record_id: &'a AuditId,
    /// The record, or why it cannot be read.
    pub record: Result<&'a Record, String>,
    /// Its head's gate, evaluated from the same reads as `record`.
    pub gate: Standing,
}

/// Where the gate of a PR's head stands, as its check run concludes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// `success` or `neutral`: branch protection lets it merge.
    pub passes: bool,
    /// The check run's title.
    pub line: Md,
}

impl Standing {
    /// The gate `result` as its check run shows it.
    #[must_use]
    pub fn of(result: &GateResult) -> Self {
        Self {
            passes: matches!(result.conclusion, Conclusion::Success | Conclusion::Neutral),
            line: result.title.clone(),
        }
    }

    /// A gate that passes, its check run titled `line`.
    #[must_use]
    pub fn passing(line: Md) -> Self {
        Self { passes: true, line }
    }

    /// A gate that cannot pass, and why (an invalid configuration, say).
    #[must_use]
    pub fn failing(why: Md) -> Self {
        Self {
            passes: false,
            line: why,
        }
    }
}

/// One row of the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub number: PrNumber,
    pub title: String,
    pub record: AuditId,
    /// `audit_state`, or `damaged`.
    pub state: String,
    pub section: Section,
    pub verdict_line: Md,
    /// When the record last changed (`None`: damaged).
    pub since: Option<DateTime<Utc>>,
    /// Its last run did not converge (docs/reference.md#the-finding-ledger).
    pub not_converging: bool,
    /// Its head's gate now.
    pub gate: Standing,
}

/// The section a record belongs in: a human decision (or a contested rejection) first,
/// then a spent budget, then whose turn it is. A certified record is ready to merge only
/// while its head's `gate` passes; else it is blocked on what the gate names.
#[must_use]
pub(crate) fn section_of(record: &Record, gate: &Standing) -> Section {
    match record.audit_state {
        AuditState::AwaitingHuman => Section::WaitingOnMaintainer,
        _ if !record.contested().is_empty() => Section::WaitingOnMaintainer,
        AuditState::Blocked => Section::Blocked,
        AuditState::Certified if !gate.passes => Section::Blocked,
        AuditState::Certified => Section::Certified,
        AuditState::Open if record.latest_verdict == Some(Verdict::NeedsRemediation) => {
            Section::NeedsRemediation
        }
        AuditState::Open => Section::WaitingOnAuditor,
    }
}

/// The rows of `pulls`, oldest change first within each section.
#[must_use]
pub fn rows(pulls: &[OpenPull<'_>]) -> Vec<Row> {
    let mut rows: Vec<Row> = pulls
        .iter()
        .map(|p| match p.record {
            Ok(r) => Row {
                number: p.number,
                title: p.title.to_owned(),
                record: p.record_id.clone(),
                state: r.audit_state.as_str().to_owned(),
                section: section_of(r, &p.gate),
                verdict_line: line_of(r, &p.gate),
                since: r.history.last().map(|e| e.at),
                not_converging: Ledger::of(r).convergence().last_converges() == Some(false),
                gate: p.gate.clone(),
            },
            Err(ref why) => Row {
                number: p.number,
                title: p.title.to_owned(),
                record: p.record_id.clone(),
                state: "damaged".to_owned(),
                section: Section::Blocked,
                verdict_line: verdict::damaged(&Md::text(why)),
                since: None,
                not_converging: false,
                gate: p.gate.clone(),
            },
        })
        .collect();
    rows.sort_by_key(|r| (r.section, r.since, r.number));
    rows
}

/// The record's verdict line, as its PR body shows it; for a certification its gate no
/// longer passes, what the gate says instead.
fn line_of(record: &Record, gate: &Standing) -> Md {
    if record.audit_state == AuditState::Certified && !gate.passes {
        return md!("certified, but the gate fails: {}", gate.line.clone());
    }
    verdict::of_record(record, None)
}

/// What the body is rebuilt from besides the rows.
pub struct Sources<'a> {
    pub view: &'a ViewContext,
    pub patterns: Option<&'a Library>,
    /// The records commit the rows were read at.
    pub records_commit: Option<&'a CommitSha>,
}

/// The body: the sections, each cut to its oldest rows when the whole would pass
/// [`BODY_LIMIT`], then the most seen patterns, then the marker.
#[must_use]
pub fn body(rows: &[Row], sources: &Sources<'_>) -> String {
    let most = Section::ALL
        .iter()
        .map(|s| rows.iter().filter(|r| r.section == *s).count())
        .max()
        .unwrap_or(0);
    let mut keep = most;
    loop {
        let text = body_keeping(rows, sources, keep);
        if text.chars().count() <= BODY_LIMIT || keep == 0 {
            return text;
        }
        // Halve what is left above the limit rather than one row at a time.
        keep = if keep > 64 { keep * 3 / 4 } else { keep - 1 };
    }
}

fn body_keeping(rows: &[Row], sources: &Sources<'_>, keep: usize) -> String {
    let view = sources.view;
    let mut out = String::from("# Audit dashboard\n\n");
    let at = sources.records_commit.map_or_else(String::new, |c| {
        format!(" at [`{}`]({})", c.short(), view.records_commit_url(c))
    });
    out.push_str(&format!(
        "Every open pull request with an audit record, rebuilt from the records branch `{}`{at}. This issue is a view: editing it changes no gate, and the next change rewrites it.\n",
        crate::md::escape::inline(&view.records_branch, 100)
    ));
    for section in Section::ALL {
        let in_section: Vec<&Row> = rows.iter().filter(|r| r.section == section).collect();
        out.push_str(&format!("\n## {}\n\n", section.heading()));
        if in_section.is_empty() {
            out.push_str("None.\n");
            continue;
        }
        out.push_str("| PR | Record | Verdict | Since |\n| --- | --- | --- | --- |\n");
        for row in in_section.iter().take(keep) {
            out.push_str(&row_line(row, view));
        }
        let more = in_section.len().saturating_sub(keep);
        if more > 0 {
            out.push_str(&format!(
                "\n… and {more} more: `auditloop status --repo {}` lists them all.\n",
                view.repository
            ));
        }
    }
    out.push_str(&patterns_section(sources.patterns));
    out.push('\n');
    out.push_str(MARKER);
    out.push('\n');
    out
}

fn row_line(row: &Row, view: &ViewContext) -> String {
    let pull_url = view.pull_url(row.number);
    let since = row.since.map_or_else(
        || "—".to_owned(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    );
    let stuck = if row.not_converging {
        " · ⚠️ not converging"
    } else {
        ""
    };
    format!(
        "| [#{}]({pull_url}) {} | [{}]({}) | {}{stuck} | {since} |\n",
        row.number.0,
        Md::text_max(&row.title, 120).as_markdown(),
        row.record,
        view.record_url(&row.record),
        row.verdict_line.as_markdown(),
    )
}

fn patterns_section(library: Option<&Library>) -> String {
    let mut out = String::from("\n## Most seen patterns\n\n");
    let listed = library.map(|l| l.most_seen(PATTERNS)).unwrap_or_default();
    if listed.is_empty() {
        out.push_str("None.\n");
        return out;
    }
    out.push_str("| Pattern | Severity | Seen | Resolved |\n| --- | --- | --- | --- |\n");
    for p in listed {
        out.push_str(&format!(
            "| {} {} | {} | {} | {} |\n",
            Md::code(p.key.as_str()).as_markdown(),
            Md::text_max(&p.title, 160).as_markdown(),
            p.severity.as_str(),
            p.seen,
            p.resolved,
        ));
    }
    out
}

/// The last edit of a dashboard whose setting was turned off.
#[must_use]
pub fn closed_body() -> String {
    format!(
        "# Audit dashboard\n\nClosed: `dashboard` is no longer `true` in `.github/auditloop.yml` on the default branch. Set it again to have this issue reopened and kept current.\n\n{MARKER}\n"
    )
}

/// One PR as `status --repo --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct PullStatus {
    pub(crate) number: u64,
    pub(crate) title: String,
    pub(crate) record: String,
    pub(crate) state: String,
    pub(crate) section: Section,
    pub verdict_line: String,
    pub(crate) waits_on: &'static str,
    pub(crate) since: Option<DateTime<Utc>>,
    /// The gate of its head now, as the check run concludes.
    pub passes: bool,
    /// Its last run did not converge.
    pub(crate) not_converging: bool,
}

impl PullStatus {
    /// `row` as `status --repo` prints it: the verdict line is its check run's title.
    #[must_use]
    pub fn new(row: &Row) -> Self {
        Self {
            number: row.number.0,
            title: row.title.clone(),
            record: row.record.to_string(),
            state: row.state.clone(),
            section: row.section,
            verdict_line: row.gate.line.plain().to_owned(),
            waits_on: row.section.waits_on(),
            since: row.since,
            passes: row.gate.passes,
            not_converging: row.not_converging,
        }
    }
}

/// `status --repo` on a terminal: the same sections, one line per PR.
#[must_use]
pub fn terminal(pulls: &[PullStatus], repo: &str) -> String {
    let mut out = format!("Audit dashboard of {repo}\n");
    for section in Section::ALL {
        out.push_str(&format!("\n{}\n", section.heading()));
        let listed: Vec<&PullStatus> = pulls.iter().filter(|p| p.section == section).collect();
        if listed.is_empty() {
            out.push_str("  None\n");
        }
        for p in listed {
            let mark = if p.passes { "pass" } else { "fail" };
            let stuck = if p.not_converging {
                " (not converging)"
            } else {
                ""
            };
            out.push_str(&format!(
                "  #{} {} [{}] {mark}: {}{stuck}\n",
                p.number,
                crate::md::escape::truncate(&p.title, 80),
                p.record,
                p.verdict_line
            ));
        }
    }
    out
}
