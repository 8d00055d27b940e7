//! `validate_report` and `post_report` give `report` the report's own JSON Schema as its
//! input schema in `tools/list`, every field described, so an agent is told the shape
//! before it writes a report (docs/reference.md#auditloop-mcp).

use crate::cli_remote::TOKEN;
use crate::mcp_tools::connect;
use crate::support;

use auditloop::engine::report::schema::{inlined_schema, SCHEMA_TEXT};
use serde_json::Value;
use support::audit::Loop;

/// Every property of `schema`, at any depth, as `path` and its schema.
fn properties<'a>(schema: &'a Value, at: &str, out: &mut Vec<(String, &'a Value)>) {
    if let Some(map) = schema["properties"].as_object() {
        for (name, property) in map {
            let path = format!("{at}.{name}");
            out.push((path.clone(), property));
            properties(property, &path, out);
        }
    }
    if schema["items"].is_object() {
        properties(&schema["items"], &format!("{at}[]"), out);
    }
}

#[tokio::test]
async fn report_tools_carry_the_report_schema() {
    let l = Loop::start(42).await;
    let client = connect(&l.gh.api_url(), TOKEN).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    for name in ["validate_report", "post_report"] {
        let tool = tools.iter().find(|t| t.name == name).expect(name);
        let tool = serde_json::to_value(tool).expect("JSON");
        let report = &tool["inputSchema"]["properties"]["report"];
        assert_eq!(report["type"], "object", "{name}: {report:#}");
        assert_eq!(report["additionalProperties"], false, "{name}");
        assert_eq!(report["properties"]["schema"]["const"], "auditor_report_v1");
        assert_eq!(
            report["properties"]["findings"]["items"]["properties"]["id"]["pattern"],
            "^A-[0-9]{2,}$",
            "{name}: $refs are inlined"
        );
        let mode = report["properties"]["invocation"]["properties"]["mode"]["description"]
            .as_str()
            .unwrap_or_default();
        assert!(
            mode.contains("host_subagent") && mode.contains("explicit_agent_invocation"),
            "{name}: {mode}"
        );
        let text = report.to_string();
        assert!(!text.contains("$ref"), "{name}: a $ref left: {text}");
        assert_eq!(report["required"], inlined_schema()["required"], "{name}");
    }
}

#[test]
fn every_property_of_the_report_schema_is_described() {
    let schema: Value = serde_json::from_str(SCHEMA_TEXT).expect("schema");
    let mut found = Vec::new();
    properties(&schema, "$", &mut found);
    for (_, def) in schema["$defs"].as_object().expect("$defs") {
        properties(def, "$defs", &mut found);
    }
    assert!(found.len() > 50, "{}", found.len());
    for (path, property) in found {
        let description = property["description"].as_str().unwrap_or_default();
        assert!(description.len() > 5, "{path} has no description");
    }
}
