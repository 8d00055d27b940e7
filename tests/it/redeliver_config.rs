//! The redelivery sweep as operators configure it, and `serve` starting it (or not).

use crate::support;

use std::collections::HashMap;
use std::time::Duration;

use auditloop::operator_config::{ConfigError, ServeArgs, ServeConfig};
use support::fake::FakeGitHub;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let mut map: HashMap<String, String> = [
        ("AUDITLOOP_APP_ID", "1".to_owned()),
        ("AUDITLOOP_PRIVATE_KEY", support::harness::app_key()),
        ("AUDITLOOP_WEBHOOK_SECRET", "s".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    for (k, v) in pairs {
        map.insert(k.to_string(), v.to_string());
    }
    move |k| map.get(k).cloned()
}

fn no_file(_: &std::path::Path) -> std::io::Result<String> {
    Err(std::io::Error::other("no file"))
}

fn resolve(flag: Option<&str>, pairs: &[(&str, &str)]) -> Result<ServeConfig, ConfigError> {
    let args = ServeArgs {
        redeliver_interval: flag.map(str::to_owned),
        ..ServeArgs::default()
    };
    ServeConfig::resolve(&args, &env(pairs), &no_file)
}

#[test]
fn interval_table() {
    let var = "AUDITLOOP_REDELIVER_INTERVAL";
    let cases: &[(Option<&str>, Option<&str>, Option<u64>)] = &[
        (None, None, Some(300)),
        (None, Some("60"), Some(60)),
        (None, Some(" 90 "), Some(90)),
        (Some("30"), Some("60"), Some(30)),
        (None, Some("0"), Some(0)),
        (None, Some("5m"), None),
        (None, Some("-1"), None),
        (Some("soon"), None, None),
    ];
    for (flag, value, want) in cases {
        let pairs: Vec<(&str, &str)> = value.iter().map(|v| (var, *v)).collect();
        match (resolve(*flag, &pairs), want) {
            (Ok(cfg), Some(secs)) => {
                assert_eq!(
                    cfg.redeliver_interval,
                    Duration::from_secs(*secs),
                    "{flag:?} {value:?}"
                );
            }
            // The error names where the value came from: the flag over the variable.
            (Err(ConfigError::Invalid { setting, .. }), None) => {
                let from = if flag.is_some() {
                    "--redeliver-interval"
                } else {
                    var
                };
                assert_eq!(setting, from);
            }
            (other, _) => panic!(
                "{flag:?} {value:?}: {:?}",
                other.map(|c| c.redeliver_interval)
            ),
        }
    }
}

/// Serves with `interval` against the fake for a moment; the number of delivery listings.
async fn listings_while_serving(interval: &str) -> usize {
    let fake = FakeGitHub::start().await;
    let cfg = resolve(
        Some(interval),
        &[
            ("AUDITLOOP_GITHUB_API_URL", fake.api_url().as_str()),
            ("AUDITLOOP_LISTEN", "127.0.0.1:0"),
        ],
    )
    .unwrap();
    let server = tokio::spawn(auditloop::cli::serve::start(cfg));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while fake.delivery_listings().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.abort();
    fake.delivery_listings().len()
}

#[tokio::test]
async fn serve_starts_the_sweep_unless_disabled() {
    assert!(listings_while_serving("300").await >= 1);
    assert_eq!(listings_while_serving("0").await, 0);
}
