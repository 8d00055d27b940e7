//! The names of claim refs and how long they are kept. Pure: no call is made here.

use chrono::{DateTime, TimeDelta, Utc};

/// A ref name segment from any text: letters, digits and `-`, the rest as `_`.
pub(super) fn segment(text: &str) -> String {
    text.chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Where every claim ref lives.
pub(crate) const PREFIX: &str = "refs/auditloop/claims/";

pub(crate) fn ref_name(delivery: &str, effect: &str, generation: u32) -> String {
    format!(
        "{PREFIX}{}/{}-{generation}",
        segment(delivery),
        segment(effect)
    )
}

/// How long a claim is kept after its delivery was sent. GitHub lets a failed delivery be
/// redelivered for 3 days (7 on GitHub Enterprise Server); after that no process handles
/// the delivery again, so its claims guard nothing (the effect's marker still stops a
/// repeat). A day more covers clocks that disagree.
pub(crate) const KEEP: TimeDelta = TimeDelta::days(8);

/// When the delivery of claim ref `name` was sent, if its id tells: GitHub's delivery
/// GUIDs are time-based UUIDs (version 1, as in GitHub's documented example), whose
/// timestamp survives [`segment`]. An id that is not time-based tells nothing.
pub(crate) fn delivered_at(name: &str) -> Option<DateTime<Utc>> {
    let delivery = name.strip_prefix(PREFIX)?.split('/').next()?;
    let (secs, nanos) = uuid::Uuid::try_parse(delivery)
        .ok()?
        .get_timestamp()?
        .to_unix();
    DateTime::from_timestamp(i64::try_from(secs).ok()?, nanos)
}

/// Whether claim ref `name` can be deleted at `now`: its delivery was sent more than
/// [`KEEP`] ago. A claim whose age cannot be told is kept.
pub(crate) fn expired(name: &str, now: DateTime<Utc>) -> bool {
    delivered_at(name).is_some_and(|at| now - at > KEEP)
}

/// The ref a holder leaves when it failed with nothing done under its claim `claim`.
pub(super) fn failed_name(claim: &str) -> String {
    format!("{claim}-failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_names_are_valid_refs_whatever_the_delivery_id() {
        assert_eq!(
            ref_name("72d3162e-cc78-11e3-81ab-4c9367dc0958", "reply-42", 1),
            "refs/auditloop/claims/72d3162e-cc78-11e3-81ab-4c9367dc0958/reply-42-1"
        );
        let odd = ref_name("../x y@{z}.lock", "file:AUD-1/A-01", 2);
        assert_eq!(
            odd,
            "refs/auditloop/claims/___x_y__z__lock/file_AUD-1_A-01-2"
        );
        assert!(crate::engine::repo_config::branch_name_rule(&odd["refs/".len()..]).is_ok());
    }

    #[test]
    fn a_claim_expires_only_when_its_delivery_id_tells_it_is_old() {
        // GitHub's documented delivery id: a version-1 UUID from 2014-04-25 (UTC).
        let old = ref_name("72d3162e-cc78-11e3-81ab-4c9367dc0958", "reply-42", 1);
        let at = delivered_at(&old).map(|t| t.date_naive().to_string());
        assert_eq!(at.as_deref(), Some("2014-04-25"));
        let sent = delivered_at(&old).unwrap_or_default();
        assert!(!expired(&old, sent + KEEP));
        assert!(expired(&old, sent + KEEP + TimeDelta::seconds(1)));
        // Random (version 4) and made-up ids, and refs that are not claims, are kept.
        let now = Utc::now();
        for name in [
            ref_name("d9428888-122b-41e2-b8a2-0f3f5b6a6c5e", "reply-42", 1),
            ref_name("redelivered-1", "reply-42", 1),
            ref_name("", "reply-42", 1),
            "refs/auditloop/once/forged-abc".to_owned(),
            "refs/heads/72d3162e-cc78-11e3-81ab-4c9367dc0958".to_owned(),
        ] {
            assert!(!expired(&name, now), "{name}");
        }
        // A delivery sent in the future (a clock ahead) is not old.
        assert!(!expired(&old, sent - TimeDelta::days(30)));
    }
}
