//! Comment replies (CONTRACT §6): refusals and `/audit status`. Every reply ends with a
//! delivery marker, so a redelivered webhook can find the reply it already made.

use crate::engine::gate::GateResult;
use crate::engine::record::Record;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::check_run::cap;
use super::context::{record_path, ViewContext};
use super::escape::{block, inline, truncate};
use super::words;

/// Replies are cut above this many characters (GitHub allows 65,536 per comment).
pub const REPLY_LIMIT: usize = 60_000;

const TEXT_CHARS: usize = 1_000;
/// What was wrong fits on the first line; escaping can grow it at most sixfold, which
/// leaves most of the reply for how to put it right.
const WHAT_CHARS: usize = 4_000;

/// `<!-- auditloop:delivery:ID -->`. GitHub's delivery ids are GUIDs; anything but ASCII
/// letters, digits and `-` is percent-encoded, so the id cannot end the comment.
#[must_use]
pub fn delivery_marker(delivery: &str) -> String {
    const MARKER_ID: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-');
    let id = utf8_percent_encode(delivery, MARKER_ID);
    format!("<!-- auditloop:delivery:{id} -->")
}

/// `auditloop: refused`, what was wrong, and how to put it right.
#[must_use]
pub fn refused(what: &str, fix: &str, delivery: &str) -> String {
    let marker = delivery_marker(delivery);
    let head = format!("auditloop: refused: {}", inline(what, WHAT_CHARS));
    let room = REPLY_LIMIT.saturating_sub(head.chars().count() + marker.chars().count() + 4);
    format!("{head}\n\n{}\n\n{marker}", fit_block(fix, room))
}

/// The `/audit status` reply: the record, the gate conditions, the budget and a link to
/// the record, which is the audit packet an auditor reads.
#[must_use]
pub fn status(
    record: Option<&Record>,
    gate: &GateResult,
    ctx: &ViewContext,
    delivery: &str,
) -> String {
    let mut out = String::from("auditloop: status\n\n");
    match record {
        None => {
            out.push_str(words::START_HINT);
            out.push_str("\n\n");
        }
        Some(record) => {
            let latest = record.latest_run();
            let tasks: Vec<&str> = record
                .covered_tasks
                .iter()
                .map(crate::ids::TaskId::as_str)
                .collect();
            out.push_str(&format!(
                "Record {} for {} is {}: candidate {}, covered tasks {}, latest verdict {}, grade {}.\n\n",
                record.id,
                inline(record.work_unit.as_str(), 200),
                words::state(record),
                record.candidate_artifact.short(),
                if tasks.is_empty() { "none".to_owned() } else { inline(&tasks.join(", "), TEXT_CHARS) },
                latest.map_or("none yet", |r| r.verdict.as_str()),
                latest.map_or("none yet", |r| r.grade.as_str()),
            ));
            out.push_str(&format!(
                "- Goal: {}\n- Oracle: {}\n\n",
                inline(&record.goal, TEXT_CHARS),
                inline(&record.completion_oracle, TEXT_CHARS)
            ));
        }
    }
    out.push_str(&format!(
        "Gate: {} ({})\n\n",
        inline(&gate.title, 255),
        gate.conclusion.as_str()
    ));
    out.push_str(&conditions(gate));
    let link = record.map(|r| ctx.record_url(&r.id));
    if let Some(record) = record {
        out.push_str(&format!(
            "\n{}.\n\nThe audit packet: [{}]({}).\n",
            words::budget(record),
            record_path(&record.id),
            ctx.record_url(&record.id)
        ));
    }
    finish(&out, delivery, link.as_deref())
}

/// `/audit status` when the records are damaged: that comes first, with how to repair
/// it, before the gate conditions (condition 1 fails with the same words).
#[must_use]
pub fn damaged_status(what: &str, fix: &str, gate: &GateResult, delivery: &str) -> String {
    let mut out = format!(
        "auditloop: status\n\nThe audit record is damaged: {}\n\n{}\n\n",
        inline(what, WHAT_CHARS),
        block(&truncate(fix, TEXT_CHARS * 4))
    );
    out.push_str(&format!(
        "Gate: {} ({})\n\n",
        inline(&gate.title, 255),
        gate.conclusion.as_str()
    ));
    out.push_str(&conditions(gate));
    finish(&out, delivery, None)
}

fn conditions(gate: &GateResult) -> String {
    let mut out = String::new();
    for c in &gate.conditions {
        let mark = match c.outcome {
            crate::engine::gate::Outcome::Pass => "✅",
            crate::engine::gate::Outcome::Fail => "❌",
            crate::engine::gate::Outcome::Pending => "⏳",
        };
        out.push_str(&format!(
            "- {mark} {}. {}: {}\n",
            c.number,
            inline(c.title, 200),
            inline(&c.reason, 500)
        ));
    }
    out
}

/// `body`, cut to fit the reply limit with a link to the record, then the marker.
fn finish(body: &str, delivery: &str, record_link: Option<&str>) -> String {
    let marker = delivery_marker(delivery);
    let room = REPLY_LIMIT.saturating_sub(marker.chars().count() + 2);
    let body = cap(body.trim_end(), room, record_link);
    format!("{}\n\n{marker}", body.trim_end())
}

/// The longest prefix of `text` whose escaped form fits in `room` characters, so that a
/// cut never splits an escape.
fn fit_block(text: &str, room: usize) -> String {
    let escaped = block(text);
    if escaped.chars().count() <= room {
        return escaped;
    }
    let (mut lo, mut hi) = (0usize, text.chars().count());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if block(&truncate(text, mid)).chars().count() <= room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    block(&truncate(text, lo))
}
