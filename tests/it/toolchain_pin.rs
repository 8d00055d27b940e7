//! One Rust release everywhere: rust-toolchain.toml's, which CI's container image, the
//! image's build stage and the release jobs use too, at or above the crate's rust-version.

fn file(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn pinned() -> toml::Table {
    let file: toml::Table = file("rust-toolchain.toml").parse().unwrap();
    file["toolchain"].as_table().unwrap().clone()
}

#[test]
fn ci_the_image_and_the_release_build_with_the_pinned_toolchain() {
    let toolchain = pinned();
    let channel = toolchain["channel"].as_str().unwrap();
    assert!(
        channel.split('.').count() == 3 && channel.split('.').all(|p| p.parse::<u32>().is_ok()),
        "pin an exact release, not {channel:?}"
    );
    let components: Vec<&str> = toolchain["components"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    for wanted in ["rustfmt", "clippy"] {
        assert!(
            components.contains(&wanted),
            "{wanted} is not in {components:?}"
        );
    }
    let image = format!("docker.io/library/rust:{channel}-bookworm");
    assert!(
        file(".github/workflows/ci.yml").contains(&format!("image: {image}\n")),
        "ci.yml's container is not {image}"
    );
    assert!(
        file("deploy/Dockerfile").contains(&format!("FROM {image} AS build\n")),
        "deploy/Dockerfile's build stage is not {image}"
    );
    // The release jobs and .ci/run read the pin rather than name a release of their own.
    for path in [".github/workflows/release.yml", ".ci/run"] {
        assert!(file(path).contains("rust-toolchain.toml"), "{path}");
    }
}

#[test]
fn the_pinned_release_is_at_least_the_crates_rust_version() {
    let manifest: toml::Table = file("Cargo.toml").parse().unwrap();
    // Every crate of the workspace takes the workspace's rust-version.
    assert_eq!(
        manifest["package"]["rust-version"]["workspace"].as_bool(),
        Some(true)
    );
    let msrv = manifest["workspace"]["package"]["rust-version"]
        .as_str()
        .unwrap();
    let version = |v: &str| -> Vec<u32> { v.split('.').map(|p| p.parse().unwrap()).collect() };
    let channel = pinned()["channel"].as_str().unwrap().to_owned();
    assert!(
        version(&channel) >= version(msrv),
        "{channel} < rust-version {msrv}"
    );
}
