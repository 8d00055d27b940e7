//! Comment replies (docs/reference.md#answers-and-refusals): refusals and `/audit status`. Every reply ends with a
//! delivery marker, so a redelivered webhook can find the reply it already made.

use crate::gate::GateResult;
use crate::record::Record;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::check_run::{cap, conditions_summary, record_line};
use super::links::ViewContext;
use super::words;
use crate::gate::verdict;
use crate::md::escape::inline;
use crate::md::Md;

/// Replies are cut above this many characters (GitHub allows 65,536 per comment).
pub const REPLY_LIMIT: usize = 60_000;

const TEXT_CHARS: usize = 1_000;
/// How much of a damage report the status reply repeats.
const WHAT_CHARS: usize = 4_000;

/// `<!-- auditloop:delivery:ID -->`. GitHub's delivery ids are GUIDs; anything but ASCII
/// letters, digits and `-` is percent-encoded, so the id cannot end the comment.
#[must_use]
pub fn delivery_marker(delivery: &str) -> String {
    const MARKER_ID: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-');
    let id = utf8_percent_encode(delivery, MARKER_ID);
    format!("<!-- auditloop:delivery:{id} -->")
}

/// `auditloop: refused: ` and what was wrong, then how to put it right. The prefix stays:
/// the reference (docs/reference.md#answers-and-refusals) and the programs that drive the loop look for it.
#[must_use]
pub fn refused(what: &Md, fix: &Md, delivery: &str) -> String {
    let marker = delivery_marker(delivery);
    let head = format!("auditloop: refused: {}", what.one_line().trim_end());
    let room = REPLY_LIMIT.saturating_sub(head.chars().count() + marker.chars().count() + 4);
    let fix = sentence(fix.as_markdown());
    format!("{head}\n\n{}\n\n{marker}", cap(&fix, room, None).trim_end())
}

/// `text` with its first letter upper-case: a reply's second paragraph is a sentence.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) if c.is_ascii_lowercase() => {
            format!("{}{}", c.to_ascii_uppercase(), chars.as_str())
        }
        _ => text.to_owned(),
    }
}

/// The `/audit status` reply: the verdict line, the record, the gate conditions (root
/// causes first), the budget and a link to the record, which is the audit packet an
/// auditor reads.
#[must_use]
pub fn status(
    record: Option<&Record>,
    gate: &GateResult,
    ctx: &ViewContext,
    delivery: &str,
) -> String {
    status_behind(record, gate, ctx, delivery, 0)
}

/// [`status`], answered while `ahead` earlier deliveries of the PR wait in its
/// installation's queue: it says so first, since what they change is not shown yet.
#[must_use]
pub fn status_behind(
    record: Option<&Record>,
    gate: &GateResult,
    ctx: &ViewContext,
    delivery: &str,
    ahead: u32,
) -> String {
    let mut out = format!("auditloop: status\n\n**{}**\n\n", gate.title.one_line());
    if ahead > 0 {
        let (n, them) = if ahead == 1 {
            ("1 command".to_owned(), "it")
        } else {
            (format!("{ahead} commands"), "them")
        };
        out.push_str(&format!(
            "⏳ {n} queued ahead of this one: this status does not show {them} yet. The installation's writes go at GitHub's pace; each gets its 👍 or its reply when carried out.\n\n"
        ));
    }
    match record {
        None => {
            out.push_str(words::START_HINT);
            out.push_str("\n\n");
        }
        Some(record) => {
            let tasks: Vec<Md> = record
                .covered_tasks
                .iter()
                .map(|t| Md::text(t.as_str()))
                .collect();
            let tasks = if tasks.is_empty() {
                Md::lit("none")
            } else {
                Md::join(&tasks, ", ")
            };
            out.push_str(&format!(
                "- Work unit: {}\n- Covered tasks: {}\n- Goal: {}\n- Oracle: {}\n\n",
                Md::code(record.work_unit.as_str()).as_markdown(),
                tasks.as_markdown(),
                inline(&record.goal, TEXT_CHARS),
                inline(&record.completion_oracle, TEXT_CHARS)
            ));
        }
    }
    out.push_str(&conditions_summary(&gate.conditions));
    let link = record.map(|r| ctx.record_url(&r.id));
    if let Some(record) = record {
        out.push('\n');
        out.push_str(&record_line(record, ctx));
    }
    finish(&out, delivery, link.as_deref())
}

/// `/audit status` when the records are damaged: that comes first, with how to repair
/// it, before the gate conditions (condition 1 fails with the same words).
#[must_use]
pub fn damaged_status(what: &str, fix: &Md, gate: &GateResult, delivery: &str) -> String {
    let mut out = format!(
        "auditloop: status\n\n**{}**\n\n{}\n\n",
        verdict::damaged(&Md::text_max(what, WHAT_CHARS)).one_line(),
        fix.as_markdown()
    );
    out.push_str(&conditions_summary(&gate.conditions));
    finish(&out, delivery, None)
}

/// `body`, cut to fit the reply limit with a link to the record, then the marker.
fn finish(body: &str, delivery: &str, record_link: Option<&str>) -> String {
    let marker = delivery_marker(delivery);
    let room = REPLY_LIMIT.saturating_sub(marker.chars().count() + 2);
    let body = cap(body.trim_end(), room, record_link);
    format!("{}\n\n{marker}", body.trim_end())
}
