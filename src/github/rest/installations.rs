//! What the App is installed on: its installations, and the repositories of one.

use serde::Deserialize;

use crate::github::pages::Listing;
use crate::github::{Api, ApiResponse, GitHubError};

pub(crate) const LIST_INSTALLATIONS: &str = "GET /app/installations";
pub(crate) const LIST_REPOSITORIES: &str = "GET /installation/repositories";

#[derive(Debug, Deserialize)]
pub(crate) struct Installation {
    pub(crate) id: u64,
}

#[derive(Deserialize)]
struct RepoListing {
    repositories: Vec<RepoItem>,
}

/// One repository an installation can reach.
#[derive(Debug, Deserialize)]
pub(crate) struct RepoItem {
    pub(crate) full_name: String,
    #[serde(default)]
    pub(crate) default_branch: Option<String>,
    #[serde(default)]
    pub(crate) html_url: Option<String>,
    #[serde(default)]
    pub(crate) archived: bool,
}

/// Pages through a listing; `items` takes one page's JSON apart.
async fn pages<T>(
    api: &Api,
    route: &'static str,
    base: &str,
    max_pages: usize,
    items: impl Fn(&ApiResponse) -> Result<Vec<T>, GitHubError>,
) -> Result<Vec<T>, GitHubError> {
    let mut all = Vec::new();
    let path = format!("{base}?per_page=100");
    let mut listing = Listing::new(api, route, &path, max_pages);
    while let Some(answer) = listing.next_page().await? {
        all.extend(items(&answer)?);
    }
    Ok(all)
}

/// `GET /app/installations`, at most `max_pages` pages (an App token).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with an error.
pub(crate) async fn installations(
    api: &Api,
    max_pages: usize,
) -> Result<Vec<Installation>, GitHubError> {
    pages(
        api,
        LIST_INSTALLATIONS,
        "/app/installations",
        max_pages,
        |r| r.json(LIST_INSTALLATIONS),
    )
    .await
}

/// `GET /installation/repositories`, at most `max_pages` pages (an installation token).
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with an error.
pub(crate) async fn installation_repositories(
    api: &Api,
    max_pages: usize,
) -> Result<Vec<RepoItem>, GitHubError> {
    pages(
        api,
        LIST_REPOSITORIES,
        "/installation/repositories",
        max_pages,
        |r| Ok(r.json::<RepoListing>(LIST_REPOSITORIES)?.repositories),
    )
    .await
}
