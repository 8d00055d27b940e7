//! ARCHITECTURE.md's claims about the App's rooms hold: the rooms it lists under
//! "The App's rooms" are exactly the directories of `src/app/`, and each room names only
//! rooms listed before it (the floors point down); a `Ctx` is built only in
//! `src/app/context/`. Each check has a fixture that breaks it, so it is seen to fail.

use std::path::Path;

use crate::support::sources::rust_sources;

/// The rooms the document lists, lowest first: the first word (`reads/`) of each line of
/// the fenced block after the line that starts `The App's rooms`.
fn listed_rooms(architecture: &str) -> Vec<String> {
    let after = architecture
        .split("\nThe App's rooms")
        .nth(1)
        .expect("ARCHITECTURE.md lists `The App's rooms`");
    let block = after
        .split("```")
        .nth(1)
        .expect("the rooms are listed in a fenced block");
    block
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|w| w.strip_suffix('/'))
        .map(str::to_owned)
        .collect()
}

/// The code of a file without its comments: what it names, not what it mentions.
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each `(file's room, room it names)` where the named room is not listed before the
/// file's own; `files` are `(path under src/app/, text)`.
fn upward(rooms: &[String], files: &[(String, String)]) -> Vec<String> {
    let rank = |r: &str| rooms.iter().position(|x| x == r);
    let mut found = Vec::new();
    for (path, text) in files {
        let Some((room, _)) = path.split_once('/') else {
            continue;
        };
        let Some(own) = rank(room) else { continue };
        let code = code(text);
        for named in code.split("crate::app::").skip(1) {
            let name: String = named
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if let Some(other) = rank(&name) {
                if other > own {
                    found.push(format!("src/app/{path} names {name}/"));
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

fn app_files() -> Vec<(String, String)> {
    rust_sources()
        .into_iter()
        .filter_map(|(path, text)| Some((path.strip_prefix("src/app/")?.to_owned(), text)))
        .collect()
}

fn architecture() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
        .expect("ARCHITECTURE.md")
}

#[test]
fn the_listed_rooms_are_the_apps_directories() {
    let listed = listed_rooms(&architecture());
    let mut dirs: Vec<String> = app_files()
        .iter()
        .filter_map(|(p, _)| Some(p.split_once('/')?.0.to_owned()))
        .collect();
    dirs.sort();
    dirs.dedup();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, dirs, "ARCHITECTURE.md lists {listed:?}");
}

#[test]
fn each_room_names_only_rooms_below_it() {
    let rooms = listed_rooms(&architecture());
    let up = upward(&rooms, &app_files());
    assert!(
        up.is_empty(),
        "rooms naming a room above them:\n{}",
        up.join("\n")
    );
}

#[test]
fn a_room_naming_one_above_it_is_found() {
    let rooms: Vec<String> = ["context", "reads", "publish"].map(String::from).to_vec();
    let files = [
        (
            "reads/observe.rs",
            "use crate::app::publish::body;\n// crate::app::publish is only mentioned",
        ),
        ("publish/body.rs", "use crate::app::reads::observe;"),
        ("context/mod.rs", "/// see [`crate::app::reads`]"),
    ]
    .map(|(p, t)| (p.to_owned(), t.to_owned()));
    assert_eq!(
        upward(&rooms, &files),
        ["src/app/reads/observe.rs names publish/"]
    );
}

/// Files outside `src/app/context/` that build a `Ctx` by struct literal.
fn ctx_literals(files: &[(String, String)]) -> Vec<String> {
    files
        .iter()
        .filter(|(p, _)| !p.starts_with("context/"))
        .filter(|(_, t)| {
            // A literal, not a signature's return type (`-> Ctx {`) nor an `impl Ctx {`.
            let code = code(t);
            code.match_indices("Ctx {").any(|(i, _)| {
                let before = code[..i].trim_end();
                !before.ends_with("->") && !before.ends_with("impl")
            })
        })
        .map(|(p, _)| format!("src/app/{p}"))
        .collect()
}

#[test]
fn a_ctx_is_built_only_in_the_context_room() {
    let built = ctx_literals(&app_files());
    assert!(built.is_empty(), "{built:?}");
    let fixture = [(
        "handlers/x.rs".to_owned(),
        "let c = Ctx { api };".to_owned(),
    )];
    assert_eq!(ctx_literals(&fixture), ["src/app/handlers/x.rs"]);
}
