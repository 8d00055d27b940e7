//! Decisions applied to the records branch: one commit made with a compare-and-swap on
//! the head it was decided on, and made again on conflict. What it reads is `reads/`.

pub(crate) mod commit_loop;
pub(crate) mod decision;
pub(crate) mod dispatch;
pub(crate) mod filing;
pub(crate) mod learning;
