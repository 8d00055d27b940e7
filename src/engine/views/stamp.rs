//! The records commit a PR body's sections were computed from (CONTRACT §9).
//!
//! A hidden line right after the rounds section's start marker names it:
//! `<!-- auditloop:records:<sha> -->`. Before patching the body, the app reads the body's
//! stamp and leaves a body computed from a newer records commit standing (`app::body`). Only
//! the stamp in that exact place counts: inside the first complete rounds pair (the span
//! the splice replaces), on the line after its start marker. A stamp anywhere else is text:
//! a user who writes one outside the managed section changes nothing. Report and command
//! text in the views is escaped (`<` becomes `&lt;`), so it cannot make one either.
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

use crate::ids::CommitSha;

use super::markers::SectionKind;
use super::Sections;

const PREFIX: &str = "<!-- auditloop:records:";
const SUFFIX: &str = " -->";
const SHA_LEN: usize = 40;

/// The hidden line naming `commit`.
pub fn stamp(commit: &CommitSha) -> String {
    format!("{PREFIX}{commit}{SUFFIX}")
}

impl Sections {
    /// These sections, stamped with the records commit they were computed from. A stamp
    /// already there is replaced.
    pub fn stamped(mut self, commit: &CommitSha) -> Sections {
        let start = SectionKind::Rounds.start();
        let plain = unstamped(&self.rounds).into_owned();
        if let Some(rest) = plain.strip_prefix(start) {
            self.rounds = format!("{start}\n{}{rest}", stamp(commit));
        }
        self
    }
}

/// The records commit the stamp of `body`'s managed rounds section names, if it has one.
pub fn stamped_commit(body: &str) -> Option<CommitSha> {
    let span = super::splice::find_pair(body, SectionKind::Rounds)?;
    let section = body.get(span)?;
    let at = stamp_at(section)?;
    let sha = section.get(at.end - SUFFIX.len() - SHA_LEN..at.end - SUFFIX.len())?;
    CommitSha::new(sha.to_owned()).ok()
}

/// `body` without the stamp of its managed rounds section: two bodies that differ only in
/// their stamps show the same view.
pub fn body_unstamped(body: &str) -> Cow<'_, str> {
    let Some(span) = super::splice::find_pair(body, SectionKind::Rounds) else {
        return Cow::Borrowed(body);
    };
    let Some(at) = body.get(span.clone()).and_then(stamp_at) else {
        return Cow::Borrowed(body);
    };
    let (from, to) = (span.start + at.start, span.start + at.end);
    Cow::Owned(format!("{}{}", &body[..from], &body[to..]))
}

/// A rounds section (its first complete pair, markers included) without its stamp.
pub fn unstamped(section: &str) -> Cow<'_, str> {
    match stamp_at(section) {
        Some(at) => Cow::Owned(format!("{}{}", &section[..at.start], &section[at.end..])),
        None => Cow::Borrowed(section),
    }
}

/// Where the stamp line is in a rounds section that starts with its start marker: the
/// range from the line break after the marker to the end of the stamp, so that removing
/// it leaves the section as it was rendered. `None` when there is no well-formed stamp in
/// that place.
fn stamp_at(section: &str) -> Option<Range<usize>> {
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
    let sha = line.get(..SHA_LEN)?;
    if !sha
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return None;
    }
    line.get(SHA_LEN..)?.strip_prefix(SUFFIX)?;
    let from = start.len();
    Some(from..from + brk + PREFIX.len() + SHA_LEN + SUFFIX.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(c: char) -> CommitSha {
        CommitSha::new(c.to_string().repeat(40)).expect("a full SHA")
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
        let once = sections().stamped(&sha('a'));
        let twice = once.clone().stamped(&sha('b'));
        assert_eq!(twice.rounds.matches(PREFIX).count(), 1);
        assert_eq!(stamped_commit(&twice.rounds), Some(sha('b')));
        assert_eq!(unstamped(&once.rounds), sections().rounds);
    }

    #[test]
    fn a_stamp_outside_the_managed_section_is_text() {
        let s = sections();
        let fake = stamp(&sha('f'));
        for body in [
            format!("{fake}\n{}", s.rounds),
            format!("{}\n{fake}", s.rounds),
            format!("{}\n{fake}", s.waivers),
            // Inside the section but not on the line after the start marker.
            s.rounds.replace("No runs yet.", &fake),
            // A start marker with no end is no section.
            format!("{}\n{fake}\n", SectionKind::Rounds.start()),
        ] {
            assert_eq!(stamped_commit(&body), None, "{body}");
            assert_eq!(body_unstamped(&body), body);
        }
    }

    #[test]
    fn only_the_first_complete_pair_counts() {
        let first = sections().stamped(&sha('1')).rounds;
        let second = sections().stamped(&sha('2')).rounds;
        let body = format!("intro\n{first}\n\n{second}");
        assert_eq!(stamped_commit(&body), Some(sha('1')));
        // A stray start marker in human text before the section does not move it.
        let stray = format!(
            "{}\n{}\n{first}",
            SectionKind::Rounds.start(),
            stamp(&sha('3'))
        );
        assert_eq!(stamped_commit(&stray), Some(sha('1')));
    }

    #[test]
    fn malformed_stamps_name_nothing() {
        let start = SectionKind::Rounds.start();
        let end = SectionKind::Rounds.end();
        for line in [
            format!("{PREFIX}{}{SUFFIX}", "A".repeat(40)),
            format!("{PREFIX}{}{SUFFIX}", "a".repeat(39)),
            format!("{PREFIX}{}x{SUFFIX}", "a".repeat(40)),
            format!("{PREFIX}{}", "a".repeat(40)),
            format!(" {PREFIX}{}{SUFFIX}", "a".repeat(40)),
            format!("{PREFIX}{}é{SUFFIX}", "a".repeat(39)),
        ] {
            let body = format!("{start}\n{line}\n## Audit rounds\n\n{end}");
            assert_eq!(stamped_commit(&body), None, "{line}");
        }
    }

    #[test]
    fn crlf_bodies_keep_their_stamp() {
        let body = sections().stamped(&sha('c')).rounds.replace('\n', "\r\n");
        assert_eq!(stamped_commit(&body), Some(sha('c')));
        assert!(!body_unstamped(&body).contains(PREFIX));
    }
}
