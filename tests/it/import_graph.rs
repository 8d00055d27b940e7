//! The import graph of `src/` has no cycle: every module can be read knowing only the
//! modules it names, never the ones that name it. The layers call downward only, the rooms
//! of `app/` keep their rules, `engine/` names only the typed ids, and only `github/` and
//! `records/` build GitHub routes.
//!
//! A module is a file (`store.rs`, `decision/mod.rs`). Its edges are the modules its code
//! names through `crate::app::…`/`crate::engine::…`, `super::…` and `self::…` paths, in
//! `use` items (braces expanded) and inline alike; comments, strings and the `#[cfg(test)]`
//! tail are skipped. A path names the deepest module it reaches. Edges between a module
//! and its own ancestors or descendants are left out: a `mod.rs` declares and re-exports
//! its children, and a child uses what its parent holds, by construction.

use crate::support::sources::rust_sources;
use std::collections::{BTreeMap, BTreeSet};

type Module = Vec<String>;
type Graph = BTreeMap<Module, BTreeSet<Module>>;

/// `(module path, source)` of every file under `src/<root>/` (`""`: all of `src/`).
fn modules(root: &str) -> Vec<(Module, String)> {
    let found: Vec<(Module, String)> = rust_sources()
        .into_iter()
        .filter(|(path, _)| root.is_empty() || path.starts_with(&format!("{root}/")))
        .map(|(path, text)| {
            let mut module: Module = path
                .split('/')
                .map(|p| p.trim_end_matches(".rs").to_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            (module, text)
        })
        .collect();
    assert!(found.len() > 1, "no modules found under src/{root}");
    found
}

/// The code of a file without comments, string and char literals, or its test module.
fn code_of(source: &str) -> String {
    split(source).0
}

/// The string literals of a file's code (comments and the test module skipped).
fn literals(source: &str) -> Vec<String> {
    split(source).1
}

/// A file's code with its literals emptied, and the string literals taken out.
fn split(source: &str) -> (String, Vec<String>) {
    let source = source.split("#[cfg(test)]").next().unwrap_or_default();
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::new();
    let mut strings = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let rest = |n: usize| chars.get(i + n).copied();
        match chars[i] {
            '/' if rest(1) == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if rest(1) == Some('*') => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
            }
            'r' if matches!(rest(1), Some('"' | '#'))
                && !chars[..i]
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_') =>
            {
                let mut hashes = 0;
                let mut j = i + 1;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let body: String = chars[j + 1..].iter().collect();
                let end = body.find(&close).map_or(chars.len(), |k| {
                    strings.push(body[..k].to_owned());
                    j + 1 + body[..k].chars().count() + close.len()
                });
                out.push_str("\"\"");
                i = end;
            }
            '"' => {
                let start = i + 1;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                strings.push(chars[start..i.min(chars.len())].iter().collect());
                i += 1;
                out.push_str("\"\"");
            }
            // A char literal ('x', '\n', '\''), not a lifetime ('a).
            '\'' if rest(1) == Some('\\') || rest(2) == Some('\'') => {
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    (out, strings)
}

/// The paths of a use tree starting at `text` (just after a `::`): `a::b`, `{a, b::{c, d}}`.
fn use_tree(text: &str) -> (Vec<Vec<String>>, usize) {
    let bytes = text.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < bytes.len() && bytes[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if bytes.get(i) == Some(&b'{') {
        i += 1;
        let mut paths = Vec::new();
        loop {
            skip_ws(&mut i);
            match bytes.get(i) {
                None => break,
                Some(b'}') => {
                    i += 1;
                    break;
                }
                Some(b',') => i += 1,
                Some(_) => {
                    let (inner, used) = use_tree(&text[i..]);
                    paths.extend(inner);
                    i += used.max(1);
                }
            }
        }
        return (paths, i);
    }
    let start = i;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
        i += 1;
    }
    let ident = text[start..i].to_owned();
    if ident.is_empty() {
        // `*`, or anything else that names no further module.
        return (vec![Vec::new()], i.max(start + 1).min(text.len()));
    }
    if text[i..].starts_with("::") {
        let (inner, used) = use_tree(&text[i + 2..]);
        let paths = inner
            .into_iter()
            .map(|p| std::iter::once(ident.clone()).chain(p).collect())
            .collect();
        return (paths, i + 2 + used);
    }
    (vec![vec![ident]], i)
}

/// Every path the code names from `module`, as absolute module paths (`crate` dropped).
fn named_paths(module: &Module, code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (anchor, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
        ("self::", module.clone()),
    ] {
        let mut from = 0;
        while let Some(at) = code[from..].find(anchor) {
            let at = from + at;
            from = at + anchor.len();
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let (paths, _) = use_tree(&code[from..]);
            for p in paths {
                // `super::super::x` climbs one more level per `super`.
                let mut base = base.clone();
                let mut p = p.as_slice();
                while p.first().is_some_and(|s| s == "super") {
                    base.pop();
                    p = &p[1..];
                }
                found.push(base.into_iter().chain(p.iter().cloned()).collect());
            }
        }
    }
    found
}

fn is_prefix(a: &[String], b: &[String]) -> bool {
    a.len() <= b.len() && b[..a.len()] == *a
}

fn graph(files: &[(Module, String)]) -> Graph {
    let known: BTreeSet<&Module> = files.iter().map(|(m, _)| m).collect();
    let mut graph = Graph::new();
    for (module, source) in files {
        let edges = graph.entry(module.clone()).or_default();
        for path in named_paths(module, &code_of(source)) {
            let Some(target) = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| known.contains(p))
            else {
                continue;
            };
            if !is_prefix(&target, module) && !is_prefix(module, &target) {
                edges.insert(target);
            }
        }
    }
    graph
}

/// A cycle, as the modules along it, if the graph has one.
fn cycle(graph: &Graph) -> Option<Vec<Module>> {
    fn visit(
        m: &Module,
        graph: &Graph,
        done: &mut BTreeSet<Module>,
        path: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut found = path[at..].to_vec();
            found.push(m.clone());
            return Some(found);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.clone());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, graph, done, path) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(m.clone());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut done, &mut Vec::new()))
}

fn shown(cycle: &[Module]) -> String {
    cycle
        .iter()
        .map(|m| m.join("::"))
        .collect::<Vec<_>>()
        .join(" -> ")
}

fn module(path: &str) -> Module {
    path.split("::").map(str::to_owned).collect()
}

/// The modules `from` may not name: each rule is a module prefix whose files may not reach
/// any of the listed prefixes.
type Rule = (&'static str, &'static [&'static str]);

/// The layers of ARCHITECTURE.md, each calling downward only, and the rooms of `app/`:
/// publishing shows what was committed and never commits.
const RULES: &[Rule] = &[
    ("server", &["app", "cli", "setup", "mcp"]),
    ("app", &["server", "cli", "setup", "mcp"]),
    ("records", &["app", "server", "cli", "setup", "mcp"]),
    (
        "github",
        &[
            "app", "server", "records", "cli", "setup", "mcp", "commands",
        ],
    ),
    (
        "commands",
        &[
            "app", "server", "records", "github", "cli", "setup", "mcp", "events",
        ],
    ),
    (
        "app::publish",
        &[
            "app::commit::store",
            "app::commit::decision",
            "app::commit::dispatch",
            "app::commit::filing",
            "app::commit::learning",
            "app::handlers",
        ],
    ),
    ("app::commit", &["app::handlers"]),
];

/// What `engine/` may name outside itself: the typed ids, nothing else.
const ENGINE_MAY_NAME: &[&str] = &["ids"];

fn under(prefix: &str, m: &Module) -> bool {
    is_prefix(&module(prefix), m)
}

/// Every edge that breaks a rule, as `from -> to`.
fn broken(graph: &Graph, rules: &[Rule]) -> Vec<String> {
    let mut found = Vec::new();
    for (from, targets) in graph {
        for to in targets {
            let ruled = rules
                .iter()
                .any(|(who, banned)| under(who, from) && banned.iter().any(|b| under(b, to)));
            let engine_out = under("engine", from)
                && !under("engine", to)
                && !ENGINE_MAY_NAME.iter().any(|ok| under(ok, to));
            if ruled || engine_out {
                found.push(format!("{} -> {}", from.join("::"), to.join("::")));
            }
        }
    }
    found
}

/// The REST paths GitHub serves, as a literal that builds a request starts them, or a
/// route template (`"GET /repos/{owner}/{repo}"`).
fn builds_a_route(literal: &str) -> bool {
    const PATHS: &[&str] = &[
        "/repos/",
        "/app",
        "/installation",
        "/orgs/",
        "/user",
        "/graphql",
    ];
    let path = ["GET ", "POST ", "PATCH ", "PUT ", "DELETE "]
        .iter()
        .find_map(|m| literal.strip_prefix(m))
        .unwrap_or(literal);
    PATHS.iter().any(|p| path.starts_with(p))
}

/// Files outside `github/` and `records/` whose code builds a GitHub route.
fn routes_outside(files: &[(Module, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(m, _)| !under("github", m) && !under("records", m))
        .flat_map(|(m, source)| {
            literals(source)
                .into_iter()
                .filter(|l| builds_a_route(l))
                .map(move |l| format!("{}: {l:?}", m.join("::")))
        })
        .collect()
}

#[test]
fn src_imports_without_a_cycle() {
    let graph = graph(&modules(""));
    // The graph is really built: the decision path is named by the comment handler, and
    // the layers are linked.
    let edge = |a: &str, b: &str| graph[&module(a)].contains(&module(b));
    assert!(edge("app::handlers::comment", "app::commit::decision"));
    assert!(edge(
        "app::commit::decision::on_record",
        "app::commit::filing"
    ));
    assert!(edge("server::routes", "delivery"));
    if let Some(found) = cycle(&graph) {
        panic!("import cycle in src: {}", shown(&found));
    }
}

#[test]
fn engine_modules_import_each_other_without_a_cycle() {
    let graph = graph(&modules("engine"));
    assert!(
        graph.values().map(BTreeSet::len).sum::<usize>() > 10,
        "{graph:#?}"
    );
    if let Some(found) = cycle(&graph) {
        panic!("import cycle in src/engine: {}", shown(&found));
    }
}

#[test]
fn layers_and_rooms_name_only_what_they_may() {
    let graph = graph(&modules(""));
    let found = broken(&graph, RULES);
    assert!(
        found.is_empty(),
        "imports against the rules:\n{}",
        found.join("\n")
    );
}

#[test]
fn only_github_and_records_build_github_routes() {
    let files = modules("");
    // The scan sees the routes where they are built.
    assert!(files
        .iter()
        .any(|(m, s)| under("github", m) && literals(s).iter().any(|l| builds_a_route(l))));
    let found = routes_outside(&files);
    assert!(
        found.is_empty(),
        "GitHub routes built outside github/ and records/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_rules_catch_what_breaks_them() {
    let file = |m: &str, text: &str| (module(m), text.to_owned());
    let files = [
        file(
            "app::publish::views",
            "use crate::app::commit::store::apply;",
        ),
        file("app::commit::store", "fn f() {}"),
        file("app::commit::loading", "fn f() {}"),
        file(
            "app::publish::body",
            "use crate::app::commit::loading::load;",
        ),
        file(
            "engine::gate",
            "use crate::github::rest::Pull; use crate::ids::CommitSha;",
        ),
        file("github::rest", "fn f() {}"),
        file("ids", "fn f() {}"),
        file(
            "app::handlers::sweep",
            "const R: &str = \"GET /app/installations\"; // \"/repos/x\"",
        ),
        file(
            "cli::post",
            "let s = format!(\"/repos/{}/{}\", o, r); let c = \"/audit report\";",
        ),
    ];
    let graph = graph(&files);
    assert_eq!(
        broken(&graph, RULES),
        [
            "app::publish::views -> app::commit::store",
            "engine::gate -> github::rest"
        ]
    );
    assert_eq!(
        routes_outside(&files),
        [
            "app::handlers::sweep: \"GET /app/installations\"",
            "cli::post: \"/repos/{}/{}\"",
        ]
    );
}

#[test]
fn the_check_finds_cycles_through_groups_super_and_inline_paths() {
    let file = |m: &str, text: &str| (module(m), text.to_owned());
    let acyclic = [
        file("app", "mod a; mod b; pub use a::X;"),
        file(
            "app::a",
            "use crate::app::{b::Y, Z};\n// use crate::app::c;\n",
        ),
        file("app::b", "use super::*; let s = \"crate::app::a\";"),
        file("app::c", "fn f() { crate::app::b::g() }"),
    ];
    assert_eq!(cycle(&graph(&acyclic)), None, "{:#?}", graph(&acyclic));
    let through_group = [
        file("app::a", "use crate::app::{\n    b::{self, Y},\n};"),
        file("app::b", "fn f<'a>(c: char) { c == '}'; super::a::g() }"),
    ];
    let found = cycle(&graph(&through_group)).expect("a cycle through a group");
    assert_eq!(shown(&found), "app::a -> app::b -> app::a");
    let nested = [
        file(
            "engine::gate::evaluate",
            "use crate::engine::record::model::R;",
        ),
        file("engine::record::model", "use super::super::gate::evaluate;"),
        file("engine::record", "pub mod model;"),
        file("engine::gate", "pub mod evaluate;"),
    ];
    assert!(cycle(&graph(&nested)).is_some(), "{:#?}", graph(&nested));
}
