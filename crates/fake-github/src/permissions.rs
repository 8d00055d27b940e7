//! Who may do what in a repository: each collaborator's role, as
//! `GET /repos/{o}/{r}/collaborators/{username}/permission` answers it.

use std::collections::BTreeMap;

/// Roles by login (`admin`, `maintain`, `write`, `triage`, `read`), and the role of every
/// other login, if the fake gives them one: `None` answers them 404, as GitHub answers an
/// account it does not know.
#[derive(Debug, Clone, Default)]
pub struct Permissions {
    roles: BTreeMap<String, String>,
    others: Option<String>,
}

impl Permissions {
    /// Every login not set has `role`.
    pub fn with_others(role: &str) -> Self {
        Self {
            roles: BTreeMap::new(),
            others: Some(role.to_owned()),
        }
    }

    pub fn set(&mut self, login: &str, role: &str) {
        self.roles.insert(login.to_owned(), role.to_owned());
    }

    /// `login`'s role; GitHub matches logins case-insensitively.
    pub fn role(&self, login: &str) -> Option<&str> {
        self.roles
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(login))
            .map(|(_, role)| role.as_str())
            .or(self.others.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logins_match_whatever_their_case_and_others_fall_back() {
        let mut kept = Permissions::default();
        kept.set("Maint", "maintain");
        assert_eq!(kept.role("maint"), Some("maintain"));
        assert_eq!(kept.role("alice"), None);
        let mut open = Permissions::with_others("write");
        open.set("maint", "maintain");
        assert_eq!(open.role("MAINT"), Some("maintain"));
        assert_eq!(open.role("alice"), Some("write"));
    }
}
