//! The action's install step (`scripts/install-auditloop.sh`, run through `action.yml` by
//! the local runner) against a local server that plays GitHub's releases API and its asset
//! downloads: a matching archive is checked and cached, a wrong checksum fails closed, and a
//! release without an archive for the runner falls back to a build from source, saying so.

use crate::support;

use std::path::{Path, PathBuf};

use sha2::Digest as _;
use support::actions::{Runner, Step};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const TARGET: &str = "x86_64-unknown-linux-musl";

/// A release archive as release.yml packs it: `auditloop-vX.Y.Z-TARGET/auditloop`; the
/// "binary" is a script that says its version.
fn archive(dir: &Path, version: &str) -> Vec<u8> {
    let name = format!("auditloop-{version}-{TARGET}");
    let inner = dir.join("pack").join(&name);
    std::fs::create_dir_all(&inner).unwrap();
    let bin = inner.join("auditloop");
    std::fs::write(&bin, format!("#!/bin/sh\necho \"auditloop {version}\"\n")).unwrap();
    std::process::Command::new("chmod")
        .args(["0755"])
        .arg(&bin)
        .status()
        .unwrap();
    let out = dir.join(format!("{name}.tar.gz"));
    let status = std::process::Command::new("tar")
        .arg("-czf")
        .arg(&out)
        .arg("-C")
        .arg(dir.join("pack"))
        .arg(&name)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(out).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(bytes))
}

/// GitHub's answer to `GET /repos/{owner}/{repo}/releases/tags/{tag}` (the fields the
/// script reads), its assets downloadable from `server`.
fn release(server: &MockServer, tag: &str, assets: &[&str]) -> serde_json::Value {
    serde_json::json!({
        "id": 1,
        "tag_name": tag,
        "name": tag,
        "draft": false,
        "prerelease": false,
        "assets": assets.iter().enumerate().map(|(i, name)| serde_json::json!({
            "id": i + 10,
            "name": name,
            "state": "uploaded",
            "browser_download_url": format!("{}/download/{tag}/{name}", server.uri()),
        })).collect::<Vec<_>>(),
    })
}

async fn serve_asset(server: &MockServer, tag: &str, name: &str, body: Vec<u8>, times: u64) {
    Mock::given(method("GET"))
        .and(path(format!("/download/{tag}/{name}")))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(body))
        .expect(times)
        .mount(server)
        .await;
}

struct Install {
    steps: Vec<Step>,
    exported: String,
}

/// Runs the action's install step (step 0) with `with`, on a runner whose action came from
/// `auditloop/auditloop@{action_ref}`, and with `cargo` on PATH replaced by `fake_cargo`.
async fn install(
    server: &MockServer,
    dir: &Path,
    action_ref: &str,
    with: &[(&str, &str)],
) -> Install {
    let mut runner = Runner::new(
        Path::new(ROOT),
        dir,
        &server.uri(),
        "acme/widgets",
        "ghs_job",
    );
    runner.action_ref = action_ref.to_owned();
    // A `cargo` that records how it was called and installs a stand-in binary, so that the
    // fallback is observed without compiling.
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\necho \"$@\" > \"$RUNNER_TEMP/cargo-args\"\nwhile [ \"$1\" != --root ]; do shift; done\nmkdir -p \"$2/bin\"\nprintf '#!/bin/sh\\necho auditloop from-source\\n' > \"$2/bin/auditloop\"\nchmod 0755 \"$2/bin/auditloop\"\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["0755"])
        .arg(&cargo)
        .status()
        .unwrap();
    let path = format!("{}:{}", bin.display(), runner.env["PATH"]);
    runner.env.insert("PATH".into(), path);
    let with: Vec<(String, String)> = with
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .chain([("pr".to_owned(), "42".to_owned())])
        .collect();
    let temp = runner.temp.clone();
    let steps = tokio::task::spawn_blocking(move || {
        let with: Vec<(&str, &str)> = with.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        runner.run_steps(&with, 1)
    })
    .await
    .unwrap();
    let exported = std::fs::read_to_string(temp.join("GITHUB_ENV-0")).unwrap_or_default();
    Install { steps, exported }
}

fn exported_binary(install: &Install) -> Option<PathBuf> {
    install
        .exported
        .lines()
        .find_map(|l| l.strip_prefix("AUDITLOOP="))
        .map(PathBuf::from)
}

#[tokio::test]
async fn a_release_tag_installs_its_archive_checked_and_cached() {
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let tag = "v1.2.3";
    let name = format!("auditloop-{tag}-{TARGET}.tar.gz");
    let bytes = archive(dir.path(), tag);
    let sum = format!("{}  {name}\n", sha256(&bytes));
    let other = format!("auditloop-{tag}-aarch64-apple-darwin.tar.gz");
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/auditloop/auditloop/releases/tags/{tag}"
        )))
        .respond_with(ResponseTemplate::new(200).set_body_json(release(
            &server,
            tag,
            &[
                &other,
                &format!("{other}.sha256"),
                &name,
                &format!("{name}.sha256"),
            ],
        )))
        .expect(1)
        .mount(&server)
        .await;
    serve_asset(&server, tag, &name, bytes, 1).await;
    serve_asset(&server, tag, &format!("{name}.sha256"), sum.into_bytes(), 1).await;

    // The action used as auditloop/auditloop@v1.2.3: that release, no version input.
    let first = install(&server, dir.path(), tag, &[]).await;
    assert_eq!(
        first.steps[0].status, 0,
        "{}\n{}",
        first.steps[0].stdout, first.steps[0].stderr
    );
    let stdout = &first.steps[0].stdout;
    assert!(stdout.contains("checksum verified"), "{stdout}");
    assert!(
        stdout.contains("auditloop v1.2.3"),
        "the binary ran: {stdout}"
    );
    let bin = exported_binary(&first).unwrap();
    assert_eq!(
        bin,
        dir.path().join("tool-cache/auditloop/1.2.3/X64/auditloop")
    );
    assert!(dir
        .path()
        .join("tool-cache/auditloop/1.2.3/X64.complete")
        .exists());
    assert!(
        !dir.path().join("runner-temp/cargo-args").exists(),
        "nothing was built"
    );

    // The same runner again, the version given as an input: the tool cache answers, and
    // the server sees no second request (each mock expects exactly one).
    let again = install(&server, dir.path(), "main", &[("version", "1.2.3")]).await;
    assert_eq!(again.steps[0].status, 0, "{}", again.steps[0].stdout);
    assert!(
        again.steps[0].stdout.contains("from the tool cache"),
        "{}",
        again.steps[0].stdout
    );
    assert_eq!(exported_binary(&again), Some(bin));
}

#[tokio::test]
async fn a_wrong_checksum_fails_closed_and_installs_nothing() {
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let tag = "v1.2.4";
    let name = format!("auditloop-{tag}-{TARGET}.tar.gz");
    let bytes = archive(dir.path(), tag);
    // The checksum of other bytes: a corrupted or substituted archive.
    let sum = format!("{}  {name}\n", sha256(b"something else"));
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/auditloop/auditloop/releases/tags/{tag}"
        )))
        .respond_with(ResponseTemplate::new(200).set_body_json(release(
            &server,
            tag,
            &[&name, &format!("{name}.sha256")],
        )))
        .mount(&server)
        .await;
    serve_asset(&server, tag, &name, bytes, 1).await;
    serve_asset(&server, tag, &format!("{name}.sha256"), sum.into_bytes(), 1).await;

    let run = install(&server, dir.path(), "main", &[("version", tag)]).await;
    let step = &run.steps[0];
    assert_ne!(step.status, 0);
    assert!(
        step.stdout.contains("::error title=auditloop install::checksum mismatch for auditloop-v1.2.4-x86_64-unknown-linux-musl.tar.gz"),
        "{}",
        step.stdout
    );
    assert!(
        step.stdout.contains("Refusing to run it"),
        "{}",
        step.stdout
    );
    assert!(
        !step.stdout.contains("auditloop v1.2.4"),
        "the binary never ran"
    );
    assert_eq!(exported_binary(&run), None);
    assert!(!dir.path().join("tool-cache/auditloop").exists());
    assert!(
        !dir.path().join("runner-temp/cargo-args").exists(),
        "no fallback build"
    );

    // An archive published without its checksum is refused too, not trusted.
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/auditloop/auditloop/releases/tags/{tag}"
        )))
        .respond_with(ResponseTemplate::new(200).set_body_json(release(&server, tag, &[&name])))
        .mount(&server)
        .await;
    let run = install(&server, dir.path(), "main", &[("version", tag)]).await;
    assert_ne!(run.steps[0].status, 0);
    assert!(
        run.steps[0]
            .stdout
            .contains("no auditloop-v1.2.4-x86_64-unknown-linux-musl.tar.gz.sha256"),
        "{}",
        run.steps[0].stdout
    );
    assert_eq!(exported_binary(&run), None);
}

#[tokio::test]
async fn without_a_matching_release_it_builds_from_source_and_says_so() {
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    // The action used at a branch: the latest release, which has only macOS archives.
    let tag = "v2.0.0";
    let mac = format!("auditloop-{tag}-aarch64-apple-darwin.tar.gz");
    Mock::given(method("GET"))
        .and(path("/repos/auditloop/auditloop/releases/latest"))
        .respond_with(ResponseTemplate::new(200).set_body_json(release(
            &server,
            tag,
            &[&mac, &format!("{mac}.sha256")],
        )))
        .expect(1)
        .mount(&server)
        .await;
    let run = install(&server, dir.path(), "main", &[]).await;
    let step = &run.steps[0];
    assert_eq!(step.status, 0, "{}\n{}", step.stdout, step.stderr);
    assert!(
        step.stdout.contains("::warning title=auditloop install::release v2.0.0 of auditloop/auditloop has no auditloop-v2.0.0-x86_64-unknown-linux-musl.tar.gz: building auditloop from the action's source"),
        "{}",
        step.stdout
    );
    let args = std::fs::read_to_string(dir.path().join("runner-temp/cargo-args")).unwrap();
    assert!(
        args.starts_with(&format!("install --locked --quiet --path {ROOT} --root ")),
        "{args}"
    );
    assert!(
        step.stdout.contains("auditloop from-source"),
        "{}",
        step.stdout
    );
    assert!(exported_binary(&run).is_some());

    // A tag the repository never released: the same fallback, naming the version.
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/repos/auditloop/auditloop/releases/tags/v9.9.9"))
        .respond_with(
            ResponseTemplate::new(404).set_body_json(serde_json::json!({"message": "Not Found"})),
        )
        .expect(1)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let run = install(&server, dir.path(), "v9.9.9", &[]).await;
    assert_eq!(run.steps[0].status, 0, "{}", run.steps[0].stdout);
    assert!(
        run.steps[0].stdout.contains("auditloop/auditloop has no release v9.9.9: building auditloop from the action's source"),
        "{}",
        run.steps[0].stdout
    );
}

#[tokio::test]
async fn a_version_that_is_not_a_release_tag_is_refused() {
    let server = MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let run = install(&server, dir.path(), "main", &[("version", "main")]).await;
    assert_ne!(run.steps[0].status, 0);
    assert!(
        run.steps[0]
            .stdout
            .contains("version 'main' is not a release tag"),
        "{}",
        run.steps[0].stdout
    );
}
