//! The tests' state as the shared fake's REST routes read and change it
//! (`auditloop_fake_github::rest::Site`), with what only the tests do around a write: a
//! push by someone else landed just before the app's next update of a branch, the files
//! the app writes checked against their schemas, and code comparisons a test sets.

use auditloop_fake_github::comments::{Comments, Reactions};
use auditloop_fake_github::git::GitRepo;
use auditloop_fake_github::hooks::Hooks;
use auditloop_fake_github::permissions::Permissions;
use auditloop_fake_github::rest::Site;
use serde_json::Value;

use super::deliveries::{INSTALLATION, REPO};
use super::fake::State;

/// The tests' fake holds one repository's pull requests and issues, the deliveries' own.
impl Site for State {
    fn git_mut(&mut self, repo: &str) -> &mut GitRepo {
        self.git.entry(repo.to_owned()).or_default()
    }

    /// REST reads the one repository's pull requests whatever repository the path names.
    fn pull(&self, _repo: &str, number: u64) -> Option<&Value> {
        self.pulls.get(&number)
    }

    fn left_head(&self, _repo: &str, sha: &str) -> bool {
        self.left_heads.contains(sha)
    }

    fn issues(&self, repo: &str) -> Vec<&Value> {
        self.issues.iter().filter(|_| repo == REPO).collect()
    }

    fn issue_mut(&mut self, repo: &str, number: u64) -> Option<&mut Value> {
        let mut found = self.issues.iter_mut().filter(|_| repo == REPO);
        found.find(|i| i["number"] == number)
    }

    fn add_issue(&mut self, _repo: &str, issue: Value) {
        self.issues.push(issue);
    }

    fn comments(&self) -> &Comments {
        &self.comments
    }

    fn comments_mut(&mut self) -> &mut Comments {
        &mut self.comments
    }

    fn reactions(&self) -> &Reactions {
        &self.reactions
    }

    fn last_id(&self) -> u64 {
        self.last_id()
    }

    fn permissions(&self) -> &Permissions {
        &self.permissions
    }

    fn hooks_mut(&mut self) -> &mut Hooks {
        &mut self.hooks
    }

    fn mint_token(&mut self) -> u32 {
        self.tokens_minted += 1;
        self.tokens_minted
    }

    fn installation(&self) -> u64 {
        INSTALLATION
    }

    fn installed_repositories(&self) -> Vec<String> {
        vec![REPO.to_owned()]
    }

    fn dispatched(&mut self, body: Value) {
        self.dispatches.push(body);
    }

    fn comparison(&self, _repo: &str, basehead: &str) -> Option<Vec<String>> {
        self.comparisons.get(basehead).cloned()
    }

    fn before_ref_write(&mut self, repo: &str, branch: &str) {
        super::fake_git::fire_ref_moves(self, repo, branch);
    }

    /// The app writes the records branch only through trees that carry each file inline:
    /// each is checked against its schema, unless the test wrote it.
    fn file_written(&mut self, path: &str, content: &str) {
        if self.written_by_the_test.is_some() {
            return;
        }
        if let Err(e) = super::schemas::check_written(path, content) {
            self.schema_violations.push(e);
        }
    }
}
