//! Decisions applied to the records branch: the state read, the lineage checked, one
//! commit made with a non-forced ref update and made again on conflict.

pub mod decision;
pub mod dispatch;
pub mod filing;
pub mod learning;
pub mod lineage;
pub mod loading;
pub mod state;
pub mod store;
