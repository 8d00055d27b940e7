//! Operator configuration: flags, environment, Probot's names, `.env`, and what a missing
//! setting says.

use std::collections::HashMap;
use std::process::Command;

use auditloop::operator_config::{ConfigError, ServeArgs, ServeConfig};

const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n";

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

fn no_file(_: &std::path::Path) -> std::io::Result<String> {
    Err(std::io::Error::other("no file"))
}

#[test]
fn nothing_configured_names_every_missing_setting() {
    let err = ServeConfig::resolve(&ServeArgs::default(), &env(&[]), &no_file).unwrap_err();
    let ConfigError::Missing(missing) = &err else {
        panic!("{err}")
    };
    assert_eq!(missing.len(), 3);
    let text = err.to_string();
    for name in [
        "AUDITLOOP_APP_ID",
        "AUDITLOOP_PRIVATE_KEY",
        "AUDITLOOP_PRIVATE_KEY_PATH",
        "AUDITLOOP_WEBHOOK_SECRET",
    ] {
        assert!(text.contains(name), "{text}");
    }
    assert_eq!(text.lines().count(), 1);
}

#[test]
fn probot_names_are_fallbacks_and_auditloop_names_win() {
    let cfg = ServeConfig::resolve(
        &ServeArgs::default(),
        &env(&[
            ("APP_ID", "11"),
            ("PRIVATE_KEY", PEM),
            ("WEBHOOK_SECRET", "s1"),
            ("AUDITLOOP_APP_ID", "22"),
        ]),
        &no_file,
    )
    .unwrap();
    assert_eq!(cfg.app_id, 22);
    assert_eq!(cfg.github_api_url, "https://api.github.com");
    assert_eq!(cfg.listen.to_string(), "0.0.0.0:3000");
}

#[test]
fn flags_win_over_the_environment() {
    let args = ServeArgs {
        app_id: Some("5".into()),
        listen: Some("127.0.0.1:9000".into()),
        github_api_url: Some("https://ghe.example.com/api/v3/".into()),
        ..ServeArgs::default()
    };
    let cfg = ServeConfig::resolve(
        &args,
        &env(&[
            ("AUDITLOOP_APP_ID", "6"),
            ("AUDITLOOP_PRIVATE_KEY", PEM),
            ("AUDITLOOP_WEBHOOK_SECRET", "a,b"),
        ]),
        &no_file,
    )
    .unwrap();
    assert_eq!(cfg.app_id, 5);
    assert_eq!(cfg.listen.to_string(), "127.0.0.1:9000");
    assert_eq!(cfg.github_api_url, "https://ghe.example.com/api/v3");
    assert_eq!(cfg.webhook_secrets.iter().count(), 2);
}

#[test]
fn the_key_can_come_from_a_path_or_inline_with_escaped_newlines() {
    let read = |p: &std::path::Path| {
        assert_eq!(p, std::path::Path::new("/keys/app.pem"));
        Ok(PEM.to_owned())
    };
    let e = env(&[
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY_PATH", "/keys/app.pem"),
        ("AUDITLOOP_WEBHOOK_SECRET", "s"),
    ]);
    assert!(ServeConfig::resolve(&ServeArgs::default(), &e, &read).is_ok());
    let inline = PEM.replace('\n', "\\n");
    let e = env(&[
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY", &inline),
        ("AUDITLOOP_WEBHOOK_SECRET", "s"),
    ]);
    assert!(ServeConfig::resolve(&ServeArgs::default(), &e, &no_file).is_ok());
}

#[test]
fn invalid_values_name_their_setting() {
    let base = [
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY", PEM),
        ("AUDITLOOP_WEBHOOK_SECRET", "s"),
    ];
    for (extra, setting) in [
        (("AUDITLOOP_LISTEN", "nope"), "AUDITLOOP_LISTEN"),
        (
            ("AUDITLOOP_MIN_ASSURANCE", "paranoid"),
            "AUDITLOOP_MIN_ASSURANCE",
        ),
        (
            ("AUDITLOOP_GITHUB_API_URL", "ghe.example.com"),
            "AUDITLOOP_GITHUB_API_URL",
        ),
    ] {
        let mut pairs = base.to_vec();
        pairs.push(extra);
        let err = ServeConfig::resolve(&ServeArgs::default(), &env(&pairs), &no_file).unwrap_err();
        assert!(err.to_string().starts_with(setting), "{err}");
    }
    let err = ServeConfig::resolve(
        &ServeArgs::default(),
        &env(&[
            ("AUDITLOOP_APP_ID", "x"),
            ("AUDITLOOP_PRIVATE_KEY", PEM),
            ("AUDITLOOP_WEBHOOK_SECRET", "s"),
        ]),
        &no_file,
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("AUDITLOOP_APP_ID"));
}

#[test]
fn debug_output_never_shows_secrets() {
    let cfg = ServeConfig::resolve(
        &ServeArgs::default(),
        &env(&[
            ("AUDITLOOP_APP_ID", "1"),
            ("AUDITLOOP_PRIVATE_KEY", PEM),
            ("AUDITLOOP_WEBHOOK_SECRET", "hunter2"),
        ]),
        &no_file,
    )
    .unwrap();
    let text = format!("{cfg:?}");
    assert!(
        !text.contains("hunter2") && !text.contains("MIIB"),
        "{text}"
    );
}

/// The binary reads `.env` from its working directory and says exactly what is still missing.
#[test]
fn the_binary_reads_dotenv_and_names_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".env"),
        "AUDITLOOP_APP_ID=123\nAUDITLOOP_WEBHOOK_SECRET=abc\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .current_dir(dir.path())
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("AUDITLOOP_PRIVATE_KEY"), "{err}");
    assert!(
        !err.contains("AUDITLOOP_APP_ID"),
        "APP_ID came from .env: {err}"
    );
    assert!(!err.contains("abc"), "secrets are not echoed: {err}");
}

/// A file reader that knows one path.
fn one_file(
    path: &'static str,
    content: &'static str,
) -> impl Fn(&std::path::Path) -> std::io::Result<String> {
    move |p| {
        if p == std::path::Path::new(path) {
            Ok(content.to_owned())
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "No such file or directory",
            ))
        }
    }
}

#[test]
fn the_webhook_secret_can_come_from_a_mounted_file_trailing_newline_trimmed() {
    let e = env(&[
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY", PEM),
        ("AUDITLOOP_WEBHOOK_SECRET_FILE", "/run/secrets/webhook"),
    ]);
    let cfg = ServeConfig::resolve(
        &ServeArgs::default(),
        &e,
        &one_file("/run/secrets/webhook", "s3cret\n"),
    )
    .unwrap();
    let secrets: Vec<&[u8]> = cfg.webhook_secrets.iter().collect();
    assert_eq!(secrets, [b"s3cret".as_slice()]);

    // Comma-separated while rotating, as with the plain variable; the flag works too.
    let args = ServeArgs {
        webhook_secret_file: Some("/run/secrets/webhook".into()),
        ..ServeArgs::default()
    };
    let e = env(&[("AUDITLOOP_APP_ID", "1"), ("AUDITLOOP_PRIVATE_KEY", PEM)]);
    let cfg =
        ServeConfig::resolve(&args, &e, &one_file("/run/secrets/webhook", "old,new\n")).unwrap();
    let secrets: Vec<&[u8]> = cfg.webhook_secrets.iter().collect();
    assert_eq!(secrets, [b"old".as_slice(), b"new".as_slice()]);
    assert!(!format!("{cfg:?}").contains("old"));
}

#[test]
fn a_secret_and_its_file_together_are_refused_naming_both() {
    for (inline, file) in [
        (
            ("AUDITLOOP_WEBHOOK_SECRET", "a"),
            ("AUDITLOOP_WEBHOOK_SECRET_FILE", "/s"),
        ),
        (
            ("WEBHOOK_SECRET", "a"),
            ("AUDITLOOP_WEBHOOK_SECRET_FILE", "/s"),
        ),
    ] {
        let e = env(&[
            ("AUDITLOOP_APP_ID", "1"),
            ("AUDITLOOP_PRIVATE_KEY", PEM),
            inline,
            file,
        ]);
        let err =
            ServeConfig::resolve(&ServeArgs::default(), &e, &one_file("/s", "b\n")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("AUDITLOOP_WEBHOOK_SECRET_FILE: ")
                && text.contains("with AUDITLOOP_WEBHOOK_SECRET (")
                && text.contains("--webhook-secret-file and --webhook-secret)"),
            "{text}"
        );
    }
}

#[test]
fn an_unreadable_or_empty_secret_file_names_the_file_never_its_content() {
    let e = env(&[
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY", PEM),
        ("AUDITLOOP_WEBHOOK_SECRET_FILE", "/run/secrets/missing"),
    ]);
    let err = ServeConfig::resolve(&ServeArgs::default(), &e, &no_file).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("AUDITLOOP_WEBHOOK_SECRET_FILE: cannot read /run/secrets/missing"),
        "{text}"
    );
    let e = env(&[
        ("AUDITLOOP_APP_ID", "1"),
        ("AUDITLOOP_PRIVATE_KEY", PEM),
        ("AUDITLOOP_WEBHOOK_SECRET_FILE", "/s"),
    ]);
    let err =
        ServeConfig::resolve(&ServeArgs::default(), &e, &one_file("/s", " , \n")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "AUDITLOOP_WEBHOOK_SECRET_FILE: /s holds no secret"
    );
}

/// The binary reads the file it is given and never prints what is in it.
#[test]
fn the_binary_reads_the_secret_file_and_refuses_it_beside_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("webhook-secret");
    std::fs::write(&file, "file-secret-value\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .current_dir(dir.path())
        .env_clear()
        .args(["serve", "--app-id", "1", &format!("--private-key={PEM}")])
        .arg("--webhook-secret-file")
        .arg(&file)
        .env("AUDITLOOP_WEBHOOK_SECRET", "env-secret-value")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--webhook-secret-file: given together with"),
        "{err}"
    );
    assert!(
        !err.contains("secret-value"),
        "secrets are not echoed: {err}"
    );
}

#[test]
fn every_flag_of_serve_is_an_operator_setting_and_its_help_names_its_variables() {
    use auditloop::operator_config::{LogArgs, SETTINGS};
    use clap::Args as _;
    let command = LogArgs::augment_args(ServeArgs::augment_args(clap::Command::new("serve")));
    let flags: Vec<&str> = command
        .get_arguments()
        .filter_map(|a| a.get_long())
        .collect();
    let settings: Vec<&str> = SETTINGS.iter().map(|s| s.flag).collect();
    assert_eq!(flags, settings);
    for (arg, setting) in command.get_arguments().zip(SETTINGS) {
        let help = arg.get_help().expect("every flag has help").to_string();
        let named = format!("[env: {}]", setting.env.join(", "));
        assert!(
            help.starts_with(setting.help) && help.contains(&named),
            "{help}"
        );
        if let Some(default) = setting.default_text() {
            assert!(help.contains(&format!("[default: {default}")), "{help}");
        }
    }
}

#[test]
fn serve_setup_and_the_health_check_read_the_listen_address_alike() {
    use auditloop::cli::{healthcheck, setup};
    let listen = env(&[("AUDITLOOP_LISTEN", " 127.0.0.1:9000 ")]);
    let unset = env(&[]);
    let health = healthcheck::HealthcheckArgs::default();
    let setup_args = setup::SetupArgs::default();
    assert_eq!(
        healthcheck::target(&health, &listen).unwrap().to_string(),
        "127.0.0.1:9000"
    );
    assert_eq!(
        setup::listen_address(&setup_args, &listen)
            .unwrap()
            .to_string(),
        "127.0.0.1:9000"
    );
    // Each its own default: the health check reaches the serving address through loopback.
    assert_eq!(
        healthcheck::target(&health, &unset).unwrap().to_string(),
        "127.0.0.1:3000"
    );
    assert_eq!(
        setup::listen_address(&setup_args, &unset)
            .unwrap()
            .to_string(),
        "127.0.0.1:3000"
    );
    let flag = setup::SetupArgs {
        listen: Some("127.0.0.1:9001".into()),
        ..Default::default()
    };
    assert_eq!(
        setup::listen_address(&flag, &listen).unwrap().to_string(),
        "127.0.0.1:9001"
    );
    let bad = env(&[("AUDITLOOP_LISTEN", "nope")]);
    for err in [
        healthcheck::target(&health, &bad).unwrap_err(),
        setup::listen_address(&setup_args, &bad).unwrap_err(),
    ] {
        assert!(
            err.to_string().starts_with("AUDITLOOP_LISTEN: \"nope\""),
            "{err}"
        );
    }
}
