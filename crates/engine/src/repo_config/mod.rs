//! The repository configuration, `.github/auditloop.yml` (docs/reference.md#repository-configuration).
//!
//! Every level refuses unknown keys, so a typo is an error with a line rather than a
//! silently ignored setting. Values are checked while parsing, so the error keeps its line.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::ids::Login;

pub mod auditor;
mod error;
mod yaml;

use yaml::{parse_options, yaml_error, MAX_CONFIG_BYTES};

pub use error::{ConfigError, CONFIG_PATH};

// The file's switches are YAML booleans by contract (docs/reference.md#keys-and-defaults).
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepoConfig {
    pub work_unit_audit: WorkUnitAudit,
    #[serde(deserialize_with = "budget")]
    pub audit_budget: u32,
    #[serde(deserialize_with = "check_name")]
    pub check_name: String,
    #[serde(deserialize_with = "branch_name")]
    pub records_branch: String,
    pub assurance: Assurance,
    pub evidence: EvidenceConfig,
    pub permissions: PermissionsConfig,
    pub baseline_on_push: bool,
    pub carry_certification: CarryCertification,
    /// Keep the repository's finding-pattern library on the records branch (docs/reference.md#the-pattern-library).
    pub patterns: bool,
    pub allow_self_approval: bool,
    /// The PR's author and the candidate's pusher may post its report (docs/reference.md#independence-of-the-auditor).
    pub allow_self_audit: bool,
    #[serde(deserialize_with = "decisions_path")]
    pub decisions_path: String,
    #[serde(deserialize_with = "label")]
    pub tech_debt_label: String,
    pub auditor: auditor::AuditorConfig,
    /// Keep one "Audit dashboard" issue of the repository's open audits (docs/reference.md#the-audit-dashboard).
    pub dashboard: bool,
    /// Which findings a run posts as review threads on the diff (docs/reference.md#review-threads).
    pub review_threads: ReviewThreads,
}

impl Default for RepoConfig {
    fn default() -> Self {
        Self {
            work_unit_audit: WorkUnitAudit::Enabled,
            audit_budget: 3,
            check_name: "audit-gate".into(),
            records_branch: crate::layout::DEFAULT_RECORDS_BRANCH.into(),
            assurance: Assurance::Standard,
            evidence: EvidenceConfig::default(),
            permissions: PermissionsConfig::default(),
            baseline_on_push: true,
            carry_certification: CarryCertification::IdenticalTree,
            patterns: true,
            allow_self_approval: false,
            allow_self_audit: false,
            decisions_path: "docs/decisions".into(),
            tech_debt_label: "tech-debt".into(),
            auditor: auditor::AuditorConfig::default(),
            dashboard: false,
            review_threads: ReviewThreads::Blocking,
        }
    }
}

impl RepoConfig {
    /// Parses the file's text. An empty file (or one holding only comments) is all defaults.
    ///
    /// # Errors
    /// The first problem found, with its line when the parser knows it: bad YAML, an unknown
    /// key, a wrong type or value, or a document past the parser's budget (alias bombs, deep
    /// nesting), which is refused rather than expanded.
    pub fn from_yaml(text: &str) -> Result<RepoConfig, ConfigError> {
        if text.len() > MAX_CONFIG_BYTES {
            return Err(ConfigError {
                line: None,
                column: None,
                message: format!(
                    "the file is {} bytes; a configuration holds at most {MAX_CONFIG_BYTES}",
                    text.len()
                ),
            });
        }
        // The setting a type error is about, so the message names it beside its line.
        let mut setting = String::new();
        // A document with no content parses as `None`, which the struct alone would refuse.
        let parsed: Result<Option<RepoConfig>, _> =
            serde_saphyr::with_deserializer_from_str_with_options(text, parse_options(), |de| {
                serde_path_to_error::deserialize(de).map_err(|e| {
                    setting = e.path().to_string();
                    e.into_inner()
                })
            });
        match parsed {
            Ok(config) => Ok(config.unwrap_or_default()),
            Err(e) => Err(yaml_error(&e, &setting)),
        }
    }

    #[must_use]
    pub fn enabled(&self) -> bool {
        self.work_unit_audit == WorkUnitAudit::Enabled
    }

    /// The assurance the gate and report intake apply here.
    #[must_use]
    pub fn effective_assurance(&self, operator_min: Assurance) -> Assurance {
        effective_assurance(self.assurance, operator_min)
    }
}

/// Which findings of a run get a review thread on the line they cite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewThreads {
    /// Blocking findings only: the ones a fixer must act on.
    #[default]
    Blocking,
    All,
    Off,
}

impl ReviewThreads {
    /// Whether a finding that is `blocking` or not gets a thread.
    #[must_use]
    pub fn covers(self, blocking: bool) -> bool {
        match self {
            Self::Blocking => blocking,
            Self::All => true,
            Self::Off => false,
        }
    }
}

/// Whether a new head whose git tree is the certified one keeps the certification
/// (docs/reference.md#carrying-a-certification).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CarryCertification {
    #[default]
    IdenticalTree,
    Never,
}

/// A repository can raise the operator's minimum, never lower it.
#[must_use]
pub fn effective_assurance(repo: Assurance, operator_min: Assurance) -> Assurance {
    repo.max(operator_min)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkUnitAudit {
    Enabled,
    Disabled,
}

/// Ordered: `Hardened` is stronger than `Standard`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Assurance {
    #[default]
    Standard,
    Hardened,
}

impl Assurance {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Assurance::Standard => "standard",
            Assurance::Hardened => "hardened",
        }
    }
}

/// Permission words rank as GitHub ranks them; one type serves config and checks.
pub use crate::policy::Permission;

/// The archetypes of `evidence.archetype` (docs/reference.md#gate-conditions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Archetype {
    Implementation,
    Research,
    Audit,
    Planning,
    Hybrid,
}

impl Archetype {
    /// The completion gates (docs/reference.md#gate-conditions) a check run can prove for this archetype. The
    /// workspace checks (uncommitted changes, issues, plan) have no check-run form.
    /// Hybrid takes the union of its components, at most implementation's set.
    #[must_use]
    pub fn required_gates(self) -> &'static [CompletionGate] {
        use CompletionGate::{Build, Docs, Integration, Lint, Security};
        match self {
            Archetype::Implementation | Archetype::Hybrid => {
                &[Build, Lint, Integration, Security, Docs]
            }
            Archetype::Audit => &[Integration, Security],
            Archetype::Research | Archetype::Planning => &[],
        }
    }

    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Archetype::Implementation => "implementation",
            Archetype::Research => "research",
            Archetype::Audit => "audit",
            Archetype::Planning => "planning",
            Archetype::Hybrid => "hybrid",
        }
    }
}

/// The completion gates that a check run can prove (docs/reference.md#gate-conditions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompletionGate {
    Build,
    Lint,
    Integration,
    Security,
    Docs,
}

impl CompletionGate {
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CompletionGate::Build => "build",
            CompletionGate::Lint => "lint",
            CompletionGate::Integration => "integration",
            CompletionGate::Security => "security",
            CompletionGate::Docs => "docs",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvidenceConfig {
    #[serde(deserialize_with = "check_names")]
    pub required_checks: Vec<String>,
    pub archetype: Option<Archetype>,
    #[serde(deserialize_with = "gate_checks")]
    pub gates: BTreeMap<CompletionGate, Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PermissionsConfig {
    pub report: Permission,
    pub maintainer: Permission,
    #[serde(deserialize_with = "logins")]
    pub auditors: Vec<String>,
}

impl Default for PermissionsConfig {
    fn default() -> Self {
        Self {
            report: Permission::Write,
            maintainer: Permission::Maintain,
            auditors: Vec::new(),
        }
    }
}

impl PermissionsConfig {
    /// Logins compare case-insensitively on GitHub.
    #[must_use]
    pub fn is_listed_auditor(&self, login: &Login) -> bool {
        self.auditors
            .iter()
            .any(|a| a.eq_ignore_ascii_case(login.as_str()))
    }
}

fn logins<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let raw = Vec::<String>::deserialize(d)?;
    for login in &raw {
        Login::new(login.as_str())
            .map_err(|e| serde::de::Error::custom(format!("auditors: {e}")))?;
    }
    Ok(raw)
}

/// Builds a `deserialize_with` function that checks a string value while parsing, so the
/// error keeps its line.
macro_rules! checked_string {
    ($fn_name:ident, $key:literal, $rule:path) => {
        fn $fn_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
            let value = String::deserialize(d)?;
            $rule(&value).map_err(|e| serde::de::Error::custom(format!("{}: {e}", $key)))?;
            Ok(value)
        }
    };
}

checked_string!(check_name, "check_name", check_name_rule);
checked_string!(branch_name, "records_branch", branch_name_rule);
checked_string!(decisions_path, "decisions_path", decisions_path_rule);
checked_string!(label, "tech_debt_label", label_rule);

fn check_names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    for name in &names {
        check_name_rule(name)
            .map_err(|e| serde::de::Error::custom(format!("required_checks: {e}")))?;
    }
    Ok(names)
}

fn gate_checks<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<CompletionGate, Vec<String>>, D::Error> {
    let gates = BTreeMap::<CompletionGate, Vec<String>>::deserialize(d)?;
    for name in gates.values().flatten() {
        check_name_rule(name).map_err(|e| serde::de::Error::custom(format!("gates: {e}")))?;
    }
    Ok(gates)
}

fn budget<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let value = u32::deserialize(d)?;
    if value == 0 {
        return Err(serde::de::Error::custom("audit_budget must be at least 1"));
    }
    Ok(value)
}

/// Non-empty, one line.
///
/// # Errors
///
/// With the message shown to the user when `value` breaks the rule.
pub fn check_name_rule(value: &str) -> Result<(), String> {
    if value.trim().is_empty() || value.chars().any(char::is_control) {
        return Err(format!(
            "{value:?} is not a check name (non-empty, one line)"
        ));
    }
    Ok(())
}

/// What `git check-ref-format --branch` accepts.
///
/// # Errors
///
/// With the message shown to the user when `value` breaks the rule.
pub fn branch_name_rule(value: &str) -> Result<(), String> {
    let bad = value.is_empty()
        || value == "@"
        || value == "HEAD"
        || value.starts_with('-')
        || value.starts_with('/')
        || value.ends_with('/')
        || value.ends_with('.')
        || value.contains("..")
        || value.contains("//")
        || value.contains("@{")
        || value
            .chars()
            .any(|c| c.is_control() || " ~^:?*[\\".contains(c))
        || value
            .split('/')
            // Git refuses a `.lock` component exactly as written, so the check is case-sensitive.
            .any(|part| {
                #[allow(clippy::case_sensitive_file_extension_comparisons)]
                let lock = part.ends_with(".lock");
                part.starts_with('.') || lock
            });
    if bad {
        return Err(format!("{value:?} is not a valid git branch name"));
    }
    Ok(())
}

/// A relative directory of the repository, without `..`.
///
/// # Errors
///
/// With the message shown to the user when `value` breaks the rule.
pub fn decisions_path_rule(value: &str) -> Result<(), String> {
    let bad = value.trim().is_empty()
        || value.starts_with('/')
        || value.contains('\\')
        || value.chars().any(char::is_control)
        || value.split('/').any(|part| part == "..");
    if bad {
        return Err(format!(
            "{value:?} is not a relative directory of the repository"
        ));
    }
    Ok(())
}

/// A GitHub label name: 1 to 50 characters, one line.
///
/// # Errors
///
/// With the message shown to the user when `value` breaks the rule.
pub fn label_rule(value: &str) -> Result<(), String> {
    let len = value.chars().count();
    if value.trim().is_empty() || len > 50 || value.chars().any(char::is_control) {
        return Err(format!(
            "{value:?} is not a label name (1 to 50 characters, one line)"
        ));
    }
    Ok(())
}
