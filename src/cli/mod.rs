//! The command line (CONTRACT §2).

pub mod keygen;
pub mod root;
pub mod serve;
pub mod setup;
pub mod sign;
pub mod validate;

use std::io::Read as _;
use std::path::Path;

/// Reads a report from a file, or from standard input for `-`.
pub(crate) fn read_input(path: &Path) -> anyhow::Result<String> {
    use anyhow::Context as _;
    if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading the report from standard input")?;
        return Ok(text);
    }
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}
