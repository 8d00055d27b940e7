//! `docs/reference.md` is what the code cites for behaviour. Every `NAME.md#anchor` cited in
//! the sources, tests and documents names a heading of `docs/NAME.md` (anchors computed
//! from the headings as GitHub computes them), every in-page `](#anchor)` link of a document
//! names one of its own headings, and no source cites the outside specification the
//! reference replaced.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Where citations are looked for, from the repository root.
const SCANNED: [&str; 15] = [
    "src",
    "docs",
    "tests",
    "benches",
    "fuzz",
    "schema",
    "examples",
    "deploy",
    "scripts",
    ".github",
    "README.md",
    "ARCHITECTURE.md",
    "BENCHMARKS.md",
    "SECURITY.md",
    "action.yml",
];

/// Build output and generated inputs, never sources.
const SKIPPED: [&str; 5] = ["target", ".git", "corpus", "artifacts", "node_modules"];

/// The outside specification's name, spelled so that this file does not cite it either.
const SPEC: &str = concat!("CON", "TRACT");
const SECTION_SIGN: char = '\u{a7}';

/// GitHub's anchor for a heading's text: lower case, every character but letters, digits,
/// `-`, `_` and spaces dropped, each space turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown document's headings, the document read as GitHub reads it
/// (a GFM parser, so fenced code holds no heading and a heading's text is what it shows);
/// a repeated heading gets `-1`, `-2`, … as on GitHub.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let arena = comrak::Arena::new();
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    let root = comrak::parse_document(&arena, markdown, &options);
    let mut out = BTreeSet::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for node in root.descendants() {
        if !matches!(node.data().value, comrak::nodes::NodeValue::Heading(_)) {
            continue;
        }
        let base = slug(&node.collect_text());
        let n = seen.entry(base.clone()).or_default();
        out.insert(if *n == 0 { base } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// A character of a file name or an anchor.
fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Every `NAME.md#anchor` in `text`, as (NAME, anchor); in a Markdown document `own`, also
/// every in-page `](#anchor)` link, as (`own`, anchor).
fn citations(text: &str, own: Option<&str>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let needle = ".md#";
    let mut from = 0;
    while let Some(at) = text[from..].find(needle).map(|i| from + i) {
        let name: String = text[..at]
            .chars()
            .rev()
            .take_while(|c| word_char(*c))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let rest = &text[at + needle.len()..];
        let anchor: String = rest.chars().take_while(|c| word_char(*c)).collect();
        out.push((name, anchor));
        from = at + needle.len();
    }
    if let Some(own) = own {
        for (i, _) in text.match_indices("](#") {
            let anchor: String = text[i + 3..]
                .chars()
                .take_while(|c| word_char(*c))
                .collect();
            out.push((own.to_owned(), anchor));
        }
    }
    out
}

/// The citations in `text` of a document of `docs` that lack their anchor, as
/// `NAME.md#anchor`.
fn broken(text: &str, own: Option<&str>, docs: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    citations(text, own)
        .into_iter()
        .filter(|(name, anchor)| docs.get(name).is_some_and(|a| !a.contains(anchor)))
        .map(|(name, anchor)| format!("{name}.md#{anchor}"))
        .collect()
}

/// `docs/NAME.md` by NAME, with the anchors of its headings.
fn documents() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(ROOT).join("docs");
    let mut docs = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("docs/ is readable") {
        let path = entry.expect("a docs/ entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).expect("a document is text");
            docs.insert(name, anchors(&text));
        }
    }
    docs
}

/// The text files under `path`, skipping build output; files that are not UTF-8 are not
/// sources.
fn text_files(path: &Path, out: &mut Vec<(PathBuf, String)>) {
    if path.is_dir() {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if SKIPPED.contains(&name.as_ref()) {
            return;
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("a scanned directory is readable")
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            text_files(&entry, out);
        }
    } else if let Ok(text) = std::fs::read_to_string(path) {
        out.push((path.to_owned(), text));
    }
}

fn scanned() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for part in SCANNED {
        let path = Path::new(ROOT).join(part);
        if path.exists() {
            text_files(&path, &mut out);
        }
    }
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(ROOT)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn every_cited_anchor_names_a_heading() {
    let docs = documents();
    assert!(
        docs.get("reference")
            .is_some_and(|a| a.contains("gate-conditions")),
        "docs/reference.md has a `## Gate conditions` heading"
    );
    let mut problems = Vec::new();
    let mut cited = 0;
    for (path, text) in scanned() {
        let own = path
            .extension()
            .is_some_and(|e| e == "md")
            .then(|| path.file_stem().unwrap().to_string_lossy().into_owned())
            .filter(|name| {
                path.parent() == Some(&Path::new(ROOT).join("docs")) && docs.contains_key(name)
            });
        cited += citations(&text, own.as_deref()).len();
        for link in broken(&text, own.as_deref(), &docs) {
            problems.push(format!("{}: {link}", relative(&path)));
        }
    }
    assert!(
        cited > 100,
        "the sources cite the reference ({cited} citations found)"
    );
    assert!(
        problems.is_empty(),
        "citations of a heading that docs/ does not have (GitHub's anchor of a heading is its \
         text in lower case, punctuation dropped, spaces as `-`):\n{}",
        problems.join("\n")
    );
}

#[test]
fn no_source_cites_the_outside_specification() {
    let mut found = Vec::new();
    let mut src = Vec::new();
    text_files(&Path::new(ROOT).join("src"), &mut src);
    text_files(&Path::new(ROOT).join("crates"), &mut src);
    for (path, text) in &src {
        for (n, line) in text.lines().enumerate() {
            if line.contains(SPEC) || line.contains(SECTION_SIGN) {
                found.push(format!("{}:{}: {}", relative(path), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "cite the section of docs/reference.md instead, by its anchor:\n{}",
        found.join("\n")
    );
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let cases = [
        ("Gate conditions", "gate-conditions"),
        ("`auditloop mcp`", "auditloop-mcp"),
        (
            "Budget, resolution and override",
            "budget-resolution-and-override",
        ),
        ("5.1 `auditor_report_v1` (v1)", "51-auditor_report_v1-v1"),
        ("What's new?", "whats-new"),
        ("Émile — ünïcode", "émile--ünïcode"),
    ];
    for (heading, anchor) in cases {
        assert_eq!(slug(heading), anchor, "{heading:?}");
    }
    let doc = "# Title\n\n## Same\n\n```text\n## Not a heading\n```\n\n## Same\n#No space\n\n\
               Setext\n---\n\n## A [link](https://x.test) and *emphasis*\n";
    let want: BTreeSet<String> = ["title", "same", "same-1", "setext", "a-link-and-emphasis"]
        .map(String::from)
        .into();
    assert_eq!(anchors(doc), want);
}

#[test]
fn a_citation_of_a_missing_heading_is_reported() {
    let docs = documents();
    // Spelled in pieces so that the scan of this file does not see them.
    let good = format!("see (docs/reference{}#gate-conditions)", ".md");
    let bad = format!(
        "see (docs/reference{}#gate-condition) and [x](#nowhere)",
        ".md"
    );
    assert!(broken(&good, None, &docs).is_empty());
    assert_eq!(
        broken(&bad, Some("reference"), &docs),
        vec![
            format!("reference{}#gate-condition", ".md"),
            format!("reference{}#nowhere", ".md")
        ]
    );
    // Documents outside docs/ are not checked.
    assert!(broken(&format!("ARCHITECTURE{}#nope", ".md"), None, &docs).is_empty());
}
