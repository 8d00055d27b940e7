//! The lanes deliveries wait in: one per pull request (or per delivery, for one that keeps
//! no order), each ticket in the order it arrived, and what stage each has reached. Data
//! only: `queue.rs` moves tickets through it.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::SystemTime;

use tokio::task::JoinHandle;

use crate::delivery::Delivery;
use crate::ids::DeliveryId;

/// Writes a queued command takes (its outcome claim, its records commit, its views): what
/// a delivery handled inline counts before its own.
pub(crate) const WRITES_PER_DELIVERY: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Waiting for its lane's front, to be handled before its answer.
    Waiting,
    /// Being handled (inline, or by its installation's worker).
    Running,
    /// Answered `202`; its installation's worker carries it out.
    Queued,
}

pub(crate) struct Ticket {
    pub(crate) delivery: Delivery,
    pub(crate) lane: String,
    /// Its pull request's ordered lane (the same as `lane` unless it is free).
    pub(crate) pr_lane: String,
    pub(crate) installation: Option<u64>,
    pub(crate) stage: Stage,
    pub(crate) queued_at: Option<SystemTime>,
    pub(crate) failures: u32,
}

#[derive(Default)]
pub(crate) struct Tickets {
    pub(crate) next: u64,
    pub(crate) all: BTreeMap<u64, Ticket>,
    pub(crate) lanes: HashMap<String, VecDeque<u64>>,
    pub(crate) workers: HashMap<u64, JoinHandle<()>>,
}

impl Tickets {
    pub(crate) fn front(&self, lane: &str) -> Option<u64> {
        self.lanes.get(lane).and_then(|l| l.front().copied())
    }

    pub(crate) fn remove(&mut self, seq: u64) -> Option<Ticket> {
        let ticket = self.all.remove(&seq)?;
        if let Some(lane) = self.lanes.get_mut(&ticket.lane) {
            lane.retain(|s| *s != seq);
            if lane.is_empty() {
                self.lanes.remove(&ticket.lane);
            }
        }
        Some(ticket)
    }

    /// Writes of `installation`'s queued deliveries.
    pub(crate) fn writes_queued(&self, installation: Option<u64>) -> u32 {
        let queued = self
            .all
            .values()
            .filter(|t| t.stage == Stage::Queued && t.installation == installation)
            .count();
        u32::try_from(queued)
            .unwrap_or(u32::MAX)
            .saturating_mul(WRITES_PER_DELIVERY)
    }

    /// Deliveries of `seq`'s pull request that came before it and are not carried out.
    pub(crate) fn pr_ahead(&self, seq: u64) -> u32 {
        let Some(ticket) = self.all.get(&seq) else {
            return 0;
        };
        let ahead = self
            .lanes
            .get(&ticket.pr_lane)
            .map_or(0, |lane| lane.iter().filter(|s| **s < seq).count());
        u32::try_from(ahead).unwrap_or(u32::MAX)
    }

    /// The oldest queued delivery of `installation` at its lane's front.
    pub(crate) fn next_queued(&self, installation: u64) -> Option<u64> {
        self.all
            .iter()
            .filter(|(_, t)| t.stage == Stage::Queued && t.installation == Some(installation))
            .map(|(seq, t)| (*seq, t))
            .find(|(seq, t)| self.front(&t.lane) == Some(*seq))
            .map(|(seq, _)| seq)
    }

    pub(crate) fn any_queued(&self, installation: u64) -> bool {
        self.all
            .values()
            .any(|t| t.stage == Stage::Queued && t.installation == Some(installation))
    }

    pub(crate) fn holds(&self, id: &DeliveryId) -> bool {
        self.all.values().any(|t| t.delivery.id == *id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivery(id: &str) -> Delivery {
        let event = crate::events::WebhookEvent::parse("ping", b"{}").unwrap();
        Delivery {
            id: DeliveryId(id.to_owned()),
            event,
            received: tokio::time::Instant::now(),
            pace: crate::delivery::Pace::default(),
        }
    }

    fn push(t: &mut Tickets, id: &str, lane: &str, pr_lane: &str, stage: Stage) -> u64 {
        let seq = t.next;
        t.next += 1;
        t.all.insert(
            seq,
            Ticket {
                delivery: delivery(id),
                lane: lane.to_owned(),
                pr_lane: pr_lane.to_owned(),
                installation: Some(7),
                stage,
                queued_at: None,
                failures: 0,
            },
        );
        t.lanes.entry(lane.to_owned()).or_default().push_back(seq);
        seq
    }

    #[tokio::test]
    async fn a_queued_ticket_goes_only_from_its_lanes_front_and_later_ones_count_what_is_ahead() {
        let mut t = Tickets::default();
        let a = push(&mut t, "a", "pr#1", "pr#1", Stage::Running);
        let b = push(&mut t, "b", "pr#1", "pr#1", Stage::Queued);
        let c = push(&mut t, "c", "pr#2", "pr#2", Stage::Queued);
        let status = push(&mut t, "s", "pr#1~s", "pr#1", Stage::Waiting);
        // `b` waits behind `a`, running inline; `c` is the oldest at its lane's front.
        assert_eq!(t.next_queued(7), Some(c));
        assert_eq!(t.writes_queued(Some(7)), 2 * WRITES_PER_DELIVERY);
        assert_eq!(t.pr_ahead(status), 2, "a and b came before the status");
        assert_eq!(t.pr_ahead(b), 1);
        t.remove(a);
        assert_eq!(t.front("pr#1"), Some(b));
        assert_eq!(t.next_queued(7), Some(b), "oldest first once at its front");
        assert!(t.holds(&DeliveryId("c".into())));
        t.remove(b);
        t.remove(c);
        assert!(!t.any_queued(7));
        assert!(!t.lanes.contains_key("pr#1"), "an empty lane is dropped");
    }
}
