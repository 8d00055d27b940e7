//! What intake reports when a document breaks a rule: the rule's stable name, where, and why.

use std::fmt;

/// Every rule intake can refuse a report or handoff under. `name()` is stable: replies,
/// `auditloop validate` and tests match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The text is not one well-formed JSON document (or repeats a key).
    JsonSyntax,
    /// The JSON Schema: unknown or missing field, wrong type, pattern, length, const, enum.
    Shape,
    /// `invocation.mode` is `single_agent_fallback` (docs/reference.md#report-rules).
    InvocationMode,
    /// A required text is empty or a placeholder such as `TODO` or `<slot>`.
    Placeholder,
    /// Two findings share an id.
    FindingIdUnique,
    /// A certifying verdict lists a blocking finding.
    CertifiedBlockingFinding,
    /// `certified` lists limitations; `certified_with_accepted_limitations` says so.
    CertifiedWithLimitations,
    /// `certified_with_accepted_limitations` without any limitation.
    LimitationsRequired,
    /// A limitation without authority under a verdict other than `needs_human_decision`.
    LimitationAuthorityVerdict,
    /// A limitation authority that names no login or decision record we can hold to.
    LimitationAuthorityForm,
    /// `elegance.score` outside 1..=5.
    EleganceRange,
    /// The handoff has no valid `AUDIT: PASS|FAIL|BLOCKED|ERROR` line.
    HandoffStatus,
    /// A handoff line is missing, repeated or malformed.
    HandoffField,
    /// A handoff line that the plan-audit handoff format does not define.
    HandoffUnknownLine,
    /// A handoff whose lines contradict each other (`FAIL` without a critical finding).
    HandoffInconsistent,
}

impl Rule {
    #[cfg(test)]
    const ALL: [Rule; 15] = [
        Rule::JsonSyntax,
        Rule::Shape,
        Rule::InvocationMode,
        Rule::Placeholder,
        Rule::FindingIdUnique,
        Rule::CertifiedBlockingFinding,
        Rule::CertifiedWithLimitations,
        Rule::LimitationsRequired,
        Rule::LimitationAuthorityVerdict,
        Rule::LimitationAuthorityForm,
        Rule::EleganceRange,
        Rule::HandoffStatus,
        Rule::HandoffField,
        Rule::HandoffUnknownLine,
        Rule::HandoffInconsistent,
    ];

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rule::JsonSyntax => "json-syntax",
            Rule::Shape => "shape",
            Rule::InvocationMode => "invocation-mode",
            Rule::Placeholder => "placeholder",
            Rule::FindingIdUnique => "finding-id-unique",
            Rule::CertifiedBlockingFinding => "certified-blocking-finding",
            Rule::CertifiedWithLimitations => "certified-with-limitations",
            Rule::LimitationsRequired => "limitations-required",
            Rule::LimitationAuthorityVerdict => "limitation-authority-verdict",
            Rule::LimitationAuthorityForm => "limitation-authority-form",
            Rule::EleganceRange => "elegance-range",
            Rule::HandoffStatus => "handoff-status",
            Rule::HandoffField => "handoff-field",
            Rule::HandoffUnknownLine => "handoff-unknown-line",
            Rule::HandoffInconsistent => "handoff-inconsistent",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The path of the document root.
pub(crate) const ROOT: &str = "$";

/// One broken rule. `path` is a JSON path like `findings[0].claim` (`$` for the root) or,
/// for a handoff, the line it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub rule: Rule,
    pub path: String,
    pub message: String,
}

impl Problem {
    pub(crate) fn new(rule: Rule, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            rule,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.rule, self.path, self.message)
    }
}

/// `parent.key`, or just `key` under the root.
pub(crate) fn child_path(parent: &str, key: &str) -> String {
    if parent == ROOT {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    }
}

/// `parent[index]`.
pub(crate) fn index_path(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_are_unique_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for rule in Rule::ALL {
            let name = rule.name();
            assert!(seen.insert(name), "duplicate rule name {name}");
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name} is not kebab-case"
            );
        }
    }

    #[test]
    fn problem_displays_rule_path_message() {
        let p = Problem::new(Rule::Shape, "findings[0].foo", "unknown field");
        assert_eq!(p.to_string(), "shape: findings[0].foo: unknown field");
        assert_eq!(child_path(ROOT, "a"), "a");
        assert_eq!(child_path("a", "b"), "a.b");
        assert_eq!(index_path("a", 2), "a[2]");
    }
}
