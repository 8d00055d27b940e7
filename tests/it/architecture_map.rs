//! ARCHITECTURE.md's code map names every room of every crate: each crate by its
//! directory, each directory that holds code (`src/app/commit/`), and each module that
//! sits at a crate's top (`src/delivery.rs`), each quoted by its path from the workspace
//! root. Files inside a room are the room's own business: the map names what stays put.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::sources::{rust_sources, CRATES};

/// The bullets of the code map, each with its continuation lines.
fn bullets(architecture: &str) -> Vec<String> {
    let map = architecture
        .split("\n## Code map")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Code map` section");
    let map = map.split("\n## ").next().unwrap_or_default();
    let mut found: Vec<String> = Vec::new();
    for line in map.lines() {
        if line.starts_with("- ") {
            found.push(line.to_owned());
        } else if line.starts_with("  ") {
            if let Some(last) = found.last_mut() {
                last.push(' ');
                last.push_str(line.trim());
            }
        }
    }
    found
}

/// The rooms of the given files of crates in `crate_dirs`: the crates' directories
/// (`src/`), every directory under them that holds code (`src/app/commit/`), and the
/// files at a crate's top (`src/locks.rs`).
fn rooms(files: &[String], crate_dirs: &[&str]) -> BTreeSet<String> {
    let mut found: BTreeSet<String> = crate_dirs.iter().map(|d| format!("{d}/")).collect();
    for file in files {
        let Some((dir, _)) = file.rsplit_once('/') else {
            continue;
        };
        if crate_dirs.contains(&dir) {
            found.insert(file.clone());
            continue;
        }
        // The directory and each one above it, up to the crate's own.
        let mut dir = dir;
        while !crate_dirs.contains(&dir) {
            found.insert(format!("{dir}/"));
            let Some((up, _)) = dir.rsplit_once('/') else {
                break;
            };
            dir = up;
        }
    }
    found
}

/// The rooms the bullets do not quote.
fn unnamed(rooms: &BTreeSet<String>, bullets: &[String]) -> Vec<String> {
    rooms
        .iter()
        .filter(|room| !bullets.iter().any(|b| b.contains(&format!("`{room}`"))))
        .cloned()
        .collect()
}

#[test]
fn the_code_map_names_every_room() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md");
    let files: Vec<String> = rust_sources().into_iter().map(|(path, _)| path).collect();
    let dirs: Vec<&str> = CRATES.iter().map(|k| k.dir).collect();
    let rooms = rooms(&files, &dirs);
    assert!(rooms.len() > 30, "{rooms:?}");
    let missing = unnamed(&rooms, &bullets(&text));
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map does not name:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_room_left_out_of_the_map_is_found() {
    let map = "# A\n\n## Code map\n\n- `src/`: the app. `src/app/handlers/`: events,\n  and \
               `src/ids.rs`.\n- `lib/src/`\n\n## Next\n\n- `src/app/commit/`\n";
    let files: Vec<String> = [
        "src/app/handlers/comment.rs",
        "src/app/handlers/pulls.rs",
        "src/app/commit/commit_loop.rs",
        "src/ids.rs",
        "src/lib.rs",
        "lib/src/lib.rs",
        "lib/src/gate/mod.rs",
    ]
    .map(str::to_owned)
    .to_vec();
    let rooms = rooms(&files, &["src", "lib/src"]);
    assert_eq!(
        unnamed(&rooms, &bullets(map)),
        [
            "lib/src/gate/",
            "lib/src/lib.rs",
            "src/app/",
            "src/app/commit/",
            "src/lib.rs"
        ]
    );
}

/// The top directories a path quoted from the workspace root starts with.
const ROOTS: [&str; 10] = [
    "src/",
    "crates/",
    "tests/",
    "benches/",
    "fuzz/",
    "docs/",
    "deploy/",
    "schema/",
    "examples/",
    "scripts/",
];

/// The app's rooms the document names without `src/` (`app/commit/`), as it names the
/// engine's without `crates/engine/src/` (`engine/gate/`). Not `records/`: the document
/// names the records branch's own `records/` too.
const SHORT: [&str; 9] = [
    "app/",
    "github/",
    "server/",
    "commands/",
    "cli/",
    "remote/",
    "setup/",
    "mcp/",
    "events/",
];

/// The path from the workspace root that `quoted` names, when it names one.
fn from_root(quoted: &str) -> Option<String> {
    if !quoted
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
    {
        return None;
    }
    if ROOTS.iter().any(|r| quoted.starts_with(r)) {
        return Some(quoted.to_owned());
    }
    if let Some(rest) = quoted.strip_prefix("engine/") {
        return Some(format!("crates/engine/src/{rest}"));
    }
    SHORT
        .iter()
        .any(|r| quoted.starts_with(r))
        .then(|| format!("src/{quoted}"))
}

/// The paths `text` quotes (`src/app/reads/`, `app/commit/dispatch.rs`) that `exists`
/// does not find from the workspace root: a file moved or renamed under the map that
/// still names it.
fn stale_paths(text: &str, exists: impl Fn(&str) -> bool) -> Vec<String> {
    let quoted = text.split('`').skip(1).step_by(2);
    let mut stale: Vec<String> = quoted
        .filter_map(from_root)
        .filter(|p| !exists(p))
        .collect();
    stale.sort();
    stale.dedup();
    stale
}

#[test]
fn every_path_the_architecture_quotes_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let stale = stale_paths(&text, |p| root.join(p).exists());
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md names paths that are not there:\n{}",
        stale.join("\n")
    );
}

#[test]
fn a_path_that_moved_is_found() {
    let text = "Checked by `tests/it/openapi.rs`, in `src/app/` (`engine/…` is short for \
                `crates/engine/src/…`): `app/commit/store.rs`, `engine/gate/`; \
                `records/AUD-n.md` and `index.json` are the branch's.";
    let there = ["src/app/", "crates/engine/src/gate/"];
    let stale = stale_paths(text, |p| there.contains(&p));
    assert_eq!(stale, ["src/app/commit/store.rs", "tests/it/openapi.rs"]);
}
