//! The workspace's own source files, for the tests that read the code itself (its import
//! graph, its code map, its sizes).

use std::path::Path;

/// A crate of the workspace: its name in paths (`auditloop_engine::…`), its source
/// directory, and the module of the app it is seen as (`engine`: the app re-exports it
/// there), `""` for the app itself.
pub struct Crate {
    pub name: &'static str,
    pub dir: &'static str,
    pub mount: &'static str,
}

/// Every crate of the workspace (the fuzz targets aside: their own workspace).
pub const CRATES: &[Crate] = &[
    Crate {
        name: "auditloop",
        dir: "src",
        mount: "",
    },
    Crate {
        name: "auditloop_engine",
        dir: "crates/engine/src",
        mount: "engine",
    },
    Crate {
        name: "auditloop_fake_github",
        dir: "crates/fake-github/src",
        mount: "fake_github",
    },
];

/// `(path from the workspace root with '/', source)` of every `.rs` file of every crate in
/// [`CRATES`], sorted by path.
pub fn rust_sources() -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> =
        CRATES.iter().flat_map(|k| sources_under(k.dir)).collect();
    found.sort();
    assert!(found.len() > 10, "too few sources found");
    assert!(
        CRATES.iter().all(|k| found
            .iter()
            .any(|(p, _)| p.starts_with(&format!("{}/", k.dir)))),
        "a crate with no sources"
    );
    found
}

/// `(path from the workspace root with '/', source)` of every `.rs` file under `benches/`,
/// sorted by path: each bench target is a crate of its own (`benches/engine.rs`, and
/// `benches/load/` whose root is `main.rs`).
pub fn bench_sources() -> Vec<(String, String)> {
    let mut found = sources_under("benches");
    found.sort();
    assert!(found.len() > 3, "too few bench sources found");
    found
}

/// Every `.rs` file under `dir` (from the workspace root), with its path from the root.
fn sources_under(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root).expect("under the workspace");
                let relative = relative.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path).expect("readable source");
                found.push((relative, text));
            }
        }
    }
    found
}

/// The crate a workspace path is in.
pub fn crate_of(path: &str) -> &'static Crate {
    CRATES
        .iter()
        .filter(|k| path.starts_with(&format!("{}/", k.dir)))
        .max_by_key(|k| k.dir.len())
        .expect("a path of a crate")
}
