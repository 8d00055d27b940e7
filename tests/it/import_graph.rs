//! The import graph of `src/app/` and of `src/engine/` has no cycle: every module there can
//! be read knowing only the modules it names, never the ones that name it.
//!
//! A module is a file (`store.rs`, `decision/mod.rs`). Its edges are the modules its code
//! names through `crate::app::…`/`crate::engine::…`, `super::…` and `self::…` paths, in
//! `use` items (braces expanded) and inline alike; comments, strings and the `#[cfg(test)]`
//! tail are skipped. A path names the deepest module it reaches. Edges between a module
//! and its own ancestors or descendants are left out: a `mod.rs` declares and re-exports
//! its children, and a child uses what its parent holds, by construction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Module = Vec<String>;
type Graph = BTreeMap<Module, BTreeSet<Module>>;

/// `(module path, source)` of every file under `src/<root>/`.
fn modules(root: &str) -> Vec<(Module, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut stack = vec![src.join(root)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(&src).expect("under src");
            let mut module: Module = relative
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            found.push((
                module,
                std::fs::read_to_string(&path).expect("readable source"),
            ));
        }
    }
    assert!(found.len() > 1, "no modules found under src/{root}");
    found
}

/// The code of a file without comments, string and char literals, or its test module.
fn code_of(source: &str) -> String {
    let source = source.split("#[cfg(test)]").next().unwrap_or_default();
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::new();
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
                    j + 1 + body[..k].chars().count() + close.len()
                });
                out.push_str("\"\"");
                i = end;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
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
    out
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

#[test]
fn app_modules_import_each_other_without_a_cycle() {
    let graph = graph(&modules("app"));
    // The graph is really built: the decision path is named by the comment handler.
    assert!(graph[&module("app::comment")].contains(&module("app::decision")));
    assert!(graph[&module("app::decision::on_record")].contains(&module("app::filing")));
    if let Some(found) = cycle(&graph) {
        panic!("import cycle in src/app: {}", shown(&found));
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
