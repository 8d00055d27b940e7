//! The tools `auditloop mcp` lists are the tools docs/auditor.md's table and `mcp --help`
//! name: no more, no fewer, and the count the guide says in words.

use std::process::Command;

use crate::mcp_tools::connect;

/// The tools the server lists, sorted.
async fn served_tools() -> Vec<String> {
    // `tools/list` asks nothing of GitHub: an address that answers nothing will do.
    let client = connect("http://127.0.0.1:9", "unused-token").await;
    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort_unstable();
    client.cancel().await.unwrap();
    names
}

/// The first code span of each row of the table headed `| tool |` in docs/auditor.md.
fn documented_tools(guide: &str) -> Vec<String> {
    let mut names: Vec<String> = guide
        .lines()
        .skip_while(|l| !l.starts_with("| tool |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|row| row.split('`').nth(1).map(str::to_owned))
        .collect();
    names.sort_unstable();
    names
}

/// The names after "its tools:" in `auditloop mcp --help`'s first line.
fn help_tools(help: &str) -> Vec<String> {
    let line = help.lines().next().unwrap_or_default();
    let listed = line.split("its tools:").nth(1).unwrap_or_default();
    let mut names: Vec<String> = listed
        .split(',')
        .map(|n| n.trim().trim_end_matches('.').to_owned())
        .filter(|n| !n.is_empty())
        .collect();
    names.sort_unstable();
    names
}

fn in_words(n: usize) -> &'static str {
    [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ][n]
}

#[tokio::test]
async fn the_guide_and_mcp_help_list_exactly_the_tools_the_server_lists() {
    let served = served_tools().await;
    assert!(served.iter().any(|t| t == "list_audits"), "{served:?}");

    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/auditor.md")).unwrap();
    assert_eq!(
        documented_tools(&guide),
        served,
        "docs/auditor.md's tool table"
    );
    let count = format!("with {} tools", in_words(served.len()));
    assert!(guide.contains(&count), "docs/auditor.md says {count:?}");

    let out = Command::new(env!("CARGO_BIN_EXE_auditloop"))
        .args(["mcp", "--help"])
        .env_clear()
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    assert_eq!(help_tools(&help), served, "`auditloop mcp --help`: {help}");
}

#[test]
fn a_tool_left_out_of_the_table_is_noticed() {
    let table = "| tool | reads |\n| --- | --- |\n| `a` `{x}` | reads |\n| `b` | writes |\n\nafter";
    assert_eq!(documented_tools(table), ["a", "b"]);
    assert_eq!(
        help_tools("A server; its tools: b, a.\n\nUsage"),
        ["a", "b"]
    );
}
