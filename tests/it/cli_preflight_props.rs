//! No command line panics: any string for any flag of any command is parsed and checked
//! (`auditloop::cli::root::check`, what the binary does before a command runs) into a clean
//! refusal or a command ready to run; and the binary, given any API URL, ends with an exit
//! code and one line, never octocrab's panic (docs/reference.md#command-line).

use crate::cli_exit_codes::run_bare;

use proptest::prelude::*;

use auditloop::cli::preflight::Refusal;
use auditloop::cli::root::check;

/// Each command with the flags it takes (and `""` for a positional argument).
const COMMANDS: &[(&str, &[&str])] = &[
    (
        "packet",
        &["repo", "pr", "token", "github-api-url", "records-branch"],
    ),
    (
        "post",
        &[
            "repo",
            "pr",
            "token",
            "github-api-url",
            "records-branch",
            "expect-run",
            "error",
            "invocation",
            "",
        ],
    ),
    (
        "status",
        &[
            "repo",
            "pr",
            "token",
            "github-api-url",
            "records-branch",
            "min-assurance",
        ],
    ),
    ("mcp", &["token", "github-api-url", "min-assurance"]),
    ("validate", &[""]),
    ("sign", &["key", "key-id", "repository", "ttl", ""]),
    ("keygen", &["key-id", "out"]),
    ("healthcheck", &["listen", "timeout"]),
    ("setup", &["listen", "github-url", "org", "webhook-url"]),
    ("serve", &["github-api-url", "listen", "min-assurance"]),
];

/// A value: anything printable, or something close to what the flag wants.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,30}",
        "-{0,2}[a-z0-9/:._@?#%\\[\\]-]{0,24}",
        "https?://[a-z0-9.:\\[\\]-]{0,12}(/[a-zA-Z0-9%._~?=&-]{0,12})?",
        Just(String::new()),
    ]
}

/// The command line: the command, then each picked flag with its value (as `--flag=v`
/// or as two words), and a valid base so that most lines reach the checks.
fn command_line() -> impl Strategy<Value = Vec<String>> {
    (
        0..COMMANDS.len(),
        proptest::collection::vec((any::<prop::sample::Index>(), value(), any::<bool>()), 0..6),
        any::<bool>(),
    )
        .prop_map(|(pick, flags, based)| {
            let (command, names) = COMMANDS[pick];
            let mut line = vec!["auditloop".to_owned(), command.to_owned()];
            if based && names.contains(&"repo") {
                line.extend(["--repo=o/r", "--pr=1", "--token=t"].map(str::to_owned));
            }
            for (which, value, joined) in flags {
                match *which.get(names) {
                    "" => line.push(value),
                    flag if joined => line.push(format!("--{flag}={value}")),
                    flag => line.extend([format!("--{flag}"), value]),
                }
            }
            line
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_command_line_is_checked_without_a_panic(line in command_line()) {
        match check(line.clone(), &|_| None) {
            Ok(_) => {}
            Err(Refusal::Clap(e)) => {
                prop_assert!([0, 2].contains(&e.exit_code()), "{line:?}: {e}");
            }
            Err(refused @ Refusal::Invalid { .. }) => {
                prop_assert_eq!(refused.exit_code(), 2);
                let words = refused.words();
                prop_assert!(!words.trim().is_empty(), "{:?}", line);
                prop_assert!(!words.contains('\n'), "{:?}: {}", line, words);
            }
        }
    }
}

proptest! {
    // Each case runs the binary, and some reach the network (a local port nothing
    // listens on): few cases.
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn any_api_url_ends_with_an_exit_code_and_one_line(
        url in prop_oneof![
            "\\PC{0,30}",
            "[a-z]{1,5}:/{0,3}".prop_map(|scheme| format!("{scheme}127.0.0.1:9")),
            "(/[a-zA-Z0-9%._~-]{0,10})?(\\?[a-z=&]{0,8})?"
                .prop_map(|tail| format!("http://127.0.0.1:9{tail}")),
        ]
    ) {
        let args = ["status", "--repo", "o/r", "--pr", "1", "--token", "x", "--github-api-url", &url];
        let out = run_bare(&args, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        prop_assert!([2, 3].contains(&out.status.code().unwrap_or(-1)), "{:?}: {}", url, err);
        prop_assert!(!err.contains("panicked"), "{:?}: {}", url, err);
        prop_assert_eq!(err.lines().count(), 1, "{:?}: {}", url, err);
    }
}
