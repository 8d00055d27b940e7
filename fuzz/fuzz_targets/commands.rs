//! The `/audit` command parser: any comment body is either not a command, one typed
//! command, or a refusal; never a panic. The answer depends on the text alone, and the
//! same text quoted line by line (a reply citing it) is never a command.
#![no_main]

use auditloop::commands::parse_comment;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &str| {
    let first = parse_comment(body);
    let again = parse_comment(body);
    assert_eq!(first, again, "parsing is deterministic");
    if let Err(refusal) = &first {
        // The refusal text is what the reply shows; building it must not panic either.
        let _ = refusal.to_string();
    }
    let quoted: Vec<String> = body.split('\n').map(|line| format!("> {line}")).collect();
    assert_eq!(
        parse_comment(&quoted.join("\n")),
        Ok(None),
        "a quoted command is not a command"
    );
});
