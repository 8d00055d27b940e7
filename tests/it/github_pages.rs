//! The `Link` header of a listing, read by the one parser every listing uses: only the
//! query of the `rel="next"` URL is kept, and only when it looks like a query GitHub
//! builds, so a header can never point the App's credentials at another host or route.

use auditloop::github::pages::next_query;
use http::HeaderMap;

fn headers(link: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert("link", link.parse().unwrap());
    h
}

#[tokio::test]
async fn only_a_safe_query_of_the_next_link_is_kept() {
    let cases: &[(&str, Option<&str>)] = &[
        (
            r#"<https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_123>; rel="next""#,
            Some("per_page=100&cursor=v1_123"),
        ),
        (
            r#"<https://api.github.com/app/hook/deliveries?per_page=100>; rel="first", <https://api.github.com/app/hook/deliveries?per_page=100&cursor=v1_9>; rel="next""#,
            Some("per_page=100&cursor=v1_9"),
        ),
        (
            // Enterprise: the base path comes from the client, never from the header.
            r#"<https://ghe.example.com/api/v3/app/hook/deliveries?cursor=v1_7>; rel="next""#,
            Some("cursor=v1_7"),
        ),
        (
            // Another host: its query is all that is kept, joined to the path we asked.
            r#"<https://evil.example/repos/o/r/x?per_page=100&page=2>; rel="next", <https://api.github.com/x?page=9>; rel="last""#,
            Some("per_page=100&page=2"),
        ),
        (
            r#"<https://api.github.com/app/hook/deliveries?per_page=100>; rel="prev""#,
            None,
        ),
        (
            r#"<https://api.github.com/app/hook/deliveries>; rel="next""#,
            None,
        ),
        (
            r#"<https://api.github.com/app/hook/deliveries?cursor=a b>; rel="next""#,
            None,
        ),
        (
            r#"<https://api.github.com/app/hook/deliveries?cursor=x/../../user>; rel="next""#,
            None,
        ),
        (r#"<https://api.github.com/x?a=<b>>; rel="next""#, None),
        (
            r#"<https://api.github.com/x?a=1#frag>; rel="next""#,
            Some("a=1"),
        ),
        ("", None),
        ("garbage", None),
    ];
    for (link, want) in cases {
        assert_eq!(next_query(&headers(link)).await.as_deref(), *want, "{link}");
    }
    assert_eq!(next_query(&HeaderMap::new()).await, None, "no Link header");
}
