//! What a fake keeps that the REST routes read and change, beyond what GraphQL does
//! ([`World`]): each side keeps it in its own containers and hands it out here, and may
//! act around a write (a push by someone else, a file checked, a branch move logged).

use serde_json::Value;

use crate::comments::{Comments, Reactions};
use crate::git::GitRepo;
use crate::graphql::World;
use crate::hooks::Hooks;
use crate::permissions::Permissions;

pub trait Site: World {
    /// A repository's git data, made empty if it has none yet.
    fn git_mut(&mut self, repo: &str) -> &mut GitRepo;
    /// Pull request `number` of `repo`. By default found among [`World::pulls`].
    fn pull(&self, repo: &str, number: u64) -> Option<&Value> {
        self.pulls(repo).into_iter().find(|p| p["number"] == number)
    }
    /// Whether `sha` was the head of one of `repo`'s pull requests before a push moved it
    /// on: GitHub keeps such commits (`refs/pull/N/head`), and a ref may point at them.
    fn left_head(&self, _repo: &str, _sha: &str) -> bool {
        false
    }
    /// Whether [`World::files_at`] is every file a repository holds, so that an absent
    /// path is GitHub's 404. When not (a stand-in holding only the files a run reads), a
    /// read of any other path is outside what the fake models.
    fn holds_every_file(&self) -> bool {
        true
    }
    /// The issues of `repo`, oldest first.
    fn issues(&self, repo: &str) -> Vec<&Value>;
    fn issue_mut(&mut self, repo: &str, number: u64) -> Option<&mut Value>;
    /// Keeps an issue opened in `repo`.
    fn add_issue(&mut self, repo: &str, issue: Value);
    fn comments(&self) -> &Comments;
    fn comments_mut(&mut self) -> &mut Comments;
    fn reactions(&self) -> &Reactions;
    /// The id handed out last: a reaction's, which takes none of its own (so the ids of
    /// the objects a run makes do not move with the reactions it adds).
    fn last_id(&self) -> u64;
    fn permissions(&self) -> &Permissions;
    fn hooks_mut(&mut self) -> &mut Hooks;
    /// Counts an installation token minted: how many were, this one included.
    fn mint_token(&mut self) -> u32;
    /// The App's installation, and the repositories it may reach.
    fn installation(&self) -> u64;
    fn installed_repositories(&self) -> Vec<String>;
    /// Keeps a `repository_dispatch` GitHub accepted.
    fn dispatched(&mut self, body: Value);
    /// The files a test says changed between two commits (`base...head`), answered in
    /// place of the comparison of git data. By default none.
    fn comparison(&self, _repo: &str, _basehead: &str) -> Option<Vec<String>> {
        None
    }
    /// Just before a write to branch `branch` of `repo` (a ref created or updated).
    fn before_ref_write(&mut self, _repo: &str, _branch: &str) {}
    /// After ref `name` (`heads/...`) of `repo` moved from `was` to `now`.
    fn ref_moved(&mut self, _repo: &str, _name: &str, _was: Option<String>, _now: String) {}
    /// A file a tree carries inline (`POST git/trees`), before the tree is made.
    fn file_written(&mut self, _path: &str, _content: &str) {}
}
