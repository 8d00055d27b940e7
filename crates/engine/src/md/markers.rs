//! The PR-body section markers (docs/reference.md#the-pr-body): the views splice their
//! sections between them, and the closing keywords skip what lies between them.

use std::ops::Range;

/// The three sections, in the order they are appended to a body that lacks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SectionKind {
    Rounds,
    Waivers,
    Residual,
}

impl SectionKind {
    pub const ALL: [SectionKind; 3] = [
        SectionKind::Rounds,
        SectionKind::Waivers,
        SectionKind::Residual,
    ];

    #[must_use]
    pub fn start(self) -> &'static str {
        match self {
            SectionKind::Rounds => "<!-- auditloop:rounds:start -->",
            SectionKind::Waivers => "<!-- auditloop:waivers:start -->",
            SectionKind::Residual => "<!-- auditloop:residual:start -->",
        }
    }

    #[must_use]
    pub fn end(self) -> &'static str {
        match self {
            SectionKind::Rounds => "<!-- auditloop:rounds:end -->",
            SectionKind::Waivers => "<!-- auditloop:waivers:end -->",
            SectionKind::Residual => "<!-- auditloop:residual:end -->",
        }
    }

    #[must_use]
    pub(crate) fn heading(self) -> &'static str {
        match self {
            SectionKind::Rounds => "## Audit rounds",
            SectionKind::Waivers => "## Waivers",
            SectionKind::Residual => "## Residual findings",
        }
    }

    /// `inner` (Markdown, already escaped) between the markers, under the heading. The
    /// blank line before the end marker keeps a table from taking it as a row.
    #[must_use]
    pub fn wrap(self, inner: &str) -> String {
        format!(
            "{}\n{}\n\n{}\n\n{}",
            self.start(),
            self.heading(),
            inner.trim_end(),
            self.end()
        )
    }
}

/// The span of `kind`'s first complete pair, markers included.
pub(crate) fn find_pair(body: &str, kind: SectionKind) -> Option<Range<usize>> {
    let (start, end) = (kind.start(), kind.end());
    let mut from = 0;
    loop {
        let e = from + body.get(from..)?.find(end)?;
        if let Some(s) = body.get(..e).and_then(|before| before.rfind(start)) {
            return Some(s..e + end.len());
        }
        from = e + end.len();
    }
}

/// The span of each section's first complete pair in `body`, markers included, for the
/// sections that have one. Spans of different sections may overlap in a hostile body.
#[must_use]
pub fn marked_spans(body: &str) -> Vec<(SectionKind, Range<usize>)> {
    SectionKind::ALL
        .iter()
        .filter_map(|&kind| find_pair(body, kind).map(|span| (kind, span)))
        .collect()
}
