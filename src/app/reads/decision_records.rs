//! The `D-<n>` decision records under `decisions_path` on the default branch: read when a
//! report cites one, and when the gate of a record that cites one is evaluated.

use std::collections::BTreeSet;

use crate::app::context::Ctx;
use crate::engine::packet_context::decision_number;
use crate::github::{rest, GitHubError};

/// `D-<n>` decision records that exist under `decisions_path` on the default branch.
pub(crate) async fn read(ctx: &Ctx) -> Result<BTreeSet<u32>, GitHubError> {
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
