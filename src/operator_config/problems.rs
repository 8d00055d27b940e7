//! What a configuration problem says, and the problems gathered so that all are reported
//! at once.

pub(super) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;
pub(super) type ReadFile<'a> = &'a dyn Fn(&std::path::Path) -> std::io::Result<String>;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Names every missing setting, with its flag and environment names, on one line.
    #[error("missing {}. Set them as flags, environment variables or in .env (run `auditloop setup` to register the GitHub App; https://github.com/auditloop/auditloop/blob/main/docs/operations.md tells more)", .0.join("; "))]
    Missing(Vec<&'static str>),
    /// `setting` is the flag or the environment variable the value came from.
    #[error("{setting}: {message}")]
    Invalid { setting: String, message: String },
    /// More than one problem: each on its own line.
    #[error("{} problems in the configuration:\n{}", .0.len(), lines(.0))]
    Several(Vec<ConfigError>),
}

fn lines(problems: &[ConfigError]) -> String {
    let each: Vec<String> = problems.iter().map(|p| format!("  - {p}")).collect();
    each.join("\n")
}

impl ConfigError {
    pub(crate) fn invalid(setting: &str, message: String) -> Self {
        Self::Invalid {
            setting: setting.to_owned(),
            message,
        }
    }
}

/// The problems found so far: missing settings gather into one [`ConfigError::Missing`].
#[derive(Default)]
pub(super) struct Problems {
    missing: Vec<&'static str>,
    invalid: Vec<ConfigError>,
}

impl Problems {
    pub(super) fn missing(&mut self, what: &'static str) {
        if !self.missing.contains(&what) {
            self.missing.push(what);
        }
    }

    pub(super) fn invalid(&mut self, problem: ConfigError) {
        self.invalid.push(problem);
    }

    /// The value, or `None` with its problem noted.
    pub(super) fn take<T>(&mut self, result: Result<T, ConfigError>) -> Option<T> {
        result.map_err(|e| self.invalid(e)).ok()
    }

    /// Every problem, or `None` when there is none.
    pub(super) fn into_error(self) -> Option<ConfigError> {
        let mut all = Vec::new();
        if !self.missing.is_empty() {
            all.push(ConfigError::Missing(self.missing));
        }
        all.extend(self.invalid);
        match all.len() {
            0 => None,
            1 => all.pop(),
            _ => Some(ConfigError::Several(all)),
        }
    }
}
