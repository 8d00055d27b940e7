//! The fake's git data as tests drive and inspect it: pushes by someone else, injected
//! races and lost answers, the files and log of a branch, and the installation client.

use std::collections::BTreeMap;

use super::fake::{FakeGitHub, LostAnswer, Recorded};
use super::fake_git::RefMove;

impl FakeGitHub {
    /// Pushes `files` to `branch` as someone else would (a root commit if it is absent).
    pub fn commit_files(
        &self,
        repo: &str,
        branch: &str,
        files: &[(&str, &str)],
        message: &str,
    ) -> String {
        let files: Vec<(String, String)> = files
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect();
        self.state()
            .git
            .entry(repo.to_owned())
            .or_default()
            .commit_files(branch, &files, message)
    }

    /// Once, just before the app's next update of `branch`, someone else pushes `files`.
    pub fn move_ref_once(&self, repo: &str, branch: &str, files: &[(&str, &str)], message: &str) {
        self.state().ref_moves.push(RefMove {
            repo: repo.to_owned(),
            branch: branch.to_owned(),
            files: files
                .iter()
                .map(|(p, c)| (p.to_string(), c.to_string()))
                .collect(),
            message: message.to_owned(),
        });
    }

    /// The next records commit (`createCommitOnBranch`) is carried out, its answer lost
    /// (502), and someone else pushes `files` to `branch` on top before the app looks again.
    pub fn lose_update_then_move(
        &self,
        repo: &str,
        branch: &str,
        files: &[(&str, &str)],
        message: &str,
    ) {
        self.state().lost_answers.push(LostAnswer {
            method: "POST",
            path_contains: "/graphql/createCommitOnBranch".to_owned(),
            then: Some(RefMove {
                repo: repo.to_owned(),
                branch: branch.to_owned(),
                files: files
                    .iter()
                    .map(|(p, c)| (p.to_string(), c.to_string()))
                    .collect(),
                message: message.to_owned(),
            }),
        });
    }

    pub fn branch_head(&self, repo: &str, branch: &str) -> Option<String> {
        let state = self.state();
        state
            .git
            .get(repo)?
            .refs
            .get(&format!("heads/{branch}"))
            .cloned()
    }

    /// The files on `branch`, by path.
    pub fn branch_files(&self, repo: &str, branch: &str) -> BTreeMap<String, String> {
        let Some(head) = self.branch_head(repo, branch) else {
            return BTreeMap::new();
        };
        let state = self.state();
        let git = &state.git[repo];
        git.trees[&git.commits[&head].tree]
            .iter()
            .map(|(path, blob)| (path.clone(), git.blobs[blob].clone()))
            .collect()
    }

    /// The first line of each commit message on `branch`, newest first (what a one-line log
    /// shows). Panics on a merge: history must be linear.
    pub fn branch_log(&self, repo: &str, branch: &str) -> Vec<String> {
        self.branch_messages(repo, branch)
            .iter()
            .map(|m| m.lines().next().unwrap_or_default().to_owned())
            .collect()
    }

    /// Whole commit messages on `branch`, newest first. Panics on a merge.
    pub fn branch_messages(&self, repo: &str, branch: &str) -> Vec<String> {
        let mut next = self.branch_head(repo, branch);
        let state = self.state();
        let mut log = Vec::new();
        while let Some(sha) = next {
            let c = &state.git[repo].commits[&sha];
            assert!(c.parents.len() <= 1, "merge commit {sha} on {branch}");
            log.push(c.message.clone());
            next = c.parents.first().cloned();
        }
        log
    }
}

impl FakeGitHub {
    /// `base...head` of the code changes `paths` (see `auditloop_fake_github::objects::code_comparison`).
    pub fn set_comparison(&self, base: &str, head: &str, paths: Vec<String>) {
        self.state()
            .comparisons
            .insert(format!("{base}...{head}"), paths);
    }

    /// The real installation client (installation 42) pointed at this fake.
    pub async fn installation_api(&self, delivery: &str) -> auditloop::github::Api {
        use auditloop::github::{GitHubApp, GitHubSettings, RetryPolicy};
        let app = GitHubApp::new(
            GitHubSettings {
                app_id: 1,
                private_key: auditloop::github::PrivateKey(secrecy::SecretString::from(
                    super::harness::app_key(),
                )),
                api_url: self.api_url(),
                timeout: std::time::Duration::from_secs(5),
                retry: RetryPolicy {
                    max_attempts: 3,
                    max_wait: std::time::Duration::from_secs(3),
                    backoff: std::time::Duration::from_millis(10),
                },
                write_gap: std::time::Duration::ZERO,
            },
            auditloop::metrics::Metrics::new(),
        )
        .expect("client");
        app.installation(
            42,
            Some(auditloop::engine::ids::DeliveryId(delivery.to_owned())),
        )
        .await
        .expect("installation client")
    }

    /// Requests to the Git Data and compare routes so far.
    pub fn git_requests(&self) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| {
                r.path.contains("/git/")
                    || r.path.contains("/compare/")
                    || r.path.contains("/graphql")
            })
            .collect()
    }
}
