//! The real `auditloop serve` binary as a child process against the fake GitHub: to kill
//! it with SIGKILL mid-delivery and start it again, and to run several replicas with the
//! same App credentials.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use super::deliveries::sign;
use super::fake::FakeGitHub;
use super::harness::SECRET;

/// The child process, shared with the fake so that a trigger can kill it.
pub type Handle = Arc<Mutex<Option<Child>>>;

pub struct Server {
    pub addr: SocketAddr,
    pub child: Handle,
    http: reqwest::Client,
    dir: tempfile::TempDir,
}

fn free_port() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap()
}

/// Sends `signal` (`-STOP`, `-CONT`) to the child process, with procps' `kill`.
pub fn signal(handle: &Handle, signal: &str) {
    let pid = handle
        .lock()
        .unwrap()
        .as_ref()
        .map(std::process::Child::id)
        .unwrap();
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("kill(1)");
    assert!(status.success(), "kill {signal} {pid}");
}

/// SIGKILL (what `Child::kill` sends on Unix): no graceful stop, nothing flushed.
pub fn kill(handle: &Handle) {
    if let Some(mut child) = handle.lock().unwrap().take() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Server {
    pub async fn spawn(github: &FakeGitHub) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("app-key.pem");
        std::fs::write(&key, super::harness::app_key()).unwrap();
        let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
        let addr = free_port();
        let child = Command::new(env!("CARGO_BIN_EXE_auditloop"))
            .env_clear()
            .current_dir(dir.path())
            .args(["serve", "--app-id", "1", "--private-key-path"])
            .arg(&key)
            .args(["--webhook-secret", SECRET, "--github-api-url"])
            .arg(github.api_url())
            .args(["--listen", &addr.to_string(), "--redeliver-interval", "0"])
            // This fake enforces no write limit: writes are not spaced, so tests run fast.
            .args(["--write-gap-ms", "0"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("auditloop binary");
        let server = Self {
            addr,
            child: Arc::new(Mutex::new(Some(child))),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
            dir,
        };
        server.wait_ready().await;
        server
    }

    async fn wait_ready(&self) {
        for _ in 0..200 {
            let url = format!("http://{}/healthz", self.addr);
            if let Ok(r) = self.http.get(url).send().await {
                if r.status() == 200 {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("auditloop serve did not come up on {}", self.addr);
    }

    /// Posts a signed delivery; `None` when the process died before answering.
    pub async fn deliver(&self, event: &str, id: &str, payload: &Value) -> Option<u16> {
        let body = serde_json::to_vec(payload).unwrap();
        let r = self
            .http
            .post(format!("http://{}/webhook", self.addr))
            .header("content-type", "application/json")
            .header("x-github-event", event)
            .header("x-github-delivery", id)
            .header("x-hub-signature-256", sign(SECRET, &body))
            .body(body)
            .send()
            .await
            .ok()?;
        Some(r.status().as_u16())
    }

    pub fn is_running(&self) -> bool {
        let mut guard = self.child.lock().unwrap();
        match guard.as_mut() {
            Some(c) => c.try_wait().ok().flatten().is_none(),
            None => false,
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        kill(&self.child);
    }
}

impl FakeGitHub {
    /// When the next `method` request whose path contains `path_contains` arrives, the
    /// server is killed before it is answered.
    pub fn kill_on(&self, method: &'static str, path_contains: &str, server: &Handle) {
        let server = server.clone();
        self.on_next(method, path_contains, move |_| {
            kill(&server);
            Some(super::fake::reply(
                502,
                serde_json::json!({"message": "gone"}),
            ))
        });
    }

    /// The matching request is carried out; the server is killed at the request after it.
    pub fn kill_after(&self, method: &'static str, path_contains: &str, server: &Handle) {
        let server = server.clone();
        self.on_next(method, path_contains, move |state| {
            state.triggers.insert(
                0,
                super::fake::Trigger {
                    method: "*",
                    path_contains: String::new(),
                    when: None,
                    action: Box::new(move |_| {
                        kill(&server);
                        Some(super::fake::reply(
                            502,
                            serde_json::json!({"message": "gone"}),
                        ))
                    }),
                },
            );
            None
        });
    }
}
