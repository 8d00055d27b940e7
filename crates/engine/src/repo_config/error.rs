//! The configuration file's path and its parse error, which the parser and the settings
//! both name.

use std::fmt;

/// Where the file lives; errors name it so a maintainer knows what to edit.
pub const CONFIG_PATH: &str = ".github/auditloop.yml";

/// The parse error shown on the check run and in every refused command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// 1-based, when the parser knows where the problem is.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl ConfigError {
    /// The error for a view: the file and line as the app writes them, the parser's
    /// message as text with the names it quotes as code.
    #[must_use]
    pub fn to_md(&self) -> crate::md::Md {
        use crate::md::Md;
        let at = match self.line {
            Some(line) => crate::md!(
                "`.github/auditloop.yml` line {}",
                Md::text(&line.to_string())
            ),
            None => Md::lit("`.github/auditloop.yml`"),
        };
        crate::md!("{}: {}", at, Md::quoted(&self.message))
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{CONFIG_PATH} line {line}: {}", self.message),
            None => write!(f, "{CONFIG_PATH}: {}", self.message),
        }
    }
}
