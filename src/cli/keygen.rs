//! `auditloop keygen --key-id ID [--out FILE]`: an Ed25519 key pair for a hardened auditor.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use ed25519_dalek::SigningKey;

use crate::engine::receipt::{is_valid_key_id, signing_key_to_pem, trust_store_entry};

#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// The key id the operator pins in the trust store (letters, digits, '-', '_').
    #[arg(long)]
    pub key_id: String,
    /// Where to write the private key (PKCS#8 PEM, mode 0600); default `ID.key`.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Writes the private key and prints the trust-store entry for the operator.
///
/// # Errors
///
/// When `--key-id` is invalid, the key cannot be encoded or written, or the output cannot be
/// written.
pub fn run(args: &KeygenArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if !is_valid_key_id(&args.key_id) {
        bail!(
            "--key-id {:?} must be 1-100 letters, digits, '-' or '_'",
            args.key_id
        );
    }
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.key", args.key_id)));
    let key = SigningKey::generate(&mut rand::rngs::OsRng);
    let pem = signing_key_to_pem(&key)?;
    let mut file = create_private(&path).with_context(|| format!("creating {}", path.display()))?;
    file.write_all(pem.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    file.sync_all()
        .with_context(|| format!("writing {}", path.display()))?;
    writeln!(
        out,
        "# private key written to {}; give the operator this entry:",
        path.display()
    )?;
    write!(
        out,
        "{}",
        trust_store_entry(&args.key_id, &key.verifying_key())
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Creates a new file readable only by its owner, from the start: never chmod after the
/// key is written, and never overwrite a key that may already be pinned somewhere.
fn create_private(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path)
}
