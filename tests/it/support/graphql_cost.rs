//! What a GraphQL document costs against GitHub's primary rate limit, by GitHub's published
//! formula ("Calculating a rate limit score"): add up the requests each connection needs,
//! assuming every `first`/`last` is reached (a connection nested in another is asked once
//! per parent node), divide by 100 and round; at least 1 point.

use apollo_compiler::ast::{Definition, Selection, Value as Literal};
use serde_json::Value;

/// The points of `document` sent with `variables`; `None` when it does not parse.
pub fn points(document: &str, variables: &Value) -> Option<u64> {
    let doc = apollo_compiler::ast::Document::parse(document, "document.graphql").ok()?;
    let mut requests = 0u64;
    for def in &doc.definitions {
        if let Definition::OperationDefinition(op) = def {
            walk(&op.selection_set, 1, variables, &mut requests);
        }
    }
    Some(((requests + 50) / 100).max(1))
}

/// Whether `@skip`/`@include` leave the field out: GitHub scores the query it will run,
/// as graphql-ruby's analysis does.
fn skipped(directives: &apollo_compiler::ast::DirectiveList, variables: &Value) -> bool {
    let flag = |name: &str| {
        directives.get(name).and_then(|d| {
            d.arguments
                .iter()
                .find(|a| a.name == "if")
                .and_then(|a| match a.value.as_ref() {
                    Literal::Boolean(b) => Some(*b),
                    Literal::Variable(v) => variables[v.as_str()].as_bool(),
                    _ => None,
                })
        })
    };
    flag("skip") == Some(true) || flag("include") == Some(false)
}

fn walk(selections: &[Selection], parents: u64, variables: &Value, requests: &mut u64) {
    for selection in selections {
        match selection {
            Selection::Field(field) if skipped(&field.directives, variables) => {}
            Selection::Field(field) => {
                let page = field
                    .arguments
                    .iter()
                    .find(|a| a.name == "first" || a.name == "last")
                    .and_then(|a| match a.value.as_ref() {
                        Literal::Int(n) => n.as_str().parse::<u64>().ok(),
                        Literal::Variable(v) => variables[v.as_str()].as_u64(),
                        _ => None,
                    });
                let nodes = match page {
                    Some(n) => {
                        *requests += parents;
                        parents * n
                    }
                    None => parents,
                };
                walk(&field.selection_set, nodes, variables, requests);
            }
            Selection::InlineFragment(f) => walk(&f.selection_set, parents, variables, requests),
            Selection::FragmentSpread(_) => {}
        }
    }
}

#[test]
fn github_documented_example_costs_what_github_says() {
    // GitHub's example: 100 repositories, 50 issues each, 60 labels per issue: 1 + 100 +
    // 5,000 requests, 51 points.
    let q = "query { viewer { login repositories(first: 100) { edges { node { id issues(first: 50) { edges { node { id labels(first: 60) { edges { node { id name } } } } } } } } } } }";
    assert_eq!(points(q, &Value::Null), Some(51));
    assert_eq!(points("query { viewer { login } }", &Value::Null), Some(1));
    let v = serde_json::json!({"n": 100});
    let q = "query($n: Int) { viewer { repositories(first: $n) { nodes { issues(first: 100) { nodes { labels(first: 100) { nodes { id } } } } } } } }";
    // 1 + 100 + 10,000 requests.
    assert_eq!(points(q, &v), Some(101));
}

#[test]
fn a_field_left_out_by_its_directive_costs_nothing() {
    let q = "query($t: Boolean!) { a: repository(owner: \"o\", name: \"n\") { issues(first: 100) @include(if: $t) { nodes { labels(first: 100) { nodes { name } } assignees(first: 100) { nodes { login } } } } } }";
    assert_eq!(points(q, &serde_json::json!({"t": true})), Some(2));
    assert_eq!(points(q, &serde_json::json!({"t": false})), Some(1));
}
