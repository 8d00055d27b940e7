//! The code stays small enough to read: no function in `src/app/` longer than one
//! sitting's read ([`FN_LIMIT`] lines), no file of any crate longer than [`FILE_LIMIT`].
//!
//! Lines are counted as they stand in the file, blank lines and comments included (that is
//! what a reader reads); a function runs from its `fn` line to its closing brace, its doc
//! comment and attributes not counted. The `#[cfg(test)]` module at the end of a file is
//! not counted. Functions are found by a small scanner, not a parser: comments, string and
//! char literals are blanked (their line breaks kept), then each `fn` item's body is the
//! first `{` after its name outside parentheses and brackets, matched to its closing brace.

use crate::support::sources::rust_sources;

/// The longest a function in `src/app/` may be: what reads in one sitting.
const FN_LIMIT: usize = 70;
/// The longest a file of any crate may be, its test module aside.
const FILE_LIMIT: usize = 450;

/// Functions of `src/app/` allowed past [`FN_LIMIT`], as `path::name` from the workspace root, each
/// with its reason. Empty: every one was split.
const LONG_FN_EXCEPTIONS: &[&str] = &[];
/// Files allowed past [`FILE_LIMIT`], each with its reason. Empty.
const LONG_FILE_EXCEPTIONS: &[&str] = &[];

#[derive(Debug, PartialEq)]
struct Function {
    name: String,
    /// 1-based line of the `fn` keyword.
    line: usize,
    /// Lines from the `fn` line to the closing brace, both included.
    lines: usize,
}

/// The file without its test module: everything before a `#[cfg(test)]` line that opens
/// a `mod`.
fn without_test_tail(source: &str) -> &str {
    let mut offset = 0;
    let mut lines = source.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let opens_mod = lines.peek().is_some_and(|next| next.starts_with("mod "));
        if line.trim_end() == "#[cfg(test)]" && opens_mod {
            return &source[..offset];
        }
        offset += line.len();
    }
    source
}

/// The source with comments and string and char literals replaced by spaces, line breaks
/// kept, so that braces and `fn` are only code's and lines still count.
fn masked(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let at = |n: usize| chars.get(i + n).copied();
        let end = match chars[i] {
            '/' if at(1) == Some('/') => (i..chars.len())
                .find(|j| chars[*j] == '\n')
                .unwrap_or(chars.len()),
            '/' if at(1) == Some('*') => block_comment_end(&chars, i),
            'r' if raw_string_at(&chars, i) => raw_string_end(&chars, i),
            '"' => quoted_end(&chars, i),
            // A char literal ('x', '\n', '\'', '\u{7b}'), not a lifetime ('a).
            '\'' if at(1) == Some('\\') || at(2) == Some('\'') => quoted_end(&chars, i),
            c => {
                out.push(c);
                i += 1;
                continue;
            }
        };
        out.extend(
            chars[i..end]
                .iter()
                .map(|c| if *c == '\n' { '\n' } else { ' ' }),
        );
        i = end;
    }
    out
}

/// Just past the `*/` closing the block comment at `start` (block comments nest).
fn block_comment_end(chars: &[char], start: usize) -> usize {
    let mut depth = 0;
    let mut j = start;
    while j + 1 < chars.len() {
        match (chars[j], chars[j + 1]) {
            ('/', '*') => depth += 1,
            ('*', '/') => depth -= 1,
            _ => {
                j += 1;
                continue;
            }
        }
        j += 2;
        if depth == 0 {
            return j;
        }
    }
    chars.len()
}

/// Whether a raw string (`r"…"`, `r#"…"#`, `br"…"`) starts at `i`, not a raw identifier
/// (`r#type`) or a name ending in `r`.
fn raw_string_at(chars: &[char], i: usize) -> bool {
    let prefix_ok = !ident_before(chars, i) || (chars[i - 1] == 'b' && !ident_before(chars, i - 1));
    let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
    prefix_ok && chars.get(i + 1 + hashes) == Some(&'"')
}

/// Just past the raw string at `start`: its closing quote and as many `#` as it opened with.
fn raw_string_end(chars: &[char], start: usize) -> usize {
    let hashes = chars[start + 1..].iter().take_while(|c| **c == '#').count();
    let closes = |j: usize| chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#'));
    (start + hashes + 2..chars.len())
        .find(|j| closes(*j))
        .map_or(chars.len(), |j| j + 1 + hashes)
}

/// Just past the string or char literal opened by the quote at `start`, escapes skipped.
fn quoted_end(chars: &[char], start: usize) -> usize {
    let quote = chars[start];
    let mut j = start + 1;
    while j < chars.len() && chars[j] != quote {
        j += if chars[j] == '\\' { 2 } else { 1 };
    }
    (j + 1).min(chars.len())
}

/// Whether the char before `i` continues an identifier.
fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Every `fn` item with a body in `source` (bodiless trait methods and `fn(..)` pointer
/// types are not items with a body), nested ones too.
fn functions(source: &str) -> Vec<Function> {
    let code: Vec<char> = masked(source).chars().collect();
    let line_at = |i: usize| 1 + code[..i].iter().filter(|c| **c == '\n').count();
    let mut found = Vec::new();
    for i in 0..code.len().saturating_sub(2) {
        let keyword = code[i] == 'f'
            && code[i + 1] == 'n'
            && code[i + 2].is_whitespace()
            && !ident_before(&code, i);
        if !keyword {
            continue;
        }
        let name: String = code[i + 2..]
            .iter()
            .skip_while(|c| c.is_whitespace())
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = body_start(&code, i) else {
            continue;
        };
        let Some(close) = matching_brace(&code, open) else {
            continue;
        };
        found.push(Function {
            name,
            line: line_at(i),
            lines: line_at(close) - line_at(i) + 1,
        });
    }
    found
}

/// The index of the `{` opening the body of the `fn` at `from`, or `None` when a `;` ends
/// the signature first.
fn body_start(code: &[char], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (j, c) in code.iter().enumerate().skip(from) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' if depth == 0 => return Some(j),
            ';' if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// The index of the `}` closing the `{` at `open`.
fn matching_brace(code: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The functions of `source` (file `path`) longer than `limit`, as readable lines,
/// leaving out those whose `path::name` is in `exceptions`.
fn long_functions(path: &str, source: &str, limit: usize, exceptions: &[&str]) -> Vec<String> {
    functions(without_test_tail(source))
        .into_iter()
        .filter(|f| f.lines > limit)
        .filter(|f| !exceptions.contains(&format!("{path}::{}", f.name).as_str()))
        .map(|f| format!("{path}:{} fn {} is {} lines", f.line, f.name, f.lines))
        .collect()
}

#[test]
fn app_functions_fit_in_one_read() {
    let offenders: Vec<String> = rust_sources()
        .iter()
        .filter(|(path, _)| path.starts_with("src/app/"))
        .flat_map(|(path, source)| long_functions(path, source, FN_LIMIT, LONG_FN_EXCEPTIONS))
        .collect();
    assert!(
        offenders.is_empty(),
        "functions in src/app/ longer than {FN_LIMIT} lines (split them, or add one to \
         LONG_FN_EXCEPTIONS with its reason):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn src_files_fit_the_size_rule() {
    let offenders: Vec<String> = rust_sources()
        .iter()
        .filter(|(path, _)| !LONG_FILE_EXCEPTIONS.contains(&path.as_str()))
        .filter_map(|(path, source)| {
            let lines = without_test_tail(source).lines().count();
            (lines > FILE_LIMIT).then(|| format!("{path} is {lines} lines"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "files of the workspace longer than {FILE_LIMIT} lines, their test module aside (split them, \
         or add one to LONG_FILE_EXCEPTIONS with its reason):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn every_exception_is_still_needed() {
    let sources = rust_sources();
    for exception in LONG_FN_EXCEPTIONS {
        let (path, name) = exception.rsplit_once("::").expect("path::name");
        let source = &sources.iter().find(|(p, _)| p == path).expect("a file").1;
        let long = functions(without_test_tail(source))
            .iter()
            .any(|f| f.name == name && f.lines > FN_LIMIT);
        assert!(long, "{exception} is no longer long: drop its exception");
    }
    for path in LONG_FILE_EXCEPTIONS {
        let source = &sources.iter().find(|(p, _)| p == path).expect("a file").1;
        let lines = without_test_tail(source).lines().count();
        assert!(
            lines > FILE_LIMIT,
            "{path} is no longer long: drop its exception"
        );
    }
}

/// A source with `fn long` of `body + 2` lines, around literals and comments that hold
/// braces and `fn`, so that a scanner fooled by them miscounts.
fn fixture(body: usize) -> String {
    let mut source = String::from(
        "/* fn hidden() { nested /* } */ } */\n\
         fn short<'a>(x: &'a str) -> [u8; 2] { let _ = ('{', '\\'', \"}\\\"{\"); [0; 2] }\n\
         trait T { fn bodiless(&self); }\n\
         type P = fn(u8) -> u8;\n\
         fn long() {\n",
    );
    for n in 0..body {
        source.push_str(match n % 4 {
            0 => "    let s = \"}\"; // }\n",
            1 => "    let r = r#\"}\"# ; let b = br\"}\";\n",
            2 => "    let c = '}'; let u = '\\u{7d}';\n",
            _ => "    /* } */ let f = \"fn x() {\";\n",
        });
    }
    source.push_str("}\nfn after() {}\n#[cfg(test)]\nmod tests {\n    fn in_tests() {\n");
    source.push_str(&"\n".repeat(100));
    source.push_str("    }\n}\n");
    source
}

#[test]
fn the_scanner_counts_through_literals_and_comments() {
    let source = fixture(10);
    let found = functions(without_test_tail(&source));
    let seen: Vec<(&str, usize, usize)> = found
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(seen, [("short", 2, 1), ("long", 5, 12), ("after", 17, 1)]);
}

#[test]
fn the_check_names_an_overlong_function() {
    let fits = fixture(FN_LIMIT - 2);
    assert_eq!(
        long_functions("src/app/x.rs", &fits, FN_LIMIT, &[]),
        Vec::<String>::new()
    );
    let over = fixture(FN_LIMIT - 1);
    assert_eq!(
        long_functions("src/app/x.rs", &over, FN_LIMIT, &[]),
        [format!("src/app/x.rs:5 fn long is {} lines", FN_LIMIT + 1)]
    );
    assert_eq!(
        long_functions("src/app/x.rs", &over, FN_LIMIT, &["src/app/x.rs::long"]),
        Vec::<String>::new()
    );
}
