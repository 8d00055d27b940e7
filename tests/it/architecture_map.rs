//! ARCHITECTURE.md's code map names every module of `src/`: a file is named by its path
//! (`app/commit/store.rs`), or by its name in a bullet that names its directory
//! (`app/handlers/` … `comment.rs`); a `mod.rs` by its directory.

use std::path::Path;

use crate::support::sources::rust_sources;

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

/// The files under `src/` that the bullets do not name.
fn unnamed(files: &[String], bullets: &[String]) -> Vec<String> {
    let quoted = |b: &str, what: &str| b.contains(&format!("`{what}`"));
    files
        .iter()
        .filter(|file| {
            let (dir, name) = file
                .rsplit_once('/')
                .map_or(("", file.as_str()), |(d, n)| (d, n));
            let dir = format!("{dir}/");
            !bullets.iter().any(|b| {
                quoted(b, file)
                    || (!dir.is_empty()
                        && dir != "/"
                        && quoted(b, &dir)
                        && (quoted(b, name) || name == "mod.rs"))
            })
        })
        .cloned()
        .collect()
}

#[test]
fn the_code_map_names_every_module() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .expect("ARCHITECTURE.md");
    let files: Vec<String> = rust_sources().into_iter().map(|(path, _)| path).collect();
    assert!(files.len() > 100, "{files:?}");
    let missing = unnamed(&files, &bullets(&text));
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map does not name:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_module_left_out_of_the_map_is_found() {
    let map = "# A\n\n## Code map\n\n- `app/handlers/`: `comment.rs`, and\n  `pulls.rs`.\n- `ids.rs`: ids.\n\n## Next\n\n- `app/handlers/checks.rs`\n";
    let files: Vec<String> = [
        "app/handlers/comment.rs",
        "app/handlers/pulls.rs",
        "app/handlers/mod.rs",
        "app/handlers/checks.rs",
        "ids.rs",
        "lib.rs",
    ]
    .map(str::to_owned)
    .to_vec();
    assert_eq!(
        unnamed(&files, &bullets(map)),
        ["app/handlers/checks.rs", "lib.rs"]
    );
}
