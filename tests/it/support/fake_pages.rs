//! GitHub's page-number pagination for the fake's listings: `per_page` (default 30, at most
//! 100) and `page`, with the next page named in a `Link` header by its absolute URL.

use serde_json::Value;

use super::fake::Answer;

/// The query pairs of `query` with `page` set to `page`.
fn with_page(query: &str, page: usize) -> String {
    let mut pairs: Vec<String> = query
        .split('&')
        .filter(|kv| !kv.is_empty() && !kv.starts_with("page="))
        .map(str::to_owned)
        .collect();
    pairs.push(format!("page={page}"));
    pairs.join("&")
}

fn param(query: &str, name: &str) -> Option<usize> {
    query
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .and_then(|v| v.parse().ok())
}

/// The page `query` asks for out of `items`, and the `Link` header naming the next one.
pub fn page(items: Vec<Value>, url: &str, query: &str) -> (Vec<Value>, Option<String>) {
    let per_page = param(query, "per_page").unwrap_or(30).clamp(1, 100);
    let page = param(query, "page").unwrap_or(1).max(1);
    let start = (page - 1) * per_page;
    let slice: Vec<Value> = items.iter().skip(start).take(per_page).cloned().collect();
    let link = (start + per_page < items.len()).then(|| {
        let base = url.split('?').next().unwrap_or(url);
        let last = items.len().div_ceil(per_page);
        format!(
            "<{base}?{}>; rel=\"next\", <{base}?{}>; rel=\"last\"",
            with_page(query, page + 1),
            with_page(query, last)
        )
    });
    (slice, link)
}

pub fn with_link(t: Answer, link: Option<String>) -> Answer {
    match link {
        Some(l) => t.insert_header("link", l.as_str()),
        None => t,
    }
}
