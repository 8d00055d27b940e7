//! GitHub's side of webhook deliveries: each delivery is posted to one of the app's
//! replicas (in turns) and logged in the fake's delivery log with what it was answered;
//! a redelivery the app asks for (`POST /app/hook/deliveries/{id}/attempts`) is sent the
//! same way, the ones one sweep asked for together, as GitHub sends them. Nothing is sent
//! again unless the app asks: GitHub never redelivers by itself.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use serde_json::Value;

use super::deliveries::sign;
use super::fake::{FakeGitHub, State};
use super::harness::SECRET;

pub struct Sender {
    state: Arc<Mutex<State>>,
    http: reqwest::Client,
    /// The replicas' webhook URLs; a restarted replica is put back with [`Sender::set`].
    targets: Mutex<Vec<String>>,
    turn: AtomicUsize,
}

impl Sender {
    pub fn new(gh: &FakeGitHub, targets: &[&super::harness::TestApp]) -> Arc<Self> {
        Arc::new(Self {
            state: gh.state.clone(),
            http: reqwest::Client::new(),
            targets: Mutex::new(targets.iter().map(|t| t.url("/webhook")).collect()),
            turn: AtomicUsize::new(0),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends to `targets` from now on.
    pub fn set(&self, targets: &[&super::harness::TestApp]) {
        *self.targets.lock().unwrap() = targets.iter().map(|t| t.url("/webhook")).collect();
    }

    /// Posts one attempt of `guid` to the next replica and logs it with its answer (0 when
    /// none came, as GitHub logs a timeout).
    pub async fn send(&self, event: &str, guid: &str, payload: &Value) -> u16 {
        let url = {
            let targets = self.targets.lock().unwrap();
            let n = self.turn.fetch_add(1, Ordering::SeqCst);
            targets[n % targets.len()].clone()
        };
        let at = Utc::now();
        let body = serde_json::to_vec(payload).unwrap();
        let answer = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("x-github-event", event)
            .header("x-github-delivery", guid)
            .header("x-hub-signature-256", sign(SECRET, &body))
            .timeout(Duration::from_secs(10))
            .body(body)
            .send()
            .await;
        let status = answer.map_or(0, |r| r.status().as_u16());
        self.state()
            .hooks
            .log(guid, (event, payload.clone()), status, at);
        status
    }

    /// Sends, every 50 ms, the redeliveries the app asked for since the last time, those
    /// asked together at once; until the task is aborted.
    pub fn redeliver_in_background(self: &Arc<Self>) -> tokio::task::JoinHandle<()> {
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                let asked = me.state().hooks.take_asked();
                let sends = asked.iter().map(|a| me.send(&a.event, &a.guid, &a.payload));
                futures::future::join_all(sends).await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    }

    /// The answers each attempt of `guid` got, in order.
    pub fn answers(&self, guid: &str) -> Vec<u16> {
        self.state()
            .hooks
            .attempts_of(guid)
            .iter()
            .map(|a| a.status_code)
            .collect()
    }
}
