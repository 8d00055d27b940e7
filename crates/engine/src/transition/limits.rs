//! Limitation authorities of a `certified_with_accepted_limitations` report (docs/reference.md#report-rules):
//! `human: LOGIN` holds only when LOGIN accepted that key in this record's history, and
//! `D-<n>` only when the decision record exists. An auditor cannot accept in anyone's name.

use std::collections::BTreeSet;

use super::Refusal;
use crate::record::Record;
use crate::report::Limitation;

/// A parsed authority reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Authority {
    Human(String),
    Decision(u32),
}

/// Parses `human: LOGIN` or `D-<n>`; anything else is not an authority.
pub(crate) fn parse_authority(text: &str) -> Option<Authority> {
    let text = text.trim();
    if let Some(login) = text.strip_prefix("human:") {
        let login = login.trim();
        return crate::ids::Login::new(login)
            .ok()
            .map(|l| Authority::Human(l.to_string()));
    }
    let digits = text.strip_prefix("D-")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(Authority::Decision)
}

/// Checks that every limitation's authority holds against `record` and `decisions`.
///
/// # Errors
///
/// The [`Refusal`] for the first limitation whose authority does not hold.
pub(crate) fn check_authorities(
    record: &Record,
    limitations: &[Limitation],
    decisions: &BTreeSet<u32>,
) -> Result<(), Refusal> {
    let accepted = record.accepted_limitations();
    for l in limitations {
        let Some(text) = &l.authority else {
            return Err(Refusal::LimitationWithoutAuthority { id: l.id.clone() });
        };
        match parse_authority(text) {
            None => {
                return Err(Refusal::AuthorityUnrecognized {
                    id: l.id.clone(),
                    authority: text.clone(),
                })
            }
            Some(Authority::Decision(number)) => {
                if !decisions.contains(&number) {
                    return Err(Refusal::DecisionRecordMissing {
                        id: l.id.clone(),
                        number,
                    });
                }
            }
            Some(Authority::Human(login)) => {
                let held = accepted
                    .iter()
                    .any(|a| a.key == l.key && a.actor.as_str().eq_ignore_ascii_case(&login));
                if !held {
                    return Err(Refusal::LimitationNotAccepted {
                        id: l.id.clone(),
                        key: l.key.clone(),
                        login,
                    });
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authority_forms() {
        let cases = [
            ("human: octocat", Some(Authority::Human("octocat".into()))),
            ("human:octocat", Some(Authority::Human("octocat".into()))),
            ("  D-12 ", Some(Authority::Decision(12))),
            ("D-", None),
            ("D-1x", None),
            ("D--1", None),
            ("human: ", None),
            ("human: not a login", None),
            ("the maintainers agreed", None),
            ("auditor", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_authority(text), want, "{text:?}");
        }
    }
}
