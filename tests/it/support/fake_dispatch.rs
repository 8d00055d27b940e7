//! The `repository_dispatch` events GitHub accepted (`POST /repos/{o}/{r}/dispatches`,
//! served by the shared fake's routes), as a test reads them.

use serde_json::Value;

use super::fake::FakeGitHub;

impl FakeGitHub {
    /// Every `repository_dispatch` GitHub accepted, oldest first.
    pub fn dispatches(&self) -> Vec<Value> {
        self.state().dispatches.clone()
    }
}
