//! `.github/auditloop.yml` (docs/reference.md#keys-and-defaults): every key, the defaults, and errors with lines.

use auditloop::engine::ids::Login;
use auditloop::engine::repo_config::{
    branch_name_rule, effective_assurance, Archetype, Assurance, CarryCertification,
    CompletionGate, ConfigError, Permission, RepoConfig, WorkUnitAudit,
};

fn parse(yaml: &str) -> RepoConfig {
    match RepoConfig::from_yaml(yaml) {
        Ok(config) => config,
        Err(err) => panic!("{yaml:?} should parse: {err}"),
    }
}

fn parse_err(yaml: &str) -> ConfigError {
    match RepoConfig::from_yaml(yaml) {
        Ok(config) => panic!("{yaml:?} should be refused, got {config:?}"),
        Err(err) => err,
    }
}

#[test]
fn empty_or_comment_only_file_is_all_defaults() {
    for yaml in ["", "\n", "# nothing here\n", "---\n"] {
        assert_eq!(parse(yaml), RepoConfig::default(), "{yaml:?}");
    }
}

#[test]
fn defaults_are_those_of_the_reference() {
    let c = RepoConfig::default();
    assert_eq!(c.work_unit_audit, WorkUnitAudit::Enabled);
    assert!(c.enabled());
    assert_eq!(c.audit_budget, 3);
    assert_eq!(c.check_name, "audit-gate");
    assert_eq!(c.records_branch, "auditloop-records");
    assert_eq!(c.assurance, Assurance::Standard);
    assert!(c.evidence.required_checks.is_empty());
    assert_eq!(c.evidence.archetype, None);
    assert!(c.evidence.gates.is_empty());
    assert_eq!(c.permissions.report, Permission::Write);
    assert_eq!(c.permissions.maintainer, Permission::Maintain);
    assert!(c.permissions.auditors.is_empty());
    assert!(c.baseline_on_push);
    assert_eq!(c.carry_certification, CarryCertification::IdenticalTree);
    assert!(c.patterns);
    assert!(!c.allow_self_approval);
    assert_eq!(c.decisions_path, "docs/decisions");
    assert_eq!(c.tech_debt_label, "tech-debt");
}

#[test]
fn the_documented_example_parses_to_the_defaults() {
    let yaml = "work_unit_audit: enabled\naudit_budget: 3\ncheck_name: audit-gate\n\
        records_branch: auditloop-records\nassurance: standard\nevidence:\n  required_checks: []\n  \
        archetype: null\n  gates: {}\npermissions:\n  report: write\n  maintainer: maintain\n  \
        auditors: []\nbaseline_on_push: true\ncarry_certification: identical_tree\npatterns: true\n\
        allow_self_approval: false\n\
        decisions_path: docs/decisions\ntech_debt_label: tech-debt\n";
    assert_eq!(parse(yaml), RepoConfig::default());
}

type Check = fn(&RepoConfig) -> bool;

#[test]
fn every_key_is_read() {
    let cases: &[(&str, Check)] = &[
        ("work_unit_audit: disabled", |c| {
            c.work_unit_audit == WorkUnitAudit::Disabled && !c.enabled()
        }),
        ("audit_budget: 7", |c| c.audit_budget == 7),
        ("check_name: my-gate", |c| c.check_name == "my-gate"),
        ("records_branch: audit/records", |c| {
            c.records_branch == "audit/records"
        }),
        ("assurance: hardened", |c| {
            c.assurance == Assurance::Hardened
        }),
        ("evidence:\n  required_checks: [test, clippy]", |c| {
            c.evidence.required_checks == ["test", "clippy"]
        }),
        ("evidence:\n  archetype: audit", |c| {
            c.evidence.archetype == Some(Archetype::Audit)
        }),
        (
            "evidence:\n  gates: {build: [test], lint: [clippy, fmt]}",
            |c| {
                c.evidence.gates.get(&CompletionGate::Build) == Some(&vec!["test".to_string()])
                    && c.evidence.gates[&CompletionGate::Lint] == ["clippy", "fmt"]
            },
        ),
        ("permissions:\n  report: triage", |c| {
            c.permissions.report == Permission::Triage
        }),
        ("permissions:\n  maintainer: admin", |c| {
            c.permissions.maintainer == Permission::Admin
        }),
        ("permissions:\n  auditors: ['my-auditor[bot]']", |c| {
            c.permissions.auditors == ["my-auditor[bot]"]
        }),
        ("baseline_on_push: false", |c| !c.baseline_on_push),
        ("carry_certification: never", |c| {
            c.carry_certification == CarryCertification::Never
        }),
        ("patterns: false", |c| !c.patterns),
        ("allow_self_approval: true", |c| c.allow_self_approval),
        ("decisions_path: adr", |c| c.decisions_path == "adr"),
        ("tech_debt_label: debt", |c| c.tech_debt_label == "debt"),
    ];
    for (yaml, holds) in cases {
        let config = parse(yaml);
        assert!(holds(&config), "{yaml:?} gave {config:?}");
        assert_ne!(config, RepoConfig::default(), "{yaml:?} changed nothing");
    }
}

#[test]
fn errors_name_the_file_the_line_and_the_problem() {
    let cases: &[(&str, usize, &str)] = &[
        // bad YAML
        ("audit_budget: 3\ncheck_name: \"open\n", 2, "unclosed quote"),
        (
            "audit_budget: 3\nevidence: {required_checks: [a\n",
            2,
            "unclosed bracket",
        ),
        (
            "audit_budget: 3\ncheck_name: a\ncheck_name: b\n",
            3,
            "duplicate mapping key: check_name",
        ),
        // unknown keys, at every level
        ("audit_budget: 3\nbudget: 4\n", 2, "unknown field `budget`"),
        (
            "evidence:\n  archetype: audit\n  extra: 1\n",
            3,
            "unknown field `extra`",
        ),
        (
            "permissions:\n  writer: admin\n",
            2,
            "unknown field `writer`",
        ),
        (
            "evidence:\n  gates:\n    bild: [x]\n",
            3,
            "unknown variant `bild`",
        ),
        // wrong types and values
        ("audit_budget: many\n", 1, "audit_budget: invalid u32"),
        ("audit_budget: -1\n", 1, "invalid u32"),
        ("audit_budget: 0\n", 1, "at least 1"),
        (
            "baseline_on_push: sometimes\n",
            1,
            "baseline_on_push: invalid boolean",
        ),
        ("work_unit_audit: maybe\n", 1, "unknown variant `maybe`"),
        ("assurance: paranoid\n", 1, "unknown variant `paranoid`"),
        (
            "evidence:\n  required_checks: test\n",
            2,
            "expected sequence",
        ),
        (
            "evidence:\n  archetype: chaos\n",
            2,
            "unknown variant `chaos`",
        ),
        (
            "permissions:\n  report: owner\n",
            2,
            "unknown variant `owner`",
        ),
        (
            "permissions:\n  auditors: ['not a login']\n",
            2,
            "GitHub login",
        ),
        ("records_branch: 'a..b'\n", 1, "not a valid git branch name"),
        ("check_name: ''\n", 1, "check_name"),
        ("decisions_path: ../secrets\n", 1, "decisions_path"),
        ("tech_debt_label: ''\n", 1, "tech_debt_label"),
        ("evidence:\n  required_checks: ['']\n", 2, "required_checks"),
        ("evidence:\n  gates: {build: ['']}\n", 2, "gates"),
        ("- a list\n", 1, "expected mapping"),
    ];
    for (yaml, line, needle) in cases {
        let err = parse_err(yaml);
        assert_eq!(err.line, Some(*line), "{yaml:?}: {err}");
        assert!(err.message.contains(needle), "{yaml:?}: {err}");
        let shown = err.to_string();
        assert!(
            shown.starts_with(&format!(".github/auditloop.yml line {line}: ")),
            "{shown}"
        );
        assert!(
            !shown.contains(" at line "),
            "position given twice: {shown}"
        );
    }
}

#[test]
fn hostile_documents_are_refused_within_the_parser_budget() {
    // Aliases that type-check, past the parser's alias budget.
    let aliases = format!(
        "permissions:\n  auditors: [&a octocat, {}]\n",
        vec!["*a"; 5_000].join(", ")
    );
    // A classic alias bomb: each level refers to the one before ten times.
    let mut bomb = String::from("evidence:\n  gates:\n    build: &a0 [x]\n");
    for n in 1..12 {
        let refs = vec![format!("*a{}", n - 1); 10].join(", ");
        bomb.push_str(&format!("    lint: &a{n} [{refs}]\n"));
    }
    let deep = format!("evidence: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let huge = format!("check_name: \"{}\"\n", "x".repeat(300 * 1024));
    for (yaml, needle) in [
        (aliases, "alias"),
        (bomb, ""),
        (deep, "expected mapping"),
        (huge, "at most 65536"),
    ] {
        let err = parse_err(&yaml);
        assert!(err.message.contains(needle), "{}", err.message);
    }
}

#[test]
fn an_error_without_a_position_still_names_the_file() {
    let err = ConfigError {
        line: None,
        column: None,
        message: "boom".into(),
    };
    assert_eq!(err.to_string(), ".github/auditloop.yml: boom");
}

#[test]
fn branch_names_follow_git_rules() {
    let good = ["auditloop-records", "audit/records", "a.b", "records_v2"];
    let bad = [
        "",
        "-x",
        "/x",
        "x/",
        "x.",
        "a..b",
        "a//b",
        "a@{b",
        "@",
        "a b",
        "a~b",
        "a^b",
        "a:b",
        "a?b",
        "a*b",
        "a[b",
        "a\\b",
        ".hidden",
        "a/.b",
        "x.lock",
        "a/b.lock/c",
        "tab\tx",
        "HEAD",
    ];
    for name in good {
        assert!(branch_name_rule(name).is_ok(), "{name:?}");
    }
    for name in bad {
        assert!(branch_name_rule(name).is_err(), "{name:?}");
    }
}

#[test]
fn a_repository_raises_the_operator_minimum_but_never_lowers_it() {
    use Assurance::*;
    let cases = [
        (Standard, Standard, Standard),
        (Hardened, Standard, Hardened),
        (Standard, Hardened, Hardened),
        (Hardened, Hardened, Hardened),
    ];
    for (repo, operator, want) in cases {
        assert_eq!(
            effective_assurance(repo, operator),
            want,
            "{repo:?} {operator:?}"
        );
        let config = RepoConfig {
            assurance: repo,
            ..RepoConfig::default()
        };
        assert_eq!(config.effective_assurance(operator), want);
    }
}

#[test]
fn archetype_gates_follow_seed_003() {
    use CompletionGate::*;
    let all = [Build, Lint, Integration, Security, Docs];
    let cases: [(Archetype, &[CompletionGate]); 5] = [
        (Archetype::Implementation, &all),
        (Archetype::Hybrid, &all),
        (Archetype::Audit, &[Integration, Security]),
        (Archetype::Research, &[]),
        (Archetype::Planning, &[]),
    ];
    for (archetype, gates) in cases {
        assert_eq!(archetype.required_gates(), gates, "{archetype:?}");
    }
}

#[test]
fn permission_words_are_ranked() {
    use Permission::*;
    assert!(Read < Triage && Triage < Write && Write < Maintain && Maintain < Admin);
    assert_eq!(Maintain.as_str(), "maintain");
}

#[test]
fn listed_auditors_match_case_insensitively() {
    let config = parse("permissions:\n  auditors: ['My-Auditor[bot]']\n");
    let login = |s: &str| Login::new(s).unwrap_or_else(|e| panic!("{e}"));
    assert!(config
        .permissions
        .is_listed_auditor(&login("my-auditor[bot]")));
    assert!(!config.permissions.is_listed_auditor(&login("someone")));
}
