//! The write governor: one per GitHub identity (an installation, the App itself), shared
//! by every delivery and sweep of the process. GitHub limits what one identity may create
//! (about 80 content-creating requests a minute and 500 an hour; every non-GET REST call
//! and GraphQL mutation counts) and warns that requests sent while limited may get an
//! integration banned. So writes go at most one per `gap` on average (GitHub suggests a
//! second), with a small burst allowed: a quiet command's few writes go at once, a backlog
//! goes at the pace (the generic cell rate algorithm: each write takes the next slot of a
//! schedule that lets [`BURST`] slots be taken early), and never more than [`BURST`] are on
//! the way at once, so that when GitHub refuses one, at most `BURST - 1` others were sent
//! before the app could know. None goes while GitHub has said to
//! wait: the governor learns that from every rate-limited answer (`retry-after`,
//! `x-ratelimit-reset`, else a minute, doubled for each limit in a row) and from
//! `x-ratelimit-remaining: 0`. Reads are not held up.
//!
//! A write that could only go after its delivery's deadline is not queued at all: the
//! caller gets [`Deferred`] at once, and the delivery joins its installation's queue with
//! nothing half-written (`server/queue.rs`), carried out once its turn comes.
//!
//! A command books its writes before the first ([`Governor::book`]): writes of commands
//! admitted earlier but not yet sent count against later ones, so a burst admits what fits
//! and defers the rest at once, instead of letting every command in and having each miss
//! its window behind the others' later writes.

use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;

use crate::github::deadline::Deadline;
use crate::metrics::Metrics;

/// The time a write keeps for GitHub's answer before its delivery's deadline: a slot later
/// than that is deferred, not taken.
pub(crate) const ANSWER_ROOM: Duration = Duration::from_secs(1);

/// Writes that may go at once after a quiet spell: a command's own (its claim, its records
/// commit, its views). Sustained, the pace stays one per gap, so a second of gap keeps an
/// identity under GitHub's 80 a minute whatever the bursts.
pub(crate) const BURST: u32 = 3;

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
    /// The schedule's next slot when no burst is left (the theoretical arrival time of
    /// the cell rate algorithm); `None` before the first write.
    next: Option<Instant>,
    /// Writes booked by admitted commands and not yet asked for.
    booked: u32,
}

pub(crate) struct Governor {
    gap: Duration,
    state: Mutex<State>,
    /// At most [`BURST`] writes on the way.
    on_the_way: Semaphore,
    metrics: Metrics,
}

/// A write on the way; dropped when its answer came.
pub(crate) struct Permit<'a> {
    _on_the_way: SemaphorePermit<'a>,
}

impl Governor {
    #[must_use]
    pub(crate) fn new(gap: Duration, metrics: Metrics) -> Self {
        Self {
            gap,
            state: Mutex::new(State::default()),
            on_the_way: Semaphore::new(BURST as usize),
            metrics,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// How early a slot may be taken: the burst.
    fn tolerance(&self) -> Duration {
        self.gap * (BURST - 1)
    }

    /// When the write `ahead` writes after the next one could go, were nothing else asked.
    fn slot_after(&self, state: &State, now: Instant, ahead: u32) -> Instant {
        let next = state.next.map_or(now, |n| n.max(now));
        let paced = (next + self.gap * ahead)
            .checked_sub(self.tolerance())
            .unwrap_or(now);
        [Some(now), Some(paced), state.resume]
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

    /// Whether `writes` more writes, behind those booked and `ahead` more (a queue's), could
    /// all go before `deadline`.
    #[must_use]
    pub(crate) fn fits(&self, writes: u32, ahead: u32, deadline: Option<Deadline>) -> bool {
        let Some(deadline) = deadline else {
            return true;
        };
        let state = self.state();
        self.fits_in(&state, writes + ahead, deadline)
    }

    fn fits_in(&self, state: &State, writes: u32, deadline: Deadline) -> bool {
        let ahead = state.booked + writes.saturating_sub(1);
        self.slot_after(state, Instant::now(), ahead) <= deadline.instant()
    }

    /// Books `writes` writes when they fit before `deadline` behind everything booked and
    /// `ahead` more writes; `false`, booking nothing, when they do not.
    pub(crate) fn book(&self, writes: u32, ahead: u32, deadline: Option<Deadline>) -> bool {
        let mut state = self.state();
        if deadline.is_some_and(|d| !self.fits_in(&state, writes + ahead, d)) {
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

    /// Takes the next slot for one write and waits for it: spaced, never more than
    /// [`BURST`] on the way, and never while GitHub said to wait.
    ///
    /// # Errors
    ///
    /// [`Deferred`] when the slot could only come after `deadline`, less the room a write
    /// needs for its answer ([`ANSWER_ROOM`]): nothing is sent, and no slot is taken. A
    /// write sent at the deadline could only fail, and a delivery answered 5xx for our own
    /// pace is one GitHub has to send again, where a queued one is carried out.
    pub(crate) async fn acquire(&self, deadline: Option<Deadline>) -> Result<Permit<'_>, Deferred> {
        let started = Instant::now();
        let deadline = deadline.map(|d| {
            let at = d.instant();
            at.checked_sub(ANSWER_ROOM).unwrap_or(at)
        });
        let on_the_way = match deadline {
            Some(d) => tokio::time::timeout_at(d, self.on_the_way.acquire()).await,
            None => Ok(self.on_the_way.acquire().await),
        };
        // The semaphore is never closed.
        let Ok(Ok(on_the_way)) = on_the_way else {
            return Err(self.deferred(Duration::ZERO));
        };
        let at = {
            let now = Instant::now();
            let mut state = self.state();
            let at = self.slot_after(&state, now, 0);
            if deadline.is_some_and(|d| at > d) {
                drop(state);
                return Err(self.deferred(at - now));
            }
            state.next = Some(state.next.map_or(at, |n| n.max(at)) + self.gap);
            at
        };
        tokio::time::sleep_until(at).await;
        self.metrics.write_waited(started.elapsed().as_secs_f64());
        Ok(Permit {
            _on_the_way: on_the_way,
        })
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

    #[tokio::test(start_paused = true)]
    async fn a_burst_goes_at_once_then_writes_are_spaced() {
        let g = governor(1000);
        let started = Instant::now();
        for _ in 0..BURST {
            g.acquire(None).await.unwrap();
        }
        assert_eq!(
            started.elapsed(),
            Duration::ZERO,
            "a quiet burst waits for nothing"
        );
        g.acquire(None).await.unwrap();
        g.acquire(None).await.unwrap();
        assert_eq!(started.elapsed(), Duration::from_secs(2), "then one a gap");
        // A quiet spell as long as the burst gives the burst back, and no more.
        tokio::time::sleep(Duration::from_secs(10)).await;
        let quiet = Instant::now();
        for _ in 0..=BURST {
            g.acquire(None).await.unwrap();
        }
        assert_eq!(quiet.elapsed(), Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn a_slot_that_leaves_no_room_for_the_answer_is_deferred() {
        let g = governor(1000);
        for _ in 0..BURST {
            g.acquire(None).await.unwrap();
        }
        // The next slot is a second away, exactly at the deadline: the write could only be
        // cut off there, so it is deferred and the delivery queued.
        assert!(g.acquire(within(1)).await.is_err());
        assert!(g.acquire(within(3)).await.is_ok(), "with room it goes");
    }

    #[tokio::test(start_paused = true)]
    async fn sustained_writes_keep_the_pace_whatever_the_bursts() {
        let g = governor(1000);
        let started = Instant::now();
        for _ in 0..63 {
            g.acquire(None).await.unwrap();
        }
        // 63 writes: the burst of 3, then 60 at one a second.
        assert_eq!(started.elapsed(), Duration::from_secs(60));
    }

    #[tokio::test(start_paused = true)]
    async fn no_more_than_the_burst_is_on_the_way() {
        let g = governor(0);
        let mut on_the_way = Vec::new();
        for _ in 0..BURST {
            on_the_way.push(g.acquire(None).await.unwrap());
        }
        let next = tokio::time::timeout(Duration::from_secs(5), g.acquire(None)).await;
        assert!(
            next.is_err(),
            "a fourth write went while three were on the way"
        );
        on_the_way.pop();
        assert!(
            g.acquire(within(1)).await.is_ok(),
            "one answered, one more goes"
        );
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
        assert!(!g.fits(1, 0, within(8)));
        assert!(g.paused_for().is_some());
        // A shorter wait within the deadline is waited out.
        let g = governor(0);
        g.learn(Limit {
            kind: LimitKind::Secondary,
            wait: Some(Duration::from_millis(300)),
        });
        let asked = Instant::now();
        g.acquire(within(8)).await.unwrap();
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
    fn fits_counts_the_writes_booked_and_those_ahead() {
        let g = governor(1000);
        // The burst and five more a second apart: the tenth write would go 7 s from now.
        assert!(g.fits(3, 0, within(8)));
        assert!(g.fits(10, 0, within(8)));
        assert!(!g.fits(11, 0, within(8)));
        assert!(!g.fits(3, 8, within(8)), "a queue's writes come first");
        g.state().booked = 8;
        assert!(!g.fits(3, 0, within(8)));
        assert!(g.fits(30, 0, None));
    }

    #[test]
    fn booked_writes_count_against_later_commands_until_given_back() {
        let g = governor(1000);
        assert!(g.book(3, 0, within(8)));
        assert!(g.book(3, 0, within(8)));
        assert!(g.book(3, 0, within(8)));
        // 9 booked: three more would end 9 s from now, past the deadline.
        assert!(!g.book(3, 0, within(8)));
        assert!(!g.fits(3, 0, within(8)));
        g.unbook(3);
        assert!(g.book(3, 0, within(8)));
        assert_eq!(g.state().booked, 9);
    }
}
