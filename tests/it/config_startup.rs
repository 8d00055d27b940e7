//! What `serve` says at start: every configuration problem at once, each named by the flag
//! or variable its value came from; `hardened` with no trust store refused; the settings it
//! runs with logged (never a secret); and the listen defaults written as the binary binds them.

use std::collections::HashMap;

use auditloop::operator_config::{ConfigError, ServeArgs, ServeConfig, DEFAULT_LISTEN};

const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n";

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |k| map.get(k).cloned()
}

/// A file reader that holds `bad.pem`, which is not a key.
fn bad_pem(path: &std::path::Path) -> std::io::Result<String> {
    if path == std::path::Path::new("bad.pem") {
        Ok("not a key\n".into())
    } else {
        Err(std::io::Error::other("no file"))
    }
}

fn error(args: &ServeArgs, pairs: &[(&str, &str)]) -> String {
    ServeConfig::resolve(args, &env(pairs), &bad_pem)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_key_file_that_is_no_pem_is_named_by_the_setting_that_gave_its_path() {
    let complete = [("AUDITLOOP_APP_ID", "1"), ("AUDITLOOP_WEBHOOK_SECRET", "s")];
    for name in ["AUDITLOOP_PRIVATE_KEY_PATH", "PRIVATE_KEY_PATH"] {
        let mut pairs = complete.to_vec();
        pairs.push((name, "bad.pem"));
        let text = error(&ServeArgs::default(), &pairs);
        assert!(
            text.starts_with(&format!("{name}: bad.pem is not a PEM private key")),
            "{text}"
        );
    }
    let args = ServeArgs {
        private_key_path: Some("bad.pem".into()),
        ..ServeArgs::default()
    };
    let text = error(&args, &complete);
    assert!(
        text.starts_with("--private-key-path: bad.pem is not"),
        "{text}"
    );
    let text = error(
        &ServeArgs::default(),
        &[
            ("AUDITLOOP_APP_ID", "1"),
            ("AUDITLOOP_WEBHOOK_SECRET", "s"),
            ("PRIVATE_KEY", "x"),
        ],
    );
    assert!(
        text.starts_with("PRIVATE_KEY: the key given inline is not a PEM"),
        "{text}"
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = error(&ServeArgs::default(), &[("AUDITLOOP_APP_ID", "abc")]);
    assert!(
        text.contains("AUDITLOOP_APP_ID: \"abc\" is not the App's numeric id"),
        "{text}"
    );
    assert!(text.contains("missing AUDITLOOP_PRIVATE_KEY or"), "{text}");
    assert!(text.contains("AUDITLOOP_WEBHOOK_SECRET or"), "{text}");

    let err = ServeConfig::resolve(
        &ServeArgs {
            listen: Some("nowhere".into()),
            ..ServeArgs::default()
        },
        &env(&[
            ("APP_ID", "abc"),
            ("AUDITLOOP_PRIVATE_KEY_PATH", "bad.pem"),
            ("AUDITLOOP_WEBHOOK_SECRET", "s"),
            ("AUDITLOOP_MIN_ASSURANCE", "paranoid"),
            ("AUDITLOOP_REDELIVER_INTERVAL", "soon"),
            ("AUDITLOOP_GITHUB_API_URL", "ghe.example.com"),
        ]),
        &bad_pem,
    )
    .unwrap_err();
    let ConfigError::Several(problems) = &err else {
        panic!("{err}")
    };
    let named: Vec<String> = problems
        .iter()
        .map(|p| p.to_string().split(':').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        named,
        [
            "APP_ID",
            "AUDITLOOP_PRIVATE_KEY_PATH",
            "AUDITLOOP_GITHUB_API_URL",
            "--listen",
            "AUDITLOOP_MIN_ASSURANCE",
            "AUDITLOOP_REDELIVER_INTERVAL",
        ]
    );
    assert_eq!(err.to_string().lines().count(), 7, "{err}");
}

#[test]
fn hardened_without_a_trust_store_is_refused_saying_why() {
    let base = [
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY", PEM),
        ("AUDITLOOP_WEBHOOK_SECRET", "s"),
        ("AUDITLOOP_MIN_ASSURANCE", "hardened"),
    ];
    let text = error(&ServeArgs::default(), &base);
    assert!(
        text.starts_with("AUDITLOOP_MIN_ASSURANCE: hardened needs a trust store"),
        "{text}"
    );
    assert!(text.contains("every report would be refused"), "{text}");
    let mut pairs = base.to_vec();
    pairs.push(("AUDITLOOP_TRUST_STORE", "/etc/auditloop/trust.toml"));
    assert!(ServeConfig::resolve(&ServeArgs::default(), &env(&pairs), &bad_pem).is_ok());
}

/// `serve` binds all interfaces, as a server behind a tunnel or a load balancer must; the
/// first-run setup page binds loopback, since it registers the App and writes its
/// credentials. The README and the reference say both.
#[test]
fn the_listen_defaults_are_documented_as_the_binary_binds_them() {
    let setup = auditloop::cli::setup::SetupArgs::default();
    let setup_default = auditloop::cli::setup::listen_address(&setup, &|_| None).unwrap();
    assert_eq!(setup_default.to_string(), "127.0.0.1:3000");
    assert_eq!(DEFAULT_LISTEN, "0.0.0.0:3000");
    for path in ["README.md", "docs/reference.md"] {
        let text =
            std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let row = text
            .lines()
            .find(|l| l.starts_with("| `AUDITLOOP_LISTEN` |"))
            .unwrap();
        assert!(
            row.contains(&format!("`{DEFAULT_LISTEN}`"))
                && row.contains(&format!("`{setup_default}`")),
            "{path}: {row}"
        );
    }
}
