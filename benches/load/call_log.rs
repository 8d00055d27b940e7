//! Reading the fake's call log for a run's printout: the longest chain of dependent calls,
//! the calls no route knew, the calls of each delivery, percentiles and milliseconds.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::fake::Call;

/// The longest chain of calls each started after the previous one's answer, as routes.
pub fn chain(calls: &[&Call]) -> Vec<String> {
    let mut sorted: Vec<&&Call> = calls.iter().collect();
    sorted.sort_by_key(|c| c.started);
    let mut best: Vec<(usize, Option<usize>)> = vec![(1, None); sorted.len()];
    for i in 0..sorted.len() {
        for j in 0..i {
            if sorted[i].started >= sorted[j].answered && best[j].0 + 1 > best[i].0 {
                best[i] = (best[j].0 + 1, Some(j));
            }
        }
    }
    let Some(mut at) = (0..best.len()).max_by_key(|i| best[*i].0) else {
        return Vec::new();
    };
    let mut out = vec![sorted[at].route.clone()];
    while let Some(prev) = best[at].1 {
        out.push(sorted[prev].route.clone());
        at = prev;
    }
    out.reverse();
    out
}

// `p` is in 0..=1, so the rounded index is within `0..sorted.len()`.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// A duration in milliseconds, to one decimal place.
pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The calls no route of the fake knew, by route: `none`, or each route with its count.
pub fn unserved(log: &[Call]) -> String {
    let mut by_route: BTreeMap<&str, u64> = BTreeMap::new();
    for c in log.iter().filter(|c| c.unserved) {
        *by_route.entry(c.route.as_str()).or_default() += 1;
    }
    if by_route.is_empty() {
        "none".to_owned()
    } else {
        format!("PROBLEM: {by_route:?}")
    }
}

/// The calls of each delivery, by delivery id.
pub fn by_delivery(log: &[Call]) -> BTreeMap<String, Vec<&Call>> {
    let mut out: BTreeMap<String, Vec<&Call>> = BTreeMap::new();
    for c in log {
        if let Some(d) = &c.delivery {
            if !c.route.ends_with("access_tokens") {
                out.entry(d.clone()).or_default().push(c);
            }
        }
    }
    out
}
