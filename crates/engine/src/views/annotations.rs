//! Check-run annotations from findings' `path:line` / `path:start-end` evidence (docs/reference.md#the-check-run).

use crate::record::{FindingSummary, ReportRun};
use crate::report::Severity;

use crate::md::escape::truncate;
pub use crate::report::evidence_ref::parse_evidence_ref;

/// GitHub accepts at most this many annotations per check-run request.
pub(crate) const ANNOTATIONS_PER_REQUEST: usize = 50;

const TITLE_CHARS: usize = 255;
const MESSAGE_CHARS: usize = 2_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationLevel {
    Notice,
    Warning,
    Failure,
}

impl AnnotationLevel {
    /// The `annotation_level` GitHub expects.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AnnotationLevel::Notice => "notice",
            AnnotationLevel::Warning => "warning",
            AnnotationLevel::Failure => "failure",
        }
    }

    fn of(finding: &FindingSummary) -> Self {
        if finding.blocking {
            AnnotationLevel::Failure
        } else if matches!(finding.severity, Severity::Critical | Severity::High) {
            AnnotationLevel::Warning
        } else {
            AnnotationLevel::Notice
        }
    }
}

/// Annotation text is shown by GitHub as plain text (no Markdown, no mentions), so it is
/// only cut to length, not escaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub level: AnnotationLevel,
    pub title: String,
    pub message: String,
}

/// The annotations of one run, in finding order; unusable references are skipped.
#[must_use]
pub fn annotations(run: &ReportRun) -> Vec<Annotation> {
    run.findings
        .iter()
        .flat_map(|f| {
            f.evidence_refs.iter().filter_map(move |r| {
                let (path, start_line, end_line) = parse_evidence_ref(r)?;
                let blocking = if f.blocking { ", blocking" } else { "" };
                let key = f.key.as_ref().map(|k| format!(": {k}")).unwrap_or_default();
                Some(Annotation {
                    path,
                    start_line,
                    end_line,
                    level: AnnotationLevel::of(f),
                    title: truncate(
                        &format!("{} ({}{blocking}){key}", f.id, f.severity.as_str()),
                        TITLE_CHARS,
                    ),
                    message: truncate(&f.claim, MESSAGE_CHARS),
                })
            })
        })
        .collect()
}

/// The requests' worth of annotations: 50 at a time.
pub fn annotation_batches(annotations: &[Annotation]) -> impl Iterator<Item = &[Annotation]> {
    annotations.chunks(ANNOTATIONS_PER_REQUEST)
}

#[cfg(test)]
mod tests {
    use super::*;

    type Parsed<'a> = Option<(&'a str, u32, u32)>;

    #[test]
    fn evidence_refs() {
        let cases: &[(&str, Parsed)] = &[
            ("src/webhook.rs:88", Some(("src/webhook.rs", 88, 88))),
            ("src/a.rs:3-9", Some(("src/a.rs", 3, 9))),
            ("./src/a.rs:3", Some(("src/a.rs", 3, 3))),
            ("src/a.rs", None),
            ("src/a.rs:0", None),
            ("src/a.rs:0-4", None),
            ("src/a.rs:9-3", None),
            ("src/a.rs:+3", None),
            ("src/a.rs:3-", None),
            ("src/a.rs:99999999999", None),
            ("../etc/passwd:1", None),
            ("src/../../x:1", None),
            ("/etc/passwd:1", None),
            ("C:\\x.rs:1", None),
            ("https://evil.example/x:1", None),
            ("src//a.rs:1", None),
            ("src/a\nb.rs:1", None),
            (":5", None),
        ];
        for (input, want) in cases {
            let got = parse_evidence_ref(input);
            let want = want.map(|(p, a, b)| (p.to_owned(), a, b));
            assert_eq!(got, want, "{input:?}");
        }
    }
}
