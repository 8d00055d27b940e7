//! Report intake: parsing, normalization, digest and the record-independent rules.

pub mod authority;
pub mod digest;
pub mod document;
pub mod evidence_ref;
pub mod from_handoff;
pub mod handoff;
pub mod intake;
pub mod normalize;
pub mod problem;
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
