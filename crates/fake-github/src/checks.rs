//! Check runs as GitHub keeps them: made and updated through REST or GraphQL, and listed
//! per commit as `GET commits/{sha}/check-runs?filter=latest` lists them.

use std::ops::{Deref, DerefMut};

use serde_json::Value;

use crate::objects;

/// One check run: the repository that holds it and GitHub's REST object.
#[derive(Debug, Clone)]
pub struct CheckRun {
    pub repo: String,
    pub id: u64,
    pub body: Value,
}

/// Every check run of a fake GitHub, oldest first.
#[derive(Debug, Default)]
pub struct CheckRuns(Vec<CheckRun>);

impl Deref for CheckRuns {
    type Target = [CheckRun];

    fn deref(&self) -> &[CheckRun] {
        &self.0
    }
}

/// A run changed in place plays another writer's update (or a test's).
impl DerefMut for CheckRuns {
    fn deref_mut(&mut self) -> &mut [CheckRun] {
        &mut self.0
    }
}

impl CheckRuns {
    /// `POST /repos/{repo}/check-runs` by App `app`: the run as GitHub answers it.
    pub fn create(&mut self, repo: &str, id: u64, app: &str, fields: &Value) -> Value {
        let body = objects::check_run(repo, id, app, fields);
        self.add(repo, body.clone());
        body
    }

    /// A run made as `body` already is (another App's, or one whose ids a side assigns).
    pub fn add(&mut self, repo: &str, body: Value) {
        let id = body["id"].as_u64().unwrap_or_default();
        self.0.push(CheckRun {
            repo: repo.to_owned(),
            id,
            body,
        });
    }

    /// `PATCH /repos/{repo}/check-runs/{id}`: the run as GitHub answers the update, or
    /// `None` when `repo` has no such run.
    pub fn update(&mut self, repo: &str, id: u64, fields: &Value) -> Option<Value> {
        let run = self.0.iter_mut().find(|c| c.repo == repo && c.id == id)?;
        objects::update_check_run(&mut run.body, fields);
        Some(run.body.clone())
    }

    /// GraphQL's `updateCheckRun`, which names the run by its node id.
    pub fn update_node(&mut self, repo: &str, node: &str, fields: &Value) -> Option<&CheckRun> {
        let run = self
            .0
            .iter_mut()
            .find(|c| c.repo == repo && c.body["node_id"] == node)?;
        objects::update_check_run(&mut run.body, fields);
        Some(run)
    }

    /// The run with REST id `id`.
    pub fn get(&self, id: u64) -> Option<&CheckRun> {
        self.0.iter().find(|c| c.id == id)
    }

    /// The runs on `sha` that `filter=latest` lists, newest first: the newest run of each
    /// name in each App's check suite.
    pub fn latest(&self, repo: &str, sha: &str) -> Vec<Value> {
        let mut latest: Vec<Value> = Vec::new();
        for run in self
            .0
            .iter()
            .rev()
            .filter(|c| c.repo == repo && c.body["head_sha"] == sha)
        {
            let listed = latest
                .iter()
                .any(|l| l["name"] == run.body["name"] && l["app"] == run.body["app"]);
            if !listed {
                latest.push(run.body.clone());
            }
        }
        latest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const REPO: &str = "o/r";

    fn run(runs: &mut CheckRuns, id: u64, app: &str, name: &str, sha: &str) {
        runs.create(REPO, id, app, &json!({"name": name, "head_sha": sha}));
    }

    #[test]
    fn latest_lists_the_newest_run_of_each_name_per_app_newest_first() {
        let mut runs = CheckRuns::default();
        run(&mut runs, 1, "auditloop", "audit-gate", "a");
        run(&mut runs, 2, "ci", "audit-gate", "a");
        run(&mut runs, 3, "auditloop", "audit-gate", "a");
        run(&mut runs, 4, "auditloop", "audit-gate", "b");
        runs.create(
            "o/other",
            5,
            "auditloop",
            &json!({"name": "audit-gate", "head_sha": "a"}),
        );
        let ids: Vec<u64> = runs
            .latest(REPO, "a")
            .iter()
            .filter_map(|r| r["id"].as_u64())
            .collect();
        assert_eq!(ids, [3, 2]);
    }

    #[test]
    fn an_update_completes_the_run_it_names_in_its_repository_only() {
        let mut runs = CheckRuns::default();
        run(&mut runs, 1, "auditloop", "audit-gate", "a");
        let done = json!({"conclusion": "success"});
        assert!(runs.update("o/other", 1, &done).is_none());
        let updated = runs.update(REPO, 1, &done).unwrap();
        assert_eq!(updated["status"], "completed");
        let node = runs[0].body["node_id"].as_str().unwrap().to_owned();
        let again = json!({"status": "in_progress"});
        let run = runs.update_node(REPO, &node, &again).unwrap();
        assert_eq!(run.body["conclusion"], Value::Null);
        assert!(runs.update(REPO, 9, &done).is_none());
    }
}
