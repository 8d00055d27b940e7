//! The `auditor:` keys of `.github/auditloop.yml` (docs/reference.md#when-the-app-dispatches): whether the app
//! starts the auditor workflow itself, and with which `repository_dispatch` event type.

use serde::{Deserialize, Deserializer, Serialize};

pub(crate) const DEFAULT_EVENT_TYPE: &str = "auditloop-audit";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DispatchMode {
    /// The app waits for reports; nothing starts the auditor.
    #[default]
    None,
    /// `POST /repos/{owner}/{repo}/dispatches` whenever a record is ready for a run.
    RepositoryDispatch,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuditorConfig {
    pub dispatch: DispatchMode,
    #[serde(deserialize_with = "event_type")]
    pub event_type: String,
}

impl Default for AuditorConfig {
    fn default() -> Self {
        Self {
            dispatch: DispatchMode::None,
            event_type: DEFAULT_EVENT_TYPE.to_owned(),
        }
    }
}

impl AuditorConfig {
    /// The event type to dispatch, when the app starts the auditor at all.
    #[must_use]
    pub fn dispatches(&self) -> Option<&str> {
        match self.dispatch {
            DispatchMode::None => None,
            DispatchMode::RepositoryDispatch => Some(&self.event_type),
        }
    }
}

/// GitHub takes an `event_type` of 1 to 100 characters; one line keeps it matchable in
/// a workflow's `types:` list.
///
/// # Errors
///
/// With the message shown to the user when `value` breaks the rule.
pub(crate) fn event_type_rule(value: &str) -> Result<(), String> {
    let len = value.chars().count();
    if value.trim().is_empty() || len > 100 || value.chars().any(char::is_control) {
        return Err(format!(
            "{value:?} is not a repository_dispatch event type (1 to 100 characters, one line)"
        ));
    }
    Ok(())
}

fn event_type<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let value = String::deserialize(d)?;
    event_type_rule(&value)
        .map_err(|e| serde::de::Error::custom(format!("auditor.event_type: {e}")))?;
    Ok(value)
}
