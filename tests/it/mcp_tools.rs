//! `auditloop mcp` driven by a real MCP client (rmcp's own, over the child's standard
//! input and output) against the fake GitHub: the tools answer as their commands do, and
//! every failure is a tool error after which the server keeps serving (docs/reference.md#auditloop-mcp).

use crate::cli_remote::{auditloop, TOKEN};
use crate::support;

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt as _};
use serde_json::{json, Value};
use support::audit::{report, report_comment, Loop, SHA1};
use support::deliveries::{pr_comment, REPO};

pub type Client = RunningService<RoleClient, ()>;

pub async fn connect(api_url: &str, token: &str) -> Client {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_auditloop")).configure(|c| {
        c.arg("mcp")
            .env_clear()
            .env("GITHUB_TOKEN", token)
            .env("GITHUB_API_URL", api_url)
            .stderr(Stdio::null());
    });
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

/// Calls `tool` and gives the result as it went over the wire.
pub async fn call(client: &Client, tool: &'static str, args: Value) -> Value {
    let params = CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone());
    let result = client.call_tool(params).await.unwrap();
    serde_json::to_value(result).unwrap()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

fn words(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// PR 42 with a record and one run.
async fn one_run() -> Loop {
    let mut l = Loop::start(42).await;
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let first = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    l.comment(42, "auditor", &report_comment(&first)).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    l
}

fn broken_report() -> Value {
    let mut bad = report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation");
    bad["assessment"] = json!("TBD");
    bad["surprise"] = json!(true);
    bad
}

#[tokio::test]
async fn tools_list_shows_the_five_tools_with_schemas_and_hints() {
    let l = Loop::start(42).await;
    let client = connect(&l.gh.api_url(), TOKEN).await;
    let info = serde_json::to_value(client.peer_info().unwrap()).unwrap();
    assert_eq!(info["serverInfo"]["name"], "auditloop");
    assert!(info["capabilities"]["tools"].is_object(), "{info:#}");

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "audit_packet",
            "gate_status",
            "list_audits",
            "post_report",
            "validate_report"
        ]
    );
    let wanted = [
        ("audit_packet", true, vec!["pr", "repo"]),
        ("validate_report", true, vec!["report"]),
        ("gate_status", true, vec!["pr", "repo"]),
        ("list_audits", true, vec!["repo"]),
        ("post_report", false, vec!["pr", "repo", "report"]),
    ];
    for (name, read_only, required) in wanted {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let t = serde_json::to_value(tool).unwrap();
        assert_eq!(t["annotations"]["readOnlyHint"], json!(read_only), "{t:#}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t:#}");
        let mut req: Vec<&str> = t["inputSchema"]["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        req.sort_unstable();
        assert_eq!(req, required, "{t:#}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t:#}");
        assert!(t["description"].as_str().is_some_and(|d| d.len() > 40));
    }
    let post =
        serde_json::to_value(tools.iter().find(|t| t.name == "post_report").unwrap()).unwrap();
    assert_eq!(
        post["inputSchema"]["properties"]["report"]["type"], "object",
        "the report is an object, not a string: {post:#}"
    );
    for key in ["posted", "comment_url", "reason"] {
        assert!(
            post["outputSchema"]["properties"][key].is_object(),
            "{post:#}"
        );
    }
    let status =
        serde_json::to_value(tools.iter().find(|t| t.name == "gate_status").unwrap()).unwrap();
    for key in ["passes", "conclusion", "conditions", "record"] {
        assert!(
            status["outputSchema"]["properties"][key].is_object(),
            "{status:#}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn each_tool_answers_as_its_command_does() {
    let l = one_run().await;
    let dir = tempfile::tempdir().unwrap();
    let api = l.gh.api_url();
    let client = connect(&api, TOKEN).await;

    // The packet, byte for byte.
    let cli = auditloop(&api, dir.path(), &["packet", "--repo", REPO, "--pr", "42"]).await;
    assert!(cli.status.success());
    let result = call(&client, "audit_packet", json!({"repo": REPO, "pr": 42})).await;
    assert!(!is_error(&result), "{result:#}");
    assert_eq!(
        format!("{}\n", words(&result)),
        String::from_utf8(cli.stdout.clone()).unwrap()
    );
    let printed: Value = serde_json::from_slice(&cli.stdout).unwrap();
    support::schemas::assert_packet(&printed);
    assert_eq!(result["structuredContent"], printed);

    // A valid report: the digest `validate` prints.
    let good = report("AUD-1", 42, SHA1, "ci-run-2", "needs_remediation");
    let path = dir.path().join("good.json");
    std::fs::write(&path, serde_json::to_string_pretty(&good).unwrap()).unwrap();
    let cli = auditloop(&api, dir.path(), &["validate", path.to_str().unwrap()]).await;
    assert!(cli.status.success());
    let result = call(&client, "validate_report", json!({"report": good})).await;
    assert!(!is_error(&result), "{result:#}");
    let digest = String::from_utf8(cli.stdout).unwrap();
    assert_eq!(result["structuredContent"]["ok"], true);
    assert_eq!(result["structuredContent"]["digest"], digest.trim());
    assert_eq!(result["structuredContent"]["problems"], json!([]));

    // A broken one: the same problems, in the same words, as items.
    let path = dir.path().join("bad.json");
    std::fs::write(&path, broken_report().to_string()).unwrap();
    let cli = auditloop(&api, dir.path(), &["validate", path.to_str().unwrap()]).await;
    assert_eq!(cli.status.code(), Some(1));
    let result = call(
        &client,
        "validate_report",
        json!({"report": broken_report()}),
    )
    .await;
    assert!(!is_error(&result), "{result:#}");
    let s = &result["structuredContent"];
    assert_eq!(s["ok"], false);
    assert_eq!(s["digest"], Value::Null);
    let items: Vec<String> = s["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}: {}: {}",
                p["rule"].as_str().unwrap(),
                p["path"].as_str().unwrap(),
                p["message"].as_str().unwrap()
            )
        })
        .collect();
    let lines: Vec<String> = String::from_utf8(cli.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(items, lines);
    assert!(items.len() >= 2, "{items:?}");
    assert_eq!(words(&result), lines.join("\n"));

    // The gate: what `status --json` prints.
    let cli = auditloop(
        &api,
        dir.path(),
        &["status", "--repo", REPO, "--pr", "42", "--json"],
    )
    .await;
    assert_eq!(cli.status.code(), Some(1));
    let printed: Value = serde_json::from_slice(&cli.stdout).unwrap();
    let result = call(&client, "gate_status", json!({"repo": REPO, "pr": 42})).await;
    assert!(!is_error(&result), "{result:#}");
    assert_eq!(result["structuredContent"], printed);
    assert_eq!(
        result["structuredContent"]["conclusion"],
        l.gate(SHA1)["conclusion"]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn post_report_posts_once_and_expect_run_stops_a_second_post() {
    let mut l = Loop::start(42).await;
    l.gh.set_file(
        ".github/auditloop.yml",
        "permissions:\n  auditors: [\"github-actions[bot]\"]\n",
    );
    l.pull_event("opened", 42, SHA1).await;
    l.new_record(42).await;
    let client = connect(&l.gh.api_url(), TOKEN).await;
    let r = report("AUD-1", 42, SHA1, "gha-77-1", "needs_remediation");
    let comments = l.gh.comments_on(42).len();
    let args = json!({"repo": REPO, "pr": 42, "report": r, "expect_run": 1});

    let result = call(&client, "post_report", args.clone()).await;
    assert!(!is_error(&result), "{result:#}");
    let s = &result["structuredContent"];
    assert_eq!(s["posted"], true, "{result:#}");
    assert!(
        s["comment_url"]
            .as_str()
            .is_some_and(|u| u.contains("#issuecomment-")),
        "{s:#}"
    );
    assert_eq!(s["reason"], Value::Null);
    let posted = l.gh.comments_on(42);
    assert_eq!(posted.len(), comments + 1);
    let body = posted.last().unwrap().clone();
    assert!(body.starts_with("/audit report\n\n```json\n{"), "{body}");

    // The comment's own delivery, by the workflow's bot, becomes run 1.
    let mut delivery = pr_comment(42, "github-actions[bot]", &body);
    delivery["comment"]["user"]["type"] = json!("Bot");
    delivery["sender"] = delivery["comment"]["user"].clone();
    l.deliver("issue_comment", &delivery).await;
    assert!(l.refusals(42).is_empty(), "{:?}", l.refusals(42));
    assert_eq!(
        l.record("AUD-1")["history"][1]["invocation_ref"],
        "gha-77-1"
    );

    // A repeated dispatch: run 1 exists, nothing is posted.
    let result = call(&client, "post_report", args).await;
    assert!(!is_error(&result), "{result:#}");
    let s = &result["structuredContent"];
    assert_eq!(s["posted"], false);
    assert_eq!(s["comment_url"], Value::Null);
    assert_eq!(s["reason"], "run 1 of AUD-1 already exists; nothing posted");
    assert_eq!(l.gh.comments_on(42).len(), comments + 1, "nothing more");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn failures_are_tool_errors_and_the_server_keeps_serving() {
    let l = Loop::start(42).await;
    let dir = tempfile::tempdir().unwrap();
    let api = l.gh.api_url();
    let client = connect(&api, TOKEN).await;
    let pull = json!({"repo": REPO, "pr": 42});
    let valid = json!({"report": report("AUD-1", 42, SHA1, "ci-run-1", "needs_remediation")});
    let still_serves = || async {
        let ok = call(&client, "validate_report", valid.clone()).await;
        assert!(
            !is_error(&ok) && ok["structuredContent"]["ok"] == true,
            "{ok:#}"
        );
    };

    // No record: the words `packet` prints.
    let cli = auditloop(&api, dir.path(), &["packet", "--repo", REPO, "--pr", "42"]).await;
    assert_eq!(cli.status.code(), Some(1));
    let result = call(&client, "audit_packet", pull.clone()).await;
    assert!(is_error(&result), "{result:#}");
    assert_eq!(
        words(&result),
        String::from_utf8(cli.stderr).unwrap().trim()
    );
    assert!(words(&result).contains("no audit record"), "{result:#}");
    still_serves().await;

    // A repository name that is not one.
    let result = call(
        &client,
        "gate_status",
        json!({"repo": "not-a-repo", "pr": 42}),
    )
    .await;
    assert!(is_error(&result), "{result:#}");
    assert!(words(&result).contains("not-a-repo"), "{result:#}");
    still_serves().await;

    // A token GitHub refuses.
    l.gh.fail_next("GET", "/repos/octo-org/hello", 401, &[]);
    let result = call(&client, "gate_status", pull.clone()).await;
    assert!(is_error(&result), "{result:#}");
    assert!(words(&result).contains("401"), "{result:#}");
    still_serves().await;

    // A broken report is not posted; the problems come as items.
    let posts = || {
        l.gh.requests()
            .iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/comments"))
            .count()
    };
    let result = call(
        &client,
        "post_report",
        json!({"repo": REPO, "pr": 42, "report": broken_report()}),
    )
    .await;
    assert!(is_error(&result), "{result:#}");
    assert_eq!(result["structuredContent"]["posted"], false);
    assert!(!result["structuredContent"]["problems"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(
        words(&result).contains("placeholder: assessment"),
        "{result:#}"
    );
    assert_eq!(posts(), 0);
    still_serves().await;

    // Arguments that do not fit the schema: a tool error too, not a protocol error.
    let result = call(&client, "audit_packet", json!({"repo": REPO})).await;
    assert!(is_error(&result), "{result:#}");
    assert!(words(&result).contains("pr"), "{result:#}");
    let result = call(
        &client,
        "validate_report",
        json!({"report": "{\"not\": \"an object\"}"}),
    )
    .await;
    assert!(is_error(&result), "{result:#}");
    still_serves().await;
    client.cancel().await.unwrap();
}

/// Reads one line of the server's standard output as a JSON-RPC message.
fn message(line: &str) -> Value {
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    assert_eq!(v["jsonrpc"], "2.0", "{line}");
    v
}

#[tokio::test]
async fn standard_output_carries_only_protocol_messages() {
    let l = Loop::start(42).await;
    let api = l.gh.api_url();
    let (lines, stderr) = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_auditloop"))
            .env_clear()
            .env("GITHUB_TOKEN", TOKEN)
            .env("GITHUB_API_URL", api)
            .env("AUDITLOOP_LOG", "trace")
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        // Read standard error as it comes: trace logs of the tools' schemas fill a pipe.
        let mut stderr = child.stderr.take().unwrap();
        let logs = std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut text).unwrap();
            text
        });
        let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
        let mut lines = Vec::new();
        let mut read = |lines: &mut Vec<String>| {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            lines.push(line.trim_end().to_owned());
        };
        send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        );
        read(&mut lines);
        send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        read(&mut lines);
        // Calls that reach GitHub and fail, and one the tool cannot read.
        send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "audit_packet", "arguments": {"repo": REPO, "pr": 42}}}));
        read(&mut lines);
        send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "post_report", "arguments": {"repo": REPO}}}));
        read(&mut lines);
        drop(stdin);
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
        lines.extend(rest.lines().map(str::to_owned));
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "the server ends cleanly when the client leaves"
        );
        (lines, logs.join().unwrap())
    })
    .await
    .unwrap();
    let messages: Vec<Value> = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| message(l))
        .collect();
    assert_eq!(messages.len(), 4, "{lines:#?}");
    for (i, m) in messages.iter().enumerate() {
        assert_eq!(m["id"], json!(i + 1), "{m:#}");
        assert!(m.get("error").is_none(), "no protocol error: {m:#}");
    }
    assert_eq!(messages[2]["result"]["isError"], true);
    assert_eq!(messages[3]["result"]["isError"], true);
    assert!(!stderr.is_empty(), "the logs go to standard error");
}
