//! Escaping of untrusted text for the views.

use auditloop::engine::md::escape::{block, inline, truncate};
use proptest::prelude::*;

#[test]
fn hostile_inputs() {
    // (input, what `inline` must not contain after escaping)
    let cases: &[(&str, &[&str])] = &[
        ("--> closes a marker", &["-->"]),
        ("<!-- opens one", &["<!--", "<"]),
        ("<!-- auditloop:rounds:end -->", &["<!--", "-->"]),
        ("<img src=x onerror=alert(1)>", &["<img", "<", ">"]),
        ("a | b", &["|"]),
        ("ping @octocat", &["@octocat", "@o"]),
        ("mail a@b.example", &["@b"]),
        ("[link](https://evil.example)", &["[", "]", "https://"]),
        ("![img](https://evil.example/x.png)", &["![", "https://"]),
        ("<https://evil.example>", &["<https", "https://"]),
        ("bare https://evil.example", &["https://"]),
        ("bare WWW.evil.example", &["WWW.evil"]),
        ("```\nfence", &["```"]),
        ("~~~\nfence", &["~~~"]),
        ("&lt;script&gt;", &["&lt;script"]),
        ("a\\|b", &["|"]),
        ("nul\0byte", &["\0"]),
    ];
    for (input, forbidden) in cases {
        for out in [inline(input, 1000), block(input)] {
            for f in *forbidden {
                assert!(!out.contains(f), "{input:?} -> {out:?} contains {f:?}");
            }
        }
    }
}

#[test]
fn inline_is_one_line() {
    for input in [
        "line\nbreak",
        "line\r\nbreak",
        "line\rbreak",
        "line\u{2028}break",
        "line\u{85}break",
    ] {
        assert_eq!(inline(input, 100), "line break", "{input:?}");
    }
}

#[test]
fn ordinary_text_is_kept() {
    assert_eq!(
        inline("Replayed deliveries are applied twice", 100),
        "Replayed deliveries are applied twice"
    );
    assert_eq!(block("two\nlines"), "two\nlines");
    assert_eq!(inline("src/webhook.rs:88", 100), "src/webhook.rs:88");
}

#[test]
fn block_keeps_lines_and_normalizes_breaks() {
    assert_eq!(block("a\r\nb\rc\nd"), "a\nb\nc\nd");
}

#[test]
fn inline_truncates_the_source_with_an_ellipsis() {
    assert_eq!(inline("abcdef", 4), "abc…");
    assert_eq!(inline("a|cdef", 3), "a&#124;…");
    assert_eq!(inline("  padded  ", 10), "padded");
    assert_eq!(truncate("abc", 3), "abc");
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[<>!@|a-zA-Z0-9 \\[\\]()\n\r:/.wW`~&#;\\\\-]{0,80}",
        prop::collection::vec(
            prop_oneof![
                Just("<!--".to_owned()),
                Just("-->".to_owned()),
                Just("-".to_owned()),
                Just("<".to_owned()),
                Just(">".to_owned()),
                Just("@".to_owned()),
                Just("|".to_owned()),
                Just("\r\n".to_owned()),
                Just("https://".to_owned()),
                Just("www.".to_owned()),
                "[a-z0-9]{0,4}",
            ],
            0..20
        )
        .prop_map(|parts| parts.concat()),
    ]
}

fn mention_free(out: &str) -> bool {
    let chars: Vec<char> = out.chars().collect();
    chars
        .windows(2)
        .all(|w| !(w[0] == '@' && (w[1].is_ascii_alphanumeric() || w[1] == '-' || w[1] == '_')))
        && !out.ends_with('@')
}

proptest! {
    #[test]
    fn inline_output_is_inert(text in hostile_text(), max in 0usize..120) {
        let out = inline(&text, max);
        prop_assert!(!out.contains("-->"));
        prop_assert!(!out.contains("<!--"));
        prop_assert!(!out.contains('<') && !out.contains('>'));
        prop_assert!(!out.contains('|'));
        prop_assert!(!out.contains('\n') && !out.contains('\r'));
        prop_assert!(mention_free(&out));
        prop_assert!(!out.contains("://") && !out.to_ascii_lowercase().contains("www."));
        prop_assert!(!out.contains('[') && !out.contains(']') && !out.contains('`'));
    }

    #[test]
    fn block_output_is_inert(text in hostile_text()) {
        let out = block(&text);
        prop_assert!(!out.contains("-->"));
        prop_assert!(!out.contains("<!--"));
        prop_assert!(!out.contains('<') && !out.contains('>'));
        prop_assert!(!out.contains('|'));
        prop_assert!(!out.contains('\r'));
        prop_assert!(mention_free(&out));
        prop_assert!(!out.contains("://") && !out.to_ascii_lowercase().contains("www."));
    }

    #[test]
    fn inline_truncation_bounds_plain_text(text in "[a-z ]{0,200}", max in 1usize..100) {
        prop_assert!(inline(&text, max).chars().count() <= max);
    }
}

#[test]
fn backslashes_and_control_characters() {
    // A backslash would otherwise escape the character reference that follows it.
    assert_eq!(inline("C:\\dir|x", 100), "C:&#92;dir&#124;x");
    assert_eq!(block("bell\u{7}here"), "bell here");
    assert_eq!(block("tab\there"), "tab\there");
}
