//! The example workflows a team copies: every third-party action pinned to a commit (its
//! version in a comment), and auditloop installed from a release, never compiled per audit.

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn examples() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["examples", ".github/workflows"] {
        for entry in std::fs::read_dir(format!("{ROOT}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yml" || e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }
    assert!(out.len() >= 3, "the workflows are found");
    out
}

#[test]
fn every_third_party_action_is_pinned_to_a_commit() {
    let mut loose = Vec::new();
    for (path, text) in examples() {
        for line in text.lines() {
            let Some(used) = line.trim().trim_start_matches("- ").strip_prefix("uses: ") else {
                continue;
            };
            let target = used.split_whitespace().next().unwrap_or_default();
            // This repository's own action is used at a release tag (a release is signed
            // off by its maintainers, and the tag names what the binary is).
            if target.starts_with("auditloop/auditloop@v") || target.starts_with("./") {
                continue;
            }
            let pinned = target
                .rsplit_once('@')
                .is_some_and(|(_, r)| r.len() == 40 && r.bytes().all(|b| b.is_ascii_hexdigit()))
                && used.contains("# v");
            if !pinned {
                loose.push(format!("{path}: {used}"));
            }
        }
    }
    assert!(loose.is_empty(), "{loose:#?}");
}

#[test]
fn no_example_compiles_auditloop_per_audit() {
    for (path, text) in examples() {
        if path.contains(".github/workflows") {
            continue;
        }
        assert!(!text.contains("cargo install"), "{path} compiles auditloop");
        assert!(
            !text.contains("ref: main"),
            "{path} follows main, not a release"
        );
    }
}
