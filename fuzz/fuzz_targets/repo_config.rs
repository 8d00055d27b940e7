//! `.github/auditloop.yml` parsing through `RepoConfig::from_yaml`.
//!
//! Properties: never panics; an accepted config satisfies every per-field rule, and
//! survives a serialize/deserialize round trip unchanged (its validators accept what
//! they let through).
#![no_main]

use auditloop::engine::repo_config::{
    branch_name_rule, check_name_rule, decisions_path_rule, label_rule, RepoConfig,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(config) = RepoConfig::from_yaml(text) else {
        return;
    };
    assert_eq!(check_name_rule(&config.check_name), Ok(()));
    assert_eq!(branch_name_rule(&config.records_branch), Ok(()));
    assert_eq!(decisions_path_rule(&config.decisions_path), Ok(()));
    assert_eq!(label_rule(&config.tech_debt_label), Ok(()));
    let json = serde_json::to_string(&config).expect("a config serializes");
    let back: RepoConfig = serde_json::from_str(&json).expect("a serialized config is accepted");
    assert_eq!(back, config);
});
