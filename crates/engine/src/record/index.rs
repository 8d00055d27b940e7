//! `index.json` on the records branch (docs/reference.md#the-records-branch): the next record number and the
//! repository-wide uniqueness maps (work units, pulls, invocation refs, receipt ids).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ids::{AuditId, PrNumber, TaskId};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    pub next: u64,
    #[serde(default)]
    pub work_units: BTreeMap<String, AuditId>,
    /// PR number (as a decimal string) to the record bound to it.
    #[serde(default)]
    pub pulls: BTreeMap<String, AuditId>,
    #[serde(default)]
    pub invocations: BTreeMap<String, AuditId>,
    #[serde(default)]
    pub receipts: BTreeMap<String, AuditId>,
    /// Each covered task to the record that covers it last, so `/audit new` finds an
    /// unfinished record of the same tasks without reading every record. A record written
    /// before the map was kept joins it with its next event.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tasks: BTreeMap<String, AuditId>,
}

impl Default for Index {
    fn default() -> Self {
        Index {
            next: 1,
            work_units: BTreeMap::new(),
            pulls: BTreeMap::new(),
            invocations: BTreeMap::new(),
            receipts: BTreeMap::new(),
            tasks: BTreeMap::new(),
        }
    }
}

impl Index {
    #[must_use]
    pub fn record_for_pull(&self, pull: PrNumber) -> Option<&AuditId> {
        self.pulls.get(&pull.0.to_string())
    }

    /// The PR a record is bound to, read back from `pulls`.
    pub(crate) fn pull_of(&self, id: &AuditId) -> Option<PrNumber> {
        self.pulls
            .iter()
            .find(|(_, v)| *v == id)
            .and_then(|(k, _)| k.parse().ok())
            .map(PrNumber)
    }

    /// Maps `tasks` to `id`, and no other task to it: `true` when that changed the index.
    pub fn bind_tasks(&mut self, id: &AuditId, tasks: &[TaskId]) -> bool {
        let before = self.tasks.clone();
        self.tasks.retain(|_, v| v != id);
        for t in tasks {
            self.tasks.insert(t.as_str().to_owned(), id.clone());
        }
        self.tasks != before
    }

    /// # Errors
    ///
    /// When `json` is not an index.
    pub fn parse(json: &str) -> Result<Index, serde_json::Error> {
        serde_json::from_str(json)
    }

    /// Pretty JSON with a final newline; maps are ordered, so the bytes are stable.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_starts_at_one_and_round_trips_reference_shape() {
        assert_eq!(Index::default().next, 1);
        let json = r#"{"next": 8, "work_units": {"pr:42": "AUD-7"}, "pulls": {"42": "AUD-7"},
            "invocations": {"ci-run-88123-1": "AUD-7"}, "receipts": {}}"#;
        let index = Index::parse(json).unwrap();
        assert_eq!(index.next, 8);
        assert_eq!(
            index.record_for_pull(PrNumber(42)),
            Some(&AuditId::new("AUD-7").unwrap())
        );
        assert_eq!(
            index.pull_of(&AuditId::new("AUD-7").unwrap()),
            Some(PrNumber(42))
        );
        assert_eq!(Index::parse(&index.to_json()).unwrap(), index);
        assert!(Index::parse(r#"{"next": 1, "extra": 1}"#).is_err());
    }
}
