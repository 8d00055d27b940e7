//! One retry policy for every GitHub call (octocrab's own retry is compiled out: it retries
//! POSTs blindly). Pure: given what happened, decide whether and when to try again.

use std::time::Duration;

use crate::github::governor::{Limit, LimitKind};

#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// Longest wait we accept inside one delivery; longer waits give up (the delivery is
    /// answered 5xx and redelivered later) rather than hold GitHub's 10-second window.
    pub max_wait: Duration,
    pub backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 3,
            max_wait: Duration::from_secs(8),
            backoff: Duration::from_millis(200),
        }
    }
}

/// What one attempt produced, as far as retrying cares.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Attempt<'a> {
    Answered {
        status: u16,
        retry_after: Option<&'a str>,
        ratelimit_remaining: Option<&'a str>,
        ratelimit_reset: Option<&'a str>,
        body: &'a [u8],
    },
    /// No answer: the request may or may not have reached GitHub.
    Transport,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RetryDecision {
    /// Keep this answer.
    Accept,
    Retry(Duration),
    /// Rate limited for longer than we may wait.
    RateLimited(Duration),
    /// A failure that must not be retried (the call may have succeeded), or attempts spent.
    GiveUp,
}

impl RetryPolicy {
    /// `attempt` counts from 1; `now` is seconds since the epoch (for `x-ratelimit-reset`).
    #[must_use]
    pub(crate) fn decide(
        &self,
        attempt: u32,
        idempotent: bool,
        outcome: Attempt<'_>,
        now: u64,
    ) -> RetryDecision {
        let last = attempt >= self.max_attempts;
        let backoff = self.backoff * 2u32.saturating_pow(attempt.saturating_sub(1));
        match outcome {
            Attempt::Transport if idempotent && !last => RetryDecision::Retry(backoff),
            Attempt::Transport => RetryDecision::GiveUp,
            Attempt::Answered {
                status,
                retry_after,
                ratelimit_remaining,
                ratelimit_reset,
                body,
            } => {
                if let Some(wait) = rate_limit_wait(
                    status,
                    retry_after,
                    ratelimit_remaining,
                    ratelimit_reset,
                    body,
                    now,
                ) {
                    // A rate-limited call was not carried out: safe to repeat whatever its method.
                    return if wait > self.max_wait {
                        RetryDecision::RateLimited(wait)
                    } else if last {
                        RetryDecision::GiveUp
                    } else {
                        RetryDecision::Retry(wait)
                    };
                }
                match status {
                    502..=504 if idempotent && !last => RetryDecision::Retry(backoff),
                    502..=504 => RetryDecision::GiveUp,
                    _ => RetryDecision::Accept,
                }
            }
        }
    }
}

/// How long GitHub asks us to wait, when the answer is a primary or secondary rate limit.
fn rate_limit_wait(
    status: u16,
    retry_after: Option<&str>,
    remaining: Option<&str>,
    reset: Option<&str>,
    body: &[u8],
    now: u64,
) -> Option<Duration> {
    let limit = limit_of(status, retry_after, remaining, reset, body, now)?;
    // GitHub: without retry-after, wait at least a minute.
    Some(limit.wait.unwrap_or(Duration::from_secs(60)))
}

/// The limit an answer reports: a 403 or 429 with `retry-after`, an exhausted primary
/// limit (`x-ratelimit-remaining: 0`, until `x-ratelimit-reset`), or GitHub's secondary
/// limit message (no time named). `None` for any other answer.
#[must_use]
pub(crate) fn limit_of(
    status: u16,
    retry_after: Option<&str>,
    remaining: Option<&str>,
    reset: Option<&str>,
    body: &[u8],
    now: u64,
) -> Option<Limit> {
    if status != 403 && status != 429 {
        return None;
    }
    if let Some(secs) = retry_after.and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some(Limit {
            kind: LimitKind::Secondary,
            wait: Some(Duration::from_secs(secs)),
        });
    }
    if remaining.map(str::trim) == Some("0") {
        return Some(primary_until(reset, now));
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(2048)]).to_ascii_lowercase();
    if status == 429 || text.contains("secondary rate limit") || text.contains("abuse") {
        return Some(Limit {
            kind: LimitKind::Secondary,
            wait: None,
        });
    }
    None
}

/// The primary limit, spent until `reset` (Unix seconds; a minute when absent).
#[must_use]
pub(crate) fn primary_until(reset: Option<&str>, now: u64) -> Limit {
    let reset = reset
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(now + 60);
    Limit {
        kind: LimitKind::Primary,
        wait: Some(Duration::from_secs(reset.saturating_sub(now).max(1))),
    }
}
