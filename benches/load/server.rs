//! The release `auditloop serve` processes under test: one or several replicas behind one
//! delivery sender, each with its log in a file, which chaos kills and restarts.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::Value;

use crate::payloads::{manifest, SECRET};

/// How deliveries are spread over the replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// The k-th delivery of a repository goes to replica k mod N, so each lands on a
    /// replica other than the one that handled the one before (with N > 1).
    Turns,
    Random,
}

/// How a replica is started.
#[derive(Debug, Clone)]
pub struct Settings {
    pub api: SocketAddr,
    /// Seconds between reconcile sweeps; `0` turns them off.
    pub reconcile: u64,
    pub logs: PathBuf,
    /// `AUDITLOOP_WRITE_GAP_MS`: 0 against a fake that limits nothing, the default 1000
    /// when it plays GitHub's limit (`--limits`).
    pub write_gap_ms: u64,
    /// `AUDITLOOP_REDELIVER_INTERVAL`: 0 unless the fake's limit defers deliveries that
    /// the sweep must bring back.
    pub redeliver: u64,
}

pub struct Replica {
    child: Child,
    pub addr: SocketAddr,
}

/// The server under test: the binary cargo built with this tool, or the one
/// `AUDITLOOP_LOAD_SERVER` names (CI points it at the release build it already made, and
/// builds this tool in the test profile it also built already).
pub fn binary() -> PathBuf {
    std::env::var_os("AUDITLOOP_LOAD_SERVER").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_auditloop")),
        PathBuf::from,
    )
}

fn free_port() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

impl Replica {
    fn spawn(s: &Settings, log: &Path) -> Replica {
        let addr = free_port();
        let out = std::fs::File::create(log).expect("replica log");
        let child = Command::new(binary())
            .arg("serve")
            .env("AUDITLOOP_APP_ID", "1")
            .env(
                "AUDITLOOP_PRIVATE_KEY_PATH",
                manifest("tests/fixtures/app-key.pem"),
            )
            .env("AUDITLOOP_WEBHOOK_SECRET", SECRET)
            .env("AUDITLOOP_GITHUB_API_URL", format!("http://{}", s.api))
            .env("AUDITLOOP_LISTEN", addr.to_string())
            .env("AUDITLOOP_REDELIVER_INTERVAL", s.redeliver.to_string())
            .env("AUDITLOOP_WRITE_GAP_MS", s.write_gap_ms.to_string())
            // The load run leaves sweeps to their own tests; chaos needs them to converge.
            .env("AUDITLOOP_RECONCILE_INTERVAL", s.reconcile.to_string())
            .env("AUDITLOOP_LOG", "warn")
            .stdout(out.try_clone().expect("log file"))
            .stderr(out)
            .spawn()
            .expect("auditloop serve");
        Replica { child, addr }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `VmRSS` or `VmHWM` (peak) in KiB.
    pub fn memory(&self, field: &str) -> u64 {
        let text =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap_or_default();
        text.lines()
            .find_map(|l| {
                l.strip_prefix(field)?
                    .trim_start_matches(':')
                    .trim()
                    .strip_suffix("kB")
            })
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    /// User + system CPU time (clock ticks of 10 ms, Linux's default).
    pub fn cpu(&self) -> Duration {
        let text =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap_or_default();
        let after = text.rsplit_once(')').map_or("", |(_, r)| r);
        let fields: Vec<u64> = after
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        // After the state letter: utime is field 14, stime 15 of /proc/PID/stat.
        let ticks = fields.get(10).unwrap_or(&0) + fields.get(11).unwrap_or(&0);
        Duration::from_millis(ticks * 10)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// N replicas behind one sender.
pub struct Cluster {
    settings: Mutex<Settings>,
    pub replicas: Vec<Mutex<Replica>>,
    /// Incarnations started per replica (for log names).
    started: Vec<AtomicU64>,
    spread: Spread,
    turns: Mutex<std::collections::HashMap<String, u64>>,
    http: reqwest::Client,
}

/// GitHub's window for answering a delivery.
pub const WINDOW: Duration = Duration::from_secs(10);

/// One webhook answer: status (0 when no answer came) and how long it took.
#[derive(Debug, Clone, Copy)]
pub struct Answer {
    pub status: u16,
    pub took: Duration,
    /// No answer within GitHub's window: GitHub counts the delivery as failed.
    pub timed_out: bool,
}

impl Answer {
    pub fn ok(self) -> bool {
        (200..300).contains(&self.status)
    }
}

impl Cluster {
    pub async fn start(settings: Settings, n: usize, spread: Spread) -> Cluster {
        let replicas = (0..n)
            .map(|i| Mutex::new(Replica::spawn(&settings, &log_path(&settings.logs, i, 0))))
            .collect();
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(1024)
            // GitHub gives up on a delivery after 10 s, and so does this sender.
            .timeout(WINDOW)
            .build()
            .unwrap();
        let cluster = Cluster {
            settings: Mutex::new(settings),
            replicas,
            started: (0..n).map(|_| AtomicU64::new(1)).collect(),
            spread,
            turns: Mutex::new(std::collections::HashMap::new()),
            http,
        };
        for i in 0..n {
            cluster.wait_healthy(i).await;
        }
        cluster
    }

    pub fn len(&self) -> usize {
        self.replicas.len()
    }

    pub fn addr(&self, i: usize) -> SocketAddr {
        self.replicas[i].lock().unwrap().addr
    }

    async fn wait_healthy(&self, i: usize) {
        let addr = self.addr(i);
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            let up = self.http.get(format!("http://{addr}/healthz")).send().await;
            if up.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("auditloop serve (replica {i}) did not answer /healthz");
    }

    /// The replica the next delivery for `repo` goes to.
    pub fn pick(&self, repo: &str, rng: &mut impl Rng) -> usize {
        let n = self.len();
        match self.spread {
            Spread::Random => rng.gen_range(0..n),
            Spread::Turns => {
                let mut turns = self.turns.lock().unwrap();
                let k = turns.entry(repo.to_owned()).or_default();
                *k += 1;
                usize::try_from((*k - 1) % n as u64).expect("fits")
            }
        }
    }

    /// Sends one signed delivery to replica `i`.
    pub async fn deliver(&self, i: usize, event: &str, id: &str, payload: &Value) -> Answer {
        let body = serde_json::to_vec(payload).unwrap();
        let sig = auditloop::server::signature::sign(SECRET.as_bytes(), &body);
        let addr = self.addr(i);
        let started = Instant::now();
        let r = self
            .http
            .post(format!("http://{addr}/webhook"))
            .header("content-type", "application/json")
            .header("x-github-event", event)
            .header("x-github-delivery", id)
            .header("x-hub-signature-256", sig)
            .body(body)
            .send()
            .await;
        Answer {
            timed_out: r.as_ref().is_err_and(reqwest::Error::is_timeout),
            status: r.map_or(0, |r| r.status().as_u16()),
            took: started.elapsed(),
        }
    }

    /// SIGKILL of replica `i` (`Child::kill` sends SIGKILL on Unix).
    pub fn kill(&self, i: usize) {
        let mut r = self.replicas[i].lock().unwrap();
        let _ = r.child.kill();
        let _ = r.child.wait();
    }

    /// A new process for replica `i`, on a new port, once it answers `/healthz`.
    pub async fn restart(&self, i: usize) {
        let k = self.started[i].fetch_add(1, Ordering::Relaxed);
        let settings = self.settings.lock().unwrap().clone();
        let fresh = Replica::spawn(&settings, &log_path(&settings.logs, i, k));
        // The old process is dead already; dropping it only reaps it again.
        *self.replicas[i].lock().unwrap() = fresh;
        self.wait_healthy(i).await;
    }

    pub fn memory(&self, i: usize, field: &str) -> u64 {
        self.replicas[i].lock().unwrap().memory(field)
    }

    pub fn cpu(&self) -> Duration {
        self.replicas.iter().map(|r| r.lock().unwrap().cpu()).sum()
    }

    /// Every replica stopped and started again with `change` made to its settings (a run
    /// set up quickly, then measured as an operator configures it).
    pub async fn restart_all_with(&self, change: impl FnOnce(&mut Settings)) {
        change(&mut self.settings.lock().unwrap());
        for i in 0..self.len() {
            self.kill(i);
            self.restart(i).await;
        }
    }

    /// Every log file written so far, killed incarnations included.
    pub fn logs(&self) -> Vec<PathBuf> {
        let logs = self.settings.lock().unwrap().logs.clone();
        let mut out = Vec::new();
        for (i, n) in self.started.iter().enumerate() {
            for k in 0..n.load(Ordering::Relaxed) {
                out.push(log_path(&logs, i, k));
            }
        }
        out
    }
}

fn log_path(dir: &Path, replica: usize, incarnation: u64) -> PathBuf {
    dir.join(format!("replica-{replica}-{incarnation}.log"))
}
