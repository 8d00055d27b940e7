//! Who may run which command (docs/reference.md#who-may-run-a-command), and the repository policy the record
//! transitions apply. Rules as data, so the table is tested as a table.

use serde::{Deserialize, Serialize};

/// The least standing a command needs. What each maps to is configured (`permissions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Anyone,
    /// `permissions.report` (default `write`), or a listed auditor for reports.
    Reporter,
    /// `permissions.maintainer` (default `maintain`).
    Maintainer,
}

/// A repository permission, ranked as GitHub ranks them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    #[default]
    None,
    Read,
    Triage,
    Write,
    Maintain,
    Admin,
}

impl Permission {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::None => "none",
            Permission::Read => "read",
            Permission::Triage => "triage",
            Permission::Write => "write",
            Permission::Maintain => "maintain",
            Permission::Admin => "admin",
        }
    }

    /// Parses GitHub's `role_name` / config words.
    #[must_use]
    pub fn parse(word: &str) -> Option<Permission> {
        Some(match word.trim().to_ascii_lowercase().as_str() {
            "none" => Permission::None,
            "read" | "pull" => Permission::Read,
            "triage" => Permission::Triage,
            "write" | "push" => Permission::Write,
            "maintain" => Permission::Maintain,
            "admin" => Permission::Admin,
            _ => return None,
        })
    }
}

/// The slash commands of docs/reference.md#commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CommandName {
    New,
    Adopt,
    Report,
    Baseline,
    Resolve,
    Override,
    Waive,
    Veto,
    Dispose,
    Status,
    Gate,
    Help,
}

impl CommandName {
    pub const ALL: [CommandName; 12] = [
        CommandName::New,
        CommandName::Adopt,
        CommandName::Report,
        CommandName::Baseline,
        CommandName::Resolve,
        CommandName::Override,
        CommandName::Waive,
        CommandName::Veto,
        CommandName::Dispose,
        CommandName::Status,
        CommandName::Gate,
        CommandName::Help,
    ];

    /// The word after `/audit`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CommandName::New => "new",
            CommandName::Adopt => "adopt",
            CommandName::Report => "report",
            CommandName::Baseline => "baseline",
            CommandName::Resolve => "resolve",
            CommandName::Override => "override",
            CommandName::Waive => "waive",
            CommandName::Veto => "veto",
            CommandName::Dispose => "dispose",
            CommandName::Status => "status",
            CommandName::Gate => "gate",
            CommandName::Help => "help",
        }
    }

    /// Exact, case-sensitive match of the command word.
    #[must_use]
    pub fn from_word(word: &str) -> Option<CommandName> {
        CommandName::ALL.into_iter().find(|c| c.as_str() == word)
    }
}

impl std::fmt::Display for CommandName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The role `kind` needs. `/audit new --budget N` above the repository default is a
/// maintainer's call, since a budget bounds how often auditors may be asked.
#[must_use]
pub(crate) fn required_role(kind: CommandName, budget_above_default: bool) -> Role {
    match kind {
        CommandName::New if budget_above_default => Role::Maintainer,
        CommandName::New | CommandName::Report | CommandName::Baseline => Role::Reporter,
        CommandName::Adopt
        | CommandName::Resolve
        | CommandName::Override
        | CommandName::Waive
        | CommandName::Veto
        | CommandName::Dispose => Role::Maintainer,
        CommandName::Status | CommandName::Gate | CommandName::Help => Role::Anyone,
    }
}

/// The role `kind` needs in a repository whose default budget is `repo_budget`, with
/// `asked_budget` the `--budget` of `/audit new`: above the default, a maintainer's call.
#[must_use]
pub fn role_for(kind: CommandName, asked_budget: Option<u32>, repo_budget: u32) -> Role {
    let above_default = kind == CommandName::New && asked_budget.is_some_and(|b| b > repo_budget);
    required_role(kind, above_default)
}

/// The PR author may not use maintainer commands on its own PR unless the repository
/// allows self-approval (docs/reference.md#who-may-run-a-command).
#[must_use]
pub fn maintainer_self_approval_refused(
    kind: CommandName,
    actor_is_author: bool,
    allow_self_approval: bool,
) -> bool {
    required_role(kind, false) == Role::Maintainer && actor_is_author && !allow_self_approval
}

/// The configured least permission of each role (`permissions.report`, `.maintainer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoleThresholds {
    pub report: Permission,
    pub maintainer: Permission,
}

impl Default for RoleThresholds {
    fn default() -> Self {
        RoleThresholds {
            report: Permission::Write,
            maintainer: Permission::Maintain,
        }
    }
}

impl RoleThresholds {
    #[must_use]
    pub fn allows(&self, role: Role, held: Permission) -> bool {
        match role {
            Role::Anyone => true,
            Role::Reporter => held >= self.report,
            Role::Maintainer => held >= self.maintainer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CommandName::*;

    #[test]
    fn command_roles_table() {
        let table = [
            (New, false, Role::Reporter),
            (New, true, Role::Maintainer),
            (Adopt, false, Role::Maintainer),
            (Report, false, Role::Reporter),
            (Baseline, false, Role::Reporter),
            (Resolve, false, Role::Maintainer),
            (Override, false, Role::Maintainer),
            (Waive, false, Role::Maintainer),
            (Veto, false, Role::Maintainer),
            (Dispose, false, Role::Maintainer),
            (Status, false, Role::Anyone),
            (Gate, false, Role::Anyone),
            (Help, false, Role::Anyone),
        ];
        for (kind, above, role) in table {
            assert_eq!(required_role(kind, above), role, "{kind:?} above={above}");
        }
        // The budget flag matters only for `new`.
        for kind in CommandName::ALL.into_iter().filter(|k| *k != New) {
            assert_eq!(required_role(kind, true), required_role(kind, false));
        }
    }

    #[test]
    fn a_budget_above_the_repository_default_needs_a_maintainer() {
        let table = [
            (New, None, Role::Reporter),
            (New, Some(1), Role::Reporter),
            (New, Some(3), Role::Reporter),
            (New, Some(4), Role::Maintainer),
            (New, Some(u32::MAX), Role::Maintainer),
            // Only `new` asks for a budget; `override` sets one and is a maintainer's anyway.
            (Report, Some(4), Role::Reporter),
            (Status, Some(4), Role::Anyone),
            (Override, None, Role::Maintainer),
        ];
        for (kind, asked, role) in table {
            assert_eq!(
                role_for(kind, asked, 3),
                role,
                "{kind:?} --budget {asked:?}"
            );
        }
    }

    #[test]
    fn self_approval_table() {
        for kind in CommandName::ALL {
            let maintainer = required_role(kind, false) == Role::Maintainer;
            assert_eq!(
                maintainer_self_approval_refused(kind, true, false),
                maintainer
            );
            assert!(!maintainer_self_approval_refused(kind, true, true));
            assert!(!maintainer_self_approval_refused(kind, false, false));
        }
        assert!(maintainer_self_approval_refused(Waive, true, false));
        assert!(!maintainer_self_approval_refused(Report, true, false));
    }

    #[test]
    fn permissions_rank_and_thresholds() {
        use Permission as P;
        let ranked = [P::None, P::Read, P::Triage, P::Write, P::Maintain, P::Admin];
        for pair in ranked.windows(2) {
            assert!(pair[0] < pair[1]);
        }
        for p in ranked {
            assert_eq!(Permission::parse(p.as_str()), Some(p));
        }
        assert_eq!(Permission::parse("bogus"), None);
        let t = RoleThresholds::default();
        let cases = [
            (Role::Anyone, P::None, true),
            (Role::Reporter, P::Triage, false),
            (Role::Reporter, P::Write, true),
            (Role::Maintainer, P::Write, false),
            (Role::Maintainer, P::Maintain, true),
            (Role::Maintainer, P::Admin, true),
        ];
        for (role, held, ok) in cases {
            assert_eq!(t.allows(role, held), ok, "{role:?} {held:?}");
        }
    }
}
