//! The import graph of every crate of the workspace has no cycle, of files or of top-level
//! modules: every module can be read knowing only the modules it names, never the ones that
//! name it. The layers call downward only, the rooms of `app/` keep their rules, the engine
//! crate depends on nothing that does I/O, and only `github/` and `records/` build GitHub
//! routes. The engine crate's files are read as the module the app sees it as (`engine::…`).
//!
//! A module is a file (`commit_loop.rs`, `decision/mod.rs`). Its edges are the modules its code
//! names through `crate::…`, `super::…` and `self::…` paths and bare paths into the children
//! it declares (`handlers::comment::handle`), in `use` items (braces expanded) and inline
//! alike; comments, strings and the `#[cfg(test)]` tail are skipped. A path names the file
//! that defines what it names: a name a `mod.rs` re-exports (`pub use context::Ctx`, `pub
//! use model::*`) is followed to the child that defines it, and a re-export is not itself
//! an edge. So a child naming its parent's own item while the parent calls the child is the
//! cycle of files it is.

use crate::support::sources::{bench_sources, crate_of, rust_sources, CRATES};
use std::collections::{BTreeMap, BTreeSet};

type Module = Vec<String>;
type Graph = BTreeMap<Module, BTreeSet<Module>>;

/// `(module path, source)` of every file of every crate whose module is under `root`
/// (`""`: all of them). A crate's files sit under the module the app sees it as
/// (`crates/engine/src/gate/mod.rs` is `engine::gate`); a crate root (`lib.rs`) is its
/// mount itself, the app's the empty path.
fn modules(root: &str) -> Vec<(Module, String)> {
    let found: Vec<(Module, String)> = rust_sources()
        .into_iter()
        .map(|(path, text)| {
            let krate = crate_of(&path);
            let inner = &path[krate.dir.len() + 1..];
            let mut module: Module = mount(krate.mount);
            module.extend(
                inner
                    .split('/')
                    .map(|p| p.trim_end_matches(".rs").to_owned()),
            );
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            (module, text)
        })
        .filter(|(m, _)| root.is_empty() || is_prefix(&module(root), m))
        .collect();
    assert!(found.len() > 1, "no modules found under {root}");
    found
}

/// The module under which the bench targets' files are read: `benches::load` for
/// `benches/load/` (its root `main.rs`), `benches::engine` for `benches/engine.rs`.
const BENCHES: &str = "benches";

/// `(module path, source)` of every file of every bench target, each its own crate.
fn bench_modules() -> Vec<(Module, String)> {
    bench_sources()
        .into_iter()
        .map(|(path, text)| {
            let mut module: Module = path
                .split('/')
                .map(|p| p.trim_end_matches(".rs").to_owned())
                .collect();
            // A target's directory is its crate, `main.rs` the crate's root.
            if module.len() > 2 && module.last().is_some_and(|m| m == "main") {
                module.pop();
            }
            (module, text)
        })
        .collect()
}

fn mount(path: &str) -> Module {
    path.split("::")
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The module `crate::` means in `module`'s file: the mount of the crate it is in (for a
/// bench target's file, the target).
fn crate_root(module: &Module) -> Module {
    if module.first().is_some_and(|m| m == BENCHES) {
        return module.iter().take(2).cloned().collect();
    }
    CRATES
        .iter()
        .map(|k| mount(k.mount))
        .filter(|m| is_prefix(m, module))
        .max_by_key(Vec::len)
        .unwrap_or_default()
}

/// The other crates a file may name by their own names (`auditloop_engine::gate`), each
/// with the module it is seen as.
fn extern_roots(root: &Module) -> impl Iterator<Item = (&'static str, Module)> + '_ {
    CRATES
        .iter()
        .map(|k| (k.name, mount(k.mount)))
        .filter(move |(_, m)| m != root)
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
fn named_paths(module: &Module, children: &BTreeSet<String>, code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bare = children.iter().map(|c| {
        (
            format!("{c}::"),
            module.iter().chain([c]).cloned().collect(),
        )
    });
    let root = crate_root(module);
    let externs = extern_roots(&root).map(|(name, m)| (format!("{name}::"), m));
    for (anchor, base) in [
        ("crate::".to_owned(), root.clone()),
        (
            "super::".to_owned(),
            module[..module.len().saturating_sub(1)].to_vec(),
        ),
        ("self::".to_owned(), module.clone()),
    ]
    .into_iter()
    .chain(externs)
    .chain(bare)
    {
        let anchor = anchor.as_str();
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

/// What one file says about its names: the child modules it declares (`mod x;`), the items
/// it defines, and what it re-exports (`pub use x::Y;`, `pub use x::*;`), as absolute paths.
#[derive(Default)]
struct Names {
    children: BTreeSet<String>,
    defines: BTreeSet<String>,
    exports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

/// The statements of `code` that start with `pub use`/`pub(…) use`, each up to its `;`.
fn reexport_items(code: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for anchor in ["pub use ", "pub(crate) use ", "pub(super) use "] {
        let mut from = 0;
        while let Some(at) = code[from..].find(anchor) {
            let at = from + at;
            let end = code[at..].find(';').map_or(code.len(), |e| at + e + 1);
            found.push((at, end));
            from = end;
        }
    }
    found
}

/// A path as written in `module` (`child::x`, `crate::a`, `super::b`, `self::c`), made
/// absolute; `None` for a path into another crate.
fn absolute(module: &Module, children: &BTreeSet<String>, path: &[String]) -> Option<Vec<String>> {
    let root = crate_root(module);
    let (mut base, mut rest) = match path.first().map(String::as_str) {
        Some("crate") => (root, &path[1..]),
        Some(name) if extern_roots(&root).any(|(k, _)| k == name) => {
            let (_, m) = extern_roots(&root).find(|(k, _)| *k == name)?;
            (m, &path[1..])
        }
        Some("self") => (module.clone(), &path[1..]),
        Some("super") => (module.clone(), path),
        Some(first) if children.contains(first) => (module.clone(), path),
        _ => return None,
    };
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    Some(base.into_iter().chain(rest.iter().cloned()).collect())
}

fn names_of(module: &Module, code: &str) -> Names {
    let mut names = Names::default();
    for statement in code.split(';') {
        let line = statement.lines().last().unwrap_or_default().trim();
        let line = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .unwrap_or(line);
        if let Some(child) = line.strip_prefix("mod ") {
            names.children.insert(child.trim().to_owned());
        }
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if matches!(
            pair[0],
            "struct"
                | "enum"
                | "fn"
                | "trait"
                | "type"
                | "const"
                | "static"
                | "union"
                | "macro_rules!"
        ) {
            names.defines.insert(pair[1].to_owned());
        }
    }
    for (at, end) in reexport_items(code) {
        let item = &code[at..end];
        let Some(tree) = item.find("use ").map(|u| &item[u + 4..]) else {
            continue;
        };
        let (paths, _) = use_tree(tree);
        // `pub use x::*;` re-exports whatever `x` defines.
        let glob = item.trim_end_matches(';').trim_end().ends_with("::*");
        for p in paths {
            let Some(mut path) = absolute(module, &names.children, &p) else {
                continue;
            };
            if glob {
                names.globs.push(path);
                continue;
            }
            if path.last().is_some_and(|l| l == "self") {
                path.pop();
            }
            if let Some(name) = path.last() {
                names.exports.insert(name.clone(), path.clone());
            }
        }
        // `pub use a::B as C;` names `C` where `B` is.
        let words: Vec<&str> = item
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        for w in words.windows(3) {
            if w[1] == "as" {
                if let Some(to) = names.exports.get(w[0]).cloned() {
                    names.exports.insert(w[2].to_owned(), to);
                }
            }
        }
    }
    names
}

/// The file a path names: the deepest known module it reaches, through the re-exports of
/// the modules along it, or `None` when it names a module enclosing `from` as a whole
/// (`use super::*`, `crate::app`).
fn resolve(
    path: &[String],
    from: &Module,
    known: &BTreeSet<&Module>,
    names: &BTreeMap<Module, Names>,
    depth: usize,
) -> Option<Module> {
    let target = (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| known.contains(p))?;
    let Some(name) = path.get(target.len()) else {
        return (!is_prefix(&target, from)).then_some(target);
    };
    let rest = &path[target.len() + 1..];
    let here = &names[&target];
    let through = |to: &[String]| {
        let next: Vec<String> = to.iter().chain(rest).cloned().collect();
        resolve(&next, from, known, names, depth + 1)
    };
    if depth < 8 && !here.defines.contains(name) {
        if let Some(to) = here.exports.get(name) {
            return through(to);
        }
        // The app's root names nothing by itself: a path into it that no re-export
        // carries on is a path this scan does not know.
        if target.is_empty() {
            return None;
        }
        for glob in &here.globs {
            let mut to = glob.clone();
            to.push(name.clone());
            if known.contains(glob) && names[glob].defines.contains(name) || known.contains(&to) {
                return through(&to);
            }
        }
    }
    Some(target)
}

fn graph(files: &[(Module, String)]) -> Graph {
    let known: BTreeSet<&Module> = files.iter().map(|(m, _)| m).collect();
    let codes: Vec<String> = files.iter().map(|(_, s)| code_of(s)).collect();
    let names: BTreeMap<Module, Names> = files
        .iter()
        .zip(&codes)
        .map(|((m, _), code)| (m.clone(), names_of(m, code)))
        .collect();
    let mut graph = Graph::new();
    for ((module, _), code) in files.iter().zip(&codes) {
        // A re-export is not a use: who names it is linked to what it names.
        let mut code = code.clone();
        for (at, end) in reexport_items(&code.clone()) {
            code.replace_range(at..end, &" ".repeat(end - at));
        }
        let edges = graph.entry(module.clone()).or_default();
        let children = &names[module].children;
        for path in named_paths(module, children, &code) {
            if let Some(target) = resolve(&path, module, &known, &names, 0) {
                if target != *module {
                    edges.insert(target);
                }
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
/// publishing shows what was committed and names nothing of committing; reading names
/// neither. The fake GitHub is the tests' and the load tool's: nothing of the app names it,
/// and it names nothing of the app (it plays GitHub from GitHub's description alone).
const RULES: &[Rule] = &[
    ("", &["fake_github"]),
    (
        "fake_github",
        &[
            "app", "server", "records", "github", "cli", "setup", "mcp", "remote", "commands",
            "engine", "events",
        ],
    ),
    ("server", &["app", "cli", "setup", "mcp"]),
    ("app", &["server", "cli", "setup", "mcp", "remote"]),
    ("remote", &["server", "cli", "setup", "mcp"]),
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
    ("app::publish", &["app::commit", "app::handlers"]),
    (
        "app::reads",
        &["app::commit", "app::publish", "app::handlers"],
    ),
    ("app::commit", &["app::handlers"]),
];

/// What the engine crate may not depend on, directly or through another crate: the async
/// runtime, the HTTP stacks and the GitHub client. Its code cannot name what it does not
/// depend on, so this list is what keeps the rules free of I/O.
const ENGINE_MAY_NOT_DEPEND_ON: &[&str] = &[
    "tokio", "mio", "octocrab", "axum", "hyper", "reqwest", "tower", "wiremock",
];

/// The engine's floors: the modules the views are built on. They word their reasons with
/// `md` and never name what shows a record, so the engine's imports point down only.
const ENGINE_FLOORS: &[&str] = &[
    "engine::md",
    "engine::ids",
    "engine::text",
    "engine::layout",
    "engine::legend",
    "engine::report",
    "engine::record",
    "engine::receipt",
    "engine::repo_config",
    "engine::policy",
    "engine::closing",
    "engine::ledger",
    "engine::patterns",
    "engine::transition",
    "engine::gate",
    "engine::packet_context",
    "engine::packet_delta",
    "engine::packet_ledger",
];

/// What shows a record: the views, the dashboard and the audit packet. Only these name a view.
const ENGINE_VIEWS: &[&str] = &["engine::views", "engine::dashboard", "engine::packet"];

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
            if ruled {
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
        panic!("import cycle in the workspace: {}", shown(&found));
    }
}

#[test]
fn benches_and_crates_import_without_a_cycle() {
    let files: Vec<(Module, String)> = modules("").into_iter().chain(bench_modules()).collect();
    let graph = graph(&files);
    // The benches are read, as crates of their own that name the workspace's crates: the
    // load tool's root names its modules, its fake the shared fake's REST routes.
    let edge = |a: &str, b: &str| graph[&module(a)].contains(&module(b));
    assert!(edge("benches::load", "benches::load::fake"));
    assert!(edge("benches::load::fake", "fake_github::rest"));
    assert!(graph.contains_key(&module("benches::engine")));
    if let Some(found) = cycle(&graph) {
        panic!(
            "import cycle in the workspace's benches and crates: {}",
            shown(&found)
        );
    }
}

/// The graph of the top-level modules (`cli`, `mcp`, `app`…), each file's edges folded
/// into its module's.
fn top_level(graph: &Graph) -> Graph {
    let mut folded = Graph::new();
    for (from, targets) in graph.iter().filter(|(from, _)| !from.is_empty()) {
        let top = from[..1].to_vec();
        let edges = folded.entry(top.clone()).or_default();
        for to in targets.iter().filter(|to| !to.is_empty()) {
            if to[..1] != top[..] {
                edges.insert(to[..1].to_vec());
            }
        }
    }
    folded
}

#[test]
fn top_level_modules_import_each_other_without_a_cycle() {
    let graph = top_level(&graph(&modules("")));
    assert!(graph[&module("cli")].contains(&module("engine")));
    if let Some(found) = cycle(&graph) {
        panic!("import cycle between top-level modules: {}", shown(&found));
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
        panic!("import cycle in the engine crate: {}", shown(&found));
    }
}

/// The packages `package` depends on in a `Cargo.lock`, directly or not.
fn dependencies_in_lock(lock: &str, package: &str) -> BTreeSet<String> {
    let lock: toml::Table = toml::from_str(lock).expect("Cargo.lock is TOML");
    let packages = lock["package"].as_array().expect("[[package]]");
    let deps_of = |name: &str| -> Vec<String> {
        packages
            .iter()
            .filter(|p| p["name"].as_str() == Some(name))
            .filter_map(|p| p.get("dependencies").and_then(|d| d.as_array()).cloned())
            .flatten()
            .filter_map(|d| {
                d.as_str()
                    .map(|d| d.split(' ').next().unwrap_or(d).to_owned())
            })
            .collect()
    };
    let mut found = BTreeSet::new();
    let mut todo = deps_of(package);
    while let Some(next) = todo.pop() {
        if found.insert(next.clone()) {
            todo.extend(deps_of(&next));
        }
    }
    found
}

#[test]
fn the_engine_crate_depends_on_nothing_that_does_io() {
    let lock = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.lock"),
    )
    .expect("Cargo.lock");
    let engine = dependencies_in_lock(&lock, "auditloop-engine");
    // The walk is real: the engine's own dependencies and theirs are there.
    assert!(
        engine.contains("serde_json") && engine.contains("serde_core"),
        "{engine:?}"
    );
    let app = dependencies_in_lock(&lock, "auditloop");
    assert!(app.contains("auditloop-engine") && app.contains("tokio"));
    let found: Vec<&&str> = ENGINE_MAY_NOT_DEPEND_ON
        .iter()
        .filter(|banned| engine.contains(**banned))
        .collect();
    assert!(found.is_empty(), "the engine crate depends on {found:?}");
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
fn the_engines_floors_name_no_view() {
    let files = modules("engine");
    let g = graph(&files);
    // Each module of the engine is a floor or a view: a new one is placed before it lands.
    let unplaced: Vec<String> = g
        .keys()
        .filter(|m| m.len() > 1)
        .filter(|m| {
            !ENGINE_FLOORS
                .iter()
                .chain(ENGINE_VIEWS)
                .any(|p| under(p, m))
        })
        .map(|m| m.join("::"))
        .collect();
    assert!(
        unplaced.is_empty(),
        "engine modules neither floor nor view: {unplaced:?}"
    );
    // The scan sees the edges: a view names the floors it shows.
    assert!(g[&module("engine::views::rounds")].contains(&module("engine::gate::verdict")));
    let rules: Vec<Rule> = ENGINE_FLOORS.iter().map(|f| (*f, ENGINE_VIEWS)).collect();
    let found = broken(&g, &rules);
    assert!(
        found.is_empty(),
        "engine floors that name a view:\n{}",
        found.join("\n")
    );
    // A floor naming a view is caught, inline or in a `use`.
    let file = |m: &str, text: &str| (module(m), text.to_owned());
    let fixture = [
        file("engine::gate::evaluate", "use crate::views::md::Md;"),
        file("engine::closing", "fn f() { crate::dashboard::render() }"),
        file("engine::views", "pub mod md;"),
        file("engine::views::md", "pub struct Md;"),
        file("engine::dashboard", "pub fn render() {}"),
    ];
    assert_eq!(
        broken(&graph(&fixture), &rules),
        [
            "engine::closing -> engine::dashboard",
            "engine::gate::evaluate -> engine::views::md",
        ]
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

/// A literal that spells a path of the records branch (`"index.json"`, `"records/{id}.json"`),
/// not words about one (`"index.json disagrees with …"`).
fn spells_a_records_path(literal: &str) -> bool {
    ["index.json", "patterns.json"].contains(&literal)
        || ["records/", "reports/"]
            .iter()
            .any(|p| literal.starts_with(p))
}

/// Files other than the layout's that spell a path of the records branch.
fn layout_outside(files: &[(Module, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(m, _)| *m != module("engine::layout"))
        .flat_map(|(m, source)| {
            literals(source)
                .into_iter()
                .filter(|l| spells_a_records_path(l))
                .map(move |l| format!("{}: {l:?}", m.join("::")))
        })
        .collect()
}

#[test]
fn only_the_layout_spells_the_records_branch_paths() {
    let files = modules("");
    assert!(files.iter().any(|(m, s)| *m == module("engine::layout")
        && literals(s).iter().any(|l| spells_a_records_path(l))));
    let found = layout_outside(&files);
    assert!(
        found.is_empty(),
        "records-branch paths spelled outside engine/layout.rs:\n{}",
        found.join("\n")
    );
    let fixture = [(
        module("app::reads::state"),
        "let p = format!(\"records/{id}.json\"); let w = \"index.json is damaged\";".to_owned(),
    )];
    assert_eq!(
        layout_outside(&fixture),
        ["app::reads::state: \"records/{id}.json\""]
    );
}

#[test]
fn the_rules_catch_what_breaks_them() {
    let file = |m: &str, text: &str| (module(m), text.to_owned());
    let files = [
        file(
            "app::publish::observe",
            "use crate::app::commit::commit_loop::apply;",
        ),
        file("app::commit::commit_loop", "fn f() {}"),
        file("app::reads::loading", "fn f() {}"),
        file(
            "app::publish::body",
            "use crate::app::reads::loading::load;",
        ),
        file("engine::gate", "use crate::ids::CommitSha;"),
        file("github::rest", "use auditloop_engine::gate::Verdict;"),
        file("engine::ids", "fn f() {}"),
        file(
            "app::sweep",
            "use crate::ids::PrNumber; const R: &str = \"GET /app/installations\"; // \"/repos/x\"",
        ),
        (
            Vec::new(),
            "pub mod app; pub use auditloop_engine::{ids, md};".to_owned(),
        ),
        file(
            "cli::post",
            "let s = format!(\"/repos/{}/{}\", o, r); let c = \"/audit report\";",
        ),
    ];
    let graph = graph(&files);
    // `crate::` in the engine crate is the engine; the app names it by its crate's name.
    assert!(graph[&module("engine::gate")].contains(&module("engine::ids")));
    assert!(graph[&module("github::rest")].contains(&module("engine::gate")));
    // Through the app root's re-export, `crate::ids` is the engine's `ids`.
    assert!(graph[&module("app::sweep")].contains(&module("engine::ids")));
    assert_eq!(
        broken(&graph, RULES),
        ["app::publish::observe -> app::commit::commit_loop"]
    );
    assert_eq!(
        routes_outside(&files),
        [
            "app::sweep: \"GET /app/installations\"",
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
        file("engine::gate::evaluate", "use crate::record::model::R;"),
        file("engine::record::model", "use super::super::gate::evaluate;"),
        file("engine::record", "pub mod model;"),
        file("engine::gate", "pub mod evaluate;"),
    ];
    assert!(cycle(&graph(&nested)).is_some(), "{:#?}", graph(&nested));
}

#[test]
fn a_cycle_through_a_parent_file_or_between_top_level_modules_is_found() {
    let file = |m: &str, text: &str| (module(m), text.to_owned());
    // The parent's own item, named by a child its code calls: a cycle of files.
    let through_parent = [
        file(
            "app",
            "mod commit; mod handlers; mod context; pub use context::Ctx;\n\
             pub struct AuditApp;\n\
             fn handle() { handlers::comment::handle() }",
        ),
        file("app::handlers", "pub mod comment;"),
        file(
            "app::handlers::comment",
            "use crate::app::Ctx; use crate::app::commit::decision::decide;",
        ),
        file("app::commit", "pub mod decision;"),
        file("app::commit::decision", "use crate::app::AuditApp;"),
        file("app::context", "pub struct Ctx;"),
    ];
    let g = graph(&through_parent);
    // Through a re-export a name reaches the file that defines it.
    assert!(g[&module("app::handlers::comment")].contains(&module("app::context")));
    let found = cycle(&g).expect("the cycle through app/mod.rs");
    assert_eq!(
        shown(&found),
        "app -> app::handlers::comment -> app::commit::decision -> app"
    );
    // Without the parent's item the same files are acyclic.
    let mut fixed = through_parent.clone();
    fixed[4] = file("app::commit::decision", "use crate::app::Ctx;");
    assert_eq!(cycle(&graph(&fixed)), None);
    // Two top-level modules naming each other, with no cycle of files.
    let between = [
        file("mcp", "mod tools; pub fn serve() { tools::router() }"),
        file("mcp::tools", "use crate::cli::post::send;"),
        file("cli", "pub mod mcp; pub mod post;"),
        file("cli::mcp", "use crate::mcp::serve;"),
        file("cli::post", "pub fn send() {}"),
    ];
    assert_eq!(cycle(&graph(&between)), None);
    let found = cycle(&top_level(&graph(&between))).expect("cli and mcp name each other");
    assert_eq!(shown(&found), "cli -> mcp -> cli");
}
