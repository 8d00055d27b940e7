//! GitHub's page-number pagination of a REST listing: `per_page` (default 30, at most 100)
//! and `page` (from 1), with the next and last pages named in a `Link` header by absolute
//! URL while there is a next page (what a client follows; the last page has no header).

use serde_json::Value;

/// GitHub's page size when a listing names none, and the most it serves.
const DEFAULT_PER_PAGE: usize = 30;
const MAX_PER_PAGE: usize = 100;

/// The number a query pair `name=` holds, if any.
fn param(query: &str, name: &str) -> Option<usize> {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

/// `query` with `page` set to `page`, its other pairs kept in order.
fn with_page(query: &str, page: usize) -> String {
    let mut pairs: Vec<String> = query
        .split('&')
        .filter(|kv| !kv.is_empty() && !kv.starts_with("page="))
        .map(str::to_owned)
        .collect();
    pairs.push(format!("page={page}"));
    pairs.join("&")
}

/// The page of `items` that `query` asks for, and the `Link` header naming the next and
/// last pages of `url` (the listing's absolute URL, without its query); `None` on the last.
pub fn page(items: Vec<Value>, url: &str, query: &str) -> (Vec<Value>, Option<String>) {
    let per_page = param(query, "per_page")
        .unwrap_or(DEFAULT_PER_PAGE)
        .clamp(1, MAX_PER_PAGE);
    let page = param(query, "page").unwrap_or(1).max(1);
    let last = items.len().div_ceil(per_page).max(1);
    let start = (page - 1).saturating_mul(per_page);
    let link = |n: usize, rel: &str| format!("<{url}?{}>; rel=\"{rel}\"", with_page(query, n));
    let next = (page < last).then(|| format!("{}, {}", link(page + 1, "next"), link(last, "last")));
    let slice = items.into_iter().skip(start).take(per_page).collect();
    (slice, next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn numbers(n: usize) -> Vec<Value> {
        (0..n).map(|i| json!(i)).collect()
    }

    #[test]
    fn a_short_listing_is_one_page_without_a_link() {
        let (items, link) = page(numbers(3), "http://h/x", "per_page=100");
        assert_eq!(items.len(), 3);
        assert_eq!(link, None);
    }

    #[test]
    fn pages_are_named_as_github_names_them() {
        let url = "http://h/repos/o/r/issues/1/comments";
        let (items, link) = page(numbers(250), url, "per_page=100");
        assert_eq!(items.first(), Some(&json!(0)));
        assert_eq!(
            link.as_deref(),
            Some(
                "<http://h/repos/o/r/issues/1/comments?per_page=100&page=2>; rel=\"next\", \
                 <http://h/repos/o/r/issues/1/comments?per_page=100&page=3>; rel=\"last\""
            )
        );
        let (items, link) = page(numbers(250), url, "per_page=100&page=3");
        assert_eq!(items, numbers(250)[200..].to_vec());
        assert_eq!(link, None);
    }

    #[test]
    fn page_size_defaults_to_30_and_stops_at_100() {
        assert_eq!(page(numbers(40), "u", "").0.len(), 30);
        assert_eq!(page(numbers(400), "u", "per_page=500").0.len(), 100);
    }
}
