//! Typed commands from their sorted arguments, one function per command of docs/reference.md#commands.

use super::args::{id, invalid, list, Args};
use super::command::{ParsedCommand, ReportPayload, ResolveTarget};
use super::error::{excerpt, CommandError};
use crate::engine::policy::CommandName;
use crate::engine::record::{DispositionKind, WaiverBasis};
use crate::ids::{FindingId, FindingKey, LimitationId, TaskId, WorkUnit};

/// `payload` is `Some` exactly for `report`.
pub(crate) fn build(
    mut args: Args,
    payload: Option<ReportPayload>,
) -> Result<ParsedCommand, CommandError> {
    let command = match args.command() {
        CommandName::New => new(&mut args)?,
        CommandName::Adopt => {
            let value = args
                .next_positional()
                .ok_or(CommandError::MissingArgument {
                    command: CommandName::Adopt,
                    what: "the record to adopt, as in `/audit adopt AUD-7`",
                })?;
            ParsedCommand::Adopt {
                audit_id: id(CommandName::Adopt, "the record id", &value)?,
            }
        }
        CommandName::Report => report(&mut args, payload)?,
        CommandName::Baseline => ParsedCommand::Baseline {
            covered_tasks: args.list::<TaskId>("--covered-tasks")?,
            evidence: args.text("--evidence")?,
        },
        CommandName::Resolve => resolve(&mut args)?,
        CommandName::Override => ParsedCommand::Override {
            budget: args
                .positive("--budget")?
                .ok_or(CommandError::MissingFlag {
                    command: CommandName::Override,
                    flag: "--budget",
                })?,
            note: args.required_text("--note")?,
        },
        CommandName::Waive => waive(&mut args)?,
        CommandName::Veto => {
            let key = args
                .next_positional()
                .ok_or(CommandError::MissingArgument {
                    command: CommandName::Veto,
                    what: "the finding key to veto, as in `/audit veto webhook-replay`",
                })?;
            ParsedCommand::Veto {
                key: id::<FindingKey>(CommandName::Veto, "the finding key", &key)?,
                from_round: args.positive("--from-round")?,
                reason: args.required_text("--reason")?,
            }
        }
        CommandName::Dispose => dispose(&mut args)?,
        CommandName::Status => ParsedCommand::Status,
        CommandName::Gate => ParsedCommand::Gate,
        CommandName::Help => ParsedCommand::Help,
    };
    args.finish()?;
    Ok(command)
}

fn new(args: &mut Args) -> Result<ParsedCommand, CommandError> {
    let goal = args.required_text("--goal")?;
    let oracle = args.required_text("--oracle")?;
    let evidence = args.text("--evidence")?;
    let covered_tasks = args.list::<TaskId>("--covered-tasks")?;
    let work_unit = args.id::<WorkUnit>("--work-unit")?;
    let budget = args.positive("--budget")?;
    if let Some(unit) = &work_unit {
        if !unit.is_pull_request() && covered_tasks.is_none() {
            return Err(CommandError::CoveredTasksRequired {
                work_unit: unit.to_string(),
            });
        }
    }
    Ok(ParsedCommand::New {
        goal,
        oracle,
        evidence,
        covered_tasks,
        work_unit,
        budget,
    })
}

fn report(args: &mut Args, payload: Option<ReportPayload>) -> Result<ParsedCommand, CommandError> {
    // `parse_comment` always reads a payload for `report`; this only keeps `build` total.
    let payload = payload.ok_or(CommandError::MissingPayload {
        other_blocks: Vec::new(),
    })?;
    let audit_id = args.id("--audit-id")?;
    let invocation = match args.optional("--invocation") {
        Some(value) if value.trim().is_empty() => {
            return Err(invalid(
                CommandName::Report,
                "`--invocation`",
                "it is blank",
                "the auditor's invocation reference, such as ci-run-88123-1",
            ))
        }
        other => other,
    };
    let candidate = args.id("--candidate")?;
    if matches!(payload, ReportPayload::Handoff(_)) {
        let missing = [
            ("--audit-id", audit_id.is_none()),
            ("--invocation", invocation.is_none()),
            ("--candidate", candidate.is_none()),
        ];
        if let Some((flag, _)) = missing.into_iter().find(|(_, absent)| *absent) {
            return Err(CommandError::HandoffNeedsFlag { flag });
        }
    }
    Ok(ParsedCommand::Report {
        audit_id,
        invocation,
        candidate,
        payload,
    })
}

fn resolve(args: &mut Args) -> Result<ParsedCommand, CommandError> {
    let target = match args.next_positional() {
        None => ResolveTarget::Decision,
        Some(value) if value.trim_start().starts_with("A-") => {
            if value.contains(',') {
                return Err(invalid(
                    CommandName::Resolve,
                    "the finding id",
                    format!("{:?} names several findings", excerpt(&value)),
                    "one finding id, such as A-03 (one `/audit resolve` per finding)",
                ));
            }
            ResolveTarget::Finding(id::<FindingId>(
                CommandName::Resolve,
                "the finding id",
                &value,
            )?)
        }
        Some(value) => ResolveTarget::Limitations(list::<LimitationId>(
            CommandName::Resolve,
            "the limitation ids",
            &value,
        )?),
    };
    Ok(ParsedCommand::Resolve {
        target,
        note: args.required_text("--note")?,
    })
}

fn waive(args: &mut Args) -> Result<ParsedCommand, CommandError> {
    let value = args
        .next_positional()
        .ok_or(CommandError::MissingArgument {
            command: CommandName::Waive,
            what: "the findings to waive, as in `/audit waive A-01,A-02`",
        })?;
    let findings = list::<FindingId>(CommandName::Waive, "the finding ids", &value)?;
    let basis = match args.required("--basis")?.as_str() {
        "triage-threshold" => WaiverBasis::TriageThreshold,
        "cross-remit" => WaiverBasis::CrossRemit,
        other => {
            return Err(invalid(
                CommandName::Waive,
                "`--basis`",
                format!("{:?} is not a waiver basis", excerpt(other)),
                "`triage-threshold` or `cross-remit`",
            ))
        }
    };
    Ok(ParsedCommand::Waive {
        findings,
        basis,
        reason: args.required_text("--reason")?,
    })
}

fn dispose(args: &mut Args) -> Result<ParsedCommand, CommandError> {
    let missing = |what| CommandError::MissingArgument {
        command: CommandName::Dispose,
        what,
    };
    let finding = args
        .next_positional()
        .ok_or(missing("the finding id, as in `/audit dispose A-01 fix`"))?;
    let finding = id::<FindingId>(CommandName::Dispose, "the finding id", &finding)?;
    let kind = args.next_positional().ok_or(missing(
        "a disposition after the finding id: fix, file, reject or follow-up",
    ))?;
    let disposition = match kind.as_str() {
        "fix" => DispositionKind::Fix,
        "file" => DispositionKind::File,
        "reject" => DispositionKind::Reject,
        "follow-up" => DispositionKind::FollowUp,
        other => {
            return Err(invalid(
                CommandName::Dispose,
                "the disposition",
                format!("{:?} is not a disposition", excerpt(other)),
                "`fix`, `file`, `reject` or `follow-up`",
            ))
        }
    };
    Ok(ParsedCommand::Dispose {
        finding,
        disposition,
        note: args.required_text("--note")?,
    })
}
