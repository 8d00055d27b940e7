//! The PR-body splice (docs/reference.md#the-pr-body) on hostile bodies.
//!
//! Input: the body, optionally followed by a NUL byte and text that becomes the inner text
//! of all three sections (escaped, as every view escapes what users wrote). Properties:
//! every byte outside the marked spans is kept, in order (the text before the first span
//! exactly); splicing the result again changes nothing; the result shows no tampering.
#![no_main]

use std::ops::Range;

use auditloop::engine::ids::{AuditId, CommitSha, RepoName};
use auditloop::engine::md::escape;
use auditloop::engine::md::markers::{marked_spans, SectionKind};
use auditloop::engine::views::{
    body_stamp, sections, sections_tampered, splice, Sections, SpliceOutcome, Stamp, ViewContext,
};
use libfuzzer_sys::fuzz_target;

const LINK: &str = "https://github.com/octo/widgets/blob/auditloop-records/records/AUD-1.json";

fn view_sections(inner: Option<&str>) -> Sections {
    match inner {
        Some(text) => {
            let inner = escape::block(text);
            Sections {
                rounds: SectionKind::Rounds.wrap(&inner),
                waivers: SectionKind::Waivers.wrap(&inner),
                residual: SectionKind::Residual.wrap(&inner),
            }
        }
        None => {
            let ctx = ViewContext {
                html_base: "https://github.com".to_owned(),
                repository: RepoName::new("octo/widgets").expect("valid name"),
                records_branch: "auditloop-records".to_owned(),
            };
            sections(None, &ctx)
        }
    }
}

/// The parts of `body` outside every marked span (overlapping spans merged).
fn outside(body: &str) -> Vec<&str> {
    let mut spans: Vec<Range<usize>> = marked_spans(body).into_iter().map(|(_, s)| s).collect();
    spans.sort_by_key(|s| s.start);
    let mut parts = Vec::new();
    let mut pos = 0;
    for span in spans {
        if span.start >= pos {
            parts.push(&body[pos..span.start]);
        }
        pos = pos.max(span.end);
    }
    parts.push(&body[pos..]);
    parts
}

fuzz_target!(|input: &str| {
    let (body, inner) = match input.split_once('\0') {
        Some((body, inner)) => (body, Some(inner)),
        None => (input, None),
    };
    let sections = view_sections(inner);
    let spliced = match splice(body, &sections, LINK) {
        SpliceOutcome::TooLong => return,
        SpliceOutcome::Unchanged { .. } => body.to_owned(),
        SpliceOutcome::Updated { body: new, .. } => {
            assert_ne!(new, body, "Updated always changes the body");
            new
        }
    };

    let parts = outside(body);
    assert!(
        spliced.starts_with(parts[0]),
        "the text before the first section is kept"
    );
    let mut from = 0;
    for part in &parts {
        match spliced[from..].find(part) {
            Some(at) => from += at + part.len(),
            None => panic!("text outside the markers was lost: {part:?}"),
        }
    }

    assert!(
        matches!(
            splice(&spliced, &sections, LINK),
            SpliceOutcome::Unchanged { .. }
        ),
        "splicing is idempotent"
    );
    assert!(
        !sections_tampered(&spliced, &sections),
        "a fresh splice is not tampered"
    );

    // Stamped with the records commit they come from, the sections name it in the body,
    // whatever stamps the body forged; the same view from a later commit sends nothing.
    let at = |c: char| Stamp {
        commit: CommitSha::new(c.to_string().repeat(40)).expect("a full SHA"),
        record: AuditId::new("AUD-1").expect("an audit id"),
        events: 3,
    };
    let (ours, later) = (at('c'), at('d'));
    let stamped = match splice(body, &sections.clone().stamped(&ours), LINK) {
        SpliceOutcome::TooLong => return,
        // The body shows this view already (under another stamp, or none): nothing sent.
        SpliceOutcome::Unchanged { .. } => body.to_owned(),
        SpliceOutcome::Updated { body: new, .. } => {
            assert_eq!(body_stamp(&new), Some(ours), "the body names our commit");
            new
        }
    };
    assert!(
        matches!(
            splice(&stamped, &sections.clone().stamped(&later), LINK),
            SpliceOutcome::Unchanged { .. }
        ),
        "a stamp alone is no change"
    );
});
