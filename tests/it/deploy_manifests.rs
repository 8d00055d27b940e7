//! Everything under deploy/ says what the binary really does: every YAML parses; ports,
//! probe paths and variable names are the ones auditloop serves and reads; the Kubernetes
//! objects point at each other; the alert rules and the dashboard query series `/metrics`
//! exports; the image's health check is a subcommand the binary has.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use auditloop::server::webhook::Delivery;
use auditloop::server::{router, AppState, Handled, Handler, HandlerError};
use serde_json::Value;
use tower::ServiceExt as _;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn deploy_files(ext: &[&str]) -> Vec<PathBuf> {
    let mut all = Vec::new();
    files(&root().join("deploy"), &mut all);
    all.retain(|p| p.extension().is_some_and(|e| ext.iter().any(|x| e == *x)));
    all.sort();
    all
}

/// Every document of every YAML file under deploy/.
fn documents() -> Vec<(PathBuf, Value)> {
    let mut docs = Vec::new();
    for path in deploy_files(&["yml", "yaml"]) {
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed: Vec<Value> = serde_saphyr::from_multiple(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        docs.extend(parsed.into_iter().map(|d| (path.clone(), d)));
    }
    docs
}

fn kind<'a>(docs: &'a [(PathBuf, Value)], kind: &str) -> &'a Value {
    &docs
        .iter()
        .find(|(_, d)| d["kind"].as_str() == Some(kind))
        .unwrap_or_else(|| panic!("no {kind} under deploy/"))
        .1
}

/// The `AUDITLOOP_*` names the code reads.
fn known_variables() -> BTreeSet<String> {
    let pattern = regex::Regex::new(r#""(AUDITLOOP_[A-Z_]+)""#).unwrap();
    let mut sources = Vec::new();
    files(&root().join("src"), &mut sources);
    sources
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .flat_map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            pattern
                .captures_iter(&text)
                .map(|c| c[1].to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn default_port() -> u64 {
    auditloop::operator_config::DEFAULT_LISTEN
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

struct Nothing;

#[async_trait::async_trait]
impl Handler for Nothing {
    async fn handle(&self, _: &Delivery) -> Result<Handled, HandlerError> {
        Ok(Handled::Ignored)
    }
}

/// What the real router answers to `GET path`.
async fn served(path: &str) -> u16 {
    let state = AppState::new(
        auditloop::server::signature::WebhookSecrets::parse("s").unwrap(),
        auditloop::metrics::Metrics::new(),
        Arc::new(Nothing),
    );
    let request = http::Request::get(path)
        .body(axum::body::Body::empty())
        .unwrap();
    router(state)
        .oneshot(request)
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[test]
fn every_yaml_under_deploy_parses() {
    let docs = documents();
    let kinds: BTreeSet<&str> = docs
        .iter()
        .filter_map(|(_, d)| d["kind"].as_str())
        .collect();
    for wanted in [
        "Deployment",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "Secret",
        "Namespace",
        "NetworkPolicy",
    ] {
        assert!(kinds.contains(wanted), "{wanted} missing: {kinds:?}");
    }
}

#[tokio::test]
async fn the_deployment_uses_the_binarys_port_probes_and_variables() {
    let docs = documents();
    let deployment = kind(&docs, "Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let port = &container["ports"][0];
    assert_eq!(port["containerPort"].as_u64(), Some(default_port()));
    let port_name = port["name"].as_str().unwrap();

    let known = known_variables();
    assert!(
        known.contains("AUDITLOOP_LISTEN") && known.len() > 10,
        "{known:?}"
    );
    let mut names = BTreeSet::new();
    for var in container["env"].as_array().unwrap() {
        let name = var["name"].as_str().unwrap();
        assert!(
            known.contains(name),
            "{name} is not a variable auditloop reads"
        );
        names.insert(name);
        if name == "AUDITLOOP_LISTEN" {
            let value = var["value"].as_str().unwrap();
            assert!(value.ends_with(&format!(":{}", default_port())), "{value}");
        }
    }
    for required in [
        "AUDITLOOP_APP_ID",
        "AUDITLOOP_WEBHOOK_SECRET_FILE",
        "AUDITLOOP_PRIVATE_KEY_PATH",
    ] {
        assert!(names.contains(required), "{required} is not set");
    }
    // Secrets never travel as environment variables.
    for secret in [
        "AUDITLOOP_WEBHOOK_SECRET",
        "WEBHOOK_SECRET",
        "AUDITLOOP_PRIVATE_KEY",
    ] {
        assert!(!names.contains(secret), "{secret} is in the environment");
    }
    let app_id = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "AUDITLOOP_APP_ID")
        .unwrap();
    assert_eq!(app_id["valueFrom"]["secretKeyRef"]["name"], "auditloop");
    // The key and the webhook secret are files of the Secret's volume, where the variables
    // point.
    let mount = container["volumeMounts"][0]["mountPath"].as_str().unwrap();
    assert_eq!(container["volumeMounts"][0]["readOnly"], true);
    let volume = &pod["volumes"][0]["secret"];
    assert_eq!(volume["secretName"], "auditloop");
    let items: Vec<(&str, &str)> = volume["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["key"].as_str().unwrap(), i["path"].as_str().unwrap()))
        .collect();
    for (variable, key) in [
        ("AUDITLOOP_PRIVATE_KEY_PATH", "private-key.pem"),
        ("AUDITLOOP_WEBHOOK_SECRET_FILE", "webhook-secret"),
    ] {
        let path = container["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == variable)
            .unwrap()["value"]
            .as_str()
            .unwrap();
        let item = items.iter().find(|(k, _)| *k == key).unwrap().1;
        assert_eq!(path, format!("{mount}/{item}"), "{variable}");
    }

    // Readiness and liveness ask different questions, both of the App's own router.
    let mut paths = BTreeSet::new();
    for (probe, wanted) in [("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")] {
        let get = &container[probe]["httpGet"];
        let path = get["path"].as_str().unwrap();
        assert_eq!(path, wanted, "{probe}");
        assert_eq!(served(path).await, 200, "{probe}: {path} is served");
        paths.insert(path);
        let port = &get["port"];
        assert!(
            port.as_str() == Some(port_name) || port.as_u64() == Some(default_port()),
            "{probe} port {port:?}"
        );
    }
    assert_eq!(paths.len(), 2);
    assert_eq!(served("/metrics").await, 200);
    // The HorizontalPodAutoscaler owns the replica count.
    assert!(deployment["spec"].get("replicas").is_none());
    assert!(
        pod["topologySpreadConstraints"]
            .as_array()
            .is_some_and(|c| c
                .iter()
                .any(|c| c["topologyKey"] == "kubernetes.io/hostname")),
        "replicas spread across nodes"
    );

    let security = &container["securityContext"];
    assert_eq!(security["readOnlyRootFilesystem"], true);
    assert_eq!(security["allowPrivilegeEscalation"], false);
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_ne!(pod["securityContext"]["runAsUser"].as_u64(), Some(0));
    let resources = &container["resources"];
    for part in ["requests", "limits"] {
        for what in ["cpu", "memory"] {
            assert!(resources[part][what].as_str().is_some(), "{part}.{what}");
        }
    }
    // GitHub waits 10 s for an answer; the grace period covers that and the preStop pause.
    let grace = pod["terminationGracePeriodSeconds"].as_u64().unwrap();
    let pause = container["lifecycle"]["preStop"]["sleep"]["seconds"]
        .as_u64()
        .unwrap_or(0);
    assert!(grace >= 10 + pause, "grace {grace}, preStop {pause}");
}

#[test]
fn service_autoscaler_and_budget_point_at_the_deployment() {
    let docs = documents();
    let deployment = kind(&docs, "Deployment");
    let name = deployment["metadata"]["name"].as_str().unwrap();
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let port_name = deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["name"]
        .as_str()
        .unwrap();
    let service = kind(&docs, "Service");
    assert_eq!(&service["spec"]["selector"], labels);
    let target = &service["spec"]["ports"][0]["targetPort"];
    assert!(target.as_str() == Some(port_name) || target.as_u64() == Some(default_port()));
    let hpa = kind(&docs, "HorizontalPodAutoscaler");
    assert_eq!(hpa["spec"]["scaleTargetRef"]["kind"], "Deployment");
    assert_eq!(hpa["spec"]["scaleTargetRef"]["name"].as_str(), Some(name));
    assert!(hpa["spec"]["minReplicas"].as_u64().unwrap() >= 2);
    let pdb = kind(&docs, "PodDisruptionBudget");
    assert_eq!(&pdb["spec"]["selector"]["matchLabels"], labels);
    // Every key the Deployment reads from the Secret is in the example Secret.
    let secret = kind(&docs, "Secret");
    assert_eq!(secret["metadata"]["namespace"], "auditloop");
    let text = serde_json::to_string(deployment).unwrap();
    for key in ["app-id", "webhook-secret", "private-key.pem"] {
        assert!(text.contains(key), "{key}");
        assert!(secret["stringData"].get(key).is_some(), "{key}");
    }
}

/// What `kubectl apply -k deploy/kubernetes` and `kubectl apply -f deploy/kubernetes/` apply is
/// the same set of objects, all in one namespace, the image set by `images:`, and no Secret.
#[tokio::test]
async fn kustomize_and_a_plain_apply_take_the_same_objects_and_no_secret() {
    let dir = root().join("deploy/kubernetes");
    let kustomization: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(dir.join("kustomization.yaml")).unwrap())
            .unwrap();
    let listed: BTreeSet<String> = kustomization["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    let mut present = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name != "kustomization.yaml" {
            present.insert(name);
        }
    }
    assert_eq!(listed, present);
    let namespace = kustomization["namespace"].as_str().unwrap();
    let mut kinds = BTreeSet::new();
    for name in &present {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        for doc in serde_saphyr::from_multiple::<Value>(&text).unwrap() {
            let kind = doc["kind"].as_str().unwrap().to_owned();
            assert_ne!(kind, "Secret", "{name} would overwrite the real Secret");
            if kind == "Namespace" {
                assert_eq!(doc["metadata"]["name"], namespace);
            } else {
                assert_eq!(doc["metadata"]["namespace"], namespace, "{name}");
            }
            kinds.insert(kind);
        }
    }
    assert!(kinds.contains("Namespace") && kinds.contains("NetworkPolicy"));

    let docs = documents();
    let container = &kind(&docs, "Deployment")["spec"]["template"]["spec"]["containers"][0];
    let image = container["image"].as_str().unwrap();
    let entry = kustomization["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == image)
        .unwrap_or_else(|| panic!("no images: entry for {image}"));
    assert!(entry["newName"].as_str().unwrap().starts_with("ghcr.io/"));
    let tag = entry["newTag"].as_str().unwrap();
    assert!(
        tag.split('.').count() == 3 && tag.split('.').all(|p| p.parse::<u32>().is_ok()),
        "a release tag, not {tag}"
    );

    // The NetworkPolicy lets in the container port and lets out DNS and HTTPS only.
    let policy = kind(&docs, "NetworkPolicy");
    assert_eq!(
        policy["spec"]["ingress"][0]["ports"][0]["port"].as_u64(),
        Some(default_port())
    );
    let egress: BTreeSet<u64> = policy["spec"]["egress"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|rule| rule["ports"].as_array().unwrap())
        .map(|p| p["port"].as_u64().unwrap())
        .collect();
    assert_eq!(egress, BTreeSet::from([53, 443]));

    // Readiness is the App's: first-run setup does not answer it.
    let launch: auditloop::setup::Launch =
        Box::new(|_| Box::pin(async { Ok(axum::Router::new()) }));
    let setup = auditloop::setup::app(
        auditloop::setup::SetupOptions {
            github_url: "https://github.com".into(),
            api_url: None,
            org: None,
            webhook_url: None,
            dir: std::env::temp_dir(),
            manifest: String::new(),
        },
        launch,
    );
    let request = http::Request::get("/readyz")
        .body(axum::body::Body::empty())
        .unwrap();
    let status = setup.oneshot(request).await.unwrap().status();
    assert!(!status.is_success(), "setup answered /readyz {status}");
}

/// The scrape job the alerts select: auditloop's pods on the container port's name.
#[test]
fn the_scrape_job_is_the_one_the_alerts_select() {
    let docs = documents();
    let config = &docs
        .iter()
        .find(|(p, _)| p.ends_with("monitoring/prometheus.yml"))
        .unwrap()
        .1;
    let job = &config["scrape_configs"][0];
    assert_eq!(job["job_name"], "auditloop");
    assert_eq!(job["metrics_path"], "/metrics");
    let text = serde_json::to_string(job).unwrap();
    let deployment = kind(&docs, "Deployment");
    let port_name = deployment["spec"]["template"]["spec"]["containers"][0]["ports"][0]["name"]
        .as_str()
        .unwrap();
    assert!(
        text.contains(&format!("\"regex\":\"{port_name}\"")),
        "{text}"
    );
    let alerts = std::fs::read_to_string(root().join("deploy/monitoring/alerts.yml")).unwrap();
    let rules: Value = serde_saphyr::from_str(&alerts).unwrap();
    for rule in rules["groups"][0]["rules"].as_array().unwrap() {
        let expr = rule["expr"].as_str().unwrap();
        for series in series_in(expr) {
            assert!(
                expr.contains(&format!("{series}{{job=\"auditloop\"")),
                "{expr}"
            );
        }
    }
    assert!(alerts.contains("absent(up{job=\"auditloop\""));
}

/// Every series `/metrics` exports, each metric touched once so that all appear.
fn exported_series() -> BTreeSet<String> {
    let m = auditloop::metrics::Metrics::new();
    m.delivery("pull_request", "handled");
    m.api_call("GET /app", "200");
    m.observe_handling(0.1);
    m.rate_limit_remaining(10);
    m.reconcile_sweep("ok", 1, 1);
    m.rate_limited("secondary");
    m.write_waited(0.5);
    m.queue(42, 2, 1_700_000_000);
    m.queue_waited(3.0);
    m.render()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split(['{', ' ']).next().unwrap().to_owned())
        .collect()
}

fn series_in(expr: &str) -> Vec<String> {
    regex::Regex::new(r"auditloop_[a-z_]+")
        .unwrap()
        .find_iter(expr)
        .map(|m| m.as_str().to_owned())
        .collect()
}

#[test]
fn alerts_and_dashboard_query_series_that_exist() {
    let exported = exported_series();
    assert!(
        exported.contains("auditloop_deliveries_total"),
        "{exported:?}"
    );
    let mut used = Vec::new();
    let docs = documents();
    let rules: Vec<&Value> = docs
        .iter()
        .filter(|(p, _)| p.ends_with("alerts.yml"))
        .flat_map(|(_, d)| d["groups"].as_array().unwrap())
        .flat_map(|g| g["rules"].as_array().unwrap())
        .collect();
    assert!(rules.len() >= 5);
    for rule in rules {
        let expr = rule["expr"].as_str().unwrap();
        assert!(
            rule["alert"].as_str().is_some() && rule["annotations"]["summary"].as_str().is_some()
        );
        used.extend(series_in(expr));
    }
    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("deploy/monitoring/grafana-dashboard.json")).unwrap(),
    )
    .unwrap();
    let panels = dashboard["panels"].as_array().unwrap();
    assert!(panels.len() >= 5);
    for panel in panels {
        for target in panel["targets"].as_array().unwrap() {
            used.extend(series_in(target["expr"].as_str().unwrap()));
        }
    }
    let missing: Vec<_> = used.iter().filter(|s| !exported.contains(*s)).collect();
    assert!(
        missing.is_empty(),
        "not exported: {missing:?}; exported: {exported:?}"
    );
    // Every series /metrics exports is on the dashboard.
    let unshown: Vec<_> = exported
        .iter()
        .filter(|s| !s.ends_with("_sum") && !s.ends_with("_count"))
        .filter(|s| !used.contains(s))
        .collect();
    assert!(unshown.is_empty(), "{unshown:?}");
}

#[test]
fn the_image_and_the_unit_run_what_the_binary_has() {
    let dockerfile = std::fs::read_to_string(root().join("deploy/Dockerfile")).unwrap();
    assert!(dockerfile.contains(&format!("EXPOSE {}", default_port())));
    let health = dockerfile
        .lines()
        .find(|l| l.contains("CMD [\"/usr/local/bin/auditloop\", \"healthcheck\"]"));
    assert!(
        health.is_some(),
        "HEALTHCHECK runs the healthcheck subcommand"
    );
    assert!(dockerfile.contains("USER 65532:65532"));
    assert!(dockerfile.contains("FROM scratch"));
    let known = known_variables();
    let unit = std::fs::read_to_string(root().join("deploy/auditloop.service")).unwrap();
    let names = regex::Regex::new(r"AUDITLOOP_[A-Z_]+").unwrap();
    for text in [&dockerfile, &unit] {
        for name in names.find_iter(text) {
            assert!(
                known.contains(name.as_str()),
                "{} is not read",
                name.as_str()
            );
        }
    }
    for setting in [
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "DynamicUser=yes",
    ] {
        assert!(unit.contains(setting), "{setting}");
    }
    let bin = env!("CARGO_BIN_EXE_auditloop");
    for args in [&["healthcheck", "--help"][..], &["serve", "--help"][..]] {
        let status = std::process::Command::new(bin)
            .args(args)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{args:?}");
    }
    // Nothing answers on this port: the health check fails, as the image's would.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = dead.local_addr().unwrap();
    drop(dead);
    let status = std::process::Command::new(bin)
        .args(["healthcheck", "--listen", &addr.to_string()])
        .env_clear()
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success());
}

#[tokio::test]
async fn the_health_check_passes_against_a_serving_app() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(
        auditloop::server::signature::WebhookSecrets::parse("s").unwrap(),
        auditloop::metrics::Metrics::new(),
        Arc::new(Nothing),
    );
    tokio::spawn(async move { axum::serve(listener, router(state)).await });
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_auditloop"))
            .args(["healthcheck"])
            .env_clear()
            .env("AUDITLOOP_LISTEN", addr.to_string())
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
}
