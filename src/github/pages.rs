//! Listings that span pages: GitHub caps a page at 100 items and names the next one in the
//! `Link` header. Every listing of the app is read through [`Listing`], and the header is
//! read with octocrab's own parser only. Only the query of the next URL is kept and joined
//! to the path we asked for, so a header can never send the App's credentials to another
//! host or route.

use std::convert::Infallible;

use bytes::Bytes;
use http::HeaderMap;
use http_body_util::{BodyExt, Full};
use octocrab::FromResponse;

use crate::github::{Api, ApiResponse, Call, GitHubError};

/// How many pages a listing reads at most (10,000 items at 100 a page).
pub(crate) const MAX_PAGES: usize = 100;

/// The query of the `rel="next"` link in `headers`, when its characters are those of a
/// query GitHub builds (no fragment, no second `?`, no path).
pub async fn next_query(headers: &HeaderMap) -> Option<String> {
    headers.get("link")?;
    let body = Full::new(Bytes::from_static(b"[]")).map_err(|never: Infallible| match never {});
    let mut probe = http::Response::new(body);
    *probe.headers_mut() = headers.clone();
    let parsed = octocrab::Page::<serde_json::Value>::from_response(probe)
        .await
        .ok()?;
    let query = parsed.next?.query()?.to_owned();
    let safe = !query.is_empty()
        && query
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~%&=+:,".contains(&b));
    safe.then_some(query)
}

/// One GET listing, read a page at a time, at most `max_pages` pages.
pub(crate) struct Listing<'a> {
    api: &'a Api,
    route: &'static str,
    base: String,
    next: Option<String>,
    read: usize,
    max_pages: usize,
    cut_short: bool,
}

impl<'a> Listing<'a> {
    /// The listing at `path`, which carries its own query (`per_page` and filters).
    #[must_use]
    pub(crate) fn new(api: &'a Api, route: &'static str, path: &str, max_pages: usize) -> Self {
        Self {
            api,
            route,
            base: path.split('?').next().unwrap_or(path).to_owned(),
            next: Some(path.to_owned()),
            read: 0,
            max_pages,
            cut_short: false,
        }
    }

    /// The next page; `None` once the last one was read, or `max_pages` were.
    ///
    /// # Errors
    ///
    /// [`GitHubError`] when GitHub cannot be reached or answers with a status this
    /// function does not expect.
    pub(crate) async fn next_page(&mut self) -> Result<Option<ApiResponse>, GitHubError> {
        let Some(at) = self.next.take() else {
            return Ok(None);
        };
        if self.read >= self.max_pages {
            self.cut_short = true;
            return Ok(None);
        }
        let page = self.api.send_ok(Call::get(self.route, at)).await?;
        self.read += 1;
        self.next = next_query(&page.headers)
            .await
            .map(|q| format!("{}?{q}", self.base));
        Ok(Some(page))
    }

    /// Whether GitHub named a next page that `max_pages` left unread.
    #[must_use]
    pub(crate) fn cut_short(&self) -> bool {
        self.cut_short
    }
}

/// Every page of the GET listing at `path` (which carries its own `per_page`), in order,
/// up to [`MAX_PAGES`].
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached or answers with a status this function
/// does not expect.
pub(crate) async fn get_all(
    api: &Api,
    route: &'static str,
    path: &str,
) -> Result<Vec<ApiResponse>, GitHubError> {
    let mut listing = Listing::new(api, route, path, MAX_PAGES);
    let mut pages = Vec::new();
    while let Some(page) = listing.next_page().await? {
        pages.push(page);
    }
    if listing.cut_short() {
        tracing::warn!(
            route,
            "listing longer than {MAX_PAGES} pages; the rest is not read"
        );
    }
    Ok(pages)
}
