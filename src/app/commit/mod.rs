//! Decisions applied to the records branch: who may run a command (`authorize`), a
//! command's or a push's decision (`decision/`, `rebind`), one commit made with a
//! compare-and-swap on the head it was decided on and made again on conflict, and what a
//! change makes due (a dispatch, a filed issue). What it reads is `reads/`.

pub(crate) mod authorize;
pub(crate) mod commit_loop;
pub(crate) mod decision;
pub(crate) mod dispatch;
pub(crate) mod filing;
pub(crate) mod learning;
pub(crate) mod rebind;
