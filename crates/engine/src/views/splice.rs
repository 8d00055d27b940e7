//! Splicing the sections into a PR body (docs/reference.md#the-pr-body).
//!
//! Only marked spans are ever replaced; every byte outside them is kept. A section's span
//! is its first complete pair: the first end marker that has a start marker before it,
//! with the nearest such start. Choosing the pair that completes first (rather than the
//! first start) keeps a stray start marker in human text from pairing with a section
//! appended later, which would swallow the human text between them.

use std::ops::Range;

use super::stamp::{body_stamp, body_unstamped, unstamped};
use super::Sections;
use crate::md::escape;
use crate::md::markers::{find_pair, marked_spans, SectionKind};

/// GitHub's limit on a PR body, in characters.
pub const BODY_LIMIT: usize = 65_536;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpliceOutcome {
    /// Send this body. `summarized`: the sections were shrunk to links to the record.
    Updated { body: String, summarized: bool },
    /// The body already shows the record: send nothing.
    Unchanged { summarized: bool },
    /// Even summaries would pass the limit: the body is left alone, the check run says so.
    TooLong,
}

/// `body` with each section put in place (or appended, in order, when missing). Stamped
/// sections (`Sections::stamped`) carry their stamp into the body.
#[must_use]
pub fn splice(body: &str, sections: &Sections, full_record_link: &str) -> SpliceOutcome {
    let full = build(body, sections);
    let (spliced, summarized) = if full.chars().count() <= BODY_LIMIT {
        (full, false)
    } else {
        let mut short_sections = summaries(full_record_link);
        if let Some(stamp) = body_stamp(&sections.rounds) {
            short_sections = short_sections.stamped(&stamp);
        }
        let short = build(body, &short_sections);
        if short.chars().count() > BODY_LIMIT {
            return SpliceOutcome::TooLong;
        }
        (short, true)
    };
    // A body that differs only in its stamp shows this view already; the stamp names the
    // commit that last changed what the body shows.
    if spliced == body || body_unstamped(&spliced) == body_unstamped(body) {
        SpliceOutcome::Unchanged { summarized }
    } else {
        SpliceOutcome::Updated {
            body: spliced,
            summarized,
        }
    }
}

/// Whether someone edited inside a section's markers: its marked span differs from the
/// record's view of it. The stamp is not part of the view: which commit a body was
/// computed from is judged by `app::publish::body`, through GitHub.
#[must_use]
pub fn sections_tampered(body: &str, sections: &Sections) -> bool {
    SectionKind::ALL.iter().any(|&kind| {
        find_pair(body, kind).is_some_and(|span| {
            body.get(span).map(unstamped) != Some(unstamped(sections.get(kind)))
        })
    })
}

fn build(body: &str, sections: &Sections) -> String {
    let mut found = marked_spans(body);
    found.sort_by_key(|(_, span)| span.start);

    // Hostile or mistaken bodies can nest or interleave sections; overlapping spans are
    // replaced together by their sections, in section order.
    let mut clusters: Vec<(Range<usize>, Vec<SectionKind>)> = Vec::new();
    for (kind, span) in found {
        match clusters.last_mut() {
            Some((range, kinds)) if span.start < range.end => {
                range.end = range.end.max(span.end);
                kinds.push(kind);
            }
            _ => clusters.push((span, vec![kind])),
        }
    }

    let mut out = String::with_capacity(body.len() + 4096);
    let mut pos = 0;
    let mut placed = Vec::new();
    for (range, mut kinds) in clusters {
        out.push_str(body.get(pos..range.start).unwrap_or_default());
        kinds.sort_by_key(|k| SectionKind::ALL.iter().position(|a| a == k));
        let texts: Vec<&str> = kinds.iter().map(|&k| sections.get(k)).collect();
        out.push_str(&texts.join("\n\n"));
        placed.extend(kinds);
        pos = range.end;
    }
    out.push_str(body.get(pos..).unwrap_or_default());

    for kind in SectionKind::ALL {
        if !placed.contains(&kind) {
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
            }
            out.push_str(sections.get(kind));
        }
    }
    out
}

/// Sections shrunk to a line each that links to the full record.
fn summaries(full_record_link: &str) -> Sections {
    let link = escape::url(full_record_link);
    let line = |what: &str| {
        format!("The {what} are too long for the pull request body: read them in [the audit record]({link}).")
    };
    Sections {
        rounds: SectionKind::Rounds.wrap(&line("audit rounds")),
        waivers: SectionKind::Waivers.wrap(&line("waivers")),
        residual: SectionKind::Residual.wrap(&line("residual findings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_is_the_first_to_complete() {
        let k = SectionKind::Waivers;
        let body = format!("a {} b {} c {} d", k.start(), k.start(), k.end());
        let span = find_pair(&body, k).unwrap_or(0..0);
        assert_eq!(&body[span], format!("{} c {}", k.start(), k.end()));
    }

    #[test]
    fn end_before_any_start_is_skipped() {
        let k = SectionKind::Rounds;
        let body = format!("{} x {} y {}", k.end(), k.start(), k.end());
        let span = find_pair(&body, k).unwrap_or(0..0);
        assert_eq!(&body[span], format!("{} y {}", k.start(), k.end()));
    }

    #[test]
    fn no_pair_without_both_markers() {
        let k = SectionKind::Residual;
        assert_eq!(find_pair(k.start(), k), None);
        assert_eq!(find_pair(&format!("{} {}", k.end(), k.start()), k), None);
    }
}
