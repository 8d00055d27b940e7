//! The five tools (docs/reference.md#auditloop-mcp). Each answers with the words and data the matching command
//! prints, through the same functions; a failure is a result with `isError: true`, never a
//! protocol error, so an agent reads what went wrong and the server keeps serving.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_empty_input, schema_for_input, schema_for_output};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{tool, tool_handler, tool_router, ServerHandler};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::io::{
    AuditList, Packet, PostInput, PostOutput, ProblemOut, PullInput, RepoInput, ValidateInput,
    ValidateOutput,
};
use crate::engine::repo_config::Assurance;
use crate::engine::report::parse_report;
use crate::ids::RepoName;
use crate::remote::connection::RemoteArgs;
use crate::remote::packet::packet_json;
use crate::remote::post::{prepare, send, Unpostable};
use crate::remote::status::{damaged_words, repo_json, repo_status, status};
use crate::remote::status_view::GateStatus;

/// How the tools reach GitHub: the rules `packet` and `post` follow (docs/reference.md#command-line). No
/// `Debug`: it holds the token.
#[derive(Clone)]
pub(crate) struct Remote {
    pub(crate) token: Option<String>,
    pub(crate) github_api_url: String,
    pub(crate) operator_min: Assurance,
}

#[derive(Clone)]
pub(crate) struct Tools {
    remote: Arc<Remote>,
    tool_router: ToolRouter<Self>,
}

/// The schema of a tool's arguments; the arguments themselves are read by [`args`], so
/// that arguments that do not fit are a tool error the agent can read.
fn input<T: schemars::JsonSchema + 'static>() -> Arc<JsonObject> {
    schema_for_input::<T>().unwrap_or_else(|_| schema_for_empty_input())
}

fn args<T: DeserializeOwned>(raw: JsonObject) -> Result<T, CallToolResult> {
    serde_json::from_value(serde_json::Value::Object(raw)).map_err(|e| {
        failure(format!(
            "auditloop: the arguments do not fit the tool's input schema: {e}"
        ))
    })
}

fn failure(words: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(words)])
}

/// A result whose text is what the command prints and whose structured content is `data`.
fn answer(text: String, data: &impl Serialize, is_error: bool) -> CallToolResult {
    let mut result = match serde_json::to_value(data) {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => return failure(format!("auditloop: {e}")),
    };
    result.content = vec![ContentBlock::text(text)];
    result.is_error = Some(is_error);
    result
}

fn problem_lines(problems: &[crate::engine::report::Problem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The report object as the text `validate` and `post` read.
fn report_text(report: serde_json::Map<String, serde_json::Value>) -> String {
    serde_json::to_string_pretty(&serde_json::Value::Object(report)).unwrap_or_default()
}

impl Tools {
    fn remote_args(&self, repo: &str, pr: u64) -> Result<RemoteArgs, CallToolResult> {
        let repo = RepoName::new(repo.to_owned())
            .map_err(|e| failure(format!("auditloop: invalid value '{repo}' for repo: {e}")))?;
        Ok(RemoteArgs {
            repo,
            pr,
            token: self.remote.token.clone(),
            github_api_url: self.remote.github_api_url.clone(),
            records_branch: None,
        })
    }
}

#[tool_router]
impl Tools {
    #[must_use]
    pub(crate) fn new(remote: Remote) -> Self {
        Tools {
            remote: Arc::new(remote),
            tool_router: Self::tool_router(),
        }
    }

    /// The audit packet of a PR's record, as `auditloop packet` prints it.
    #[tool(
        name = "audit_packet",
        description = "The audit packet of a pull request's audit record, read from the records branch: goal, completion oracle, evidence, the candidate to audit, covered tasks, budget left, previous runs with their findings and what became of them, vetoes and accepted limitations, the covered issues' text, the required checks on the candidate, the decision records to cite, and how to bind a report. The same JSON `auditloop packet` prints.",
        input_schema = input::<PullInput>(),
        output_schema = schema_for_output::<Packet>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn audit_packet(&self, Parameters(raw): Parameters<JsonObject>) -> CallToolResult {
        let run = async {
            let PullInput { repo, pr } = args(raw)?;
            let remote = self.remote_args(&repo, pr)?;
            let found = async {
                let api = remote.api()?;
                packet_json(&remote, &api).await
            };
            let value = found
                .await
                .map_err(|e| failure(format!("auditloop: {e:#}")))?;
            let text = serde_json::to_string_pretty(&value).unwrap_or_default();
            Ok::<_, CallToolResult>(answer(text, &Packet(value), false))
        };
        run.await.unwrap_or_else(|e| e)
    }

    /// The offline check `auditloop validate` makes of a report.
    #[tool(
        name = "validate_report",
        description = "Checks an auditor_report_v1 report as `auditloop validate` does, without posting it: `ok` with the normalized digest, or every problem as {path, rule, message}. Fix the report and call again.",
        input_schema = input::<ValidateInput>(),
        output_schema = schema_for_output::<ValidateOutput>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn validate_report(&self, Parameters(raw): Parameters<JsonObject>) -> CallToolResult {
        let ValidateInput { report } = match args(raw) {
            Ok(a) => a,
            Err(e) => return e,
        };
        match parse_report(&report_text(report)) {
            Ok(intake) => {
                let digest = intake.digest.to_string();
                let out = ValidateOutput {
                    ok: true,
                    digest: Some(digest.clone()),
                    problems: Vec::new(),
                };
                answer(digest, &out, false)
            }
            Err(problems) => {
                let out = ValidateOutput {
                    ok: false,
                    digest: None,
                    problems: problems.iter().map(ProblemOut::from).collect(),
                };
                answer(problem_lines(&problems), &out, false)
            }
        }
    }

    /// The gate of a PR's head, as `auditloop status --json` prints it.
    #[tool(
        name = "gate_status",
        description = "The gate of a pull request's head as auditloop computes it now: whether it passes, the check run's conclusion, every gate condition with its reason, and the record's state, budget and open findings. The same JSON `auditloop status --json` prints.",
        input_schema = input::<PullInput>(),
        output_schema = schema_for_output::<GateStatus>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn gate_status(&self, Parameters(raw): Parameters<JsonObject>) -> CallToolResult {
        let run = async {
            let PullInput { repo, pr } = args(raw)?;
            let remote = self.remote_args(&repo, pr)?;
            let read = async {
                let api = remote.api()?;
                status(&remote, &api, self.remote.operator_min).await
            };
            let (gate, damaged) = read
                .await
                .map_err(|e| failure(format!("auditloop: cannot tell: {e:#}")))?;
            if let Some(why) = damaged {
                return Err(failure(format!("auditloop: {}", damaged_words(&why))));
            }
            let text = serde_json::to_string_pretty(&gate).unwrap_or_default();
            Ok::<_, CallToolResult>(answer(text, &gate, false))
        };
        run.await.unwrap_or_else(|e| e)
    }

    /// Every audited open PR of a repository, as `auditloop status --repo --json` prints it.
    #[tool(
        name = "list_audits",
        description = "Every open pull request of a repository that has an audit record, in the audit dashboard's sections: its number and title, its record, its state and section (waiting on a maintainer, blocked, needs remediation, waiting on the auditor, certified), the check run's verdict line, who acts next (`waits_on`), since when, and whether its gate passes now. Use it to pick the next pull request to audit or fix. The same JSON `auditloop status --repo --json` prints.",
        input_schema = input::<RepoInput>(),
        output_schema = schema_for_output::<AuditList>(),
        annotations(read_only_hint = true, open_world_hint = true)
    )]
    async fn list_audits(&self, Parameters(raw): Parameters<JsonObject>) -> CallToolResult {
        let run = async {
            let RepoInput { repo } = args(raw)?;
            let remote = self.remote_args(&repo, 0)?;
            let read = async {
                let api = remote.api()?;
                repo_status(&remote, &api, self.remote.operator_min).await
            };
            let now = read
                .await
                .map_err(|e| failure(format!("auditloop: cannot tell: {e:#}")))?;
            let list = AuditList(repo_json(&now));
            let text = serde_json::to_string_pretty(&list).unwrap_or_default();
            Ok::<_, CallToolResult>(answer(text, &list, false))
        };
        run.await.unwrap_or_else(|e| e)
    }

    /// Checks a report and posts it as one `/audit report` comment, as `auditloop post`.
    #[tool(
        name = "post_report",
        description = "Checks an auditor_report_v1 report as `validate_report` does and posts it as one `/audit report` comment on the pull request, as `auditloop post` does. Nothing is posted when the report has a problem, or when `expect_run` names a run that already exists. The report is posted as the token's login: unless it is signed (or the repository sets `allow_self_audit: true`), the app refuses it as `self-audit` when that login is one of the pull request's implementers: its author, an account that pushed to it, or one GitHub links as author or committer of its commits.",
        input_schema = input::<PostInput>(),
        output_schema = schema_for_output::<PostOutput>(),
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    async fn post_report(&self, Parameters(raw): Parameters<JsonObject>) -> CallToolResult {
        let run = async {
            let PostInput {
                repo,
                pr,
                report,
                expect_run,
            } = args(raw)?;
            let remote = self.remote_args(&repo, pr)?;
            let body = match prepare(&report_text(report)) {
                Ok(body) => body,
                Err(Unpostable::Problems(problems)) => {
                    let lines = problem_lines(&problems);
                    let out = PostOutput {
                        posted: false,
                        comment_url: None,
                        reason: Some(format!(
                            "the report has {} problem(s); nothing was posted",
                            problems.len()
                        )),
                        problems: problems.iter().map(ProblemOut::from).collect(),
                    };
                    return Err(answer(lines, &out, true));
                }
                Err(Unpostable::TooLong(words)) => {
                    let out = PostOutput {
                        posted: false,
                        comment_url: None,
                        reason: Some(words.clone()),
                        problems: Vec::new(),
                    };
                    return Err(answer(format!("auditloop: {words}"), &out, true));
                }
            };
            let sent = async {
                let api = remote.api()?;
                send(&remote, &api, &body, expect_run).await
            };
            let sent = sent
                .await
                .map_err(|e| failure(format!("auditloop: {e:#}")))?;
            let posted = sent.posted;
            let out = PostOutput {
                posted,
                comment_url: sent.comment_url,
                reason: (!posted).then(|| sent.message.clone()),
                problems: Vec::new(),
            };
            Ok::<_, CallToolResult>(answer(sent.message, &out, false))
        };
        run.await.unwrap_or_else(|e| e)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("auditloop", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "auditloop's audit loop as tools: list a repository's audits, read a pull request's audit packet, validate a report, post it, and read the gate.",
            )
    }
}
