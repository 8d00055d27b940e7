//! Redelivery of webhook deliveries. GitHub never redelivers by itself, so the app
//! periodically lists its recent deliveries with the App JWT and asks once more for each
//! delivery (`guid`) whose latest attempt failed, up to three failed attempts in all; and
//! for each answered `202` (queued) whose outcome is not on GitHub, which a process that
//! stopped with it queued lost: those asks are not among the three.

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
/// Asks for a delivery answered `202` whose outcome is not found, beyond its first
/// attempt, after which the app gives up on it too. Generous: a redelivery that reaches the
/// replica still holding the delivery queued is answered `202` again and spends one.
pub const MAX_QUEUED_ASKS: usize = 10;
/// How many redelivery requests a sweep state remembers.
pub(crate) const REMEMBERED: usize = 10_000;
/// A bound on pages per sweep, so a cursor that never ends cannot loop forever.
pub const MAX_PAGES: usize = 50;

use crate::github::rest::HookDelivery;

fn window() -> TimeDelta {
    TimeDelta::days(WINDOW_DAYS)
}

/// The attempts of each delivery, each counted once (pages can overlap when deliveries
/// arrive mid-listing), by `guid`.
fn by_guid(items: &[HookDelivery]) -> BTreeMap<&str, BTreeMap<u64, &HookDelivery>> {
    let mut by_guid: BTreeMap<&str, BTreeMap<u64, &HookDelivery>> = BTreeMap::new();
    for item in items {
        by_guid
            .entry(item.guid.as_str())
            .or_default()
            .insert(item.id, item);
    }
    by_guid
}

fn latest<'a>(attempts: &BTreeMap<u64, &'a HookDelivery>) -> Option<&'a HookDelivery> {
    attempts
        .values()
        .max_by_key(|a| (a.delivered_at, a.id))
        .copied()
}

/// The attempt ids to ask GitHub to redeliver: for each `guid` with no attempt answered
/// with its effects written, fewer than `MAX_ATTEMPTS` failed attempts, and a latest
/// attempt that failed, within the window and not already asked about, that latest
/// attempt. One id per guid, in ascending order.
#[must_use]
pub fn plan<S: BuildHasher>(
    items: &[HookDelivery],
    now: DateTime<Utc>,
    already_asked: &HashSet<u64, S>,
) -> Vec<u64> {
    let cutoff = now - window();
    let mut ids: Vec<u64> = by_guid(items)
        .values()
        .filter(|attempts| attempts.values().filter(|a| !a.succeeded()).count() < MAX_ATTEMPTS)
        .filter(|attempts| !attempts.values().any(|a| a.done()))
        .filter_map(latest)
        .filter(|latest| !latest.succeeded())
        .filter(|latest| latest.delivered_at > cutoff)
        .filter(|latest| !already_asked.contains(&latest.id))
        .map(|latest| latest.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// The attempts answered `202` to look at: for each `guid` with no attempt answered with
/// its effects written, whose latest attempt was queued within the window and at least
/// `grace` ago (a replica alive may still be carrying it out), asked for fewer than
/// [`MAX_QUEUED_ASKS`] times, not already asked about, and that `skip` does not hold back
/// (this process holds it, or found its outcome): that latest attempt, oldest delivery
/// first.
#[must_use]
pub fn plan_queued<S: BuildHasher>(
    items: &[HookDelivery],
    now: DateTime<Utc>,
    already_asked: &HashSet<u64, S>,
    (skip, grace): (&dyn Fn(&str) -> bool, TimeDelta),
) -> Vec<u64> {
    let cutoff = now - window();
    let settled = now - grace;
    let mut picked: Vec<(DateTime<Utc>, u64)> = by_guid(items)
        .into_iter()
        .filter(|(_, attempts)| !attempts.values().any(|a| a.done()))
        .filter(|(_, attempts)| attempts.values().filter(|a| a.queued()).count() <= MAX_QUEUED_ASKS)
        .filter(|(guid, _)| !skip(guid))
        .filter_map(|(_, attempts)| {
            let first = attempts.values().map(|a| a.delivered_at).min()?;
            Some((first, latest(&attempts)?))
        })
        .filter(|(_, latest)| latest.queued())
        .filter(|(_, latest)| latest.delivered_at > cutoff && latest.delivered_at <= settled)
        .filter(|(_, latest)| !already_asked.contains(&latest.id))
        .map(|(first, latest)| (first, latest.id))
        .collect();
    picked.sort_unstable();
    picked.into_iter().map(|(_, id)| id).collect()
}

/// What the app has asked GitHub to redeliver, bounded in size and age, so a sweep that
/// runs before GitHub records the new attempt does not ask again; and the queued
/// deliveries whose outcome it found, so that they are not looked at again.
#[derive(Debug)]
pub struct SweepState {
    asked: HashSet<u64>,
    order: VecDeque<(DateTime<Utc>, u64)>,
    settled: HashSet<String>,
    settled_order: VecDeque<(DateTime<Utc>, String)>,
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
            settled: HashSet::new(),
            settled_order: VecDeque::new(),
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

    /// Remembers that the queued delivery `guid` was carried out.
    fn settle(&mut self, guid: &str, now: DateTime<Utc>) {
        if self.settled.insert(guid.to_owned()) {
            self.settled_order.push_back((now, guid.to_owned()));
        }
        while self.settled_order.len() > self.capacity {
            if let Some((_, old)) = self.settled_order.pop_front() {
                self.settled.remove(&old);
            }
        }
    }

    /// Forgets requests older than the window: GitHub would not redeliver them anyway.
    pub fn prune(&mut self, now: DateTime<Utc>) {
        let cutoff = now - window();
        while self.order.front().is_some_and(|(at, _)| *at <= cutoff) {
            self.forget_oldest();
        }
        while self
            .settled_order
            .front()
            .is_some_and(|(at, _)| *at <= cutoff)
        {
            if let Some((_, old)) = self.settled_order.pop_front() {
                self.settled.remove(&old);
            }
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
    /// Of `asked`, the deliveries answered `202` whose outcome was not found.
    pub queued_lost: Vec<u64>,
    /// Deliveries answered `202` whose outcome was found.
    pub queued_found: usize,
}

/// What the sweep asks of the process about a delivery answered `202`.
#[async_trait::async_trait]
pub trait Outcomes: Send + Sync {
    /// Whether this process handled the delivery `guid`, or holds it still (queued).
    fn holds(&self, guid: &str) -> bool;

    /// Whether what the delivery `guid` (an `event` with `payload`) was to do is visible on
    /// GitHub.
    ///
    /// # Errors
    ///
    /// When GitHub cannot tell.
    async fn carried_out(&self, event: &str, guid: &str, payload: &[u8]) -> Result<bool, String>;
}

/// The process's answer: its deliveries (held or handled) and its App.
pub struct ProcessOutcomes {
    pub deliveries: crate::server::Deliveries,
    pub handler: Arc<dyn crate::delivery::Handler>,
}

#[async_trait::async_trait]
impl Outcomes for ProcessOutcomes {
    fn holds(&self, guid: &str) -> bool {
        self.deliveries.knows(guid)
    }

    async fn carried_out(&self, event: &str, guid: &str, payload: &[u8]) -> Result<bool, String> {
        // A payload that does not parse was answered 400, never queued: nothing to do.
        let Ok(event) = crate::events::WebhookEvent::parse(event, payload) else {
            return Ok(true);
        };
        let delivery = crate::delivery::Delivery {
            id: crate::ids::DeliveryId(guid.to_owned()),
            event,
            received: tokio::time::Instant::now(),
            pace: crate::delivery::Pace::default(),
        };
        self.handler
            .carried_out(&delivery)
            .await
            .map_err(|e| e.to_string())
    }
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
    sweep_all(api, state, now, &|_| false, None).await
}

/// What a sweep asks about deliveries answered `202`: the process's word on each, and how
/// long after its latest attempt one may still be in a live replica's queue (none at a
/// process's start: what it held is lost).
pub struct QueuedAsks<'a> {
    pub outcomes: &'a dyn Outcomes,
    pub grace: Duration,
}

/// [`sweep`], leaving for a later sweep the failed deliveries `wait` holds back (those of
/// an installation whose writes GitHub asked to wait, which would only be deferred
/// again); and with `outcomes`, also asking again for each delivery answered `202` whose
/// outcome it cannot find (one a process lost with its queue).
///
/// # Errors
///
/// As [`sweep`].
pub async fn sweep_all(
    api: &Api,
    state: &mut SweepState,
    now: DateTime<Utc>,
    wait: &(dyn Fn(&HookDelivery) -> bool + Sync),
    queued: Option<QueuedAsks<'_>>,
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
        ask(api, state, now, id, &mut report).await?;
    }
    if let Some(QueuedAsks { outcomes, grace }) = queued {
        let settled = state.settled.clone();
        let skip = |guid: &str| settled.contains(guid) || outcomes.holds(guid);
        let grace = TimeDelta::from_std(grace).unwrap_or(TimeDelta::MAX);
        for id in plan_queued(&items, now, state.asked(), (&skip, grace)) {
            let Some(guid) = items.iter().find(|d| d.id == id).map(|d| d.guid.clone()) else {
                continue;
            };
            let detail = rest::hook_delivery(api, id).await?;
            let payload = detail
                .request
                .payload
                .map(|p| p.to_string())
                .unwrap_or_default();
            match outcomes
                .carried_out(&detail.event, &guid, payload.as_bytes())
                .await
            {
                Ok(true) => {
                    state.settle(&guid, now);
                    report.queued_found += 1;
                }
                Ok(false) => {
                    if ask(api, state, now, id, &mut report).await? {
                        report.queued_lost.push(id);
                    }
                }
                // Asked again by the next sweep.
                Err(e) => {
                    tracing::warn!(guid, error = %e, "a queued delivery's outcome could not be read");
                }
            }
        }
    }
    Ok(report)
}

/// Asks GitHub to redeliver attempt `id`; whether it accepted.
async fn ask(
    api: &Api,
    state: &mut SweepState,
    now: DateTime<Utc>,
    id: u64,
    report: &mut SweepReport,
) -> Result<bool, GitHubError> {
    // Not remembered without an answer: the next sweep asks again, and a redelivery that
    // did happen twice is answered as already handled (same delivery id).
    let answer = rest::redeliver(api, id).await?;
    state.remember(id, now);
    Ok(match answer {
        Ok(()) => {
            report.asked.push(id);
            true
        }
        Err(refusal) => {
            report.refused.push((id, refusal.to_string()));
            false
        }
    })
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

/// Runs a sweep every `every` (the first right away, to catch up on failures while the app
/// was down, and on what its queue held when it stopped) until `shutdown` turns true or its
/// sender is dropped. Errors are logged.
pub fn spawn(
    github: Arc<GitHubApp>,
    every: Duration,
    shutdown: watch::Receiver<bool>,
    outcomes: Option<Arc<dyn Outcomes>>,
) -> JoinHandle<()> {
    // Sweeps run one at a time, so this lock is never waited on; it lets each sweep's
    // future own its share of the state.
    let state = Arc::new(tokio::sync::Mutex::new(SweepState::default()));
    let started = std::sync::atomic::AtomicBool::new(false);
    let started = Arc::new(started);
    crate::schedule::every(every, shutdown, move || {
        let (github, state, outcomes) = (github.clone(), state.clone(), outcomes.clone());
        // The first sweep asks at once about every 202 delivery not found: this process
        // holds none, and whatever a process that stopped held is lost. Later ones leave
        // a delivery two sweeps to show its outcome, as another replica may be at work on it.
        let first = !started.swap(true, std::sync::atomic::Ordering::SeqCst);
        let grace = if first { Duration::ZERO } else { every * 2 };
        async move {
            let api = github.app_api(None);
            let mut state = state.lock().await;
            let wait = |d: &HookDelivery| {
                d.installation_id
                    .is_some_and(|i| github.writes_paused(i).is_some())
            };
            let queued = outcomes
                .as_deref()
                .map(|outcomes| QueuedAsks { outcomes, grace });
            log(sweep_all(&api, &mut state, Utc::now(), &wait, queued).await);
        }
    })
}

fn log(outcome: Result<SweepReport, GitHubError>) {
    match outcome {
        Ok(r) if r.asked.is_empty() && r.refused.is_empty() && r.waiting == 0 => {
            tracing::debug!(
                listed = r.listed,
                pages = r.pages,
                queued_found = r.queued_found,
                "redelivery sweep: nothing to ask for"
            );
        }
        Ok(r) => {
            tracing::info!(listed = r.listed, asked = ?r.asked, queued_lost = ?r.queued_lost, refused = ?r.refused, waiting = r.waiting, "redelivery sweep");
        }
        Err(e) => tracing::warn!(error = %e, "redelivery sweep failed"),
    }
}
