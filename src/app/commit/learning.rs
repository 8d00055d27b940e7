//! What a change teaches (docs/reference.md#learning-across-audits): when it makes a record certified or blocked, the
//! pattern library changes in the same commit; a certified or blocked record's Markdown
//! gains its Lessons. Applied to every change the commit loop makes, whichever decision
//! made it, so no path can end a record without the library hearing of it.

use crate::app::reads::state::State;
use crate::engine::patterns::{apply, learned, Library, PATTERNS_PATH};
use crate::engine::record::Record;
use crate::engine::views::lessons;
use crate::records::Change;

/// The record as `state` held it before this change, when it held it.
fn before<'s>(state: &'s State, after: &Record) -> Option<&'s Record> {
    [&state.record, &state.named]
        .into_iter()
        .filter_map(|r| r.as_ref()?.as_ref().ok())
        .find(|r| r.id == after.id)
}

/// `change` with the library update and the Lessons its records call for. With
/// `enabled` false (`patterns: false`) no library is read or written. A library that does
/// not parse is left as it is, never overwritten.
pub(crate) fn learn(enabled: bool, state: &State, mut change: Change) -> Change {
    let (mut library, unread): (Option<Library>, Option<&str>) = match (&state.patterns, enabled) {
        (_, false) => (None, None),
        (None, true) => (Some(Library::default()), None),
        (Some(Ok(library)), true) => (Some(library.clone()), None),
        (Some(Err(why)), true) => (None, Some(why.as_str())),
    };
    let records: Vec<Record> = change
        .files
        .iter()
        .filter(|(path, _)| crate::engine::layout::record_at(path).is_some())
        .filter_map(|(_, text)| serde_json::from_str(text).ok())
        .collect();
    let mut changed = false;
    for after in &records {
        let taught = learned(before(state, after), after);
        // Said only when a record had something to teach it: most changes teach nothing.
        if let (Some(why), Some(_)) = (unread, &taught) {
            tracing::warn!(why, record = %after.id, "the pattern library is left alone");
        }
        if let (Some(current), Some(taught)) = (&library, taught) {
            let (next, touched) = apply(current, &after.id, &taught);
            tracing::info!(record = %after.id, created = ?touched.created, updated = ?touched.updated, "pattern library");
            changed |= &next != current;
            library = Some(next);
        }
        let section = lessons::render(after, library.as_ref().filter(|_| enabled));
        let md = crate::engine::layout::record_md_path(&after.id);
        if let (Some(section), Some(text)) = (section, change.files.get_mut(&md)) {
            text.push('\n');
            text.push_str(&section);
        }
    }
    if let (true, Some(library)) = (changed, &library) {
        change
            .files
            .insert(PATTERNS_PATH.to_owned(), library.to_json());
    }
    change
}
