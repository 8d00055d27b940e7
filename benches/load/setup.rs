//! Starting a run: the fake GitHub on a local port, the replicas' log directory, and each
//! PR opened and given a record before anything is measured.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::branch;
use crate::fake::{self, Fake};
use crate::payloads::{self, opened, BRANCH, NEW};
use crate::server::{self, Cluster};

/// The fake GitHub, answering on a local port with `latency` added to every answer.
pub async fn start_fake(latency: Duration) -> (Arc<Fake>, SocketAddr) {
    let fake = Fake::new(latency);
    let app = axum::Router::new()
        .fallback(fake::handle)
        .with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (fake, addr)
}

/// Where replica logs go: under cargo's scratch directory for benches.
pub fn logs_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("log directory");
    dir
}

/// The record PR `pr` is bound to, from its shard of the index (AUD-1 while it has none).
pub fn audit_id_of(fake: &Fake, repo: &str, pr: u64) -> String {
    let data = fake.data.lock().unwrap();
    data.git
        .get(repo)
        .and_then(|g| branch::pull_record(g, BRANCH, pr))
        .map_or_else(|| "AUD-1".to_owned(), |id| id.to_string())
}

/// Sends a delivery again while it is answered 5xx, as GitHub's redelivery would: with the
/// write governor spacing writes, a setup burst over many repositories is deferred.
async fn deliver_until_done(
    cluster: &Cluster,
    repo: &str,
    rng: &mut rand::rngs::ThreadRng,
    (event, id): (&str, &str),
    payload: &serde_json::Value,
) -> server::Answer {
    let mut tries = 0;
    loop {
        let at = cluster.pick(repo, rng);
        let answer = cluster.deliver(at, event, id, payload).await;
        tries += 1;
        if answer.ok() || answer.status < 500 || tries == 30 {
            return answer;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

/// Opens each PR and gives it a record: repositories in parallel, each one's PRs in turn.
pub async fn setup(cluster: &Cluster, fake: &Fake, prs: &[(String, u64)]) {
    let mut by_repo: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for (repo, pr) in prs {
        fake.add_pull(repo, *pr, &payloads::head_of(repo, *pr));
        by_repo.entry(repo).or_default().push(*pr);
    }
    let jobs = by_repo.into_iter().map(|(repo, prs)| async move {
        let mut rng = rand::thread_rng();
        for pr in prs {
            let open_id = format!("open-{repo}-{pr}");
            let a1 = deliver_until_done(
                cluster,
                repo,
                &mut rng,
                ("pull_request", &open_id),
                &opened(repo, pr),
            )
            .await;
            let id = format!("new-{repo}-{pr}");
            let new = payloads::comment_by(repo, pr, 1_000_000 + pr, NEW, "alice");
            let a2 =
                deliver_until_done(cluster, repo, &mut rng, ("issue_comment", &id), &new).await;
            assert!(
                a1.ok() && a2.ok(),
                "setup of {repo}#{pr}: {} {}",
                a1.status,
                a2.status
            );
        }
    });
    futures::future::join_all(jobs).await;
}
