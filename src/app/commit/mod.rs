//! Decisions applied to the records branch: one commit made with a compare-and-swap on
//! the head it was decided on, and made again on conflict. What it reads is `reads/`.

pub mod decision;
pub mod dispatch;
pub mod filing;
pub mod learning;
pub mod store;
