//! Links to the short legend of states, verdicts and grades in the project's docs
//! (`docs/legend.md`). Views are read in the audited repository, so the links are absolute:
//! to the project's repository (`repository` in Cargo.toml).

use crate::md::Md;

/// `docs/legend.md` in the project's repository.
pub(crate) const LEGEND: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/legend.md");

/// A legend entry's words, linked to its anchor (`verdicts`, `grades`, `states`).
#[must_use]
pub(crate) fn term(words: &'static str, anchor: &'static str) -> Md {
    Md::link(Md::lit(words), &format!("{LEGEND}#{anchor}"))
}

/// A verdict in words (`needs remediation`), linked to the legend.
#[must_use]
pub(crate) fn verdict(v: crate::report::Verdict) -> Md {
    use crate::report::Verdict;
    term(
        match v {
            Verdict::Certified => "certified",
            Verdict::CertifiedWithAcceptedLimitations => "certified with limitations",
            Verdict::NeedsRemediation => "needs remediation",
            Verdict::NeedsHumanDecision => "needs a human decision",
        },
        "verdicts",
    )
}

/// A grade in words (`session-reported`), linked to the legend.
#[must_use]
pub(crate) fn grade(g: crate::record::Grade) -> Md {
    use crate::record::Grade;
    term(
        match g {
            Grade::SessionReported => "session-reported",
            Grade::Authenticated => "authenticated",
        },
        "grades",
    )
}
