//! Splicing the sections into PR bodies: only marked spans change.

use crate::views_support;

use std::ops::Range;

use auditloop::engine::ids::{AuditId, CommitSha};
use auditloop::engine::md::markers::{marked_spans, SectionKind};
use auditloop::engine::views::stamp::stamp;
use auditloop::engine::views::{
    self, body_stamp, sections_tampered, splice, Sections, SpliceOutcome, Stamp, BODY_LIMIT,
};
use proptest::prelude::*;
use views_support::*;

const LINK: &str = "https://github.com/octo/widgets/blob/auditloop-records/records/AUD-7.json";

fn sections() -> Sections {
    views::sections(Some(&rich_record()), &ctx())
}

fn updated(outcome: SpliceOutcome) -> String {
    match outcome {
        SpliceOutcome::Updated {
            body,
            summarized: false,
        } => body,
        other => panic!("expected a full update, got {other:?}"),
    }
}

fn all(s: &Sections) -> String {
    format!("{}\n\n{}\n\n{}", s.rounds, s.waivers, s.residual)
}

#[test]
fn appends_missing_sections_in_order_after_a_blank_line() {
    let s = sections();
    let cases = [
        ("", all(&s)),
        ("Fixes #12.", format!("Fixes #12.\n\n{}", all(&s))),
        ("Fixes #12.\n", format!("Fixes #12.\n\n{}", all(&s))),
        ("Fixes #12.\n\n", format!("Fixes #12.\n\n{}", all(&s))),
        ("Fixes #12.\r\n", format!("Fixes #12.\r\n\n{}", all(&s))),
    ];
    for (body, want) in cases {
        assert_eq!(updated(splice(body, &s, LINK)), want, "{body:?}");
    }
}

#[test]
fn replaces_sections_in_place_and_keeps_everything_else() {
    let s = sections();
    let k = SectionKind::Waivers;
    let body = format!(
        "Intro\r\n{}\nold waivers\n{}\r\nOutro with {} stray",
        k.start(),
        k.end(),
        SectionKind::Rounds.end()
    );
    let out = updated(splice(&body, &s, LINK));
    let want = format!(
        "Intro\r\n{}\r\nOutro with {} stray\n\n{}\n\n{}",
        s.waivers,
        SectionKind::Rounds.end(),
        s.rounds,
        s.residual
    );
    assert_eq!(out, want);
}

#[test]
fn only_the_first_complete_pair_is_replaced() {
    let s = sections();
    let k = SectionKind::Rounds;
    let body = format!(
        "{a} stray start\n{a}one{b}\nmiddle\n{a}two{b}\n",
        a = k.start(),
        b = k.end()
    );
    let out = updated(splice(&body, &s, LINK));
    assert!(
        out.starts_with(&format!(
            "{} stray start\n{}\nmiddle\n{}two{}\n",
            k.start(),
            s.rounds,
            k.start(),
            k.end()
        )),
        "{out}"
    );
}

#[test]
fn unchanged_when_the_body_already_shows_the_record() {
    let s = sections();
    let once = updated(splice("Body", &s, LINK));
    assert_eq!(
        splice(&once, &s, LINK),
        SpliceOutcome::Unchanged { summarized: false }
    );
}

#[test]
fn nested_and_interleaved_sections_settle_in_one_pass() {
    let s = sections();
    let (r, w) = (SectionKind::Rounds, SectionKind::Waivers);
    let bodies = [
        format!(
            "A {} B {} C {} D {} E",
            w.start(),
            r.start(),
            r.end(),
            w.end()
        ),
        format!(
            "A {} B {} C {} D {} E",
            r.start(),
            w.start(),
            r.end(),
            w.end()
        ),
        format!(
            "A {} B {} C {} D {} E",
            w.start(),
            r.start(),
            w.end(),
            r.end()
        ),
    ];
    for body in bodies {
        let out = updated(splice(&body, &s, LINK));
        assert!(out.starts_with("A ") && out.contains(" E"), "{out}");
        for kind in SectionKind::ALL {
            assert_eq!(out.matches(s.get(kind)).count(), 1, "{out}");
        }
        assert_eq!(
            splice(&out, &s, LINK),
            SpliceOutcome::Unchanged { summarized: false }
        );
    }
}

#[test]
fn shrinks_to_summaries_then_gives_up_but_never_cuts_human_text() {
    let s = sections();
    let section_chars = all(&s).chars().count();
    // Fits in full.
    let fits = "h".repeat(BODY_LIMIT - section_chars - 2);
    assert_eq!(updated(splice(&fits, &s, LINK)).chars().count(), BODY_LIMIT);
    // One more character: summaries.
    let near = "h".repeat(BODY_LIMIT - section_chars - 1);
    match splice(&near, &s, LINK) {
        SpliceOutcome::Updated {
            body,
            summarized: true,
        } => {
            assert!(body.starts_with(&near));
            assert!(body.chars().count() <= BODY_LIMIT);
            assert!(body.contains(LINK));
            assert_eq!(
                splice(&body, &s, LINK),
                SpliceOutcome::Unchanged { summarized: true }
            );
        }
        other => panic!("expected summaries, got {other:?}"),
    }
    // Multi-byte characters count as one.
    let wide = "é".repeat(BODY_LIMIT - section_chars - 2);
    assert!(matches!(
        splice(&wide, &s, LINK),
        SpliceOutcome::Updated {
            summarized: false,
            ..
        }
    ));
    // Nothing fits.
    assert_eq!(
        splice(&"h".repeat(BODY_LIMIT - 10), &s, LINK),
        SpliceOutcome::TooLong
    );
}

#[test]
fn tampering_inside_markers_is_detected() {
    let s = sections();
    let clean = updated(splice("Body", &s, LINK));
    assert!(!sections_tampered(&clean, &s));
    assert!(!sections_tampered("Body without sections", &s));
    let edited = clean.replace("human: maint", "human: someone-else");
    assert!(sections_tampered(&edited, &s));
    let outside = format!("Edited intro\n{clean}");
    assert!(!sections_tampered(&outside, &s));
}

// ---- properties ----

const PLACEHOLDER: char = '\u{E000}';

fn piece() -> impl Strategy<Value = String> {
    let markers: Vec<String> = SectionKind::ALL
        .iter()
        .flat_map(|k| [k.start().to_owned(), k.end().to_owned()])
        .collect();
    prop_oneof![
        3 => "[a-zA-Z #|<>!\\-\r\n]{0,12}",
        3 => prop::sample::select(markers),
        1 => Just("<!-- auditloop:rounds:".to_owned()),
        1 => Just("-->".to_owned()),
        1 => Just("\r\n".to_owned()),
        1 => Just("## Audit rounds\n| a | b |\n".to_owned()),
    ]
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..14).prop_map(|p| p.concat())
}

/// Overlapping spans merged, with how many sections each group holds.
fn groups(mut spans: Vec<Range<usize>>) -> Vec<(Range<usize>, usize)> {
    spans.sort_by_key(|s| s.start);
    let mut out: Vec<(Range<usize>, usize)> = Vec::new();
    for s in spans {
        match out.last_mut() {
            Some((g, n)) if s.start < g.end => {
                g.end = g.end.max(s.end);
                *n += 1;
            }
            _ => out.push((s, 1)),
        }
    }
    out
}

/// `text` with each group replaced by placeholders, one per section it holds.
fn placeholders(text: &str, groups: &[(Range<usize>, usize)]) -> String {
    let mut out = String::new();
    let mut pos = 0;
    for (g, n) in groups {
        out.push_str(&text[pos..g.start]);
        out.push_str(&vec![PLACEHOLDER.to_string(); *n].join("\n\n"));
        pos = g.end;
    }
    out.push_str(&text[pos..]);
    out
}

proptest! {
    #[test]
    fn splice_keeps_outside_text_and_is_idempotent(body in body()) {
        let s = sections();
        let spans = marked_spans(&body);
        for (kind, span) in &spans {
            prop_assert!(body[span.clone()].starts_with(kind.start()));
            prop_assert!(body[span.clone()].ends_with(kind.end()));
        }
        let out = match splice(&body, &s, LINK) {
            SpliceOutcome::Updated { body: out, summarized: false } => out,
            SpliceOutcome::Unchanged { summarized: false } => body.clone(),
            other => return Err(TestCaseError::fail(format!("{other:?}"))),
        };

        // The result shows each section exactly once, as its first complete pair.
        let out_spans = marked_spans(&out);
        prop_assert_eq!(out_spans.len(), 3);
        for (kind, span) in &out_spans {
            prop_assert_eq!(&out[span.clone()], s.get(*kind));
        }

        // Outside the replaced spans, the body is kept byte for byte; missing sections
        // come after it.
        let before = placeholders(&body, &groups(spans.iter().map(|(_, r)| r.clone()).collect()));
        let after = placeholders(&out, &groups(out_spans.iter().map(|(_, r)| r.clone()).collect()));
        let missing = 3 - spans.len();
        let mut want = before.clone();
        if missing > 0 {
            if !want.is_empty() && !want.ends_with("\n\n") {
                want.push_str(if want.ends_with('\n') { "\n" } else { "\n\n" });
            }
            want.push_str(&vec![PLACEHOLDER.to_string(); missing].join("\n\n"));
        }
        prop_assert_eq!(after, want);

        prop_assert_eq!(splice(&out, &s, LINK), SpliceOutcome::Unchanged { summarized: false });
        prop_assert!(!sections_tampered(&out, &s));
    }

    #[test]
    fn splice_respects_the_size_limit(extra in 0usize..3_000, body in body()) {
        let s = sections();
        let human = format!("{}{body}", "x".repeat(BODY_LIMIT - 3_000 + extra));
        match splice(&human, &s, LINK) {
            SpliceOutcome::Updated { body: out, summarized } => {
                prop_assert!(out.chars().count() <= BODY_LIMIT);
                prop_assert!(out.starts_with(&"x".repeat(BODY_LIMIT - 3_000 + extra)));
                prop_assert_eq!(splice(&out, &s, LINK), SpliceOutcome::Unchanged { summarized });
            }
            SpliceOutcome::Unchanged { .. } => prop_assert!(human.chars().count() <= BODY_LIMIT),
            SpliceOutcome::TooLong => {}
        }
    }
}

fn sha(c: char) -> Stamp {
    Stamp {
        commit: CommitSha::new(c.to_string().repeat(40)).unwrap(),
        record: AuditId::new("AUD-7").unwrap(),
        events: 4,
    }
}

/// Body text that forges stamps: well-formed ones for commits `a…` and `b…`, malformed
/// ones, and markers around them.
fn forging_body() -> impl Strategy<Value = String> {
    let forged = prop_oneof![
        3 => piece(),
        2 => Just(stamp(&sha('a'))),
        2 => Just(stamp(&sha('b'))),
        1 => Just(format!("\n{}", stamp(&sha('a')))),
        1 => Just(format!("{}\n{}", SectionKind::Rounds.start(), stamp(&sha('b')))),
        1 => Just("<!-- auditloop:records:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA AUD-7 4 -->".to_owned()),
        1 => Just(format!("<!-- auditloop:records:{} AUD-7 -->", "a".repeat(40))),
    ];
    prop::collection::vec(forged, 0..14).prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn only_the_stamp_in_the_managed_section_counts(body in forging_body()) {
        // Whatever a body says, a stamp counts only on the line after the start marker
        // of the rounds section's first complete pair, the span the splice replaces.
        if let Some(named) = body_stamp(&body) {
            let (_, span) = marked_spans(&body)
                .into_iter()
                .find(|(k, _)| *k == SectionKind::Rounds)
                .expect("a stamp lives in the rounds section");
            let section = &body[span];
            let after = section.strip_prefix(SectionKind::Rounds.start()).unwrap();
            let after = after.strip_prefix('\n').or_else(|| after.strip_prefix("\r\n")).unwrap();
            prop_assert!(after.starts_with(&stamp(&named)));
        }

        // After a splice the body names our commit, wherever forged stamps were; the same
        // view from another commit changes nothing; a fresh splice is not tampered.
        let ours = sha('c');
        let s = sections().stamped(&ours);
        let out = match splice(&body, &s, LINK) {
            SpliceOutcome::Updated { body: out, .. } => {
                prop_assert_eq!(body_stamp(&out), Some(ours));
                out
            }
            // Only a body that shows this view already, under any stamp or none.
            SpliceOutcome::Unchanged { .. } => body.clone(),
            SpliceOutcome::TooLong => return Ok(()),
        };
        let later = sections().stamped(&sha('d'));
        let again = matches!(splice(&out, &later, LINK), SpliceOutcome::Unchanged { .. });
        prop_assert!(again, "the same view from another commit is sent again");
        prop_assert!(!sections_tampered(&out, &sections()));
        prop_assert!(!sections_tampered(&out, &later));
    }
}
