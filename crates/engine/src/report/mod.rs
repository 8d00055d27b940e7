//! Report intake: parsing, normalization, digest and the record-independent rules.

pub(crate) mod authority;
pub mod digest;
pub(crate) mod document;
pub mod evidence_ref;
pub(crate) mod from_handoff;
pub(crate) mod handoff;
pub(crate) mod intake;
pub(crate) mod normalize;
pub(crate) mod problem;
mod rules;
pub mod schema;
mod strict_json;

pub use authority::Authority;
pub use digest::{canonical_bytes, digest, ReportDigest};
pub use document::*;
pub use from_handoff::{handoff_verdict, report_from_handoff, HandoffBinding};
pub use handoff::{parse_handoff, Handoff, HandoffStatus};
pub use intake::{parse_report, Intake};
pub use normalize::{normalize_report, normalize_value};
pub use problem::{Problem, Rule};
