//! The records branch's layout (docs/reference.md#the-records-branch): every path and file
//! name on it, in one place, so that a reader, a writer and a view never spell one apart.
//!
//! ```text
//! index.json                 the index: next id, work units, PRs, invocations, receipts
//! records/AUD-7.json         the record, with its whole history
//! records/AUD-7.md           the same, rendered for people
//! reports/AUD-7/run-1.json   each normalized report as accepted
//! patterns.json              the recurring findings, when `patterns: true`
//! ```

use crate::ids::AuditId;

/// The index.
pub const INDEX_PATH: &str = "index.json";

/// The pattern library.
pub const PATTERNS_PATH: &str = "patterns.json";

/// The directory of the records, `records/AUD-n.json` and `.md`.
const RECORDS_DIR: &str = "records/";

/// The branch records go to when `.github/auditloop.yml` names none.
pub const DEFAULT_RECORDS_BRANCH: &str = "auditloop-records";

/// The record `id`.
#[must_use]
pub fn record_path(id: &AuditId) -> String {
    format!("{RECORDS_DIR}{id}.json")
}

/// The record `id` rendered for people.
#[must_use]
pub fn record_md_path(id: &AuditId) -> String {
    format!("{RECORDS_DIR}{id}.md")
}

/// The record a path holds, when it is one (`records/AUD-7.json`).
#[must_use]
pub fn record_at(path: &str) -> Option<AuditId> {
    path.strip_prefix(RECORDS_DIR)
        .and_then(|p| p.strip_suffix(".json"))
        .and_then(|id| AuditId::new(id).ok())
}

/// The directory of `id`'s stored reports, with its trailing `/`.
#[must_use]
pub fn reports_dir(id: &AuditId) -> String {
    format!("reports/{id}/")
}

/// Run `run` of `id`, as accepted.
#[must_use]
pub fn report_path(id: &AuditId, run: u32) -> String {
    format!("{}run-{run}.json", reports_dir(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_those_of_the_contract() {
        let id = AuditId::new("AUD-7").unwrap();
        assert_eq!(record_path(&id), "records/AUD-7.json");
        assert_eq!(record_md_path(&id), "records/AUD-7.md");
        assert_eq!(report_path(&id, 1), "reports/AUD-7/run-1.json");
        assert_eq!(record_at("records/AUD-7.json"), Some(id));
        assert_eq!(record_at("records/AUD-7.md"), None);
        assert_eq!(record_at("records/x.json"), None);
    }
}
