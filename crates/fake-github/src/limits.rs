//! GitHub's secondary rate limit on one identity's writes, scaled down: at most `per`
//! writes in any `window`; past that, 403 "You have exceeded a secondary rate limit" with
//! `retry-after`, and no write is carried out until that time is over. A write sent before
//! it is over is a violation (GitHub warns that it may ban the integration): the run that
//! plays the limit reads them. A client that sends a few writes together (a burst) may have
//! them on the way when the first is refused: `in_flight` of them, after each refusal that
//! starts a wait, are counted as such rather than as violations, since the client could
//! not have known.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::Reply;

#[derive(Debug)]
pub struct WriteLimit {
    pub per: usize,
    pub window: Duration,
    /// The wait GitHub names once the limit is met; `None`: until the oldest write in the
    /// window leaves it.
    pub retry_after: Option<Duration>,
    sent: VecDeque<Instant>,
    until: Option<Instant>,
    /// Writes sent while limited, as their caller named them (`METHOD path`).
    pub violations: Vec<String>,
    /// Writes answered 403.
    pub limited: usize,
    /// Writes a client may have on the way when a wait starts (see the module docs).
    pub in_flight: usize,
    /// Of the writes sent while limited, those counted as on the way.
    pub on_the_way: usize,
    /// Writes of the current wait counted as on the way so far.
    this_wait: usize,
}

impl WriteLimit {
    #[must_use]
    pub fn new(per: usize, window: Duration, retry_after: Option<Duration>) -> Self {
        Self {
            per,
            window,
            retry_after,
            sent: VecDeque::new(),
            until: None,
            violations: Vec::new(),
            limited: 0,
            in_flight: 0,
            on_the_way: 0,
            this_wait: 0,
        }
    }

    /// This limit, counting `n` writes after each refusal as on the way (a client's burst).
    #[must_use]
    pub fn with_in_flight(mut self, n: usize) -> Self {
        self.in_flight = n;
        self
    }

    /// GitHub's answer to the write `what` at `now`, when it refuses it; `None`: the write
    /// is carried out (and counted).
    pub fn refuse(&mut self, what: &str, now: Instant) -> Option<Reply> {
        if let Some(until) = self.until {
            if now < until {
                if self.this_wait < self.in_flight {
                    self.this_wait += 1;
                    self.on_the_way += 1;
                } else {
                    self.violations.push(what.to_owned());
                }
                return Some(self.answer(until - now));
            }
            self.until = None;
        }
        while self.sent.front().is_some_and(|t| now - *t >= self.window) {
            self.sent.pop_front();
        }
        if self.sent.len() >= self.per {
            let wait = self.retry_after.unwrap_or_else(|| {
                self.sent
                    .front()
                    .map_or(self.window, |t| self.window.saturating_sub(now - *t))
            });
            self.until = Some(now + wait);
            self.this_wait = 0;
            return Some(self.answer(wait));
        }
        self.sent.push_back(now);
        None
    }

    fn answer(&mut self, wait: Duration) -> Reply {
        self.limited += 1;
        let secs = wait.as_secs_f64().ceil().max(1.0);
        Reply::json(
            403,
            json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}),
        )
        .with_header("retry-after", format!("{secs}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_on_the_way_when_a_wait_starts_are_not_violations_up_to_a_bound() {
        let now = Instant::now();
        let mut limit = WriteLimit::new(1, Duration::from_secs(60), Some(Duration::from_secs(3)))
            .with_in_flight(2);
        assert!(limit.refuse("POST a", now).is_none());
        assert!(limit.refuse("POST b", now).is_some());
        assert!(limit.refuse("POST c", now).is_some());
        assert!(limit.refuse("POST d", now).is_some());
        assert!(limit.violations.is_empty());
        assert!(limit.refuse("POST e", now).is_some());
        assert_eq!(limit.violations, ["POST e"]);
        assert_eq!(limit.on_the_way, 2);
    }

    #[test]
    fn past_the_limit_writes_wait_and_one_sent_while_waiting_is_a_violation() {
        let start = Instant::now();
        let mut limit = WriteLimit::new(2, Duration::from_secs(60), None);
        assert!(limit.refuse("POST a", start).is_none());
        let later = start + Duration::from_secs(20);
        assert!(limit.refuse("POST b", later).is_none());
        let refused = limit.refuse("POST c", later).expect("over the limit");
        assert_eq!(refused.status, 403);
        // The oldest write leaves the window 40 s later.
        assert_eq!(refused.headers, [("retry-after", "40".to_owned())]);
        assert!(limit
            .refuse("POST d", later + Duration::from_secs(1))
            .is_some());
        assert_eq!(limit.violations, ["POST d"]);
        assert!(limit
            .refuse("POST e", start + Duration::from_secs(61))
            .is_none());
        assert_eq!(limit.limited, 2);
    }

    #[test]
    fn a_named_wait_is_the_one_given() {
        let now = Instant::now();
        let mut limit = WriteLimit::new(1, Duration::from_secs(60), Some(Duration::from_secs(3)));
        assert!(limit.refuse("POST a", now).is_none());
        let refused = limit.refuse("POST b", now).expect("over the limit");
        assert_eq!(refused.headers, [("retry-after", "3".to_owned())]);
        // Sent once the wait is over: no violation, though the window is still full.
        assert!(limit
            .refuse("POST c", now + Duration::from_secs(3))
            .is_some());
        assert!(limit.violations.is_empty());
        assert!(limit
            .refuse("POST d", now + Duration::from_secs(60))
            .is_none());
    }
}
