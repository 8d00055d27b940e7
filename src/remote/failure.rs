//! The one line a command says when GitHub refuses it: a 401 or a 404 says what to check,
//! the rest is the error's own chain.

use super::exit_codes::{code_of, USAGE};
use crate::github::GitHubError;
use crate::ids::RepoName;

/// `error` on one line; when GitHub answered 401, 403 or 404, what that means for `repo`
/// (and PR `pr`) and what to check.
#[must_use]
pub(crate) fn explain(error: &anyhow::Error, repo: &RepoName, pr: Option<u64>) -> String {
    let refused = error.chain().find_map(|cause| match cause.downcast_ref() {
        Some(GitHubError::Status {
            route,
            status,
            message,
        }) => Some((*route, *status, message.as_str())),
        _ => None,
    });
    let Some((route, status, message)) = refused else {
        return one_line(&format!("{error:#}"));
    };
    let answered = if message.is_empty() {
        format!("GitHub answered {status} to {route}")
    } else {
        format!("GitHub answered {status} to {route}: {message}")
    };
    let words = match (status, pr) {
        (401, _) => format!("GitHub does not accept the token ({answered}): check that --token or GITHUB_TOKEN holds a valid, unexpired token"),
        (403, _) => format!("the token may not do this on {repo} ({answered}): check the token's permissions on the repository"),
        (404, Some(pr)) if route.contains("{pull_number}") => format!("the token cannot see pull request #{pr} of {repo} ({answered}): check the PR number and the token's access to the repository"),
        (404, _) => format!("the token cannot see {repo} ({answered}): check the repository name and the token's access to it"),
        _ => format!("{error:#}"),
    };
    one_line(&words)
}

/// `error` as [`explain`] says it, unless it is a usage error, which keeps its words and
/// its exit code.
#[must_use]
pub(crate) fn explained(error: anyhow::Error, repo: &RepoName, pr: Option<u64>) -> anyhow::Error {
    if code_of(&error, 1) == USAGE {
        return error;
    }
    anyhow::anyhow!(explain(&error, repo, pr))
}

/// `text` with its line breaks folded, so the error stays one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::explain;
    use crate::github::GitHubError;
    use crate::ids::RepoName;

    fn refused(route: &'static str, status: u16) -> anyhow::Error {
        anyhow::Error::new(GitHubError::Status {
            route,
            status,
            message: "Not Found".into(),
        })
        .context("reading a/b")
    }

    #[test]
    fn a_404_and_a_401_say_what_to_check() {
        let repo: RepoName = "a/b".parse().unwrap();
        let words = explain(&refused("GET /repos/{owner}/{repo}", 404), &repo, Some(1));
        assert!(
            words.starts_with("the token cannot see a/b (GitHub answered 404"),
            "{words}"
        );
        let route = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
        let words = explain(&refused(route, 404), &repo, Some(7));
        assert!(words.contains("pull request #7 of a/b"), "{words}");
        let words = explain(&refused("GET /repos/{owner}/{repo}", 401), &repo, None);
        assert!(words.contains("check that --token"), "{words}");
        let other = anyhow::anyhow!("no answer\nfrom GitHub");
        assert_eq!(explain(&other, &repo, None), "no answer from GitHub");
    }
}
