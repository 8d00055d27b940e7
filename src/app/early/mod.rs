//! What a delivery does before its handler, at once: the reads its event will need, in
//! one query where it can (`prefetch`), and the claims that ride with them, so that a
//! command's outcome and a reply's claim cost no round of their own (`claims`).

pub(crate) mod claims;
pub(crate) mod prefetch;
