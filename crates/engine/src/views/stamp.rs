//! The records commit a PR body's sections were computed from (docs/reference.md#the-pr-body).
//!
//! A hidden line right after the rounds section's start marker names it, with the record
//! shown and how many history events it had: `<!-- auditloop:records:<sha> AUD-7 12 -->`.
//! A record's history only grows, so a stamp showing no more events of the same record
//! than ours is not newer, and no call is needed to say so. Before patching the body, the
//! app reads the body's stamp and leaves a body computed from a newer records commit
//! standing (`app::publish::body`). Only the stamp in that exact place counts: inside the
//! first complete rounds pair (the span the splice replaces), on the line after its start
//! marker. A stamp anywhere else is text: a user who writes one outside the managed
//! section changes nothing. Report and command text in the views is escaped (`<` becomes
//! `&lt;`), so it cannot make one either.
//!
//! A body editor can still write a stamp in that place. That cannot make the app skip an
//! update it owes: the app skips only when the stamp names a records commit that is newer
//! than its own and on the records branch now, checked through GitHub (compare and ref
//! read). Such a commit was written by a delivery whose own views, computed from it or from
//! something newer, are published or retried. A stamp naming anything else (made up, older,
//! not on the branch) is overwritten by the next update like any edit inside the markers.
//! The stamp is never taken as evidence of damage: only our check run's `external_id`,
//! which no one but the App can write, is.

use std::borrow::Cow;
use std::ops::Range;

use crate::ids::{AuditId, CommitSha};

use super::Sections;
use crate::md::markers::SectionKind;

const PREFIX: &str = "<!-- auditloop:records:";
const SUFFIX: &str = " -->";
/// Longer than any stamp we write: a commit, a record id and a count.
const MAX_LINE: usize = 120;

/// What a body's sections were computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub commit: CommitSha,
    pub record: AuditId,
    /// The record's history events at `commit`.
    pub events: usize,
}

/// The hidden line naming `stamp`.
#[must_use]
pub fn stamp(stamp: &Stamp) -> String {
    format!(
        "{PREFIX}{} {} {}{SUFFIX}",
        stamp.commit, stamp.record, stamp.events
    )
}

impl Sections {
    /// These sections, stamped with what they were computed from. A stamp already there is
    /// replaced.
    #[must_use]
    pub fn stamped(mut self, with: &Stamp) -> Sections {
        let start = SectionKind::Rounds.start();
        let plain = unstamped(&self.rounds).into_owned();
        if let Some(rest) = plain.strip_prefix(start) {
            self.rounds = format!("{start}\n{}{rest}", stamp(with));
        }
        self
    }
}

/// The stamp of `body`'s managed rounds section, if it has one.
#[must_use]
pub fn body_stamp(body: &str) -> Option<Stamp> {
    let span = crate::md::markers::find_pair(body, SectionKind::Rounds)?;
    parse(body.get(span)?).map(|(stamp, _)| stamp)
}

/// `body` without the stamp of its managed rounds section: two bodies that differ only in
/// their stamps show the same view.
pub(crate) fn body_unstamped(body: &str) -> Cow<'_, str> {
    let Some(span) = crate::md::markers::find_pair(body, SectionKind::Rounds) else {
        return Cow::Borrowed(body);
    };
    let Some((_, at)) = body.get(span.clone()).and_then(parse) else {
        return Cow::Borrowed(body);
    };
    let (from, to) = (span.start + at.start, span.start + at.end);
    Cow::Owned(format!("{}{}", &body[..from], &body[to..]))
}

/// A rounds section (its first complete pair, markers included) without its stamp.
#[must_use]
pub(crate) fn unstamped(section: &str) -> Cow<'_, str> {
    match parse(section) {
        Some((_, at)) => Cow::Owned(format!("{}{}", &section[..at.start], &section[at.end..])),
        None => Cow::Borrowed(section),
    }
}

/// The stamp of a rounds section that starts with its start marker, and where it is: the
/// range from the line break after the marker to the end of the stamp, so that removing
/// it leaves the section as it was rendered. `None` when there is no well-formed stamp in
/// that place.
fn parse(section: &str) -> Option<(Stamp, Range<usize>)> {
    let start = SectionKind::Rounds.start();
    let after = section.strip_prefix(start)?;
    // A body edited in the browser comes back with CRLF line breaks.
    let brk = if after.starts_with("\r\n") {
        2
    } else if after.starts_with('\n') {
        1
    } else {
        return None;
    };
    let line = after.get(brk..)?.strip_prefix(PREFIX)?;
    // The first suffix, within the line's bound. (Not by slicing at the bound: the text
    // after the stamp may put a multi-byte character across it.)
    let end = line.find(SUFFIX).filter(|e| e + SUFFIX.len() <= MAX_LINE)?;
    let mut parts = line[..end].split(' ');
    let (commit, record, events) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || events.len() > 9 || !events.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let stamp = Stamp {
        commit: CommitSha::new(commit.to_owned()).ok()?,
        record: AuditId::new(record.to_owned()).ok()?,
        events: events.parse().ok()?,
    };
    let from = start.len();
    Some((stamp, from..from + brk + PREFIX.len() + end + SUFFIX.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(c: char, events: usize) -> Stamp {
        Stamp {
            commit: CommitSha::new(c.to_string().repeat(40)).expect("a full SHA"),
            record: AuditId::new("AUD-7").expect("an audit id"),
            events,
        }
    }

    fn sections() -> Sections {
        Sections {
            rounds: SectionKind::Rounds.wrap("No runs yet."),
            waivers: SectionKind::Waivers.wrap("None."),
            residual: SectionKind::Residual.wrap("None."),
        }
    }

    #[test]
    fn stamping_twice_keeps_one_stamp() {
        let once = sections().stamped(&at('a', 3));
        let twice = once.clone().stamped(&at('b', 4));
        assert_eq!(twice.rounds.matches(PREFIX).count(), 1);
        assert_eq!(body_stamp(&twice.rounds), Some(at('b', 4)));
        assert_eq!(unstamped(&once.rounds), sections().rounds);
    }

    #[test]
    fn a_stamp_outside_the_managed_section_is_text() {
        let s = sections();
        let fake = stamp(&at('f', 9));
        for body in [
            format!("{fake}\n{}", s.rounds),
            format!("{}\n{fake}", s.rounds),
            format!("{}\n{fake}", s.waivers),
            // Inside the section but not on the line after the start marker.
            s.rounds.replace("No runs yet.", &fake),
            // A start marker with no end is no section.
            format!("{}\n{fake}\n", SectionKind::Rounds.start()),
        ] {
            assert_eq!(body_stamp(&body), None, "{body}");
            assert_eq!(body_unstamped(&body), body);
        }
    }

    #[test]
    fn only_the_first_complete_pair_counts() {
        let first = sections().stamped(&at('1', 1)).rounds;
        let second = sections().stamped(&at('2', 2)).rounds;
        let body = format!("intro\n{first}\n\n{second}");
        assert_eq!(body_stamp(&body), Some(at('1', 1)));
        // A stray start marker in human text before the section does not move it.
        let stray = format!(
            "{}\n{}\n{first}",
            SectionKind::Rounds.start(),
            stamp(&at('3', 3))
        );
        assert_eq!(body_stamp(&stray), Some(at('1', 1)));
    }

    #[test]
    fn malformed_stamps_name_nothing() {
        let start = SectionKind::Rounds.start();
        let end = SectionKind::Rounds.end();
        let a = "a".repeat(40);
        for line in [
            format!("{PREFIX}{} AUD-7 1{SUFFIX}", "A".repeat(40)),
            format!("{PREFIX}{} AUD-7 1{SUFFIX}", "a".repeat(39)),
            format!("{PREFIX}{a} AUD-7{SUFFIX}"),
            format!("{PREFIX}{a}{SUFFIX}"),
            format!("{PREFIX}{a} AUD-07 1{SUFFIX}"),
            format!("{PREFIX}{a} AUD-7 +1{SUFFIX}"),
            format!("{PREFIX}{a} AUD-7 1 2{SUFFIX}"),
            format!("{PREFIX}{a} AUD-7 1234567890{SUFFIX}"),
            format!("{PREFIX}{a} AUD-7 1"),
            format!("{PREFIX}{a} AUD-7 1\n{SUFFIX}"),
            format!(" {PREFIX}{a} AUD-7 1{SUFFIX}"),
            format!("{PREFIX}{a} AUD-7 {}{SUFFIX}", "1".repeat(200)),
        ] {
            let body = format!("{start}\n{line}\n## Audit rounds\n\n{end}");
            assert_eq!(body_stamp(&body), None, "{line}");
        }
    }

    #[test]
    fn crlf_bodies_keep_their_stamp() {
        let body = sections().stamped(&at('c', 5)).rounds.replace('\n', "\r\n");
        assert_eq!(body_stamp(&body), Some(at('c', 5)));
        assert!(!body_unstamped(&body).contains(PREFIX));
    }

    #[test]
    fn a_stamp_followed_by_wide_characters_is_read() {
        // Found by fuzzing: text after the stamp with a multi-byte character across the
        // line bound hid the stamp.
        let ours = at('c', 3);
        let text = "\u{fffd}".repeat(200);
        let section = SectionKind::Rounds.wrap(&text);
        let stamped = Sections {
            rounds: section,
            waivers: SectionKind::Waivers.wrap("None."),
            residual: SectionKind::Residual.wrap("None."),
        }
        .stamped(&ours);
        for cut in 0..4 {
            let padded = format!("{}{}", "x".repeat(cut), stamped.rounds);
            assert_eq!(body_stamp(&padded), Some(ours.clone()), "offset {cut}");
        }
    }
}
