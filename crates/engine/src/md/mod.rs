//! Text for the views, typed by origin: [`Md`] is Markdown that is safe to publish.
//!
//! A foundation under every module that words a reason (the gate, the transitions, the
//! configuration's errors) as well as under the views, so those modules never name a view:
//! with it live the escaping it relies on ([`escape`]) and the PR body's section markers
//! ([`markers`]), which the closing keywords read too.
//!
//! The app's own words are written as `&'static str` literals, which may hold Markdown
//! (code spans, emphasis, links): they are used as they are, never escaped. Everything
//! else (reports, command arguments, logins, branch and check names, error text) reaches
//! an [`Md`] only through [`Md::text`], [`Md::block`] or [`Md::code`], which escape it once
//! (see [`escape`]). A `String` converts as untrusted text; a non-static `&str`
//! does not convert at all, so the choice is always made where the text comes in.
//!
//! Each value keeps a plain-text twin (no code-span backticks, nothing escaped) for the
//! places that are not Markdown: the check run's title, logs, JSON.

pub mod escape;
pub mod markers;

use serde::{Serialize, Serializer};

use self::escape::{block, inline, inline_piece, truncate};

/// The most characters of one untrusted value a view repeats, unless told otherwise.
pub(crate) const VALUE_CHARS: usize = 300;
/// The most characters of an untrusted value shown as code.
const CODE_CHARS: usize = 100;
/// The longest run of a [`Md::path`] without a place to wrap.
const RUN_CHARS: usize = 24;

/// `text` cut into pieces after which a line may wrap (see [`Md::path`]).
fn breakable(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut run = 0;
    for c in text.chars() {
        piece.push(c);
        run += 1;
        let soft = matches!(c, '_' | '-' | '.') && run > RUN_CHARS / 2;
        if c == '/' || soft || run >= RUN_CHARS {
            pieces.push(std::mem::take(&mut piece));
            run = 0;
        }
    }
    if !piece.is_empty() {
        pieces.push(piece);
    }
    pieces
}

/// Markdown safe to publish in any view, with its plain-text twin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Md {
    md: String,
    plain: String,
}

impl Md {
    /// The app's own Markdown, used as written. Backticks are dropped from the plain twin.
    #[must_use]
    pub fn lit(text: &'static str) -> Self {
        Self {
            md: text.to_owned(),
            plain: text.replace('`', ""),
        }
    }

    /// Untrusted text on one line (line breaks become spaces), cut at [`VALUE_CHARS`].
    #[must_use]
    pub fn text(text: &str) -> Self {
        Self::text_max(text, VALUE_CHARS)
    }

    /// As [`Md::text`], cut at `max_chars` characters.
    #[must_use]
    pub fn text_max(text: &str, max_chars: usize) -> Self {
        Self {
            md: inline(text, max_chars),
            plain: truncate(text.trim(), max_chars),
        }
    }

    /// Untrusted multi-line text: line breaks are kept.
    #[must_use]
    pub fn block(text: &str) -> Self {
        Self {
            md: block(text),
            plain: text.to_owned(),
        }
    }

    /// Untrusted text shown as code: a code span when nothing in it could end the span, a
    /// table cell or a marker, else escaped text (so it still shows literally).
    #[must_use]
    pub fn code(text: &str) -> Self {
        let cut = truncate(text.trim(), CODE_CHARS);
        let spannable = !cut.is_empty()
            && !cut.chars().any(|c| {
                matches!(c, '`' | '|' | '<' | '>' | '\\' | '&') || c.is_control() || c == '\u{85}'
            })
            && !cut.contains('\u{2028}')
            && !cut.contains('\u{2029}');
        if spannable {
            Self {
                md: format!("`{cut}`"),
                plain: cut,
            }
        } else {
            Self::text_max(text, CODE_CHARS)
        }
    }

    /// Untrusted text in which backticks quote names, as parsers write their messages
    /// (``unknown field `x`, expected one of `a`, `b` ``): each quoted name shown as code,
    /// the rest as text, on one line, cut at [`VALUE_CHARS`]. An unpaired backtick is text.
    #[must_use]
    pub(crate) fn quoted(text: &str) -> Self {
        let cut = truncate(text.trim(), VALUE_CHARS);
        let pieces: Vec<&str> = cut.split('`').collect();
        if pieces.len().is_multiple_of(2) {
            return Self::text(&cut);
        }
        let mut out = Self::default();
        for (i, piece) in pieces.iter().enumerate() {
            if piece.is_empty() {
                continue;
            }
            out.push(&if i % 2 == 1 {
                Self::code(piece)
            } else {
                Self {
                    md: inline_piece(piece),
                    plain: (*piece).to_owned(),
                }
            });
        }
        out
    }

    /// Untrusted text shown as code that may wrap: a path (`src/a/b.rs:10`), a key. A
    /// short one is [`Md::code`]; a longer one is `<code>` with `<wbr>` (both kept by
    /// GitHub) after each `/`, and in a long run without one after `_`, `-` or `.`, or
    /// every [`RUN_CHARS`] characters, so a table keeps to its column. `<wbr>` adds no
    /// character: what a reader copies is the whole text.
    #[must_use]
    pub(crate) fn path(text: &str) -> Self {
        let cut = truncate(text.trim(), CODE_CHARS);
        if cut.chars().count() <= RUN_CHARS || cut.chars().any(char::is_whitespace) {
            return Self::code(text);
        }
        let mut md = String::from("<code>");
        for piece in breakable(&cut) {
            md.push_str(&inline(&piece, CODE_CHARS));
            md.push_str("<wbr>");
        }
        md.truncate(md.len() - "<wbr>".len());
        md.push_str("</code>");
        Self { md, plain: cut }
    }

    /// A Markdown link to a URL the app built ([`escape::url`] made it safe).
    #[must_use]
    pub fn link(label: Md, url: &str) -> Self {
        Self {
            md: format!("[{}]({url})", label.md),
            plain: label.plain,
        }
    }

    /// `template` with each `{}` replaced by the next of `args`: how [`crate::md!`] is built.
    #[must_use]
    pub fn template(template: &'static str, args: &[Md]) -> Self {
        let mut out = Self::default();
        let mut args = args.iter();
        let mut pieces = template.split("{}");
        if let Some(first) = pieces.next() {
            out.push_lit(first);
        }
        for piece in pieces {
            if let Some(arg) = args.next() {
                out.push(arg);
            }
            out.push_lit(piece);
        }
        out
    }

    fn push_lit(&mut self, text: &str) {
        self.md.push_str(text);
        self.plain.push_str(&text.replace('`', ""));
    }

    /// Appends `other`.
    pub(crate) fn push(&mut self, other: &Md) {
        self.md.push_str(&other.md);
        self.plain.push_str(&other.plain);
    }

    /// `parts` joined by `sep`, an app literal.
    #[must_use]
    pub fn join(parts: &[Md], sep: &'static str) -> Self {
        let mut out = Self::default();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.push_lit(sep);
            }
            out.push(part);
        }
        out
    }

    /// The Markdown to publish.
    #[must_use]
    pub fn as_markdown(&self) -> &str {
        &self.md
    }

    /// The same words as plain text.
    #[must_use]
    pub fn plain(&self) -> &str {
        &self.plain
    }

    /// The Markdown on one line, for a table cell or a list item.
    #[must_use]
    pub(crate) fn one_line(&self) -> String {
        self.md.replace('\n', " ")
    }
}

/// An [`Md`] reads as its Markdown: formatting one into a view publishes it as it is.
impl std::fmt::Display for Md {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.md)
    }
}

impl std::ops::Deref for Md {
    type Target = str;
    fn deref(&self) -> &str {
        &self.md
    }
}

impl PartialEq<&str> for Md {
    fn eq(&self, other: &&str) -> bool {
        self.md == *other
    }
}

impl Serialize for Md {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.plain)
    }
}

/// What an [`crate::md!`] argument may be: already [`Md`], an app literal, an owned (so
/// untrusted) string, or a value whose text the app made itself (numbers, validated ids).
pub trait ToMd {
    fn to_md(&self) -> Md;
}

impl ToMd for Md {
    fn to_md(&self) -> Md {
        self.clone()
    }
}

impl<T: ToMd + ?Sized> ToMd for &T {
    fn to_md(&self) -> Md {
        (**self).to_md()
    }
}

impl ToMd for &'static str {
    fn to_md(&self) -> Md {
        Md::lit(self)
    }
}

impl ToMd for String {
    fn to_md(&self) -> Md {
        Md::text(self)
    }
}

impl From<&'static str> for Md {
    fn from(text: &'static str) -> Self {
        Md::lit(text)
    }
}

/// The most characters of an owned string an [`Md`] keeps: escaped (at most sixfold),
/// it still fits a reply.
const OWNED_CHARS: usize = 8_000;

impl From<String> for Md {
    /// An owned string is untrusted: escaped, line breaks kept, cut at 8,000 characters.
    fn from(text: String) -> Self {
        Md::block(&truncate(&text, OWNED_CHARS))
    }
}

/// Numbers and validated ids: their text is escaped anyway, which changes nothing for
/// what they can hold, so a view never has to trust an id's validation.
macro_rules! to_md_by_display {
    ($($t:ty),* $(,)?) => {$(
        impl ToMd for $t {
            fn to_md(&self) -> Md {
                Md::text(&self.to_string())
            }
        }
    )*};
}

to_md_by_display!(
    u8,
    u32,
    u64,
    usize,
    i64,
    crate::ids::AuditId,
    crate::ids::FindingId,
    crate::ids::FindingKey,
    crate::ids::LimitationId,
    crate::ids::PrNumber,
    crate::ids::IssueNumber,
    crate::ids::WorkUnit,
    crate::ids::TaskId,
    crate::ids::Login,
    crate::ids::RepoName,
);

impl ToMd for crate::ids::Artifact {
    /// A candidate by its short SHA, as code: `commit:abc1234`.
    fn to_md(&self) -> Md {
        Md::code(&format!("commit:{}", self.short()))
    }
}

/// [`Md`] from an app-written template literal and arguments that are [`ToMd`]:
/// `md!("run {} reports {}", run, Md::code(key))`. Only `{}` placeholders.
#[macro_export]
macro_rules! md {
    ($template:literal $(, $arg:expr)* $(,)?) => {
        $crate::md::Md::template(
            $template,
            &[$($crate::md::ToMd::to_md(&$arg)),*],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_kept_and_values_escaped() {
        let m = crate::md!(
            "a maintainer runs `/audit resolve` on {}",
            "<b>|`x`".to_owned()
        );
        assert_eq!(
            m.as_markdown(),
            "a maintainer runs `/audit resolve` on &lt;b&gt;&#124;&#96;x&#96;"
        );
        assert_eq!(m.plain(), "a maintainer runs /audit resolve on <b>|`x`");
    }

    #[test]
    fn a_parsers_quoted_names_show_as_code() {
        let m = Md::quoted("unknown field `allow_self_audit`, expected one of `a`, `b`");
        assert_eq!(
            m.as_markdown(),
            "unknown field `allow_self_audit`, expected one of `a`, `b`"
        );
        assert_eq!(
            m.plain(),
            "unknown field allow_self_audit, expected one of a, b"
        );
        // Names that cannot be code spans, and lone backticks, stay escaped text.
        assert_eq!(Md::quoted("key `a|b`").as_markdown(), "key a&#124;b");
        assert_eq!(Md::quoted("a ` b").as_markdown(), "a &#96; b");
        assert!(!Md::quoted("`<script>`").as_markdown().contains('<'));
    }

    #[test]
    fn a_long_path_may_wrap_at_its_separators_and_copies_whole() {
        assert_eq!(
            Md::path("src/webhook.rs:88").as_markdown(),
            "`src/webhook.rs:88`"
        );
        let long =
            "src/generated/protocol_buffers/webhook_delivery_verification/nested/module_name.rs:10";
        let m = Md::path(long);
        assert_eq!(
            m.as_markdown(),
            "<code>src/<wbr>generated/<wbr>protocol_buffers/<wbr>webhook_delivery&#95;<wbr>verification/<wbr>nested/<wbr>module_name.rs:10</code>"
        );
        assert_eq!(m.plain(), long);
        // Without the tags (and with the one reference read), the text is the path.
        let text = m.as_markdown().replace("<wbr>", "").replace("&#95;", "_");
        assert_eq!(text, format!("<code>{long}</code>"));
        // A run without any separator still wraps, and hostile text stays escaped.
        let run = "a".repeat(60);
        assert_eq!(Md::path(&run).as_markdown().matches("<wbr>").count(), 2);
        let hostile = Md::path("x/<script>alert(1)</script>/`|`/@someone/aaaaaaaaaaaa");
        assert!(!hostile.as_markdown().contains("<script>"));
        assert!(!hostile.as_markdown().contains('|'));
        assert!(!hostile.as_markdown().contains('`'));
    }

    #[test]
    fn code_spans_only_what_cannot_end_them() {
        assert_eq!(Md::code("test").as_markdown(), "`test`");
        assert_eq!(Md::code("a`b").as_markdown(), "a&#96;b");
        assert_eq!(Md::code("a|b").as_markdown(), "a&#124;b");
        assert_eq!(Md::code("").as_markdown(), "");
    }
}
