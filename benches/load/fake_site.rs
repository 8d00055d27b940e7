//! The load fake's `Data` as the shared fake's REST routes read and change it
//! (`auditloop_fake_github::rest::Site`): many repositories, each with its pull requests
//! and issues, and every move of a branch logged for the invariants.

use auditloop_fake_github::comments::{Comments, Reactions};
use auditloop_fake_github::git::GitRepo;
use auditloop_fake_github::hooks::Hooks;
use auditloop_fake_github::permissions::Permissions;
use auditloop_fake_github::rest::Site;
use serde_json::Value;

use crate::fake_data::{Data, INSTALLATION};

impl Site for Data {
    fn git_mut(&mut self, repo: &str) -> &mut GitRepo {
        &mut self.git.entry(repo.to_owned()).or_default().repo
    }

    fn pull(&self, repo: &str, number: u64) -> Option<&Value> {
        self.pulls.get(&(repo.to_owned(), number))
    }

    fn left_head(&self, repo: &str, sha: &str) -> bool {
        self.left_heads.contains(&(repo.to_owned(), sha.to_owned()))
    }

    /// Every repository holds the configuration file alone: a read of another path is
    /// one the load does not model.
    fn holds_every_file(&self) -> bool {
        false
    }

    fn issues(&self, repo: &str) -> Vec<&Value> {
        self.issues.get(repo).into_iter().flatten().collect()
    }

    fn issue_mut(&mut self, repo: &str, number: u64) -> Option<&mut Value> {
        let kept = self.issues.get_mut(repo)?;
        kept.iter_mut().find(|i| i["number"] == number)
    }

    fn add_issue(&mut self, repo: &str, issue: Value) {
        self.issues.entry(repo.to_owned()).or_default().push(issue);
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
        Data::last_id(self)
    }

    fn permissions(&self) -> &Permissions {
        &self.permissions
    }

    fn hooks_mut(&mut self) -> &mut Hooks {
        &mut self.hooks
    }

    fn mint_token(&mut self) -> u32 {
        self.tokens += 1;
        self.tokens
    }

    fn installation(&self) -> u64 {
        INSTALLATION
    }

    /// The repositories the run opened pull requests in.
    fn installed_repositories(&self) -> Vec<String> {
        let mut names: Vec<String> = self.pulls.keys().map(|(r, _)| r.clone()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    fn dispatched(&mut self, body: Value) {
        self.dispatches.push(body);
    }

    fn ref_moved(&mut self, repo: &str, name: &str, was: Option<String>, now: String) {
        if let Some(git) = self.git.get_mut(repo) {
            git.moves.push((name.to_owned(), was, now));
        }
    }
}
