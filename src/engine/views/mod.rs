//! Views of a record as data: PR-body sections, check-run text, replies.
