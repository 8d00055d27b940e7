//! Pushes by someone else that the tests land just before the app's next update of a
//! branch (`FakeGitHub::move_ref_once`, `FakeGitHub::lose_update_then_move`).

use super::fake::State;

/// A commit someone else pushes to `branch` just before the app's next ref update of it.
#[derive(Debug, Clone)]
pub struct RefMove {
    pub repo: String,
    pub branch: String,
    pub files: Vec<(String, String)>,
    pub message: String,
}

/// Lands the first pending push by someone else to `branch` (`FakeGitHub::move_ref_once`):
/// called just before each update of the branch, REST or GraphQL.
pub fn fire_ref_moves(state: &mut State, repo: &str, branch: &str) {
    if let Some(pos) = state
        .ref_moves
        .iter()
        .position(|m| m.repo == repo && m.branch == branch)
    {
        let m = state.ref_moves.remove(pos);
        let git = state.git.entry(m.repo).or_default();
        git.commit_files(&m.branch, &m.files, &m.message);
    }
}
