//! The order deliveries are carried out in, and the installation queues.
//!
//! Every delivery takes a place in its pull request's lane (`WebhookEvent::serial_key`) and is
//! handled once it is at the front: the deliveries of one pull request in the order they
//! arrived, those of different pull requests side by side. A delivery that does not change
//! what later ones depend on (`Ordering::Free`: `status`, `help`) has a lane of its own.
//!
//! A delivery is carried out before its answer when it can be: `200`. When it cannot, it
//! is answered `202` at once and queued, keeping its place in its lane: when it waited too
//! long for its lane's front, or when its writes could not go before GitHub's window closes
//! (the handler says [`HandlerError::Deferred`]: the installation's writes go at GitHub's
//! pace, and others are ahead, or GitHub said to wait). One worker per installation then
//! carries out its queued deliveries, oldest first, each once it is at its lane's front,
//! at the write governor's pace. A GitHub failure is not queued: it is a `5xx`, and the
//! redelivery sweep asks for it again. A queued delivery that GitHub fails is tried
//! [`QUEUE_ATTEMPTS`] times, then left to the sweep, which finds it among the `202`
//! deliveries whose outcome is not on GitHub (`redeliver.rs`), as it finds those a process
//! lost when it stopped.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;

use crate::delivery::{Delivery, Handled, Handler, HandlerError, Ordering, Pace};
use crate::ids::DeliveryId;
use crate::metrics::Metrics;
use crate::server::deliveries::HandledDeliveries;
use crate::server::lanes::{Stage, Ticket, Tickets};

/// How long a delivery waits for the deliveries of its pull request before it is queued
/// instead: long enough for one command ahead of it to finish, short enough to leave its
/// own handling most of GitHub's window.
pub(crate) const LANE_WAIT: Duration = Duration::from_secs(3);
/// How long before GitHub's window closes an inline handling still at work is cut off.
const BACKSTOP_MARGIN: Duration = Duration::from_millis(400);
/// Attempts a queued delivery gets when GitHub fails it, before it is left to the sweep.
pub(crate) const QUEUE_ATTEMPTS: u32 = 3;

/// How a delivery was answered.
#[derive(Debug)]
pub(crate) enum Answer {
    Done(Handled),
    /// Handled already (the same id, carried out by this process).
    Duplicate,
    /// Queued: carried out after the answer.
    Queued,
    Failed(HandlerError),
}

/// The process's deliveries in their lanes and queues. Cloned handles share one queue.
#[derive(Clone)]
pub(crate) struct Queue {
    shared: Arc<Shared>,
}

struct Shared {
    tickets: Mutex<Tickets>,
    /// Bumped on every change, so that waiters look again.
    changed: watch::Sender<u64>,
    handler: Arc<dyn Handler>,
    metrics: Metrics,
    handled: HandledDeliveries,
}

impl Queue {
    pub(crate) fn new(handler: Arc<dyn Handler>, metrics: Metrics) -> Self {
        Self {
            shared: Arc::new(Shared {
                tickets: Mutex::new(Tickets::default()),
                changed: watch::channel(0).0,
                handler,
                metrics,
                handled: HandledDeliveries::new(10_000),
            }),
        }
    }

    fn tickets(&self) -> std::sync::MutexGuard<'_, Tickets> {
        self.shared
            .tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn bump(&self) {
        self.shared.changed.send_modify(|v| *v = v.wrapping_add(1));
    }

    /// Whether this process holds `id`: handled already, or waiting, running or queued.
    pub(crate) fn knows(&self, id: &DeliveryId) -> bool {
        self.shared.handled.contains(id) || self.tickets().holds(id)
    }

    /// Stops every worker: what they held queued is lost with them, as with a process that
    /// stops (the redelivery sweep finds it again).
    pub(crate) fn stop(&self) {
        let mut tickets = self.tickets();
        for (_, worker) in tickets.workers.drain() {
            worker.abort();
        }
    }

    /// Takes `delivery`'s place in its lane, and carries it out before the answer when it
    /// can; else queues it.
    pub(crate) async fn submit(&self, mut delivery: Delivery) -> Answer {
        let shared = &self.shared;
        if shared.handled.contains(&delivery.id) {
            return Answer::Duplicate;
        }
        let pr_lane = delivery.event.serial_key();
        let ordering = shared.handler.ordering(&delivery);
        let lane = match ordering {
            Ordering::InOrder => pr_lane.clone(),
            Ordering::Free => format!("{pr_lane}~{}", delivery.id.as_str_lossy()),
        };
        let installation = delivery.event.installation_id();
        let mut seen = shared.changed.subscribe();
        let seq = {
            let mut tickets = self.tickets();
            // A copy of a delivery this process queued already: its queue carries it out.
            let queued = tickets
                .all
                .values()
                .any(|t| t.delivery.id == delivery.id && t.stage == Stage::Queued);
            if queued {
                return Answer::Queued;
            }
            let seq = tickets.next;
            tickets.next += 1;
            tickets.all.insert(
                seq,
                Ticket {
                    delivery: delivery.clone(),
                    lane: lane.clone(),
                    pr_lane,
                    installation,
                    stage: Stage::Waiting,
                    queued_at: None,
                    failures: 0,
                },
            );
            tickets
                .lanes
                .entry(lane.clone())
                .or_default()
                .push_back(seq);
            seq
        };
        let until = delivery.received + LANE_WAIT;
        loop {
            {
                let mut tickets = self.tickets();
                if tickets.front(&lane) == Some(seq) {
                    delivery.pace = Pace {
                        queued: false,
                        writes_ahead: match ordering {
                            Ordering::InOrder => tickets.writes_queued(installation),
                            Ordering::Free => 0,
                        },
                        pr_ahead: tickets.pr_ahead(seq),
                    };
                    if let Some(t) = tickets.all.get_mut(&seq) {
                        t.stage = Stage::Running;
                    }
                    break;
                }
            }
            if tokio::time::timeout_at(until, seen.changed())
                .await
                .is_err()
            {
                let mut tickets = self.tickets();
                if tickets.front(&lane) != Some(seq) {
                    self.queue(&mut tickets, seq);
                    drop(tickets);
                    self.bump();
                    return Answer::Queued;
                }
            }
        }
        if shared.handled.contains(&delivery.id) {
            self.tickets().remove(seq);
            self.bump();
            return Answer::Duplicate;
        }
        let window = delivery.received + crate::github::deadline::WINDOW - BACKSTOP_MARGIN;
        let result = match tokio::time::timeout_at(window, shared.handler.handle(&delivery)).await {
            Ok(result) => result,
            Err(_) => Err(HandlerError::GitHub(
                "the handling did not finish within GitHub's window".to_owned(),
            )),
        };
        let mut tickets = self.tickets();
        let answer = match result {
            Ok(handled) => {
                tickets.remove(seq);
                shared.handled.mark(delivery.id.clone());
                Answer::Done(handled)
            }
            Err(HandlerError::Deferred { .. }) if installation.is_some() => {
                self.queue(&mut tickets, seq);
                Answer::Queued
            }
            Err(e) => {
                tickets.remove(seq);
                Answer::Failed(e)
            }
        };
        drop(tickets);
        self.bump();
        answer
    }

    /// Marks `seq` queued and makes sure its installation's worker runs.
    fn queue(&self, tickets: &mut Tickets, seq: u64) {
        let Some(ticket) = tickets.all.get_mut(&seq) else {
            return;
        };
        ticket.stage = Stage::Queued;
        ticket.queued_at.get_or_insert_with(SystemTime::now);
        let Some(installation) = ticket.installation else {
            return;
        };
        self.gauges(tickets, installation);
        let running = tickets
            .workers
            .get(&installation)
            .is_some_and(|w| !w.is_finished());
        if !running {
            let queue = self.clone();
            let worker = tokio::spawn(async move { queue.work(installation).await });
            tickets.workers.insert(installation, worker);
        }
    }

    fn gauges(&self, tickets: &Tickets, installation: u64) {
        let of = || {
            tickets
                .all
                .values()
                .filter(move |t| t.installation == Some(installation) && t.queued_at.is_some())
        };
        let depth = of().count();
        let oldest = of()
            .filter_map(|t| t.queued_at)
            .min()
            .and_then(|at| at.duration_since(SystemTime::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        self.shared.metrics.queue(
            installation,
            i64::try_from(depth).unwrap_or(i64::MAX),
            oldest,
        );
    }

    /// Carries out `installation`'s queued deliveries, oldest first, each once it is at its
    /// lane's front, until none is left.
    async fn work(self, installation: u64) {
        let shared = &self.shared;
        let mut seen = shared.changed.subscribe();
        loop {
            let picked = {
                let mut tickets = self.tickets();
                match tickets.next_queued(installation) {
                    Some(seq) => {
                        let pr_ahead = tickets.pr_ahead(seq);
                        let ticket = tickets.all.get_mut(&seq);
                        ticket.map(|t| {
                            t.stage = Stage::Running;
                            let mut delivery = t.delivery.clone();
                            delivery.pace = Pace {
                                queued: true,
                                writes_ahead: 0,
                                pr_ahead,
                            };
                            (seq, delivery)
                        })
                    }
                    None if !tickets.any_queued(installation) => {
                        tickets.workers.remove(&installation);
                        self.gauges(&tickets, installation);
                        return;
                    }
                    None => None,
                }
            };
            let Some((seq, delivery)) = picked else {
                // Its queued deliveries wait behind deliveries handled inline.
                let _ = tokio::time::timeout(Duration::from_secs(1), seen.changed()).await;
                continue;
            };
            // A copy of it carried out meanwhile (a redelivery handled before its answer).
            if shared.handled.contains(&delivery.id) {
                let mut tickets = self.tickets();
                tickets.remove(seq);
                self.gauges(&tickets, installation);
                drop(tickets);
                self.bump();
                continue;
            }
            let result = shared.handler.handle(&delivery).await;
            let pause = self.after(installation, seq, &delivery, result);
            self.bump();
            if let Some(pause) = pause {
                tokio::time::sleep(pause).await;
            }
        }
    }

    /// Settles a queued delivery's handling; the pause before the worker goes on.
    fn after(
        &self,
        installation: u64,
        seq: u64,
        delivery: &Delivery,
        result: Result<Handled, HandlerError>,
    ) -> Option<Duration> {
        let shared = &self.shared;
        let mut tickets = self.tickets();
        let pause = match result {
            Ok(handled) => {
                let waited = tickets
                    .remove(seq)
                    .and_then(|t| t.queued_at)
                    .and_then(|at| at.elapsed().ok())
                    .unwrap_or_default();
                shared.handled.mark(delivery.id.clone());
                shared.metrics.queue_waited(waited.as_secs_f64());
                shared
                    .metrics
                    .delivery(delivery.event.name(), handled.as_str());
                tracing::info!(id = %delivery.id, waited_s = waited.as_secs(), "queued delivery carried out");
                None
            }
            Err(HandlerError::Deferred { wait }) => {
                if let Some(t) = tickets.all.get_mut(&seq) {
                    t.stage = Stage::Queued;
                }
                Some(wait.clamp(Duration::from_millis(500), Duration::from_secs(60)))
            }
            Err(e) => {
                let failures = tickets.all.get_mut(&seq).map_or(QUEUE_ATTEMPTS, |t| {
                    t.failures += 1;
                    t.stage = Stage::Queued;
                    t.failures
                });
                if failures >= QUEUE_ATTEMPTS {
                    tickets.remove(seq);
                    shared.metrics.delivery(delivery.event.name(), "given_up");
                    tracing::error!(id = %delivery.id, error = %e, "a queued delivery failed {QUEUE_ATTEMPTS} times; left to the redelivery sweep");
                    None
                } else {
                    tracing::warn!(id = %delivery.id, error = %e, "a queued delivery failed; trying again");
                    Some(Duration::from_secs(u64::from(failures) * 2))
                }
            }
        };
        self.gauges(&tickets, installation);
        pause
    }
}
