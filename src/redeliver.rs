//! Redelivery of failed webhook deliveries. GitHub never redelivers by itself, so the app
//! periodically lists its recent deliveries with the App JWT and asks once more for each
//! delivery (`guid`) whose latest attempt failed, up to three attempts in all.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::github::{rest, Api, GitHubApp, GitHubError};

/// GitHub keeps deliveries, and accepts redelivery requests, for this long.
pub(crate) const WINDOW_DAYS: i64 = 3;
/// Attempts per delivery, the first one included, after which the app gives up.
pub(crate) const MAX_ATTEMPTS: usize = 3;
/// How many redelivery requests a sweep state remembers.
pub(crate) const REMEMBERED: usize = 10_000;
/// A bound on pages per sweep, so a cursor that never ends cannot loop forever.
pub const MAX_PAGES: usize = 50;

use crate::github::rest::HookDelivery;

fn window() -> TimeDelta {
    TimeDelta::days(WINDOW_DAYS)
}

/// The attempt ids to ask GitHub to redeliver: for each `guid` with no successful attempt,
/// fewer than `MAX_ATTEMPTS` attempts, and a latest attempt within the window that was not
/// already asked about, that latest attempt. One id per guid, in ascending order.
#[must_use]
pub fn plan<S: BuildHasher>(
    items: &[HookDelivery],
    now: DateTime<Utc>,
    already_asked: &HashSet<u64, S>,
) -> Vec<u64> {
    let cutoff = now - window();
    // Pages can overlap when deliveries arrive mid-listing: count each attempt once.
    let mut by_guid: BTreeMap<&str, BTreeMap<u64, &HookDelivery>> = BTreeMap::new();
    for item in items {
        by_guid
            .entry(item.guid.as_str())
            .or_default()
            .insert(item.id, item);
    }
    let mut ids: Vec<u64> = by_guid
        .values()
        .filter(|attempts| attempts.len() < MAX_ATTEMPTS)
        .filter(|attempts| !attempts.values().any(|a| a.succeeded()))
        .filter_map(|attempts| {
            attempts
                .values()
                .max_by_key(|a| (a.delivered_at, a.id))
                .copied()
        })
        .filter(|latest| latest.delivered_at > cutoff)
        .filter(|latest| !already_asked.contains(&latest.id))
        .map(|latest| latest.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// What the app has asked GitHub to redeliver, bounded in size and age, so a sweep that
/// runs before GitHub records the new attempt does not ask again.
#[derive(Debug)]
pub struct SweepState {
    asked: HashSet<u64>,
    order: VecDeque<(DateTime<Utc>, u64)>,
    capacity: usize,
}

impl Default for SweepState {
    fn default() -> Self {
        Self::with_capacity(REMEMBERED)
    }
}

impl SweepState {
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            asked: HashSet::new(),
            order: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    #[must_use]
    pub fn asked(&self) -> &HashSet<u64> {
        &self.asked
    }

    /// Remembers `id`, forgetting the oldest entries beyond the capacity.
    pub fn remember(&mut self, id: u64, now: DateTime<Utc>) {
        if self.asked.insert(id) {
            self.order.push_back((now, id));
        }
        while self.order.len() > self.capacity {
            self.forget_oldest();
        }
    }

    /// Forgets requests older than the window: GitHub would not redeliver them anyway.
    pub fn prune(&mut self, now: DateTime<Utc>) {
        let cutoff = now - window();
        while self.order.front().is_some_and(|(at, _)| *at <= cutoff) {
            self.forget_oldest();
        }
    }

    fn forget_oldest(&mut self) {
        if let Some((_, id)) = self.order.pop_front() {
            self.asked.remove(&id);
        }
    }
}

/// What one sweep saw and did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SweepReport {
    pub pages: usize,
    pub listed: usize,
    /// Attempt ids GitHub accepted to redeliver.
    pub asked: Vec<u64>,
    /// Attempt ids GitHub refused to redeliver, with its answer.
    pub refused: Vec<(u64, String)>,
    /// Failed deliveries left for a later sweep: their installation's writes wait.
    pub(crate) waiting: usize,
}

/// Lists the deliveries of the last `WINDOW_DAYS` and asks once more for each failed one.
/// A refusal of one redelivery is reported and the sweep goes on; a listing that fails, or
/// a request that gets no answer, ends the sweep with the error.
///
/// # Errors
///
/// When the deliveries cannot be listed or a redelivery request gets no answer.
pub async fn sweep(
    api: &Api,
    state: &mut SweepState,
    now: DateTime<Utc>,
) -> Result<SweepReport, GitHubError> {
    sweep_except(api, state, now, &|_| false).await
}

/// [`sweep`], leaving for a later sweep the deliveries `wait` holds back: those of an
/// installation whose writes GitHub asked to wait, which would only be deferred again
/// and spend one of their attempts.
///
/// # Errors
///
/// As [`sweep`].
pub(crate) async fn sweep_except(
    api: &Api,
    state: &mut SweepState,
    now: DateTime<Utc>,
    wait: &(dyn Fn(&HookDelivery) -> bool + Sync),
) -> Result<SweepReport, GitHubError> {
    state.prune(now);
    let mut report = SweepReport::default();
    let items = list(api, now, &mut report).await?;
    report.listed = items.len();
    let waiting: HashSet<u64> = items.iter().filter(|d| wait(d)).map(|d| d.id).collect();
    for id in plan(&items, now, state.asked()) {
        if waiting.contains(&id) {
            report.waiting += 1;
            continue;
        }
        // Not remembered without an answer: the next sweep asks again, and a redelivery
        // that did happen twice is answered as already handled (same delivery id).
        let answer = rest::redeliver(api, id).await?;
        state.remember(id, now);
        match answer {
            Ok(()) => report.asked.push(id),
            Err(refusal) => report.refused.push((id, refusal.to_string())),
        }
    }
    Ok(report)
}

/// The deliveries of the window, newest first.
async fn list(
    api: &Api,
    now: DateTime<Utc>,
    report: &mut SweepReport,
) -> Result<Vec<HookDelivery>, GitHubError> {
    let (items, pages) = rest::hook_deliveries(api, now - window(), MAX_PAGES).await?;
    report.pages += pages;
    Ok(items)
}

/// Runs `sweep` every `every` (the first right away, to catch up on failures while the
/// app was down) until `shutdown` turns true or its sender is dropped. Errors are logged.
pub fn spawn(
    github: Arc<GitHubApp>,
    every: Duration,
    shutdown: watch::Receiver<bool>,
) -> JoinHandle<()> {
    // Sweeps run one at a time, so this lock is never waited on; it lets each sweep's
    // future own its share of the state.
    let state = Arc::new(tokio::sync::Mutex::new(SweepState::default()));
    crate::schedule::every(every, shutdown, move || {
        let (github, state) = (github.clone(), state.clone());
        async move {
            let api = github.app_api(None);
            let mut state = state.lock().await;
            let wait = |d: &HookDelivery| {
                d.installation_id
                    .is_some_and(|i| github.writes_paused(i).is_some())
            };
            log(sweep_except(&api, &mut state, Utc::now(), &wait).await);
        }
    })
}

fn log(outcome: Result<SweepReport, GitHubError>) {
    match outcome {
        Ok(r) if r.asked.is_empty() && r.refused.is_empty() && r.waiting == 0 => {
            tracing::debug!(
                listed = r.listed,
                pages = r.pages,
                "redelivery sweep: nothing failed"
            );
        }
        Ok(r) => {
            tracing::info!(listed = r.listed, asked = ?r.asked, refused = ?r.refused, waiting = r.waiting, "redelivery sweep");
        }
        Err(e) => tracing::warn!(error = %e, "redelivery sweep failed"),
    }
}
