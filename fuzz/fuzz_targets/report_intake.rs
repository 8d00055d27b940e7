//! Report intake, text → JSON → schema → rules, and the plan-audit text handoff.
//!
//! Properties: intake never panics; normalization is idempotent on any JSON value; an
//! accepted report is already in typed normal form, and its canonical bytes are accepted
//! again as the same report with the same digest.
#![no_main]

use auditloop::engine::report::{normalize_report, normalize_value, parse_handoff, parse_report};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = parse_handoff(text);

    if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
        let once = normalize_value(&value);
        assert_eq!(normalize_value(&once), once, "normalization is idempotent");
    }

    let Ok(intake) = parse_report(text) else {
        return;
    };
    assert!(intake.report.receipt.is_none());
    assert_eq!(
        normalize_report(intake.report.clone()),
        intake.report,
        "an accepted report is already normalized"
    );
    let canonical = std::str::from_utf8(&intake.canonical).expect("canonical JSON is UTF-8");
    let again =
        parse_report(canonical).expect("canonical bytes of an accepted report are accepted");
    assert_eq!(again.report, intake.report);
    assert_eq!(again.digest, intake.digest);
    assert_eq!(again.canonical, intake.canonical);
});
