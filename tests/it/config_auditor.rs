//! The `auditor:` keys of `.github/auditloop.yml` (docs/reference.md#keys-and-defaults).

use auditloop::engine::repo_config::auditor::DispatchMode;
use auditloop::engine::repo_config::RepoConfig;

#[test]
fn the_app_waits_for_reports_unless_told_to_dispatch() {
    let c = RepoConfig::default();
    assert_eq!(c.auditor.dispatch, DispatchMode::None);
    assert_eq!(c.auditor.event_type, "auditloop-audit");
    assert_eq!(c.auditor.dispatches(), None);
    let doc = RepoConfig::from_yaml("auditor:\n  dispatch: none\n  event_type: auditloop-audit\n")
        .unwrap();
    assert_eq!(
        doc,
        RepoConfig::default(),
        "the documented example is the default"
    );

    let c = RepoConfig::from_yaml("auditor:\n  dispatch: repository_dispatch\n").unwrap();
    assert_eq!(c.auditor.dispatches(), Some("auditloop-audit"));
    let c = RepoConfig::from_yaml(
        "auditor:\n  dispatch: repository_dispatch\n  event_type: audit-me\n",
    )
    .unwrap();
    assert_eq!(c.auditor.dispatches(), Some("audit-me"));
}

#[test]
fn bad_auditor_keys_are_errors_with_their_line() {
    for (yaml, line, says) in [
        (
            "auditor:\n  dispatch: workflow_dispatch\n",
            2,
            "unknown variant",
        ),
        (
            "auditor:\n  dispatch: repository_dispatch\n  event_typ: x\n",
            3,
            "unknown field",
        ),
        ("auditor:\n  event_type: \"\"\n", 2, "auditor.event_type"),
        (
            &format!("auditor:\n  event_type: {}\n", "e".repeat(101)),
            2,
            "1 to 100 characters",
        ),
    ] {
        let err = RepoConfig::from_yaml(yaml).unwrap_err();
        assert_eq!(err.line, Some(line), "{yaml:?}: {err}");
        assert!(err.to_string().contains(says), "{yaml:?}: {err}");
    }
}
