//! GitHub's side of the deliveries: every send is logged in the fake's delivery log with
//! the answer it got (what the app's redelivery sweep lists), and a redelivery is sent only
//! when the app asks for one (`POST /app/hook/deliveries/{id}/attempts`), those asked for
//! together sent together, as GitHub does. GitHub never sends a delivery again by itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::fake::Fake;
use crate::server::{Answer, Cluster};

pub struct GitHub<'a> {
    pub cluster: &'a Cluster,
    pub fake: &'a Fake,
    /// Redeliveries sent so far.
    pub redelivered: AtomicU64,
}

impl<'a> GitHub<'a> {
    pub fn new(cluster: &'a Cluster, fake: &'a Fake) -> Self {
        GitHub {
            cluster,
            fake,
            redelivered: AtomicU64::new(0),
        }
    }

    /// Sends one attempt of delivery `id` to replica `at` and logs it with its answer.
    pub async fn send(&self, at: usize, event: &str, id: &str, payload: &Value) -> Answer {
        let when = chrono::Utc::now();
        let answer = self.cluster.deliver(at, event, id, payload).await;
        self.fake
            .data
            .lock()
            .unwrap()
            .hooks
            .log(id, (event, payload.clone()), answer.status, when);
        answer
    }

    /// Sends the redeliveries the app asked for since the last call, all at once (each to
    /// the replica the cluster's spread picks); their ids and answers.
    pub async fn redeliver(&self, rng: &mut impl rand::Rng) -> Vec<(String, Answer)> {
        let asked = self.fake.data.lock().unwrap().hooks.take_asked();
        let sends: Vec<_> = asked
            .iter()
            .map(|a| {
                let repo = a.payload["repository"]["full_name"]
                    .as_str()
                    .unwrap_or_default();
                let at = self.cluster.pick(repo, rng);
                async move {
                    let answer = self.send(at, &a.event, &a.guid, &a.payload).await;
                    (a.guid.clone(), answer)
                }
            })
            .collect();
        self.redelivered
            .fetch_add(sends.len() as u64, Ordering::Relaxed);
        futures::future::join_all(sends).await
    }

    /// [`GitHub::redeliver`] every 100 ms until `stop` turns true.
    pub async fn redeliver_until(&self, stop: &AtomicBool, seed: u64) {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        while !stop.load(Ordering::SeqCst) {
            self.redeliver(&mut rng).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The answers each attempt of `id` got, in order.
    pub fn answers(&self, id: &str) -> Vec<u16> {
        self.fake
            .data
            .lock()
            .unwrap()
            .hooks
            .attempts_of(id)
            .iter()
            .map(|a| a.status_code)
            .collect()
    }
}
