//! Views of a record as data: PR-body sections, check-run text, replies.
//!
//! Every view is rebuilt from the record alone; text that came from reports or commands
//! goes through [`crate::md::escape`] before it reaches Markdown.

pub mod annotations;
pub mod check_run;
mod finding_row;
pub mod lessons;
pub mod links;
pub mod open_findings;
pub(crate) mod recurring;
pub mod reply;
pub(crate) mod residual;
pub(crate) mod rounds;
pub mod splice;
pub mod stamp;
pub mod threads;
pub(crate) mod waivers;
mod words;

pub use check_run::{annotation_batches, Annotation, AnnotationLevel, BodyStatus, CheckRunView};
pub use links::ViewContext;
pub use splice::{sections_tampered, splice, SpliceOutcome, BODY_LIMIT};
pub use stamp::{body_stamp, Stamp};

use crate::md::markers::SectionKind;
use crate::record::Record;

/// The three PR-body sections, each with its start and end markers (docs/reference.md#the-pr-body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sections {
    pub rounds: String,
    pub waivers: String,
    pub residual: String,
}

impl Sections {
    #[must_use]
    pub fn get(&self, kind: SectionKind) -> &str {
        match kind {
            SectionKind::Rounds => &self.rounds,
            SectionKind::Waivers => &self.waivers,
            SectionKind::Residual => &self.residual,
        }
    }
}

/// The sections for `record`, or, before any record exists, short sections saying how to
/// start one.
#[must_use]
pub fn sections(record: Option<&Record>, ctx: &ViewContext) -> Sections {
    Sections {
        rounds: rounds::render(record, ctx),
        waivers: waivers::render(record),
        residual: residual::render(record, ctx),
    }
}
