//! GitHub's published GraphQL schema, which every request is validated against.

use std::sync::LazyLock;

use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;

/// The defects of the published schema itself: `EnterpriseOwnerInfo` defines two fields
/// twice (the second copy with another field's description). The first definitions are
/// kept; any other error fails.
const SCHEMA_DEFECTS: &[&str] = &[
    "duplicate definitions for the `repositoryDeployKeySetting` field of object type `EnterpriseOwnerInfo`",
    "duplicate definitions for the `repositoryDeployKeySettingOrganizations` field of object type `EnterpriseOwnerInfo`",
];

/// GitHub's schema, parsed and validated once per process.
pub static SCHEMA: LazyLock<Valid<Schema>> = LazyLock::new(|| {
    let text = include_str!("../../github-graphql-schema.graphql");
    let schema = Schema::parse(text, "github-graphql-schema.graphql").unwrap_or_else(|e| {
        let found: Vec<String> = e.errors.iter().map(|d| d.to_json().message).collect();
        assert!(
            found.iter().all(|m| SCHEMA_DEFECTS.contains(&m.as_str())),
            "GitHub's GraphQL schema does not parse: {}",
            e.errors
        );
        e.partial
    });
    schema
        .validate()
        .unwrap_or_else(|e| panic!("GitHub's GraphQL schema does not validate: {}", e.errors))
});
