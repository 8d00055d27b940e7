//! The crate's own source files, for the tests that read the code itself (its import
//! graph, its code map, its sizes).

use std::path::Path;

/// `(path under src/ with '/', source)` of every `.rs` file under `src/`, sorted by path.
pub fn rust_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(&src).expect("under src");
                let relative = relative.to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path).expect("readable source");
                found.push((relative, text));
            }
        }
    }
    found.sort();
    assert!(found.len() > 10, "too few sources found under src/");
    found
}
