//! The PR-body section markers (CONTRACT §9).

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

    pub fn start(self) -> &'static str {
        match self {
            SectionKind::Rounds => "<!-- auditloop:rounds:start -->",
            SectionKind::Waivers => "<!-- auditloop:waivers:start -->",
            SectionKind::Residual => "<!-- auditloop:residual:start -->",
        }
    }

    pub fn end(self) -> &'static str {
        match self {
            SectionKind::Rounds => "<!-- auditloop:rounds:end -->",
            SectionKind::Waivers => "<!-- auditloop:waivers:end -->",
            SectionKind::Residual => "<!-- auditloop:residual:end -->",
        }
    }

    pub fn heading(self) -> &'static str {
        match self {
            SectionKind::Rounds => "## Audit rounds",
            SectionKind::Waivers => "## Waivers",
            SectionKind::Residual => "## Residual findings",
        }
    }

    /// `inner` (Markdown, already escaped) between the markers, under the heading. The
    /// blank line before the end marker keeps a table from taking it as a row.
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
