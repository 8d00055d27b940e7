//! Listings that span pages: GitHub caps a page at 100 items and names the next one in the
//! `Link` header. The header is read with octocrab's own parser; only the query of the next
//! URL is kept and joined to the path we asked for, so a header can never send the App's
//! credentials to another host or route.

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use octocrab::FromResponse;

use crate::github::{Api, ApiResponse, Call, GitHubError};

/// How many pages a listing reads at most (10,000 items at 100 a page).
pub const MAX_PAGES: usize = 100;

/// The query of the `rel="next"` link, when the characters are those of a query GitHub
/// builds (no fragment, no second `?`).
async fn next_query(page: &ApiResponse) -> Option<String> {
    page.headers.get("link")?;
    let body = Full::new(Bytes::from_static(b"[]")).map_err(|never: Infallible| match never {});
    let mut probe = http::Response::new(body);
    *probe.headers_mut() = page.headers.clone();
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

/// Every page of the GET listing at `path` (which carries its own `per_page`), in order.
///
/// # Errors
///
/// [`GitHubError`] when GitHub cannot be reached, answers with a status this function
/// does not expect, or sends an answer that cannot be read.
pub async fn get_all(
    api: &Api,
    route: &'static str,
    path: &str,
) -> Result<Vec<ApiResponse>, GitHubError> {
    let base = path.split('?').next().unwrap_or(path).to_owned();
    let mut pages = Vec::new();
    let mut next = Some(path.to_owned());
    while let Some(at) = next.take() {
        let page = api.send_ok(Call::get(route, at)).await?;
        if pages.len() + 1 < MAX_PAGES {
            next = next_query(&page).await.map(|q| format!("{base}?{q}"));
        } else if next_query(&page).await.is_some() {
            tracing::warn!(
                route,
                "listing longer than {MAX_PAGES} pages; the rest is not read"
            );
        }
        pages.push(page);
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(link: &str) -> ApiResponse {
        let mut headers = http::HeaderMap::new();
        headers.insert("link", link.parse().unwrap());
        ApiResponse {
            status: 200,
            headers,
            body: Bytes::new(),
        }
    }

    #[tokio::test]
    async fn only_the_query_of_the_next_link_is_kept() {
        let p = page(
            r#"<https://evil.example/repos/o/r/x?per_page=100&page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last""#,
        );
        assert_eq!(next_query(&p).await.as_deref(), Some("per_page=100&page=2"));
        let last_only = page(r#"<https://api.github.com/x?page=1>; rel="prev""#);
        assert_eq!(next_query(&last_only).await, None);
        let odd = page(r#"<https://api.github.com/x?a=<b>>; rel="next""#);
        assert_eq!(next_query(&odd).await, None);
    }
}
