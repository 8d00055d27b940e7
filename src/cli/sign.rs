//! `auditloop sign --key FILE --key-id ID --repository OWNER/REPO [--ttl 1h] REPORT.json`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use chrono::{Duration, Utc};

use crate::engine::receipt::{is_valid_key_id, sign_report, signing_key_from_pem};
use crate::engine::report::parse_report;
use crate::ids::RepoName;
use crate::remote::exit_codes::Usage;

#[derive(clap::Args, Debug)]
pub struct SignArgs {
    /// The auditor's private key (PKCS#8 PEM, as `keygen` or openssl writes it).
    #[arg(long)]
    pub key: PathBuf,
    /// The key id the operator pinned for this key.
    #[arg(long)]
    pub key_id: String,
    /// The repository the report is for, OWNER/REPO.
    #[arg(long)]
    pub repository: RepoName,
    /// How long the receipt stays valid: `90s`, `30m`, `1h`, `2h30m`, `1d`.
    #[arg(long, default_value = "1h", value_parser = parse_ttl)]
    pub ttl: Duration,
    /// The report file, or `-` for standard input.
    pub report: PathBuf,
}

/// Prints the normalized report with its signed receipt, or every problem and exits 1.
///
/// # Errors
///
/// When `--key-id` is invalid, the key or the report cannot be read, or the output cannot be
/// written; a report with problems is exit code 1, not an error.
pub fn run(args: &SignArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    if !is_valid_key_id(&args.key_id) {
        bail!(
            "--key-id {:?} must be 1-100 letters, digits, '-' or '_'",
            args.key_id
        );
    }
    let pem = std::fs::read_to_string(&args.key)
        .map_err(|e| Usage(format!("cannot read {}: {e}", args.key.display())))?;
    let key =
        signing_key_from_pem(&pem).with_context(|| format!("reading {}", args.key.display()))?;
    let text = crate::remote::read_input(&args.report)?;
    let intake = match parse_report(&text) {
        Ok(intake) => intake,
        Err(problems) => {
            for problem in problems {
                writeln!(out, "{problem}")?;
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    let receipt_id = uuid::Uuid::new_v4().to_string();
    let signed = sign_report(
        intake.report,
        &key,
        &args.key_id,
        &args.repository,
        Utc::now(),
        args.ttl,
        receipt_id,
    );
    serde_json::to_writer_pretty(&mut *out, &signed)?;
    writeln!(out)?;
    Ok(ExitCode::SUCCESS)
}

/// Parses `90s`, `30m`, `1h`, `2h30m`, `1d`: one or more number+unit pairs, units in
/// descending order, each at most once; the total must be positive and at most 7 days.
///
/// # Errors
///
/// With a message naming the accepted forms when `text` is not such a duration or is out of range.
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    let invalid = || format!("{text:?} is not a duration like 90s, 30m, 1h or 2h30m");
    let units = [('d', 86_400i64), ('h', 3_600), ('m', 60), ('s', 1)];
    let mut rest = text.trim();
    let mut next_unit = 0;
    let mut seconds: i64 = 0;
    if rest.is_empty() {
        return Err(invalid());
    }
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (number, tail) = rest.split_at(digits);
        let unit = tail.chars().next().ok_or_else(invalid)?;
        let position = units[next_unit..]
            .iter()
            .position(|(u, _)| *u == unit)
            .ok_or_else(invalid)?
            + next_unit;
        let n: i64 = number.parse().map_err(|_| invalid())?;
        seconds = n
            .checked_mul(units[position].1)
            .and_then(|s| s.checked_add(seconds))
            .ok_or_else(invalid)?;
        next_unit = position + 1;
        rest = &tail[unit.len_utf8()..];
    }
    if seconds <= 0 || seconds > 7 * 86_400 {
        return Err(format!(
            "{text:?}: a receipt's lifetime must be between 1s and 7d"
        ));
    }
    Ok(Duration::seconds(seconds))
}

#[cfg(test)]
mod tests {
    use super::parse_ttl;

    #[test]
    fn ttl_forms() {
        let cases: &[(&str, Option<i64>)] = &[
            ("90s", Some(90)),
            ("30m", Some(1800)),
            ("1h", Some(3600)),
            ("2h30m", Some(9000)),
            ("1d", Some(86_400)),
            ("1h0m5s", Some(3605)),
            ("7d", Some(604_800)),
            ("8d", None),
            ("0s", None),
            ("", None),
            ("1", None),
            ("h", None),
            ("30m1h", None),
            ("1h1h", None),
            ("1x", None),
            ("-5m", None),
            ("99999999999999999999s", None),
            ("1h é", None),
        ];
        for (text, seconds) in cases {
            assert_eq!(
                parse_ttl(text).ok().map(|d| d.num_seconds()),
                *seconds,
                "{text:?}"
            );
        }
    }
}
