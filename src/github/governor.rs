//! The write governor: one per GitHub identity (an installation, the App itself), shared
//! by every delivery and sweep of the process. GitHub limits what one identity may create
//! (about 80 content-creating requests a minute and 500 an hour; every non-GET REST call
//! and GraphQL mutation counts) and warns that requests sent while limited may get an
//! integration banned. So writes go one at a time, at least `gap` apart (GitHub suggests a
//! second), and none goes while GitHub has said to wait: the governor learns that from
//! every rate-limited answer (`retry-after`, `x-ratelimit-reset`, else a minute, doubled
//! for each limit in a row) and from `x-ratelimit-remaining: 0`. Reads are not held up.
//!
//! A write that could only go after its delivery's deadline is not queued at all: the
//! caller gets [`Deferred`] at once, the delivery is answered 5xx inside GitHub's window
//! with nothing half-written, and the redelivery carries it out once the wait is over.
//!
//! A command books its writes before the first ([`Governor::book`]): writes of commands
//! admitted earlier but not yet sent count against later ones, so a burst admits what fits
//! and defers the rest at once, instead of letting every command in and having each miss
//! its window behind the others' later writes.

use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{Mutex as Turn, MutexGuard};
use tokio::time::Instant;

use crate::github::deadline::Deadline;
use crate::metrics::Metrics;

/// The wait when GitHub names none: a minute (GitHub's guidance), doubled for each limit
/// in a row, up to an hour.
const FALLBACK: Duration = Duration::from_secs(60);
const LONGEST: Duration = Duration::from_secs(3600);

/// Why GitHub said to wait, for the metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitKind {
    /// A secondary (abuse) limit: 403 or 429 with GitHub's message or `retry-after`.
    Secondary,
    /// The primary hourly limit: `x-ratelimit-remaining: 0`.
    Primary,
}

impl LimitKind {
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            LimitKind::Secondary => "secondary",
            LimitKind::Primary => "primary",
        }
    }
}

/// What one rate-limited answer (or an exhausted primary limit) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limit {
    pub(crate) kind: LimitKind,
    /// How long GitHub asked for; `None` when it named no time (the fallback applies).
    pub(crate) wait: Option<Duration>,
}

/// A write that could not go before its deadline: GitHub said to wait `wait` more, or
/// the writes queued before it would take that long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deferred {
    pub(crate) wait: Duration,
}

#[derive(Debug, Default)]
struct State {
    /// No write before this: GitHub said wait.
    resume: Option<Instant>,
    /// Limits without a named wait in a row: each doubles the fallback.
    strikes: u32,
    /// When the last write was sent.
    last: Option<Instant>,
    /// Writes waiting for their turn.
    queued: u32,
    /// Writes booked by admitted commands and not yet asked for.
    booked: u32,
}

pub(crate) struct Governor {
    gap: Duration,
    state: Mutex<State>,
    /// At most one write in flight.
    turn: Turn<()>,
    metrics: Metrics,
}

/// The turn to send one write; dropped when its answer came.
pub(crate) struct Permit<'a> {
    _turn: MutexGuard<'a, ()>,
}

impl Governor {
    #[must_use]
    pub(crate) fn new(gap: Duration, metrics: Metrics) -> Self {
        Self {
            gap,
            state: Mutex::new(State::default()),
            turn: Turn::new(()),
            metrics,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The earliest moment a write could be sent, were it next in line.
    fn earliest(&self, state: &State, now: Instant) -> Instant {
        let spaced = state.last.map_or(now, |l| l + self.gap);
        [Some(now), Some(spaced), state.resume]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(now)
    }

    /// How long GitHub asked writes to wait from now, if it did.
    #[must_use]
    pub(crate) fn paused_for(&self) -> Option<Duration> {
        let state = self.state();
        let now = Instant::now();
        state.resume.filter(|r| *r > now).map(|r| r - now)
    }

    /// Whether `writes` more writes, behind those queued, could all go before `deadline`.
    #[must_use]
    pub(crate) fn fits(&self, writes: u32, deadline: Option<Deadline>) -> bool {
        let Some(deadline) = deadline else {
            return true;
        };
        let state = self.state();
        self.fits_in(&state, writes, deadline)
    }

    fn fits_in(&self, state: &State, writes: u32, deadline: Deadline) -> bool {
        let ahead = state.queued + state.booked + writes.saturating_sub(1);
        let last = self.earliest(state, Instant::now()) + self.gap * ahead;
        last <= deadline.instant()
    }

    /// Books `writes` writes when they fit before `deadline` behind everything queued and
    /// booked; `false`, booking nothing, when they do not.
    pub(crate) fn book(&self, writes: u32, deadline: Option<Deadline>) -> bool {
        let mut state = self.state();
        if deadline.is_some_and(|d| !self.fits_in(&state, writes, d)) {
            return false;
        }
        state.booked += writes;
        true
    }

    /// Gives back `writes` booked writes: asked for now, or never to be.
    pub(crate) fn unbook(&self, writes: u32) {
        let mut state = self.state();
        state.booked = state.booked.saturating_sub(writes);
    }

    /// Waits for the turn to send one write, spaced and never while GitHub said to wait.
    ///
    /// # Errors
    ///
    /// [`Deferred`] when the turn could only come after `deadline`: nothing is sent.
    pub(crate) async fn acquire(&self, deadline: Option<Deadline>) -> Result<Permit<'_>, Deferred> {
        let started = Instant::now();
        self.refuse_past(deadline, started)?;
        self.state().queued += 1;
        let turn = match deadline {
            Some(d) => tokio::time::timeout_at(d.instant(), self.turn.lock()).await,
            None => Ok(self.turn.lock().await),
        };
        self.state().queued -= 1;
        let Ok(turn) = turn else {
            return Err(self.deferred(Duration::ZERO));
        };
        let at = self.earliest(&self.state(), Instant::now());
        if deadline.is_some_and(|d| at > d.instant()) {
            return Err(self.deferred(at - Instant::now()));
        }
        tokio::time::sleep_until(at).await;
        self.state().last = Some(Instant::now());
        self.metrics.write_waited(started.elapsed().as_secs_f64());
        Ok(Permit { _turn: turn })
    }

    fn refuse_past(&self, deadline: Option<Deadline>, now: Instant) -> Result<(), Deferred> {
        let resume = self.state().resume;
        match (resume, deadline) {
            (Some(r), Some(d)) if r > d.instant() => Err(self.deferred(r - now)),
            _ => Ok(()),
        }
    }

    fn deferred(&self, wait: Duration) -> Deferred {
        self.metrics.rate_limited("deferred");
        Deferred { wait }
    }

    /// Learns from an answer that GitHub limited (any call, read or write).
    pub(crate) fn learn(&self, limit: Limit) {
        self.metrics.rate_limited(limit.kind.as_str());
        let mut state = self.state();
        let wait = if let Some(wait) = limit.wait {
            state.strikes = 0;
            wait
        } else {
            let wait = FALLBACK
                .saturating_mul(2u32.saturating_pow(state.strikes))
                .min(LONGEST);
            state.strikes = state.strikes.saturating_add(1);
            wait
        };
        let until = Instant::now() + wait.min(LONGEST);
        if state.resume.is_none_or(|r| r < until) {
            state.resume = Some(until);
        }
        tracing::warn!(
            kind = limit.kind.as_str(),
            wait_s = wait.as_secs(),
            "GitHub rate-limited this identity; writes wait"
        );
    }

    /// A write answered without a limit: the fallback starts again from a minute.
    pub(crate) fn answered(&self) {
        self.state().strikes = 0;
    }
}

/// A delivery's booked writes: each write it sends takes one; what is left when the last
/// clone of its client goes is given back.
#[derive(Default)]
pub(crate) struct Booking {
    pub(crate) governor: std::sync::Mutex<Option<std::sync::Arc<Governor>>>,
    pub(crate) left: std::sync::atomic::AtomicU32,
    pub(crate) booked: std::sync::atomic::AtomicBool,
}

impl Booking {
    /// Takes one booked write, if any is left.
    pub(crate) fn take(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.left
            .fetch_update(SeqCst, SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }
}

impl Drop for Booking {
    fn drop(&mut self) {
        let left = *self.left.get_mut();
        if let Some(g) = self.governor.get_mut().ok().and_then(Option::take) {
            g.unbook(left);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn governor(gap_ms: u64) -> Governor {
        Governor::new(Duration::from_millis(gap_ms), Metrics::new())
    }

    fn within(secs: u64) -> Option<Deadline> {
        let at = Instant::now().checked_add(Duration::from_secs(secs));
        at.map(Deadline::at)
    }

    #[tokio::test]
    async fn writes_are_spaced_and_one_at_a_time() {
        let g = governor(200);
        let started = Instant::now();
        drop(g.acquire(None).await.unwrap());
        drop(g.acquire(None).await.unwrap());
        drop(g.acquire(None).await.unwrap());
        assert!(started.elapsed() >= Duration::from_millis(400));
        // One in flight: a second waits for the first permit.
        let first = g.acquire(None).await.unwrap();
        let second = tokio::time::timeout(Duration::from_millis(300), g.acquire(None)).await;
        assert!(second.is_err(), "sent while another write was in flight");
        drop(first);
    }

    #[tokio::test]
    async fn nothing_goes_while_github_said_wait_and_what_cannot_fit_is_deferred_at_once() {
        let g = governor(0);
        g.learn(Limit {
            kind: LimitKind::Secondary,
            wait: Some(Duration::from_secs(60)),
        });
        let asked = Instant::now();
        let deferred = g.acquire(within(8)).await.err().unwrap();
        assert!(
            asked.elapsed() < Duration::from_millis(100),
            "deferred at once"
        );
        assert!(deferred.wait > Duration::from_secs(50), "{deferred:?}");
        assert!(!g.fits(1, within(8)));
        assert!(g.paused_for().is_some());
        // A shorter wait within the deadline is waited out.
        let g = governor(0);
        g.learn(Limit {
            kind: LimitKind::Secondary,
            wait: Some(Duration::from_millis(300)),
        });
        let asked = Instant::now();
        drop(g.acquire(within(8)).await.unwrap());
        assert!(asked.elapsed() >= Duration::from_millis(290));
    }

    #[test]
    fn without_a_named_wait_the_fallback_is_a_minute_doubled_each_time() {
        let g = governor(0);
        let limit = Limit {
            kind: LimitKind::Secondary,
            wait: None,
        };
        g.learn(limit);
        let first = g.paused_for().unwrap();
        assert!(first > Duration::from_secs(59) && first <= FALLBACK);
        g.learn(limit);
        assert!(g.paused_for().unwrap() > Duration::from_secs(119));
        g.answered();
        assert_eq!(g.state().strikes, 0);
    }

    #[test]
    fn fits_counts_the_writes_queued_before() {
        let g = governor(1000);
        assert!(g.fits(3, within(8)));
        assert!(!g.fits(10, within(8)));
        g.state().queued = 6;
        assert!(!g.fits(3, within(8)));
        assert!(g.fits(10, None));
    }

    #[test]
    fn booked_writes_count_against_later_commands_until_given_back() {
        let g = governor(1000);
        assert!(g.book(3, within(8)));
        assert!(g.book(3, within(8)));
        // 6 booked: three more would end 8 s from now, past the deadline.
        assert!(!g.book(3, within(8)));
        assert!(!g.fits(3, within(8)));
        g.unbook(3);
        assert!(g.book(3, within(8)));
        assert_eq!(g.state().booked, 6);
    }
}
