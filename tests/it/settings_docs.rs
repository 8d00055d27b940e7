//! The settings tables of README.md and docs/reference.md list exactly the operator
//! settings `operator_config.rs` defines, each with its flag, its Probot name (where the
//! table has that column) and its default.

use std::collections::BTreeMap;

use auditloop::operator_config::SETTINGS;

/// What a table says of one setting.
#[derive(Debug, PartialEq)]
struct Row {
    flag: String,
    probot: Option<String>,
    default: Option<String>,
}

fn doc(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The code span a cell starts with (`0.0.0.0:3000`; then prose); none when it starts with
/// words ("required", "none") or is empty.
fn code(cell: &str) -> Option<String> {
    let rest = cell.strip_prefix('`')?;
    rest.split_once('`').map(|(span, _)| span.to_owned())
}

/// A row's cells; no cell of these tables holds a `|`.
fn cells(line: &str) -> Vec<&str> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    line.split('|').map(str::trim).collect()
}

/// The rows, by variable, of the table whose header starts `| variable | flag |`, and
/// whether it has a Probot column.
fn table(text: &str) -> (BTreeMap<String, Row>, bool) {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.starts_with("| variable | flag |"));
    let header = cells(lines.next().expect("a table headed `| variable | flag |`"));
    let column = |name: &str| header.iter().position(|h| *h == name);
    let default = column("default").expect("a default column");
    let probot = column("Probot name");
    let mut rows = BTreeMap::new();
    for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
        let cells = cells(line);
        assert_eq!(cells.len(), header.len(), "a row of {header:?}: {line}");
        rows.insert(
            code(cells[0]).unwrap_or_else(|| cells[0].to_owned()),
            Row {
                flag: code(cells[1]).unwrap_or_else(|| cells[1].to_owned()),
                probot: probot.and_then(|p| code(cells[p])),
                default: code(cells[default]),
            },
        );
    }
    (rows, probot.is_some())
}

fn shown(value: Option<&String>) -> String {
    value.map_or("none".into(), |v| format!("`{v}`"))
}

/// What the document's table says differently from `operator_config.rs`, one line each.
fn drift(text: &str) -> Vec<String> {
    let (mut rows, has_probot) = table(text);
    let mut found = Vec::new();
    for setting in SETTINGS {
        let name = setting.name();
        let expected = Row {
            flag: format!("--{}", setting.flag),
            probot: setting.env.get(1).map(|p| (*p).to_owned()),
            default: setting.default_text(),
        };
        let Some(row) = rows.remove(name) else {
            found.push(format!(
                "missing: `{name}` (`{}`, default {})",
                expected.flag,
                shown(expected.default.as_ref())
            ));
            continue;
        };
        if row.flag != expected.flag {
            found.push(format!(
                "`{name}`: the table says flag `{}`, operator_config.rs `{}`",
                row.flag, expected.flag
            ));
        }
        if has_probot && row.probot != expected.probot {
            found.push(format!(
                "`{name}`: the table says Probot name {}, operator_config.rs {}",
                shown(row.probot.as_ref()),
                shown(expected.probot.as_ref())
            ));
        }
        if row.default != expected.default {
            found.push(format!(
                "`{name}`: the table says default {}, operator_config.rs {}",
                shown(row.default.as_ref()),
                shown(expected.default.as_ref())
            ));
        }
    }
    for name in rows.keys() {
        found.push(format!("not in operator_config.rs: `{name}`"));
    }
    found
}

#[test]
fn the_readme_and_the_reference_list_every_operator_setting_with_its_default() {
    for path in ["README.md", "docs/reference.md"] {
        let found = drift(&doc(path));
        assert!(
            found.is_empty(),
            "{path}'s settings table differs from src/operator_config.rs:\n  {}",
            found.join("\n  ")
        );
    }
}

#[test]
fn a_table_that_drifts_is_caught() {
    let drifted = doc("README.md")
        .replace("| `300` |", "| `301` |")
        .replace("| `--listen` |", "| `--bind` |")
        .lines()
        .filter(|l| !l.starts_with("| `AUDITLOOP_LOG_FORMAT`"))
        .collect::<Vec<_>>()
        .join("\n")
        .replacen(
            "| `AUDITLOOP_LOG` |",
            "| `AUDITLOOP_COLOR` | `--color` | colours | `auto` |\n| `AUDITLOOP_LOG` |",
            1,
        );
    assert_eq!(
        drift(&drifted),
        [
            "`AUDITLOOP_LISTEN`: the table says flag `--bind`, operator_config.rs `--listen`",
            "`AUDITLOOP_REDELIVER_INTERVAL`: the table says default `301`, operator_config.rs `300`",
            "missing: `AUDITLOOP_LOG_FORMAT` (`--log-format`, default `pretty`)",
            "not in operator_config.rs: `AUDITLOOP_COLOR`",
        ]
    );
    let drifted = doc("docs/reference.md").replace("| `--app-id` | `APP_ID` |", "| `--app-id` | |");
    assert_eq!(
        drift(&drifted),
        ["`AUDITLOOP_APP_ID`: the table says Probot name none, operator_config.rs `APP_ID`"]
    );
}
