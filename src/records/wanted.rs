//! Which files of the records branch a read fetches. A read goes in rounds ("the index,
//! then the record it names"), and each round asks once for a picker that is then asked
//! per path: a picker that needs the index parses it once per round, not once per path
//! (with 10,000 records, per path would parse a large index 20,000 times).

use super::Files;

/// Picks the paths to read, given the files read in earlier rounds.
pub trait Wanted {
    /// The picker for one round.
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a;
}

/// A plain `(path, files) -> bool`, for pickers that look at the path alone.
impl<F: Fn(&str, &Files) -> bool> Wanted for F {
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a {
        move |path| self(path, files)
    }
}

/// A picker built once per round from what that round knows (say, the parsed index).
pub(crate) struct PerRound<F>(pub(crate) F);

impl<F, P> Wanted for PerRound<F>
where
    F: Fn(&Files) -> P,
    // The picker owns what it built: it cannot borrow from one round's files.
    P: Fn(&str) -> bool + 'static,
{
    fn round<'a>(&'a self, files: &'a Files) -> impl Fn(&str) -> bool + 'a {
        (self.0)(files)
    }
}
