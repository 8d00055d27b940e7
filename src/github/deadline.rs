//! The time a delivery has. GitHub counts a delivery whose answer comes later than 10 s as
//! failed, so every call made while handling one shares a deadline derived from that
//! window: a call is not started past it, an attempt is cut off at it, and a retry that
//! would wait beyond it is not made. The delivery is then answered 5xx before GitHub gives
//! up, with nothing half-written, and the redelivery carries it out.

use std::time::Duration;

use tokio::time::Instant;

/// GitHub's window for answering a delivery (30 s on Enterprise Server; the shorter one is
/// kept everywhere).
pub(crate) const WINDOW: Duration = Duration::from_secs(10);
/// The work of a delivery ends by then; what is left of the window gives a claim back
/// ([`Deadline::for_cleanup`]) and carries the answer to GitHub.
pub(crate) const WORK: Duration = Duration::from_secs(8);
/// The time a delivery carried out by its installation's queue has, from when its turn
/// came: GitHub's window is over (it was answered `202`), so this only bounds a handling
/// that GitHub keeps waiting.
pub(crate) const QUEUED_WORK: Duration = Duration::from_secs(60);
/// How long after [`WORK`] a claim may still be given back.
pub(crate) const CLEANUP: Duration = Duration::from_millis(900);

/// When the calls of one delivery must have ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deadline(Instant);

impl Deadline {
    /// The deadline of a delivery received at `received`.
    #[must_use]
    pub(crate) fn of_delivery(received: Instant) -> Self {
        Self(received + WORK)
    }

    /// The deadline of a queued delivery whose turn came at `now`.
    #[must_use]
    pub(crate) fn of_queued(now: Instant) -> Self {
        Self(now + QUEUED_WORK)
    }

    #[cfg(test)]
    #[must_use]
    pub(crate) fn at(instant: Instant) -> Self {
        Self(instant)
    }

    #[must_use]
    pub(crate) fn instant(self) -> Instant {
        self.0
    }

    /// What is left; zero once passed.
    #[must_use]
    pub(crate) fn remaining(self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    #[must_use]
    pub(crate) fn passed(self) -> bool {
        Instant::now() >= self.0
    }

    /// Whether `work` still fits before the deadline.
    #[must_use]
    pub(crate) fn allows(self, work: Duration) -> bool {
        Instant::now() + work <= self.0
    }

    /// The deadline of the calls that undo what a failed handling began (a claim given
    /// back): a little later, still inside GitHub's window.
    #[must_use]
    pub(crate) fn for_cleanup(self) -> Self {
        Self(self.0 + CLEANUP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_counts_from_the_delivery_and_leaves_room_to_answer() {
        let received = Instant::now();
        let d = Deadline::of_delivery(received);
        assert!(d.allows(Duration::from_secs(7)));
        assert!(!d.allows(Duration::from_secs(9)));
        assert!(d.for_cleanup().instant() < received + WINDOW);
        let late = Deadline::of_delivery(received - WORK);
        assert!(late.passed());
        assert_eq!(late.remaining(), Duration::ZERO);
        assert!(!late.for_cleanup().passed());
    }
}
