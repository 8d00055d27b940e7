//! Which files of the records branch a read fetches. A read goes in rounds ("the index,
//! then the record it names"), and each round asks once for a picker that is then asked
//! per path: a picker that needs the index parses it once per round, not once per path
//! (with 10,000 records, per path would parse a large index 20,000 times).

use super::Files;

/// How many times `wanted` is asked again after new files arrive ("read the index, then
/// the record it names" takes two rounds).
pub(crate) const MAX_LOAD_ROUNDS: usize = 3;

/// Picks the paths to read, given the files read in earlier rounds.
pub trait Wanted {
    /// The picker for one round.
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a;

    /// The paths the round picks, when it can name them: a branch of layout version 2 is
    /// read by path, and a picker that cannot name its paths reads the branch's listing.
    fn named(&self, _files: &Files) -> Option<Vec<String>> {
        None
    }
}

/// A plain `(path, files) -> bool`, for pickers that look at the path alone.
impl<F: Fn(&str, &Files) -> bool> Wanted for F {
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a {
        move |path| self(path, files)
    }
}

/// A picker that names its paths, built once per round from what that round knows: the
/// index (on layout version 2, `next.json` and the shards named), then the records it
/// names.
pub(crate) struct Named<F>(pub(crate) F);

impl<F> Wanted for Named<F>
where
    F: Fn(&Files) -> Vec<String>,
{
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a {
        let paths = (self.0)(files);
        move |path| paths.iter().any(|p| p == path)
    }

    fn named(&self, files: &Files) -> Option<Vec<String>> {
        Some((self.0)(files))
    }
}
