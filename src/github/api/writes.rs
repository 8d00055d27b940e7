//! The client's side of the write governor: booking a command's writes before the
//! first, and teaching the governor what each answer says of GitHub's limits.

use std::sync::atomic::Ordering::SeqCst;

use super::{header, now_epoch, Api, ApiResponse};

impl Api {
    /// Whether `writes` more writes could all be sent before this client's deadline.
    #[must_use]
    pub(crate) fn writes_fit(&self, writes: u32) -> bool {
        self.governor
            .as_ref()
            .is_none_or(|g| g.fits(writes, self.ahead, self.deadline))
    }

    /// Books `writes` writes of this delivery with the governor (once booked, later calls
    /// answer `true`): `false` when they could not all go before the deadline behind the
    /// writes queued and booked, and then the command should not begin.
    #[must_use]
    pub(crate) fn book_writes(&self, writes: u32) -> bool {
        if self.booking.booked.load(SeqCst) {
            return true;
        }
        let booked = self.book_more_writes(writes);
        self.booking.booked.store(booked, SeqCst);
        booked
    }

    /// Makes sure at least `writes` writes are booked and not yet sent, booking the
    /// shortfall: `false`, booking nothing, when it does not fit before the deadline.
    #[must_use]
    pub(crate) fn ensure_booked(&self, writes: u32) -> bool {
        let left = self.booking.left.load(SeqCst);
        writes <= left || self.book_more_writes(writes - left)
    }

    /// Books `writes` more writes beyond those booked (a records branch's first commit
    /// takes three where a later one takes one): `false`, booking nothing, when they do
    /// not fit before the deadline.
    #[must_use]
    pub(crate) fn book_more_writes(&self, writes: u32) -> bool {
        let Some(g) = &self.governor else {
            return true;
        };
        if !g.book(writes, self.ahead, self.deadline) {
            return false;
        }
        self.booking.left.fetch_add(writes, SeqCst);
        if let Ok(mut slot) = self.booking.governor.lock() {
            *slot = Some(g.clone());
        }
        true
    }

    /// Tells the governor of a limit met outside an HTTP status (GraphQL's `RATE_LIMITED`).
    pub(crate) fn learn_limit(&self, limit: crate::github::governor::Limit) {
        if let Some(g) = &self.governor {
            g.learn(limit);
        }
    }

    /// Tells the governor what `r` says of GitHub's limits: a limit met, an exhausted
    /// primary limit, or a write answered without one.
    pub(super) fn learn(&self, r: &ApiResponse, write: bool) {
        let Some(governor) = &self.governor else {
            return;
        };
        let h = |name| header(&r.headers, name);
        let now = now_epoch();
        let limit = crate::github::retry::limit_of(
            r.status,
            h("retry-after"),
            h("x-ratelimit-remaining"),
            h("x-ratelimit-reset"),
            &r.body,
            now,
        );
        match limit {
            Some(limit) => governor.learn(limit),
            None if h("x-ratelimit-remaining").map(str::trim) == Some("0") => {
                governor.learn(crate::github::retry::primary_until(
                    h("x-ratelimit-reset"),
                    now,
                ));
            }
            None if write && r.is_success() => governor.answered(),
            None => {}
        }
    }
}
