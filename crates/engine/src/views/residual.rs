//! The "Residual findings" section (docs/reference.md#the-pr-body): what is not fixed. The latest run's
//! open findings (see `open_findings`), filed issues,
//! follow-ups, accepted limitations, contested (rejected) findings awaiting a resolution,
//! and vetoes in force.

use crate::record::{Disposition, DispositionKind, Record};

use super::links::ViewContext;
use crate::md::escape::inline;
use crate::md::markers::SectionKind;

const TEXT_CHARS: usize = 300;
const KEY_CHARS: usize = 100;
const AUTHORITY_CHARS: usize = 60;

#[must_use]
pub(crate) fn render(record: Option<&Record>, ctx: &ViewContext) -> String {
    let Some(record) = record else {
        return SectionKind::Residual.wrap("No audit record yet, so no residual findings.");
    };
    let mut out = super::open_findings::render(record, ctx);
    let dispositions = record.dispositions_in_force();

    let filed: Vec<&Disposition> = of_kind(&dispositions, DispositionKind::File);
    if !filed.is_empty() {
        out.push_str("**Filed issues**\n\n");
        for d in filed {
            let issue = d.issue.map_or_else(
                || "issue not yet opened".to_owned(),
                |n| format!("[{n}]({})", ctx.issue_url(n)),
            );
            out.push_str(&format!(
                "- {issue}: {}{}: {}\n",
                finding_name(d),
                severity(record, d),
                claim(record, d)
            ));
        }
        out.push('\n');
    }

    let follow_ups = of_kind(&dispositions, DispositionKind::FollowUp);
    if !follow_ups.is_empty() {
        out.push_str("**Follow-ups**\n\n");
        for d in follow_ups {
            out.push_str(&format!(
                "- {}{}: {} ({}; {})\n",
                finding_name(d),
                severity(record, d),
                claim(record, d),
                inline(&d.note, TEXT_CHARS),
                inline(&d.authority, AUTHORITY_CHARS),
            ));
        }
        out.push('\n');
    }

    let (accepted, pending): (Vec<_>, Vec<_>) = record
        .latest_limitations()
        .into_iter()
        .partition(|l| l.authority.is_some());
    if !accepted.is_empty() {
        out.push_str("**Accepted limitations**\n\n");
        for l in accepted {
            out.push_str(&format!(
                "- {} {} (round {}): {} (authority {})\n",
                l.limitation.id,
                inline(l.limitation.key.as_str(), KEY_CHARS),
                l.run,
                inline(&l.limitation.text, TEXT_CHARS),
                inline(l.authority.as_deref().unwrap_or_default(), AUTHORITY_CHARS),
            ));
        }
        out.push('\n');
    }
    if !pending.is_empty() {
        out.push_str("**Limitations awaiting acceptance** (a maintainer accepts with `/audit resolve L-NN --note …`)\n\n");
        for l in pending {
            out.push_str(&format!(
                "- {} {} (round {}): {}\n",
                l.limitation.id,
                inline(l.limitation.key.as_str(), KEY_CHARS),
                l.run,
                inline(&l.limitation.text, TEXT_CHARS),
            ));
        }
        out.push('\n');
    }

    let contested = record.contested();
    if !contested.is_empty() {
        out.push_str("**Rejected findings awaiting a resolution**\n\n");
        for d in contested {
            out.push_str(&format!(
                "- {}{}: {}; counter-evidence: {} ({})\n",
                finding_name(d),
                severity(record, d),
                claim(record, d),
                inline(&d.note, TEXT_CHARS),
                inline(&d.authority, AUTHORITY_CHARS),
            ));
        }
        out.push('\n');
    }

    let vetoes = record.latest_vetoes();
    if !vetoes.is_empty() {
        out.push_str("**Vetoes in force**\n\n");
        for v in vetoes {
            out.push_str(&format!(
                "- {} from round {}: {} ({})\n",
                inline(v.key.as_str(), KEY_CHARS),
                v.effective_from_round,
                inline(&v.reason, TEXT_CHARS),
                inline(&v.authority, AUTHORITY_CHARS),
            ));
        }
    }

    if out.is_empty() {
        out.push_str("None.");
    }
    SectionKind::Residual.wrap(&out)
}

fn of_kind<'a>(
    dispositions: &'a [std::borrow::Cow<'a, Disposition>],
    kind: DispositionKind,
) -> Vec<&'a Disposition> {
    dispositions
        .iter()
        .filter(|d| d.disposition == kind)
        .map(std::convert::AsRef::as_ref)
        .collect()
}

/// `A-02 webhook-replay (round 1)`.
fn finding_name(d: &Disposition) -> String {
    match &d.finding.key {
        Some(k) => format!(
            "{} {} (round {})",
            d.finding.id,
            inline(k.as_str(), KEY_CHARS),
            d.finding.run
        ),
        None => format!("{} (round {})", d.finding.id, d.finding.run),
    }
}

fn severity(record: &Record, d: &Disposition) -> String {
    record
        .finding(d.finding.run, &d.finding.id)
        .map(|f| format!(", {}", f.severity.as_str()))
        .unwrap_or_default()
}

fn claim(record: &Record, d: &Disposition) -> String {
    record
        .finding(d.finding.run, &d.finding.id)
        .map_or_else(|| "—".to_owned(), |f| inline(&f.claim, TEXT_CHARS))
}
