//! The index in layout version 2 (docs/reference.md#layout-version-2): `layout.json`, the
//! next number in `next.json`, and each uniqueness map split into shards by a hash prefix
//! of its keys, so that a change rewrites only the shards of the keys it touches.
//!
//! A read assembles an index from `next.json` and the shards it read: that index is
//! partial, and exact on the keys of those shards. A change is written as the shards whose
//! keys changed, each rewritten whole from the index it was decided on, so each of those
//! shards must have been read first ([`Written::unread`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::Index;
use crate::ids::AuditId;
use crate::layout::{shard_at, shard_path, IndexMap, LAYOUT_VERSION};

/// One shard: its keys and the records they name.
type Shard = BTreeMap<String, AuditId>;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Next {
    next: u64,
}

#[derive(Serialize, Deserialize)]
struct Layout {
    version: u32,
}

fn pretty<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}

/// `layout.json` of this build's layout.
#[must_use]
pub fn layout_json() -> String {
    pretty(&Layout {
        version: LAYOUT_VERSION,
    })
}

/// The version `layout.json` holds.
///
/// # Errors
///
/// When the text is not a layout marker.
pub fn layout_version(text: &str) -> Result<u32, serde_json::Error> {
    serde_json::from_str::<Layout>(text).map(|l| l.version)
}

/// `next.json` holding `next`.
#[must_use]
pub fn next_json(next: u64) -> String {
    pretty(&Next { next })
}

fn map_of(index: &Index, map: IndexMap) -> &BTreeMap<String, AuditId> {
    match map {
        IndexMap::WorkUnits => &index.work_units,
        IndexMap::Pulls => &index.pulls,
        IndexMap::Invocations => &index.invocations,
        IndexMap::Receipts => &index.receipts,
        IndexMap::Tasks => &index.tasks,
    }
}

fn map_of_mut(index: &mut Index, map: IndexMap) -> &mut BTreeMap<String, AuditId> {
    match map {
        IndexMap::WorkUnits => &mut index.work_units,
        IndexMap::Pulls => &mut index.pulls,
        IndexMap::Invocations => &mut index.invocations,
        IndexMap::Receipts => &mut index.receipts,
        IndexMap::Tasks => &mut index.tasks,
    }
}

/// The shard at `path`, built from the entries of `index` that belong to it.
fn shard_text(index: &Index, map: IndexMap, path: &str) -> String {
    let shard: Shard = map_of(index, map)
        .iter()
        .filter(|(k, _)| shard_path(map, k) == path)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    pretty(&shard)
}

/// Every file of `index` in version 2: `next.json` and every shard that holds a key (the
/// conversion of a version-1 branch).
#[must_use]
pub fn split(index: &Index) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    files.insert(crate::layout::NEXT_PATH.to_owned(), next_json(index.next));
    for map in IndexMap::ALL {
        let mut shards: BTreeMap<String, Shard> = BTreeMap::new();
        for (key, id) in map_of(index, map) {
            let shard = shards.entry(shard_path(map, key)).or_default();
            shard.insert(key.clone(), id.clone());
        }
        files.extend(
            shards
                .into_iter()
                .map(|(path, shard)| (path, pretty(&shard))),
        );
    }
    files
}

/// The index `next.json` and the `shards` read (path to text) hold.
///
/// # Errors
///
/// A file that does not parse, or a key filed in a shard its hash does not name (a hand
/// edit): said in words for the damage report.
pub fn assemble<'a>(
    next: &str,
    shards: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<Index, String> {
    let next: Next = serde_json::from_str(next).map_err(|e| format!("next.json: {e}"))?;
    let mut index = Index {
        next: next.next,
        ..Index::default()
    };
    for (path, text) in shards {
        let Some(map) = shard_at(path) else { continue };
        let shard: Shard = serde_json::from_str(text).map_err(|e| format!("{path}: {e}"))?;
        for (key, id) in shard {
            if shard_path(map, &key) != *path {
                return Err(format!(
                    "{path}: holds {key:?}, which belongs to another shard"
                ));
            }
            map_of_mut(&mut index, map).insert(key, id);
        }
    }
    Ok(index)
}

/// What a change of the index from `base` to `new` writes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Path to text: `next.json` when the number moved, and each shard a changed key is in.
    pub files: BTreeMap<String, String>,
}

impl Written {
    /// The shards written that are not among `read`: the change was decided without them,
    /// so it must be decided again once they are read.
    pub fn unread<'a>(&'a self, read: &'a BTreeSet<String>) -> impl Iterator<Item = &'a String> {
        self.files
            .keys()
            .filter(move |p| shard_at(p).is_some() && !read.contains(*p))
    }
}

/// The files that carry the change from `base` to `new`: a shard is rewritten whole from
/// `new`, so it must have been read into `base` (see [`Written::unread`]).
#[must_use]
pub fn written(base: &Index, new: &Index) -> Written {
    let mut files = BTreeMap::new();
    if new.next != base.next {
        files.insert(crate::layout::NEXT_PATH.to_owned(), next_json(new.next));
    }
    for map in IndexMap::ALL {
        let (before, after) = (map_of(base, map), map_of(new, map));
        let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
        for key in keys {
            if before.get(key) != after.get(key) {
                let path = shard_path(map, key);
                if let std::collections::btree_map::Entry::Vacant(e) = files.entry(path) {
                    let text = shard_text(new, map, e.key());
                    e.insert(text);
                }
            }
        }
    }
    Written { files }
}

/// The shard paths of `keys` in `map`: what a read names to see those keys.
#[must_use]
pub fn shards_of<'a>(map: IndexMap, keys: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let paths: BTreeSet<String> = keys.into_iter().map(|k| shard_path(map, k)).collect();
    paths.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::NEXT_PATH;

    fn id(n: u64) -> AuditId {
        AuditId::from_number(n)
    }

    fn index(n: u64) -> Index {
        let mut index = Index {
            next: n + 1,
            ..Index::default()
        };
        for i in 1..=n {
            index.pulls.insert(i.to_string(), id(i));
            index.work_units.insert(format!("pr:{i}"), id(i));
            index.invocations.insert(format!("ci-run-{i}-1"), id(i));
            index.receipts.insert(format!("r-{i}"), id(i));
        }
        index.tasks.insert("#1".into(), id(1));
        index
    }

    #[test]
    fn split_and_assembled_again_is_the_same_index() {
        let whole = index(300);
        let files = split(&whole);
        let shards = files.iter().filter(|(p, _)| shard_at(p).is_some());
        assert_eq!(assemble(&files[NEXT_PATH], shards).unwrap(), whole);
    }

    #[test]
    fn a_change_writes_only_the_shards_of_its_keys() {
        let whole = index(2_000);
        let files = split(&whole);
        // What a report on PR 42 reads: next, and the shards of the keys it adds.
        let reads: BTreeSet<String> = [
            shard_path(IndexMap::Invocations, "ci-run-42-2"),
            shard_path(IndexMap::Receipts, "r-42-2"),
        ]
        .into();
        let base = assemble(
            &files[NEXT_PATH],
            files.iter().filter(|(p, _)| reads.contains(*p)),
        )
        .unwrap();
        let mut new = base.clone();
        new.invocations.insert("ci-run-42-2".into(), id(42));
        new.receipts.insert("r-42-2".into(), id(42));
        let w = written(&base, &new);
        assert_eq!(w.files.len(), 2, "{:?}", w.files.keys());
        assert_eq!(w.unread(&reads).count(), 0);
        // Written over the whole index, the shards hold everything they held, and the key.
        let mut all = files.clone();
        all.extend(w.files.clone());
        let after = assemble(&all[NEXT_PATH], all.iter()).unwrap();
        let mut want = whole.clone();
        want.invocations.insert("ci-run-42-2".into(), id(42));
        want.receipts.insert("r-42-2".into(), id(42));
        assert_eq!(after, want);
        // Decided without the shard: it is asked for.
        let w = written(
            &Index {
                next: base.next,
                ..Index::default()
            },
            &{
                let mut n = Index {
                    next: base.next + 1,
                    ..Index::default()
                };
                n.pulls.insert("7".into(), id(7));
                n
            },
        );
        let none = BTreeSet::new();
        assert_eq!(
            w.unread(&none).cloned().collect::<Vec<_>>(),
            [shard_path(IndexMap::Pulls, "7")]
        );
        assert!(w.files.contains_key(NEXT_PATH));
    }

    #[test]
    fn a_key_in_the_wrong_shard_is_damage() {
        let mut files = split(&index(3));
        let path = shard_path(IndexMap::Pulls, "1");
        let elsewhere = (0..1_000)
            .map(|i| format!("x{i}"))
            .find(|k| shard_path(IndexMap::Pulls, k) != path)
            .unwrap();
        files.insert(path, format!("{{\"{elsewhere}\": \"AUD-1\"}}"));
        let err = assemble(&files[NEXT_PATH], files.iter()).unwrap_err();
        assert!(err.contains("belongs to another shard"), "{err}");
        assert_eq!(layout_version(&layout_json()).unwrap(), LAYOUT_VERSION);
    }
}
