//! Issue comments and their reactions as GitHub keeps them: posted, listed oldest first
//! per issue, and reacted to once per content.

use std::ops::{Deref, DerefMut};

use serde_json::Value;

use crate::objects;

/// One issue (or pull request) comment.
#[derive(Debug, Clone)]
pub struct Comment {
    pub repo: String,
    pub id: u64,
    pub issue: u64,
    pub body: String,
    /// The login that wrote it (`<slug>[bot]` for an App).
    pub author: String,
}

impl Comment {
    /// The comment as GitHub's REST API shows it.
    pub fn object(&self) -> Value {
        objects::issue_comment(&self.repo, self.id, self.issue, &self.body, &self.author)
    }
}

/// Every comment of a fake GitHub, oldest first.
#[derive(Debug, Default)]
pub struct Comments(Vec<Comment>);

impl Deref for Comments {
    type Target = [Comment];

    fn deref(&self) -> &[Comment] {
        &self.0
    }
}

impl DerefMut for Comments {
    fn deref_mut(&mut self) -> &mut [Comment] {
        &mut self.0
    }
}

impl Comments {
    /// `POST /repos/{repo}/issues/{issue}/comments` by `author`: the comment as GitHub
    /// answers it.
    pub fn post(&mut self, repo: &str, id: u64, issue: u64, body: &str, author: &str) -> Value {
        let comment = Comment {
            repo: repo.to_owned(),
            id,
            issue,
            body: body.to_owned(),
            author: author.to_owned(),
        };
        let object = comment.object();
        self.0.push(comment);
        object
    }

    /// `GET /repos/{repo}/issues/{issue}/comments`, every page: oldest first.
    pub fn listed(&self, repo: &str, issue: u64) -> Vec<Value> {
        self.0
            .iter()
            .filter(|c| c.repo == repo && c.issue == issue)
            .map(Comment::object)
            .collect()
    }
}

/// The reactions on comments, as `(comment id, content)`: an App reacts as one user, so a
/// content is there once per comment.
#[derive(Debug, Default)]
pub struct Reactions(Vec<(u64, String)>);

impl Deref for Reactions {
    type Target = [(u64, String)];

    fn deref(&self) -> &[(u64, String)] {
        &self.0
    }
}

/// Compares with a list written out, as a test expects it.
impl<const N: usize> PartialEq<[(u64, String); N]> for Reactions {
    fn eq(&self, other: &[(u64, String); N]) -> bool {
        self.0 == other
    }
}

impl Reactions {
    /// `POST /repos/{repo}/issues/comments/{comment}/reactions` (or GraphQL's
    /// `addReaction`): whether the reaction is new (GitHub answers 201) rather than there
    /// already (200).
    pub fn react(&mut self, comment: u64, content: &str) -> bool {
        if self.has(comment, content) {
            return false;
        }
        self.0.push((comment, content.to_owned()));
        true
    }

    /// Whether `comment` has the reaction `content`.
    pub fn has(&self, comment: u64, content: &str) -> bool {
        self.0.iter().any(|(c, r)| *c == comment && r == content)
    }

    /// `GET /repos/{repo}/issues/comments/{comment}/reactions[?content=...]`: the App's
    /// reactions to `comment` (those of `content` only, when given), as GitHub lists them.
    pub fn listed(&self, comment: u64, content: Option<&str>, app_slug: &str) -> Vec<Value> {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, (c, r))| *c == comment && content.is_none_or(|w| w == r))
            .map(|(i, (_, r))| crate::objects::reaction(i as u64 + 1, r, app_slug))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_listed_per_issue_and_repository_oldest_first() {
        let mut comments = Comments::default();
        comments.post("o/r", 1, 42, "first", "app[bot]");
        comments.post("o/r", 2, 43, "elsewhere", "app[bot]");
        comments.post("o/other", 3, 42, "another repository", "app[bot]");
        let posted = comments.post("o/r", 4, 42, "second", "alice");
        assert_eq!(posted["user"]["login"], "alice");
        let bodies: Vec<Value> = comments
            .listed("o/r", 42)
            .iter()
            .map(|c| c["body"].clone())
            .collect();
        assert_eq!(bodies, ["first", "second"]);
    }

    #[test]
    fn a_reaction_is_there_once_per_comment_and_content() {
        let mut reactions = Reactions::default();
        assert!(reactions.react(7, "+1"));
        assert!(!reactions.react(7, "+1"));
        assert!(reactions.react(7, "eyes"));
        assert!(reactions.react(8, "+1"));
        assert!(reactions.has(8, "+1") && !reactions.has(8, "eyes"));
        assert_eq!(reactions.len(), 3);
    }
}
