//! The `D-<n>` decision records under `decisions_path` on the default branch: read when a
//! report cites one, and when the gate of a record that cites one is evaluated.

use std::collections::BTreeSet;

use crate::app::context::Ctx;
use crate::github::{rest, GitHubError};

/// `D-12-title.md` and `D-12.md` are decision 12.
#[must_use]
pub fn decision_number(file: &str) -> Option<u32> {
    let rest = file.strip_prefix("D-")?.strip_suffix(".md")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let after = &rest[digits.len()..];
    if digits.is_empty() || !(after.is_empty() || after.starts_with(['-', '_', ' ', '.'])) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// `D-<n>` decision records that exist under `decisions_path` on the default branch.
pub async fn read(ctx: &Ctx) -> Result<BTreeSet<u32>, GitHubError> {
    let Ok(config) = &ctx.config else {
        return Ok(BTreeSet::new());
    };
    let names = rest::list_dir(
        &ctx.api,
        &ctx.repo,
        &config.decisions_path,
        &ctx.default_branch,
    )
    .await?;
    Ok(names.iter().filter_map(|n| decision_number(n)).collect())
}
